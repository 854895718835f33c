//! Deduplicating insertion of many rows given flat — the heads a whole-relation join derived
//! in one round — with the cache misses of their lookups overlapped.
//!
//! Why: `recompute` inserts every head it derives, duplicates included (7.96 million on
//! linear TC over 2,000 nodes and 5,000 edges, for 3.16 million paths), and inserted one by
//! one each head waits for three cache misses in turn: the control bytes of its home slot in
//! the set table, the slot's tag and row id, and the stored row its values are compared with.
//! By `perf annotate` they were 32%, 37% and 22% of `Relation::place`, itself 73% of the
//! evaluation's samples. Here a row's hash is computed and its home slot loaded
//! [`SLOTS_AHEAD`] rows before it is inserted, and its first candidate's values
//! [`VALUES_AHEAD`] rows before, so that the misses of a few dozen rows are in flight at once.
//!
//! Tried and dropped: partitioning the rows by the region of the table their home slot lies
//! in (a counting sort by the tag's top bits, regions of 16 Ki slots), so that the table is
//! read region by region. The samples in the insertion were the same (12,175 against 12,562
//! on seven evaluations of the graph above), and sizing the table for every row before the
//! first region (needed: region by region, the first regions fill far past the load limit,
//! which is a global count) cost page faults of its own.
//!
//! The relation ends as inserting the rows one by one ([`Relation::insert`]) leaves it: the
//! same rows under the same ids. The hints read the set table as it stands when they are
//! made; rows inserted since may move a candidate, which then costs a miss, never a wrong
//! answer: each row's own lookup is a whole probe.

use std::hash::BuildHasher;

use super::{Place, Relation};
use crate::storage::RowId;
use crate::value::Value;

/// How many rows ahead a row's hash is computed and its home slot loaded.
const SLOTS_AHEAD: usize = 16;
/// How many rows ahead the values of a row's first candidate are loaded (its slot having
/// been asked for `SLOTS_AHEAD - VALUES_AHEAD` rows before).
const VALUES_AHEAD: usize = 8;
/// Hashes kept: a power of two above [`SLOTS_AHEAD`].
const RING: usize = 32;

impl Relation {
    /// Adds the rows of `flat` (`instances` rows of this relation's arity, one after the
    /// other; for arity 0, `instances` empty rows) as [`Relation::insert`] one by one would,
    /// with their lookups' cache misses overlapped (see the module's header); returns how
    /// many were new. Indexes are brought up to date after all rows are in, as by
    /// [`Relation::insert_batch`].
    pub fn insert_flat(&mut self, flat: &[Value], instances: u64) -> usize {
        let arity = self.arity;
        if arity == 0 {
            return usize::from(instances > 0 && self.insert(&[]));
        }
        assert_eq!(flat.len() % arity, 0, "rows of the wrong arity");
        if self.by_indexes {
            // Each row indexed as it comes, so that the next rows find it.
            return flat
                .chunks_exact(arity)
                .filter(|row| self.insert(row))
                .count();
        }
        let first = self.len as RowId;
        if self.dense.is_some() {
            // One read of an array per row, loaded ahead; the map may turn off partway,
            // after which `place` hashes the rows itself.
            for (i, row) in flat.chunks_exact(1).enumerate() {
                if let Some(&next) = flat.get(i + SLOTS_AHEAD) {
                    self.prefetch_row(0, &[next]);
                }
                let place = self.place(row);
                self.append_at(place, row);
            }
        } else {
            self.insert_ahead(flat);
        }
        let appended = self.len - first as usize;
        self.index_appended(first, appended >= (first as usize).max(1024));
        appended
    }

    /// Inserts the rows of `flat` into the set table and the arena, each row's hash computed
    /// and its slot loaded [`SLOTS_AHEAD`] rows before, its first candidate
    /// [`VALUES_AHEAD`] rows before. Not for the dense map.
    fn insert_ahead(&mut self, flat: &[Value]) {
        debug_assert!(self.dense.is_none());
        let arity = self.arity;
        let n = flat.len() / arity;
        let row_of = |i: usize| &flat[i * arity..(i + 1) * arity];
        let hasher = self.hasher.clone();
        let hash_of = |i: usize| hasher.hash_one(row_of(i));
        let mut hashes = [0u64; RING];
        for (i, h) in hashes.iter_mut().enumerate().take(n.min(SLOTS_AHEAD)) {
            *h = hash_of(i);
            self.set.prefetch(*h);
        }
        for i in 0..n {
            let ahead = i + SLOTS_AHEAD;
            if ahead < n {
                let h = hash_of(ahead);
                hashes[ahead % RING] = h;
                self.set.prefetch(h);
            }
            let soon = i + VALUES_AHEAD;
            if soon < n {
                // Reads the slot loaded above; starts loading the row it points at.
                self.set
                    .first_candidate(hashes[soon % RING], &self.data, arity);
            }
            let hash = hashes[i % RING];
            let values = row_of(i);
            self.set.reserve_one();
            let probe = self.set.probe(hash, values, &self.data, arity);
            self.append_at(Place::Set { hash, probe }, values);
        }
    }

    /// Appends `row` under the next id unless the [`Relation::place`] made for it (with
    /// nothing changed since) holds a live copy; indexes are left to the caller.
    #[inline(always)]
    fn append_at(&mut self, place: Place, row: &[Value]) {
        if self.stored(&place).is_some_and(|old| self.is_live(old)) {
            return;
        }
        let r = self.len as RowId;
        self.claim(place, row, r);
        self.push_values(row);
        self.len += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A seeded stream of rows of `arity` over `0..range` (SplitMix64), duplicates likely.
    fn rows(arity: usize, n: usize, range: u64, seed: u64) -> Vec<Value> {
        let mut state = seed;
        let mut next = || {
            state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = state;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^ (z >> 31)
        };
        (0..n * arity).map(|_| (next() % range) as Value).collect()
    }

    /// The live rows, as a sorted list.
    fn live(r: &Relation) -> Vec<Vec<Value>> {
        let mut v: Vec<Vec<Value>> = r.rows(r.all()).map(<[Value]>::to_vec).collect();
        v.sort();
        v
    }

    /// Inserts `batches` into two copies of `start`, one by [`Relation::insert_flat`], the
    /// other row by row; they must hold the same live rows, report the same number of new
    /// rows per batch, keep their invariants and answer index lookups alike.
    fn same_as_one_by_one(start: &Relation, batches: &[Vec<Value>]) {
        let mut flat = start.clone();
        let mut single = start.clone();
        let arity = start.arity();
        for batch in batches {
            let n = batch.len().checked_div(arity).unwrap_or(1) as u64;
            let added = flat.insert_flat(batch, n);
            let expected = if arity == 0 {
                usize::from(n > 0 && single.insert(&[]))
            } else {
                batch
                    .chunks_exact(arity)
                    .filter(|row| single.insert(row))
                    .count()
            };
            assert_eq!(added, expected, "new rows of a batch");
            assert_eq!(live(&flat), live(&single), "live rows");
            flat.check_invariants();
        }
        for (ix, cols) in start.indexes.iter().map(|ix| ix.cols.clone()).enumerate() {
            for row in single.rows(single.all()) {
                let key: Vec<Value> = cols.iter().map(|&c| row[c]).collect();
                let of = |r: &Relation| {
                    let mut g: Vec<Vec<Value>> = r
                        .lookup(ix, &key)
                        .iter()
                        .filter(|&&id| r.is_live(id))
                        .map(|&id| r.row(id).to_vec())
                        .collect();
                    g.sort();
                    g
                };
                assert_eq!(of(&flat), of(&single), "group of {key:?} in index {cols:?}");
            }
        }
    }

    #[test]
    fn small_batches_of_every_arity() {
        for arity in 0..=3 {
            let mut start = Relation::new(arity);
            if arity >= 2 {
                start.ensure_index(&[1]);
                start.ensure_index(&[0, 1]);
            }
            let batches: Vec<Vec<Value>> = (0..6)
                .map(|s| rows(arity, 50 * s as usize, 12, s))
                .collect();
            same_as_one_by_one(&start, &batches);
        }
    }

    /// Large batches into a large table, growing it on the way, with a tombstone among the
    /// stored rows (superseded when inserted again).
    #[test]
    fn large_batches_with_growth_and_tombstones() {
        for arity in [2, 3] {
            let mut start = Relation::new(arity);
            start.ensure_index(&[0]);
            let first = rows(arity, 20_000, 300, 7);
            for row in first.chunks_exact(arity) {
                start.insert(row);
            }
            let gone = start.row(5).to_vec();
            start.remove(&gone);
            let mut again = rows(arity, 30_000, 400, 8);
            again.extend_from_slice(&gone);
            let batches = vec![again, rows(arity, 60_000, 500, 9), Vec::new()];
            same_as_one_by_one(&start, &batches);
        }
    }

    /// One column: through the dense map, and a value it cannot hold turning it off partway.
    #[test]
    fn dense_map_on_and_off() {
        let start = Relation::new(1);
        let mut batch = rows(1, 500, 100, 3);
        batch.push(-4);
        batch.extend(rows(1, 500, 1000, 4));
        same_as_one_by_one(&start, &[rows(1, 300, 50, 2), batch, rows(1, 40, 2000, 5)]);
    }
}
