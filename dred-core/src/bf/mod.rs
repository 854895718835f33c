//! The Backward/Forward maintenance engine (`bf`), after Motik, Nenov, Piro and Horrocks,
//! "Incremental Update of Datalog Materialisation: the Backward/Forward Algorithm", AAAI 2015:
//! the B/F algorithm the paper presents — a deletion loop over a queue of facts, with the
//! procedures `checkProvability` (backward chaining, memoised in the sets C and P) and
//! `saturate` (forward chaining restricted to C). The paper's text could not be read from this
//! machine when the engine was written (no network), so we cite the algorithm rather than a
//! section and page, state what is implemented here in full, and test it against the oracle
//! and against the property the paper proves for B/F (it deletes only facts without a
//! derivation), not against the paper's pseudocode.
//!
//! Where DRed deletes every fact with an old derivation through a deleted fact and then puts
//! back those that still have one, B/F asks first: before a fact reached from a deletion is
//! deleted, a *check* ([`check`]) looks backwards for a derivation from facts that are still
//! proved; only a fact without one is deleted, and only its consequences are followed
//! ([`delete`]). Insertions then run semi-naively, exactly as `dred`'s phase 3.
//!
//! Per batch and level (levels as in [`crate::dred`]: level 0 from D- and A+, each level above
//! from the net changes of those below):
//! 1. **delete** ([`delete`]): at level 0, D- leaves the model; above, the level's facts
//!    reached from the changes below through an *old* instance (as DRed's phase 1 finds its
//!    round 1, over the relations as they were) are checked. Then, round by round, the heads
//!    of instances through a fact just deleted are checked, over the level's facts not deleted
//!    yet and the new relations below, and those found underivable are deleted. Checks are
//!    memoised for the whole level: the sets C (checked) and P (proved) only grow. The
//!    level's aggregate rows of changed groups are checked by their group's new value.
//! 2. **insert**: the chassis's phase 3 ([`crate::maintain::insert`]), as `dred`'s.
//!
//! What B/F guarantees (tested by `bf_deletes_exactly_what_lost_every_derivation`): on a
//! positive program its deleted set is the old IDB minus the least model of the program over
//! E \ E− — no fact is deleted that still has a derivation, so nothing is put back — and, on a
//! batch without insertions, the batch's net removal. It reports `overdeleted` = the facts it
//! deleted, `rederived` = 0, and `checked`, `disproved` (= deleted, checked by the engine) and
//! `backward_instances`. Trace rounds are phase `delete` (round 1: D-, or at a level above the
//! candidates found underivable) and `insert`.
//!
//! Cost: per batch, the checks (per checked fact, its instances with the head bound, the first
//! one whose body is proved ending the search) plus the instances through deleted facts plus
//! phase 3. A check may explore much of the model when many facts depend on one another
//! through cycles whose facts all lost their outside support (the paper's worst case); DRed
//! pays the same facts in over-deletion and rederivation. Memory: the model and its indexes,
//! B/F's head-bound plans, and during a batch the sets C and P (one bit a row) and the open
//! body facts of the instances of facts not proved at once.
//!
//! The engine is the chassis ([`crate::maintain`]: storage, plans, executor, levels and
//! insertion, as `dred`'s) with B/F's deletion ([`BfDeletion`]) in place of DRed's phases 1
//! and 2; it stores no instances between batches.

pub mod check;
pub mod delete;
#[cfg(test)]
mod tests;

use std::sync::Arc;

use crate::engine::{BatchReport, EngineError, Fact, Phase};
use crate::maintain::levels::{aggregate_outcome, LowerChanges};
use crate::maintain::plans::AggregatePlan;
use crate::maintain::{Deleted, Deletion, Guard, LevelDeletion, Maintained, RowRef, Store};
use crate::program::Program;
use crate::storage::RowMarks;
use crate::value::Tuple;
use check::{BackwardPlans, CheckCounts, Checker};

/// The Backward/Forward engine: the chassis with B/F's deletion. Cloning copies the whole
/// model.
pub type Bf = Maintained<BfDeletion>;

/// B/F's deletion and what it keeps between batches: its head-bound plans and scratch sets.
#[derive(Clone, Debug)]
pub struct BfDeletion {
    /// B/F's head-bound plans.
    backward: BackwardPlans,
    /// B/F's sets of checked and proved facts, and the marks of D and of the facts it
    /// queued: scratch kept across batches.
    checker: Checker,
    deleted_marks: RowMarks,
    queued_marks: RowMarks,
    /// The checks of the last batch, level after level, in the order they began, with their
    /// outcome (kept only while facts are traced).
    last_checks: Vec<(Fact, bool)>,
    /// The checks of the batch, summed over its levels.
    batch_checks: CheckCounts,
}

impl BfDeletion {
    /// B/F's plans for the program of `store`, their indexes created in its relations.
    pub(crate) fn new(store: &mut Store) -> Self {
        let backward = BackwardPlans::new(&store.program, &mut store.relations);
        let checker = Checker::new(&backward);
        BfDeletion {
            backward,
            checker,
            deleted_marks: RowMarks::default(),
            queued_marks: RowMarks::default(),
            last_checks: Vec::new(),
            batch_checks: CheckCounts::default(),
        }
    }

    /// B/F's deletion of one level ([`delete`]), D removed from the model. An error when a
    /// fact of D- or a head reached is not in the model, or when the checks' postcondition
    /// fails.
    fn delete_unproved(
        &mut self,
        store: &mut Store,
        level: usize,
        start: delete::Start<'_>,
        reuse: Deleted,
    ) -> Result<LevelDeletion, EngineError> {
        assert!(store.materialised, "bf: delete before materialise");
        let context = delete::DeleteContext {
            program: &store.program,
            plans: &store.plans,
            backward: &self.backward,
            program_facts: &store.program_facts,
            checker: &mut self.checker,
            in_d: &mut self.deleted_marks,
            queued: &mut self.queued_marks,
            budget: store
                .budget
                .map(|b| Guard::new(b.total, b.deadlines.map(|d| d.1))),
        };
        let rec = store.recorder.as_mut();
        let outcome = delete::delete(context, &mut store.relations, level, start, reuse, rec);
        if level == 0 {
            self.last_checks.clear();
        }
        // A level with nothing to check leaves the checker as the last level that checked.
        let checked = outcome.as_ref().is_ok_and(|(_, counts)| counts.checked > 0);
        if store.trace_facts && checked {
            let checks = self
                .checker
                .outcomes()
                .map(|(f, proved)| (store.fact(f), proved));
            self.last_checks.extend(checks);
        }
        let (over, counts) = match outcome {
            Ok((over, _)) if over.not_closed.is_some() => {
                let rel = over.not_closed.expect("just matched");
                return Err(store.invariant(store.not_closed_message(rel)));
            }
            Ok(outcome) => outcome,
            Err(message) => return Err(store.invariant(message)),
        };
        self.batch_checks += counts;
        let rounds = store.rounds(level, Phase::Delete, &over.rounds);
        Ok(LevelDeletion {
            deleted: over,
            rounds,
            ..LevelDeletion::default()
        })
    }
}

impl Deletion for BfDeletion {
    fn name(&self) -> &'static str {
        "bf"
    }

    fn delete_level0(
        &mut self,
        store: &mut Store,
        deletions: &[Fact],
        reuse: Deleted,
    ) -> Result<LevelDeletion, EngineError> {
        self.batch_checks = CheckCounts::default();
        self.delete_unproved(store, 0, delete::Start::Deleted(deletions), reuse)
    }

    fn delete_level(
        &mut self,
        store: &mut Store,
        level: usize,
        changes: &LowerChanges,
        touched: &[(AggregatePlan, Tuple)],
        old_rows: &[Option<RowRef>],
    ) -> Result<LevelDeletion, EngineError> {
        let work = crate::exec::WorkCounter::default();
        let mut origins = Vec::new();
        let guard = store
            .budget
            .map(|b| Guard::new(b.total, b.deadlines.map(|d| d.1)));
        let candidates = delete::candidates_from_lower(
            &store.relations,
            &store.plans,
            level,
            (&changes.removed, &changes.added),
            &work,
            store.recorder.is_some().then_some(&mut origins),
            guard.as_ref(),
        );
        changes.show_new(&mut store.relations);
        let candidates =
            candidates.map_err(|rel| store.invariant(store.not_closed_message(rel)))?;
        let stopped = candidates.is_none();
        let candidates = candidates.unwrap_or_default();
        let (additions, kept) =
            aggregate_outcome(&store.program, &store.relations, touched, old_rows);
        let aggregate_rows = old_rows
            .iter()
            .zip(kept)
            .filter_map(|(old, kept)| old.map(|r| (r, kept)))
            .collect();
        let start = delete::Start::Lower {
            candidates,
            origins,
            aggregate_rows,
            old_below: delete::OldBelow::new(
                &store.program,
                level,
                &changes.removed,
                &changes.added,
            ),
            stopped,
        };
        let mut level_deletion = self.delete_unproved(store, level, start, Deleted::default())?;
        level_deletion.deleted.work += work.total();
        level_deletion.additions = additions;
        Ok(level_deletion)
    }

    fn report(&mut self, _store: &Store, report: &mut BatchReport) {
        report.checked = Some(self.batch_checks.checked);
        report.disproved = Some(self.batch_checks.disproved);
        report.backward_instances = Some(self.batch_checks.backward_instances);
    }
}

impl Maintained<BfDeletion> {
    /// A `bf` engine for a program, with or without stratified negation and aggregates.
    pub fn new(program: Arc<Program>) -> Self {
        Self::with(program, BfDeletion::new)
    }

    /// The facts the last batch checked, in the order their checks began (level after
    /// level), each with whether the check proved it; empty unless facts are traced
    /// ([`Engine::set_trace_facts`](crate::Engine::set_trace_facts), on by default).
    pub fn last_checks(&self) -> &[(Fact, bool)] {
        &self.deletion.last_checks
    }
}
