//! The value → row table of a [`super::Relation`]: a [`ProbeTable`] of 8-byte slots (row id
//! and 32 bits of the row's hash); rows are compared in the relation's arena.
//!
//! Why a table of our own: finding rows by value is most of `dred`'s time on large deletions
//! (the head of every instance through an over-deleted or restored fact is looked up), and
//! each lookup waits for cache misses; callers with many rows to find prefetch their slots
//! first ([`RowSet::prefetch`]) and the misses overlap.
//!
//! Measured on this machine (2 MB of L2 per core): keeping the row's first values in the slot
//! (24-byte slots, no read of the arena for rows of arity ≤ 2) was *slower* than these 8-byte
//! slots on every workload — 1,000-edge deletions of TC 0.95 s against 1.08 s on R-MAT, 160
//! against 190 ms on GO BP, reachability deletions 200 against 330 µs on WordNet: the table's
//! size matters more than one dependent read.
//!
//! Nor does dropping the control bytes pay (8-byte slots probed directly, so a hit reads one
//! line fewer; session 5): equal on R-MAT single-edge deletions side by side (per batch,
//! 1.01×), but 1,000-edge TC deletions on WordNet, whose searches mostly fail, took 9% longer
//! per batch (32.8 against 31.9 ms median, same run) — a lookup of an absent row walks 8.5
//! slots at 3/4 load, where the control bytes give eight at once.
//!
//! Slots are never removed (a relation's tombstones stay findable by value until superseded,
//! see [`super::Relation`]).

use super::probe_table::{prefetch, Probe, ProbeTable, Tagged};
use super::RowId;
use crate::value::Value;

#[derive(Clone, Copy, Debug, Default)]
struct Slot {
    row: RowId,
    /// The low 32 bits of the row's hash: its home slot (scaled to the table), and a filter.
    tag: u32,
}

impl Tagged for Slot {
    #[inline(always)]
    fn tag(&self) -> u32 {
        self.tag
    }
}

/// A set of distinct rows by value, each mapped to one row id. The caller hashes rows (with
/// one hasher for all calls) and owns the arena the ids point into.
#[derive(Clone, Debug, Default)]
pub(crate) struct RowSet {
    table: ProbeTable<Slot>,
}

/// True when row `r` of the arena has these values.
#[inline(always)]
fn row_is(data: &[Value], arity: usize, r: RowId, row: &[Value]) -> bool {
    let start = r as usize * arity;
    super::same_values(&data[start..start + arity], row)
}

impl RowSet {
    /// Bytes of heap this set holds.
    pub(crate) fn heap_bytes(&self) -> usize {
        self.table.heap_bytes()
    }

    /// Distinct rows held.
    pub(crate) fn len(&self) -> usize {
        self.table.len()
    }

    /// Forgets every row, keeping the capacity.
    pub(crate) fn clear(&mut self) {
        self.table.clear();
    }

    /// Asks the CPU to load the home slot of a row with this hash, so that a probe soon after
    /// does not wait for memory. A hint only: it changes no result.
    #[inline(always)]
    pub(crate) fn prefetch(&self, hash: u64) {
        self.table.prefetch(hash);
    }

    /// The row id in the first slot of `hash`'s probe sequence whose tag matches — the row a
    /// probe compares first — and a hint to start loading its values from `data` (rows of
    /// `arity`). `None` means no row with this hash is stored. Call it once the slot of
    /// [`RowSet::prefetch`] has arrived.
    #[inline]
    pub(crate) fn first_candidate(&self, hash: u64, data: &[Value], arity: usize) -> Option<RowId> {
        let r = self.table.first_candidate(hash)?.row;
        if let Some(v) = data.get(r as usize * arity) {
            prefetch(v);
        }
        Some(r)
    }

    /// Probes for `row` (hash `hash`); `data` and `arity` locate the rows of the ids stored.
    /// Call [`RowSet::reserve_one`] first at least once.
    #[inline]
    pub(crate) fn probe(&self, hash: u64, row: &[Value], data: &[Value], arity: usize) -> Probe {
        self.table.probe(hash, |s| row_is(data, arity, s.row, row))
    }

    /// The row id stored for `row`, if present.
    #[inline]
    pub(crate) fn find(
        &self,
        hash: u64,
        row: &[Value],
        data: &[Value],
        arity: usize,
    ) -> Option<RowId> {
        self.table
            .find(hash, |s| row_is(data, arity, s.row, row))
            .map(|s| s.row)
    }

    /// The row id in slot `i` (a [`Probe::Found`]).
    #[inline]
    pub(crate) fn row_at(&self, i: usize) -> RowId {
        self.table.slot(i).row
    }

    /// Points slot `i` (a [`Probe::Found`]) at another row with the same values.
    #[inline]
    pub(crate) fn set_row_at(&mut self, i: usize, r: RowId) {
        self.table.slot_mut(i).row = r;
    }

    /// Stores `row` as `r` in slot `i`, the [`Probe::Vacant`] of a probe for `row` made after
    /// the last [`RowSet::reserve_one`].
    #[inline]
    pub(crate) fn fill(&mut self, i: usize, hash: u64, r: RowId) {
        self.table.fill(
            i,
            hash,
            Slot {
                row: r,
                tag: hash as u32,
            },
        );
    }

    /// Makes room for `additional` more rows at once (see [`ProbeTable::reserve`]).
    pub(crate) fn reserve(&mut self, additional: usize) {
        self.table.reserve(additional);
    }

    /// Makes room for one more row, so that a following probe's vacant slot can be filled.
    #[inline]
    pub(crate) fn reserve_one(&mut self) {
        self.table.reserve_one();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::hash::BuildHasher;

    /// Rows whose hashes collide on purpose (8 distinct values), so probes walk past occupied
    /// slots with equal tags and control bytes and decide by the arena.
    #[test]
    fn collisions_and_growth() {
        let arity = 3;
        let mut data: Vec<Value> = Vec::new();
        let mut set = RowSet::default();
        let hasher = hashbrown::DefaultHashBuilder::default();
        let hash = |row: &[Value]| hasher.hash_one(row) & 7;
        for i in 0..1000i64 {
            let row = [i % 7, i % 11, i];
            set.reserve_one();
            match set.probe(hash(&row), &row, &data, arity) {
                Probe::Found(_) => panic!("row {i} is new"),
                Probe::Vacant(s) => set.fill(s, hash(&row), i as RowId),
            }
            data.extend_from_slice(&row);
        }
        assert_eq!(set.len(), 1000);
        for i in 0..1000i64 {
            let row = [i % 7, i % 11, i];
            set.prefetch(hash(&row));
            assert_eq!(set.find(hash(&row), &row, &data, arity), Some(i as RowId));
            // The same first two values with another third: absent.
            let other = [i % 7, i % 11, i + 5000];
            assert_eq!(set.find(hash(&other), &other, &data, arity), None);
        }
        set.clear();
        assert_eq!(set.len(), 0);
        assert_eq!(set.find(hash(&[0, 0, 0]), &[0, 0, 0], &data, arity), None);
    }
}
