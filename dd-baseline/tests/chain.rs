//! Reachability along a chain longer than 2^16 nodes: the loop's round counter must not wrap,
//! and a deletion and re-insertion in the middle must retract and restore the far half, both in
//! the model read before [`Engine::settle`] and in the one it settles.

mod common;

use common::*;
use dred_core::{Batch, Edb, Engine, Fact, Symbols};

const NODES: i64 = 70_000;

#[test]
fn chain_of_70000_nodes_is_complete_and_stays_right() {
    let mut symbols = Symbols::new();
    let p = program(
        ".decl edge(x: number, y: number)\n.decl reach(x: number)\n.input edge\n\
         reach(0).\nreach(y) :- reach(x), edge(x, y).\n",
        &mut symbols,
    );
    let edge = p.relation_id("edge").expect("edge");
    let reach = p.relation_id("reach").expect("reach");
    let mut edb = Edb::empty(&p);
    for i in 0..NODES - 1 {
        edb.insert(Fact::new(edge, vec![i, i + 1]));
    }
    let mut dd = dd(&p, 1);
    dd.materialise(&edb).expect("materialises");
    let model = dd.model();
    assert_eq!(model.relations[reach].len(), NODES as usize);
    assert!(model.contains(reach, &[NODES - 1]));

    let mid = Fact::new(edge, vec![NODES / 2, NODES / 2 + 1]);
    let delete = Batch::normalise(&deleting([mid.clone()]), &edb);
    edb.apply(&delete);
    dd.apply(&delete).expect("deletes");
    let model = dd.model();
    assert_eq!(model.relations[reach].len(), (NODES / 2 + 1) as usize);
    assert!(!model.contains(reach, &[NODES / 2 + 1]));
    assert_eq!(dd.last_change(), ((NODES / 2 - 1) as usize, 0));

    let insert = Batch::normalise(&inserting([mid]), &edb);
    edb.apply(&insert);
    dd.apply(&insert).expect("re-inserts");
    let model = dd.model();
    assert_eq!(model.relations[reach].len(), NODES as usize);
    assert!(model.contains(reach, &[NODES - 1]));

    // Nothing was settled so far: settling folds the three batches in order (the far half
    // leaves and comes back, which only works batch by batch) and changes no answer.
    let digest = dd.digest();
    dd.settle().expect("the changes are consistent");
    assert_eq!(dd.digest(), digest);
    assert_eq!(dd.model(), model);
}
