//! Running one case: several engines on the same program, EDB and batches, their models
//! compared after every batch. `run`, `sweep` and `study` all go through [`run_case`].
//!
//! Only the engine's own work is timed (materialise, apply), in nanoseconds; reading models
//! back, comparing them and building report rows happen outside the timed part, and between
//! batches nothing is allocated in proportion to the model (see [`run_case`]). The engines'
//! order changes from batch to batch ([`EngineOrder`]), so that none always runs after the
//! same engine, and a case may be run several times to take each batch's median time.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Instant;

use dred_core::{
    Batch, BatchReport, Edb, Engine, Model, ModelDigest, NetChange, Program, RequestedBatch,
    Symbols,
};

use crate::compare::describe_difference;
use crate::datasets::rng::SplitMix64;
use crate::engines::{EngineKind, EngineSpec};
use crate::memory::Footprint;
use crate::report::{ReportRow, TraceLine};

/// What identifies a case in its report rows.
#[derive(Clone, Debug, Default)]
pub struct Labels {
    /// Dataset name.
    pub dataset: String,
    /// Program name.
    pub program: String,
    /// Update stream name.
    pub stream: String,
    /// Kind of change (sweeps).
    pub kind: String,
    /// Change size per batch (sweeps).
    pub size: Option<usize>,
    /// Seed of the stream (sweeps).
    pub seed: Option<u64>,
    /// Code revision.
    pub git_rev: String,
    /// Dataset content hash.
    pub dataset_hash: String,
}

/// One case: a checked program, its symbols, the initial EDB and the requested batches.
#[derive(Debug)]
pub struct Case<'a> {
    /// The program every engine runs.
    pub program: &'a Arc<Program>,
    /// Symbols of program, facts and updates (for messages and traces).
    pub symbols: &'a Symbols,
    /// The initial EDB.
    pub edb: &'a Edb,
    /// Requested batches, normalised here one by one against the evolving EDB.
    pub batches: &'a [RequestedBatch],
    /// Report labels.
    pub labels: Labels,
    /// What is compared after the batches between the first and the last.
    pub check: Check,
    /// The order of the engines on each batch.
    pub order: EngineOrder,
    /// The per-batch time limit: an engine whose batch takes longer keeps that batch's row,
    /// marked with the limit (`time_limit_ns`), and is not run on the case's later batches.
    /// Nothing interrupts a batch: the limit bounds a case's cost to one slow batch per
    /// engine, and a collapse is recorded rather than waited out or dropped.
    pub batch_limit: Option<std::time::Duration>,
}

/// Parses `--batch-time-limit`: seconds, a positive finite number.
pub fn batch_limit_seconds(s: &str) -> Result<std::time::Duration, String> {
    match s.parse::<f64>() {
        Ok(x) if x.is_finite() && x > 0.0 => Ok(std::time::Duration::from_secs_f64(x)),
        _ => Err(format!("`{s}` is not a positive number of seconds")),
    }
}

/// What [`run_case`] compares after each batch. Whole models are always compared after
/// materialisation and after the last batch.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum Check {
    /// After the batches in between, each engine's model digest (an order-independent hash
    /// and the fact count) and, where the engine reports it, its net change; whole models only
    /// when these differ. Copying whole models after every batch costs allocations in
    /// proportion to the model, which perturb the timing of the next batch.
    #[default]
    Digest,
    /// Whole models of every engine after every batch, fact for fact.
    Full,
}

/// An engine could not run the case: it does not support the program, it returned an error
/// (misuse, a broken invariant) or it panicked.
#[derive(Debug, thiserror::Error)]
#[error("engine `{engine}` failed in batch {batch}: {message}")]
pub struct EngineFailure {
    /// Which engine.
    pub engine: String,
    /// The batch: 0 for materialisation.
    pub batch: usize,
    /// The engine's error, or the panic's message.
    pub message: String,
    /// The engine does not support the program: a matter of the request, not a failure of
    /// the engine.
    pub unsupported: bool,
    /// Rows of the batches completed before the failure.
    pub rows: Vec<ReportRow>,
}

/// Calls `f`, turning a panic into an error naming it, so that a bug in one engine ends the
/// case with an engine failure instead of aborting the whole command.
fn guarded<T>(
    f: impl FnOnce() -> Result<T, dred_core::EngineError>,
) -> Result<T, dred_core::EngineError> {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)) {
        Ok(result) => result,
        Err(payload) => {
            // The round guard's stop is no bug: its message stands alone.
            if let Some(stop) = payload.downcast_ref::<dred_core::rounds::RoundLimitExceeded>() {
                return Err(dred_core::EngineError::Misuse {
                    engine: String::new(),
                    message: stop.to_string(),
                });
            }
            let message = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "a panic without a message".into());
            Err(dred_core::EngineError::Misuse {
                engine: String::new(),
                message: format!("panicked: {message}"),
            })
        }
    }
}

/// What a case produced.
#[derive(Debug)]
pub struct CaseOutcome {
    /// One row per engine per batch run, batch 0 first.
    pub rows: Vec<ReportRow>,
    /// One line per round of each DRed phase.
    pub trace: Vec<TraceLine>,
    /// The first disagreement, described (batch, engines, relation, facts on each side);
    /// the case stops there.
    pub mismatch: Option<String>,
    /// The EDB after the last batch run (before the last requested one when the engines
    /// passed the per-batch time limit, or a mismatch stopped the case).
    pub edb: Edb,
    /// The first engine's model after the last batch run.
    pub model: Model,
}

struct Running {
    spec: EngineSpec,
    workers: usize,
    engine: Box<dyn Engine>,
}

/// How the order in which the engines process a batch is chosen. Each engine runs after
/// whatever the one before it left in the caches and the allocator (after `recompute`, little
/// of anyone's data is still cached), so on batches of a few µs the same code read 0.4× when
/// it ran second and 2.2× when it ran first after `recompute` (`results/bf/README.md`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum OrderMode {
    /// A seeded random permutation per batch: every engine is equally likely at every place
    /// and after every other engine, so the order's effect becomes noise shared by all
    /// engines instead of a bias against one.
    #[default]
    Shuffle,
    /// The listed order, rotated so that the first engine changes from batch to batch (a
    /// hash of the batch number); the others follow in their cyclic order, so the engine
    /// listed after `recompute` always runs right after it. The revisions before the
    /// calibrated clock ran this.
    Rotate,
    /// Always the listed order.
    Listed,
}

/// The order of the engines on each batch: a mode and the seed of its permutations, whether
/// every timed call is isolated from the one before it, and how many times the case is run
/// to take each batch's time. The report records each engine's place (`position`), so a
/// reader can check the order's balance and condition on it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EngineOrder {
    /// How the order is chosen.
    pub mode: OrderMode,
    /// Seed of the permutations of [`OrderMode::Shuffle`].
    pub seed: u64,
    /// Before every timed call, untimed, a 64 MiB write sweep and a fixed sort-and-hash:
    /// each call then starts from the same cold context whatever ran before it
    /// (`--isolate`).
    pub isolate: bool,
    /// How many times the case runs, each time with engines built afresh and in the places
    /// [`EngineOrder::of_batch`] balances across the runs; a batch's times are the medians
    /// over the runs (`--repeat`). Why: a single call's time carries the context the call
    /// inherits, so two instances of one engine read 0.3–3× each other on a batch of a few
    /// µs (`results/clock/`), and a maintenance batch cannot be called twice on one state.
    pub repeats: usize,
    /// Which of the [`EngineOrder::repeats`] runs this is, from 0.
    pub run: usize,
}

impl Default for EngineOrder {
    fn default() -> Self {
        EngineOrder {
            mode: OrderMode::default(),
            seed: 0,
            isolate: false,
            repeats: 1,
            run: 0,
        }
    }
}

impl EngineOrder {
    /// The order of a case labelled `labels`: its seed a hash (FNV-1a) of dataset, program
    /// and stream, so that cases differ in their orders (the materialisation's included:
    /// which instance of an A/A pair is built first varies from case to case), while the
    /// same case, rerun or run by every process of a cluster, has the same.
    pub fn for_case(mode: OrderMode, labels: &Labels) -> Self {
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for part in [&labels.dataset, &labels.program, &labels.stream] {
            for b in part.bytes().chain([0xff]) {
                h ^= u64::from(b);
                h = h.wrapping_mul(0x0100_0000_01b3);
            }
        }
        EngineOrder {
            mode,
            seed: h,
            ..EngineOrder::default()
        }
    }

    /// The same order, with every timed call isolated (`isolate`) or not.
    pub fn isolated(self, isolate: bool) -> Self {
        EngineOrder { isolate, ..self }
    }

    /// The same order, the case run `repeats` times (at least once).
    pub fn repeated(self, repeats: usize) -> Self {
        EngineOrder {
            repeats: repeats.max(1),
            ..self
        }
    }

    /// How many runs place every engine of `engines` at every place, and right after every
    /// other engine, equally often on every batch ([`EngineOrder::of_batch`]): `engines`
    /// when it is even, twice that when it is odd (a Williams design), 1 for one engine.
    pub fn balanced_runs(engines: usize) -> usize {
        match engines {
            0 | 1 => 1,
            n if n % 2 == 0 => n,
            n => 2 * n,
        }
    }

    /// The indices of `engines` engines in the order in which they process batch `batch_no`
    /// (0 is the materialisation): a permutation of `0..engines`, the same for the same seed,
    /// batch, count and run.
    ///
    /// Run 0 takes the mode's order. Run `r` takes it through row `r` of a Williams design
    /// (Williams, 1949): over [`EngineOrder::balanced_runs`] runs every engine holds every
    /// place once on each batch, and follows every other engine once (an odd count: twice),
    /// so that a batch's median over the runs is taken over the same contexts for every
    /// engine. Measured why: the first engine to process a small batch pays for the caches
    /// for all (6 µs against 3.5 µs on a clique's re-insertions), and the median over nine
    /// runs in independently shuffled orders still followed which engine came first in most
    /// of them, batch by batch (`results/clock/2026-12-07-repeat/`).
    pub fn of_batch(&self, batch_no: usize, engines: usize) -> Vec<usize> {
        let order = self.of_batch_in_first_run(batch_no, engines);
        if self.run == 0 || engines < 2 {
            return order;
        }
        williams_row(self.run, engines)
            .into_iter()
            .map(|j| order[j])
            .collect()
    }

    /// The mode's order of a batch, which [`EngineOrder::of_batch`] permutes in runs after
    /// the first.
    fn of_batch_in_first_run(&self, batch_no: usize, engines: usize) -> Vec<usize> {
        let mut order: Vec<usize> = (0..engines).collect();
        match self.mode {
            OrderMode::Listed => {}
            OrderMode::Rotate => order.rotate_left(first_engine(batch_no, engines)),
            OrderMode::Shuffle => {
                // One generator per batch, so that a batch's order does not depend on how
                // many batches came before (a resumed or shortened run keeps its orders).
                let mut rng = SplitMix64::new(
                    self.seed
                        .wrapping_mul(0x9E37_79B9_7F4A_7C15)
                        .wrapping_add(batch_no as u64),
                );
                rng.shuffle(&mut order);
            }
        }
        order
    }
}

/// What `--isolate` runs before every timed call, untimed, so that every call starts from
/// the same context whatever engine ran before it. Why: a call inherits the caches, the TLB
/// and the branch predictors the call before it left; on the quick study a `dred` call
/// right after the other `dred` instance took 0.85 of the pair's mean, right after `dd`
/// 1.07 (p90 1.60), and an A/A pair's per-batch ratio spread [0.3, 2.5] on batches of
/// 20–40 µs. Isolated: 0.95 and 1.04, and [0.6–0.8, 1.3–1.6]
/// (`results/clock/2026-12-06-context/`). The price: every call is timed cold (µs batches
/// read 1.2–2× their in-stream times) and each call costs about 10 ms more of wall time.
struct Isolation {
    /// Written through, one word a cache line: twice the machine's 32 MiB last-level cache.
    sweep: Vec<u64>,
    /// The fixed keys sorted and hashed (a copy each call), which leaves the branch
    /// predictors in the same state whatever engine ran before.
    keys: Vec<u64>,
    /// The copy and the hash table, allocated once, so that a scrub allocates nothing that
    /// the engines' peak heap would count.
    scratch: Vec<u64>,
    groups: hashbrown::HashMap<u64, usize>,
}

impl Isolation {
    const SWEEP_BYTES: usize = 64 << 20;

    /// The buffers, touched once so that they are resident before any footprint is taken.
    fn new() -> Self {
        let keys: Vec<u64> = (0..200_000u64)
            .map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 7)
            .collect();
        let mut isolation = Isolation {
            sweep: vec![1; Self::SWEEP_BYTES / 8],
            scratch: keys.clone(),
            keys,
            groups: hashbrown::HashMap::new(),
        };
        // Grows the hash table to its size once, here.
        isolation.scrub();
        isolation
    }

    /// Writes through the sweep and sorts and hashes a copy of the keys.
    fn scrub(&mut self) {
        for x in self.sweep.iter_mut().step_by(8) {
            *x = x.wrapping_add(1);
        }
        std::hint::black_box(&self.sweep);
        self.scratch.copy_from_slice(&self.keys);
        self.scratch.sort_unstable();
        self.groups.clear();
        for (i, k) in self.scratch.iter().enumerate().step_by(3) {
            *self.groups.entry(k % 5003).or_insert(0) += i;
        }
        std::hint::black_box((&self.scratch, &self.groups));
    }
}

/// Row `run` (taken modulo the design's length) of a Williams design on `n` symbols, its
/// symbols renamed so that row 0 is `0, 1, …, n − 1`. The design's row `r` is
/// `w[0] + r, w[1] + r, …` modulo `n` with `w = 0, 1, n − 1, 2, n − 2, …`; its rows are a
/// Latin square in which every symbol follows every other once when `n` is even; for odd `n`
/// the reversed rows follow, and every symbol follows every other twice.
fn williams_row(run: usize, n: usize) -> Vec<usize> {
    let w: Vec<usize> = (0..n)
        .map(|j| match j {
            0 => 0,
            j if j % 2 == 1 => j.div_ceil(2),
            j => n - j / 2,
        })
        .collect();
    // The renaming: the symbol w[j] becomes j.
    let mut rename = vec![0; n];
    for (j, &x) in w.iter().enumerate() {
        rename[x] = j;
    }
    let r = run % EngineOrder::balanced_runs(n);
    let mut row: Vec<usize> = w.iter().map(|&x| rename[(x + r) % n]).collect();
    if r >= n {
        // The odd design's second half: the first half's rows reversed.
        row = w.iter().map(|&x| rename[(x + r - n) % n]).rev().collect();
    }
    row
}

/// Which engine applies batch `batch_no` first under [`OrderMode::Rotate`]. A hash of the
/// batch number rather than a plain rotation, so that no period of the stream (deletions and
/// insertions alternate under `--revert`) lines up with the order.
fn first_engine(batch_no: usize, engines: usize) -> usize {
    let mut z = (batch_no as u64).wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^= z >> 31;
    (z % engines.max(1) as u64) as usize
}

/// Runs the engines (built by `build`, with the worker count each reports) through the
/// case. Returns `Err` only when an engine refuses; a model mismatch is in the outcome.
///
/// On every batch, materialisation included, the engines run in the order of `case.order`
/// ([`EngineOrder::of_batch`]), each timed alone in nanoseconds; rows and trace lines come in
/// the listed order, each row with its engine's place (`position`). Two specs of one kind
/// (`dred`, `dred@2`) are two engines built and fed apart.
///
/// Models are compared in full after materialisation and after the last batch. After every
/// batch in between the engines' [`ModelDigest`]s are compared (and their net changes, where
/// they report them): a full model copy per engine and batch would be millions of
/// allocations, whose freeing and cache misses slowed the next timed batch of small changes
/// by up to 10× (measured with `dred-core/benches/phases.rs`). On a digest difference the
/// full models are compared and the difference described as before. The net change in the
/// report comes from an engine that reports it (`dred`, `dd`), else from copies of the first
/// engine's model.
///
/// With [`EngineOrder::repeats`] above 1 the case runs that many times, the engines built
/// afresh each time and placed as [`EngineOrder::of_batch`] balances them. The rows
/// are the first run's, each time (`time_ns`, every phase's and `descheduled_ns`, each on its
/// own) replaced by its median over the runs in which the engine reached the batch, `repeats` set to that
/// count and `position` emptied (the engine held several places); the counters, footprint
/// and trace are the first run's. `after_batch` is called for every batch of every run. A
/// run that fails or finds a difference ends the case with its own outcome.
pub fn run_case(
    case: &Case<'_>,
    engines: &[EngineSpec],
    workers: usize,
    build: &mut dyn FnMut(EngineSpec) -> Box<dyn Engine>,
    trace_facts: bool,
    mut after_batch: impl FnMut(usize),
) -> Result<CaseOutcome, EngineFailure> {
    let mut first = run_once(case, engines, workers, build, trace_facts, &mut after_batch)?;
    if case.order.repeats <= 1 || first.mismatch.is_some() {
        return Ok(first);
    }
    let key = |r: &ReportRow| (r.engine.clone(), r.batch);
    let mut times: HashMap<(String, usize), Vec<PhaseTimes>> = first
        .rows
        .iter()
        .map(|r| (key(r), vec![PhaseTimes::of(r)]))
        .collect();
    for run in 1..case.order.repeats {
        let again = Case {
            order: EngineOrder { run, ..case.order },
            labels: case.labels.clone(),
            ..*case
        };
        let outcome = run_once(&again, engines, workers, build, false, &mut after_batch)?;
        if outcome.mismatch.is_some() {
            return Ok(outcome);
        }
        for r in &outcome.rows {
            if let Some(runs) = times.get_mut(&key(r)) {
                runs.push(PhaseTimes::of(r));
            }
        }
    }
    for r in &mut first.rows {
        let runs = &times[&key(r)];
        PhaseTimes::median(runs).write(r);
        r.repeats = Some(runs.len());
        r.position = None;
    }
    Ok(first)
}

/// One engine's timed call on a batch: its report, wall time, place in the batch's order
/// (from 1) and wait for a CPU during the call.
#[derive(Clone)]
struct Timed {
    rep: BatchReport,
    time_ns: u64,
    place: usize,
    descheduled_ns: Option<u64>,
}

/// The times of one row, which a repeated case takes the medians of.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct PhaseTimes {
    time_ns: u64,
    overdelete_ns: Option<u64>,
    rederive_ns: Option<u64>,
    insert_ns: Option<u64>,
    engine_ns: Option<u64>,
    descheduled_ns: Option<u64>,
}

impl PhaseTimes {
    fn of(r: &ReportRow) -> Self {
        PhaseTimes {
            time_ns: r.time_ns,
            overdelete_ns: r.overdelete_ns,
            rederive_ns: r.rederive_ns,
            insert_ns: r.insert_ns,
            engine_ns: r.engine_ns,
            descheduled_ns: r.descheduled_ns,
        }
    }

    fn write(self, r: &mut ReportRow) {
        r.time_ns = self.time_ns;
        r.overdelete_ns = self.overdelete_ns;
        r.rederive_ns = self.rederive_ns;
        r.insert_ns = self.insert_ns;
        r.engine_ns = self.engine_ns;
        r.descheduled_ns = self.descheduled_ns;
    }

    /// Each time's median on its own (an even count: the mean of the middle two), over the
    /// runs that have it.
    fn median(runs: &[PhaseTimes]) -> Self {
        fn middle(mut xs: Vec<u64>) -> Option<u64> {
            xs.sort_unstable();
            let n = xs.len();
            match n {
                0 => None,
                _ if n % 2 == 1 => Some(xs[n / 2]),
                _ => Some(((u128::from(xs[n / 2 - 1]) + u128::from(xs[n / 2])) / 2) as u64),
            }
        }
        let of = |f: fn(&PhaseTimes) -> Option<u64>| middle(runs.iter().filter_map(f).collect());
        PhaseTimes {
            time_ns: of(|t| Some(t.time_ns)).unwrap_or_default(),
            overdelete_ns: of(|t| t.overdelete_ns),
            rederive_ns: of(|t| t.rederive_ns),
            insert_ns: of(|t| t.insert_ns),
            engine_ns: of(|t| t.engine_ns),
            descheduled_ns: of(|t| t.descheduled_ns),
        }
    }
}

/// One run of the case ([`run_case`] without the repeats).
fn run_once(
    case: &Case<'_>,
    engines: &[EngineSpec],
    workers: usize,
    build: &mut dyn FnMut(EngineSpec) -> Box<dyn Engine>,
    trace_facts: bool,
    after_batch: &mut dyn FnMut(usize),
) -> Result<CaseOutcome, EngineFailure> {
    let program = case.program;
    let mut rows: Vec<ReportRow> = Vec::new();
    let mut trace: Vec<TraceLine> = Vec::new();
    let mut running: Vec<Running> = Vec::new();
    let fail = |spec: EngineSpec, batch: usize, e: dred_core::EngineError, rows: &[ReportRow]| {
        EngineFailure {
            engine: spec.name(),
            batch,
            unsupported: e.is_unsupported(),
            message: match e {
                // A caught panic names no engine; the failure does.
                dred_core::EngineError::Misuse { engine, message } if engine.is_empty() => message,
                other => other.to_string(),
            },
            rows: rows.to_vec(),
        }
    };
    let mut models: Vec<Model> = Vec::new();
    // From here the process's peak resident set grows by what the engines hold. An engine
    // alone in its case, reporting its net change, is never copied out whole before the last
    // batch: nothing needs its model, and the copy would count in its footprint.
    // The harness's own copy of the EDB, which it updates batch by batch, is made first so
    // that it is not counted in the engines' footprint.
    let mut edb = case.edb.clone();
    let mut isolation = case.order.isolate.then(Isolation::new);
    let footprint = Footprint::start();
    // An external engine's memory is another process's: the heap counted here would be
    // only the harness's side of the exchange.
    let in_process = engines.iter().all(|s| s.external.is_none());
    let heap_kb = || in_process.then(|| footprint.peak_heap_growth_kb());
    let alone = engines.len() == 1;
    let planted = planted_slowdown_switch();
    // Materialised in the order of batch 0, but kept (and reported) in the listed order.
    let mut built: Vec<Option<(Running, ReportRow, Option<Model>)>> =
        (0..engines.len()).map(|_| None).collect();
    for (place, e) in case
        .order
        .of_batch(0, engines.len())
        .into_iter()
        .enumerate()
    {
        let spec = engines[e];
        let kind = spec.kind;
        let mut engine = build(spec);
        engine.set_trace_facts(trace_facts);
        if let Some(isolation) = &mut isolation {
            isolation.scrub();
        }
        let waited = crate::sched::runqueue_wait_ns();
        let t = Instant::now();
        let rep = guarded(|| engine.materialise(case.edb)).map_err(|e| fail(spec, 0, e, &rows))?;
        let time_ns = elapsed_ns(t);
        let descheduled_ns = crate::sched::descheduled_since(waited);
        guarded(|| engine.settle()).map_err(|e| fail(spec, 0, e, &rows))?;
        let (size, model) = if alone && engine.net_change().is_some() {
            (engine.digest().len(), None)
        } else {
            let model = engine.model();
            (model.len(), Some(model))
        };
        let w = kind.workers(workers);
        let change = NetChange {
            removed: 0,
            added: size,
        };
        let row = ReportRow {
            position: Some(place + 1),
            descheduled_ns,
            ..row(
                &case.labels,
                spec,
                w,
                0,
                &Batch::default(),
                &rep,
                change,
                size,
                time_ns,
            )
        };
        collect_trace(
            &mut trace,
            program,
            case.symbols,
            spec,
            0,
            &rep,
            trace_facts,
        );
        let running = Running {
            spec,
            workers: w,
            engine,
        };
        built[e] = Some((running, row, model));
    }
    for (r, row, model) in built.into_iter().flatten() {
        running.push(r);
        rows.push(row);
        models.extend(model);
    }
    let (peak, heap) = (footprint.peak_growth_kb(), heap_kb());
    for r in &mut rows {
        r.peak_rss_kb = peak;
        r.peak_heap_kb = heap;
    }
    after_batch(0);
    let mut mismatch = disagreement(program, case.symbols, &running, &models, 0);
    // Without an engine that reports its net change, the first engine's model is copied
    // after every batch to compute it.
    let reports_change = running.iter().any(|r| r.engine.net_change().is_some());
    let mut previous: Option<Model> = (!reports_change).then(|| models.swap_remove(0));
    drop(models);
    let mut last_run = 0;
    if mismatch.is_none() {
        for (i, requested) in case.batches.iter().enumerate() {
            let batch_no = i + 1;
            let batch = Batch::normalise(requested, &edb);
            edb.apply(&batch);
            let n = running.len();
            let mut done: Vec<Option<Timed>> = vec![None; n];
            let mut digests: Vec<ModelDigest> = vec![ModelDigest::default(); n];
            let mut changes: Vec<Option<NetChange>> = vec![None; n];
            let mut over_limit = vec![false; n];
            for (place, e) in case.order.of_batch(batch_no, n).into_iter().enumerate() {
                let r = &mut running[e];
                // Whatever was freed since the last timed call is consolidated by one
                // allocation here rather than inside the timed call (measured: a no-op dd
                // batch read 1.0 ms instead of 0.6 ms without it).
                std::hint::black_box(Vec::<u8>::with_capacity(1 << 16));
                if let Some(isolation) = &mut isolation {
                    isolation.scrub();
                }
                let waited = crate::sched::runqueue_wait_ns();
                let t = Instant::now();
                let rep = guarded(|| r.engine.apply(&batch))
                    .map_err(|e| fail(r.spec, batch_no, e, &rows))?;
                if let Some(factor) = planted.filter(|(k, _)| *k == r.spec.kind).map(|p| p.1) {
                    planted_slowdown(t, factor);
                }
                let time_ns = elapsed_ns(t);
                let descheduled_ns = crate::sched::descheduled_since(waited);
                over_limit[e] = case
                    .batch_limit
                    .is_some_and(|limit| u128::from(time_ns) > limit.as_nanos());
                guarded(|| r.engine.settle()).map_err(|e| fail(r.spec, batch_no, e, &rows))?;
                digests[e] = r.engine.digest();
                changes[e] = r.engine.net_change();
                done[e] = Some(Timed {
                    rep,
                    time_ns,
                    place: place + 1,
                    descheduled_ns,
                });
            }
            let done: Vec<Timed> = done.into_iter().flatten().collect();
            last_run = batch_no;
            let change = match previous.take() {
                Some(before) => {
                    let after = running[0].engine.model();
                    let change = before.change_to(&after);
                    previous = Some(after);
                    change
                }
                None => changes.iter().flatten().copied().next().unwrap_or_default(),
            };
            let size = digests[0].len();
            let (peak, heap) = (footprint.peak_growth_kb(), heap_kb());
            for ((r, timed), &over) in running.iter().zip(&done).zip(&over_limit) {
                let Timed {
                    rep,
                    time_ns,
                    place,
                    descheduled_ns,
                } = timed;
                rows.push(ReportRow {
                    peak_rss_kb: peak,
                    peak_heap_kb: heap,
                    position: Some(*place),
                    descheduled_ns: *descheduled_ns,
                    time_limit_ns: over
                        .then(|| case.batch_limit.map(|l| l.as_nanos() as u64))
                        .flatten(),
                    ..row(
                        &case.labels,
                        r.spec,
                        r.workers,
                        batch_no,
                        &batch,
                        rep,
                        change,
                        size,
                        *time_ns,
                    )
                });
                collect_trace(
                    &mut trace,
                    program,
                    case.symbols,
                    r.spec,
                    batch_no,
                    rep,
                    trace_facts,
                );
            }
            after_batch(batch_no);
            let digests_agree = digests.iter().all(|d| *d == digests[0]);
            let changes_agree = changes.iter().flatten().all(|c| *c == change);
            if case.check == Check::Full && digests_agree && changes_agree {
                let models: Vec<Model> = running.iter().map(|r| r.engine.model()).collect();
                mismatch = disagreement(program, case.symbols, &running, &models, batch_no);
                if mismatch.is_some() {
                    break;
                }
            }
            if !digests_agree || !changes_agree {
                let models: Vec<Model> = running.iter().map(|r| r.engine.model()).collect();
                mismatch = disagreement(program, case.symbols, &running, &models, batch_no)
                    .or_else(|| {
                        let names: Vec<String> = running
                            .iter()
                            .zip(&changes)
                            .map(|(r, c)| format!("{}: {c:?}", r.spec.name()))
                            .collect();
                        Some(format!(
                            "models differ after batch {batch_no}: equal models, but net changes \
                             or digests differ ({})",
                            names.join(", ")
                        ))
                    });
                break;
            }
            // Engines past the limit stop here; the others go on. When all are past it, the
            // case stops at this batch (the engines kept for its final comparison and model).
            if over_limit.iter().all(|&o| o) {
                break;
            }
            if over_limit.iter().any(|&o| o) {
                let mut over = over_limit.iter();
                running.retain(|_| !over.next().copied().unwrap_or(false));
                // The engines left may not report their net change: then it comes from
                // copies of the first one's model, from this batch's on.
                if previous.is_none() && running.iter().all(|r| r.engine.net_change().is_none()) {
                    previous = Some(running[0].engine.model());
                }
            }
        }
    }
    // The full comparison once more at the end, so that no digest collision can hide a
    // difference in the final models.
    let models: Vec<Model> = running.iter().map(|r| r.engine.model()).collect();
    if mismatch.is_none() && last_run > 0 {
        mismatch = disagreement(program, case.symbols, &running, &models, last_run);
    }
    if let Some(m) = &mismatch {
        let last = rows.last().map_or(0, |r| r.batch);
        let first_line = m.lines().next().unwrap_or_default().to_string();
        for r in rows.iter_mut().filter(|r| r.batch == last) {
            r.error = Some(format!("mismatch: {first_line}"));
        }
    }
    let model = models
        .into_iter()
        .next()
        .unwrap_or_else(|| Model::empty(program));
    Ok(CaseOutcome {
        rows,
        trace,
        mismatch,
        edb,
        model,
    })
}

/// Compares every engine's model with the first's; the description of every difference, or
/// `None`.
fn disagreement(
    program: &Program,
    symbols: &Symbols,
    running: &[Running],
    models: &[Model],
    batch: usize,
) -> Option<String> {
    let first = &running[0];
    let mut out = String::new();
    for (other, model) in running.iter().zip(models).skip(1) {
        if let Some(diff) = describe_difference(
            program,
            symbols,
            &first.spec.name(),
            &models[0],
            &other.spec.name(),
            model,
        ) {
            out.push_str(&format!(
                "models differ after batch {batch}: engines `{}` and `{}` disagree\n{diff}",
                &first.spec.name(),
                &other.spec.name()
            ));
        }
    }
    (!out.is_empty()).then_some(out)
}

#[allow(clippy::too_many_arguments)]
fn row(
    labels: &Labels,
    spec: EngineSpec,
    workers: usize,
    batch_no: usize,
    batch: &Batch,
    rep: &BatchReport,
    change: NetChange,
    model_size: usize,
    time_ns: u64,
) -> ReportRow {
    ReportRow {
        dataset: labels.dataset.clone(),
        program: labels.program.clone(),
        engine: spec.name(),
        workers,
        batch: batch_no,
        req_del: batch.requested_deletions,
        req_ins: batch.requested_insertions,
        eff_del: batch.deletions.len(),
        eff_ins: batch.insertions.len(),
        overdeleted: rep.overdeleted,
        rederived: rep.rederived,
        inserted: rep.inserted,
        model_removed: change.removed,
        model_added: change.added,
        model_size,
        time_ns,
        overdelete_ns: rep.overdelete_ns,
        rederive_ns: rep.rederive_ns,
        insert_ns: rep.insert_ns,
        instances: rep.instances,
        body_len: rep.body_len,
        membership_tests: rep.membership_tests,
        checked: rep.checked,
        disproved: rep.disproved,
        backward_instances: rep.backward_instances,
        saturated: rep.saturated,
        chosen: rep.chosen.map(str::to_owned),
        scout: rep.scout.map(str::to_owned),
        abandoned: rep.abandoned,
        predicted_dred_ns: rep.predicted_ns.map(|p| p[0]),
        predicted_bf_ns: rep.predicted_ns.map(|p| p[1]),
        predicted_recompute_ns: rep.predicted_ns.map(|p| p[2]),
        counts_changed: rep.counts_changed,
        rounds_moved: rep.rounds_moved,
        rounds_replayed: rep.rounds_replayed,
        overdelete_probes: rep.overdelete_work.map(|w| w.probes),
        overdelete_touched: rep.overdelete_work.map(|w| w.touched),
        rederive_probes: rep.rederive_work.map(|w| w.probes),
        rederive_touched: rep.rederive_work.map(|w| w.touched),
        insert_probes: rep.insert_work.map(|w| w.probes),
        insert_touched: rep.insert_work.map(|w| w.touched),
        peak_rss_kb: None,
        peak_heap_kb: None,
        engine_ns: rep.engine_ns,
        counters: rep.counters.clone(),
        git_rev: labels.git_rev.clone(),
        dataset_hash: labels.dataset_hash.clone(),
        stream: labels.stream.clone(),
        kind: labels.kind.clone(),
        size: labels.size,
        seed: labels.seed,
        error: None,
        ..ReportRow::default()
    }
}

/// The environment variable of the test-only switch that slows one engine down on purpose:
/// `dred:1.5` makes every batch of every `dred` instance take 1.5 times its time. It exists to
/// prove that `regress` catches a slowdown of that size; no measurement is made with it.
pub const PLANTED_SLOWDOWN_VAR: &str = "DREDBENCH_PLANTED_SLOWDOWN";

/// The engine and factor [`PLANTED_SLOWDOWN_VAR`] names, if it is set and well formed (a
/// malformed value is ignored with a warning rather than failing a measurement).
fn planted_slowdown_switch() -> Option<(EngineKind, f64)> {
    let value = std::env::var(PLANTED_SLOWDOWN_VAR).ok()?;
    let parsed = value.split_once(':').and_then(|(engine, factor)| {
        let kind = <EngineKind as clap::ValueEnum>::from_str(engine, false).ok()?;
        let factor: f64 = factor.parse().ok().filter(|f: &f64| *f >= 1.0)?;
        Some((kind, factor))
    });
    if parsed.is_none() {
        eprintln!(
            "warning: {PLANTED_SLOWDOWN_VAR}={value} ignored (expected ENGINE:FACTOR, FACTOR >= 1)"
        );
    }
    parsed
}

/// Spins until `factor` times the time since `t` has passed: a slowdown proportional to the
/// work just done, exact at any scale (a sleep cannot wait a few µs).
fn planted_slowdown(t: Instant, factor: f64) {
    let until = t.elapsed().mul_f64(factor);
    while t.elapsed() < until {
        std::hint::spin_loop();
    }
}

/// Nanoseconds since `t`, saturating (a u64 of nanoseconds lasts 584 years).
fn elapsed_ns(t: Instant) -> u64 {
    u64::try_from(t.elapsed().as_nanos()).unwrap_or(u64::MAX)
}

fn collect_trace(
    trace: &mut Vec<TraceLine>,
    program: &Program,
    symbols: &Symbols,
    spec: EngineSpec,
    batch: usize,
    rep: &BatchReport,
    with_facts: bool,
) {
    for round in &rep.rounds {
        trace.push(TraceLine {
            engine: spec.name(),
            batch,
            stratum: round.stratum,
            phase: round.phase.name(),
            round: round.round,
            size: round.size,
            facts: with_facts.then(|| {
                round
                    .facts
                    .iter()
                    .map(|f| program.fact_to_string(symbols, f.rel, &f.tuple))
                    .collect()
            }),
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_engine_goes_first_about_equally_on_deletions_and_on_insertions() {
        let rotate = EngineOrder {
            mode: OrderMode::Rotate,
            seed: 0,
            ..EngineOrder::default()
        };
        for engines in 1..=5 {
            for parity in 0..2 {
                let mut first = vec![0usize; engines];
                let batches: Vec<usize> = (1..=1200).filter(|b| b % 2 == parity).collect();
                for &b in &batches {
                    first[rotate.of_batch(b, engines)[0]] += 1;
                }
                let fair = batches.len() / engines;
                for (e, &count) in first.iter().enumerate() {
                    assert!(
                        count * 10 >= fair * 8 && count * 10 <= fair * 12,
                        "{engines} engines, batches of parity {parity}: engine {e} first \
                         {count} times of {}",
                        batches.len()
                    );
                }
            }
        }
    }

    /// Over `orders` of `n` engines, each checked to be a permutation: how often engine `a`
    /// ran right before engine `b` (`follows[a][b]`), and how often engine `e` held place `k`
    /// (`place[e][k]`).
    fn tally(
        n: usize,
        orders: impl Iterator<Item = Vec<usize>>,
    ) -> (Vec<Vec<usize>>, Vec<Vec<usize>>) {
        let mut follows = vec![vec![0usize; n]; n];
        let mut place = vec![vec![0usize; n]; n];
        for o in orders {
            let mut sorted = o.clone();
            sorted.sort_unstable();
            assert_eq!(sorted, (0..n).collect::<Vec<_>>(), "a permutation");
            for (k, &e) in o.iter().enumerate() {
                place[e][k] += 1;
                if k > 0 {
                    follows[o[k - 1]][e] += 1;
                }
            }
        }
        (follows, place)
    }

    /// `--repeat`'s design: over its runs, on every batch, every engine holds every place
    /// equally often and follows every other engine equally often; its first run is the
    /// mode's order, so that a case run once keeps the orders it had.
    #[test]
    fn repeated_runs_balance_places_and_predecessors_on_every_batch() {
        for n in 1..=7 {
            let runs = EngineOrder::balanced_runs(n);
            let base = EngineOrder {
                mode: OrderMode::Shuffle,
                seed: 11,
                repeats: runs,
                ..EngineOrder::default()
            };
            for batch in 0..30 {
                let (follows, place) = tally(
                    n,
                    (0..runs).map(|run| EngineOrder { run, ..base }.of_batch(batch, n)),
                );
                let per_place = runs / n;
                assert!(
                    place.iter().flatten().all(|&c| c == per_place),
                    "{n} engines, batch {batch}: places {place:?}"
                );
                let per_pair = if n % 2 == 0 { 1 } else { 2 };
                for (a, row) in follows.iter().enumerate() {
                    for (b, &c) in row.iter().enumerate() {
                        let expected = if a == b || n < 2 { 0 } else { per_pair };
                        assert_eq!(c, expected, "{n} engines, batch {batch}: {a} before {b}");
                    }
                }
                assert_eq!(
                    base.of_batch(batch, n),
                    EngineOrder { repeats: 1, ..base }.of_batch(batch, n),
                    "run 0 is the order of a case run once"
                );
            }
        }
    }

    /// A repeated case reports the first run's rows (counters, model sizes) with each time
    /// the median over the runs, `repeats` set and no `position`.
    #[test]
    fn a_repeated_case_reports_median_times_over_its_runs_and_the_first_runs_counters() {
        let chain = Chain::new(CHAIN_TC, 0..5, 10..14);
        let program = &chain.program;
        let mut build = |spec: EngineSpec| kind_engine(spec.kind, program);
        let engines = aa_pair_and_recompute();
        let once = chain.shuffled(5).order;
        let case = |order: EngineOrder| Case {
            order,
            ..chain.shuffled(5)
        };
        let mut calls = 0;
        let single =
            run_case(&case(once), &engines, 1, &mut build, false, |_| calls += 1).expect("runs");
        let batches = chain.batches.len() + 1;
        assert_eq!(calls, batches);
        let mut calls = 0;
        let repeated = run_case(
            &case(once.repeated(6)),
            &engines,
            1,
            &mut build,
            false,
            |_| calls += 1,
        )
        .expect("runs");
        assert_eq!(calls, 6 * batches, "every batch of every run");
        assert!(repeated.mismatch.is_none(), "{:?}", repeated.mismatch);
        assert_eq!(single.rows.len(), repeated.rows.len());
        for (a, b) in single.rows.iter().zip(&repeated.rows) {
            assert_eq!((&a.engine, a.batch), (&b.engine, b.batch));
            assert_eq!(
                (
                    a.overdeleted,
                    a.rederived,
                    a.inserted,
                    a.model_size,
                    a.instances
                ),
                (
                    b.overdeleted,
                    b.rederived,
                    b.inserted,
                    b.model_size,
                    b.instances
                ),
            );
            assert_eq!((a.repeats, b.repeats), (None, Some(6)));
            assert!(a.position.is_some() && b.position.is_none());
            assert!(b.time_ns > 0);
        }
    }

    #[test]
    fn the_median_of_each_time_is_taken_on_its_own_over_the_runs_that_have_it() {
        let t = |time_ns, overdelete_ns| PhaseTimes {
            time_ns,
            overdelete_ns,
            ..PhaseTimes::default()
        };
        let m = PhaseTimes::median(&[t(9, Some(1)), t(1, None), t(5, Some(7)), t(3, Some(4))]);
        assert_eq!(m.time_ns, 4, "an even count: the mean of the middle two");
        assert_eq!(m.overdelete_ns, Some(4), "the three runs that have it");
        assert_eq!(m.rederive_ns, None);
        assert_eq!(
            PhaseTimes::median(&[t(u64::MAX, None), t(u64::MAX - 2, None)]).time_ns,
            u64::MAX - 1
        );
    }

    /// The bias the shuffle removes: under rotation the engine listed after `recompute` runs
    /// right after it on every batch where neither is first; shuffled, every engine follows
    /// every other about equally, and holds every place about equally.
    #[test]
    fn shuffled_every_engine_follows_every_other_and_holds_every_place_about_equally() {
        let n = 4;
        let batches = 4_000;
        let count = |order: EngineOrder| tally(n, (1..=batches).map(|b| order.of_batch(b, n)));
        let shuffle = EngineOrder {
            mode: OrderMode::Shuffle,
            seed: 7,
            ..EngineOrder::default()
        };
        let (follows, place) = count(shuffle);
        // Each ordered pair is adjacent in (n - 1) / (n (n - 1)) = 1/n of the batches.
        let fair_pair = batches / n;
        let fair_place = batches / n;
        for a in 0..n {
            for b in (0..n).filter(|&b| b != a) {
                let c = follows[a][b];
                assert!(
                    c * 10 >= fair_pair * 8 && c * 10 <= fair_pair * 12,
                    "{b} after {a}: {c} of {batches}"
                );
            }
            for (k, &c) in place[a].iter().enumerate() {
                assert!(
                    c * 10 >= fair_place * 8 && c * 10 <= fair_place * 12,
                    "engine {a} at place {k}: {c} of {batches}"
                );
            }
        }
        // The same seed gives the same orders; another seed, others.
        let again: Vec<Vec<usize>> = (0..50).map(|b| shuffle.of_batch(b, n)).collect();
        let same: Vec<Vec<usize>> = (0..50).map(|b| shuffle.of_batch(b, n)).collect();
        assert_eq!(again, same);
        let other = EngineOrder { seed: 8, ..shuffle };
        assert_ne!(
            again,
            (0..50).map(|b| other.of_batch(b, n)).collect::<Vec<_>>()
        );
        // Under rotation, engine 1 follows engine 0 on every batch where 0 is not last.
        let (rotated, _) = count(EngineOrder {
            mode: OrderMode::Rotate,
            seed: 0,
            ..EngineOrder::default()
        });
        assert_eq!(
            rotated[0][2] + rotated[0][3],
            0,
            "rotation never puts 2 or 3 after 0"
        );
        assert!(rotated[0][1] * 10 >= batches * 7, "{:?}", rotated[0]);
    }

    /// Where the kernel keeps scheduler statistics, every row says how long its timed call
    /// waited for a CPU, and never more than the call took.
    #[test]
    fn every_row_says_how_long_its_call_waited_for_a_cpu() {
        if crate::sched::runqueue_wait_ns().is_none() {
            return;
        }
        let chain = Chain::new(CHAIN_TC, 0..5, 10..14);
        let program = &chain.program;
        let mut build = |spec: EngineSpec| kind_engine(spec.kind, program);
        let engines = aa_pair_and_recompute();
        let case = chain.shuffled(3);
        let out = run_case(&case, &engines, 1, &mut build, false, |_| {}).expect("runs");
        assert!(!out.rows.is_empty());
        for r in &out.rows {
            let waited = r.descheduled_ns.expect("read around every timed call");
            assert!(r.scheduled_ns() <= r.time_ns.max(1), "{r:?}");
            if waited <= r.time_ns {
                assert_eq!(r.scheduled_ns(), (r.time_ns - waited).max(1));
            }
        }
    }

    #[test]
    fn the_report_records_each_engines_place_in_every_batch() {
        let chain = Chain::new(CHAIN_TC, 0..5, 10..14);
        let program = &chain.program;
        let mut build = |spec: EngineSpec| kind_engine(spec.kind, program);
        let engines = aa_pair_and_recompute();
        let case = chain.shuffled(3);
        let order = case.order;
        let out = run_case(&case, &engines, 1, &mut build, false, |_| {}).expect("runs");
        assert!(out.mismatch.is_none(), "{:?}", out.mismatch);
        for batch in 0..=chain.batches.len() {
            let rows: Vec<&ReportRow> = out.rows.iter().filter(|r| r.batch == batch).collect();
            let names: Vec<&str> = rows.iter().map(|r| r.engine.as_str()).collect();
            assert_eq!(
                names,
                ["dred", "dred@2", "recompute"],
                "listed order in the report"
            );
            let expected = order.of_batch(batch, 3);
            for (place, &e) in expected.iter().enumerate() {
                assert_eq!(rows[e].position, Some(place + 1), "batch {batch}");
            }
            assert!(rows.iter().all(|r| r.time_ns > 0));
        }
    }

    /// An engine whose batch passes the per-batch limit keeps that batch's row, marked with
    /// the limit, and is not run again; with a limit no batch reaches, nothing is marked.
    #[test]
    fn a_batch_over_the_time_limit_is_recorded_and_its_engine_stops() {
        let chain = Chain::new(CHAIN_TC, 0..5, 10..14);
        assert!(chain.batches.len() >= 2, "a later batch to skip");
        let program = &chain.program;
        let engines = EngineSpec::of_kinds(&[EngineKind::Dred, EngineKind::Recompute]);
        use std::time::Duration;
        for (limit, stops) in [
            (Duration::from_nanos(1), true),
            (Duration::from_secs(3600), false),
        ] {
            let mut build = |spec: EngineSpec| kind_engine(spec.kind, program);
            let case = chain.case(Check::Full, Some(limit));
            let out = run_case(&case, &engines, 1, &mut build, false, |_| {}).expect("runs");
            assert!(out.mismatch.is_none(), "{:?}", out.mismatch);
            let marked: Vec<(usize, &str)> = out
                .rows
                .iter()
                .filter(|r| r.time_limit_ns.is_some())
                .map(|r| (r.batch, r.engine.as_str()))
                .collect();
            let last = out.rows.iter().map(|r| r.batch).max();
            if stops {
                // Materialisation is not judged; batch 1 is, and ends both engines' case.
                assert_eq!(marked, [(1, "dred"), (1, "recompute")]);
                assert_eq!(last, Some(1));
                assert!(out.rows.iter().all(|r| r.error.is_none()));
            } else {
                assert!(marked.is_empty(), "{marked:?}");
                assert_eq!(last, Some(chain.batches.len()));
            }
        }
    }

    fn kind_engine(kind: EngineKind, program: &Arc<Program>) -> Box<dyn Engine> {
        match kind {
            EngineKind::Dred => Box::new(dred_core::Dred::new(program.clone())),
            _ => Box::new(Recompute::new(program.clone())),
        }
    }

    use dred_core::{load_program, EngineError, Fact, Recompute, SourceFile};

    /// `recompute`, except that from batch 2 on one derived fact is missing from its model.
    struct Lossy {
        inner: Recompute,
        batches: usize,
    }

    impl Engine for Lossy {
        fn name(&self) -> &str {
            "lossy"
        }
        fn materialise(&mut self, edb: &Edb) -> Result<BatchReport, EngineError> {
            self.inner.materialise(edb)
        }
        fn apply(&mut self, batch: &Batch) -> Result<BatchReport, EngineError> {
            self.batches += 1;
            self.inner.apply(batch)
        }
        fn model(&self) -> Model {
            let mut m = self.inner.model();
            if self.batches >= 2 {
                let first = m.relations.iter().position(|r| !r.is_empty());
                if let Some(rel) = first {
                    let t = m.relations[rel].iter().next().cloned();
                    m.relations[rel].remove(&t.expect("a fact"));
                }
            }
            m
        }
    }

    /// `dred`, slowed by `sleep` on every batch (for the per-batch time limit).
    struct Slow {
        inner: dred_core::Dred,
        sleep: std::time::Duration,
    }

    impl Engine for Slow {
        fn name(&self) -> &str {
            "dred"
        }
        fn materialise(&mut self, edb: &Edb) -> Result<BatchReport, EngineError> {
            self.inner.materialise(edb)
        }
        fn apply(&mut self, batch: &Batch) -> Result<BatchReport, EngineError> {
            std::thread::sleep(self.sleep);
            self.inner.apply(batch)
        }
        fn model(&self) -> Model {
            self.inner.model()
        }
        fn net_change(&self) -> Option<NetChange> {
            self.inner.net_change()
        }
    }

    /// When the one engine that reports its net change passes the limit, the others' rows
    /// still carry the batches' true net changes (from copies of their models).
    #[test]
    fn the_net_change_survives_the_engine_that_reported_it() {
        let chain = Chain::new(CHAIN_TC, 0..5, 10..14);
        let program = &chain.program;
        let engines = EngineSpec::of_kinds(&[EngineKind::Dred, EngineKind::Recompute]);
        let run = |limit: Option<std::time::Duration>| {
            let mut build = |spec: EngineSpec| -> Box<dyn Engine> {
                match spec.kind {
                    EngineKind::Dred => Box::new(Slow {
                        inner: dred_core::Dred::new(program.clone()),
                        sleep: std::time::Duration::from_millis(200),
                    }),
                    _ => kind_engine(spec.kind, program),
                }
            };
            let case = chain.case(Check::Full, limit);
            let out = run_case(&case, &engines, 1, &mut build, false, |_| {}).expect("runs");
            assert!(out.mismatch.is_none(), "{:?}", out.mismatch);
            out.rows
                .iter()
                .filter(|r| r.engine == "recompute" && r.batch > 0)
                .map(|r| (r.batch, r.model_removed, r.model_added, r.model_size))
                .collect::<Vec<_>>()
        };
        let free = run(None);
        let limited = run(Some(std::time::Duration::from_millis(100)));
        assert_eq!(free.len(), chain.batches.len());
        assert!(free.iter().any(|r| r.2 > 0), "batches that add: {free:?}");
        assert_eq!(limited, free);
    }

    /// A program over `e(x, y)` and `p(x, y)` (numbers), its EDB the edges (i, i + 1) for i in
    /// `initial`, and one batch inserting (i, i + 1) for each i in `inserted`.
    /// `dred`, `dred@2` and `recompute`: an A/A pair beside another engine.
    fn aa_pair_and_recompute() -> Vec<EngineSpec> {
        EngineSpec::distinct(&EngineSpec::of_kinds(&[
            EngineKind::Dred,
            EngineKind::Dred,
            EngineKind::Recompute,
        ]))
    }

    /// Transitive closure `p` of the chain's edges `e`.
    const CHAIN_TC: &str = "p(x, y) :- e(x, y).\np(x, z) :- p(x, y), e(y, z).\n";

    struct Chain {
        program: Arc<Program>,
        symbols: Symbols,
        edb: Edb,
        batches: Vec<RequestedBatch>,
    }

    impl Chain {
        fn new(rules: &str, initial: std::ops::Range<i64>, inserted: std::ops::Range<i64>) -> Self {
            let mut symbols = Symbols::new();
            let text = format!(
                ".decl e(x: number, y: number)\n.decl p(x: number, y: number)\n.input e\n{rules}"
            );
            let program = Arc::new(
                load_program(&SourceFile::new("p.dl", text), &mut symbols).expect("program"),
            );
            let mut edb = Edb::empty(&program);
            for i in initial {
                edb.insert(Fact::new(0, vec![i, i + 1]));
            }
            let batches = inserted
                .map(|i| RequestedBatch {
                    deletions: Vec::new(),
                    insertions: vec![Fact::new(0, vec![i, i + 1])],
                })
                .collect();
            Chain {
                program,
                symbols,
                edb,
                batches,
            }
        }

        /// The chain as a case, engines in the listed order.
        fn case(&self, check: Check, batch_limit: Option<std::time::Duration>) -> Case<'_> {
            Case {
                program: &self.program,
                symbols: &self.symbols,
                edb: &self.edb,
                batches: &self.batches,
                labels: Labels::default(),
                check,
                order: EngineOrder::default(),
                batch_limit,
            }
        }

        /// The chain as a case checked in full, the engines shuffled with `seed`.
        fn shuffled(&self, seed: u64) -> Case<'_> {
            Case {
                order: EngineOrder {
                    mode: OrderMode::Shuffle,
                    seed,
                    ..EngineOrder::default()
                },
                ..self.case(Check::Full, None)
            }
        }

        /// [`run_case`] on the chain with engines `kinds`, built by `build`.
        fn run(
            &self,
            check: Check,
            kinds: [EngineKind; 2],
            build: &mut dyn FnMut(EngineSpec) -> Box<dyn Engine>,
        ) -> Result<CaseOutcome, EngineFailure> {
            let case = self.case(check, None);
            run_case(
                &case,
                &EngineSpec::of_kinds(&kinds),
                1,
                build,
                false,
                |_| {},
            )
        }
    }

    #[test]
    fn a_difference_in_a_middle_batch_is_found_and_stops_the_case() {
        let chain = Chain::new(CHAIN_TC, 0..5, 10..14);
        let program = &chain.program;
        let mut build = |spec: EngineSpec| -> Box<dyn Engine> {
            let kind = spec.kind;
            match kind {
                EngineKind::Dred => Box::new(dred_core::Dred::new(program.clone())),
                _ => Box::new(Lossy {
                    inner: Recompute::new(program.clone()),
                    batches: 0,
                }),
            }
        };
        let out = chain
            .run(
                Check::Full,
                [EngineKind::Dred, EngineKind::Recompute],
                &mut build,
            )
            .expect("runs");
        let m = out.mismatch.expect("a mismatch");
        assert!(m.starts_with("models differ after batch 2"), "{m}");
        assert!(m.contains("p(0, 1)"), "{m}");
        let last = out.rows.iter().map(|r| r.batch).max();
        assert_eq!(last, Some(2), "the case stops at the first difference");
        assert!(out.rows.iter().all(|r| r.error.is_some() == (r.batch == 2)));
        // Batch 1 agreed: its net change is dred's, one path per new edge.
        let b1 = out.rows.iter().find(|r| r.batch == 1).expect("batch 1");
        assert_eq!(
            (b1.model_removed, b1.model_added, b1.model_size),
            (0, 1, 16)
        );
    }

    /// `recompute`, except that from batch 2 on its model lacks one fact while its digest
    /// stays the true model's: only a whole-model comparison sees it.
    struct HiddenLoss(Lossy);

    impl Engine for HiddenLoss {
        fn name(&self) -> &str {
            "hidden-loss"
        }
        fn materialise(&mut self, edb: &Edb) -> Result<BatchReport, EngineError> {
            self.0.materialise(edb)
        }
        fn apply(&mut self, batch: &Batch) -> Result<BatchReport, EngineError> {
            self.0.apply(batch)
        }
        fn model(&self) -> Model {
            self.0.model()
        }
        fn digest(&self) -> ModelDigest {
            self.0.inner.digest()
        }
    }

    /// `--check full` compares whole models after every batch: a difference the digests do
    /// not show is found in the batch it appears (2), where `--check digest` finds it only
    /// in the final comparison (batch 4).
    #[test]
    fn check_full_compares_whole_models_after_every_batch() {
        let chain = Chain::new("p(x, y) :- e(x, y).\n", 0..1, 10..14);
        let program = &chain.program;
        for (check, found_after) in [(Check::Full, 2), (Check::Digest, 4)] {
            let mut build = |spec: EngineSpec| -> Box<dyn Engine> {
                let kind = spec.kind;
                match kind {
                    EngineKind::Oracle => Box::new(dred_core::Oracle::new(program.clone())),
                    _ => Box::new(HiddenLoss(Lossy {
                        inner: Recompute::new(program.clone()),
                        batches: 0,
                    })),
                }
            };
            let out = chain
                .run(
                    check,
                    [EngineKind::Oracle, EngineKind::Recompute],
                    &mut build,
                )
                .expect("runs");
            let m = out.mismatch.expect("a mismatch");
            assert!(
                m.starts_with(&format!("models differ after batch {found_after}")),
                "{check:?}: {m}"
            );
        }
    }

    /// `recompute`, except that batch 2 panics or fails.
    struct Crashing {
        inner: Recompute,
        batches: usize,
        panics: bool,
    }

    impl Engine for Crashing {
        fn name(&self) -> &str {
            "crashing"
        }
        fn materialise(&mut self, edb: &Edb) -> Result<BatchReport, EngineError> {
            self.inner.materialise(edb)
        }
        fn apply(&mut self, batch: &Batch) -> Result<BatchReport, EngineError> {
            self.batches += 1;
            if self.batches == 2 {
                if self.panics {
                    panic!("index out of bounds in a made-up join");
                }
                return Err(EngineError::Invariant {
                    engine: "crashing".into(),
                    batch: 2,
                    invariant: "a made-up invariant".into(),
                });
            }
            self.inner.apply(batch)
        }
        fn model(&self) -> Model {
            self.inner.model()
        }
    }

    /// An engine that panics or returns an error on a valid batch ends the case with an
    /// engine failure naming the engine, the batch and the cause — not an abort of the
    /// command, and not an "unsupported" (which `run` reports as bad input).
    #[test]
    fn a_panic_or_an_error_of_an_engine_is_an_engine_failure() {
        let chain = Chain::new("p(x, y) :- e(x, y).\n", 0..0, 0..3);
        let program = &chain.program;
        for panics in [true, false] {
            let mut build = |spec: EngineSpec| -> Box<dyn Engine> {
                let kind = spec.kind;
                match kind {
                    EngineKind::Oracle => Box::new(dred_core::Oracle::new(program.clone())),
                    _ => Box::new(Crashing {
                        inner: Recompute::new(program.clone()),
                        batches: 0,
                        panics,
                    }),
                }
            };
            let failure = chain
                .run(
                    Check::Full,
                    [EngineKind::Oracle, EngineKind::Recompute],
                    &mut build,
                )
                .expect_err("the engine fails");
            assert_eq!((failure.engine.as_str(), failure.batch), ("recompute", 2));
            assert!(!failure.unsupported);
            let cause = if panics {
                "panicked: index out of bounds in a made-up join"
            } else {
                "a made-up invariant"
            };
            assert!(failure.message.contains(cause), "{}", failure.message);
            assert!(failure.rows.iter().all(|r| r.batch <= 1));
        }
    }
}
