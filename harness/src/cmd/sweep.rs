//! `dredbench sweep`: datasets × programs × kinds of change × change sizes × seeds, every
//! engine on the same generated streams, models checked after every batch, one report.
//!
//! A case that fails (a model mismatch, an engine that refuses the program, a dataset that
//! cannot supply the changes) becomes rows with the `error` column set, and the sweep goes
//! on: one bad case never costs the others.

use std::path::{Path, PathBuf};

use clap::Args;
use dred_core::RequestedBatch;
use indicatif::{ProgressBar, ProgressStyle};

use crate::datasets;
use crate::engines::EngineKind;
use crate::report::ReportRow;
use crate::runner::{run_case, write_report, Case, Labels};
use crate::updates::{generate_stream, StreamSpec, UpdateKind};
use crate::Outcome;

/// Arguments of `dredbench sweep`.
#[derive(Debug, Clone, Args)]
pub struct SweepArgs {
    /// Datasets by name (see `dredbench datasets list`), comma-separated.
    #[arg(long, value_delimiter = ',', required = true)]
    pub datasets: Vec<String>,
    /// Program files, comma-separated.
    #[arg(long, value_delimiter = ',', required = true)]
    pub programs: Vec<PathBuf>,
    /// Kinds of change, comma-separated.
    #[arg(long, value_delimiter = ',', default_value = "delete,insert,mixed")]
    pub kinds: Vec<UpdateKind>,
    /// Changes per batch, comma-separated.
    #[arg(long, value_delimiter = ',', default_value = "1,10,100")]
    pub sizes: Vec<usize>,
    /// Stream seeds, comma-separated.
    #[arg(long, value_delimiter = ',', default_value = "1")]
    pub seeds: Vec<u64>,
    /// Batches per stream.
    #[arg(long, default_value_t = 20)]
    pub batches: usize,
    /// Engines, comma-separated; the first is the one the others are compared with.
    #[arg(long, value_delimiter = ',', default_value = "dred,dd,recompute")]
    pub engines: Vec<EngineKind>,
    /// Worker threads for engines that use them.
    #[arg(long, default_value_t = 1)]
    pub workers: usize,
    /// Follow every batch by its inverse, so every batch starts from the original EDB.
    #[arg(long)]
    pub revert: bool,
    /// The report CSV to write.
    #[arg(long)]
    pub report: PathBuf,
}

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

/// Every case of a sweep, in the order run.
pub fn plan(args: &SweepArgs) -> Vec<SweepCase> {
    let mut cases = Vec::new();
    for dataset in &args.datasets {
        for program in &args.programs {
            for &kind in &args.kinds {
                for &size in &args.sizes {
                    for &seed in &args.seeds {
                        cases.push(SweepCase {
                            dataset: dataset.clone(),
                            program: program.clone(),
                            spec: StreamSpec {
                                kind,
                                size,
                                batches: args.batches,
                                seed,
                                relation: None,
                                revert: args.revert,
                            },
                        });
                    }
                }
            }
        }
    }
    cases
}

fn stem(p: &Path) -> String {
    p.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// Runs one case; never fails: problems become rows with `error` set.
pub fn run_one(
    case: &SweepCase,
    engines: &[EngineKind],
    workers: usize,
    git_rev: &str,
    progress: &ProgressBar,
) -> Vec<ReportRow> {
    let labels = Labels {
        dataset: case.dataset.clone(),
        program: stem(&case.program),
        stream: format!(
            "{}-k{}-b{}-s{}{}",
            case.spec.kind.name(),
            case.spec.size,
            case.spec.batches,
            case.spec.seed,
            if case.spec.revert { "-revert" } else { "" }
        ),
        kind: case.spec.kind.name().to_string(),
        size: Some(case.spec.size),
        seed: Some(case.spec.seed),
        git_rev: git_rev.to_string(),
        dataset_hash: String::new(),
    };
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
    let inputs = match super::run::read_inputs(&case.program, &dir, None, None) {
        Ok(i) => i,
        Err(e) => return vec![error_row(&labels, format!("input: {e}"))],
    };
    let stream = match generate_stream(&inputs.program, &inputs.symbols, &inputs.edb, &case.spec) {
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
    };
    let program = inputs.program.clone();
    let cluster = dd_baseline::Cluster::single();
    let mut build = |k: EngineKind| k.build(program.clone(), workers, &cluster);
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

/// Runs every case of a sweep; returns all rows.
pub fn sweep(args: &SweepArgs, progress: &ProgressBar) -> Vec<ReportRow> {
    let git_rev = crate::provenance::git_revision();
    let mut rows = Vec::new();
    for case in plan(args) {
        progress.set_message(format!(
            "{} / {} / {} k={}",
            case.dataset,
            stem(&case.program),
            case.spec.kind.name(),
            case.spec.size
        ));
        rows.extend(run_one(
            &case,
            &args.engines,
            args.workers,
            &git_rev,
            progress,
        ));
    }
    rows
}

/// Runs the command: `Mismatch` (exit 1) when any case failed.
pub fn run(args: &SweepArgs) -> anyhow::Result<Outcome> {
    let cases = plan(args);
    let per_case = (args.batches * if args.revert { 2 } else { 1 } + 1) as u64;
    let progress = progress_bar(cases.len() as u64 * per_case);
    let rows = sweep(args, &progress);
    progress.finish_and_clear();
    write_report(&args.report, &rows)?;
    let failed: Vec<&ReportRow> = rows.iter().filter(|r| r.error.is_some()).collect();
    eprintln!(
        "{} case(s), {} row(s) written to {}; {} row(s) with an error",
        cases.len(),
        rows.len(),
        args.report.display(),
        failed.len()
    );
    for r in failed.iter().take(10) {
        eprintln!(
            "  {} / {} / {} engine {}: {}",
            r.dataset,
            r.program,
            r.stream,
            r.engine,
            r.error.as_deref().unwrap_or_default()
        );
    }
    Ok(if failed.is_empty() {
        Outcome::Agree
    } else {
        Outcome::Mismatch
    })
}
