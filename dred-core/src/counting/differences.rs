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
//! strata above see them one fact at a time. The counts are a column by row id
//! (`rounds::RoundColumn`), so a fact keeps one row while it has counts: a head not stored
//! is stored as a tombstone (a row the joins do not see) when its first count comes, and is
//! revived under that id when it comes to hold, never appended again.

use std::collections::BTreeMap;

use hashbrown::{HashMap, HashSet};

use super::events::{first_position, stored_row, Database, Pending};
use super::plans::{ReplayPlans, SeededPlan};
use super::rounds::{Replayed, RoundColumn, RoundCounts};
use crate::exec::{Matcher, Versions};
use crate::program::{Literal, RelId, Term};
use crate::storage::RowId;
use crate::value::{Tuple, Value};

/// A fact of the stratum: its relation's slot in the stratum's relations, and its row (a
/// fact of the stratum keeps one row, live or a tombstone, for as long as it has counts).
type Fact = (usize, RowId);

/// The state of one stratum's maintenance during a batch.
struct Maintenance<'c> {
    /// Per slot: every fact's derivation counts per round, changed as instances move.
    counts: &'c mut [RoundColumn],
    /// Per slot: the current round (`None`: absent) of each fact whose counts or round
    /// changed; the others keep the first round of their counts.
    current: Vec<HashMap<RowId, Option<u32>>>,
    /// Per slot: the counts before the batch of each fact whose counts changed.
    old: Vec<HashMap<RowId, RoundCounts>>,
    /// Per slot: a bit per row, set for the rows in `old` (and so in `current`): most
    /// lookups are of facts the batch has not touched, answered without hashing.
    remembered: Vec<Vec<u64>>,
    /// The facts to look at in each round still to come, per slot.
    checks: BTreeMap<u32, Vec<HashSet<RowId>>>,
    /// Set when a count fell below 0 (a broken invariant).
    negative: Option<String>,
}

impl Maintenance<'_> {
    /// The current round of a fact (`None`: absent).
    #[inline]
    fn round(&self, slot: usize, r: RowId) -> Option<u32> {
        if self.is_remembered(slot, r) {
            self.current[slot][&r]
        } else {
            self.counts[slot].round(r)
        }
    }

    /// True when row `r` of slot `slot` is in `old`.
    #[inline]
    fn is_remembered(&self, slot: usize, r: RowId) -> bool {
        let (w, b) = (r as usize / 64, r % 64);
        self.remembered[slot]
            .get(w)
            .is_some_and(|&bits| bits & (1 << b) != 0)
    }

    /// Notes the fact's old counts and current round before its counts first change.
    fn remember(&mut self, slot: usize, r: RowId) {
        if self.is_remembered(slot, r) {
            return;
        }
        let (w, b) = (r as usize / 64, r % 64);
        let bits = &mut self.remembered[slot];
        if bits.len() <= w {
            bits.resize(w + 1, 0);
        }
        bits[w] |= 1 << b;
        let before = self.counts[slot].get(r);
        let round = before.first().map(|&(k, _)| k);
        self.current[slot].insert(r, round);
        self.old[slot].insert(r, before);
    }

    /// Adds `delta` (±1) derivations of round `round` to fact `head` (at row `r`), and has
    /// it looked at in that round.
    fn adjust(&mut self, slot: usize, r: RowId, head: &[Value], round: u32, delta: i64) {
        self.remember(slot, r);
        if self.counts[slot].add(r, round, delta).is_err() {
            self.negative
                .get_or_insert_with(|| format!("{head:?}'s count of round {round} < 0"));
        }
        self.check_at(round, slot, r);
    }

    /// Has a fact looked at in round `round`.
    fn check_at(&mut self, round: u32, slot: usize, r: RowId) {
        let slots = self.current.len();
        self.checks
            .entry(round)
            .or_insert_with(|| vec![HashSet::new(); slots])[slot]
            .insert(r);
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
        counts: &mut [RoundColumn],
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
            remembered: vec![Vec::new(); stratum.relations.len()],
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
                .flat_map(|(slot, set)| set.into_iter().map(move |r| (slot, r)))
                .collect();
            facts.sort_unstable();
            for (slot, r) in facts {
                let now = state.round(slot, r);
                if now.is_some_and(|n| n < k) {
                    continue; // settled in an earlier step
                }
                let (at, next) = state.counts[slot].count_and_next(r, k);
                let mut after = now;
                if at > 0 {
                    after = Some(k);
                } else if now == Some(k) {
                    after = None;
                }
                if after != now {
                    self.change_round(s, plans, slot, r, now, after, &mut state, pending);
                }
                if after.is_none() {
                    if let Some(next) = next {
                        state.check_at(next, slot, r);
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
        let mut removed: Vec<(RelId, RowId)> = Vec::new();
        let mut added: Vec<(RelId, RowId)> = Vec::new();
        for (slot, old) in state.old.into_iter().enumerate() {
            let rel = stratum.relations[slot];
            for (r, before) in old {
                let column = &state.counts[slot];
                debug_assert_eq!(
                    column.round(r),
                    state.current[slot].get(&r).copied().flatten(),
                    "a fact's round is the first of its counts"
                );
                if column.equals(r, &before) {
                    continue;
                }
                out.counts_changed += 1;
                let relation = &mut self.relations[rel];
                match (before.first(), column.round(r)) {
                    (Some(b), Some(a)) => out.rounds_moved += u64::from(b.0 != a),
                    (Some(_), None) => removed.push((rel, r)),
                    (None, Some(_)) => {
                        relation.remove_id(r);
                        added.push((rel, r));
                    }
                    (None, None) => {
                        // Came and went within the batch, or never came.
                        if relation.is_live(r) {
                            relation.remove_id(r);
                        }
                    }
                }
            }
        }
        // In the order of the rows: fixed by the batch, not by hashing.
        removed.sort_unstable();
        added.sort_unstable();
        for (rel, r) in removed {
            self.event_at(pending, rel, r, false);
        }
        for (rel, r) in added {
            self.event_at(pending, rel, r, true);
        }
        Ok(out)
    }

    /// Fact `r` of slot `slot` moves from round `from` to round `to` (`None`: absent):
    /// every instance using it moves with it.
    #[allow(clippy::too_many_arguments)]
    fn change_round(
        &mut self,
        s: usize,
        plans: &ReplayPlans,
        slot: usize,
        r: RowId,
        from: Option<u32>,
        to: Option<u32>,
        state: &mut Maintenance<'_>,
        pending: &mut Pending,
    ) {
        let rel = self.program.strata[s].relations[slot];
        state.remember(slot, r);
        state.current[slot].insert(r, to);
        let relation = &mut self.relations[rel];
        if to.is_some() && !relation.is_live(r) {
            // Stored from the moment it holds; a fact that held before stays stored.
            relation.revive(r);
        }
        let tuple = relation.row(r).to_vec();
        for (_, seeded) in plans.same_seeded.iter().filter(|(x, _)| *x == rel) {
            self.move_instances(s, seeded, &tuple, Some(from), Some(to), 0, state, pending);
        }
    }

    /// Moves the instances of `seeded` in which its seeded atom is `tuple`. With
    /// `from`/`to` (a fact of the stratum whose round changes): each instance leaves its
    /// round under `from` and enters its round under `to`. Without (a lower fact): each
    /// instance that holds over the rows as they are gets `sign` derivations at its round.
    #[allow(clippy::too_many_arguments)]
    fn move_instances(
        &mut self,
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
        let head_rel = seeded.plan.head_rel;
        let head_slot = stratum
            .relations
            .iter()
            .position(|&r| r == head_rel)
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
        let relations: &[crate::storage::Relation] = self.relations;
        let matcher = Matcher {
            relations,
            versions: &versions,
            work: &pending.work,
        };
        // The instances first, then their moves: the counts change after the join.
        let mut moves: Vec<(Tuple, Option<u32>, Option<u32>)> = Vec::new();
        let mut fact: Vec<Value> = Vec::new();
        let st: &Maintenance<'_> = state;
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
                let round = relations[a.rel]
                    .find_row(&fact)
                    .and_then(|r| st.round(slot, r));
                match round {
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
            // A head not stored yet becomes a tombstone: a row for its counts, which the
            // joins do not see until it holds.
            let r = stored_row(&mut self.relations[head_rel], &head);
            if let Some(k) = before {
                state.adjust(head_slot, r, &head, k, -1);
            }
            if let Some(k) = after {
                state.adjust(head_slot, r, &head, k, 1);
            }
        }
    }
}
