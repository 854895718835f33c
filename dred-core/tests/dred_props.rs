//! The production `dred` engine equals `recompute` and the naive `oracle` after every batch
//! of random update streams on random positive programs.

use dred_core::dred::Dred;
use dred_core::testing::{assert_engines_agree, random_case};
use dred_core::{Engine, Oracle, Recompute};
use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn dred_equals_recompute_and_oracle(case in random_case(false)) {
        let loaded = case.load().expect("positive programs are stratifiable");
        let mut engines: Vec<Box<dyn Engine>> = vec![
            Box::new(Oracle::new(loaded.program.clone())),
            Box::new(Recompute::new(loaded.program.clone())),
            Box::new(Dred::new(loaded.program.clone())),
        ];
        assert_engines_agree(&loaded, &mut engines);
    }
}
