//! One case of a sweep or of the study run end to end: a dataset by name, a program file and
//! a generated update stream ([`SweepCase`]), every engine on the same stream with models
//! checked after every batch ([`run_one`]). A case never aborts its caller: a dataset that
//! cannot be resolved, bad input, a stream the dataset cannot supply, a model mismatch or an
//! engine's failure become report rows with the `error` column set. Also the progress bar
//! both commands show ([`progress_bar`]).

use std::path::PathBuf;

use dred_core::RequestedBatch;
use indicatif::{ProgressBar, ProgressStyle};

use crate::datasets;
use crate::engines::EngineSpec;
use crate::inputs::{read_inputs, stem};
use crate::report::ReportRow;
use crate::runner::{run_case, Case, EngineOrder, Labels};
use crate::updates::{generate_stream_reading, StreamSpec};

/// One planned case of a sweep.
#[derive(Clone, Debug)]
pub struct SweepCase {
    /// Dataset name.
    pub dataset: String,
    /// Program file.
    pub program: PathBuf,
    /// What the stream changes.
    pub spec: StreamSpec,
}

/// The labels of a case's report rows (its dataset hash left empty): the stream label names
/// kind, size, batch count, seed and revert, and a stream of another relation than the
/// default names it (`delete:part_of`); a version edit's ends in `-to-` and the dataset
/// upgraded to.
pub fn labels_of(case: &SweepCase, git_rev: &str) -> Labels {
    let kind = match &case.spec.relation {
        Some(rel) => format!("{}:{rel}", case.spec.kind.name()),
        None => case.spec.kind.name().to_string(),
    };
    Labels {
        dataset: case.dataset.clone(),
        program: stem(&case.program),
        stream: format!(
            "{}-k{}-b{}-s{}{}{}",
            kind,
            case.spec.size,
            case.spec.batches,
            case.spec.seed,
            if case.spec.revert { "-revert" } else { "" },
            match &case.spec.to {
                Some(to) => format!("-to-{to}"),
                None => String::new(),
            }
        ),
        kind,
        size: Some(case.spec.size),
        seed: Some(case.spec.seed),
        git_rev: git_rev.to_string(),
        dataset_hash: String::new(),
    }
}

/// Runs one case, the engines in `order`'s mode on each batch (its seed is the case's own); never fails: problems become rows
/// with `error` set.
pub fn run_one(
    case: &SweepCase,
    engines: &[EngineSpec],
    order: EngineOrder,
    workers: usize,
    batch_limit: Option<std::time::Duration>,
    git_rev: &str,
    progress: &ProgressBar,
) -> Vec<ReportRow> {
    let labels = labels_of(case, git_rev);
    let error_row = |labels: &Labels, message: String| ReportRow {
        dataset: labels.dataset.clone(),
        program: labels.program.clone(),
        stream: labels.stream.clone(),
        kind: labels.kind.clone(),
        size: labels.size,
        seed: labels.seed,
        git_rev: labels.git_rev.clone(),
        dataset_hash: labels.dataset_hash.clone(),
        error: Some(message),
        ..ReportRow::default()
    };
    let dir = match datasets::resolve(&case.dataset) {
        Ok(d) => d,
        Err(e) => return vec![error_row(&labels, format!("dataset: {e}"))],
    };
    let mut labels = labels;
    labels.dataset_hash = crate::provenance::dataset_hash(&dir).unwrap_or_default();
    let mut inputs = match read_inputs(&case.program, &dir, None, None) {
        Ok(i) => i,
        Err(e) => return vec![error_row(&labels, format!("input: {e}"))],
    };
    // A version edit reads the other version's facts into the case's symbols.
    let stream = match generate_stream_reading(
        &inputs.program,
        &mut inputs.symbols,
        &inputs.edb,
        &case.spec,
        &|name| datasets::resolve(name).map_err(|e| e.to_string()),
    ) {
        Ok(s) => s,
        Err(e) => return vec![error_row(&labels, format!("stream: {e}"))],
    };
    let batches: Vec<RequestedBatch> = stream.requested_batches();
    let run = Case {
        program: &inputs.program,
        symbols: &inputs.symbols,
        edb: &inputs.edb,
        batches: &batches,
        labels: labels.clone(),
        check: crate::runner::Check::Digest,
        order: EngineOrder::for_case(order.mode, &labels)
            .isolated(order.isolate)
            .repeated(order.repeats),
        batch_limit,
    };
    let program = inputs.program.clone();
    let cluster = dd_baseline::Cluster::single();
    let symbols = std::sync::Arc::new(inputs.symbols.clone());
    let mut build = |spec: EngineSpec| spec.build(program.clone(), &symbols, workers, &cluster);
    match run_case(&run, engines, workers, &mut build, false, |_| {
        progress.inc(1)
    }) {
        Ok(outcome) => {
            if let Some(m) = &outcome.mismatch {
                progress.println(format!(
                    "MISMATCH in {} / {} / {}: {}",
                    labels.dataset,
                    labels.program,
                    labels.stream,
                    m.lines().next().unwrap_or_default()
                ));
            }
            outcome.rows
        }
        Err(failure) => {
            let mut rows = failure.rows.clone();
            let mut row = error_row(&labels, failure.to_string());
            row.engine = failure.engine.clone();
            rows.push(row);
            rows
        }
    }
}

/// A progress bar over `total` batches with an estimate of the time left.
pub fn progress_bar(total: u64) -> ProgressBar {
    let bar = ProgressBar::new(total);
    bar.set_style(
        ProgressStyle::with_template(
            "{spinner} [{elapsed_precise}] {bar:30} {pos}/{len} batches, ~{eta} left  {msg}",
        )
        .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    bar
}
