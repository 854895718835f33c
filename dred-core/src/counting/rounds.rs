//! Recursive strata: derivation counts per round of semi-naive evaluation, and their replay.
//!
//! Round 1 holds a stratum's program facts and the instances of its rules that read no
//! relation of the stratum; round k > 1 the instances whose same-stratum body facts are all
//! of rounds below k with at least one of round k − 1. A fact's *round* is the first round
//! with a derivation of it, and it holds exactly when some round counts one. Why per round:
//! a count per fact is unsound under recursion — facts on a cycle derive each other, so once
//! their support from outside is gone their counts stay above 0 (see the unit tests); per
//! round, a derivation can only use facts of earlier rounds, so every count is founded.
//!
//! Here: the first evaluation of a stratum, round by round (at materialisation), counting each
//! round's instances by the semi-naive plans; its facts then come as events, so that the
//! strata above see them one fact at a time. A batch maintains the counts by differences
//! (`counting::differences`), not by evaluating again.

use super::events::{Database, Pending};
use super::plans::ReplayPlans;
use crate::exec::{Matcher, Versions, WorkCounter};
use crate::program::RelId;
use crate::storage::RowId;
use crate::value::Value;

/// One fact's derivation counts per round: (round, count) pairs, rounds ascending, counts
/// above 0. The first pair's round is the fact's round.
pub type RoundCounts = Vec<(u32, u64)>;

/// [`RoundColumn::first`]'s mark of a row whose counts are in [`RoundColumn::lists`] (the
/// pair's second half is then the list's index).
const SPILLED: u32 = u32::MAX;

/// The derivation counts per round of one recursive relation's facts, by row id: empty for
/// a tombstone or a row past the end, never empty for a live row between batches.
///
/// Why a column: a map from tuple to list cost about 250 bytes a fact beside the rows (linear
/// TC on GO BP: 206 MB of counts against `dred`'s 43 MB for 659,000 facts). Here a fact with
/// derivations in one round only, fewer than 2³² of them, is one (round, count) pair of
/// 8 bytes; the others keep their whole list in an arena beside, which the pair points to
/// (no hashing: a profile of points-to on memchr spent a third of a batch in maps keyed by
/// row).
#[derive(Clone, Debug, Default)]
pub(crate) struct RoundColumn {
    /// Per row id: `(0, 0)` no counts, `(SPILLED, i)` counts in `lists[i]`, else the only
    /// (round, count) pair. Rounds start at 1.
    first: Vec<(u32, u32)>,
    /// The counts of the rows marked `SPILLED`: two pairs or more, or a count of 2³² or
    /// more. An entry no row points to is empty and listed in `free`.
    lists: Vec<RoundCounts>,
    /// Indices of unused `lists` entries.
    free: Vec<u32>,
}

impl RoundColumn {
    /// The packed pair of row `r` (`(0, 0)` past the end).
    #[inline]
    fn packed(&self, r: RowId) -> (u32, u32) {
        self.first.get(r as usize).copied().unwrap_or((0, 0))
    }

    /// The round of row `r`'s first derivation; `None` when it has none.
    #[inline]
    pub(crate) fn round(&self, r: RowId) -> Option<u32> {
        match self.packed(r) {
            (0, _) => None,
            (SPILLED, i) => Some(self.lists[i as usize][0].0),
            (round, _) => Some(round),
        }
    }

    /// Row `r`'s counts as a list (empty when it has none).
    pub(crate) fn get(&self, r: RowId) -> RoundCounts {
        match self.packed(r) {
            (0, _) => Vec::new(),
            (SPILLED, i) => self.lists[i as usize].clone(),
            (round, count) => vec![(round, u64::from(count))],
        }
    }

    /// True when row `r`'s counts are `counts`.
    pub(crate) fn equals(&self, r: RowId, counts: &[(u32, u64)]) -> bool {
        match (self.packed(r), counts) {
            ((0, _), []) => true,
            ((SPILLED, i), _) => self.lists[i as usize] == counts,
            ((k, c), [(j, n)]) => k == *j && u64::from(c) == *n,
            _ => false,
        }
    }

    /// Row `r`'s count of round `round`, and the first later round with a derivation.
    pub(crate) fn count_and_next(&self, r: RowId, round: u32) -> (u64, Option<u32>) {
        match self.packed(r) {
            (0, _) => (0, None),
            (SPILLED, i) => {
                let counts = &self.lists[i as usize];
                let at = counts
                    .iter()
                    .find(|&&(k, _)| k == round)
                    .map_or(0, |&(_, c)| c);
                let next = counts.iter().map(|&(k, _)| k).find(|&k| k > round);
                (at, next)
            }
            (k, c) if k == round => (u64::from(c), None),
            (k, _) => (0, (k > round).then_some(k)),
        }
    }

    /// Points row `r` at `pair`, giving its list back to the arena if it had one.
    fn set_pair(&mut self, r: RowId, pair: (u32, u32)) {
        let i = r as usize;
        if self.first.len() <= i {
            if pair == (0, 0) {
                return;
            }
            self.first.resize(i + 1, (0, 0));
        }
        if let (SPILLED, l) = self.first[i] {
            self.lists[l as usize] = Vec::new();
            self.free.push(l);
        }
        self.first[i] = pair;
    }

    /// Replaces row `r`'s counts with `counts` (rounds ascending, counts above 0).
    fn set(&mut self, r: RowId, counts: RoundCounts) {
        match counts[..] {
            [] => self.set_pair(r, (0, 0)),
            [(round, count)] if count < u64::from(u32::MAX) => {
                self.set_pair(r, (round, count as u32));
            }
            _ => {
                if let (SPILLED, l) = self.packed(r) {
                    self.lists[l as usize] = counts;
                    return;
                }
                let l = match self.free.pop() {
                    Some(l) => {
                        self.lists[l as usize] = counts;
                        l
                    }
                    None => {
                        self.lists.push(counts);
                        (self.lists.len() - 1) as u32
                    }
                };
                self.set_pair(r, (SPILLED, l));
            }
        }
    }

    /// Adds `n` derivations of round `round` to row `r`, whose rounds are all at most
    /// `round` (as evaluation round by round adds them).
    fn push(&mut self, r: RowId, round: u32, n: u64) {
        match self.packed(r) {
            (k, c) if k == round && u64::from(c) + n < u64::from(u32::MAX) => {
                self.first[r as usize].1 = c + n as u32;
            }
            (0, _) => self.set(r, vec![(round, n)]),
            (SPILLED, l) => {
                let counts = &mut self.lists[l as usize];
                match counts.last_mut() {
                    Some((k, c)) if *k == round => *c += n,
                    _ => counts.push((round, n)),
                }
            }
            (k, c) => {
                let counts = if k == round {
                    vec![(k, u64::from(c) + n)]
                } else {
                    vec![(k, u64::from(c)), (round, n)]
                };
                self.set(r, counts);
            }
        }
    }

    /// Adds `delta` derivations of round `round` to row `r`; `Err` (nothing changed) when
    /// the count would fall below 0. In place: a row's list is not copied.
    pub(crate) fn add(&mut self, r: RowId, round: u32, delta: i64) -> Result<(), ()> {
        let (k, c) = self.packed(r);
        if k != SPILLED {
            let c = u64::from(c);
            let (k, c) = if k == 0 { (round, 0) } else { (k, c) };
            if k == round {
                let now = c.checked_add_signed(delta).ok_or(())?;
                if now == 0 {
                    self.set_pair(r, (0, 0));
                } else if now < u64::from(u32::MAX) {
                    self.set_pair(r, (k, now as u32));
                } else {
                    self.set(r, vec![(k, now)]);
                }
                return Ok(());
            }
            // A second round: the row's list goes to the arena.
            return match delta {
                0 => Ok(()),
                ..0 => Err(()),
                _ => {
                    let new = (round, delta as u64);
                    let pairs = if round < k {
                        vec![new, (k, c)]
                    } else {
                        vec![(k, c), new]
                    };
                    self.set(r, pairs);
                    Ok(())
                }
            };
        }
        let counts = &mut self.lists[c as usize];
        match counts.binary_search_by_key(&round, |&(k, _)| k) {
            Ok(i) => {
                let now = counts[i].1.checked_add_signed(delta).ok_or(())?;
                if now == 0 {
                    counts.remove(i);
                } else {
                    counts[i].1 = now;
                }
            }
            Err(_) if delta == 0 => {}
            Err(i) if delta > 0 => counts.insert(i, (round, delta as u64)),
            Err(_) => return Err(()),
        }
        if let [(k, n)] = counts[..] {
            if n < u64::from(u32::MAX) {
                self.set_pair(r, (k, n as u32));
            }
        }
        Ok(())
    }

    /// Forgets every count.
    pub(crate) fn clear(&mut self) {
        self.first.clear();
        self.lists.clear();
        self.free.clear();
    }

    /// The column of the relation compacted (its rows `kept`, in order, renumbered from 0).
    pub(crate) fn compacted(&self, kept: impl Iterator<Item = RowId>) -> RoundColumn {
        let mut out = RoundColumn::default();
        for (new, old) in kept.enumerate() {
            let new = new as RowId;
            match self.packed(old) {
                (SPILLED, l) => out.set(new, self.lists[l as usize].clone()),
                pair => out.set_pair(new, pair),
            }
        }
        out.first.shrink_to_fit();
        out
    }

    /// Rows whose counts are a list in the arena.
    #[cfg(test)]
    pub(crate) fn spilled_rows(&self) -> usize {
        self.lists.len() - self.free.len()
    }
}

/// What replaying one stratum found.
#[derive(Debug, Default)]
pub(crate) struct Replayed {
    /// Rounds evaluated (the last one derives nothing new), or steps of maintenance.
    pub rounds: u64,
    /// Facts whose counts differ from before (new and gone facts included).
    pub counts_changed: u64,
    /// Facts that hold before and after whose round differs.
    pub rounds_moved: u64,
}

impl Database<'_> {
    /// Evaluates recursive stratum `s` from round 1 into `counts` (per relation of the
    /// stratum, in order, empty). The stratum's relations are emptied first; afterwards they
    /// hold the stratum's model. Returns the rounds evaluated.
    pub(crate) fn evaluate_rounds(
        &mut self,
        s: usize,
        plans: &ReplayPlans,
        work: &WorkCounter,
        counts: &mut [RoundColumn],
    ) -> u64 {
        let program = self.program;
        let stratum = &program.strata[s];
        let slot = |rel: RelId| {
            stratum
                .relations
                .iter()
                .position(|&r| r == rel)
                .expect("a head of the stratum")
        };
        for &rel in &stratum.relations {
            self.relations[rel].clear();
        }
        let mut versions: Vec<Versions> = self.relations.iter().map(Versions::complete).collect();
        let mut out: Vec<Value> = Vec::new();
        for &f in &stratum.facts {
            let fact = &program.facts[f];
            work.probe(1);
            let r = self.relations[fact.rel].make_live(&fact.tuple);
            counts[slot(fact.rel)].push(r, 1, 1);
        }
        for plan in &plans.base {
            self.run_plan(
                plan,
                &versions,
                work,
                &mut out,
                1,
                &mut counts[slot(plan.head_rel)],
            );
        }
        // From round 2 on, the rows of round k − 1 are the delta.
        for &rel in &stratum.relations {
            versions[rel] = Versions {
                old_end: 0,
                delta_end: self.relations[rel].end(),
            };
        }
        let last = self.rounds_from(s, plans, work, &mut versions, &mut out, 2, counts);
        u64::from(last)
    }

    /// Semi-naive rounds `from`, `from` + 1, ... of stratum `s` until one derives nothing
    /// new, `versions` showing the rows of rounds below `from` − 1 as old and those of
    /// round `from` − 1 as the delta; returns the last round.
    #[allow(clippy::too_many_arguments)]
    fn rounds_from(
        &mut self,
        s: usize,
        plans: &ReplayPlans,
        work: &WorkCounter,
        versions: &mut [Versions],
        out: &mut Vec<Value>,
        from: u32,
        counts: &mut [RoundColumn],
    ) -> u32 {
        let program = self.program;
        let stratum = &program.strata[s];
        let slot = |rel: RelId| {
            stratum
                .relations
                .iter()
                .position(|&r| r == rel)
                .expect("a head of the stratum")
        };
        let mut round = from - 1;
        loop {
            round += 1;
            crate::rounds::check(round as usize, || {
                crate::rounds::names(program, stratum.relations.iter().copied())
            });
            for plan in &plans.recursive {
                self.run_plan(
                    plan,
                    versions,
                    work,
                    out,
                    round,
                    &mut counts[slot(plan.head_rel)],
                );
            }
            let mut grew = false;
            for &rel in &stratum.relations {
                let v = &mut versions[rel];
                let end = self.relations[rel].end();
                grew |= end > v.delta_end;
                v.old_end = v.delta_end;
                v.delta_end = end;
            }
            if !grew {
                return round;
            }
        }
    }

    /// Runs one plan of round `round`: counts each instance at its head's row of `counts`
    /// and stores the heads (past the visible rows, so they are seen from the next round
    /// on).
    fn run_plan(
        &mut self,
        plan: &crate::plan::RulePlan,
        versions: &[Versions],
        work: &WorkCounter,
        out: &mut Vec<Value>,
        round: u32,
        counts: &mut RoundColumn,
    ) {
        out.clear();
        let matcher = Matcher {
            relations: &self.relations[..],
            versions,
            work,
        };
        let n = matcher.run(plan, out);
        work.probe(n);
        let rel = &mut self.relations[plan.head_rel];
        if rel.arity() == 0 {
            if n > 0 {
                let r = rel.make_live(&[]);
                counts.push(r, round, n);
            }
            return;
        }
        for head in out.chunks_exact(rel.arity()) {
            let r = rel.make_live(head);
            counts.push(r, round, 1);
        }
    }

    /// Evaluates recursive stratum `s` from round 1 at materialisation, into `counts` (per
    /// relation of the stratum, in order, empty), and lets every fact of its model come as
    /// an event, in the order of its rows, so that the strata above see them one fact at a
    /// time.
    pub(crate) fn materialise_rounds(
        &mut self,
        s: usize,
        plans: &ReplayPlans,
        counts: &mut [RoundColumn],
        pending: &mut Pending,
    ) -> Replayed {
        debug_assert!(counts.iter().all(|c| c.first.is_empty()));
        let rounds = self.evaluate_rounds(s, plans, &pending.work, counts);
        let program = self.program;
        let stratum = &program.strata[s];
        let mut out = Replayed {
            rounds,
            ..Replayed::default()
        };
        // The strata above have seen none of them: every row out (a tombstone, keeping its
        // id and so its counts' place), then back one event at a time.
        for &rel in &stratum.relations {
            let end = self.relations[rel].end();
            for r in 0..end {
                self.relations[rel].remove_id(r);
            }
        }
        for &rel in &stratum.relations {
            let end = self.relations[rel].end();
            out.counts_changed += u64::from(end);
            for r in 0..end {
                self.event_at(pending, rel, r, true);
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::BTreeMap;

    /// The counts of a row under `add`, as `RoundColumn::add` must keep them, by a map
    /// from round to count (`Err`, nothing changed, when a count would fall below 0).
    fn add_plain(counts: &mut BTreeMap<u32, u64>, round: u32, delta: i64) -> Result<(), ()> {
        let now = counts.get(&round).copied().unwrap_or(0);
        let now = now.checked_add_signed(delta).ok_or(())?;
        if now == 0 {
            counts.remove(&round);
        } else {
            counts.insert(round, now);
        }
        Ok(())
    }

    proptest! {
        /// Any sequence of additions (counts near 2³² included) leaves every row's counts
        /// those of a plain list per row, packed when they fit a pair and spilled when not,
        /// and compaction keeps each kept row's counts under its new id.
        #[test]
        fn column_equals_a_list_per_row(
            ops in prop::collection::vec(
                (0u32..6, 1u32..5, prop_oneof![Just(1i64), Just(-1), Just(i64::from(u32::MAX))]),
                0..200,
            ),
            keep in prop::collection::vec(any::<bool>(), 6),
        ) {
            let mut column = RoundColumn::default();
            let mut maps: Vec<BTreeMap<u32, u64>> = vec![BTreeMap::new(); 6];
            let mut plain: Vec<RoundCounts> = vec![Vec::new(); 6];
            for (r, round, delta) in ops {
                let expected = add_plain(&mut maps[r as usize], round, delta);
                plain[r as usize] = maps[r as usize].iter().map(|(&k, &c)| (k, c)).collect();
                prop_assert_eq!(column.add(r, round, delta), expected);
                for (row, counts) in plain.iter().enumerate() {
                    let row = row as RowId;
                    prop_assert_eq!(&column.get(row), counts);
                    prop_assert_eq!(column.round(row), counts.first().map(|&(k, _)| k));
                    for k in 1..5 {
                        let at = counts.iter().find(|&&(j, _)| j == k).map_or(0, |&(_, c)| c);
                        let next = counts.iter().map(|&(j, _)| j).find(|&j| j > k);
                        prop_assert_eq!(column.count_and_next(row, k), (at, next));
                    }
                }
                let spill = plain
                    .iter()
                    .filter(|c| c.len() > 1 || c.iter().any(|&(_, n)| n >= u64::from(u32::MAX)))
                    .count();
                prop_assert_eq!(column.spilled_rows(), spill);
            }
            let kept: Vec<RowId> = (0..6).filter(|&r| keep[r as usize]).collect();
            let compacted = column.compacted(kept.iter().copied());
            for (new, &old) in kept.iter().enumerate() {
                prop_assert_eq!(compacted.get(new as RowId), plain[old as usize].clone());
            }
        }
    }

    #[test]
    fn evaluation_pushes_pack_a_single_round() {
        let mut column = RoundColumn::default();
        column.push(3, 2, 1);
        column.push(3, 2, 4);
        assert_eq!(column.get(3), vec![(2, 5)]);
        assert_eq!(column.spilled_rows(), 0);
        column.push(3, 4, 1);
        assert_eq!(column.get(3), vec![(2, 5), (4, 1)]);
        assert_eq!(column.spilled_rows(), 1);
        assert_eq!(column.get(0), Vec::new());
        assert_eq!(column.round(3), Some(2));
    }
}
