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

use hashbrown::HashMap;

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
    /// Evaluates recursive stratum `s` from round 1: `counts` (per relation of the stratum,
    /// in order, empty) become its counts. The stratum's relations are emptied first;
    /// afterwards they hold the stratum's model. Returns the rounds evaluated.
    pub(crate) fn evaluate_rounds(
        &mut self,
        s: usize,
        plans: &ReplayPlans,
        work: &WorkCounter,
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

    /// Evaluates recursive stratum `s` from round 1 (see the module header): the new counts
    /// replace those in `counts` (per relation of the stratum, in order), and its net
    /// changes against them are applied as events, so that the strata above see them one
    /// fact at a time.
    pub(crate) fn replay(
        &mut self,
        s: usize,
        plans: &ReplayPlans,
        counts: &mut [HashMap<Tuple, RoundCounts>],
        pending: &mut Pending,
    ) -> Replayed {
        let from_empty = counts.iter().all(HashMap::is_empty);
        let mut new: Vec<HashMap<Tuple, RoundCounts>> = vec![HashMap::new(); counts.len()];
        let rounds = self.evaluate_rounds(s, plans, &pending.work, &mut new);
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
        if from_empty {
            // Every stored fact is new (materialisation): emptied at once, not one tombstone
            // per row.
            for &rel in &stratum.relations {
                self.relations[rel].clear();
            }
        } else {
            for (rel, t) in &out.added {
                self.relations[*rel].remove(t);
            }
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
