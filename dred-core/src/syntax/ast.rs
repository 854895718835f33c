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
    /// Declared `eqrel`: the relation is an equivalence relation, the reflexive, symmetric
    /// and transitive closure of its facts (see `check`'s `eqrel` rewriting).
    pub eqrel: bool,
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
    /// An arithmetic expression: an operator or functor applied to terms.
    Expr(Box<Expr>),
}

impl Term {
    /// Where the term is written.
    pub fn span(&self) -> Span {
        match self {
            Term::Var(id) => id.span,
            Term::Wildcard(s) | Term::Str(_, s) | Term::Num(_, s) => *s,
            Term::Expr(e) => e.span,
        }
    }

    /// Calls `f` on every variable of the term, those inside expressions included.
    pub fn for_each_var<'t>(&'t self, f: &mut impl FnMut(&'t Ident)) {
        match self {
            Term::Var(id) => f(id),
            Term::Expr(e) => e.args.iter().for_each(|a| a.for_each_var(f)),
            Term::Wildcard(_) | Term::Str(..) | Term::Num(..) => {}
        }
    }
}

/// `op(args)`: an arithmetic operator or functor applied to its operands, as written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Expr {
    /// The operator.
    pub op: ArithOp,
    /// Its operands: one for a unary operator, two for a binary one, at least one for
    /// `min` and `max`.
    pub args: Vec<Term>,
    /// The whole expression.
    pub span: Span,
}

/// Soufflé's arithmetic operators and functors over `number`s. Their meaning on values is
/// [`crate::arith::apply`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ArithOp {
    /// `-x`
    Neg,
    /// `bnot x`: bitwise complement.
    BNot,
    /// `lnot x`: 1 when x is 0, else 0.
    LNot,
    /// `x + y`
    Add,
    /// `x - y`
    Sub,
    /// `x * y`
    Mul,
    /// `x / y`: truncated towards zero.
    Div,
    /// `x % y`: the remainder of `/`, with the sign of x.
    Mod,
    /// `x ^ y`: x to the power y.
    Pow,
    /// `x band y`
    BAnd,
    /// `x bor y`
    BOr,
    /// `x bxor y`
    BXor,
    /// `x bshl y`: shift left.
    BShl,
    /// `x bshr y`: arithmetic shift right (the sign is kept).
    BShr,
    /// `x bshru y`: logical shift right (zeros shifted in).
    BShrU,
    /// `x land y`: 1 when both are non-zero, else 0.
    LAnd,
    /// `x lor y`: 1 when either is non-zero, else 0.
    LOr,
    /// `x lxor y`: 1 when exactly one is non-zero, else 0.
    LXor,
    /// `min(x, y, ...)`
    Min,
    /// `max(x, y, ...)`
    Max,
}

impl ArithOp {
    /// The operator or functor name as written.
    pub fn symbol(self) -> &'static str {
        match self {
            ArithOp::Neg | ArithOp::Sub => "-",
            ArithOp::BNot => "bnot",
            ArithOp::LNot => "lnot",
            ArithOp::Add => "+",
            ArithOp::Mul => "*",
            ArithOp::Div => "/",
            ArithOp::Mod => "%",
            ArithOp::Pow => "^",
            ArithOp::BAnd => "band",
            ArithOp::BOr => "bor",
            ArithOp::BXor => "bxor",
            ArithOp::BShl => "bshl",
            ArithOp::BShr => "bshr",
            ArithOp::BShrU => "bshru",
            ArithOp::LAnd => "land",
            ArithOp::LOr => "lor",
            ArithOp::LXor => "lxor",
            ArithOp::Min => "min",
            ArithOp::Max => "max",
        }
    }

    /// True for the prefix operators of one operand (`-`, `bnot`, `lnot`).
    pub fn is_unary(self) -> bool {
        matches!(self, ArithOp::Neg | ArithOp::BNot | ArithOp::LNot)
    }

    /// True for the functors written `name(x, y, ...)` (`min`, `max`).
    pub fn is_functor(self) -> bool {
        matches!(self, ArithOp::Min | ArithOp::Max)
    }
}
