//! Negated atoms whose record or constructor patterns hold a `_`, rewritten through a
//! generated relation, before the checks.
//!
//! `!p([x, _])` asks that no fact of `p` have a record whose first field is `x`, whatever its
//! second: a `_` inside a record is no value, so the negated atom cannot be checked by
//! building the record. Each such atom `!p(a1, .., an)` of a rule becomes `!@negK(t1, .., tm)`,
//! where the `ti` are the atom's arguments and fields that are not patterns (variables,
//! constants, expressions, `nil`) in order, each replaced in the atom by a fresh variable
//! `@nI` of its column's or field's type, and a rule `@negK(@n1, .., @nm) :- p(..).` with
//! those variables collects every combination `p`'s facts hold (a positive atom, where the
//! patterns take the records apart). `@negK` depends on `p` alone, so the rule's strata are
//! those of `!p(..)`. An atom whose patterns do not fit its columns' types is left as written,
//! for the checks to report.

use crate::syntax::ast::{self, Ident, Item, Literal, Term, Type};

/// Rewrites every negated atom with a `_` inside a record or constructor (see the module's
/// docs); a program without one is returned unchanged.
pub(super) fn desugar(program: &ast::Program) -> ast::Program {
    let has_one = program.items.iter().any(|i| {
        matches!(i, Item::Rule(r) if r.body.iter().any(|l| matches!(l,
            Literal::Negative(a, _) if a.args.iter().any(|t| holds_inner_wildcard(t, false)))))
    });
    if !has_one {
        return program.clone();
    }
    let mut types = super::declared_types(program);
    let mut out = ast::Program {
        file: program.file.clone(),
        items: Vec::new(),
    };
    let mut k = 0;
    for item in &program.items {
        let Item::Rule(rule) = item else {
            out.items.push(item.clone());
            continue;
        };
        let mut rule = rule.clone();
        for lit in &mut rule.body {
            let Literal::Negative(atom, bang) = lit else {
                continue;
            };
            if !atom.args.iter().any(|t| holds_inner_wildcard(t, false)) {
                continue;
            }
            let Some(columns) = types.get(&atom.relation.name) else {
                continue;
            };
            if columns.len() != atom.args.len() {
                continue;
            }
            let mut leaves = Vec::new();
            let mut pattern = Vec::with_capacity(atom.args.len());
            let fits =
                atom.args
                    .iter()
                    .zip(columns)
                    .all(|(t, &ty)| match split(t, ty, &mut leaves) {
                        Some(p) => {
                            pattern.push(p);
                            true
                        }
                        None => false,
                    });
            if !fits {
                continue;
            }
            let span = atom.span;
            let name = Ident {
                name: format!("@neg{k}"),
                span,
            };
            k += 1;
            let vars: Vec<Ident> = (0..leaves.len())
                .map(|i| Ident {
                    name: format!("@n{i}"),
                    span,
                })
                .collect();
            out.items.push(Item::Decl(ast::Decl {
                name: name.clone(),
                columns: vars
                    .iter()
                    .cloned()
                    .zip(leaves.iter().map(|l| l.1))
                    .collect(),
                eqrel: false,
                span,
            }));
            types.insert(name.name.clone(), leaves.iter().map(|l| l.1).collect());
            out.items.push(Item::Rule(ast::Rule {
                head: ast::Atom {
                    relation: name.clone(),
                    args: vars.iter().cloned().map(Term::Var).collect(),
                    span,
                },
                body: vec![Literal::Positive(ast::Atom {
                    relation: atom.relation.clone(),
                    args: pattern,
                    span,
                })],
                span,
            }));
            *lit = Literal::Negative(
                ast::Atom {
                    relation: name,
                    args: leaves.into_iter().map(|l| l.0).collect(),
                    span,
                },
                *bang,
            );
        }
        out.items.push(Item::Rule(rule));
    }
    out
}

/// True when `t` holds a `_` inside a record or constructor (`inside`: `t` is a field).
fn holds_inner_wildcard(t: &Term, inside: bool) -> bool {
    match t {
        Term::Wildcard(_) => inside,
        Term::Record(args, _) | Term::Ctor(_, args, _) => {
            args.iter().any(|a| holds_inner_wildcard(a, true))
        }
        _ => false,
    }
}

/// `t`, the argument or field of type `ty`, as the generated rule's pattern: `_` kept, records
/// and constructors taken apart field by field, anything else a fresh variable `@nI` pushed
/// with its term and type onto `leaves`. `None` when a pattern does not fit `ty`.
fn split(t: &Term, ty: Type, leaves: &mut Vec<(Term, Type)>) -> Option<Term> {
    match (t, ty) {
        (Term::Wildcard(s), _) => Some(Term::Wildcard(*s)),
        (Term::Record(args, span), Type::Record(id)) => {
            let rt = crate::records::record_type(id);
            if rt.is_adt() || rt.fields.len() != args.len() {
                return None;
            }
            let fields = args
                .iter()
                .zip(&rt.fields)
                .map(|(a, f)| split(a, f.1, leaves))
                .collect::<Option<Vec<Term>>>()?;
            Some(Term::Record(fields, *span))
        }
        (Term::Ctor(name, args, span), Type::Record(id)) => {
            let rt = crate::records::record_type(id);
            let (_, branch) = rt.branch(&name.name)?;
            if branch.fields.len() != args.len() {
                return None;
            }
            let fields = args
                .iter()
                .zip(&branch.fields)
                .map(|(a, f)| split(a, f.1, leaves))
                .collect::<Option<Vec<Term>>>()?;
            Some(Term::Ctor(name.clone(), fields, *span))
        }
        (Term::Record(..) | Term::Ctor(..), _) => None,
        (t, ty) => {
            let var = Term::Var(Ident {
                name: format!("@n{}", leaves.len()),
                span: t.span(),
            });
            leaves.push((t.clone(), ty));
            Some(var)
        }
    }
}
