//! The production DRed engine (`dred`): the three phases of SPEC §4 without materialising
//! ground instances — delta rules evaluated over indexed relations.
//!
//! State between batches is only the model: one [`Relation`](crate::storage::Relation) per relation (EDB and IDB) with
//! the indexes the plans need, kept up to date through all three phases instead of rebuilt.
//! Deletion leaves tombstones (row ids stay valid while a batch runs); relations are compacted
//! between batches once tombstones outnumber live rows.
//!
//! Per batch:
//! 1. [`overdelete`]: from D- outwards, a rule fires when one body atom matches a frontier
//!    fact and the others match the *old* relations — nothing is removed until the phase
//!    ends, so the relations are the old ones throughout;
//! 2. [`rederive`]: round 1 looks, for every over-deleted fact, for one instance with the
//!    head bound whose body holds in the survivors (or, when most of a relation was
//!    over-deleted, enumerates the rule's instances over the survivors once); round k+1
//!    follows delta rules from the facts restored in round k — an instance not available
//!    in round k must use one — or searches again for each fact still pending, whichever
//!    is estimated cheaper;
//! 3. [`insert`](crate::maintain::insert): semi-naive evaluation over the updated relations, the delta in any body
//!    position (EDB atoms included), starting from A+.
//!
//! Rounds are Jacobi rounds — what a round finds becomes visible in the next — so the
//! frontiers equal those of the reference engine fact for fact.
//!
//! With negation, the batch runs the three phases per level (see [`crate::dred`]), each
//! level with its own rules' plans only; the levels below hand up their net changes as rows
//! (`LowerChanges`), which also show phase 1 the relations as they were before the batch.
//!
//! Cost: phase 1 is proportional to the instances through over-deleted facts, phase 2 to
//! one bounded search per over-deleted fact plus the instances through restored facts,
//! phase 3 to the instances through new facts. Memory: the model, its indexes and, during a
//! batch, the sets of that batch.
//!
//! This module is DRed's deletion on the chassis ([`crate::maintain`]): its state between
//! batches ([`DredDeletion`]) and how a level's phases 1 and 2 run. The storage, the plans,
//! the levels and phase 3 ([`crate::maintain::insert`]) are the chassis's; beside this module
//! are the batched head lookups (`heads.rs`) and phase 2's cost model ([`rederive_cost`]).

pub mod overdelete;
pub mod rederive;
pub mod rederive_cost;

pub(crate) mod heads;

use std::collections::HashSet;
use std::sync::Arc;
use std::time::Instant;

use crate::engine::{BatchReport, EngineError, Fact, Phase};
use crate::maintain::levels::{aggregate_outcome, LowerChanges};
use crate::maintain::plans::AggregatePlan;
use crate::maintain::recompute::Recompute;
use crate::maintain::{Deleted, Deletion, Guard, LevelDeletion, Maintained, RowRef, Store};
use crate::program::{Program, RelId};
use crate::storage::RowMarks;
use crate::value::Tuple;
use rederive_cost::RederiveCosts;

/// The production DRed engine: the chassis with DRed's over-deletion and rederivation.
/// Cloning copies the whole model (benchmarks use it to replay one batch from the same state).
pub type Dred = Maintained<DredDeletion>;

/// DRed's deletion (phases 1 and 2) and what it keeps between batches: the measured costs of
/// its choices and its scratch sets.
#[derive(Clone, Debug)]
pub struct DredDeletion {
    /// The measured cost of each order of the head-bound checks and of round-1 scans, kept
    /// across batches.
    rederive_costs: RederiveCosts,
    /// Phase 1's marks of D and phase 2's of the facts still pending: kept across batches so
    /// that a batch clears only the marks it made (see [`RowMarks`]).
    deleted_marks: RowMarks,
    pending_marks: RowMarks,
    /// Phase 1's heads found lately ([`heads::RecentHeads`]) and its scratch space, kept across
    /// batches.
    phase1: overdelete::Phase1Scratch,
    /// The result of the last phase 2, emptied and filled again by the next (its vectors'
    /// memory kept).
    last_rederived: rederive::Rederived,
    /// When phase 1 over-deletes a level wholesale ([`overdelete::Saturation`]).
    pub(crate) saturation: overdelete::Saturation,
    /// How many levels of the last batch saturated.
    saturated: usize,
    /// Per level, whether its last saturation removed [`overdelete::DEEP_REMOVAL`] of its
    /// facts or more, or had reached [`overdelete::SATURATION_FACTS`] of them before phase
    /// 1 stopped (the next phase 1 there saturates sooner).
    deep: Vec<bool>,
}

impl DredDeletion {
    /// Nothing measured yet, for the program and plans of `store`.
    pub(crate) fn new(store: &mut Store) -> Self {
        DredDeletion {
            rederive_costs: RederiveCosts::new(&store.program, &store.plans.head_bound),
            deleted_marks: RowMarks::default(),
            pending_marks: RowMarks::default(),
            phase1: overdelete::Phase1Scratch::default(),
            last_rederived: rederive::Rederived::default(),
            saturation: overdelete::Saturation::default(),
            saturated: 0,
            deep: vec![false; store.program.num_levels().max(1)],
        }
    }

    /// Phase 1 of one level: D from `seeds` (nothing removed yet), and whether a guard's
    /// budget (rather than DRed's own saturation) stopped it. Above level 0 the caller shows
    /// the relations below as they were before the batch while it runs
    /// ([`LowerChanges::show_old`]); D holds only the level's facts.
    fn overdelete_level(
        &mut self,
        store: &mut Store,
        seeds: overdelete::Seeds<'_>,
        reuse: Deleted,
    ) -> Result<(Deleted, bool), EngineError> {
        assert!(store.materialised, "dred: overdelete before materialise");
        // Saturation at every level, but not while recording (explain shows DRed's own
        // frontiers). Why above level 0 too: a liveness analysis's large recursive
        // components sit above a negation (level 1 of nll_liveness_init), and following their
        // instances cost 200 times a recomputation there (the full study of 2026-12-04).
        // Under a guard's budget (auto's) too: a guarded DRed that over-deleted until the
        // guard's larger budget cost `auto` twice `dred` on those levels (6.0 against 3.1
        // times recomputing, `results/analyses/2026-12-04-replaced`).
        let level = seeds.level();
        let saturation = if store.recorder.is_none() && store.budget.is_none_or(|b| b.saturate) {
            let evaluation = store.evaluation_work.get(level).copied().unwrap_or(0);
            let deep = self.deep.get(level).copied().unwrap_or(false);
            self.saturation
                .level_budget(evaluation, deep, store.level_idb_len(level))
        } else {
            None
        };
        let budget = match (store.budget, saturation) {
            (Some(guard), Some(saturation)) => Some(overdelete::Budget {
                guard: Some(Guard::new(guard.find, guard.deadlines.map(|d| d.0))),
                ..saturation
            }),
            (Some(guard), None) => Some(overdelete::Budget {
                work: u64::MAX,
                facts: usize::MAX,
                floor: u64::MAX,
                guard: Some(Guard::new(guard.find, guard.deadlines.map(|d| d.0))),
            }),
            (None, saturation) => saturation,
        };
        let over = overdelete::overdelete(
            &store.program,
            &store.relations,
            &store.plans,
            seeds,
            &mut self.deleted_marks,
            &mut self.phase1,
            reuse,
            store.recorder.as_mut(),
            budget,
        );
        if let Some(rel) = over.not_closed {
            return Err(store.invariant(format!("phase 1: {}", store.not_closed_message(rel))));
        }
        let guarded = over.abandoned && !over.saturated;
        Ok((over, guarded))
    }

    /// Phase 2: restores the over-deleted facts that still have a proof, `given` standing for
    /// the program facts (those of it over-deleted are restored in round 1 without a search).
    fn rederive(
        &mut self,
        store: &mut Store,
        over: &Deleted,
        given: Option<&HashSet<(RelId, Tuple)>>,
    ) -> rederive::Rederived {
        // What phase 1 left of a guard's budget.
        let budget = store.budget.map(|b| {
            let left = b.total.saturating_sub(over.work.probes + over.work.touched);
            Guard::new(left, b.deadlines.map(|d| d.1))
        });
        rederive::rederive(
            &store.program,
            &mut store.relations,
            &store.plans,
            &mut self.rederive_costs,
            given.unwrap_or(&store.program_facts),
            &over.overdeleted_idb,
            &mut self.pending_marks,
            std::mem::take(&mut self.last_rederived),
            store.recorder.as_mut(),
            budget,
        )
    }

    /// A saturated level's outcome: phase 1 (`over`) passed its budget and removed nothing,
    /// and the level's affected strata were recomputed (`recomputed`). The level's next
    /// budget follows the recomputation's work; phase 1's work counts as deletion's.
    fn saturated_outcome(
        &mut self,
        store: &mut Store,
        level: usize,
        over: Deleted,
        mut recomputed: LevelDeletion,
    ) -> LevelDeletion {
        self.saturated += 1;
        if let Some(work) = store.evaluation_work.get_mut(level) {
            *work = recomputed.restore_work.probes + recomputed.restore_work.touched;
        }
        // The level's facts before the batch: the recomputed relations' and those deleted
        // row by row (at level 0, D- too, which holds EDB facts only and no IDB ones).
        let before: usize = recomputed
            .replaced
            .iter()
            .map(|x| x.old.len())
            .sum::<usize>()
            + recomputed.deleted.overdeleted_idb.len();
        let removed = before.saturating_sub(recomputed.restored);
        // Deep too when phase 1 had reached a tenth of the level, the share at which it
        // gives up by facts: the over-deletion was large by phase 1's own measure. Why not
        // the net removal alone: on a cyclic level a deletion over-deletes nearly every
        // fact and the recomputation restores nearly all of them, so the level went back to
        // the full share, and the next such deletion spent half an evaluation in phase 1
        // again (magic-sets reachability over cliques, 100 edges deleted: 12–14 ms of
        // phase 1 where a recomputation took 3 ms).
        let at_least = |n: usize, share: f64| n as f64 >= share * before as f64;
        if let Some(deep) = self.deep.get_mut(level) {
            *deep = before > 0
                && (at_least(removed, overdelete::DEEP_REMOVAL)
                    || at_least(over.reached_when_stopped, overdelete::SATURATION_FACTS));
        }
        recomputed.deleted.saturated = true;
        recomputed.deleted.work += over.work;
        recomputed
    }

    /// A level's outcome after phase 2: D (`over`, removed), what phase 2 restored and
    /// phase 3's aggregate rows; `re`'s memory is kept for the next phase 2.
    fn outcome(
        &mut self,
        store: &Store,
        level: usize,
        over: Deleted,
        re: rederive::Rederived,
        restore_ns: u64,
        additions: Vec<Vec<Tuple>>,
    ) -> LevelDeletion {
        let mut rounds = store.rounds(level, Phase::Overdelete, &over.rounds);
        rounds.extend(store.rounds(level, Phase::Rederive, &re.rounds));
        let mut over = over;
        over.abandoned |= re.abandoned;
        let outcome = LevelDeletion {
            deleted: over,
            restored: re.rederived,
            appended: 0,
            restore_work: re.work,
            restore_ns,
            rounds,
            additions,
            complete: false,
            replaced: Vec::new(),
        };
        self.last_rederived = re;
        outcome
    }
}

/// A level whose phase 1 passed the guard's budget: nothing removed (D is left empty, its
/// work counted), so that the caller may try another algorithm on the same model.
fn abandoned(mut over: Deleted) -> LevelDeletion {
    over.deleted.clear();
    over.overdeleted_idb.clear();
    over.rounds.clear();
    LevelDeletion {
        deleted: over,
        ..LevelDeletion::default()
    }
}

impl Deletion for DredDeletion {
    fn name(&self) -> &'static str {
        "dred"
    }

    fn delete_level0(
        &mut self,
        store: &mut Store,
        deletions: &[Fact],
        reuse: Deleted,
    ) -> Result<LevelDeletion, EngineError> {
        let seeds = overdelete::Seeds::Deleted(deletions);
        let (mut over, guarded) = self.overdelete_level(store, seeds, reuse)?;
        self.saturated = 0;
        if guarded || (over.abandoned && store.budget.is_some_and(|b| b.saturation_abandons)) {
            return Ok(abandoned(over));
        }
        if over.abandoned {
            let level = Recompute.delete_level0(store, deletions, Deleted::default())?;
            return Ok(self.saturated_outcome(store, 0, over, level));
        }
        store.remove_deleted(&mut over);
        let t = Instant::now();
        let re = self.rederive(store, &over, None);
        let ns = t.elapsed().as_nanos() as u64;
        Ok(self.outcome(store, 0, over, re, ns, Vec::new()))
    }

    fn delete_level(
        &mut self,
        store: &mut Store,
        level: usize,
        changes: &LowerChanges,
        touched: &[(AggregatePlan, Tuple)],
        old_rows: &[Option<RowRef>],
    ) -> Result<LevelDeletion, EngineError> {
        let given: Vec<RowRef> = old_rows.iter().flatten().copied().collect();
        let seeds = overdelete::Seeds::Lower {
            level,
            removed: &changes.removed,
            added: &changes.added,
            given: &given,
        };
        let over = self.overdelete_level(store, seeds, Deleted::default());
        changes.show_new(&mut store.relations);
        let (mut over, guarded) = over?;
        if guarded {
            return Ok(abandoned(over));
        }
        if over.abandoned {
            let recomputed = Recompute::level_above(store, level, changes);
            return Ok(self.saturated_outcome(store, level, over, recomputed));
        }
        store.remove_deleted(&mut over);

        let t = Instant::now();
        // A row whose value stays is restored in round 1 as a program fact is (it needs no
        // search).
        let (additions, kept) =
            aggregate_outcome(&store.program, &store.relations, touched, old_rows);
        let stays: Vec<(RelId, Tuple)> = old_rows
            .iter()
            .zip(&kept)
            .filter_map(|(old, &kept)| old.filter(|_| kept))
            .map(|(rel, r)| (rel, store.relations[rel].row(r).to_vec()))
            .collect();
        let re = if stays.is_empty() {
            self.rederive(store, &over, None)
        } else {
            let mut given = store.program_facts.clone();
            given.extend(stays);
            self.rederive(store, &over, Some(&given))
        };
        let ns = t.elapsed().as_nanos() as u64;
        Ok(self.outcome(store, level, over, re, ns, additions))
    }

    fn report(&mut self, _store: &Store, report: &mut BatchReport) {
        report.saturated = Some(self.saturated);
    }
}

impl Maintained<DredDeletion> {
    /// A `dred` engine for a program, with or without stratified negation.
    pub fn new(program: Arc<Program>) -> Self {
        Self::with(program, DredDeletion::new)
    }

    /// When phase 1 saturates from now on (the default: past half the work of evaluating
    /// the level from scratch, and past [`overdelete::SATURATION_FLOOR`]). `Never` gives the
    /// reference engine's frontiers.
    pub fn set_saturation(&mut self, saturation: overdelete::Saturation) {
        self.deletion.saturation = saturation;
    }

    /// Phase 1 on the current model: D from `deletions` (the D- of a normalised batch, so
    /// every fact is present), then D removed. Call [`Dred::rederive`] with the result next:
    /// until then the model lacks every over-deleted fact. Panics before
    /// [`Engine::materialise`](crate::Engine::materialise). An error, and nothing removed,
    /// when a fact of D is not in the model (the model was not closed under the rules, or D-
    /// not normalised); the engine refuses every later batch then.
    pub fn overdelete(
        &mut self,
        deletions: &[Fact],
    ) -> Result<overdelete::OverDeleted, EngineError> {
        // An earlier batch that saturated may have left indexes deferred.
        self.store.build_deferred_indexes();
        let reuse = self.take_last_deleted();
        let seeds = overdelete::Seeds::Deleted(deletions);
        let over = self
            .deletion
            .overdelete_level(&mut self.store, seeds, reuse);
        let (mut over, _) = over.map_err(|e| self.failed(e))?;
        self.store.remove_deleted(&mut over);
        Ok(over)
    }

    /// Phase 2: restores the over-deleted facts that still have a proof. `over` must be the
    /// result of the [`Dred::overdelete`] just before (its row ids index this model).
    pub fn rederive(&mut self, over: &overdelete::OverDeleted) -> rederive::Rederived {
        self.deletion.rederive(&mut self.store, over, None)
    }

    /// How round 1 of rederivation finds proofs from now on; the default picks per rule by
    /// estimated cost. Results do not depend on it (tests run every choice).
    pub fn set_round1(&mut self, round1: rederive::Round1) {
        self.deletion.rederive_costs.round1 = round1;
    }

    /// How rounds 2 and later of rederivation find proofs from now on; the default picks per
    /// round by estimated cost. Results do not depend on it (tests run every choice).
    pub fn set_later_rounds(&mut self, later: rederive::LaterRounds) {
        self.deletion.rederive_costs.later_rounds = later;
    }
}

#[cfg(test)]
mod tests;
