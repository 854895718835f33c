//! The row ids of an index group: a few inside the group's table entry ([`GroupRows`]), a
//! middling group's in a region of one array shared by all groups of the index, a large
//! group's in a vector of its own ([`RowPool`]).
//!
//! Why not a `SmallVec` per group: its 24 bytes (four inline ids and a capacity word) made an
//! index entry 40 bytes, and on reachability over an ontology, where nearly every node has
//! one parent, the index tables of the edges are most of `dred`'s memory (WordNet's forward
//! index: 95,322 groups for 97,666 edges). [`GroupRows`] is 12 bytes, so a hashed entry is 24
//! and a dense index 12 bytes a value, and a spilled group costs no allocation of its own (no
//! allocator header; the cells it leaves behind when it moves to grow are reclaimed by
//! compaction): it is a region of the pool, found with the same one dependent read as a
//! `SmallVec`'s heap pointer, its capacity in the region's first cell.
//!
//! Why two ids inline and not four (20 bytes, entries of 32): on WordNet's reachability the
//! edges' two indexes took 3,425 KiB with four and 2,513 with two (the whole model 6,431 and
//! 5,518), and paired runs of `dred` on the nine points of `results/dred` read 0.64–1.01 of
//! the times with four (`results/dred/2026-12-06-cells/`): a group of three or four rows now
//! costs a read of the pool, but more groups share each cache line.
//!
//! Why large groups leave the pool: a region cannot grow where it is unless it is the
//! pool's last, so a growing group moves and leaves its old region behind, and only
//! compaction (a second copy of the pool while it runs) gets that back. For the groups of
//! a transitive closure (thousands of rows each, growing every round) that was 5-8% more
//! peak memory than a vector per group, whose freed blocks the allocator reuses. Past
//! [`POOLED`] rows a group is a vector of its own: one more dependent read, against a walk
//! of more than [`POOLED`] rows.

use super::RowId;

/// Ids a [`GroupRows`] has room for inside the entry; an index whose keys have more than one
/// column keeps its group number in the last cell and has one fewer ([`RowPool::new`]).
const CELLS: usize = 2;

/// A pool region's first capacity when a group spills.
const FIRST_REGION: u32 = 4;

/// The most rows a group keeps in the pool; a larger group has a vector of its own.
const POOLED: u32 = 32;

/// A pool's abandoned cells that always justify compacting it (below this, a third of the
/// pool).
const COMPACT_FROM: usize = 4096;

/// The ascending row ids of one group: up to the pool's `inline` of them in `cells`; up to
/// [`POOLED`], in a region of the index's [`RowPool`] whose offset the first cell holds
/// instead (the region's first cell holds its capacity, the ids follow); beyond, in a
/// vector of the pool's whose number the first cell holds.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct GroupRows {
    len: u32,
    /// Inline: the ids. Pooled: the region's offset. Large: the vector's number. Either
    /// way, the last cell holds the group number when the pool's `inline` is `CELLS - 1`.
    cells: [RowId; CELLS],
}

impl GroupRows {
    /// The group number stored beside the rows (pools made with `numbered`).
    #[inline(always)]
    pub(crate) fn number(&self) -> u32 {
        self.cells[CELLS - 1]
    }

    /// True for the default group, which holds no row (a slot of a dense index no row has).
    /// Pushing a row into it makes the group [`RowPool::single`] would, in a pool that is
    /// not numbered.
    #[inline(always)]
    pub(crate) fn is_empty(&self) -> bool {
        self.len == 0
    }
}

/// The spilled regions of an index's groups, and what a group's ids are.
///
/// Invariant (checked by [`RowPool::check`]): the regions of the groups handed to it are
/// disjoint, each within `rows`, and together with the `abandoned` cells they cover it;
/// each vector of `large` belongs to one group, and holds its rows.
#[derive(Clone, Debug)]
pub(crate) struct RowPool {
    /// Ids a group holds inside its entry.
    inline: u32,
    rows: Vec<RowId>,
    /// Cells of `rows` in no group's region (left behind when a group moved to a larger one).
    abandoned: usize,
    /// The rows of groups larger than [`POOLED`].
    large: Vec<Vec<RowId>>,
}

impl RowPool {
    /// Bytes of heap this pool holds: its regions and its large groups' vectors.
    pub(crate) fn heap_bytes(&self) -> usize {
        let id = std::mem::size_of::<RowId>();
        self.rows.capacity() * id
            + self.large.capacity() * std::mem::size_of::<Vec<RowId>>()
            + self.large.iter().map(|v| v.capacity() * id).sum::<usize>()
    }

    /// A pool for groups that keep `CELLS` ids inline, or one fewer and their group number
    /// when `numbered`.
    pub(crate) fn new(numbered: bool) -> Self {
        RowPool {
            inline: if numbered { CELLS - 1 } else { CELLS } as u32,
            rows: Vec::new(),
            abandoned: 0,
            large: Vec::new(),
        }
    }

    /// A group holding only `r`, numbered `number` (ignored unless the pool is numbered).
    #[inline]
    pub(crate) fn single(&self, r: RowId, number: u32) -> GroupRows {
        let mut cells = [0; CELLS];
        cells[0] = r;
        if self.inline < CELLS as u32 {
            cells[CELLS - 1] = number;
        }
        GroupRows { len: 1, cells }
    }

    /// A group holding exactly `rows` (ascending, at least one), numbered `number` as in
    /// [`RowPool::single`]: what pushing them one by one makes, without the regions a
    /// growing group moves through and abandons (a middling group's region holds exactly
    /// its rows, or [`FIRST_REGION`]).
    pub(crate) fn group_of(&mut self, rows: &[RowId], number: u32) -> GroupRows {
        let len = u32::try_from(rows.len()).expect("fewer than 2^32 rows");
        let mut g = self.single(rows[0], number);
        g.len = len;
        if len <= self.inline {
            g.cells[..rows.len()].copy_from_slice(rows);
        } else if len <= POOLED {
            let start = self.rows.len();
            let cap = len.max(FIRST_REGION);
            self.rows.push(cap);
            self.rows.extend_from_slice(rows);
            self.rows.resize(start + 1 + cap as usize, 0);
            g.cells[0] = Self::offset(start);
        } else {
            g.cells[0] = RowId::try_from(self.large.len()).expect("fewer than 2^32 groups");
            self.large.push(rows.to_vec());
        }
        g
    }

    /// A hint that the ids of `g` will be read soon: starts loading its region, for a group
    /// whose ids are not in its entry. Changes no result.
    #[inline(always)]
    pub(crate) fn prefetch(&self, g: &GroupRows) {
        if g.len > self.inline && g.len <= POOLED {
            if let Some(first) = self.rows.get(g.cells[0] as usize + 1) {
                super::probe_table::prefetch(first);
            }
        }
    }

    /// The ids of `g`, ascending.
    #[inline(always)]
    pub(crate) fn rows<'a>(&'a self, g: &'a GroupRows) -> &'a [RowId] {
        if g.len <= self.inline {
            &g.cells[..g.len as usize]
        } else if g.len <= POOLED {
            let start = g.cells[0] as usize + 1;
            &self.rows[start..start + g.len as usize]
        } else {
            &self.large[g.cells[0] as usize]
        }
    }

    /// Appends `r` (greater than every id of `g`) to `g`. Returns true when the pool has
    /// abandoned enough cells that the caller should [`RowPool::compact`] it.
    #[inline]
    pub(crate) fn push(&mut self, g: &mut GroupRows, r: RowId) -> bool {
        let len = g.len;
        g.len += 1;
        if len < self.inline {
            g.cells[len as usize] = r;
            return false;
        }
        if len == self.inline {
            // Spill: the inline ids move to a new region at the pool's end.
            let start = self.rows.len();
            let cap = FIRST_REGION.max(len + 1);
            self.rows.push(cap);
            self.rows.extend_from_slice(&g.cells[..len as usize]);
            self.rows.push(r);
            self.rows.resize(start + 1 + cap as usize, 0);
            g.cells[0] = Self::offset(start);
            return false;
        }
        if len > POOLED {
            self.large[g.cells[0] as usize].push(r);
            return false;
        }
        let start = g.cells[0] as usize;
        let cap = self.rows[start];
        if len < cap {
            self.rows[start + 1 + len as usize] = r;
            return false;
        }
        let end = start + 1 + cap as usize;
        if len == POOLED {
            // The group leaves the pool for a vector of its own.
            let mut own = Vec::with_capacity(2 * POOLED as usize);
            own.extend_from_slice(&self.rows[start + 1..end]);
            own.push(r);
            g.cells[0] = RowId::try_from(self.large.len()).expect("fewer than 2^32 groups");
            self.large.push(own);
            self.abandoned += 1 + cap as usize;
        } else {
            // Doubling from the first region reaches POOLED exactly; from a compacted one
            // it is capped there.
            let grown = (2 * cap).min(POOLED);
            if end == self.rows.len() {
                // The last region grows where it is.
                self.rows.resize(start + 1 + grown as usize, 0);
            } else {
                let moved = self.rows.len();
                self.rows.extend_from_within(start..end);
                self.rows.resize(moved + 1 + grown as usize, 0);
                self.abandoned += 1 + cap as usize;
                g.cells[0] = Self::offset(moved);
            }
            let start = g.cells[0] as usize;
            self.rows[start] = grown;
            self.rows[start + 1 + len as usize] = r;
        }
        // Why a third: groups growing by doubling abandon about as many cells as their
        // regions hold, so the pool settles near half abandoned; a third reclaims that. A
        // compaction leaves each group half its size again to grow, so its cost is paid by
        // the pushes that fill that room before the group moves (and abandons cells) again.
        self.abandoned >= COMPACT_FROM.max(self.rows.len() / 3)
    }

    fn offset(start: usize) -> RowId {
        RowId::try_from(start).expect("an index's pool holds fewer than 2^32 row ids")
    }

    /// Rebuilds the pool from the spilled groups among `groups` — which must be all groups
    /// whose regions are in it — with no abandoned cells, each region half as large again as
    /// its group (and its capacity cell).
    pub(crate) fn compact<'a>(&mut self, groups: impl Iterator<Item = &'a mut GroupRows>) {
        let mut spilled: Vec<&mut GroupRows> = groups
            .filter(|g| g.len > self.inline && g.len <= POOLED)
            .collect();
        let room = |len: u32| (len + len / 2).min(POOLED);
        let cells: usize = spilled.iter().map(|g| 1 + room(g.len) as usize).sum();
        let mut rows = Vec::with_capacity(cells);
        for g in &mut spilled {
            let start = g.cells[0] as usize + 1;
            let moved = rows.len();
            rows.push(room(g.len));
            rows.extend_from_slice(&self.rows[start..start + g.len as usize]);
            rows.resize(moved + 1 + room(g.len) as usize, 0);
            g.cells[0] = Self::offset(moved);
        }
        self.rows = rows;
        self.abandoned = 0;
    }

    /// Forgets every region, keeping the capacity.
    pub(crate) fn clear(&mut self) {
        self.rows.clear();
        self.abandoned = 0;
        self.large.clear();
    }

    /// Verifies the invariant over `groups` (all groups whose regions are in the pool);
    /// panics with a description on the first disagreement. For tests and debug assertions.
    pub(crate) fn check<'a>(&self, groups: impl Iterator<Item = &'a GroupRows>) {
        let groups: Vec<&GroupRows> = groups.collect();
        let mut owners: Vec<usize> = groups
            .iter()
            .filter(|g| g.len > POOLED)
            .map(|g| {
                let own = &self.large[g.cells[0] as usize];
                assert_eq!(own.len(), g.len as usize, "large group's vector length");
                g.cells[0] as usize
            })
            .collect();
        owners.sort_unstable();
        assert!(
            owners.iter().copied().eq(0..self.large.len()),
            "each large vector belongs to one group"
        );
        let mut regions: Vec<(usize, usize)> = groups
            .iter()
            .filter(|g| g.len > self.inline && g.len <= POOLED)
            .map(|g| {
                let start = g.cells[0] as usize;
                let cap = self.rows[start] as usize;
                assert!(g.len as usize <= cap, "group longer than its region");
                (start, start + 1 + cap)
            })
            .collect();
        regions.sort_unstable();
        assert!(
            regions.windows(2).all(|w| w[0].1 <= w[1].0),
            "pool regions overlap"
        );
        assert!(
            regions
                .last()
                .is_none_or(|&(_, end)| end <= self.rows.len()),
            "pool region past the pool's end"
        );
        let held: usize = regions.iter().map(|(s, e)| e - s).sum();
        assert_eq!(
            held + self.abandoned,
            self.rows.len(),
            "pool cells unaccounted"
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Groups of many sizes grown in an interleaved order, against plain vectors: every
    /// group reads back its ids in order through spills, moves, growth in place and
    /// compactions, in numbered and unnumbered pools.
    #[test]
    fn groups_read_back_their_rows_through_spills_moves_and_compactions() {
        for numbered in [false, true] {
            let mut pool = RowPool::new(numbered);
            // Middling groups (many of them, so that the pool compacts) grown round-robin
            // move as they grow, each move abandoning a region; two large groups leave the
            // pool for vectors of their own.
            let sizes: Vec<usize> = [1usize, 2, 3, 4, 5, 9, 17, 100, 3000, 3000]
                .into_iter()
                .chain((0..600).map(|i| 5 + i % 28))
                .collect();
            let mut groups: Vec<GroupRows> = Vec::new();
            let mut model: Vec<Vec<RowId>> = Vec::new();
            let mut compactions = 0;
            let mut r: RowId = 0;
            for (number, _) in sizes.iter().enumerate() {
                groups.push(pool.single(r, number as u32));
                model.push(vec![r]);
                r += 1;
            }
            // Round-robin over the groups that still grow, so that regions interleave and
            // a group that is not last in the pool must move to grow.
            for step in 1..*sizes.iter().max().expect("sizes") {
                for (i, &size) in sizes.iter().enumerate() {
                    if step < size {
                        if pool.push(&mut groups[i], r) {
                            pool.compact(groups.iter_mut());
                            compactions += 1;
                        }
                        model[i].push(r);
                        r += 1;
                    }
                }
                if step % 50 == 0 {
                    pool.check(groups.iter());
                }
            }
            pool.check(groups.iter());
            for (i, g) in groups.iter().enumerate() {
                assert_eq!(pool.rows(g), &model[i][..], "group {i}");
                if numbered {
                    assert_eq!(g.number(), i as u32, "group number kept");
                }
            }
            assert!(
                compactions > 0,
                "the middling groups' moves abandon enough to compact"
            );
            pool.compact(groups.iter_mut());
            pool.check(groups.iter());
            let room: usize = model
                .iter()
                .filter(|m| m.len() > pool.inline as usize && m.len() <= POOLED as usize)
                .map(|m| 1 + (m.len() + m.len() / 2).min(POOLED as usize))
                .sum();
            assert_eq!(
                pool.rows.len(),
                room,
                "a compacted pool holds 1.5 x the pooled ids (at most POOLED a group) and a \
                 capacity cell a group"
            );
            assert_eq!(
                pool.large.len(),
                3,
                "groups of 100, 3000 and 3000 rows own vectors"
            );
            for (i, g) in groups.iter().enumerate() {
                assert_eq!(pool.rows(g), &model[i][..], "group {i} after compaction");
            }
        }
    }

    /// A group made whole reads back its rows and grows on as one pushed row by row.
    #[test]
    fn a_group_made_whole_equals_one_pushed() {
        for numbered in [false, true] {
            for n in [1usize, 3, 4, 5, 8, 9, 31, 32, 33, 200] {
                let rows: Vec<RowId> = (0..n as RowId).map(|r| 3 * r + 1).collect();
                let mut whole = RowPool::new(numbered);
                let mut g = whole.group_of(&rows, 9);
                assert_eq!(whole.rows(&g), &rows[..], "{n} rows");
                if numbered {
                    assert_eq!(g.number(), 9);
                }
                whole.check([&g].into_iter());
                for r in 1000..1040 {
                    if whole.push(&mut g, r) {
                        whole.compact(std::iter::once(&mut g));
                    }
                }
                let mut pushed = RowPool::new(numbered);
                let mut h = pushed.single(rows[0], 9);
                for &r in rows[1..]
                    .iter()
                    .chain(&(1000..1040).collect::<Vec<RowId>>())
                {
                    if pushed.push(&mut h, r) {
                        pushed.compact(std::iter::once(&mut h));
                    }
                }
                assert_eq!(whole.rows(&g), pushed.rows(&h), "{n} rows, grown");
                whole.check([&g].into_iter());
            }
        }
    }

    /// A numbered pool keeps one id inline and spills at the second; an unnumbered one
    /// spills at the third.
    #[test]
    fn spill_points() {
        for (numbered, inline) in [(false, 2), (true, 1)] {
            let mut pool = RowPool::new(numbered);
            let mut g = pool.single(0, 7);
            for r in 1..inline {
                pool.push(&mut g, r);
            }
            assert!(pool.rows.is_empty(), "{inline} ids stay inline");
            pool.push(&mut g, inline);
            assert_eq!(pool.rows.len(), 1 + FIRST_REGION as usize);
            assert_eq!(pool.rows(&g), (0..=inline).collect::<Vec<_>>());
        }
    }
}
