//! A set of tuples of one arity stored row-major in one `Vec`, deduplicated by a hash table of
//! row ids, with any number of indexes on column subsets (hashed, or for one column of small
//! values an array by value).
//!
//! Removal leaves a tombstone: the row keeps its id (so index groups and semi-naive ranges
//! stay valid) but is no longer *live*; readers skip dead rows. A tombstone stays findable by
//! value ([`Relation::find_row`]) until its values are inserted again, which either appends a
//! new row and points the set table at it ([`Relation::insert`]) or revives the tombstone in
//! place ([`Relation::revive`], [`Relation::insert_batch`] with `revive`).
//! [`Relation::compact`] drops tombstones when they are worth reclaiming, renumbering rows.
//!
//! Invariants (checked by [`Relation::check_invariants`] in tests and debug builds): the set
//! table holds each distinct value of the arena once, pointing at its newest row, and every
//! live row is such a newest row; every index maps each key to the ascending list of all rows
//! (live or dead) with that key. A relation of the EDB finds its rows through those lists
//! instead and holds no set table ([`Relation::find_by_indexes`]).
//!
//! The indexes' own structure (hashed groups, or groups by value) is in `storage/index.rs`;
//! this file keeps them up to date with the rows.

use hashbrown::DefaultHashBuilder;
use std::hash::BuildHasher;

use super::group::GroupRows;
use super::index::{DenseGroups, Index, IndexEntry, KeySlice, KeyView};
use super::probe_table::{advise_huge_pages, prefetch, Probe};
use super::row_set::RowSet;
use crate::value::Value;

/// Position of a row in insertion order.
pub type RowId = u32;

/// What [`Relation::insert_batch`] did with a row.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Insertion {
    /// A live row had these values: nothing changed.
    Present,
    /// A new row was appended (its id is the next after the previous appended one).
    Appended,
    /// This tombstone with these values is live again, under its old id.
    Revived(RowId),
}

impl Insertion {
    /// True unless the row was already present.
    pub fn is_new(self) -> bool {
        self != Insertion::Present
    }
}

/// Handle of an index, returned by [`Relation::ensure_index`].
pub type IndexId = usize;

/// A half-open range of row ids `lo..hi`: the rows of one semi-naive version (old, delta,
/// full) of a relation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct RowRange {
    /// First visible row.
    pub lo: RowId,
    /// One past the last visible row.
    pub hi: RowId,
}

impl RowRange {
    /// Rows `lo..hi`.
    pub fn new(lo: RowId, hi: RowId) -> Self {
        RowRange { lo, hi }
    }

    /// True when no row is visible.
    pub fn is_empty(&self) -> bool {
        self.lo >= self.hi
    }
}

/// A set of rows of a fixed arity with hash indexes. Memory: one word per value; 9 bytes a
/// slot of the set table (at most 3/4 used) — for a one-column relation over small
/// non-negative values, 4 bytes per value up to the largest stored instead (at most 4 MiB,
/// or 64 bytes per row); per group of an index, a 25-byte slot of its table (at most 3/4
/// used) holding up to two row ids (one for keys of several columns, which also store the
/// key) — for a one-column key of small non-negative values, 12 bytes per value up to the
/// largest stored instead (at most two values a group beyond the first 16,384, see
/// `DenseGroups`); for a group of 3 (2) to 32 rows, a `u32` per row and one for the capacity
/// in a region of the index's pool (at most twice the rows, at least 4; cells left behind by
/// groups that moved are reclaimed once they are a third of the pool), and for a larger
/// group a vector of its own (24 bytes, and at most twice the rows; see `RowPool`).
#[derive(Clone, Debug)]
pub struct Relation {
    arity: usize,
    /// Row ids issued (live and dead).
    len: usize,
    /// One bit per row id; set for tombstones.
    dead: Vec<u64>,
    dead_count: usize,
    data: Vec<Value>,
    set: RowSet,
    /// For a relation of one column whose values are small non-negative integers (interned
    /// symbols are numbered from 0): the newest row of each value, by value, found with one
    /// array read instead of a hash probe. While it is on, it replaces `set` (left empty);
    /// the first value that does not fit ([`Dense::set`]: negative, or large for the rows
    /// held) turns it off and fills `set` from the rows. See [`Dense`].
    dense: Option<Dense>,
    /// Rows are found by value through the smallest of their groups in the indexes kept up
    /// to date, and `set` stays empty ([`Relation::find_by_indexes`]).
    by_indexes: bool,
    /// See [`Relation::preferred_index`].
    preferred: IndexId,
    indexes: Vec<Index>,
    hasher: DefaultHashBuilder,
}

/// Whether a batch of key values fits a dense index's array ([`dense_span`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum DenseSpan {
    /// Every value is non-negative and below the bound the array may cover once the
    /// values' distinct groups join its `groups`: the largest value.
    Fits(Value),
    /// Some value is negative or beyond that bound.
    Beyond,
}

/// Whether `values` (`None` when there are none) fit a dense index's array of `groups`
/// groups: each value non-negative and below [`DenseGroups::bound`] of the groups plus the
/// values' distinct count. Linear: one pass for the least and largest value, and the
/// distinct values counted in a bitmap over `0..=largest` only when the bound depends on
/// them (a sort for that was a third of compacting `path` on GO MF's TC).
fn dense_span(values: impl Iterator<Item = Value> + Clone, groups: usize) -> Option<DenseSpan> {
    let (mut lo, mut hi, mut n) = (Value::MAX, Value::MIN, 0usize);
    for v in values.clone() {
        lo = lo.min(v);
        hi = hi.max(v);
        n += 1;
    }
    if n == 0 {
        return None;
    }
    if lo < 0 {
        return Some(DenseSpan::Beyond);
    }
    let top = hi as u64 as usize;
    let fits = if top < DenseGroups::bound(groups) {
        true
    } else if top >= DenseGroups::bound(groups.saturating_add(n)) {
        false
    } else {
        // `top` is below the bound for `groups + n` groups: a bitmap of that size is small.
        let mut seen = vec![0u64; top / 64 + 1];
        let mut distinct = 0;
        for v in values {
            let (word, bit) = (v as usize / 64, 1u64 << (v as usize % 64));
            distinct += usize::from(seen[word] & bit == 0);
            seen[word] |= bit;
        }
        top < DenseGroups::bound(groups + distinct)
    };
    Some(if fits {
        DenseSpan::Fits(hi)
    } else {
        DenseSpan::Beyond
    })
}

/// The longest group a relation that finds rows through its index groups scans at an
/// update: an update whose row's smallest group is longer builds the set table first.
const LONG_GROUP: usize = 32;

/// A group this short is scanned without looking for a shorter one in the other indexes.
const SHORT_GROUP: usize = 4;

/// The row of each value of a one-column relation, indexed by the value.
///
/// Why: unary relations — reachability, the magic predicates of a rewritten query — are
/// probed once per instance through every over-deleted or restored fact, and a hash probe
/// costs a hash, a slot and a comparison in the arena (about 300 instructions with the
/// batched prefetch) where this costs one read of an array of 4 bytes per symbol. It
/// replaces the set table rather than sitting beside it: kept beside it, phase 3's
/// insertions still probed the set table, which nothing else read any more, so every probe
/// missed the cache (measured: 1,000-edge reinsertions into WordNet's reachability 1.4×
/// slower than without the map).
#[derive(Clone, Debug, Default)]
struct Dense {
    /// Row of value v at v; [`Dense::NONE`] for a value not stored.
    rows: Vec<RowId>,
}

impl Dense {
    const NONE: RowId = RowId::MAX;
    /// Values at or above this (or negative) turn the map off.
    const LIMIT: usize = super::BY_VALUE_LIMIT;
    /// Below this the map may always grow (4 MiB of array at most), whatever the rows.
    const FREE: usize = 1 << 20;
    /// Above [`Dense::FREE`], a value may be at most this many times the rows issued: a
    /// few rows with large values (numbers, or symbols of a large table) are left to the set
    /// table rather than given an array of mostly empty slots.
    const PER_ROW: usize = 16;

    /// The row stored for value `v`, if any.
    #[inline(always)]
    fn get(&self, v: Value) -> Option<RowId> {
        usize::try_from(v)
            .ok()
            .and_then(|i| self.rows.get(i))
            .copied()
            .filter(|&r| r != Self::NONE)
    }

    /// Points value `v` at row `r` of a relation that has issued `rows` row ids; false when
    /// `v` does not fit ([`Dense::LIMIT`], [`Dense::FREE`], [`Dense::PER_ROW`]).
    #[inline]
    fn set(&mut self, v: Value, r: RowId, rows: usize) -> bool {
        let bound = Self::FREE
            .max(Self::PER_ROW.saturating_mul(rows + 1))
            .min(Self::LIMIT);
        let Some(i) = usize::try_from(v).ok().filter(|&i| i < bound) else {
            return false;
        };
        if i >= self.rows.len() {
            let len = (i + 1).max(self.rows.len() * 2).min(bound);
            self.rows.resize(len, Self::NONE);
        }
        self.rows[i] = r;
        true
    }
}

/// See [`Relation::place`].
enum Place {
    /// The dense map's row for the value, if any.
    Dense(Option<RowId>),
    /// A probe of the set table for the values, which hash to `hash`.
    Set { hash: u64, probe: Probe },
    /// In a relation that finds rows through its indexes: the newest row with the values.
    Groups(Option<RowId>),
}

/// Bytes of heap a [`Relation`] holds, by structure (capacities, filled or not).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StorageBytes {
    /// The arena of rows.
    pub rows: usize,
    /// The set table (or the map of rows by value) that finds a row by its values.
    pub set: usize,
    /// The tombstone bits.
    pub tombstones: usize,
    /// Each index: its key columns and its bytes.
    pub indexes: Vec<(Vec<usize>, usize)>,
}

impl StorageBytes {
    /// The sum of the parts.
    pub fn total(&self) -> usize {
        self.rows + self.set + self.tombstones + self.index_bytes()
    }

    /// The bytes of all indexes.
    pub fn index_bytes(&self) -> usize {
        self.indexes.iter().map(|(_, b)| b).sum()
    }
}

impl Relation {
    /// The heap this relation holds, by structure: what its footprint is made of.
    pub fn heap_bytes(&self) -> StorageBytes {
        StorageBytes {
            rows: self.data.capacity() * std::mem::size_of::<Value>(),
            set: self.set.heap_bytes()
                + self
                    .dense
                    .as_ref()
                    .map_or(0, |d| d.rows.capacity() * std::mem::size_of::<RowId>()),
            tombstones: self.dead.capacity() * 8,
            indexes: self
                .indexes
                .iter()
                .map(|i| (i.cols.clone(), i.heap_bytes()))
                .collect(),
        }
    }

    /// An empty relation of this arity.
    pub fn new(arity: usize) -> Self {
        Relation {
            arity,
            len: 0,
            dead: Vec::new(),
            dead_count: 0,
            data: Vec::new(),
            set: RowSet::default(),
            dense: (arity == 1).then(Dense::default),
            by_indexes: false,
            preferred: 0,
            indexes: Vec::new(),
            hasher: DefaultHashBuilder::default(),
        }
    }

    /// Turns the dense map off: the set table takes over, filled from the rows (the newest
    /// copy of each value last, so that it wins). Only one-column relations have the map.
    fn dense_off(&mut self) {
        debug_assert_eq!(self.arity, 1);
        self.dense = None;
        self.set.clear();
        for r in 0..self.len as RowId {
            let row = [self.data[r as usize]];
            let place = self.place(&row);
            self.claim(place, &row, r);
        }
    }

    /// Where `row`'s values stand before a row with them is added: in the dense map, or at
    /// the end of one probe of the set table (made room for). [`Relation::stored`] tells the
    /// copy held, [`Relation::claim`] points the values at a new row.
    #[inline]
    fn place(&mut self, row: &[Value]) -> Place {
        if let Some(dense) = &self.dense {
            return Place::Dense(dense.get(row[0]));
        }
        if self.by_indexes {
            let (found, scanned) = self.find_in_groups(row);
            if scanned <= LONG_GROUP {
                return Place::Groups(found);
            }
            self.set_table_on();
        }
        let hash = self.hasher.hash_one(row);
        self.set.reserve_one();
        Place::Set {
            hash,
            probe: self.set.probe(hash, row, &self.data, self.arity),
        }
    }

    /// The newest row (live or a tombstone) holding the values of a [`Relation::place`].
    #[inline]
    fn stored(&self, place: &Place) -> Option<RowId> {
        match *place {
            Place::Dense(old) | Place::Groups(old) => old,
            Place::Set {
                probe: Probe::Found(i),
                ..
            } => Some(self.set.row_at(i)),
            Place::Set { .. } => None,
        }
    }

    /// Points the values of a [`Relation::place`] (made for `row`, with nothing changed
    /// since) at row `r`, superseding a stored copy. A value the dense map cannot hold turns
    /// the map off first.
    #[inline]
    fn claim(&mut self, place: Place, row: &[Value], r: RowId) {
        match place {
            Place::Dense(_) => {
                let issued = self.len;
                if !self
                    .dense
                    .as_mut()
                    .is_some_and(|d| d.set(row[0], r, issued))
                {
                    self.dense_off();
                    let place = self.place(row);
                    self.claim(place, row, r);
                }
            }
            Place::Set {
                probe: Probe::Found(i),
                ..
            } => self.set.set_row_at(i, r),
            Place::Set {
                hash,
                probe: Probe::Vacant(i),
            } => self.set.fill(i, hash, r),
            // The indexes hold the row once it is appended.
            Place::Groups(_) => {}
        }
    }

    /// From now on finds rows by value through their groups in the indexes (the smallest
    /// of a row's groups among the indexes with key columns that are kept up to date,
    /// scanned from its newest row), and frees the set table. Returns whether it does: only
    /// a relation of two or more columns with such an index can.
    ///
    /// For a relation whose rows are looked up by value rarely — the EDB, by its updates and
    /// by rules whose atoms over it are bound whole — and whose indexes hold every row
    /// anyway: the set table is a third of such a relation (WordNet's 97,666 edges: 1.3 MiB
    /// of 5.3). The set table comes back, built from the rows, when an update finds a row
    /// whose smallest group is longer than 32 rows, and when the last such index is
    /// deferred: scanning is then no longer a few comparisons. A bulk load into the empty
    /// relation keeps it (and ends this mode) unless the groups mostly fit their entries: at
    /// most 3 rows for every 2 values of some one-column index.
    pub fn find_by_indexes(&mut self) -> bool {
        if self.arity >= 2 && !self.by_indexes && self.has_kept_index() {
            self.by_indexes = true;
            self.set = RowSet::default();
            self.choose_preferred();
        }
        self.by_indexes
    }

    /// True when some index with key columns is kept up to date (not deferred).
    fn has_kept_index(&self) -> bool {
        self.kept_indexes().next().is_some()
    }

    /// The indexes with key columns kept up to date (not deferred).
    fn kept_indexes(&self) -> impl Iterator<Item = &Index> + '_ {
        self.indexes.iter().filter(|ix| Self::is_kept(ix))
    }

    /// True for an index with key columns kept up to date (not deferred): one that holds
    /// every row by its key.
    #[inline]
    fn is_kept(ix: &Index) -> bool {
        !ix.cols.is_empty() && ix.deferred_from.is_none()
    }

    /// The index a relation that finds rows through its indexes looks in first: the one
    /// [`Relation::choose_preferred`] chose, or, if it is no longer kept, any kept one.
    #[inline]
    fn preferred_index(&self) -> Option<&Index> {
        self.indexes
            .get(self.preferred)
            .filter(|ix| Self::is_kept(ix))
            .or_else(|| self.kept_indexes().next())
    }

    /// Of [`Relation::kept_indexes`], chooses the one with the most groups (the fewest rows
    /// a group on average) as [`Relation::preferred_index`]. Called where rows arrive in
    /// bulk and where an index stops or starts being kept, not per row: on each lookup the
    /// choice cost more than the lookup's own reads.
    fn choose_preferred(&mut self) {
        let groups = |ix: &Index| ix.dense.as_ref().map_or(ix.table.len(), |d| d.count);
        let mut best: Option<(usize, usize)> = None;
        for (i, ix) in self.indexes.iter().enumerate() {
            if Self::is_kept(ix) && best.is_none_or(|(_, g)| groups(ix) > g) {
                best = Some((i, groups(ix)));
            }
        }
        self.preferred = best.map_or(0, |(i, _)| i);
    }

    /// True when some kept index on one column of small non-negative values (symbols) has at
    /// most 3 rows for every 2 distinct values: its groups mostly hold their ids in their
    /// entries, and finding a row through them reads an entry and a row, as the set table
    /// reads a slot and a row. Counted from the rows, indexed or not.
    ///
    /// Why: where groups spill into the pool, a lookup also waits for the group's region.
    /// On GO BP's edges (2.3 rows a child) 1,000 re-insertions into `reach` took 1.4 times
    /// as long through the indexes as through the set table; on WordNet's (1.02 a source)
    /// deletions took 0.6 times as long.
    fn groups_fit_entries(&self) -> bool {
        let rows = self.len;
        self.kept_indexes().any(|ix| {
            let [c] = ix.cols[..] else { return false };
            let column = || (0..rows).map(|r| self.data[r * self.arity + c]);
            let bound = 16 * rows + 64;
            if column().any(|v| !(0..bound as Value).contains(&v)) {
                return false;
            }
            let mut seen = vec![0u64; bound.div_ceil(64)];
            let mut distinct = 0;
            for v in column() {
                let (w, b) = (v as usize / 64, v as usize % 64);
                if seen[w] & (1 << b) == 0 {
                    seen[w] |= 1 << b;
                    distinct += 1;
                }
            }
            2 * rows <= 3 * distinct
        })
    }

    /// Stops finding rows through the indexes: the set table takes over, filled from the
    /// rows (the newest copy of each value last, so that it wins).
    fn set_table_on(&mut self) {
        self.by_indexes = false;
        self.set.clear();
        self.set.reserve(self.len);
        let arity = self.arity;
        for r in 0..self.len as RowId {
            let row = &self.data[r as usize * arity..(r as usize + 1) * arity];
            let hash = self.hasher.hash_one(row);
            self.set.reserve_one();
            match self.set.probe(hash, row, &self.data, arity) {
                Probe::Found(i) => self.set.set_row_at(i, r),
                Probe::Vacant(i) => self.set.fill(i, hash, r),
            }
        }
    }

    /// The group of `row`'s key in index `ix` (kept up to date, with key columns).
    #[inline]
    fn group_of_row<'a>(&'a self, ix: &'a Index, row: &[Value]) -> &'a [RowId] {
        if let Some(dense) = &ix.dense {
            return dense.get(row[ix.cols[0]]).map_or(&[], |g| ix.pool.rows(g));
        }
        let h = Self::hash_key(&self.hasher, row, &ix.cols);
        let (cols, k) = (&ix.cols, ix.cols.len());
        match ix
            .table
            .find(h, |e| Index::holds(&ix.keys, k, e, |j| row[cols[j]]))
        {
            Some(e) => ix.pool.rows(&e.rows),
            None => &[],
        }
    }

    /// For a relation that finds rows through its indexes: the newest row with these values
    /// (live or a tombstone), and the length of the group scanned for it — the smallest of
    /// the row's groups, or the first one of at most [`SHORT_GROUP`] rows.
    fn find_in_groups(&self, row: &[Value]) -> (Option<RowId>, usize) {
        let Some(first) = self.preferred_index() else {
            debug_assert!(false, "finding rows by indexes without an index kept");
            return (None, 0);
        };
        let mut best = self.group_of_row(first, row);
        if best.len() > SHORT_GROUP {
            for ix in self.kept_indexes() {
                if !std::ptr::eq(ix, first) {
                    let group = self.group_of_row(ix, row);
                    if group.len() < best.len() {
                        best = group;
                    }
                }
            }
        }
        let found = best
            .iter()
            .rev()
            .copied()
            .find(|&r| super::same_values(self.row(r), row));
        (found, best.len())
    }

    /// Appends a row whose [`Relation::place`] (made for it, with nothing changed since)
    /// holds no live copy, superseding a tombstone, and adds it to the indexes kept up to
    /// date.
    #[inline]
    fn append_indexed(&mut self, place: Place, row: &[Value]) -> RowId {
        let r = self.len as RowId;
        self.claim(place, row, r);
        self.push_values(row);
        self.len += 1;
        for ix in self
            .indexes
            .iter_mut()
            .filter(|ix| ix.deferred_from.is_none())
        {
            Self::index_insert(ix, &self.hasher, row, r);
        }
        r
    }

    /// Number of columns.
    pub fn arity(&self) -> usize {
        self.arity
    }

    /// Number of live rows: the size of the set.
    pub fn len(&self) -> usize {
        self.len - self.dead_count
    }

    /// True when no row is live.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// One past the largest row id issued: the bound of every range over this relation.
    pub fn end(&self) -> RowId {
        self.len as RowId
    }

    /// Number of tombstones.
    pub fn dead_count(&self) -> usize {
        self.dead_count
    }

    /// True unless the row was removed (and not revived).
    #[inline]
    pub fn is_live(&self, r: RowId) -> bool {
        // Rows appended after the last tombstone lie past the end of the bitset: live.
        self.dead_count == 0
            || self
                .dead
                .get(r as usize / 64)
                .is_none_or(|w| w & (1 << (r % 64)) == 0)
    }

    /// True when some row may be dead: readers need to call [`Relation::is_live`] only then.
    #[inline]
    pub fn has_dead(&self) -> bool {
        self.dead_count > 0
    }

    /// All row ids as a range (dead ones included; skip them with [`Relation::is_live`]).
    pub fn all(&self) -> RowRange {
        RowRange::new(0, self.len as RowId)
    }

    /// The values of one row.
    #[inline]
    pub fn row(&self, r: RowId) -> &[Value] {
        let start = r as usize * self.arity;
        &self.data[start..start + self.arity]
    }

    /// Iterates the live rows of a range.
    pub fn rows(&self, range: RowRange) -> impl Iterator<Item = &[Value]> + '_ {
        (range.lo..range.hi.min(self.len as RowId))
            .filter(move |&r| self.is_live(r))
            .map(move |r| self.row(r))
    }

    #[inline]
    fn hash_key(hasher: &DefaultHashBuilder, row: &[Value], cols: &[usize]) -> u64 {
        hasher.hash_one(KeyView { row, cols })
    }

    /// An index on these columns (in this order), built now if it does not exist yet.
    pub fn ensure_index(&mut self, cols: &[usize]) -> IndexId {
        if let Some(i) = self.indexes.iter().position(|ix| ix.cols == cols) {
            return i;
        }
        assert!(
            cols.iter().all(|&c| c < self.arity),
            "index column out of range"
        );
        let mut ix = Index::new(cols);
        for r in 0..self.len as RowId {
            let start = r as usize * self.arity;
            Self::index_insert(
                &mut ix,
                &self.hasher,
                &self.data[start..start + self.arity],
                r,
            );
        }
        self.indexes.push(ix);
        if self.by_indexes {
            self.choose_preferred();
        }
        self.indexes.len() - 1
    }

    fn index_insert(ix: &mut Index, hasher: &DefaultHashBuilder, row: &[Value], r: RowId) {
        if ix.cols.is_empty() {
            ix.all.push(r);
            return;
        }
        if Self::dense_insert(ix, hasher, row[ix.cols[0]], r) {
            return;
        }
        let h = Self::hash_key(hasher, row, &ix.cols);
        Self::index_insert_hashed(ix, row, r, h);
    }

    /// Adds row `r`, of key value `v`, to a dense index. False when the index is hashed —
    /// already, or now because `v` does not fit the array (see [`DenseGroups`]) — and the
    /// row is still to be added to the table.
    #[inline]
    fn dense_insert(ix: &mut Index, hasher: &DefaultHashBuilder, v: Value, r: RowId) -> bool {
        let Index { dense, pool, .. } = ix;
        let Some(dense) = dense else {
            return false;
        };
        let Some(g) = dense.group_mut(v) else {
            ix.dense_off(hasher);
            return false;
        };
        if pool.push(g, r) {
            let (pool, groups) = ix.group_rows_mut();
            pool.compact(groups);
        }
        true
    }

    /// [`Relation::index_insert`] into the hashed table, with the key's hash computed
    /// beforehand.
    #[inline]
    fn index_insert_hashed(ix: &mut Index, row: &[Value], r: RowId, h: u64) {
        debug_assert!(ix.dense.is_none());
        ix.table.reserve_one();
        let (cols, keys, k) = (&ix.cols, &ix.keys, ix.cols.len());
        match ix
            .table
            .probe(h, |e| Index::holds(keys, k, e, |j| row[cols[j]]))
        {
            Probe::Found(i) => {
                if ix.pool.push(&mut ix.table.slot_mut(i).rows, r) {
                    ix.pool.compact(ix.table.iter_mut().map(|e| &mut e.rows));
                }
            }
            Probe::Vacant(i) => {
                let group = ix.table.len() as u32;
                let first = row[cols[0]];
                if k > 1 {
                    ix.keys.extend(cols.iter().map(|&c| row[c]));
                }
                ix.table.fill(
                    i,
                    h,
                    IndexEntry {
                        first,
                        tag: h as u32,
                        rows: ix.pool.single(r, group),
                    },
                );
                if k == 1 {
                    ix.hashed_max = ix.hashed_max.filter(|_| first >= 0).map(|m| m.max(first));
                    ix.try_dense();
                }
            }
        }
    }

    #[inline]
    fn find(&self, row: &[Value]) -> Option<RowId> {
        if let Some(dense) = &self.dense {
            return dense.get(row[0]);
        }
        if self.by_indexes {
            return self.find_in_groups(row).0;
        }
        self.set
            .find(self.hash_row(row), row, &self.data, self.arity)
    }

    /// The newest row with these values, live or a tombstone.
    #[inline]
    pub fn find_row(&self, row: &[Value]) -> Option<RowId> {
        if self.arity == 0 {
            return self.len.checked_sub(1).map(|r| r as RowId);
        }
        self.find(row)
    }

    /// The hash by which [`Relation::find_row_hashed`] and [`Relation::prefetch_row`] find
    /// a row with these values.
    #[inline]
    pub fn hash_row(&self, row: &[Value]) -> u64 {
        self.hasher.hash_one(row)
    }

    /// The hash to hand [`Relation::find_row_hashed`], [`Relation::prefetch_row`] and
    /// [`Relation::first_candidate`] for these values: [`Relation::hash_row`], or 0 when
    /// rows are found by the dense map, which needs none (and skipping the hash is the point:
    /// callers that look up many heads pay it per head).
    #[inline]
    pub fn lookup_hash(&self, row: &[Value]) -> u64 {
        if self.dense.is_some() || self.by_indexes {
            0
        } else {
            self.hash_row(row)
        }
    }

    /// A hint that `row`, whose [`Relation::lookup_hash`] is `hash`, will be looked up soon:
    /// starts loading its slot (of the set table, or of the dense map), so that lookups of
    /// many rows overlap their cache misses. Changes no result.
    #[inline]
    pub fn prefetch_row(&self, hash: u64, row: &[Value]) {
        if let Some(dense) = &self.dense {
            // One read, but a random one: after other work the map is out of the cache.
            if let Some(slot) = usize::try_from(row[0]).ok().and_then(|i| dense.rows.get(i)) {
                prefetch(slot);
            }
            return;
        }
        if self.by_indexes {
            // The entry of the group scanned first.
            if let Some(ix) = self.preferred_index() {
                match &ix.dense {
                    Some(dense) => {
                        if let Some(g) = dense.get(row[ix.cols[0]]) {
                            prefetch(g);
                        }
                    }
                    None => ix
                        .table
                        .prefetch(Self::hash_key(&self.hasher, row, &ix.cols)),
                }
            }
            return;
        }
        self.set.prefetch(hash);
    }

    /// For a row `row` whose slot [`Relation::prefetch_row`] loaded, in a relation that
    /// finds rows through its indexes: starts loading the ids of the group the lookup reads
    /// first, when they are not in the group's entry (so that [`Relation::first_candidate`]
    /// does not wait for them). Changes no result; does nothing in other relations.
    #[inline]
    pub fn prefetch_row_group(&self, row: &[Value]) {
        if !self.by_indexes {
            return;
        }
        if let Some(ix) = self.preferred_index() {
            if let Some(g) = ix.dense.as_ref().and_then(|d| d.get(row[ix.cols[0]])) {
                ix.pool.prefetch(g);
            }
        }
    }

    /// For a row `row` whose slot [`Relation::prefetch_row`] loaded (its hash `hash`, of
    /// [`Relation::lookup_hash`]): the id of the row a lookup compares first, and a hint to
    /// start loading its values (so that a later [`Relation::find_row_candidate`] does not
    /// wait for them). `None`: no row with this hash is stored.
    #[inline]
    pub fn first_candidate(&self, hash: u64, row: &[Value]) -> Option<RowId> {
        if self.arity == 0 {
            return self.len.checked_sub(1).map(|r| r as RowId);
        }
        if self.dense.is_some() {
            return None; // found without the set table
        }
        if self.by_indexes {
            // The newest row of the group the lookup scans first, and the rows the scan
            // reads after it when the newest is not the one (the scan stops at the one).
            let ix = self.preferred_index()?;
            let group = self.group_of_row(ix, row);
            for &r in group.iter().rev().take(SHORT_GROUP) {
                self.prefetch_values(r);
            }
            return group.last().copied();
        }
        self.set.first_candidate(hash, &self.data, self.arity)
    }

    /// [`Relation::find_row_hashed`] given the [`Relation::first_candidate`] of the same
    /// hash: the candidate itself when its values are `row` (nearly always, tags being 32
    /// bits), else a whole probe.
    #[inline]
    pub fn find_row_candidate(
        &self,
        hash: u64,
        row: &[Value],
        candidate: Option<RowId>,
    ) -> Option<RowId> {
        if let Some(dense) = &self.dense {
            return dense.get(row[0]);
        }
        if self.by_indexes {
            // The candidate, the newest row of a group, is the newest with its values.
            return match candidate {
                Some(r) if super::same_values(self.row(r), row) => Some(r),
                _ => self.find(row),
            };
        }
        let r = candidate?;
        if super::same_values(self.row(r), row) {
            Some(r)
        } else {
            self.find_row_hashed(hash, row)
        }
    }

    /// A hint that row `r`'s values ([`Relation::row`]) will be read soon: starts loading
    /// them. Changes no result.
    #[inline]
    pub fn prefetch_values(&self, r: RowId) {
        if let Some(v) = self.data.get(r as usize * self.arity) {
            prefetch(v);
        }
    }

    /// [`Relation::find_row`] with the row's hash computed beforehand by
    /// [`Relation::hash_row`].
    #[inline]
    pub fn find_row_hashed(&self, hash: u64, row: &[Value]) -> Option<RowId> {
        if self.arity == 0 {
            return self.len.checked_sub(1).map(|r| r as RowId);
        }
        if let Some(dense) = &self.dense {
            return dense.get(row[0]);
        }
        if self.by_indexes {
            return self.find(row);
        }
        debug_assert_eq!(hash, self.hash_row(row));
        self.set.find(hash, row, &self.data, self.arity)
    }

    /// True when the row is present.
    pub fn contains(&self, row: &[Value]) -> bool {
        debug_assert_eq!(row.len(), self.arity);
        self.row_id(row).is_some()
    }

    /// The id of a live row with these values.
    pub fn row_id(&self, row: &[Value]) -> Option<RowId> {
        self.find_row(row).filter(|&r| self.is_live(r))
    }

    fn set_dead(&mut self, r: RowId, dead: bool) {
        let (w, b) = (r as usize / 64, r % 64);
        if self.dead.len() <= w {
            self.dead.resize(w + 1, 0);
        }
        let was = self.dead[w] & (1 << b) != 0;
        if dead && !was {
            self.dead[w] |= 1 << b;
            self.dead_count += 1;
        } else if !dead && was {
            self.dead[w] &= !(1 << b);
            self.dead_count -= 1;
        }
    }

    /// Removes a live row, leaving a tombstone; returns its id, or `None` if absent.
    pub fn remove(&mut self, row: &[Value]) -> Option<RowId> {
        let r = self.row_id(row)?;
        self.set_dead(r, true);
        Some(r)
    }

    /// Removes the live row `r`, leaving a tombstone: [`Relation::remove`] for a caller that
    /// already holds the id, without its hash probe. Panics if `r` is not a live row.
    pub fn remove_id(&mut self, r: RowId) {
        assert!(
            (r as usize) < self.len && self.is_live(r),
            "row {r} is not live"
        );
        self.set_dead(r, true);
    }

    /// Makes a tombstone live again under its old id. Panics if the row is live; in debug
    /// builds also if its values were inserted again since (the caller revives only what it
    /// removed in the same batch, so release builds skip that hash probe).
    pub fn revive(&mut self, r: RowId) {
        assert!(!self.is_live(r), "row {r} is live");
        debug_assert_eq!(
            self.find_row(self.row(r)),
            Some(r),
            "row {r} was superseded by a newer copy"
        );
        self.set_dead(r, false);
    }

    /// Rebuilds the relation without tombstones (row ids change), keeping its indexes.
    /// Returns false, doing nothing, when there are none.
    pub fn compact(&mut self) -> bool {
        if self.dead_count == 0 {
            return false;
        }
        let live_rows = self.len - self.dead_count;
        let mut live: Vec<Value> = Vec::with_capacity(live_rows * self.arity);
        for r in (0..self.len as RowId).filter(|&r| self.is_live(r)) {
            live.extend_from_slice(self.row(r));
        }
        self.clear();
        if self.by_indexes {
            // The live rows are distinct (each is its values' newest copy): appended without
            // a lookup, then indexed in one pass each.
            self.data.extend_from_slice(&live);
            self.len = live_rows;
            self.index_appended(0, true);
            self.choose_preferred();
            return true;
        }
        if self.arity == 0 {
            if live_rows > 0 {
                self.insert(&[]);
            }
        } else {
            // As inserting them one by one, with the lookups' misses overlapped and the
            // indexes built once at the end (a recomputed relation is compacted whole after
            // every batch: one by one, that was a third of `recompute-levels`' time).
            self.insert_flat(&live, live_rows as u64);
        }
        true
    }

    /// Room for `n` more rows in the arena and the set table (the dense map's array grows by
    /// its own rule), in one allocation each.
    fn reserve_rows(&mut self, n: usize) {
        let values = self.data.len() + n * self.arity;
        if values > self.data.capacity() {
            let mut grown = Vec::with_capacity(values);
            advise_huge_pages(&grown);
            grown.extend_from_slice(&self.data);
            self.data = grown;
        }
        if self.dense.is_none() && !self.by_indexes {
            self.set.reserve(n);
        }
    }

    /// Appends a row's values to the arena. The arena grows by doubling, as a `Vec` would,
    /// but into a fresh allocation advised to use huge pages before it is written.
    #[inline]
    fn push_values(&mut self, row: &[Value]) {
        if self.data.len() + row.len() > self.data.capacity() {
            let cap = (self.data.capacity() * 2)
                .max(self.data.len() + row.len())
                .max(64);
            let mut grown = Vec::with_capacity(cap);
            advise_huge_pages(&grown);
            grown.extend_from_slice(&self.data);
            self.data = grown;
        }
        self.data.extend_from_slice(row);
    }

    /// Adds a row; returns false (and changes nothing) when it was already present.
    pub fn insert(&mut self, row: &[Value]) -> bool {
        assert_eq!(row.len(), self.arity, "row of the wrong arity");
        if self.arity == 0 {
            if self.len > 0 && self.is_live(self.len as RowId - 1) {
                return false;
            }
            let r = self.len as RowId;
            self.len += 1;
            for ix in &mut self.indexes {
                ix.all.push(r);
            }
            return true;
        }
        // One look: the existing row (live: nothing to do; a tombstone: the new row
        // supersedes it) or where the new row goes.
        let place = self.place(row);
        if self.stored(&place).is_some_and(|old| self.is_live(old)) {
            return false;
        }
        self.append_indexed(place, row);
        true
    }

    /// Makes the row live and returns its id: a live row is left as it is, a tombstone
    /// comes back under its old id ([`Relation::revive`]), and new values are appended
    /// ([`Relation::insert`]). One probe; unlike `insert`, a fact that leaves and comes back
    /// keeps its row id, so a column beside the rows (a count per row) stays in place.
    pub fn make_live(&mut self, row: &[Value]) -> RowId {
        assert_eq!(row.len(), self.arity, "row of the wrong arity");
        if self.arity == 0 {
            match self.find_row(row) {
                Some(r) if !self.is_live(r) => self.set_dead(r, false),
                Some(_) => {}
                None => {
                    self.insert(row);
                }
            }
            return self.end() - 1;
        }
        let place = self.place(row);
        if let Some(old) = self.stored(&place) {
            self.set_dead(old, false);
            return old;
        }
        self.append_indexed(place, row)
    }

    /// Adds rows in order; returns what became of each. Without `revive`, exactly what
    /// inserting them one by one does, with the same row ids. With `revive`, a row whose
    /// values are a tombstone's makes that tombstone live again under its old id
    /// ([`Insertion::Revived`]) instead of being appended: no new row, no index entry, and the
    /// old one stays the only copy — but the row is not in the range of rows appended by the
    /// batch, which a caller doing semi-naive evaluation must account for.
    ///
    /// The indexes are brought up to date after all rows are in, one index at a time, each
    /// prefetching the groups of the rows a few places ahead so that their cache misses
    /// overlap. (Taking the rows in the order of their home slots instead was slower with
    /// prefetching: 1,000 insertions 120 against 90 µs.)
    pub fn insert_batch(&mut self, rows: &[&[Value]], revive: bool) -> Vec<Insertion> {
        let mut outcomes = Vec::with_capacity(rows.len());
        self.insert_batch_with(rows, revive, |_, o| outcomes.push(o));
        outcomes
    }

    /// [`Relation::insert_batch`] of the rows an iterator gives, telling `each` what became
    /// of each row (in order, before the indexes are brought up to date) instead of
    /// collecting it: a bulk load of the EDB then holds neither a list of its rows nor an
    /// outcome per row (8 bytes an edge of the engine's peak each). The iterator is cloned
    /// to look a few rows ahead; its size hint's lower bound decides what counts as a bulk
    /// load and how much room is made at once.
    pub fn insert_batch_with<R: AsRef<[Value]>, I>(
        &mut self,
        rows: I,
        revive: bool,
        mut each: impl FnMut(R, Insertion),
    ) where
        I: IntoIterator<Item = R>,
        I::IntoIter: Clone,
    {
        let rows = rows.into_iter();
        if self.arity == 0 || self.indexes.is_empty() {
            for row in rows {
                let values = row.as_ref();
                let outcome = match self
                    .find_row(values)
                    .filter(|&r| revive && !self.is_live(r))
                {
                    Some(r) => {
                        self.revive(r);
                        Insertion::Revived(r)
                    }
                    None if self.insert(values) => Insertion::Appended,
                    None => Insertion::Present,
                };
                each(row, outcome);
            }
            return;
        }
        let offered = rows.size_hint().0;
        // A bulk load into an empty relation that finds rows through its indexes (the EDB
        // at materialisation) finds them through a set table of its own, freed before the
        // indexes are built in one pass each: indexed row by row, a group's rows moved
        // between regions as it grew (WordNet's edges by source: 1.6 MiB against 1.1).
        let load = self.by_indexes && self.len == 0 && offered >= 1024;
        if self.by_indexes && !load {
            // Row by row, each indexed as it comes, so that the next rows find it: the
            // indexes are how rows are found.
            if offered >= self.len.max(1024) {
                self.reserve_rows(offered);
            }
            // Each row's group entry loaded 3 * STAGE rows before it, the group's ids
            // 2 * STAGE before, the rows they name STAGE before: the misses of several rows
            // in flight at once.
            const STAGE: usize = 8;
            let mut entries = rows.clone();
            let mut groups = rows.clone();
            let mut values = rows.clone();
            for row in entries.by_ref().take(3 * STAGE) {
                self.prefetch_row(0, row.as_ref());
            }
            for row in groups.by_ref().take(2 * STAGE) {
                self.prefetch_row_group(row.as_ref());
            }
            for row in values.by_ref().take(STAGE) {
                self.first_candidate(0, row.as_ref());
            }
            for item in rows {
                if let Some(next) = entries.next() {
                    self.prefetch_row(0, next.as_ref());
                }
                if let Some(next) = groups.next() {
                    self.prefetch_row_group(next.as_ref());
                }
                if let Some(next) = values.next() {
                    self.first_candidate(0, next.as_ref());
                }
                let row = item.as_ref();
                assert_eq!(row.len(), self.arity, "row of the wrong arity");
                let place = self.place(row);
                let outcome = match self.stored(&place) {
                    Some(old) if self.is_live(old) => Insertion::Present,
                    Some(old) if revive => {
                        self.revive(old);
                        Insertion::Revived(old)
                    }
                    _ => {
                        self.append_indexed(place, row);
                        Insertion::Appended
                    }
                };
                each(item, outcome);
            }
            self.choose_preferred();
            return;
        }
        const AHEAD: usize = 16;
        // A bulk load (at least as many rows as the relation holds): room for all of them
        // at once, so that no structure doubles its way up and leaves each smaller copy
        // behind as freed memory the allocator keeps resident (measured on GO BP's 65,108
        // edges: 3.8 MB beside 6.9 MB of structures).
        let bulk = offered >= self.len.max(1024);
        if load {
            self.by_indexes = false;
        }
        if bulk {
            self.reserve_rows(offered);
        }
        let first = self.len as RowId;
        let mut ahead = rows.clone().skip(AHEAD);
        for item in rows {
            let row = item.as_ref();
            assert_eq!(row.len(), self.arity, "row of the wrong arity");
            if let Some(next) = ahead.next().filter(|_| self.dense.is_none()) {
                self.set.prefetch(self.hasher.hash_one(next.as_ref()));
            }
            let r = self.len as RowId;
            let place = self.place(row);
            if let Some(old) = self.stored(&place) {
                if self.is_live(old) {
                    each(item, Insertion::Present);
                    continue;
                }
                if revive {
                    self.revive(old);
                    each(item, Insertion::Revived(old));
                    continue;
                }
            }
            self.claim(place, row, r);
            self.push_values(row);
            self.len += 1;
            each(item, Insertion::Appended);
        }
        // Freed before the indexes are built, so that the two are never held together; kept
        // when the rows' groups would not fit their entries.
        let by_indexes = load && self.groups_fit_entries();
        if by_indexes {
            self.set = RowSet::default();
        }
        self.index_appended(first, bulk);
        if by_indexes {
            self.by_indexes = true;
            self.choose_preferred();
        }
    }

    /// Brings every index up to date with the rows appended from `first` on, one index at a
    /// time, each prefetching the groups of the rows a few places ahead (see
    /// [`Relation::insert_batch`]). `bulk`: the rows are at least as many as the relation
    /// held before them, and each table is sized once for the groups they may open.
    /// Indexes deferred ([`Relation::defer_index`]) are left as they are.
    fn index_appended(&mut self, first: RowId, bulk: bool) {
        let (data, arity, hasher) = (&self.data, self.arity, &self.hasher);
        let end = self.len as RowId;
        for ix in &mut self.indexes {
            if ix.deferred_from.is_none() {
                Self::index_rows(ix, data, arity, hasher, first, end, bulk);
            }
        }
    }

    /// Adds rows `first..end` to one index (see [`Relation::index_appended`]).
    fn index_rows(
        ix: &mut Index,
        data: &[Value],
        arity: usize,
        hasher: &DefaultHashBuilder,
        first: RowId,
        end: RowId,
        bulk: bool,
    ) {
        const AHEAD: usize = 16;
        let row = |r: RowId| &data[r as usize * arity..(r as usize + 1) * arity];
        {
            if ix.cols.is_empty() {
                ix.all.extend(first..end);
                return;
            }
            if let Some(dense) = ix.dense.as_mut().filter(|_| bulk) {
                // Sized once for the new rows' values, or hashed now if they do not fit.
                let c = ix.cols[0];
                let values = (first..end).map(|r| row(r)[c]);
                match dense_span(values, dense.count) {
                    Some(DenseSpan::Fits(hi)) => {
                        let len = (hi as usize + 1).max(dense.groups.len());
                        dense.cover(len, len);
                    }
                    Some(DenseSpan::Beyond) => ix.dense_off(hasher),
                    None => {}
                }
            }
            if bulk && first == 0 && ix.dense.as_ref().is_some_and(|d| d.count == 0) {
                // An empty dense index and every value fits it (checked above): each group
                // made whole.
                Self::dense_build(ix, data, arity, end);
                return;
            }
            // Rows from `hashed_from` on go to the hashed table: all of them, or those after
            // the row whose value turned the dense array off.
            let mut hashed_from = first;
            if ix.dense.is_some() {
                let c = ix.cols[0];
                while hashed_from < end {
                    let r = hashed_from;
                    if let Some(next) = r.checked_add(AHEAD as RowId).filter(|&n| n < end) {
                        if let Some(g) = ix.dense.as_ref().and_then(|d| d.get(row(next)[c])) {
                            prefetch(g);
                        }
                    }
                    if !Self::dense_insert(ix, hasher, row(r)[c], r) {
                        break;
                    }
                    hashed_from += 1;
                }
            }
            let first = hashed_from;
            if first == end {
                return;
            }
            let hash = |cols: &[usize], r: RowId| Self::hash_key(hasher, row(r), cols);
            if bulk {
                // Groups the new rows may open: their distinct keys, told apart by the top
                // half of their hashes (a collision only reserves a group too few).
                let mut keys: Vec<u32> = (first..end)
                    .map(|r| (hash(&ix.cols, r) >> 32) as u32)
                    .collect();
                keys.sort_unstable();
                keys.dedup();
                ix.table.reserve(keys.len());
            }
            // The hashes of the rows AHEAD places on, whose groups are being loaded: a ring
            // rather than one hash per new row, which on a bulk load was 8 bytes an edge of
            // the engine's peak.
            let mut ahead = [0u64; AHEAD];
            for (slot, r) in ahead.iter_mut().zip(first..end) {
                *slot = hash(&ix.cols, r);
                ix.table.prefetch(*slot);
            }
            for (i, r) in (first..end).enumerate() {
                let h = ahead[i % AHEAD];
                if let Some(next) = r.checked_add(AHEAD as RowId).filter(|&n| n < end) {
                    ahead[i % AHEAD] = hash(&ix.cols, next);
                    ix.table.prefetch(ahead[i % AHEAD]);
                }
                if ix.dense.is_some() {
                    // Dense again since a new group of this batch ([`Index::try_dense`]).
                    Self::index_insert(ix, hasher, row(r), r);
                } else {
                    Self::index_insert_hashed(ix, row(r), r, h);
                }
            }
        }
    }

    /// Fills an empty dense index with rows `0..end`, whose key values all lie within its
    /// array: the rows sorted by value (a counting sort, so each group stays ascending),
    /// then each group made whole ([`super::group::RowPool::group_of`]). Row by row, each row's group was a
    /// cache miss and a middling group moved through regions as it grew: building `path`'s
    /// two indexes after a recomputation of GO MF's TC cost about half the recomputation.
    fn dense_build(ix: &mut Index, data: &[Value], arity: usize, end: RowId) {
        let c = ix.cols[0];
        let Index { dense, pool, .. } = ix;
        let dense = dense.as_mut().expect("a dense index");
        let values = dense.groups.len();
        let value = |r: RowId| data[r as usize * arity + c] as usize;
        let mut starts = vec![0u32; values + 1];
        for r in 0..end {
            starts[value(r) + 1] += 1;
        }
        for v in 0..values {
            starts[v + 1] += starts[v];
        }
        let mut next = starts.clone();
        let mut order = vec![0 as RowId; end as usize];
        for r in 0..end {
            let slot = &mut next[value(r)];
            order[*slot as usize] = r;
            *slot += 1;
        }
        for v in 0..values {
            let (lo, hi) = (starts[v] as usize, starts[v + 1] as usize);
            if lo < hi {
                dense.groups[v] = pool.group_of(&order[lo..hi], 0);
                dense.count += 1;
            }
        }
    }

    /// Stops bringing `index` up to date as rows are added, until
    /// [`Relation::build_deferred`]; meanwhile [`Relation::lookup`] and
    /// [`Relation::prefetch_group`] of it panic. For an evaluation that never reads the
    /// index and a caller that may never need it (a recomputation whose next batch
    /// recomputes again): each row is then indexed once, in one pass, or never. An index
    /// without key columns, or of a relation of arity 0, is kept up to date.
    pub fn defer_index(&mut self, index: IndexId) {
        let len = self.len as RowId;
        let ix = &mut self.indexes[index];
        if self.arity > 0 && !ix.cols.is_empty() && ix.deferred_from.is_none() {
            ix.deferred_from = Some(len);
            if self.by_indexes && !self.has_kept_index() {
                self.set_table_on();
            }
            self.choose_preferred();
        }
    }

    /// How many indexes the relation has (their [`IndexId`]s are `0..` this).
    pub fn index_count(&self) -> usize {
        self.indexes.len()
    }

    /// Whether `index` is deferred ([`Relation::defer_index`]).
    pub fn is_deferred(&self, index: IndexId) -> bool {
        self.indexes[index].deferred_from.is_some()
    }

    /// The rows [`Relation::build_deferred_index`] of `index` would add (0 when it is not
    /// deferred).
    pub fn deferred_rows(&self, index: IndexId) -> usize {
        self.indexes[index]
            .deferred_from
            .map_or(0, |first| self.len - first as usize)
    }

    /// Brings `index` up to date if it is deferred: one pass over the rows added since.
    pub fn build_deferred_index(&mut self, index: IndexId) {
        let (data, arity, hasher) = (&self.data, self.arity, &self.hasher);
        let end = self.len as RowId;
        let ix = &mut self.indexes[index];
        if let Some(first) = ix.deferred_from.take() {
            // As a bulk load when the rows are at least as many as those indexed already
            // (a recomputed relation: all of them).
            let bulk = (end - first) as usize >= (first as usize).max(1024);
            Self::index_rows(ix, data, arity, hasher, first, end, bulk);
        }
    }

    /// Brings every deferred index up to date ([`Relation::build_deferred_index`]).
    pub fn build_deferred(&mut self) {
        for index in 0..self.indexes.len() {
            self.build_deferred_index(index);
        }
    }

    /// A hint that [`Relation::lookup`] of `index` and `key` comes soon: starts loading the
    /// group's entry (of the dense array, or the home slot of the hashed table), reading
    /// nothing that may miss. Changes no result.
    #[inline]
    pub fn prefetch_group(&self, index: IndexId, key: &[Value]) {
        let ix = &self.indexes[index];
        assert!(ix.deferred_from.is_none(), "lookup of a deferred index");
        if let Some(dense) = &ix.dense {
            if let Some(g) = dense.get(key[0]) {
                prefetch(g);
            }
        } else if self.arity > 0 && !ix.cols.is_empty() {
            ix.table.prefetch(self.hasher.hash_one(KeySlice(key)));
        }
    }

    /// The ascending ids of all rows whose indexed columns equal `key` (in index column order).
    #[inline]
    pub fn lookup(&self, index: IndexId, key: &[Value]) -> &[RowId] {
        assert!(
            self.indexes[index].deferred_from.is_none(),
            "lookup of a deferred index"
        );
        self.lookup_built(index, key)
    }

    /// [`Relation::lookup`] of an index, deferred or not (of a deferred one: the rows
    /// indexed before it was deferred).
    #[inline]
    fn lookup_built(&self, index: IndexId, key: &[Value]) -> &[RowId] {
        let ix = &self.indexes[index];
        if let Some(dense) = &ix.dense {
            return dense.get(key[0]).map_or(&[], |g| ix.pool.rows(g));
        }
        if self.arity == 0 || ix.cols.is_empty() {
            return &ix.all;
        }
        let h = self.hasher.hash_one(KeySlice(key));
        let k = ix.cols.len();
        match ix
            .table
            .find(h, |e| Index::holds(&ix.keys, k, e, |j| key[j]))
        {
            Some(e) => ix.pool.rows(&e.rows),
            None => &[],
        }
    }

    /// An empty relation of the same arity with the same indexes (same [`IndexId`]s, empty):
    /// what [`Relation::clear`] leaves, without touching this one.
    pub fn emptied(&self) -> Relation {
        let mut fresh = Relation::new(self.arity);
        for ix in &self.indexes {
            fresh.ensure_index(&ix.cols);
        }
        if self.by_indexes {
            fresh.find_by_indexes();
        }
        fresh
    }

    /// [`Relation::emptied`], in `spare`'s memory when `spare` has this relation's arity and
    /// indexes (it is cleared, its capacity kept); otherwise a new relation.
    ///
    /// Why: a relation evaluated into new memory has its pages zeroed by the kernel as they
    /// are first touched and its tables grown by rehashing; on getopts' liveness analysis
    /// that was a fifth of recomputing its levels (`clear_page` 16% of the samples).
    pub fn emptied_reusing(&self, spare: Option<Relation>) -> Relation {
        let fits = |s: &Relation| {
            s.arity == self.arity
                && s.indexes.len() == self.indexes.len()
                && s.indexes
                    .iter()
                    .zip(&self.indexes)
                    .all(|(a, b)| a.cols == b.cols)
        };
        match spare {
            Some(mut spare) if fits(&spare) => {
                spare.clear();
                spare
            }
            _ => self.emptied(),
        }
    }

    /// How many of `other`'s live rows in `rows` have a live copy here: one lookup each, the
    /// misses overlapped (each row's slot is loaded a few rows ahead). `other` has this
    /// relation's arity.
    pub fn count_present(&self, other: &Relation, rows: RowRange) -> usize {
        const AHEAD: RowId = 8;
        let hint = |r: RowId| {
            if r < rows.hi && other.is_live(r) {
                let row = other.row(r);
                self.prefetch_row(self.lookup_hash(row), row);
            }
        };
        (rows.lo..rows.hi.min(rows.lo + AHEAD)).for_each(hint);
        let mut present = 0;
        for r in rows.lo..rows.hi {
            hint(r + AHEAD);
            if other.is_live(r) && self.row_id(other.row(r)).is_some() {
                present += 1;
            }
        }
        present
    }

    /// Removes every row, keeping the declared indexes (empty).
    pub fn clear(&mut self) {
        self.len = 0;
        self.dead.clear();
        self.dead_count = 0;
        self.data.clear();
        self.set.clear();
        self.dense = (self.arity == 1).then(Dense::default);
        for ix in &mut self.indexes {
            ix.table.clear();
            ix.keys.clear();
            ix.pool.clear();
            ix.all.clear();
            ix.deferred_from = None;
            // Dense again (its array kept) until a value does not fit.
            if ix.cols.len() == 1 {
                let mut dense = ix.dense.take().unwrap_or_default();
                dense.groups.fill(GroupRows::default());
                dense.count = 0;
                ix.dense = Some(dense);
                ix.hashed_max = Some(-1);
            }
        }
    }

    /// Verifies the set table and every index against the rows; panics with a description on
    /// the first disagreement. Linear time; for tests and debug assertions.
    pub fn check_invariants(&self) {
        assert_eq!(self.data.len(), self.len * self.arity);
        let dead = (0..self.len as RowId).filter(|&r| !self.is_live(r)).count();
        assert_eq!(dead, self.dead_count, "tombstone count");
        if self.arity > 0 {
            let distinct: std::collections::HashSet<&[Value]> =
                (0..self.len as RowId).map(|r| self.row(r)).collect();
            match &self.dense {
                Some(dense) => {
                    assert_eq!(self.set.len(), 0, "set table beside the dense map");
                    let stored = dense.rows.iter().filter(|&&r| r != Dense::NONE).count();
                    assert_eq!(stored, distinct.len(), "dense map size");
                }
                None if self.by_indexes => {
                    assert_eq!(self.set.len(), 0, "set table beside finding by indexes");
                    assert!(
                        self.has_kept_index(),
                        "finding by indexes without an index kept"
                    );
                }
                None => assert_eq!(self.set.len(), distinct.len(), "set table size"),
            }
            for r in 0..self.len as RowId {
                let found = self
                    .find(self.row(r))
                    .expect("every value is in the set table");
                assert!(found >= r, "row {r}: the set table points at an older copy");
                if self.is_live(r) {
                    assert_eq!(found, r, "live row {r} is not the newest copy");
                }
            }
        } else {
            assert!(
                self.len() <= 1,
                "zero-arity relation holds at most one fact"
            );
        }
        for (ixi, ix) in self.indexes.iter().enumerate() {
            // A deferred index covers the rows before it was deferred.
            let indexed = ix.deferred_from.map_or(self.len, |r| r as usize);
            assert!(indexed <= self.len, "deferred past the last row");
            let dense_groups = ix.dense.iter().flat_map(|d| &d.groups);
            ix.pool
                .check(ix.table.iter().map(|e| &e.rows).chain(dense_groups));
            if let Some(dense) = &ix.dense {
                assert_eq!(ix.cols.len(), 1, "dense index of a one-column key");
                assert_eq!(ix.table.len(), 0, "hashed table beside the dense groups");
                let count = dense.groups.iter().filter(|g| !g.is_empty()).count();
                assert_eq!(dense.count, count, "dense group count");
                for (v, g) in dense.groups.iter().enumerate() {
                    for &r in ix.pool.rows(g) {
                        assert_eq!(self.row(r)[ix.cols[0]], v as Value, "row {r} of value {v}");
                    }
                }
            } else if ix.cols.len() == 1 {
                let max = ix.table.iter().map(|e| e.first).max().unwrap_or(-1);
                match ix.hashed_max {
                    Some(m) => assert_eq!(m, max, "largest hashed value"),
                    None => assert!(ix.table.iter().any(|e| e.first < 0), "a negative value"),
                }
            }
            let mut seen = 0;
            if self.arity > 0 && !ix.cols.is_empty() {
                let k = ix.cols.len();
                let stored = if k > 1 { ix.table.len() * k } else { 0 };
                assert_eq!(ix.keys.len(), stored, "index keys");
                for e in ix.table.iter() {
                    let first = [e.first];
                    let key = if k > 1 {
                        &ix.keys[e.rows.number() as usize * k..(e.rows.number() as usize + 1) * k]
                    } else {
                        &first[..]
                    };
                    assert_eq!(e.first, key[0], "first key value");
                    assert_eq!(
                        self.lookup_built(ixi, key),
                        ix.pool.rows(&e.rows),
                        "group not found by its key"
                    );
                }
            }
            for g in ix.groups() {
                assert!(
                    g.windows(2).all(|w| w[0] < w[1]),
                    "index group not ascending"
                );
                assert!(
                    g.iter().all(|&r| (r as usize) < indexed),
                    "a row past those indexed"
                );
                seen += g.len();
                if self.arity > 0 && !ix.cols.is_empty() {
                    let key: Vec<Value> = ix.cols.iter().map(|&c| self.row(g[0])[c]).collect();
                    for &r in g {
                        let k: Vec<Value> = ix.cols.iter().map(|&c| self.row(r)[c]).collect();
                        assert_eq!(k, key, "row {r} in the wrong group");
                    }
                }
            }
            assert_eq!(seen, indexed, "index does not cover every row once");
        }
    }
}

mod flat;

#[cfg(test)]
mod tests;
