//! The same update stream applied one fact per batch and all at once gives the same final
//! model (and the oracle's), whatever the batching and the worker count.

mod common;

use common::*;
use dred_core::{Batch, Edb, Engine, Fact, Oracle, RequestedBatch, Symbols};

/// A small deterministic generator (SplitMix64), so the stream is the same on every run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: i64) -> i64 {
        (self.next() % n as u64) as i64
    }
}

const PROGRAM: &str = ".decl edge(x: number, y: number)\n.decl path(x: number, y: number)\n\
    .decl unreached(x: number, y: number)\n.decl node(x: number)\n.input edge\n\
    path(x, y) :- edge(x, y).\npath(x, z) :- path(x, y), path(y, z).\n\
    node(x) :- edge(x, _).\nnode(y) :- edge(_, y).\n\
    unreached(x, y) :- node(x), node(y), x != y, !path(x, y).\n";

#[test]
fn one_fact_per_batch_equals_all_at_once() {
    let mut symbols = Symbols::new();
    let p = program(PROGRAM, &mut symbols);
    let edge = p.relation_id("edge").expect("edge");
    let mut rng = Rng(7);
    let nodes = 16;
    let mut edb = Edb::empty(&p);
    while edb.len() < 30 {
        edb.insert(Fact::new(edge, vec![rng.below(nodes), rng.below(nodes)]));
    }
    // Every fact appears once in the stream, so sequential and batched meaning agree.
    let present: Vec<Fact> = edb.facts().collect();
    let mut stream: Vec<(bool, Fact)> = Vec::new();
    let mut touched = std::collections::BTreeSet::new();
    while stream.len() < 50 {
        let f = if rng.below(2) == 0 {
            present[rng.below(present.len() as i64) as usize].clone()
        } else {
            Fact::new(edge, vec![rng.below(nodes), rng.below(nodes)])
        };
        if touched.insert(f.clone()) {
            stream.push((!edb.contains(&f), f));
        }
    }
    let single: Vec<RequestedBatch> = stream
        .iter()
        .map(|(insert, f)| {
            if *insert {
                inserting([f.clone()])
            } else {
                deleting([f.clone()])
            }
        })
        .collect();
    let all = RequestedBatch {
        deletions: stream
            .iter()
            .filter(|s| !s.0)
            .map(|s| s.1.clone())
            .collect(),
        insertions: stream.iter().filter(|s| s.0).map(|s| s.1.clone()).collect(),
    };

    let mut final_edb = edb.clone();
    final_edb.apply(&Batch::normalise(&all, &edb));
    let mut oracle = Oracle::new(p.clone());
    oracle.materialise(&final_edb).expect("oracle");
    let expected = oracle.model();

    for workers in [1, 2] {
        let mut one_by_one = dd(&p, workers);
        let mut current = edb.clone();
        one_by_one.materialise(&current).expect("materialises");
        for req in &single {
            let b = Batch::normalise(req, &current);
            assert_eq!(b.deletions.len() + b.insertions.len(), 1);
            current.apply(&b);
            one_by_one.apply(&b).expect("applies");
        }
        assert_eq!(current, final_edb);

        let mut at_once = dd(&p, workers);
        at_once.materialise(&edb).expect("materialises");
        at_once
            .apply(&Batch::normalise(&all, &edb))
            .expect("applies");

        assert_same(&p, &symbols, &one_by_one.model(), &expected, single.len());
        assert_same(&p, &symbols, &at_once.model(), &expected, 1);
    }
}
