//! Phase 2 of `dred`: rederive from the survivors.
//!
//! Input: the relations with D removed (tombstoned), so the live rows are the survivors S,
//! and the over-deleted IDB D ∩ J. Output: the facts of D ∩ J restored, in rounds. Round 1
//! restores every over-deleted fact that has an instance (of a rule, or as a program fact)
//! whose body holds in S — found per rule either by one search with the head bound per
//! over-deleted fact, or by one scan of the rule's instances over S, whichever is estimated
//! cheaper ([`ScanStats`](super::rederive_cost::ScanStats)); round k+1 restores those that
//! have an instance with a body in S plus the facts restored up to round k — found either by
//! delta rules seeded with the facts restored in round k (such an instance must use one) or
//! by one head-bound search per fact still pending, whichever is estimated cheaper
//! ([`LaterStats`](super::rederive_cost::LaterStats)). Facts restored in a round become
//! visible at the next (Jacobi rounds), and a fact still in D is never evidence. The phase
//! stops after a round that restores nothing (that empty round is reported) or once every
//! over-deleted fact is back — the rounds of the reference engine.
//! Postcondition: the live rows are exactly the facts of the new least model that were in
//! the old one (the new model is contained in the old one after deletions only). Above DRed
//! level 0 the phase runs over the level's over-deleted facts with the relations below
//! already new: a proof may use a fact they gained, or the absence of one they lost, and the
//! live rows of the level are then the old facts it still proves.
//!
//! Where there are two ways of finding the same facts, the cost model in
//! [`rederive_cost`](super::rederive_cost) chooses. A batch's phase is one `Rederivation`:
//! round 1, then, until the phase stops, the end of a round (its facts revived) and the
//! next round.
use std::collections::HashSet;

use super::heads::HeadProbes;
use super::rederive_cost::{body_rows, OrderStats, RederiveCosts};
use crate::engine::{Phase, Work};
use crate::exec::{Matcher, Versions, WorkCounter};
use crate::maintain::plans::{bind_head, Plans};
use crate::maintain::{Guard, RowRef, SpareRows};
use crate::plan::RulePlan;
use crate::program::{Program, RelId};
use crate::record::Recorder;
use crate::storage::{Relation, RowId, RowMarks};
use crate::value::{Tuple, Value};

pub use super::rederive_cost::{LaterRounds, Round1};

/// How many over-deleted facts ahead round 1's searches prefetch.
const CHECKS_AHEAD: usize = 8;

/// A later round of checks chosen by estimate may cost this many times the estimate of the
/// seeded round before it stops ([`Rederivation::later_round`]).
const CHECKS_BUDGET_FACTOR: f64 = 4.0;
/// ... and at least this many probes, so that small rounds never stop on a bad guess.
const CHECKS_BUDGET_FLOOR: f64 = 100_000.0;

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
    /// Later rounds whose checks passed their budget and were finished by the seeded rules.
    pub checks_abandoned: usize,
    /// The phase passed its work budget and stopped after a round: facts still pending stay
    /// deleted, and the caller recomputes the level.
    pub abandoned: bool,
    /// Vectors kept for the next batch's rounds.
    spare: SpareRows,
    /// The room of the next batch's scratch space.
    scratch: Phase2Scratch,
}

/// Phase 2's scratch space, kept from batch to batch with its allocations, so that a batch
/// allocates none of it (see [`super::overdelete::Phase1Scratch`]).
#[derive(Clone, Debug, Default)]
struct Phase2Scratch {
    /// See [`Rederivation::pending_of`].
    pending_of: Vec<usize>,
    /// See [`Rederivation::no_skip`].
    no_skip: Vec<bool>,
    /// The versions a round's joins read (every row).
    versions: Vec<Versions>,
    /// Round 1's rules restored by a scan.
    scanned: Vec<bool>,
    /// Round 1's heads held before they are looked up.
    heads: HeadProbes,
}

/// Runs phase 2, reviving restored facts in `relations`. `pending` is scratch kept across
/// batches (reset here), marking the over-deleted facts not restored yet. The result is
/// written into `out` (an earlier batch's, emptied first: its memory is reused). With a
/// `budget` (work), the phase stops at the end of the first round past it
/// ([`Rederived::abandoned`]).
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
    rec: Option<&mut Recorder>,
    budget: Option<Guard>,
) -> Rederived {
    out.rederived = 0;
    out.checks_abandoned = 0;
    out.abandoned = false;
    out.spare.keep_all(&mut out.rounds);
    out.work = Work::default();
    // Nothing over-deleted: no round (as the reference), and no per-batch scratch.
    if overdeleted_idb.is_empty() {
        return out;
    }
    let mut run = Rederivation::new(
        program,
        relations,
        plans,
        costs,
        overdeleted_idb,
        pending,
        out,
    );
    run.rec = rec;
    if !run.round1(relations, program_facts, budget.as_ref()) {
        // Round 1 passed the guard: what it found is restored, the rest stays deleted.
        run.end_round(relations);
        run.out.abandoned = true;
        return run.finish();
    }
    while run.end_round(relations) {
        if budget.as_ref().is_some_and(|b| {
            let w = run.work.total();
            b.passed(w.probes + w.touched)
        }) {
            run.out.abandoned = true;
            break;
        }
        run.later_round(relations);
    }
    run.finish()
}

/// The state of phase 2 while one batch's rounds run: the facts still pending, those the
/// running round has restored, and the result so far. Relations are passed to each step
/// rather than held: a round reads them (through a [`Matcher`]), its end writes them.
struct Rederivation<'a> {
    program: &'a Program,
    plans: &'a Plans,
    costs: &'a mut RederiveCosts,
    overdeleted_idb: &'a [RowRef],
    /// Over-deleted facts not restored yet (their rows are tombstones, still found by value).
    pending: &'a mut RowMarks,
    /// Per relation: the rules with that head, in program order.
    rules_by_head: &'a [Vec<usize>],
    /// Per relation: its over-deleted facts not restored by the rounds ended so far.
    pending_of: Vec<usize>,
    work: WorkCounter,
    /// The facts the running round has restored: out of `pending` at once (so each is
    /// restored once), but dead until the round ends.
    restored: Vec<RowRef>,
    /// The facts still pending after round 1, by value, made when a round is first seeded.
    waiting: Option<Waiting>,
    /// The facts a round of checks searches: those of `overdeleted_idb` still pending,
    /// narrowed before each such round (filled by the first, `narrowed` then).
    still_pending: Vec<RowRef>,
    narrowed: bool,
    /// No rule skipped: the searches of later rounds.
    no_skip: Vec<bool>,
    /// The rest of the scratch space ([`Phase2Scratch`]), handed back by `finish`.
    scratch: Phase2Scratch,
    out: Rederived,
    /// Where each restored fact's first proof is recorded, when asked.
    rec: Option<&'a mut Recorder>,
}

impl<'a> Rederivation<'a> {
    /// The state before round 1: every fact of `overdeleted_idb` pending.
    fn new(
        program: &'a Program,
        relations: &[Relation],
        plans: &'a Plans,
        costs: &'a mut RederiveCosts,
        overdeleted_idb: &'a [RowRef],
        pending: &'a mut RowMarks,
        mut out: Rederived,
    ) -> Self {
        pending.reset(relations);
        for &(rel, r) in overdeleted_idb {
            pending.insert(rel, r);
        }
        let restored = out.spare.take();
        let mut scratch = std::mem::take(&mut out.scratch);
        let mut pending_of = std::mem::take(&mut scratch.pending_of);
        pending_of.clear();
        pending_of.resize(relations.len(), 0);
        for &(rel, _) in overdeleted_idb {
            pending_of[rel] += 1;
        }
        let mut no_skip = std::mem::take(&mut scratch.no_skip);
        no_skip.clear();
        no_skip.resize(program.rules.len(), false);
        Rederivation {
            program,
            plans,
            costs,
            overdeleted_idb,
            pending,
            rules_by_head: &plans.rules_by_head,
            pending_of,
            work: WorkCounter::default(),
            restored,
            waiting: None,
            still_pending: Vec::new(),
            narrowed: false,
            no_skip,
            scratch,
            out,
            rec: None,
        }
    }

    /// Records the restored fact `(rel, r)` of the running round, proved by `rule` under
    /// `vars` (`None`: a program fact).
    fn note(
        rec: &mut Recorder,
        program: &Program,
        relations: &[Relation],
        round: usize,
        (rel, r): RowRef,
        rule: Option<usize>,
        vars: &[Value],
    ) {
        let level = program.level_of(rel);
        rec.note(
            level,
            Phase::Rederive,
            round,
            rel,
            relations[rel].row(r),
            rule,
            vars,
        );
    }

    /// Round 1: per rule, a scan of its instances over S or one bounded search per
    /// over-deleted fact, whichever is estimated cheaper (a program fact is restored
    /// without a search).
    ///
    /// Under a `guard`, its checks stop once it passes, and the result is false (facts may
    /// be left unchecked): round 1 checks every over-deleted fact, which on a transitive
    /// closure over-deleted whole is most of phase 2 (GO BP, 1,000 edges deleted: 75 ms of
    /// round 1 where `auto`'s guard allowed 46).
    fn round1(
        &mut self,
        relations: &[Relation],
        program_facts: &HashSet<(RelId, Tuple)>,
        guard: Option<&Guard>,
    ) -> bool {
        let mut versions = std::mem::take(&mut self.scratch.versions);
        versions.clear();
        versions.extend(relations.iter().map(Versions::complete));
        let matcher = Matcher {
            relations,
            versions: &versions,
            work: &self.work,
        };
        let mut scanned = std::mem::take(&mut self.scratch.scanned);
        scanned.clear();
        scanned.extend(self.program.rules.iter().enumerate().map(|(ri, rule)| {
            let (Some(plan), n) = (&self.plans.survivors[ri], self.pending_of[rule.head.rel])
            else {
                return false;
            };
            let rows = body_rows(plan, relations);
            let checks = self
                .costs
                .scans
                .checks_cost(ri, n, rule.positive_atoms().count());
            n > 0
                && match self.costs.round1 {
                    Round1::Cheaper => self.costs.scans.scan_cost(ri, rows) < checks,
                    Round1::Checks => false,
                    Round1::Scans => true,
                }
        }));
        let mut heads = std::mem::take(&mut self.scratch.heads);
        heads.clear();
        for (ri, plan) in self.plans.survivors.iter().enumerate() {
            let Some(plan) = plan.as_ref().filter(|_| scanned[ri]) else {
                continue;
            };
            let before = self.work.total();
            if let Some(rec) = self.rec.as_deref_mut() {
                // One head at a time, so that each restored fact is recorded with the
                // instance that found it.
                let program = self.program;
                matcher.for_each(plan, &mut |vars| {
                    self.work.probe(1);
                    heads.push_instance(relations, plan, vars);
                    let from = self.restored.len();
                    restore(&mut heads, relations, self.pending, &mut self.restored);
                    for &f in &self.restored[from..] {
                        Self::note(rec, program, relations, 1, f, Some(plan.rule), vars);
                    }
                });
                let after = self.work.total();
                let rows = body_rows(plan, relations);
                self.costs
                    .scans
                    .record_scan(ri, after.probes - before.probes, rows as u64);
                continue;
            }
            // head :- body, every atom over the survivors; heads still pending are restored.
            matcher.for_each(plan, &mut |vars| {
                self.work.probe(1);
                heads.push_instance(relations, plan, vars);
                if heads.is_full() {
                    restore(&mut heads, relations, self.pending, &mut self.restored);
                }
            });
            restore(&mut heads, relations, self.pending, &mut self.restored);
            let after = self.work.total();
            let rows = body_rows(plan, relations);
            self.costs
                .scans
                .record_scan(ri, after.probes - before.probes, rows as u64);
        }
        let mut tried = std::mem::take(&mut self.costs.tried);
        self.costs
            .rules
            .ordered_into(self.rules_by_head, &mut tried);
        let search = Search {
            program: self.program,
            plans: self.plans,
            rules_by_head: &tried,
            skip: &scanned,
        };
        let complete = search.check(
            &matcher,
            self.costs,
            Some(program_facts),
            self.overdeleted_idb,
            self.pending,
            &mut self.restored,
            self.rec.as_deref_mut().map(|r| (r, 1)),
            None,
            guard,
        );
        self.costs.tried = tried;
        self.scratch.versions = versions;
        self.scratch.scanned = scanned;
        self.scratch.heads = heads;
        complete
    }

    /// Ends the running round: every fact it restored left `pending` when it was found and
    /// becomes visible now; the round joins the result. False when the phase stops there:
    /// after a round that restored nothing, or once every over-deleted fact is back (as the
    /// reference, no further, empty round then).
    fn end_round(&mut self, relations: &mut [Relation]) -> bool {
        for &(rel, r) in &self.restored {
            relations[rel].revive(r);
            self.pending_of[rel] -= 1;
        }
        self.work.touch(self.restored.len() as u64);
        self.out.rederived += self.restored.len();
        let done = self.restored.is_empty() || self.pending.is_empty();
        let next = self.out.spare.take();
        self.out
            .rounds
            .push(std::mem::replace(&mut self.restored, next));
        !done
    }

    /// A round after the first: by the delta rules seeded with the facts restored the round
    /// before, or by one search per fact still pending, whichever is estimated cheaper.
    ///
    /// A round of checks chosen by estimate runs on a budget: estimates of checks that were
    /// never measured are guesses, and a failing check can cost thousands of times the guess
    /// (on a points-to analysis of memchr's MIR, rounds of checks cost 17.5 billion probes
    /// where seeded rounds cost 34 million). Past [`CHECKS_BUDGET_FACTOR`] times the seeded
    /// estimate (at least [`CHECKS_BUDGET_FLOOR`] probes), the checks stop and the round is
    /// finished by the seeded rules. The round's facts are the same: the checks restored
    /// some of its facts, and the seeded rules find every pending fact with an instance
    /// using a fact restored the round before — any other instance would have been found in
    /// an earlier round. The failed checks are measured, so the next estimate is informed.
    fn later_round(&mut self, relations: &[Relation]) {
        let mut versions = std::mem::take(&mut self.scratch.versions);
        versions.clear();
        versions.extend(relations.iter().map(Versions::complete));
        match self.seeds_next() {
            (true, _) => self.seeded_round(relations, &versions),
            (false, budget) => {
                if !self.checks_round(relations, &versions, budget) {
                    self.out.checks_abandoned += 1;
                    self.seeded_round(relations, &versions);
                }
            }
        }
        self.scratch.versions = versions;
    }

    /// Whether the next round follows seeded rules rather than checks (see
    /// [`LaterRounds`]), and when checks were chosen by estimate, their budget in probes.
    fn seeds_next(&self) -> (bool, Option<u64>) {
        let last = self.out.rounds.last().expect("a round was just pushed");
        let later = &self.costs.later;
        match self.costs.later_rounds {
            LaterRounds::Seeded => (true, None),
            LaterRounds::Checks => (false, None),
            LaterRounds::ChecksAbandoned => (false, Some(0)),
            LaterRounds::Cheaper => {
                let seeded: f64 = last
                    .iter()
                    .map(|&(rel, _)| {
                        later.seeded_cost(
                            rel,
                            self.plans.seeded(self.program.level_of(rel), rel).len(),
                        )
                    })
                    .sum();
                let checks: f64 = self
                    .pending_of
                    .iter()
                    .enumerate()
                    .filter(|&(_, &n)| n > 0)
                    .map(|(rel, &n)| {
                        n as f64
                            * self.rules_by_head[rel]
                                .iter()
                                .map(|&ri| {
                                    later.check_cost(
                                        ri,
                                        self.program.rules[ri].positive_atoms().count(),
                                    )
                                })
                                .sum::<f64>()
                    })
                    .sum();
                let budget = (seeded * CHECKS_BUDGET_FACTOR).max(CHECKS_BUDGET_FLOOR) as u64;
                (seeded <= checks, Some(budget))
            }
        }
    }

    /// A later round by the delta rules seeded with each fact restored the round before;
    /// each head found among the facts still pending is restored.
    fn seeded_round(&mut self, relations: &[Relation], versions: &[Versions]) {
        let matcher = Matcher {
            relations,
            versions,
            work: &self.work,
        };
        let last = self.out.rounds.last().expect("a round was just pushed");
        let waiting = self
            .waiting
            .get_or_insert_with(|| Waiting::new(relations, self.pending, self.overdeleted_idb));
        let mut head: Vec<Value> = Vec::new();
        let round = self.out.rounds.len() + 1;
        let program = self.program;
        for &(rel, r) in last {
            let before = self.work.total().probes;
            let row = relations[rel].row(r);
            // The restored fact's own level: the levels above are not maintained yet.
            for plan in self.plans.seeded(self.program.level_of(rel), rel) {
                // head :- ..., body_i = a fact restored last round, ... (the rest live)
                matcher.for_each_seeded(plan, row, &mut |vars| {
                    self.work.probe(1);
                    head.clear();
                    head.extend(plan.head.iter().map(|o| o.get(vars)));
                    // A fact restored by a round of checks since `waiting` was made is
                    // still in it, but no longer pending.
                    if let Some(h) = waiting.take(relations, plan.head_rel, &head) {
                        if self.pending.remove(plan.head_rel, h) {
                            self.restored.push((plan.head_rel, h));
                            if let Some(rec) = self.rec.as_deref_mut() {
                                let f = (plan.head_rel, h);
                                Self::note(
                                    rec,
                                    program,
                                    relations,
                                    round,
                                    f,
                                    Some(plan.rule),
                                    vars,
                                );
                            }
                        }
                    }
                });
            }
            self.costs
                .later
                .record_seeded(rel, self.work.total().probes - before);
        }
    }

    /// A later round by one head-bound search per fact still pending; false when the
    /// searches passed `budget` probes and stopped with facts left unchecked.
    fn checks_round(
        &mut self,
        relations: &[Relation],
        versions: &[Versions],
        budget: Option<u64>,
    ) -> bool {
        let matcher = Matcher {
            relations,
            versions,
            work: &self.work,
        };
        if !self.narrowed {
            self.still_pending.extend_from_slice(self.overdeleted_idb);
            self.narrowed = true;
        }
        let pending = &*self.pending;
        self.still_pending
            .retain(|&(rel, r)| pending.contains(rel, r));
        let mut tried = std::mem::take(&mut self.costs.tried);
        self.costs
            .rules
            .ordered_into(self.rules_by_head, &mut tried);
        let search = Search {
            program: self.program,
            plans: self.plans,
            rules_by_head: &tried,
            skip: &self.no_skip,
        };
        let round = self.out.rounds.len() + 1;
        let out = search.check(
            &matcher,
            self.costs,
            None,
            &self.still_pending,
            self.pending,
            &mut self.restored,
            self.rec.as_deref_mut().map(|r| (r, round)),
            budget,
            None,
        );
        self.costs.tried = tried;
        out
    }

    /// The result: the rounds, the facts restored and the phase's work.
    fn finish(self) -> Rederived {
        let Rederivation {
            mut out,
            restored,
            work,
            pending_of,
            no_skip,
            mut scratch,
            ..
        } = self;
        out.spare.keep(restored);
        scratch.pending_of = pending_of;
        scratch.no_skip = no_skip;
        out.scratch = scratch;
        out.work = work.total();
        out
    }
}

/// The head-bound searches of a round: for which facts, by which rules.
struct Search<'a> {
    program: &'a Program,
    plans: &'a Plans,
    /// Per relation: the rules with that head, in the order to try them
    /// ([`RuleStats`](super::rederive_cost::RuleStats)).
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
    /// joins `restored`, but stays dead until the round ends. `round1` gives round 1's
    /// program facts (`None` in later rounds): a program fact is restored without a search.
    /// Checks are recorded in `costs`: in the rules' and orders' measurements, in round 1's
    /// ([`RederiveCosts::scans`]) in round 1, and when they fail in the later rounds'.
    /// With `rec` (the recorder and the round), each restored fact is recorded with the
    /// instance its check found: the first in the order [`Matcher::exists`] searches.
    /// With a `budget`, the checks stop once they have made that many probes, and with a
    /// `guard` once it passes (work is probes plus the facts restored); the result is then
    /// false (facts may be left unchecked), otherwise true.
    #[allow(clippy::too_many_arguments)]
    fn check(
        &self,
        matcher: &Matcher,
        costs: &mut RederiveCosts,
        round1: Option<&HashSet<(RelId, Tuple)>>,
        facts: &[RowRef],
        pending: &mut RowMarks,
        restored: &mut Vec<RowRef>,
        mut rec: Option<(&mut Recorder, usize)>,
        budget: Option<u64>,
        guard: Option<&Guard>,
    ) -> bool {
        let Search {
            program,
            plans,
            rules_by_head,
            skip,
        } = *self;
        let relations = matcher.relations;
        let work = matcher.work;
        let in_round1 = round1.is_some();
        let program_facts = round1.filter(|f| !f.is_empty());
        let mut vars: Vec<Value> = Vec::new();
        let mut ahead_vars: Vec<Value> = Vec::new();
        let limit = budget.map(|b| work.total().probes.saturating_add(b));
        for (i, &(rel, r)) in facts.iter().enumerate() {
            if limit.is_some_and(|l| work.total().probes > l) {
                return false;
            }
            if guard.is_some_and(|g| {
                let w = work.total();
                g.passed(w.probes + w.touched + restored.len() as u64)
            }) {
                return false;
            }
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
                if let Some((_, plan)) = self.first_tried(&costs.orders, erel) {
                    matcher.prefetch_start(plan, relations[erel].row(er));
                }
            }
            if let Some(&(arel, ar)) = facts
                .get(i + CHECKS_AHEAD)
                .filter(|&&(arel, ar)| pending.contains(arel, ar))
            {
                let tuple = relations[arel].row(ar);
                if let Some((ri, plan)) = self.first_tried(&costs.orders, arel) {
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
                    if let Some((rec, round)) = rec.as_mut() {
                        Rederivation::note(rec, program, relations, *round, (rel, r), None, &[]);
                    }
                    continue;
                }
            }
            for &ri in &rules_by_head[rel] {
                if skip[ri] {
                    continue;
                }
                let order = costs.orders.choose(ri);
                let plan = &plans.head_bound[ri][order];
                vars.clear();
                vars.resize(plan.num_vars, 0);
                // head(t) :- body, with the head bound to the pending fact.
                if !bind_head(&program.rules[ri].head.args, tuple, &mut vars) {
                    continue;
                }
                let before = work.total();
                let found = match rec.as_mut() {
                    None => matcher.exists(plan, &mut vars),
                    Some((rec, round)) => {
                        // The same search, stopped at the same first instance, which is kept.
                        let mut proof = None;
                        matcher.for_each_bound(plan, &mut vars, &mut |v| {
                            proof = Some(v.to_vec());
                            false
                        });
                        if let Some(v) = &proof {
                            let f = (rel, r);
                            Rederivation::note(rec, program, relations, *round, f, Some(ri), v);
                        }
                        proof.is_some()
                    }
                };
                let after = work.total();
                let probes = after.probes - before.probes;
                let spent = probes + after.touched - before.touched;
                costs.orders.record(ri, order, spent);
                costs.rules.record(ri, spent, found);
                if in_round1 {
                    costs.scans.record_check(ri, probes);
                }
                if found {
                    pending.remove(rel, r);
                    restored.push((rel, r));
                    break;
                }
                costs.later.record_failed(ri, probes);
            }
        }
        true
    }
}
