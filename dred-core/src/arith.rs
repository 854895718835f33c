//! What arithmetic means on values: the one definition of every operator and functor of
//! [`ArithOp`] over 64-bit numbers, used by every engine (the oracle included: it is
//! independent of the others in how it evaluates rules, not in what `+` means; the tests
//! below pin each operator down).
//!
//! Where Soufflé's meaning is undefined or differs, this is the choice made (README,
//! "Arithmetic"):
//! - numbers are 64-bit (Soufflé's default `number` is 32-bit) and `+ - *`, unary `-` and
//!   `^` wrap around on overflow, as two's complement arithmetic does;
//! - `x / 0` and `x % 0` have no value (Soufflé stops with a floating-point exception): the
//!   rule instance that computes one derives nothing; `i64::MIN / -1` wraps to `i64::MIN`
//!   and `i64::MIN % -1` is 0;
//! - a shift amount is taken modulo 64 (its low six bits, negative amounts included, as
//!   x86 does): `x bshl 64` is x, `x bshl -1` is `x bshl 63`;
//! - `x ^ y` with y < 0 is 1 / x^|y| truncated towards zero (what Soufflé's conversion of
//!   `pow`'s floating-point result gives): 1 for x = 1, ±1 for x = -1, no value for x = 0
//!   (a division by zero), 0 otherwise;
//! - the logical operators read 0 as false and anything else as true, and give 0 or 1.

use crate::syntax::ast::{ArithOp, Type};
use crate::value::{decode_float, decode_unsigned, encode_float, encode_unsigned, Value};

/// The value of `op` applied to `args`, or `None` where it has none (a division or modulo
/// by zero, a negative power of zero). `args` has one value for a prefix operator, two for
/// a binary one and at least one for `min` and `max` (the checker guarantees it).
pub fn apply(op: ArithOp, args: &[Value]) -> Option<Value> {
    let x = args[0];
    let y = || args[1];
    let truth = |b: bool| Value::from(b);
    Some(match op {
        ArithOp::Neg => x.wrapping_neg(),
        ArithOp::BNot => !x,
        ArithOp::LNot => truth(x == 0),
        ArithOp::Add => x.wrapping_add(y()),
        ArithOp::Sub => x.wrapping_sub(y()),
        ArithOp::Mul => x.wrapping_mul(y()),
        ArithOp::Div => {
            if y() == 0 {
                return None;
            }
            x.wrapping_div(y())
        }
        ArithOp::Mod => {
            if y() == 0 {
                return None;
            }
            x.wrapping_rem(y())
        }
        ArithOp::Pow => power(x, y())?,
        ArithOp::BAnd => x & y(),
        ArithOp::BOr => x | y(),
        ArithOp::BXor => x ^ y(),
        // `wrapping_sh*` take the amount modulo 64, which is the documented meaning; the
        // cast keeps the low bits of a negative amount.
        ArithOp::BShl => x.wrapping_shl(y() as u32),
        ArithOp::BShr => x.wrapping_shr(y() as u32),
        ArithOp::BShrU => (x as u64).wrapping_shr(y() as u32) as Value,
        ArithOp::LAnd => truth(x != 0 && y() != 0),
        ArithOp::LOr => truth(x != 0 || y() != 0),
        ArithOp::LXor => truth((x != 0) != (y() != 0)),
        ArithOp::Min => *args.iter().min().expect("at least one operand"),
        ArithOp::Max => *args.iter().max().expect("at least one operand"),
        op => unreachable!(
            "`{}` is a string functor: the checker makes it an `Expr::Str`",
            op.symbol()
        ),
    })
}

/// The value of `op` on operands of the numeric type `ty` (the words of
/// [`crate::value::encode_unsigned`] or [`crate::value::encode_float`], or plain `number`s
/// for a conversion from `number`), or `None` where it has none. The arithmetic operators
/// give a value of `ty`; `to_number`, `to_unsigned` and `to_float` convert to their type.
/// Choices where Soufflé's meaning is undefined or differs (README, "Numeric types"):
/// - `unsigned` is 64-bit: `+ - * ^` and the shifts wrap modulo 2^64, `/` and `%` by 0
///   have no value, a shift amount is taken modulo 64;
/// - `float` is IEEE 754 double precision (Soufflé's default `float` is 32-bit): `x / 0.0`
///   is an infinity or NaN, as IEEE says, and `^` is `powf`;
/// - a conversion to an integer type truncates towards zero and saturates (NaN gives 0),
///   as Rust's `as` does (C leaves an out-of-range conversion undefined); `number` to
///   `unsigned` and back reinterpret the 64 bits (two's complement), as C's casts do.
pub fn apply_typed(ty: Type, op: ArithOp, args: &[Value]) -> Option<Value> {
    match op {
        ArithOp::ToNumber | ArithOp::ToUnsigned | ArithOp::ToFloat => {
            return Some(convert(ty, op, args[0]))
        }
        _ => {}
    }
    match ty {
        Type::Unsigned => unsigned(op, args),
        Type::Float => float(op, args),
        Type::Number => apply(op, args),
        Type::Symbol | Type::Record(_) => {
            unreachable!("the checker keeps symbols and records out of arithmetic")
        }
    }
}

/// `to_number`, `to_unsigned` or `to_float` (`op`) of `x`, a value of `from`.
fn convert(from: Type, op: ArithOp, x: Value) -> Value {
    match (from, op) {
        (Type::Number, ArithOp::ToUnsigned) => encode_unsigned(x as u64),
        (Type::Number, ArithOp::ToFloat) => encode_float(x as f64),
        (Type::Unsigned, ArithOp::ToNumber) => decode_unsigned(x) as Value,
        (Type::Unsigned, ArithOp::ToFloat) => encode_float(decode_unsigned(x) as f64),
        (Type::Float, ArithOp::ToNumber) => decode_float(x) as Value,
        (Type::Float, ArithOp::ToUnsigned) => encode_unsigned(decode_float(x) as u64),
        _ => x,
    }
}

/// An arithmetic operator on `unsigned` words.
fn unsigned(op: ArithOp, args: &[Value]) -> Option<Value> {
    let x = decode_unsigned(args[0]);
    let y = || decode_unsigned(args[1]);
    let truth = |b: bool| u64::from(b);
    let r = match op {
        ArithOp::BNot => !x,
        ArithOp::LNot => truth(x == 0),
        ArithOp::Add => x.wrapping_add(y()),
        ArithOp::Sub => x.wrapping_sub(y()),
        ArithOp::Mul => x.wrapping_mul(y()),
        ArithOp::Div => x.checked_div(y())?,
        ArithOp::Mod => x.checked_rem(y())?,
        ArithOp::Pow => {
            let (mut result, mut base, mut exp) = (1u64, x, y());
            while exp > 0 {
                if exp & 1 == 1 {
                    result = result.wrapping_mul(base);
                }
                base = base.wrapping_mul(base);
                exp >>= 1;
            }
            result
        }
        ArithOp::BAnd => x & y(),
        ArithOp::BOr => x | y(),
        ArithOp::BXor => x ^ y(),
        ArithOp::BShl => x.wrapping_shl(y() as u32),
        ArithOp::BShr | ArithOp::BShrU => x.wrapping_shr(y() as u32),
        ArithOp::LAnd => truth(x != 0 && y() != 0),
        ArithOp::LOr => truth(x != 0 || y() != 0),
        ArithOp::LXor => truth((x != 0) != (y() != 0)),
        // The encoding keeps order: the extreme word is the extreme value.
        ArithOp::Min => return args.iter().min().copied(),
        ArithOp::Max => return args.iter().max().copied(),
        op => unreachable!("`{}` on `unsigned` is refused by the checker", op.symbol()),
    };
    Some(encode_unsigned(r))
}

/// An arithmetic operator on `float` words.
fn float(op: ArithOp, args: &[Value]) -> Option<Value> {
    let x = decode_float(args[0]);
    let y = || decode_float(args[1]);
    let r = match op {
        ArithOp::Neg => -x,
        ArithOp::Add => x + y(),
        ArithOp::Sub => x - y(),
        ArithOp::Mul => x * y(),
        ArithOp::Div => x / y(),
        ArithOp::Pow => x.powf(y()),
        ArithOp::Min => return args.iter().min().copied(),
        ArithOp::Max => return args.iter().max().copied(),
        op => unreachable!("`{}` on `float` is refused by the checker", op.symbol()),
    };
    Some(encode_float(r))
}

/// The sum of `values` of the numeric type `ty`, as every engine's `sum` aggregate computes
/// it: wrapping for the integer types; for `float`, added in ascending order, so that a
/// group's sum is one value whatever order an engine meets its rows in (floating-point
/// addition is not associative). Repeated values are added once each time they occur.
pub fn sum(ty: Type, values: impl Iterator<Item = Value>) -> Value {
    match ty {
        Type::Float => {
            let mut words: Vec<Value> = values.collect();
            words.sort_unstable();
            encode_float(words.into_iter().map(decode_float).fold(0.0, |s, f| s + f))
        }
        Type::Unsigned => encode_unsigned(
            values
                .map(decode_unsigned)
                .fold(0u64, |s, u| s.wrapping_add(u)),
        ),
        _ => values.fold(0, |s: Value, v| s.wrapping_add(v)),
    }
}

/// `v`, a value of the integer type `ty` (`number` or `unsigned`), added to itself `m`
/// times, wrapping: what [`sum`] gives for `m` copies of `v`.
pub fn times(ty: Type, v: Value, m: Value) -> Value {
    match ty {
        Type::Unsigned => encode_unsigned(decode_unsigned(v).wrapping_mul(m as u64)),
        _ => v.wrapping_mul(m),
    }
}

/// `base ^ exp` by repeated squaring, wrapping; see the module's header for `exp < 0`.
fn power(base: Value, exp: Value) -> Option<Value> {
    if exp < 0 {
        return match base {
            0 => None,
            1 => Some(1),
            -1 => Some(if exp % 2 == 0 { 1 } else { -1 }),
            _ => Some(0),
        };
    }
    let (mut result, mut base, mut exp): (Value, Value, u64) = (1, base, exp as u64);
    while exp > 0 {
        if exp & 1 == 1 {
            result = result.wrapping_mul(base);
        }
        base = base.wrapping_mul(base);
        exp >>= 1;
    }
    Some(result)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ArithOp::*;

    fn ap(op: ArithOp, args: &[Value]) -> Option<Value> {
        apply(op, args)
    }

    fn un(x: u64) -> Value {
        encode_unsigned(x)
    }

    fn fl(x: f64) -> Value {
        encode_float(x)
    }

    #[test]
    fn unsigned_operators_wrap_and_compare_unsigned() {
        let u = |op, a: &[u64]| {
            let words: Vec<Value> = a.iter().map(|&x| un(x)).collect();
            apply_typed(Type::Unsigned, op, &words).map(decode_unsigned)
        };
        assert_eq!(u(Add, &[u64::MAX, 2]), Some(1));
        assert_eq!(u(Sub, &[0, 1]), Some(u64::MAX));
        assert_eq!(u(Div, &[u64::MAX, 2]), Some(u64::MAX / 2));
        assert_eq!(u(Div, &[7, 0]), None);
        assert_eq!(u(Mod, &[7, 0]), None);
        assert_eq!(u(BShr, &[1 << 63, 63]), Some(1));
        assert_eq!(u(Pow, &[2, 64]), Some(0));
        assert_eq!(u(Max, &[1, u64::MAX, 3]), Some(u64::MAX));
        assert_eq!(u(Min, &[1 << 63, 5]), Some(5));
        assert_eq!(u(LNot, &[0]), Some(1));
    }

    #[test]
    fn float_operators_follow_ieee() {
        let f = |op, a: &[f64]| {
            let words: Vec<Value> = a.iter().map(|&x| fl(x)).collect();
            apply_typed(Type::Float, op, &words).map(decode_float)
        };
        assert_eq!(f(Add, &[0.5, 0.25]), Some(0.75));
        assert_eq!(f(Div, &[1.0, 0.0]), Some(f64::INFINITY));
        assert!(f(Div, &[0.0, 0.0]).is_some_and(f64::is_nan));
        assert_eq!(f(Neg, &[0.0]), Some(0.0));
        assert_eq!(f(Pow, &[2.0, 0.5]), Some(2f64.sqrt()));
        assert_eq!(f(Min, &[-1.5, 2.0, -3.0]), Some(-3.0));
        assert_eq!(f(Max, &[-1.5, 2.0, -3.0]), Some(2.0));
    }

    #[test]
    fn conversions_truncate_saturate_and_reinterpret() {
        let c = |from, op, x| apply_typed(from, op, &[x]).expect("a conversion has a value");
        assert_eq!(c(Type::Float, ToNumber, fl(-2.7)), -2);
        assert_eq!(c(Type::Float, ToNumber, fl(1e30)), i64::MAX);
        assert_eq!(c(Type::Float, ToNumber, fl(f64::NAN)), 0);
        assert_eq!(c(Type::Float, ToUnsigned, fl(-1.0)), un(0));
        assert_eq!(c(Type::Number, ToUnsigned, -1), un(u64::MAX));
        assert_eq!(c(Type::Unsigned, ToNumber, un(u64::MAX)), -1);
        assert_eq!(c(Type::Number, ToFloat, 3), fl(3.0));
        assert_eq!(
            c(Type::Unsigned, ToFloat, un(1 << 63)),
            fl(9223372036854775808.0)
        );
    }

    #[test]
    fn float_sums_do_not_depend_on_row_order() {
        let vals = [fl(1e16), fl(1.0), fl(-1e16), fl(1.0)];
        let forward = sum(Type::Float, vals.iter().copied());
        let backward = sum(Type::Float, vals.iter().rev().copied());
        assert_eq!(forward, backward);
        assert_eq!(
            sum(Type::Unsigned, [un(u64::MAX), un(2)].into_iter()),
            un(1)
        );
        assert_eq!(sum(Type::Number, [i64::MAX, 1].into_iter()), i64::MIN);
        let u = un(u64::MAX - 1);
        assert_eq!(
            times(Type::Unsigned, u, 3),
            sum(Type::Unsigned, [u, u, u].into_iter())
        );
        assert_eq!(times(Type::Number, -7, 3), -21);
    }

    #[test]
    fn the_four_operations_wrap_at_64_bits() {
        assert_eq!(ap(Add, &[2, 3]), Some(5));
        assert_eq!(ap(Add, &[i64::MAX, 1]), Some(i64::MIN));
        assert_eq!(ap(Sub, &[2, 3]), Some(-1));
        assert_eq!(ap(Sub, &[i64::MIN, 1]), Some(i64::MAX));
        assert_eq!(ap(Mul, &[-4, 5]), Some(-20));
        assert_eq!(ap(Mul, &[i64::MAX, 2]), Some(-2));
        assert_eq!(ap(Neg, &[7]), Some(-7));
        assert_eq!(ap(Neg, &[i64::MIN]), Some(i64::MIN));
    }

    #[test]
    fn division_truncates_and_by_zero_has_no_value() {
        assert_eq!(ap(Div, &[7, 2]), Some(3));
        assert_eq!(ap(Div, &[-7, 2]), Some(-3));
        assert_eq!(ap(Div, &[7, -2]), Some(-3));
        assert_eq!(ap(Div, &[i64::MIN, -1]), Some(i64::MIN));
        assert_eq!(ap(Div, &[7, 0]), None);
        assert_eq!(ap(Div, &[0, 0]), None);
        assert_eq!(ap(Mod, &[7, 3]), Some(1));
        assert_eq!(ap(Mod, &[-7, 3]), Some(-1));
        assert_eq!(ap(Mod, &[7, -3]), Some(1));
        assert_eq!(ap(Mod, &[i64::MIN, -1]), Some(0));
        assert_eq!(ap(Mod, &[7, 0]), None);
    }

    #[test]
    fn powers_wrap_and_negative_exponents_truncate() {
        assert_eq!(ap(Pow, &[2, 10]), Some(1024));
        assert_eq!(ap(Pow, &[-3, 3]), Some(-27));
        assert_eq!(ap(Pow, &[5, 0]), Some(1));
        assert_eq!(ap(Pow, &[0, 0]), Some(1));
        assert_eq!(ap(Pow, &[2, 63]), Some(i64::MIN));
        assert_eq!(ap(Pow, &[2, 64]), Some(0));
        assert_eq!(ap(Pow, &[3, 40]), Some(3i64.wrapping_pow(40)));
        assert_eq!(ap(Pow, &[-1, i64::MAX]), Some(-1));
        assert_eq!(ap(Pow, &[2, i64::MAX]), Some(0));
        assert_eq!(ap(Pow, &[2, -1]), Some(0));
        assert_eq!(ap(Pow, &[1, -5]), Some(1));
        assert_eq!(ap(Pow, &[-1, -3]), Some(-1));
        assert_eq!(ap(Pow, &[-1, -4]), Some(1));
        assert_eq!(ap(Pow, &[0, -1]), None);
    }

    #[test]
    fn bitwise_operators_and_shifts_modulo_64() {
        assert_eq!(ap(BAnd, &[0b1100, 0b1010]), Some(0b1000));
        assert_eq!(ap(BOr, &[0b1100, 0b1010]), Some(0b1110));
        assert_eq!(ap(BXor, &[0b1100, 0b1010]), Some(0b0110));
        assert_eq!(ap(BNot, &[0]), Some(-1));
        assert_eq!(ap(BShl, &[1, 4]), Some(16));
        assert_eq!(ap(BShl, &[1, 63]), Some(i64::MIN));
        assert_eq!(ap(BShl, &[1, 64]), Some(1));
        assert_eq!(ap(BShl, &[1, 65]), Some(2));
        assert_eq!(ap(BShl, &[1, -1]), Some(i64::MIN));
        assert_eq!(ap(BShr, &[-16, 2]), Some(-4));
        assert_eq!(ap(BShr, &[16, 66]), Some(4));
        assert_eq!(ap(BShrU, &[-1, 60]), Some(15));
        assert_eq!(ap(BShrU, &[-16, 0]), Some(-16));
        assert_eq!(ap(BShrU, &[-1, 64]), Some(-1));
    }

    #[test]
    fn logical_operators_give_zero_or_one() {
        assert_eq!(ap(LAnd, &[3, -2]), Some(1));
        assert_eq!(ap(LAnd, &[3, 0]), Some(0));
        assert_eq!(ap(LOr, &[0, 0]), Some(0));
        assert_eq!(ap(LOr, &[0, 5]), Some(1));
        assert_eq!(ap(LXor, &[4, 5]), Some(0));
        assert_eq!(ap(LXor, &[0, 5]), Some(1));
        assert_eq!(ap(LNot, &[0]), Some(1));
        assert_eq!(ap(LNot, &[9]), Some(0));
    }

    #[test]
    fn min_and_max_take_any_number_of_operands() {
        assert_eq!(ap(Min, &[3]), Some(3));
        assert_eq!(ap(Min, &[3, -1, 2]), Some(-1));
        assert_eq!(ap(Max, &[3, -1, 2]), Some(3));
        assert_eq!(ap(Max, &[i64::MIN, i64::MAX]), Some(i64::MAX));
    }
}

/// Arithmetic through the engines of this crate: an instance whose expression has no value
/// derives nothing, an assignment to a variable an atom bound checks it, and every engine
/// gives the oracle's model.
#[cfg(test)]
mod engine_tests {
    use std::sync::Arc;

    use crate::engine::{Edb, Engine, Fact};
    use crate::{load_program, Bf, Dred, Oracle, Recompute, SourceFile, Symbols};

    #[test]
    fn engines_compute_check_and_skip_instances_without_a_value() {
        let src = ".decl e(x: number, y: number)\n.input e\n\
                   .decl q(x: number, v: number)\n.decl d(x: number)\n\
                   q(x, y / x) :- e(x, y).\n\
                   d(x) :- e(x, y), y = x * 2.\n\
                   q(x, v) :- q(v, x), v < 100, x bshl 1 > v.\n";
        let program = Arc::new(
            load_program(&SourceFile::new("p.dl", src), &mut Symbols::new()).expect("checks"),
        );
        let mut edb = Edb::empty(&program);
        for t in [[0, 5], [2, 5], [3, 6], [4, 8], [-9, 9]] {
            edb.insert(Fact::new(0, t.to_vec()));
        }
        let mut oracle = Oracle::new(program.clone());
        oracle.materialise(&edb).expect("oracle");
        let model = oracle.model();
        let rows = |name: &str| -> Vec<Vec<i64>> {
            let rel = program.relation_id(name).expect("declared");
            model.relations[rel].iter().cloned().collect()
        };
        // e(0, 5) has no y / x; the first rule gives q(2, 2), q(3, 2), q(4, 2), q(-9, -1);
        // the recursive rule swaps a pair q(v, x) when 2x > v: q(2, 2) itself, q(2, 3) from
        // q(3, 2), q(-1, -9) from q(-9, -1), and not q(2, 4) (4 > 4 fails).
        assert_eq!(
            rows("q"),
            [[-9, -1], [-1, -9], [2, 2], [2, 3], [3, 2], [4, 2]]
        );
        assert_eq!(rows("d"), [[3], [4]]);
        let mut engines: Vec<Box<dyn Engine>> = vec![
            Box::new(Recompute::new(program.clone())),
            Box::new(Dred::new(program.clone())),
            Box::new(Bf::new(program.clone())),
        ];
        for e in &mut engines {
            e.materialise(&edb).expect("materialises");
            assert_eq!(e.model(), model, "{}", e.name());
        }
    }
}
