//! Looking up the heads of instances in their relations: a batch at a time, so that the
//! cache misses of the lookups overlap ([`HeadProbes`]), and skipped when a head was found
//! lately in the same phase ([`RecentHeads`]). Both change no result: a batch of lookups
//! finds, in push order, the rows [`Relation::find_row`] finds, and the recent heads only
//! spare lookups whose answer the caller already has.

use crate::plan::RulePlan;
use crate::program::RelId;
use crate::storage::{Relation, RowId};
use crate::value::Value;

/// Heads of instances, to be found in their relations a batch at a time.
///
/// Phases 1 and 2 look up the head of every instance through an over-deleted or restored
/// fact: on large deletions most of their time, one cache miss each. Found one by one, each
/// waits for its miss; here each head's slot is prefetched when the head is pushed and looked
/// up only [`HeadProbes::DEPTH`] heads later, so that the misses overlap.
#[derive(Clone, Debug, Default)]
pub(crate) struct HeadProbes {
    /// One record per head rather than a vector per field: a push is one vector's growth
    /// check, not three (on R-MAT TC, 12 million pushes for 20 single-edge deletions).
    heads: Vec<HeadProbe>,
    values: Vec<Value>,
}

/// A head held by [`HeadProbes`].
#[derive(Clone, Copy, Debug)]
struct HeadProbe {
    rel: RelId,
    /// Where the head's values start in [`HeadProbes::values`].
    start: usize,
    hash: u64,
    /// While draining: the row its lookup compares first.
    candidate: Option<RowId>,
}

impl HeadProbes {
    /// Heads held before they are looked up: enough to cover a miss's latency, few enough
    /// that their slots stay in the L1 cache until used.
    pub(crate) const DEPTH: usize = 32;

    /// Adds a head of relation `rel` and starts loading its slot.
    #[inline]
    pub(crate) fn push(&mut self, relations: &[Relation], rel: RelId, head: &[Value]) {
        let hash = relations[rel].lookup_hash(head);
        relations[rel].prefetch_row(hash, head);
        self.heads.push(HeadProbe {
            rel,
            start: self.values.len(),
            hash,
            candidate: None,
        });
        self.values.extend_from_slice(head);
    }

    /// Adds the head of an instance of `plan` (its variables bound as in `vars`) and starts
    /// loading its slot; the head's values are written once, into the batch.
    #[inline]
    pub(crate) fn push_instance(
        &mut self,
        relations: &[Relation],
        plan: &RulePlan,
        vars: &[Value],
    ) {
        let head = plan.head.iter().map(|o| o.get(vars));
        self.push_unless_recent(relations, plan.head_rel, head, None);
    }

    /// [`HeadProbes::push_instance`], unless `recent` shows the head found already in this
    /// phase: then nothing is pushed. For callers whose `found` does nothing for a head it
    /// was given before (see [`RecentHeads`]). The head is recognised by its values, compared
    /// with the row the table names, so neither a collision nor a stale slot can mislead.
    #[inline]
    pub(crate) fn push_instance_unless_recent(
        &mut self,
        relations: &[Relation],
        plan: &RulePlan,
        vars: &[Value],
        recent: &RecentHeads,
    ) {
        let head = plan.head.iter().map(|o| o.get(vars));
        self.push_unless_recent(relations, plan.head_rel, head, Some(recent));
    }

    /// Adds a head of relation `rel` given by its values and starts loading its slot, unless
    /// `recent` is given and shows it found already (see
    /// [`HeadProbes::push_instance_unless_recent`]).
    #[inline(always)]
    fn push_unless_recent(
        &mut self,
        relations: &[Relation],
        rel: RelId,
        head: impl Iterator<Item = Value>,
        recent: Option<&RecentHeads>,
    ) {
        let start = self.values.len();
        self.values.extend(head);
        let relation = &relations[rel];
        let head = &self.values[start..];
        let hash = relation.lookup_hash(head);
        // Hash 0: found by the dense map, which costs less than the table (and a real hash
        // of 0 only misses the table).
        if let Some(recent) = recent.filter(|_| hash != 0) {
            if let Some(r) = recent.found(hash, rel) {
                if crate::storage::same_values(relation.row(r), head) {
                    self.values.truncate(start);
                    return;
                }
            }
        }
        relation.prefetch_row(hash, head);
        self.heads.push(HeadProbe {
            rel,
            start,
            hash,
            candidate: None,
        });
    }

    /// Forgets every head held, keeping the room: a run that stopped early (a budget) may
    /// leave some, which the next run must not look up.
    pub(crate) fn clear(&mut self) {
        self.heads.clear();
        self.values.clear();
    }

    /// True when enough heads are held to look them up.
    #[inline]
    pub(crate) fn is_full(&self) -> bool {
        self.heads.len() >= Self::DEPTH
    }

    /// Looks up every head held, in the order pushed, and forgets them: `found` gets the
    /// relation and the newest row with the head's values (live or not), if any.
    pub(crate) fn drain(
        &mut self,
        relations: &[Relation],
        mut found: impl FnMut(RelId, Option<RowId>),
    ) {
        self.drain_into(relations, None, |rel, _, row| found(rel, row));
    }

    /// [`HeadProbes::drain`], telling `found` each head's values too.
    pub(crate) fn drain_values(
        &mut self,
        relations: &[Relation],
        found: impl FnMut(RelId, &[Value], Option<RowId>),
    ) {
        self.drain_into(relations, None, found);
    }

    /// [`HeadProbes::drain`], noting in `recent` each head found (for
    /// [`HeadProbes::push_instance_unless_recent`]).
    pub(crate) fn drain_noting(
        &mut self,
        relations: &[Relation],
        recent: &mut RecentHeads,
        mut found: impl FnMut(RelId, Option<RowId>),
    ) {
        self.drain_into(relations, Some(recent), |rel, _, row| found(rel, row));
    }

    #[inline(always)]
    fn drain_into(
        &mut self,
        relations: &[Relation],
        mut recent: Option<&mut RecentHeads>,
        mut found: impl FnMut(RelId, &[Value], Option<RowId>),
    ) {
        // The slots have arrived by now (prefetched when pushed): note the row each lookup
        // will compare with and start loading it, so that those misses overlap too; the
        // lookups then compare that row without walking the slots again.
        for i in 0..self.heads.len() {
            let end = self.heads.get(i + 1).map_or(self.values.len(), |n| n.start);
            let h = &self.heads[i];
            let candidate = relations[h.rel].first_candidate(h.hash, &self.values[h.start..end]);
            self.heads[i].candidate = candidate;
        }
        for (i, h) in self.heads.iter().enumerate() {
            let end = self.heads.get(i + 1).map_or(self.values.len(), |n| n.start);
            let head = &self.values[h.start..end];
            let row = relations[h.rel].find_row_candidate(h.hash, head, h.candidate);
            if let (Some(recent), Some(r)) = (recent.as_deref_mut(), row.filter(|_| h.hash != 0)) {
                recent.note(h.hash, h.rel, r);
            }
            found(h.rel, head, row);
        }
        self.heads.clear();
        self.values.clear();
    }
}

/// The heads found lately in a phase, by hash: a small direct-mapped table (one slot per
/// hash, the newest head winning), kept across batches and emptied by a generation count.
///
/// Why: most instances through over-deleted facts share their head with another — on R-MAT
/// TC's single-edge deletions of 1,400–1,600 over-deleted facts, 87% of the ~10,000 heads
/// looked up in phase 1 were found before in the same phase — and each lookup in a
/// relation's set table hashes, walks control bytes and compares a row in the arena, 340
/// instructions a head with the batching (callgrind) and a cache miss into tables of 10 MB.
/// This table is 96 KB, in the L2 cache, and a hit costs a slot and the row found last time.
/// A head it misses is looked up as before: it only saves work, for callers to which a head
/// found twice means nothing new (phase 1 marks D: a fact already in D is not reached again).
#[derive(Clone, Debug, Default)]
pub(crate) struct RecentHeads {
    slots: Vec<RecentSlot>,
    /// The phase's number: slots of other numbers are empty.
    generation: u32,
}

#[derive(Clone, Copy, Debug, Default)]
struct RecentSlot {
    hash: u64,
    rel: u32,
    row: RowId,
    generation: u32,
}

impl RecentHeads {
    /// Slots: a power of two.
    const SLOTS: usize = 4096;

    /// Forgets every head: a new phase, whose row ids the old slots may not name.
    pub(crate) fn begin(&mut self) {
        if self.slots.is_empty() {
            self.slots = vec![RecentSlot::default(); Self::SLOTS];
        }
        self.generation = self.generation.wrapping_add(1);
        if self.generation == 0 {
            self.slots.fill(RecentSlot::default());
            self.generation = 1;
        }
    }

    #[inline(always)]
    fn slot(hash: u64) -> usize {
        // The high half: the tables use the low 32 bits (home slot, tag) and the top 7.
        (hash >> 32) as usize & (Self::SLOTS - 1)
    }

    /// The row last noted for a head of relation `rel` with this hash, in this phase.
    #[inline(always)]
    fn found(&self, hash: u64, rel: RelId) -> Option<RowId> {
        let s = self.slots.get(Self::slot(hash))?;
        (s.generation == self.generation && s.hash == hash && s.rel as usize == rel)
            .then_some(s.row)
    }

    /// Notes that the head of relation `rel` with this hash is row `row`.
    #[inline(always)]
    fn note(&mut self, hash: u64, rel: RelId, row: RowId) {
        let generation = self.generation;
        if let Some(s) = self.slots.get_mut(Self::slot(hash)) {
            *s = RecentSlot {
                hash,
                rel: rel as u32,
                row,
                generation,
            };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Heads looked up in batches find what one-by-one lookups find: present rows, tombstones
    /// (newest copy) and absent values, across relations of different arities, in push order.
    #[test]
    fn head_probes_find_what_find_row_finds() {
        let mut pairs = Relation::new(2);
        let mut singles = Relation::new(1);
        for i in 0..500 {
            pairs.insert(&[i, i * 7]);
            singles.insert(&[i * 3]);
        }
        pairs.remove(&[10, 70]);
        let relations = vec![pairs, singles];
        let mut queries: Vec<(usize, Vec<i64>)> = Vec::new();
        for i in 0..300 {
            queries.push((0, vec![i, i * 7])); // present, or a tombstone for i = 10
            queries.push((0, vec![i, i * 7 + 1])); // absent
            queries.push((1, vec![i])); // present when i is a multiple of 3
        }
        let mut heads = HeadProbes::default();
        let mut got = Vec::new();
        for (rel, values) in &queries {
            heads.push(&relations, *rel, values);
            if heads.is_full() {
                heads.drain(&relations, |rel, h| got.push((rel, h)));
            }
        }
        heads.drain(&relations, |rel, h| got.push((rel, h)));
        let expected: Vec<_> = queries
            .iter()
            .map(|(rel, values)| (*rel, relations[*rel].find_row(values)))
            .collect();
        assert_eq!(got, expected);
        assert!(got.iter().filter(|(_, h)| h.is_some()).count() > 300);
        assert_eq!(got[30], (0, Some(10)), "the tombstone is found by value");
    }

    /// With the heads found lately noted, a head found before in the phase is not looked up
    /// again, and every head not found before is: the heads `found` sees are those of plain
    /// lookups, each distinct one once (a head of a dense relation, or absent, every time). A
    /// new phase forgets them, so rows renumbered between phases are never named.
    #[test]
    fn recent_heads_skip_only_heads_found_before() {
        let build = |n: i64| {
            let mut pairs = Relation::new(2);
            let mut singles = Relation::new(1);
            for i in 0..n {
                pairs.insert(&[i % 97, i]);
                singles.insert(&[i]);
            }
            vec![pairs, singles]
        };
        let mut recent = RecentHeads::default();
        for (phase, n) in [(0, 3000), (1, 3000), (2, 1500)] {
            // Phase 2's relations hold other rows: its lookups must not see phase 1's slots.
            let relations = build(n);
            recent.begin();
            let mut queries: Vec<(usize, Vec<i64>)> = Vec::new();
            let mut x: u64 = 11 + phase;
            for _ in 0..20_000 {
                x = x
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                let i = ((x >> 33) % 4000) as i64;
                queries.push((0, vec![i % 97, i])); // absent for i >= n
                if i % 5 == 0 {
                    queries.push((1, vec![i]));
                }
            }
            let mut heads = HeadProbes::default();
            let mut got: Vec<(usize, Option<u32>)> = Vec::new();
            for (rel, values) in &queries {
                heads.push_unless_recent(&relations, *rel, values.iter().copied(), Some(&recent));
                if heads.is_full() {
                    heads.drain_noting(&relations, &mut recent, |rel, h| got.push((rel, h)));
                }
            }
            heads.drain_noting(&relations, &mut recent, |rel, h| got.push((rel, h)));
            let expected: Vec<(usize, Option<u32>)> = queries
                .iter()
                .map(|(rel, values)| (*rel, relations[*rel].find_row(values)))
                .collect();
            // Every head seen is one a lookup finds, in order; only repeats of present heads of
            // the hashed relation are skipped.
            let mut skipped = 0;
            let mut seen = std::collections::HashSet::new();
            let mut g = got.iter();
            for e in &expected {
                let repeat = e.0 == 0 && e.1.is_some() && !seen.insert(*e);
                if repeat && g.clone().next() != Some(e) {
                    skipped += 1;
                    continue;
                }
                assert_eq!(g.next(), Some(e), "phase {phase}");
            }
            assert_eq!(g.next(), None);
            let present = expected
                .iter()
                .filter(|(rel, h)| *rel == 0 && h.is_some())
                .count();
            let repeats = present - seen.iter().filter(|(rel, _)| *rel == 0).count();
            assert!(
                skipped * 2 > repeats,
                "phase {phase}: most of {repeats} repeats skipped ({skipped})"
            );
        }
    }
}
