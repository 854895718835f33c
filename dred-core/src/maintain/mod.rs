//! The chassis of the set-based maintenance engines: what every deletion algorithm shares,
//! and the order a batch runs in. An algorithm ([`Deletion`]) supplies only how one level's
//! deletion is done; [`Maintained`] does the rest.
//!
//! Shared, here:
//! - the model ([`Store`]): one [`Relation`] per relation (EDB and IDB) with the indexes the
//!   plans need, kept up to date rather than rebuilt; deletion leaves tombstones (row ids stay
//!   valid while a batch runs) and relations are compacted between batches once tombstones
//!   outnumber live rows;
//! - the plans made once per program ([`plans`]) and the order statistics of head-bound
//!   searches ([`order_stats`]);
//! - the levels (a program with negation has several; see [`crate::dred`]) and what a level
//!   hands up to the next: the net changes below as rows ([`levels::LowerChanges`]), the
//!   aggregate groups they touched;
//! - semi-naive insertion, phase 3 of every algorithm ([`insert`]);
//! - recording for `explain` ([`Recorder`]), the trace rounds and the batch's counters.
//!
//! Each algorithm's own, beside it: DRed's over-deletion and rederivation
//! ([`crate::dred::production`]), B/F's checks and deletion ([`crate::bf`]), and recomputing
//! a level from the levels below ([`recompute`], here: it needs nothing but the chassis). The
//! algorithms import the chassis and never each other; [`crate::per_batch`] holds all three
//! and lets the algorithm be chosen batch by batch on the same storage.
//!
//! Per batch: the algorithm's deletion of level 0 from D- (the deleted facts leave the model,
//! those that keep a derivation are back when it returns), phase 3 from A+, then per level
//! above 0 the same from the net changes below, phase 1 of an algorithm seeing the relations
//! as they were before the batch ([`levels::LowerChanges::show_old`]).

pub mod insert;
pub mod levels;
pub mod order_stats;
pub mod plans;
pub mod recompute;
mod rows;
mod store;

pub(crate) use store::prefetch_lookups;

use std::sync::Arc;
use std::time::Instant;

use crate::engine::{
    Batch, BatchReport, ChangeFacts, Edb, Engine, EngineError, Fact, Model, ModelDigest, NetChange,
    Round, Work,
};
use crate::exec::{idb_digest, idb_model};
use crate::program::{Program, RelId};
use crate::record::{Derivation, Recorder};
use crate::storage::{Relation, RowId, RowRange};
use crate::value::Tuple;
use levels::{LevelTotals, LowerChanges};
use plans::AggregatePlan;
pub use rows::RowRef;
pub(crate) use rows::SpareRows;
pub use store::Store;

/// The facts a level's deletion took out of the model (D), as row references into it.
#[derive(Clone, Debug, Default)]
pub struct Deleted {
    /// All of D: D- and every IDB fact reached, in the order reached.
    pub deleted: Vec<RowRef>,
    /// D ∩ J: the IDB part of D.
    pub overdeleted_idb: Vec<RowRef>,
    /// The frontiers: round 1 is D- (or, above level 0, the first facts reached), then the
    /// facts newly reached in each round.
    pub rounds: Vec<Vec<RowRef>>,
    /// Work of the deletion (joins, one probe per deletion and per instance's head).
    pub work: Work,
    /// Vectors kept for the next batch's frontiers.
    pub(crate) spare: SpareRows,
    /// Whether DRed's phase 1 passed its saturation budget (not a guard's); on a level's
    /// outcome, that the level was recomputed instead.
    pub saturated: bool,
    /// When DRed's phase 1 stopped on a budget: the IDB facts it had reached by then (those
    /// of D and the heads of the round it was following, as its facts budget counts them);
    /// 0 otherwise. A lower bound on the D it would have over-deleted.
    pub reached_when_stopped: usize,
    /// A relation in which a head reached (or a fact of D-) was not in the old model: the
    /// old model was not closed under the rules, or D- not normalised. D is then incomplete
    /// and the engine must not go on.
    pub not_closed: Option<RelId>,
    /// The algorithm passed [`Store`]'s work budget and stopped: every fact of `deleted` is
    /// out of the model (some may be live again; at level 0, D- may still be in it when
    /// `deleted` is empty), the level's other facts are as they were, and the level must be
    /// finished by recomputing its affected strata (`recompute::Recompute::resume`) or, when
    /// nothing was removed, by another algorithm.
    pub abandoned: bool,
}

/// A guard's work budget (probes plus rows touched) for one deletion call
/// ([`Store`]'s `budget`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WorkBudget {
    /// For a first phase that only finds what to delete (DRed's over-deletion): a phase 1
    /// that costs a large share of the budget is followed by a phase 2 that costs as much.
    pub find: u64,
    /// For the whole call.
    pub total: u64,
    /// Whether DRed's own saturation also applies: a phase 1 it stops is followed by the
    /// level's recomputation, as in `dred`, rather than handed back as abandoned.
    pub saturate: bool,
    /// With `saturate`: at level 0, a phase 1 DRed's saturation stops is handed back as
    /// abandoned, nothing removed, instead of recomputed, so that the caller may let B/F
    /// (which never over-deletes) try the level first.
    pub saturation_abandons: bool,
    /// Times past which `find` and `total` count as spent, whatever the work: a unit of
    /// work can cost an algorithm far more time than the rate that turned the guard's time
    /// into work (B/F's first checks on getopts' liveness analysis ran at 130 ns a unit, the
    /// evaluation's rate it was given was about 25, and it ran 1 s past a 210 ms guard).
    pub deadlines: Option<(Instant, Instant)>,
}

/// One run's limit under a guard: work (probes plus rows touched) and, when set, a time;
/// once past either, [`Guard::passed`] stays true. The clock is read once per
/// [`Guard::CLOCK_EVERY`] units of work.
#[derive(Clone, Debug)]
pub(crate) struct Guard {
    work: u64,
    deadline: Option<Instant>,
    next_clock: std::cell::Cell<u64>,
    passed: std::cell::Cell<bool>,
}

impl Guard {
    /// Work between two readings of the clock (some tens of microseconds).
    const CLOCK_EVERY: u64 = 1024;

    /// A limit of `work`, and of `deadline` when set.
    pub(crate) fn new(work: u64, deadline: Option<Instant>) -> Self {
        Guard {
            work,
            deadline,
            next_clock: std::cell::Cell::new(0),
            passed: std::cell::Cell::new(false),
        }
    }

    /// True once `spent` work passes the limit or the clock its deadline.
    pub(crate) fn passed(&self, spent: u64) -> bool {
        if self.passed.get() {
            return true;
        }
        let passed = spent > self.work
            || self.deadline.is_some_and(|d| {
                spent >= self.next_clock.get() && {
                    self.next_clock.set(spent + Self::CLOCK_EVERY);
                    Instant::now() > d
                }
            });
        self.passed.set(passed);
        passed
    }
}

/// What one level's deletion did: D, out of the model; what was put back before phase 3.
#[derive(Debug, Default)]
pub struct LevelDeletion {
    /// D, already removed from the relations.
    pub deleted: Deleted,
    /// Facts of D live again in the model (DRed's rederived; a recomputation's rederived).
    pub restored: usize,
    /// Rows appended before phase 3 (a recomputation's whole level; DRed revives in place).
    pub appended: usize,
    /// Work and time of putting facts back.
    pub restore_work: Work,
    /// Nanoseconds of putting facts back (the rest of the level's deletion call is deletion).
    pub restore_ns: u64,
    /// The trace rounds of deletion and restoration, in order.
    pub rounds: Vec<Round>,
    /// Per relation, the aggregate rows phase 3 adds (groups whose value moved).
    pub additions: Vec<Vec<Tuple>>,
    /// The level is the least model over the new relations below already: phase 3 of a level
    /// above 0 has nothing to add.
    pub complete: bool,
    /// Relations evaluated afresh into empty ones instead of deleted row by row
    /// ([`recompute`]): their old facts are in none of `deleted`'s lists, and the batch's
    /// counters and net change compare the old relation with the new.
    pub replaced: Vec<Replaced>,
}

/// A relation a recomputation replaced by an empty one before evaluating it again: its old
/// content, kept until the batch's net change is counted.
///
/// Why: deleting a large relation row by row and evaluating it again into the tombstoned
/// one costs a tombstone, a lookup for the net change and a compaction per old fact, and
/// every join of the evaluation walks the dead rows of its index groups; `recompute-levels`
/// was 2.5–6× `recompute`'s time for it.
#[derive(Debug)]
pub struct Replaced {
    /// The relation.
    pub rel: RelId,
    /// Its rows before the batch (the live ones are the old facts).
    pub old: Relation,
    /// The end of the new relation when the evaluation ended: rows past it were added by
    /// phase 3.
    pub evaluated_end: RowId,
    /// Of the evaluation's rows, those with a live copy in `old` (facts that stayed).
    pub restored: usize,
}

impl Replaced {
    /// Of the relation's rows now (`new`), those whose facts held before: the evaluation's
    /// `restored` and phase 3's rows found in `old` (one lookup each).
    fn back(&self, new: &Relation) -> usize {
        self.restored
            + self
                .old
                .count_present(new, RowRange::new(self.evaluated_end, new.end()))
    }
}

/// A deletion algorithm: how one level's deletion is done on the chassis's [`Store`]. The
/// chassis does everything else (levels, phase 3, counters, errors).
///
/// No supertraits, so that an engine may hold the algorithm it runs as `dyn Deletion`
/// ([`crate::per_batch`] does); `Maintained<D>` is `Clone` and `Debug` when `D` is.
pub trait Deletion {
    /// The engine's name in reports and errors.
    fn name(&self) -> &'static str;

    /// Once the model is materialised (the chassis has measured `store.evaluation_work`).
    fn materialised(&mut self, store: &Store) {
        let _ = store;
    }

    /// Level 0 of a batch: D- (present EDB facts) and what the algorithm deletes with it
    /// leave `store`'s relations, and what keeps a derivation from the remaining facts is live
    /// again when it returns. `reuse` is an earlier batch's result, its memory to reuse. An
    /// [`EngineError::Invariant`] when the model is found broken (the engine refuses every
    /// later batch then).
    fn delete_level0(
        &mut self,
        store: &mut Store,
        deletions: &[Fact],
        reuse: Deleted,
    ) -> Result<LevelDeletion, EngineError>;

    /// A level above 0, from the net changes below (`changes`), called with the relations
    /// shown as they were before the batch; it shows them new
    /// ([`LowerChanges::show_new`]) before it returns. `touched` are the level's aggregate
    /// groups the changes touched and `old_rows` their rows before the batch.
    fn delete_level(
        &mut self,
        store: &mut Store,
        level: usize,
        changes: &LowerChanges,
        touched: &[(AggregatePlan, Tuple)],
        old_rows: &[Option<RowRef>],
    ) -> Result<LevelDeletion, EngineError>;

    /// Adds the algorithm's own counters of the batch just applied to its report.
    fn report(&mut self, store: &Store, report: &mut BatchReport);

    /// Whether the deletion reads indexes a recomputation may have deferred: the chassis
    /// then builds them before calling it. An algorithm that says no builds what it needs
    /// itself (`Store::build_deferred_indexes`, or an evaluation's own).
    fn reads_indexes(&self) -> bool {
        true
    }
}

/// A set-based maintenance engine: the chassis with deletion algorithm `D`. Cloning copies
/// the whole model (benchmarks use it to replay one batch from the same state).
#[derive(Clone, Debug)]
pub struct Maintained<D> {
    pub(crate) store: Store,
    pub(crate) deletion: D,
    /// Net IDB change of the last materialisation or batch.
    last_change: NetChange,
    /// Set when a batch found the model broken: every later batch fails with it.
    broken: Option<EngineError>,
    /// Level 0's deletion of the last batch, emptied and filled again by the next (its
    /// vectors' memory kept).
    last_deleted: Deleted,
    /// Whether batches keep their net change as facts ([`Engine::keep_change_facts`]).
    keep_change: bool,
    /// The last batch's net change as facts, when kept and not yet taken.
    change_facts: Option<ChangeFacts>,
    /// While a batch runs with its change kept: the change of the relations replaced rather
    /// than deleted row by row ([`Replaced`]), which no [`LowerChanges`] lists.
    replaced_change: ChangeFacts,
}

impl<D: Deletion> Maintained<D> {
    /// An engine for `program` whose deletion is `make`'s, given the store it works on (a
    /// deletion may add indexes to its relations).
    pub(crate) fn with(program: Arc<Program>, make: impl FnOnce(&mut Store) -> D) -> Self {
        let mut store = Store::new(program, "");
        let deletion = make(&mut store);
        store.engine = deletion.name();
        Maintained {
            store,
            deletion,
            last_change: NetChange::default(),
            broken: None,
            last_deleted: Deleted::default(),
            keep_change: false,
            change_facts: None,
            replaced_change: ChangeFacts::default(),
        }
    }

    /// Per relation of the model: its name, its live rows, and the heap it holds by
    /// structure (rows, set table, indexes): what the engine's footprint is made of.
    pub fn storage_bytes(&self) -> Vec<(String, usize, crate::storage::StorageBytes)> {
        let names = self.store.program.relations.iter().map(|d| d.name.clone());
        names
            .zip(&self.store.relations)
            .map(|(name, r)| (name, r.len() - r.dead_count(), r.heap_bytes()))
            .collect()
    }

    /// Whether the batches from now on record, for each fact of each round, the first rule
    /// instance that put it there ([`Maintained::last_derivations`]). Off by default:
    /// recording looks heads up one at a time rather than in batches, and copies each binding.
    pub fn set_recording(&mut self, on: bool) {
        self.store.recorder = on.then(Recorder::default);
    }

    /// The derivations the last batch recorded, in the order found; `None` when not
    /// recording.
    pub fn last_derivations(&self) -> Option<&[Derivation]> {
        self.store
            .recorder
            .as_ref()
            .map(|r| r.derivations.as_slice())
    }

    /// Phase 3: adds `insertions` (the A+ of a normalised batch) and what follows from them.
    /// Afterwards the model is the least model of the program on the updated EDB.
    pub fn insert(&mut self, insertions: &[Fact]) -> insert::Inserted {
        self.store.insert(insertions)
    }

    /// Ends a batch run phase by phase: compacts relations whose tombstones outnumber their
    /// live rows (row ids change, so no phase result of the batch may be used afterwards).
    pub fn end_batch(&mut self) {
        self.store.compact();
    }

    /// The last batch's level-0 deletion, for its memory (left empty).
    pub(crate) fn take_last_deleted(&mut self) -> Deleted {
        std::mem::take(&mut self.last_deleted)
    }

    /// Marks the engine broken by `error` when it is a broken invariant; returns it.
    pub(crate) fn failed(&mut self, error: EngineError) -> EngineError {
        if matches!(error, EngineError::Invariant { .. }) {
            self.broken = Some(error.clone());
        }
        error
    }

    /// The levels above 0 of a batch, after level 0 (`changes` holds level 0's net
    /// change): each level's deletion and phase 3, from the net changes of the levels below.
    fn maintain_levels(
        &mut self,
        changes: &mut LowerChanges,
        totals: &mut LevelTotals,
        rounds: &mut Vec<Round>,
        phase_ns: &mut [u64; 3],
    ) -> Result<NetChange, EngineError> {
        let mut net = NetChange::default();
        for level in 1..self.store.program.num_levels() {
            let t = Instant::now();
            let store = &mut self.store;
            // The level's aggregate groups that the changes below touched: their old rows are
            // deleted outright, kept if their value stays, replaced if it moves.
            let aggregates = store.plans.aggregates_of_level[level].clone();
            for a in &aggregates {
                let def = &store.program.aggregates[a.def];
                if let Some(ix) = a.rows {
                    store.relations[def.rel].build_deferred_index(ix);
                }
                if let Some(ix) = a.input_rows {
                    store.relations[def.input].build_deferred_index(ix);
                }
            }
            let touched =
                levels::touched_groups(&store.program, &aggregates, changes, &store.relations);
            let level_start: Vec<RowId> = store.relations.iter().map(Relation::end).collect();
            let level_deletion = if changes.read_replaced(&store.program, level) {
                // A relation below was replaced: its lost facts are not rows to start an
                // algorithm from, so the level is recomputed whatever the algorithm.
                recompute::Recompute::level_above(store, level, changes)
            } else {
                changes.show_old(&mut store.relations);
                let old_rows: Vec<Option<RowRef>> = touched
                    .iter()
                    .map(|(a, key)| {
                        let def = &store.program.aggregates[a.def];
                        AggregatePlan::group(&store.relations[def.rel], a.rows, key)
                            .first()
                            .map(|&r| (def.rel, r))
                    })
                    .collect();
                if self.deletion.reads_indexes() {
                    store.build_deferred_indexes();
                }
                self.deletion
                    .delete_level(store, level, changes, &touched, &old_rows)
                    .map_err(|e| self.failed(e))?
            };
            let ns = t.elapsed().as_nanos() as u64;
            phase_ns[0] += ns.saturating_sub(level_deletion.restore_ns);
            phase_ns[1] += level_deletion.restore_ns;
            let level_net = self.insert_level(
                level,
                changes,
                totals,
                rounds,
                phase_ns,
                level_deletion,
                &level_start,
            );
            net.removed += level_net.removed;
            net.added += level_net.added;
        }
        Ok(net)
    }

    /// Phase 3 of a level above 0 and its net change, after its deletion (`del`);
    /// `level_start` are the relations' ends before the deletion began.
    #[allow(clippy::too_many_arguments)]
    fn insert_level(
        &mut self,
        level: usize,
        changes: &mut LowerChanges,
        totals: &mut LevelTotals,
        rounds: &mut Vec<Round>,
        phase_ns: &mut [u64; 3],
        mut del: LevelDeletion,
        level_start: &[RowId],
    ) -> NetChange {
        rounds.append(&mut del.rounds);
        let store = &mut self.store;
        let insert_start: Vec<RowId> = store.relations.iter().map(Relation::end).collect();
        let t = Instant::now();
        let ins = if del.complete {
            insert::Inserted::default()
        } else {
            store.build_insertion_indexes();
            let program = &store.program;
            let below = insert::FromBelow {
                delta_from: (0..store.relations.len())
                    .map(|rel| {
                        if levels::is_below(program, rel, level) {
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
            insert::insert_rows(
                program,
                &mut store.relations,
                &store.plans,
                level,
                del.additions.iter().map(|rows| rows.iter()),
                Some(below),
                store.trace_facts,
                store.recorder.as_mut(),
            )
        };
        phase_ns[2] += t.elapsed().as_nanos() as u64;
        let store = &self.store;
        let program = &store.program;
        let counted = changes.record(
            &store.relations,
            &del.deleted.deleted,
            level_start,
            |rel| program.is_idb(rel),
            |rel| {
                program.level_of(rel) == level
                    && program.is_idb(rel)
                    && !del.replaced.iter().any(|x| x.rel == rel)
            },
        );
        let net = self.level_totals(totals, &del, &ins, Some(counted));
        let replaced = std::mem::take(&mut del.replaced);
        rounds.extend(ins.rounds);
        for x in &replaced {
            changes.replaced[x.rel] = true;
        }
        self.store.keep_spares(replaced);
        net
    }

    /// Adds a level's counters to the batch's; returns the level's net change. Run before
    /// compaction: one probe per deleted IDB fact not live again, unless `counted` brings
    /// those probes' counts (gone, back) from recording the level's changes.
    fn level_totals(
        &mut self,
        totals: &mut LevelTotals,
        del: &LevelDeletion,
        ins: &insert::Inserted,
        counted: Option<(usize, usize)>,
    ) -> NetChange {
        // A deleted fact not restored is gone unless it was derived again as a new row.
        let (mut gone, mut back) = match counted {
            Some(counted) => {
                debug_assert_eq!(
                    counted,
                    self.store.gone_and_back(&del.deleted.overdeleted_idb),
                    "D's IDB rows are D ∩ J"
                );
                counted
            }
            None => self.store.gone_and_back(&del.deleted.overdeleted_idb),
        };
        for replaced in &del.replaced {
            let new = &self.store.relations[replaced.rel];
            let stayed = replaced.back(new);
            gone += replaced.old.len() - stayed;
            back += stayed;
            totals.overdeleted += replaced.old.len();
            if self.keep_change {
                let change = &mut self.replaced_change;
                let (old, all_old) = (&replaced.old, replaced.old.all());
                let (all_new, rel) = (new.all(), replaced.rel);
                change.removed.extend(
                    old.rows(all_old)
                        .filter(|row| new.row_id(row).is_none())
                        .map(|row| (rel, row)),
                );
                change.added.extend(
                    new.rows(all_new)
                        .filter(|row| old.row_id(row).is_none())
                        .map(|row| (rel, row)),
                );
            }
        }
        totals.overdeleted += del.deleted.overdeleted_idb.len();
        totals.rederived += del.restored;
        // A restoration that appends finds old facts (counted as restored) and, above
        // level 0, new ones.
        totals.inserted += ins.inserted + (del.appended - del.restored.min(del.appended));
        totals.work[0] += del.deleted.work;
        totals.work[1] += del.restore_work;
        totals.work[2] += ins.work;
        NetChange {
            removed: gone,
            added: ins.inserted + del.appended - back,
        }
    }
}

impl<D: Deletion> Engine for Maintained<D> {
    fn name(&self) -> &str {
        self.store.engine
    }

    fn materialise(&mut self, edb: &Edb) -> Result<BatchReport, EngineError> {
        let store = &mut self.store;
        for r in &mut store.relations {
            r.clear();
        }
        store.batches = 0;
        self.broken = None;
        // The initial model is phase 3 from an empty model: the whole EDB as round 1, read
        // where it is rather than copied or listed (on a large EDB and a small model a copy
        // as facts, a heap block per tuple, was a third of the engine's peak memory, and a
        // list of references to them 8 bytes an edge of it); then each stratum in dependency
        // order, from the complete relations below it.
        let program = store.program.clone();
        let none: [usize; 0] = [];
        store.materialised = true;
        let t = Instant::now();
        let everything = vec![0; store.relations.len()];
        let mut outcome = insert::insert_rows(
            &program,
            &mut store.relations,
            &store.plans,
            0,
            edb.relations.iter().map(|tuples| tuples.iter()),
            Some(insert::FromBelow {
                delta_from: everything,
                rules: Some(&none),
                ..insert::FromBelow::default()
            }),
            store.trace_facts,
            None,
        );
        let mut by_level = vec![0; program.num_levels().max(1)];
        by_level[0] = outcome.work.probes + outcome.work.touched;
        // The derived relations' indexes are built after the evaluation, each in one pass,
        // but for those it reads (`Store::evaluate_stratum` builds them first): so that each
        // stratum's evaluation costs what a recomputation of it does, without the indexes
        // only maintenance reads, and `auto`'s first prediction of a recomputation, taken
        // from it, is less far off (GO BP's TC, in one run: 90 ms with every index kept up
        // to date, 61 without, against 48 for `recompute`'s batch; the process's first
        // evaluation into fresh memory still varies, 61–233 ms in six runs). Built in one pass
        // each, they also took less memory (the process's peak 85.6 MB, 82.1 without).
        for (rel, r) in store.relations.iter_mut().enumerate() {
            if program.is_idb(rel) {
                for ix in 0..r.index_count() {
                    r.defer_index(ix);
                }
            }
        }
        for (s, stratum) in program.strata.iter().enumerate() {
            let (more, folding) = store.evaluate_stratum(s);
            outcome.work += more.work;
            outcome.work += folding;
            by_level[stratum.level] += more.work.probes + more.work.touched;
            outcome.rounds.extend(more.rounds);
        }
        store.build_deferred_indexes();
        store.evaluation_work = by_level;
        self.last_change = NetChange {
            removed: 0,
            added: store.idb_len(),
        };
        self.deletion.materialised(&self.store);
        // As the reference, batch 0 leaves `inserted` empty: the model's size says it all.
        Ok(BatchReport {
            insert_ns: Some(t.elapsed().as_nanos() as u64),
            insert_work: Some(outcome.work),
            rounds: outcome.rounds,
            ..BatchReport::default()
        })
    }

    fn apply(&mut self, batch: &Batch) -> Result<BatchReport, EngineError> {
        if !self.store.materialised {
            return Err(EngineError::Misuse {
                engine: self.store.engine.into(),
                message: "apply before materialise".into(),
            });
        }
        if let Some(e) = &self.broken {
            return Err(e.clone());
        }
        self.store.check_batch(batch)?;
        self.store.batches += 1;
        self.store.batch_insertions = batch.insertions.len();
        if let Some(rec) = &mut self.store.recorder {
            rec.derivations.clear();
        }
        // Only a program with negation has levels above 0, and only they need the batch's
        // net changes as rows (or a caller keeping the change as facts).
        self.change_facts = None;
        self.replaced_change = ChangeFacts::default();
        let mut changes = (self.store.program.num_levels() > 1 || self.keep_change)
            .then(|| LowerChanges::new(&self.store.relations));
        let level_start: Vec<RowId> = match changes {
            Some(_) => self.store.relations.iter().map(Relation::end).collect(),
            None => Vec::new(),
        };

        let t = Instant::now();
        if self.deletion.reads_indexes() {
            self.store.build_deferred_indexes();
        }
        let reuse = std::mem::take(&mut self.last_deleted);
        let mut del = self
            .deletion
            .delete_level0(&mut self.store, &batch.deletions, reuse)
            .map_err(|e| self.failed(e))?;
        let ns = t.elapsed().as_nanos() as u64;
        let mut phase_ns = [ns.saturating_sub(del.restore_ns), del.restore_ns, 0];
        let mut rounds = std::mem::take(&mut del.rounds);

        let t = Instant::now();
        let ins = self.store.insert(&batch.insertions);
        phase_ns[2] += t.elapsed().as_nanos() as u64;
        let store = &self.store;
        // A replaced relation's rows are all new ones: its change is counted apart.
        let counted = changes.as_mut().map(|changes| {
            changes.record(
                &store.relations,
                &del.deleted.deleted,
                &level_start,
                |rel| store.program.is_idb(rel),
                |rel| {
                    store.program.level_of(rel) == 0 && !del.replaced.iter().any(|x| x.rel == rel)
                },
            )
        });
        let mut totals = LevelTotals::default();
        let mut net = self.level_totals(&mut totals, &del, &ins, counted);
        rounds.extend(ins.rounds);

        if let Some(changes) = changes.as_mut() {
            let store = &self.store;
            changes.record_revived(&store.relations, &batch.insertions, &level_start);
            for x in &del.replaced {
                changes.replaced[x.rel] = true;
            }
            let above = self.maintain_levels(changes, &mut totals, &mut rounds, &mut phase_ns)?;
            net.removed += above.removed;
            net.added += above.added;
        }
        self.last_change = net;
        let mut report = BatchReport {
            overdelete_ns: Some(phase_ns[0]),
            rederive_ns: Some(phase_ns[1]),
            insert_ns: Some(phase_ns[2]),
            overdeleted: Some(totals.overdeleted),
            rederived: Some(totals.rederived),
            inserted: Some(totals.inserted),
            overdelete_work: Some(totals.work[0]),
            rederive_work: Some(totals.work[1]),
            insert_work: Some(totals.work[2]),
            rounds,
            ..BatchReport::default()
        };
        self.deletion.report(&self.store, &mut report);

        if let Some(changes) = changes.as_ref().filter(|_| self.keep_change) {
            // Before compaction: the removed rows are still tombstones holding their values.
            let mut change = changes.idb_facts(&self.store.program, &self.store.relations);
            let replaced = std::mem::take(&mut self.replaced_change);
            change.removed.append(&replaced.removed);
            change.added.append(&replaced.added);
            debug_assert_eq!(
                (change.removed.len(), change.added.len()),
                (net.removed, net.added),
                "the change as facts and as counts"
            );
            self.change_facts = Some(change);
        }
        self.store.keep_spares(del.replaced);
        self.store.compact();
        self.last_deleted = del.deleted;
        if cfg!(debug_assertions) {
            for r in &self.store.relations {
                r.check_invariants();
            }
        }
        Ok(report)
    }

    fn set_trace_facts(&mut self, on: bool) {
        self.store.trace_facts = on;
    }

    /// Kept from the net changes as rows that levels above 0 are seeded from (for a program
    /// without negation, recorded for level 0 alone), before compaction renumbers the rows:
    /// a lookup per deleted row, as the batch's net change count already makes.
    fn keep_change_facts(&mut self, on: bool) -> bool {
        self.keep_change = on;
        self.change_facts = None;
        true
    }

    fn take_change_facts(&mut self) -> Option<ChangeFacts> {
        self.change_facts.take()
    }

    fn digest(&self) -> ModelDigest {
        idb_digest(&self.store.program, &self.store.relations)
    }

    fn net_change(&self) -> Option<NetChange> {
        Some(self.last_change)
    }

    fn model(&self) -> Model {
        idb_model(&self.store.program, &self.store.relations)
    }
}

#[cfg(test)]
mod tests {
    use super::Guard;
    use std::time::{Duration, Instant};

    #[test]
    fn a_guard_passes_on_work_or_time_and_stays_passed() {
        let by_work = Guard::new(10, None);
        assert!(!by_work.passed(10));
        assert!(by_work.passed(11));
        assert!(by_work.passed(0), "once passed, passed");

        let past = Instant::now() - Duration::from_millis(1);
        let by_time = Guard::new(u64::MAX, Some(past));
        assert!(by_time.passed(0), "the clock is read on the first call");
        assert!(by_time.passed(1), "and the verdict kept between readings");

        let later = Instant::now() + Duration::from_secs(3600);
        let not_yet = Guard::new(u64::MAX, Some(later));
        assert!(!not_yet.passed(0));
        assert!(!not_yet.passed(Guard::CLOCK_EVERY));
    }
}
