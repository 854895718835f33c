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
//! The braces may hold arithmetic (`count : { r(x), y = x * 2, y < 10 }`) and the target may be
//! any expression (`sum x + 1 : { r(x) }`): a target that is not a variable is computed into
//! a fresh variable `@t` by an equality added to the braces, and `@aggK_in`'s rule keeps the
//! braces' equalities and comparisons, which the checker turns into assignments as in any
//! rule. An assigned target is a column of its own; other assigned variables are not (a
//! solution is a binding of the variables positive atoms bind, which fix the others).
//!
//! *Correlated* aggregates: a grouping variable that no positive atom inside the braces binds
//! (`r(n, c) :- s(n), c = count : { t(m), m < n }.`) is taken from outside, as in Soufflé,
//! where the aggregate is evaluated once per binding of the variables it takes from the rule.
//! Such variables `C` get a context relation `@ctxK(C..) :- O.`, `O` being the rule's other
//! literals but aggregates (those with all their variables bound by them), and the input rule
//! reads it first: `@aggK_in(G.., V..) :- @ctxK(C..), B.` Grouping by `G` ⊇ `C` then gives one
//! value per binding. A variable that neither the braces nor the rest of the rule binds is
//! an error at its use; a correlated aggregate in a recursive rule reads the head through
//! `@ctxK` and is refused as an aggregate in recursion. Each aggregate's braces are a scope of
//! their own: a variable used by two aggregates of a rule and nowhere else is local to each.
//! When several aggregates of a rule are correlated through each other's results, the first
//! whose variables from outside are bound without the others' results is rewritten first.
//!
//! *Nested* aggregates fall out of the same rewriting: an aggregate inside the braces stays in
//! `@aggK_in`'s rule, which is rewritten in turn (its grouping variables are those it shares
//! with that rule, the outer braces' variables included).
//!
//! Generated names start with `@`, which no program can write, so they never clash. The checks
//! then run on the rewritten program; its spans point at the aggregate, so every error is
//! located in the source. What is out of the supported subset is refused here, at the
//! aggregate: a result that is not a fresh variable, a `_` target, a target of type `symbol`
//! known here, and a variable from outside that nothing binds. A target of type `symbol`
//! found later and an aggregate in recursion through its own body are refused by the checks
//! that follow (see `super::check` and `super::strata`).

use std::collections::HashMap;

use crate::diagnostic::{Diagnostic, SourceFile, Span};
use crate::syntax::ast::{self, AggFunc, CmpOp, Ident, Item, Literal, Term, Type};

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
    let mut types = super::declared_types(program);
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
        let mut generated = Vec::new();
        while let Some(r) = pending.pop() {
            let Some(pos) = r
                .body
                .iter()
                .position(|l| matches!(l, Literal::Aggregate(_)))
            else {
                done.push(r);
                continue;
            };
            let k = specs.len();
            // The first aggregate whose variables from outside are bound without the others'
            // results (or, when none is, the first, whose error is then reported).
            let mut first_err = None;
            let mut chosen = None;
            for (i, l) in r.body.iter().enumerate().skip(pos) {
                let Literal::Aggregate(agg) = l else { continue };
                match split(file, &types, &r, i, agg, k) {
                    Ok(s) => {
                        chosen = Some((i, s));
                        break;
                    }
                    Err(e) => {
                        first_err.get_or_insert(e);
                    }
                }
            }
            let Some((pos, split)) = chosen else {
                return Err(first_err.expect("an aggregate was tried"));
            };
            let Literal::Aggregate(agg) = &r.body[pos] else {
                unreachable!("chosen above")
            };
            let Split {
                decls,
                context,
                input,
                spec,
                group,
            } = split;
            for d in decls {
                types.insert(d.name.name.clone(), d.columns.iter().map(|c| c.1).collect());
                out.items.push(Item::Decl(d));
            }
            generated.extend(context);
            // The input rule may hold nested aggregates: it is rewritten in turn.
            pending.push(input);
            let group_args: Vec<Term> = group.into_iter().map(Term::Var).collect();
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
        // The rule's own rewritten forms first, so that an error in what the rule says is
        // reported there rather than in a context rule made from it.
        out.items
            .extend(done.into_iter().chain(generated).map(Item::Rule));
    }
    if unit_needed {
        let span = Span::new(0, 0);
        out.items.push(Item::Decl(ast::Decl {
            name: Ident {
                name: UNIT.into(),
                span,
            },
            columns: Vec::new(),
            eqrel: false,
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
/// other literals', and of an other aggregate its result only (each aggregate's braces are a
/// scope of their own: a variable that two aggregates use and nothing else does is local to
/// each).
fn outside_vars(r: &ast::Rule, pos: usize) -> Vec<Ident> {
    let mut out = Vec::new();
    vars_of(&r.head.args, &mut out);
    for (i, lit) in r.body.iter().enumerate() {
        if i == pos {
            continue;
        }
        match lit {
            Literal::Aggregate(a) => vars_of([&a.result], &mut out),
            lit => literal_vars(lit, &mut out),
        }
    }
    out
}

/// The grouping variables of the aggregate at `pos` of `r`: those of its braces and target
/// that also occur outside it, in order of first occurrence inside.
fn group_vars(r: &ast::Rule, pos: usize, agg: &ast::Aggregate) -> Vec<Ident> {
    let outside = outside_vars(r, pos);
    let mut inside = Vec::new();
    for l in &agg.body {
        literal_vars(l, &mut inside);
    }
    vars_of(agg.target.iter(), &mut inside);
    inside
        .into_iter()
        .filter(|v| outside.iter().any(|o| o.name == v.name))
        .collect()
}

/// The declarations, rules and spec of the aggregate at body position `pos` of rule `r`, the
/// `k`-th of the program.
fn split(
    file: &SourceFile,
    types: &HashMap<String, Vec<Type>>,
    r: &ast::Rule,
    pos: usize,
    agg: &ast::Aggregate,
    k: usize,
) -> Result<Split, Diagnostic> {
    let err = |span: Span, msg: String, label: &str| Diagnostic::new(file, span, msg, label);
    let Term::Var(result) = &agg.result else {
        return Err(err(
            agg.result.span(),
            "an aggregate's result must be a variable".into(),
            "write `n = count : { .. }`",
        ));
    };
    let mut inside = Vec::new();
    for l in &agg.body {
        literal_vars(l, &mut inside);
    }
    vars_of(agg.target.iter(), &mut inside);
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
    // Each wildcard of a positive atom (in its record patterns too) becomes a variable: one
    // solution per fact.
    fn name_wildcards(t: &mut Term, fresh: &mut usize) {
        match t {
            Term::Wildcard(s) => {
                *fresh += 1;
                *t = Term::Var(Ident {
                    name: format!("@w{fresh}"),
                    span: *s,
                });
            }
            Term::Record(fields, _) | Term::Ctor(_, fields, _) => {
                fields.iter_mut().for_each(|f| name_wildcards(f, fresh))
            }
            _ => {}
        }
    }
    let mut body = agg.body.clone();
    let mut fresh = 0;
    for l in &mut body {
        if let Literal::Positive(a) = l {
            for t in &mut a.args {
                name_wildcards(t, &mut fresh);
            }
        }
    }
    // A target that is not a variable is computed into one: `sum x + 1 : { B }` aggregates
    // `@t` over `B, @t = x + 1`.
    let target = match &agg.target {
        None => None,
        Some(Term::Var(t)) => Some(t.clone()),
        Some(Term::Wildcard(s)) => {
            return Err(err(
                *s,
                format!("the target of `{}` cannot be `_`", func_name(agg.func)),
                "write `s = sum w : { cost(x, w) }`",
            ))
        }
        Some(t) => {
            let var = Ident {
                name: "@t".into(),
                span: t.span(),
            };
            body.push(Literal::Compare(ast::Comparison {
                left: Term::Var(var.clone()),
                op: CmpOp::Eq,
                right: t.clone(),
                span: t.span(),
            }));
            Some(var)
        }
    };
    // The variables the braces bind themselves (positive atoms, nested aggregates' results).
    let typed = bound_vars(types, &body, &[]);
    let positive: Vec<(Ident, Option<Type>)> = typed
        .iter()
        .filter(|(v, _)| {
            body.iter().any(|l| match l {
                Literal::Positive(a) => binding_args(a).iter().any(|t| binds_var(t, &v.name)),
                Literal::Aggregate(a) => matches!(&a.result, Term::Var(id) if id.name == v.name),
                _ => false,
            })
        })
        .cloned()
        .collect();
    let group = group_vars(r, pos, agg);
    // Grouping variables the braces do not bind are taken from outside: the aggregate is
    // evaluated per binding of them that the rule's other literals allow (`@ctxK`).
    let correlated: Vec<Ident> = group
        .iter()
        .filter(|g| !positive.iter().any(|(v, _)| v.name == g.name))
        .cloned()
        .collect();
    let ident = |n: &str| Ident {
        name: n.into(),
        span: agg.span,
    };
    let mut decls = Vec::new();
    let mut context = None;
    let mut known = positive.clone();
    if !correlated.is_empty() {
        let outer: Vec<Literal> = r
            .body
            .iter()
            .enumerate()
            .filter(|(i, l)| *i != pos && !matches!(l, Literal::Aggregate(_)))
            .map(|(_, l)| l.clone())
            .collect();
        let bound = bound_vars(types, &outer, &[]);
        let mut ctx_columns = Vec::new();
        for c in &correlated {
            match bound.iter().find(|(v, _)| v.name == c.name) {
                Some((_, ty)) => ctx_columns.push((c.clone(), ty.unwrap_or(Type::Number))),
                None => {
                    return Err(err(
                        c.span,
                        format!(
                            "variable `{}` is used inside the aggregate's braces but nothing binds it: \
                             no positive atom inside them, and no positive atom or equality outside them",
                            c.name
                        ),
                        "not range-restricted",
                    ))
                }
            }
        }
        let name = format!("@ctx{k}");
        decls.push(ast::Decl {
            name: ident(&name),
            columns: ctx_columns.clone(),
            eqrel: false,
            span: agg.span,
        });
        let atom = ast::Atom {
            relation: ident(&name),
            args: correlated.iter().cloned().map(Term::Var).collect(),
            span: agg.span,
        };
        context = Some(ast::Rule {
            head: atom.clone(),
            body: outer.into_iter().filter(|l| all_bound(l, &bound)).collect(),
            span: agg.span,
        });
        body.insert(0, Literal::Positive(atom));
        known.extend(ctx_columns.into_iter().map(|(v, t)| (v, Some(t))));
    }
    // Every variable of the braces with its type, those assigned inside included.
    let all = bound_vars(types, &body, &known);
    let type_of = |name: &str| {
        all.iter()
            .find(|(v, _)| v.name == name)
            .and_then(|p| p.1)
            .unwrap_or(Type::Number)
    };
    let mut columns: Vec<Ident> = group.clone();
    for (v, _) in &known {
        if !columns.iter().any(|c| c.name == v.name) {
            columns.push(v.clone());
        }
    }
    let target = match (&agg.func, target) {
        (AggFunc::Count, _) => None,
        (_, Some(t)) => {
            if !all.iter().any(|(v, _)| v.name == t.name) {
                return Err(err(
                    t.span,
                    format!(
                        "the target `{}` is bound neither inside the aggregate's braces nor outside them",
                        t.name
                    ),
                    "not range-restricted",
                ));
            }
            if type_of(&t.name) == Type::Symbol {
                let what = if t.name.starts_with('@') {
                    "this target".to_string()
                } else {
                    format!("`{}`", t.name)
                };
                return Err(err(
                    t.span,
                    format!(
                        "`{}` needs a `number` target, and {what} is a `symbol`",
                        func_name(agg.func),
                    ),
                    "sum, min and max aggregate numbers",
                ));
            }
            Some(match columns.iter().position(|c| c.name == t.name) {
                Some(c) => c,
                None => {
                    columns.push(t);
                    columns.len() - 1
                }
            })
        }
        (_, None) => unreachable!("the parser reads a target for sum, min and max"),
    };
    let name = format!("@agg{k}");
    let input = format!("@agg{k}_in");
    decls.push(ast::Decl {
        name: ident(&input),
        columns: columns
            .iter()
            .map(|c| (c.clone(), type_of(&c.name)))
            .collect(),
        eqrel: false,
        span: agg.span,
    });
    let mut agg_columns: Vec<(Ident, Type)> = group
        .iter()
        .map(|g| (g.clone(), type_of(&g.name)))
        .collect();
    // `count` gives a `number`; `sum`, `min` and `max` a value of their target's type.
    let value_type = target.map_or(Type::Number, |t| type_of(&columns[t].name));
    agg_columns.push((ident("@value"), value_type));
    decls.push(ast::Decl {
        name: ident(&name),
        columns: agg_columns,
        eqrel: false,
        span: agg.span,
    });
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
    Ok(Split {
        decls,
        context,
        input: input_rule,
        spec,
        group,
    })
}

/// What [`split`] makes of one aggregate.
struct Split {
    /// `@ctxK` (for a correlated aggregate), `@aggK_in` and `@aggK`.
    decls: Vec<ast::Decl>,
    /// `@ctxK(C..) :- <outer literals binding C>`, for a correlated aggregate.
    context: Option<ast::Rule>,
    /// `@aggK_in(G.., V..) :- [@ctxK(C..),] B.`
    input: ast::Rule,
    /// The aggregate relation.
    spec: AggregateSpec,
    /// The grouping variables `G`, in the order of `@aggK`'s columns.
    group: Vec<Ident>,
}

/// The variables bound by `lits`, with the types known for them: a positive atom's plain
/// variable arguments (typed by its relation's declaration, when known), an aggregate's
/// result (`number`), and then, to a fixpoint, the variable of an equality `v = t` whose other
/// side's variables are bound (a lone variable gives its type, a string `symbol`, anything else
/// `number`). Variables already in `known` count as bound.
fn bound_vars(
    types: &HashMap<String, Vec<Type>>,
    lits: &[Literal],
    known: &[(Ident, Option<Type>)],
) -> Vec<(Ident, Option<Type>)> {
    let mut bound: Vec<(Ident, Option<Type>)> = known.to_vec();
    let add = |bound: &mut Vec<(Ident, Option<Type>)>, id: &Ident, ty: Option<Type>| {
        if !bound.iter().any(|(v, _)| v.name == id.name) {
            bound.push((id.clone(), ty));
        }
    };
    for l in lits {
        match l {
            Literal::Positive(a) => {
                let cols = types.get(&a.relation.name);
                let skip = a.args.len() - binding_args(a).len();
                for (i, t) in a.args.iter().enumerate().skip(skip) {
                    pattern_vars(t, cols.and_then(|c| c.get(i).copied()), &mut |id, ty| {
                        add(&mut bound, id, ty)
                    });
                }
            }
            Literal::Aggregate(a) => {
                if let Term::Var(id) = &a.result {
                    add(&mut bound, id, Some(Type::Number));
                }
            }
            _ => {}
        }
    }
    loop {
        let mut progress = false;
        for l in lits {
            let Literal::Compare(c) = l else { continue };
            if c.op != CmpOp::Eq {
                continue;
            }
            for (target, value) in [(&c.left, &c.right), (&c.right, &c.left)] {
                let Term::Var(v) = target else { continue };
                // `r = [x, y]` with `r` bound unpacks it (the checker's `unpacking`): the
                // pattern's variables are bound, typed by the record's fields.
                if matches!(value, Term::Record(..) | Term::Ctor(..)) {
                    let Some(ty) = bound.iter().find(|(b, _)| b.name == v.name).map(|b| b.1) else {
                        continue;
                    };
                    let before = bound.len();
                    pattern_vars(value, ty, &mut |id, ty| add(&mut bound, id, ty));
                    progress |= bound.len() > before;
                    continue;
                }
                if bound.iter().any(|(b, _)| b.name == v.name) || matches!(value, Term::Wildcard(_))
                {
                    continue;
                }
                let mut all = true;
                value.for_each_var(&mut |id| {
                    all &= bound.iter().any(|(b, _)| b.name == id.name);
                });
                if !all {
                    continue;
                }
                let ty = match value {
                    Term::Var(u) => bound
                        .iter()
                        .find(|(b, _)| b.name == u.name)
                        .and_then(|p| p.1),
                    t => Some(static_type(t, &bound).unwrap_or(Type::Number)),
                };
                bound.push((v.clone(), ty));
                progress = true;
                break;
            }
        }
        if !progress {
            return bound;
        }
    }
}

/// Whether every variable of `lit` is among `bound`.
fn all_bound(lit: &Literal, bound: &[(Ident, Option<Type>)]) -> bool {
    let mut vars = Vec::new();
    literal_vars(lit, &mut vars);
    vars.iter()
        .all(|v| bound.iter().any(|(b, _)| b.name == v.name))
}

/// The arguments of a positive atom that bind their variables: all of them, but of a `range`
/// lifted into an atom ([`ast::RANGE`]) only its value, the last (its bounds are read).
fn binding_args(a: &ast::Atom) -> &[Term] {
    if a.relation.name == ast::RANGE {
        &a.args[a.args.len() - 1..]
    } else {
        &a.args
    }
}

/// True when a positive atom's argument `t` binds the variable `name`: it is the variable or
/// a record pattern holding it.
fn binds_var(t: &Term, name: &str) -> bool {
    match t {
        Term::Var(id) => id.name == name,
        Term::Record(fields, _) | Term::Ctor(_, fields, _) => {
            fields.iter().any(|f| binds_var(f, name))
        }
        _ => false,
    }
}

/// Calls `f` on each variable a positive atom's argument `t` of type `ty` binds, with its
/// type: `t` itself, or the variables of a record pattern with their fields' types.
fn pattern_vars(t: &Term, ty: Option<Type>, f: &mut impl FnMut(&Ident, Option<Type>)) {
    match t {
        Term::Var(id) => f(id, ty),
        Term::Record(args, _) | Term::Ctor(_, args, _) => {
            let fields = match (t, ty) {
                (Term::Record(..), Some(Type::Record(id))) => {
                    Some(&crate::records::record_type(id).fields)
                }
                (Term::Ctor(name, ..), Some(Type::Record(id))) => crate::records::record_type(id)
                    .branch(&name.name)
                    .map(|(_, b)| &b.fields),
                _ => None,
            };
            for (i, a) in args.iter().enumerate() {
                let fty = fields.and_then(|fs| fs.get(i)).map(|(_, t)| *t);
                pattern_vars(a, fty, f);
            }
        }
        _ => {}
    }
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
        Term::Record(args, _) | Term::Ctor(_, args, _) => {
            args.iter_mut().for_each(|a| substitute_term(a, var, by))
        }
        Term::Field(r, _, _, _) => substitute_term(r, var, by),
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

/// The type of `t` from its own parts, the variables' types in `bound` (the checker's
/// `natural_type` before variables have ids): `None` for an integer literal or an operator
/// over nothing more.
fn static_type(t: &Term, bound: &[(Ident, Option<Type>)]) -> Option<Type> {
    match t {
        Term::Var(u) => bound
            .iter()
            .find(|(b, _)| b.name == u.name)
            .and_then(|p| p.1),
        Term::Str(..) => Some(Type::Symbol),
        Term::Float(..) => Some(Type::Float),
        Term::Num(..) | Term::BigNum(..) | Term::Wildcard(_) => None,
        // A record's type is its context's.
        Term::Record(..) | Term::Nil(_) | Term::Field(..) | Term::Ctor(..) => None,
        Term::Aggregate(_) | Term::Range(..) => {
            unreachable!("the parser lifts aggregates and ranges out of terms")
        }
        Term::Expr(e) => match e.op {
            ast::ArithOp::ToNumber => Some(Type::Number),
            ast::ArithOp::ToUnsigned => Some(Type::Unsigned),
            ast::ArithOp::ToFloat => Some(Type::Float),
            op if op.is_string() => Some(op.signature().1),
            _ => e.args.iter().find_map(|a| static_type(a, bound)),
        },
    }
}
