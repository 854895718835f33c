//! Sets of rows by (relation, row id), for the sets a `dred` batch keeps (the over-deleted
//! facts, those still waiting for a proof).
//!
//! Why not one hash set of pairs: on 1,000-edge deletions of TC those sets reach 650 k rows,
//! and inserting into and probing a hash table of that size was a fifth of all samples (its
//! rehashing as it grows included). A bitset over a relation's row ids is 1 bit a row —
//! 100 KB for 780 k rows, within the L2 cache — and never rehashes.
//!
//! Why one set kept across batches ([`RowMarks::reset`]) rather than one made per batch: a
//! new bitset is zeroed whole, in proportion to the relation rather than to the change. A
//! set made per batch used to start as a hash set and become a bitset past 1/1024 of the
//! relation's rows, and on R-MAT TC's single-edge deletions (a median of 4,056 marks in a
//! 780 k-row relation) the allocation, zeroing and rehashing were still 4.7% of a
//! mid-sized batch's instructions (callgrind). A kept bitset is cleared word by word where
//! marks were made, so a batch pays only for its marks.

use super::{Relation, RowId};

/// One relation's marks: a bitset over its row ids, and the words marked since the last
/// reset (the only ones that may be non-zero).
#[derive(Clone, Debug, Default)]
struct Bits {
    words: Vec<u64>,
    touched: Vec<u32>,
    len: usize,
    /// Rows covered (the relation's end at the last reset), for debug assertions.
    end: RowId,
}

/// A set of rows of a fixed list of relations, each identified by its index in that list and
/// a row id below the relation's [`Relation::end`] when the set was last reset. Memory: one
/// bit per row of each relation, kept between batches.
#[derive(Clone, Debug, Default)]
pub struct RowMarks {
    per_relation: Vec<Bits>,
}

impl RowMarks {
    /// An empty set over the rows `relations` have now.
    pub fn new(relations: &[Relation]) -> Self {
        let mut marks = RowMarks::default();
        marks.reset(relations);
        marks
    }

    /// Empties the set and makes it cover the rows `relations` have now. Costs the marks made
    /// since the last reset, plus the rows the relations gained (zeroed once).
    pub fn reset(&mut self, relations: &[Relation]) {
        self.per_relation
            .resize_with(relations.len(), Bits::default);
        for (bits, relation) in self.per_relation.iter_mut().zip(relations) {
            for &w in &bits.touched {
                bits.words[w as usize] = 0;
            }
            bits.touched.clear();
            bits.len = 0;
            bits.end = relation.end();
            let words = (relation.end() as usize).div_ceil(64);
            if bits.words.len() < words {
                bits.words.resize(words, 0);
            }
        }
    }

    /// Adds row `r` of relation `rel`; false when it was there already.
    #[inline]
    pub fn insert(&mut self, rel: usize, r: RowId) -> bool {
        let bits = &mut self.per_relation[rel];
        debug_assert!(r < bits.end, "row {r} past the end of relation {rel}");
        let (w, b) = (r as usize / 64, 1u64 << (r % 64));
        let word = &mut bits.words[w];
        if *word & b != 0 {
            return false;
        }
        if *word == 0 {
            bits.touched.push(w as u32);
        }
        *word |= b;
        bits.len += 1;
        true
    }

    /// True when row `r` of relation `rel` is in the set.
    #[inline]
    pub fn contains(&self, rel: usize, r: RowId) -> bool {
        self.per_relation[rel]
            .words
            .get(r as usize / 64)
            .is_some_and(|w| w & (1 << (r % 64)) != 0)
    }

    /// Removes row `r` of relation `rel`; false when it was not there.
    #[inline]
    pub fn remove(&mut self, rel: usize, r: RowId) -> bool {
        let bits = &mut self.per_relation[rel];
        let Some(word) = bits.words.get_mut(r as usize / 64) else {
            return false;
        };
        let b = 1u64 << (r % 64);
        let was = *word & b != 0;
        // A word emptied stays in `touched`; marked again, it is listed twice, and zeroed
        // twice at the next reset.
        *word &= !b;
        bits.len -= was as usize;
        was
    }

    /// Rows in the set, over all relations.
    pub fn len(&self) -> usize {
        self.per_relation.iter().map(|b| b.len).sum()
    }

    /// True when no row is in the set.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The set agrees with a `HashSet` of pairs, and a reset empties it whole.
    #[test]
    fn agrees_with_a_hash_set_across_the_switch() {
        let mut small = Relation::new(1);
        let mut large = Relation::new(1);
        for i in 0..10 {
            small.insert(&[i]);
        }
        for i in 0..20_000 {
            large.insert(&[i]);
        }
        let mut marks = RowMarks::new(&[small.clone(), large.clone()]);
        let mut model = std::collections::HashSet::new();
        let mut x: u64 = 7;
        for step in 0..30_000 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let rel = (x >> 60) as usize % 2;
            let r = ((x >> 20) % if rel == 0 { 10 } else { 20_000 }) as RowId;
            if step % 5 == 4 {
                assert_eq!(marks.remove(rel, r), model.remove(&(rel, r)));
            } else {
                assert_eq!(marks.insert(rel, r), model.insert((rel, r)));
            }
            assert_eq!(marks.contains(rel, r), model.contains(&(rel, r)));
        }
        assert_eq!(marks.len(), model.len());
        for r in 0..20_000 {
            assert_eq!(marks.contains(1, r), model.contains(&(1, r)));
        }
        // Reset over relations that grew: empty, covering the new rows, and usable again.
        for i in 20_000..20_500 {
            large.insert(&[i]);
        }
        let relations = [small, large];
        let cleared = |marks: &RowMarks| {
            marks.is_empty()
                && marks
                    .per_relation
                    .iter()
                    .all(|b| b.touched.is_empty() && b.words.iter().all(|&w| w == 0))
        };
        marks.reset(&relations);
        assert!(cleared(&marks));
        for r in 0..20_500 {
            assert!(!marks.contains(1, r));
        }
        assert!(marks.insert(1, 20_499));
        assert!(!marks.insert(1, 20_499));
        assert!(marks.insert(0, 3));
        assert_eq!(marks.len(), 2);
        assert!(marks.remove(1, 20_499));
        assert!(marks.insert(1, 20_499), "a word emptied and marked again");
        marks.reset(&relations);
        assert!(cleared(&marks));
    }
}
