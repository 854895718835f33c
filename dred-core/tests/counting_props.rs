//! `counting` equals the naive `oracle` after every batch of random update streams on random
//! programs from the shared generator: positive, with stratified negation, with aggregates,
//! whole and split into deletion-only and insertion-only batches. Its reported net change is
//! the models' (checked by the shared `check_case`), its `overdeleted`/`inserted` are that
//! net change, its counts after every batch are a fresh materialisation's, and floors on how often batches changed counts, deleted derived facts and
//! moved a recursive fact's round keep the property from passing vacuously.

use std::cell::RefCell;
use std::rc::Rc;

use dred_core::engine::{Batch, BatchReport, Edb, EngineError, Model, ModelDigest, NetChange};
use dred_core::testing::{
    assert_engines_agree, random_case, random_case_with, LoadedCase, RandomCase,
};
use dred_core::{Counting, Engine, Oracle};
use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::TestRunner;

/// Batches seen, and of those: batches that changed a count, that removed a derived fact,
/// that moved a recursive fact's round.
#[derive(Clone, Copy, Debug, Default)]
struct Tally {
    batches: usize,
    counts_changed: usize,
    removed: usize,
    rounds_moved: usize,
}

/// [`Counting`] with its reports checked against its net change and tallied, and its counts
/// after every batch checked against those of a fresh engine materialised on the new EDB:
/// maintained counts (per round, with the rounds below the replay's first kept) are the
/// counts of the database, whatever its history.
struct Tallied {
    engine: Counting,
    edb: Edb,
    tally: Rc<RefCell<Tally>>,
}

impl Engine for Tallied {
    fn name(&self) -> &str {
        self.engine.name()
    }

    fn materialise(&mut self, edb: &Edb) -> Result<BatchReport, EngineError> {
        self.edb = edb.clone();
        self.engine.materialise(edb)
    }

    fn apply(&mut self, batch: &Batch) -> Result<BatchReport, EngineError> {
        let report = self.engine.apply(batch)?;
        self.edb.apply(batch);
        let mut fresh = Counting::new(self.engine.program().clone());
        fresh.materialise(&self.edb)?;
        assert_eq!(
            self.engine.derivation_counts(),
            fresh.derivation_counts(),
            "maintained counts differ from a fresh materialisation's"
        );
        let change = self
            .engine
            .net_change()
            .expect("counting reports its net change");
        assert_eq!(report.overdeleted, Some(change.removed));
        assert_eq!(report.inserted, Some(change.added));
        let changed = report.counts_changed.expect("counts_changed is reported");
        // Every fact that came or went changed its count.
        assert!(changed >= (change.removed + change.added) as u64);
        let mut t = self.tally.borrow_mut();
        t.batches += 1;
        t.counts_changed += usize::from(changed > 0);
        t.removed += usize::from(change.removed > 0);
        t.rounds_moved += usize::from(report.rounds_moved.is_some_and(|n| n > 0));
        Ok(report)
    }

    fn model(&self) -> Model {
        self.engine.model()
    }

    fn digest(&self) -> ModelDigest {
        self.engine.digest()
    }

    fn net_change(&self) -> Option<NetChange> {
        self.engine.net_change()
    }
}

fn engines(case: &LoadedCase, tally: &Rc<RefCell<Tally>>) -> Vec<Box<dyn Engine>> {
    vec![
        Box::new(Oracle::new(case.program.clone())),
        Box::new(Tallied {
            engine: Counting::new(case.program.clone()),
            edb: case.edb.clone(),
            tally: tally.clone(),
        }),
    ]
}

fn check(case: &RandomCase) -> Result<Tally, TestCaseError> {
    let loaded = case.load().map_err(TestCaseError::fail)?;
    let tally = Rc::new(RefCell::new(Tally::default()));
    assert_engines_agree(&loaded, &mut engines(&loaded, &tally));
    let t = *tally.borrow();
    Ok(t)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn counting_equals_oracle_on_positive_programs(
        case in prop_oneof![random_case(false), random_case(false).prop_map(|c| c.split_batches())]
    ) {
        check(&case)?;
    }

    #[test]
    fn counting_equals_oracle_with_negation(
        case in prop_oneof![random_case(true), random_case(true).prop_map(|c| c.split_batches())]
    ) {
        check(&case)?;
    }

    #[test]
    fn counting_equals_oracle_with_aggregates(
        case in prop_oneof![
            random_case_with(true, true),
            random_case_with(true, true).prop_map(|c| c.split_batches())
        ]
    ) {
        check(&case)?;
    }
}

/// The properties are not vacuous: on a fixed sample of split cases, with and without
/// negation, the share of cases with a batch that changed a count, that removed a derived
/// fact (a count reached 0, or a recursive fact lost its rounds), and that moved a recursive
/// fact's round.
#[test]
fn counting_cases_change_counts_and_delete() {
    const SAMPLE: usize = 300;
    for negation in [false, true] {
        let mut runner = TestRunner::deterministic();
        let strategy = random_case(negation).prop_map(|c| c.split_batches());
        let (mut changing, mut removing, mut moving) = (0, 0, 0);
        let mut total = Tally::default();
        for _ in 0..SAMPLE {
            let case = strategy.new_tree(&mut runner).expect("a case").current();
            let t = check(&case).expect("counting agrees with the oracle");
            changing += usize::from(t.counts_changed > 0);
            removing += usize::from(t.removed > 0);
            moving += usize::from(t.rounds_moved > 0);
            total.batches += t.batches;
            total.counts_changed += t.counts_changed;
            total.removed += t.removed;
            total.rounds_moved += t.rounds_moved;
        }
        eprintln!(
            "negation {negation}: cases {SAMPLE}, changed counts in {changing}, removed a \
             derived fact in {removing}, moved a round in {moving}; batches: {total:?}"
        );
        // Floors at about two thirds of what this sample gave when they were set: counts
        // changed in 50% / 62% of cases (without / with negation), a derived fact was removed
        // in 32% / 51%. A round moved in only 7 / 3 cases of 300 (the generator's recursive
        // programs are small), so that floor is "some"; the unit tests move rounds on purpose.
        assert!(
            changing * 1000 >= 330 * SAMPLE,
            "too few cases changed counts: {changing}"
        );
        assert!(
            removing * 1000 >= 210 * SAMPLE,
            "too few cases removed facts: {removing}"
        );
        assert!(moving > 0, "no case moved a round");
    }
}
