//! The property B/F is built for (Motik et al., AAAI 2015): it deletes only facts that lost
//! every derivation. On a positive program, `bf`'s deleted set in a batch is exactly the old
//! IDB minus the least model of the program over E \ E− (computed here by the independent
//! `oracle`), so on a batch without insertions it is the batch's net removal; it never puts a
//! fact back (`rederived` = 0), and its `disproved` counter equals what it deleted. Checked on
//! every batch of random positive cases from the shared generator, whole and split into
//! deletion-only and insertion-only batches; with non-triviality figures.

use std::collections::BTreeSet;

use dred_core::testing::{random_case, Features};
use dred_core::{Batch, Bf, Engine, Fact, Oracle, Phase, RequestedBatch};
use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::TestRunner;

/// What one case showed: batches run, batches in which `bf` deleted a derived fact, and
/// batches in which DRed's over-deletion would have been larger (a fact deleted and put
/// back) — measured with `dred` beside it.
#[derive(Default, Debug, Clone, Copy)]
struct Seen {
    batches: usize,
    deleted: usize,
    dred_overdeleted_more: usize,
}

fn check_case(case: &dred_core::testing::RandomCase) -> Result<Seen, TestCaseError> {
    let loaded = case.load().map_err(TestCaseError::fail)?;
    let program = loaded.program.clone();
    let mut bf = Bf::new(program.clone());
    let mut dred = dred_core::Dred::new(program.clone());
    let mut edb = loaded.edb.clone();
    bf.materialise(&edb)
        .map_err(|e| TestCaseError::fail(e.to_string()))?;
    dred.materialise(&edb)
        .map_err(|e| TestCaseError::fail(e.to_string()))?;
    let mut seen = Seen::default();
    for (i, requested) in loaded.batches.iter().enumerate() {
        let batch = Batch::normalise(requested, &edb);
        let old = bf.model();
        // The least model over E \ E-, by the oracle.
        let mut survivors = edb.clone();
        survivors.apply(&Batch::normalise(
            &RequestedBatch {
                deletions: batch.deletions.clone(),
                insertions: Vec::new(),
            },
            &edb,
        ));
        let mut oracle = Oracle::new(program.clone());
        oracle
            .materialise(&survivors)
            .map_err(|e| TestCaseError::fail(e.to_string()))?;
        let expected: BTreeSet<Fact> = old
            .minus(&oracle.model())
            .into_iter()
            .flat_map(|(rel, tuples)| tuples.into_iter().map(move |t| Fact::new(rel, t)))
            .collect();

        let report = bf
            .apply(&batch)
            .map_err(|e| TestCaseError::fail(e.to_string()))?;
        let dred_report = dred
            .apply(&batch)
            .map_err(|e| TestCaseError::fail(e.to_string()))?;
        edb.apply(&batch);
        let deleted: BTreeSet<Fact> = report
            .rounds
            .iter()
            .filter(|r| r.phase == Phase::Delete)
            .flat_map(|r| r.facts.iter().cloned())
            .filter(|f| program.is_idb(f.rel))
            .collect();
        prop_assert_eq!(
            &deleted,
            &expected,
            "batch {}: bf's deleted set is not old IDB minus the model of E \\ E-\n{}",
            i + 1,
            case.program()
        );
        prop_assert_eq!(report.overdeleted, Some(deleted.len()));
        prop_assert_eq!(report.disproved, Some(deleted.len() as u64));
        prop_assert_eq!(report.rederived, Some(0));
        if batch.insertions.is_empty() {
            let change = bf.net_change().expect("bf reports its net change");
            prop_assert_eq!(change.removed, deleted.len());
            prop_assert_eq!(change.added, 0);
        }
        prop_assert_eq!(bf.model(), dred.model(), "batch {}", i + 1);
        seen.batches += 1;
        seen.deleted += usize::from(!deleted.is_empty());
        seen.dred_overdeleted_more +=
            usize::from(dred_report.overdeleted.unwrap_or(0) > deleted.len());
    }
    Ok(seen)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn bf_deletes_exactly_what_lost_every_derivation(
        case in prop_oneof![random_case(false), random_case(false).prop_map(|c| c.split_batches())]
    ) {
        check_case(&case)?;
    }
}

/// The property is not vacuous: on a fixed sample of split cases, the share of cases with a
/// batch in which `bf` deleted a derived fact, and with one in which `dred` over-deleted more
/// than `bf` deleted (facts `bf` kept by a check, which DRed deletes and puts back).
#[test]
fn bf_cases_delete_and_keep() {
    const SAMPLE: usize = 300;
    let mut runner = TestRunner::deterministic();
    let strategy = random_case(false).prop_map(|c| c.split_batches());
    let (mut batches, mut deleting, mut keeping) = (Seen::default(), 0, 0);
    let (mut solvable, mut solvable_deleting) = (0, 0);
    for _ in 0..SAMPLE {
        let case = strategy.new_tree(&mut runner).expect("a case").current();
        let seen = check_case(&case).expect("the property holds");
        let loaded = case.load().expect("a case loads");
        if Features::of(&case, &loaded).solvable_head {
            solvable += 1;
            solvable_deleting += usize::from(seen.deleted > 0);
        }
        batches.batches += seen.batches;
        batches.deleted += seen.deleted;
        batches.dred_overdeleted_more += seen.dred_overdeleted_more;
        deleting += usize::from(seen.deleted > 0);
        keeping += usize::from(seen.dred_overdeleted_more > 0);
    }
    eprintln!("cases: {SAMPLE}, bf deleted in {deleting}, dred over-deleted more in {keeping}; batches: {batches:?}");
    eprintln!("a head solved for a body variable in {solvable}, of which bf deleted in {solvable_deleting}");
    // Floors at about two thirds of what this sample gave when they were set: bf deleted a
    // derived fact in 32% of cases (97 of 300), dred over-deleted more than bf in 22% (65).
    // Session 35: the symbol half of the sample now draws string functors, whose filters
    // left dred over-deleting more than bf in 14% (42 of 300; bf deleted in 95); that floor
    // is two thirds of it.
    // Session 39: a head solved for a body variable (`p(x + 1) :- p(x), ...`, what a check
    // of a given fact inverts, `Expr::solve`) in 17 of 300 cases, bf deleting in 3 of them.
    assert!(
        solvable >= 11 && solvable_deleting >= 2,
        "too few cases solve a head for a body variable: {solvable} of {SAMPLE}, {solvable_deleting} deleting"
    );
    assert!(
        deleting * 1000 >= 200 * SAMPLE,
        "bf deleted in too few cases: {deleting} of {SAMPLE}"
    );
    assert!(
        keeping * 1000 >= 93 * SAMPLE,
        "dred over-deleted more than bf in too few cases: {keeping} of {SAMPLE}"
    );
}
