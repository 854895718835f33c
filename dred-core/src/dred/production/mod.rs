//! The production DRed engine (`dred`): the three phases of SPEC §4 without materialising
//! ground instances — delta rules evaluated over indexed relations.
//!
//! State between batches is only the model: one [`Relation`] per relation (EDB and IDB) with
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
//! 3. [`insert`]: semi-naive evaluation over the updated relations, the delta in any body
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
//! This module is the engine: its state between batches and the order of the phases. What
//! the phases share lives beside them: the plans made once per program (`plans.rs`), the
//! batched head lookups (`heads.rs`), the sets of facts as row references and their spare
//! vectors (`rows.rs`, [`RowRef`]); phase 2's cost model is [`rederive_cost`].

pub mod insert;
pub mod overdelete;
pub mod rederive;
pub mod rederive_cost;

mod heads;
pub(crate) mod plans;
mod rows;

use std::collections::HashSet;
use std::sync::Arc;
use std::time::Instant;

use crate::bf::check::{BackwardPlans, CheckCounts, Checker};
use crate::bf::delete as bf_delete;
use crate::engine::{
    Batch, BatchReport, Edb, Engine, EngineError, Fact, Model, ModelDigest, NetChange, Phase, Round,
};
use crate::exec::{idb_digest, idb_model};
use crate::program::{Program, RelId};
use crate::record::{Derivation, Recorder};
use crate::storage::{Relation, RowId, RowMarks};
use crate::value::{Tuple, Value};
use heads::RecentHeads;
use plans::Plans;
use rederive_cost::RederiveCosts;
pub use rows::RowRef;

/// The production DRed engine. Cloning copies the whole model (benchmarks use it to replay
/// one batch from the same state).
#[derive(Clone, Debug)]
pub struct Dred {
    program: Arc<Program>,
    relations: Vec<Relation>,
    plans: Plans,
    /// Program facts, which rederive through their empty-body instance.
    program_facts: HashSet<(RelId, Tuple)>,
    materialised: bool,
    trace_facts: bool,
    /// Net IDB change of the last materialisation or batch.
    last_change: NetChange,
    /// The measured cost of each order of the head-bound checks and of round-1 scans, kept
    /// across batches.
    rederive_costs: RederiveCosts,
    /// Phase 1's marks of D and phase 2's of the facts still pending: kept across batches so
    /// that a batch clears only the marks it made (see [`RowMarks`]).
    deleted_marks: RowMarks,
    pending_marks: RowMarks,
    /// Phase 1's heads found lately ([`RecentHeads`]), kept across batches.
    recent_heads: RecentHeads,
    /// The results of the last batch's phases 1 and 2, emptied and filled again by the next
    /// (their vectors' memory kept, see [`SpareRows`](rows::SpareRows)).
    last_overdeleted: overdelete::OverDeleted,
    last_rederived: rederive::Rederived,
    /// Batches applied since materialisation (errors name the batch).
    batches: usize,
    /// Set when a batch found the model broken: every later batch fails with it.
    broken: Option<EngineError>,
    /// How deletions are maintained: DRed's over-deletion and rederivation, or B/F's checks.
    maintenance: Maintenance,
    /// B/F's head-bound plans (only for [`Maintenance::BackwardForward`]).
    backward: Option<BackwardPlans>,
    /// B/F's sets of checked and proved facts, and the marks of the facts it queued: scratch
    /// kept across batches.
    checker: Checker,
    queued_marks: RowMarks,
    /// B/F's checks of the last batch, level after level, in the order they began, with their
    /// outcome (kept only while facts are traced).
    last_checks: Vec<(Fact, bool)>,
    /// The first derivation of each fact of the last batch's rounds, when recording
    /// ([`Dred::set_recording`]).
    recorder: Option<Recorder>,
    /// When phase 1 at level 0 over-deletes the level wholesale ([`overdelete::Saturation`]).
    saturation: overdelete::Saturation,
    /// Work (probes plus rows touched) of evaluating level 0 from scratch: measured at
    /// materialisation, and by the rederivation of each saturated batch.
    evaluation_work: u64,
}

/// The deletion algorithm of the engine: the levels, the insertion phase, the storage and the
/// plans are shared.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Maintenance {
    /// DRed: over-delete, then rederive (`dred`).
    Dred,
    /// Backward/Forward: delete only what a check finds underivable (`bf`, [`crate::bf`]).
    BackwardForward,
}

impl Dred {
    /// A `dred` engine for a program, with or without stratified negation.
    pub fn new(program: Arc<Program>) -> Self {
        Self::with_maintenance(program, Maintenance::Dred)
    }

    /// The engine of [`crate::bf::Bf`]: this engine's levels, storage and insertion, with
    /// B/F's deletion in place of over-deletion and rederivation.
    pub(crate) fn backward_forward(program: Arc<Program>) -> Self {
        Self::with_maintenance(program, Maintenance::BackwardForward)
    }

    fn with_maintenance(program: Arc<Program>, maintenance: Maintenance) -> Self {
        let mut relations: Vec<Relation> = program
            .relations
            .iter()
            .map(|d| Relation::new(d.arity()))
            .collect();
        let plans = Plans::new(&program, &mut relations);
        let backward = (maintenance == Maintenance::BackwardForward)
            .then(|| BackwardPlans::new(&program, &mut relations));
        let checker = backward.as_ref().map(Checker::new).unwrap_or_default();
        let rederive_costs = RederiveCosts::new(&program, &plans.head_bound);
        let program_facts = program
            .facts
            .iter()
            .map(|f| (f.rel, f.tuple.clone()))
            .collect();
        Dred {
            program,
            relations,
            plans,
            program_facts,
            materialised: false,
            trace_facts: true,
            last_change: NetChange::default(),
            rederive_costs,
            deleted_marks: RowMarks::default(),
            pending_marks: RowMarks::default(),
            recent_heads: RecentHeads::default(),
            last_overdeleted: overdelete::OverDeleted::default(),
            last_rederived: rederive::Rederived::default(),
            batches: 0,
            broken: None,
            maintenance,
            backward,
            checker,
            queued_marks: RowMarks::default(),
            last_checks: Vec::new(),
            recorder: None,
            saturation: overdelete::Saturation::default(),
            evaluation_work: 0,
        }
    }

    /// When phase 1 saturates from now on (the default: past half the work of evaluating
    /// level 0 from scratch, and past [`overdelete::SATURATION_FLOOR`]). `Never` gives the
    /// reference engine's frontiers.
    pub fn set_saturation(&mut self, saturation: overdelete::Saturation) {
        self.saturation = saturation;
    }

    /// The engine's name in reports and errors.
    fn engine_name(&self) -> &'static str {
        match self.maintenance {
            Maintenance::Dred => "dred",
            Maintenance::BackwardForward => "bf",
        }
    }

    /// B/F's deletion of one level ([`crate::bf::delete`]), D removed from the model. An
    /// error when a fact of D- or a head reached is not in the model, or when the checks'
    /// postcondition fails; the engine refuses every later batch then.
    fn delete_unproved(
        &mut self,
        level: usize,
        start: bf_delete::Start<'_>,
        reuse: overdelete::OverDeleted,
    ) -> Result<(overdelete::OverDeleted, CheckCounts), EngineError> {
        assert!(self.materialised, "bf: delete before materialise");
        let deletion = bf_delete::Deletion {
            program: &self.program,
            plans: &self.plans,
            backward: self.backward.as_ref().expect("bf has backward plans"),
            program_facts: &self.program_facts,
            checker: &mut self.checker,
            in_d: &mut self.deleted_marks,
            queued: &mut self.queued_marks,
        };
        let rec = self.recorder.as_mut();
        let outcome = bf_delete::delete(deletion, &mut self.relations, level, start, reuse, rec);
        if level == 0 {
            self.last_checks.clear();
        }
        // A level with nothing to check leaves the checker as the last level that checked.
        let checked = outcome.as_ref().is_ok_and(|(_, counts)| counts.checked > 0);
        if self.trace_facts && checked {
            let checks: Vec<(Fact, bool)> = self
                .checker
                .outcomes()
                .map(|(f, proved)| (self.fact(f), proved))
                .collect();
            self.last_checks.extend(checks);
        }
        let broken = match &outcome {
            Ok((over, _)) => over.not_closed.map(|rel| self.not_closed_message(rel)),
            Err(message) => Some(message.clone()),
        };
        if let Some(invariant) = broken {
            let error = EngineError::Invariant {
                engine: self.engine_name().into(),
                batch: self.batches,
                invariant,
            };
            self.broken = Some(error.clone());
            return Err(error);
        }
        outcome.map_err(|_| unreachable!("errors returned above"))
    }

    /// `bf`: the facts the last batch checked, in the order their checks began (level after
    /// level), each with whether it was proved; empty unless facts are traced.
    pub(crate) fn last_checks(&self) -> &[(Fact, bool)] {
        &self.last_checks
    }

    fn not_closed_message(&self, rel: RelId) -> String {
        format!(
            "a deletion reached a fact of `{}` that is not in the old model: the old model \
             is not closed under the rules (an earlier batch left it wrong) or D- is not in it",
            self.program.relations[rel].name
        )
    }

    /// Checks that `batch` is normalised against this engine's EDB, as [`Batch::normalise`]
    /// makes it: every fact of an input relation with the relation's arity, D- present, A+
    /// absent. Phase 1 relies on it (a deleted fact is a row of the model).
    fn check_batch(&self, batch: &Batch) -> Result<(), EngineError> {
        let misuse = |what: &str, f: &Fact| EngineError::Misuse {
            engine: self.engine_name().into(),
            message: format!(
                "batch {}: {what} {}{:?}: the batch is not normalised against this EDB",
                self.batches + 1,
                self.program
                    .relations
                    .get(f.rel)
                    .map_or("?", |d| d.name.as_str()),
                f.tuple
            ),
        };
        for (facts, present, what) in [
            (&batch.deletions, true, "deleted fact is absent:"),
            (&batch.insertions, false, "inserted fact is present:"),
        ] {
            for f in facts {
                let fits = self
                    .program
                    .relations
                    .get(f.rel)
                    .is_some_and(|d| d.input && d.arity() == f.tuple.len());
                if !fits {
                    return Err(misuse("not a fact of an input relation:", f));
                }
                if self.relations[f.rel].contains(&f.tuple) != present {
                    return Err(misuse(what, f));
                }
            }
        }
        Ok(())
    }

    fn fact(&self, (rel, r): RowRef) -> Fact {
        Fact::new(rel, self.relations[rel].row(r).to_vec())
    }

    fn round(&self, level: usize, phase: Phase, round: usize, rows: &[RowRef]) -> Round {
        if self.trace_facts {
            Round::with_facts(phase, round, rows.iter().map(|&rr| self.fact(rr)).collect())
                .in_stratum(level)
        } else {
            Round {
                stratum: level,
                phase,
                round,
                size: rows.len(),
                facts: Vec::new(),
            }
        }
    }

    /// Phase 1 on the current model: D from `deletions` (the D- of a normalised batch, so
    /// every fact is present), then D removed. Call [`Dred::rederive`] with the result next:
    /// until then the model lacks every over-deleted fact. Panics before
    /// [`Engine::materialise`]. An error, and nothing removed, when a fact of D is not in the
    /// model (the model was not closed under the rules, or D- not normalised); the engine
    /// refuses every later batch then.
    pub fn overdelete(
        &mut self,
        deletions: &[Fact],
    ) -> Result<overdelete::OverDeleted, EngineError> {
        let reuse = std::mem::take(&mut self.last_overdeleted);
        let mut over = self.overdelete_level(overdelete::Seeds::Deleted(deletions), reuse)?;
        self.remove_overdeleted(&mut over);
        Ok(over)
    }

    /// [`Dred::overdelete`] of one level: D from `seeds`, then D removed. Above level 0 the
    /// caller shows the relations below as they were before the batch while it runs
    /// ([`LowerChanges::show_old`]); D holds only the level's facts.
    fn overdelete_level(
        &mut self,
        seeds: overdelete::Seeds<'_>,
        reuse: overdelete::OverDeleted,
    ) -> Result<overdelete::OverDeleted, EngineError> {
        assert!(self.materialised, "dred: overdelete before materialise");
        // Level 0 only, and not while recording (explain shows DRed's own frontiers).
        let budget = match seeds {
            overdelete::Seeds::Deleted(_) if self.recorder.is_none() => {
                self.saturation.budget(self.evaluation_work)
            }
            _ => None,
        };
        let over = overdelete::overdelete(
            &self.program,
            &self.relations,
            &self.plans,
            seeds,
            &mut self.deleted_marks,
            &mut self.recent_heads,
            reuse,
            self.recorder.as_mut(),
            budget,
        );
        if let Some(rel) = over.not_closed {
            let error = EngineError::Invariant {
                engine: self.engine_name().into(),
                batch: self.batches,
                invariant: format!("phase 1: {}", self.not_closed_message(rel)),
            };
            self.broken = Some(error.clone());
            return Err(error);
        }
        Ok(over)
    }

    /// D leaves the model by row id; survivors are what stays live.
    fn remove_overdeleted(&mut self, over: &mut overdelete::OverDeleted) {
        for &(rel, r) in &over.deleted {
            self.relations[rel].remove_id(r);
        }
        over.work.touched += over.deleted.len() as u64;
    }

    /// Phase 2: restores the over-deleted facts that still have a proof. `over` must be the
    /// result of the [`Dred::overdelete`] just before (its row ids index this model).
    pub fn rederive(&mut self, over: &overdelete::OverDeleted) -> rederive::Rederived {
        rederive::rederive(
            &self.program,
            &mut self.relations,
            &self.plans,
            &mut self.rederive_costs,
            &self.program_facts,
            &over.overdeleted_idb,
            &mut self.pending_marks,
            std::mem::take(&mut self.last_rederived),
            self.recorder.as_mut(),
        )
    }

    /// [`Dred::rederive`] with `given` standing for the program facts: the facts of it that
    /// were over-deleted are restored in round 1 without a search.
    fn rederive_given(
        &mut self,
        over: &overdelete::OverDeleted,
        given: &HashSet<(RelId, Tuple)>,
    ) -> rederive::Rederived {
        rederive::rederive(
            &self.program,
            &mut self.relations,
            &self.plans,
            &mut self.rederive_costs,
            given,
            &over.overdeleted_idb,
            &mut self.pending_marks,
            std::mem::take(&mut self.last_rederived),
            self.recorder.as_mut(),
        )
    }

    /// Whether the batches from now on record, for each fact of each round, the first rule
    /// instance that put it there ([`Dred::last_derivations`]). Off by default: recording
    /// looks heads up one at a time rather than in batches, and copies each binding.
    pub fn set_recording(&mut self, on: bool) {
        self.recorder = on.then(Recorder::default);
    }

    /// The derivations the last batch recorded, in the order found; `None` when not
    /// recording.
    pub fn last_derivations(&self) -> Option<&[Derivation]> {
        self.recorder.as_ref().map(|r| r.derivations.as_slice())
    }

    /// How round 1 of rederivation finds proofs from now on; the default picks per rule by
    /// estimated cost. Results do not depend on it (tests run every choice).
    pub fn set_round1(&mut self, round1: rederive::Round1) {
        self.rederive_costs.round1 = round1;
    }

    /// How rounds 2 and later of rederivation find proofs from now on; the default picks per
    /// round by estimated cost. Results do not depend on it (tests run every choice).
    pub fn set_later_rounds(&mut self, later: rederive::LaterRounds) {
        self.rederive_costs.later_rounds = later;
    }

    /// Phase 3: adds `insertions` (the A+ of a normalised batch) and what follows from them.
    /// Afterwards the model is the least model of the program on the updated EDB.
    pub fn insert(&mut self, insertions: &[Fact]) -> insert::Inserted {
        assert!(self.materialised, "dred: insert before materialise");
        insert::insert(
            &self.program,
            &mut self.relations,
            &self.plans,
            insertions,
            self.trace_facts,
            self.recorder.as_mut(),
        )
    }

    /// Of the over-deleted IDB rows of a batch, those gone from the model and those phase 3
    /// derived again (as new rows).
    fn gone_and_back(&self, overdeleted_idb: &[RowRef]) -> (usize, usize) {
        let (mut gone, mut back) = (0, 0);
        for &(rel, r) in overdeleted_idb {
            let relation = &self.relations[rel];
            if !relation.is_live(r) {
                if relation.row_id(relation.row(r)).is_some() {
                    back += 1;
                } else {
                    gone += 1;
                }
            }
        }
        (gone, back)
    }

    /// The three phases of one level above 0, from the net changes of the levels below
    /// (`changes`, which then gains this level's): phase 1 over the relations as they were
    /// before the batch, phases 2 and 3 over the new relations below. Returns the level's net
    /// change.
    fn maintain_level(
        &mut self,
        level: usize,
        changes: &mut LowerChanges,
        totals: &mut LevelTotals,
        rounds: &mut Vec<Round>,
        phase_ns: &mut [u64; 3],
    ) -> Result<NetChange, EngineError> {
        let t = Instant::now();
        // The level's aggregate groups that the changes below touched: their old rows are
        // over-deleted outright, restored if their value stays, replaced if it moves.
        let aggregates = self.plans.aggregates_of_level[level].clone();
        let touched = touched_groups(&self.program, &aggregates, changes, &self.relations);
        changes.show_old(&mut self.relations);
        let old_rows: Vec<Option<RowRef>> = touched
            .iter()
            .map(|(a, key)| {
                let def = &self.program.aggregates[a.def];
                plans::AggregatePlan::group(&self.relations[def.rel], a.rows, key)
                    .first()
                    .map(|&r| (def.rel, r))
            })
            .collect();
        if self.maintenance == Maintenance::BackwardForward {
            return self.maintain_level_bf(
                level, changes, totals, rounds, phase_ns, t, &touched, &old_rows,
            );
        }
        let given: Vec<RowRef> = old_rows.iter().flatten().copied().collect();
        let seeds = overdelete::Seeds::Lower {
            level,
            removed: &changes.removed,
            added: &changes.added,
            given: &given,
        };
        let over = self.overdelete_level(seeds, overdelete::OverDeleted::default());
        changes.show_new(&mut self.relations);
        let mut over = over?;
        self.remove_overdeleted(&mut over);
        phase_ns[0] += t.elapsed().as_nanos() as u64;
        for (i, rows) in over.rounds.iter().enumerate() {
            rounds.push(self.round(level, Phase::Overdelete, i + 1, rows));
        }

        let t = Instant::now();
        // A row whose value stays is restored in round 1 as a program fact is (it needs no
        // search).
        let (additions, kept) = self.aggregate_outcome(&touched, &old_rows);
        let stays: Vec<(RelId, Tuple)> = old_rows
            .iter()
            .zip(&kept)
            .filter_map(|(old, &kept)| old.filter(|_| kept))
            .map(|(rel, r)| (rel, self.relations[rel].row(r).to_vec()))
            .collect();
        let re = if stays.is_empty() {
            self.rederive(&over)
        } else {
            let mut given = self.program_facts.clone();
            given.extend(stays);
            self.rederive_given(&over, &given)
        };
        phase_ns[1] += t.elapsed().as_nanos() as u64;
        for (i, rows) in re.rounds.iter().enumerate() {
            rounds.push(self.round(level, Phase::Rederive, i + 1, rows));
        }

        self.insert_level(
            level, changes, totals, rounds, phase_ns, &over, &re, &additions,
        )
    }

    /// The touched groups' values over the new input: per relation, the rows to add (a group
    /// whose value moved or that was empty before); per group, whether its old row keeps its
    /// value.
    fn aggregate_outcome(
        &self,
        touched: &[(plans::AggregatePlan, Tuple)],
        old_rows: &[Option<RowRef>],
    ) -> (Vec<Vec<Tuple>>, Vec<bool>) {
        let mut additions: Vec<Vec<Tuple>> = vec![Vec::new(); self.relations.len()];
        let mut kept = Vec::with_capacity(touched.len());
        for ((a, key), old) in touched.iter().zip(old_rows) {
            let def = &self.program.aggregates[a.def];
            let input = &self.relations[def.input];
            let rows = plans::AggregatePlan::group(input, a.input_rows, key);
            let new = def.fold(rows.iter().map(|&r| input.row(r)));
            let old = old.map(|(rel, r)| self.relations[rel].row(r)[def.group]);
            match (old, new) {
                (Some(old), Some(v)) if old == v => kept.push(true),
                (_, Some(v)) => {
                    kept.push(false);
                    let mut row = key.clone();
                    row.push(v);
                    additions[def.rel].push(row);
                }
                (_, None) => kept.push(false),
            }
        }
        (additions, kept)
    }

    /// [`Dred::maintain_level`] for `bf`, from the point where the relations are shown as they
    /// were before the batch and the touched groups' old rows are known: the candidates the
    /// changes below reach, B/F's deletion over the new relations below, then phase 3.
    #[allow(clippy::too_many_arguments)]
    fn maintain_level_bf(
        &mut self,
        level: usize,
        changes: &mut LowerChanges,
        totals: &mut LevelTotals,
        rounds: &mut Vec<Round>,
        phase_ns: &mut [u64; 3],
        t: Instant,
        touched: &[(plans::AggregatePlan, Tuple)],
        old_rows: &[Option<RowRef>],
    ) -> Result<NetChange, EngineError> {
        let work = crate::exec::WorkCounter::default();
        let mut origins = Vec::new();
        let candidates = bf_delete::candidates_from_lower(
            &self.relations,
            &self.plans,
            level,
            &changes.removed,
            &changes.added,
            &work,
            self.recorder.is_some().then_some(&mut origins),
        );
        changes.show_new(&mut self.relations);
        let candidates = match candidates {
            Ok(c) => c,
            Err(rel) => {
                let error = EngineError::Invariant {
                    engine: self.engine_name().into(),
                    batch: self.batches,
                    invariant: self.not_closed_message(rel),
                };
                self.broken = Some(error.clone());
                return Err(error);
            }
        };
        let (additions, kept) = self.aggregate_outcome(touched, old_rows);
        let aggregate_rows = old_rows
            .iter()
            .zip(kept)
            .filter_map(|(old, kept)| old.map(|r| (r, kept)))
            .collect();
        let start = bf_delete::Start::Lower {
            candidates,
            origins,
            aggregate_rows,
        };
        let (mut over, counts) =
            self.delete_unproved(level, start, overdelete::OverDeleted::default())?;
        over.work += work.total();
        phase_ns[0] += t.elapsed().as_nanos() as u64;
        for (i, rows) in over.rounds.iter().enumerate() {
            rounds.push(self.round(level, Phase::Delete, i + 1, rows));
        }
        totals.checks += counts;
        let re = rederive::Rederived::default();
        self.insert_level(
            level, changes, totals, rounds, phase_ns, &over, &re, &additions,
        )
    }

    /// Phase 3 of a level above 0 and its net change, after its deletion (`over`, `re`).
    #[allow(clippy::too_many_arguments)]
    fn insert_level(
        &mut self,
        level: usize,
        changes: &mut LowerChanges,
        totals: &mut LevelTotals,
        rounds: &mut Vec<Round>,
        phase_ns: &mut [u64; 3],
        over: &overdelete::OverDeleted,
        re: &rederive::Rederived,
        additions: &[Vec<Tuple>],
    ) -> Result<NetChange, EngineError> {
        let insert_start: Vec<RowId> = self.relations.iter().map(Relation::end).collect();
        let t = Instant::now();
        let program = &self.program;
        let below = insert::FromBelow {
            delta_from: (0..self.relations.len())
                .map(|rel| {
                    if is_below(program, rel, level) {
                        changes.batch_start[rel]
                    } else {
                        insert_start[rel]
                    }
                })
                .collect(),
            revived: &changes.revived,
            removed: &changes.removed,
            rules: None,
        };
        let ins = insert::insert_rows(
            program,
            &mut self.relations,
            &self.plans,
            level,
            additions.iter().map(|rows| rows.iter()),
            Some(below),
            self.trace_facts,
            self.recorder.as_mut(),
        );
        phase_ns[2] += t.elapsed().as_nanos() as u64;
        totals.add(over, re, &ins);
        rounds.extend(ins.rounds);

        let (gone, back) = self.gone_and_back(&over.overdeleted_idb);
        changes.record(&self.relations, &over.deleted, &insert_start, |rel| {
            program.level_of(rel) == level && program.is_idb(rel)
        });
        Ok(NetChange {
            removed: gone,
            added: ins.inserted - back,
        })
    }

    /// Facts in the derived relations.
    fn idb_len(&self) -> usize {
        self.relations
            .iter()
            .enumerate()
            .filter(|(rel, _)| self.program.is_idb(*rel))
            .map(|(_, r)| r.len())
            .sum()
    }

    /// Ends a batch run phase by phase: compacts relations whose tombstones outnumber their
    /// live rows (row ids change, so no phase result of the batch may be used afterwards).
    pub fn end_batch(&mut self) {
        for r in &mut self.relations {
            if r.dead_count() > 1024 && r.dead_count() > r.len() {
                r.compact();
            }
        }
    }
}

impl Engine for Dred {
    fn name(&self) -> &str {
        self.engine_name()
    }

    fn materialise(&mut self, edb: &Edb) -> Result<BatchReport, EngineError> {
        for r in &mut self.relations {
            r.clear();
        }
        self.batches = 0;
        self.broken = None;
        // The initial model is phase 3 from an empty model: the whole EDB as round 1, read
        // where it is rather than copied or listed (on a large EDB and a small model a copy
        // as facts, a heap block per tuple, was a third of the engine's peak memory, and a
        // list of references to them 8 bytes an edge of it); then each stratum in dependency
        // order, from the complete relations below it, with its program facts and, for an
        // aggregate relation, its rows. One stratum at a time, not a level's rules together:
        // a rule of a later stratum would otherwise fire in every round of an earlier one's
        // fixpoint (Debian installability: 345 million probes against 20 million).
        let program = self.program.clone();
        let none: [usize; 0] = [];
        let ends = vec![0; self.relations.len()];
        self.materialised = true;
        let t = Instant::now();
        let mut outcome = insert::insert_rows(
            &program,
            &mut self.relations,
            &self.plans,
            0,
            edb.relations.iter().map(|tuples| tuples.iter()),
            Some(insert::FromBelow {
                delta_from: ends.clone(),
                rules: Some(&none),
                ..insert::FromBelow::default()
            }),
            self.trace_facts,
            None,
        );
        let mut level0 = outcome.work;
        for stratum in &program.strata {
            let mut rows: Vec<Vec<Tuple>> = vec![Vec::new(); self.relations.len()];
            for &f in &stratum.facts {
                let fact = &program.facts[f];
                rows[fact.rel].push(fact.tuple.clone());
            }
            if let Some(k) = stratum.aggregate {
                let def = &program.aggregates[k];
                let counter = crate::exec::WorkCounter::default();
                let flat = crate::eval::aggregate_rows(def, &self.relations[def.input], &counter);
                outcome.work += counter.total();
                rows[def.rel].extend(flat.chunks_exact(def.group + 1).map(<[Value]>::to_vec));
            }
            let more = insert::insert_rows(
                &program,
                &mut self.relations,
                &self.plans,
                stratum.level,
                rows.iter().map(|r| r.iter()),
                Some(insert::FromBelow {
                    delta_from: ends.clone(),
                    rules: Some(&stratum.rules),
                    ..insert::FromBelow::default()
                }),
                self.trace_facts,
                None,
            );
            outcome.work += more.work;
            if stratum.level == 0 {
                level0 += more.work;
            }
            outcome.rounds.extend(more.rounds);
        }
        self.evaluation_work = level0.probes + level0.touched;
        self.last_change = NetChange {
            removed: 0,
            added: self.idb_len(),
        };
        // As the reference, batch 0 leaves `inserted` empty: the model's size says it all.
        Ok(BatchReport {
            insert_ns: Some(t.elapsed().as_nanos() as u64),
            insert_work: Some(outcome.work),
            rounds: outcome.rounds,
            ..BatchReport::default()
        })
    }

    fn apply(&mut self, batch: &Batch) -> Result<BatchReport, EngineError> {
        if !self.materialised {
            return Err(EngineError::Misuse {
                engine: self.engine_name().into(),
                message: "apply before materialise".into(),
            });
        }
        if let Some(e) = &self.broken {
            return Err(e.clone());
        }
        self.check_batch(batch)?;
        self.batches += 1;
        if let Some(rec) = &mut self.recorder {
            rec.derivations.clear();
        }
        let mut report = BatchReport::default();
        let levels = self.program.num_levels();
        // Only a program with negation has levels above 0, and only they need the batch's
        // net changes as rows.
        let mut changes = (levels > 1).then(|| LowerChanges::new(&self.relations));

        let t = Instant::now();
        let reuse = std::mem::take(&mut self.last_overdeleted);
        let mut totals = LevelTotals::default();
        let bf = self.maintenance == Maintenance::BackwardForward;
        let over = if bf {
            let start = bf_delete::Start::Deleted(&batch.deletions);
            let (over, counts) = self.delete_unproved(0, start, reuse)?;
            totals.checks += counts;
            over
        } else {
            let mut over =
                self.overdelete_level(overdelete::Seeds::Deleted(&batch.deletions), reuse)?;
            self.remove_overdeleted(&mut over);
            over
        };
        let mut phase_ns = [t.elapsed().as_nanos() as u64, 0, 0];
        let phase = if bf { Phase::Delete } else { Phase::Overdelete };
        let mut rounds: Vec<Round> = over
            .rounds
            .iter()
            .enumerate()
            .map(|(i, rows)| self.round(0, phase, i + 1, rows))
            .collect();

        let t = Instant::now();
        let re = if bf {
            rederive::Rederived::default()
        } else {
            self.rederive(&over)
        };
        if over.saturated {
            // Rederiving the whole level evaluated it from scratch (round 1 scans the rules
            // over the levels below, later rounds are semi-naive): the next budget follows
            // the model as it is now.
            self.evaluation_work = re.work.probes + re.work.touched;
        }
        phase_ns[1] += t.elapsed().as_nanos() as u64;
        for (i, rows) in re.rounds.iter().enumerate() {
            rounds.push(self.round(0, Phase::Rederive, i + 1, rows));
        }

        let insert_start: Vec<RowId> = match changes {
            Some(_) => self.relations.iter().map(Relation::end).collect(),
            None => Vec::new(),
        };
        let t = Instant::now();
        let ins = self.insert(&batch.insertions);
        phase_ns[2] += t.elapsed().as_nanos() as u64;
        totals.add(&over, &re, &ins);
        rounds.extend(ins.rounds);

        // Net change: an over-deleted fact not rederived is gone unless phase 3 derived it
        // again (as a new row); one probe per such fact, before compaction moves rows.
        let (gone, back) = self.gone_and_back(&over.overdeleted_idb);
        let mut net = NetChange {
            removed: gone,
            added: ins.inserted - back,
        };
        if let Some(changes) = changes.as_mut() {
            changes.record(&self.relations, &over.deleted, &insert_start, |rel| {
                self.program.level_of(rel) == 0
            });
            changes.record_revived(&self.relations, &batch.insertions, &insert_start);
            for level in 1..levels {
                let level_net =
                    self.maintain_level(level, changes, &mut totals, &mut rounds, &mut phase_ns)?;
                net.removed += level_net.removed;
                net.added += level_net.added;
            }
        }
        self.last_change = net;
        report.overdelete_ns = Some(phase_ns[0]);
        report.rederive_ns = Some(phase_ns[1]);
        if bf {
            report.checked = Some(totals.checks.checked);
            report.disproved = Some(totals.checks.disproved);
            report.backward_instances = Some(totals.checks.backward_instances);
        }
        report.insert_ns = Some(phase_ns[2]);
        if !bf {
            report.saturated = Some(usize::from(over.saturated));
        }
        report.overdeleted = Some(totals.overdeleted);
        report.rederived = Some(totals.rederived);
        report.inserted = Some(totals.inserted);
        report.overdelete_work = Some(totals.work[0]);
        report.rederive_work = Some(totals.work[1]);
        report.insert_work = Some(totals.work[2]);
        report.rounds = rounds;

        self.end_batch();
        self.last_overdeleted = over;
        self.last_rederived = re;
        if cfg!(debug_assertions) {
            for r in &self.relations {
                r.check_invariants();
            }
        }
        Ok(report)
    }

    fn set_trace_facts(&mut self, on: bool) {
        self.trace_facts = on;
    }

    fn digest(&self) -> ModelDigest {
        idb_digest(&self.program, &self.relations)
    }

    fn net_change(&self) -> Option<NetChange> {
        Some(self.last_change)
    }

    fn model(&self) -> Model {
        idb_model(&self.program, &self.relations)
    }
}

/// True when relation `rel` is maintained before level `level`: an `.input` relation (it
/// changes in level 0) or a derived relation of a lower level.
fn is_below(program: &Program, rel: RelId, level: usize) -> bool {
    !program.is_idb(rel) || program.level_of(rel) < level
}

/// The groups of `aggregates` (one level's) whose input changed below: each group key of a
/// lost or gained input row, once per aggregate, in order of the changes.
fn touched_groups(
    program: &Program,
    aggregates: &[plans::AggregatePlan],
    changes: &LowerChanges,
    relations: &[Relation],
) -> Vec<(plans::AggregatePlan, Tuple)> {
    let mut out = Vec::new();
    for a in aggregates {
        let def = &program.aggregates[a.def];
        let mut seen: HashSet<&[Value]> = HashSet::new();
        for &(rel, r) in changes.removed.iter().chain(&changes.added) {
            if rel == def.input {
                let key = &relations[rel].row(r)[..def.group];
                if seen.insert(key) {
                    out.push((a.clone(), key.to_vec()));
                }
            }
        }
    }
    out
}

/// The counters of a batch, summed over its levels.
#[derive(Default)]
struct LevelTotals {
    overdeleted: usize,
    rederived: usize,
    inserted: usize,
    /// Work of phases 1, 2 and 3.
    work: [crate::engine::Work; 3],
    /// B/F's checks (`bf` only).
    checks: CheckCounts,
}

impl LevelTotals {
    fn add(
        &mut self,
        over: &overdelete::OverDeleted,
        re: &rederive::Rederived,
        ins: &insert::Inserted,
    ) {
        self.overdeleted += over.overdeleted_idb.len();
        self.rederived += re.rederived;
        self.inserted += ins.inserted;
        self.work[0] += over.work;
        self.work[1] += re.work;
        self.work[2] += ins.work;
    }
}

/// The net changes of the levels maintained so far in a batch (the EDB's included), as rows:
/// what seeds the levels above. Kept only for programs with negation.
///
/// Why rows and a view of the old relations rather than copies: phase 1 of a level must
/// match instances of the relations *before* the batch (an instance that used two lost
/// facts must be found), and every lost fact is still a tombstone, every gained fact a live
/// row, until the batch ends — so flipping their liveness shows the old relations and flips
/// back, in time proportional to the change.
struct LowerChanges {
    /// Each relation's end when the batch began: rows past it were appended by the batch.
    batch_start: Vec<RowId>,
    /// Facts lost: tombstones with no live row of the same values.
    removed: Vec<RowRef>,
    /// Facts gained: live rows whose values were not in the model before the batch.
    added: Vec<RowRef>,
    /// Of `added`, the rows made live again without being appended (revived EDB facts).
    revived: Vec<RowRef>,
}

impl LowerChanges {
    fn new(relations: &[Relation]) -> Self {
        LowerChanges {
            batch_start: relations.iter().map(Relation::end).collect(),
            removed: Vec::new(),
            added: Vec::new(),
            revived: Vec::new(),
        }
    }

    /// Adds one level's net change: of its D (`deleted`), the rows with no live copy now;
    /// of the rows appended since `insert_start` to the relations `ours` selects, the live
    /// ones whose values were not among D (those came back).
    fn record(
        &mut self,
        relations: &[Relation],
        deleted: &[RowRef],
        insert_start: &[RowId],
        ours: impl Fn(RelId) -> bool,
    ) {
        let mut back: HashSet<RowRef> = HashSet::new();
        for &(rel, r) in deleted {
            let relation = &relations[rel];
            if relation.is_live(r) {
                continue;
            }
            match relation.row_id(relation.row(r)) {
                Some(copy) => {
                    back.insert((rel, copy));
                }
                None => self.removed.push((rel, r)),
            }
        }
        for (rel, relation) in relations.iter().enumerate() {
            if !ours(rel) {
                continue;
            }
            for r in insert_start[rel]..relation.end() {
                if relation.is_live(r) && !back.contains(&(rel, r)) {
                    self.added.push((rel, r));
                }
            }
        }
    }

    /// Adds the facts of A+ that phase 3 revived rather than appended (rows before
    /// `insert_start`).
    fn record_revived(
        &mut self,
        relations: &[Relation],
        insertions: &[Fact],
        insert_start: &[RowId],
    ) {
        for f in insertions {
            if let Some(r) = relations[f.rel].row_id(&f.tuple) {
                if r < insert_start[f.rel] {
                    self.added.push((f.rel, r));
                    self.revived.push((f.rel, r));
                }
            }
        }
    }

    /// Shows the relations as they were before the batch: lost facts live, gained ones not.
    fn show_old(&self, relations: &mut [Relation]) {
        for &(rel, r) in &self.removed {
            relations[rel].revive(r);
        }
        for &(rel, r) in &self.added {
            relations[rel].remove_id(r);
        }
    }

    /// Undoes [`LowerChanges::show_old`].
    fn show_new(&self, relations: &mut [Relation]) {
        for &(rel, r) in &self.added {
            relations[rel].revive(r);
        }
        for &(rel, r) in &self.removed {
            relations[rel].remove_id(r);
        }
    }
}

#[cfg(test)]
mod tests;
