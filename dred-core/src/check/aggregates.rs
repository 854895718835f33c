//! Aggregates rewritten into plain rules over two generated relations, before the checks.
//!
//! A rule `h(..) :- L, n = f t : { B }, M.` (Soufflé syntax; `f` one of `count`, `sum`, `min`,
//! `max`) becomes:
//! - `@aggK_in(G.., V..) :- B.` — every solution of `B`: its grouping variables `G` (those of
//!   `B` that also occur outside the braces, in order of first occurrence in `B`), then its
//!   other variables `V`, a wildcard of a positive atom of `B` counting as a variable of its
//!   own (Soufflé counts `count : { e(x, _) }` per fact of `e`);
//! - `@aggK(G.., v)` — an aggregate relation ([`AggregateSpec`]): for each group of
//!   `@aggK_in`'s rows that agree on `G`, one row with `v` the number of rows (`count`) or the
//!   sum, minimum or maximum of the target column; no row for an empty group;
//! - `h(..) :- L, @aggK(G.., n), M.`, and for `count` and `sum`, whose empty group gives 0 (a
//!   group no solution reaches has no row), `h(..)[n := 0] :- L, !@aggK(G.., _), M[n := 0].`
//!   — with a generated nullary `@unit()` fact as its positive atom when nothing else binds.
//!
//! Generated names start with `@`, which no program can write, so they never clash. The checks
//! then run on the rewritten program; its spans point at the aggregate, so every error is
//! located in the source. What is out of the supported subset is refused here, at the
//! aggregate: a result that is not a fresh variable, a target that is not a variable of the
//! body, nested aggregates, and a grouping variable that no positive atom of the body binds.
//! A target of type `symbol` and an aggregate in recursion through its own body are refused by
//! the checks that follow (see `super::check` and `super::strata`).

use std::collections::HashMap;

use crate::diagnostic::{Diagnostic, SourceFile, Span};
use crate::syntax::ast::{self, AggFunc, Ident, Item, Literal, Term, Type};

/// One aggregate relation made by [`desugar`], by name (resolved by the checker).
#[derive(Clone, Debug)]
pub(super) struct AggregateSpec {
    /// `@aggK`.
    pub(super) name: String,
    /// `@aggK_in`.
    pub(super) input: String,
    /// Number of grouping columns.
    pub(super) group: usize,
    /// The function.
    pub(super) func: AggFunc,
    /// The target's column in the input, for `sum`, `min` and `max`.
    pub(super) target: Option<usize>,
    /// The aggregate in the source.
    pub(super) span: Span,
}

/// The name of the nullary relation holding the one fact `@unit()`.
const UNIT: &str = "@unit";

/// Rewrites every aggregate of `program` (see the module's docs); a program without one is
/// returned unchanged, with no spec.
pub(super) fn desugar(
    program: &ast::Program,
) -> Result<(ast::Program, Vec<AggregateSpec>), Diagnostic> {
    let has_aggregate = program.items.iter().any(
        |i| matches!(i, Item::Rule(r) if r.body.iter().any(|l| matches!(l, Literal::Aggregate(_)))),
    );
    if !has_aggregate {
        return Ok((program.clone(), Vec::new()));
    }
    let file = &program.file;
    let mut types: HashMap<String, Vec<Type>> = HashMap::new();
    for item in &program.items {
        if let Item::Decl(d) = item {
            types.insert(d.name.name.clone(), d.columns.iter().map(|c| c.1).collect());
        }
    }
    let mut out = ast::Program {
        file: file.clone(),
        items: Vec::new(),
    };
    let mut specs = Vec::new();
    let mut unit_needed = false;
    for item in &program.items {
        let Item::Rule(rule) = item else {
            out.items.push(item.clone());
            continue;
        };
        // Rewrite one aggregate at a time; each may double the rules (the empty group).
        let mut pending = vec![rule.clone()];
        let mut done = Vec::new();
        while let Some(r) = pending.pop() {
            let Some(pos) = r
                .body
                .iter()
                .position(|l| matches!(l, Literal::Aggregate(_)))
            else {
                done.push(r);
                continue;
            };
            let Literal::Aggregate(agg) = &r.body[pos] else {
                unreachable!("found above")
            };
            let k = specs.len();
            let (decls, input_rule, spec) = split(file, &types, &r, pos, agg, k)?;
            for d in decls {
                types.insert(d.name.name.clone(), d.columns.iter().map(|c| c.1).collect());
                out.items.push(Item::Decl(d));
            }
            out.items.push(Item::Rule(input_rule));
            let group_args: Vec<Term> = spec_group_terms(&r, pos, agg);
            let result = match &agg.result {
                Term::Var(id) => id.clone(),
                _ => unreachable!("checked in split"),
            };
            // h :- L, @aggK(G, n), M.
            let mut with = r.clone();
            let mut args = group_args.clone();
            args.push(Term::Var(result.clone()));
            with.body[pos] = Literal::Positive(ast::Atom {
                relation: Ident {
                    name: spec.name.clone(),
                    span: agg.span,
                },
                args,
                span: agg.span,
            });
            pending.push(with);
            if matches!(agg.func, AggFunc::Count | AggFunc::Sum) {
                // h[n := 0] :- L[n := 0], !@aggK(G, _), M[n := 0].
                let mut empty = r.clone();
                let mut args = group_args;
                args.push(Term::Wildcard(agg.span));
                empty.body[pos] = Literal::Negative(
                    ast::Atom {
                        relation: Ident {
                            name: spec.name.clone(),
                            span: agg.span,
                        },
                        args,
                        span: agg.span,
                    },
                    agg.span,
                );
                let zero = Term::Num(0, result.span);
                substitute_atom(&mut empty.head, &result.name, &zero);
                for lit in &mut empty.body {
                    substitute(lit, &result.name, &zero);
                }
                if !empty
                    .body
                    .iter()
                    .any(|l| matches!(l, Literal::Positive(_) | Literal::Aggregate(_)))
                {
                    unit_needed = true;
                    empty.body.push(Literal::Positive(ast::Atom {
                        relation: Ident {
                            name: UNIT.into(),
                            span: agg.span,
                        },
                        args: Vec::new(),
                        span: agg.span,
                    }));
                }
                pending.push(empty);
            }
            specs.push(spec);
        }
        done.reverse();
        out.items.extend(done.into_iter().map(Item::Rule));
    }
    if unit_needed {
        let span = Span::new(0, 0);
        out.items.push(Item::Decl(ast::Decl {
            name: Ident {
                name: UNIT.into(),
                span,
            },
            columns: Vec::new(),
            span,
        }));
        out.items.push(Item::Rule(ast::Rule {
            head: ast::Atom {
                relation: Ident {
                    name: UNIT.into(),
                    span,
                },
                args: Vec::new(),
                span,
            },
            body: Vec::new(),
            span,
        }));
    }
    Ok((out, specs))
}

/// Variables named in a term list (inside expressions too), in order, each once.
fn vars_of<'a>(terms: impl IntoIterator<Item = &'a Term>, out: &mut Vec<Ident>) {
    for t in terms {
        t.for_each_var(&mut |id| {
            if !out.iter().any(|v| v.name == id.name) {
                out.push(id.clone());
            }
        });
    }
}

/// Calls `f` on each argument of the atoms and comparisons of `lit` (of an aggregate: of its
/// body, and its target).
fn literal_terms<'a>(lit: &'a Literal, f: &mut impl FnMut(&'a Term)) {
    match lit {
        Literal::Positive(a) | Literal::Negative(a, _) => a.args.iter().for_each(f),
        Literal::Compare(c) => {
            f(&c.left);
            f(&c.right);
        }
        Literal::Aggregate(a) => {
            for l in &a.body {
                literal_terms(l, f);
            }
            a.target.iter().for_each(f);
        }
    }
}

/// The variables of a literal (an aggregate's: its body's and its target's, not its result).
fn literal_vars(lit: &Literal, out: &mut Vec<Ident>) {
    match lit {
        Literal::Positive(a) | Literal::Negative(a, _) => vars_of(&a.args, out),
        Literal::Compare(c) => vars_of([&c.left, &c.right], out),
        Literal::Aggregate(a) => {
            for l in &a.body {
                literal_vars(l, out);
            }
            vars_of(a.target.iter(), out);
        }
    }
}

/// The variables of rule `r` outside its aggregate at body position `pos`: the head's, the
/// other literals' (an other aggregate's result included).
fn outside_vars(r: &ast::Rule, pos: usize) -> Vec<Ident> {
    let mut out = Vec::new();
    vars_of(&r.head.args, &mut out);
    for (i, lit) in r.body.iter().enumerate() {
        if i != pos {
            literal_vars(lit, &mut out);
            if let Literal::Aggregate(a) = lit {
                vars_of([&a.result], &mut out);
            }
        }
    }
    out
}

/// The grouping variables of the aggregate at `pos` of `r`, as terms.
fn spec_group_terms(r: &ast::Rule, pos: usize, agg: &ast::Aggregate) -> Vec<Term> {
    group_vars(r, pos, agg).into_iter().map(Term::Var).collect()
}

fn group_vars(r: &ast::Rule, pos: usize, agg: &ast::Aggregate) -> Vec<Ident> {
    let outside = outside_vars(r, pos);
    let mut inside = Vec::new();
    for l in &agg.body {
        literal_vars(l, &mut inside);
    }
    inside
        .into_iter()
        .filter(|v| outside.iter().any(|o| o.name == v.name))
        .collect()
}

/// The declarations, the input rule and the spec of the aggregate at body position `pos` of
/// rule `r`, the `k`-th of the program.
fn split(
    file: &SourceFile,
    types: &HashMap<String, Vec<Type>>,
    r: &ast::Rule,
    pos: usize,
    agg: &ast::Aggregate,
    k: usize,
) -> Result<(Vec<ast::Decl>, ast::Rule, AggregateSpec), Diagnostic> {
    let err = |span: Span, msg: String, label: &str| Diagnostic::new(file, span, msg, label);
    let Term::Var(result) = &agg.result else {
        return Err(err(
            agg.result.span(),
            "an aggregate's result must be a variable".into(),
            "write `n = count : { .. }`",
        ));
    };
    let mut arithmetic = None;
    for l in &agg.body {
        literal_terms(l, &mut |t| {
            if let (Term::Expr(e), None) = (t, &arithmetic) {
                arithmetic = Some(e.span);
            }
        });
    }
    if let Some(Term::Expr(e)) = &agg.target {
        arithmetic.get_or_insert(e.span);
    }
    if let Some(span) = arithmetic {
        return Err(err(
            span,
            "arithmetic inside an aggregate is not supported".into(),
            "compute the value in a rule of its own and aggregate over its relation",
        ));
    }
    let mut inside = Vec::new();
    for l in &agg.body {
        if let Literal::Aggregate(inner) = l {
            return Err(err(
                inner.span,
                "aggregates inside an aggregate are not supported".into(),
                "define the inner aggregate in a rule of its own",
            ));
        }
        literal_vars(l, &mut inside);
    }
    if let Some(used) = inside.iter().find(|v| v.name == result.name) {
        return Err(err(
            used.span,
            format!(
                "the aggregate's result `{}` is used inside its body",
                result.name
            ),
            "the result is bound by the aggregate, not in it",
        ));
    }
    // Each wildcard of a positive atom becomes a variable: one solution per fact.
    let mut body = agg.body.clone();
    let mut fresh = 0;
    for l in &mut body {
        if let Literal::Positive(a) = l {
            for t in &mut a.args {
                if let Term::Wildcard(s) = t {
                    fresh += 1;
                    *t = Term::Var(Ident {
                        name: format!("@w{fresh}"),
                        span: *s,
                    });
                }
            }
        }
    }
    // The type of each variable, from a positive atom of the body that binds it.
    let mut typed: Vec<(Ident, Type)> = Vec::new();
    for l in &body {
        if let Literal::Positive(a) = l {
            let Some(cols) = types.get(&a.relation.name) else {
                continue; // an undeclared relation: the checks that follow say so
            };
            for (t, &ty) in a.args.iter().zip(cols) {
                if let Term::Var(id) = t {
                    if !typed.iter().any(|(v, _)| v.name == id.name) {
                        typed.push((id.clone(), ty));
                    }
                }
            }
        }
    }
    let group = group_vars(r, pos, agg);
    for g in &group {
        if !typed.iter().any(|(v, _)| v.name == g.name) {
            return Err(err(
                g.span,
                format!(
                    "variable `{}` groups the aggregate but no positive atom inside its braces binds it",
                    g.name
                ),
                "grouping variables must occur in a positive atom of the aggregate's body",
            ));
        }
    }
    let type_of = |name: &str| typed.iter().find(|(v, _)| v.name == name).map(|p| p.1);
    let mut columns: Vec<Ident> = group.clone();
    for (v, _) in &typed {
        if !columns.iter().any(|c| c.name == v.name) {
            columns.push(v.clone());
        }
    }
    let target = match (&agg.func, &agg.target) {
        (AggFunc::Count, _) => None,
        (_, Some(Term::Var(t))) => match columns.iter().position(|c| c.name == t.name) {
            Some(c) => {
                if type_of(&t.name) == Some(Type::Symbol) {
                    return Err(err(
                        t.span,
                        format!(
                            "`{}` needs a `number` target, and `{}` is a `symbol`",
                            func_name(agg.func),
                            t.name
                        ),
                        "sum, min and max aggregate numbers",
                    ));
                }
                Some(c)
            }
            None => {
                return Err(err(
                    t.span,
                    format!(
                        "the target `{}` does not occur in a positive atom of the aggregate's body",
                        t.name
                    ),
                    "not range-restricted",
                ))
            }
        },
        (_, Some(t)) => {
            return Err(err(
                t.span(),
                format!("the target of `{}` must be a variable", func_name(agg.func)),
                "write `s = sum w : { cost(x, w) }`",
            ))
        }
        (_, None) => unreachable!("the parser reads a target for sum, min and max"),
    };
    let name = format!("@agg{k}");
    let input = format!("@agg{k}_in");
    let ident = |n: &str| Ident {
        name: n.into(),
        span: agg.span,
    };
    let input_decl = ast::Decl {
        name: ident(&input),
        columns: columns
            .iter()
            .map(|c| (c.clone(), type_of(&c.name).unwrap_or(Type::Number)))
            .collect(),
        span: agg.span,
    };
    let mut agg_columns: Vec<(Ident, Type)> = group
        .iter()
        .map(|g| (g.clone(), type_of(&g.name).unwrap_or(Type::Number)))
        .collect();
    agg_columns.push((ident("@value"), Type::Number));
    let agg_decl = ast::Decl {
        name: ident(&name),
        columns: agg_columns,
        span: agg.span,
    };
    let input_rule = ast::Rule {
        head: ast::Atom {
            relation: ident(&input),
            args: columns.iter().cloned().map(Term::Var).collect(),
            span: agg.span,
        },
        body,
        span: agg.span,
    };
    let spec = AggregateSpec {
        name,
        input,
        group: group.len(),
        func: agg.func,
        target,
        span: agg.span,
    };
    Ok((vec![input_decl, agg_decl], input_rule, spec))
}

/// The function's keyword.
pub(crate) fn func_name(f: AggFunc) -> &'static str {
    match f {
        AggFunc::Count => "count",
        AggFunc::Sum => "sum",
        AggFunc::Min => "min",
        AggFunc::Max => "max",
    }
}

/// `t` with every occurrence of variable `var` (inside expressions too) replaced by `by`.
fn substitute_term(t: &mut Term, var: &str, by: &Term) {
    match t {
        Term::Var(id) if id.name == var => *t = by.clone(),
        Term::Expr(e) => e.args.iter_mut().for_each(|a| substitute_term(a, var, by)),
        _ => {}
    }
}

fn substitute_atom(a: &mut ast::Atom, var: &str, by: &Term) {
    for t in &mut a.args {
        substitute_term(t, var, by);
    }
}

fn substitute(lit: &mut Literal, var: &str, by: &Term) {
    match lit {
        Literal::Positive(a) | Literal::Negative(a, _) => substitute_atom(a, var, by),
        Literal::Compare(c) => {
            for t in [&mut c.left, &mut c.right] {
                substitute_term(t, var, by);
            }
        }
        Literal::Aggregate(a) => {
            for l in &mut a.body {
                substitute(l, var, by);
            }
            if let Some(t) = &mut a.target {
                substitute_term(t, var, by);
            }
        }
    }
}
