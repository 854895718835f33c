//! The cost model of phase 2 ([`rederive`](super::rederive)): what the phase measures of its
//! own work, kept across batches, and the choices it makes from the measurements. No choice
//! changes what is restored, only what finding it costs:
//! - [`RuleStats`]: in which order the rules of a pending fact's head are tried;
//! - [`OrderStats`] (the chassis's, shared with B/F's checks): which order of a rule's body a
//!   head-bound search follows;
//! - [`ScanStats`] (overridden by [`Round1`]): per rule, whether round 1 searches once per
//!   over-deleted fact or scans the rule's instances over the survivors once;
//! - [`LaterStats`] (overridden by [`LaterRounds`]): per later round, whether it follows the
//!   delta rules seeded with the facts restored the round before, or searches once per fact
//!   still pending.
//!
//! Costs are measured with the executor's work counters (hash probes and rows touched, not
//! time), so the choices, and every count they lead to, are deterministic; old measurements
//! fade by halving.

pub(crate) use crate::maintain::order_stats::OrderStats;
use crate::maintain::order_stats::HORIZON;
use crate::plan::RulePlan;
use crate::program::{Program, RelId};
use crate::storage::Relation;

/// How round 1 finds the proofs of a rule, chosen per batch from measured costs.
///
/// Round 1 restores the over-deleted facts that have an instance whose body holds in the
/// survivors S. Per fact (*checks*: one head-bound search each) this costs the number of
/// over-deleted facts times the cost of a check — cheap for small batches, but a failing
/// check must exhaust every candidate proof. When most of a relation is over-deleted (a
/// power-law graph loses 83% of its closure to 1,000 deletions; a dense component all of it),
/// enumerating every instance of the rule over S once (*scan*) and keeping the heads still
/// pending finds the same set for the cost of one evaluation round over S, which is then the
/// small part of the model. Both give exactly round 1's set; only their costs differ, so the
/// choice is made per rule on estimates in hash probes: checks = pending facts × mean probes
/// of a check, scan = live rows of the relations in the rule's body × measured probes per
/// such row. Probes, not rows touched: a probe is a random access, a likely cache miss,
/// while a scan reads rows in order (on R-MAT, scans and checks came out within 10% in
/// probes plus rows, and alternated, while the scans took 0.45 s and the checks 1.2 s).
/// Until measured, a check is guessed at one probe per body atom and a scan at one probe per
/// row, which favours checks: guesses that favoured scans made the first batches of the
/// quick study cost 2–3× more work than checks.
#[derive(Clone, Debug)]
pub struct ScanStats {
    /// Per rule: (probes, checks) summed over the checks made.
    checks: Vec<(u64, u64)>,
    /// Per rule: (probes, live rows of the body's relations) summed over the scans made.
    scans: Vec<(u64, u64)>,
}

/// How round 1 finds proofs (see [`ScanStats`]). Every choice restores the same facts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Round1 {
    /// Per rule, whichever of checks and scan is estimated cheaper.
    #[default]
    Cheaper,
    /// One head-bound check per over-deleted fact, for every rule.
    Checks,
    /// A scan over the survivors, for every rule with a positive body atom.
    Scans,
}

/// How rounds 2 and later find proofs (see [`LaterStats`]). Every choice restores the same
/// facts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum LaterRounds {
    /// Per round, whichever of seeded rules and checks is estimated cheaper.
    #[default]
    Cheaper,
    /// Delta rules seeded with the facts restored the round before.
    Seeded,
    /// One head-bound check per fact still pending.
    Checks,
    /// Checks whose budget runs out after the first fact, every round, so that the rest of
    /// the round is found by the seeded rules: the path a round of checks takes when it
    /// passes its budget, exercised on every round (for tests; slower than either).
    ChecksAbandoned,
}

/// How a round after the first finds its proofs, chosen per round from measured costs.
///
/// Round k+1 restores the pending facts that have an instance whose body holds in the
/// survivors plus the facts restored up to round k. Two ways find exactly that set:
/// *seeded*, the delta rules run from each fact restored in round k (an instance not
/// available before must use one), each head looked up among the pending facts; or
/// *checks*, one head-bound search per fact still pending, over the live rows (facts
/// restored in round k+1 stay dead until it ends, so the search sees the same relations).
/// Seeded costs the instances through the facts restored last round, most of whose heads
/// were never over-deleted; checks cost a search per pending fact, and such a fact failed
/// its searches of every round before. Round 1 usually restores most of the over-deleted
/// facts (on R-MAT, 87% for reachability towards a root), so round 2 seeds thousands of
/// instances to find the few hundred facts left, which a check each finds directly. The
/// estimates are in probes: seeded = facts restored last round × measured probes per such
/// fact of its relation; checks = pending facts × measured probes of a failing check of
/// each rule with their head (an over-estimate, since these checks may now succeed and
/// stop early). Until measured, a seeded fact is guessed at one probe per plan seeded by
/// it and a check at one probe per body atom.
#[derive(Clone, Debug)]
pub struct LaterStats {
    /// Per relation: (probes, facts) summed over the facts that seeded a later round.
    seeded: Vec<(u64, u64)>,
    /// Per rule: (probes, checks) summed over the head-bound checks that failed.
    failed: Vec<(u64, u64)>,
}

impl LaterStats {
    /// No measurements yet, for `relations` relations and `rules` rules.
    pub(crate) fn new(relations: usize, rules: usize) -> Self {
        LaterStats {
            seeded: vec![(0, 0); relations],
            failed: vec![(0, 0); rules],
        }
    }

    /// Estimated probes of a round seeded with one restored fact of `rel`, whose relation
    /// seeds `plans` plans.
    pub(super) fn seeded_cost(&self, rel: RelId, plans: usize) -> f64 {
        match self.seeded[rel] {
            (_, 0) => plans as f64,
            (p, n) => p as f64 / n as f64,
        }
    }

    /// Estimated probes of checking one pending fact by rule `rule`, of `atoms` body atoms.
    pub(super) fn check_cost(&self, rule: usize, atoms: usize) -> f64 {
        match self.failed[rule] {
            (_, 0) => atoms as f64,
            (p, n) => p as f64 / n as f64,
        }
    }

    pub(super) fn record_seeded(&mut self, rel: RelId, probes: u64) {
        halve_into(&mut self.seeded[rel], probes);
    }

    pub(super) fn record_failed(&mut self, rule: usize, probes: u64) {
        halve_into(&mut self.failed[rule], probes);
    }
}

/// Adds one measurement of `probes` to a (sum, count) pair, halving both once the count
/// reaches [`HORIZON`] so that old costs fade.
fn halve_into(slot: &mut (u64, u64), probes: u64) {
    slot.0 += probes;
    slot.1 += 1;
    if slot.1 >= HORIZON {
        slot.0 /= 2;
        slot.1 /= 2;
    }
}

impl ScanStats {
    /// No measurements yet, for `rules` rules.
    pub(crate) fn new(rules: usize) -> Self {
        ScanStats {
            checks: vec![(0, 0); rules],
            scans: vec![(0, 0); rules],
        }
    }

    /// Estimated probes of checking `n` facts by rule `rule`, whose body has `atoms` atoms.
    pub(super) fn checks_cost(&self, rule: usize, n: usize, atoms: usize) -> f64 {
        let per_check = match self.checks[rule] {
            (_, 0) => atoms as f64,
            (p, k) => p as f64 / k as f64,
        };
        n as f64 * per_check
    }

    /// Estimated probes of a scan by rule `rule` over relations of `rows` live rows.
    pub(super) fn scan_cost(&self, rule: usize, rows: usize) -> f64 {
        let per_row = match self.scans[rule] {
            (_, 0) => 1.0,
            (p, r) => p as f64 / r as f64,
        };
        rows as f64 * per_row
    }

    pub(super) fn record_check(&mut self, rule: usize, probes: u64) {
        halve_into(&mut self.checks[rule], probes);
    }

    pub(super) fn record_scan(&mut self, rule: usize, probes: u64, rows: u64) {
        let slot = &mut self.scans[rule];
        slot.0 += probes;
        slot.1 += rows.max(1);
        if slot.1 >= 1 << 40 {
            slot.0 /= 2;
            slot.1 /= 2;
        }
    }
}

/// In which order a fact's rules are tried, learned from the checks: per rule, the work of
/// its checks and the proofs they found.
///
/// A pending fact is restored by the first of its rules that proves it, and all of them are
/// tried only when it is not restored, so which rule goes first decides only what the
/// checks cost, never what is restored. Program order put the base rule first — `reach(x)
/// :- root(x)`, `path(x, y) :- edge(x, y)` — whose check fails for nearly every fact: on a
/// mid-sized R-MAT TC single-edge deletion those checks were 14% of phase 2's instructions
/// (callgrind), spent before the recursive rule found the proof. Each round tries the rules
/// of a head in ascending order of measured work per proof (with one of each added, so that
/// rules not measured keep program order); old measurements fade by halving.
#[derive(Clone, Debug)]
pub struct RuleStats {
    /// Per rule: (work, proofs, checks).
    per_rule: Vec<(u64, u64, u64)>,
}

impl RuleStats {
    /// No measurements yet, for `rules` rules.
    pub(crate) fn new(rules: usize) -> Self {
        RuleStats {
            per_rule: vec![(0, 0, 0); rules],
        }
    }

    pub(super) fn record(&mut self, rule: usize, work: u64, proved: bool) {
        let slot = &mut self.per_rule[rule];
        slot.0 += work;
        slot.1 += u64::from(proved);
        slot.2 += 1;
        if slot.2 >= HORIZON {
            *slot = (slot.0 / 2, slot.1 / 2, slot.2 / 2);
        }
    }

    /// `rules_by_head` with each head's rules in the order to try them.
    #[cfg(test)]
    pub(super) fn ordered(&self, rules_by_head: &[Vec<usize>]) -> Vec<Vec<usize>> {
        let mut out = Vec::new();
        self.ordered_into(rules_by_head, &mut out);
        out
    }

    /// [`RuleStats::ordered`] written into `out`, whose vectors are reused: a batch that
    /// rederives a few facts allocated one per relation here, each a cold line.
    pub(super) fn ordered_into(&self, rules_by_head: &[Vec<usize>], out: &mut Vec<Vec<usize>>) {
        out.resize_with(rules_by_head.len(), Vec::new);
        for (rules, into) in rules_by_head.iter().zip(out.iter_mut()) {
            into.clone_from(rules);
            // (w_a + 1) / (p_a + 1) < (w_b + 1) / (p_b + 1), without division; a stable
            // sort keeps program order among equals.
            into.sort_by(|&a, &b| {
                let (wa, pa, _) = self.per_rule[a];
                let (wb, pb, _) = self.per_rule[b];
                (u128::from(wa + 1) * u128::from(pb + 1))
                    .cmp(&(u128::from(wb + 1) * u128::from(pa + 1)))
            });
        }
    }
}

/// What phase 2 has measured of its own costs, kept across batches, and how it may choose.
#[derive(Clone, Debug)]
pub(crate) struct RederiveCosts {
    /// The order in which each head's rules are tried.
    pub(crate) rules: RuleStats,
    /// The order each rule's head-bound searches follow.
    pub(crate) orders: OrderStats,
    /// Round 1: checks or a scan, per rule.
    pub(crate) scans: ScanStats,
    /// Round 1 by the estimates, or forced one way.
    pub(crate) round1: Round1,
    /// Later rounds: seeded rules or checks, per round.
    pub(crate) later: LaterStats,
    /// Later rounds by the estimates, or forced one way.
    pub(crate) later_rounds: LaterRounds,
    /// Room for the order of each head's rules in a round ([`RuleStats::ordered_into`]),
    /// kept from batch to batch.
    pub(crate) tried: Vec<Vec<usize>>,
}

impl RederiveCosts {
    /// Nothing measured yet, for `program`, whose rules have the head-bound plans
    /// `head_bound`; every choice by the estimates.
    pub(crate) fn new(program: &Program, head_bound: &[Vec<RulePlan>]) -> Self {
        RederiveCosts {
            rules: RuleStats::new(program.rules.len()),
            orders: OrderStats::new(head_bound),
            scans: ScanStats::new(program.rules.len()),
            round1: Round1::default(),
            later: LaterStats::new(program.relations.len(), program.rules.len()),
            later_rounds: LaterRounds::default(),
            tried: Vec::new(),
        }
    }
}

/// Live rows of the relations a plan's atoms read (each atom counted): the size a scan of its
/// instances is estimated by.
pub(super) fn body_rows(plan: &RulePlan, relations: &[Relation]) -> usize {
    plan.steps
        .iter()
        .map(|s| match s {
            crate::plan::Step::Atom(a) => relations[a.rel].len(),
            _ => 0,
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Rules not measured keep program order; a rule whose checks cost work without proofs
    /// goes behind one that proves for less work per proof; the order follows a change.
    #[test]
    fn rules_are_tried_by_work_per_proof() {
        let mut stats = RuleStats::new(4);
        let heads = vec![vec![0, 1], vec![2, 3]];
        assert_eq!(
            stats.ordered(&heads),
            heads,
            "program order before any check"
        );
        for _ in 0..100 {
            stats.record(0, 1, false); // the base rule: one probe, never a proof
            stats.record(1, 5, true); // the recursive rule: five a proof
        }
        assert_eq!(stats.ordered(&heads), vec![vec![1, 0], vec![2, 3]]);
        // The base rule starts proving cheaply and the other stops: back in front, once
        // the old measurements have faded.
        for _ in 0..3 * HORIZON {
            stats.record(0, 1, true);
            stats.record(1, 50, false);
        }
        assert_eq!(stats.ordered(&heads)[0], vec![0, 1]);
        assert!(stats.per_rule.iter().all(|&(_, _, n)| n < HORIZON));
    }
}
