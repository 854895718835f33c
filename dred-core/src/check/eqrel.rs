//! `eqrel` relations rewritten into plain rules, before the checks.
//!
//! `.decl r(x: T, y: T) eqrel` declares an equivalence relation: `r` holds the reflexive,
//! symmetric and transitive closure of the pairs its rules, program facts and (for an
//! `.input` relation) EDB facts give it, as in Soufflé. The closure is three rules over `r`:
//!
//! ```text
//! r(y, x) :- r(x, y).              // symmetric
//! r(x, x) :- r(x, _).              // reflexive, on the elements r relates
//! r(x, z) :- r(x, y), r(y, z).     // transitive
//! ```
//!
//! An `.input` `eqrel` relation keeps its EDB part apart: its facts (its `.facts` file, and
//! update streams naming `r`) go to a generated input relation `@eqrel_r`, read under the name
//! `r` ([`crate::program::RelationDecl::facts_name`]), and `r` becomes a derived relation with
//! the rule `r(x, y) :- @eqrel_r(x, y).` besides the closure. Deleting a pair from the EDB thus
//! deletes what only it implied, and keeps what other pairs still imply; models, traces and
//! `--out` show `r` closed. Rules and facts deriving `r` stay as written (they add pairs to
//! the closure).
//!
//! An `eqrel` declaration needs two columns of one type; anything else is an error at the
//! declaration.

use crate::diagnostic::Diagnostic;
use crate::syntax::ast::{self, Atom, Ident, Item, Literal, Rule, Term};

/// The prefix of the generated input relation holding an `.input` `eqrel` relation's facts.
pub(super) const EDB_PREFIX: &str = "@eqrel_";

/// Rewrites every `eqrel` relation of `program` (see the module's docs). Returns the program
/// and, for each generated input relation, its name and the name its facts are read under.
pub(super) fn desugar(
    program: &ast::Program,
) -> Result<(ast::Program, Vec<(String, String)>), Diagnostic> {
    let eqrels: Vec<&ast::Decl> = program
        .items
        .iter()
        .filter_map(|i| match i {
            Item::Decl(d) if d.eqrel => Some(d),
            _ => None,
        })
        .collect();
    if eqrels.is_empty() {
        return Ok((program.clone(), Vec::new()));
    }
    let file = &program.file;
    for d in &eqrels {
        let binary = d.columns.len() == 2 && d.columns[0].1 == d.columns[1].1;
        if !binary {
            return Err(Diagnostic::new(
                file,
                d.span,
                format!(
                    "`{}` is declared `eqrel` but does not have two columns of one type",
                    d.name.name
                ),
                "an equivalence relation relates values of one type",
            ));
        }
    }
    let is_input = |name: &str| {
        program
            .items
            .iter()
            .any(|i| matches!(i, Item::Input(id) if id.name == name))
    };
    let mut out = ast::Program {
        file: file.clone(),
        items: Vec::new(),
    };
    let mut renamed = Vec::new();
    for item in &program.items {
        match item {
            Item::Decl(d) if d.eqrel && is_input(&d.name.name) => {
                out.items.push(item.clone());
                let edb = format!("{EDB_PREFIX}{}", d.name.name);
                out.items.push(Item::Decl(ast::Decl {
                    name: Ident {
                        name: edb.clone(),
                        span: d.name.span,
                    },
                    eqrel: false,
                    ..d.clone()
                }));
                renamed.push((edb, d.name.name.clone()));
            }
            Item::Input(id) if eqrels.iter().any(|d| d.name.name == id.name) => {
                out.items.push(Item::Input(Ident {
                    name: format!("{EDB_PREFIX}{}", id.name),
                    span: id.span,
                }));
            }
            _ => out.items.push(item.clone()),
        }
    }
    for d in &eqrels {
        let r = &d.name.name;
        let span = d.span;
        let var = |n: &str| {
            Term::Var(Ident {
                name: n.into(),
                span,
            })
        };
        let atom = |rel: &str, args: Vec<Term>| Atom {
            relation: Ident {
                name: rel.into(),
                span,
            },
            args,
            span,
        };
        let rule = |head: Atom, body: Vec<Atom>| {
            Item::Rule(Rule {
                head,
                body: body.into_iter().map(Literal::Positive).collect(),
                span,
            })
        };
        if is_input(r) {
            out.items.push(rule(
                atom(r, vec![var("x"), var("y")]),
                vec![atom(&format!("{EDB_PREFIX}{r}"), vec![var("x"), var("y")])],
            ));
        }
        out.items.push(rule(
            atom(r, vec![var("y"), var("x")]),
            vec![atom(r, vec![var("x"), var("y")])],
        ));
        out.items.push(rule(
            atom(r, vec![var("x"), var("x")]),
            vec![atom(r, vec![var("x"), Term::Wildcard(span)])],
        ));
        out.items.push(rule(
            atom(r, vec![var("x"), var("z")]),
            vec![
                atom(r, vec![var("x"), var("y")]),
                atom(r, vec![var("y"), var("z")]),
            ],
        ));
    }
    Ok((out, renamed))
}
