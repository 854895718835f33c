//! Property test: on random programs from the generator every engine's property test shares
//! (`dred_core::testing`: arities 0 to 3, mutual recursion, repeated variables, constants,
//! wildcards, comparisons, zero-arity relations, program facts, fresh constants in updates,
//! symbol and number columns, and stratified negation), random EDBs and random update
//! streams, the dd engine's model equals the naive oracle's after materialisation and after
//! every batch — with one worker and with two, on the record type the engine picks (fixed
//! 32-bit-code rows for narrow programs) and on general rows — and so do its digest and net
//! change.

mod common;

use common::*;
use dd_baseline::plan::ProgramPlan;
use dd_baseline::{DdConfig, Records};
use dred_core::testing::{random_case, random_narrow_case, RandomCase};
use proptest::prelude::*;

fn run(case: &RandomCase, workers: usize) -> Result<(), TestCaseError> {
    run_with(case, DdConfig::threads(workers))
}

fn run_with(case: &RandomCase, config: DdConfig) -> Result<(), TestCaseError> {
    let loaded = case.load().map_err(TestCaseError::fail)?;
    check_with_config(
        &loaded.program,
        &loaded.symbols,
        &loaded.edb,
        &loaded.batches,
        config,
    );
    Ok(())
}

/// The generator (with half its cases narrowed to binary relations) reaches both fixed-width
/// record types the engine picks, and values outside the 32-bit
/// codes' direct range: shares over a fixed sample of 300 cases.
#[test]
fn generated_programs_reach_every_record_type() {
    use proptest::strategy::ValueTree;
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    let (mut narrow, mut four, mut general, mut big) = (0, 0, 0, 0);
    let mut aggregates = 0;
    let n = 300;
    for i in 0..n {
        let case = random_case(i % 2 == 1)
            .new_tree(&mut runner)
            .expect("a case")
            .current();
        let case = if i % 4 < 2 { case.narrowed() } else { case };
        let loaded = case.load().expect("loads");
        // Aggregate programs run on general rows whatever their width.
        if !loaded.program.aggregates.is_empty() {
            aggregates += 1;
            continue;
        }
        match ProgramPlan::new(&loaded.program).max_record_width(&loaded.program) {
            0..=2 => narrow += 1,
            3..=4 => four += 1,
            _ => general += 1,
        }
        let outside = |v: i64| !(0..1 << 31).contains(&v);
        let text = case.rules.join(" ");
        if case.ty == dred_core::testing::ColumnType::Number
            && dred_core::testing::NUMBERS
                .iter()
                .chain(&dred_core::testing::FRESH_NUMBERS)
                .any(|&v| outside(v) && text.contains(&v.to_string()))
        {
            big += 1;
        }
    }
    eprintln!(
        "records over {n} cases: [u32; 2] {narrow}, [u32; 4] {four}, general {general}, \
         general for an aggregate {aggregates}; programs with a constant outside [0, 2^31): {big}"
    );
    assert!(aggregates >= n / 20);
    // Rows wider than 4 words need rules of 5 variables, which the generator does not
    // write: dd's general rows are checked by forcing them (`dd_on_general_rows_...`).
    assert_eq!(general, 0);
    assert!(narrow >= n / 20 && four >= n / 20);
    assert!(big >= n / 20);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn dd_equals_oracle_with_one_worker(
        case in prop_oneof![
            random_case(false),
            random_case(true),
            random_narrow_case(false),
            random_narrow_case(true),
        ],
    ) {
        run(&case, 1)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 150, ..ProptestConfig::default() })]

    #[test]
    fn dd_on_general_rows_equals_oracle(
        case in prop_oneof![random_case(false), random_case(true)],
    ) {
        run_with(&case, DdConfig::threads(1).with_records(Records::General))?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 150, ..ProptestConfig::default() })]

    #[test]
    fn dd_equals_oracle_with_two_workers(
        case in prop_oneof![random_case(false), random_narrow_case(true)],
    ) {
        run(&case, 2)?;
    }
}
