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
//! Maintenance is replay from the first round a change reaches. When a stratum's input
//! changed, [`Database::earliest_round`] finds k₀, the least round of an instance that uses
//! a changed input fact (over the old and new input together, with the stratum's old
//! rounds). Rounds below k₀ are the same before and after (by induction on the round: their
//! instances use no changed fact, and their facts are the same), so every fact keeps its
//! counts of rounds below k₀; the stratum's relations are laid out again with the facts of
//! rounds below k₀ − 1 as the old rows and those of round k₀ − 1 as the delta, and rounds k₀
//! on are evaluated again over the new lower strata, counting each round's instances by the
//! semi-naive plans. The new counts are compared with the old ones (counts changed, facts
//! whose round moved, facts that came and went). No instance reached: the stratum is
//! unchanged and nothing is replayed.

use std::collections::HashMap;

use super::events::{Database, Pending};
use super::plans::ReplayPlans;
use crate::exec::{Matcher, Versions, WorkCounter};
use crate::program::RelId;
use crate::value::{Tuple, Value};

/// One fact's derivation counts per round: (round, count) pairs, rounds ascending, counts
/// above 0. The first pair's round is the fact's round.
pub type RoundCounts = Vec<(u32, u64)>;

/// What replaying one stratum found.
#[derive(Debug, Default)]
pub(crate) struct Replayed {
    /// Rounds evaluated (the last one derives nothing new).
    pub rounds: u64,
    /// Facts whose counts differ from before (new and gone facts included).
    pub counts_changed: u64,
    /// Facts that hold before and after whose round differs.
    pub rounds_moved: u64,
    /// Per relation of the stratum: the facts that hold no longer, and the new ones.
    pub removed: Vec<(RelId, Tuple)>,
    /// See `removed`.
    pub added: Vec<(RelId, Tuple)>,
}

/// Adds `n` derivations of round `round` to `counts`, whose rounds are all at most `round`.
fn add_at(counts: &mut RoundCounts, round: u32, n: u64) {
    match counts.last_mut() {
        Some((r, c)) if *r == round => *c += n,
        _ => counts.push((round, n)),
    }
}

impl Database<'_> {
    /// Evaluates recursive stratum `s` again from round `from` on: `counts` (per relation of
    /// the stratum, in order) are the counts of rounds below `from`, and become the new
    /// counts. The stratum's relations are emptied first and laid out again from `counts`;
    /// afterwards they hold the new model of the stratum. Returns the rounds evaluated.
    pub(crate) fn evaluate_rounds(
        &mut self,
        s: usize,
        plans: &ReplayPlans,
        work: &WorkCounter,
        from: u32,
        counts: &mut [HashMap<Tuple, RoundCounts>],
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
        if from > 1 {
            // Rounds below `from` are kept: their facts as the old rows and the delta of the
            // round before `from`, in a fixed order.
            for (&rel, kept) in stratum.relations.iter().zip(counts.iter()) {
                let mut facts: Vec<(u32, &Tuple)> =
                    kept.iter().map(|(t, rc)| (rc[0].0, t)).collect();
                facts.sort_unstable();
                let relation = &mut self.relations[rel];
                let mut old_end = 0;
                for (round, t) in facts {
                    work.probe(1);
                    relation.insert(t);
                    if round + 1 < from {
                        old_end = relation.end();
                    }
                }
                versions[rel] = Versions {
                    old_end,
                    delta_end: relation.end(),
                };
            }
            let last = self.rounds_from(s, plans, work, &mut versions, &mut out, from, counts);
            return u64::from(last + 1 - from);
        }
        for &f in &stratum.facts {
            let fact = &program.facts[f];
            work.probe(1);
            self.relations[fact.rel].insert(&fact.tuple);
            add_at(
                counts[slot(fact.rel)]
                    .entry(fact.tuple.clone())
                    .or_default(),
                1,
                1,
            );
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
        counts: &mut [HashMap<Tuple, RoundCounts>],
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

    /// Runs one plan of round `round`: counts each instance at its head's `counts` and inserts
    /// the heads (past the visible rows, so they are seen from the next round on).
    fn run_plan(
        &mut self,
        plan: &crate::plan::RulePlan,
        versions: &[Versions],
        work: &WorkCounter,
        out: &mut Vec<Value>,
        round: u32,
        counts: &mut HashMap<Tuple, RoundCounts>,
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
                rel.insert(&[]);
                add_at(counts.entry(Vec::new()).or_default(), round, n);
            }
            return;
        }
        for head in out.chunks_exact(rel.arity()) {
            rel.insert(head);
            add_at(counts.entry(head.to_vec()).or_default(), round, 1);
        }
    }

    /// Replays recursive stratum `s` from round `from` (see the module header): its counts
    /// in `counts` (per relation of the stratum, in order) become the new ones, and its net
    /// changes are applied as events, so that the strata above see them one fact at a time.
    pub(crate) fn replay(
        &mut self,
        s: usize,
        plans: &ReplayPlans,
        from: u32,
        counts: &mut [HashMap<Tuple, RoundCounts>],
        pending: &mut Pending,
    ) -> Replayed {
        let mut new: Vec<HashMap<Tuple, RoundCounts>> = counts
            .iter()
            .map(|old| {
                old.iter()
                    .filter_map(|(t, rc)| {
                        let kept: RoundCounts =
                            rc.iter().copied().filter(|&(r, _)| r < from).collect();
                        (!kept.is_empty()).then(|| (t.clone(), kept))
                    })
                    .collect()
            })
            .collect();
        let rounds = self.evaluate_rounds(s, plans, &pending.work, from, &mut new);
        let program = self.program;
        let stratum = &program.strata[s];
        let mut out = Replayed {
            rounds,
            ..Replayed::default()
        };
        for ((&rel, slot), new) in stratum.relations.iter().zip(counts.iter_mut()).zip(new) {
            let mut old = std::mem::take(slot);
            for (tuple, now) in &new {
                match old.remove(tuple) {
                    None => out.added.push((rel, tuple.clone())),
                    Some(before) if before != *now => {
                        out.counts_changed += 1;
                        out.rounds_moved += u64::from(before[0].0 != now[0].0);
                    }
                    Some(_) => {}
                }
            }
            out.removed.extend(old.into_keys().map(|t| (rel, t)));
            *slot = new;
        }
        out.counts_changed += (out.added.len() + out.removed.len()) as u64;
        out.removed.sort();
        out.added.sort();
        // The strata above have seen the old relations so far: put them back as they were,
        // then let each change come as an event.
        for (rel, t) in &out.added {
            self.relations[*rel].remove(t);
        }
        for (rel, t) in &out.removed {
            self.relations[*rel].insert(t);
        }
        for (rel, t) in &out.removed {
            self.event(pending, *rel, t, false);
        }
        for (rel, t) in &out.added {
            self.event(pending, *rel, t, true);
        }
        out
    }
}
