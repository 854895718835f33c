//! Records mean what they wrap: a random case whose every column `T` is made the record type
//! `[v: T]`, every atom argument `t` the record `[t]` (a pattern in positive body atoms,
//! inside aggregates' braces too, a record built in heads, negated atoms and program facts)
//! and every EDB and update value `v` the record `[v]`, has after every batch the model of
//! the case as written, each record read back as its field — the oracle on the plain case
//! against the oracle, `dred`, `bf`, `counting`, `reference`, `recompute` and `auto` on the
//! wrapped one (negation, aggregates, arithmetic and typed columns included: the
//! generator's whole range). The wrapped program is built from the plain one's AST, so that
//! it is the same program in every other respect.

use std::collections::BTreeSet;
use std::sync::Arc;

use dred_core::io::{parse_updates, parse_value};
use dred_core::program::Program;
use dred_core::records::{register, RecordType};
use dred_core::syntax::ast::{self, Term, Type};
use dred_core::testing::{models_as_text, random_case_with, RandomCase};
use dred_core::value::{Symbols, Tuple};
use dred_core::{
    Auto, Batch, Bf, Counting, Dred, Edb, Engine, Fact, Oracle, Recompute, Reference, SourceFile,
};
use proptest::prelude::*;

/// The record type `[v: ty]`.
fn wrapper(ty: Type) -> Type {
    let offset = register(&[RecordType {
        name: format!("W_{}", ty.keyword()),
        fields: vec![("v".into(), ty)],
        branches: vec![],
    }]);
    Type::Record(offset)
}

/// `t` as a one-field record (`_` stays `_`: it matches any record).
fn wrap(t: &mut Term) {
    if !matches!(t, Term::Wildcard(_)) {
        let span = t.span();
        let inner = std::mem::replace(t, Term::Wildcard(span));
        *t = Term::Record(vec![inner], span);
    }
}

fn wrap_literal(l: &mut ast::Literal) {
    match l {
        ast::Literal::Positive(a) | ast::Literal::Negative(a, _) => {
            a.args.iter_mut().for_each(wrap)
        }
        ast::Literal::Compare(_) => {}
        ast::Literal::Aggregate(agg) => agg.body.iter_mut().for_each(wrap_literal),
    }
}

/// `rule`'s positive body atoms with each record pattern `[t]` replaced by a fresh variable
/// `@uN` that an equality after the atom unpacks (`@uN = [t]`, or `[t] = @uN` every other
/// one), as `p(r), r = [x]` is written for `p([x])`; and its negated atoms' `_` written `[_]`
/// (no value is `nil`, so both match every value).
fn unpack_by_equalities(rule: &mut ast::Rule) -> usize {
    let mut fresh = 0;
    let mut body = Vec::new();
    for mut lit in std::mem::take(&mut rule.body) {
        if let ast::Literal::Negative(a, _) = &mut lit {
            for t in a.args.iter_mut() {
                if let Term::Wildcard(span) = *t {
                    *t = Term::Record(vec![Term::Wildcard(span)], span);
                }
            }
        }
        let mut equalities = Vec::new();
        if let ast::Literal::Positive(a) = &mut lit {
            for t in a.args.iter_mut().filter(|t| matches!(t, Term::Record(..))) {
                let span = t.span();
                let var = Term::Var(ast::Ident {
                    name: format!("@u{fresh}"),
                    span,
                });
                let pattern = std::mem::replace(t, var.clone());
                let (left, right) = if fresh % 2 == 0 {
                    (var, pattern)
                } else {
                    (pattern, var)
                };
                fresh += 1;
                equalities.push(ast::Literal::Compare(ast::Comparison {
                    left,
                    op: ast::CmpOp::Eq,
                    right,
                    span,
                }));
            }
        }
        body.push(lit);
        body.extend(equalities);
    }
    rule.body = body;
    fresh
}

/// The case's program with its columns and atom arguments wrapped (module header); with
/// `by_equalities`, the patterns of rule bodies' positive atoms are unpacked by equalities
/// ([`unpack_by_equalities`]); with the number of equalities written.
fn wrapped_program(
    case: &RandomCase,
    symbols: &mut Symbols,
    by_equalities: bool,
) -> (Program, usize) {
    let mut unpacked = 0;
    let file = SourceFile::new("p.dl", case.program());
    let mut ast = dred_core::syntax::parse(&file).expect("the generator's program parses");
    for item in &mut ast.items {
        match item {
            ast::Item::Decl(d) => d.columns.iter_mut().for_each(|(_, ty)| *ty = wrapper(*ty)),
            ast::Item::Rule(r) => {
                r.head.args.iter_mut().for_each(wrap);
                r.body.iter_mut().for_each(wrap_literal);
                if by_equalities {
                    unpacked += unpack_by_equalities(r);
                }
            }
            _ => {}
        }
    }
    let program = dred_core::check(&ast, symbols).unwrap_or_else(|d| {
        panic!(
            "the wrapped program is refused:\n{}\n{}",
            d.render(),
            case.program()
        )
    });
    (program, unpacked)
}

/// What the engines are run on: a program, its symbols, EDB and batches.
struct Loaded {
    program: Arc<Program>,
    symbols: Symbols,
    edb: Edb,
    batches: Vec<dred_core::RequestedBatch>,
    /// Equalities written by [`unpack_by_equalities`].
    unpacked: usize,
}

fn load_wrapped(case: &RandomCase, by_equalities: bool) -> Loaded {
    let mut symbols = Symbols::new();
    let (program, unpacked) = wrapped_program(case, &mut symbols, by_equalities);
    let program = Arc::new(program);
    let mut edb = Edb::empty(&program);
    for (rel, vals) in &case.edb {
        let id = program.input_id(rel).expect("an input relation");
        let tuple = vals
            .iter()
            .zip(&program.relations[id].types)
            .map(|(v, &ty)| parse_value(&format!("[{v}]"), ty, &mut symbols))
            .collect::<Result<Tuple, String>>()
            .expect("wrapped values read");
        edb.insert(Fact::new(id, tuple));
    }
    let mut wrapped = case.clone();
    for u in wrapped.batches.iter_mut().flatten() {
        for v in &mut u.values {
            *v = format!("[{v}]");
        }
    }
    let updates = SourceFile::new("u.updates", wrapped.updates_text());
    let batches = parse_updates(&updates, &program, &mut symbols).expect("wrapped updates read");
    Loaded {
        program,
        symbols,
        edb,
        batches,
        unpacked,
    }
}

/// The generator's relations, not those the checker adds.
fn compared(name: &str) -> bool {
    !name.starts_with('@') && !name.starts_with('$')
}

/// The wrapped case's models after materialisation and every batch, each record read back
/// as its field and written as the plain case writes its values.
fn unwrapped_models(case: &Loaded, engine: &mut dyn Engine) -> Vec<BTreeSet<String>> {
    let text = |engine: &dyn Engine| -> BTreeSet<String> {
        let mut out = BTreeSet::new();
        for (rel, tuples) in engine.model().relations.iter().enumerate() {
            let decl = &case.program.relations[rel];
            if !compared(&decl.name) {
                continue;
            }
            for t in tuples {
                let values: Vec<String> = decl
                    .types
                    .iter()
                    .zip(t)
                    .map(|(&ty, &w)| {
                        let Type::Record(id) = ty else {
                            panic!("every column of `{}` is wrapped", decl.name)
                        };
                        let inner = dred_core::records::record_type(id).fields[0].1;
                        let v = case.symbols.record_field(w, 0).expect("a record, not nil");
                        case.symbols.display(inner, v)
                    })
                    .collect();
                out.insert(format!("{}({})", decl.name, values.join(", ")));
            }
        }
        out
    };
    let mut edb = case.edb.clone();
    engine.materialise(&edb).expect("materialises");
    let mut out = vec![text(engine)];
    for requested in &case.batches {
        let batch = Batch::normalise(requested, &edb);
        engine.apply(&batch).expect("applies");
        edb.apply(&batch);
        out.push(text(engine));
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 100, ..ProptestConfig::default() })]

    /// The same with every pattern of a rule body's positive atom unpacked by an equality
    /// after the atom (`p(r), r = [x]`), either way round, and `_` inside a record in negated
    /// atoms (`!p([_])`).
    #[test]
    fn records_unpacked_by_equalities_have_the_case_s_models(case in random_case_with(true, true)) {
        let plain = case.load().map_err(TestCaseError::fail)?;
        let expected = models_as_text(&plain, &mut Oracle::new(plain.program.clone()), |name, fact| {
            compared(name).then_some(fact)
        });
        let wrapped = load_wrapped(&case, true);
        let engines: Vec<Box<dyn Engine>> = vec![
            Box::new(Oracle::new(wrapped.program.clone())),
            Box::new(Dred::new(wrapped.program.clone())),
            Box::new(Bf::new(wrapped.program.clone())),
            Box::new(Counting::new(wrapped.program.clone())),
        ];
        for mut engine in engines {
            let got = unwrapped_models(&wrapped, engine.as_mut());
            prop_assert_eq!(
                &got,
                &expected,
                "{} on the case unpacked by equalities\n{}",
                engine.name(),
                case.program()
            );
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn a_case_wrapped_in_records_has_the_case_s_models(case in random_case_with(true, true)) {
        let plain = case.load().map_err(TestCaseError::fail)?;
        let expected = models_as_text(&plain, &mut Oracle::new(plain.program.clone()), |name, fact| {
            compared(name).then_some(fact)
        });
        let wrapped = load_wrapped(&case, false);
        let engines: Vec<Box<dyn Engine>> = vec![
            Box::new(Oracle::new(wrapped.program.clone())),
            Box::new(Dred::new(wrapped.program.clone())),
            Box::new(Bf::new(wrapped.program.clone())),
            Box::new(Counting::new(wrapped.program.clone())),
            Box::new(Reference::new(wrapped.program.clone())),
            Box::new(Recompute::new(wrapped.program.clone())),
            Box::new(Auto::new(wrapped.program.clone())),
        ];
        for mut engine in engines {
            let got = unwrapped_models(&wrapped, engine.as_mut());
            prop_assert_eq!(
                &got,
                &expected,
                "{} on the wrapped case\n{}",
                engine.name(),
                case.program()
            );
        }
    }
}

/// The unpacking variant is not trivial: on a sample, most cases unpack records by equalities,
/// a good share negate a `[_]` (a generated `@neg` relation), and most models are not empty
/// (printed).
#[test]
fn records_unpacked_by_equalities_are_not_trivial() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    const SAMPLE: usize = 100;
    let mut runner = TestRunner::deterministic();
    let strategy = random_case_with(true, true);
    let (mut unpacking, mut negating, mut nonempty, mut equalities) = (0, 0, 0, 0);
    for _ in 0..SAMPLE {
        let case = strategy.new_tree(&mut runner).expect("case").current();
        let wrapped = load_wrapped(&case, true);
        let n = wrapped.unpacked;
        equalities += n;
        unpacking += usize::from(n > 0);
        negating += usize::from(
            wrapped
                .program
                .relations
                .iter()
                .any(|r| r.name.starts_with("@neg")),
        );
        let model = Oracle::least_model(&wrapped.program, &wrapped.edb);
        nonempty +=
            usize::from(
                model.relations.iter().enumerate().any(|(rel, t)| {
                    compared(&wrapped.program.relations[rel].name) && !t.is_empty()
                }),
            );
    }
    eprintln!(
        "of {SAMPLE}: {unpacking} unpack by equalities ({equalities} in all), {negating} negate \
         a `[_]`, {nonempty} have a non-empty model"
    );
    assert!(unpacking * 10 >= SAMPLE * 8, "{unpacking}");
    assert!(negating * 5 >= SAMPLE, "{negating}");
    assert!(nonempty * 2 >= SAMPLE, "{nonempty}");
}
