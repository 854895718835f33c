//! Physical storage: relations as append-only arenas of fixed-width rows with hash indexes.
//!
//! This layer sees only arities, words and column numbers; it never imports the AST.
//! Row ids grow in insertion order, which is what semi-naive evaluation needs: the rows
//! derived in one round are exactly a contiguous id range (see [`RowRange`]).

mod group;
mod index;
mod marks;
mod probe_table;
mod relation;
mod row_set;

pub use marks::RowMarks;
pub(crate) use probe_table::prefetch;
pub use relation::{IndexId, Insertion, Relation, RowId, RowRange, StorageBytes};

use crate::value::Value;

/// The longest array by value this layer keeps: a value at or above this (or negative) is
/// never stored at its own place, neither in a one-column relation's map of rows by value
/// nor in a one-column index's groups by value (16 Mi places, 64 MiB of row ids).
const BY_VALUE_LIMIT: usize = 1 << 24;

/// True when two rows of one arity hold the same values. Element by element, and without a
/// loop for one or two columns: `[i64] == [i64]` is a `memcmp` call, whose overhead
/// dominated deduplication of short rows, and the zipped loop this replaces was 1.3% of
/// `dred`'s instructions on R-MAT TC's single-edge deletions (callgrind, 12 million head
/// lookups).
#[inline(always)]
pub(crate) fn same_values(a: &[Value], b: &[Value]) -> bool {
    match (a, b) {
        ([a0], [b0]) => a0 == b0,
        ([a0, a1], [b0, b1]) => a0 == b0 && a1 == b1,
        _ => a.iter().zip(b).all(|(x, y)| x == y),
    }
}
