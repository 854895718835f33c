//! Physical storage: relations as append-only arenas of fixed-width rows with hash indexes.
//!
//! This layer sees only arities, words and column numbers; it never imports the AST.
//! Row ids grow in insertion order, which is what semi-naive evaluation needs: the rows
//! derived in one round are exactly a contiguous id range (see [`RowRange`]).

mod group;
mod marks;
mod probe_table;
mod relation;
mod row_set;

pub use marks::RowMarks;
pub use relation::{IndexId, Insertion, Relation, RowId, RowRange};
