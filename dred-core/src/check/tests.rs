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
            "aggregate target a wildcard",
            "n(c) :- e(_, _), c = sum _ : { e(_, _) }.",
            5,
            26,
        ),
        (
            "correlated variable bound nowhere",
            ".decl q(x: symbol, k: number)\nq(x, k) :- k = count : { e(y, _), y != x }.",
            6,
            40,
        ),
        (
            "correlated aggregate in recursion",
            ".decl q(x: symbol, k: number)\nq(x, k) :- q(x, _), k = count : { e(y, _), y != x }.",
            6,
            21,
        ),
        ("undeclared input", ".input zz", 5, 8),
        ("eqrel of one column", ".decl q(x: symbol) eqrel", 5, 1),
        (
            "eqrel of two types",
            ".decl q(x: symbol, n: number) eqrel\nq(x, 1) :- e(x, _).",
            5,
            1,
        ),
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
            "symbol target of a nested aggregate",
            ".decl q(x: symbol, k: number)\nq(x, k) :- e(x, _), k = count : { e(x, y), m = max y : { e(y, _) } }.",
            6,
            52,
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

const NUMS: &str = ".decl n(x: number)\n.decl m(x: number, y: number)\n.decl r(x: number)\n\
                    .decl s(x: symbol)\n.input n\n.input s\n.decl t(x: symbol)\n";

/// The diagnostic's line and column, and its message.
fn error_at(src: &str) -> (usize, usize, String) {
    let d = load(src).expect_err(src);
    let (line, col) = d.file.line_col(d.span.start);
    (line, col, d.message)
}

fn assigns(rule: &Rule) -> usize {
    rule.body
        .iter()
        .filter(|l| matches!(l, Literal::Assign { .. }))
        .count()
}

#[test]
fn expressions_become_assignments_after_the_other_literals() {
    let p = load(&format!(
        "{NUMS}m(x, y + 1) :- n(x), y = x * 2, x + 1 < y.\n\
         r(c) :- c = b - a, b = a * 2, n(x), a = x + 1.\n\
         r(x) :- n(x), x = 3 * 2.\n\
         m(x, y) :- n(x), y = x.\n\
         r(k) :- k = 7.\n"
    ))
    .expect("checks");
    // m(x, $e0) :- n(x), $e1 < y, y = x * 2, $e0 = y + 1, $e1 = x + 1.
    let r0 = &p.rules[0];
    assert_eq!(assigns(r0), 3);
    assert!(matches!(r0.body[0], Literal::Positive(_)));
    assert!(matches!(r0.body[1], Literal::Compare { .. }));
    // Each assignment's expression reads only variables bound before it.
    for rule in &p.rules {
        let mut bound: Vec<bool> = vec![false; rule.num_vars()];
        for a in rule.positive_atoms() {
            for t in &a.args {
                if let Term::Var(v) = t {
                    bound[*v] = true;
                }
            }
        }
        for l in &rule.body {
            if let Literal::Assign { var, expr } = l {
                assert!(expr.ready(&bound), "{:?}", rule.var_names);
                bound[*var] = true;
            }
        }
        assert!(rule.head_vars().all(|v| bound[v]));
    }
    // The chain written backwards binds a, b, c in that order.
    assert_eq!(assigns(&p.rules[1]), 3);
    // An equality of a bound variable and an expression is one assignment that checks.
    let r2 = &p.rules[2];
    assert!(matches!(&r2.body[1], Literal::Assign { var: 0, .. }));
    // `y = x` binds y; `k = 7` binds k (the rule reads `$true()`).
    assert_eq!(assigns(&p.rules[3]), 1);
    assert_eq!(assigns(&p.rules[4]), 1);
    assert!(p.has_arithmetic());
}

#[test]
fn facts_compute_their_expressions() {
    let p = load(&format!("{NUMS}r(1 + 2 * 3).\nr(-2 ^ 2).\nr(1 / 0).\n")).expect("checks");
    let facts: Vec<&[i64]> = p.facts.iter().map(|f| f.tuple.as_slice()).collect();
    assert_eq!(facts, [&[7][..], &[-4][..]]);
    let (line, col, msg) = error_at(&format!("{NUMS}r(x + 1).\n"));
    assert_eq!((line, col), (8, 3), "{msg}");
}

#[test]
fn unbound_and_cyclic_assignments_are_located_errors() {
    for (rule, at, what) in [
        (
            "r(x + 1) :- n(y).",
            (8, 3),
            "variable `x` in an expression in the rule head",
        ),
        ("r(z) :- n(x), z = x + y.", (8, 23), "`y`"),
        (
            "r(x) :- n(z), x = y + 1, y = x - 1.",
            (8, 19),
            "`y` in a comparison",
        ),
        ("r(x) :- n(x), !m(x, y * 2).", (8, 21), "negated atom"),
        (
            "r(x) :- n(x), m(x, y + 1).",
            (8, 20),
            "variable `y` in an expression in a body atom",
        ),
        ("r(x) :- n(x), _ = x + 1.", (8, 15), "`_`"),
    ] {
        let (line, col, msg) = error_at(&format!("{NUMS}{rule}\n"));
        assert_eq!((line, col), at, "{rule}: {msg}");
        assert!(msg.contains(what), "{rule}: {msg}");
    }
}

#[test]
fn arithmetic_on_symbols_is_a_type_error() {
    for (rule, at, what) in [
        (
            "r(y) :- s(x), y = x + 1.",
            (8, 19),
            "`+` needs a `number` here, this is a `symbol`",
        ),
        (
            "r(y) :- n(x), y = x + \"a\".",
            (8, 23),
            "this is a `symbol`",
        ),
        (
            "t(x + 1) :- n(x).",
            (8, 3),
            "this expression is a `number` but column 1 of `t`",
        ),
        (
            "r(x) :- s(y), n(x), y = x * 2.",
            (8, 25),
            "`y` is a `symbol`",
        ),
        (
            "r(x) :- s(x * 2), n(x).",
            (8, 11),
            "its column has type `symbol`",
        ),
        (
            "r(x) :- n(x), s(y), x + 1 = y.",
            (8, 21),
            "`y` is a `symbol` but is equated with a `number`",
        ),
        (
            "r(x) :- n(x), s(y), x + 1 < y.",
            (8, 29),
            "comparing a `number` with a `symbol`",
        ),
    ] {
        let (line, col, msg) = error_at(&format!("{NUMS}{rule}\n"));
        assert_eq!((line, col), at, "{rule}: {msg}");
        assert!(msg.contains(what), "{rule}: {msg}");
    }
}

#[test]
fn arithmetic_inside_aggregates_is_an_assignment_of_the_input_rule() {
    let p = load(&format!(
        "{NUMS}r(c) :- n(x), c = count : {{ m(x, y), y > x + 1 }}.\nr(c) :- c = sum y * 2 : {{ n(y) }}.\n"
    ))
    .expect("checks");
    let inputs: Vec<&Rule> = p
        .rules
        .iter()
        .filter(|r| p.relations[r.head.rel].name.ends_with("_in"))
        .collect();
    assert_eq!(inputs.len(), 2);
    for r in inputs {
        assert!(
            r.body.iter().any(|l| matches!(l, Literal::Assign { .. })),
            "an assignment in {r:?}"
        );
    }
    // The target computed by `sum y * 2` is a column of its own, the one aggregated.
    let sum = p
        .aggregates
        .iter()
        .find(|a| a.func == ast::AggFunc::Sum)
        .expect("sum");
    assert_eq!(p.relations[sum.input].arity(), 2);
    assert_eq!(sum.target, Some(1));
    // A symbol target is refused where written.
    let (line, col, msg) = error_at(&format!("{NUMS}r(c) :- c = max y : {{ s(x), y = x }}.\n"));
    assert_eq!((line, col), (8, 17), "{msg}");
    assert!(msg.contains("needs a `number` target"), "{msg}");
}

/// A correlated aggregate reads a context relation of the outer variable's bindings; a
/// nested aggregate becomes a rule of the outer's input relation.
#[test]
fn correlated_and_nested_aggregates_are_rewritten() {
    let p = load(&format!(
        "{NUMS}.decl w(x: number, c: number)\n\
         w(x, c) :- n(x), c = count : {{ n(y), y < x }}.\n\
         w(x, c) :- n(x), c = count : {{ m(x, y), k = count : {{ m(y, _) }}, k > 1 }}.\n"
    ))
    .expect("checks");
    let names: Vec<&str> = p.relations.iter().map(|r| r.name.as_str()).collect();
    assert!(names.contains(&"@ctx0"), "{names:?}");
    let ctx = p.relation_id("@ctx0").expect("context");
    let in0 = p.relation_id("@agg0_in").expect("input");
    assert!(p
        .rules
        .iter()
        .any(|r| r.head.rel == in0 && matches!(&r.body[0], Literal::Positive(a) if a.rel == ctx)));
    assert_eq!(p.aggregates.len(), 3);
    // The nested aggregate groups by the outer braces' variable it uses.
    let nested = p
        .aggregates
        .iter()
        .find(|a| a.group == 1 && a.rel != p.aggregates[0].rel);
    assert!(nested.is_some(), "{:?}", p.aggregates);
}

/// String functors are typed by their signature: a symbol where a number is needed and the
/// reverse are located errors, as are an order comparison of symbols and a constant
/// pattern that is no regular expression.
#[test]
fn string_functor_type_errors_are_located() {
    for (rule, at, what) in [
        (
            "r(x) :- n(x), t(y), y = cat(x, \"a\").",
            (8, 29),
            "`cat` needs a `symbol` here, this is a `number`",
        ),
        (
            "r(strlen(x)) :- n(x).",
            (8, 10),
            "`strlen` needs a `symbol` here, this is a `number`",
        ),
        (
            "t(to_string(x)) :- s(x).",
            (8, 13),
            "`to_string` needs a `number`, `unsigned` or `float` here, this is a `symbol`",
        ),
        (
            "t(substr(x, x, 1)) :- s(x).",
            (8, 13),
            "`substr` needs a `number` here, this is a `symbol`",
        ),
        (
            "r(x) :- n(x), s(y), contains(x, y).",
            (8, 30),
            "`contains` needs a `symbol` here",
        ),
        (
            "r(strlen(x)) :- s(x), t(cat(x, \"a\") + 1).",
            (8, 25),
            "`+` needs a `number` here, this is a `symbol`",
        ),
        (
            "r(cat(x, x)) :- s(x).",
            (8, 3),
            "this expression is a `symbol` but column 1 of `r`",
        ),
        (
            "t(x) :- s(x), cat(x, x) < x.",
            (8, 15),
            "symbols are only compared with `=` and `!=`",
        ),
        (
            "t(x) :- s(x), strlen(x) = cat(x, x).",
            (8, 27),
            "comparing a `number` with a `symbol`",
        ),
        (
            "t(x) :- s(x), match(\"a(\", x).",
            (8, 21),
            "is not a valid regular expression",
        ),
        (
            "t(x) :- s(x), !match(\"[\", x).",
            (8, 22),
            "is not a valid regular expression",
        ),
        (
            "t(x + 1) :- s(x).",
            (8, 3),
            "`+` needs a `number` here, this is a `symbol`",
        ),
    ] {
        let (line, col, msg) = error_at(&format!("{NUMS}{rule}\n"));
        assert_eq!((line, col), at, "{rule}: {msg}");
        assert!(msg.contains(what), "{rule}: {msg}");
    }
}

/// Functors become assignments like arithmetic: `+` on two symbols is `cat`, constraints
/// are comparisons of their value with 0, and program facts are computed when checked
/// (one without a value is no fact).
#[test]
fn string_functors_check_into_assignments_and_facts() {
    let mut symbols = Symbols::new();
    let p = load_program(
        &SourceFile::new(
            "p.dl",
            format!(
                "{NUMS}t(x + \"!\") :- s(x), contains(\"a\", x), !match(\"b.*\", x).\n\
                 t(cat(\"a\", \"b\", \"c\")).\nr(strlen(\"é\") + 1).\nr(to_number(\"x\")).\n\
                 t(y) :- s(x), y = substr(x, 0, strlen(x) - 1), ord(y) != ord(x).\n"
            )
            .as_str(),
        ),
        &mut symbols,
    )
    .expect("checks");
    assert!(p.has_string_functors());
    let cat = p.rules[0]
        .body
        .iter()
        .find_map(|l| match l {
            Literal::Assign {
                expr: Expr::Str(op, _, table),
                ..
            } if *op == ast::ArithOp::Cat => Some(table.clone()),
            _ => None,
        })
        .expect("`x + \"!\"` is a cat");
    assert_eq!(cat, symbols, "the functor holds the run's table");
    let compares = p.rules[0]
        .body
        .iter()
        .filter(|l| matches!(l, Literal::Compare { .. }))
        .count();
    assert_eq!(compares, 2, "{:?}", p.rules[0].body);
    let facts: Vec<String> = p
        .facts
        .iter()
        .map(|f| p.fact_to_string(&symbols, f.rel, &f.tuple))
        .collect();
    assert_eq!(facts, ["t(\"abc\")", "r(3)"]);
    let plain = load(&format!("{NUMS}r(x + 1) :- n(x).\n")).expect("checks");
    assert!(!plain.has_string_functors());
}

const TYPED: &str = ".decl f(x: float)\n.decl u(x: unsigned)\n.decl n(x: number)\n\
                     .decl s(x: symbol)\n.input f\n.input u\n.input n\n.input s\n";

/// Derived relations of each numeric type, declared on lines 9 to 11 after [`TYPED`].
const TYPED_OUT: &str = ".decl df(x: float)\n.decl du(x: unsigned)\n.decl dn(x: number)\n";

#[test]
fn integer_literals_take_the_type_of_their_context() {
    use crate::value::{encode_float, encode_unsigned};
    let src = format!(
        "{TYPED}.decl g(x: float, y: unsigned)\ng(1 / 4, 3 * 2).\ng(x + 1, 7) :- f(x), x > 2.\n\
         .decl h(y: unsigned)\nh(y) :- u(y), y = 5.\ng(0x10, 18446744073709551615).\n"
    );
    let p = load(&src).expect("checks");
    assert_eq!(
        p.facts[1].tuple,
        vec![encode_float(16.0), encode_unsigned(u64::MAX)]
    );
    assert_eq!(
        p.facts[0].tuple,
        vec![encode_float(0.25), encode_unsigned(6)]
    );
    let var = |_| encode_float(2.5);
    let Literal::Assign { expr, .. } = p.rules[0].body.last().expect("an assignment") else {
        panic!("the head's expression is assigned last")
    };
    assert_eq!(expr.eval(&var), Some(encode_float(3.5)));
    let Literal::Compare { right, .. } = &p.rules[0].body[1] else {
        panic!("a comparison")
    };
    assert_eq!(*right, Term::Const(encode_float(2.0)));
    let Literal::Compare { right, .. } = &p.rules[1].body[1] else {
        panic!("a comparison")
    };
    assert_eq!(*right, Term::Const(encode_unsigned(5)));
}

#[test]
fn conversions_resolve_by_their_operand_type() {
    let src = format!(
        "{TYPED}.decl c(a: number, b: unsigned, c: float, d: symbol)\n\
         c(to_number(x), to_unsigned(x), to_float(x), to_string(x)) :- f(x).\n\
         c(to_number(y), to_unsigned(y), to_float(y), to_string(y)) :- u(y).\n\
         c(to_number(z), to_unsigned(z), to_float(z), z) :- s(z).\n"
    );
    let p = load(&src).expect("checks");
    let kinds: Vec<Vec<String>> = p
        .rules
        .iter()
        .map(|r| {
            r.body
                .iter()
                .filter_map(|l| match l {
                    Literal::Assign { expr, .. } => Some(match expr {
                        Expr::Term(_) => "same".to_string(),
                        Expr::Typed(ty, op, _) => format!("{}:{}", ty.keyword(), op.symbol()),
                        Expr::Str(op, ..) => format!("str:{op:?}"),
                        Expr::Op(op, _) => format!("number:{}", op.symbol()),
                        Expr::Record(op, ..) => format!("record:{op:?}"),
                    }),
                    _ => None,
                })
                .collect()
        })
        .collect();
    assert_eq!(
        kinds,
        [
            vec![
                "float:to_number",
                "float:to_unsigned",
                "same",
                "str:FloatToString"
            ],
            vec![
                "unsigned:to_number",
                "same",
                "unsigned:to_float",
                "str:UnsignedToString"
            ],
            vec!["str:ToNumber", "str:ToUnsigned", "str:ToFloat"],
        ]
    );
}

#[test]
fn numeric_type_errors_are_located() {
    for (rule, at, what) in [
        ("dn(x) :- f(x).", (12, 4), "`x` is a `float` in the body"),
        (
            "du(x + 1) :- n(x).",
            (12, 4),
            "this expression is a `number`",
        ),
        (
            "df(x) :- f(x), n(y), x < y.",
            (12, 22),
            "comparing a `float` with a `number`",
        ),
        (
            "df(x + y) :- f(x), n(y).",
            (12, 8),
            "`+` needs a `float` here, this is a `number`",
        ),
        ("du(-1).", (12, 4), "the constant -1 is negative"),
        (
            "dn(9223372036854775808).",
            (12, 4),
            "beyond the largest `number`",
        ),
        ("dn(1.5).", (12, 4), "column 1 of `dn` has type `number`"),
        (
            "df(x % 2) :- f(x).",
            (12, 4),
            "`%` is not defined on `float`s",
        ),
        (
            "du(-x) :- u(x).",
            (12, 4),
            "`-` is not defined on `unsigned`s",
        ),
        (
            "df(x band x) :- f(x).",
            (12, 4),
            "`band` is not defined on `float`s",
        ),
    ] {
        let (line, col, msg) = error_at(&format!("{TYPED}{TYPED_OUT}{rule}\n"));
        assert_eq!((line, col), at, "{rule}: {msg}");
        assert!(msg.contains(what), "{rule}: {msg}");
    }
}

#[test]
fn typed_aggregates_give_their_target_type() {
    let src = format!(
        "{TYPED}.decl t(a: float, b: unsigned, c: number)\n\
         t(s, m, k) :- s = sum x : {{ f(x) }}, m = max y : {{ u(y) }}, k = count : {{ f(_) }}.\n"
    );
    let p = load(&src).expect("checks");
    assert!(!p.aggregates.is_empty());
    for a in &p.aggregates {
        let want = match a.func {
            ast::AggFunc::Sum => Type::Float,
            ast::AggFunc::Max => Type::Unsigned,
            _ => Type::Number,
        };
        assert_eq!(a.value_type, want, "{:?}", a.func);
    }
}

const RECORDS: &str = ".type P = [a: number, b: symbol]\n.type L = [h: P, t: L]\n\
                       .decl p(x: P)\n.decl l(x: L)\n.decl n(x: number)\n.decl s(x: symbol)\n\
                       .input p\n.input n\n.input s\n.decl m(x: number)\n";

#[test]
fn record_type_errors_are_located() {
    for (rule, at, what) in [
        (
            "m(x) :- p([x]).",
            (11, 11),
            "`P` has 2 field(s), this has 1",
        ),
        (
            "m(x) :- s([x, _]).",
            (11, 11),
            "column 1 of `s` has type `symbol`, not a record type",
        ),
        (
            "m(x) :- p([x, [y]]).",
            (11, 15),
            "field `b` of `P` has type `symbol`, not a record type",
        ),
        (
            "l([[x, x], nil]) :- n(x).",
            (11, 8),
            "field `b` of `P` has type `symbol`, this is a `number`",
        ),
        (
            "m(1) :- p(x), p(y), x < y.",
            (11, 21),
            "records are only compared with `=` and `!=`",
        ),
        (
            "m(1) :- p(x), [1, \"a\"] != [2, \"b\"].",
            (11, 15),
            "record type of this record is not known",
        ),
        (
            "m(nil) :- n(_).",
            (11, 3),
            "column 1 of `m` has type `number`",
        ),
        ("m(to_number(x)) :- p(x).", (11, 13), "a `P` record"),
        ("l(x) :- p(x).", (11, 3), "`x` is a `P` in the body"),
        // Unpacked by an equality: the pattern's shape and its fields' types are checked.
        (
            "m(x) :- p(r), r = [x].",
            (11, 19),
            "`P` has 2 field(s), this has 1",
        ),
        (
            "m(x) :- p(r), [x, [y]] = r.",
            (11, 19),
            "field `b` of `P` has type `symbol`, not a record type",
        ),
    ] {
        let (line, col, msg) = error_at(&format!("{RECORDS}{rule}\n"));
        assert!(msg.contains(what), "{rule}: {msg}");
        assert_eq!((line, col), at, "{rule}: {msg}");
    }
}

#[test]
fn record_patterns_bind_check_and_build() {
    let p = load(&format!(
        "{RECORDS}.decl o(x: number, y: L)\n\
         o(a, [[a, b], nil]) :- p([a, b]), n(a), s(b).\n\
         o(a, nil) :- l([[a, \"k\"], [_, t]]), t != nil.\n\
         l([[1, \"one\"], nil]).\n"
    ))
    .expect("checks");
    // `a` and `b` are bound by `n` and `s` too: both fields are checked, not bound.
    let first = &p.rules[0];
    let kinds: Vec<String> = first
        .body
        .iter()
        .map(|l| match l {
            Literal::Positive(a) => p.relations[a.rel].name.clone(),
            Literal::Assign { expr, .. } => expr.display(&|t| t.to_string()),
            Literal::Compare { .. } => "compare".into(),
            Literal::Negative(_) => "not".into(),
        })
        .collect();
    assert_eq!(kinds, ["p", "n", "s", "[[v1, v2], #0]", "v0.0", "v0.1"]);
    // A nested pattern: a fresh variable per record, a constant field compared.
    let second = &p.rules[1];
    assert!(second
        .body
        .iter()
        .any(|l| matches!(l, Literal::Compare { op: CmpOp::Eq, .. })));
    assert_eq!(p.facts.len(), 1);
    assert_ne!(p.facts[0].tuple[0], crate::records::NIL);
}

/// An equality that checks a bound variable against an expression comes after the
/// assignment binding the expression's variable (it came first, and every engine evaluating
/// assignments in body order panicked on `z` unbound).
#[test]
fn a_checking_equality_follows_the_assignments_it_reads() {
    let p = load(
        ".decl q(x: number, y: number)\n.input q\n.decl p(x: number)\n\
         p(x) :- q(x, y), x = z + 1, z = y * 2.\n",
    )
    .expect("checks");
    let rule = &p.rules[0];
    let assigned: Vec<crate::program::VarId> = rule
        .body
        .iter()
        .filter_map(|l| match l {
            Literal::Assign { var, .. } => Some(*var),
            _ => None,
        })
        .collect();
    let name = |v: crate::program::VarId| rule.var_names[v].as_str();
    assert_eq!(
        assigned.iter().map(|&v| name(v)).collect::<Vec<_>>(),
        ["z", "x"]
    );
}

const ADTS: &str =
    ".type E = Num {n: number} | Neg {e: E} | Zero {}\n.type C = [e: E, s: symbol]\n\
                    .decl e(x: E)\n.decl c(x: C)\n.decl n(x: number)\n.input e\n.input c\n\
                    .decl m(x: number)\n.decl o(x: E)\n";

#[test]
fn adt_type_errors_are_located() {
    for (rule, at, what) in [
        (
            "m(x) :- e($Num(x, x)).",
            (10, 11),
            "`Num` has 1 field(s), this has 2",
        ),
        ("m(x) :- e($Plus(x)).", (10, 12), "`E` has no branch `Plus`"),
        (
            "m(x) :- e([x]).",
            (10, 11),
            "`E` is an ADT, this is a record",
        ),
        (
            "m(1) :- c($Num(1)).",
            (10, 11),
            "`C` is a record type, this is a constructor",
        ),
        (
            "o($Num(x)) :- c([_, x]).",
            (10, 8),
            "field `n` of `$Num` has type `number`",
        ),
        (
            "o(x) :- e(x), x = $Minus(1).",
            (10, 20),
            "unknown constructor `$Minus`",
        ),
        ("o(nil) :- e(_).", (10, 3), "column 1 of `o` has type `E`"),
        (
            "m(1) :- e(x), x < $Zero.",
            (10, 15),
            "records are only compared",
        ),
    ] {
        let (line, col, msg) = error_at(&format!("{ADTS}{rule}\n"));
        assert!(msg.contains(what), "{rule}: {msg}");
        assert_eq!((line, col), at, "{rule}: {msg}");
    }
    let (line, col, msg) =
        error_at(".type A = X {} | Y {}\n.type B = Y {n: number}\n.decl r(a: A, b: B)\n");
    assert_eq!((line, col), (2, 11), "{msg}");
    assert!(msg.contains("branch `Y` is declared twice"), "{msg}");
}

#[test]
fn constructor_patterns_check_the_branch_tag() {
    let p = load(&format!(
        "{ADTS}m(x) :- e($Neg($Num(x))).\no($Neg(y)) :- e(y), !e($Neg(y)).\no($Zero) :- n(_).\n"
    ))
    .expect("checks");
    // `e($Neg($Num(x)))`: the outer tag, the inner value taken out, its tag, its field.
    let compares = p.rules[0]
        .body
        .iter()
        .filter(|l| matches!(l, Literal::Compare { op: CmpOp::Eq, .. }))
        .count();
    assert_eq!(compares, 2, "{:?}", p.rules[0].body);
    assert!(p.rules[1]
        .body
        .iter()
        .any(|l| matches!(l, Literal::Negative(_))));
}
