//! The record types of the dataflow's collections and arrangements.
//!
//! A record is a short run of words: a relation's tuple, the bindings of an atom's variables, a
//! join key, or the variables a rule still needs. Every record of one dataflow has one type,
//! a [`Record`], chosen per program by the engine from the widest record its plan builds:
//!
//! - **fixed-width rows** `[u32; 2]` and `[u32; 4]` of *codes* ([`Codes`]) when every record
//!   has at most 2 or 4 words: what a user of differential-dataflow writes by hand for a
//!   graph, 8 or 16 bytes a record, no length, no heap. A record shorter than the type leaves
//!   its last words 0; records of different lengths never meet in one collection (the plan
//!   fixes each collection's width), so equality, order and hash stay those of the words;
//! - the general [`Row`] otherwise: values inline up to two, spilling to the heap beyond.
//!
//! Measured on linear TC over GO BP (`results/dd/README.md`): a hand-written dataflow takes
//! about twice as long to materialise over [`Row`] as over `u32`s, which is why the narrow
//! programs get fixed-width rows.
//!
//! Records cross worker and process boundaries, so they are serde-serialisable, and their hash
//! (which partitions data among workers) depends only on their words.

use std::collections::HashMap;
use std::sync::RwLock;

use dred_core::plan::compare;
use dred_core::syntax::ast::CmpOp;
use dred_core::Value;
use smallvec::SmallVec;

/// One general record: values in column order, inline up to two of them.
pub type Row = SmallVec<[Value; 2]>;

/// Differences of the dataflow's collections: signed multiplicities.
pub type Diff = isize;

/// The outer timestamp: the number of the batch (0 is the initial materialisation).
pub type Time = u64;

/// A general row holding exactly these values.
pub fn row(values: &[Value]) -> Row {
    Row::from_slice(values)
}

/// A record type of the dataflow: a run of words read and built by position.
///
/// A word is a value itself for [`Row`], and a code of [`Codes`] for fixed-width rows
/// (`ENCODED`); either way two records are equal exactly when their values are.
pub trait Record:
    differential_dataflow::ExchangeData + std::hash::Hash + Default + Send + Sync
{
    /// True when words are codes that [`Codes::decode`] turns back into values.
    const ENCODED: bool;

    /// The word at position `i` (below the record's width).
    fn word(&self, i: usize) -> Value;

    /// The record of these words, in order; no more than the type holds (the engine picks
    /// the type from the program's widest record).
    fn from_words<I: IntoIterator<Item = Value>>(words: I) -> Self;

    /// The record of a tuple of values.
    fn encode(tuple: &[Value], codes: &Codes) -> Result<Self, CodesExhausted>;

    /// The values of a record of `width` words.
    fn decode(&self, width: usize, codes: &Codes) -> Row;
}

impl Record for Row {
    const ENCODED: bool = false;

    #[inline]
    fn word(&self, i: usize) -> Value {
        self[i]
    }

    #[inline]
    fn from_words<I: IntoIterator<Item = Value>>(words: I) -> Self {
        words.into_iter().collect()
    }

    fn encode(tuple: &[Value], _: &Codes) -> Result<Self, CodesExhausted> {
        Ok(Row::from_slice(tuple))
    }

    fn decode(&self, width: usize, _: &Codes) -> Row {
        debug_assert_eq!(self.len(), width);
        self.clone()
    }
}

impl<const N: usize> Record for [u32; N]
where
    [u32; N]: serde::Serialize + for<'de> serde::Deserialize<'de> + Default,
{
    const ENCODED: bool = true;

    #[inline]
    fn word(&self, i: usize) -> Value {
        Value::from(self[i])
    }

    #[inline]
    fn from_words<I: IntoIterator<Item = Value>>(words: I) -> Self {
        let mut out = [0; N];
        for (slot, w) in out.iter_mut().zip(words) {
            // Words of encoded records are codes, which fit in 32 bits.
            *slot = w as u32;
        }
        out
    }

    fn encode(tuple: &[Value], codes: &Codes) -> Result<Self, CodesExhausted> {
        let mut out = [0; N];
        for (slot, &v) in out.iter_mut().zip(tuple.iter()) {
            *slot = codes.encode(v)? as u32;
        }
        Ok(out)
    }

    fn decode(&self, width: usize, codes: &Codes) -> Row {
        self[..width]
            .iter()
            .map(|&c| codes.decode(Value::from(c)))
            .collect()
    }
}

/// The first code given to a value outside `[0, 2^31)`.
const FIRST_BIG: Value = 1 << 31;

/// The table of codes of one engine: a value in `[0, 2^31)` — every symbol (symbols are dense
/// indices from 0) and every small natural number — is its own code, so equality and order
/// of codes are those of the values without a lookup; any other value gets the next free
/// code from 2^31 up, in the order values are first encoded. Encoding happens on the engine's
/// thread only, in stream order, so every process of a cluster, fed the same program, facts
/// and stream, gives every value the same code.
#[derive(Debug, Default)]
pub struct Codes {
    big: RwLock<BigValues>,
}

#[derive(Debug, Default)]
struct BigValues {
    code: HashMap<Value, Value>,
    value: Vec<Value>,
}

/// More than 2^31 distinct values outside `[0, 2^31)` were encoded.
#[derive(Clone, Copy, Debug, thiserror::Error)]
#[error("more than 2^31 distinct numbers outside [0, 2^31) (32-bit codes)")]
pub struct CodesExhausted;

impl Codes {
    /// The code of `v`, given now if `v` is new.
    #[inline]
    pub fn encode(&self, v: Value) -> Result<Value, CodesExhausted> {
        if (0..FIRST_BIG).contains(&v) {
            return Ok(v);
        }
        if let Some(&c) = self.read().code.get(&v) {
            return Ok(c);
        }
        let mut big = self.big.write().unwrap_or_else(|e| e.into_inner());
        let next = FIRST_BIG + big.value.len() as Value;
        if next > Value::from(u32::MAX) {
            return Err(CodesExhausted);
        }
        let code = *big.code.entry(v).or_insert(next);
        if code == next {
            big.value.push(v);
        }
        Ok(code)
    }

    /// The value of a code given by [`Codes::encode`].
    #[inline]
    pub fn decode(&self, code: Value) -> Value {
        if code < FIRST_BIG {
            code
        } else {
            self.read().value[(code - FIRST_BIG) as usize]
        }
    }

    /// Number of values that needed a code of their own.
    pub fn big_values(&self) -> usize {
        self.read().value.len()
    }

    fn read(&self) -> std::sync::RwLockReadGuard<'_, BigValues> {
        // A poisoned lock means a panic elsewhere, which the engine reports; the table is
        // only ever appended to, so what it holds is still right.
        self.big.read().unwrap_or_else(|e| e.into_inner())
    }
}

/// `l op r` on words of records of type `R`: equality on the words, order on the values
/// (order operators only ever reach numbers, which codes outside `[0, 2^31)` do not order).
#[inline]
pub fn holds<R: Record>(l: Value, op: CmpOp, r: Value, codes: &Codes) -> bool {
    match op {
        CmpOp::Eq => l == r,
        CmpOp::Ne => l != r,
        _ if R::ENCODED && (l >= FIRST_BIG || r >= FIRST_BIG) => {
            compare(codes.decode(l), op, codes.decode(r))
        }
        _ => compare(l, op, r),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_values_are_their_own_codes_and_big_ones_are_numbered_in_order() {
        let codes = Codes::default();
        assert_eq!(codes.encode(0).expect("a code"), 0);
        assert_eq!(codes.encode(FIRST_BIG - 1).expect("a code"), FIRST_BIG - 1);
        assert_eq!(codes.encode(-5).expect("a code"), FIRST_BIG);
        assert_eq!(codes.encode(1 << 40).expect("a code"), FIRST_BIG + 1);
        assert_eq!(codes.encode(-5).expect("a code"), FIRST_BIG);
        assert_eq!(codes.decode(FIRST_BIG), -5);
        assert_eq!(codes.decode(FIRST_BIG + 1), 1 << 40);
        assert_eq!(codes.decode(7), 7);
        assert_eq!(codes.big_values(), 2);
    }

    #[test]
    fn order_comparisons_on_codes_follow_the_values() {
        let codes = Codes::default();
        let (minus, big, three) = (
            codes.encode(-5).expect("a code"),
            codes.encode(1 << 40).expect("a code"),
            codes.encode(3).expect("a code"),
        );
        type Fixed = [u32; 2];
        for (l, r) in [(minus, three), (three, big), (minus, big)] {
            assert!(holds::<Fixed>(l, CmpOp::Lt, r, &codes));
            assert!(!holds::<Fixed>(l, CmpOp::Ge, r, &codes));
            assert!(holds::<Fixed>(r, CmpOp::Gt, l, &codes));
        }
        assert!(holds::<Fixed>(minus, CmpOp::Eq, minus, &codes));
        assert!(holds::<Fixed>(minus, CmpOp::Ne, big, &codes));
    }

    #[test]
    fn fixed_rows_round_trip_and_pad_with_zeros() {
        let codes = Codes::default();
        let r = <[u32; 4]>::encode(&[9, -1, 1 << 33], &codes).expect("a code");
        assert_eq!(r[3], 0);
        assert_eq!(&r.decode(3, &codes)[..], &[9, -1, 1 << 33]);
        let w: [u32; 4] = Record::from_words([r.word(2), r.word(0)]);
        assert_eq!(&w.decode(2, &codes)[..], &[1 << 33, 9]);
        let g = <Row as Record>::encode(&[-1, 2], &codes).expect("a code");
        assert_eq!(&g.decode(2, &codes)[..], &[-1, 2]);
    }
}
