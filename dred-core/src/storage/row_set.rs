//! The value → row table of a [`super::Relation`]: open addressing with linear probing, each
//! slot holding the row id, 32 bits of the row's hash and the row's first two values, with one
//! control byte per slot (free, or 7 more bits of the hash) in an array of their own.
//!
//! Why not a general hash table of row ids: finding rows by value is most of `dred`'s time on
//! large deletions (the head of every instance through an over-deleted fact is looked up),
//! and each lookup in a table of row ids is three dependent cache misses (control bytes, slot,
//! the row in the arena). Here a probe reads one slot, and for rows of arity ≤ 2 — every
//! relation of TC and reachability — never reads the arena; and since the slot's address
//! follows from the hash alone, callers with many rows to find prefetch their slots first
//! ([`RowSet::prefetch`]) so that the misses overlap. A lookup of an absent row — most
//! membership tests while rederiving — reads control bytes only, 64 to a cache line, until a
//! free one: without them, linear probing reads several 24-byte slots, and such lookups were
//! 1.7× slower (measured). The price is memory: 25 bytes a slot, at most 3/4 of the slots
//! used.
//!
//! Slots are never removed (a relation's tombstones stay findable by value until superseded,
//! see [`super::Relation`]), so linear probing needs no deletion markers.

use super::RowId;
use crate::value::Value;

/// Values kept in the slot; rows of this arity or less are compared without the arena.
const INLINE: usize = 2;
/// `row` of a free slot.
const FREE: RowId = RowId::MAX;

#[derive(Clone, Copy, Debug)]
struct Slot {
    vals: [Value; INLINE],
    row: RowId,
    /// The low 32 bits of the row's hash: its home slot (masked), and a filter.
    tag: u32,
}

const EMPTY_SLOT: Slot = Slot {
    vals: [0; INLINE],
    row: FREE,
    tag: 0,
};

/// A set of distinct rows by value, each mapped to one row id. The caller hashes rows (with
/// one hasher for all calls) and owns the arena the ids point into.
#[derive(Clone, Debug, Default)]
pub(crate) struct RowSet {
    /// Per slot: 0 when free, else 0x80 | the top 7 bits of the row's hash.
    ctrl: Vec<u8>,
    slots: Vec<Slot>,
    len: usize,
}

#[inline(always)]
fn ctrl_of(hash: u64) -> u8 {
    0x80 | (hash >> 57) as u8
}

/// Where a probe ended: the slot holding the row, or the free slot where it would go.
pub(crate) enum Probe {
    /// The row is present; the slot's index.
    Found(usize),
    /// The row is absent; the free slot that ends its probe sequence.
    Vacant(usize),
}

#[inline(always)]
fn inline_of(row: &[Value]) -> [Value; INLINE] {
    let mut vals = [0; INLINE];
    for (v, &x) in vals.iter_mut().zip(row) {
        *v = x;
    }
    vals
}

impl RowSet {
    /// Distinct rows held.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Forgets every row, keeping the capacity.
    pub(crate) fn clear(&mut self) {
        self.ctrl.fill(0);
        self.len = 0;
    }

    /// Asks the CPU to load the home slot of a row with this hash, so that a probe soon after
    /// does not wait for memory. A hint only: it changes no result.
    // The workspace denies `unsafe`; this hint is its one exception (soundness argued at the
    // block; measured in results/dred/README.md).
    #[allow(unsafe_code)]
    #[inline(always)]
    pub(crate) fn prefetch(&self, hash: u64) {
        if self.slots.is_empty() {
            return;
        }
        let i = hash as u32 as usize & (self.slots.len() - 1);
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
            let ctrl = std::ptr::from_ref(&self.ctrl[i]).cast::<i8>();
            let slot = std::ptr::from_ref(&self.slots[i]).cast::<i8>();
            // SAFETY: `_mm_prefetch` needs SSE, which every x86_64 CPU has (it is in the
            // x86_64 baseline the compiler targets). The instruction is a hint: it reads
            // nothing architecturally and never faults, and both pointers point into live
            // allocations (the bounds-checked indexes above) in any case.
            unsafe {
                _mm_prefetch::<_MM_HINT_T0>(ctrl);
                _mm_prefetch::<_MM_HINT_T0>(slot);
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = i;
    }

    /// Probes for `row` (hash `hash`); `data` and `arity` locate the rows of the ids stored.
    /// Call [`RowSet::reserve_one`] first at least once.
    #[inline]
    pub(crate) fn probe(&self, hash: u64, row: &[Value], data: &[Value], arity: usize) -> Probe {
        debug_assert!(!self.slots.is_empty(), "probe before reserve");
        let mask = self.slots.len() - 1;
        let tag = hash as u32;
        let c = ctrl_of(hash);
        let vals = inline_of(row);
        let mut i = tag as usize & mask;
        loop {
            let ci = self.ctrl[i];
            if ci == 0 {
                return Probe::Vacant(i);
            }
            let s = &self.slots[i];
            if ci == c
                && s.tag == tag
                && s.vals == vals
                && (arity <= INLINE || {
                    let start = s.row as usize * arity;
                    data[start + INLINE..start + arity]
                        .iter()
                        .zip(&row[INLINE..])
                        .all(|(a, b)| a == b)
                })
            {
                return Probe::Found(i);
            }
            i = (i + 1) & mask;
        }
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
        self.slots[i].row = r;
    }

    /// Stores `row` as `r` in slot `i`, the [`Probe::Vacant`] of a probe for `row` made after
    /// the last [`RowSet::reserve_one`].
    #[inline]
    pub(crate) fn fill(&mut self, i: usize, hash: u64, row: &[Value], r: RowId) {
        debug_assert_eq!(self.ctrl[i], 0);
        self.ctrl[i] = ctrl_of(hash);
        self.slots[i] = Slot {
            vals: inline_of(row),
            row: r,
            tag: hash as u32,
        };
        self.len += 1;
    }

    /// Makes room for one more row, so that a following probe's vacant slot can be filled.
    #[inline]
    pub(crate) fn reserve_one(&mut self) {
        // At most 3/4 full: linear probing's expected probe stays short (2.5 slots for a
        // hit, 8.5 for a miss), and a free slot always ends a probe.
        if (self.len + 1) * 4 > self.slots.len() * 3 {
            self.grow();
        }
    }

    fn grow(&mut self) {
        let cap = (self.slots.len() * 2).max(16);
        assert!(cap - 1 <= u32::MAX as usize, "row set too large");
        let old_ctrl = std::mem::replace(&mut self.ctrl, vec![0; cap]);
        let old = std::mem::replace(&mut self.slots, vec![EMPTY_SLOT; cap]);
        let mask = cap - 1;
        for (s, c) in old.into_iter().zip(old_ctrl).filter(|&(_, c)| c != 0) {
            let mut i = s.tag as usize & mask;
            while self.ctrl[i] != 0 {
                i = (i + 1) & mask;
            }
            self.ctrl[i] = c;
            self.slots[i] = s;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::hash::BuildHasher;

    /// Rows of arity 3 (one value outside the slot) with hashes that collide on purpose, so
    /// probes walk past occupied slots and compare the arena.
    #[test]
    fn collisions_and_growth() {
        let arity = 3;
        let mut data: Vec<Value> = Vec::new();
        let mut set = RowSet::default();
        let hasher = hashbrown::DefaultHashBuilder::default();
        // A weak hash, 8 distinct values: most slots are reached by probing.
        let hash = |row: &[Value]| hasher.hash_one(row) & 7;
        for i in 0..1000i64 {
            let row = [i % 7, i % 11, i];
            set.reserve_one();
            match set.probe(hash(&row), &row, &data, arity) {
                Probe::Found(_) => panic!("row {i} is new"),
                Probe::Vacant(s) => set.fill(s, hash(&row), &row, i as RowId),
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
