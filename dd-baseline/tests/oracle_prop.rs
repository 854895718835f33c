//! Property test: on random programs from the generator every engine's property test shares
//! (`dred_core::testing`: arities 0 to 3, mutual recursion, repeated variables, constants,
//! wildcards, comparisons, zero-arity relations, program facts, fresh constants in updates,
//! symbol and number columns, and stratified negation), random EDBs and random update
//! streams, the dd engine's model equals the naive oracle's after materialisation and after
//! every batch — with one worker and with two — and so do its digest and net change.

mod common;

use common::*;
use dred_core::testing::{random_case, RandomCase};
use proptest::prelude::*;

fn run(case: &RandomCase, workers: usize) -> Result<(), TestCaseError> {
    let loaded = case.load().map_err(TestCaseError::fail)?;
    check_against_oracle(
        &loaded.program,
        &loaded.symbols,
        &loaded.edb,
        &loaded.batches,
        workers,
    );
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn dd_equals_oracle_with_one_worker(
        case in prop_oneof![random_case(false), random_case(true)],
    ) {
        run(&case, 1)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 150, ..ProptestConfig::default() })]

    #[test]
    fn dd_equals_oracle_with_two_workers(
        case in prop_oneof![random_case(false), random_case(true)],
    ) {
        run(&case, 2)?;
    }
}
