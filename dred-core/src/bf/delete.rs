//! B/F's deletion phase: delete exactly the facts that lost every derivation.
//!
//! Input: at level 0, D- (present `.input` facts), and the relations before the batch; at a
//! level above, the facts of the level that the changes below reach through an old instance
//! (the *candidates*, found by the caller over the relations as they were before the batch,
//! as DRed's phase 1 finds its round 1), the level's aggregate rows whose group changed, and
//! the relations below already maintained.
//! Output: D, in rounds: round 1 is D- at level 0 and the candidates found underivable above;
//! round k+1 the facts reached from round k's through an instance over the facts not yet
//! deleted (the paper's deletion queue), *checked* ([`super::check`]) and found underivable.
//! Each round's facts leave the relations once their consequences are found, so every check
//! reads the level's facts not yet deleted and the new relations below.
//! Postcondition: D ∩ IDB is the set of the level's old facts with no derivation from the
//! maintained facts — on a positive program, the old IDB minus the least model of E \ E− —
//! and, as a consequence of the check's postcondition, it equals the facts the checks
//! disproved (checked and not proved); `delete` returns an error if it does not.

use std::collections::HashSet;

use super::check::{BackwardPlans, CheckContext, CheckCounts, Checker};
use crate::engine::{Fact, Phase};
use crate::exec::{Matcher, Versions, WorkCounter};
use crate::maintain::plans::Plans;
use crate::maintain::{Deleted, Guard, RowRef};
use crate::program::{Literal, Program, RelId};
use crate::record::Recorder;
use crate::storage::{Relation, RowMarks};
use crate::value::{Tuple, Value};

/// What starts B/F's deletion at one level.
pub(crate) enum Start<'a> {
    /// Level 0: D-, deleted outright (explicit facts are gone).
    Deleted(&'a [Fact]),
    /// A level above 0: the candidates the changes below reach, to be checked; and the
    /// level's aggregate rows of changed groups, with whether each keeps its value.
    Lower {
        /// Facts of the level with an old instance the batch invalidated below.
        candidates: Vec<RowRef>,
        /// When recording: per candidate, the first such instance (rule, binding).
        origins: Vec<Origin>,
        /// Old aggregate rows of touched groups, and `true` for those whose value stays.
        aggregate_rows: Vec<(RowRef, bool)>,
        /// What the forward steps flip to see the relations below as they were.
        old_below: OldBelow,
        /// A guard stopped the search for candidates: the level is abandoned at once.
        stopped: bool,
    },
}

/// The rows below a level that its forward steps must not see as they are now: the facts
/// gained in a relation the level reads in a positive atom (hidden) and the facts lost in one
/// it reads negated (shown). Why: the paper's forward step follows instances that held before
/// the batch; one completed by a fact the batch added below did not, and reaching a
/// candidate through it records a wrong instance (and checks a fact for nothing). Lost facts
/// read positively need not be shown, nor gained facts read negated hidden: every old
/// instance through one was followed when the candidates were found. Flipping costs time in proportion to these rows, so a batch that
/// only deletes below a positive level flips nothing.
#[derive(Default)]
pub(crate) struct OldBelow {
    hide: Vec<RowRef>,
    show: Vec<RowRef>,
}

impl OldBelow {
    /// The flips for `level` of `program` after the changes below, `removed` and `added`.
    pub(crate) fn new(
        program: &Program,
        level: usize,
        removed: &[RowRef],
        added: &[RowRef],
    ) -> Self {
        let mut positive = vec![false; program.relations.len()];
        let mut negated = vec![false; program.relations.len()];
        for stratum in program.strata.iter().filter(|s| s.level == level) {
            for &r in &stratum.rules {
                for literal in &program.rules[r].body {
                    match literal {
                        Literal::Positive(a) => positive[a.rel] = true,
                        Literal::Negative(a) => negated[a.rel] = true,
                        _ => {}
                    }
                }
            }
        }
        OldBelow {
            hide: added.iter().copied().filter(|f| positive[f.0]).collect(),
            show: removed.iter().copied().filter(|f| negated[f.0]).collect(),
        }
    }

    fn show_old(&self, relations: &mut [Relation]) {
        for &(rel, r) in &self.hide {
            relations[rel].remove_id(r);
        }
        for &(rel, r) in &self.show {
            relations[rel].revive(r);
        }
    }

    fn show_new(&self, relations: &mut [Relation]) {
        for &(rel, r) in &self.show {
            relations[rel].remove_id(r);
        }
        for &(rel, r) in &self.hide {
            relations[rel].revive(r);
        }
    }
}

/// The instance that made a fact a candidate: its rule and binding.
pub(crate) type Origin = (usize, Vec<Value>);

/// The shared state a level's deletion uses: the engine's, borrowed.
pub(crate) struct DeleteContext<'a> {
    pub(crate) program: &'a Program,
    pub(crate) plans: &'a Plans,
    pub(crate) backward: &'a BackwardPlans,
    pub(crate) program_facts: &'a HashSet<(RelId, Tuple)>,
    pub(crate) checker: &'a mut Checker,
    /// Marks of D, kept across batches.
    pub(crate) in_d: &'a mut RowMarks,
    /// Marks of the facts queued in this level, kept across batches.
    pub(crate) queued: &'a mut RowMarks,
    /// Work past which the deletion stops before its next check, D incomplete
    /// ([`Deleted::abandoned`]); set by a guard (`auto`).
    pub(crate) budget: Option<Guard>,
}

/// The heads of the level's instances of `relations` (shown as they were before the batch)
/// that a fact the relations below lost matches in a positive atom, or a fact they gained
/// in a negated one: the level's facts whose old derivations the batch may have cut. Each
/// once, in the order found. `Err(rel)` when a head is not in the old model. With `origins`,
/// the instance that found each candidate first is pushed there, in the candidates' order.
/// `Ok(None)` when `guard` passed before every change was followed (checked before each:
/// on getopts' liveness analysis this search alone ran 45 ms past a guard of 24 ms).
pub(crate) fn candidates_from_lower(
    relations: &[Relation],
    plans: &Plans,
    level: usize,
    (removed, added): (&[RowRef], &[RowRef]),
    work: &WorkCounter,
    mut origins: Option<&mut Vec<Origin>>,
    guard: Option<&Guard>,
) -> Result<Option<Vec<RowRef>>, RelId> {
    let versions: Vec<Versions> = relations.iter().map(Versions::complete).collect();
    let matcher = Matcher {
        relations,
        versions: &versions,
        work,
    };
    let mut seen: HashSet<RowRef> = HashSet::new();
    let mut out = Vec::new();
    let mut broken = None;
    let mut head: Vec<Value> = Vec::new();
    for (rows, negated) in [(removed, false), (added, true)] {
        for &(rel, r) in rows {
            let w = work.total();
            if guard.is_some_and(|g| g.passed(w.probes + w.touched)) {
                return Ok(None);
            }
            let row = relations[rel].row(r);
            let seeded = if negated {
                plans.negated(level, rel)
            } else {
                plans.seeded(level, rel)
            };
            for plan in seeded {
                matcher.for_each_seeded(plan, row, &mut |vars| {
                    head.clear();
                    head.extend(plan.head.iter().map(|o| o.get(vars)));
                    work.probe(1);
                    match relations[plan.head_rel].row_id(&head) {
                        Some(h) => {
                            if seen.insert((plan.head_rel, h)) {
                                out.push((plan.head_rel, h));
                                if let Some(o) = origins.as_deref_mut() {
                                    o.push((plan.rule, vars.to_vec()));
                                }
                            }
                        }
                        None => {
                            broken.get_or_insert(plan.head_rel);
                        }
                    }
                });
            }
        }
    }
    match broken {
        Some(rel) => Err(rel),
        None => Ok(Some(out)),
    }
}

/// Checks `candidates` in order, each with the instance that found it (`queue`: each marked
/// queued first); the underivable join `round`, their instances `origins` when recording.
/// False when the context's budget ran out, during a check or after one: the level is then
/// abandoned.
fn check_candidates(
    checker: &mut Checker,
    cx: &CheckContext<'_>,
    candidates: Vec<(RowRef, Option<Origin>)>,
    mut origins: Option<&mut Vec<Option<Origin>>>,
    mut queue: Option<&mut RowMarks>,
    round: &mut Vec<RowRef>,
) -> bool {
    for (c, origin) in candidates {
        if let Some(q) = queue.as_deref_mut() {
            q.insert(c.0, c.1);
        }
        match checker.check(cx, c).filter(|_| !cx.past_budget()) {
            None => return false,
            Some(false) => {
                round.push(c);
                if let Some(o) = origins.as_deref_mut() {
                    o.push(origin);
                }
            }
            Some(true) => {}
        }
    }
    true
}

/// Runs B/F's deletion of one level from `start`, removing D from `relations`. The result
/// has D, its IDB part and its rounds as DRed's phase 1 reports them (`rounds`: the facts
/// deleted in each round); `not_closed` is set when a fact of D- or a head reached is not in
/// the model. The counts are the level's checks. With `rec`, each fact deleted is recorded
/// with the instance that made it a candidate (a fact of D- or an aggregate row, outright).
pub(crate) fn delete(
    d: DeleteContext<'_>,
    relations: &mut [Relation],
    level: usize,
    start: Start<'_>,
    mut out: Deleted,
    mut rec: Option<&mut Recorder>,
) -> Result<(Deleted, CheckCounts), String> {
    out.deleted.clear();
    out.overdeleted_idb.clear();
    out.rounds.clear();
    out.work = Default::default();
    out.not_closed = None;
    out.abandoned = false;
    // Nothing to delete or check (a batch of insertions only): no per-batch scratch either.
    let nothing = match &start {
        Start::Deleted(deletions) => deletions.is_empty(),
        Start::Lower {
            candidates,
            aggregate_rows,
            stopped,
            ..
        } => candidates.is_empty() && aggregate_rows.is_empty() && !stopped,
    };
    if nothing {
        return Ok((out, CheckCounts::default()));
    }
    let work = WorkCounter::default();
    d.checker.begin(relations);
    d.in_d.reset(relations);
    d.queued.reset(relations);
    let versions: Vec<Versions> = relations.iter().map(Versions::complete).collect();
    let shared = Shared {
        program: d.program,
        backward: d.backward,
        program_facts: d.program_facts,
    };

    let mut round: Vec<RowRef> = Vec::new();
    // Recording: the instance of each fact of `round` (`None`: it entered outright).
    let recording = rec.is_some();
    let mut round_origins: Vec<Option<Origin>> = Vec::new();
    let mut old_below = OldBelow::default();
    match start {
        Start::Deleted(deletions) => {
            for f in deletions {
                work.probe(1);
                match relations[f.rel].row_id(&f.tuple) {
                    Some(r) => round.push((f.rel, r)),
                    None => {
                        out.not_closed.get_or_insert(f.rel);
                    }
                }
            }
            if recording {
                round_origins.resize(round.len(), None);
            }
        }
        Start::Lower {
            candidates,
            origins,
            aggregate_rows,
            old_below: flips,
            stopped,
        } => {
            if stopped {
                out.abandoned = true;
                return Ok((out, d.checker.counts()));
            }
            old_below = flips;
            for (fact, stays) in aggregate_rows {
                if stays {
                    d.checker.note_proved(fact);
                } else {
                    d.checker.note_disproved(fact);
                    round.push(fact);
                    if recording {
                        round_origins.push(None);
                    }
                }
            }
            let cx = shared.context(relations, &versions, &work, level, d.budget.as_ref());
            let mut origins = origins.into_iter();
            let found = candidates
                .into_iter()
                .map(|c| (c, origins.next()))
                .collect();
            let origins = recording.then_some(&mut round_origins);
            let queue = Some(&mut *d.queued);
            if !check_candidates(d.checker, &cx, found, origins, queue, &mut round) {
                out.abandoned = true;
                out.work = work.total();
                return Ok((out, d.checker.counts()));
            }
        }
    }
    if out.not_closed.is_some() {
        return Ok((out, d.checker.counts()));
    }

    let mut head: Vec<Value> = Vec::new();
    while !round.is_empty() {
        if let Some(rec) = rec.as_deref_mut() {
            let k = out.rounds.len() + 1;
            for (&(rel, r), origin) in round.iter().zip(&round_origins) {
                let (rule, vars) = match origin {
                    Some((rule, vars)) => (Some(*rule), vars.as_slice()),
                    None => (None, &[][..]),
                };
                rec.note(
                    level,
                    Phase::Delete,
                    k,
                    rel,
                    relations[rel].row(r),
                    rule,
                    vars,
                );
            }
        }
        for &(rel, r) in &round {
            d.in_d.insert(rel, r);
        }
        out.deleted.extend(&round);
        out.overdeleted_idb
            .extend(round.iter().filter(|(rel, _)| d.program.is_idb(*rel)));
        // The heads of instances through a fact of this round whose other body facts are not
        // deleted yet (this round's still are): an instance through a fact deleted earlier was
        // followed when that fact was deleted.
        let mut candidates = Vec::new();
        let mut candidate_origins: Vec<Origin> = Vec::new();
        old_below.show_old(relations);
        // The search for the round's candidates is guarded too, fact by fact: on GO MF's TC,
        // 1,000 edges deleted, it ran unchecked for half a recomputation's time under a
        // budget of a thirty-second of one (`auto`'s scout).
        let past_budget = || {
            d.budget.as_ref().is_some_and(|b| {
                let w = work.total();
                b.passed(w.probes + w.touched)
            })
        };
        let mut stopped = false;
        {
            let matcher = Matcher {
                relations,
                versions: &versions,
                work: &work,
            };
            for &(rel, r) in &round {
                // Once candidates are found (before, the round may still end with nothing
                // to check, and B/F finishes the level: what a budget of 0 lets it do).
                if !candidates.is_empty() && past_budget() {
                    stopped = true;
                    break;
                }
                let row = relations[rel].row(r);
                for plan in d.plans.seeded(level, rel) {
                    matcher.for_each_seeded(plan, row, &mut |vars| {
                        head.clear();
                        head.extend(plan.head.iter().map(|o| o.get(vars)));
                        work.probe(1);
                        match relations[plan.head_rel].row_id(&head) {
                            Some(h) => {
                                let h = (plan.head_rel, h);
                                if !d.in_d.contains(h.0, h.1)
                                    && !d.checker.is_proved(h)
                                    && d.queued.insert(h.0, h.1)
                                {
                                    candidates.push(h);
                                    if recording {
                                        candidate_origins.push((plan.rule, vars.to_vec()));
                                    }
                                }
                            }
                            None => {
                                // Not live: deleted in an earlier round. An instance over
                                // the old relations whose head is not in the old model means
                                // the model was not closed under the rules.
                                if level == 0 && relations[plan.head_rel].find_row(&head).is_none()
                                {
                                    out.not_closed.get_or_insert(plan.head_rel);
                                }
                            }
                        }
                    });
                }
            }
        }
        old_below.show_new(relations);
        for &(rel, r) in &round {
            relations[rel].remove_id(r);
        }
        work.touch(round.len() as u64);
        out.rounds.push(std::mem::take(&mut round));
        if stopped {
            // The round's facts are out, as an abandoned level's `deleted` must be; the
            // candidates found so far stay live: recomputing the level deletes them.
            out.abandoned = true;
            out.work = work.total();
            return Ok((out, d.checker.counts()));
        }
        let cx = shared.context(relations, &versions, &work, level, d.budget.as_ref());
        round_origins.clear();
        let mut candidate_origins = candidate_origins.into_iter();
        let found = candidates
            .into_iter()
            .map(|c| (c, candidate_origins.next()))
            .collect();
        let origins = recording.then_some(&mut round_origins);
        if !check_candidates(d.checker, &cx, found, origins, None, &mut round) {
            // The facts found underivable this round stay live: recomputing the level
            // deletes them.
            out.abandoned = true;
            out.work = work.total();
            return Ok((out, d.checker.counts()));
        }
    }
    out.work = work.total();
    let counts = d.checker.counts();
    let deleted_here = out
        .overdeleted_idb
        .iter()
        .filter(|(rel, _)| d.program.level_of(*rel) == level)
        .count() as u64;
    if out.not_closed.is_none() && counts.disproved != deleted_here {
        return Err(format!(
            "B/F disproved {} facts at level {level} but deleted {deleted_here}: a fact found \
             underivable was never reached from the deletions, or one deleted was not checked",
            counts.disproved
        ));
    }
    Ok((out, counts))
}

/// The parts of [`Deletion`] a check reads, apart from the checker it updates.
#[derive(Clone, Copy)]
struct Shared<'a> {
    program: &'a Program,
    backward: &'a BackwardPlans,
    program_facts: &'a HashSet<(RelId, Tuple)>,
}

impl<'a> Shared<'a> {
    fn context<'b>(
        self,
        relations: &'b [Relation],
        versions: &'b [Versions],
        work: &'b WorkCounter,
        level: usize,
        budget: Option<&'b Guard>,
    ) -> CheckContext<'b>
    where
        'a: 'b,
    {
        CheckContext {
            program: self.program,
            backward: self.backward,
            relations,
            versions,
            work,
            level,
            program_facts: self.program_facts,
            budget,
        }
    }
}
