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

/// Larger graphs than the property test reaches (hundreds of rows: tombstones past the first
/// bitset word, compaction, revival), against `recompute`.
#[test]
fn dred_equals_recompute_on_larger_graphs() {
    use dred_core::{Batch, Edb, Fact, RequestedBatch, SourceFile, Symbols};
    use std::sync::Arc;
    let programs = [
        ".decl edge(x: number, y: number)\n.decl path(x: number, y: number)\n.input edge\n\
         path(x, y) :- edge(x, y).\npath(x, z) :- path(x, y), edge(y, z).\n",
        ".decl edge(x: number, y: number)\n.decl path(x: number, y: number)\n.input edge\n\
         path(x, y) :- edge(x, y).\npath(x, z) :- path(x, y), path(y, z).\n",
        ".decl edge(x: number, y: number)\n.decl reach(x: number)\n.input edge\n\
         reach(0).\nreach(y) :- reach(x), edge(x, y), x != y.\n",
    ];
    let mut state = 11u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    for src in programs {
        let program = Arc::new(
            dred_core::load_program(&SourceFile::new("p.dl", src), &mut Symbols::new())
                .expect("program"),
        );
        let edge = program.relation_id("edge").expect("edge");
        let mut edb = Edb::empty(&program);
        while edb.len() < 260 {
            edb.insert(Fact::new(
                edge,
                vec![(next() % 120) as i64, (next() % 120) as i64],
            ));
        }
        let mut dred = Dred::new(program.clone());
        let mut recompute = Recompute::new(program.clone());
        dred.materialise(&edb).expect("materialise");
        recompute.materialise(&edb).expect("materialise");
        for batch_no in 0..25 {
            let present: Vec<Fact> = edb.facts().collect();
            let mut req = RequestedBatch::default();
            for _ in 0..(1 + batch_no % 7) {
                req.deletions
                    .push(present[(next() % present.len() as u64) as usize].clone());
                req.insertions.push(Fact::new(
                    edge,
                    vec![(next() % 130) as i64, (next() % 130) as i64],
                ));
            }
            let batch = Batch::normalise(&req, &edb);
            edb.apply(&batch);
            dred.apply(&batch).expect("dred");
            recompute.apply(&batch).expect("recompute");
            assert_eq!(
                dred.model(),
                recompute.model(),
                "batch {batch_no} of\n{src}"
            );
        }
    }
}
