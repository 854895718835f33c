use std::sync::Arc;

use super::*;
use crate::engine::{Batch, Edb, Engine, Fact, RequestedBatch};
use crate::{Oracle, Recompute};

const SEED: &str = include_str!("../../../datasets/seed/path.dl");

fn seed_edb(program: &Program, symbols: &mut Symbols) -> Edb {
    let mut edb = Edb::empty(program);
    let edge = program.relation_id("edge").expect("edge");
    for (a, b) in crate::seed::seed_edges() {
        edb.insert(Fact::new(edge, vec![symbols.intern(a), symbols.intern(b)]));
    }
    edb
}

fn rules_of(text: &str) -> Vec<&str> {
    text.lines()
        .filter(|l| !l.starts_with("//") && !l.starts_with('.') && !l.trim().is_empty())
        .collect()
}

#[test]
fn seed_query_gives_the_four_rules_of_the_spec() {
    let mut symbols = Symbols::new();
    let program = load_program(&SourceFile::new("path.dl", SEED), &mut symbols).expect("seed");
    let q = parse_query("path(\"a\", y)", &program, &mut symbols).expect("query");
    assert_eq!(q.adornment(), "bf");
    let m = rewrite(&program, &q, &mut symbols).expect("rewrite");
    let mut rules = rules_of(&m.text);
    rules.sort_unstable();
    assert_eq!(
        rules,
        vec![
            "magic_path_bf(\"a\").",
            "magic_path_bf(y) :- magic_path_bf(x), path_bf(x, y).",
            "path_bf(x, y) :- magic_path_bf(x), edge(x, y).",
            "path_bf(x, z) :- magic_path_bf(x), path_bf(x, y), path_bf(y, z).",
        ],
        "{}",
        m.text
    );
}

#[test]
fn seed_query_figures_and_withdrawn_demand() {
    let mut symbols = Symbols::new();
    let program = load_program(&SourceFile::new("path.dl", SEED), &mut symbols).expect("seed");
    let q = parse_query("path(\"a\", y)", &program, &mut symbols).expect("query");
    let m = rewrite(&program, &q, &mut symbols).expect("rewrite");
    let edb = seed_edb(&program, &mut symbols);
    // The generated program declares the same input relations, in the same order.
    let mut gedb = Edb::empty(&m.program);
    let gedge = m.program.relation_id("edge").expect("edge");
    for f in edb.facts() {
        gedb.insert(Fact::new(gedge, f.tuple));
    }
    let prog = Arc::new(m.program.clone());
    let mut engine = Recompute::new(prog.clone());
    engine.materialise(&gedb).expect("materialise");
    let q_rel = m.answer_rel;
    let m_rel = prog.relation_id("magic_path_bf").expect("magic");
    let model = engine.model();
    assert_eq!(model.relations[q_rel].len(), 11);
    assert_eq!(model.relations[m_rel].len(), 5);
    let ab = Fact::new(gedge, vec![symbols.intern("a"), symbols.intern("b")]);
    let batch = Batch::normalise(
        &RequestedBatch {
            deletions: vec![ab],
            insertions: vec![],
        },
        &gedb,
    );
    engine.apply(&batch).expect("apply");
    let model = engine.model();
    assert_eq!(model.len(), 6);
    let name = |v: &Value| symbols.name(*v).expect("symbol").to_string();
    let demand: Vec<String> = model.relations[m_rel].iter().map(|t| name(&t[0])).collect();
    // Demand for b and c lost its support and is withdrawn; m(d) stays (via q(a,e), q(e,d)).
    assert_eq!(
        demand,
        vec!["a", "d", "e"]
            .into_iter()
            .map(String::from)
            .collect::<Vec<_>>(),
        "{demand:?}"
    );
    let answers: Vec<(String, String)> = m
        .answers(&model)
        .iter()
        .map(|t| (name(&t[0]), name(&t[1])))
        .collect();
    let mut answers = answers;
    answers.sort();
    assert_eq!(
        answers,
        vec![("a".into(), "d".into()), ("a".into(), "e".into())]
    );
}

#[test]
fn bad_queries_are_refused_with_location() {
    let mut symbols = Symbols::new();
    let program = load_program(&SourceFile::new("path.dl", SEED), &mut symbols).expect("seed");
    for (q, col, what) in [
        ("nope(\"a\", y)", 1, "not declared"),
        ("path(\"a\")", 1, "column"),
        ("path(1, y)", 6, "type"),
        ("edge(\"a\", y)", 1, "input"),
        ("path(\"a\", y), path(y, z)", 13, "several heads"),
    ] {
        let e = parse_query(q, &program, &mut symbols).expect_err(q);
        assert_eq!((e.line(), e.column()), (1, col), "{q}: {e}");
        assert!(e.message.contains(what), "{q}: {e}");
    }
}

#[test]
fn negation_keeps_the_negated_relation_whole() {
    let mut symbols = Symbols::new();
    let src =
        ".decl e(x: number, y: number)\n.decl r(x: number, y: number)\n.decl blocked(x: number)\n\
               .decl s(x: number, y: number)\n.input e\n\
               blocked(y) :- e(y, y).\n\
               r(x, y) :- e(x, y), !blocked(y).\nr(x, z) :- r(x, y), e(y, z), !blocked(z).\n\
               s(x, y) :- r(x, y), x < y.\n";
    let program = load_program(&SourceFile::new("n.dl", src), &mut symbols).expect("program");
    let q = parse_query("s(1, y)", &program, &mut symbols).expect("query");
    let m = rewrite(&program, &q, &mut symbols).expect("rewrite");
    assert!(m.text.contains("blocked(y) :- e(y, y)."), "{}", m.text);
    let full = Arc::new(program);
    let prog = Arc::new(m.program.clone());
    let mut edb = Edb::empty(&full);
    let mut gedb = Edb::empty(&prog);
    for (a, b) in [(1, 2), (2, 3), (3, 3), (3, 4), (2, 5), (5, 6), (0, 1)] {
        edb.insert(Fact::new(0, vec![a, b]));
        gedb.insert(Fact::new(prog.relation_id("e").expect("e"), vec![a, b]));
    }
    let mut o_full = Oracle::new(full.clone());
    o_full.materialise(&edb).expect("full");
    let mut o_magic = Oracle::new(prog);
    o_magic.materialise(&gedb).expect("magic");
    let expected: Vec<Tuple> = o_full.model().relations[q.rel]
        .iter()
        .filter(|t| q.matches(t))
        .cloned()
        .collect();
    assert_eq!(m.answers(&o_magic.model()), expected);
    assert_eq!(expected, vec![vec![1, 2], vec![1, 5], vec![1, 6]]);
}
