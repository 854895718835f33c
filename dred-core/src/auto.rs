//! The engine `auto`: before each batch it predicts what DRed, B/F and recomputing the
//! affected strata would cost, runs the cheapest on the chassis's one storage
//! ([`crate::maintain`]), and guards the choice: an incremental algorithm that passes a work
//! budget set by the predicted recomputation stops, and the level is finished by recomputing
//! its affected strata (`Recompute::resume`), which needs no rollback.
//!
//! **The model** (nanoseconds of the batch's deletion, all levels; phase 3 is the same for
//! every choice and not predicted):
//! - *recompute* = the sum, over the strata the batch can reach (those reading a relation of
//!   D-, or at a level above 0 of D- or A+, and transitively), of the time of each stratum's
//!   last evaluation from scratch, measured by the chassis at materialisation and at every
//!   recomputation (`Store::stratum_cost`);
//! - *DRed* and *B/F* = the facts the batch changes (|D-|, and |A+| when the program has
//!   levels above 0, where insertions delete) times the algorithm's nanoseconds per changed
//!   fact over the batches it ran, old batches fading by halving. An algorithm not yet run
//!   is predicted free, so it is tried once (under the guard); a run that was abandoned
//!   counts as [`CENSORED`] times the time it spent; and every batch that recomputes makes
//!   the incremental algorithms' figures [`FORGET`] times cheaper, so that an algorithm
//!   judged too costly on one batch is tried again on later ones (the guard bounds what a
//!   wrong try costs).
//!
//! The cheapest prediction wins (ties: DRed, B/F, recomputation). A batch that deletes
//! nothing runs DRed, which then does nothing before phase 3.
//!
//! **The guard** (a ski-rental argument): an incremental algorithm may spend up to the
//! predicted recomputation ([`GUARD`] = 1) before it is abandoned, so a batch costs at most
//! about twice the best of "finish" and "recompute"; DRed's phase 1 gets half of it
//! ([`PHASE1_SHARE`]), as its saturation does, because a phase 1 that costs half a
//! recomputation is followed by a rederivation that costs at least as much. A DRed abandoned
//! in phase 1 has removed nothing, so at level 0 B/F, which never over-deletes, then gets
//! what is left of the guard; only after that is the level recomputed. Budgets are in work
//! (probes plus rows touched, what the algorithms count as they go), converted from time by
//! each algorithm's measured nanoseconds per unit of work. The levels above 0 run the
//! algorithm that finished level 0, under what is left of the guard.
//!
//! Report: `chosen` (dred, bf, recompute), `abandoned` (how many algorithms passed their
//! budget: 0, 1 or 2) and the three predictions; the counters are those of the algorithm that
//! finished the batch (after an abandonment, together with the partial work before it).

use std::sync::Arc;
use std::time::Instant;

use crate::bf::BfDeletion;
use crate::dred::production::DredDeletion;
use crate::engine::{BatchReport, EngineError, Fact};
use crate::maintain::levels::LowerChanges;
use crate::maintain::plans::AggregatePlan;
use crate::maintain::recompute::{affected_strata, lower_changed, Recompute};
use crate::maintain::{Deleted, Deletion, LevelDeletion, Maintained, RowRef, Store, WorkBudget};
use crate::per_batch::Method;
use crate::program::Program;
use crate::value::Tuple;

/// An incremental algorithm may spend this many predicted recomputations before it is
/// abandoned.
pub const GUARD: f64 = 1.0;
/// DRed's phase 1 may spend this share of the guard's budget.
pub const PHASE1_SHARE: f64 = 0.5;
/// An abandoned run is counted as this many times the time it spent (it would have cost
/// more).
pub const CENSORED: f64 = 1.5;
/// Each batch that recomputes multiplies the incremental algorithms' nanoseconds per fact by
/// this.
pub const FORGET: f64 = 0.9;
/// No budget below this much work: on tiny batches an abandonment saves nothing.
pub const BUDGET_FLOOR: u64 = 2_000;

/// How the engine chooses; the default predicts. The others are for tests.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Choosing {
    /// By the model (see the module's header).
    #[default]
    Predicted,
    /// Always this method, under the guard.
    Forced(Method),
    /// Always this incremental method, abandoned at once (a budget of 0 work): every batch
    /// that deletes goes through abandonment.
    Abandoning(Method),
    /// Always DRed, its phase 1 unbounded and its rederivation abandoned after its first
    /// round (when it needs more than one).
    AbandoningRederivation,
}

/// What `auto` did on a batch.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Choice {
    /// The method chosen.
    pub chosen: Method,
    /// How many algorithms passed their budget on the batch: 0; 1 (the choice, and the
    /// batch was finished by B/F or by recomputation); 2 (DRed, then B/F, then
    /// recomputation).
    pub abandoned: usize,
    /// The algorithm that finished the batch's deletion.
    pub finished: Method,
    /// Predicted nanoseconds of DRed, B/F and recomputation, in [`Method::ALL`]'s order.
    pub predicted_ns: [u64; 3],
}

impl Default for Choice {
    fn default() -> Self {
        Choice {
            chosen: Method::Dred,
            abandoned: 0,
            finished: Method::Dred,
            predicted_ns: [0; 3],
        }
    }
}

/// Decayed sums of an algorithm's measurements: (time, quantity) pairs.
#[derive(Clone, Copy, Debug, Default)]
struct Rate {
    ns: f64,
    of: f64,
}

impl Rate {
    fn add(&mut self, ns: f64, of: f64) {
        self.ns = self.ns / 2.0 + ns;
        self.of = self.of / 2.0 + of;
    }

    /// Nanoseconds per unit; `None` before a measurement.
    fn per(&self) -> Option<f64> {
        (self.of > 0.0).then(|| self.ns / self.of)
    }
}

/// What the model has measured (see the module's header).
#[derive(Clone, Debug, Default)]
struct CostModel {
    /// DRed's and B/F's nanoseconds per changed fact.
    per_fact: [Rate; 2],
    /// Per method, nanoseconds per unit of work, to turn a time budget into work.
    per_work: [Rate; 3],
}

/// `auto`'s deletion: the three algorithms, the model, and the running batch's choice.
#[derive(Clone, Debug)]
pub struct AutoDeletion {
    dred: DredDeletion,
    bf: BfDeletion,
    recompute: Recompute,
    model: CostModel,
    choosing: Choosing,
    /// The running (or last) batch's choice.
    choice: Choice,
    /// Facts the running batch changes, for the model.
    changed_facts: usize,
    /// The guard's budget in nanoseconds (0 when recomputing).
    budget_ns: f64,
    /// Per method (in [`Method::ALL`]'s order), the running batch's nanoseconds and work in
    /// it, and whether it was abandoned.
    spent: [(u64, u64, bool); 3],
}

/// The engine `auto`.
pub type Auto = Maintained<AutoDeletion>;

fn index(method: Method) -> usize {
    match method {
        Method::Dred => 0,
        Method::BackwardForward => 1,
        Method::Recompute => 2,
    }
}

impl AutoDeletion {
    /// The predictions for a batch deleting `deletions` (see the module's header), in
    /// [`Method::ALL`]'s order, and the facts it changes.
    fn predict(&self, store: &Store, deletions: &[Fact]) -> ([f64; 3], usize) {
        let program = &store.program;
        let mut changed = Recompute::changed_by(store, deletions.iter().map(|f| f.rel));
        let mut strata = affected_strata(program, None, &mut changed);
        let mut changed_facts = deletions.len();
        if program.num_levels() > 1 {
            // Insertions delete above level 0 (through negation and aggregates): every
            // stratum there is assumed reached.
            strata.retain(|&s| program.strata[s].level == 0);
            strata.extend((0..program.strata.len()).filter(|&s| program.strata[s].level > 0));
            changed_facts += store.batch_insertions;
        }
        let recompute: f64 = strata.iter().map(|&s| store.stratum_cost[s].0 as f64).sum();
        let incremental = |i: usize| {
            self.model.per_fact[i]
                .per()
                .map_or(0.0, |per| per * changed_facts as f64)
        };
        ([incremental(0), incremental(1), recompute], changed_facts)
    }

    /// The running method's algorithm.
    fn algorithm(&mut self, method: Method) -> &mut dyn Deletion {
        match method {
            Method::Dred => &mut self.dred,
            Method::BackwardForward => &mut self.bf,
            Method::Recompute => &mut self.recompute,
        }
    }

    /// The work budget of `method` for what is left of the batch's guard, given the work
    /// it has spent on the levels before; `None` for recomputation.
    fn budget(&self, store: &Store, method: Method) -> Option<WorkBudget> {
        if method == Method::Recompute {
            return None;
        }
        match self.choosing {
            Choosing::Abandoning(_) => return Some(WorkBudget { find: 0, total: 0 }),
            Choosing::AbandoningRederivation => {
                return Some(WorkBudget {
                    find: u64::MAX,
                    total: 0,
                })
            }
            _ => {}
        }
        let per_work = self.model.per_work[index(method)]
            .per()
            .or_else(|| evaluation_per_work(store))
            .unwrap_or(1.0)
            .max(1e-3);
        // What the batch has left of the guard, in this method's work.
        let spent_ns: u64 = self.spent.iter().map(|s| s.0).sum();
        let left_ns = (self.budget_ns - spent_ns as f64).max(0.0);
        let total = ((left_ns / per_work) as u64).max(BUDGET_FLOOR);
        // DRed's phase 1 gets its share of the whole guard, less what DRed has spent.
        let whole = ((self.budget_ns / per_work) as u64).max(BUDGET_FLOOR);
        let find = ((whole as f64 * PHASE1_SHARE) as u64)
            .saturating_sub(self.spent[index(method)].1)
            .min(total);
        Some(WorkBudget { find, total })
    }

    /// Runs `method`'s deletion of a level under its budget and accounts for it; the result
    /// may be abandoned ([`Deleted::abandoned`]).
    fn run_guarded(
        &mut self,
        store: &mut Store,
        method: Method,
        run: impl FnOnce(&mut dyn Deletion, &mut Store) -> Result<LevelDeletion, EngineError>,
    ) -> Result<LevelDeletion, EngineError> {
        store.budget = self.budget(store, method);
        let t = Instant::now();
        let outcome = run(self.algorithm(method), store);
        store.budget = None;
        let level = outcome?;
        let spent = &mut self.spent[index(method)];
        spent.0 += t.elapsed().as_nanos() as u64;
        spent.1 += level.deleted.work.probes
            + level.deleted.work.touched
            + level.restore_work.probes
            + level.restore_work.touched;
        if level.deleted.abandoned {
            spent.2 = true;
            self.choice.abandoned += 1;
        } else {
            self.choice.finished = method;
        }
        Ok(level)
    }

    /// Finishes an abandoned level by recomputing its affected strata, timed as
    /// recomputation's.
    fn recompute_abandoned(
        &mut self,
        store: &mut Store,
        resume: impl FnOnce(&mut Store) -> LevelDeletion,
    ) -> LevelDeletion {
        let t = Instant::now();
        let level = resume(store);
        self.spent[index(Method::Recompute)].0 += t.elapsed().as_nanos() as u64;
        self.choice.finished = Method::Recompute;
        level
    }

    /// Learns from the batch just applied: each incremental algorithm that ran, its time per
    /// changed fact (an abandoned run's censored); each that ran, its time per unit of work.
    fn learn(&mut self) {
        if self.choice.chosen == Method::Recompute {
            for rate in &mut self.model.per_fact {
                rate.ns *= FORGET;
            }
        }
        for m in Method::ALL {
            let (ns, work, abandoned) = self.spent[index(m)];
            if work == 0 && ns == 0 {
                continue;
            }
            if m != Method::Recompute && self.changed_facts > 0 {
                let cost = if abandoned {
                    ns as f64 * CENSORED
                } else {
                    ns as f64
                };
                self.model.per_fact[index(m)].add(cost, self.changed_facts as f64);
            }
            if work > 0 {
                self.model.per_work[index(m)].add(ns as f64, work as f64);
            }
        }
    }
}

/// Nanoseconds per unit of work of the last evaluations from scratch.
fn evaluation_per_work(store: &Store) -> Option<f64> {
    let (ns, work) = store
        .stratum_cost
        .iter()
        .fold((0u64, 0u64), |(n, w), &(sn, sw)| (n + sn, w + sw));
    (work > 0).then(|| ns as f64 / work as f64)
}

impl Deletion for AutoDeletion {
    fn name(&self) -> &'static str {
        "auto"
    }

    fn materialised(&mut self, store: &Store) {
        self.dred.materialised(store);
        self.bf.materialised(store);
        self.model = CostModel::default();
    }

    fn delete_level0(
        &mut self,
        store: &mut Store,
        deletions: &[Fact],
        reuse: Deleted,
    ) -> Result<LevelDeletion, EngineError> {
        let (predicted, changed_facts) = self.predict(store, deletions);
        self.changed_facts = changed_facts;
        let chosen = match self.choosing {
            Choosing::Forced(m) | Choosing::Abandoning(m) => m,
            Choosing::AbandoningRederivation => Method::Dred,
            Choosing::Predicted if changed_facts == 0 => Method::Dred,
            Choosing::Predicted => {
                let mut best = Method::Dred;
                for m in Method::ALL {
                    if predicted[index(m)] < predicted[index(best)] {
                        best = m;
                    }
                }
                best
            }
        };
        self.choice = Choice {
            chosen,
            abandoned: 0,
            finished: chosen,
            predicted_ns: predicted.map(|p| p as u64),
        };
        self.budget_ns = predicted[2] * GUARD;
        self.spent = [(0, 0, false); 3];
        let mut level = self.run_guarded(store, chosen, |algorithm, store| {
            algorithm.delete_level0(store, deletions, reuse)
        })?;
        // DRed's phase 1 stops before it removes anything: B/F, which never over-deletes, may
        // still finish within what is left of the guard.
        if level.deleted.abandoned && chosen == Method::Dred && level.deleted.deleted.is_empty() {
            level = self.run_guarded(store, Method::BackwardForward, |algorithm, store| {
                algorithm.delete_level0(store, deletions, Deleted::default())
            })?;
        }
        if !level.deleted.abandoned {
            return Ok(level);
        }
        Ok(self.recompute_abandoned(store, |store| {
            // D- leaves the model first, if the algorithm had not removed it yet.
            for f in deletions {
                if let Some(r) = store.relations[f.rel].row_id(&f.tuple) {
                    store.relations[f.rel].remove_id(r);
                    level.deleted.deleted.push((f.rel, r));
                    level.deleted.work.touched += 1;
                }
            }
            let mut changed = Recompute::changed_by(store, deletions.iter().map(|f| f.rel));
            Recompute::resume(store, 0, &mut changed, level, false)
        }))
    }

    fn delete_level(
        &mut self,
        store: &mut Store,
        level_index: usize,
        changes: &LowerChanges,
        touched: &[(AggregatePlan, Tuple)],
        old_rows: &[Option<RowRef>],
    ) -> Result<LevelDeletion, EngineError> {
        // The levels above run what finished level 0.
        let method = self.choice.finished;
        let level = self.run_guarded(store, method, |algorithm, store| {
            algorithm.delete_level(store, level_index, changes, touched, old_rows)
        })?;
        if !level.deleted.abandoned {
            return Ok(level);
        }
        Ok(self.recompute_abandoned(store, |store| {
            let mut changed = Recompute::changed_by(store, lower_changed(changes));
            Recompute::resume(store, level_index, &mut changed, level, true)
        }))
    }

    fn report(&mut self, report: &mut BatchReport) {
        self.algorithm(self.choice.finished).report(report);
        self.learn();
        let [dred, bf, recompute] = self.choice.predicted_ns;
        report.chosen = Some(match self.choice.chosen {
            Method::Dred => "dred",
            Method::BackwardForward => "bf",
            Method::Recompute => "recompute",
        });
        report.abandoned = Some(self.choice.abandoned);
        report.predicted_ns = Some([dred, bf, recompute]);
    }
}

impl Maintained<AutoDeletion> {
    /// An `auto` engine for a program, with or without negation and aggregates.
    pub fn new(program: Arc<Program>) -> Self {
        Self::with(program, |store| AutoDeletion {
            dred: DredDeletion::new(store),
            bf: BfDeletion::new(store),
            recompute: Recompute,
            model: CostModel::default(),
            choosing: Choosing::default(),
            choice: Choice::default(),
            changed_facts: 0,
            budget_ns: 0.0,
            spent: [(0, 0, false); 3],
        })
    }

    /// How the batches from now on choose (tests force each branch and abandonment).
    pub fn set_choosing(&mut self, choosing: Choosing) {
        self.deletion.choosing = choosing;
    }

    /// What the last batch chose.
    pub fn last_choice(&self) -> Choice {
        self.deletion.choice
    }
}
