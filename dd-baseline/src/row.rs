//! The record type of every collection and arrangement in the dataflow.
//!
//! A [`Row`] is a short run of [`Value`]s: a relation's tuple, the bindings of an atom's
//! variables, a join key, or the variables a rule still needs. Rows of up to two values are
//! stored inline in 24 bytes, so binary relations — and the keys and values of arrangements of
//! ternary ones — never allocate per record; longer rows spill to the heap and stay correct.
//! (Measured on linear TC of 3.2M pairs: three inline values cost ~20% more time and ~15% more
//! memory than two; a hand-written dataflow over `(u32, u32)` is ~1.5x faster still.)
//!
//! Rows cross worker and process boundaries, so the type is serde-serialisable, and its hash
//! (used by differential-dataflow to partition data) depends only on the values.

use dred_core::Value;
use smallvec::SmallVec;

/// One record: values in column order, inline up to two of them.
pub type Row = SmallVec<[Value; 2]>;

/// Differences of the dataflow's collections: signed multiplicities.
pub type Diff = isize;

/// The outer timestamp: the number of the batch (0 is the initial materialisation).
pub type Time = u64;

/// A row holding exactly these values.
pub fn row(values: &[Value]) -> Row {
    Row::from_slice(values)
}
