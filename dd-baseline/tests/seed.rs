//! The worked examples of SPEC §6 and its boundaries, on the dd engine, checked against the
//! oracle after every batch.

mod common;

use common::*;
use dred_core::{Edb, Engine, Fact, RequestedBatch, Symbols};

fn seed(program: &str, updates: Option<&str>) -> Loaded {
    let dir = datasets().join("seed");
    load_files(
        &dir.join(program),
        &dir.join("facts"),
        updates.map(|u| dir.join(u)).as_deref(),
    )
}

#[test]
fn path_has_20_then_18_tuples() {
    for workers in [1, 2] {
        let l = seed("path.dl", Some("delete-ab.updates"));
        let path = l.program.relation_id("path").expect("path");
        let mut dd = dd(&l.program, workers);
        dd.materialise(&l.edb).expect("materialises");
        assert_eq!(dd.model().relations[path].len(), 20);
        let model = check_against_oracle(&l.program, &l.symbols, &l.edb, &l.batches, workers);
        assert_eq!(model.relations[path].len(), 18, "workers {workers}");
        let a = l.symbols.get("a").expect("a");
        let row: Vec<String> = model.relations[path]
            .iter()
            .filter(|t| t[0] == a)
            .map(|t| l.symbols.name(t[1]).expect("symbol").to_string())
            .collect();
        assert_eq!(row, vec!["d", "e"]);
    }
}

#[test]
fn magic_set_program_ends_with_6_facts() {
    let l = seed("magic.dl", Some("delete-ab.updates"));
    for workers in [1, 2] {
        let model = check_against_oracle(&l.program, &l.symbols, &l.edb, &l.batches, workers);
        assert_eq!(model.len(), 6, "workers {workers}");
    }
    let mut dd = dd(&l.program, 1);
    dd.materialise(&l.edb).expect("materialises");
    // Old IDB: 11 q and 5 m.
    assert_eq!(dd.model().len(), 16);
}

#[test]
fn zero_arity_fact_holds_without_constants() {
    let mut symbols = Symbols::new();
    let p = program(
        ".decl ready()\n.decl e(x: number)\n.input e\nready().\n",
        &mut symbols,
    );
    let mut dd = dd(&p, 1);
    dd.materialise(&Edb::empty(&p)).expect("materialises");
    let ready = p.relation_id("ready").expect("ready");
    assert!(dd.model().contains(ready, &[]));
    assert_eq!(dd.model().len(), 1);
    // An empty batch keeps the model.
    dd.apply(&dred_core::Batch::default()).expect("applies");
    assert_eq!(dd.model().len(), 1);
}

#[test]
fn empty_program_has_empty_model() {
    let mut symbols = Symbols::new();
    let p = program("", &mut symbols);
    let mut dd = dd(&p, 2);
    dd.materialise(&Edb::empty(&p)).expect("materialises");
    assert!(dd.model().is_empty());
}

#[test]
fn fresh_constants_join_new_proofs() {
    let l = seed("path.dl", None);
    let mut symbols = l.symbols.clone();
    let edge = l.program.relation_id("edge").expect("edge");
    let d = symbols.intern("d");
    let a = symbols.intern("a");
    let fresh = symbols.intern("fresh");
    let batches = vec![inserting([
        Fact::new(edge, vec![d, fresh]),
        Fact::new(edge, vec![fresh, a]),
    ])];
    let model = check_against_oracle(&l.program, &symbols, &l.edb, &batches, 2);
    let path = l.program.relation_id("path").expect("path");
    assert!(model.contains(path, &[fresh, fresh]));
}

#[test]
fn negation_follows_lower_strata_both_ways() {
    // Deleting in a lower stratum inserts above the negation, and inserting deletes.
    let mut symbols = Symbols::new();
    let p = program(
        ".decl e(x: number, y: number)\n.decl blocked(x: number)\n.decl r(x: number)\n\
         .decl free(x: number)\n.decl unblocked(x: number, y: number)\n.input e\n.input blocked\n\
         r(y) :- e(0, y).\nr(y) :- r(x), e(x, y), !blocked(y).\n\
         free(x) :- e(x, _), !r(x).\nunblocked(x, y) :- e(x, y), !blocked(_), x < y.\n",
        &mut symbols,
    );
    let e = p.relation_id("e").expect("e");
    let b = p.relation_id("blocked").expect("blocked");
    let mut edb = Edb::empty(&p);
    for (x, y) in [(0, 1), (1, 2), (2, 3), (3, 1), (4, 0)] {
        edb.insert(Fact::new(e, vec![x, y]));
    }
    edb.insert(Fact::new(b, vec![2]));
    let batches = vec![
        deleting([Fact::new(b, vec![2])]),
        inserting([Fact::new(b, vec![1])]),
        RequestedBatch {
            deletions: vec![Fact::new(b, vec![1]), Fact::new(e, vec![0, 1])],
            insertions: vec![Fact::new(e, vec![0, 3])],
        },
    ];
    for workers in [1, 2] {
        check_against_oracle(&p, &symbols, &edb, &batches, workers);
    }
}

#[test]
fn record_type_follows_the_widest_record() {
    // Linear TC: every record at most two words. A ternary relation: four-word rows. A
    // five-column relation needs general rows, whose values are the numbers themselves,
    // negative and beyond 32 bits included.
    let mut symbols = Symbols::new();
    let tc = program(
        ".decl e(x: number, y: number)\n.decl p(x: number, y: number)\n.input e\n\
         p(x, y) :- e(x, y).\np(x, z) :- p(x, y), e(y, z).\n",
        &mut symbols,
    );
    let three = program(
        ".decl e(x: number, y: number)\n.decl p(x: number, y: number, z: number)\n.input e\n\
         p(x, y, z) :- e(x, y), e(y, z), x < z.\n",
        &mut symbols,
    );
    let wide = program(
        ".decl e(a: number, b: number, c: number, d: number, f: number)\n\
         .decl p(a: number, b: number)\n.input e\n\
         p(a, f) :- e(a, b, c, d, f), b < d.\np(f, a) :- e(a, _, _, _, f), a = -7.\n",
        &mut symbols,
    );
    assert_eq!(dd(&tc, 1).records(), Some("[u32; 2]"));
    assert_eq!(dd(&three, 1).records(), Some("[u32; 4]"));
    assert!(dd(&wide, 1)
        .records()
        .is_some_and(|r| r.contains("SmallVec")));

    let e = three.relation_id("e").expect("e");
    let mut edb = Edb::empty(&three);
    for (x, y) in [
        (-7, 1),
        (1, 2),
        (2, 9_000_000_000),
        (9_000_000_000, -8),
        (2, 3),
    ] {
        edb.insert(Fact::new(e, vec![x, y]));
    }
    let batches = vec![
        deleting([Fact::new(e, vec![1, 2])]),
        inserting([Fact::new(e, vec![1, 2])]),
    ];
    let model = check_against_oracle(&three, &symbols, &edb, &batches, 1);
    let p = three.relation_id("p").expect("p");
    assert!(model.contains(p, &[1, 2, 9_000_000_000]) && model.contains(p, &[-7, 1, 2]));
    assert!(
        !model.contains(p, &[2, 9_000_000_000, -8]),
        "2 < -8 is false on the values"
    );

    let e = wide.relation_id("e").expect("e");
    let mut edb = Edb::empty(&wide);
    edb.insert(Fact::new(e, vec![-7, 1, 2, 3, 1 << 40]));
    edb.insert(Fact::new(e, vec![5, 3, 2, 1, 6]));
    let model = check_against_oracle(&wide, &symbols, &edb, &[], 1);
    let p = wide.relation_id("p").expect("p");
    assert!(model.contains(p, &[-7, 1 << 40]) && model.contains(p, &[1 << 40, -7]));
    assert_eq!(model.relations[p].len(), 2);
}
