//! From the AST to a checked [`Program`]: names resolved, arities and column types verified,
//! range restriction enforced, `.input` relations kept out of rule heads, strata computed.
//!
//! Arithmetic becomes assignments ([`Literal::Assign`]): each expression of an atom (head,
//! body or negated) is replaced by a fresh variable `$eN` computed from it, each side of a
//! comparison that is an expression likewise, and an equality `v = t` whose variable `v` no
//! positive atom binds binds it. A variable is bound when a positive atom binds it or an
//! assignment does whose expression's variables are all bound (found by a fixpoint, so that
//! assignments may be written in any order, never in a cycle). Assignments come after the
//! rule's other literals, each after those binding its expression's variables; a rule
//! without arithmetic keeps its literals exactly as written.
//!
//! Each violation is a [`Diagnostic`] at the offending text. Checks run in source order and
//! the first error is reported.

mod aggregates;
mod eqrel;
mod exprs;
mod negation;
mod range;
mod strata;

use std::collections::HashMap;

use crate::diagnostic::{Diagnostic, SourceFile, Span};
use crate::program::{
    AggregateDef, Atom, Expr, Literal, Program, ProgramFact, RelId, RelationDecl, Rule, Term,
};
use crate::syntax::ast::{self, CmpOp, Type};
use crate::value::{Symbols, Value};

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
    let (closed, facts_names) = eqrel::desugar(ast)?;
    let (desugared, specs) = aggregates::desugar(&closed)?;
    let desugared = range::desugar(&desugared)?;
    let desugared = negation::desugar(&desugared);
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
                facts_name: facts_names
                    .iter()
                    .find(|(generated, _)| *generated == d.name.name)
                    .map(|(_, read_as)| read_as.clone()),
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
            facts_name: None,
            span,
        });
        relations.len() - 1
    });

    let adts = adts_of(&relations);
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
        // The column type of each variable written directly in an atom of the rule: what
        // an integer literal assigned to it takes (`v = 1 + 2` for a `float` column).
        let mut uses = Vec::new();
        let atoms = rule.body.iter().filter_map(|l| match l {
            ast::Literal::Positive(a) | ast::Literal::Negative(a, _) => Some(a),
            _ => None,
        });
        for a in std::iter::once(&rule.head).chain(atoms) {
            let Some(&rel) = by_name.get(&a.relation.name) else {
                continue;
            };
            for (t, &ty) in a.args.iter().zip(&relations[rel].types) {
                column_uses(t, ty, &mut uses);
            }
        }
        // And of each variable of a pattern an equality unpacks a record variable with
        // (`p(r), r = [x, y]`), through chains of such equalities.
        let unpacks: Vec<_> = rule
            .body
            .iter()
            .filter_map(|l| match l {
                ast::Literal::Compare(c) => unpacking(c),
                _ => None,
            })
            .collect();
        let mut typed = vec![false; unpacks.len()];
        while let Some((i, id)) = unpacks.iter().enumerate().find_map(|(i, (v, _))| {
            let known = uses.iter().find(|(n, _)| *n == v.name).map(|u| u.1);
            match known {
                Some(Type::Record(id)) if !typed[i] => Some((i, id)),
                _ => None,
            }
        }) {
            typed[i] = true;
            column_uses(unpacks[i].1, Type::Record(id), &mut uses);
        }
        let mut rc = RuleChecker {
            file,
            relations: &relations,
            symbols,
            vars: Vec::new(),
            fresh: 0,
            uses,
            adts: &adts,
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
        if rule.body.is_empty() {
            // A fact's arguments are constants; an expression among them is computed here,
            // and a fact whose expression has no value (a division by zero) is no fact.
            let mut args = Vec::with_capacity(rule.head.args.len());
            // Numeric values computed here, put in place of the `0` standing for them once
            // the head is checked (an `unsigned` beyond i64 has no literal to stand for it).
            let mut computed = Vec::new();
            let columns = &relations[head_rel].types;
            for (i, t) in rule.head.args.iter().enumerate() {
                match t {
                    ast::Term::Expr(_) | ast::Term::Record(..) | ast::Term::Ctor(..) => {
                        match rc.constant_expr(t, columns.get(i).copied())? {
                            Some((v, Type::Symbol)) => {
                                let name = rc.symbols.name(v).expect("interned by the functor");
                                args.push(ast::Term::Str(name.to_string(), t.span()));
                            }
                            Some((v, ty)) => {
                                if let Some(&column) = columns.get(i).filter(|&&c| c != ty) {
                                    return Err(err(
                                    t.span(),
                                    format!(
                                        "type mismatch: this expression is a `{}` but column {} of `{}` has type `{}`",
                                        ty.keyword(),
                                        i + 1,
                                        relations[head_rel].name,
                                        column.keyword()
                                    ),
                                    "wrong type",
                                ));
                                }
                                computed.push((i, v));
                                // Stands for the value; `head` leaves computed columns alone.
                                args.push(ast::Term::Wildcard(t.span()));
                            }
                            None => break,
                        }
                    }
                    t => args.push(t.clone()),
                }
            }
            if args.len() < rule.head.args.len() {
                continue;
            }
            let head = ast::Atom {
                args,
                ..rule.head.clone()
            };
            let skip: Vec<usize> = computed.iter().map(|&(i, _)| i).collect();
            let head = rc.head(head_rel, &head, true, &skip)?;
            let mut tuple: Vec<Value> = head
                .args
                .iter()
                .map(|t| match t {
                    Term::Const(c) => *c,
                    _ => unreachable!("facts are checked ground"),
                })
                .collect();
            for (i, v) in computed {
                tuple[i] = v;
            }
            facts.push(ProgramFact {
                rel: head_rel,
                tuple,
                span: rule.span,
            });
            continue;
        }
        // Every expression of an atom becomes a fresh variable `$eN`, computed by an
        // assignment once the variables it reads are bound; comparisons wait for the same.
        let mut pending = Vec::new();
        let mut unpack = Vec::new();
        let head_atom = rc.lower_atom(head_rel, &rule.head, "the rule head", &mut pending)?;
        // Positive atoms first: they bind variables and fix their types.
        for lit in &rule.body {
            match lit {
                ast::Literal::Positive(a) => {
                    let rel = resolve(&a.relation)?;
                    let first = pending.len();
                    let a = rc.lower_atom(rel, a, BODY_ATOM, &mut pending)?;
                    body.push(Slot::Done(Literal::Positive(rc.atom(rel, &a, true)?)));
                    // The equalities that take its record patterns apart.
                    for (k, p) in pending.iter().enumerate().skip(first) {
                        if let Pending::Compare(_) = p {
                            body.push(Slot::Compare(k));
                        }
                    }
                }
                ast::Literal::Negative(a, _) => {
                    let rel = resolve(&a.relation)?;
                    let a = rc.lower_atom(rel, a, "a negated atom", &mut pending)?;
                    body.push(Slot::Negative(rel, a));
                }
                // Taken apart where written when an atom before it has typed the variable
                // (so that its fields are bound before the comparisons after it read them),
                // else below, once every positive atom has.
                ast::Literal::Compare(c) if unpacking(c).is_some() => {
                    if !rc.unpack(c, &mut pending, &mut body, false)? {
                        unpack.push(c.clone());
                    }
                }
                ast::Literal::Compare(c) => {
                    pending.push(Pending::Compare(c.clone()));
                    body.push(Slot::Compare(pending.len() - 1));
                }
                ast::Literal::Aggregate(a) => {
                    unreachable!(
                        "aggregates are rewritten before the checks (at {:?})",
                        a.span
                    )
                }
            }
        }
        // `v = [x, y]` (or `$C(x, y) = v`) with `v` of a record type or ADT bound by a positive
        // atom and the pattern naming a variable none binds, or a `_`: a pattern taking `v`
        // apart as a positive atom's would; otherwise a value built and compared.
        for c in unpack {
            rc.unpack(&c, &mut pending, &mut body, true)?;
        }
        let (mut assigns, done) = rc.bind(&pending)?;
        let mut checked_body = Vec::with_capacity(body.len() + assigns.len() + 1);
        checked_body.extend(truth_atom);
        for slot in body {
            match slot {
                Slot::Done(l) => checked_body.push(l),
                Slot::Negative(rel, a) => {
                    checked_body.push(Literal::Negative(rc.atom(rel, &a, false)?));
                }
                Slot::Compare(i) if done[i] => {}
                Slot::Compare(i) => {
                    let Pending::Compare(c) = &pending[i] else {
                        unreachable!("a comparison's slot names a comparison")
                    };
                    match rc.comparison(c, &mut assigns)? {
                        // An equality of a bound variable with an expression checks it as an
                        // assignment, which must come after those binding the expression's
                        // variables (`q(x, y), z = y * 2, x = z + 1`): with the others, last.
                        check @ Literal::Assign { .. } => assigns.push(check),
                        other => checked_body.push(other),
                    }
                }
            }
        }
        // Assignments last, each after those that bind its expression's variables.
        checked_body.extend(assigns);
        let head = rc.head(head_rel, &head_atom, false, &[])?;
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
        let (var_names, var_types) = rc.vars.into_iter().unzip();
        rules.push(Rule {
            head,
            body: checked_body,
            var_names,
            var_types,
            span: rule.span,
        });
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
            value_type: *relations[by_name[&s.name]]
                .types
                .last()
                .expect("an aggregate relation has its value column"),
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

/// The variables written as the argument `t` of a column of type `ty`, or as fields of a
/// record there, with the type each stands for.
fn column_uses(t: &ast::Term, ty: Type, uses: &mut Vec<(String, Type)>) {
    match (t, ty) {
        (ast::Term::Var(id), ty) => uses.push((id.name.clone(), ty)),
        (ast::Term::Record(fields, _), Type::Record(id)) => {
            for (f, (_, fty)) in fields.iter().zip(&crate::records::record_type(id).fields) {
                column_uses(f, *fty, uses);
            }
        }
        (ast::Term::Ctor(name, fields, _), Type::Record(id)) => {
            if let Some((_, branch)) = crate::records::record_type(id).branch(&name.name) {
                for (f, (_, fty)) in fields.iter().zip(&branch.fields) {
                    column_uses(f, *fty, uses);
                }
            }
        }
        _ => {}
    }
}

/// The ADTs the relations' columns reach (through records and other ADTs too).
fn adts_of(relations: &[RelationDecl]) -> Vec<u32> {
    let mut seen: Vec<u32> = Vec::new();
    let mut todo: Vec<Type> = relations.iter().flat_map(|r| r.types.clone()).collect();
    while let Some(ty) = todo.pop() {
        let Type::Record(id) = ty else { continue };
        if seen.contains(&id) {
            continue;
        }
        seen.push(id);
        let rt = crate::records::record_type(id);
        todo.extend(rt.fields.iter().map(|f| f.1));
        todo.extend(
            rt.branches
                .iter()
                .flat_map(|b| b.fields.iter().map(|f| f.1)),
        );
    }
    seen.retain(|&id| crate::records::record_type(id).is_adt());
    seen
}

/// A body literal of a rule being checked, in source order.
enum Slot {
    /// Checked already (a positive atom).
    Done(Literal),
    /// A negated atom, its expressions lowered, checked once every variable is bound.
    Negative(RelId, ast::Atom),
    /// The comparison at this index of the pending list.
    Compare(usize),
}

/// The column types of every relation `program` declares, by name: what the rewritings that
/// run before the checks (aggregates, ranges, negated patterns) type their relations by.
fn declared_types(program: &ast::Program) -> HashMap<String, Vec<Type>> {
    program
        .items
        .iter()
        .filter_map(|item| match item {
            ast::Item::Decl(d) => {
                Some((d.name.name.clone(), d.columns.iter().map(|c| c.1).collect()))
            }
            _ => None,
        })
        .collect()
}

/// For an equality of a variable with a record or constructor (either way round), the two:
/// what may unpack the variable's value (see `check`'s rule loop).
fn unpacking(c: &ast::Comparison) -> Option<(&ast::Ident, &ast::Term)> {
    if c.op != CmpOp::Eq {
        return None;
    }
    match (&c.left, &c.right) {
        (ast::Term::Var(v), p @ (ast::Term::Record(..) | ast::Term::Ctor(..)))
        | (p @ (ast::Term::Record(..) | ast::Term::Ctor(..)), ast::Term::Var(v)) => Some((v, p)),
        _ => None,
    }
}

/// True when a record or constructor pattern holds a `_`, at any depth.
fn pattern_has_wildcard(t: &ast::Term) -> bool {
    match t {
        ast::Term::Wildcard(_) => true,
        ast::Term::Record(args, _) | ast::Term::Ctor(_, args, _) => {
            args.iter().any(pattern_has_wildcard)
        }
        _ => false,
    }
}

/// What waits for variables to be bound before it can be checked.
enum Pending {
    /// `var = expr`: an expression of an atom, lowered to the fresh variable `var`; the
    /// context names where it was written, for messages.
    Assign {
        var: ast::Ident,
        expr: ast::Term,
        context: &'static str,
        /// The column's type, which an integer literal of the expression takes.
        column: Option<Type>,
    },
    /// A comparison as written; an equality may bind a variable.
    Compare(ast::Comparison),
}

/// The context [`RuleChecker::lower_atom`] names a positive body atom by: the one where a
/// record or constructor is a pattern rather than a value built.
const BODY_ATOM: &str = "a body atom";

/// The prefix of the variables the checker makes for expressions: no program can write it.
const FRESH: &str = "$e";

struct RuleChecker<'a> {
    file: &'a SourceFile,
    relations: &'a [RelationDecl],
    symbols: &'a mut Symbols,
    /// Variables bound so far (by positive atoms, then assignments), with their types, in
    /// order of binding.
    vars: Vec<(String, Type)>,
    /// Fresh variables made so far.
    fresh: usize,
    /// Variables of the rule's atoms with their columns' types, for integer literals
    /// assigned to them.
    uses: Vec<(String, Type)>,
    /// The ADTs the program's columns reach, where a constructor's branch is looked up.
    adts: &'a [u32],
}

impl RuleChecker<'_> {
    fn err(&self, span: Span, msg: String, label: &str) -> Diagnostic {
        Diagnostic::new(self.file, span, msg, label)
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
            // A range's generated relations (`check::range`) hold its bounds, then its value,
            // in the order `range(from, to, step)` names them.
            let what = if decl.name.starts_with(crate::syntax::ast::RANGE) {
                format!("argument {} of `range`", i + 1)
            } else {
                format!("column {} of `{}`", i + 1, decl.name)
            };
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

    /// `a` with each expression argument replaced by a fresh variable, whose assignment is
    /// added to `pending`. A record in a positive body atom is a pattern instead: its fresh
    /// variable is bound by the atom, and each field is equated with what the pattern has
    /// there (`p([x, 1])` reads `p($e0), x = $e0.0, 1 = $e0.1`; nested patterns likewise),
    /// so the fields' variables are bound, or checked when bound elsewhere.
    fn lower_atom(
        &mut self,
        rel: RelId,
        a: &ast::Atom,
        context: &'static str,
        pending: &mut Vec<Pending>,
    ) -> Result<ast::Atom, Diagnostic> {
        let mut a = a.clone();
        let pattern = context == BODY_ATOM;
        for (i, t) in a.args.iter_mut().enumerate() {
            if !matches!(
                t,
                ast::Term::Expr(_) | ast::Term::Record(..) | ast::Term::Ctor(..)
            ) {
                continue;
            }
            let column = self.relations[rel].types.get(i).copied();
            let var = self.fresh_var(t.span());
            let expr = std::mem::replace(t, ast::Term::Var(var.clone()));
            match (expr, column) {
                (p @ (ast::Term::Record(..) | ast::Term::Ctor(..)), Some(Type::Record(id)))
                    if pattern =>
                {
                    self.take_apart(&var, id, p, pending)?;
                }
                (expr @ (ast::Term::Record(..) | ast::Term::Ctor(..)), Some(ty))
                    if !matches!(ty, Type::Record(_)) =>
                {
                    return Err(self.err(
                        expr.span(),
                        format!(
                            "type mismatch: column {} of `{}` has type `{}`, not a record type",
                            i + 1,
                            self.relations[rel].name,
                            ty.keyword()
                        ),
                        "a record where no record goes",
                    ));
                }
                (expr, column) => pending.push(Pending::Assign {
                    var,
                    expr,
                    context,
                    column,
                }),
            }
        }
        Ok(a)
    }

    /// A fresh variable, written at `span`.
    fn fresh_var(&mut self, span: Span) -> ast::Ident {
        let var = ast::Ident {
            name: format!("{FRESH}{}", self.fresh),
            span,
        };
        self.fresh += 1;
        var
    }

    /// The equalities that match the record or ADT value held by `var` (of the type `id`)
    /// against `pattern`, a record or a constructor: one per field that is not `_` (a
    /// nested pattern through a fresh variable of its own), and for a constructor one that
    /// its tag is the branch's.
    fn take_apart(
        &mut self,
        var: &ast::Ident,
        id: u32,
        pattern: ast::Term,
        pending: &mut Vec<Pending>,
    ) -> Result<(), Diagnostic> {
        let rt = crate::records::record_type(id);
        let span = pattern.span();
        let field = |i: usize, ty: Type, span: Span| {
            ast::Term::Field(Box::new(ast::Term::Var(var.clone())), i, ty, span)
        };
        let (offset, owner, types, args) = match pattern {
            ast::Term::Record(args, _) if !rt.is_adt() => (0, &rt.name, &rt.fields, args),
            ast::Term::Ctor(name, args, _) if rt.is_adt() => {
                let Some((tag, branch)) = rt.branch(&name.name) else {
                    return Err(self.no_branch(&name, id));
                };
                pending.push(Pending::Compare(ast::Comparison {
                    span,
                    left: ast::Term::Num(tag as i64, span),
                    op: CmpOp::Eq,
                    right: field(0, Type::Number, span),
                }));
                (1, &branch.name, &branch.fields, args)
            }
            other => return Err(self.not_of_kind(&other, id)),
        };
        if types.len() != args.len() {
            return Err(self.record_arity(span, owner, types.len(), args.len()));
        }
        for (i, (f, (fname, fty))) in args.into_iter().zip(types).enumerate() {
            let right = field(offset + i, *fty, f.span());
            let left = match (f, *fty) {
                (ast::Term::Wildcard(_), _) => continue,
                (p @ (ast::Term::Record(..) | ast::Term::Ctor(..)), Type::Record(inner)) => {
                    let nested = self.fresh_var(p.span());
                    self.take_apart(&nested, inner, p, pending)?;
                    ast::Term::Var(nested)
                }
                (p @ (ast::Term::Record(..) | ast::Term::Ctor(..)), ty) => {
                    return Err(self.err(
                        p.span(),
                        format!(
                            "type mismatch: field `{fname}` of `{owner}` has type `{}`, not a record type or ADT",
                            ty.keyword()
                        ),
                        "a record where no record goes",
                    ));
                }
                (f, _) => f,
            };
            pending.push(Pending::Compare(ast::Comparison {
                span: left.span(),
                left,
                op: CmpOp::Eq,
                right,
            }));
        }
        Ok(())
    }

    /// For an equality [`unpacking`] accepts: when its variable has a record type or ADT
    /// and its pattern names a variable not bound yet or a `_`, the equalities taking the
    /// variable's value apart ([`Self::take_apart`]) with their slots; returns false when
    /// the variable's type is not known yet, unless `last`, when the equality is kept as a
    /// comparison then (a value built and compared).
    fn unpack(
        &mut self,
        c: &ast::Comparison,
        pending: &mut Vec<Pending>,
        body: &mut Vec<Slot>,
        last: bool,
    ) -> Result<bool, Diagnostic> {
        let (var, pattern) = unpacking(c).expect("an unpacking equality");
        let ty = self.vars.iter().find(|(n, _)| *n == var.name).map(|v| v.1);
        let mut open = pattern_has_wildcard(pattern);
        pattern.for_each_var(&mut |id| open |= !self.is_bound(&id.name));
        match ty {
            Some(Type::Record(id)) if open => {
                let first = pending.len();
                self.take_apart(var, id, pattern.clone(), pending)?;
                body.extend((first..pending.len()).map(Slot::Compare));
            }
            None if !last => return Ok(false),
            _ => {
                pending.push(Pending::Compare(c.clone()));
                body.push(Slot::Compare(pending.len() - 1));
            }
        }
        Ok(true)
    }

    fn is_bound(&self, name: &str) -> bool {
        self.vars.iter().any(|(n, _)| n == name)
    }

    /// The first variable of `t` not bound yet.
    fn first_unbound<'t>(&self, t: &'t ast::Term) -> Option<&'t ast::Ident> {
        let mut first = None;
        t.for_each_var(&mut |id| {
            if first.is_none() && !self.is_bound(&id.name) {
                first = Some(id);
            }
        });
        first
    }

    /// Binds what `pending` can bind, until nothing more is: an expression's variable once
    /// every variable of the expression is bound, and in an equality `v = t` with `v` a
    /// variable bound nowhere else, `v` once `t`'s variables are. Returns the assignments in
    /// the order made (each after those binding its variables) and which pending items they
    /// settled; an expression left with an unbound variable is an error, named in its
    /// context. A cycle (`x = y + 1, y = x - 1` and nothing else binding them) binds
    /// nothing and is reported so.
    fn bind(&mut self, pending: &[Pending]) -> Result<(Vec<Literal>, Vec<bool>), Diagnostic> {
        let mut assigns = Vec::new();
        let mut done = vec![false; pending.len()];
        loop {
            let mut progress = false;
            for (i, p) in pending.iter().enumerate() {
                if done[i] {
                    continue;
                }
                match p {
                    Pending::Assign {
                        var, expr, column, ..
                    } => {
                        if self.first_unbound(expr).is_none() {
                            assigns.push(self.assign(var, expr, *column)?);
                            done[i] = true;
                        }
                    }
                    Pending::Compare(c) if c.op == CmpOp::Eq => {
                        for (target, value) in [(&c.left, &c.right), (&c.right, &c.left)] {
                            let ast::Term::Var(v) = target else {
                                continue;
                            };
                            if !self.is_bound(&v.name)
                                && !matches!(value, ast::Term::Wildcard(_))
                                && self.first_unbound(value).is_none()
                            {
                                let hint = self
                                    .uses
                                    .iter()
                                    .find(|(n, _)| *n == v.name)
                                    .map(|&(_, ty)| ty);
                                assigns.push(self.assign(v, value, hint)?);
                                done[i] = true;
                                break;
                            }
                        }
                    }
                    Pending::Compare(_) => {}
                }
                progress |= done[i];
            }
            if !progress {
                break;
            }
        }
        for (p, _) in pending.iter().zip(&done).filter(|(_, &d)| !d) {
            if let Pending::Assign {
                var, expr, context, ..
            } = p
            {
                let unbound = self.first_unbound(expr).unwrap_or(var);
                return Err(self.err(
                    unbound.span,
                    format!(
                        "variable `{}` in an expression in {context} is not bound: it occurs \
                         in no positive body atom and no equality binds it",
                        unbound.name
                    ),
                    "not range-restricted",
                ));
            }
        }
        Ok((assigns, done))
    }

    /// `var = expr` with every variable of `expr` bound: binds `var` when it is not, else
    /// checks that the types agree.
    fn assign(
        &mut self,
        var: &ast::Ident,
        expr: &ast::Term,
        column: Option<Type>,
    ) -> Result<Literal, Diagnostic> {
        let bound = self.vars.iter().position(|(n, _)| *n == var.name);
        let hint = bound.map(|v| self.vars[v].1).or(column);
        let (checked, ty) = self.expr(expr, hint)?;
        let v = match bound {
            Some(v) => {
                let vty = self.vars[v].1;
                if vty != ty {
                    let msg = Self::mismatch_message(&var.name, ty, vty);
                    return Err(self.err(expr.span(), msg, "wrong type"));
                }
                v
            }
            None => {
                self.vars.push((var.name.clone(), ty));
                self.vars.len() - 1
            }
        };
        Ok(Literal::Assign {
            var: v,
            expr: checked,
        })
    }

    /// A comparison once every variable that can be bound is: each side that is an
    /// expression becomes a fresh variable computed by an assignment added to `assigns`
    /// (`x = expr` with `x` bound becomes the assignment itself, which then checks).
    fn comparison(
        &mut self,
        c: &ast::Comparison,
        assigns: &mut Vec<Literal>,
    ) -> Result<Literal, Diagnostic> {
        let is_expr = |t: &ast::Term| {
            matches!(
                t,
                ast::Term::Expr(_)
                    | ast::Term::Record(..)
                    | ast::Term::Ctor(..)
                    | ast::Term::Field(..)
            )
        };
        if !is_expr(&c.left) && !is_expr(&c.right) {
            return self.plain_comparison(c);
        }
        // An expression's variable first: the other side may be a variable this equality
        // would bind if the expression's were bound.
        let mut sides = [&c.left, &c.right];
        sides.sort_by_key(|t| !is_expr(t));
        for side in sides {
            if let Some(v) = self.first_unbound(side) {
                return Err(self.err(
                    v.span,
                    format!(
                        "variable `{}` in a comparison does not occur in a positive body atom",
                        v.name
                    ),
                    "not range-restricted",
                ));
            }
        }
        if c.op == CmpOp::Eq {
            for (target, value) in [(&c.left, &c.right), (&c.right, &c.left)] {
                if let (ast::Term::Var(v), true) = (target, is_expr(value)) {
                    return self.assign(v, value, None);
                }
            }
        }
        let mut terms = Vec::with_capacity(2);
        let mut first = None;
        // An integer literal on either side takes the type the other side has.
        let hint = [&c.left, &c.right]
            .into_iter()
            .find_map(|t| self.natural_type(t))
            .or_else(|| Some(exprs::literal_type([&c.left, &c.right])));
        for side in [&c.left, &c.right] {
            let (e, ty) = self.expr(side, hint)?;
            let expected = *first.get_or_insert(ty);
            if ty != expected {
                return Err(self.err(
                    side.span(),
                    format!(
                        "type mismatch: comparing a `{}` with a `{}`",
                        expected.keyword(),
                        ty.keyword()
                    ),
                    "both sides must have the same type",
                ));
            }
            if c.op.is_order() && !ty.is_numeric() {
                return Err(self.order_on(side.span(), c.op, ty));
            }
            terms.push(match e {
                Expr::Term(t) => t,
                e => {
                    let name = format!("{FRESH}{}", self.fresh);
                    self.fresh += 1;
                    self.vars.push((name, ty));
                    let var = self.vars.len() - 1;
                    assigns.push(Literal::Assign { var, expr: e });
                    Term::Var(var)
                }
            });
        }
        Ok(Literal::Compare {
            left: terms[0],
            op: c.op,
            right: terms[1],
        })
    }

    /// The error for the order comparison `op` on values of the type `ty`, not numeric.
    fn order_on(&self, span: Span, op: CmpOp, ty: Type) -> Diagnostic {
        let (what, label) = match ty {
            Type::Record(_) => ("records", "order comparison on records"),
            _ => ("symbols", "order comparison on symbols"),
        };
        self.err(
            span,
            format!(
                "`{}` needs numbers; {what} are only compared with `=` and `!=`",
                op.symbol()
            ),
            label,
        )
    }

    fn plain_comparison(&mut self, c: &ast::Comparison) -> Result<Literal, Diagnostic> {
        let side = |t: &ast::Term| -> Option<Type> {
            match t {
                ast::Term::Str(..) => Some(Type::Symbol),
                ast::Term::Float(..) => Some(Type::Float),
                ast::Term::BigNum(..) => Some(Type::Unsigned),
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
            .or_else(|| side(&c.right))
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
        if c.op.is_order() && !ty.is_numeric() {
            return Err(self.order_on(c.span, c.op, ty));
        }
        Ok(Literal::Compare {
            left: terms[0],
            op: c.op,
            right: terms[1],
        })
    }

    /// The checked head `a`; the columns `computed` (a fact's computed values, put in place
    /// by the caller) are left as a placeholder constant.
    fn head(
        &mut self,
        rel: RelId,
        a: &ast::Atom,
        is_fact: bool,
        computed: &[usize],
    ) -> Result<Atom, Diagnostic> {
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
            // A range's generated relations (`check::range`) hold its bounds, then its value,
            // in the order `range(from, to, step)` names them.
            let what = if decl.name.starts_with(crate::syntax::ast::RANGE) {
                format!("argument {} of `range`", i + 1)
            } else {
                format!("column {} of `{}`", i + 1, decl.name)
            };
            if computed.contains(&i) {
                args.push(Term::Const(0));
                continue;
            }
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
                        let msg = if id.name.starts_with(FRESH) {
                            format!(
                                "type mismatch: this expression is a `{}` but {what} has type `{}`",
                                vty.keyword(),
                                ty.keyword()
                            )
                        } else {
                            format!(
                                "type mismatch: `{}` is a `{}` in the body but {what} has type `{}`",
                                id.name,
                                vty.keyword(),
                                ty.keyword()
                            )
                        };
                        return Err(self.err(id.span, msg, "wrong type in head"));
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
