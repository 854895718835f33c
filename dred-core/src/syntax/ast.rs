//! The abstract syntax tree of a program as written: names are strings, nothing is resolved.
//!
//! Negation and aggregates have their place here so that the checker, not the parser, decides
//! what the engines support.

use crate::diagnostic::{SourceFile, Span};

/// A parsed program file.
#[derive(Clone, Debug)]
pub struct Program {
    /// The source the spans point into.
    pub file: SourceFile,
    /// Items in source order.
    pub items: Vec<Item>,
}

/// One top-level item.
#[derive(Clone, Debug)]
pub enum Item {
    /// `.decl name(col: type, ...)`
    Decl(Decl),
    /// `.input name` — the relation is part of the EDB.
    Input(Ident),
    /// `.output name` — the relation is written by `--out`.
    Output(Ident),
    /// `.printsize name` — Soufflé prints the relation's size; accepted, and the relation
    /// must be declared, but it changes nothing here (reports give every model's size).
    PrintSize(Ident),
    /// A rule, or a fact when the body is empty.
    Rule(Rule),
}

/// A name with its location.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ident {
    /// The name.
    pub name: String,
    /// Where it is written.
    pub span: Span,
}

/// A column's base type: what a declared type (`.type`) resolves to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Type {
    /// Interned strings.
    Symbol,
    /// Signed 64-bit integers.
    Number,
}

impl Type {
    /// The keyword as written in a program.
    pub fn keyword(self) -> &'static str {
        match self {
            Type::Symbol => "symbol",
            Type::Number => "number",
        }
    }
}

/// `.decl name(col: type, ...)`
#[derive(Clone, Debug)]
pub struct Decl {
    /// Relation name.
    pub name: Ident,
    /// Column names and types, in order.
    pub columns: Vec<(Ident, Type)>,
    /// The whole declaration.
    pub span: Span,
}

/// `head :- body.` or a fact `head.`
#[derive(Clone, Debug)]
pub struct Rule {
    /// The derived atom.
    pub head: Atom,
    /// Conjunction of literals; empty for a fact.
    pub body: Vec<Literal>,
    /// The whole rule including the final period.
    pub span: Span,
}

/// `rel(t1, ..., tn)`
#[derive(Clone, Debug)]
pub struct Atom {
    /// Relation name.
    pub relation: Ident,
    /// Arguments.
    pub args: Vec<Term>,
    /// The whole atom.
    pub span: Span,
}

/// A body literal.
#[derive(Clone, Debug)]
pub enum Literal {
    /// A positive atom.
    Positive(Atom),
    /// `!atom`, stratified negation.
    Negative(Atom, Span),
    /// `left op right`.
    Compare(Comparison),
    /// `var = op : { body }` (count, min, max, sum).
    Aggregate(Aggregate),
}

/// A comparison between two terms.
#[derive(Clone, Debug)]
pub struct Comparison {
    /// Left operand.
    pub left: Term,
    /// The operator.
    pub op: CmpOp,
    /// Right operand.
    pub right: Term,
    /// The whole comparison.
    pub span: Span,
}

/// Comparison operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CmpOp {
    /// `=`
    Eq,
    /// `!=`
    Ne,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
}

impl CmpOp {
    /// The operator as written.
    pub fn symbol(self) -> &'static str {
        match self {
            CmpOp::Eq => "=",
            CmpOp::Ne => "!=",
            CmpOp::Lt => "<",
            CmpOp::Le => "<=",
            CmpOp::Gt => ">",
            CmpOp::Ge => ">=",
        }
    }

    /// True for the operators that need an order (`<`, `<=`, `>`, `>=`).
    pub fn is_order(self) -> bool {
        !matches!(self, CmpOp::Eq | CmpOp::Ne)
    }
}

/// Aggregate functions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AggFunc {
    /// `count`
    Count,
    /// `min`
    Min,
    /// `max`
    Max,
    /// `sum`
    Sum,
}

/// `result = func [target] : { body }`
#[derive(Clone, Debug)]
pub struct Aggregate {
    /// The variable bound to the aggregate's value.
    pub result: Term,
    /// Which aggregate.
    pub func: AggFunc,
    /// The aggregated term (absent for `count`).
    pub target: Option<Term>,
    /// The aggregated conjunction.
    pub body: Vec<Literal>,
    /// The whole aggregate.
    pub span: Span,
}

/// An argument of an atom or comparison.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Term {
    /// A named variable.
    Var(Ident),
    /// `_`
    Wildcard(Span),
    /// `"text"`
    Str(String, Span),
    /// An integer literal.
    Num(i64, Span),
}

impl Term {
    /// Where the term is written.
    pub fn span(&self) -> Span {
        match self {
            Term::Var(id) => id.span,
            Term::Wildcard(s) | Term::Str(_, s) | Term::Num(_, s) => *s,
        }
    }
}
