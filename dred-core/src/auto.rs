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
//!   materialisation or on any batch (`Store::stratum_cost`), times the ratio of `auto`'s
//!   own recomputations of the kind to those sums (old batches fading by halving; 1 before
//!   the first): a recomputation also takes D- out, empties the strata and builds their
//!   indexes, 1.0–1.7 times the evaluations by median on the regret workloads;
//! - *DRed* and *B/F* = the facts the batch changes (|D-|, and |A+| when the program has
//!   levels above 0, where insertions delete) times the algorithm's nanoseconds per changed
//!   fact over the batches of the kind it ran, old batches fading by halving. An algorithm
//!   not yet measured on a kind is predicted free, and its first finished run there is
//!   cold and learned from at [`COLD_DISCOUNT`] times less than it took, so it is tried
//!   again unless even that is dearer than the other choices (under the guard: its
//!   deadlines bound what the try costs, see below; B/F tried so on celegans' SCC
//!   deletions then won at 10–20 ms where DRed and recomputation cost 300–450); a run
//!   that was abandoned counts as [`CENSORED`] times the time it spent, scaled up to the
//!   whole guard when it ran under a share of it, and never less than the guard (an
//!   abandonment says the run would have cost more); and every batch that does not run an
//!   incremental algorithm makes that algorithm's figure for its kind [`FORGET`] times
//!   cheaper, so that an algorithm judged too costly, or slower than the other one, on some
//!   batches is tried again on later ones. (A prediction used to change only when its
//!   algorithm ran or a batch recomputed: after one dear DRed batch on `go-cc`'s
//!   `tc_nonlinear`, 9.8 ms where it takes 0.1–1.4, B/F ran every later batch of the stream
//!   at about twice DRed's time. At this rate such a figure, 13 times too dear, takes about
//!   24 batches to come back.) The guard bounds what a wrong try costs, and the more so the
//!   more often the algorithm failed: one abandoned k times in a row on a kind (its first
//!   try, cold and under deadlines, not counted) runs under 2^-k of the guard, never less
//!   than [`PROBATION_FLOOR`] of it, and its abandonment counts 2^(k-1) times as dear (up to
//!   k = 6), so that its tries grow rarer as well as cheaper. (It used to sit out the next
//!   2^k batches of the kind instead: on `memchr`'s points-to analysis, where deleting an
//!   assignment costs DRed 20 µs or more than a recomputation depending on the assignment,
//!   a DRed that sat out two batches sent them to a recomputation of 1 s where DRed took 20
//!   and 166 µs.)
//!
//! The cheapest prediction wins (ties: DRed, B/F, recomputation). A batch that deletes
//! nothing runs DRed, which then does nothing before phase 3.
//!
//! **The scout.** A chosen recomputation is first tried by the incremental algorithm
//! predicted cheaper, under [`SCOUT_SHARE`] of the guard (work and deadlines without the
//! floors below): a batch it finishes costs what it took, one it abandons a recomputation
//! and a thirty-second of one. Why: a time per changed fact cannot tell a cheap batch from a
//! dear one of the same size; on `memchr`'s points-to analysis, where deleting one
//! assignment costs DRed 20 µs or more than a recomputation depending on the assignment,
//! `auto` recomputed a batch at 847 ms that DRed finished in 19 µs (the full study at
//! `0986e7c`: 45,000 times the best). A scout's abandonment is learned as a batch the
//! algorithm did not run ([`FORGET`], no probation): it says only that the batch costs more
//! than a thirty-second of a recomputation the model had predicted cheaper anyway. (Counted
//! as the guard, censored, it kept the scouted algorithm's figure above the recomputation
//! for good: on R-MAT's TC, 100 edges deleted, B/F, which takes 0.7 times a recomputation
//! there, scouted and was abandoned on the last ten batches of the stream.)
//!
//! **The guard** (a ski-rental argument): an incremental algorithm may spend up to the
//! predicted recomputation ([`GUARD`] = 1) before it is abandoned, so a batch costs at most
//! about twice the best of "finish" and "recompute"; DRed's phase 1 gets half of it
//! ([`PHASE1_SHARE`]), because a phase 1 that costs half a recomputation is followed by a
//! rederivation that costs at least as much; DRed's own saturation applies as well: a level
//! above 0 it saturates is recomputed as in `dred`, and at level 0 a saturated phase 1 is
//! handed back as abandoned. A DRed abandoned in phase 1 has removed nothing, so at level 0 B/F, which never over-deletes, then gets
//! what is left of the guard (unless predicted dearer than recomputing), and its abandonment
//! there is not held against it (it had no budget of its own); only after that is
//! the level recomputed. Budgets are in work
//! (probes plus rows touched, what the algorithms count as they go), converted from time by
//! each algorithm's measured nanoseconds per unit of work (once measured over
//! [`RATE_MIN_WORK`] units); an algorithm not measured yet gets
//! the evaluation's rate and, since it may spend far more time per unit than that, the same
//! shares of half the guard ([`UNTRIED_SHARE`]) as deadlines from the batch's start; a
//! measured one gets deadlines at twice the guard ([`BACKSTOP`]), for a batch whose work
//! costs more time than its rate says. The levels above 0 run the algorithm that finished
//! level 0, under what is left of the guard.
//!
//! Report: `chosen` (dred, bf, recompute), `scout` (dred or bf, when one scouted a chosen
//! recomputation), `abandoned` (how many algorithms passed their budget: 0, 1 or 2; a
//! scout's abandonment counts) and the three predictions; the counters are those of the
//! algorithm that finished the batch (after an abandonment, together with the partial work
//! before it).

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
/// Each batch that does not run an incremental algorithm multiplies that algorithm's
/// nanoseconds per fact on the batch's kind by this.
pub const FORGET: f64 = 0.9;
/// The least share of the guard an algorithm abandoned on the batches of its kind before runs
/// under (see the module's header).
pub const PROBATION_FLOOR: f64 = 0.125;
/// An algorithm's first finished run on a kind of batch is learned from at this many times
/// less than it took: a cold run (its scratch memory, the indexes materialisation deferred,
/// caches) took 1.6 times an engine's later runs by median in the full study, 8–10 times at
/// the 90th percentile, so this is about the least its warm runs cost. Why not at all, as
/// before: the algorithm was then predicted free and tried a second time however dear the
/// first: on `go-bp`'s same-generation program B/F's first deletion of ten hub edges took
/// 10.5 ms where DRed took 0.85, and B/F ran the next batch too, at 11.5 ms.
pub const COLD_DISCOUNT: f64 = 8.0;
/// No budget below this much work: on tiny batches an abandonment saves nothing.
pub const BUDGET_FLOOR: u64 = 2_000;
/// Where recomputing is predicted cheapest, the cheaper incremental algorithm first runs
/// under this share of the guard (a *scout*, see the module's header); abandoned, it has
/// cost the batch this much more than the recomputation it then runs.
pub const SCOUT_SHARE: f64 = 1.0 / 32.0;
/// A scout's work budget has this floor instead of [`BUDGET_FLOOR`], and its deadlines no
/// floor: a scout is meant to catch the batches that cost almost nothing.
pub const SCOUT_BUDGET_FLOOR: u64 = 64;
/// An algorithm's time per unit of work is used for its budgets only once it was measured
/// over this much work (old runs fading by halving); before, the evaluation's is, as for an
/// algorithm not run yet. Why: on `go-bp`'s same-generation program B/F's first deletion
/// did 12 units of work in 73 µs, cold; the next batch's budget, the predicted
/// recomputation of 202 ms at that rate, was 33,000 units, B/F was abandoned where it
/// needs 82,000 units and 4 ms, and the batch was recomputed: 182 ms where `dred` took
/// 0.25.
pub const RATE_MIN_WORK: f64 = 2_000.0;
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
    /// Always a recomputation, scouted by this incremental method under [`BUDGET_FLOOR`] at
    /// least (so that small cases finish it, as forced runs do).
    Scouting(Method),
    /// Always a recomputation, scouted by this incremental method abandoned at once (a
    /// budget of 0 work).
    AbandonedScout(Method),
}

/// What `auto` did on a batch.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Choice {
    /// The method chosen.
    pub chosen: Method,
    /// The incremental algorithm that scouted a chosen recomputation, if one did (see the
    /// module's header): it ran first, under [`SCOUT_SHARE`] of the guard.
    pub scout: Option<Method>,
    /// How many algorithms passed their budget on the batch: 0; 1 (the choice or its scout,
    /// and the batch was finished by B/F or by recomputation); 2 (DRed, then B/F, then
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
            scout: None,
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

    /// Nanoseconds per unit once measured over at least `least` units (decayed); `None`
    /// before.
    fn per_over(&self, least: f64) -> Option<f64> {
        (self.of >= least).then(|| self.ns / self.of)
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
    /// Per [`Kind`], the time of `auto`'s recomputations of a batch from level 0 against the
    /// strata's evaluation times that predicted them (see [`CostModel::recompute_scale`]).
    recompute_scale: [Rate; 3],
    /// Per [`Kind`], DRed's and B/F's abandonments in a row (a first try not counted).
    abandoned_in_a_row: [[u32; 2]; 3],
    /// Per [`Kind`], whether DRed and B/F have finished a run on it: the first is cold and
    /// not learned from (see [`CostModel::learn`]).
    warmed: [[bool; 2]; 3],
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
    /// The running batch's recomputation as the strata's evaluation times predict it,
    /// before [`CostModel::recompute_scale`].
    recompute_evaluations_ns: f64,
    /// Whether the running batch was recomputed from level 0 (chosen, or after level 0's
    /// algorithms were abandoned): its recomputation time then covers every stratum the
    /// prediction summed.
    recomputed_from_level0: bool,
    /// Whether B/F ran the running batch on what DRed's abandoned phase 1 left of the guard.
    bf_on_leftover: bool,
    /// The running batch's kind.
    kind: Kind,
    /// The store's count of evaluations (`Store::evaluations`) when the batch began: the
    /// strata evaluated after it were evaluated by the batch.
    evaluations_before: u64,
    /// Per relation, the strata a batch deleting only facts of it can reach
    /// ([`strata_reached`]), and last, those a batch deleting nothing can: the prediction
    /// of a batch reads one sum ([`AutoDeletion::summed`]) instead of walking the program's
    /// rules and the strata's times. Why: the walk, cold, took about 1 µs of a debian-deps
    /// reachability batch of 8–12 (every batch of the study runs after other engines have
    /// filled the caches).
    reached: Vec<Vec<usize>>,
    /// Per entry of `reached`, per [`Kind`], the strata's evaluation times summed as the
    /// prediction reads them, as they were when the store had made `summed_at` evaluations
    /// (`None`: not summed since materialisation).
    summed: Vec<[f64; 3]>,
    summed_at: Option<u64>,
    /// Whether the program has levels above 0, where insertions delete.
    levels_above_0: bool,
    /// The guard's budget in nanoseconds (0 when recomputing).
    budget_ns: f64,
    /// Whether the running batch's incremental algorithm scouts a chosen recomputation.
    scouting: bool,
    /// When the running batch's deletion began: the guard's deadlines count from it.
    started: Instant,
    /// Per method (in [`Method::ALL`]'s order), the running batch's nanoseconds and work in
    /// it, and whether it was abandoned.
    spent: [(u64, u64, bool); 3],
    /// Per method, the nanoseconds of `spent` that built deferred indexes.
    built_ns: [u64; 3],
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
    /// [`Method::ALL`]'s order, the facts it changes, and the recomputation as the strata's
    /// evaluation times alone predict it.
    fn predict(&mut self, store: &Store, deletions: &[Fact]) -> ([f64; 3], usize, f64) {
        let mut changed_facts = deletions.len();
        if self.levels_above_0 {
            changed_facts += store.batch_insertions;
        }
        let kind = Kind::of(deletions.len(), store.batch_insertions);
        let recompute = self.evaluations_ns(store, deletions, kind);
        let incremental = |i: usize| {
            self.model.per_fact[kind.index()][i]
                .per()
                .map_or(0.0, |per| per * changed_facts as f64)
        };
        let scaled = recompute * self.model.recompute_scale(kind);
        (
            [incremental(0), incremental(1), scaled],
            changed_facts,
            recompute,
        )
    }

    /// The sum, over the strata a batch deleting `deletions` can reach, of each stratum's
    /// last evaluation from scratch on a batch of `kind`, or, before there is one, at
    /// materialisation or on any batch. Read from [`AutoDeletion::summed`] when the batch
    /// deletes facts of one relation (or none).
    fn evaluations_ns(&mut self, store: &Store, deletions: &[Fact], kind: Kind) -> f64 {
        let of_kind = |model: &CostModel, strata: &[usize], kind: Kind| -> f64 {
            let learned = &model.stratum_ns[kind.index()];
            strata
                .iter()
                .map(|&s| match learned.get(s) {
                    Some(&ns) if ns > 0 => ns as f64,
                    _ => store.stratum_cost[s].0 as f64,
                })
                .sum()
        };
        let one = deletions.first().map_or(self.reached.len() - 1, |f| f.rel);
        if !deletions.iter().all(|f| f.rel == one) {
            let strata = strata_reached(store, deletions.iter().map(|f| f.rel));
            return of_kind(&self.model, &strata, kind);
        }
        // The figures change only where a stratum was evaluated: the sums are made again
        // then, not on every batch.
        if self.summed_at != Some(store.evaluations) {
            self.summed = self
                .reached
                .iter()
                .map(|strata| {
                    [Kind::Deletes, Kind::Inserts, Kind::Both]
                        .map(|kind| of_kind(&self.model, strata, kind))
                })
                .collect();
            self.summed_at = Some(store.evaluations);
        }
        self.summed[one][kind.index()]
    }

    /// The share of the guard `method` runs under on the running batch: 2^-k after k
    /// abandonments in a row on its kind, at least [`PROBATION_FLOOR`] (see the module's
    /// header).
    fn probation(&self, method: Method) -> f64 {
        self.model.probation(self.kind, method)
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
            Choosing::Abandoning(_) | Choosing::AbandonedScout(_) => {
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
        let measured = self.model.per_work[index(method)].per_over(RATE_MIN_WORK);
        let per_work = measured
            .or_else(|| evaluation_per_work(store))
            .unwrap_or(1.0)
            .max(1e-3);
        // The guard, as this method's probation (or its scouting) leaves it, and what the
        // batch has left of it, in this method's work.
        let share = if self.scouting {
            SCOUT_SHARE
        } else {
            self.probation(method)
        };
        let guard_ns = self.budget_ns * share;
        let spent_ns: u64 = self.spent.iter().map(|s| s.0).sum();
        let left_ns = (guard_ns - spent_ns as f64).max(0.0);
        let scout_floors = self.scouting && self.choosing == Choosing::Predicted;
        let floor = if scout_floors {
            SCOUT_BUDGET_FLOOR
        } else {
            BUDGET_FLOOR
        };
        let total = ((left_ns / per_work) as u64).max(floor);
        // DRed's phase 1 gets its share of the whole guard, less what DRed has spent.
        let whole = ((guard_ns / per_work) as u64).max(floor);
        let find = ((whole as f64 * PHASE1_SHARE) as u64)
            .saturating_sub(self.spent[index(method)].1)
            .min(total);
        // The same limits in time, from the batch's start.
        let after = |ns: f64| {
            let ns = if scout_floors {
                ns as u64
            } else {
                (ns as u64).max(DEADLINE_FLOOR_NS)
            };
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
                let (phase1, whole) = deadlines_ns(guard_ns, measured.is_some());
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
            // What materialisation or a recomputation of an earlier batch deferred, the
            // incremental algorithms read: built on their time, so within their guard, but
            // not in the time per changed fact the model learns from the run. A first run
            // built them for every later one: on the layered graph's reachability DRed's
            // first deletion took 121 µs and its later ones 2–10, B/F's first (after
            // DRed's) 33 µs and its later ones 14–19, and B/F was chosen for the rest of
            // the stream.
            let built = Instant::now();
            store.build_deferred_indexes();
            self.built_ns[index(method)] += built.elapsed().as_nanos() as u64;
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
        if self.recomputed_from_level0 {
            let (ns, _, _) = self.spent[index(Method::Recompute)];
            self.model
                .learn_recompute(self.kind, ns as f64, self.recompute_evaluations_ns);
        }
        let kind = self.kind.index();
        if store.evaluations != self.evaluations_before {
            let evaluated = &mut self.model.stratum_ns[kind];
            evaluated.resize(store.stratum_cost.len(), 0);
            for (s, &(ns, _)) in store.stratum_cost.iter().enumerate() {
                if store.stratum_evaluated[s] > self.evaluations_before {
                    evaluated[s] = ns;
                }
            }
        }
        for m in Method::ALL {
            let (ns, work, abandoned) = self.spent[index(m)];
            let ns = ns.saturating_sub(self.built_ns[index(m)]);
            if abandoned && m == Method::BackwardForward && self.bf_on_leftover {
                // B/F ran on what DRed left of the guard, not on a budget of its own: its
                // abandonment says nothing of its cost, and held against it (probation
                // halving its next guard) it was abandoned again on its next batches. On
                // R-MAT's `reach_root`, 1,000 edges deleted, B/F took 450–580 µs a batch
                // until a retry of DRed was abandoned; B/F, abandoned after it, then
                // lost the batches after to recomputations of 620–790 µs.
                self.model.learn_rate(m, ns, work);
                continue;
            }
            let share = if self.choice.scout == Some(m) {
                Some(SCOUT_SHARE)
            } else {
                None
            };
            self.model.learn_guarded(
                self.kind,
                m,
                (ns, work, abandoned),
                self.changed_facts,
                self.budget_ns,
                share,
            );
        }
    }
}

impl CostModel {
    /// What the strata's evaluation times are multiplied by to predict `auto`'s
    /// recomputation of a batch of `kind`: the decayed ratio of its recomputations from
    /// level 0 to their predictions so far, within [1/4, 4]; 1 before the first.
    ///
    /// Why: a recomputation also takes the batch's deletions out, empties the strata and
    /// builds the indexes of what it evaluated, which on a small model is a large share of
    /// it. On R-MAT's `reach_root` (4,096 nodes), 1,000 edges deleted, `auto`'s
    /// recomputations took 1.74 times the evaluations by median (GO MF's 1.43, the TC models'
    /// 1.05–1.17), so it recomputed at 620–790 µs where B/F took 450–580, and B/F's guard,
    /// the predicted recomputation, was too short for it.
    fn recompute_scale(&self, kind: Kind) -> f64 {
        self.recompute_scale[kind.index()]
            .per()
            .map_or(1.0, |r| r.clamp(0.25, 4.0))
    }

    /// Learns `method`'s time per unit of work only, from a run of `ns` over `work`.
    fn learn_rate(&mut self, method: Method, ns: u64, work: u64) {
        if work > 0 {
            self.per_work[index(method)].add(ns as f64, work as f64);
        }
    }

    /// Learns that a recomputation of a batch of `kind` from level 0 took `ns` where the
    /// strata's evaluation times predicted `evaluations_ns`.
    fn learn_recompute(&mut self, kind: Kind, ns: f64, evaluations_ns: f64) {
        if ns > 0.0 && evaluations_ns > 0.0 {
            self.recompute_scale[kind.index()].add(ns, evaluations_ns);
        }
    }

    /// The share of the guard `method` runs under on a batch of `kind`: 2^-k after k
    /// abandonments in a row on the kind, at least [`PROBATION_FLOOR`] (see the module's
    /// header); 1 for recomputation.
    fn probation(&self, kind: Kind, method: Method) -> f64 {
        if method == Method::Recompute {
            return 1.0;
        }
        let k = self.abandoned_in_a_row[kind.index()][index(method)];
        0.5f64.powi(k.min(16) as i32).max(PROBATION_FLOOR)
    }

    /// [`CostModel::learn_guarded`] without a guard.
    #[cfg(test)]
    fn learn(&mut self, kind: Kind, method: Method, run: (u64, u64, bool), changed_facts: usize) {
        self.learn_guarded(kind, method, run, changed_facts, 0.0, None);
    }

    /// Learns what `method` did on a batch of `kind` that changed `changed_facts` facts:
    /// `run` is its nanoseconds, its work and whether it was abandoned ((0, 0, _): it did
    /// not run); the batch's guard was `guard_ns` (the predicted recomputation), and an
    /// abandoned run counts as at least that, whatever it spent. `scouted`: the share of the
    /// guard the run had as a scout, if it was one; its abandonment is learned as a batch
    /// the algorithm did not run (see the module's header), its rate per unit of work
    /// apart.
    ///
    /// Why: a run abandoned early (DRed in phase 1, at its share of the guard converted to
    /// work by its rate) spent less than the guard, and counted at its own time scaled up
    /// by its share it could come out cheaper than the figure it had: on R-MAT's
    /// `reach_root`, 1,000 edges deleted, DRed's prediction fell from 294 to 266 µs after an
    /// abandoned try, and DRed was tried and abandoned again on the next batch (1.4 ms a
    /// batch when it finishes; B/F's 0.4).
    fn learn_guarded(
        &mut self,
        kind: Kind,
        method: Method,
        run: (u64, u64, bool),
        changed_facts: usize,
        guard_ns: f64,
        scouted: Option<f64>,
    ) {
        let (ns, work, abandoned) = run;
        let m = index(method);
        let incremental = method != Method::Recompute;
        let scout_abandoned = abandoned && scouted.is_some();
        if (work == 0 && ns == 0) || scout_abandoned {
            if incremental && changed_facts > 0 {
                self.per_fact[kind.index()][m].ns *= FORGET;
            }
            if scout_abandoned {
                self.learn_rate(method, ns, work);
            }
            return;
        }
        // A first try runs under deadlines, half the guard, cold: its abandonment is not
        // held against the algorithm (on R-MAT's reachability B/F's first try was abandoned
        // past its deadline at 60 µs, and wins at 5–10 µs afterwards).
        let untried = self.per_work[m].per().is_none();
        // The share of the guard the run had.
        let share = match scouted {
            Some(share) => share,
            None if untried => UNTRIED_SHARE,
            None => self.probation(kind, method),
        };
        if incremental && !(abandoned && untried) {
            let in_a_row = &mut self.abandoned_in_a_row[kind.index()][m];
            *in_a_row = if abandoned { *in_a_row + 1 } else { 0 };
        }
        // An algorithm's first finished run on a kind is cold (its scratch memory, the
        // indexes materialisation deferred, caches): learned from at [`COLD_DISCOUNT`]
        // times less, so the algorithm is tried once more unless even that is dear. Learned
        // at its time, it lost streams it wins: on the layered graph's reachability DRed's
        // first deletion took 61 µs and its later ones 2–10, B/F's first (after DRed's) 24
        // and its later ones 10–19: B/F then ran every later deletion of the stream at 2–3
        // times DRed.
        let cold = incremental && !abandoned && !self.warmed[kind.index()][m];
        if cold && changed_facts > 0 {
            self.warmed[kind.index()][m] = true;
        }
        if incremental && changed_facts > 0 {
            // A run stopped at a share of the guard is counted as if it had run to the whole
            // guard: counted at its own time, it was predicted below the recomputation and
            // tried again at once (getopts' liveness: B/F on two batches in a row, 1.7 and
            // 2.8 times `recompute`). And twice as dear per abandonment in a row before it,
            // so that [`FORGET`] takes ever more batches to bring it back below a
            // recomputation (2, 9, 14, 19, 26, then 32 in the unit test of an algorithm that
            // always fails): tried every 4 or so batches, the tries of DRed and B/F where
            // recomputing is best (GO MF's TC) cost more than sitting them out had.
            let in_a_row = self.abandoned_in_a_row[kind.index()][m].clamp(1, 6);
            let cost = if abandoned {
                (ns as f64 / share).max(guard_ns) * CENSORED * f64::from(1u32 << (in_a_row - 1))
            } else if cold {
                ns as f64 / COLD_DISCOUNT
            } else {
                ns as f64
            };
            self.per_fact[kind.index()][m].add(cost, changed_facts as f64);
        }
        self.learn_rate(method, ns, work);
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

/// The strata a batch deleting facts of `rels` can reach: at level 0, those reading them
/// and, transitively, the relations they derive; every stratum above level 0, where
/// insertions delete (through negation and aggregates).
fn strata_reached(store: &Store, rels: impl IntoIterator<Item = usize>) -> Vec<usize> {
    let program = &store.program;
    let mut changed = Recompute::changed_by(store, rels);
    let mut strata = affected_strata(program, None, &mut changed);
    if program.num_levels() > 1 {
        strata.retain(|&s| program.strata[s].level == 0);
        strata.extend((0..program.strata.len()).filter(|&s| program.strata[s].level > 0));
    }
    strata
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
        self.summed_at = None;
    }

    fn delete_level0(
        &mut self,
        store: &mut Store,
        deletions: &[Fact],
        reuse: Deleted,
    ) -> Result<LevelDeletion, EngineError> {
        self.started = Instant::now();
        let (predicted, changed_facts, evaluations) = self.predict(store, deletions);
        self.changed_facts = changed_facts;
        self.recompute_evaluations_ns = evaluations;
        self.recomputed_from_level0 = false;
        self.bf_on_leftover = false;
        self.kind = Kind::of(deletions.len(), store.batch_insertions);
        self.evaluations_before = store.evaluations;
        let chosen = match self.choosing {
            Choosing::Forced(m) | Choosing::Abandoning(m) => m,
            Choosing::Scouting(_) | Choosing::AbandonedScout(_) => Method::Recompute,
            Choosing::AbandoningRederivation | Choosing::Saturating => Method::Dred,
            Choosing::Predicted if changed_facts == 0 => Method::Dred,
            Choosing::Predicted => {
                // The cheapest; ties go to the earlier in `Method::ALL`.
                let mut best = Method::Recompute;
                for m in Method::ALL.into_iter().rev() {
                    if predicted[index(m)] <= predicted[index(best)] {
                        best = m;
                    }
                }
                best
            }
        };
        self.dred.saturation = match self.choosing {
            Choosing::Saturating => Saturation::Always,
            _ => Saturation::Default,
        };
        // A chosen recomputation is scouted by the incremental algorithm predicted cheaper.
        let scout = match self.choosing {
            Choosing::Scouting(m) | Choosing::AbandonedScout(m) => Some(m),
            Choosing::Predicted if chosen == Method::Recompute => {
                Some(if predicted[0] <= predicted[1] {
                    Method::Dred
                } else {
                    Method::BackwardForward
                })
            }
            _ => None,
        };
        self.scouting = scout.is_some();
        self.choice = Choice {
            chosen,
            scout,
            abandoned: 0,
            finished: chosen,
            predicted_ns: predicted.map(|p| p as u64),
        };
        self.budget_ns = predicted[2] * GUARD;
        self.spent = [(0, 0, false); 3];
        self.built_ns = [0; 3];
        let first = scout.unwrap_or(chosen);
        let mut level = self.run_guarded(store, first, |algorithm, store| {
            algorithm.delete_level0(store, deletions, reuse)
        })?;
        // DRed's phase 1 stops before it removes anything: B/F, which never over-deletes, may
        // still finish within what is left of the guard — unless the model already predicts
        // it dearer than recomputing (on smallvec's points-to analysis it was abandoned in
        // turn on every such batch, and the batch cost 1.3–1.7 times `dred`'s).
        let bf = index(Method::BackwardForward);
        let recompute = index(Method::Recompute);
        if level.deleted.abandoned
            && first == Method::Dred
            && !self.scouting
            && level.deleted.deleted.is_empty()
            && (self.choosing != Choosing::Predicted || predicted[bf] < predicted[recompute])
        {
            self.bf_on_leftover = true;
            level = self.run_guarded(store, Method::BackwardForward, |algorithm, store| {
                algorithm.delete_level0(store, deletions, Deleted::default())
            })?;
        }
        if !level.deleted.abandoned {
            self.recomputed_from_level0 = first == Method::Recompute;
            return Ok(level);
        }
        self.recomputed_from_level0 = true;
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
        let name = |m: Method| match m {
            Method::Dred => "dred",
            Method::BackwardForward => "bf",
            Method::Recompute => "recompute",
        };
        report.chosen = Some(name(self.choice.chosen));
        report.scout = self.choice.scout.map(name);
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
            recompute_evaluations_ns: 0.0,
            recomputed_from_level0: false,
            bf_on_leftover: false,
            kind: Kind::Both,
            evaluations_before: 0,
            reached: (0..=store.program.relations.len())
                .map(|rel| {
                    strata_reached(store, (rel < store.program.relations.len()).then_some(rel))
                })
                .collect(),
            summed: Vec::new(),
            summed_at: None,
            levels_above_0: store.program.num_levels() > 1,
            budget_ns: 0.0,
            scouting: false,
            started: Instant::now(),
            spent: [(0, 0, false); 3],
            built_ns: [0; 3],
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

    /// Each abandonment in a row halves the share of the guard a try gets, down to the
    /// floor; a finished run gives the whole guard back; recomputation is never on
    /// probation; kinds are apart.
    #[test]
    fn probation_halves_the_guard_per_abandonment_down_to_the_floor() {
        let mut model = CostModel::default();
        let dred = Method::Dred;
        // The first run measures the rate; a first try's abandonment would not count.
        model.learn(Kind::Deletes, dred, (1_000, 100, false), 1);
        let mut shares = vec![model.probation(Kind::Deletes, dred)];
        for _ in 0..5 {
            model.learn(Kind::Deletes, dred, (1_000, 100, true), 1);
            shares.push(model.probation(Kind::Deletes, dred));
        }
        assert_eq!(shares, [1.0, 0.5, 0.25, 0.125, 0.125, 0.125]);
        assert_eq!(model.probation(Kind::Inserts, dred), 1.0);
        assert_eq!(model.probation(Kind::Deletes, Method::Recompute), 1.0);
        model.learn(Kind::Deletes, dred, (1_000, 100, false), 1);
        assert_eq!(model.probation(Kind::Deletes, dred), 1.0);
    }

    /// A run abandoned under a share of the guard counts as if it had run to the whole
    /// guard, censored, and twice as dear per abandonment in a row before it.
    #[test]
    fn an_abandoned_run_counts_as_the_whole_guard() {
        let mut model = CostModel::default();
        let bf = Method::BackwardForward;
        model.learn(Kind::Deletes, bf, (1_000, 100, false), 1);
        model.learn(Kind::Deletes, bf, (1_000, 100, true), 1);
        // Now at half the guard: a run stopped there after 4 µs stood for 8 of the guard,
        // counted twice for the second abandonment in a row.
        assert_eq!(model.probation(Kind::Deletes, bf), 0.5);
        let before = model.per_fact[0][1];
        model.learn(Kind::Deletes, bf, (4_000, 400, true), 1);
        let after = model.per_fact[0][1];
        assert_eq!(after.ns, before.ns / 2.0 + 4_000.0 * CENSORED * 2.0 / 0.5);
    }

    /// A run abandoned early, having spent less than the guard, still counts as the whole
    /// guard (censored): its abandonment cannot make the algorithm look cheaper.
    #[test]
    fn an_abandoned_run_counts_as_at_least_the_guard() {
        let mut model = CostModel::default();
        let dred = Method::Dred;
        model.learn(Kind::Deletes, dred, (1_000, 100, false), 1);
        model.learn(Kind::Deletes, dred, (300_000, 100, false), 1);
        let before = model.per_fact[0][0];
        // Stopped after 50 µs on a batch whose predicted recomputation was 700 µs.
        model.learn_guarded(Kind::Deletes, dred, (50_000, 10, true), 1, 700_000.0, None);
        let after = model.per_fact[0][0];
        assert_eq!(after.ns, before.ns / 2.0 + 700_000.0 * CENSORED);
        assert!(after.per() > before.per(), "{after:?} against {before:?}");
    }

    /// A first finished run on a kind is cold: learned from at [`COLD_DISCOUNT`] times less
    /// than it took, the runs after it at their time; an abandoned first try is counted as
    /// before, and another kind is warmed apart.
    #[test]
    fn a_first_run_is_learned_from_at_a_discount() {
        let mut model = CostModel::default();
        let dred = Method::Dred;
        model.learn(Kind::Deletes, dred, (60_000, 100, false), 1);
        assert_eq!(model.per_fact[0][0].per(), Some(60_000.0 / COLD_DISCOUNT));
        // The next run at its time; the cold one fades as any older run.
        model.learn(Kind::Deletes, dred, (5_000, 100, false), 1);
        let expected = (60_000.0 / COLD_DISCOUNT / 2.0 + 5_000.0) / 1.5;
        assert_eq!(model.per_fact[0][0].per(), Some(expected));
        model.learn(Kind::Inserts, dred, (60_000, 100, false), 1);
        assert_eq!(
            model.per_fact[1][0].per(),
            Some(60_000.0 / COLD_DISCOUNT),
            "another kind's first run is cold too"
        );
        let bf = Method::BackwardForward;
        model.learn(Kind::Deletes, bf, (60_000, 100, true), 1);
        assert!(
            model.per_fact[0][1].per().is_some(),
            "an abandoned first try left out"
        );
    }

    /// Where recomputing is best, an algorithm abandoned on every try is tried again ever
    /// more rarely (and under ever less of the guard), never given up for good.
    #[test]
    fn tries_of_an_algorithm_that_always_fails_grow_rarer() {
        let mut model = CostModel::default();
        let dred = Method::Dred;
        let recompute_ns = 1e6;
        // Measured (after its cold first run), cheap; every later try passes its guard.
        model.learn(Kind::Deletes, dred, (1_000, 100, false), 1);
        model.learn(Kind::Deletes, dred, (1_000, 100, false), 1);
        let mut tries = Vec::new();
        for batch in 0..400 {
            let predicted = model.per_fact[0][0].per().expect("measured");
            if predicted <= recompute_ns {
                let ns = recompute_ns * model.probation(Kind::Deletes, dred);
                model.learn(Kind::Deletes, dred, (ns as u64, 1_000, true), 1);
                tries.push(batch);
            } else {
                model.learn(Kind::Deletes, dred, (0, 0, false), 1);
            }
        }
        let gaps: Vec<usize> = tries.windows(2).map(|w| w[1] - w[0]).collect();
        assert!(gaps.len() >= 5, "tries {tries:?}");
        assert!(gaps.windows(2).all(|g| g[0] <= g[1]), "gaps {gaps:?}");
        assert!(gaps[gaps.len() - 1] >= 4 * gaps[0], "gaps {gaps:?}");
        assert_eq!(model.probation(Kind::Deletes, dred), PROBATION_FLOOR);
    }

    /// An algorithm judged dear by one abandonment, and not run since because the other one
    /// is predicted cheaper, is predicted cheaper than that one again after some batches,
    /// and not on the next one: the model cannot lock in a choice.
    #[test]
    fn an_algorithm_not_run_is_tried_again_after_some_batches() {
        let mut model = CostModel::default();
        let (dred, bf) = (Method::Dred, Method::BackwardForward);
        let deletes = Kind::Deletes;
        let per =
            |model: &CostModel, m: Method| model.per_fact[0][index(m)].per().expect("measured");
        // DRed at 30 µs a batch of 10 facts, B/F at 60; then DRed abandoned once at 10 ms.
        for _ in 0..4 {
            model.learn(deletes, dred, (30_000, 3_000, false), 10);
            model.learn(deletes, bf, (60_000, 3_000, false), 10);
        }
        model.learn(deletes, dred, (10_000_000, 1_000_000, true), 10);
        model.learn(deletes, bf, (0, 0, false), 10);
        let mut batches = 0;
        while per(&model, dred) >= per(&model, bf) {
            // B/F runs the batch, DRed does not.
            model.learn(deletes, bf, (60_000, 3_000, false), 10);
            model.learn(deletes, dred, (0, 0, false), 10);
            batches += 1;
            assert!(batches < 100, "DRed never tried again");
        }
        assert!(
            batches > 1,
            "the abandonment was forgotten at once: {batches}"
        );
        // A batch that changes nothing chose nothing: it makes nothing cheaper.
        let before = per(&model, dred);
        model.learn(deletes, dred, (0, 0, false), 0);
        assert_eq!(per(&model, dred), before);
    }

    /// The predicted recomputation follows `auto`'s own recomputations: 1 before the first,
    /// then their decayed ratio to the evaluations that predicted them, per kind, within
    /// [1/4, 4].
    #[test]
    fn the_predicted_recomputation_learns_what_recomputing_costs_beyond_the_evaluations() {
        let mut model = CostModel::default();
        assert_eq!(model.recompute_scale(Kind::Deletes), 1.0);
        model.learn_recompute(Kind::Deletes, 1_740.0, 1_000.0);
        assert!((model.recompute_scale(Kind::Deletes) - 1.74).abs() < 1e-9);
        assert_eq!(model.recompute_scale(Kind::Inserts), 1.0, "kinds are apart");
        // Old batches fade: (1,740 / 2 + 1,000) / (1,000 / 2 + 1,000).
        model.learn_recompute(Kind::Deletes, 1_000.0, 1_000.0);
        let expected = (870.0 + 1_000.0) / 1_500.0;
        assert!((model.recompute_scale(Kind::Deletes) - expected).abs() < 1e-9);
        // Nothing measured, nothing learned; an outlier is bounded.
        model.learn_recompute(Kind::Inserts, 0.0, 1_000.0);
        assert_eq!(model.recompute_scale(Kind::Inserts), 1.0);
        model.learn_recompute(Kind::Inserts, 1e9, 1.0);
        assert_eq!(model.recompute_scale(Kind::Inserts), 4.0);
    }

    /// A program of the text `src`, checked.
    fn checked(src: &str) -> Program {
        use crate::diagnostic::SourceFile;
        use crate::value::Symbols;
        crate::check::load_program(&SourceFile::new("p.dl", src), &mut Symbols::new())
            .expect("program")
    }

    /// The strata kept per relation for the prediction are those the program's walk finds,
    /// for one relation, for several, and for none; above level 0 every stratum.
    #[test]
    fn the_strata_a_batch_reaches_are_those_of_the_walk() {
        let src = "
            .decl e(x: number, y: number)
            .decl f(x: number)
            .decl g(x: number)
            .decl t(x: number, y: number)
            .decl u(x: number)
            .decl v(x: number)
            .input e
            .input f
            .input g
            .output v
            t(x, y) :- e(x, y).
            t(x, z) :- t(x, y), e(y, z).
            u(x) :- f(x).
            v(x) :- g(x), !u(x).
        ";
        let program = checked(src);
        let rel = |name: &str| program.relation_id(name).expect("declared");
        let (e, f, g) = (rel("e"), rel("f"), rel("g"));
        let mut engine = Auto::new(Arc::new(program));
        let fact = |rel: usize| Fact {
            rel,
            tuple: vec![1; engine.store.program.relations[rel].arity()],
        };
        let batches = [
            vec![fact(e)],
            vec![fact(e), fact(e)],
            vec![fact(f)],
            vec![fact(g)],
            vec![fact(e), fact(f)],
            vec![],
        ];
        let store = &mut engine.store;
        let strata = store.program.strata.len();
        let above: Vec<usize> = (0..strata)
            .filter(|&s| store.program.strata[s].level > 0)
            .collect();
        assert!(!above.is_empty(), "the program has a level above 0");
        // Stratum s costs 2^s, so that a sum names the strata summed.
        let bits = |strata: &[usize]| strata.iter().map(|&s| (1u64 << s) as f64).sum::<f64>();
        for round in 0..2 {
            if round == 1 {
                // An evaluation makes the sums again.
                for s in 0..strata {
                    store.stratum_cost[s].0 = 1 << (strata + s);
                }
                store.evaluations += 1;
            } else {
                for s in 0..strata {
                    store.stratum_cost[s].0 = 1 << s;
                }
            }
            let scale = if round == 1 {
                (1u64 << strata) as f64
            } else {
                1.0
            };
            for batch in &batches {
                let walked = strata_reached(store, batch.iter().map(|x| x.rel));
                assert!(above.iter().all(|s| walked.contains(s)));
                let summed = engine.deletion.evaluations_ns(store, batch, Kind::Deletes);
                assert_eq!(summed, bits(&walked) * scale, "batch {batch:?}");
            }
        }
        let of = |rels: &[usize]| strata_reached(store, rels.iter().copied());
        let (of_e, of_f, both) = (of(&[e]), of(&[f]), of(&[e, f]));
        assert!(of_e.iter().chain(&of_f).all(|s| both.contains(s)));
        assert_ne!(of_e, of_f);
    }

    /// The model learns the evaluation times of the strata a batch evaluated, and only
    /// those: a recomputation's, not a batch DRed maintained.
    #[test]
    fn the_strata_a_batch_evaluated_are_learned() {
        use crate::engine::{Batch, Edb, Engine, RequestedBatch};
        let src = "
            .decl e(x: number, y: number)
            .decl f(x: number)
            .decl t(x: number, y: number)
            .decl u(x: number)
            .input e
            .input f
            .output t
            .output u
            t(x, y) :- e(x, y).
            t(x, z) :- t(x, y), e(y, z).
            u(x) :- f(x).
        ";
        let program = checked(src);
        let rel = |name: &str| program.relation_id(name).expect("declared");
        let (e, f, t, u) = (rel("e"), rel("f"), rel("t"), rel("u"));
        let program = Arc::new(program);
        let mut edb = Edb::empty(&program);
        for i in 0..20 {
            edb.insert(Fact::new(e, vec![i, i + 1]));
            edb.insert(Fact::new(f, vec![i]));
        }
        let mut engine = Auto::new(program.clone());
        engine.materialise(&edb).expect("materialise");
        let strata_of = |rel: usize| {
            (0..program.strata.len())
                .filter(|&s| program.strata[s].relations.contains(&rel))
                .collect::<Vec<_>>()
        };
        let (of_t, of_u) = (strata_of(t), strata_of(u));
        let mut delete = |engine: &mut Auto, fact: Fact, method: Method| {
            engine.set_choosing(Choosing::Forced(method));
            let batch = Batch::normalise(
                &RequestedBatch {
                    deletions: vec![fact.clone()],
                    insertions: vec![],
                },
                &edb,
            );
            engine.apply(&batch).expect("apply");
            edb.relations[fact.rel].remove(&fact.tuple);
        };
        let learned =
            |engine: &Auto| engine.deletion.model.stratum_ns[Kind::Deletes.index()].clone();
        delete(&mut engine, Fact::new(e, vec![5, 6]), Method::Recompute);
        let after = learned(&engine);
        assert!(
            of_t.iter().all(|&s| after[s] > 0),
            "t's strata were evaluated: {after:?}"
        );
        assert!(
            of_u.iter().all(|&s| after[s] == 0),
            "u's were not: {after:?}"
        );
        delete(&mut engine, Fact::new(f, vec![3]), Method::Dred);
        assert_eq!(learned(&engine), after, "DRed evaluated nothing");
        delete(&mut engine, Fact::new(f, vec![4]), Method::Recompute);
        let last = learned(&engine);
        assert!(
            of_u.iter().all(|&s| last[s] > 0),
            "u's strata now: {last:?}"
        );
        assert!(
            of_t.iter().all(|&s| last[s] == after[s]),
            "t's kept: {last:?}"
        );
    }

    /// A scout's abandonment is learned as a batch the algorithm did not run (its figure
    /// made cheaper, nothing on probation); a scout that finishes is learned from as any
    /// run and ends a probation.
    #[test]
    fn a_scouts_abandonment_is_learned_as_a_batch_not_run() {
        let mut model = CostModel::default();
        let dred = Method::Dred;
        let guard = 1e6;
        model.learn(Kind::Deletes, dred, (1_000, 100, false), 1);
        model.learn(Kind::Deletes, dred, (2_000_000, 100, false), 1);
        let before = model.per_fact[0][0];
        let scout = (guard * SCOUT_SHARE) as u64;
        let scouted = Some(SCOUT_SHARE);
        model.learn_guarded(Kind::Deletes, dred, (scout, 10, true), 1, guard, scouted);
        assert_eq!(model.probation(Kind::Deletes, dred), 1.0);
        let after = model.per_fact[0][0];
        assert_eq!(after.ns, before.ns * FORGET);
        assert_eq!(after.of, before.of);
        // On probation after a chosen run's abandonment; a scout's finished run ends it.
        model.learn_guarded(Kind::Deletes, dred, (scout, 10, true), 1, guard, None);
        assert_eq!(model.probation(Kind::Deletes, dred), 0.5);
        let dear = model.per_fact[0][0];
        model.learn_guarded(Kind::Deletes, dred, (3_000, 10, false), 1, guard, scouted);
        assert_eq!(model.probation(Kind::Deletes, dred), 1.0);
        assert_eq!(model.per_fact[0][0].ns, dear.ns / 2.0 + 3_000.0);
    }

    /// A time per unit of work is used for budgets only once measured over
    /// [`RATE_MIN_WORK`] units: a cold run of a few units says little of the next.
    #[test]
    fn a_rate_measured_over_little_work_is_not_used() {
        let mut rate = Rate::default();
        rate.add(73_000.0, 12.0);
        assert_eq!(rate.per(), Some(73_000.0 / 12.0));
        assert_eq!(rate.per_over(RATE_MIN_WORK), None);
        rate.add(4_000_000.0, 82_000.0);
        let per = rate.per_over(RATE_MIN_WORK).expect("measured");
        assert!((48.0..50.0).contains(&per), "{per}");
    }

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
