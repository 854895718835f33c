//! The value → row table of a [`super::Relation`]: open addressing with linear probing over
//! 8-byte slots (row id and 32 bits of the row's hash), with one control byte per slot (free,
//! or 7 more bits of the hash) in an array of its own.
//!
//! Why not a general-purpose hash table: finding rows by value is most of `dred`'s time on
//! large deletions (the head of every instance through an over-deleted or restored fact is
//! looked up), and each lookup waits for cache misses. Here a slot's address follows from the
//! hash alone, so callers with many rows to find prefetch their slots first
//! ([`RowSet::prefetch`]) and the misses overlap. A lookup of an absent row — most membership
//! tests while rederiving — reads control bytes only, 64 to a cache line, until a free one.
//!
//! Measured on this machine (2 MB of L2 per core): keeping the row's first values in the slot
//! (24-byte slots, no read of the arena for rows of arity ≤ 2) was *slower* than these 8-byte
//! slots on every workload — 1,000-edge deletions of TC 0.95 s against 1.08 s on R-MAT, 160
//! against 190 ms on GO BP, reachability deletions 200 against 330 µs on WordNet: the table's
//! size matters more than one dependent read.
//!
//! Slots are never removed (a relation's tombstones stay findable by value until superseded,
//! see [`super::Relation`]), so linear probing needs no deletion markers.

use super::RowId;
use crate::value::Value;

#[derive(Clone, Copy, Debug, Default)]
struct Slot {
    row: RowId,
    /// The low 32 bits of the row's hash: its home slot (masked), and a filter.
    tag: u32,
}

/// A set of distinct rows by value, each mapped to one row id. The caller hashes rows (with
/// one hasher for all calls) and owns the arena the ids point into.
#[derive(Clone, Debug, Default)]
pub(crate) struct RowSet {
    /// Per slot: 0 when free, else 0x80 | the top 7 bits of the row's hash.
    ctrl: Vec<u8>,
    slots: Vec<Slot>,
    len: usize,
}

/// Asks the CPU to start loading the cache line of `value`: a hint, it changes no result.
// The workspace denies `unsafe`; this hint is its one exception (soundness argued at the
// block; measured in results/dred/README.md).
#[allow(unsafe_code)]
#[inline(always)]
fn prefetch<T>(value: &T) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        let p = std::ptr::from_ref(value).cast::<i8>();
        // SAFETY: `_mm_prefetch` needs SSE, which every x86_64 CPU has (it is in the x86_64
        // baseline the compiler targets). The instruction is a hint: it reads nothing
        // architecturally and never faults, and `p` comes from a reference in any case.
        unsafe { _mm_prefetch::<_MM_HINT_T0>(p) };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = value;
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
    #[inline(always)]
    pub(crate) fn prefetch(&self, hash: u64) {
        if self.slots.is_empty() {
            return;
        }
        let i = hash as u32 as usize & (self.slots.len() - 1);
        prefetch(&self.ctrl[i]);
        prefetch(&self.slots[i]);
    }

    /// A second hint, once the slots of [`RowSet::prefetch`] have arrived: starts loading
    /// the arena row of the first slot whose tags match, the row a probe will compare.
    /// Changes no result.
    #[inline]
    pub(crate) fn prefetch_row(&self, hash: u64, data: &[Value], arity: usize) {
        if self.slots.is_empty() {
            return;
        }
        let mask = self.slots.len() - 1;
        let (tag, c) = (hash as u32, ctrl_of(hash));
        let mut i = tag as usize & mask;
        while self.ctrl[i] != 0 {
            if self.ctrl[i] == c && self.slots[i].tag == tag {
                if let Some(v) = data.get(self.slots[i].row as usize * arity) {
                    prefetch(v);
                }
                return;
            }
            i = (i + 1) & mask;
        }
    }

    /// Probes for `row` (hash `hash`); `data` and `arity` locate the rows of the ids stored.
    /// Call [`RowSet::reserve_one`] first at least once.
    #[inline]
    pub(crate) fn probe(&self, hash: u64, row: &[Value], data: &[Value], arity: usize) -> Probe {
        debug_assert!(!self.slots.is_empty(), "probe before reserve");
        let mask = self.slots.len() - 1;
        let tag = hash as u32;
        let c = ctrl_of(hash);
        let mut i = tag as usize & mask;
        loop {
            let ci = self.ctrl[i];
            if ci == 0 {
                return Probe::Vacant(i);
            }
            let s = &self.slots[i];
            if ci == c && s.tag == tag && {
                let start = s.row as usize * arity;
                // Element-wise: `[i64] == [i64]` is a `memcmp` call, whose overhead dominated
                // deduplication of short rows.
                data[start..start + arity]
                    .iter()
                    .zip(row)
                    .all(|(a, b)| a == b)
            } {
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
    pub(crate) fn fill(&mut self, i: usize, hash: u64, r: RowId) {
        debug_assert_eq!(self.ctrl[i], 0);
        self.ctrl[i] = ctrl_of(hash);
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
        // hit, 8.5 for a miss), and a free slot always ends a probe.
        if (self.len + 1) * 4 > self.slots.len() * 3 {
            self.grow();
        }
    }

    fn grow(&mut self) {
        let cap = (self.slots.len() * 2).max(16);
        assert!(cap - 1 <= u32::MAX as usize, "row set too large");
        let old_ctrl = std::mem::replace(&mut self.ctrl, vec![0; cap]);
        let old = std::mem::replace(&mut self.slots, vec![Slot::default(); cap]);
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
