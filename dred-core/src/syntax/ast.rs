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
    /// Unsigned 64-bit integers (stored in the order-preserving encoding of
    /// [`crate::value::encode_unsigned`]).
    Unsigned,
    /// 64-bit floating-point numbers (stored in the order-preserving encoding of
    /// [`crate::value::encode_float`]).
    Float,
    /// A record type, by its index in the registry of [`crate::records`]; values are
    /// records of the run's table, or `nil`.
    Record(u32),
}

impl Type {
    /// The keyword as written in a program.
    pub fn keyword(self) -> &'static str {
        match self {
            Type::Symbol => "symbol",
            Type::Number => "number",
            Type::Unsigned => "unsigned",
            Type::Float => "float",
            Type::Record(id) => &crate::records::record_type(id).name,
        }
    }

    /// True for the three numeric types, on which arithmetic and order comparisons apply.
    pub fn is_numeric(self) -> bool {
        matches!(self, Type::Number | Type::Unsigned | Type::Float)
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
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Atom {
    /// Relation name.
    pub relation: Ident,
    /// Arguments.
    pub args: Vec<Term>,
    /// The whole atom.
    pub span: Span,
}

/// A body literal.
#[derive(Clone, Debug, PartialEq, Eq)]
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
#[derive(Clone, Debug, PartialEq, Eq)]
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
#[derive(Clone, Debug, PartialEq, Eq)]
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
    /// An integer literal: of any numeric type, as the context decides (`number` when
    /// nothing does), as in Soufflé.
    Num(i64, Span),
    /// A float literal (`1.5`), as its bits: always a `float`.
    Float(u64, Span),
    /// An integer literal beyond `i64::MAX`: an `unsigned` or a `float` as the context decides.
    BigNum(u64, Span),
    /// An arithmetic expression: an operator or functor applied to terms.
    Expr(Box<Expr>),
    /// `[t1, ..., tn]`: a record of the record type the context gives; in a positive body
    /// atom a pattern that also binds the variables in it.
    Record(Vec<Term>, Span),
    /// `nil`: the empty record reference of the context's record type.
    Nil(Span),
    /// `$Branch(t1, ..., tn)` (or `$Branch`): a value of the ADT that has the branch; in a
    /// positive body atom a pattern, as a record is.
    Ctor(Ident, Vec<Term>, Span),
    /// The word `.1`, of type `.2`, of the record (or ADT value) `.0`: made by the checker
    /// when it takes a pattern apart, never parsed.
    Field(Box<Term>, usize, Type, Span),
    /// An aggregate written as a term (`r(count : { a(_) })`, `n < 1 + max x : { .. }`); its
    /// `result` is `_`. The parser lifts each into a body literal binding a fresh variable
    /// (`@aggtN = count : { .. }`) before anything else reads the rule.
    Aggregate(Box<Aggregate>),
    /// `range(from, to)` or `range(from, to, step)`: every value of the range, each in a
    /// binding of its own. The parser lifts each into a body atom of [`RANGE`] binding a
    /// fresh variable (`@rangetN`) before anything else reads the rule; the checker rewrites
    /// those atoms into generated relations (`check::range`).
    Range(Vec<Term>, Span),
}

/// The relation name of the atoms `range` terms are lifted into: `@range(from, to, x)` or
/// `@range(from, to, step, x)`; `@` keeps it apart from every name a program can declare.
pub const RANGE: &str = "@range";

impl Term {
    /// Where the term is written.
    pub fn span(&self) -> Span {
        match self {
            Term::Var(id) => id.span,
            Term::Wildcard(s)
            | Term::Str(_, s)
            | Term::Num(_, s)
            | Term::Float(_, s)
            | Term::BigNum(_, s)
            | Term::Record(_, s)
            | Term::Nil(s)
            | Term::Ctor(_, _, s)
            | Term::Field(_, _, _, s)
            | Term::Range(_, s) => *s,
            Term::Expr(e) => e.span,
            Term::Aggregate(a) => a.span,
        }
    }

    /// Calls `f` on every variable of the term, those inside expressions included.
    pub fn for_each_var<'t>(&'t self, f: &mut impl FnMut(&'t Ident)) {
        match self {
            Term::Var(id) => f(id),
            Term::Expr(e) => e.args.iter().for_each(|a| a.for_each_var(f)),
            Term::Record(args, _) | Term::Ctor(_, args, _) => {
                args.iter().for_each(|a| a.for_each_var(f))
            }
            Term::Field(r, _, _, _) => r.for_each_var(f),
            // Lifted into a body literal by the parser before any variable is looked at.
            Term::Aggregate(_) | Term::Range(..) => {}
            Term::Nil(_)
            | Term::Wildcard(_)
            | Term::Str(..)
            | Term::Num(..)
            | Term::Float(..)
            | Term::BigNum(..) => {}
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

/// Soufflé's arithmetic operators and functors over `number`s (their meaning on values is
/// [`crate::arith::apply`]) and its string functors and constraints (typed per
/// [`ArithOp::signature`], meaning [`crate::strings::apply`]).
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
    /// `cat(s1, s2, ...)`: the concatenation of its symbols (also `s1 + s2` on symbols).
    Cat,
    /// `strlen(s)`: the length of s in bytes of UTF-8.
    Strlen,
    /// `substr(s, i, n)`: n bytes of s from byte i.
    Substr,
    /// `to_number(x)`: the number a symbol writes, or an `unsigned` or `float` converted
    /// (also `ftoi`, `utoi`).
    ToNumber,
    /// `to_string(n)`: n in decimal, as a symbol.
    ToString,
    /// `to_unsigned(x)`: the unsigned a symbol writes, or a `number` or `float` converted
    /// (also `itou`, `ftou`).
    ToUnsigned,
    /// `to_float(x)`: the float a symbol writes, or a `number` or `unsigned` converted
    /// (also `itof`, `utof`).
    ToFloat,
    /// `to_string(u)` of an `unsigned` (the checker's choice of `to_string`, never parsed).
    UnsignedToString,
    /// `to_string(f)` of a `float` (the checker's choice of `to_string`, never parsed).
    FloatToString,
    /// `ord(s)`: the symbol's index in the run's table (implementation-defined).
    Ord,
    /// The constraint `contains(sub, s)`: 1 when s contains sub, else 0.
    Contains,
    /// The constraint `match(pattern, s)`: 1 when the regular expression matches the whole
    /// of s, else 0 (also for an invalid pattern).
    Match,
}

/// The operand types a functor or operator takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Operands {
    /// Exactly these types, in order.
    Fixed(&'static [Type]),
    /// One or more operands, all of this type.
    AtLeastOne(Type),
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
            ArithOp::Cat => "cat",
            ArithOp::Strlen => "strlen",
            ArithOp::Substr => "substr",
            ArithOp::ToNumber => "to_number",
            ArithOp::ToString | ArithOp::UnsignedToString | ArithOp::FloatToString => "to_string",
            ArithOp::ToUnsigned => "to_unsigned",
            ArithOp::ToFloat => "to_float",
            ArithOp::Ord => "ord",
            ArithOp::Contains => "contains",
            ArithOp::Match => "match",
        }
    }

    /// The functor written `name(...)`, if `name` is one: `min`, `max` and the string
    /// functors and constraints.
    pub fn functor(name: &str) -> Option<ArithOp> {
        Some(match name {
            "min" => ArithOp::Min,
            "max" => ArithOp::Max,
            "cat" => ArithOp::Cat,
            "strlen" => ArithOp::Strlen,
            "substr" => ArithOp::Substr,
            "to_number" | "ftoi" | "utoi" => ArithOp::ToNumber,
            "to_string" => ArithOp::ToString,
            "to_unsigned" | "itou" | "ftou" => ArithOp::ToUnsigned,
            "to_float" | "itof" | "utof" => ArithOp::ToFloat,
            "ord" => ArithOp::Ord,
            "contains" => ArithOp::Contains,
            "match" => ArithOp::Match,
            _ => return None,
        })
    }

    /// True for the string functors and constraints and the conversions, which
    /// [`crate::strings::apply`] evaluates against the run's symbol table when a symbol is
    /// their operand or result (a conversion between numeric types is
    /// [`crate::arith::apply_typed`]'s).
    pub fn is_string(self) -> bool {
        matches!(
            self,
            ArithOp::Cat
                | ArithOp::Strlen
                | ArithOp::Substr
                | ArithOp::ToNumber
                | ArithOp::ToString
                | ArithOp::ToUnsigned
                | ArithOp::ToFloat
                | ArithOp::UnsignedToString
                | ArithOp::FloatToString
                | ArithOp::Ord
                | ArithOp::Contains
                | ArithOp::Match
        )
    }

    /// True when the arithmetic operator applies to operands of the numeric type `ty`
    /// (Soufflé's overloads): `+ - * / ^`, `min` and `max` to all three, unary `-` to
    /// `number` and `float`, `%` and the bitwise and logical operators to `number` and
    /// `unsigned`. Never for `symbol` (the checker makes `+` on symbols a `cat`).
    pub fn applies_to(self, ty: Type) -> bool {
        match ty {
            Type::Symbol | Type::Record(_) => false,
            Type::Number => true,
            Type::Unsigned => self != ArithOp::Neg,
            Type::Float => matches!(
                self,
                ArithOp::Neg
                    | ArithOp::Add
                    | ArithOp::Sub
                    | ArithOp::Mul
                    | ArithOp::Div
                    | ArithOp::Pow
                    | ArithOp::Min
                    | ArithOp::Max
            ),
        }
    }

    /// True for `contains` and `match`, which Soufflé writes as body literals (constraints),
    /// never as values.
    pub fn is_constraint(self) -> bool {
        matches!(self, ArithOp::Contains | ArithOp::Match)
    }

    /// The operand types and the result type, as written for `number` operands: an
    /// arithmetic operator on `unsigned` or `float` operands gives their type
    /// ([`ArithOp::applies_to`]), and the conversions take any type (the checker resolves
    /// them by their operand's); `+` on two `symbol`s is read as `cat` by the checker.
    pub fn signature(self) -> (Operands, Type) {
        const S: Type = Type::Symbol;
        const N: Type = Type::Number;
        match self {
            ArithOp::Cat => (Operands::AtLeastOne(S), S),
            ArithOp::Strlen | ArithOp::ToNumber | ArithOp::Ord => (Operands::Fixed(&[S]), N),
            ArithOp::Substr => (Operands::Fixed(&[S, N, N]), S),
            ArithOp::ToString => (Operands::Fixed(&[N]), S),
            ArithOp::UnsignedToString => (Operands::Fixed(&[Type::Unsigned]), S),
            ArithOp::FloatToString => (Operands::Fixed(&[Type::Float]), S),
            ArithOp::ToUnsigned => (Operands::Fixed(&[S]), Type::Unsigned),
            ArithOp::ToFloat => (Operands::Fixed(&[S]), Type::Float),
            ArithOp::Contains | ArithOp::Match => (Operands::Fixed(&[S, S]), N),
            ArithOp::Min | ArithOp::Max => (Operands::AtLeastOne(N), N),
            op if op.is_unary() => (Operands::Fixed(&[N]), N),
            _ => (Operands::Fixed(&[N, N]), N),
        }
    }

    /// True for the prefix operators of one operand (`-`, `bnot`, `lnot`).
    pub fn is_unary(self) -> bool {
        matches!(self, ArithOp::Neg | ArithOp::BNot | ArithOp::LNot)
    }

    /// True for the functors written `name(x, y, ...)` (`min`, `max`, the string ones).
    pub fn is_functor(self) -> bool {
        matches!(self, ArithOp::Min | ArithOp::Max) || self.is_string()
    }
}
