//! Magic-set rewriting: from a program and a query atom with some arguments bound
//! (`path("a", y)`), an ordinary program that derives only what the query needs.
//!
//! Adornments mark each argument bound (`b`) or free (`f`). Sideways information passes left
//! to right through each rule body; there are no supplementary relations. For every adorned
//! derived relation `p_α` reached from the query:
//! - each rule `p(..) :- L1, ..., Ln.` becomes `p_α(..) :- magic_p_α(bound head args), L1', ..., Ln'.`
//!   where a derived positive atom `r(..)` becomes `r_β(..)`, β its adornment given what is
//!   bound before it;
//! - each such atom adds a demand rule `magic_r_β(its bound args) :- magic_p_α(..), L1', ..., L(i-1)'.`
//!   (comparisons and negations among the preceding literals are kept when their variables are
//!   bound there, dropped otherwise — dropping a filter only widens demand);
//! - each program fact `p(c..).` becomes `p_α(c..) :- magic_p_α(c at bound positions).`;
//! - the query seeds the demand: `magic_q_α(query constants).`
//!
//! Negated derived atoms are not rewritten: the relation they name, and everything it depends
//! on, is kept with its original rules, which keeps the result stratified. Rules whose body
//! contains their own head (`magic_p_bf(x) :- magic_p_bf(x).`) are dropped as tautologies.
//! The result is printed as program text and checked like any program, so every engine runs
//! it unchanged and users can read it (`dredbench rewrite`).

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use crate::check::load_program;
use crate::diagnostic::{Diagnostic, SourceFile, Span};
use crate::engine::Model;
use crate::program::{Literal, Program, RelId, Rule, Term};
use crate::syntax::ast::{self, CmpOp, Type};
use crate::value::{Symbols, Tuple, Value};

/// One argument of a query.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum QueryArg {
    /// A constant: the argument is bound.
    Const(Value),
    /// A named variable: free. Repeated names must take equal values.
    Var(String),
    /// `_`: free, unconstrained.
    Wildcard,
}

/// A checked query atom over a derived relation of a program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Query {
    /// The queried relation.
    pub rel: RelId,
    /// One argument per column, constants type-checked.
    pub args: Vec<QueryArg>,
    /// The query as written.
    pub text: String,
}

impl Query {
    /// `b` for each bound (constant) argument, `f` otherwise.
    pub fn adornment(&self) -> String {
        self.args
            .iter()
            .map(|a| {
                if matches!(a, QueryArg::Const(_)) {
                    'b'
                } else {
                    'f'
                }
            })
            .collect()
    }

    /// True when the tuple matches the query: equal constants, equal values for a repeated
    /// variable.
    pub fn matches(&self, tuple: &[Value]) -> bool {
        let mut seen: BTreeMap<&str, Value> = BTreeMap::new();
        self.args.iter().zip(tuple).all(|(a, &v)| match a {
            QueryArg::Const(c) => *c == v,
            QueryArg::Var(name) => *seen.entry(name).or_insert(v) == v,
            QueryArg::Wildcard => true,
        })
    }
}

/// Parses and checks a query such as `path("a", y)` against a program. Errors name the query
/// (as file `--query`), the column, and what is wrong: unknown relation, wrong arity, wrong
/// constant type, or a query on an `.input` relation (which has nothing to derive).
pub fn parse_query(
    text: &str,
    program: &Program,
    symbols: &mut Symbols,
) -> Result<Query, Diagnostic> {
    let (rel, args, _) = parse_atom_arg(
        CliAtom {
            flag: "--query",
            what: "query",
            shape: "a query is one atom, such as path(\"a\", y)",
            derived_only: true,
        },
        text,
        program,
        symbols,
    )?;
    Ok(Query {
        rel,
        args: args.into_iter().map(|(a, _)| a).collect(),
        text: text.trim().to_string(),
    })
}

/// What an atom given on the command line is called in its errors, and what it may name.
pub(crate) struct CliAtom {
    /// The option, which names the text in errors (`--query`).
    pub(crate) flag: &'static str,
    /// The word for it in messages (`query`).
    pub(crate) what: &'static str,
    /// The message for a text that is not one atom.
    pub(crate) shape: &'static str,
    /// Refuse `.input` relations (a query has nothing to derive from them).
    pub(crate) derived_only: bool,
}

/// What [`parse_atom_arg`] gives: the relation, each argument with its span, and the text as
/// the file errors are located in.
pub(crate) type ParsedAtom = (RelId, Vec<(QueryArg, Span)>, SourceFile);

/// Parses one atom given on the command line against a program: a single atom of a declared
/// relation (derived, with `derived_only`), with its arity, constants of the columns' types,
/// variables and `_`. Returns the relation, each argument with its span, and the text as the
/// file errors are located in (named `kind.flag`).
pub(crate) fn parse_atom_arg(
    kind: CliAtom,
    text: &str,
    program: &Program,
    symbols: &mut Symbols,
) -> Result<ParsedAtom, Diagnostic> {
    let file = SourceFile::new(kind.flag, format!("{}.", text.trim().trim_end_matches('.')));
    let err = |span: Span, msg: String, label: &str| Diagnostic::new(&file, span, msg, label);
    let parsed = crate::syntax::parse(&file)?;
    let atom = match parsed.items.as_slice() {
        [ast::Item::Rule(r)] if r.body.is_empty() => r.head.clone(),
        _ => {
            return Err(err(
                Span::new(0, file.text.len()),
                kind.shape.into(),
                "not a single atom",
            ))
        }
    };
    let Some(rel) = program.relation_id(&atom.relation.name) else {
        return Err(err(
            atom.relation.span,
            format!(
                "relation `{}` is not declared in the program",
                atom.relation.name
            ),
            "unknown relation",
        ));
    };
    let decl = &program.relations[rel];
    if kind.derived_only && decl.input {
        return Err(err(
            atom.relation.span,
            format!(
                "`{}` is an `.input` relation: query a derived relation",
                decl.name
            ),
            "nothing to derive",
        ));
    }
    if atom.args.len() != decl.arity() {
        return Err(err(
            atom.span,
            format!(
                "`{}` has {} column(s) but the {} has {} argument(s)",
                decl.name,
                decl.arity(),
                kind.what,
                atom.args.len()
            ),
            "wrong arity",
        ));
    }
    let mut args = Vec::new();
    for (i, (t, &ty)) in atom.args.iter().zip(&decl.types).enumerate() {
        let arg = match (t, ty) {
            (ast::Term::Var(id), _) => QueryArg::Var(id.name.clone()),
            (ast::Term::Wildcard(_), _) => QueryArg::Wildcard,
            (ast::Term::Str(s, _), Type::Symbol) => QueryArg::Const(symbols.intern(s)),
            (ast::Term::Num(n, _), Type::Number) => QueryArg::Const(*n),
            (ast::Term::Num(n, _), Type::Unsigned) if *n >= 0 => {
                QueryArg::Const(crate::value::encode_unsigned(*n as u64))
            }
            (ast::Term::Num(n, _), Type::Float) => {
                QueryArg::Const(crate::value::encode_float(*n as f64))
            }
            (ast::Term::BigNum(n, _), Type::Unsigned) => {
                QueryArg::Const(crate::value::encode_unsigned(*n))
            }
            (ast::Term::Float(bits, _), Type::Float) => {
                QueryArg::Const(crate::value::encode_float(f64::from_bits(*bits)))
            }
            (c, _) => {
                return Err(err(
                    c.span(),
                    format!(
                        "type mismatch: column {} of `{}` has type `{}`",
                        i + 1,
                        decl.name,
                        ty.keyword()
                    ),
                    "wrong constant type",
                ))
            }
        };
        args.push((arg, t.span()));
    }
    Ok((rel, args, file))
}

/// The rewritten program and how to read the query's answers from its model.
#[derive(Debug)]
pub struct MagicProgram {
    /// The generated program text, as `dredbench rewrite` prints it.
    pub text: String,
    /// The generated program, checked.
    pub program: Program,
    /// The adorned query relation in `program`.
    pub answer_rel: RelId,
    /// The query (its relation id refers to the original program).
    pub query: Query,
}

impl MagicProgram {
    /// The query's answers in a model of the generated program: the tuples of the adorned
    /// query relation that match the query, sorted.
    pub fn answers(&self, model: &Model) -> Vec<Tuple> {
        model.relations[self.answer_rel]
            .iter()
            .filter(|t| self.query.matches(t))
            .cloned()
            .collect()
    }
}

/// Bound (`b`) / free (`f`) per column.
type Adornment = Vec<bool>;

fn adornment_text(a: &Adornment) -> String {
    if a.is_empty() {
        return "0".into();
    }
    a.iter().map(|&b| if b { 'b' } else { 'f' }).collect()
}

struct Writer<'a> {
    program: &'a Program,
    symbols: &'a Symbols,
    taken: BTreeSet<String>,
    names: BTreeMap<(RelId, Adornment, bool), String>,
}

impl Writer<'_> {
    /// Name of the adorned (`magic == false`) or demand relation, unique in the program.
    fn name(&mut self, rel: RelId, a: &Adornment, magic: bool) -> String {
        if let Some(n) = self.names.get(&(rel, a.clone(), magic)) {
            return n.clone();
        }
        // The checker's `$true` (rules without a positive atom) cannot be written in a
        // program: its adorned copy is named without the `$`, made unique below.
        let base = self.program.relations[rel].name.trim_start_matches('$');
        let mut n = if magic {
            format!("magic_{base}_{}", adornment_text(a))
        } else {
            format!("{base}_{}", adornment_text(a))
        };
        while self.taken.contains(&n) {
            n.push('_');
        }
        self.taken.insert(n.clone());
        self.names.insert((rel, a.clone(), magic), n.clone());
        n
    }

    fn term(&self, rule: Option<&Rule>, t: Term, ty: Type) -> String {
        match t {
            Term::Var(v) => rule.map_or_else(|| format!("v{v}"), |r| r.var_names[v].clone()),
            Term::Wildcard => "_".into(),
            Term::Const(c) => self.symbols.display(ty, c),
        }
    }

    fn atom(&self, rule: Option<&Rule>, name: &str, rel: RelId, args: &[Term]) -> String {
        let types = &self.program.relations[rel].types;
        let a: Vec<String> = args
            .iter()
            .zip(types)
            .map(|(t, &ty)| self.term(rule, *t, ty))
            .collect();
        format!("{name}({})", a.join(", "))
    }

    fn bound_args(args: &[Term], a: &Adornment) -> Vec<Term> {
        args.iter()
            .zip(a)
            .filter(|(_, &b)| b)
            .map(|(t, _)| *t)
            .collect()
    }

    /// A magic atom: the demand relation of `rel` with adornment `a`, over the bound `args`.
    fn magic_atom(
        &mut self,
        rule: Option<&Rule>,
        rel: RelId,
        a: &Adornment,
        args: &[Term],
    ) -> String {
        let name = self.name(rel, a, true);
        let types: Vec<Type> = self.program.relations[rel]
            .types
            .iter()
            .zip(a)
            .filter(|(_, &b)| b)
            .map(|(t, _)| *t)
            .collect();
        let bound = Self::bound_args(args, a);
        let parts: Vec<String> = bound
            .iter()
            .zip(&types)
            .map(|(t, &ty)| self.term(rule, *t, ty))
            .collect();
        format!("{name}({})", parts.join(", "))
    }
}

fn var_types(rule: &Rule, program: &Program) -> BTreeMap<usize, Type> {
    let mut m = BTreeMap::new();
    for a in rule.positive_atoms() {
        for (t, &ty) in a.args.iter().zip(&program.relations[a.rel].types) {
            if let Term::Var(v) = t {
                m.insert(*v, ty);
            }
        }
    }
    m
}

fn literal_vars(l: &Literal) -> Vec<usize> {
    let terms: Vec<Term> = match l {
        Literal::Positive(a) | Literal::Negative(a) => a.args.clone(),
        Literal::Compare { left, right, .. } => vec![*left, *right],
        Literal::Assign { .. } => unreachable!("programs with assignments are refused"),
    };
    terms
        .into_iter()
        .filter_map(|t| match t {
            Term::Var(v) => Some(v),
            _ => None,
        })
        .collect()
}

fn cmp_text(
    w: &Writer<'_>,
    rule: &Rule,
    types: &BTreeMap<usize, Type>,
    l: Term,
    op: CmpOp,
    r: Term,
) -> String {
    let ty = [l, r]
        .iter()
        .find_map(|t| match t {
            Term::Var(v) => types.get(v).copied(),
            _ => None,
        })
        .unwrap_or(Type::Number);
    format!(
        "{} {} {}",
        w.term(Some(rule), l, ty),
        op.symbol(),
        w.term(Some(rule), r, ty)
    )
}

/// Rewrites `program` for `query`. The symbols of the program must be in `symbols`.
pub fn rewrite(
    program: &Program,
    query: &Query,
    symbols: &mut Symbols,
) -> Result<MagicProgram, Diagnostic> {
    // The rewritten program is printed and parsed again: an `.input` `eqrel` relation's EDB
    // part (`@eqrel_r`, read as `r`) has no spelling in it.
    if let Some(decl) = program.relations.iter().find(|d| d.facts_name.is_some()) {
        return Err(Diagnostic::new(
            &program.source,
            decl.span,
            format!(
                "`--query` does not rewrite programs with an `.input` `eqrel` relation (`{}`)",
                decl.facts_name()
            ),
            "declare the pairs in an input relation of their own and derive the `eqrel` from it",
        ));
    }
    if let Some(agg) = program.aggregates.first() {
        return Err(Diagnostic::new(
            &program.source,
            agg.span,
            "`--query` does not rewrite programs with aggregates",
            "magic sets here cover Datalog with stratified negation",
        ));
    }
    // The rewritten program is printed and parsed again, and the variables the checker
    // made for expressions (`$eN`) have no spelling in it.
    if let Some(rule) = program
        .rules
        .iter()
        .find(|r| r.body.iter().any(|l| matches!(l, Literal::Assign { .. })))
    {
        return Err(Diagnostic::new(
            &program.source,
            rule.span,
            "`--query` does not rewrite programs with arithmetic or equalities that bind a variable",
            "magic sets here cover Datalog with comparisons and stratified negation",
        ));
    }
    let mut w = Writer {
        program,
        symbols: &*symbols,
        taken: program.relations.iter().map(|r| r.name.clone()).collect(),
        names: BTreeMap::new(),
    };
    let q_adorn: Adornment = query
        .args
        .iter()
        .map(|a| matches!(a, QueryArg::Const(_)))
        .collect();
    let mut rules: Vec<(String, String)> = Vec::new(); // (comment, rule text)
    let mut seen_rules = BTreeSet::new();
    let mut push =
        |comment: String, head: String, body: Vec<String>, rules: &mut Vec<(String, String)>| {
            if body.contains(&head) {
                return; // A tautology: its head is one of its own body atoms.
            }
            let text = if body.is_empty() {
                format!("{head}.")
            } else {
                format!("{head} :- {}.", body.join(", "))
            };
            if seen_rules.insert(text.clone()) {
                rules.push((comment, text));
            }
        };

    // Relations kept unrewritten because a negated atom reads them, with all they depend on.
    let mut keep: BTreeSet<RelId> = BTreeSet::new();
    let mut done: BTreeSet<(RelId, Adornment)> = BTreeSet::new();
    let mut queue: VecDeque<(RelId, Adornment)> = VecDeque::new();
    queue.push_back((query.rel, q_adorn.clone()));
    done.insert((query.rel, q_adorn.clone()));
    let mut negated: Vec<RelId> = Vec::new();

    while let Some((p, alpha)) = queue.pop_front() {
        let adorned = w.name(p, &alpha, false);
        for rule in program.rules.iter().filter(|r| r.head.rel == p) {
            let (line, _) = program.source.line_col(rule.span.start);
            let origin = format!(
                "{} line {line}",
                program.source.locate(rule.span.start).0.name
            );
            let types = var_types(rule, program);
            let mut bound: BTreeSet<usize> = BTreeSet::new();
            for (t, &b) in rule.head.args.iter().zip(&alpha) {
                if let (Term::Var(v), true) = (t, b) {
                    bound.insert(*v);
                }
            }
            let magic_head = w.magic_atom(Some(rule), p, &alpha, &rule.head.args);
            let mut body = vec![magic_head.clone()];
            // Literals already placed, with the variables bound once they hold.
            let mut placed: Vec<(String, Vec<usize>, bool)> = Vec::new();
            for lit in &rule.body {
                match lit {
                    Literal::Positive(a) if program.is_idb(a.rel) => {
                        let beta: Adornment = a
                            .args
                            .iter()
                            .map(|t| match t {
                                Term::Const(_) => true,
                                Term::Var(v) => bound.contains(v),
                                Term::Wildcard => false,
                            })
                            .collect();
                        if done.insert((a.rel, beta.clone())) {
                            queue.push_back((a.rel, beta.clone()));
                        }
                        // Demand for this atom: what is bound before it.
                        let demand_head = w.magic_atom(Some(rule), a.rel, &beta, &a.args);
                        let mut demand_body = vec![magic_head.clone()];
                        for (text, vars, positive) in &placed {
                            if *positive || vars.iter().all(|v| bound.contains(v)) {
                                demand_body.push(text.clone());
                            }
                        }
                        push(
                            format!("demand for {} from {origin}", program.relations[a.rel].name),
                            demand_head,
                            demand_body,
                            &mut rules,
                        );
                        let name = w.name(a.rel, &beta, false);
                        let text = w.atom(Some(rule), &name, a.rel, &a.args);
                        body.push(text.clone());
                        placed.push((text, literal_vars(lit), true));
                        bound.extend(literal_vars(lit));
                    }
                    Literal::Positive(a) => {
                        let name = program.relations[a.rel].name.clone();
                        let text = w.atom(Some(rule), &name, a.rel, &a.args);
                        body.push(text.clone());
                        placed.push((text, literal_vars(lit), true));
                        bound.extend(literal_vars(lit));
                    }
                    Literal::Negative(a) => {
                        if program.is_idb(a.rel) {
                            negated.push(a.rel);
                        }
                        let name = program.relations[a.rel].name.clone();
                        let text = format!("!{}", w.atom(Some(rule), &name, a.rel, &a.args));
                        body.push(text.clone());
                        placed.push((text, literal_vars(lit), false));
                    }
                    Literal::Compare { left, op, right } => {
                        let text = cmp_text(&w, rule, &types, *left, *op, *right);
                        body.push(text.clone());
                        placed.push((text, literal_vars(lit), false));
                    }
                    Literal::Assign { .. } => {
                        unreachable!("programs with assignments are refused")
                    }
                }
            }
            let head = w.atom(Some(rule), &adorned, p, &rule.head.args);
            push(
                format!("{} from {origin}", program.relations[p].name),
                head,
                body,
                &mut rules,
            );
        }
        for fact in program.facts.iter().filter(|f| f.rel == p) {
            let args: Vec<Term> = fact.tuple.iter().map(|&v| Term::Const(v)).collect();
            let (line, _) = program.source.line_col(fact.span.start);
            let from = &program.source.locate(fact.span.start).0.name;
            let head = w.atom(None, &adorned, p, &args);
            let magic = w.magic_atom(None, p, &alpha, &args);
            push(
                format!(
                    "fact of {} from {from} line {line}",
                    program.relations[p].name
                ),
                head,
                vec![magic],
                &mut rules,
            );
        }
    }

    // Negated relations keep their original definitions, closed under dependency.
    let mut stack = negated;
    while let Some(r) = stack.pop() {
        if !keep.insert(r) {
            continue;
        }
        for rule in program.rules.iter().filter(|x| x.head.rel == r) {
            for a in rule.body.iter().filter_map(|l| match l {
                Literal::Positive(a) | Literal::Negative(a) => Some(a),
                Literal::Compare { .. } | Literal::Assign { .. } => None,
            }) {
                if program.is_idb(a.rel) {
                    stack.push(a.rel);
                }
            }
        }
    }
    for &r in &keep {
        for rule in program.rules.iter().filter(|x| x.head.rel == r) {
            let types = var_types(rule, program);
            let head = w.atom(Some(rule), &program.relations[r].name, r, &rule.head.args);
            let body = rule
                .body
                .iter()
                .map(|l| match l {
                    Literal::Positive(a) => {
                        w.atom(Some(rule), &program.relations[a.rel].name, a.rel, &a.args)
                    }
                    Literal::Negative(a) => format!(
                        "!{}",
                        w.atom(Some(rule), &program.relations[a.rel].name, a.rel, &a.args)
                    ),
                    Literal::Compare { left, op, right } => {
                        cmp_text(&w, rule, &types, *left, *op, *right)
                    }
                    Literal::Assign { .. } => {
                        unreachable!("programs with assignments are refused")
                    }
                })
                .collect();
            push(
                format!("{} (kept: read under negation)", program.relations[r].name),
                head,
                body,
                &mut rules,
            );
        }
        for fact in program.facts.iter().filter(|f| f.rel == r) {
            let args: Vec<Term> = fact.tuple.iter().map(|&v| Term::Const(v)).collect();
            let head = w.atom(None, &program.relations[r].name, r, &args);
            push(
                format!("{} (kept)", program.relations[r].name),
                head,
                Vec::new(),
                &mut rules,
            );
        }
    }

    // The demand seed.
    let seed_args: Vec<Term> = query
        .args
        .iter()
        .map(|a| match a {
            QueryArg::Const(c) => Term::Const(*c),
            _ => Term::Wildcard,
        })
        .collect();
    let seed = w.magic_atom(None, query.rel, &q_adorn, &seed_args);

    // Declarations.
    let mut text = format!(
        "// Magic-set rewrite of {} for the query {}\n// (left-to-right sideways information passing, no supplementary relations).\n\n",
        program.source.name, query.text
    );
    let decl = |name: &str, types: &[Type]| {
        let cols: Vec<String> = types
            .iter()
            .enumerate()
            .map(|(i, t)| format!("c{i}: {}", t.keyword()))
            .collect();
        format!(".decl {name}({})\n", cols.join(", "))
    };
    for (rel, d) in program.relations.iter().enumerate() {
        if d.input {
            text.push_str(&decl(&d.name, &d.types));
            text.push_str(&format!(".input {}\n", d.name));
        } else if keep.contains(&rel) {
            text.push_str(&decl(&d.name, &d.types));
            text.push_str(&format!(".output {}\n", d.name));
        }
    }
    let generated: Vec<((RelId, Adornment, bool), String)> = w
        .names
        .iter()
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    for ((rel, a, magic), name) in &generated {
        let types: Vec<Type> = if *magic {
            program.relations[*rel]
                .types
                .iter()
                .zip(a)
                .filter(|(_, &b)| b)
                .map(|(t, _)| *t)
                .collect()
        } else {
            program.relations[*rel].types.clone()
        };
        text.push_str(&decl(name, &types));
        text.push_str(&format!(".output {name}\n"));
    }
    text.push_str(&format!(
        "\n// seed: the query's bound arguments\n{seed}.\n"
    ));
    for (comment, rule) in &rules {
        text.push_str(&format!("\n// {comment}\n{rule}\n"));
    }

    let answer_name = w.names[&(query.rel, q_adorn, false)].clone();
    let source = SourceFile::new(format!("<magic rewrite for {}>", query.text), text.clone());
    let generated_program = load_program(&source, symbols)?;
    let answer_rel = generated_program
        .relation_id(&answer_name)
        .expect("the adorned query relation is declared");
    Ok(MagicProgram {
        text,
        program: generated_program,
        answer_rel,
        query: query.clone(),
    })
}

#[cfg(test)]
mod tests;
