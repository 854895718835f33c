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

use crate::syntax::ast::ArithOp;
use crate::value::Value;

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
