//! The production `dred` engine reproduces the reference engine batch by batch: the same
//! over-delete frontiers, the same rederive rounds, the same insert rounds, the same counts,
//! and the same model — on random programs and update streams, positive and with stratified
//! negation (every round of every level, `stratum` included).

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
}
