//! Phase 2 of `dred`: rederive from the survivors.
//!
//! Input: the relations with D removed (tombstoned), so the live rows are the survivors S,
//! and the over-deleted IDB D ∩ J. Output: the facts of D ∩ J restored, in rounds. Round 1
//! restores every over-deleted fact that has an instance (of a rule, or as a program fact)
//! whose body holds in S — found per rule either by one search with the head bound per
//! over-deleted fact, or by one scan of the rule's instances over S, whichever is estimated
//! cheaper ([`ScanStats`]); round k+1 restores those that have an instance
//! with a body in S plus the facts restored up to round k — found either by delta rules
//! seeded with the facts restored in round k (such an instance must use one) or by one
//! head-bound search per fact still pending, whichever is estimated cheaper
//! ([`LaterStats`]). Facts restored in
//! a round become visible at the next (Jacobi rounds), and a fact still in D is never
//! evidence. The phase stops after a round that restores nothing (that empty round is
//! reported) or once every over-deleted fact is back — the rounds of the reference engine.
//! Postcondition: the live rows are exactly the facts of the new least model that were in
//! the old one (the new model is contained in the old one after deletions only).

use std::collections::HashSet;

use super::{bind_head, HeadProbes, Plans, RowRef, SpareRows};
use crate::engine::Work;
use crate::exec::{Matcher, Versions, WorkCounter};
use crate::plan::RulePlan;
use crate::program::{Program, RelId};
use crate::storage::{Relation, RowId, RowMarks};
use crate::value::{Tuple, Value};

/// How a head-bound check is ordered, learned from the work counters: per rule, the work
/// (probes plus rows touched) and the number of checks made with each order of its plan.
///
/// No fixed order suits every graph. For `path(x, z) :- path(x, y), edge(y, z)` with x and z
/// bound, walking the successors of x costs 3–4× less than walking the parents of z on GO MF
/// and WordNet, and 7× more on a power-law graph whose edges lead to hubs (deterministic
/// counts over the same 20 single-edge deletions). Nor does the size of the first index group
/// predict it: a check stops at its first proof (measured: choosing by group size was slower).
/// So each order is tried on the first checks, then the cheapest on average is used, and the
/// others are tried again now and then so that a change in the data can change the choice;
/// old measurements fade by halving.
///
/// Trying again is paid from a budget: the checks made with the cheapest order earn
/// 1/`EXPLORE_SHARE` of their work, and another order is tried once the budget covers its
/// mean cost (a try that costs more than that leaves a debt). So trying the others costs at
/// most about 1/32 of the work, however much worse they are. A fixed rate of one check in 64
/// did not bound it: on R-MAT, where the other order costs 10× more on a proof found and 80×
/// on a failing check, those tries were 11% of rederivation's probes and 21% of its rows
/// touched, and a single one could cost more than the rest of a small batch.
#[derive(Clone, Debug)]
pub struct OrderStats {
    /// Per rule, per order: (work, checks).
    per_rule: Vec<Vec<(u64, u64)>>,
    /// Per rule: work earned for trying orders other than the cheapest, minus work spent so.
    budget: Vec<i64>,
    /// Per rule: what the measurements say, worked out when they change rather than at each
    /// choice (a choice is made once or twice per check: 3.5% of a mid-sized R-MAT TC
    /// batch's instructions went to working it out each time).
    standing: Vec<Standing>,
}

/// Where the measurements of a rule's orders stand.
#[derive(Clone, Copy, Debug)]
enum Standing {
    /// One order only.
    Only,
    /// This order has been tried fewer than [`EXPLORE`] times.
    Untried(usize),
    /// The order of lowest mean work, and the other order tried least.
    Ranked { best: usize, other: usize },
}

/// Checks with each order before the averages are trusted.
const EXPLORE: u64 = 16;
/// Sums are halved when an order's checks reach this, so old costs fade.
const HORIZON: u64 = 4096;
/// Trying the other orders may cost 1/`EXPLORE_SHARE` of the work of the cheapest.
const EXPLORE_SHARE: i64 = 32;

impl OrderStats {
    /// No measurements yet, for these plans.
    pub(crate) fn new(head_bound: &[Vec<RulePlan>]) -> Self {
        let orders: Vec<usize> = head_bound.iter().map(Vec::len).collect();
        Self::for_orders(&orders)
    }

    /// No measurements yet, for rules with these numbers of orders.
    fn for_orders(orders: &[usize]) -> Self {
        let mut stats = OrderStats {
            per_rule: orders.iter().map(|&n| vec![(0, 0); n]).collect(),
            budget: vec![0; orders.len()],
            standing: vec![Standing::Only; orders.len()],
        };
        for rule in 0..orders.len() {
            stats.rank(rule);
        }
        stats
    }

    /// Works out [`OrderStats::standing`] of rule `rule` from its measurements.
    fn rank(&mut self, rule: usize) {
        let stats = &self.per_rule[rule];
        self.standing[rule] = if stats.len() <= 1 {
            Standing::Only
        } else {
            match self.cheapest(rule) {
                Err(untried) => Standing::Untried(untried),
                Ok(best) => Standing::Ranked {
                    best,
                    other: (0..stats.len())
                        .filter(|&o| o != best)
                        .min_by_key(|&o| stats[o].1)
                        .expect("two orders or more"),
                },
            }
        };
    }

    /// The order of lowest mean work for rule `rule`, once every order has been tried
    /// [`EXPLORE`] times; before, the first order not tried that often.
    fn cheapest(&self, rule: usize) -> Result<usize, usize> {
        let stats = &self.per_rule[rule];
        if let Some(i) = stats.iter().position(|&(_, n)| n < EXPLORE) {
            return Err(i);
        }
        // Lowest mean work; w1/n1 < w2/n2 compared without division.
        Ok((0..stats.len())
            .min_by(|&a, &b| {
                let (wa, na) = stats[a];
                let (wb, nb) = stats[b];
                (u128::from(wa) * u128::from(nb)).cmp(&(u128::from(wb) * u128::from(na)))
            })
            .expect("at least one order"))
    }

    /// The order to use for the next check by rule `rule`.
    #[inline]
    fn choose(&self, rule: usize) -> usize {
        match self.standing[rule] {
            Standing::Only => 0,
            Standing::Untried(untried) => untried,
            Standing::Ranked { best, other } => {
                // The other order tried least, once the budget covers its mean work.
                let (w, n) = self.per_rule[rule][other];
                if self.budget[rule] >= ((w / n) as i64).saturating_mul(EXPLORE_SHARE) {
                    other
                } else {
                    best
                }
            }
        }
    }

    /// Records the work of one check by rule `rule` with order `order`.
    fn record(&mut self, rule: usize, order: usize, work: u64) {
        if let Standing::Ranked { best, .. } = self.standing[rule] {
            let budget = &mut self.budget[rule];
            *budget = if order == best {
                budget.saturating_add(work as i64)
            } else {
                budget.saturating_sub((work as i64).saturating_mul(EXPLORE_SHARE))
            };
        }
        let slot = &mut self.per_rule[rule][order];
        slot.0 += work;
        slot.1 += 1;
        if slot.1 >= HORIZON {
            slot.0 /= 2;
            slot.1 /= 2;
        }
        self.rank(rule);
    }
}

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
    fn seeded_cost(&self, rel: RelId, plans: usize) -> f64 {
        match self.seeded[rel] {
            (_, 0) => plans as f64,
            (p, n) => p as f64 / n as f64,
        }
    }

    /// Estimated probes of checking one pending fact by rule `rule`, of `atoms` body atoms.
    fn check_cost(&self, rule: usize, atoms: usize) -> f64 {
        match self.failed[rule] {
            (_, 0) => atoms as f64,
            (p, n) => p as f64 / n as f64,
        }
    }

    fn record_seeded(&mut self, rel: RelId, probes: u64) {
        halve_into(&mut self.seeded[rel], probes);
    }

    fn record_failed(&mut self, rule: usize, probes: u64) {
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
    fn checks_cost(&self, rule: usize, n: usize, atoms: usize) -> f64 {
        let per_check = match self.checks[rule] {
            (_, 0) => atoms as f64,
            (p, k) => p as f64 / k as f64,
        };
        n as f64 * per_check
    }

    /// Estimated probes of a scan by rule `rule` over relations of `rows` live rows.
    fn scan_cost(&self, rule: usize, rows: usize) -> f64 {
        let per_row = match self.scans[rule] {
            (_, 0) => 1.0,
            (p, r) => p as f64 / r as f64,
        };
        rows as f64 * per_row
    }

    fn record_check(&mut self, rule: usize, probes: u64) {
        halve_into(&mut self.checks[rule], probes);
    }

    fn record_scan(&mut self, rule: usize, probes: u64, rows: u64) {
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

    fn record(&mut self, rule: usize, work: u64, proved: bool) {
        let slot = &mut self.per_rule[rule];
        slot.0 += work;
        slot.1 += u64::from(proved);
        slot.2 += 1;
        if slot.2 >= HORIZON {
            *slot = (slot.0 / 2, slot.1 / 2, slot.2 / 2);
        }
    }

    /// `rules_by_head` with each head's rules in the order to try them.
    fn ordered(&self, rules_by_head: &[Vec<usize>]) -> Vec<Vec<usize>> {
        rules_by_head
            .iter()
            .map(|rules| {
                let mut rules = rules.clone();
                // (w_a + 1) / (p_a + 1) < (w_b + 1) / (p_b + 1), without division; a stable
                // sort keeps program order among equals.
                rules.sort_by(|&a, &b| {
                    let (wa, pa, _) = self.per_rule[a];
                    let (wb, pb, _) = self.per_rule[b];
                    (u128::from(wa + 1) * u128::from(pb + 1))
                        .cmp(&(u128::from(wb + 1) * u128::from(pa + 1)))
                });
                rules
            })
            .collect()
    }
}

/// What phase 2 has measured of its own costs, kept across batches, and how it may choose.
#[derive(Clone, Debug)]
pub(crate) struct RederiveCosts {
    pub(crate) rules: RuleStats,
    pub(crate) orders: OrderStats,
    pub(crate) scans: ScanStats,
    pub(crate) round1: Round1,
    pub(crate) later: LaterStats,
    pub(crate) later_rounds: LaterRounds,
}

/// Live rows of the relations a plan's atoms read (each atom counted): the size a scan of its
/// instances is estimated by.
fn body_rows(plan: &RulePlan, relations: &[Relation]) -> usize {
    plan.steps
        .iter()
        .map(|s| match s {
            crate::plan::Step::Atom(a) => relations[a.rel].len(),
            _ => 0,
        })
        .sum()
}

/// How many over-deleted facts ahead round 1's searches prefetch.
const CHECKS_AHEAD: usize = 8;

/// Looks up the heads held: one still pending is restored, once — it leaves `pending` at
/// once, but stays dead (invisible) until its round ends.
fn restore(
    heads: &mut HeadProbes,
    relations: &[Relation],
    pending: &mut RowMarks,
    restored: &mut Vec<RowRef>,
) {
    heads.drain(relations, |rel, h| {
        if let Some(h) = h {
            if pending.remove(rel, h) {
                restored.push((rel, h));
            }
        }
    });
}

/// The over-deleted facts still pending after round 1, found by value: rounds 2 and later
/// look up the head of every instance through a fact restored the round before, and most of
/// those heads are facts never over-deleted. Looked up in their relations, each would be a
/// cache miss in a table of the whole relation; here it is a probe in a table of the pending
/// facts only, far smaller, which stays in the cache.
struct Waiting {
    /// Per relation: the pending rows, hashed by their values with the relation's hasher.
    per_relation: Vec<hashbrown::HashTable<RowId>>,
}

impl Waiting {
    /// The rows of `overdeleted` still in `pending`.
    fn new(relations: &[Relation], pending: &RowMarks, overdeleted: &[RowRef]) -> Self {
        // Sized once: grown by rehashing, the tables were 1% of a mid-sized batch's
        // instructions on R-MAT TC.
        let mut sizes = vec![0usize; relations.len()];
        let still = || {
            overdeleted
                .iter()
                .filter(|&&(rel, r)| pending.contains(rel, r))
        };
        for &(rel, _) in still() {
            sizes[rel] += 1;
        }
        let mut per_relation: Vec<hashbrown::HashTable<RowId>> = sizes
            .iter()
            .map(|&n| hashbrown::HashTable::with_capacity(n))
            .collect();
        for &(rel, r) in still() {
            let relation = &relations[rel];
            per_relation[rel].insert_unique(relation.hash_row(relation.row(r)), r, |&x| {
                relation.hash_row(relation.row(x))
            });
        }
        Waiting { per_relation }
    }

    /// The pending row of relation `rel` with these values, if any; it stops being pending.
    fn take(&mut self, relations: &[Relation], rel: RelId, head: &[Value]) -> Option<RowId> {
        let table = &mut self.per_relation[rel];
        if table.is_empty() {
            return None;
        }
        let relation = &relations[rel];
        table
            .find_entry(relation.hash_row(head), |&r| relation.row(r) == head)
            .ok()
            .map(|entry| entry.remove().0)
    }
}

/// The result of phase 2.
#[derive(Clone, Debug, Default)]
pub struct Rederived {
    /// Facts restored in all rounds.
    pub rederived: usize,
    /// The facts restored in each round.
    pub rounds: Vec<Vec<RowRef>>,
    /// Work of the phase (joins, one probe per program-fact test and per instance's head in
    /// later rounds, one row touched per revival).
    pub work: Work,
    /// Vectors kept for the next batch's rounds.
    spare: SpareRows,
}

/// Runs phase 2, reviving restored facts in `relations`. `pending` is scratch kept across
/// batches (reset here), marking the over-deleted facts not restored yet. The result is
/// written into `out` (an earlier batch's, emptied first: its memory is reused).
#[allow(clippy::too_many_arguments)]
pub(crate) fn rederive(
    program: &Program,
    relations: &mut [Relation],
    plans: &Plans,
    costs: &mut RederiveCosts,
    program_facts: &HashSet<(RelId, Tuple)>,
    overdeleted_idb: &[RowRef],
    pending: &mut RowMarks,
    mut out: Rederived,
) -> Rederived {
    out.rederived = 0;
    out.spare.keep_all(&mut out.rounds);
    out.work = Work::default();
    // Nothing over-deleted: no round (as the reference), and no per-batch scratch.
    if overdeleted_idb.is_empty() {
        return out;
    }
    let mut rules_by_head: Vec<Vec<usize>> = vec![Vec::new(); program.relations.len()];
    for (i, rule) in program.rules.iter().enumerate() {
        rules_by_head[rule.head.rel].push(i);
    }
    // Over-deleted facts not restored yet (their rows are tombstones, still found by value).
    pending.reset(relations);
    for &(rel, r) in overdeleted_idb {
        pending.insert(rel, r);
    }

    let RederiveCosts {
        rules: rule_stats,
        orders: order_stats,
        scans: scan_stats,
        round1,
        later,
        later_rounds,
    } = costs;
    let work = WorkCounter::default();
    let mut heads = HeadProbes::default();
    // Round 1: per rule, a scan of its instances over S or one bounded search per
    // over-deleted fact, whichever is estimated cheaper. A fact found leaves `pending` at
    // once (so it is restored once) but stays dead until the round ends.
    let mut restored = out.spare.take();
    {
        let versions: Vec<Versions> = relations.iter().map(Versions::complete).collect();
        let matcher = Matcher {
            relations,
            versions: &versions,
            work: &work,
        };
        let mut pending_of = vec![0usize; relations.len()];
        for &(rel, _) in overdeleted_idb {
            pending_of[rel] += 1;
        }
        let scanned: Vec<bool> = program
            .rules
            .iter()
            .enumerate()
            .map(|(ri, rule)| {
                let (Some(plan), n) = (&plans.survivors[ri], pending_of[rule.head.rel]) else {
                    return false;
                };
                let rows = body_rows(plan, relations);
                let checks = scan_stats.checks_cost(ri, n, rule.positive_atoms().count());
                n > 0
                    && match *round1 {
                        Round1::Cheaper => scan_stats.scan_cost(ri, rows) < checks,
                        Round1::Checks => false,
                        Round1::Scans => true,
                    }
            })
            .collect();
        for (ri, plan) in plans.survivors.iter().enumerate() {
            let Some(plan) = plan.as_ref().filter(|_| scanned[ri]) else {
                continue;
            };
            let before = work.total();
            // head :- body, every atom over the survivors; heads still pending are restored.
            matcher.for_each(plan, &mut |vars| {
                work.probe(1);
                heads.push_instance(relations, plan, vars);
                if heads.is_full() {
                    restore(&mut heads, relations, pending, &mut restored);
                }
            });
            restore(&mut heads, relations, pending, &mut restored);
            let after = work.total();
            let rows = body_rows(plan, relations);
            scan_stats.record_scan(ri, after.probes - before.probes, rows as u64);
        }
        let tried = rule_stats.ordered(&rules_by_head);
        let search = Search {
            program,
            plans,
            rules_by_head: &tried,
            skip: &scanned,
        };
        search.check(
            &matcher,
            rule_stats,
            order_stats,
            Some(scan_stats),
            later,
            Some(program_facts),
            overdeleted_idb,
            pending,
            &mut restored,
        );
    }

    // The facts still pending after round 1, by value, made when a round is first seeded.
    let mut waiting: Option<Waiting> = None;
    let mut pending_of = vec![0usize; relations.len()];
    for &(rel, _) in overdeleted_idb {
        pending_of[rel] += 1;
    }
    // The facts a round of checks searches: those of `overdeleted_idb` still pending,
    // narrowed before each such round.
    let mut still_pending: Vec<RowRef> = Vec::new();
    let mut narrowed = false;
    let no_skip = vec![false; program.rules.len()];
    loop {
        // Every restored fact left `pending` when it was found; it becomes visible now.
        for &(rel, r) in &restored {
            relations[rel].revive(r);
            pending_of[rel] -= 1;
        }
        work.touch(restored.len() as u64);
        out.rederived += restored.len();
        // As the reference: stop after a round that restores nothing, or once every
        // over-deleted fact is back (no further, empty round then).
        let done = restored.is_empty() || pending.is_empty();
        let next = out.spare.take();
        out.rounds.push(std::mem::replace(&mut restored, next));
        if done {
            break;
        }
        let versions: Vec<Versions> = relations.iter().map(Versions::complete).collect();
        let matcher = Matcher {
            relations,
            versions: &versions,
            work: &work,
        };
        let last = out.rounds.last().expect("a round was just pushed");
        let seeded = match *later_rounds {
            LaterRounds::Seeded => true,
            LaterRounds::Checks => false,
            LaterRounds::Cheaper => {
                let seeded: f64 = last
                    .iter()
                    .map(|&(rel, _)| later.seeded_cost(rel, plans.seeded[rel].len()))
                    .sum();
                let checks: f64 = pending_of
                    .iter()
                    .enumerate()
                    .filter(|&(_, &n)| n > 0)
                    .map(|(rel, &n)| {
                        n as f64
                            * rules_by_head[rel]
                                .iter()
                                .map(|&ri| {
                                    later.check_cost(ri, program.rules[ri].positive_atoms().count())
                                })
                                .sum::<f64>()
                    })
                    .sum();
                seeded <= checks
            }
        };
        if seeded {
            let waiting =
                waiting.get_or_insert_with(|| Waiting::new(relations, pending, overdeleted_idb));
            let mut head: Vec<Value> = Vec::new();
            for &(rel, r) in last {
                let before = work.total().probes;
                let row = relations[rel].row(r);
                for plan in &plans.seeded[rel] {
                    // head :- ..., body_i = a fact restored last round, ... (the rest live)
                    matcher.for_each_seeded(plan, row, &mut |vars| {
                        work.probe(1);
                        head.clear();
                        head.extend(plan.head.iter().map(|o| o.get(vars)));
                        // A fact restored by a round of checks since `waiting` was made is
                        // still in it, but no longer pending.
                        if let Some(h) = waiting.take(relations, plan.head_rel, &head) {
                            if pending.remove(plan.head_rel, h) {
                                restored.push((plan.head_rel, h));
                            }
                        }
                    });
                }
                later.record_seeded(rel, work.total().probes - before);
            }
        } else {
            if !narrowed {
                still_pending.extend_from_slice(overdeleted_idb);
                narrowed = true;
            }
            still_pending.retain(|&(rel, r)| pending.contains(rel, r));
            let tried = rule_stats.ordered(&rules_by_head);
            let search = Search {
                program,
                plans,
                rules_by_head: &tried,
                skip: &no_skip,
            };
            search.check(
                &matcher,
                rule_stats,
                order_stats,
                None,
                later,
                None,
                &still_pending,
                pending,
                &mut restored,
            );
        }
    }
    out.spare.keep(restored);
    out.work = work.total();
    out
}

/// The head-bound searches of a round: for which facts, by which rules.
struct Search<'a> {
    program: &'a Program,
    plans: &'a Plans,
    /// Per relation: the rules with that head, in the order to try them ([`RuleStats`]).
    rules_by_head: &'a [Vec<usize>],
    /// Rules not searched (round 1's scanned rules).
    skip: &'a [bool],
}

impl<'a> Search<'a> {
    /// The first rule a check of a fact of `rel` tries (not skipped), and the plan its check
    /// would use now.
    #[inline]
    fn first_tried(&self, orders: &OrderStats, rel: RelId) -> Option<(usize, &'a RulePlan)> {
        let ri = *self.rules_by_head[rel].iter().find(|&&ri| !self.skip[ri])?;
        Some((ri, &self.plans.head_bound[ri][orders.choose(ri)]))
    }

    /// One head-bound check per fact of `facts` still pending, by each rule with its head
    /// until one finds a proof over the live rows: such a fact leaves `pending` at once and
    /// joins `restored`, but stays dead until the round ends. With `program_facts` (round 1),
    /// a program fact is restored without a search. Checks are recorded in `orders`, in
    /// `round1` when given, and when they fail in `later`.
    #[allow(clippy::too_many_arguments)]
    fn check(
        &self,
        matcher: &Matcher,
        rule_stats: &mut RuleStats,
        orders: &mut OrderStats,
        mut round1: Option<&mut ScanStats>,
        later: &mut LaterStats,
        program_facts: Option<&HashSet<(RelId, Tuple)>>,
        facts: &[RowRef],
        pending: &mut RowMarks,
        restored: &mut Vec<RowRef>,
    ) {
        let Search {
            program,
            plans,
            rules_by_head,
            skip,
        } = *self;
        let relations = matcher.relations;
        let work = matcher.work;
        let program_facts = program_facts.filter(|f| !f.is_empty());
        let mut vars: Vec<Value> = Vec::new();
        let mut ahead_vars: Vec<Value> = Vec::new();
        for (i, &(rel, r)) in facts.iter().enumerate() {
            // The searches are independent, so the first cache miss of a search a few facts
            // ahead is started now and overlaps this one's; the fact that search binds is
            // loaded further ahead still.
            if let Some(&(frel, fr)) = facts.get(i + 2 * CHECKS_AHEAD) {
                relations[frel].prefetch_values(fr);
            }
            // Both hints below are for the rule tried first only: rules go in order of work
            // per proof ([`RuleStats`]), so it is the one that proves most facts, and hints
            // for the others would cost as much for searches that seldom run.
            // Between the two: the index entry that search's first lookup reads, so that
            // `prefetch_first` below finds it rather than waiting for it.
            if let Some(&(erel, er)) = facts.get(i + CHECKS_AHEAD + CHECKS_AHEAD / 2) {
                if let Some((_, plan)) = self.first_tried(orders, erel) {
                    matcher.prefetch_start(plan, relations[erel].row(er));
                }
            }
            if let Some(&(arel, ar)) = facts
                .get(i + CHECKS_AHEAD)
                .filter(|&&(arel, ar)| pending.contains(arel, ar))
            {
                let tuple = relations[arel].row(ar);
                if let Some((ri, plan)) = self.first_tried(orders, arel) {
                    ahead_vars.clear();
                    ahead_vars.resize(plan.num_vars, 0);
                    if bind_head(&program.rules[ri].head.args, tuple, &mut ahead_vars) {
                        matcher.prefetch_first(plan, &mut ahead_vars);
                    }
                }
            }
            if !pending.contains(rel, r) {
                continue; // restored already (by a scan, or found twice in `facts`)
            }
            let tuple = relations[rel].row(r);
            if let Some(program_facts) = program_facts {
                work.probe(1);
                if program_facts.contains(&(rel, tuple.to_vec())) {
                    pending.remove(rel, r);
                    restored.push((rel, r));
                    continue;
                }
            }
            for &ri in &rules_by_head[rel] {
                if skip[ri] {
                    continue;
                }
                let order = orders.choose(ri);
                let plan = &plans.head_bound[ri][order];
                vars.clear();
                vars.resize(plan.num_vars, 0);
                // head(t) :- body, with the head bound to the pending fact.
                if !bind_head(&program.rules[ri].head.args, tuple, &mut vars) {
                    continue;
                }
                let before = work.total();
                let found = matcher.exists(plan, &mut vars);
                let after = work.total();
                let probes = after.probes - before.probes;
                let spent = probes + after.touched - before.touched;
                orders.record(ri, order, spent);
                rule_stats.record(ri, spent, found);
                if let Some(stats) = round1.as_deref_mut() {
                    stats.record_check(ri, probes);
                }
                if found {
                    pending.remove(rel, r);
                    restored.push((rel, r));
                    break;
                }
                later.record_failed(ri, probes);
            }
        }
    }
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

    /// Trying the dearer order costs at most about 1/`EXPLORE_SHARE` of the work of the
    /// cheaper one, yet it is still tried now and then; and a change of costs changes the
    /// choice.
    #[test]
    fn other_orders_are_tried_on_a_budget() {
        let mut stats = OrderStats::for_orders(&[2]);
        let mut cost = [100u64, 1];
        let mut spent = [0u64; 2];
        let mut tries = [0u64; 2];
        for _ in 0..2 * EXPLORE {
            let order = stats.choose(0);
            stats.record(0, order, cost[order]);
        }
        for _ in 0..100_000 {
            let order = stats.choose(0);
            stats.record(0, order, cost[order]);
            spent[order] += cost[order];
            tries[order] += 1;
        }
        assert!(tries[0] > 5, "the dearer order is still tried: {tries:?}");
        assert!(
            spent[0] <= spent[1] / EXPLORE_SHARE as u64 + cost[0],
            "exploration within budget: {spent:?}"
        );
        // Order 0 becomes the cheaper: it is found by the tries and then used.
        cost = [1, 100];
        let mut last = [0u64; 2];
        for i in 0..200_000 {
            let order = stats.choose(0);
            stats.record(0, order, cost[order]);
            if i >= 190_000 {
                last[order] += 1;
            }
        }
        assert!(last[0] > last[1] * 10, "switched: {last:?}");
    }
}
