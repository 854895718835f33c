use super::*;

fn load(src: &str) -> Result<Program, Diagnostic> {
    load_program(&SourceFile::new("p.dl", src), &mut Symbols::new())
}

const DECLS: &str =
    ".decl e(x: symbol, y: symbol)\n.decl p(x: symbol, y: symbol)\n.decl n(x: number)\n.input e\n";

#[test]
fn seed_program_strata() {
    let p = load(&format!(
        "{DECLS}.decl ready()\np(x, y) :- e(x, y).\np(x, z) :- p(x, y), p(y, z).\nready().\n"
    ))
    .expect("checks");
    let pr = p.relation_id("p").expect("p");
    let s = p.stratum_of[pr].expect("stratum");
    assert!(p.strata[s].recursive);
    assert_eq!(p.strata[s].rules, vec![0, 1]);
    assert_eq!(p.facts.len(), 1);
    assert!(p.stratum_of[p.relation_id("e").expect("e")].is_none());
}

#[test]
fn strata_follow_dependencies() {
    let p = load(
        ".decl a(x: number)\n.decl b(x: number)\n.decl c(x: number)\n.input a\n\
         c(x) :- b(x), !a(x).\nb(x) :- a(x).\n",
    )
    .expect("checks");
    let b = p.stratum_of[1].expect("b");
    let c = p.stratum_of[2].expect("c");
    assert!(b < c);
}

/// Levels count negations along dependency paths: a positive atom keeps its level, a
/// negated one (of the EDB too) adds one, and a positive program has one level.
#[test]
fn levels_count_negations() {
    let p = load(
        ".decl a(x: number)\n.decl b(x: number)\n.decl c(x: number)\n.decl d(x: number)\n\
         .decl e(x: number)\n.input a\n\
         b(x) :- a(x).\nc(x) :- a(x), !b(x).\nd(x) :- c(x), b(x).\ne(x) :- d(x), !a(x).\n\
         e(x) :- b(x), !c(x).\n",
    )
    .expect("checks");
    let levels: Vec<usize> = ["a", "b", "c", "d", "e"]
        .iter()
        .map(|n| p.level_of(p.relation_id(n).expect("declared")))
        .collect();
    assert_eq!(levels, vec![0, 0, 1, 1, 2]);
    assert_eq!(p.num_levels(), 3);
    assert_eq!(p.rule_level(3), 2);
    let positive = load(&format!(
        "{DECLS}p(x, y) :- e(x, y).\np(x, z) :- p(x, y), p(y, z).\n"
    ))
    .expect("checks");
    assert_eq!(positive.num_levels(), 1);
}

/// Aggregates become an input relation of every solution and an aggregate relation one level
/// above it; the rule reading it is above that, and count's empty group is a second rule.
#[test]
fn aggregates_are_rewritten_into_levels() {
    let p = load(
        ".decl e(x: number, y: number)\n.decl n(x: number)\n.decl c(x: number, k: number)\n\
         .input e\n.input n\nc(x, k) :- n(x), k = count : { e(x, _) }.\n",
    )
    .expect("checks");
    assert_eq!(p.aggregates.len(), 1);
    let agg = &p.aggregates[0];
    assert_eq!((agg.group, agg.target), (1, None));
    assert_eq!(
        p.relations[agg.input].arity(),
        2,
        "x and the named wildcard"
    );
    let c = p.relation_id("c").expect("c");
    assert_eq!(
        (p.level_of(agg.input), p.level_of(agg.rel), p.level_of(c)),
        (0, 1, 2)
    );
    assert_eq!(p.aggregate_of(agg.rel).map(|a| a.input), Some(agg.input));
    // c(x, k) :- n(x), @agg0(x, k).  and  c(x, 0) :- n(x), !@agg0(x, _).
    assert_eq!(p.rules.iter().filter(|r| r.head.rel == c).count(), 2);
}

/// Each kind of error, with the line and column it must point at.
#[test]
fn every_check_is_located() {
    let cases: &[(&str, &str, usize, usize)] = &[
        ("undeclared", "p(x, y) :- q(x, y).", 5, 12),
        ("declared twice", ".decl e(a: number)", 5, 7),
        ("duplicate column", ".decl f(a: number, a: number)", 5, 20),
        ("arity", "p(x, y) :- e(x).", 5, 12),
        ("arity in head", "p(x) :- e(x, y).", 5, 1),
        ("constant type", "p(x, y) :- e(x, y), n(\"s\").", 5, 23),
        ("variable type", "p(x, y) :- e(x, y), n(x).", 5, 23),
        ("head type", ".decl q(x: number)\nq(x) :- e(x, _).", 6, 3),
        ("range restriction head", "p(x, z) :- e(x, y).", 5, 6),
        ("wildcard in head", "p(x, _) :- e(x, y).", 5, 6),
        ("non-ground fact", "p(\"a\", y).", 5, 8),
        ("comparison var", "p(x, y) :- e(x, y), z != x.", 5, 21),
        ("order on symbols", "p(x, y) :- e(x, y), x < y.", 5, 21),
        ("comparison type", "p(x, y) :- e(x, y), x = 3.", 5, 25),
        ("negated var", "p(x, y) :- e(x, y), !e(y, z).", 5, 27),
        ("input in head", "e(x, y) :- p(x, y).", 5, 1),
        ("input fact", "e(\"a\", \"b\").", 5, 1),
        ("unstratifiable", "p(x, y) :- e(x, y), !p(y, x).", 5, 1),
        (
            "aggregate target not a variable",
            "n(c) :- e(_, _), c = sum 3 : { e(_, _) }.",
            5,
            26,
        ),
        ("undeclared input", ".input zz", 5, 8),
        ("negation only, not ground", ".decl z()\nz() :- !e(x, \"b\").", 6, 11),
        (
            "sum of symbols",
            "p(x, y) :- e(x, y), n = sum z : { e(x, z) }.",
            5,
            29,
        ),
        (
            "aggregate in recursion",
            ".decl q(x: symbol, k: number)\nq(x, k) :- e(x, _), k = count : { q(x, _) }.",
            6,
            21,
        ),
        (
            "result inside",
            ".decl q(x: symbol, k: number)\nq(x, k) :- e(x, _), k = count : { n(k) }.",
            6,
            37,
        ),
        (
            "nested aggregate",
            ".decl q(x: symbol, k: number)\nq(x, k) :- e(x, _), k = count : { e(x, _), m = count : { e(x, _) } }.",
            6,
            44,
        ),
    ];
    let mut wrong = Vec::new();
    for (what, src, line, col) in cases {
        let full = format!("{DECLS}{src}\n");
        let e = load(&full).expect_err(what);
        if (e.line(), e.column()) != (*line, *col) {
            wrong.push(format!("{what}: expected {line}:{col}, got {e}"));
        }
        assert!(e.render().contains("p.dl:"), "{what}");
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn zero_arity_and_constants() {
    let mut syms = Symbols::new();
    let p = load_program(
        &SourceFile::new("p.dl", ".decl r()\n.decl m(x: symbol)\nr().\nm(\"a\").\n"),
        &mut syms,
    )
    .expect("checks");
    assert_eq!(p.facts[0].tuple, Vec::<i64>::new());
    assert_eq!(p.facts[1].tuple, vec![syms.get("a").expect("interned")]);
}
