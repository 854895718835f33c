//! The production `dred` engine reproduces the reference engine batch by batch: the same
//! over-delete frontiers, the same rederive rounds, the same insert rounds, the same counts,
//! and the same model — on random programs and update streams, positive and with stratified
//! negation (every round of every level, `stratum` included).

use dred_core::dred::production::overdelete::Saturation;
use dred_core::dred::production::rederive::{LaterRounds, Round1};
use dred_core::testing::random_case;
use dred_core::{Batch, Dred, Engine, Reference};
use proptest::prelude::*;

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
            prop_assert_eq!(&d.rounds, &r.rounds, "rounds differ in batch {}\n{}", i + 1, loaded.program.source.text);
            prop_assert_eq!(
                (d.overdeleted, d.rederived, d.inserted),
                (r.overdeleted, r.rederived, r.inserted),
                "counts differ in batch {}", i + 1
            );
            prop_assert_eq!(dred.model(), reference.model());
        }
    }

    /// Saturated over-deletion (the whole level, at once or past a small budget) gives the
    /// reference engine's model after every batch, and reports itself.
    #[test]
    fn saturated_dred_keeps_the_reference_model(
        case in prop_oneof![random_case(false), random_case(true)],
        saturation in prop::sample::select(vec![
            Saturation::Always,
            Saturation::Share(0.05),
            Saturation::Default,
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
