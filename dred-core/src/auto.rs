//! The engine `auto`: before each batch it predicts what DRed, B/F and recomputing the
//! affected strata would cost, runs the cheapest on the chassis's one storage
//! ([`crate::maintain`]), and guards the choice: an incremental algorithm that passes a work
//! budget set by the predicted recomputation stops, and the level is finished by recomputing
//! its affected strata (`Recompute::resume`), which needs no rollback.
//!
//! **The model** (nanoseconds of the batch's deletion, all levels; phase 3 is the same for
//! every choice and not predicted). Every figure is kept per [`Kind`] of batch (deleting,
//! inserting, both): a batch that deletes leaves a smaller model than one that inserts, so
//! in a stream that alternates them (edits and their reverts) a figure measured on one kind
//! mispredicts the other — on getopts' liveness analysis, a recomputation after an
//! insertion took 490 ms and one after a deletion 36 ms.
//! - *recompute* = the sum, over the strata the batch can reach (those reading a relation of
//!   D-, or at a level above 0 of D- or A+, and transitively), of the time of each stratum's
//!   last evaluation from scratch on a batch of the same kind, or, before there is one, at
//!   materialisation or on any batch (`Store::stratum_cost`);
//! - *DRed* and *B/F* = the facts the batch changes (|D-|, and |A+| when the program has
//!   levels above 0, where insertions delete) times the algorithm's nanoseconds per changed
//!   fact over the batches of the kind it ran, old batches fading by halving. An algorithm
//!   not yet run on a kind is predicted free, so it is tried once (under the guard: its
//!   deadlines bound what the try costs, see below; B/F tried so on celegans' SCC
//!   deletions then won at 10–20 ms where DRed and recomputation cost 300–450); a run
//!   that was abandoned counts as [`CENSORED`] times the time it spent; and every batch that
//!   recomputes makes the incremental algorithms' figures for its kind [`FORGET`] times
//!   cheaper, so that an algorithm judged too costly on one batch is tried again on later
//!   ones (the guard bounds what a wrong try costs). But not at once: an algorithm
//!   abandoned k times in a row on a kind (its first try, cold and under deadlines, not
//!   counted) sits out the next 2^k batches of the kind (at most [`BACKOFF_MAX`]); without
//!   that, on GO BP's TC, where recomputing is best, B/F
//!   and DRed were tried again every few batches, each try abandoned at 2–3 times
//!   `recompute`.
//!
//! The cheapest prediction wins (ties: DRed, B/F, recomputation). A batch that deletes
//! nothing runs DRed, which then does nothing before phase 3.
//!
//! **The guard** (a ski-rental argument): an incremental algorithm may spend up to the
//! predicted recomputation ([`GUARD`] = 1) before it is abandoned, so a batch costs at most
//! about twice the best of "finish" and "recompute"; DRed's phase 1 gets half of it
//! ([`PHASE1_SHARE`]), because a phase 1 that costs half a recomputation is followed by a
//! rederivation that costs at least as much; DRed's own saturation applies as well: a level
//! above 0 it saturates is recomputed as in `dred`, and at level 0 a saturated phase 1 is
//! handed back as abandoned. A DRed abandoned in phase 1 has removed nothing, so at level 0 B/F, which never over-deletes, then gets
//! what is left of the guard (unless predicted dearer than recomputing); only after that is
//! the level recomputed. Budgets are in work
//! (probes plus rows touched, what the algorithms count as they go), converted from time by
//! each algorithm's measured nanoseconds per unit of work; an algorithm not measured yet gets
//! the evaluation's rate and, since it may spend far more time per unit than that, the same
//! shares of half the guard ([`UNTRIED_SHARE`]) as deadlines from the batch's start; a
//! measured one gets deadlines at twice the guard ([`BACKSTOP`]), for a batch whose work
//! costs more time than its rate says. The levels above 0 run the algorithm that finished
//! level 0, under what is left of the guard.
//!
//! Report: `chosen` (dred, bf, recompute), `abandoned` (how many algorithms passed their
//! budget: 0, 1 or 2) and the three predictions; the counters are those of the algorithm that
//! finished the batch (after an abandonment, together with the partial work before it).

use std::sync::Arc;
use std::time::Instant;

use crate::bf::BfDeletion;
use crate::dred::production::overdelete::Saturation;
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
/// An algorithm whose time per unit of work is not measured yet gets this share of the
/// guard, as deadlines: before the first recomputation of a kind of batch the predicted
/// recomputation is the materialisation's, which overestimates one on the chassis's reused
/// memory by up to twice (GO BP's TC: 141 ms against 73), so a first try under the whole
/// guard, abandoned, then recomputed, cost 7.8 times `recompute` on that batch.
pub const UNTRIED_SHARE: f64 = 0.5;
/// A measured algorithm's work budget is backed by deadlines at this many times the guard's
/// time (and the phase-1 share of it), from the batch's start. Why: the budget is converted
/// to work by the algorithm's rate on earlier batches, and a batch whose work costs more
/// time than that rate says overran it unchecked: on getopts' liveness analysis a B/F
/// predicted at 28.6 ms (recomputing: 29.0) was abandoned and the level recomputed only
/// after 161.6 ms, 6.1 times `recompute` on the batch (`results/auto/2026-12-06-backstop/`).
/// Not at the guard itself: the clock's noise then abandoned runs that would have finished
/// (see `AutoDeletion::budget`).
pub const BACKSTOP: f64 = 2.0;
/// An abandoned run is counted as this many times the time it spent (it would have cost
/// more).
pub const CENSORED: f64 = 1.5;
/// Each batch that recomputes multiplies the incremental algorithms' nanoseconds per fact by
/// this.
pub const FORGET: f64 = 0.9;
/// The most batches of a kind an abandoned algorithm sits out (see the module's header).
pub const BACKOFF_MAX: u32 = 64;
/// No budget below this much work: on tiny batches an abandonment saves nothing.
pub const BUDGET_FLOOR: u64 = 2_000;
/// No deadline sooner than this many nanoseconds after the batch began, for the same reason
/// (and the clock's own noise is of this order).
pub const DEADLINE_FLOOR_NS: u64 = 200_000;

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
    /// Always DRed, its phase 1 unbounded and its rederivation abandoned at once: in round
    /// 1's checks, after what its scans restored, or after round 1 when it has no checks
    /// (and needs more than one round).
    AbandoningRederivation,
    /// Always DRed, under the guard, its own saturation firing at once: every level with an
    /// over-deletion is recomputed by DRed, not abandoned.
    Saturating,
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

/// What a batch does, for the model: its figures are kept per kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Deletions only.
    Deletes,
    /// Insertions only.
    Inserts,
    /// Both.
    Both,
}

impl Kind {
    fn of(deletions: usize, insertions: usize) -> Self {
        match (deletions > 0, insertions > 0) {
            (true, false) => Kind::Deletes,
            (false, true) => Kind::Inserts,
            _ => Kind::Both,
        }
    }

    fn index(self) -> usize {
        self as usize
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
    /// Per [`Kind`], DRed's and B/F's nanoseconds per changed fact.
    per_fact: [[Rate; 2]; 3],
    /// Per method, nanoseconds per unit of work, to turn a time budget into work.
    per_work: [Rate; 3],
    /// Per [`Kind`], each stratum's last evaluation from scratch on a batch of the kind, in
    /// nanoseconds (0: none yet; empty until the first).
    stratum_ns: [Vec<u64>; 3],
    /// Per [`Kind`], DRed's and B/F's backoff: abandonments in a row, and batches of the
    /// kind left to sit out.
    backoff: [[(u32, u32); 2]; 3],
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
    /// The running batch's kind.
    kind: Kind,
    /// The strata's evaluation times (`Store::stratum_cost`) when the batch began: those
    /// that differ after it were evaluated by it.
    stratum_ns_before: Vec<u64>,
    /// The guard's budget in nanoseconds (0 when recomputing).
    budget_ns: f64,
    /// When the running batch's deletion began: the guard's deadlines count from it.
    started: Instant,
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
        let kind = Kind::of(deletions.len(), store.batch_insertions);
        let of_kind = &self.model.stratum_ns[kind.index()];
        let recompute: f64 = strata
            .iter()
            .map(|&s| match of_kind.get(s) {
                Some(&ns) if ns > 0 => ns as f64,
                _ => store.stratum_cost[s].0 as f64,
            })
            .sum();
        let incremental = |i: usize| {
            self.model.per_fact[kind.index()][i]
                .per()
                .map_or(0.0, |per| per * changed_facts as f64)
        };
        ([incremental(0), incremental(1), recompute], changed_facts)
    }

    /// Whether an incremental `method` sits out the running batch, abandoned on the batches
    /// of its kind before (see the module's header).
    fn sits_out(&self, method: Method) -> bool {
        method != Method::Recompute && self.model.backoff[self.kind.index()][index(method)].1 > 0
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
            Choosing::Abandoning(_) => {
                return Some(WorkBudget {
                    find: 0,
                    total: 0,
                    saturate: false,
                    saturation_abandons: false,
                    deadlines: None,
                })
            }
            Choosing::AbandoningRederivation => {
                return Some(WorkBudget {
                    find: u64::MAX,
                    total: 0,
                    saturate: false,
                    saturation_abandons: false,
                    deadlines: None,
                })
            }
            _ => {}
        }
        let measured = self.model.per_work[index(method)].per();
        let per_work = measured
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
        // The same limits in time, from the batch's start.
        let after = |ns: f64| {
            let ns = (ns as u64).max(DEADLINE_FLOOR_NS);
            self.started + std::time::Duration::from_nanos(ns)
        };
        Some(WorkBudget {
            find,
            total,
            saturate: true,
            // A level-0 phase 1 that saturates hands the level to B/F before recomputing
            // it: saturation says DRed over-deletes far, where B/F does best (celegans'
            // SCC deletions: DRed saturated after 12 ms and its recomputation took 390,
            // B/F took 0.2). Not when saturating is what a test forces.
            saturation_abandons: self.choosing != Choosing::Saturating,
            // For a method whose time per unit of work is not measured yet (it then runs on
            // the evaluation's), at a share of the guard; for a measured one only as a
            // backstop ([`BACKSTOP`]): a measured rate makes the work budget the time
            // budget, without the clock's noise (deadlines at the guard abandoned DRed on
            // GO MF's 1,000-edge deletions it finished in 2.2 times a recomputation, and the
            // batch cost 6.5). And only when predicting: the clock would make the forced
            // branches of the tests depend on the machine's speed.
            deadlines: (self.choosing == Choosing::Predicted).then(|| {
                let (phase1, whole) = deadlines_ns(self.budget_ns, measured.is_some());
                (after(phase1), after(whole))
            }),
        })
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
        if method != Method::Recompute {
            // What a recomputation of an earlier batch deferred, the incremental algorithms
            // read: built on their time.
            store.build_deferred_indexes();
        }
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
    fn learn(&mut self, store: &Store) {
        let kind = self.kind.index();
        let evaluated = &mut self.model.stratum_ns[kind];
        evaluated.resize(store.stratum_cost.len(), 0);
        for (s, &(ns, _)) in store.stratum_cost.iter().enumerate() {
            if self.stratum_ns_before.get(s) != Some(&ns) {
                evaluated[s] = ns;
            }
        }
        if self.choice.chosen == Method::Recompute {
            for rate in &mut self.model.per_fact[kind] {
                rate.ns *= FORGET;
            }
        }
        for m in Method::ALL {
            let (ns, work, abandoned) = self.spent[index(m)];
            if work == 0 && ns == 0 {
                continue;
            }
            // A first try runs under deadlines, half the guard, cold: its abandonment is
            // not held against the algorithm (on R-MAT's reachability B/F's first try was
            // abandoned past its deadline at 60 µs, and wins at 5–10 µs afterwards).
            let untried = self.model.per_work[index(m)].per().is_none();
            if m != Method::Recompute && !(abandoned && untried) {
                let backoff = &mut self.model.backoff[kind][index(m)];
                if abandoned {
                    backoff.0 += 1;
                    backoff.1 = 1u32
                        .checked_shl(backoff.0)
                        .unwrap_or(BACKOFF_MAX)
                        .min(BACKOFF_MAX);
                } else {
                    backoff.0 = 0;
                }
            }
            if m != Method::Recompute && self.changed_facts > 0 {
                // A first try stopped at a share of the guard is counted as if it had run
                // to the whole guard: counted at its own time, it was predicted below the
                // recomputation and tried again at once (getopts' liveness: B/F on two
                // batches in a row, 1.7 and 2.8 times `recompute`).
                let cost = match (abandoned, untried) {
                    (true, true) => ns as f64 * CENSORED / UNTRIED_SHARE,
                    (true, false) => ns as f64 * CENSORED,
                    (false, _) => ns as f64,
                };
                self.model.per_fact[kind][index(m)].add(cost, self.changed_facts as f64);
            }
            if work > 0 {
                self.model.per_work[index(m)].add(ns as f64, work as f64);
            }
        }
    }
}

/// The deadlines of a run under a guard of `budget_ns`, in nanoseconds from the batch's
/// start: DRed's phase 1's and the whole run's. For an algorithm whose rate is `measured`
/// they lie past the guard ([`BACKSTOP`]), where the work budget stops a run whose rate
/// holds; for one not measured yet, within it ([`UNTRIED_SHARE`]).
fn deadlines_ns(budget_ns: f64, measured: bool) -> (f64, f64) {
    let whole = budget_ns * if measured { BACKSTOP } else { UNTRIED_SHARE };
    (whole * PHASE1_SHARE, whole)
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
        self.started = Instant::now();
        let (predicted, changed_facts) = self.predict(store, deletions);
        self.changed_facts = changed_facts;
        self.kind = Kind::of(deletions.len(), store.batch_insertions);
        self.stratum_ns_before.clear();
        self.stratum_ns_before
            .extend(store.stratum_cost.iter().map(|&(ns, _)| ns));
        let chosen = match self.choosing {
            Choosing::Forced(m) | Choosing::Abandoning(m) => m,
            Choosing::AbandoningRederivation | Choosing::Saturating => Method::Dred,
            Choosing::Predicted if changed_facts == 0 => Method::Dred,
            Choosing::Predicted => {
                // The cheapest of those not sitting out; ties go to the earlier in
                // `Method::ALL` (recomputation never sits out).
                let mut best = Method::Recompute;
                for m in Method::ALL.into_iter().rev() {
                    if !self.sits_out(m) && predicted[index(m)] <= predicted[index(best)] {
                        best = m;
                    }
                }
                for b in &mut self.model.backoff[self.kind.index()] {
                    b.1 = b.1.saturating_sub(1);
                }
                best
            }
        };
        self.dred.saturation = match self.choosing {
            Choosing::Saturating => Saturation::Always,
            _ => Saturation::Default,
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
        // still finish within what is left of the guard — unless the model already predicts
        // it dearer than recomputing (on smallvec's points-to analysis it was abandoned in
        // turn on every such batch, and the batch cost 1.3–1.7 times `dred`'s).
        let bf = index(Method::BackwardForward);
        let recompute = index(Method::Recompute);
        if level.deleted.abandoned
            && chosen == Method::Dred
            && level.deleted.deleted.is_empty()
            && (self.choosing != Choosing::Predicted
                || (predicted[bf] < predicted[recompute]
                    && !self.sits_out(Method::BackwardForward)))
        {
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

    fn reads_indexes(&self) -> bool {
        false
    }

    fn report(&mut self, store: &Store, report: &mut BatchReport) {
        self.algorithm(self.choice.finished).report(store, report);
        self.learn(store);
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
            kind: Kind::Both,
            stratum_ns_before: Vec::new(),
            budget_ns: 0.0,
            started: Instant::now(),
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A measured algorithm is stopped by the clock only past the guard, a run not measured
    /// yet within it; either way phase 1 by its share.
    #[test]
    fn deadlines_back_a_measured_budget_and_bound_an_untried_one() {
        let guard = 10e6;
        let (phase1, whole) = deadlines_ns(guard, true);
        assert!(whole > guard * GUARD, "past the guard: {whole}");
        assert_eq!(
            (phase1, whole),
            (guard * BACKSTOP * PHASE1_SHARE, guard * BACKSTOP)
        );
        let (phase1, whole) = deadlines_ns(guard, false);
        assert!(whole < guard * GUARD, "within the guard: {whole}");
        assert_eq!(
            (phase1, whole),
            (guard * UNTRIED_SHARE * PHASE1_SHARE, guard * UNTRIED_SHARE)
        );
    }
}
