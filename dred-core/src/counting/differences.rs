//! Recursive strata maintained by differences, round by round: a batch changes the counts of
//! the instances that use a changed fact, and a fact whose round moves changes those of the
//! instances that use it, in increasing order of rounds, until no count changes.
//!
//! The rounds (`counting::rounds`): an instance of a rule of the stratum is counted in the
//! round 1 + the latest round of its body facts of the stratum (1 when it has none); lower
//! facts count as round 0 and only need to hold (or, negated, not to hold). A fact's round is
//! the first round with a derivation of it. So the counts are a function of the rounds of the
//! stratum's facts and of the lower facts, and they change exactly as the instances' rounds
//! do: one fact whose state (its round, or its absence) changes moves each instance that uses
//! it from one round to another, or out, or in. Applied one fact at a time, these changes add
//! up (they telescope) from the old counts to those of the final state, whatever the order —
//! as for the non-recursive counts of `counting::events`.
//!
//! The order makes the final state known as it goes. Step 0 applies the changed lower facts,
//! one at a time, the lower relations moved from their old to their new rows as it goes.
//! Step k (k = 1, 2, ...) looks at the facts whose counts of round k changed, or that were
//! left waiting for round k: every count of rounds up to k is final by then (an instance of
//! round ≤ k uses facts of rounds < k, all settled by the earlier steps), so a fact whose
//! current round is k or later is of round k exactly when its count of round k is above 0.
//! Such a fact enters round k (from absent or a later round); one whose current round is k
//! and whose count of round k fell to 0 leaves (absent for now), and waits for its next round
//! with a derivation, where it is looked at again. Every state change moves instances to
//! rounds after k only, so the steps go up; they stop when no round is left to look at.
//! Leaving to absent instead of to the next round keeps the steps finite on a cycle whose
//! support went: each fact of it leaves at its round, and the derivations they gave each
//! other go with them, so none is left to re-enter by.
//!
//! Cost: the instances that use a changed lower fact, plus those that use a fact whose round
//! moved (twice: out of its old round, into its new one), each found by one seeded join, and
//! one lookup per body fact of the stratum per instance — the facts that did not change are
//! not looked at. Memory: the old counts of the facts touched, for the report.
//!
//! Storage: during the batch, the stratum's relations hold every fact that held before or
//! held at some moment (the joins find an instance over them, and its state decides whether
//! it counts); afterwards the facts that came and went are applied as events, so that the
//! strata above see them one fact at a time.

use std::collections::BTreeMap;

use hashbrown::{HashMap, HashSet};

use super::events::{first_position, Database, Pending};
use super::plans::{ReplayPlans, SeededPlan};
use super::rounds::{Replayed, RoundCounts};
use crate::exec::{Matcher, Versions};
use crate::program::{Literal, RelId, Term};
use crate::storage::RowId;
use crate::value::{Tuple, Value};

/// A fact of the stratum: its relation's slot in the stratum's relations, and its tuple.
type Fact = (usize, Tuple);

/// The state of one stratum's maintenance during a batch.
struct Maintenance<'c> {
    /// Per slot: every fact's derivation counts per round, changed as instances move.
    counts: &'c mut [HashMap<Tuple, RoundCounts>],
    /// Per slot: the current round (`None`: absent) of each fact whose counts or round
    /// changed; the others keep the first round of their counts.
    current: Vec<HashMap<Tuple, Option<u32>>>,
    /// Per slot: the counts before the batch of each fact whose counts changed.
    old: Vec<HashMap<Tuple, RoundCounts>>,
    /// The facts to look at in each round still to come, per slot.
    checks: BTreeMap<u32, Vec<HashSet<Tuple>>>,
    /// Set when a count fell below 0 (a broken invariant).
    negative: Option<String>,
}

impl Maintenance<'_> {
    /// The current round of a fact (`None`: absent).
    fn round(&self, slot: usize, tuple: &[Value]) -> Option<u32> {
        match self.current[slot].get(tuple) {
            Some(&now) => now,
            None => self.counts[slot].get(tuple).map(|rc| rc[0].0),
        }
    }

    /// Notes the fact's old counts and current round before its counts first change.
    fn remember(&mut self, slot: usize, tuple: &[Value]) {
        if self.old[slot].contains_key(tuple) {
            return;
        }
        let before = self.counts[slot].get(tuple).cloned().unwrap_or_default();
        let round = before.first().map(|&(r, _)| r);
        self.current[slot].entry(tuple.to_vec()).or_insert(round);
        self.old[slot].insert(tuple.to_vec(), before);
    }

    /// Adds `delta` (±1) derivations of round `round` to a fact, and has it looked at in
    /// that round.
    fn adjust(&mut self, slot: usize, head: &[Value], round: u32, delta: i64) {
        self.remember(slot, head);
        let counts = self.counts[slot].entry_ref(head).or_default();
        match counts.binary_search_by_key(&round, |&(r, _)| r) {
            Ok(i) => {
                let now = counts[i].1 as i64 + delta;
                if now > 0 {
                    counts[i].1 = now as u64;
                } else if now == 0 {
                    counts.remove(i);
                } else {
                    self.negative
                        .get_or_insert_with(|| format!("{head:?}'s count of round {round} < 0"));
                }
            }
            Err(i) if delta > 0 => counts.insert(i, (round, delta as u64)),
            Err(_) => {
                self.negative
                    .get_or_insert_with(|| format!("{head:?}'s count of round {round} < 0"));
            }
        }
        if counts.is_empty() {
            self.counts[slot].remove(head);
        }
        self.check_at(round, slot, head);
    }

    /// Has a fact looked at in round `round`.
    fn check_at(&mut self, round: u32, slot: usize, tuple: &[Value]) {
        let slots = self.current.len();
        let sets = self
            .checks
            .entry(round)
            .or_insert_with(|| vec![HashSet::new(); slots]);
        if !sets[slot].contains(tuple) {
            sets[slot].insert(tuple.to_vec());
        }
    }

    /// The fact's count of round `round`, and the first later round with a derivation.
    fn count_and_next(&self, slot: usize, tuple: &[Value], round: u32) -> (u64, Option<u32>) {
        let Some(counts) = self.counts[slot].get(tuple) else {
            return (0, None);
        };
        let at = counts
            .iter()
            .find(|&&(r, _)| r == round)
            .map_or(0, |&(_, c)| c);
        let next = counts.iter().map(|&(r, _)| r).find(|&r| r > round);
        (at, next)
    }
}

impl Database<'_> {
    /// Maintains recursive stratum `s` for the batch's `changed` input facts (entered: true;
    /// left: false; the lower relations already hold their new rows): `counts` (per relation
    /// of the stratum, in order) become the new counts, and the stratum's net changes are
    /// applied as events (see the module header). An error names a count that fell below 0.
    pub(crate) fn maintain_rounds(
        &mut self,
        s: usize,
        plans: &ReplayPlans,
        counts: &mut [HashMap<Tuple, RoundCounts>],
        changed: Vec<(RelId, Tuple, bool)>,
        pending: &mut Pending,
    ) -> Result<Replayed, String> {
        let program = self.program;
        let stratum = &program.strata[s];
        // A fact that entered and left within the batch did not change.
        let mut net: HashMap<(RelId, Tuple), bool> = HashMap::new();
        for (rel, t, entered) in changed {
            match net.get(&(rel, t.clone())) {
                Some(&e) if e != entered => {
                    net.remove(&(rel, t));
                }
                _ => {
                    net.insert((rel, t), entered);
                }
            }
        }
        let mut changed: Vec<(RelId, Tuple, bool)> =
            net.into_iter().map(|((r, t), e)| (r, t, e)).collect();
        changed.sort_unstable();
        let mut state = Maintenance {
            counts,
            current: vec![HashMap::new(); stratum.relations.len()],
            old: vec![HashMap::new(); stratum.relations.len()],
            checks: BTreeMap::new(),
            negative: None,
        };
        // Step 0: the lower relations back to their old rows, then each changed fact moved
        // to its new state, one at a time.
        // Under the same row ids (a tombstone revived, not a copy appended): the count
        // column of a non-recursive relation is indexed by them.
        let rows: Vec<RowId> = changed
            .iter()
            .map(|(rel, t, entered)| {
                let relation = &mut self.relations[*rel];
                let r = relation
                    .find_row(t)
                    .expect("a changed input fact is stored, live or a tombstone");
                if *entered {
                    relation.remove_id(r);
                } else {
                    relation.revive(r);
                }
                r
            })
            .collect();
        for ((rel, t, entered), r) in changed.iter().zip(rows) {
            let positive = plans.seeded.iter().filter(|(r, _)| r == rel);
            let negated = plans.negated_seeded.iter().filter(|(r, _)| r == rel);
            if *entered {
                for (_, seeded) in negated {
                    self.move_instances(s, seeded, t, None, None, -1, &mut state, pending);
                }
                self.relations[*rel].revive(r);
                for (_, seeded) in positive {
                    self.move_instances(s, seeded, t, None, None, 1, &mut state, pending);
                }
            } else {
                for (_, seeded) in positive {
                    self.move_instances(s, seeded, t, None, None, -1, &mut state, pending);
                }
                self.relations[*rel].remove_id(r);
                for (_, seeded) in negated {
                    self.move_instances(s, seeded, t, None, None, 1, &mut state, pending);
                }
            }
            pending.work.probe(1);
        }
        // Steps 1, 2, ...: the facts of each round, in increasing order of rounds.
        let mut steps = 0;
        while let Some((k, sets)) = state.checks.pop_first() {
            steps += 1;
            let mut facts: Vec<Fact> = sets
                .into_iter()
                .enumerate()
                .flat_map(|(slot, set)| set.into_iter().map(move |t| (slot, t)))
                .collect();
            facts.sort_unstable();
            for (slot, t) in facts {
                let now = state.round(slot, &t);
                if now.is_some_and(|r| r < k) {
                    continue; // settled in an earlier step
                }
                let (at, next) = state.count_and_next(slot, &t, k);
                let mut after = now;
                if at > 0 {
                    after = Some(k);
                } else if now == Some(k) {
                    after = None;
                }
                if after != now {
                    self.change_round(s, plans, slot, &t, now, after, &mut state, pending);
                }
                if after.is_none() {
                    if let Some(next) = next {
                        state.check_at(next, slot, &t);
                    }
                }
            }
        }
        if let Some(message) = state.negative {
            return Err(format!("stratum {s}: {message}"));
        }
        // What came and went, and the relations as they were before the batch, so that the
        // changes come as events.
        let mut out = Replayed {
            rounds: steps,
            ..Replayed::default()
        };
        for (slot, old) in state.old.into_iter().enumerate() {
            let rel = stratum.relations[slot];
            for (tuple, before) in old {
                let after = state.counts[slot].get(&tuple);
                debug_assert_eq!(
                    after.map(|rc| rc[0].0),
                    state.current[slot].get(&tuple).copied().flatten(),
                    "a fact's round is the first of its counts"
                );
                if after.is_some_and(|a| *a == before) {
                    continue;
                }
                out.counts_changed += 1;
                match (before.first(), after) {
                    (Some(b), Some(a)) => out.rounds_moved += u64::from(b.0 != a[0].0),
                    (Some(_), None) => out.removed.push((rel, tuple)),
                    (None, Some(_)) => {
                        self.relations[rel].remove(&tuple);
                        out.added.push((rel, tuple));
                    }
                    (None, None) => {
                        // Came and went within the batch.
                        self.relations[rel].remove(&tuple);
                    }
                }
            }
        }
        out.removed.sort();
        out.added.sort();
        for (rel, t) in &out.removed {
            self.event(pending, *rel, t, false);
        }
        for (rel, t) in &out.added {
            self.event(pending, *rel, t, true);
        }
        Ok(out)
    }

    /// Fact `tuple` of slot `slot` moves from round `from` to round `to` (`None`: absent):
    /// every instance using it moves with it.
    #[allow(clippy::too_many_arguments)]
    fn change_round(
        &mut self,
        s: usize,
        plans: &ReplayPlans,
        slot: usize,
        tuple: &[Value],
        from: Option<u32>,
        to: Option<u32>,
        state: &mut Maintenance<'_>,
        pending: &mut Pending,
    ) {
        let rel = self.program.strata[s].relations[slot];
        state.remember(slot, tuple);
        state.current[slot].insert(tuple.to_vec(), to);
        if to.is_some() {
            // Stored from the moment it holds; a fact that held before stays stored.
            self.relations[rel].insert(tuple);
        }
        for (_, seeded) in plans.same_seeded.iter().filter(|(r, _)| *r == rel) {
            self.move_instances(s, seeded, tuple, Some(from), Some(to), 0, state, pending);
        }
    }

    /// Moves the instances of `seeded` in which its seeded atom is `tuple`. With
    /// `from`/`to` (a fact of the stratum whose round changes): each instance leaves its
    /// round under `from` and enters its round under `to`. Without (a lower fact): each
    /// instance that holds over the rows as they are gets `sign` derivations at its round.
    #[allow(clippy::too_many_arguments)]
    fn move_instances(
        &self,
        s: usize,
        seeded: &SeededPlan,
        tuple: &[Value],
        from: Option<Option<u32>>,
        to: Option<Option<u32>>,
        sign: i64,
        state: &mut Maintenance<'_>,
        pending: &mut Pending,
    ) {
        let program = self.program;
        let stratum = &program.strata[s];
        let rule = &program.rules[seeded.rule];
        let seed_rel = match &rule.body[seeded.literal] {
            Literal::Positive(a) | Literal::Negative(a) => a.rel,
            Literal::Compare { .. } | Literal::Assign { .. } => {
                unreachable!("a seeded literal is an atom")
            }
        };
        let head_slot = stratum
            .relations
            .iter()
            .position(|&r| r == seeded.plan.head_rel)
            .expect("a head of the stratum");
        // The rule's atoms over the stratum's relations: (slot, atom).
        let same: Vec<(usize, &crate::program::Atom)> = rule
            .body
            .iter()
            .filter_map(|l| match l {
                Literal::Positive(a) => stratum
                    .relations
                    .iter()
                    .position(|&r| r == a.rel)
                    .map(|slot| (slot, a)),
                _ => None,
            })
            .collect();
        let versions: Vec<Versions> = self.relations.iter().map(Versions::complete).collect();
        let matcher = Matcher {
            relations: self.relations,
            versions: &versions,
            work: &pending.work,
        };
        // The instances first, then their moves: the counts change after the join.
        let mut moves: Vec<(Tuple, Option<u32>, Option<u32>)> = Vec::new();
        let mut fact: Vec<Value> = Vec::new();
        matcher.for_each_seeded(&seeded.plan, tuple, &mut |vars| {
            if !first_position(rule, seeded.literal, tuple, vars) {
                return;
            }
            // 1 + the latest round of the instance's facts of the stratum other than the
            // seeded fact (`None` when one is absent), and whether it uses the seeded fact
            // at an atom of the stratum.
            let mut others: Option<u32> = Some(0);
            let mut uses_seed = false;
            for &(slot, a) in &same {
                fact.clear();
                fact.extend(a.args.iter().map(|t| match *t {
                    Term::Var(x) => vars[x],
                    Term::Const(c) => c,
                    Term::Wildcard => unreachable!("positive wildcards are named"),
                }));
                if from.is_some() && a.rel == seed_rel && fact[..] == *tuple {
                    uses_seed = true;
                    continue;
                }
                match state.round(slot, &fact) {
                    Some(r) => others = others.map(|o| o.max(r)),
                    None => {
                        others = None;
                        break;
                    }
                }
            }
            let Some(others) = others else { return };
            // The instance's round with the seeded fact in state `seed`.
            let round_with = |seed: Option<u32>| -> Option<u32> {
                let latest = if uses_seed { others.max(seed?) } else { others };
                Some(latest + 1)
            };
            let head: Tuple = seeded.plan.head.iter().map(|o| o.get(vars)).collect();
            match (from, to) {
                (Some(from), Some(to)) => {
                    let (before, after) = (round_with(from), round_with(to));
                    if before != after {
                        moves.push((head, before, after));
                    }
                }
                _ => {
                    let round = others + 1;
                    if sign < 0 {
                        moves.push((head, Some(round), None));
                    } else {
                        moves.push((head, None, Some(round)));
                    }
                }
            }
        });
        pending.work.probe(moves.len() as u64);
        for (head, before, after) in moves {
            if let Some(r) = before {
                state.adjust(head_slot, &head, r, -1);
            }
            if let Some(r) = after {
                state.adjust(head_slot, &head, r, 1);
            }
        }
    }
}
