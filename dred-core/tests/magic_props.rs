//! For random programs, random queries (every binding pattern, repeated variables,
//! constants) and random update streams, the answers maintained on the magic-set program
//! equal the full program's tuples matching the query, after every batch — with `recompute`,
//! the `oracle`, and (on positive programs) `dred` and `reference`; `dd` is checked on
//! generated programs in `dd-baseline`'s own tests.

use std::sync::Arc;

use dred_core::magic::{parse_query, rewrite};
use dred_core::testing::{random_case, IDB};
use dred_core::{Batch, Dred, Edb, Engine, Fact, Oracle, Recompute, Reference, RequestedBatch};
use proptest::prelude::*;

fn query_text() -> impl Strategy<Value = String> {
    prop::sample::select(IDB.to_vec()).prop_flat_map(|(name, arity)| {
        prop::collection::vec(
            prop_oneof![
                2 => (0i64..4).prop_map(|c| c.to_string()),
                2 => prop::sample::select(&["a", "b"][..]).prop_map(str::to_string),
                1 => Just("_".to_string()),
            ],
            arity,
        )
        .prop_map(move |args| format!("{name}({})", args.join(", ")))
    })
}

/// Maps a fact of the full program to the same relation (by name) of the generated one.
fn translate(f: &Fact, from: &dred_core::Program, to: &dred_core::Program) -> Fact {
    let name = &from.relations[f.rel].name;
    Fact::new(to.relation_id(name).expect("same inputs"), f.tuple.clone())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn magic_answers_equal_full_program(case in random_case(true), q in query_text()) {
        let Some(loaded) = case.load() else { return Ok(()) };
        let mut symbols = loaded.symbols.clone();
        let query = parse_query(&q, &loaded.program, &mut symbols).expect("query");
        let magic = rewrite(&loaded.program, &query, &mut symbols).expect("rewrite");
        let generated = Arc::new(magic.program.clone());
        let mut full = Oracle::new(loaded.program.clone());
        let mut engines: Vec<Box<dyn Engine>> = vec![
            Box::new(Recompute::new(generated.clone())),
            Box::new(Oracle::new(generated.clone())),
        ];
        // The DRed engines maintain positive programs (the rewrite keeps negation as is).
        if !generated.has_negation() {
            engines.push(Box::new(Dred::new(generated.clone())));
            engines.push(Box::new(Reference::new(generated.clone())));
        }
        let to_gen = |edb: &Edb| {
            let mut g = Edb::empty(&generated);
            for f in edb.facts() {
                g.insert(translate(&f, &loaded.program, &generated));
            }
            g
        };
        let mut edb = loaded.edb.clone();
        full.materialise(&edb).expect("full");
        for e in &mut engines {
            e.materialise(&to_gen(&edb)).expect("materialise");
        }
        let mut batches = vec![RequestedBatch::default()];
        batches.extend(loaded.batches.iter().cloned());
        for (i, requested) in batches.iter().enumerate() {
            if i > 0 {
                let batch = Batch::normalise(requested, &edb);
                let gen_batch = Batch {
                    deletions: batch.deletions.iter().map(|f| translate(f, &loaded.program, &generated)).collect(),
                    insertions: batch.insertions.iter().map(|f| translate(f, &loaded.program, &generated)).collect(),
                    ..batch.clone()
                };
                edb.apply(&batch);
                full.apply(&batch).expect("full");
                for e in &mut engines {
                    e.apply(&gen_batch).expect("apply");
                }
            }
            let expected: Vec<Vec<i64>> = full.model().relations[query.rel]
                .iter()
                .filter(|t| query.matches(t))
                .cloned()
                .collect();
            for e in &engines {
                let got = magic.answers(&e.model());
                prop_assert_eq!(&got, &expected, "engine {} after batch {} for {}\n{}", e.name(), i, q, magic.text);
            }
        }
    }
}
