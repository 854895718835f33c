//! The production `dred` engine reproduces the reference engine batch by batch: the same
//! over-delete frontiers, the same rederive rounds, the same insert rounds, the same counts,
//! and the same model — on random programs and update streams, positive and with stratified
//! negation (every round of every level, `stratum` included).

use dred_core::dred::production::overdelete::Saturation;
use dred_core::dred::production::rederive::{LaterRounds, Round1};
use dred_core::testing::random_case;
use dred_core::{Batch, Dred, Engine, Reference};
use dred_core::{Fact, Phase, Round};
use proptest::prelude::*;
use std::collections::{BTreeMap, BTreeSet};

/// The rounds of phases 1 and 2, which `dred` reproduces one by one.
fn deletion_rounds(rounds: &[Round]) -> Vec<&Round> {
    rounds.iter().filter(|r| r.phase != Phase::Insert).collect()
}

/// Per level, round 1 of phase 3 and the facts of all its rounds. Phase 3's later rounds
/// are the reference's semi-naive rounds over all the level's rules; `dred` runs a level's
/// strata one after another, and may evaluate a stratum afresh: the same facts, in other
/// rounds.
fn inserted_by_level(rounds: &[Round]) -> BTreeMap<usize, (Option<&Round>, BTreeSet<&Fact>)> {
    let mut out: BTreeMap<usize, (Option<&Round>, BTreeSet<&Fact>)> = BTreeMap::new();
    for r in rounds.iter().filter(|r| r.phase == Phase::Insert) {
        let level = out.entry(r.stratum).or_default();
        if r.round == 1 && r.stratum == 0 {
            level.0 = Some(r);
        }
        level.1.extend(&r.facts);
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn dred_reproduces_reference_rounds(
        case in prop_oneof![random_case(false), random_case(true)],
        round1 in prop::sample::select(vec![Round1::Cheaper, Round1::Checks, Round1::Scans]),
        later in prop::sample::select(vec![
            LaterRounds::Cheaper,
            LaterRounds::Seeded,
            LaterRounds::Checks,
            LaterRounds::ChecksAbandoned,
        ]),
    ) {
        let loaded = case.load().map_err(TestCaseError::fail)?;
        let mut reference = Reference::new(loaded.program.clone());
        let mut dred = Dred::new(loaded.program.clone());
        dred.set_round1(round1);
        dred.set_later_rounds(later);
        // Saturation changes the frontiers (never the model): off here, on below.
        dred.set_saturation(Saturation::Never);
        let mut edb = loaded.edb.clone();
        reference.materialise(&edb).expect("reference");
        dred.materialise(&edb).expect("dred");
        for (i, requested) in loaded.batches.iter().enumerate() {
            let batch = Batch::normalise(requested, &edb);
            edb.apply(&batch);
            let r = reference.apply(&batch).expect("reference");
            let d = dred.apply(&batch).expect("dred");
            prop_assert_eq!(
                deletion_rounds(&d.rounds), deletion_rounds(&r.rounds),
                "rounds differ in batch {}\n{}", i + 1, loaded.program.source.text
            );
            prop_assert_eq!(
                inserted_by_level(&d.rounds), inserted_by_level(&r.rounds),
                "insertions differ in batch {}\n{}", i + 1, loaded.program.source.text
            );
            prop_assert_eq!(
                (d.overdeleted, d.rederived, d.inserted),
                (r.overdeleted, r.rederived, r.inserted),
                "counts differ in batch {}", i + 1
            );
            prop_assert_eq!(dred.model(), reference.model());
        }
    }

    /// Saturated over-deletion (the whole level, at once, past a small budget or past a
    /// tenth of its facts) gives the reference engine's model after every batch, and
    /// reports itself.
    #[test]
    fn saturated_dred_keeps_the_reference_model(
        case in prop_oneof![random_case(false), random_case(true)],
        saturation in prop::sample::select(vec![
            Saturation::Always,
            Saturation::Share(0.05),
            Saturation::Default,
            // No floor: a tenth of a level over-deleted saturates it, and the levels that
            // saturated deep or not set the next batches' budgets.
            Saturation::Floor(0),
        ]),
    ) {
        let loaded = case.load().map_err(TestCaseError::fail)?;
        let mut reference = Reference::new(loaded.program.clone());
        let mut dred = Dred::new(loaded.program.clone());
        dred.set_saturation(saturation);
        let mut edb = loaded.edb.clone();
        reference.materialise(&edb).expect("reference");
        dred.materialise(&edb).expect("dred");
        for (i, requested) in loaded.batches.iter().enumerate() {
            let batch = Batch::normalise(requested, &edb);
            edb.apply(&batch);
            let old = reference.model();
            reference.apply(&batch).expect("reference");
            let d = dred.apply(&batch).expect("dred");
            let new = reference.model();
            prop_assert_eq!(dred.model(), new.clone(), "batch {}\n{}", i + 1, loaded.program.source.text);
            // The net change, which the harness reports, counts the recomputed facts as kept.
            let count = |m: std::collections::BTreeMap<_, Vec<_>>| m.values().map(Vec::len).sum::<usize>();
            let net = dred.net_change().expect("dred counts its net change");
            prop_assert_eq!(
                (net.removed, net.added),
                (count(old.minus(&new)), count(new.minus(&old))),
                "net change, batch {}", i + 1
            );
            if saturation == Saturation::Always && !batch.deletions.is_empty() {
                prop_assert!(d.saturated.is_some_and(|n| n >= 1), "batch {}", i + 1);
            }
        }
    }
}
