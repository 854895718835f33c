//! Tests of component expansion: instances, qualified names, nesting, type parameters,
//! inheritance with override, and every error located.

use super::super::ast::{Item, Program, Type};
use super::super::parse;
use crate::diagnostic::{Diagnostic, SourceFile};

fn parse_str(s: &str) -> Result<Program, Diagnostic> {
    parse(&SourceFile::new("t.dl", s))
}

/// The expanded program, one line per item: `decl r(symbol, number)`, `input r`,
/// `r :- a, !b`.
fn expanded(s: &str) -> Vec<String> {
    let p = parse_str(s).unwrap_or_else(|e| panic!("{}", e.render()));
    p.items
        .iter()
        .map(|i| match i {
            Item::Decl(d) => format!(
                "decl {}({})",
                d.name.name,
                d.columns
                    .iter()
                    .map(|(_, t)| t.keyword())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            Item::Input(r) => format!("input {}", r.name),
            Item::Output(r) => format!("output {}", r.name),
            Item::PrintSize(r) => format!("printsize {}", r.name),
            Item::Rule(r) => {
                let mut body = Vec::new();
                for l in &r.body {
                    match l {
                        super::Literal::Positive(a) => body.push(a.relation.name.clone()),
                        super::Literal::Negative(a, _) => {
                            body.push(format!("!{}", a.relation.name))
                        }
                        super::Literal::Aggregate(agg) => {
                            for l in &agg.body {
                                if let super::Literal::Positive(a) = l {
                                    body.push(format!("agg {}", a.relation.name));
                                }
                            }
                        }
                        super::Literal::Compare(_) => body.push("cmp".into()),
                    }
                }
                format!("{} :- {}", r.head.relation.name, body.join(", "))
            }
        })
        .collect()
}

#[test]
fn an_instance_qualifies_its_relations_and_keeps_outer_names() {
    let got = expanded(
        ".decl base(x: symbol)\n.input base\n\
         .comp Reach {\n  .decl edge(x: symbol, y: symbol)\n  .decl reach(x: symbol, y: symbol)\n\
         .input edge\n  .output reach\n\
         reach(x, y) :- edge(x, y), base(x).\n  reach(x, z) :- reach(x, y), edge(y, z).\n}\n\
         .init r1 = Reach\n.init r2 = Reach\n\
         .decl both(x: symbol)\n.output both\n\
         both(x) :- r1.reach(x, _), !r2.reach(x, _), n = count : { r2.edge(x, _) }, n > 0.\n\
         r2.edge(\"a\", \"b\").\n",
    );
    assert_eq!(
        got,
        [
            "decl base(symbol)",
            "input base",
            "decl r1.edge(symbol, symbol)",
            "decl r1.reach(symbol, symbol)",
            "input r1.edge",
            "output r1.reach",
            "r1.reach :- r1.edge, base",
            "r1.reach :- r1.reach, r1.edge",
            "decl r2.edge(symbol, symbol)",
            "decl r2.reach(symbol, symbol)",
            "input r2.edge",
            "output r2.reach",
            "r2.reach :- r2.edge, base",
            "r2.reach :- r2.reach, r2.edge",
            "decl both(symbol)",
            "output both",
            "both :- r1.reach, !r2.reach, agg r2.edge, cmp",
            "r2.edge :- ",
        ]
    );
}

#[test]
fn nested_instances_and_type_parameters() {
    let got = expanded(
        ".comp Pair<A, B> {\n  .decl p(x: A, y: B)\n}\n\
         .comp Outer<T> {\n  .comp Inner<U> { .decl q(x: U) q(x) :- p(x, _). }\n\
         .type Id <: T\n  .decl p(x: Id, y: number)\n\
         .init in = Inner<Id>\n  .init pair = Pair<T, T>\n\
         p(x, 1) :- in.q(x), pair.p(x, _).\n}\n\
         .init o = Outer<symbol>\n.init n = Outer<number>\n.output o.in.q\n",
    );
    assert_eq!(
        got,
        [
            "decl o.p(symbol, number)",
            "decl o.in.q(symbol)",
            "o.in.q :- o.p",
            "decl o.pair.p(symbol, symbol)",
            "o.p :- o.in.q, o.pair.p",
            "decl n.p(number, number)",
            "decl n.in.q(number)",
            "n.in.q :- n.p",
            "decl n.pair.p(number, number)",
            "n.p :- n.in.q, n.pair.p",
            "output o.in.q",
        ]
    );
    // A parameter may name the component a nested `.init` instantiates.
    let got = expanded(
        ".comp One { .decl r(x: number) r(1). }\n\
         .comp Wrap<C> { .init inner = C }\n.init w = Wrap<One>\n",
    );
    assert_eq!(got, ["decl w.inner.r(number)", "w.inner.r :- "]);
    // A component declared inside another sees the enclosing instance's parameters.
    let got = expanded(
        ".comp Outer<T> { .comp In { .decl q(x: T) } .init i = In }\n\
         .init o = Outer<number>\n",
    );
    assert_eq!(got, ["decl o.i.q(number)"]);
}

#[test]
fn instance_types_by_qualified_name_and_bases_declared_later() {
    let got = expanded(
        ".comp T<P> { .type inner <: P  .decl rel(a: inner) }\n.init t = T<number>\n\
         .decl top(a: t.inner)\n\
         .comp Outer<Z> {\n  .comp Derived<Z> : Base<Z> { }\n  .comp Base<Q> { .init x = Q }\n\
         .init d = Derived<Z>\n}\n\
         .comp Leaf { .decl l(a: symbol) }\n.init o = Outer<Leaf>\n.output o.d.x.l()\n",
    );
    assert_eq!(
        got,
        [
            "decl t.rel(number)",
            "decl top(number)",
            "decl o.d.x.l(symbol)",
            "output o.d.x.l",
        ]
    );
}

#[test]
fn inheritance_with_override() {
    let got = expanded(
        ".comp Base<T> {\n  .decl r(x: T) overridable\n  .decl s(x: T)\n\
         r(x) :- s(x).\n  s(x) :- r(x).\n}\n\
         .comp Extra { .decl e(x: number) }\n\
         .comp Derived<T> : Base<T>, Extra {\n  .override r\n  r(x) :- e(x).\n}\n\
         .init d = Derived<number>\n",
    );
    assert_eq!(
        got,
        [
            "decl d.r(number)",
            "decl d.s(number)",
            "d.s :- d.r",
            "decl d.e(number)",
            "d.r :- d.e",
        ]
    );
}

#[test]
fn qualified_names_need_no_spaces_around_the_dot() {
    // `.` with a space before it ends the rule; a directive follows.
    let p = parse_str(
        ".decl a(x: number)\n.decl b(x: number)\n.output a .output b\na(x) :- b(x).b(1).",
    )
    .expect("parses");
    assert_eq!(p.items.len(), 6);
    let types: Vec<Type> = p
        .items
        .iter()
        .filter_map(|i| match i {
            Item::Decl(d) => Some(d.columns[0].1),
            _ => None,
        })
        .collect();
    assert_eq!(types, [Type::Number, Type::Number]);
}

#[test]
fn component_errors_are_located() {
    let mut blowup = String::from(".comp C0 { .decl r(x: number) }\n");
    for k in 1..=17 {
        blowup.push_str(&format!(
            ".comp C{k} {{ .init a = C{} .init b = C{} }}\n",
            k - 1,
            k - 1
        ));
    }
    blowup.push_str(".init x = C17\n");
    let cases = [
        // An undeclared component; a local component is not visible outside.
        (".init x = Nope", 1, 11, "not declared"),
        (
            ".comp A { .comp L { .decl r(x: number) } }\n.init x = L",
            2,
            11,
            "not declared",
        ),
        // Wrong number of type arguments.
        (
            ".comp G<N> { .decl e(x: N) }\n.init g = G<number, symbol>",
            2,
            11,
            "takes 1 type parameter, given 2",
        ),
        (
            ".comp G<N> { .decl e(x: N) }\n.init g = G",
            2,
            11,
            "given 0",
        ),
        // A relation declared twice after expansion.
        (
            ".comp C { .decl r(x: number) }\n.init c = C\n.decl c.r(x: number)",
            3,
            7,
            "declared twice",
        ),
        // `.override` of a relation that is not overridable, or not inherited.
        (
            ".comp B { .decl r(x: number) }\n.comp D : B {\n  .override r\n}\n.init d = D",
            3,
            13,
            "not overridable",
        ),
        (
            ".comp B { }\n.comp D : B { .override r }\n.init d = D",
            2,
            25,
            "no base component",
        ),
        (".override r", 1, 11, "outside a component"),
        // Recursion, through an instance and through inheritance.
        (
            ".comp A { .init a = A }\n.init x = A",
            1,
            21,
            "instantiates itself",
        ),
        (
            ".comp A : B { }\n.comp B : A { }\n.init x = A",
            2,
            11,
            "inherits from itself",
        ),
        (
            ".comp W<C> { .init i = C }\n.init w = W<W>",
            1,
            24,
            "instantiates itself",
        ),
        // Declared twice in one scope; an instance name used twice.
        (
            ".comp A { }\n.comp A { }",
            2,
            7,
            "component `A` is declared twice",
        ),
        (
            ".comp A { }\n.init a = A\n.init a = A",
            3,
            7,
            "instance `a`",
        ),
        // Errors the checker finds in an instance's rules point into the component.
        (
            ".comp C {\n  .decl r(x: number)\n  r(x) :- s(x).\n}\n.init c = C",
            3,
            11,
            "`s` is not declared",
        ),
        (
            ".comp C<T> {\n  .decl r(x: T)\n  r(\"a\").\n}\n.init c = C<number>",
            3,
            5,
            "",
        ),
        // An unknown type argument is reported where the parameter is used.
        (
            ".comp C<T> { .decl r(x: T) }\n.init c = C<Nope>",
            1,
            25,
            "unknown type",
        ),
        (".comp C { .decl r(x: number)", 1, 9, "unclosed"),
        // Instances of instances past the expansion's limit: 2^17 relations.
        (blowup.as_str(), 2, 18, "expand to more than"),
    ];
    for (src, line, col, message) in cases {
        let e = match parse_str(src) {
            Err(e) => e,
            Ok(ast) => {
                crate::check::check(&ast, &mut crate::value::Symbols::default()).expect_err(src)
            }
        };
        assert_eq!((e.line(), e.column()), (line, col), "{src}: {e}");
        assert!(e.message.contains(message), "{src}: {e}");
    }
}
