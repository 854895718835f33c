//! The value → row table of a [`super::Relation`]: 8-byte slots (row id and 32 bits of the
//! row's hash) probed linearly; rows are compared in the relation's arena.
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
//! Slots are never removed (a relation's tombstones stay findable by value until superseded,
//! see [`super::Relation`]).

use super::probe_table::{advise_huge_pages, prefetch, Probe};
use super::RowId;
use crate::value::Value;

/// A slot: the row id (or [`FREE`]) and the low 32 bits of the row's hash, its home slot
/// (masked) and a filter before the arena is read.
#[derive(Clone, Copy, Debug)]
struct Slot {
    row: RowId,
    tag: u32,
}

/// The row id of a free slot; [`RowSet::fill`] never stores it.
const FREE: RowId = RowId::MAX;

const EMPTY: Slot = Slot { row: FREE, tag: 0 };

/// A set of distinct rows by value, each mapped to one row id: open addressing with linear
/// probing over 8-byte slots, at most 3/4 full. The caller hashes rows (with one hasher for
/// all calls) and owns the arena the ids point into.
///
/// No control bytes, unlike the index tables ([`super::probe_table::ProbeTable`]): a slot is
/// small enough that eight share a cache line, so a probe reads its slots directly — one
/// cache line for most lookups, where a separate control array costs a second line (and a
/// second prefetch) per row looked up. Phase 1 of `dred` looks up a head per instance through
/// an over-deleted fact, prefetched, and the profile showed those prefetches stalling: the
/// cache lines in flight, not each one's latency, bound it. Measured `dred` alone on R-MAT
/// TC single-edge deletions (60 batches, best of 3 runs each): median 2,600 → 2,502 µs.
#[derive(Clone, Debug, Default)]
pub(crate) struct RowSet {
    slots: Vec<Slot>,
    len: usize,
}

/// True when row `r` of the arena has these values.
#[inline(always)]
fn row_is(data: &[Value], arity: usize, r: RowId, row: &[Value]) -> bool {
    let start = r as usize * arity;
    // Element-wise: `[i64] == [i64]` is a `memcmp` call, whose overhead dominated
    // deduplication of short rows.
    data[start..start + arity]
        .iter()
        .zip(row)
        .all(|(a, b)| a == b)
}

impl RowSet {
    /// Distinct rows held.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Forgets every row, keeping the capacity.
    pub(crate) fn clear(&mut self) {
        self.slots.fill(EMPTY);
        self.len = 0;
    }

    /// Asks the CPU to load the home slot of a row with this hash, so that a probe soon after
    /// does not wait for memory. A hint only: it changes no result.
    #[inline(always)]
    pub(crate) fn prefetch(&self, hash: u64) {
        if let Some(s) = self
            .slots
            .get(hash as u32 as usize & self.slots.len().wrapping_sub(1))
        {
            prefetch(s);
        }
    }

    /// Linear probing from the home slot of `hash` to the first free slot: `hit` is called
    /// on the filled slots whose tag matches, in order, until it holds.
    #[inline(always)]
    fn walk(&self, hash: u64, mut hit: impl FnMut(RowId) -> bool) -> Probe {
        let mask = self.slots.len() - 1;
        let tag = hash as u32;
        let mut i = tag as usize & mask;
        loop {
            let s = self.slots[i];
            if s.row == FREE {
                return Probe::Vacant(i);
            }
            if s.tag == tag && hit(s.row) {
                return Probe::Found(i);
            }
            i = (i + 1) & mask;
        }
    }

    /// The row id in the first slot of `hash`'s probe sequence whose tag matches — the row a
    /// probe compares first — and a hint to start loading its values from `data` (rows of
    /// `arity`). `None` means no row with this hash is stored. Call it once the slot of
    /// [`RowSet::prefetch`] has arrived.
    #[inline]
    pub(crate) fn first_candidate(&self, hash: u64, data: &[Value], arity: usize) -> Option<RowId> {
        if self.slots.is_empty() {
            return None;
        }
        match self.walk(hash, |_| true) {
            Probe::Found(i) => {
                let r = self.slots[i].row;
                if let Some(v) = data.get(r as usize * arity) {
                    prefetch(v);
                }
                Some(r)
            }
            Probe::Vacant(_) => None,
        }
    }

    /// Probes for `row` (hash `hash`); `data` and `arity` locate the rows of the ids stored.
    /// Call [`RowSet::reserve_one`] first at least once.
    #[inline]
    pub(crate) fn probe(&self, hash: u64, row: &[Value], data: &[Value], arity: usize) -> Probe {
        debug_assert!(!self.slots.is_empty(), "probe before reserve");
        self.walk(hash, |r| row_is(data, arity, r, row))
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
        if self.slots.is_empty() {
            return None;
        }
        match self.probe(hash, row, data, arity) {
            Probe::Found(i) => Some(self.slots[i].row),
            Probe::Vacant(_) => None,
        }
    }

    /// The row id in slot `i` (a [`Probe::Found`]).
    #[inline]
    pub(crate) fn row_at(&self, i: usize) -> RowId {
        self.slots[i].row
    }

    /// Points slot `i` (a [`Probe::Found`]) at another row with the same values.
    #[inline]
    pub(crate) fn set_row_at(&mut self, i: usize, r: RowId) {
        debug_assert_ne!(r, FREE);
        self.slots[i].row = r;
    }

    /// Stores `row` as `r` in slot `i`, the [`Probe::Vacant`] of a probe for `row` made after
    /// the last [`RowSet::reserve_one`].
    #[inline]
    pub(crate) fn fill(&mut self, i: usize, hash: u64, r: RowId) {
        assert_ne!(r, FREE, "row ids stay below u32::MAX");
        debug_assert_eq!(self.slots[i].row, FREE);
        self.slots[i] = Slot {
            row: r,
            tag: hash as u32,
        };
        self.len += 1;
    }

    /// Makes room for one more row, so that a following probe's vacant slot can be filled.
    #[inline]
    pub(crate) fn reserve_one(&mut self) {
        // At most 3/4 full: linear probing's expected probe stays short (2.5 slots for a
        // hit, 8.5 for a miss, a line or two), and a free slot always ends a probe. (At most
        // 5/8 full, the larger table made R-MAT single-edge deletions slower side by side.)
        if (self.len + 1) * 4 > self.slots.len() * 3 {
            self.grow();
        }
    }

    fn grow(&mut self) {
        let cap = (self.slots.len() * 2).max(16);
        assert!(cap - 1 <= u32::MAX as usize, "hash table too large");
        let mut slots = Vec::with_capacity(cap);
        advise_huge_pages(&slots);
        slots.resize(cap, EMPTY);
        let old = std::mem::replace(&mut self.slots, slots);
        let mask = cap - 1;
        for s in old.into_iter().filter(|s| s.row != FREE) {
            let mut i = s.tag as usize & mask;
            while self.slots[i].row != FREE {
                i = (i + 1) & mask;
            }
            self.slots[i] = s;
        }
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
