//! `dredbench sweep`: datasets × programs × kinds of change × change sizes × seeds, every
//! engine on the same generated streams, models checked after every batch, one report.
//!
//! A case that fails (a model mismatch, an engine that refuses the program, a dataset that
//! cannot supply the changes) becomes rows with the `error` column set, and the sweep goes
//! on: one bad case never costs the others.
//!
//! `--kinds version-edit` upgrades each dataset to the one `--to` names (one for the whole
//! sweep), `--batches` batches of each size at most; `--to` is checked before any case runs,
//! and a sweep with the kind but without `--to` (or the reverse) is refused (exit 2).

use std::path::PathBuf;

use clap::Args;
use indicatif::ProgressBar;

use crate::cases::{progress_bar, run_one, SweepCase};
use crate::engines::EngineSpec;
use crate::inputs::stem;
use crate::report::{write_report, ReportRow};
use crate::runner::{EngineOrder, OrderMode};
use crate::updates::{StreamSpec, UpdateKind};
use crate::{BadInput, Outcome};

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
    /// Batches per stream (`version-edit`: at most; its walk may end sooner).
    #[arg(long, default_value_t = 20)]
    pub batches: usize,
    /// Engines, comma-separated; the first is the one the others are compared with.
    /// `dred@2` (or `dred` twice) adds a second, independent `dred`: the A/A check.
    #[arg(long, value_delimiter = ',', default_value = "dred,bf,dd,recompute")]
    pub engines: Vec<EngineSpec>,
    /// The order of the engines on each batch: `shuffle` (a seeded random permutation per
    /// batch, the default), `rotate` (the listed order, rotated) or `listed`; the report's
    /// `position` column records it.
    #[arg(long, value_enum, default_value_t = OrderMode::Shuffle)]
    pub order: OrderMode,
    /// Before every timed call, untimed: write through 64 MiB and sort and hash a fixed
    /// array, so that each call starts from the same cold context whatever engine ran
    /// before it. Narrows the per-batch spread of µs batches about twofold
    /// (`results/clock/`); every time is then a cold call's, and each call costs about 10 ms
    /// more of wall time.
    #[arg(long)]
    pub isolate: bool,
    /// Runs each case this many times, its engines built afresh each time, and reports each
    /// batch's times as medians over the runs (the report's `repeats` column; `position` is
    /// then empty): a single call's time carries what the call before it left in the
    /// caches, which more calls average out only when every engine meets the same contexts
    /// (`results/clock/`). The runs place the engines by a Williams design: as many runs as
    /// engines (twice that when odd), or a multiple, put every engine at every place and
    /// right after every other equally often on every batch. Costs that many times the wall
    /// time; counters, memory and trace are the first run's.
    #[arg(long, value_name = "RUNS", default_value_t = 1,
          value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=99))]
    pub repeat: usize,
    /// Seconds past which an engine's batch is over the limit (see `run`).
    #[arg(long, value_name = "SECONDS", value_parser = crate::runner::batch_limit_seconds)]
    pub batch_time_limit: Option<std::time::Duration>,
    /// The most rounds one stratum's fixpoint may take (see `run`); a case that passes it
    /// is a failed row.
    #[arg(long, value_name = "N", default_value_t = dred_core::rounds::DEFAULT_MAX_ROUNDS,
          value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..))]
    pub max_rounds: usize,

    /// Worker threads for engines that use them.
    #[arg(long, default_value_t = 1)]
    pub workers: usize,
    /// Follow every batch by its inverse, so every batch starts from the original EDB.
    #[arg(long)]
    pub revert: bool,
    /// The `.input` relation the streams change (default: `edge` when the program has it,
    /// else its only `.input` relation; `function-edit`: every `.input` relation, and a name
    /// restricts it to that one); a report names it in `kind` (`delete:part_of`).
    #[arg(long)]
    pub relation: Option<String>,
    /// `version-edit`: the dataset of the version every dataset of the sweep is upgraded to
    /// (a name or a directory); the streams' names end in `-to-OTHER_DATASET`.
    #[arg(long, value_name = "OTHER_DATASET")]
    pub to: Option<String>,
    /// The report CSV to write (gzipped when the name ends in `.gz`).
    #[arg(long)]
    pub report: PathBuf,
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
                                relation: args.relation.clone(),
                                revert: args.revert,
                                to: if kind == UpdateKind::VersionEdit {
                                    args.to.clone()
                                } else {
                                    None
                                },
                            },
                        });
                    }
                }
            }
        }
    }
    cases
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
            &EngineSpec::distinct(&args.engines),
            EngineOrder {
                mode: args.order,
                isolate: args.isolate,
                repeats: args.repeat,
                ..EngineOrder::default()
            },
            args.workers,
            args.batch_time_limit,
            &git_rev,
            progress,
        ));
    }
    rows
}

/// Runs the command: `Mismatch` (exit 1) when any case failed.
pub fn run(args: &SweepArgs) -> anyhow::Result<Outcome> {
    dred_core::rounds::set_max_rounds(args.max_rounds);
    crate::external::check_specs(&args.engines)?;
    let version_edit = args.kinds.contains(&UpdateKind::VersionEdit);
    match (&args.to, version_edit) {
        (None, true) => {
            return Err(BadInput::Other(
                "--kinds version-edit needs --to OTHER_DATASET, the version to upgrade to".into(),
            )
            .into())
        }
        (Some(_), false) => {
            return Err(BadInput::Other("--to is for --kinds version-edit only".into()).into())
        }
        (Some(to), true) => {
            crate::datasets::resolve(to).map_err(|e| BadInput::Other(format!("--to {to}: {e}")))?;
        }
        (None, false) => {}
    }
    let cases = plan(args);
    let per_case = (args.batches * if args.revert { 2 } else { 1 } + 1) as u64 * args.repeat as u64;
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
