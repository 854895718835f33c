//! The chassis's deletion algorithms alternate batch by batch on one storage
//! (`dred_core::per_batch`) and the model stays the oracle's after every batch: random
//! programs and update streams from the shared generator, positive, with stratified negation
//! and with aggregates, each batch's algorithm from a random schedule (DRed, B/F, or
//! recomputing the affected levels). Also recomputation alone, and a floor on how often each
//! algorithm actually deleted something, so that the property does not pass vacuously.

use std::cell::RefCell;
use std::rc::Rc;

use dred_core::engine::{Batch, BatchReport, Edb, EngineError, Model, ModelDigest, NetChange};
use dred_core::per_batch::{Method, PerBatch};
use dred_core::testing::{assert_engines_agree, random_case, random_case_with, LoadedCase};
use dred_core::{Engine, Oracle};
use proptest::prelude::*;

/// Per method: batches it ran, and of those, batches that deleted an IDB fact.
type Tally = Rc<RefCell<[(usize, usize); 3]>>;

/// A [`PerBatch`] engine that sets the method of batch k to `schedule[k % len]` before
/// applying it, and tallies what each method did.
struct Scheduled {
    engine: PerBatch,
    schedule: Vec<Method>,
    batch: usize,
    tally: Tally,
}

impl Scheduled {
    fn new(loaded: &LoadedCase, schedule: Vec<Method>, tally: Tally) -> Self {
        Scheduled {
            engine: PerBatch::new(loaded.program.clone()),
            schedule,
            batch: 0,
            tally,
        }
    }
}

impl Engine for Scheduled {
    fn name(&self) -> &str {
        self.engine.name()
    }

    fn materialise(&mut self, edb: &Edb) -> Result<BatchReport, EngineError> {
        self.batch = 0;
        self.engine.materialise(edb)
    }

    fn apply(&mut self, batch: &Batch) -> Result<BatchReport, EngineError> {
        let method = self.schedule[self.batch % self.schedule.len()];
        self.batch += 1;
        self.engine.set_method(method);
        let report = self.engine.apply(batch)?;
        assert_eq!(self.engine.last_method(), method);
        let i = Method::ALL
            .iter()
            .position(|&m| m == method)
            .expect("a method");
        let mut tally = self.tally.borrow_mut();
        tally[i].0 += 1;
        tally[i].1 += usize::from(report.overdeleted.is_some_and(|n| n > 0));
        // Only B/F's batches count checks, only DRed's report saturation.
        assert_eq!(report.checked.is_some(), method == Method::BackwardForward);
        assert_eq!(report.saturated.is_some(), method == Method::Dred);
        Ok(report)
    }

    fn set_trace_facts(&mut self, on: bool) {
        self.engine.set_trace_facts(on);
    }

    fn digest(&self) -> ModelDigest {
        self.engine.digest()
    }

    fn net_change(&self) -> Option<NetChange> {
        self.engine.net_change()
    }

    fn model(&self) -> Model {
        self.engine.model()
    }
}

fn method() -> impl Strategy<Value = Method> {
    prop_oneof![
        Just(Method::Dred),
        Just(Method::BackwardForward),
        Just(Method::Recompute)
    ]
}

fn check(loaded: &LoadedCase, schedule: Vec<Method>, tally: &Tally) {
    let mut engines: Vec<Box<dyn Engine>> = vec![
        Box::new(Oracle::new(loaded.program.clone())),
        Box::new(Scheduled::new(loaded, schedule, tally.clone())),
    ];
    assert_engines_agree(loaded, &mut engines);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn alternating_algorithms_equal_the_oracle(
        case in random_case(false),
        schedule in prop::collection::vec(method(), 1..6),
    ) {
        let loaded = case.load().map_err(TestCaseError::fail)?;
        check(&loaded, schedule, &Tally::default());
    }

    #[test]
    fn alternating_algorithms_equal_the_oracle_under_negation_and_aggregates(
        case in prop_oneof![random_case(true), random_case_with(true, true)],
        schedule in prop::collection::vec(method(), 1..6),
    ) {
        let loaded = case.load().map_err(TestCaseError::fail)?;
        check(&loaded, schedule, &Tally::default());
    }

    #[test]
    fn recomputing_the_affected_levels_equals_the_oracle(
        case in prop_oneof![random_case(false), random_case(true), random_case_with(true, true)],
    ) {
        let loaded = case.load().map_err(TestCaseError::fail)?;
        check(&loaded, vec![Method::Recompute], &Tally::default());
    }
}

/// On a fixed sample, every method runs batches that delete IDB facts, with and without
/// negation, and the round-robin schedule hands each of them models the others left.
#[test]
fn every_method_deletes_in_the_sample() {
    use proptest::strategy::ValueTree;
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    let tally = Tally::default();
    let strategy = prop_oneof![random_case(false), random_case_with(true, true)];
    for _ in 0..300 {
        let case = strategy.new_tree(&mut runner).expect("a case").current();
        let loaded = case.load().unwrap_or_else(|e| panic!("{e}"));
        check(&loaded, Method::ALL.to_vec(), &tally);
    }
    let tally = *tally.borrow();
    eprintln!("per method (batches, batches deleting an IDB fact): {tally:?}");
    for (m, (batches, deleting)) in Method::ALL.iter().zip(tally) {
        assert!(
            deleting * 10 >= batches,
            "{m:?}: {deleting} of {batches} batches deleted an IDB fact"
        );
    }
}
