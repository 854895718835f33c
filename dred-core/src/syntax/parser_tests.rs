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
fn syntax_errors_are_located() {
    let cases = [
        ("a(x) :- b(x)", 1, 13),
        ("a(x) :- b(x);c(x)", 1, 18),
        ("a(x) :- (b(x);c(x).", 1, 19),
        (".decl a(x: float)", 1, 12),
        (".decl a(x: unsigned)", 1, 12),
        (".decl a(x: T)", 1, 12),
        (".type T <: symbol\n.type T <: number", 2, 7),
        (
            ".type T = A | B\n.type A <: symbol\n.type B <: number",
            1,
            15,
        ),
        (".type T = U\n.type U = T", 1, 1),
        (".type T = [a: number]", 1, 11),
        (".type T = A {x: number}", 1, 13),
        (".type T", 1, 8),
        (".type number <: symbol", 1, 7),
        ("a(x), b(x).", 1, 5),
        ("a(x) :- b(x + 1).", 1, 13),
        ("\n  a(x) :- .", 2, 11),
        (".decl e(x: symbol) eqrel", 1, 20),
        ("a(x) :- b(x), x = count : { (c(x) ; d(x)) }.", 1, 29),
        ("0x", 1, 1),
    ];
    for (src, line, col) in cases {
        let e = parse_str(src).expect_err(src);
        assert_eq!((e.line(), e.column()), (line, col), "{src}: {e}");
    }
}
