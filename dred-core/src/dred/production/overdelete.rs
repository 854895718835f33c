//! Phase 1 of `dred`: over-delete along old proofs, by delta rules.
//!
//! Input: the old relations I ∪ J (unchanged during the phase) and the level's seeds: at
//! level 0, D- (present EDB facts); at a level above, the net changes of the relations below
//! it — the facts they lost, which seed positive atoms, and the facts they gained, which
//! seed negated atoms (the caller shows the relations as they were before the batch while
//! this phase runs).
//! Output: D, every fact reachable from the seeds through an old successful instance of the
//! level's rules (a rule fires when one body atom matches a frontier fact, or one negated atom
//! a gained fact, and the other literals hold over the old facts), in rounds: at level 0,
//! round 1 is D-; above, round 1 is the level's facts the seeds reach directly; round k+1 the
//! heads newly reached from round k, each fact once.
//! Postcondition: D ∩ J is the over-deleted IDB, the same set the reference engine computes
//! from its instance store; nothing is removed yet.
//!
//! **Saturation.** With a `budget`, once the phase's work (probes plus rows touched)
//! passes it — or, by default, once it has over-deleted a tenth of the level's facts
//! ([`SATURATION_FACTS`]) — the phase stops ([`Deleted::abandoned`], nothing removed) and
//! the engine recomputes the level's affected strata from the levels below instead
//! ([`crate::maintain::recompute`]: into empty relations where no level above reads them).
//! Every level may saturate, each against the work of evaluating it from scratch. That is
//! still DRed's bound on its own cost — over-deleting everything the level derived and
//! rederiving it from the survivors is a correct over-approximation, and recomputing the
//! level computes the same model without a tombstone per fact. Why: when most of a
//! recursive component is over-deleted, following its instances costs more than evaluating
//! it (each instance is met through every deleted body fact, against the full old
//! relations): 2–4 times a recomputation on points-to analyses of real crates, before
//! rederivation even starts; and deleting a level wholesale row by row, then rederiving it
//! into the tombstoned relations, cost 20–30 times recomputing on a liveness analysis whose
//! batch removed 90% of the model. The budget bounds the first part; the frontiers then
//! differ from the reference engine's (which is why tests that compare them turn
//! saturation off).

use super::heads::{HeadProbes, RecentHeads};
use crate::engine::{Fact, Phase, Work};
use crate::exec::{Matcher, Versions, WorkCounter};
use crate::maintain::plans::Plans;
use crate::maintain::{Deleted, Guard, RowRef, SpareRows};
use crate::program::{Program, RelId};
use crate::record::Recorder;
use crate::storage::{Relation, RowMarks};

/// When phase 1 saturates (see the module's header).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub enum Saturation {
    /// Once its work passes this share of the work of evaluating the level from scratch
    /// (measured at materialisation, and again at each saturated batch's rederivation).
    Share(f64),
    /// Never: the phase follows every instance (the reference engine's frontiers).
    Never,
    /// At once, after the first frontier fact: every batch that deletes recomputes the
    /// level by rederivation (for tests).
    Always,
    /// [`Saturation::Share`] of [`SATURATION_SHARE`], or of [`DEEP_SATURATION_SHARE`] on a
    /// level whose last saturation removed a large share of it ([`DEEP_REMOVAL`]) or had
    /// reached a tenth of it ([`SATURATION_FACTS`]), but not below the level's floor
    /// ([`SATURATION_FLOOR`], that share of a smaller level's evaluation, at least
    /// [`SATURATION_MIN_FLOOR`]); and once a tenth of the level's facts are over-deleted
    /// ([`SATURATION_FACTS`]) past the floor of facts (on a level not deep,
    /// [`SATURATION_FACTS_FLOOR_SHARE`] of a smaller level's evaluation).
    #[default]
    Default,
    /// [`Saturation::Default`] with this floor instead of [`SATURATION_FLOOR`] (for tests on
    /// small models).
    Floor(u64),
}

/// The share of a from-scratch evaluation's work past which phase 1 saturates by default.
/// Saturating costs about that share plus one evaluation (rederivation from the levels
/// below); not saturating a whole-component over-deletion cost 2–4 evaluations before
/// rederivation on points-to analyses. A batch whose over-deletion is legitimately that
/// large but cheap to rederive pays at most about 1.5 evaluations instead.
pub const SATURATION_SHARE: f64 = 0.5;

/// The share past which phase 1 saturates by default on a level whose last saturated batch
/// removed at least [`DEEP_REMOVAL`] of the level's facts, or whose phase 1 had reached
/// [`SATURATION_FACTS`] of them when it stopped.
///
/// Why: there, DRed would have had to follow at least that many removals, so the half
/// evaluation phase 1 spent before giving up was the likely waste of a deletion that recurs.
/// On getopts' liveness analysis every deletion of 100 or 1,000 control-flow edges removes
/// 47–91% of the level and saturates: phase 1 cost 105–226 ms a batch, next to 198–244 ms
/// for recomputing the level. A batch that would have stayed small under DRed pays at most
/// this share plus a recomputation of the level; its saturation removes and over-deletes
/// little and puts the level back on [`SATURATION_SHARE`].
pub const DEEP_SATURATION_SHARE: f64 = 0.1;

/// The share of a level's facts that a saturated batch must remove for the next batch to
/// saturate at [`DEEP_SATURATION_SHARE`] (or its phase 1 must have reached
/// [`SATURATION_FACTS`] of them).
pub const DEEP_REMOVAL: f64 = 0.25;

/// ... and never before this much work (probes plus rows touched, some milliseconds) on a
/// level whose evaluation costs more than twice as much; on a smaller level the floor is
/// the share of its evaluation, but never below [`SATURATION_MIN_FLOOR`]. (The facts of
/// [`SATURATION_FACTS`] count past [`SATURATION_FACTS_FLOOR_SHARE`] of the evaluation
/// instead, below this floor too.)
pub const SATURATION_FLOOR: u64 = 1_000_000;

/// The least work before phase 1 saturates by default on a level not deep (on a deep one,
/// its [`DEEP_FLOOR_DIVISOR`]th, see `floors`): on small models
/// a batch keeps DRed's own over-deletion, whose counts are what a reader of a small example
/// checks, and whose cost (a millisecond or two) does not matter.
///
/// Why not [`SATURATION_FLOOR`] everywhere: on a level whose whole evaluation costs less
/// than the floor, phase 1 could never saturate, however much of it a batch over-deleted.
/// Linear TC of `go-cc` (an evaluation of 247 k units, 6 ms): deleting the 100 edges a batch
/// had just inserted over-deleted 70 k of its 97 k facts, 423 k units of phase 1 and 6.7 ×
/// `recompute` in all; with this floor it saturates, 2.7 ×.
pub const SATURATION_MIN_FLOOR: u64 = 50_000;

/// The floor of a level whose evaluation from scratch costs `evaluation`, saturating at
/// `share` of it: `floor`, but never above that share of the evaluation nor below
/// `min_floor` (a smaller `floor`, as tests give, stands).
fn effective_floor(floor: u64, evaluation: u64, share: f64, min_floor: u64) -> u64 {
    floor.min(((evaluation as f64 * share) as u64).max(min_floor))
}

/// The floors of a level: deep (see [`DEEP_SATURATION_SHARE`]) or not, the floor given and
/// the least floor, both divided by [`DEEP_FLOOR_DIVISOR`] on a deep level.
///
/// Why the least floor too: a deep level whose last saturation left it nearly empty was
/// last evaluated small, so its floor was the least one, which cost more than the
/// recomputation it was weighed against. Magic-sets reachability over a layered graph,
/// every deletion of 100 hub edges leaving 1 of 199,743 facts: each batch's phase 1 ran to
/// 5 × 10⁴ units (2 ms) before a recomputation of 1 ms, 3.0–4.1 × `recompute`; over
/// cliques, 100 bridges deleted (8,520 facts to 420): 1 ms before 0.5, 3.0–3.3 ×. A level
/// is deep only after such a saturation, so small examples, which never saturate, keep the
/// least floor.
fn floors(floor: u64, deep: bool) -> (u64, u64) {
    if deep {
        (
            floor / DEEP_FLOOR_DIVISOR,
            SATURATION_MIN_FLOOR / DEEP_FLOOR_DIVISOR,
        )
    } else {
        (floor, SATURATION_MIN_FLOOR)
    }
}

/// On a deep level (see [`DEEP_SATURATION_SHARE`]) the floor is divided by this. Why: the
/// floor keeps small examples' counts, and a deep level has already saturated past the full
/// floor; there the floor, not the share, set phase 1's budget once the level shrank (the
/// second deletion of 1,000 edges in getopts' liveness analysis: a level of 1.45 M work
/// units to evaluate, phase 1 stopped at the floor's 1 M, 106 ms, where recomputing the
/// level took 54 ms).
pub const DEEP_FLOOR_DIVISOR: u64 = 20;

impl Saturation {
    /// The work budget of phase 1 given the work of evaluating the level from scratch, and
    /// whether the level's last saturation removed [`DEEP_REMOVAL`] of it or more.
    fn budget(self, evaluation: u64, deep: bool) -> Option<u64> {
        match self {
            Saturation::Never => None,
            Saturation::Always => Some(0),
            Saturation::Share(share) => Some((evaluation as f64 * share) as u64),
            Saturation::Default => Saturation::Floor(SATURATION_FLOOR).budget(evaluation, deep),
            Saturation::Floor(floor) => {
                let share = if deep {
                    DEEP_SATURATION_SHARE
                } else {
                    SATURATION_SHARE
                };
                let (floor, min_floor) = floors(floor, deep);
                let floor = effective_floor(floor, evaluation, share, min_floor);
                Some(((evaluation as f64 * share) as u64).max(floor))
            }
        }
    }

    /// The budget of phase 1 on a level of `level_facts` derived facts whose evaluation from
    /// scratch costs `evaluation`; `deep` as for [`Saturation::budget`].
    pub(crate) fn level_budget(
        self,
        evaluation: u64,
        deep: bool,
        level_facts: usize,
    ) -> Option<Budget> {
        let (facts, floor) = match self {
            Saturation::Default => (SATURATION_FACTS, SATURATION_FLOOR),
            Saturation::Floor(floor) => (SATURATION_FACTS, floor),
            _ => (f64::INFINITY, u64::MAX),
        };
        let share = if deep {
            DEEP_SATURATION_SHARE
        } else {
            SATURATION_FACTS_FLOOR_SHARE
        };
        let (floor, min_floor) = floors(floor, deep);
        let floor = effective_floor(floor, evaluation, share, min_floor);
        self.budget(evaluation, deep).map(|work| Budget {
            work,
            // `as` saturates: an infinite share is no limit.
            facts: (level_facts as f64 * facts) as usize,
            floor,
            guard: None,
        })
    }
}

/// A budget of phase 1: past it the phase stops, D incomplete and [`Deleted::abandoned`]
/// set; past its saturation part (`work`, `facts`) [`Deleted::saturated`] is set too and the
/// caller recomputes the level (see the module's header), past its `guard` (the engine
/// `auto`'s) the caller hands the batch back.
#[derive(Clone, Debug)]
pub(crate) struct Budget {
    /// Work (probes plus rows touched) that saturates the phase (`u64::MAX`: no such
    /// limit).
    pub(crate) work: u64,
    /// IDB facts over-deleted, counted once the work passes `floor` (`usize::MAX`: no such
    /// limit).
    pub(crate) facts: usize,
    /// The work before which `facts` does not count.
    pub(crate) floor: u64,
    /// A guard's work and time.
    pub(crate) guard: Option<Guard>,
}

impl Budget {
    /// Whether phase 1 stops, having spent `spent` work and reached `facts` facts of D:
    /// `None` to go on, else whether a guard (rather than the saturation) stops it.
    fn stops(&self, spent: u64, facts: usize) -> Option<bool> {
        let saturated = spent > self.work || (spent > self.floor && facts > self.facts);
        let guarded = self.guard.as_ref().is_some_and(|g| g.passed(spent));
        (saturated || guarded).then_some(guarded)
    }
}

/// The share of a level's facts whose over-deletion saturates phase 1 by default, whatever
/// its work (once past the level's floor, [`SATURATION_FLOOR`] or less).
///
/// Why: every over-deleted fact costs phase 1 its instances and phase 2 a search, and
/// over-deletion that reaches a tenth of a level rarely stops short of much more. The work
/// share alone waits for half an evaluation of the level *before* the batch: on getopts'
/// liveness analysis the first deletion of 1,000 control-flow edges (which removes 2.11 M of
/// the level's 2.33 M facts) spent 6.1 M probes and rows over-deleting 439 k facts, 14 a
/// fact where evaluating the level costs 6, and 205 ms of the batch's 250 ms, where
/// recomputing the whole model took 31 ms. Stopped at 210 k facts, phase 1 spent 2.9 M and
/// the batch 177 ms (recomputing: 40 ms), in one run each.
pub const SATURATION_FACTS: f64 = 0.1;

/// The share of a level's evaluation past which [`SATURATION_FACTS`] counts, on a level
/// cheaper to evaluate than ten times [`SATURATION_FLOOR`] (never below
/// [`SATURATION_MIN_FLOOR`]).
///
/// Why not [`SATURATION_SHARE`], as until session 48: on a level cheaper to evaluate than
/// twice the floor, the facts then counted only once the work itself saturated phase 1, so
/// a deletion that over-deleted half the level at once ran to its end. Linear TC of a layered
/// graph (190 k facts, an evaluation of 1.2 M units), 100 edges deleted: about 100 k facts
/// over-deleted and 90 k rederived, phase 1 14 ms and phase 2 24 ms a batch, 2.5 ×
/// `recompute`; GO MF's (83 k facts), 1,000 edges deleted: 20–34 k over-deleted, 1.6–2.6 ×.
pub const SATURATION_FACTS_FLOOR_SHARE: f64 = 0.1;

/// The result of phase 1: the chassis's deleted set D, its frontiers as rounds.
pub type OverDeleted = Deleted;

/// What phase 1 keeps from batch to batch: the heads found lately ([`RecentHeads`]), and
/// the room of the heads held and of the versions its joins read, so that a batch allocates
/// none of them (with phase 2's, a single-edge deletion from two-hop paths allocated 14 heap
/// blocks and now 3; no change of its time was measurable, see `results/LOG.md`, session 54).
#[derive(Clone, Debug, Default)]
pub(crate) struct Phase1Scratch {
    recent: RecentHeads,
    heads: HeadProbes,
    versions: Vec<Versions>,
}

/// Phase 1's per-run scratch that a lookup of heads updates: the heads held, those found
/// lately, the marks of D, and the first relation found not closed.
type Scratch<'a> = (
    &'a mut HeadProbes,
    &'a mut RecentHeads,
    &'a mut RowMarks,
    &'a mut Option<RelId>,
);

/// What starts phase 1 at one level.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Seeds<'a> {
    /// Level 0: D-, present EDB facts; round 1.
    Deleted(&'a [Fact]),
    /// A level above 0: rows of lower relations (the EDB included) that the batch removed
    /// (seeding positive atoms) and added (seeding negated atoms), all live while the phase
    /// runs: the relations are shown as they were before the batch.
    Lower {
        /// The level, above 0.
        level: usize,
        /// Facts the lower relations lost.
        removed: &'a [RowRef],
        /// Facts the lower relations gained.
        added: &'a [RowRef],
        /// Facts of the level over-deleted outright, in round 1: the old rows of the
        /// aggregate relations whose groups changed below.
        given: &'a [RowRef],
    },
}

impl Seeds<'_> {
    fn is_empty(&self) -> bool {
        match self {
            Seeds::Deleted(d) => d.is_empty(),
            Seeds::Lower {
                removed,
                added,
                given,
                ..
            } => removed.is_empty() && added.is_empty() && given.is_empty(),
        }
    }

    /// The level the seeds start.
    pub(crate) fn level(&self) -> usize {
        match self {
            Seeds::Deleted(_) => 0,
            Seeds::Lower { level, .. } => *level,
        }
    }
}

/// Runs phase 1 of the seeds' level over `relations` (the old model, all live). `in_d` and
/// `scratch` are kept across batches (reset here): the marks of the facts of D, and the heads
/// found lately with the phase's scratch space ([`Phase1Scratch`]).
/// The result is written into `out` (an earlier batch's, emptied first: its memory is reused).
/// With `rec`, each fact of D is recorded with the instance that reached it first. With a
/// `budget` (work: probes plus rows touched), the phase stops once past it (see
/// [`Budget`]).
#[allow(clippy::too_many_arguments)]
pub(crate) fn overdelete(
    program: &Program,
    relations: &[Relation],
    plans: &Plans,
    seeds: Seeds<'_>,
    in_d: &mut RowMarks,
    scratch: &mut Phase1Scratch,
    mut out: OverDeleted,
    mut rec: Option<&mut Recorder>,
    budget: Option<Budget>,
) -> OverDeleted {
    SpareRows::reuse(&mut out.deleted);
    SpareRows::reuse(&mut out.overdeleted_idb);
    out.spare.keep_all(&mut out.rounds);
    out.work = Work::default();
    out.not_closed = None;
    out.saturated = false;
    out.abandoned = false;
    out.reached_when_stopped = 0;
    let level = seeds.level();
    // Nothing deleted: D is empty, no round, and no per-batch scratch.
    if seeds.is_empty() {
        return out;
    }
    let Phase1Scratch {
        recent,
        heads,
        versions,
    } = scratch;
    versions.clear();
    versions.extend(relations.iter().map(Versions::complete));
    heads.clear();
    let work = WorkCounter::default();
    let matcher = Matcher {
        relations,
        versions,
        work: &work,
    };
    in_d.reset(relations);
    recent.begin();
    let mut frontier = out.spare.take();
    // A head reached is in the old model (closed under the rules); it joins D once. So does
    // a fact of D-, which is normalised against the EDB: every one is present.
    // A head found again is in D already, so it may be skipped ([`RecentHeads`]).
    // One that is not there is noted in `not_closed` (a broken invariant, reported by the
    // caller as an error, never a panic).
    let mut not_closed = None;
    let reach = |heads: &mut HeadProbes,
                 recent: &mut RecentHeads,
                 in_d: &mut RowMarks,
                 next: &mut Vec<RowRef>,
                 not_closed: &mut Option<RelId>| {
        heads.drain_noting(relations, recent, |rel, h| {
            match h.filter(|&h| relations[rel].is_live(h)) {
                Some(h) => {
                    if in_d.insert(rel, h) {
                        next.push((rel, h));
                    }
                }
                None => {
                    not_closed.get_or_insert(rel);
                }
            }
        });
    };
    // Recording: seeded `plan` on `row`, each head looked up at once, so that a fact joining
    // D (in `into`, of round `round`) is recorded with the instance at hand.
    let reach_recording =
        |rec: &mut Recorder,
         plan: &crate::plan::RulePlan,
         row: &[crate::value::Value],
         (into, round): (&mut Vec<RowRef>, usize),
         (heads, recent, in_d, not_closed): Scratch<'_>| {
            matcher.for_each_seeded(plan, row, &mut |vars| {
                work.probe(1);
                heads.push_instance(relations, plan, vars);
                let before = into.len();
                reach(heads, recent, in_d, into, not_closed);
                for &(hrel, h) in &into[before..] {
                    let head = relations[hrel].row(h);
                    let rule = Some(plan.rule);
                    rec.note(level, Phase::Overdelete, round, hrel, head, rule, vars);
                }
            });
        };
    match seeds {
        Seeds::Deleted(deletions) => {
            for f in deletions {
                work.probe(1);
                heads.push(relations, f.rel, &f.tuple);
                if let Some(rec) = rec.as_deref_mut() {
                    rec.note(level, Phase::Overdelete, 1, f.rel, &f.tuple, None, &[]);
                }
                if heads.is_full() {
                    reach(&mut *heads, recent, in_d, &mut frontier, &mut not_closed);
                }
            }
        }
        Seeds::Lower {
            removed,
            added,
            given,
            ..
        } => {
            for &(rel, r) in given {
                if in_d.insert(rel, r) {
                    frontier.push((rel, r));
                    if let Some(rec) = rec.as_deref_mut() {
                        let row = relations[rel].row(r);
                        rec.note(level, Phase::Overdelete, 1, rel, row, None, &[]);
                    }
                }
            }
            // head :- ..., b_i = a lost fact, ... and head :- ..., !n = a gained fact, ...:
            // instances of the old relations that no longer hold. Under a budget from the
            // first lower fact: on getopts' liveness analysis this round alone spent 4.4
            // times a deep level's budget.
            'seeding: for (rows, negated) in [(removed, false), (added, true)] {
                for &(rel, r) in rows {
                    let spent = work.total().probes + work.total().touched;
                    if let Some(guarded) =
                        budget.as_ref().and_then(|b| b.stops(spent, frontier.len()))
                    {
                        out.abandoned = true;
                        out.saturated = !guarded;
                        out.reached_when_stopped = frontier.len();
                        break 'seeding;
                    }
                    let row = relations[rel].row(r);
                    let seeded = if negated {
                        plans.negated(level, rel)
                    } else {
                        plans.seeded(level, rel)
                    };
                    for plan in seeded {
                        if let Some(rec) = rec.as_deref_mut() {
                            let into = (&mut frontier, 1);
                            let scratch = (&mut *heads, &mut *recent, &mut *in_d, &mut not_closed);
                            reach_recording(rec, plan, row, into, scratch);
                            continue;
                        }
                        matcher.for_each_seeded(plan, row, &mut |vars| {
                            work.probe(1);
                            heads.push_instance_unless_recent(relations, plan, vars, recent);
                        });
                        if heads.is_full() {
                            reach(&mut *heads, recent, in_d, &mut frontier, &mut not_closed);
                        }
                    }
                }
            }
        }
    }
    reach(&mut *heads, recent, in_d, &mut frontier, &mut not_closed);
    let spent = |work: &WorkCounter| {
        let w = work.total();
        w.probes + w.touched
    };
    // Stopped while seeding: D is incomplete and the caller discards it.
    while !frontier.is_empty() && !out.abandoned {
        out.deleted.extend(&frontier);
        out.overdeleted_idb
            .extend(frontier.iter().filter(|(rel, _)| program.is_idb(*rel)));
        let mut next = out.spare.take();
        let round = out.rounds.len() + 2;
        for (i, &(rel, r)) in frontier.iter().enumerate() {
            // The heads this round has reached count too (all derived facts): one round can
            // over-delete most of a level, and counted only at the next round's start the
            // facts' rule fired after it (a hub's 100 edges deleted under a magic-sets
            // reachability over a layered graph: 1,100 facts at the start of a round that
            // reached 57,826 more, past a rule of 19,974, for 7.1 M work against 1 M).
            let facts = out.overdeleted_idb.len() + next.len();
            if let Some(guarded) = budget.as_ref().and_then(|b| b.stops(spent(&work), facts)) {
                out.abandoned = true;
                out.saturated = !guarded;
                out.reached_when_stopped = facts;
                break;
            }
            prefetch_frontier(&matcher, plans, level, &frontier, i);
            let row = relations[rel].row(r);
            for plan in plans.seeded(level, rel) {
                if let Some(rec) = rec.as_deref_mut() {
                    let into = (&mut next, round);
                    let scratch = (&mut *heads, &mut *recent, &mut *in_d, &mut not_closed);
                    reach_recording(rec, plan, row, into, scratch);
                    continue;
                }
                // head :- ..., body_i = the frontier fact, ... (other atoms over old facts)
                matcher.for_each_seeded(plan, row, &mut |vars| {
                    work.probe(1);
                    heads.push_instance_unless_recent(relations, plan, vars, recent);
                });
                if heads.is_full() {
                    reach(&mut *heads, recent, in_d, &mut next, &mut not_closed);
                }
            }
        }
        reach(&mut *heads, recent, in_d, &mut next, &mut not_closed);
        if out.abandoned {
            // What `next` reached stays live: recomputing the level deletes it.
            out.rounds.push(std::mem::take(&mut frontier));
            out.spare.keep(next);
            break;
        }
        out.rounds.push(std::mem::replace(&mut frontier, next));
    }
    out.spare.keep(frontier);
    out.work = work.total();
    out.not_closed = not_closed;
    out
}

/// How many frontier facts ahead phase 1 starts loading a fact's values, and the index
/// entries of its delta rules' first lookups.
const VALUES_AHEAD: usize = 12;
const ENTRIES_AHEAD: usize = 8;

/// Hints for the frontier facts ahead of fact `i`: their delta rules' lookups are
/// independent of fact `i`'s, so their cache misses can overlap its work
/// ([`Matcher::prefetch_start`]). Changes no result.
///
/// Why: on R-MAT `reach_root` deletions run after another engine's turn (its tables out of
/// the cache), two thirds of `dred`'s last-level misses were phase 1's, taken one after
/// another: each fact's index entry, then the rows of its group (callgrind, 2 MB cache).
fn prefetch_frontier(
    matcher: &Matcher,
    plans: &Plans,
    level: usize,
    frontier: &[RowRef],
    i: usize,
) {
    let relations = matcher.relations;
    if let Some(&(rel, r)) = frontier.get(i + VALUES_AHEAD) {
        relations[rel].prefetch_values(r);
    }
    if let Some(&(rel, r)) = frontier.get(i + ENTRIES_AHEAD) {
        let row = relations[rel].row(r);
        for plan in plans.seeded(level, rel) {
            matcher.prefetch_start(plan, row);
        }
    }
}

#[cfg(test)]
mod budget_tests {
    use super::*;

    /// A level cheaper to evaluate than twice the floor saturates at half its evaluation
    /// (never below the least floor), and by its facts past a tenth of it; a larger level
    /// keeps the floor; a deep level its twentieth, and the least floor's twentieth; a
    /// test's small floor stands.
    #[test]
    fn the_floor_never_passes_the_share_of_a_small_levels_evaluation() {
        let budget = |s: Saturation, evaluation, deep| {
            s.level_budget(evaluation, deep, 100_000)
                .map(|b| (b.work, b.floor, b.facts))
        };
        // go-cc's linear TC: an evaluation of 247 k units. The facts count past a tenth of
        // it, at least the least floor.
        assert_eq!(
            budget(Saturation::Default, 247_000, false),
            Some((123_500, SATURATION_MIN_FLOOR, 10_000))
        );
        // A layered graph's TC: 1.2 M units.
        assert_eq!(
            budget(Saturation::Default, 1_200_000, false),
            Some((600_000, 120_000, 10_000))
        );
        assert_eq!(
            budget(Saturation::Default, 40_000, false),
            Some((SATURATION_MIN_FLOOR, SATURATION_MIN_FLOOR, 10_000))
        );
        assert_eq!(
            budget(Saturation::Default, 10_000_000, false),
            Some((5_000_000, SATURATION_FLOOR, 10_000))
        );
        assert_eq!(
            budget(Saturation::Default, 1_000_000, true),
            Some((100_000, SATURATION_FLOOR / DEEP_FLOOR_DIVISOR, 10_000))
        );
        // A deep level last evaluated nearly empty: the least floor's twentieth.
        let least = SATURATION_MIN_FLOOR / DEEP_FLOOR_DIVISOR;
        assert_eq!(
            budget(Saturation::Default, 1_000, true),
            Some((least, least, 10_000))
        );
        assert_eq!(
            budget(Saturation::Default, 1_000, false),
            Some((SATURATION_MIN_FLOOR, SATURATION_MIN_FLOOR, 10_000))
        );
        assert_eq!(
            budget(Saturation::Floor(10), 247_000, false),
            Some((123_500, 10, 10_000))
        );
        assert_eq!(budget(Saturation::Never, 247_000, false), None);
    }
}
