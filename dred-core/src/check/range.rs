//! `range` rewritten into plain rules over two generated relations, before the checks.
//!
//! The parser has lifted each `range(from, to[, step])` into an atom `@range(from, to[, step],
//! x)` of the body it stands in ([`ast::RANGE`]). Here each such atom of a rule `R` becomes,
//! with `K` numbering the atoms of the program:
//! - `@rangeK_d(from, to[, step]) :- D.` — the bounds each binding of the rule asks for. `D` is
//!   `R`'s body without the literals that depend on `x`: those naming `x`, then, until nothing
//!   changes, those naming a variable the rest does not bind (a positive atom binds its
//!   variables, another range atom its value once its bounds are bound, an equality its
//!   variable once the other side is, or a pattern's once it unpacks a bound record). A bound naming a variable `D` does not bind is refused
//!   at the variable. An empty `D` makes it a fact.
//! - `@rangeK(from, to[, step], v)` for every value `v` of the range, by recursion: the first
//!   value from `@rangeK_d`, each next one from the one before. With a step, Soufflé's
//!   meaning: ascending while below `to` for a positive step, descending while above it for a
//!   negative one, and `from` alone for a zero step unless `from = to`. Without one, the step
//!   is 1 when `from ≤ to`, else −1 (for `unsigned`, counting down by 1). Each next value must
//!   also move past the one before, so that an addition that wraps around ends the range
//!   instead of restarting it.
//! - `R` with the atom replaced by `@rangeK(from, to[, step], x)`.
//!
//! Every engine then maintains the generated relations as any other (a change of the facts a
//! range's bounds come from adds or removes its values). The cost: a range of n values takes
//! n rounds of its recursion. The type of the values is the type `x` has in a positive atom of
//! `R`, else the bounds' (a variable's, a float literal's, a conversion's), else `number`; it
//! must be numeric.

use std::collections::HashMap;

use crate::diagnostic::{Diagnostic, Span};
use crate::syntax::ast::{self, ArithOp, CmpOp, Comparison, Ident, Item, Literal, Term, Type};

/// Rewrites every `@range` atom of `program` (see the module's docs); a program without one is
/// returned unchanged.
pub(super) fn desugar(program: &ast::Program) -> Result<ast::Program, Diagnostic> {
    let is_range = |l: &Literal| matches!(l, Literal::Positive(a) if a.relation.name == ast::RANGE);
    let has_range = program
        .items
        .iter()
        .any(|i| matches!(i, Item::Rule(r) if r.body.iter().any(is_range)));
    if !has_range {
        return Ok(program.clone());
    }
    let file = &program.file;
    let mut types = super::declared_types(program);
    let mut out = ast::Program {
        file: file.clone(),
        items: Vec::new(),
    };
    let mut k = 0;
    for item in &program.items {
        let Item::Rule(rule) = item else {
            out.items.push(item.clone());
            continue;
        };
        // A demand rule may hold another range of its rule: it is rewritten in turn.
        let mut pending = vec![rule.clone()];
        while let Some(mut rule) = pending.pop() {
            let Some(pos) = rule.body.iter().position(is_range) else {
                out.items.push(Item::Rule(rule));
                continue;
            };
            let Literal::Positive(atom) = rule.body[pos].clone() else {
                unreachable!("a range atom")
            };
            let (bounds, x) = atom.args.split_at(atom.args.len() - 1);
            let Term::Var(x) = &x[0] else {
                unreachable!("the parser binds a range to a fresh variable")
            };
            let (demand, bound) = demand_of(&rule, pos, x);
            for b in bounds {
                let mut unbound = None;
                b.for_each_var(&mut |v| {
                    if unbound.is_none() && !bound.contains(&v.name) {
                        unbound = Some(v.clone());
                    }
                });
                if let Some(v) = unbound {
                    return Err(Diagnostic::new(
                        file,
                        v.span,
                        format!(
                            "`{}`, a bound of `range`, is not bound without the range's own values",
                            v.name
                        ),
                        "bind the bounds by literals that do not use the range's value",
                    ));
                }
            }
            let ty = value_type(&rule, &types, x, bounds);
            if !ty.is_numeric() {
                return Err(Diagnostic::new(
                    file,
                    atom.span,
                    format!(
                        "`range` is over numbers; here its values are `{}`s",
                        ty.keyword()
                    ),
                    "a range of `number`, `unsigned` or `float` values",
                ));
            }
            let span = atom.span;
            let name = |suffix: &str| ast::Ident {
                name: format!("@range{k}{suffix}"),
                span,
            };
            let (values, wanted) = (name(""), name("_d"));
            k += 1;
            let column = |c: &str| (var(c, span), ty);
            let bound_columns: Vec<(Ident, Type)> = ["from", "to", "step"][..bounds.len()]
                .iter()
                .map(|c| column(c))
                .collect();
            let mut value_columns = bound_columns.clone();
            value_columns.push(column("value"));
            for (relation, columns) in [(&wanted, bound_columns), (&values, value_columns)] {
                types.insert(relation.name.clone(), columns.iter().map(|c| c.1).collect());
                out.items.push(Item::Decl(ast::Decl {
                    name: relation.clone(),
                    columns,
                    eqrel: false,
                    span,
                }));
            }
            pending.push(ast::Rule {
                head: ast::Atom {
                    relation: wanted.clone(),
                    args: bounds.to_vec(),
                    span,
                },
                body: demand.iter().map(|&i| rule.body[i].clone()).collect(),
                span,
            });
            out.items
                .extend(generators(&wanted, &values, bounds.len() == 3, span));
            let mut args = bounds.to_vec();
            args.push(Term::Var(x.clone()));
            rule.body[pos] = Literal::Positive(ast::Atom {
                relation: values,
                args,
                span,
            });
            pending.push(rule);
        }
    }
    Ok(out)
}

/// The body positions of `rule` that do not depend on the range variable `x` of the range atom
/// at `pos` (see the module's docs), in order, and the variables they bind.
fn demand_of(rule: &ast::Rule, pos: usize, x: &Ident) -> (Vec<usize>, Vec<String>) {
    let mut kept: Vec<usize> = (0..rule.body.len())
        .filter(|&i| i != pos && !mentions(&rule.body[i], &x.name))
        .collect();
    loop {
        let bound = bound_by(rule, &kept);
        let before = kept.len();
        kept.retain(|&i| {
            let mut vars = Vec::new();
            literal_vars(&rule.body[i], &mut vars);
            vars.iter().all(|v| bound.contains(&v.name))
        });
        if kept.len() == before {
            return (kept, bound);
        }
    }
}

/// True when `lit` names the variable `name`.
fn mentions(lit: &Literal, name: &str) -> bool {
    let mut vars = Vec::new();
    literal_vars(lit, &mut vars);
    vars.iter().any(|v| v.name == name)
}

/// The variables the literals of `rule` at `positions` bind: a positive atom's (a range atom's
/// value once its bounds are bound), and an equality's unbound variable once the other side's
/// are; to a fixpoint.
fn bound_by(rule: &ast::Rule, positions: &[usize]) -> Vec<String> {
    let mut bound: Vec<String> = Vec::new();
    let all_bound = |t: &Term, bound: &[String]| {
        let mut all = true;
        t.for_each_var(&mut |v| all &= bound.contains(&v.name));
        all
    };
    loop {
        let before = bound.len();
        for &i in positions {
            match &rule.body[i] {
                Literal::Positive(a) if a.relation.name == ast::RANGE => {
                    let (bounds, value) = a.args.split_at(a.args.len() - 1);
                    if bounds.iter().all(|b| all_bound(b, &bound)) {
                        value[0].for_each_var(&mut |v| {
                            if !bound.contains(&v.name) {
                                bound.push(v.name.clone());
                            }
                        });
                    }
                }
                Literal::Positive(a) => {
                    for t in &a.args {
                        t.for_each_var(&mut |v| {
                            if !bound.contains(&v.name) {
                                bound.push(v.name.clone());
                            }
                        });
                    }
                }
                Literal::Compare(c) if c.op == CmpOp::Eq => {
                    for (target, value) in [(&c.left, &c.right), (&c.right, &c.left)] {
                        let Term::Var(v) = target else { continue };
                        if matches!(value, Term::Record(..) | Term::Ctor(..)) {
                            // A bound record unpacked by a pattern binds the pattern's
                            // variables.
                            if bound.contains(&v.name) {
                                value.for_each_var(&mut |p| {
                                    if !bound.contains(&p.name) {
                                        bound.push(p.name.clone());
                                    }
                                });
                            }
                        } else if !bound.contains(&v.name) && all_bound(value, &bound) {
                            bound.push(v.name.clone());
                        }
                    }
                }
                _ => {}
            }
        }
        if bound.len() == before {
            return bound;
        }
    }
}

/// The variables of a literal, each once (an aggregate's: its body's and target's).
fn literal_vars(lit: &Literal, out: &mut Vec<Ident>) {
    let mut add = |t: &Term| {
        t.for_each_var(&mut |id| {
            if !out.iter().any(|v| v.name == id.name) {
                out.push(id.clone());
            }
        })
    };
    match lit {
        Literal::Positive(a) | Literal::Negative(a, _) => a.args.iter().for_each(&mut add),
        Literal::Compare(c) => [&c.left, &c.right].into_iter().for_each(&mut add),
        Literal::Aggregate(a) => {
            a.target.iter().for_each(&mut add);
            add(&a.result);
            let mut inner = Vec::new();
            a.body.iter().for_each(|l| literal_vars(l, &mut inner));
            for v in inner {
                if !out.iter().any(|o| o.name == v.name) {
                    out.push(v);
                }
            }
        }
    }
}

/// The type of a range's values: `x`'s column in a positive atom of `rule`, else the first
/// bound's whose type shows (a variable's column, a float literal, a conversion), else
/// `number`.
fn value_type(
    rule: &ast::Rule,
    types: &HashMap<String, Vec<Type>>,
    x: &Ident,
    bounds: &[Term],
) -> Type {
    let column_of = |name: &str| {
        rule.body.iter().find_map(|l| match l {
            Literal::Positive(a) if a.relation.name != ast::RANGE => {
                let cols = types.get(&a.relation.name)?;
                a.args.iter().zip(cols).find_map(|(t, ty)| match t {
                    Term::Var(v) if v.name == name => Some(*ty),
                    _ => None,
                })
            }
            _ => None,
        })
    };
    // `y = x` (either way round) gives `x` the type of `y`'s column.
    let equal_to_x = rule.body.iter().find_map(|l| match l {
        Literal::Compare(Comparison {
            left: Term::Var(a),
            op: CmpOp::Eq,
            right: Term::Var(b),
            ..
        }) if b.name == x.name => Some(a.name.clone()),
        Literal::Compare(Comparison {
            left: Term::Var(a),
            op: CmpOp::Eq,
            right: Term::Var(b),
            ..
        }) if a.name == x.name => Some(b.name.clone()),
        _ => None,
    });
    let head_of = |name: &str| {
        let cols = types.get(&rule.head.relation.name)?;
        rule.head
            .args
            .iter()
            .zip(cols)
            .find_map(|(t, ty)| matches!(t, Term::Var(v) if v.name == name).then_some(*ty))
    };
    column_of(&x.name)
        .or_else(|| head_of(&x.name))
        .or_else(|| {
            equal_to_x
                .as_deref()
                .and_then(|y| column_of(y).or_else(|| head_of(y)))
        })
        .or_else(|| bounds.iter().find_map(|b| bound_type(b, &column_of)))
        .unwrap_or(Type::Number)
}

/// The type a bound shows by itself: a variable's column, a float literal, a conversion.
fn bound_type(t: &Term, column_of: &impl Fn(&str) -> Option<Type>) -> Option<Type> {
    match t {
        Term::Var(v) => column_of(&v.name),
        Term::Float(..) => Some(Type::Float),
        Term::Expr(e) => match e.op {
            ArithOp::ToNumber => Some(Type::Number),
            ArithOp::ToUnsigned => Some(Type::Unsigned),
            ArithOp::ToFloat => Some(Type::Float),
            _ => e.args.iter().find_map(|a| bound_type(a, column_of)),
        },
        _ => None,
    }
}

/// A variable of the generated rules (`@` keeps it apart from the program's).
fn var(name: &str, span: Span) -> Ident {
    Ident {
        name: format!("@{name}"),
        span,
    }
}

/// The rules deriving `values` from `wanted` (see the module's docs).
fn generators(wanted: &Ident, values: &Ident, stepped: bool, span: Span) -> Vec<Item> {
    let v = |name: &str| Term::Var(var(name, span));
    let num = |n: i64| Term::Num(n, span);
    let cmp = |left: Term, op: CmpOp, right: Term| {
        Literal::Compare(Comparison {
            left,
            op,
            right,
            span,
        })
    };
    let atom = |relation: &Ident, args: Vec<Term>| ast::Atom {
        relation: relation.clone(),
        args,
        span,
    };
    let arith = |op: ArithOp, a: Term, b: Term| {
        Term::Expr(Box::new(ast::Expr {
            op,
            args: vec![a, b],
            span,
        }))
    };
    let mut bounds = vec![v("from"), v("to")];
    if stepped {
        bounds.push(v("step"));
    }
    let with = |value: Term| {
        let mut args = bounds.clone();
        args.push(value);
        args
    };
    let rule = |head: Vec<Term>, body: Vec<Literal>| {
        Item::Rule(ast::Rule {
            head: atom(values, head),
            body,
            span,
        })
    };
    let first = |conditions: Vec<Literal>| {
        let mut body = vec![Literal::Positive(atom(wanted, bounds.clone()))];
        body.extend(conditions);
        rule(with(v("from")), body)
    };
    // The value after `@value`, `@next`, computed by `next`, kept while it passes `to` on the
    // side `beyond` says and moves past `@value` on the side `onward` says.
    let next = |conditions: Vec<Literal>, next: Term, beyond: CmpOp, onward: CmpOp| {
        let mut body = vec![Literal::Positive(atom(values, with(v("value"))))];
        body.extend(conditions);
        body.push(cmp(v("next"), CmpOp::Eq, next));
        body.push(cmp(v("next"), beyond, v("to")));
        body.push(cmp(v("next"), onward, v("value")));
        rule(with(v("next")), body)
    };
    if stepped {
        vec![
            first(vec![
                cmp(v("step"), CmpOp::Gt, num(0)),
                cmp(v("from"), CmpOp::Lt, v("to")),
            ]),
            first(vec![
                cmp(v("step"), CmpOp::Lt, num(0)),
                cmp(v("from"), CmpOp::Gt, v("to")),
            ]),
            first(vec![
                cmp(v("step"), CmpOp::Eq, num(0)),
                cmp(v("from"), CmpOp::Ne, v("to")),
            ]),
            next(
                vec![cmp(v("step"), CmpOp::Gt, num(0))],
                arith(ArithOp::Add, v("value"), v("step")),
                CmpOp::Lt,
                CmpOp::Gt,
            ),
            next(
                vec![cmp(v("step"), CmpOp::Lt, num(0))],
                arith(ArithOp::Add, v("value"), v("step")),
                CmpOp::Gt,
                CmpOp::Lt,
            ),
        ]
    } else {
        vec![
            first(vec![cmp(v("from"), CmpOp::Lt, v("to"))]),
            first(vec![cmp(v("from"), CmpOp::Gt, v("to"))]),
            next(
                vec![cmp(v("from"), CmpOp::Lt, v("to"))],
                arith(ArithOp::Add, v("value"), num(1)),
                CmpOp::Lt,
                CmpOp::Gt,
            ),
            next(
                vec![cmp(v("from"), CmpOp::Gt, v("to"))],
                arith(ArithOp::Sub, v("value"), num(1)),
                CmpOp::Gt,
                CmpOp::Lt,
            ),
        ]
    }
}
