//! Sets of facts as row references ([`RowRef`]), the form the phases' frontiers and results
//! take, and the vectors of them kept from one batch to the next ([`SpareRows`]) so that a
//! batch's sets reuse memory it had before, within a bound.

use crate::program::RelId;
use crate::storage::RowId;

/// A fact identified by its relation and row id, valid while a batch runs.
pub type RowRef = (RelId, RowId);

/// Vectors of facts kept from earlier batches, so that a batch's sets grow into memory it
/// used before rather than into blocks fresh from the allocator; at most
/// [`SpareRows::HELD`] facts' room in all, so that large batches do not leave their memory
/// held (a batch of that size pays little for growing its vectors).
///
/// Why: the engines of a sweep share the allocator, and a block `dred` freed is soon reused
/// by the engine after it, so the next batch's vectors came back out of the cache. On R-MAT
/// `reach_root` deletions run after another engine's turn, growing them was 40% of `dred`'s
/// write misses in the last-level cache (callgrind, 2 MB cache). Kept without a bound, the
/// vectors of every round of R-MAT TC's 1,000-edge deletions held 73–89 MB more at the
/// peak (220 against 131–146 MB).
#[derive(Clone, Debug, Default)]
pub(crate) struct SpareRows {
    vectors: Vec<Vec<RowRef>>,
}

impl SpareRows {
    /// Facts' room kept at most (1 MiB).
    pub(crate) const HELD: usize = 1 << 16;

    /// An empty vector, with the capacity of one kept if any.
    pub(crate) fn take(&mut self) -> Vec<RowRef> {
        self.vectors.pop().unwrap_or_default()
    }

    /// Vectors kept at most: a batch takes one per round, and the rounds of the batches
    /// that matter here are few.
    pub(crate) const VECTORS: usize = 16;

    /// Keeps `rows`' vector (emptied) for a later [`SpareRows::take`], if there is room; a
    /// vector that holds no memory is dropped.
    ///
    /// Why the count is bounded too: vectors without memory used to be kept (they fit any
    /// room), one more per batch whose rounds were not taken from here, so the list grew
    /// with the stream and the sum below with it. Over 6,000 single-edge batches of GO MF's
    /// `reach_root` applied 30 times over (180,000 batches), `auto` spent 13% of its time here.
    pub(crate) fn keep(&mut self, mut rows: Vec<RowRef>) {
        if rows.capacity() == 0 || self.vectors.len() >= Self::VECTORS {
            return;
        }
        // A few vectors: summed each time rather than tracked.
        let held: usize = self.vectors.iter().map(Vec::capacity).sum();
        if held + rows.capacity() <= Self::HELD {
            rows.clear();
            self.vectors.push(rows);
        }
    }

    /// Keeps every vector of `rounds` there is room for, leaving it empty.
    pub(crate) fn keep_all(&mut self, rounds: &mut Vec<Vec<RowRef>>) {
        for rows in rounds.drain(..) {
            self.keep(rows);
        }
    }

    /// Empties `rows` for reuse, or gives its memory back when it holds room for more than
    /// [`SpareRows::HELD`] facts.
    pub(crate) fn reuse(rows: &mut Vec<RowRef>) {
        if rows.capacity() > Self::HELD {
            *rows = Vec::new();
        } else {
            rows.clear();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Kept vectors come back with their capacity, room for at most [`SpareRows::HELD`] facts
    /// is held in all, and a vector larger than that is given back rather than kept.
    #[test]
    fn spare_rows_keep_a_bounded_room() {
        let mut spare = SpareRows::default();
        let mut small = Vec::with_capacity(100);
        small.push((0, 7));
        spare.keep(small);
        let back = spare.take();
        assert!(
            back.is_empty() && back.capacity() >= 100,
            "emptied, capacity kept"
        );
        assert_eq!(spare.take().capacity(), 0, "nothing else was kept");
        // Two vectors of most of the room: the second does not fit and is dropped.
        let big = SpareRows::HELD * 3 / 4;
        spare.keep_all(&mut vec![Vec::with_capacity(big), Vec::with_capacity(big)]);
        assert!(spare.take().capacity() >= big);
        assert_eq!(spare.take().capacity(), 0, "the second was over the room");
        // D and the over-deleted IDB: cleared in place, or given back above the room.
        let mut rows: Vec<RowRef> = Vec::with_capacity(SpareRows::HELD + 1);
        rows.push((1, 2));
        SpareRows::reuse(&mut rows);
        assert_eq!(rows.capacity(), 0);
        let mut rows: Vec<RowRef> = vec![(1, 2); 10];
        SpareRows::reuse(&mut rows);
        assert!(rows.is_empty() && rows.capacity() >= 10);
    }

    /// Vectors without memory are not kept, and no more than [`SpareRows::VECTORS`] are, so
    /// the list cannot grow with a stream of batches that keep more than they take.
    #[test]
    fn spare_rows_keep_a_bounded_number_of_vectors() {
        let mut spare = SpareRows::default();
        for _ in 0..1_000 {
            spare.keep_all(&mut vec![Vec::new(), Vec::new()]);
        }
        assert!(
            spare.vectors.is_empty(),
            "{} empty vectors kept",
            spare.vectors.len()
        );
        for _ in 0..1_000 {
            spare.keep(Vec::with_capacity(1));
        }
        assert_eq!(spare.vectors.len(), SpareRows::VECTORS);
    }
}
