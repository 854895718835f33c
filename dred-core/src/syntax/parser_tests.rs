//! Tests of the parser: the seed program, literals, sugar rewritten into rules, located
//! syntax errors.

use super::*;

fn parse_str(s: &str) -> Result<Program, Diagnostic> {
    parse(&SourceFile::new("t.dl", s))
}

#[test]
fn parses_the_seed_program() {
    let p = parse_str(
        ".decl edge(x: symbol, y: symbol)\n.decl path(x: symbol, y: symbol)\n.decl ready()\n\
         .input edge\n.output path\npath(x, y) :- edge(x, y).\n\
         path(x, z) :- path(x, y), path(y, z).\nready().\n",
    )
    .expect("parses");
    assert_eq!(p.items.len(), 8);
    let Item::Rule(r) = &p.items[7] else {
        panic!("fact expected")
    };
    assert!(r.body.is_empty() && r.head.args.is_empty());
}

#[test]
fn parses_comparisons_negation_aggregates() {
    let p = parse_str(
        "a(x) :- b(x, -3, _), x != \"q\", !c(x), n = count : { b(x, _, _) }, m = min y : { d(y) }.",
    )
    .expect("parses");
    let Item::Rule(r) = &p.items[0] else {
        panic!("rule expected")
    };
    assert_eq!(r.body.len(), 5);
    assert!(
        matches!(&r.body[0], Literal::Positive(a) if a.args[1] == Term::Num(-3, Span::new(13, 15)))
    );
    assert!(matches!(&r.body[2], Literal::Negative(..)));
    assert!(matches!(
        &r.body[3],
        Literal::Aggregate(Aggregate {
            func: AggFunc::Count,
            ..
        })
    ));
    assert!(matches!(
        &r.body[4],
        Literal::Aggregate(Aggregate {
            func: AggFunc::Min,
            ..
        })
    ));
}

fn rules(p: &Program) -> Vec<String> {
    p.items
        .iter()
        .filter_map(|i| match i {
            Item::Rule(r) => Some(format!(
                "{} :- {}",
                r.head.relation.name,
                r.body
                    .iter()
                    .map(|l| match l {
                        Literal::Positive(a) => a.relation.name.clone(),
                        Literal::Negative(a, _) => format!("!{}", a.relation.name),
                        Literal::Compare(c) => c.op.symbol().to_string(),
                        Literal::Aggregate(_) => "agg".into(),
                    })
                    .collect::<Vec<_>>()
                    .join(",")
            )),
            _ => None,
        })
        .collect()
}

#[test]
fn several_heads_and_disjunctions_become_one_rule_per_head_and_alternative() {
    let p =
        parse_str("a(x), b(x) :- c(x), (d(x) ; !e(x)), (f(x) ; g(x), x != 1).").expect("parses");
    assert_eq!(
        rules(&p),
        [
            "a :- c,d,f",
            "a :- c,d,g,!=",
            "a :- c,!e,f",
            "a :- c,!e,g,!=",
            "b :- c,d,f",
            "b :- c,d,g,!=",
            "b :- c,!e,f",
            "b :- c,!e,g,!=",
        ]
    );
    let p = parse_str("a(x) :- b(x) ; c(x), (d(x) ; (e(x))).").expect("parses");
    assert_eq!(rules(&p), ["a :- b", "a :- c,d", "a :- c,e"]);
    // Twelve disjunctions of two: 4,096 alternatives pass, thirteen do not.
    let body = |n: usize| vec!["(b(x) ; c(x))"; n].join(", ");
    let p = parse_str(&format!("a(x) :- {}.", body(12))).expect("parses");
    assert_eq!(rules(&p).len(), 4096);
    let e = parse_str(&format!("a(x) :- {}.", body(13))).expect_err("too many");
    assert!(e.to_string().contains("more than 4096"), "{e}");
}

#[test]
fn declared_types_resolve_to_their_base_type() {
    let p = parse_str(
        ".decl r(a: Id, b: Age, c: Name, d: Key, e: Old)\n\
         .type Name = Id | Alias\n.type Id <: symbol\n.type Alias = Id\n\
         .type Age <: number\n.number_type Key\n.symbol_type Old\n.printsize r\n",
    )
    .expect("parses");
    let Item::Decl(d) = &p.items[0] else {
        panic!("declaration expected")
    };
    let types: Vec<Type> = d.columns.iter().map(|(_, t)| *t).collect();
    assert_eq!(
        types,
        [
            Type::Symbol,
            Type::Number,
            Type::Symbol,
            Type::Number,
            Type::Symbol
        ]
    );
    assert!(matches!(&p.items[1], Item::PrintSize(r) if r.name == "r"));
}

#[test]
fn records_parse_as_terms_and_record_types_resolve() {
    let src = ".type P = [a: number, b: symbol]\n.type L = [h: P, t: L]\n.decl r(x: L)\n\
               r([[1, \"s\"], nil]) :- r([_, [x, [y, _]]]), x = [], y != nil.";
    let p = parse_str(src).expect("parses");
    let Item::Decl(d) = &p.items[0] else {
        panic!("a declaration")
    };
    let Type::Record(l) = d.columns[0].1 else {
        panic!("a record column: {:?}", d.columns[0].1)
    };
    let list = crate::records::record_type(l);
    assert_eq!(list.name, "L");
    assert_eq!(list.fields[1].1, Type::Record(l), "a list refers to itself");
    let Type::Record(pair) = list.fields[0].1 else {
        panic!("a pair field")
    };
    assert_eq!(crate::records::record_type(pair).fields.len(), 2);
    let Item::Rule(r) = &p.items[1] else {
        panic!("a rule")
    };
    assert_eq!(shape(&r.head.args[0]), "[[1, \"s\"], nil]");
    let Literal::Positive(a) = &r.body[0] else {
        panic!("an atom")
    };
    assert_eq!(shape(&a.args[0]), "[_, [x, [y, _]]]");
    let Literal::Compare(c) = &r.body[1] else {
        panic!("a comparison")
    };
    assert_eq!(shape(&c.right), "[]");
    let adt = parse_str(
        ".type E = Num {n: number} | Add {l: E, r: E} | Zero {}\n.decl e(x: E)\n\
         e($Add($Num(1), $Zero)) :- e($Zero()).",
    )
    .expect("parses");
    let Item::Decl(d) = &adt.items[0] else {
        panic!("a declaration")
    };
    let Type::Record(e) = d.columns[0].1 else {
        panic!("an ADT column")
    };
    let rt = crate::records::record_type(e);
    let names: Vec<&str> = rt.branches.iter().map(|b| b.name.as_str()).collect();
    assert_eq!(names, ["Num", "Add", "Zero"]);
    assert_eq!(rt.branches[1].fields[0].1, Type::Record(e));
    let Item::Rule(r) = &adt.items[1] else {
        panic!("a rule")
    };
    assert_eq!(shape(&r.head.args[0]), "$Add($Num(1), $Zero())");
    // The same types parsed again are the same registered types.
    let again = parse_str(src).expect("parses");
    let Item::Decl(d2) = &again.items[0] else {
        panic!("a declaration")
    };
    assert_eq!(d2.columns[0].1, Type::Record(l));
}

#[test]
fn syntax_errors_are_located() {
    let cases = [
        ("a(x) :- b(x)", 1, 13),
        ("a(x) :- b(x);c(x)", 1, 18),
        ("a(x) :- (b(x);c(x).", 1, 19),
        (
            ".type T = A | B\n.type A <: float\n.type B <: unsigned",
            1,
            15,
        ),
        (".decl a(x: T)", 1, 12),
        (".type T <: symbol\n.type T <: number", 2, 7),
        (
            ".type T = A | B\n.type A <: symbol\n.type B <: number",
            1,
            15,
        ),
        (".type T = U\n.type U = T", 1, 1),
        (".type T = [a number]", 1, 14),
        (".type T = [a: number", 1, 21),
        (".type T = [a: number, a: symbol]\n.decl r(x: T)", 1, 23),
        (".type T = [a: U]", 1, 15),
        ("a([1, 2) :- b(x).", 1, 8),
        (".type T = A {x: number", 1, 23),
        (".type T = A {} | {}", 1, 18),
        ("a($) :- b(x).", 1, 4),
        // Nesting past the limit is an error, not a stack overflow.
        (
            "a(x) :- b(x), x = (((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((1))))))))))).",
            1,
            146,
        ),
        ("a($A(1) :- b(x).", 1, 9),
        (".type T", 1, 8),
        (".type number <: symbol", 1, 7),
        ("a(x), b(x).", 1, 5),
        ("a(x) :- b(range(x)).", 1, 11),
        ("\n  a(x) :- .", 2, 11),
        ("a(x) :- b(x), x = count : { (c(x) ; d(x)) }.", 1, 29),
        ("0x", 1, 1),
    ];
    for (src, line, col) in cases {
        let e = parse_str(src).expect_err(src);
        assert_eq!((e.line(), e.column()), (line, col), "{src}: {e}");
    }
}

/// An argument with every operator's operands in parentheses, to read the tree's shape.
fn shape(t: &Term) -> String {
    match t {
        Term::Var(id) => id.name.clone(),
        Term::Num(n, _) => n.to_string(),
        Term::Float(b, _) => format!("{:?}", f64::from_bits(*b)),
        Term::BigNum(n, _) => n.to_string(),
        Term::Str(s, _) => format!("{s:?}"),
        Term::Wildcard(_) => "_".into(),
        Term::Nil(_) => "nil".into(),
        Term::Record(args, _) => {
            let args: Vec<String> = args.iter().map(shape).collect();
            format!("[{}]", args.join(", "))
        }
        Term::Field(r, i, _, _) => format!("{}.{i}", shape(r)),
        Term::Aggregate(a) => format!("{:?}:{{..}}", a.func),
        Term::Range(args, _) => {
            let args: Vec<String> = args.iter().map(shape).collect();
            format!("range({})", args.join(", "))
        }
        Term::Ctor(name, args, _) => {
            let args: Vec<String> = args.iter().map(shape).collect();
            format!("${}({})", name.name, args.join(", "))
        }
        Term::Expr(e) if e.op.is_functor() => {
            let args: Vec<String> = e.args.iter().map(shape).collect();
            format!("{}({})", e.op.symbol(), args.join(", "))
        }
        Term::Expr(e) if e.op.is_unary() => format!("({} {})", e.op.symbol(), shape(&e.args[0])),
        Term::Expr(e) => format!(
            "({} {} {})",
            shape(&e.args[0]),
            e.op.symbol(),
            shape(&e.args[1])
        ),
    }
}

/// The shape of the head argument of `r(expr) :- b(x).`
fn head_shape(expr: &str) -> String {
    let p = parse_str(&format!("r({expr}) :- b(x).")).unwrap_or_else(|d| panic!("{expr}: {d:?}"));
    let Item::Rule(r) = &p.items[0] else {
        panic!("rule expected")
    };
    shape(&r.head.args[0])
}

#[test]
fn arithmetic_follows_souffle_precedence_and_associativity() {
    for (src, want) in [
        ("1 + 2 * 3", "(1 + (2 * 3))"),
        ("x - 2 - 3", "((x - 2) - 3)"),
        ("x / y / z", "((x / y) / z)"),
        ("x % 2 * 3", "((x % 2) * 3)"),
        ("2 ^ 3 ^ x", "(2 ^ (3 ^ x))"),
        ("-x ^ 2", "(- (x ^ 2))"),
        ("-2 ^ 2", "(- (2 ^ 2))"),
        ("-2 * x", "(-2 * x)"),
        ("x - -1", "(x - -1)"),
        ("- - x", "(- (- x))"),
        ("2 ^ -x", "(2 ^ (- x))"),
        ("x + 1 bshl 2", "((x + 1) bshl 2)"),
        ("x bshr 1 bshru 2 bshl 3", "(((x bshr 1) bshru 2) bshl 3)"),
        ("a bor b bxor c band d", "(a bor (b bxor (c band d)))"),
        ("a band b bxor c bor d", "(((a band b) bxor c) bor d)"),
        ("a lor b lxor c land d", "(a lor (b lxor (c land d)))"),
        ("a land b bor c", "(a land (b bor c))"),
        ("a lor b bshl c", "(a lor (b bshl c))"),
        ("bnot x * 2", "((bnot x) * 2)"),
        ("lnot x + 1", "((lnot x) + 1)"),
        ("(x + 1) * 2", "((x + 1) * 2)"),
        ("min(x, y + 1, 3)", "min(x, (y + 1), 3)"),
        ("max(x) - min(y, 2)", "(max(x) - min(y, 2))"),
    ] {
        assert_eq!(head_shape(src), want, "{src}");
    }
}

#[test]
fn every_operator_and_functor_parses() {
    for op in [
        ArithOp::Add,
        ArithOp::Sub,
        ArithOp::Mul,
        ArithOp::Div,
        ArithOp::Mod,
        ArithOp::Pow,
        ArithOp::BAnd,
        ArithOp::BOr,
        ArithOp::BXor,
        ArithOp::BShl,
        ArithOp::BShr,
        ArithOp::BShrU,
        ArithOp::LAnd,
        ArithOp::LOr,
        ArithOp::LXor,
    ] {
        let want = format!("(x {} y)", op.symbol());
        assert_eq!(head_shape(&format!("x {} y", op.symbol())), want);
    }
    for op in [ArithOp::Neg, ArithOp::BNot, ArithOp::LNot] {
        assert_eq!(
            head_shape(&format!("{} x", op.symbol())),
            format!("({} x)", op.symbol())
        );
    }
    for op in [ArithOp::Min, ArithOp::Max] {
        assert_eq!(
            head_shape(&format!("{}(x, y)", op.symbol())),
            format!("{}(x, y)", op.symbol())
        );
    }
}

/// Expressions in every place a term may stand, `min`/`max` told apart from the aggregates,
/// and a comparison that opens with a parenthesised expression told apart from a
/// parenthesised formula.
#[test]
fn arithmetic_in_atoms_comparisons_and_aggregates() {
    let p = parse_str(
        "r(x + 1) :- b(x * 2), !c(x - 1), y = x band 3, min(x, y) < 4, (x + 1) < 9, \
         m = min z : { d(z) }, k = max(x, 2).\n\
         s(x) :- (b(x) ; c(x)), (x + 1) % 2 = 0.\n",
    )
    .expect("parses");
    let Item::Rule(r) = &p.items[0] else {
        panic!("rule expected")
    };
    let kinds: Vec<String> = r
        .body
        .iter()
        .map(|l| match l {
            Literal::Positive(a) => format!("+{}", shape(&a.args[0])),
            Literal::Negative(a, _) => format!("!{}", shape(&a.args[0])),
            Literal::Compare(c) => {
                format!("{} {} {}", shape(&c.left), c.op.symbol(), shape(&c.right))
            }
            Literal::Aggregate(a) => format!("agg {:?}", a.func),
        })
        .collect();
    assert_eq!(
        kinds,
        [
            "+(x * 2)",
            "!(x - 1)",
            "y = (x band 3)",
            "min(x, y) < 4",
            "(x + 1) < 9",
            "agg Min",
            "k = max(x, 2)",
        ]
    );
    // The disjunction gives two rules, each with the parenthesised comparison.
    assert_eq!(p.items.len(), 3);
    for item in &p.items[1..] {
        let Item::Rule(r) = item else {
            panic!("rule expected")
        };
        assert!(matches!(&r.body[1], Literal::Compare(c) if shape(&c.left) == "((x + 1) % 2)"));
    }
}

#[test]
fn arithmetic_syntax_errors_are_located() {
    for (src, at, what) in [
        ("r(x +) :- b(x).", 5, "expected a variable"),
        (
            "r(range(x)) :- b(x).",
            2,
            "`range` takes 2 or 3 arguments, here 1",
        ),
        (
            "r(strlen(x, x)) :- b(x).",
            2,
            "`strlen` takes 1 argument(s), here 2",
        ),
        (
            "r(substr(x)) :- b(x).",
            2,
            "`substr` takes 3 argument(s), here 1",
        ),
        (
            "r(x) :- b(x), y = contains(x, x).",
            18,
            "a constraint, not a value",
        ),
        ("r(x) :- b(x), match(x).", 14, "`match` takes 2 argument(s)"),
        ("r(foo(x)) :- b(x).", 2, "unknown functor `foo`"),
        ("r(x) :- b(x), x * < 2.", 18, "expected a variable"),
        ("r(min(x, y) :- b(x).", 12, "`,` or `)`"),
        ("r((x + 1) :- b(x).", 10, "`,` or `)`"),
    ] {
        let d = parse_str(src).expect_err(src);
        assert_eq!(d.span.start, at, "{src}: {}", d.message);
        assert!(d.message.contains(what), "{src}: {}", d.message);
    }
}

/// String functors parse where arithmetic does, nested in it; `contains` and `match` are
/// body literals, negated with `!`, read as comparisons of their value with 0.
#[test]
fn string_functors_and_constraints_parse() {
    let p = parse_str(
        "r(cat(x, \"a\", y), strlen(cat(x, \"a\")) + 1) :- b(x, y), contains(\"a\", x), \
         !match(\"c.*\", y), z = substr(x, 0, 2), ord(x) < ord(y), to_number(to_string(1)) = 1.",
    )
    .expect("parses");
    let Item::Rule(r) = &p.items[0] else {
        panic!("rule expected")
    };
    let ops: Vec<ArithOp> = r
        .head
        .args
        .iter()
        .map(|t| match t {
            Term::Expr(e) => e.op,
            t => panic!("an expression expected, got {t:?}"),
        })
        .collect();
    assert_eq!(ops, [ArithOp::Cat, ArithOp::Add]);
    let constraint = |l: &Literal| match l {
        Literal::Compare(c) => match (&c.left, &c.right) {
            (Term::Expr(e), Term::Num(0, _)) => Some((e.op, c.op)),
            _ => None,
        },
        _ => None,
    };
    assert_eq!(constraint(&r.body[1]), Some((ArithOp::Contains, CmpOp::Ne)));
    assert_eq!(constraint(&r.body[2]), Some((ArithOp::Match, CmpOp::Eq)));
    assert!(
        matches!(&r.body[3], Literal::Compare(c) if matches!(&c.right, Term::Expr(e) if e.op == ArithOp::Substr))
    );
    assert_eq!(r.body.len(), 6);
}

#[test]
fn float_literals_are_read_apart_from_a_rule_s_final_dot() {
    assert_eq!(head_shape("-1.5 + 2.25e1"), "(-1.5 + 22.5)");
    assert_eq!(head_shape("x - 0.5e-1"), "(x - 0.05)");
    assert_eq!(head_shape("-0.5 ^ 2"), "(- (0.5 ^ 2))");
    assert_eq!(head_shape("to_float(x) * 2"), "(to_float(x) * 2)");
    // `1.` ends the rule: the dot is no fraction.
    let p = parse_str(".decl r(x: float)\nr(1).").expect("parses");
    assert!(matches!(&p.items[1], Item::Rule(r) if matches!(r.head.args[0], Term::Num(1, _))));
}

#[test]
fn aggregates_written_as_terms_are_lifted_into_body_literals() {
    let p = parse_str(
        ".decl a(x: number)\n.decl r(n: number)\nr(count : { a(_) }).\n\
         r(n) :- a(n), n < 1 + max x : { a(x), x < min y : { a(y) } }.\nr(min(1, 2)) :- a(_).\n",
    )
    .expect("parses");
    let rules: Vec<&Rule> = p
        .items
        .iter()
        .filter_map(|i| match i {
            Item::Rule(r) => Some(r),
            _ => None,
        })
        .collect();
    // A fact with an aggregate is a rule whose body is the aggregate.
    assert_eq!(shape(&rules[0].head.args[0]), "@aggt0");
    let [Literal::Aggregate(a)] = &rules[0].body[..] else {
        panic!("{:?}", rules[0].body)
    };
    assert_eq!(
        a.result,
        Term::Var(Ident {
            name: "@aggt0".into(),
            span: a.span
        })
    );
    // In a comparison, inside arithmetic, with an aggregate nested in the braces.
    let Literal::Compare(c) = &rules[1].body[1] else {
        panic!("{:?}", rules[1].body)
    };
    assert_eq!(shape(&c.right), "(1 + @aggt0)");
    let Literal::Aggregate(outer) = &rules[1].body[2] else {
        panic!("{:?}", rules[1].body)
    };
    assert_eq!(outer.func, AggFunc::Max);
    assert!(outer
        .body
        .iter()
        .any(|l| matches!(l, Literal::Aggregate(inner) if inner.func == AggFunc::Min)));
    // `min(1, 2)` stays a functor.
    assert_eq!(shape(&rules[2].head.args[0]), "min(1, 2)");
}

#[test]
fn range_terms_are_lifted_into_range_atoms_of_their_body() {
    let p =
        parse_str("r(range(1, 3)) :- s(n), x = range(0, n, 2), n < count : { t(range(n, 9)) }.")
            .expect("parses");
    let Item::Rule(rule) = &p.items[0] else {
        panic!("a rule")
    };
    let ranges: Vec<String> = rule
        .body
        .iter()
        .filter_map(|l| match l {
            Literal::Positive(a) if a.relation.name == RANGE => {
                Some(a.args.iter().map(shape).collect::<Vec<_>>().join(", "))
            }
            _ => None,
        })
        .collect();
    // The head's and the comparison's, each binding a fresh variable; the aggregate's stays in
    // its braces.
    assert_eq!(ranges, ["0, n, 2, @ranget1", "1, 3, @ranget0"], "{rule:?}");
    assert_eq!(shape(&rule.head.args[0]), "@ranget0");
    let braces = rule
        .body
        .iter()
        .find_map(|l| match l {
            Literal::Aggregate(a) => Some(&a.body),
            _ => None,
        })
        .expect("the count stays a literal");
    assert!(
        braces.iter().any(
            |l| matches!(l, Literal::Positive(a) if a.relation.name == RANGE
            && shape(&a.args[0]) == "n")
        ),
        "{braces:?}"
    );
}
