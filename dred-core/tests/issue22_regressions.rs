//! The three minimised wrong-model reports of issue 22, each run through `recompute`, `dred`
//! and `reference` against the naive `oracle` after every batch. All three came from one bug:
//! the fused walk-and-test loop of the join executor (`Matcher::walk_tests`) checked a
//! variable repeated inside the walked atom (`t(y, "c1", y)`) before binding it from the
//! row, so it compared with the previous row's value. `recompute` lost facts (case 1), and
//! `dred`, whose phases run the same executor, kept or lost facts across batches (cases 2
//! and 3) until a later batch found its model not closed and panicked (case 3b).

use dred_core::testing::{check_case, ColumnType, RandomCase, Update};
use dred_core::{Dred, Engine, Oracle, Recompute, Reference};

const HEADER: &str = "\
.decl e(a0: symbol, a1: symbol)
.decl f(a0: symbol, a1: symbol)
.decl g(a0: symbol)
.decl p(a0: symbol, a1: symbol)
.decl q(a0: symbol)
.decl r(a0: symbol, a1: symbol)
.decl s()
.decl t(a0: symbol, a1: symbol, a2: symbol)
.input e
.input f
.input g
.output p
";

/// A case from its rules, facts (`"e c0 c1"`) and updates (`"+ e c5 c5"`, `"commit"`).
fn case(rules: &str, facts: &[&str], updates: &[&str]) -> RandomCase {
    let split = |s: &str| -> (String, Vec<String>) {
        let mut words = s.split_whitespace().map(str::to_string);
        let rel = words.next().expect("a relation");
        (rel, words.collect())
    };
    let mut batches = vec![Vec::new()];
    for u in updates {
        if *u == "commit" {
            batches.push(Vec::new());
            continue;
        }
        let (sign, rest) = u.split_at(1);
        let (rel, values) = split(rest);
        batches.last_mut().expect("a batch").push(Update {
            insert: sign == "+",
            rel,
            values,
        });
    }
    batches.retain(|b| !b.is_empty());
    RandomCase {
        ty: ColumnType::Symbol,
        header: HEADER.to_string(),
        rules: rules.lines().map(str::to_string).collect(),
        edb: facts.iter().map(|f| split(f)).collect(),
        batches,
    }
}

fn check(case: &RandomCase) {
    let loaded = case.load().expect("the case loads");
    let mut engines: Vec<Box<dyn Engine>> = vec![
        Box::new(Oracle::new(loaded.program.clone())),
        Box::new(Recompute::new(loaded.program.clone())),
        Box::new(Dred::new(loaded.program.clone())),
        Box::new(Reference::new(loaded.program.clone())),
    ];
    let observed = check_case(&loaded, &mut engines).unwrap_or_else(|f| panic!("{f}"));
    assert_eq!(observed.batches, case.batches.len());
    // `dred` alone, as `dredbench run --engines dred` runs it.
    let mut alone: Vec<Box<dyn Engine>> = vec![Box::new(Dred::new(loaded.program.clone()))];
    check_case(&loaded, &mut alone).unwrap_or_else(|f| panic!("{f}"));
}

/// Case 1: `recompute` missed `p("c3", "c1")` in the initial model.
#[test]
fn case_1_recompute_initial_model() {
    let c = case(
        "p(\"c6\", \"c3\") :- s().\n\
         p(\"c3\", y) :- t(y, \"c1\", y), q(y).\n\
         q(z) :- e(y, z), r(w, y).\n\
         r(z, z) :- e(y, z), g(x).\n\
         t(x, x, x) :- q(x).",
        &["e c0 c1", "e c1 c0", "g c1"],
        &[],
    );
    check(&c);
    let loaded = c.load().expect("loads");
    let mut oracle = Oracle::new(loaded.program.clone());
    oracle.materialise(&loaded.edb).expect("oracle");
    let p = loaded.program.relation_id("p").expect("p");
    let (c1, c3) = (
        loaded.symbols.get("c1").expect("c1"),
        loaded.symbols.get("c3").expect("c3"),
    );
    assert!(oracle.model().contains(p, &[c3, c1]), "the fact at stake");
}

/// Case 2: `dred` ended with a wrong model.
#[test]
fn case_2_dred_final_model() {
    check(&case(
        "p(\"c2\", x) :- f(w, x).\n\
         q(\"c4\") :- g(w).\n\
         r(y, y) :- q(x), q(w), t(x, x, y).\n\
         s() :- t(w, \"c5\", z), t(z, w, \"c2\").\n\
         s() :- t(x, y, \"c1\"), t(\"c6\", \"c6\", \"c4\"), e(x, x).\n\
         t(x, \"c4\", x) :- p(w, x), e(y, y).",
        &["f c1 c4"],
        &["+e c5 c5", "+g c5", "+e c6 c6", "commit", "-e c6 c6"],
    ));
}

const CASE_3: &str = "p(\"c6\", y) :- r(y, y), t(\"c1\", w, \"c1\").\n\
     p(z, x) :- g(w), t(z, w, w), e(w, x).\n\
     r(\"c0\", z) :- g(w), g(\"c0\"), f(z, y), w != z.\n\
     r(w, y) :- e(z, x), t(w, y, w).\n\
     t(x, x, x) :- r(x, z).";

/// Case 3a: `dred` wrong after the third batch.
#[test]
fn case_3a_dred_third_batch() {
    check(&case(
        CASE_3,
        &["f c0 c0", "g c0", "g c3", "g c6"],
        &[
            "+g c5",
            "+e c0 fresh0",
            "commit",
            "-g c5",
            "commit",
            "-g c3",
        ],
    ));
}

/// Case 3b: `dred` alone panicked ("the old model is closed under the rules and holds D-").
#[test]
fn case_3b_dred_alone_panicked() {
    check(&case(
        CASE_3,
        &[
            "e c1 c3", "f c0 c0", "f c2 c4", "f c4 c2", "f c6 c0", "g c0", "g c3",
        ],
        &[
            "-f c6 c0",
            "+g c5",
            "+e c0 fresh0",
            "commit",
            "-g c5",
            "commit",
            "-f c2 c4",
            "commit",
            "-g c3",
        ],
    ));
}
