//! Sets of rows by (relation, row id), for the sets a `dred` batch keeps (the over-deleted
//! facts, those still waiting for a proof).
//!
//! Why not one hash set of pairs: on 1,000-edge deletions of TC those sets reach 650 k rows,
//! and inserting into and probing a hash table of that size was a fifth of all samples (its
//! rehashing as it grows included). A bitset over a relation's row ids is 1 bit a row —
//! 100 KB for 780 k rows, within the L2 cache — and never rehashes. Small batches would pay
//! for zeroing it, so a relation's marks start as a small hash set and become a bitset once
//! they hold more than 64 rows and 1/1024 of the relation's: zeroing 1/8 byte a row is
//! cheaper than hashing that many rows (at 1/64 instead, R-MAT TC single-edge deletions,
//! with a median of 4,056 marks in a 780 k-row relation, took 9% longer).

use super::{Relation, RowId};

#[derive(Clone, Debug)]
enum Marks {
    Sparse(hashbrown::HashSet<RowId>),
    Dense { bits: Vec<u64>, len: usize },
}

/// A set of rows of a fixed list of relations, each identified by its index in that list and
/// a row id below the relation's [`Relation::end`] when the set was made.
#[derive(Clone, Debug)]
pub struct RowMarks {
    ends: Vec<RowId>,
    per_relation: Vec<Marks>,
}

impl RowMarks {
    /// An empty set over the rows `relations` have now.
    pub fn new(relations: &[Relation]) -> Self {
        RowMarks {
            ends: relations.iter().map(Relation::end).collect(),
            per_relation: relations
                .iter()
                .map(|_| Marks::Sparse(hashbrown::HashSet::new()))
                .collect(),
        }
    }

    /// Adds row `r` of relation `rel`; false when it was there already.
    #[inline]
    pub fn insert(&mut self, rel: usize, r: RowId) -> bool {
        debug_assert!(r < self.ends[rel], "row {r} past the end of relation {rel}");
        match &mut self.per_relation[rel] {
            Marks::Dense { bits, len } => {
                let (w, b) = (r as usize / 64, 1u64 << (r % 64));
                let new = bits[w] & b == 0;
                bits[w] |= b;
                *len += new as usize;
                new
            }
            Marks::Sparse(set) => {
                if !set.insert(r) {
                    return false;
                }
                let end = self.ends[rel] as usize;
                if set.len() > 64 && set.len() > end / 1024 {
                    let mut bits = vec![0u64; end.div_ceil(64)];
                    for &x in set.iter() {
                        bits[x as usize / 64] |= 1 << (x % 64);
                    }
                    let len = set.len();
                    self.per_relation[rel] = Marks::Dense { bits, len };
                }
                true
            }
        }
    }

    /// True when row `r` of relation `rel` is in the set.
    #[inline]
    pub fn contains(&self, rel: usize, r: RowId) -> bool {
        match &self.per_relation[rel] {
            Marks::Dense { bits, .. } => bits
                .get(r as usize / 64)
                .is_some_and(|w| w & (1 << (r % 64)) != 0),
            Marks::Sparse(set) => set.contains(&r),
        }
    }

    /// Removes row `r` of relation `rel`; false when it was not there.
    #[inline]
    pub fn remove(&mut self, rel: usize, r: RowId) -> bool {
        match &mut self.per_relation[rel] {
            Marks::Dense { bits, len } => {
                let Some(word) = bits.get_mut(r as usize / 64) else {
                    return false;
                };
                let b = 1u64 << (r % 64);
                let was = *word & b != 0;
                *word &= !b;
                *len -= was as usize;
                was
            }
            Marks::Sparse(set) => set.remove(&r),
        }
    }

    /// Rows in the set, over all relations.
    pub fn len(&self) -> usize {
        self.per_relation
            .iter()
            .map(|m| match m {
                Marks::Dense { len, .. } => *len,
                Marks::Sparse(set) => set.len(),
            })
            .sum()
    }

    /// True when no row is in the set.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The set agrees with a `HashSet` of pairs through the switch to a bitset.
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
        let mut marks = RowMarks::new(&[small, large]);
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
        assert!(matches!(marks.per_relation[1], Marks::Dense { .. }));
        assert!(matches!(marks.per_relation[0], Marks::Sparse(_)));
        for r in 0..20_000 {
            assert_eq!(marks.contains(1, r), model.contains(&(1, r)));
        }
    }
}
