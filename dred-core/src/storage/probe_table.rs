//! Open addressing with linear probing, shared by the two hash tables of a
//! [`super::Relation`]: its value → row table ([`super::row_set::RowSet`]) and the key → group
//! tables of its indexes.
//!
//! Each slot has a control byte in an array of its own (free, or `0x80` and the top 7 bits of
//! the hash) and keeps the low 32 bits of its hash as a tag: its home slot (the tag scaled to
//! the table, see [`home`]) and a second filter before the caller's comparison. A probe reads
//! the control bytes eight at a time.
//!
//! Why not a general-purpose hash table: a slot's address follows from the hash alone, so a
//! caller with many keys to find or insert prefetches their slots first
//! ([`ProbeTable::prefetch`]) and the cache misses overlap — `hashbrown` offers no way to do
//! that. A lookup of an absent key reads control bytes only, 64 to a cache line, until a free
//! one. Slots are never removed (a relation only appends; compaction rebuilds), so linear
//! probing needs no deletion markers.

/// A slot's content: `Default` is what a free slot holds; the tag is the low 32 bits of the
/// hash the content was filled under.
pub(crate) trait Tagged: Default {
    /// The tag given to [`ProbeTable::fill`].
    fn tag(&self) -> u32;
}

/// Asks the CPU to start loading the cache line of `value`: a hint, it changes no result.
// The workspace denies `unsafe`; this hint is one of its two exceptions, with
// `advise_huge_pages` below (soundness argued at each block; both measured in
// results/LOG.md, sessions 10 to 13).
#[allow(unsafe_code)]
#[inline(always)]
pub(crate) fn prefetch<T>(value: &T) {
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

/// Bytes from which a buffer asks for huge pages: smaller ones hold no whole 2 MB page.
const HUGE_FROM: usize = 4 << 20;

/// Asks the kernel to back the whole 2 MB pages inside `v`'s allocation with huge pages
/// (`madvise(MADV_HUGEPAGE)`), when it is large enough to hold some. Call it on a buffer
/// allocated but not written yet: pages are given their size when first touched. A hint
/// only: it changes no value and fails silently (other systems, transparent huge pages off).
///
/// Why: `dred`'s lookups are random reads in tables of several MB, each a TLB miss as well
/// as a cache miss with 4 KB pages; side by side with the other engines, whose work evicts
/// the page tables too, a page walk costs a miss of its own. Measured with huge pages for the
/// whole process: R-MAT TC single-edge deletions 2,832 → 2,158 µs side by side.
// The workspace denies `unsafe`; this call is its second exception, with `prefetch` above
// (soundness argued at the block).
#[allow(unsafe_code)]
pub(crate) fn advise_huge_pages<T>(v: &Vec<T>) {
    let bytes = v.capacity() * std::mem::size_of::<T>();
    if bytes < HUGE_FROM {
        return;
    }
    #[cfg(target_os = "linux")]
    {
        const HUGE: usize = 2 << 20;
        let start = v.as_ptr() as usize;
        let (lo, hi) = (start.next_multiple_of(HUGE), (start + bytes) / HUGE * HUGE);
        if hi > lo {
            // SAFETY: `lo..hi` lies inside the allocation `v` owns (rounded inwards to page
            // boundaries), so the call names only memory of this process that stays mapped
            // while `v` lives. MADV_HUGEPAGE only changes how the kernel backs those pages
            // — their contents and validity are unchanged — and it reads or writes no memory
            // through the pointer; an error (EINVAL without THP support) is ignored.
            unsafe {
                libc::madvise(lo as *mut libc::c_void, hi - lo, libc::MADV_HUGEPAGE);
            }
        }
    }
}

/// Control bytes a probe reads at once. The control array holds this many bytes more than
/// there are slots, a copy of the first ones, so that a group read near the end wraps
/// around.
const GROUP: usize = 8;

/// The home slot of a tag in a table of `cap` slots: the tag scaled to `0..cap` (a multiply
/// and a shift) rather than masked, so that a table may have any number of slots. Why: a
/// bulk load sizes its tables once ([`ProbeTable::reserve`]), and rounded up to a power of
/// two an index of GO BP's edges took 65,536 slots of 41 bytes for 28 thousand groups; the
/// indexes and set tables of the edges are most of `dred`'s memory on reachability.
#[inline(always)]
fn home(tag: u32, cap: usize) -> usize {
    ((u64::from(tag) * cap as u64) >> 32) as usize
}

#[inline(always)]
fn ctrl_of(hash: u64) -> u8 {
    0x80 | (hash >> 57) as u8
}

/// Where a probe ended: the slot holding the key, or the free slot where it would go.
pub(crate) enum Probe {
    /// The key is present; the slot's index.
    Found(usize),
    /// The key is absent; the free slot that ends its probe sequence.
    Vacant(usize),
}

/// A hash table of slots `S`, each filled once under a hash the caller computes (with one
/// hasher for all calls) and compared by a closure the caller gives.
#[derive(Clone, Debug, Default)]
pub(crate) struct ProbeTable<S> {
    /// Per slot: 0 when free, else [`ctrl_of`] its hash.
    ctrl: Vec<u8>,
    slots: Vec<S>,
    len: usize,
}

impl<S: Tagged> ProbeTable<S> {
    /// Bytes of heap this table holds (its capacity, filled or not).
    pub(crate) fn heap_bytes(&self) -> usize {
        self.ctrl.capacity() + self.slots.capacity() * std::mem::size_of::<S>()
    }

    /// Slots filled.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Frees every slot (dropping what they held), keeping the capacity.
    pub(crate) fn clear(&mut self) {
        self.ctrl.fill(0);
        self.slots.fill_with(S::default);
        self.len = 0;
    }

    /// Asks the CPU to load the home slot of this hash, so that a probe soon after does not
    /// wait for memory. A hint only: it changes no result.
    #[inline(always)]
    pub(crate) fn prefetch(&self, hash: u64) {
        if self.slots.is_empty() {
            return;
        }
        // The home slot, where a probe for this hash starts.
        let i = home(hash as u32, self.slots.len());
        prefetch(&self.ctrl[i]);
        prefetch(&self.slots[i]);
    }

    /// The first filled slot in the probe sequence of `hash` whose control byte and tag match
    /// it, the one a probe compares first (if any).
    #[inline]
    pub(crate) fn first_candidate(&self, hash: u64) -> Option<&S> {
        if self.slots.is_empty() {
            return None;
        }
        let tag = hash as u32;
        match self.walk(hash, |s| s.tag() == tag) {
            Probe::Found(i) => Some(&self.slots[i]),
            Probe::Vacant(_) => None,
        }
    }

    /// Probes for the key of hash `hash`, calling `eq` on the slots whose control byte and
    /// tag match until it holds. Call [`ProbeTable::reserve_one`] first at least once.
    #[inline]
    pub(crate) fn probe(&self, hash: u64, mut eq: impl FnMut(&S) -> bool) -> Probe {
        debug_assert!(!self.slots.is_empty(), "probe before reserve");
        let tag = hash as u32;
        self.walk(hash, |s| s.tag() == tag && eq(s))
    }

    /// Linear probing from the home slot of `hash` to the first free slot, [`GROUP`] control
    /// bytes at a time: `hit` is called on the slots whose control byte matches, in order,
    /// until it holds.
    ///
    /// Why by words: a lookup of an absent row — most membership tests of a proof search
    /// — walks 8.5 slots on average at 3/4 load, and byte by byte each step was a compare
    /// and a branch, the loop's exit a misprediction. A word of control bytes gives the
    /// matching and the free slots among eight in a few arithmetic operations.
    #[inline(always)]
    fn walk(&self, hash: u64, mut hit: impl FnMut(&S) -> bool) -> Probe {
        const LOW: u64 = 0x0101_0101_0101_0101;
        const HIGH: u64 = 0x8080_8080_8080_8080;
        let cap = self.slots.len();
        let wrap = |i: usize| if i >= cap { i - cap } else { i };
        let c = ctrl_of(hash);
        let mut i = home(hash as u32, cap);
        loop {
            let group = u64::from_le_bytes(
                self.ctrl[i..i + GROUP]
                    .try_into()
                    .expect("a group is GROUP bytes"),
            );
            // Free slots are the bytes with the high bit clear (filled ones have it set).
            let free = !group & HIGH;
            // Bytes equal to `c`: exact for the lowest; above a true one, the borrow may
            // flag others, which `hit` then rejects by the tag.
            let x = group ^ (LOW * u64::from(c));
            let mut matches = x.wrapping_sub(LOW) & !x & HIGH;
            if free != 0 {
                // Only slots before the first free one are in the probe sequence.
                matches &= (free & free.wrapping_neg()) - 1;
            }
            while matches != 0 {
                let j = wrap(i + matches.trailing_zeros() as usize / 8);
                if hit(&self.slots[j]) {
                    return Probe::Found(j);
                }
                matches &= matches - 1;
            }
            if free != 0 {
                return Probe::Vacant(wrap(i + free.trailing_zeros() as usize / 8));
            }
            i = wrap(i + GROUP);
        }
    }

    /// The slot holding the key of hash `hash` for which `eq` holds, if any.
    #[inline]
    pub(crate) fn find(&self, hash: u64, eq: impl FnMut(&S) -> bool) -> Option<&S> {
        if self.slots.is_empty() {
            return None;
        }
        match self.probe(hash, eq) {
            Probe::Found(i) => Some(&self.slots[i]),
            Probe::Vacant(_) => None,
        }
    }

    /// Slot `i` (a [`Probe::Found`]).
    #[inline]
    pub(crate) fn slot(&self, i: usize) -> &S {
        &self.slots[i]
    }

    /// Slot `i` (a [`Probe::Found`]), to change anything but its tag.
    #[inline]
    pub(crate) fn slot_mut(&mut self, i: usize) -> &mut S {
        &mut self.slots[i]
    }

    /// Stores `content`, whose tag is `hash as u32`, in slot `i`: the [`Probe::Vacant`] of a
    /// probe for it made after the last [`ProbeTable::reserve_one`].
    #[inline]
    pub(crate) fn fill(&mut self, i: usize, hash: u64, content: S) {
        debug_assert_eq!(self.ctrl[i], 0);
        debug_assert_eq!(content.tag(), hash as u32);
        self.set_ctrl(i, ctrl_of(hash));
        self.slots[i] = content;
        self.len += 1;
    }

    /// Sets slot `i`'s control byte, and its copy past the end for the first slots.
    #[inline]
    fn set_ctrl(&mut self, i: usize, c: u8) {
        self.ctrl[i] = c;
        if i < GROUP {
            let cap = self.slots.len();
            self.ctrl[cap + i] = c;
        }
    }

    /// The filled slots, in slot order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = &S> + '_ {
        self.ctrl
            .iter()
            .zip(&self.slots)
            .filter(|&(&c, _)| c != 0)
            .map(|(_, s)| s)
    }

    /// The filled slots, in slot order, to change anything but their tags.
    pub(crate) fn iter_mut(&mut self) -> impl Iterator<Item = &mut S> + '_ {
        self.ctrl
            .iter()
            .zip(&mut self.slots)
            .filter(|&(&c, _)| c != 0)
            .map(|(_, s)| s)
    }

    /// Makes room for one more slot, so that a following probe's vacant slot can be filled.
    #[inline]
    pub(crate) fn reserve_one(&mut self) {
        // At most 3/4 full: linear probing's expected probe stays short (2.5 slots for a
        // hit, 8.5 for a miss), and a free slot always ends a probe.
        if (self.len + 1) * 4 > self.slots.len() * 3 {
            self.grow();
        }
    }

    /// Makes room for `additional` more slots at once: one rehash into the final size
    /// instead of a doubling per power of two, each of which left its old table behind as
    /// freed memory the allocator keeps (on a bulk load, as much again as the final table).
    pub(crate) fn reserve(&mut self, additional: usize) {
        let need = self.len + additional;
        if need * 4 <= self.slots.len() * 3 {
            return;
        }
        // Any size will do (see [`home`]): 2/3 full, where the next power of two would leave
        // it between 3/8 and 3/4 full. Not 3/4: a table left exactly full doubled at its next
        // new key, and callers count keys by hash, which may undercount by a collision.
        let cap = (need * 3).div_ceil(2).next_multiple_of(GROUP).max(16);
        self.grow_to(cap);
    }

    fn grow(&mut self) {
        self.grow_to((self.slots.len() * 2).max(16));
    }

    fn grow_to(&mut self, cap: usize) {
        assert!(cap - 1 <= u32::MAX as usize, "hash table too large");
        let mut old_ctrl = std::mem::replace(&mut self.ctrl, vec![0; cap + GROUP]);
        old_ctrl.truncate(old_ctrl.len().saturating_sub(GROUP));
        let mut old = std::mem::replace(&mut self.slots, Vec::with_capacity(cap));
        advise_huge_pages(&self.slots);
        self.slots.resize_with(cap, S::default);
        for (s, c) in old.iter_mut().zip(old_ctrl).filter(|&(_, c)| c != 0) {
            let mut i = home(s.tag(), cap);
            while self.ctrl[i] != 0 {
                i = if i + 1 == cap { 0 } else { i + 1 };
            }
            self.set_ctrl(i, c);
            self.slots[i] = std::mem::take(s);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Default, Debug, PartialEq)]
    struct Entry {
        key: u64,
        tag: u32,
        rows: Vec<u32>,
    }

    impl Tagged for Entry {
        fn tag(&self) -> u32 {
            self.tag
        }
    }

    /// Keys whose hashes collide on purpose (8 distinct hashes, so equal tags and control
    /// bytes), through several growths; the contents move with their slots.
    /// Adds key `k` (absent) under hash `h`, holding `rows`.
    fn put_new(t: &mut ProbeTable<Entry>, h: u64, k: u64, rows: Vec<u32>) {
        t.reserve_one();
        match t.probe(h, |e| e.key == k) {
            Probe::Found(_) => panic!("key {k} is new"),
            Probe::Vacant(i) => t.fill(
                i,
                h,
                Entry {
                    key: k,
                    tag: h as u32,
                    rows,
                },
            ),
        }
    }

    #[test]
    fn collisions_growth_and_clear() {
        let hash = |k: u64| k.wrapping_mul(0x9e37_79b9_7f4a_7c15) & 7;
        let mut t: ProbeTable<Entry> = ProbeTable::default();
        assert!(t.find(hash(1), |e| e.key == 1).is_none());
        for k in 0..1000u64 {
            put_new(&mut t, hash(k), k, vec![k as u32]);
        }
        for k in 0..1000u64 {
            t.reserve_one();
            match t.probe(hash(k), |e| e.key == k) {
                Probe::Found(i) => t.slot_mut(i).rows.push(k as u32 + 1),
                Probe::Vacant(_) => panic!("key {k} is present"),
            }
        }
        assert_eq!(t.len(), 1000);
        assert_eq!(t.iter().count(), 1000);
        for k in 0..1000u64 {
            t.prefetch(hash(k));
            let e = t.find(hash(k), |e| e.key == k).expect("present");
            assert_eq!(e.rows, vec![k as u32, k as u32 + 1]);
        }
        assert!(t.find(hash(5000), |e| e.key == 5000).is_none());
        t.clear();
        assert_eq!(t.len(), 0);
        assert_eq!(t.iter().count(), 0);
        assert!(t.find(hash(3), |e| e.key == 3).is_none());
    }

    /// `reserve` sizes the table once for what follows (no growth while it is filled; 2/3
    /// full rather than at a power of two) and keeps what it held findable.
    #[test]
    fn reserve_sizes_once() {
        let hash = |k: u64| k.wrapping_mul(0x9e37_79b9_7f4a_7c15);
        let mut t: ProbeTable<Entry> = ProbeTable::default();
        let put = |t: &mut ProbeTable<Entry>, k: u64| put_new(t, hash(k), k, Vec::new());
        for k in 0..10 {
            put(&mut t, k);
        }
        t.reserve(3000);
        let cap = t.slots.len();
        assert_eq!(cap, 4520, "3,010 keys 2/3 full, in whole groups of 8 slots");
        for k in 10..3010 {
            put(&mut t, k);
        }
        assert_eq!(t.slots.len(), cap, "no growth after reserve");
        t.reserve(380);
        assert_eq!(
            t.slots.len(),
            cap,
            "room for 3,390 (3/4 full) already there"
        );
        t.reserve(381);
        assert!(t.slots.len() > cap, "3,391 would be over 3/4");
        for k in 0..3010 {
            assert!(t.find(hash(k), |e| e.key == k).is_some(), "key {k}");
        }
    }
}
