//! Types of constants and expressions: what each literal is under its context, which
//! operators apply to which of the four types, and which conversions `to_number`,
//! `to_unsigned`, `to_float` and `to_string` are.
//!
//! As in Soufflé, an integer literal has the numeric type its context gives it: the
//! column it fills, the variable it is compared with or assigned to, the other operands of
//! its operator (`x + 1` with `x` a `float` adds 1.0); alone, it is a `number`. A float
//! literal (`1.5`) is always a `float`. An operator takes operands of one type and gives
//! that type: `+ - * / ^`, `min` and `max` on all three numeric types, unary `-` on `number`
//! and `float`, `%`, the bitwise and the logical operators on `number` and `unsigned`.
//! Mixing types needs a conversion, written as Soufflé writes it (`to_float(x)`), which
//! the checker resolves by its operand's type: between two numeric types it is an
//! [`Expr::Typed`], from or to `symbol` a string functor ([`Expr::Str`]), and to the
//! operand's own type nothing at all.

use super::{RuleChecker, FRESH};
use crate::diagnostic::Diagnostic;
use crate::program::{Expr, RecordOp, Term};
use crate::records::NIL;
use crate::syntax::ast::{self, ArithOp, Type};
use crate::value::{encode_float, encode_unsigned, Value};

/// The type of integer literals with nothing else to type them: `unsigned` when one of
/// `terms` holds a literal beyond `i64::MAX`, else `number`.
pub(super) fn literal_type<'t>(terms: impl IntoIterator<Item = &'t ast::Term>) -> Type {
    fn big(t: &ast::Term) -> bool {
        match t {
            ast::Term::BigNum(..) => true,
            ast::Term::Expr(e) => e.args.iter().any(big),
            _ => false,
        }
    }
    if terms.into_iter().any(big) {
        Type::Unsigned
    } else {
        Type::Number
    }
}

impl RuleChecker<'_> {
    /// The constant `t` as a value of the column type `expected` (`what` names the column
    /// for the message).
    pub(super) fn constant(
        &mut self,
        t: &ast::Term,
        expected: Type,
        what: &str,
    ) -> Result<Term, Diagnostic> {
        let mismatch = |this: &Self| {
            this.err(
                t.span(),
                format!(
                    "type mismatch: {what} has type `{}`, this constant does not",
                    expected.keyword()
                ),
                "wrong constant type",
            )
        };
        match (t, expected) {
            (ast::Term::Str(s, _), Type::Symbol) => Ok(Term::Const(self.symbols.intern(s))),
            (ast::Term::Num(n, _), ty) if ty.is_numeric() => {
                Ok(Term::Const(self.integer_literal(t, *n, ty)?))
            }
            (ast::Term::Float(bits, _), Type::Float) => {
                Ok(Term::Const(encode_float(f64::from_bits(*bits))))
            }
            (ast::Term::Nil(_), Type::Record(id)) if !crate::records::record_type(id).is_adt() => {
                Ok(Term::Const(NIL))
            }
            (ast::Term::BigNum(n, _), Type::Unsigned) => Ok(Term::Const(encode_unsigned(*n))),
            (ast::Term::BigNum(n, _), Type::Float) => Ok(Term::Const(encode_float(*n as f64))),
            (ast::Term::BigNum(n, _), Type::Number) => Err(self.err(
                t.span(),
                format!("the constant {n} is beyond the largest `number`, 2^63 - 1"),
                "an `unsigned` or `float` column takes it",
            )),
            (
                ast::Term::Str(..)
                | ast::Term::Num(..)
                | ast::Term::Float(..)
                | ast::Term::BigNum(..)
                | ast::Term::Nil(_),
                _,
            ) => Err(mismatch(self)),
            _ => unreachable!("only constants reach here"),
        }
    }

    /// The integer literal `n` (written at `t`) as a value of the numeric type `ty`.
    fn integer_literal(&self, t: &ast::Term, n: i64, ty: Type) -> Result<Value, Diagnostic> {
        Ok(match ty {
            Type::Unsigned => {
                let Ok(u) = u64::try_from(n) else {
                    return Err(self.err(
                        t.span(),
                        format!("the constant {n} is negative but has type `unsigned` here"),
                        "an `unsigned` is 0 or more",
                    ));
                };
                encode_unsigned(u)
            }
            Type::Float => encode_float(n as f64),
            _ => n,
        })
    }

    /// The type `t` has before its context is known: a bound variable's, a string's, a
    /// float literal's, an operator's from its operands or its result; `None` for an
    /// integer literal, an unbound variable, and an operator over nothing else.
    pub(super) fn natural_type(&self, t: &ast::Term) -> Option<Type> {
        match t {
            ast::Term::Var(id) => self
                .vars
                .iter()
                .find(|(n, _)| *n == id.name)
                .map(|(_, ty)| *ty),
            ast::Term::Num(..) | ast::Term::BigNum(..) | ast::Term::Wildcard(_) => None,
            ast::Term::Float(..) => Some(Type::Float),
            ast::Term::Str(..) => Some(Type::Symbol),
            // A record's type is its context's.
            ast::Term::Record(..) | ast::Term::Nil(_) => None,
            ast::Term::Ctor(name, ..) => self.ctor(&name.name).map(|(id, _)| Type::Record(id)),
            ast::Term::Field(_, _, ty, _) => Some(*ty),
            ast::Term::Aggregate(_) | ast::Term::Range(..) => {
                unreachable!("the parser lifts aggregates and ranges out of terms")
            }
            ast::Term::Expr(e) => match e.op {
                ArithOp::ToNumber => Some(Type::Number),
                ArithOp::ToUnsigned => Some(Type::Unsigned),
                ArithOp::ToFloat => Some(Type::Float),
                op if op.is_string() => Some(op.signature().1),
                _ => e.args.iter().find_map(|a| self.natural_type(a)),
            },
        }
    }

    /// A term whose variables are all bound, as an expression with its type; an integer
    /// literal (also inside an operator with no operand of a known type) takes the numeric
    /// type `hint`, or `number` without one.
    pub(super) fn expr(
        &mut self,
        t: &ast::Term,
        hint: Option<Type>,
    ) -> Result<(Expr, Type), Diagnostic> {
        Ok(match t {
            ast::Term::Var(id) => {
                let (term, ty) = self.bound_var(id, "an expression")?;
                (Expr::Term(term), ty)
            }
            ast::Term::Num(n, _) => {
                let ty = hint.filter(|h| h.is_numeric()).unwrap_or(Type::Number);
                (
                    Expr::Term(Term::Const(self.integer_literal(t, *n, ty)?)),
                    ty,
                )
            }
            ast::Term::Float(bits, _) => (
                Expr::Term(Term::Const(encode_float(f64::from_bits(*bits)))),
                Type::Float,
            ),
            ast::Term::BigNum(..) => {
                let ty = match hint {
                    Some(Type::Float) => Type::Float,
                    Some(Type::Number) => Type::Number,
                    _ => Type::Unsigned,
                };
                (Expr::Term(self.constant(t, ty, "this constant")?), ty)
            }
            ast::Term::Str(s, _) => (
                Expr::Term(Term::Const(self.symbols.intern(s))),
                Type::Symbol,
            ),
            ast::Term::Wildcard(s) => {
                return Err(self.err(
                    *s,
                    "`_` cannot be used in an expression or equated".into(),
                    "use a variable bound by a body atom",
                ))
            }
            ast::Term::Nil(_) => match hint {
                Some(ty @ Type::Record(id)) if !crate::records::record_type(id).is_adt() => {
                    (Expr::Term(Term::Const(NIL)), ty)
                }
                _ => return Err(self.unknown_record_type(t)),
            },
            ast::Term::Record(args, span) => {
                let Some(ty @ Type::Record(id)) = hint else {
                    return Err(self.unknown_record_type(t));
                };
                let rt = crate::records::record_type(id);
                if rt.is_adt() {
                    return Err(self.not_of_kind(t, id));
                }
                let mut fields = Vec::with_capacity(args.len());
                self.fields(&rt.name, &rt.fields, args, *span, &mut fields)?;
                (
                    Expr::Record(RecordOp::Pack, fields, self.symbols.clone()),
                    ty,
                )
            }
            ast::Term::Field(r, i, fty, _) => {
                let (e, _) = self.expr(r, None)?;
                (
                    Expr::Record(RecordOp::Field(*i), vec![e], self.symbols.clone()),
                    *fty,
                )
            }
            ast::Term::Aggregate(_) | ast::Term::Range(..) => {
                unreachable!("the parser lifts aggregates and ranges out of terms")
            }
            ast::Term::Ctor(name, args, span) => {
                let Some((id, tag)) = self.ctor(&name.name) else {
                    return Err(self.err(
                        name.span,
                        format!("unknown constructor `${}`", name.name),
                        "no ADT of the program's columns has this branch",
                    ));
                };
                let branch = &crate::records::record_type(id).branches[tag];
                let mut fields = vec![Expr::Term(Term::Const(tag as Value))];
                let owner = format!("${}", branch.name);
                self.fields(&owner, &branch.fields, args, *span, &mut fields)?;
                (
                    Expr::Record(RecordOp::Pack, fields, self.symbols.clone()),
                    Type::Record(id),
                )
            }
            ast::Term::Expr(e) => match e.op {
                ArithOp::ToNumber | ArithOp::ToUnsigned | ArithOp::ToFloat | ArithOp::ToString => {
                    self.conversion(e)?
                }
                op if op.is_string() => self.string_functor(e)?,
                _ => self.arithmetic(e, hint)?,
            },
        })
    }

    /// An operator over numbers (or `+` over symbols: `cat`), its operands of one type: the
    /// first numeric type an operand has of itself, else the context's.
    fn arithmetic(
        &mut self,
        e: &ast::Expr,
        hint: Option<Type>,
    ) -> Result<(Expr, Type), Diagnostic> {
        let natural: Vec<Option<Type>> = e.args.iter().map(|a| self.natural_type(a)).collect();
        // Soufflé reads `+` on two symbols as their concatenation.
        if e.op == ArithOp::Add && natural.iter().all(|&t| t == Some(Type::Symbol)) {
            return self.string_functor(&ast::Expr {
                op: ArithOp::Cat,
                ..e.clone()
            });
        }
        let ty = natural
            .iter()
            .flatten()
            .copied()
            .find(|t| t.is_numeric())
            .or(hint.filter(|h| h.is_numeric()))
            .unwrap_or_else(|| literal_type(&e.args));
        let mut args = Vec::with_capacity(e.args.len());
        for a in &e.args {
            let (arg, aty) = self.expr(a, Some(ty))?;
            if aty != ty {
                let label = if aty == Type::Symbol {
                    "arithmetic on a symbol"
                } else {
                    "convert with `to_number`, `to_unsigned` or `to_float`"
                };
                return Err(self.err(
                    a.span(),
                    format!(
                        "type mismatch: `{}` needs a `{}` here, this is a `{}`",
                        e.op.symbol(),
                        ty.keyword(),
                        aty.keyword()
                    ),
                    label,
                ));
            }
            args.push(arg);
        }
        if !e.op.applies_to(ty) {
            let on = match ty {
                Type::Symbol => "symbols (only `+` is: it concatenates them)",
                Type::Float => "`float`s (`+ - * / ^`, `min`, `max` and unary `-` are)",
                _ => "`unsigned`s (all but unary `-` are)",
            };
            return Err(self.err(
                e.span,
                format!("`{}` is not defined on {on}", e.op.symbol()),
                if ty == Type::Symbol {
                    "arithmetic on a symbol"
                } else {
                    "operator and type do not fit"
                },
            ));
        }
        let checked = match ty {
            Type::Number => Expr::Op(e.op, args),
            ty => Expr::Typed(ty, e.op, args),
        };
        Ok((checked, ty))
    }

    /// The fields `args` (written at `span`) of the record type or constructor `owner`, of
    /// the types `types`, checked and appended to `out`.
    fn fields(
        &mut self,
        owner: &str,
        types: &[(String, Type)],
        args: &[ast::Term],
        span: crate::diagnostic::Span,
        out: &mut Vec<Expr>,
    ) -> Result<(), Diagnostic> {
        if types.len() != args.len() {
            return Err(self.record_arity(
                span,
                owner.trim_start_matches('$'),
                types.len(),
                args.len(),
            ));
        }
        for (a, (fname, fty)) in args.iter().zip(types) {
            let (e, aty) = self.expr(a, Some(*fty))?;
            if aty != *fty {
                return Err(self.err(
                    a.span(),
                    format!(
                        "type mismatch: field `{fname}` of `{owner}` has type `{}`, this is a `{}`",
                        fty.keyword(),
                        aty.keyword()
                    ),
                    "wrong field type",
                ));
            }
            out.push(e);
        }
        Ok(())
    }

    /// The error for a record or `nil` whose record type nothing in its context gives.
    fn unknown_record_type(&self, t: &ast::Term) -> Diagnostic {
        let what = if matches!(t, ast::Term::Nil(_)) {
            "`nil`"
        } else {
            "this record"
        };
        self.err(
            t.span(),
            format!("the record type of {what} is not known here"),
            "write it in a column of a record type, or compare it with a variable of one",
        )
    }

    /// The error for a record or constructor of `n` fields where the record type or branch
    /// `owner` of `expected` fields is.
    pub(super) fn record_arity(
        &self,
        span: crate::diagnostic::Span,
        owner: &str,
        expected: usize,
        n: usize,
    ) -> Diagnostic {
        self.err(
            span,
            format!("`{owner}` has {expected} field(s), this has {n}"),
            "wrong number of fields",
        )
    }

    /// The ADT (its registry index) with the branch `name`, and the branch's tag.
    pub(super) fn ctor(&self, name: &str) -> Option<(u32, usize)> {
        self.adts.iter().find_map(|&id| {
            crate::records::record_type(id)
                .branch(name)
                .map(|(tag, _)| (id, tag))
        })
    }

    /// The error for the constructor `name` where the ADT `id` has no such branch.
    pub(super) fn no_branch(&self, name: &ast::Ident, id: u32) -> Diagnostic {
        let rt = crate::records::record_type(id);
        let branches: Vec<String> = rt.branches.iter().map(|b| format!("${}", b.name)).collect();
        self.err(
            name.span,
            format!("`{}` has no branch `{}`", rt.name, name.name),
            &format!("its branches: {}", branches.join(", ")),
        )
    }

    /// The error for a record where an ADT is expected, or a constructor where a record is.
    pub(super) fn not_of_kind(&self, t: &ast::Term, id: u32) -> Diagnostic {
        let rt = crate::records::record_type(id);
        let (msg, label) = if rt.is_adt() {
            (
                format!("type mismatch: `{}` is an ADT, this is a record", rt.name),
                "write a constructor: `$Branch(...)`",
            )
        } else {
            (
                format!(
                    "type mismatch: `{}` is a record type, this is a constructor",
                    rt.name
                ),
                "write a record: `[...]`",
            )
        };
        self.err(t.span(), msg, label)
    }

    /// `to_number`, `to_unsigned`, `to_float` or `to_string` of one operand, resolved by
    /// the operand's type (the module header).
    fn conversion(&mut self, e: &ast::Expr) -> Result<(Expr, Type), Diagnostic> {
        let (arg, from) = self.expr(&e.args[0], None)?;
        if let Type::Record(_) = from {
            return Err(self.err(
                e.args[0].span(),
                format!(
                    "type mismatch: `{}` converts numbers and symbols, this is a `{}` record",
                    e.op.symbol(),
                    from.keyword()
                ),
                "a record cannot be converted",
            ));
        }
        if e.op == ArithOp::ToString && from == Type::Symbol {
            return Err(self.err(
                e.args[0].span(),
                "type mismatch: `to_string` needs a `number`, `unsigned` or `float` here, this is a `symbol`".into(),
                "a number where a symbol is needed",
            ));
        }
        let to = match e.op {
            ArithOp::ToNumber => Type::Number,
            ArithOp::ToUnsigned => Type::Unsigned,
            ArithOp::ToFloat => Type::Float,
            _ => Type::Symbol,
        };
        if from == to {
            return Ok((arg, to));
        }
        let checked = match (from, to) {
            (Type::Symbol, _) => Expr::Str(e.op, vec![arg], self.symbols.clone()),
            (Type::Number, Type::Symbol) => {
                Expr::Str(ArithOp::ToString, vec![arg], self.symbols.clone())
            }
            (Type::Unsigned, Type::Symbol) => {
                Expr::Str(ArithOp::UnsignedToString, vec![arg], self.symbols.clone())
            }
            (Type::Float, Type::Symbol) => {
                Expr::Str(ArithOp::FloatToString, vec![arg], self.symbols.clone())
            }
            (from, _) => Expr::Typed(from, e.op, vec![arg]),
        };
        Ok((checked, to))
    }

    /// A string functor or constraint of fixed operand types ([`ArithOp::signature`]).
    fn string_functor(&mut self, e: &ast::Expr) -> Result<(Expr, Type), Diagnostic> {
        let (operands, result) = e.op.signature();
        let mut args = Vec::with_capacity(e.args.len());
        for (i, a) in e.args.iter().enumerate() {
            let wanted = match operands {
                ast::Operands::Fixed(ts) => ts[i],
                ast::Operands::AtLeastOne(t) => t,
            };
            let (arg, ty) = self.expr(a, Some(wanted))?;
            if ty != wanted {
                let label = if wanted == Type::Symbol {
                    "a number where a symbol is needed"
                } else {
                    "arithmetic on a symbol"
                };
                let op = if e.op == ArithOp::Cat && e.args.len() == 2 {
                    "+` or `cat"
                } else {
                    e.op.symbol()
                };
                return Err(self.err(
                    a.span(),
                    format!(
                        "type mismatch: `{op}` needs a `{}` here, this is a `{}`",
                        wanted.keyword(),
                        ty.keyword()
                    ),
                    label,
                ));
            }
            args.push(arg);
        }
        if e.op == ArithOp::Match {
            if let ast::Term::Str(pattern, span) = &e.args[0] {
                if crate::strings::compile(pattern).is_none() {
                    return Err(self.err(
                        *span,
                        format!(
                            "`{}` is not a valid regular expression",
                            crate::value::quote(pattern)
                        ),
                        "invalid pattern (the `regex` crate's syntax)",
                    ));
                }
            }
        }
        Ok((Expr::Str(e.op, args, self.symbols.clone()), result))
    }

    /// The value of an expression without variables (a fact's argument) of the column type
    /// `hint`, with its type, or `None` when it has none (a division by zero).
    pub(super) fn constant_expr(
        &mut self,
        t: &ast::Term,
        hint: Option<Type>,
    ) -> Result<Option<(Value, Type)>, Diagnostic> {
        if let Some(v) = self.first_unbound(t) {
            return Err(self.err(
                v.span,
                format!("variable `{}` in a fact", v.name),
                "a fact's arguments are constants",
            ));
        }
        let (e, ty) = self.expr(t, hint)?;
        Ok(
            e.eval(&|_| unreachable!("a fact's expression has no variable"))
                .map(|v| (v, ty)),
        )
    }

    /// The message for an expression of type `ty` in a place of type `wanted`: the fresh
    /// variable of an atom's expression names the column, a user's variable itself.
    pub(super) fn mismatch_message(var: &str, ty: Type, wanted: Type) -> String {
        if var.starts_with(FRESH) {
            format!(
                "type mismatch: this expression is a `{}` but its column has type `{}`",
                ty.keyword(),
                wanted.keyword()
            )
        } else {
            format!(
                "type mismatch: `{var}` is a `{}` but is equated with a `{}`",
                wanted.keyword(),
                ty.keyword()
            )
        }
    }
}
