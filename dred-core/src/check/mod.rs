//! From the AST to a checked [`Program`]: names resolved, arities and column types verified,
//! range restriction enforced, `.input` relations kept out of rule heads, strata computed.
//!
//! Each violation is a [`Diagnostic`] at the offending text. Checks run in source order and
//! the first error is reported.

mod aggregates;
mod strata;

use std::collections::HashMap;

use crate::diagnostic::{Diagnostic, SourceFile, Span};
use crate::program::{
    AggregateDef, Atom, Literal, Program, ProgramFact, RelId, RelationDecl, Rule, Term,
};
use crate::syntax::ast::{self, Type};
use crate::value::Symbols;

/// The zero-arity relation, always true, that a rule without a positive body atom reads
/// (`r("x") :- !a("y").` is checked as `r("x") :- $true(), !a("y").`); `$` keeps it apart
/// from every name a program can declare.
pub const TRUTH: &str = "$true";

/// Parses and checks a program text in one step.
pub fn load_program(file: &SourceFile, symbols: &mut Symbols) -> Result<Program, Diagnostic> {
    let ast = crate::syntax::parse(file)?;
    check(&ast, symbols)
}

/// Checks a parsed program, interning its constants into `symbols`.
pub fn check(ast: &ast::Program, symbols: &mut Symbols) -> Result<Program, Diagnostic> {
    let (desugared, specs) = aggregates::desugar(ast)?;
    let ast = &desugared;
    let file = &ast.file;
    let err = |span: Span, msg: String, label: &str| Diagnostic::new(file, span, msg, label);

    let mut relations: Vec<RelationDecl> = Vec::new();
    let mut by_name: HashMap<String, RelId> = HashMap::new();
    for item in &ast.items {
        if let ast::Item::Decl(d) = item {
            if let Some(&prev) = by_name.get(&d.name.name) {
                let (line, col) = file.line_col(relations[prev].span.start);
                return Err(err(
                    d.name.span,
                    format!(
                        "relation `{}` is declared twice (first at line {line}, column {col})",
                        d.name.name
                    ),
                    "second declaration",
                ));
            }
            let mut seen = HashMap::new();
            for (col, _) in &d.columns {
                if seen.insert(col.name.clone(), ()).is_some() {
                    return Err(err(
                        col.span,
                        format!("column `{}` appears twice in `{}`", col.name, d.name.name),
                        "duplicate column",
                    ));
                }
            }
            by_name.insert(d.name.name.clone(), relations.len());
            relations.push(RelationDecl {
                name: d.name.name.clone(),
                types: d.columns.iter().map(|(_, t)| *t).collect(),
                input: false,
                output: false,
                span: d.name.span,
            });
        }
    }
    let resolve = |id: &ast::Ident| -> Result<RelId, Diagnostic> {
        by_name.get(&id.name).copied().ok_or_else(|| {
            err(
                id.span,
                format!("relation `{}` is not declared", id.name),
                "add a `.decl` for it",
            )
        })
    };
    for item in &ast.items {
        match item {
            ast::Item::Input(id) => {
                let r = resolve(id)?;
                relations[r].input = true;
            }
            ast::Item::Output(id) => {
                let r = resolve(id)?;
                relations[r].output = true;
            }
            ast::Item::PrintSize(id) => {
                resolve(id)?;
            }
            _ => {}
        }
    }
    // A rule whose body has no positive atom (`r("x") :- !a("y").`) reads a zero-arity
    // relation that always holds, so every engine evaluates it as a rule like the others;
    // its variables, if any, are then unbound and refused below as in any rule.
    let needs_truth = ast.items.iter().any(|i| {
        matches!(i, ast::Item::Rule(r) if !r.body.is_empty()
            && !r.body.iter().any(|l| matches!(l, ast::Literal::Positive(_))))
    });
    let truth = needs_truth.then(|| {
        let span = Span::new(0, 0);
        relations.push(RelationDecl {
            name: TRUTH.to_string(),
            types: Vec::new(),
            input: false,
            output: false,
            span,
        });
        relations.len() - 1
    });

    let mut rules = Vec::new();
    let mut facts = Vec::new();
    for item in &ast.items {
        let ast::Item::Rule(rule) = item else {
            continue;
        };
        let head_rel = resolve(&rule.head.relation)?;
        if relations[head_rel].input {
            return Err(err(
                rule.head.relation.span,
                format!(
                    "`{}` is an `.input` relation and cannot be derived by a rule or program fact",
                    rule.head.relation.name
                ),
                "input relations get their facts from `.facts` files and update streams",
            ));
        }
        let mut rc = RuleChecker {
            file,
            relations: &relations,
            symbols,
            vars: Vec::new(),
        };
        let mut body = Vec::new();
        let truth_atom = match truth {
            Some(t)
                if !rule.body.is_empty()
                    && !rule
                        .body
                        .iter()
                        .any(|l| matches!(l, ast::Literal::Positive(_))) =>
            {
                Some(Literal::Positive(Atom {
                    rel: t,
                    args: Vec::new(),
                }))
            }
            _ => None,
        };
        // Positive atoms first: they bind variables and fix their types.
        for lit in &rule.body {
            if let ast::Literal::Positive(a) = lit {
                let rel = resolve(&a.relation)?;
                body.push((lit, Some(Literal::Positive(rc.atom(rel, a, true)?))));
            } else {
                body.push((lit, None));
            }
        }
        let bound = rc.vars.len();
        let mut checked_body = Vec::with_capacity(body.len() + 1);
        checked_body.extend(truth_atom);
        for (lit, done) in body {
            let checked = match (lit, done) {
                (_, Some(l)) => l,
                (ast::Literal::Negative(a, _), None) => {
                    let rel = resolve(&a.relation)?;
                    Literal::Negative(rc.atom(rel, a, false)?)
                }
                (ast::Literal::Compare(c), None) => rc.comparison(c)?,
                (ast::Literal::Aggregate(a), None) => {
                    unreachable!(
                        "aggregates are rewritten before the checks (at {:?})",
                        a.span
                    )
                }
                (ast::Literal::Positive(_), None) => unreachable!("positive atoms checked above"),
            };
            checked_body.push(checked);
        }
        debug_assert_eq!(
            bound,
            rc.vars.len(),
            "negation/comparison bound no variable"
        );
        let head = rc.head(head_rel, &rule.head, rule.body.is_empty())?;
        if rule.body.is_empty() {
            let tuple = head
                .args
                .iter()
                .map(|t| match t {
                    Term::Const(c) => *c,
                    _ => unreachable!("facts are checked ground"),
                })
                .collect();
            facts.push(ProgramFact {
                rel: head_rel,
                tuple,
                span: rule.span,
            });
        } else {
            if checked_body
                .iter()
                .all(|l| !matches!(l, Literal::Positive(_)))
            {
                return Err(err(
                    rule.span,
                    "a rule needs at least one positive body atom".into(),
                    "nothing here binds the rule's variables",
                ));
            }
            let var_names = rc.vars.into_iter().map(|(n, _)| n).collect();
            rules.push(Rule {
                head,
                body: checked_body,
                var_names,
                span: rule.span,
            });
        }
    }

    if let Some(t) = truth {
        facts.push(ProgramFact {
            rel: t,
            tuple: Vec::new(),
            span: Span::new(0, 0),
        });
    }

    let aggregates: Vec<AggregateDef> = specs
        .iter()
        .map(|s| AggregateDef {
            rel: by_name[&s.name],
            input: by_name[&s.input],
            group: s.group,
            func: s.func,
            target: s.target,
            span: s.span,
        })
        .collect();
    let (strata, stratum_of) = strata::stratify(file, &relations, &rules, &facts, &aggregates)?;
    Ok(Program {
        source: file.clone(),
        relations,
        rules,
        facts,
        strata,
        stratum_of,
        aggregates,
    })
}

struct RuleChecker<'a> {
    file: &'a SourceFile,
    relations: &'a [RelationDecl],
    symbols: &'a mut Symbols,
    /// Variables bound by positive atoms, with their types, in order of first occurrence.
    vars: Vec<(String, Type)>,
}

impl RuleChecker<'_> {
    fn err(&self, span: Span, msg: String, label: &str) -> Diagnostic {
        Diagnostic::new(self.file, span, msg, label)
    }

    fn constant(&mut self, t: &ast::Term, expected: Type, what: &str) -> Result<Term, Diagnostic> {
        match (t, expected) {
            (ast::Term::Str(s, _), Type::Symbol) => Ok(Term::Const(self.symbols.intern(s))),
            (ast::Term::Num(n, _), Type::Number) => Ok(Term::Const(*n)),
            (ast::Term::Str(..), Type::Number) | (ast::Term::Num(..), Type::Symbol) => Err(self
                .err(
                    t.span(),
                    format!(
                        "type mismatch: {what} has type `{}`, this constant does not",
                        expected.keyword()
                    ),
                    "wrong constant type",
                )),
            _ => unreachable!("only constants reach here"),
        }
    }

    fn atom(&mut self, rel: RelId, a: &ast::Atom, binds: bool) -> Result<Atom, Diagnostic> {
        let decl = &self.relations[rel];
        if a.args.len() != decl.arity() {
            return Err(self.err(
                a.span,
                format!(
                    "`{}` has {} column(s) but is used with {} argument(s)",
                    decl.name,
                    decl.arity(),
                    a.args.len()
                ),
                "wrong arity",
            ));
        }
        let mut args = Vec::with_capacity(a.args.len());
        for (i, (t, &ty)) in a.args.iter().zip(&decl.types).enumerate() {
            let what = format!("column {} of `{}`", i + 1, decl.name);
            let term = match t {
                ast::Term::Wildcard(_) => Term::Wildcard,
                ast::Term::Var(id) => match self.vars.iter().position(|(n, _)| *n == id.name) {
                    Some(v) => {
                        let vty = self.vars[v].1;
                        if vty != ty {
                            return Err(self.err(
                                id.span,
                                format!(
                                    "type mismatch: `{}` is a `{}` elsewhere in this rule but {what} has type `{}`",
                                    id.name,
                                    vty.keyword(),
                                    ty.keyword()
                                ),
                                "variable used with two types",
                            ));
                        }
                        Term::Var(v)
                    }
                    None if binds => {
                        self.vars.push((id.name.clone(), ty));
                        Term::Var(self.vars.len() - 1)
                    }
                    None => {
                        return Err(self.err(
                            id.span,
                            format!(
                                "variable `{}` in a negated atom does not occur in a positive body atom",
                                id.name
                            ),
                            "not range-restricted",
                        ))
                    }
                },
                c => self.constant(c, ty, &what)?,
            };
            args.push(term);
        }
        Ok(Atom { rel, args })
    }

    fn bound_var(&self, id: &ast::Ident, context: &str) -> Result<(Term, Type), Diagnostic> {
        match self.vars.iter().position(|(n, _)| *n == id.name) {
            Some(v) => Ok((Term::Var(v), self.vars[v].1)),
            None => Err(self.err(
                id.span,
                format!(
                    "variable `{}` in {context} does not occur in a positive body atom",
                    id.name
                ),
                "not range-restricted",
            )),
        }
    }

    fn comparison(&mut self, c: &ast::Comparison) -> Result<Literal, Diagnostic> {
        let side = |t: &ast::Term| -> Option<Type> {
            match t {
                ast::Term::Str(..) => Some(Type::Symbol),
                ast::Term::Num(..) => Some(Type::Number),
                _ => None,
            }
        };
        let mut typed = Vec::new();
        for t in [&c.left, &c.right] {
            typed.push(match t {
                ast::Term::Var(id) => Some(self.bound_var(id, "a comparison")?),
                ast::Term::Wildcard(s) => {
                    return Err(self.err(
                        *s,
                        "`_` cannot be compared".into(),
                        "use a variable bound by a body atom",
                    ))
                }
                _ => None,
            });
        }
        let ty = typed
            .iter()
            .flatten()
            .map(|(_, ty)| *ty)
            .next()
            .or_else(|| side(&c.left))
            .unwrap_or(Type::Number);
        let mut terms = Vec::new();
        for (t, tv) in [&c.left, &c.right].into_iter().zip(typed) {
            terms.push(match tv {
                Some((term, vty)) => {
                    if vty != ty {
                        return Err(self.err(
                            c.span,
                            format!(
                                "type mismatch: comparing a `{}` with a `{}`",
                                ty.keyword(),
                                vty.keyword()
                            ),
                            "both sides must have the same type",
                        ));
                    }
                    term
                }
                None => self.constant(t, ty, "the other side of this comparison")?,
            });
        }
        if c.op.is_order() && ty == Type::Symbol {
            return Err(self.err(
                c.span,
                format!(
                    "`{}` needs numbers; symbols are only compared with `=` and `!=`",
                    c.op.symbol()
                ),
                "order comparison on symbols",
            ));
        }
        Ok(Literal::Compare {
            left: terms[0],
            op: c.op,
            right: terms[1],
        })
    }

    fn head(&mut self, rel: RelId, a: &ast::Atom, is_fact: bool) -> Result<Atom, Diagnostic> {
        let decl = &self.relations[rel];
        if a.args.len() != decl.arity() {
            return Err(self.err(
                a.span,
                format!(
                    "`{}` has {} column(s) but is used with {} argument(s)",
                    decl.name,
                    decl.arity(),
                    a.args.len()
                ),
                "wrong arity",
            ));
        }
        let mut args = Vec::new();
        for (i, (t, &ty)) in a.args.iter().zip(&decl.types).enumerate() {
            let what = format!("column {} of `{}`", i + 1, decl.name);
            args.push(match t {
                ast::Term::Wildcard(s) => {
                    return Err(self.err(
                        *s,
                        "`_` cannot appear in a rule head".into(),
                        "a head must name every value it derives",
                    ))
                }
                ast::Term::Var(id) => {
                    let context = if is_fact { "a fact" } else { "the rule head" };
                    let (term, vty) = self.bound_var(id, context)?;
                    if vty != ty {
                        return Err(self.err(
                            id.span,
                            format!(
                                "type mismatch: `{}` is a `{}` in the body but {what} has type `{}`",
                                id.name,
                                vty.keyword(),
                                ty.keyword()
                            ),
                            "wrong type in head",
                        ));
                    }
                    term
                }
                c => self.constant(c, ty, &what)?,
            });
        }
        Ok(Atom { rel, args })
    }
}

#[cfg(test)]
mod tests;
