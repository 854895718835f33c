//! Cases `dredbench fuzz` found once `unsigned` and `float` columns were drawn, each run
//! through every set-based engine against the naive `oracle` after every batch.

use dred_core::testing::{check_case, ColumnType, RandomCase, Update};
use dred_core::{Bf, Dred, Engine, Oracle, Recompute, Reference};

fn header(ty: &str) -> String {
    format!(
        ".decl k(a0: {ty}, a1: {ty}, a2: {ty})\n.decl g(a0: {ty})\n.decl p(a0: {ty}, a1: {ty})\n\
         .input k\n.input g\n.output p\n"
    )
}

fn check(case: &RandomCase) {
    let loaded = case.load().expect("the case loads");
    let mut engines: Vec<Box<dyn Engine>> = vec![
        Box::new(Oracle::new(loaded.program.clone())),
        Box::new(Recompute::new(loaded.program.clone())),
        Box::new(Dred::new(loaded.program.clone())),
        Box::new(Bf::new(loaded.program.clone())),
        Box::new(Reference::new(loaded.program.clone())),
    ];
    check_case(&loaded, &mut engines).unwrap_or_else(|f| panic!("{f}"));
}

/// The largest `unsigned` is stored as the largest word, `i64::MAX`; a one-column index
/// holding it overflowed when it tried a dense array of `max + 1` groups (a panic in
/// `recompute`, seed 503 case 28). The largest `number` is the same word.
#[test]
fn the_largest_word_in_a_one_column_index() {
    for (ty, top) in [
        (ColumnType::Unsigned, "18446744073709551615"),
        (ColumnType::Number, "9223372036854775807"),
    ] {
        let case = RandomCase {
            ty,
            header: header(ty.name()),
            rules: vec!["p(x, y) :- k(x, y, 2), g(0), g(x), y < x.".into()],
            edb: vec![
                ("k".into(), vec![top.into(), "1".into(), "2".into()]),
                ("k".into(), vec![top.into(), top.into(), top.into()]),
                ("g".into(), vec!["0".into()]),
                ("g".into(), vec![top.into()]),
            ],
            batches: vec![vec![Update {
                insert: false,
                rel: "g".into(),
                values: vec!["0".into()],
            }]],
        };
        check(&case);
    }
}
