//! Recursive-descent parser from tokens to [`ast::Program`].
//!
//! Some Soufflé constructs are rewritten here into the core the checker knows, with the same
//! meaning: declared types (`.type` subtypes, aliases and unions, `.number_type`,
//! `.symbol_type`) resolve to their base type `symbol` or `number`; a rule with several heads
//! becomes one rule per head; a body with disjunctions (`;`, parentheses) becomes one rule per
//! alternative of its disjunctive normal form. Arithmetic is parsed into expression terms
//! ([`Expr`]) that the checker turns into assignments, string functors among them; the
//! constraints `contains(sub, s)` and `match(pattern, s)` (and their negations `!contains`,
//! `!match`) become comparisons of the functor's 0-or-1 value with 0. Constructs still
//! unsupported (the functor `range`) are refused with a located error rather
//! than misread; `eqrel` is read into [`Decl::eqrel`] for the checker to rewrite. Components (`.comp`, `.init`) are read here and expanded by
//! [`components`](super::components) before types are resolved.
//!
//! The file is longer than most: it is the whole grammar, one recursive-descent parser whose
//! methods share one token cursor (its tests are in `parser_tests.rs`).

use std::collections::HashMap;

use super::ast::*;
use super::components::{self, CompDecl, CompRef, Init, RawDecl, RawItem, TypeDecl, TypeDef};
use super::lexer::{lex, Tok};
use crate::diagnostic::{Diagnostic, SourceFile, Span};

/// `rule` with each aggregate written as a term replaced by a fresh variable `@aggtN`, bound by
/// the aggregate as a body literal of the body it stands in (the rule's, or the braces of
/// the aggregate it is nested in): `r(count : { a(_) }).` reads
/// `r(@aggt0) :- @aggt0 = count : { a(_) }.`, as Soufflé means it. Each `range(..)` likewise
/// becomes a fresh variable `@rangetN` bound by an atom of [`RANGE`] in the body it stands in:
/// `r(x) :- x = range(0, n), s(n).` reads `r(x) :- x = @ranget0, s(n), @range(0, n, @ranget0).`
fn lift_terms(rule: &mut Rule) {
    fn lift(t: &mut Term, fresh: &mut usize, out: &mut Vec<Literal>) {
        match t {
            Term::Aggregate(agg) => {
                let var = Ident {
                    name: format!("@aggt{fresh}"),
                    span: agg.span,
                };
                *fresh += 1;
                let mut agg = std::mem::replace(t, Term::Var(var.clone()));
                let Term::Aggregate(a) = &mut agg else {
                    unreachable!("matched an aggregate")
                };
                if let Some(target) = &mut a.target {
                    lift(target, fresh, out);
                }
                lift_body(&mut a.body, fresh);
                a.result = Term::Var(var);
                let Term::Aggregate(a) = agg else {
                    unreachable!("matched an aggregate")
                };
                out.push(Literal::Aggregate(*a));
            }
            Term::Range(..) => {
                let Term::Range(mut args, span) =
                    std::mem::replace(t, Term::Wildcard(Span::default()))
                else {
                    unreachable!("matched a range")
                };
                args.iter_mut().for_each(|a| lift(a, fresh, out));
                let var = Ident {
                    name: format!("@ranget{fresh}"),
                    span,
                };
                *fresh += 1;
                *t = Term::Var(var.clone());
                args.push(Term::Var(var));
                out.push(Literal::Positive(Atom {
                    relation: Ident {
                        name: RANGE.to_string(),
                        span,
                    },
                    args,
                    span,
                }));
            }
            Term::Expr(e) => e.args.iter_mut().for_each(|a| lift(a, fresh, out)),
            Term::Record(args, _) | Term::Ctor(_, args, _) => {
                args.iter_mut().for_each(|a| lift(a, fresh, out))
            }
            _ => {}
        }
    }
    fn lift_body(body: &mut Vec<Literal>, fresh: &mut usize) {
        let mut lifted = Vec::new();
        for lit in body.iter_mut() {
            match lit {
                Literal::Positive(a) | Literal::Negative(a, _) => {
                    a.args.iter_mut().for_each(|t| lift(t, fresh, &mut lifted))
                }
                Literal::Compare(c) => {
                    lift(&mut c.left, fresh, &mut lifted);
                    lift(&mut c.right, fresh, &mut lifted);
                }
                Literal::Aggregate(a) => {
                    if let Some(target) = &mut a.target {
                        lift(target, fresh, &mut lifted);
                    }
                    lift_body(&mut a.body, fresh);
                }
            }
        }
        body.extend(lifted);
    }
    let mut fresh = 0;
    let mut lifted = Vec::new();
    rule.head
        .args
        .iter_mut()
        .for_each(|t| lift(t, &mut fresh, &mut lifted));
    lift_body(&mut rule.body, &mut fresh);
    rule.body.extend(lifted);
}

/// An expression term of `op` over `args`, spanning them.
fn expr(op: ArithOp, args: Vec<Term>) -> Term {
    let span = args[0].span().to(args[args.len() - 1].span());
    Term::Expr(Box::new(Expr { op, args, span }))
}

/// Alternatives a rule's body may expand to; past this the disjunctions are refused rather
/// than multiplied out.
pub const MAX_ALTERNATIVES: usize = 4096;

/// Parses a whole program file, its includes spliced in first (`.include "f"`,
/// `#include "f"`, read relative to the including file); the program's file is then the spliced
/// text, whose positions map back to the files they come from.
pub fn parse(file: &SourceFile) -> Result<Program, Diagnostic> {
    let file = &super::include::expand(file)?;
    let toks = lex(file)?;
    let mut p = Parser {
        file,
        toks,
        pos: 0,
        types: HashMap::new(),
        columns: Vec::new(),
        record_ids: HashMap::new(),
        depth: 0,
    };
    let mut raw = Vec::new();
    while !p.at_end() {
        p.item(&mut raw)?;
    }
    let flat = components::expand(file, raw)?;
    let items = p.finish(flat)?;
    Ok(Program {
        file: file.clone(),
        items,
    })
}

struct Parser<'a> {
    file: &'a SourceFile,
    toks: Vec<(Tok, Span)>,
    pos: usize,
    /// Declared types by name, with the span of their declaration.
    types: HashMap<String, (TypeDef, Span)>,
    /// (item, column, type as written) of every declared column, resolved once every `.type`
    /// is known (Soufflé allows a type to be used before its declaration).
    columns: Vec<(usize, usize, Ident)>,
    /// The registry index of each record type (`crate::records`), by name: set once every
    /// `.type` is read.
    record_ids: HashMap<String, u32>,
    /// How deep the terms and formulas being read nest ([`MAX_NESTING`]).
    depth: usize,
}

/// How deep terms and parenthesised formulas may nest: the parser (and the checker after it)
/// recurse once per level, and a program nesting deeper is refused with a located error
/// rather than overflowing the stack.
const MAX_NESTING: usize = 256;

type PResult<T> = Result<T, Diagnostic>;

impl Parser<'_> {
    fn at_end(&self) -> bool {
        self.pos >= self.toks.len()
    }

    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.pos).map(|(t, _)| t)
    }

    fn peek_at(&self, k: usize) -> Option<&Tok> {
        self.toks.get(self.pos + k).map(|(t, _)| t)
    }

    fn span(&self) -> Span {
        match self.toks.get(self.pos) {
            Some((_, s)) => *s,
            None => {
                let end = self.file.text.len();
                Span::new(end, end)
            }
        }
    }

    fn prev_span(&self) -> Span {
        self.toks[self.pos.saturating_sub(1)].1
    }

    fn bump(&mut self) -> (Tok, Span) {
        let t = self.toks[self.pos].clone();
        self.pos += 1;
        t
    }

    fn error(
        &self,
        span: Span,
        message: impl Into<String>,
        label: impl Into<String>,
    ) -> Diagnostic {
        Diagnostic::new(self.file, span, message, label)
    }

    fn unexpected(&self, expected: &str) -> Diagnostic {
        match self.peek() {
            Some(t) => self.error(
                self.span(),
                format!("expected {expected}, found {}", t.describe()),
                format!("expected {expected}"),
            ),
            None => self.error(
                self.span(),
                format!("expected {expected}, found end of file"),
                format!("expected {expected}"),
            ),
        }
    }

    fn expect(&mut self, tok: Tok, expected: &str) -> PResult<Span> {
        if self.peek() == Some(&tok) {
            Ok(self.bump().1)
        } else {
            Err(self.unexpected(expected))
        }
    }

    fn ident(&mut self, expected: &str) -> PResult<Ident> {
        match self.peek() {
            Some(Tok::Ident(_)) => {
                let (Tok::Ident(name), span) = self.bump() else {
                    unreachable!("peeked an identifier")
                };
                Ok(Ident { name, span })
            }
            _ => Err(self.unexpected(expected)),
        }
    }

    /// A name, qualified by instances (`inst.sub.rel`) when its parts are written together:
    /// `.` with a space around it ends a rule or starts a directive instead.
    fn qualified_name(&mut self, expected: &str) -> PResult<Ident> {
        let mut name = self.ident(expected)?;
        while let (Some(Tok::Dot), Some(Tok::Ident(_))) = (self.peek(), self.peek_at(1)) {
            let dot = self.span();
            let next = self.toks[self.pos + 1].1;
            if dot.start != name.span.end || next.start != dot.end {
                break;
            }
            self.bump();
            let part = self.ident(expected)?;
            name.name = format!("{}.{}", name.name, part.name);
            name.span = name.span.to(part.span);
        }
        Ok(name)
    }

    /// True when a qualified name followed by `(` starts here: an atom.
    fn at_atom(&self) -> bool {
        let mut k = 0;
        loop {
            match (self.peek_at(k), self.peek_at(k + 1)) {
                (Some(Tok::Ident(_)), Some(Tok::LParen)) => return true,
                (Some(Tok::Ident(_)), Some(Tok::Dot)) => k += 2,
                _ => return false,
            }
        }
    }

    fn item(&mut self, items: &mut Vec<RawItem>) -> PResult<()> {
        if self.peek() == Some(&Tok::Dot) {
            return self.directive(items);
        }
        let rules = self.rule()?;
        items.extend(rules.into_iter().map(RawItem::Rule));
        Ok(())
    }

    /// The items of the expanded program, with every column's type resolved.
    fn finish(&mut self, flat: Vec<RawItem>) -> PResult<Vec<Item>> {
        let mut items = Vec::with_capacity(flat.len());
        for raw in flat {
            items.push(match raw {
                RawItem::Decl(d) => {
                    for (col, ty) in d.column_types.into_iter().enumerate() {
                        self.columns.push((items.len(), col, ty));
                    }
                    Item::Decl(d.decl)
                }
                RawItem::Type(t) => {
                    self.declare_type(t)?;
                    continue;
                }
                RawItem::Input(id) => Item::Input(id),
                RawItem::Output(id) => Item::Output(id),
                RawItem::PrintSize(id) => Item::PrintSize(id),
                RawItem::Rule(r) => Item::Rule(r),
                RawItem::Comp(_) | RawItem::Init(_) | RawItem::Override(_) => {
                    unreachable!("components are expanded before types are resolved")
                }
            });
        }
        self.register_record_types()?;
        self.resolve_columns(&mut items)?;
        Ok(items)
    }

    /// Registers the program's record types as one group (`crate::records::register`), in
    /// the order declared, each field's type resolved.
    fn register_record_types(&mut self) -> PResult<()> {
        let mut names: Vec<(String, Span)> = self
            .types
            .iter()
            .filter(|(_, (d, _))| matches!(d, TypeDef::Record(_) | TypeDef::Adt(_)))
            .map(|(n, (_, span))| (n.clone(), *span))
            .collect();
        if names.is_empty() {
            return Ok(());
        }
        names.sort_by_key(|(_, span)| span.start);
        // Indices within the group first: fields refer to the group's types by them.
        self.record_ids = names
            .iter()
            .enumerate()
            .map(|(i, (n, _))| (n.clone(), i as u32))
            .collect();
        let mut group = Vec::with_capacity(names.len());
        // Branch names are global, as in Soufflé: a constructor names its type.
        let mut branch_names: HashMap<String, String> = HashMap::new();
        for (name, _) in &names {
            let mut rt = crate::records::RecordType {
                name: name.clone(),
                fields: Vec::new(),
                branches: Vec::new(),
            };
            match &self.types[name].0 {
                TypeDef::Record(fields) => rt.fields = self.resolve_fields(name, fields)?,
                TypeDef::Adt(branches) => {
                    for (branch, fields) in branches {
                        if let Some(other) = branch_names.insert(branch.name.clone(), name.clone())
                        {
                            return Err(self.error(
                                branch.span,
                                format!(
                                    "branch `{}` is declared twice (also in type `{other}`)",
                                    branch.name
                                ),
                                "branch names are global",
                            ));
                        }
                        rt.branches.push(crate::records::Branch {
                            name: branch.name.clone(),
                            fields: self.resolve_fields(&branch.name, fields)?,
                        });
                    }
                }
                _ => unreachable!("filtered to record types and ADTs"),
            }
            group.push(rt);
        }
        let offset = crate::records::register(&group);
        for id in self.record_ids.values_mut() {
            *id += offset;
        }
        Ok(())
    }

    /// The base type of a type name, following subtypes, aliases and unions.
    fn base_type(&self, name: &Ident, seen: &mut Vec<String>) -> PResult<Type> {
        match name.name.as_str() {
            "symbol" => return Ok(Type::Symbol),
            "number" => return Ok(Type::Number),
            "unsigned" => return Ok(Type::Unsigned),
            "float" => return Ok(Type::Float),
            _ => {}
        }
        let Some((def, decl)) = self.types.get(&name.name) else {
            return Err(self.error(
                name.span,
                format!("unknown type `{}`", name.name),
                "declare it with `.type`, or use `symbol`, `number`, `unsigned` or `float`",
            ));
        };
        if seen.contains(&name.name) {
            return Err(self.error(
                *decl,
                format!("type `{}` is defined in terms of itself", name.name),
                "a type must resolve to `symbol`, `number`, `unsigned` or `float`",
            ));
        }
        if let TypeDef::Record(_) | TypeDef::Adt(_) = def {
            // Its fields are resolved when it is registered; it may refer to itself.
            return Ok(Type::Record(self.record_ids[&name.name]));
        }
        seen.push(name.name.clone());
        let base = match def {
            TypeDef::Record(_) | TypeDef::Adt(_) => unreachable!("returned above"),
            TypeDef::Of(of) => self.base_type(of, seen)?,
            TypeDef::Union(members) => {
                let mut base = None;
                for m in members {
                    let b = self.base_type(m, seen)?;
                    if base.is_some_and(|first: Type| first != b) {
                        return Err(self.error(
                            m.span,
                            format!(
                                "union type `{}` mixes `{}` and `{}` types",
                                name.name,
                                base.expect("set").keyword(),
                                b.keyword()
                            ),
                            format!("`{}` is a `{}` type", m.name, b.keyword()),
                        ));
                    }
                    base = Some(b);
                }
                base.expect("a union has members")
            }
        };
        seen.pop();
        Ok(base)
    }

    /// Gives every declared column its base type.
    fn resolve_columns(&self, items: &mut [Item]) -> PResult<()> {
        for (item, col, ty) in &self.columns {
            let base = self.base_type(ty, &mut Vec::new())?;
            if let Item::Decl(d) = &mut items[*item] {
                d.columns[*col].1 = base;
            }
        }
        // A declared type nobody uses is still checked.
        let mut names: Vec<&String> = self.types.keys().collect();
        names.sort_by_key(|n| self.types[*n].1.start);
        for n in names {
            let span = self.types[n].1;
            self.base_type(
                &Ident {
                    name: n.clone(),
                    span,
                },
                &mut Vec::new(),
            )?;
        }
        Ok(())
    }

    /// `.type T <: B`, `.type T = U`, `.type T = A | B | ...` (after `.type`).
    fn type_decl(&mut self, dot: Span) -> PResult<TypeDecl> {
        let name = self.ident("a type name")?;
        if matches!(
            name.name.as_str(),
            "symbol" | "number" | "unsigned" | "float"
        ) {
            return Err(self.error(
                name.span,
                format!("`{}` is a built-in type", name.name),
                "choose another name",
            ));
        }
        let def = match self.peek() {
            Some(Tok::Lt) if self.peek_at(1) == Some(&Tok::Colon) => {
                self.bump();
                self.bump();
                TypeDef::Of(self.qualified_name("the type it is a subtype of")?)
            }
            Some(Tok::Eq) => {
                self.bump();
                if matches!(self.peek(), Some(Tok::Other('['))) {
                    return Ok(TypeDecl {
                        name,
                        def: self.record_fields()?,
                        span: dot.to(self.prev_span()),
                    });
                }
                let mut members = vec![self.qualified_name("a type")?];
                if self.peek() == Some(&Tok::LBrace) {
                    let first = members.pop().expect("one member");
                    return Ok(TypeDecl {
                        name,
                        def: self.adt_branches(first)?,
                        span: dot.to(self.prev_span()),
                    });
                }
                while self.peek() == Some(&Tok::Other('|')) {
                    self.bump();
                    members.push(self.qualified_name("a type after `|`")?);
                }
                if members.len() == 1 {
                    TypeDef::Of(members.pop().expect("one member"))
                } else {
                    TypeDef::Union(members)
                }
            }
            _ => return Err(self.unexpected("`<:` or `=` after the type name")),
        };
        Ok(TypeDecl {
            name,
            def,
            span: dot.to(self.prev_span()),
        })
    }

    /// The fields of the record type or ADT branch `owner`, their types resolved.
    fn resolve_fields(
        &self,
        owner: &str,
        fields: &[(Ident, Ident)],
    ) -> PResult<Vec<(String, Type)>> {
        let mut resolved: Vec<(String, Type)> = Vec::with_capacity(fields.len());
        for (field, ty) in fields {
            if resolved.iter().any(|(n, _)| *n == field.name) {
                return Err(self.error(
                    field.span,
                    format!("field `{}` appears twice in `{owner}`", field.name),
                    "duplicate field",
                ));
            }
            resolved.push((field.name.clone(), self.base_type(ty, &mut Vec::new())?));
        }
        Ok(resolved)
    }

    /// `[name: type, ...]` of a record type, at its `[`.
    fn record_fields(&mut self) -> PResult<TypeDef> {
        self.bump();
        let fields = self.fields(Tok::Other(']'))?;
        self.expect(Tok::Other(']'), "`,` or `]` in the record type's fields")?;
        Ok(TypeDef::Record(fields))
    }

    /// `name: type, ...` up to (not including) `close`.
    fn fields(&mut self, close: Tok) -> PResult<Vec<(Ident, Ident)>> {
        let mut fields = Vec::new();
        if self.peek() != Some(&close) {
            loop {
                let field = self.ident("a field name")?;
                self.expect(Tok::Colon, "`:` and the field's type")?;
                fields.push((field, self.qualified_name("the field's type")?));
                if self.peek() != Some(&Tok::Comma) {
                    break;
                }
                self.bump();
            }
        }
        Ok(fields)
    }

    /// `A {f: T, ...} | B {...} ...` of an ADT, its first branch's name read, at the `{`.
    fn adt_branches(&mut self, first: Ident) -> PResult<TypeDef> {
        let mut branches = Vec::new();
        let mut name = first;
        loop {
            self.expect(Tok::LBrace, "`{` and the branch's fields")?;
            let fields = self.fields(Tok::RBrace)?;
            self.expect(Tok::RBrace, "`,` or `}` in the branch's fields")?;
            branches.push((name, fields));
            if self.peek() != Some(&Tok::Other('|')) {
                break;
            }
            self.bump();
            name = self.ident("a branch name")?;
        }
        Ok(TypeDef::Adt(branches))
    }

    fn declare_type(&mut self, TypeDecl { name, def, span }: TypeDecl) -> PResult<()> {
        if let Some((_, first)) = self.types.get(&name.name) {
            let (line, col) = self.file.line_col(first.start);
            return Err(self.error(
                name.span,
                format!(
                    "type `{}` is declared twice (first at line {line}, column {col})",
                    name.name
                ),
                "second declaration",
            ));
        }
        self.types.insert(name.name, (def, span));
        Ok(())
    }

    fn directive(&mut self, items: &mut Vec<RawItem>) -> PResult<()> {
        let dot = self.bump().1;
        let name = self.ident("a directive such as .decl, .input or .output")?;
        if name.span.start != dot.end {
            return Err(self.error(
                dot.to(name.span),
                "expected a directive directly after `.`",
                "write `.decl`, `.input` or `.output` without a space",
            ));
        }
        match name.name.as_str() {
            "decl" => {
                let decl = self.decl(dot)?;
                items.push(RawItem::Decl(decl));
            }
            "type" => {
                let t = self.type_decl(dot)?;
                items.push(RawItem::Type(t));
            }
            "number_type" | "symbol_type" => {
                // Soufflé's older spelling of `.type T <: number` and `.type T <: symbol`.
                let t = self.ident("a type name")?;
                let base = Ident {
                    name: name.name.trim_end_matches("_type").to_string(),
                    span: name.span,
                };
                items.push(RawItem::Type(TypeDecl {
                    name: t,
                    def: TypeDef::Of(base),
                    span: dot.to(self.prev_span()),
                }));
            }
            "comp" => {
                let comp = self.comp()?;
                items.push(RawItem::Comp(comp));
            }
            "init" => {
                let instance = self.ident("an instance name")?;
                self.expect(Tok::Eq, "`=` and the component to instantiate")?;
                let component = self.comp_ref("the component to instantiate")?;
                items.push(RawItem::Init(Init {
                    instance,
                    component,
                }));
            }
            "override" => {
                let rel = self.ident("the relation to override")?;
                items.push(RawItem::Override(rel));
            }
            "input" | "output" | "printsize" => loop {
                let rel = self.qualified_name("a relation name")?;
                if self.peek() == Some(&Tok::LParen) {
                    self.skip_io_options()?;
                }
                items.push(match name.name.as_str() {
                    "input" => RawItem::Input(rel),
                    "output" => RawItem::Output(rel),
                    _ => RawItem::PrintSize(rel),
                });
                if self.peek() == Some(&Tok::Comma) {
                    self.bump();
                } else {
                    break;
                }
            },
            other => {
                return Err(self.error(
                    dot.to(name.span),
                    format!("unsupported directive `.{other}`"),
                    "supported: .decl, .type, .input, .output, .printsize, .comp, .init \
                     and .override",
                ))
            }
        }
        Ok(())
    }

    /// `.input r(IO=file, filename="x")`: the options name Soufflé's I/O; files are found by
    /// relation name here, so the options are read and ignored.
    fn skip_io_options(&mut self) -> PResult<()> {
        let open = self.bump().1;
        let mut depth = 1;
        while depth > 0 {
            match self.peek() {
                None => return Err(self.error(open, "unclosed `(`", "opened here")),
                Some(Tok::LParen) => depth += 1,
                Some(Tok::RParen) => depth -= 1,
                _ => {}
            }
            self.bump();
        }
        Ok(())
    }

    /// `Name` or `Name<T1, ...>`.
    fn comp_ref(&mut self, expected: &str) -> PResult<CompRef> {
        let name = self.ident(expected)?;
        let mut args = Vec::new();
        if self.peek() == Some(&Tok::Lt) {
            self.bump();
            loop {
                args.push(self.qualified_name("a type argument")?);
                if self.peek() == Some(&Tok::Comma) {
                    self.bump();
                } else {
                    break;
                }
            }
            self.expect(Tok::Gt, "`,` or `>` in the type arguments")?;
        }
        Ok(CompRef {
            span: name.span.to(self.prev_span()),
            name,
            args,
        })
    }

    /// `.comp Name<P, ...> : Base<...>, ... { items }` (after `.comp`).
    fn comp(&mut self) -> PResult<std::rc::Rc<CompDecl>> {
        let head = self.comp_ref("a component name")?;
        let mut bases = Vec::new();
        if self.peek() == Some(&Tok::Colon) {
            self.bump();
            loop {
                bases.push(self.comp_ref("a base component")?);
                if self.peek() == Some(&Tok::Comma) {
                    self.bump();
                } else {
                    break;
                }
            }
        }
        let open = self.expect(Tok::LBrace, "`{` to open the component's body")?;
        let mut body = Vec::new();
        while self.peek() != Some(&Tok::RBrace) {
            if self.at_end() {
                return Err(self.error(open, "unclosed component body", "opened here"));
            }
            self.item(&mut body)?;
        }
        self.bump();
        Ok(std::rc::Rc::new(CompDecl {
            name: head.name,
            params: head.args,
            bases,
            body,
        }))
    }

    /// `.decl` (after it).
    fn decl(&mut self, dot: Span) -> PResult<RawDecl> {
        let name = self.qualified_name("a relation name")?;
        self.expect(Tok::LParen, "`(` after the relation name")?;
        let mut columns = Vec::new();
        let mut column_types = Vec::new();
        if self.peek() != Some(&Tok::RParen) {
            loop {
                let col = self.ident("a column name")?;
                self.expect(Tok::Colon, "`:` and a column type")?;
                // Resolved once components are expanded and every `.type` is read; a
                // placeholder until then.
                column_types.push(self.qualified_name("a column type")?);
                columns.push((col, Type::Symbol));
                if self.peek() == Some(&Tok::Comma) {
                    self.bump();
                } else {
                    break;
                }
            }
        }
        let close = self.expect(Tok::RParen, "`,` or `)` in the column list")?;
        // Representation qualifiers change nothing in set semantics, except `eqrel`, which
        // adds equivalence closure (rules the checker adds).
        let mut overridable = false;
        let mut eqrel = false;
        while let Some(Tok::Ident(q)) = self.peek() {
            match q.as_str() {
                "btree" | "brie" | "btree_delete" | "inline" | "no_inline" => {
                    self.bump();
                }
                "overridable" => {
                    overridable = true;
                    self.bump();
                }
                "eqrel" => {
                    eqrel = true;
                    self.bump();
                }
                _ => break,
            }
        }
        Ok(RawDecl {
            decl: Decl {
                name,
                columns,
                eqrel,
                span: dot.to(close),
            },
            column_types,
            overridable,
        })
    }

    /// A rule or a fact; several heads and disjunctive bodies give one rule per head and
    /// alternative (heads outer, alternatives in the order written).
    fn rule(&mut self) -> PResult<Vec<Rule>> {
        let mut heads = vec![self.atom()?];
        let mut comma = None;
        while self.peek() == Some(&Tok::Comma) {
            comma.get_or_insert(self.bump().1);
            heads.push(self.atom()?);
        }
        let alternatives = if self.peek() == Some(&Tok::Turnstile) {
            self.bump();
            self.disjunction()?
        } else if let Some(comma) = comma {
            return Err(self.error(
                comma,
                "several heads need a body: expected `:-` after them",
                "a second head starts here",
            ));
        } else {
            vec![Vec::new()]
        };
        let end = self.expect(Tok::Dot, "`.` at the end of the rule")?;
        let span = heads[0].span.to(end);
        let mut rules = Vec::with_capacity(heads.len() * alternatives.len());
        for head in heads {
            for body in &alternatives {
                let mut rule = Rule {
                    head: head.clone(),
                    body: body.clone(),
                    span,
                };
                lift_terms(&mut rule);
                rules.push(rule);
            }
        }
        Ok(rules)
    }

    /// `conj ; conj ; ...`, as the alternatives of its disjunctive normal form.
    fn disjunction(&mut self) -> PResult<Vec<Vec<Literal>>> {
        self.nested(Self::disjunction_here)
    }

    /// [`Parser::disjunction`] at this level.
    fn disjunction_here(&mut self) -> PResult<Vec<Vec<Literal>>> {
        let start = self.span();
        let mut alternatives = self.conjunction()?;
        while self.peek() == Some(&Tok::Semi) {
            self.bump();
            alternatives.extend(self.conjunction()?);
            self.check_alternatives(alternatives.len(), start)?;
        }
        Ok(alternatives)
    }

    /// `unit , unit , ...`: the product of the units' alternatives.
    fn conjunction(&mut self) -> PResult<Vec<Vec<Literal>>> {
        let start = self.span();
        let mut alternatives: Vec<Vec<Literal>> = vec![Vec::new()];
        loop {
            let unit = if self.peek() == Some(&Tok::LParen) {
                // `(x + 1) < y` opens with a parenthesised expression: tried first, and on
                // failure read again as a parenthesised formula, whose errors are reported.
                let at = self.pos;
                match self.comparison_or_aggregate() {
                    Ok(lit @ Literal::Compare(_)) => vec![vec![lit]],
                    _ => {
                        self.pos = at;
                        self.bump();
                        let inner = self.disjunction()?;
                        self.expect(Tok::RParen, "`)` to close the parenthesised formula")?;
                        inner
                    }
                }
            } else {
                vec![vec![self.literal()?]]
            };
            self.check_alternatives(alternatives.len() * unit.len(), start)?;
            alternatives = alternatives
                .iter()
                .flat_map(|prefix| {
                    unit.iter().map(move |u| {
                        let mut v = prefix.clone();
                        v.extend(u.iter().cloned());
                        v
                    })
                })
                .collect();
            if self.peek() == Some(&Tok::Comma) {
                self.bump();
            } else {
                break;
            }
        }
        Ok(alternatives)
    }

    fn check_alternatives(&self, n: usize, start: Span) -> PResult<()> {
        if n > MAX_ALTERNATIVES {
            return Err(self.error(
                start.to(self.prev_span()),
                format!(
                    "this body's disjunctions expand to more than {MAX_ALTERNATIVES} alternatives"
                ),
                "split the rule, or name a sub-formula by a relation of its own",
            ));
        }
        Ok(())
    }

    fn atom(&mut self) -> PResult<Atom> {
        let relation = self.qualified_name("a relation name")?;
        self.expect(Tok::LParen, "`(` after the relation name")?;
        let mut args = Vec::new();
        if self.peek() != Some(&Tok::RParen) {
            loop {
                args.push(self.term()?);
                if self.peek() == Some(&Tok::Comma) {
                    self.bump();
                } else {
                    break;
                }
            }
        }
        let close = self.expect(Tok::RParen, "`,` or `)` in the argument list")?;
        Ok(Atom {
            span: relation.span.to(close),
            relation,
            args,
        })
    }

    /// An argument: a variable, `_`, a constant or an arithmetic expression, with Soufflé's
    /// precedence (loosest first: `lor`, `lxor`, `land`, `bor`, `bxor`, `band`, the shifts,
    /// `+ -`, `* / %`, the prefix operators `- bnot lnot`, then `^`, which is
    /// right-associative and binds tighter than a prefix operator on its left: `-2^2` is
    /// -4). Every binary operator but `^` is left-associative.
    fn term(&mut self) -> PResult<Term> {
        self.nested(|p| p.binary(0))
    }

    /// `read` one level deeper, or the error at the cursor past [`MAX_NESTING`] levels.
    fn nested<T>(&mut self, read: impl FnOnce(&mut Self) -> PResult<T>) -> PResult<T> {
        if self.depth >= MAX_NESTING {
            return Err(self.error(
                self.span(),
                "terms or formulas nested too deep".to_string(),
                format!("the limit is {MAX_NESTING} levels of parentheses, operators and records"),
            ));
        }
        self.depth += 1;
        let read = read(self);
        self.depth -= 1;
        read
    }

    /// The binary operator at the cursor, if it belongs to precedence level `level` (0 the
    /// loosest, 8 the tightest).
    fn binary_op(&self, level: usize) -> Option<ArithOp> {
        let op = match self.peek()? {
            Tok::Other('+') => ArithOp::Add,
            Tok::Minus => ArithOp::Sub,
            Tok::Other('*') => ArithOp::Mul,
            Tok::Other('/') => ArithOp::Div,
            Tok::Other('%') => ArithOp::Mod,
            Tok::Ident(w) => match w.as_str() {
                "lor" => ArithOp::LOr,
                "lxor" => ArithOp::LXor,
                "land" => ArithOp::LAnd,
                "bor" => ArithOp::BOr,
                "bxor" => ArithOp::BXor,
                "band" => ArithOp::BAnd,
                "bshl" => ArithOp::BShl,
                "bshr" => ArithOp::BShr,
                "bshru" => ArithOp::BShrU,
                _ => return None,
            },
            _ => return None,
        };
        let op_level = match op {
            ArithOp::LOr => 0,
            ArithOp::LXor => 1,
            ArithOp::LAnd => 2,
            ArithOp::BOr => 3,
            ArithOp::BXor => 4,
            ArithOp::BAnd => 5,
            ArithOp::BShl | ArithOp::BShr | ArithOp::BShrU => 6,
            ArithOp::Add | ArithOp::Sub => 7,
            _ => 8,
        };
        (op_level == level).then_some(op)
    }

    /// Left-associative binary operators of precedence `level` and tighter.
    fn binary(&mut self, level: usize) -> PResult<Term> {
        if level > 8 {
            return self.unary();
        }
        let mut left = self.binary(level + 1)?;
        while let Some(op) = self.binary_op(level) {
            self.bump();
            let right = self.binary(level + 1)?;
            left = expr(op, vec![left, right]);
        }
        Ok(left)
    }

    /// True when the token after the cursor can start an operand, so that `bnot` or `lnot`
    /// at the cursor is an operator and not a name.
    fn operand_follows(&self) -> bool {
        matches!(
            self.peek_at(1),
            Some(
                Tok::Ident(_)
                    | Tok::Num(_)
                    | Tok::Float(_)
                    | Tok::BigNum(_)
                    | Tok::Str(_)
                    | Tok::LParen
                    | Tok::Minus
            )
        )
    }

    /// The prefix operators `-`, `bnot`, `lnot`, then `^`. A minus directly before a number
    /// literal is part of the literal (as in Soufflé), unless the number is the base of `^`.
    fn unary(&mut self) -> PResult<Term> {
        self.nested(Self::unary_here)
    }

    /// [`Parser::unary`] at this level.
    fn unary_here(&mut self) -> PResult<Term> {
        let op = match self.peek() {
            Some(Tok::Minus) => {
                if let (Some(Tok::Num(_)), false) =
                    (self.peek_at(1), self.peek_at(2) == Some(&Tok::Other('^')))
                {
                    let minus = self.bump().1;
                    let (Tok::Num(n), span) = self.bump() else {
                        unreachable!("peeked a number")
                    };
                    return Ok(Term::Num(n.wrapping_neg(), minus.to(span)));
                }
                if let (Some(Tok::Float(_)), false) =
                    (self.peek_at(1), self.peek_at(2) == Some(&Tok::Other('^')))
                {
                    let minus = self.bump().1;
                    let (Tok::Float(b), span) = self.bump() else {
                        unreachable!("peeked a float")
                    };
                    return Ok(Term::Float((-f64::from_bits(b)).to_bits(), minus.to(span)));
                }
                ArithOp::Neg
            }
            Some(Tok::Ident(w)) if w == "bnot" && self.operand_follows() => ArithOp::BNot,
            Some(Tok::Ident(w)) if w == "lnot" && self.operand_follows() => ArithOp::LNot,
            _ => return self.power(),
        };
        let start = self.bump().1;
        let operand = self.unary()?;
        let span = start.to(operand.span());
        Ok(Term::Expr(Box::new(Expr {
            op,
            args: vec![operand],
            span,
        })))
    }

    /// `base ^ exponent`, right-associative; the exponent may carry a prefix operator.
    fn power(&mut self) -> PResult<Term> {
        let base = self.primary()?;
        if self.peek() != Some(&Tok::Other('^')) {
            return Ok(base);
        }
        self.bump();
        let exponent = self.unary()?;
        Ok(expr(ArithOp::Pow, vec![base, exponent]))
    }

    /// A variable, `_`, a constant, a parenthesised expression or a functor call.
    fn primary(&mut self) -> PResult<Term> {
        if let Some(func) = self.at_aggregate_term() {
            let start = self.span();
            let Literal::Aggregate(a) = self.aggregate(Term::Wildcard(start), func)? else {
                unreachable!("an aggregate")
            };
            return Ok(Term::Aggregate(Box::new(a)));
        }
        Ok(match self.peek() {
            Some(Tok::Ident(name)) if self.peek_at(1) == Some(&Tok::LParen) => {
                let op =
                    match ArithOp::functor(name) {
                        Some(op) if op.is_constraint() => return Err(self.error(
                            self.span(),
                            format!("`{name}` is a constraint, not a value"),
                            "write it as a body literal: `contains(sub, s)`, `match(pattern, s)`",
                        )),
                        Some(op) => op,
                        None if name == "range" => return self.range_call(),
                        None => {
                            return Err(self.error(
                                self.span(),
                                format!("unknown functor `{name}`"),
                                "functors are `min`, `max`, `cat`, `strlen`, `substr`, \
                             `to_number`, `to_string`, `to_float`, `to_unsigned`, `ord` \
                             and `range`",
                            ))
                        }
                    };
                self.functor_call(op)?
            }
            Some(Tok::Ident(name)) if name == "nil" => Term::Nil(self.bump().1),
            Some(Tok::Ident(_)) => Term::Var(self.ident("a term")?),
            Some(Tok::Other('$')) => {
                let dollar = self.bump().1;
                let name = self.ident("a branch name after `$`")?;
                let mut args = Vec::new();
                let mut span = dollar.to(name.span);
                if self.peek() == Some(&Tok::LParen) {
                    self.bump();
                    if self.peek() != Some(&Tok::RParen) {
                        args.push(self.term()?);
                        while self.peek() == Some(&Tok::Comma) {
                            self.bump();
                            args.push(self.term()?);
                        }
                    }
                    span = dollar.to(self.expect(Tok::RParen, "`,` or `)` in the constructor")?);
                }
                Term::Ctor(name, args, span)
            }
            Some(Tok::Other('[')) => {
                let open = self.bump().1;
                let mut args = Vec::new();
                if self.peek() != Some(&Tok::Other(']')) {
                    args.push(self.term()?);
                    while self.peek() == Some(&Tok::Comma) {
                        self.bump();
                        args.push(self.term()?);
                    }
                }
                let close = self.expect(Tok::Other(']'), "`,` or `]` in the record")?;
                Term::Record(args, open.to(close))
            }
            Some(Tok::Underscore) => Term::Wildcard(self.bump().1),
            Some(Tok::Str(_)) => {
                let (Tok::Str(s), span) = self.bump() else {
                    unreachable!("peeked a string")
                };
                Term::Str(s, span)
            }
            Some(Tok::Num(_)) => {
                let (Tok::Num(n), span) = self.bump() else {
                    unreachable!("peeked a number")
                };
                Term::Num(n, span)
            }
            Some(Tok::Float(_)) => {
                let (Tok::Float(b), span) = self.bump() else {
                    unreachable!("peeked a float")
                };
                Term::Float(b, span)
            }
            Some(Tok::BigNum(_)) => {
                let (Tok::BigNum(n), span) = self.bump() else {
                    unreachable!("peeked a number")
                };
                Term::BigNum(n, span)
            }
            Some(Tok::LParen) => {
                self.bump();
                let inner = self.term()?;
                self.expect(Tok::RParen, "`)` to close the parenthesised expression")?;
                inner
            }
            _ => {
                return Err(self
                    .unexpected("a variable, `_`, a string, a number, a record or an expression"))
            }
        })
    }

    /// `name(args)` of the functor `op`, its name at the cursor; the number of arguments is
    /// checked against [`ArithOp::signature`] (types are the checker's).
    fn functor_call(&mut self, op: ArithOp) -> PResult<Term> {
        let (args, span) = self.call_arguments("`,` or `)` in the functor's arguments")?;
        if let (Operands::Fixed(types), n) = (op.signature().0, args.len()) {
            if types.len() != n {
                return Err(self.error(
                    span,
                    format!(
                        "`{}` takes {} argument(s), here {n}",
                        op.symbol(),
                        types.len()
                    ),
                    "wrong number of arguments",
                ));
            }
        }
        Ok(Term::Expr(Box::new(Expr { op, args, span })))
    }

    /// The arguments of a call at the cursor (its name, `(`, terms separated by `,`, `)`),
    /// and the call's span; `expected` names what may follow an argument, for the error.
    fn call_arguments(&mut self, expected: &str) -> PResult<(Vec<Term>, Span)> {
        let start = self.bump().1;
        self.bump();
        let mut args = vec![self.term()?];
        while self.peek() == Some(&Tok::Comma) {
            self.bump();
            args.push(self.term()?);
        }
        let close = self.expect(Tok::RParen, expected)?;
        Ok((args, start.to(close)))
    }

    /// `range(from, to)` or `range(from, to, step)` at the cursor (the name and `(` not
    /// yet taken), as a [`Term::Range`].
    fn range_call(&mut self) -> PResult<Term> {
        let (args, span) = self.call_arguments("`,` or `)` in the arguments of `range`")?;
        if !(2..=3).contains(&args.len()) {
            return Err(self.error(
                span,
                format!("`range` takes 2 or 3 arguments, here {}", args.len()),
                "`range(from, to)` or `range(from, to, step)`",
            ));
        }
        Ok(Term::Range(args, span))
    }

    /// True when the constraint `contains(..)` or `match(..)` starts at the cursor.
    fn at_constraint(&self) -> bool {
        matches!(self.peek(), Some(Tok::Ident(w)) if ArithOp::functor(w).is_some_and(ArithOp::is_constraint))
            && self.peek_at(1) == Some(&Tok::LParen)
    }

    /// True when a functor call (not an atom, not an aggregate) starts at the cursor.
    fn at_value_functor(&self) -> bool {
        matches!(self.peek(), Some(Tok::Ident(w))
            if ArithOp::functor(w).is_some_and(|op| op.is_string() && !op.is_constraint()))
            && self.peek_at(1) == Some(&Tok::LParen)
    }

    /// The constraint `contains(sub, s)` or `match(pattern, s)` at the cursor, negated when
    /// `bang` (the span of a `!` before it) is given: the comparison of the functor's value
    /// (1 or 0) with 0.
    fn constraint(&mut self, bang: Option<Span>) -> PResult<Literal> {
        let Some(Tok::Ident(name)) = self.peek() else {
            unreachable!("at a constraint")
        };
        let op = ArithOp::functor(name).expect("at a constraint");
        let call = self.functor_call(op)?;
        let span = bang.unwrap_or(call.span()).to(call.span());
        let zero = Term::Num(0, call.span());
        Ok(Literal::Compare(Comparison {
            span,
            left: call,
            op: if bang.is_some() { CmpOp::Eq } else { CmpOp::Ne },
            right: zero,
        }))
    }

    /// True when a call of `min` or `max` starts at the cursor and is a functor, not an
    /// aggregate (`min(x, y)` against `min(x) : { ... }`): no `:` after its closing `)`.
    fn at_functor_call(&self) -> bool {
        if !matches!(self.peek(), Some(Tok::Ident(w)) if w == "min" || w == "max")
            || self.peek_at(1) != Some(&Tok::LParen)
        {
            return false;
        }
        let mut depth = 0;
        let mut k = 1;
        while let Some(t) = self.peek_at(k) {
            match t {
                Tok::LParen => depth += 1,
                Tok::RParen => {
                    depth -= 1;
                    if depth == 0 {
                        return self.peek_at(k + 1) != Some(&Tok::Colon);
                    }
                }
                _ => {}
            }
            k += 1;
        }
        true
    }

    fn cmp_op(&self) -> Option<CmpOp> {
        Some(match self.peek()? {
            Tok::Eq => CmpOp::Eq,
            Tok::Ne => CmpOp::Ne,
            Tok::Lt => CmpOp::Lt,
            Tok::Le => CmpOp::Le,
            Tok::Gt => CmpOp::Gt,
            Tok::Ge => CmpOp::Ge,
            _ => return None,
        })
    }

    fn literal(&mut self) -> PResult<Literal> {
        if self.at_constraint() {
            return self.constraint(None);
        }
        if self.peek() == Some(&Tok::Bang) {
            let bang = self.bump().1;
            if self.at_constraint() {
                return self.constraint(Some(bang));
            }
            let atom = self.atom()?;
            let span = bang.to(atom.span);
            return Ok(Literal::Negative(atom, span));
        }
        if self.at_atom() && !self.at_functor_call() && !self.at_value_functor() {
            return Ok(Literal::Positive(self.atom()?));
        }
        if self.peek() == Some(&Tok::LParen) {
            // `(x + 1) < y` is a comparison; anything else in parentheses is a sub-formula.
            let start = self.pos;
            if let Ok(lit @ Literal::Compare(_)) = self.comparison_or_aggregate() {
                return Ok(lit);
            }
            self.pos = start;
            return Err(self.error(
                self.span(),
                "parenthesised sub-formulas are not supported here",
                "write a flat conjunction (disjunctions are allowed in rule bodies only)",
            ));
        }
        self.comparison_or_aggregate()
    }

    /// The aggregate function when an aggregate written as a term starts at the cursor:
    /// `count :`, or `sum`, `min`, `max` followed by a target (not a functor call `min(a, b)`).
    fn at_aggregate_term(&self) -> Option<AggFunc> {
        let Some(Tok::Ident(f)) = self.peek() else {
            return None;
        };
        let func = match f.as_str() {
            "count" => AggFunc::Count,
            "min" => AggFunc::Min,
            "max" => AggFunc::Max,
            "sum" => AggFunc::Sum,
            _ => return None,
        };
        let next = self.peek_at(1);
        let aggregate = match func {
            AggFunc::Count => next == Some(&Tok::Colon),
            _ => {
                next.is_some()
                    && !matches!(
                        next,
                        Some(Tok::Comma | Tok::RParen | Tok::Dot | Tok::Colon | Tok::RBrace)
                    )
                    && !self.at_functor_call()
            }
        };
        aggregate.then_some(func)
    }

    /// `term op term`, or `var = func target : { body }`.
    fn comparison_or_aggregate(&mut self) -> PResult<Literal> {
        let left = self.term()?;
        let Some(op) = self.cmp_op() else {
            return Err(self.unexpected("a comparison operator or `(` of an atom"));
        };
        self.bump();
        if op == CmpOp::Eq {
            if let Some(Tok::Ident(f)) = self.peek() {
                let func = match f.as_str() {
                    "count" => Some(AggFunc::Count),
                    "min" => Some(AggFunc::Min),
                    "max" => Some(AggFunc::Max),
                    "sum" => Some(AggFunc::Sum),
                    _ => None,
                };
                let next = self.peek_at(1);
                let looks_like_agg = matches!(next, Some(Tok::Colon))
                    || (func.is_some()
                        && func != Some(AggFunc::Count)
                        && next.is_some()
                        && !self.at_functor_call());
                if let (Some(func), true) = (func, looks_like_agg) {
                    return self.aggregate(left, func);
                }
            }
        }
        let right = self.term()?;
        Ok(Literal::Compare(Comparison {
            span: left.span().to(right.span()),
            left,
            op,
            right,
        }))
    }

    fn aggregate(&mut self, result: Term, func: AggFunc) -> PResult<Literal> {
        self.bump();
        let target = if func == AggFunc::Count {
            None
        } else {
            Some(self.term()?)
        };
        self.expect(Tok::Colon, "`:` before the aggregate's body")?;
        self.expect(Tok::LBrace, "`{` to open the aggregate's body")?;
        let mut body = Vec::new();
        loop {
            body.push(self.literal()?);
            if self.peek() == Some(&Tok::Comma) {
                self.bump();
            } else {
                break;
            }
        }
        self.expect(Tok::RBrace, "`}` to close the aggregate's body")?;
        Ok(Literal::Aggregate(Aggregate {
            span: result.span().to(self.prev_span()),
            result,
            func,
            target,
            body,
        }))
    }
}

#[cfg(test)]
#[path = "parser_tests.rs"]
mod tests;
