//! For random programs, random queries (every binding pattern, repeated variables,
//! constants) and random update streams, the answers maintained on the magic-set program
//! equal the full program's tuples matching the query, after every batch — with `recompute`,
//! the `oracle`, `dred`, `reference` and `bf` (negation kept as is by the rewrite); `dd` is checked
//! on the same cases in `harness/tests/magic_dd.rs`. Programs come without aggregates and
//! arithmetic, which `--query` refuses.

use dred_core::testing::{random_case_of, random_query, Draw};
use dred_core::{Bf, Dred, Engine, Oracle, Recompute, Reference};
use proptest::prelude::*;

proptest! {
    // Cheap (a few ms per case in a debug build), and only some cases see their answers
    // change, so many cases.
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn magic_answers_equal_full_program(
        case in prop_oneof![
            random_case_of(Draw { negation: false, aggregates: false, arithmetic: false }),
            random_case_of(Draw { negation: true, aggregates: false, arithmetic: false }),
        ],
        q in random_query(),
    ) {
        let loaded = case.load().map_err(TestCaseError::fail)?;
        let magic = loaded.magic(&case.query_text(&q));
        let generated = &magic.program;
        let engines: Vec<Box<dyn Engine>> = vec![
            Box::new(Recompute::new(generated.clone())),
            Box::new(Oracle::new(generated.clone())),
            Box::new(Dred::new(generated.clone())),
            Box::new(Reference::new(generated.clone())),
            Box::new(Bf::new(generated.clone())),
        ];
        let mut engines = engines;
        for e in &mut engines {
            magic.assert_answers(e.as_mut());
        }
    }
}
