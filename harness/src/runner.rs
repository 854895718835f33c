//! Running one case: several engines on the same program, EDB and batches, their models
//! compared after every batch. `run`, `sweep` and `study` all go through [`run_case`].
//!
//! Only the engine's own work is timed (materialise, apply); reading models back, comparing
//! them and building report rows happen outside the timed part.

use std::sync::Arc;
use std::time::Instant;

use dred_core::{Batch, BatchReport, Edb, Engine, Model, Program, RequestedBatch, Symbols};

use crate::compare::describe_difference;
use crate::engines::EngineKind;
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
}

/// An engine could not run the case (an unsupported feature, misuse).
#[derive(Debug, thiserror::Error)]
#[error("engine `{engine}`: {message}")]
pub struct EngineFailure {
    /// Which engine.
    pub engine: String,
    /// The engine's error.
    pub message: String,
    /// Rows of the batches completed before the failure.
    pub rows: Vec<ReportRow>,
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
    model: Model,
}

/// Runs the engines (built by `build`, with the worker count each reports) through the
/// case. Returns `Err` only when an engine refuses; a model mismatch is in the outcome.
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
    let empty = Model::empty(program);
    let fail = |kind: EngineKind, e: dred_core::EngineError, rows: &[ReportRow]| EngineFailure {
        engine: kind.name().to_string(),
        message: e.to_string(),
        rows: rows.to_vec(),
    };
    for &kind in engines {
        let mut engine = build(kind);
        engine.set_trace_facts(trace_facts);
        let t = Instant::now();
        let rep = engine
            .materialise(case.edb)
            .map_err(|e| fail(kind, e, &rows))?;
        let time_us = t.elapsed().as_micros() as u64;
        let model = engine.model();
        let w = kind.workers(workers);
        rows.push(row(
            &case.labels,
            kind,
            w,
            0,
            &Batch::default(),
            &rep,
            &empty,
            &model,
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
            model,
        });
    }
    after_batch(0);
    let mut edb = case.edb.clone();
    let mut mismatch = disagreement(program, case.symbols, &running, 0);
    if mismatch.is_none() {
        for (i, requested) in case.batches.iter().enumerate() {
            let batch_no = i + 1;
            let batch = Batch::normalise(requested, &edb);
            edb.apply(&batch);
            for r in &mut running {
                // The previous batch's model copies were just freed; one allocation here makes
                // the allocator consolidate them now rather than inside the timed call
                // (measured: a no-op dd batch read 1.0 ms instead of 0.6 ms without it).
                std::hint::black_box(Vec::<u8>::with_capacity(1 << 16));
                let t = Instant::now();
                let rep = r.engine.apply(&batch).map_err(|e| fail(r.kind, e, &rows))?;
                let time_us = t.elapsed().as_micros() as u64;
                let model = r.engine.model();
                rows.push(row(
                    &case.labels,
                    r.kind,
                    r.workers,
                    batch_no,
                    &batch,
                    &rep,
                    &r.model,
                    &model,
                    time_us,
                ));
                collect_trace(
                    &mut trace,
                    program,
                    case.symbols,
                    r.kind,
                    batch_no,
                    &rep,
                    trace_facts,
                );
                r.model = model;
            }
            after_batch(batch_no);
            mismatch = disagreement(program, case.symbols, &running, batch_no);
            if mismatch.is_some() {
                break;
            }
        }
    }
    if let Some(m) = &mismatch {
        let last = rows.last().map_or(0, |r| r.batch);
        let first_line = m.lines().next().unwrap_or_default().to_string();
        for r in rows.iter_mut().filter(|r| r.batch == last) {
            r.error = Some(format!("mismatch: {first_line}"));
        }
    }
    let model = running.swap_remove(0).model;
    Ok(CaseOutcome {
        rows,
        trace,
        mismatch,
        edb,
        model,
    })
}

/// Compares every engine with the first; the description of every difference, or `None`.
fn disagreement(
    program: &Program,
    symbols: &Symbols,
    running: &[Running],
    batch: usize,
) -> Option<String> {
    let first = &running[0];
    let mut out = String::new();
    for other in &running[1..] {
        if let Some(diff) = describe_difference(
            program,
            symbols,
            first.kind.name(),
            &first.model,
            other.kind.name(),
            &other.model,
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
    before: &Model,
    after: &Model,
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
        model_removed: before.minus(after).values().map(Vec::len).sum(),
        model_added: after.minus(before).values().map(Vec::len).sum(),
        model_size: after.len(),
        time_us,
        overdelete_us: rep.overdelete_us,
        rederive_us: rep.rederive_us,
        insert_us: rep.insert_us,
        instances: rep.instances,
        body_len: rep.body_len,
        membership_tests: rep.membership_tests,
        overdelete_probes: rep.overdelete_work.map(|w| w.probes),
        overdelete_touched: rep.overdelete_work.map(|w| w.touched),
        rederive_probes: rep.rederive_work.map(|w| w.probes),
        rederive_touched: rep.rederive_work.map(|w| w.touched),
        insert_probes: rep.insert_work.map(|w| w.probes),
        insert_touched: rep.insert_work.map(|w| w.touched),
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

/// Writes report rows as CSV, atomically.
pub fn write_report(path: &std::path::Path, rows: &[ReportRow]) -> anyhow::Result<()> {
    let mut w = csv::Writer::from_writer(Vec::new());
    for row in rows {
        w.serialize(row)?;
    }
    let bytes = w.into_inner()?;
    dred_core::io::write_atomic(path, &bytes)
        .map_err(|e| anyhow::anyhow!("writing {}: {e}", path.display()))
}
