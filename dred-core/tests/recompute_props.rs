//! `recompute` (semi-naive, indexed) equals the naive `oracle` after every batch of random
//! update streams on random programs — with recursion, repeated variables, constants,
//! comparisons, program facts and (in the second property) stratified negation.

use dred_core::testing::{assert_engines_agree, random_case};
use dred_core::{Engine, Oracle, Recompute};
use proptest::prelude::*;

fn engines(case: &dred_core::testing::LoadedCase) -> Vec<Box<dyn Engine>> {
    vec![
        Box::new(Oracle::new(case.program.clone())),
        Box::new(Recompute::new(case.program.clone())),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn recompute_equals_oracle_on_positive_programs(case in random_case(false)) {
        let loaded = case.load().expect("positive programs are always stratifiable");
        assert_engines_agree(&loaded, &mut engines(&loaded));
    }

    #[test]
    fn recompute_equals_oracle_with_negation(case in random_case(true)) {
        if let Some(loaded) = case.load() {
            assert_engines_agree(&loaded, &mut engines(&loaded));
        }
    }
}

/// The generator must produce recursion and non-trivial models, or the properties above
/// would pass vacuously.
#[test]
fn generated_cases_are_not_trivial() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    let mut runner = TestRunner::deterministic();
    let (mut recursive, mut nonempty) = (0, 0);
    for _ in 0..200 {
        let case = random_case(false)
            .new_tree(&mut runner)
            .expect("tree")
            .current();
        let loaded = case.load().expect("loads");
        recursive += usize::from(loaded.program.strata.iter().any(|s| s.recursive));
        let mut o = Oracle::new(loaded.program.clone());
        o.materialise(&loaded.edb).expect("materialise");
        nonempty += usize::from(!o.model().is_empty());
    }
    assert!(
        recursive > 50,
        "only {recursive} of 200 programs are recursive"
    );
    assert!(nonempty > 80, "only {nonempty} of 200 models are non-empty");
}
