//! The indexes of a relation: for one list of key columns, the ascending ids of all its rows
//! (live or dead) with each key, in groups found by the key's hash — or, for one column of
//! small non-negative values, in an array by value ([`DenseGroups`]).
//!
//! This file holds the index's own structure and how its groups move between the hashed
//! table and the array; the relation keeps its indexes up to date as rows are appended
//! (`Relation::ensure_index`, `Relation::insert_batch_with`, `Relation::lookup`), and checks
//! them (`Relation::check_invariants`). A row's key hashes the same from the row
//! ([`KeyView`]) as from the key alone ([`KeySlice`]), so that insertion and lookup agree.

use hashbrown::DefaultHashBuilder;
use std::hash::BuildHasher;

use super::group::{GroupRows, RowPool};
use super::probe_table::{Probe, ProbeTable, Tagged};
use super::relation::RowId;
use super::BY_VALUE_LIMIT;
use crate::value::Value;

/// One index of a relation: its key columns and the rows of each key (see the module).
#[derive(Clone, Debug)]
pub(super) struct Index {
    pub(super) cols: Vec<usize>,
    /// The groups, hashed by their key (for a key of at least one column). Our own table
    /// rather than `hashbrown`'s so that batches of insertions prefetch their groups.
    pub(super) table: ProbeTable<IndexEntry>,
    /// For keys longer than one column, each group's key, `cols.len()` values a group, by
    /// the group's number ([`GroupRows::number`]); empty for one-column keys, whose value is
    /// the entry's `first` (8 bytes a group saved: on reachability over an ontology the
    /// indexes of the edges are most of `dred`'s memory).
    pub(super) keys: Vec<Value>,
    /// The rows of groups too large for their entry.
    pub(super) pool: RowPool,
    /// The one group of an index without key columns: every row.
    pub(super) all: Vec<RowId>,
    /// For a one-column key of small non-negative values: the groups by value, replacing
    /// `table` (left empty) while on. See [`DenseGroups`].
    pub(super) dense: Option<DenseGroups>,
    /// While `table` holds a one-column key's groups: the largest key value stored, or
    /// `None` once some value is negative (no dense array can hold it).
    pub(super) hashed_max: Option<Value>,
    /// Rows from this id on are not in the index yet ([`Relation::defer_index`]): every
    /// lookup refuses it until [`Relation::build_deferred`] adds them.
    ///
    /// [`Relation::defer_index`]: super::relation::Relation::defer_index
    /// [`Relation::build_deferred`]: super::relation::Relation::build_deferred
    pub(super) deferred_from: Option<RowId>,
}

/// The groups of a one-column index by key value: the group of value v at v, an empty
/// [`GroupRows`] for a value no row has.
///
/// Why: a lookup in the hashed table costs a hash, its control bytes and then its slot —
/// two dependent cache misses and about 170 instructions (callgrind, R-MAT reachability
/// towards a root) — where this costs one read of an array. Index lookups were a quarter
/// of `dred`'s time on that workload's single-edge deletions (perf, side by side with
/// `dd`). Keys are mostly interned symbols, numbered from 0, so such an array is as
/// compact as the table or more: 12 bytes a value against 33–66 bytes a group for the
/// table (25-byte slots, 3/8–3/4 full).
///
/// It is kept no larger than the table would be: at most [`DenseGroups::PER_GROUP`]
/// values a group (beyond a first [`DenseGroups::FREE`] values, 320 KB), so an index on a
/// column with few distinct values among many symbols (the parents of an ontology's
/// edges) stays hashed. A value that does not fit moves the groups into the table; the
/// table moves back once there are as many groups as values to cover ([`Index::try_dense`]):
/// half the density that turned it off, so that a value just beyond the bound, then a new
/// group, then another such value do not move every group each time. Between two moves the
/// groups at least double, so the moves cost O(1) a group.
#[derive(Clone, Debug, Default)]
pub(super) struct DenseGroups {
    pub(super) groups: Vec<GroupRows>,
    /// Groups not empty.
    pub(super) count: usize,
}

impl DenseGroups {
    /// Values the array may always cover, whatever its groups.
    const FREE: usize = 1 << 14;
    /// Beyond [`DenseGroups::FREE`]: values covered per group, at most.
    const PER_GROUP: usize = 2;

    /// The most values an array of `groups` groups may cover.
    #[inline]
    pub(super) fn bound(groups: usize) -> usize {
        Self::FREE
            .max(Self::PER_GROUP.saturating_mul(groups))
            .min(BY_VALUE_LIMIT)
    }

    /// The group of value `v` (empty when no row has it).
    #[inline(always)]
    pub(super) fn get(&self, v: Value) -> Option<&GroupRows> {
        usize::try_from(v).ok().and_then(|i| self.groups.get(i))
    }

    /// The group of value `v` for a row to join it, the array grown to cover `v`; `None`
    /// when `v` is negative or beyond [`DenseGroups::bound`] (the array is unchanged then).
    #[inline]
    pub(super) fn group_mut(&mut self, v: Value) -> Option<&mut GroupRows> {
        let i = usize::try_from(v).ok()?;
        if i >= self.groups.len() {
            let bound = Self::bound(self.count + 1);
            if i >= bound {
                return None;
            }
            self.cover(i + 1, bound);
        }
        let g = &mut self.groups[i];
        if g.is_empty() {
            self.count += 1;
        }
        Some(g)
    }

    /// Grows the array to cover at least `len` values, by half again at a time but never
    /// beyond `bound` values (so that the doubling of a `Vec` does not overshoot the memory
    /// rule).
    pub(super) fn cover(&mut self, len: usize, bound: usize) {
        let grown = len
            .max(self.groups.len() + self.groups.len() / 2)
            .min(bound.max(len));
        self.groups.reserve_exact(grown - self.groups.len());
        self.groups.resize(grown, GroupRows::default());
    }
}

/// Why a group's first rows live inside its entry: most groups of the indexes that
/// maintenance touches are small (an ontology's nodes have one to three parents), and a
/// group in its own heap block cost a further cache miss on every lookup and insertion, plus
/// a reallocation as it grew from one row to two; on 1,000-edge insertions the reallocations
/// alone were a fifth of the time. Two row ids (one beside the group number of a longer key)
/// fit in an entry of 24 bytes ([`GroupRows`]; why two and not four: `group.rs`).
const _: () = assert!(std::mem::size_of::<IndexEntry>() == 24);

/// A group of an index: its key's first value, its hash's tag and its rows (with its number,
/// for keys of more than one column).
///
/// Why the group lives in the table's entry: a probe used to compare the key with the group's
/// first row, reading a list of groups, the group's rows and then a row from the arena —
/// three dependent cache misses on top of the table's own; on 1,000-edge insertions they were
/// most of the index maintenance. A one-column key (most keys) is now decided, and its rows
/// reached, from the entry itself.
#[derive(Clone, Debug, Default)]
pub(super) struct IndexEntry {
    pub(super) first: Value,
    /// The low 32 bits of the key's hash (see [`Tagged`]).
    pub(super) tag: u32,
    /// Rows of the group, ascending: a small group's inside the entry, a larger group's in
    /// the index's [`RowPool`].
    pub(super) rows: GroupRows,
}

impl Tagged for IndexEntry {
    #[inline(always)]
    fn tag(&self) -> u32 {
        self.tag
    }
}

impl Index {
    /// Bytes of heap this index holds: its table or array of groups, the keys of its
    /// groups, and their spilled rows.
    pub(super) fn heap_bytes(&self) -> usize {
        let value = std::mem::size_of::<Value>();
        let id = std::mem::size_of::<RowId>();
        self.table.heap_bytes()
            + self.keys.capacity() * value
            + self.pool.heap_bytes()
            + self.all.capacity() * id
            + self.dense.as_ref().map_or(0, |d| {
                d.groups.capacity() * std::mem::size_of::<GroupRows>()
            })
    }

    pub(super) fn new(cols: &[usize]) -> Self {
        Index {
            cols: cols.to_vec(),
            table: ProbeTable::default(),
            keys: Vec::new(),
            pool: RowPool::new(cols.len() > 1),
            all: Vec::new(),
            dense: (cols.len() == 1).then(DenseGroups::default),
            hashed_max: Some(-1),
            deferred_from: None,
        }
    }

    /// The rows of every group (no order among groups).
    pub(super) fn groups(&self) -> impl Iterator<Item = &[RowId]> + '_ {
        let dense = self.dense.iter().flat_map(|d| &d.groups);
        self.table
            .iter()
            .map(|e| &e.rows)
            .chain(dense)
            .filter(|g| !g.is_empty())
            .map(|g| self.pool.rows(g))
            .chain(self.cols.is_empty().then_some(&self.all[..]))
    }

    /// Every group's rows record, whichever holds them, for the pool to compact or check.
    pub(super) fn group_rows_mut(
        &mut self,
    ) -> (&mut RowPool, impl Iterator<Item = &mut GroupRows>) {
        let dense = self.dense.iter_mut().flat_map(|d| &mut d.groups);
        (
            &mut self.pool,
            self.table.iter_mut().map(|e| &mut e.rows).chain(dense),
        )
    }

    /// Moves a dense index's groups into the hashed table (see [`DenseGroups`]).
    pub(super) fn dense_off(&mut self, hasher: &DefaultHashBuilder) {
        let Some(dense) = self.dense.take() else {
            return;
        };
        debug_assert_eq!(self.table.len(), 0);
        self.table.reserve(dense.count + 1);
        let mut max = -1;
        for (v, rows) in dense.groups.into_iter().enumerate() {
            if rows.is_empty() {
                continue;
            }
            let v = v as Value;
            max = v;
            let h = hasher.hash_one(KeySlice(&[v]));
            match self.table.probe(h, |e| e.first == v) {
                Probe::Vacant(i) => self.table.fill(
                    i,
                    h,
                    IndexEntry {
                        first: v,
                        tag: h as u32,
                        rows,
                    },
                ),
                Probe::Found(_) => unreachable!("each value has one group"),
            }
        }
        self.hashed_max = Some(max);
    }

    /// Moves a one-column index's groups from the hashed table back into a dense array once
    /// its values are dense enough: half of [`DenseGroups::bound`] (see there why half).
    pub(super) fn try_dense(&mut self) {
        let groups = self.table.len();
        let Some(max) = self.hashed_max else {
            return;
        };
        // The largest value (`i64::MAX`, the word of the largest `unsigned`) has no dense
        // array: it stays hashed.
        let Some(len) = max.checked_add(1).and_then(|l| usize::try_from(l).ok()) else {
            return;
        };
        if len.saturating_mul(DenseGroups::PER_GROUP) > DenseGroups::bound(groups) {
            return;
        }
        let mut dense = DenseGroups {
            groups: Vec::new(),
            count: groups,
        };
        dense.cover(len, len);
        let table = std::mem::take(&mut self.table);
        for e in table.iter() {
            dense.groups[e.first as usize] = e.rows;
        }
        self.dense = Some(dense);
    }

    /// True when the entry's group has this key (given as values in key order).
    #[inline(always)]
    pub(super) fn holds(
        keys: &[Value],
        k: usize,
        e: &IndexEntry,
        key: impl Fn(usize) -> Value,
    ) -> bool {
        e.first == key(0)
            && (k == 1
                || keys[e.rows.number() as usize * k + 1..(e.rows.number() as usize + 1) * k]
                    .iter()
                    .enumerate()
                    .all(|(j, &v)| v == key(j + 1)))
    }
}

/// Hashes a row's key columns exactly as [`KeySlice`] hashes the key itself, so that
/// inserting (from a row) and probing (from a key) agree.
pub(super) struct KeyView<'a> {
    pub(super) row: &'a [Value],
    pub(super) cols: &'a [usize],
}

impl std::hash::Hash for KeyView<'_> {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        state.write_usize(self.cols.len());
        for &c in self.cols {
            state.write_i64(self.row[c]);
        }
    }
}

/// A key's values, hashed as [`KeyView`] hashes the key columns of a row.
pub(super) struct KeySlice<'a>(pub(super) &'a [Value]);

impl std::hash::Hash for KeySlice<'_> {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        state.write_usize(self.0.len());
        for &v in self.0 {
            state.write_i64(v);
        }
    }
}
