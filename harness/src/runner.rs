//! Running one case: several engines on the same program, EDB and batches, their models
//! compared after every batch. `run`, `sweep` and `study` all go through [`run_case`].
//!
//! Only the engine's own work is timed (materialise, apply); reading models back, comparing
//! them and building report rows happen outside the timed part, and between batches nothing
//! is allocated in proportion to the model (see [`run_case`]).

use std::sync::Arc;
use std::time::Instant;

use dred_core::{
    Batch, BatchReport, Edb, Engine, Model, ModelDigest, NetChange, Program, RequestedBatch,
    Symbols,
};

use crate::compare::describe_difference;
use crate::engines::EngineKind;
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
    /// The EDB after the last batch run.
    pub edb: Edb,
    /// The first engine's model after the last batch run.
    pub model: Model,
}

struct Running {
    kind: EngineKind,
    workers: usize,
    engine: Box<dyn Engine>,
}

/// Which engine applies batch `batch_no` first; the others follow in their order, wrapping
/// around. Each engine runs after whatever the one before it left in the caches and the
/// allocator (after `recompute`, little of anyone's data is still cached), so a fixed order
/// would favour or handicap one engine on every batch. A hash of the batch number rather than
/// a plain rotation, so that no period of the stream (deletions and insertions alternate
/// under `--revert`) lines up with the order.
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
/// Models are compared in full after materialisation and after the last batch. After every
/// batch in between the engines' [`ModelDigest`]s are compared (and their net changes, where
/// they report them): a full model copy per engine and batch would be millions of
/// allocations, whose freeing and cache misses slowed the next timed batch of small changes
/// by up to 10× (measured with `dred-core/benches/phases.rs`). On a digest difference the
/// full models are compared and the difference described as before. The net change in the
/// report comes from an engine that reports it (`dred`, `dd`), else from copies of the first
/// engine's model.
pub fn run_case(
    case: &Case<'_>,
    engines: &[EngineKind],
    workers: usize,
    build: &mut dyn FnMut(EngineKind) -> Box<dyn Engine>,
    trace_facts: bool,
    mut after_batch: impl FnMut(usize),
) -> Result<CaseOutcome, EngineFailure> {
    let program = case.program;
    let mut rows: Vec<ReportRow> = Vec::new();
    let mut trace: Vec<TraceLine> = Vec::new();
    let mut running: Vec<Running> = Vec::new();
    let fail = |kind: EngineKind, batch: usize, e: dred_core::EngineError, rows: &[ReportRow]| {
        EngineFailure {
            engine: kind.name().to_string(),
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
    let footprint = Footprint::start();
    let alone = engines.len() == 1;
    for &kind in engines {
        let mut engine = build(kind);
        engine.set_trace_facts(trace_facts);
        let t = Instant::now();
        let rep = guarded(|| engine.materialise(case.edb)).map_err(|e| fail(kind, 0, e, &rows))?;
        let time_us = t.elapsed().as_micros() as u64;
        guarded(|| engine.settle()).map_err(|e| fail(kind, 0, e, &rows))?;
        let size = if alone && engine.net_change().is_some() {
            engine.digest().len()
        } else {
            let model = engine.model();
            let size = model.len();
            models.push(model);
            size
        };
        let w = kind.workers(workers);
        let change = NetChange {
            removed: 0,
            added: size,
        };
        rows.push(row(
            &case.labels,
            kind,
            w,
            0,
            &Batch::default(),
            &rep,
            change,
            size,
            time_us,
        ));
        collect_trace(
            &mut trace,
            program,
            case.symbols,
            kind,
            0,
            &rep,
            trace_facts,
        );
        running.push(Running {
            kind,
            workers: w,
            engine,
        });
    }
    let peak = footprint.and_then(|f| f.peak_growth_kb());
    for r in &mut rows {
        r.peak_rss_kb = peak;
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
            let mut done: Vec<Option<(BatchReport, u64)>> = vec![None; n];
            let mut digests: Vec<ModelDigest> = vec![ModelDigest::default(); n];
            let mut changes: Vec<Option<NetChange>> = vec![None; n];
            for k in 0..n {
                let e = (first_engine(batch_no, n) + k) % n;
                let r = &mut running[e];
                // Whatever was freed since the last timed call is consolidated by one
                // allocation here rather than inside the timed call (measured: a no-op dd
                // batch read 1.0 ms instead of 0.6 ms without it).
                std::hint::black_box(Vec::<u8>::with_capacity(1 << 16));
                let t = Instant::now();
                let rep = guarded(|| r.engine.apply(&batch))
                    .map_err(|e| fail(r.kind, batch_no, e, &rows))?;
                let time_us = t.elapsed().as_micros() as u64;
                guarded(|| r.engine.settle()).map_err(|e| fail(r.kind, batch_no, e, &rows))?;
                digests[e] = r.engine.digest();
                changes[e] = r.engine.net_change();
                done[e] = Some((rep, time_us));
            }
            let done: Vec<(BatchReport, u64)> = done.into_iter().flatten().collect();
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
            let peak = footprint.and_then(|f| f.peak_growth_kb());
            for (r, (rep, time_us)) in running.iter().zip(&done) {
                rows.push(ReportRow {
                    peak_rss_kb: peak,
                    ..row(
                        &case.labels,
                        r.kind,
                        r.workers,
                        batch_no,
                        &batch,
                        rep,
                        change,
                        size,
                        *time_us,
                    )
                });
                collect_trace(
                    &mut trace,
                    program,
                    case.symbols,
                    r.kind,
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
                            .map(|(r, c)| format!("{}: {c:?}", r.kind.name()))
                            .collect();
                        Some(format!(
                            "models differ after batch {batch_no}: equal models, but net changes \
                             or digests differ ({})",
                            names.join(", ")
                        ))
                    });
                break;
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
            first.kind.name(),
            &models[0],
            other.kind.name(),
            model,
        ) {
            out.push_str(&format!(
                "models differ after batch {batch}: engines `{}` and `{}` disagree\n{diff}",
                first.kind.name(),
                other.kind.name()
            ));
        }
    }
    (!out.is_empty()).then_some(out)
}

#[allow(clippy::too_many_arguments)]
fn row(
    labels: &Labels,
    kind: EngineKind,
    workers: usize,
    batch_no: usize,
    batch: &Batch,
    rep: &BatchReport,
    change: NetChange,
    model_size: usize,
    time_us: u64,
) -> ReportRow {
    ReportRow {
        dataset: labels.dataset.clone(),
        program: labels.program.clone(),
        engine: kind.name().to_string(),
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
        time_us,
        overdelete_us: rep.overdelete_us,
        rederive_us: rep.rederive_us,
        insert_us: rep.insert_us,
        instances: rep.instances,
        body_len: rep.body_len,
        membership_tests: rep.membership_tests,
        checked: rep.checked,
        disproved: rep.disproved,
        backward_instances: rep.backward_instances,
        overdelete_probes: rep.overdelete_work.map(|w| w.probes),
        overdelete_touched: rep.overdelete_work.map(|w| w.touched),
        rederive_probes: rep.rederive_work.map(|w| w.probes),
        rederive_touched: rep.rederive_work.map(|w| w.touched),
        insert_probes: rep.insert_work.map(|w| w.probes),
        insert_touched: rep.insert_work.map(|w| w.touched),
        peak_rss_kb: None,
        git_rev: labels.git_rev.clone(),
        dataset_hash: labels.dataset_hash.clone(),
        stream: labels.stream.clone(),
        kind: labels.kind.clone(),
        size: labels.size,
        seed: labels.seed,
        error: None,
    }
}

fn collect_trace(
    trace: &mut Vec<TraceLine>,
    program: &Program,
    symbols: &Symbols,
    kind: EngineKind,
    batch: usize,
    rep: &BatchReport,
    with_facts: bool,
) {
    for round in &rep.rounds {
        trace.push(TraceLine {
            engine: kind.name().to_string(),
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
        for engines in 1..=5 {
            for parity in 0..2 {
                let mut first = vec![0usize; engines];
                let batches: Vec<usize> = (1..=1200).filter(|b| b % 2 == parity).collect();
                for &b in &batches {
                    first[first_engine(b, engines)] += 1;
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

    /// A program over `e(x, y)` and `p(x, y)` (numbers), its EDB the edges (i, i + 1) for i in
    /// `initial`, and one batch inserting (i, i + 1) for each i in `inserted`.
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

        /// [`run_case`] on the chain with engines `kinds`, built by `build`.
        fn run(
            &self,
            check: Check,
            kinds: [EngineKind; 2],
            build: &mut dyn FnMut(EngineKind) -> Box<dyn Engine>,
        ) -> Result<CaseOutcome, EngineFailure> {
            let case = Case {
                program: &self.program,
                symbols: &self.symbols,
                edb: &self.edb,
                batches: &self.batches,
                labels: Labels::default(),
                check,
            };
            run_case(&case, &kinds, 1, build, false, |_| {})
        }
    }

    #[test]
    fn a_difference_in_a_middle_batch_is_found_and_stops_the_case() {
        let chain = Chain::new(
            "p(x, y) :- e(x, y).\np(x, z) :- p(x, y), e(y, z).\n",
            0..5,
            10..14,
        );
        let program = &chain.program;
        let mut build = |kind: EngineKind| -> Box<dyn Engine> {
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
            let mut build = |kind: EngineKind| -> Box<dyn Engine> {
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
            let mut build = |kind: EngineKind| -> Box<dyn Engine> {
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
