//! Property test: on random stratified programs (recursion, mutual recursion, constants,
//! repeated variables, wildcards, comparisons, negation, program facts, a zero-arity relation,
//! a ternary relation whose rows spill out of inline storage),
//! random EDBs and random update streams, the dd engine's model equals the naive oracle's after
//! materialisation and after every batch — with one worker and with two.

mod common;

use std::fmt::Write as _;

use common::*;
use dred_core::{Edb, Fact, RequestedBatch, Symbols};
use proptest::prelude::*;

/// Values are drawn from `0..DOMAIN`, so joins hit and deletions matter.
const DOMAIN: i64 = 4;
/// Rule variables `x0 .. x3`.
const VARS: u8 = 4;

/// The fixed schema: name, arity, stratum level (`None` for `.input`). Relations on one level
/// may recurse through each other; negation only reaches strictly lower levels.
const RELS: &[(&str, usize, Option<u8>)] = &[
    ("e", 2, None),
    ("f", 1, None),
    ("a", 2, Some(0)),
    ("b", 1, Some(0)),
    ("c", 2, Some(1)),
    ("d", 0, Some(2)),
    ("g", 1, Some(2)),
    ("h", 3, Some(1)),
];
const EDB: [usize; 2] = [0, 1];

#[derive(Clone, Copy, Debug)]
enum T {
    Var(u8),
    Const(i64),
    Wild,
}

#[derive(Clone, Debug)]
struct GenAtom {
    rel: u8,
    terms: [T; 3],
}

#[derive(Clone, Debug)]
struct GenRule {
    head: u8,
    head_terms: [T; 3],
    atoms: Vec<GenAtom>,
    neg: Option<GenAtom>,
    cmp: Option<(T, u8, T)>,
}

#[derive(Clone, Debug)]
struct Case {
    rules: Vec<GenRule>,
    facts: Vec<(u8, i64)>,
    e: Vec<(i64, i64)>,
    f: Vec<i64>,
    batches: Vec<Vec<(bool, bool, i64, i64)>>,
}

fn term() -> impl Strategy<Value = T> {
    prop_oneof![
        5 => (0..VARS).prop_map(T::Var),
        1 => (0..DOMAIN).prop_map(T::Const),
        1 => Just(T::Wild),
    ]
}

fn atom() -> impl Strategy<Value = GenAtom> {
    (any::<u8>(), term(), term(), term()).prop_map(|(rel, a, b, c)| GenAtom {
        rel,
        terms: [a, b, c],
    })
}

fn rule() -> impl Strategy<Value = GenRule> {
    (
        any::<u8>(),
        (term(), term(), term()),
        prop::collection::vec(atom(), 1..=3),
        prop::option::weighted(0.3, atom()),
        prop::option::weighted(0.3, (term(), 0..6u8, term())),
    )
        .prop_map(|(head, (h0, h1, h2), atoms, neg, cmp)| GenRule {
            head,
            head_terms: [h0, h1, h2],
            atoms,
            neg,
            cmp,
        })
}

fn case() -> impl Strategy<Value = Case> {
    let value = 0..DOMAIN;
    let update = (any::<bool>(), any::<bool>(), value.clone(), value.clone());
    (
        prop::collection::vec(rule(), 1..=6),
        prop::collection::vec((any::<u8>(), value.clone()), 0..=2),
        prop::collection::vec((value.clone(), value.clone()), 0..=12),
        prop::collection::vec(value, 0..=3),
        prop::collection::vec(prop::collection::vec(update, 0..=5), 1..=6),
    )
        .prop_map(|(rules, facts, e, f, batches)| Case {
            rules,
            facts,
            e,
            f,
            batches,
        })
}

/// The case's program as text; every generated rule is made valid (range-restricted, stratified)
/// by construction.
fn render(case: &Case) -> String {
    let mut s = String::new();
    for (name, arity, _) in RELS {
        let cols: Vec<String> = (0..*arity).map(|i| format!("c{i}: number")).collect();
        let _ = writeln!(s, ".decl {name}({})", cols.join(", "));
    }
    for &i in &EDB {
        let _ = writeln!(s, ".input {}", RELS[i].0);
    }
    let idb: Vec<usize> = (0..RELS.len()).filter(|i| RELS[*i].2.is_some()).collect();
    for &(rel, v) in &case.facts {
        let (name, arity, _) = RELS[idb[rel as usize % idb.len()]];
        let args: Vec<String> = (0..arity).map(|i| (v + i as i64).to_string()).collect();
        let _ = writeln!(s, "{name}({}).", args.join(", "));
    }
    for r in &case.rules {
        let head = idb[r.head as usize % idb.len()];
        let level = RELS[head].2.unwrap_or(0);
        let positive: Vec<usize> = (0..RELS.len())
            .filter(|&i| RELS[i].2.is_none_or(|l| l <= level))
            .collect();
        let negative: Vec<usize> = (0..RELS.len())
            .filter(|&i| RELS[i].2.is_none_or(|l| l < level))
            .collect();
        let mut body = Vec::new();
        let mut bound = Vec::new();
        for a in &r.atoms {
            let rel = positive[a.rel as usize % positive.len()];
            let (name, arity, _) = RELS[rel];
            let args: Vec<String> = a.terms[..arity]
                .iter()
                .map(|t| match *t {
                    T::Var(v) => {
                        bound.push(v);
                        format!("x{v}")
                    }
                    T::Const(c) => c.to_string(),
                    T::Wild => "_".into(),
                })
                .collect();
            body.push(format!("{name}({})", args.join(", ")));
        }
        // Unbound variables become constants (or `_` in a negated atom).
        let bound_or = |t: T, other: &str| match t {
            T::Var(v) if bound.contains(&v) => format!("x{v}"),
            T::Var(v) => other.replace('#', &(i64::from(v) % DOMAIN).to_string()),
            T::Const(c) => c.to_string(),
            T::Wild => other.replace('#', "0"),
        };
        if let Some(n) = &r.neg {
            let rel = negative[n.rel as usize % negative.len()];
            let (name, arity, _) = RELS[rel];
            let args: Vec<String> = n.terms[..arity]
                .iter()
                .map(|t| match *t {
                    T::Wild => "_".into(),
                    _ => bound_or(*t, "_"),
                })
                .collect();
            body.push(format!("!{name}({})", args.join(", ")));
        }
        if let Some((l, op, rt)) = r.cmp {
            let op = ["=", "!=", "<", "<=", ">", ">="][op as usize];
            body.push(format!("{} {op} {}", bound_or(l, "#"), bound_or(rt, "#")));
        }
        let (name, arity, _) = RELS[head];
        let head_args: Vec<String> = r.head_terms[..arity]
            .iter()
            .map(|t| bound_or(*t, "#"))
            .collect();
        let _ = writeln!(
            s,
            "{name}({}) :- {}.",
            head_args.join(", "),
            body.join(", ")
        );
    }
    s
}

fn run(case: &Case, workers: usize) {
    let text = render(case);
    let mut symbols = Symbols::new();
    let p = program(&text, &mut symbols);
    let (e, f) = (
        p.relation_id("e").expect("e"),
        p.relation_id("f").expect("f"),
    );
    let mut edb = Edb::empty(&p);
    for &(x, y) in &case.e {
        edb.insert(Fact::new(e, vec![x, y]));
    }
    for &x in &case.f {
        edb.insert(Fact::new(f, vec![x]));
    }
    let batches: Vec<RequestedBatch> = case
        .batches
        .iter()
        .map(|b| {
            let mut req = RequestedBatch::default();
            for &(insert, on_e, x, y) in b {
                let fact = if on_e {
                    Fact::new(e, vec![x, y])
                } else {
                    Fact::new(f, vec![x])
                };
                if insert {
                    req.insertions.push(fact);
                } else {
                    req.deletions.push(fact);
                }
            }
            req
        })
        .collect();
    check_against_oracle(&p, &symbols, &edb, &batches, workers);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn dd_equals_oracle_with_one_worker(case in case()) {
        run(&case, 1);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 32, ..ProptestConfig::default() })]

    #[test]
    fn dd_equals_oracle_with_two_workers(case in case()) {
        run(&case, 2);
    }
}

#[test]
fn generated_programs_exercise_every_feature() {
    // The renderer must produce negation, comparisons, recursion and zero-arity atoms.
    let rule = |head, atoms: Vec<GenAtom>, neg, cmp| GenRule {
        head,
        head_terms: [T::Var(0), T::Var(1), T::Var(2)],
        atoms,
        neg,
        cmp,
    };
    let a = |rel, x, y| GenAtom {
        rel,
        terms: [x, y, T::Var(2)],
    };
    let case = Case {
        rules: vec![
            rule(0, vec![a(0, T::Var(0), T::Var(1))], None, None),
            rule(
                0,
                vec![a(2, T::Var(0), T::Var(2)), a(0, T::Var(2), T::Var(1))],
                None,
                None,
            ),
            rule(
                2,
                vec![a(0, T::Var(0), T::Var(1))],
                Some(a(1, T::Var(1), T::Wild)),
                Some((T::Var(0), 2, T::Var(1))),
            ),
            rule(3, vec![a(4, T::Var(0), T::Var(0))], None, None),
        ],
        facts: vec![(1, 2)],
        e: vec![(0, 1), (1, 2), (2, 0), (3, 3)],
        f: vec![1],
        batches: vec![
            vec![(false, true, 1, 2)],
            vec![(true, true, 1, 2), (false, false, 1, 0)],
        ],
    };
    let text = render(&case);
    assert!(
        text.contains('!') && text.contains(" < ") && text.contains("d()"),
        "{text}"
    );
    run(&case, 1);
    run(&case, 2);
}
