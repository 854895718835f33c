//! The engine `auto` keeps the oracle's model whatever it chooses: random programs and
//! update streams from the shared generator (positive, with stratified negation, with
//! aggregates), each batch either chosen by the model or forced through one branch — DRed,
//! B/F, recomputation, or an incremental algorithm abandoned at once and finished by
//! recomputation. A floor on how often each branch really ran (deleted something, was
//! abandoned) keeps the property from passing vacuously.

use std::cell::RefCell;
use std::rc::Rc;

use dred_core::auto::{Auto, Choosing};
use dred_core::engine::{Batch, BatchReport, Edb, EngineError, Model, ModelDigest, NetChange};
use dred_core::per_batch::Method;
use dred_core::testing::{
    assert_engines_agree, random_case, random_case_of, random_case_with, Draw, LoadedCase,
};
use dred_core::{Engine, Oracle};
use proptest::prelude::*;

/// Every way a batch may be chosen (the three forced methods, abandonment in DRed's phase 1,
/// in its phase 2 and in B/F's checks, DRed's own saturation under the guard, a
/// recomputation scouted by each incremental method, and the model).
const CHOOSINGS: [Choosing; 12] = [
    Choosing::Predicted,
    Choosing::Forced(Method::Dred),
    Choosing::Forced(Method::BackwardForward),
    Choosing::Forced(Method::Recompute),
    Choosing::Abandoning(Method::Dred),
    Choosing::Abandoning(Method::BackwardForward),
    Choosing::AbandoningRederivation,
    Choosing::Saturating,
    Choosing::Scouting(Method::BackwardForward),
    Choosing::Scouting(Method::Dred),
    Choosing::AbandonedScout(Method::Dred),
    Choosing::AbandonedScout(Method::BackwardForward),
];

/// Per way of choosing: batches, batches that deleted an IDB fact, batches abandoned; and
/// per method, the batches the model chose it for.
#[derive(Debug, Default)]
struct Tally {
    per_choosing: [(usize, usize, usize); 12],
    /// Batches of [`Choosing::Saturating`] on which a level saturated.
    saturated: usize,
    predicted: [usize; 3],
    /// Batches on which DRed was abandoned and B/F finished, and on which both were.
    handed_to_bf: usize,
    both_abandoned: usize,
}

/// An [`Auto`] engine that chooses batch k as `schedule[k % len]` says, and tallies.
struct Scheduled {
    engine: Auto,
    schedule: Vec<Choosing>,
    batch: usize,
    tally: Rc<RefCell<Tally>>,
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
        let choosing = self.schedule[self.batch % self.schedule.len()];
        self.batch += 1;
        self.engine.set_choosing(choosing);
        let report = self.engine.apply(batch)?;
        let choice = self.engine.last_choice();
        assert_eq!(report.abandoned, Some(choice.abandoned));
        let abandoned = choice.abandoned > 0;
        let mut tally = self.tally.borrow_mut();
        if choice.abandoned == 1 && choice.finished == Method::BackwardForward {
            tally.handed_to_bf += 1;
        }
        tally.both_abandoned += usize::from(choice.abandoned == 2);
        if choice.abandoned == 2 {
            assert_eq!(choice.chosen, Method::Dred, "only DRed hands over to B/F");
        }
        match choosing {
            Choosing::Forced(m) => {
                assert_eq!(choice.chosen, m);
                assert!(
                    !abandoned || m != Method::Recompute,
                    "recomputation has no budget"
                );
            }
            Choosing::Abandoning(m) => assert_eq!(choice.chosen, m),
            Choosing::AbandoningRederivation => assert_eq!(choice.chosen, Method::Dred),
            Choosing::Saturating => {
                assert_eq!(choice.chosen, Method::Dred);
                assert!(
                    !abandoned,
                    "a level DRed saturates is recomputed, not abandoned"
                );
                tally.saturated += usize::from(report.saturated.is_some_and(|n| n > 0));
            }
            Choosing::Scouting(m) => {
                assert_eq!(choice.chosen, Method::Recompute);
                assert_eq!(choice.scout, Some(m));
                // Under the forced runs' floor, the small cases finish it.
                assert!(!abandoned, "a scout abandoned on a small case");
                assert_eq!(choice.finished, m);
            }
            Choosing::AbandonedScout(m) => {
                assert_eq!(choice.chosen, Method::Recompute);
                assert_eq!(choice.scout, Some(m));
                // Never handed to B/F: the recomputation finishes what the scout left.
                assert!(choice.abandoned <= 1);
                if abandoned {
                    assert_eq!(choice.finished, Method::Recompute);
                }
            }
            Choosing::Predicted => {
                // Every chosen recomputation is scouted, by the incremental method predicted
                // cheaper (on small cases the model seldom predicts a recomputation
                // cheapest: the forced scouts test the branch).
                assert_eq!(choice.scout.is_some(), choice.chosen == Method::Recompute);
                if let Some(scout) = choice.scout {
                    let [dred, bf, _] = choice.predicted_ns;
                    let cheaper = if dred <= bf {
                        Method::Dred
                    } else {
                        Method::BackwardForward
                    };
                    assert_eq!(scout, cheaper);
                }
            }
        }
        if !matches!(
            choosing,
            Choosing::Scouting(_) | Choosing::AbandonedScout(_) | Choosing::Predicted
        ) {
            assert_eq!(choice.scout, None, "{choosing:?} scouted");
        }
        let i = CHOOSINGS
            .iter()
            .position(|&c| c == choosing)
            .expect("listed");
        tally.per_choosing[i].0 += 1;
        tally.per_choosing[i].1 += usize::from(report.overdeleted.is_some_and(|n| n > 0));
        tally.per_choosing[i].2 += usize::from(abandoned);
        if choosing == Choosing::Predicted {
            let m = Method::ALL
                .iter()
                .position(|&m| m == choice.chosen)
                .expect("a method");
            tally.predicted[m] += 1;
        }
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

fn check(loaded: &LoadedCase, schedule: Vec<Choosing>, tally: &Rc<RefCell<Tally>>) {
    let mut engines: Vec<Box<dyn Engine>> = vec![
        Box::new(Oracle::new(loaded.program.clone())),
        Box::new(Scheduled {
            engine: Auto::new(loaded.program.clone()),
            schedule,
            batch: 0,
            tally: tally.clone(),
        }),
    ];
    assert_engines_agree(loaded, &mut engines);
}

fn choosing() -> impl Strategy<Value = Choosing> {
    prop::sample::select(CHOOSINGS.to_vec())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn auto_equals_the_oracle(
        case in prop_oneof![random_case(false), random_case(true), random_case_with(true, true)],
    ) {
        let loaded = case.load().map_err(TestCaseError::fail)?;
        check(&loaded, vec![Choosing::Predicted], &Rc::default());
    }

    #[test]
    fn auto_through_every_branch_equals_the_oracle(
        case in random_case(false),
        schedule in prop::collection::vec(choosing(), 1..6),
    ) {
        let loaded = case.load().map_err(TestCaseError::fail)?;
        check(&loaded, schedule, &Rc::default());
    }

    #[test]
    fn auto_through_every_branch_equals_the_oracle_under_negation_and_aggregates(
        case in prop_oneof![random_case(true), random_case_with(true, true)],
        schedule in prop::collection::vec(choosing(), 1..6),
    ) {
        let loaded = case.load().map_err(TestCaseError::fail)?;
        check(&loaded, schedule, &Rc::default());
    }
}

/// On a fixed sample, every branch runs batches that delete IDB facts, the abandoning ones
/// are abandoned (DRed's phase 1 handing over to B/F, and both abandoned), and the model chooses more than one method (it runs after the others, on
/// what they measured).
#[test]
fn every_branch_runs_in_the_sample() {
    use proptest::strategy::ValueTree;
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    let tally = Rc::new(RefCell::new(Tally::default()));
    // The sample and its thresholds predate arithmetic, whose cases are drawn by the
    // properties above: this one tallies the branches of `auto` on the cases it was set on.
    let plain = |negation| {
        random_case_of(Draw {
            negation,
            aggregates: negation,
            arithmetic: false,
        })
    };
    let strategy = prop_oneof![plain(false), plain(true)];
    for i in 0..300 {
        let case = strategy.new_tree(&mut runner).expect("a case").current();
        let loaded = case.load().unwrap_or_else(|e| panic!("{e}"));
        // Every way of choosing at every batch position, over the sample.
        let mut schedule = CHOOSINGS.to_vec();
        schedule.rotate_left(i % CHOOSINGS.len());
        check(&loaded, schedule, &tally);
    }
    let tally = tally.borrow();
    eprintln!("{tally:?}");
    for (c, (batches, deleting, abandoned)) in CHOOSINGS.iter().zip(tally.per_choosing) {
        assert!(
            deleting * 10 >= batches,
            "{c:?}: {deleting} of {batches} batches deleted an IDB fact"
        );
        if *c == Choosing::AbandoningRederivation {
            // Only a rederivation of more than one round is abandoned.
            assert!(abandoned > 0, "{c:?}: no batch abandoned");
        } else if matches!(c, Choosing::Abandoning(_) | Choosing::AbandonedScout(_)) {
            assert!(
                abandoned * 10 >= batches,
                "{c:?}: {abandoned} of {batches} batches abandoned"
            );
        } else if *c == Choosing::Saturating {
            assert_eq!(abandoned, 0, "{c:?}: abandoned");
            assert!(
                tally.saturated * 10 >= batches,
                "{c:?}: {} of {batches} batches saturated",
                tally.saturated
            );
        } else if matches!(c, Choosing::Forced(_) | Choosing::Scouting(_)) {
            // Budgets have a floor the small cases stay under.
            assert_eq!(abandoned, 0, "{c:?}: abandoned on a small case");
        }
    }
    assert!(tally.handed_to_bf > 0, "DRed never handed a batch to B/F");
    assert!(
        tally.both_abandoned > 0,
        "DRed and B/F were never both abandoned"
    );
    let chosen = tally.predicted.iter().filter(|&&n| n > 0).count();
    assert!(
        chosen >= 2,
        "the model chose only one method: {:?}",
        tally.predicted
    );
}
