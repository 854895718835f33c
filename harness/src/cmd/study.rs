//! `dredbench study`: the main job. A fixed set of sweeps over the shipped and generated
//! datasets that runs in minutes on a 2-core machine, written to `results/<name>/`: the
//! report (`report.csv.gz`, gzipped CSV), the plots, and `summary.md` with the key table (per
//! dataset, program, kind and change size: median over-deleted / actually removed, and time
//! against recomputation).

use std::path::{Path, PathBuf};

use clap::Args;

use crate::cases::{progress_bar, run_one, SweepCase};
use crate::charts::plot_rows;
use crate::engines::{EngineKind, EngineSpec};
use crate::report::{report_in, write_report_with, Effort, ReportRow, PLAIN_REPORT, REPORT};
use crate::runner::{EngineOrder, OrderMode};
use crate::stats::{BIMODAL_RATIO, PERCENTILES_FROM};
use crate::summary::summary;
use crate::updates::{StreamSpec, UpdateKind};
use crate::Outcome;

/// Arguments of `dredbench study`.
#[derive(Debug, Clone, Args)]
pub struct StudyArgs {
    /// Output directory.
    #[arg(long, default_value = "results/study")]
    pub out: PathBuf,
    /// Batches per stream (default 21, or 11 with `--quick`: odd, so that a median is a
    /// batch's own figure; 21 gives p10 and p90 of their own).
    #[arg(long)]
    pub batches: Option<usize>,
    /// Also run on the fetched datasets (`dredbench datasets fetch NAME` first): the GO
    /// biological-process graph, WordNet hypernyms, Debian dependencies, C. elegans.
    #[arg(long)]
    pub with_fetched: bool,
    /// Engines compared; recomputation is always included as the line to beat.
    #[arg(long, value_delimiter = ',', default_value = "dred,bf,dd,recompute")]
    pub engines: Vec<EngineSpec>,
    /// Run no A/A pair. By default a second, independent `dred` (`dred@2`) runs beside the
    /// engines on every case (in `--full`, on the cases of 1 and 10 facts a batch), and the
    /// summary gives the ratio of the two per case: what the instrument reads when it
    /// compares a thing with itself, against which every other ratio is read.
    #[arg(long)]
    pub no_aa: bool,
    /// The order of the engines on each batch (`shuffle`, `rotate` or `listed`; see `run`).
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
    /// Default 1; with `--quick`, twice through that design (20 runs of its five engines).
    #[arg(long, value_name = "RUNS",
          value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=99))]
    pub repeat: Option<usize>,
    /// Seconds past which an engine's batch is over the limit (see `run`); with `--full` by
    /// default [`crate::full_study::BATCH_LIMIT_S`], none otherwise.
    #[arg(long, value_name = "SECONDS", value_parser = crate::runner::batch_limit_seconds)]
    pub batch_time_limit: Option<std::time::Duration>,
    /// The most rounds one stratum's fixpoint may take (see `run`); a case that passes it
    /// is a failed row.
    #[arg(long, value_name = "N", default_value_t = dred_core::rounds::DEFAULT_MAX_ROUNDS,
          value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..))]
    pub max_rounds: usize,
    /// Smaller study for CI: fewer datasets, sizes and batches.
    #[arg(long)]
    pub quick: bool,
    /// Write the report and the summary only, no plots (the regression baseline).
    #[arg(long)]
    pub no_plots: bool,
    /// The full study of the findings (`results/findings/`, an hour or more): every real
    /// graph, fetched on demand, the adversarial generators, eight programs over graphs, two
    /// non-recursive views, three program analyses of three crates, change sizes 1
    /// to 10,000, random and targeted changes (the plan: `harness/src/full_study.rs`).
    /// Resumable: a case whose rows are already in `<out>/report.csv.gz` (or, from an older
    /// revision, `<out>/report.csv`) is not run again, and the report is rewritten after
    /// every case. Also writes `<out>/datasets.csv`, the
    /// graphs' shapes, `<out>/workloads.csv`, the program analyses' shapes, and `<out>/runs.csv`, each invocation's wall time; no per-case plots
    /// (`dredbench findings` draws the findings' own). `--batches` and `--with-fetched` do
    /// not apply.
    #[arg(long, conflicts_with_all = ["quick", "batches", "with_fetched"])]
    pub full: bool,
}

/// One workload of the study: a dataset, the programs run on it, the kinds of change and the
/// change sizes.
type Workload = (String, Vec<&'static str>, Vec<UpdateKind>, Vec<usize>);

/// The study's workloads; every change size fits its dataset, so no case fails for want of
/// facts.
fn workloads(args: &StudyArgs) -> Vec<Workload> {
    use UpdateKind::*;
    let tc = "datasets/programs/tc_linear.dl";
    let reach = "datasets/programs/reach.dl";
    let magic = "datasets/programs/magic_path_source.dl";
    let reach_root = "datasets/programs/reach_root.dl";
    let mut w: Vec<Workload> = if args.quick {
        vec![
            // Nine edges: eleven single deletions would run out of facts.
            ("seed".into(), vec![tc, reach], vec![Insert, Mixed], vec![1]),
            (
                "gen:layered?layers=6&width=40&fanout=3&seed=1".into(),
                vec![tc, reach],
                vec![Delete, Mixed],
                vec![1, 10],
            ),
            (
                "gen:cliques?count=4&size=12&density=60&seed=1".into(),
                vec![tc],
                vec![SccDelete],
                vec![1, 10],
            ),
            // Cases whose batches take long enough (recomputation ≥ 200 µs) for the
            // regression gate's time ratios: a real graph, and the power-law DAG where one
            // deletion over-deletes much.
            (
                "go-cc".into(),
                vec![tc, reach],
                vec![Delete, Insert],
                vec![1, 10],
            ),
            (
                "gen:rmat?n=4096&m=16384&seed=1&dag=1".into(),
                vec![reach_root],
                vec![Delete],
                vec![1],
            ),
        ]
    } else {
        let mut w = vec![
            // Nine edges: ten single deletions would run out of facts.
            ("seed".into(), vec![tc, reach], vec![Insert, Mixed], vec![1]),
            (
                "go-cc".into(),
                vec![tc, reach, magic],
                vec![Delete, Insert, Mixed, BridgeDelete],
                vec![1, 10, 100],
            ),
            (
                "go-mf".into(),
                vec![tc, reach, magic],
                vec![Delete, Insert, Mixed],
                vec![1, 10, 100],
            ),
            (
                "gen:layered".into(),
                vec![tc, reach],
                vec![Delete, Insert, Mixed],
                vec![1, 10, 100],
            ),
            // The source n0 reaches every node, so the demand is the whole graph and the
            // query-driven program computes the non-linear closure: insertions close cycles
            // across layers and make it take minutes and gigabytes per stream. Deletions only,
            // on the same streams as tc_linear and reach above.
            (
                "gen:layered".into(),
                vec![magic],
                vec![Delete],
                vec![1, 10, 100],
            ),
            (
                "gen:rmat?n=1024&m=3072&seed=1".into(),
                vec![reach],
                vec![Delete, Insert, SccDelete],
                vec![1, 10, 100],
            ),
            // About 1,400 edges: 21 batches of 100 deletions would run out of facts, so the
            // large change is 40 edges a batch.
            (
                "gen:cliques?count=6&size=20&density=60&seed=1".into(),
                vec![tc, reach, magic],
                vec![Delete, SccDelete],
                vec![1, 10, 40],
            ),
        ];
        // Reachability towards the root of a power-law DAG at four sizes, single-edge
        // deletions: what one deletion over-deletes grows with the graph, and `dred`'s time
        // with it, while `dd`'s stays flat (results/LOG.md, session 13: a sixth of
        // the model at 65,536 nodes, and 9-43 times `dd`'s time, on reverted streams).
        for n in [4096, 16384, 65536, 262144] {
            w.push((
                format!("gen:rmat?n={n}&m={}&seed=1&dag=1", 4 * n),
                vec![reach_root],
                vec![Delete],
                vec![1],
            ));
        }
        w
    };
    if args.with_fetched {
        for d in ["go-bp", "wordnet", "celegans", "debian-deps"] {
            w.push((
                d.into(),
                vec![reach, tc],
                vec![Delete, Insert, Mixed],
                vec![1, 10, 100],
            ));
        }
    }
    w
}

/// A workload that changes one named `.input` relation: dataset, program, relation, kinds
/// and change sizes.
type RelationWorkload = (
    &'static str,
    &'static str,
    &'static str,
    Vec<UpdateKind>,
    Vec<usize>,
);

/// The fetched workloads with negation and aggregation (`--with-fetched`): GO term statistics
/// under changes of `edge` and of `part_of`, Debian installability under changes of
/// dependencies, conflicts and packages. `package` is only deleted: every name a random
/// insertion could draw is a package already.
fn relation_workloads(args: &StudyArgs) -> Vec<RelationWorkload> {
    use UpdateKind::*;
    if !args.with_fetched || args.quick {
        return Vec::new();
    }
    let go = "datasets/programs/go_terms.dl";
    let debian = "datasets/programs/installable.dl";
    vec![
        ("go-bp", go, "edge", vec![Delete, Insert], vec![1, 10, 100]),
        ("go-bp", go, "part_of", vec![Delete, Insert], vec![1, 10]),
        (
            "debian-deps",
            debian,
            "edge",
            vec![Delete, Insert],
            vec![1, 10, 100],
        ),
        (
            "debian-deps",
            debian,
            "conflicts",
            vec![Delete, Insert],
            vec![1, 10, 100],
        ),
        ("debian-deps", debian, "package", vec![Delete], vec![1, 10]),
    ]
}

/// The cases of the quick or default study.
fn planned_cases(args: &StudyArgs, batches: usize) -> Vec<SweepCase> {
    let mut cases = Vec::new();
    let named = relation_workloads(args)
        .into_iter()
        .map(|(d, p, rel, k, s)| {
            let relation = (rel != "edge").then(|| rel.to_string());
            (d.to_string(), vec![p], k, s, relation)
        });
    let plain = workloads(args)
        .into_iter()
        .map(|(d, p, k, s)| (d, p, k, s, None));
    for (dataset, programs, kinds, sizes, relation) in plain.chain(named) {
        for program in programs {
            for &kind in &kinds {
                for &size in &sizes {
                    // Random insertions accumulate: 21 batches of 100 random edges close
                    // cycles across an ontology and grow its closure past 4 GB (GO CC, seen);
                    // 10 batches of 100 (the study before 21 batches) or 21 of 10 stay small.
                    if !args.quick
                        && matches!(kind, UpdateKind::Insert | UpdateKind::Mixed)
                        && size * batches > 1000
                    {
                        continue;
                    }
                    cases.push(SweepCase {
                        dataset: dataset.clone(),
                        program: PathBuf::from(program),
                        spec: StreamSpec {
                            kind,
                            size,
                            batches,
                            seed: 1,
                            relation: relation.clone(),
                            // The quick study's streams are reverted: every batch starts
                            // from the original EDB, so a small dataset gives as many
                            // batches as the A/A check and the gate need.
                            revert: args.quick,
                            to: None,
                        },
                    });
                }
            }
        }
    }
    cases
}

/// The key a case's rows carry: dataset, program stem and stream label.
fn case_key(case: &SweepCase) -> (String, String, String) {
    let labels = crate::cases::labels_of(case, "");
    (labels.dataset, labels.program, labels.stream)
}

/// The cases none of whose rows are in `rows` (a resumed study runs only these), in order.
fn not_in_report<'c>(
    cases: &'c [SweepCase],
    rows: &[crate::report::ReportRow],
) -> Vec<&'c SweepCase> {
    let done: std::collections::HashSet<(String, String, String)> = rows
        .iter()
        .map(|r| (r.dataset.clone(), r.program.clone(), r.stream.clone()))
        .collect();
    cases
        .iter()
        .filter(|c| !done.contains(&case_key(c)))
        .collect()
}

/// Installs the fetched datasets the full study uses that are not installed yet.
fn fetch_missing() -> anyhow::Result<()> {
    let loc = crate::datasets::Locations::from_env();
    for name in crate::full_study::FETCHED {
        if crate::datasets::resolve_in(name, &loc).is_err() {
            eprintln!("study --full: fetching {name} (dredbench datasets fetch {name})");
            let fetched = if crate::datasets::nll::is_nll_name(name) {
                crate::datasets::nll::fetch(name, &loc, None).map(|_| ())
            } else if crate::datasets::mir::is_mir_name(name) {
                crate::datasets::mir::fetch(name, &loc, None).map(|_| ())
            } else {
                crate::datasets::fetch(name, &loc, None).map(|_| ())
            };
            fetched.map_err(|e| anyhow::anyhow!("fetching {name}: {e}"))?;
        }
    }
    Ok(())
}

/// Measures the shape of every dataset of `cases` into `<out>/datasets.csv`.
fn write_shapes(cases: &[SweepCase], out: &std::path::Path) -> anyhow::Result<()> {
    let mut names: Vec<&str> = cases.iter().map(|c| c.dataset.as_str()).collect();
    names.dedup();
    let mut seen = std::collections::HashSet::new();
    let mut w = csv::Writer::from_writer(Vec::new());
    for name in names {
        if !seen.insert(name) {
            continue;
        }
        let dir = crate::datasets::resolve(name).map_err(|e| anyhow::anyhow!("{name}: {e}"))?;
        if !dir.join("edge.facts").is_file() {
            // A program analysis's facts: not a graph, no graph shape (`workloads.csv`).
            continue;
        }
        let graph =
            crate::datasets::load::read_graph(&dir).map_err(|e| anyhow::anyhow!("{name}: {e}"))?;
        w.serialize(crate::datasets::shape::shape(name, &graph))?;
    }
    let path = out.join("datasets.csv");
    dred_core::io::write_atomic(&path, &w.into_inner()?)
        .map_err(|e| anyhow::anyhow!("writing {}: {e}", path.display()))
}

/// The file of the workload shapes, beside the report.
pub const WORKLOADS: &str = "workloads.csv";

/// How many times the quick study runs through the Williams design of its engines
/// ([`EngineOrder::balanced_runs`]) unless `--repeat` says otherwise.
pub const QUICK_DESIGN_PASSES: usize = 2;

/// Measures every (dataset, program) of `cases` whose dataset is not a graph — the program
/// analyses — into `<out>/workloads.csv` ([`crate::datasets::workload`]): one evaluation
/// from scratch each, seconds on the largest crate.
fn write_workloads(cases: &[SweepCase], out: &std::path::Path) -> anyhow::Result<()> {
    let mut seen = std::collections::HashSet::new();
    let mut w = csv::Writer::from_writer(Vec::new());
    for case in cases {
        if !seen.insert((case.dataset.as_str(), case.program.as_path())) {
            continue;
        }
        let name = case.dataset.as_str();
        let dir = crate::datasets::resolve(name).map_err(|e| anyhow::anyhow!("{name}: {e}"))?;
        if dir.join("edge.facts").is_file() {
            continue;
        }
        w.serialize(crate::datasets::workload::measure(
            name,
            &case.program,
            &dir,
        )?)?;
    }
    let path = out.join(WORKLOADS);
    dred_core::io::write_atomic(&path, &w.into_inner()?)
        .map_err(|e| anyhow::anyhow!("writing {}: {e}", path.display()))
}

/// One invocation of a full study, as `<out>/runs.csv` records it: a resumed study's wall
/// time is the sum over its invocations.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Invocation {
    /// Revision of the binary.
    pub git_rev: String,
    /// Cases this invocation ran.
    pub cases_run: usize,
    /// Its wall time, seconds (fetching and measuring the graphs included).
    pub seconds: f64,
}

/// Appends this invocation to `<out>/runs.csv` (rewritten atomically); returns the seconds
/// of every invocation so far.
fn record_invocation(
    out: &std::path::Path,
    git_rev: &str,
    cases_run: usize,
    seconds: f64,
) -> anyhow::Result<f64> {
    let path = out.join("runs.csv");
    let mut runs: Vec<Invocation> = if path.exists() {
        csv::Reader::from_path(&path)?
            .deserialize()
            .collect::<Result<_, _>>()
            .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?
    } else {
        Vec::new()
    };
    runs.push(Invocation {
        git_rev: git_rev.to_string(),
        cases_run,
        seconds,
    });
    let mut w = csv::Writer::from_writer(Vec::new());
    for r in &runs {
        w.serialize(r)?;
    }
    dred_core::io::write_atomic(&path, &w.into_inner()?)
        .map_err(|e| anyhow::anyhow!("writing {}: {e}", path.display()))?;
    Ok(runs.iter().map(|r| r.seconds).sum())
}

/// The second instance the study runs beside the engines: `dred@2`, the A/A check.
pub const AA_PAIR: EngineSpec = EngineSpec {
    kind: EngineKind::Dred,
    instance: 2,
    external: None,
};

/// Whether the study runs the A/A pair on `case`: on every case, but in the full study only
/// on changes of 1 and 10 facts (the batches of a few µs, where the order of the engines
/// weighed most, at a quarter of `dred`'s time in the study).
fn has_aa_pair(case: &SweepCase, full: bool) -> bool {
    !full || case.spec.size <= 10
}

/// Writes `rows` to `<out>/report.csv.gz`, atomically, and then removes a plain
/// `<out>/report.csv` that it supersedes (in a full study its rows were read and are among
/// those written; in another study it is an earlier run's output), so that the folder never
/// holds two reports that disagree. A crash between the two steps leaves both, and
/// [`report_in`] then reads the gzipped one.
fn save_report(out: &Path, rows: &[ReportRow], effort: Effort) -> anyhow::Result<()> {
    let report = out.join(REPORT);
    write_report_with(&report, rows, effort)?;
    let plain = out.join(PLAIN_REPORT);
    if plain.exists() {
        std::fs::remove_file(&plain)
            .map_err(|e| anyhow::anyhow!("removing {}: {e}", plain.display()))?;
        eprintln!(
            "study: removed {}, superseded by {}",
            plain.display(),
            report.display()
        );
    }
    Ok(())
}

/// Runs the study and writes its results.
pub fn run(args: &StudyArgs) -> anyhow::Result<Outcome> {
    dred_core::rounds::set_max_rounds(args.max_rounds);
    crate::external::check_specs(&args.engines)?;
    let started = std::time::Instant::now();
    let mut engines = EngineSpec::distinct(&args.engines);
    if !engines.iter().any(|e| e.kind == EngineKind::Recompute) {
        engines.push(EngineSpec::of(EngineKind::Recompute));
    }
    // The A/A pair: unless asked for none, or the engines hold a second instance already.
    let with_aa = {
        let mut v = engines.clone();
        if !args.no_aa && !engines.iter().any(|e| e.instance > 1) {
            v.push(AA_PAIR);
        }
        v
    };
    let batches = args.batches.unwrap_or(if args.quick { 25 } else { 21 });
    // The quick study runs each case twice through the balanced design of its engines
    // (20 runs of its five engines, about 85 s instead of 4): the A/A check's per-batch
    // spread, the regression gate's noise floor, narrows to what `results/clock/` gives
    // (once through it, one case in six studies kept a p10 of 0.77).
    // The A/A pair runs beside the engines on the cases `has_aa_pair` picks.
    let engines_of = |case: &SweepCase| {
        if has_aa_pair(case, args.full) {
            &with_aa
        } else {
            &engines
        }
    };
    let repeats_of = |engines: usize| {
        args.repeat.unwrap_or(if args.quick {
            QUICK_DESIGN_PASSES * EngineOrder::balanced_runs(engines)
        } else {
            1
        })
    };
    let cases = if args.full {
        crate::full_study::full_cases()
    } else {
        planned_cases(args, batches)
    };
    std::fs::create_dir_all(&args.out)?;
    // The machine's calibration first, on a machine not yet warmed by the cases.
    let calibration = crate::calibration::measure(crate::calibration::RUNS)?;
    calibration.write(&args.out)?;
    eprintln!("study: {}", calibration.line());
    // Every study writes its report gzipped: the studies that are kept (`results/study/`,
    // `results/baseline/`, `results/findings/`) run to 1 to 12 MB as text, a tenth of that
    // gzipped, and one name for every study's report is what a script can rely on.
    let report = args.out.join(REPORT);
    // A full study resumes: the rows of the cases already run are kept, and those cases
    // are not run again; a folder of an older revision holds them as plain `report.csv`.
    let previous = report_in(&args.out);
    let mut rows = if args.full && previous.exists() {
        crate::report::read_report(&previous)?
    } else {
        Vec::new()
    };
    let save = |rows: &[ReportRow], effort: Effort| save_report(&args.out, rows, effort);
    if args.full {
        fetch_missing()?;
        write_shapes(&cases, &args.out)?;
        write_workloads(&cases, &args.out)?;
    }
    let to_run = not_in_report(&cases, &rows);
    if args.full {
        eprintln!(
            "study --full: {} case(s), {} already in {}, {} to run",
            cases.len(),
            cases.len() - to_run.len(),
            previous.display(),
            to_run.len()
        );
    }
    let total: u64 = to_run
        .iter()
        .map(|c| {
            ((c.spec.batches * if c.spec.revert { 2 } else { 1 }) as u64 + 1)
                * repeats_of(engines_of(c).len()) as u64
        })
        .sum();
    let progress = progress_bar(total);
    let git_rev = crate::provenance::git_revision();
    let ran = to_run.len();
    let batch_limit = args.batch_time_limit.or(args
        .full
        .then(|| std::time::Duration::from_secs(crate::full_study::BATCH_LIMIT_S)));
    for case in to_run {
        progress.set_message(format!(
            "{} / {} / {} k={}",
            case.dataset,
            case.program.display(),
            case.spec.kind.name(),
            case.spec.size
        ));
        let case_engines = engines_of(case);
        rows.extend(run_one(
            case,
            case_engines,
            EngineOrder {
                mode: args.order,
                isolate: args.isolate,
                repeats: repeats_of(case_engines.len()),
                ..EngineOrder::default()
            },
            1,
            batch_limit,
            &git_rev,
            &progress,
        ));
        if args.full {
            // Rewritten after every case, so that an interrupted study loses one case at
            // most; compressed fast, since this runs hundreds of times on a report that
            // grows to 12 MB.
            save(&rows, Effort::Fast)?;
        }
    }
    progress.finish_and_clear();
    save(&rows, Effort::Best)?;
    // A full study's time is that of all its invocations.
    let seconds = if args.full {
        record_invocation(&args.out, &git_rev, ran, started.elapsed().as_secs_f64())?
    } else {
        started.elapsed().as_secs_f64()
    };
    // The full study's plots are the findings' (`dredbench findings`), not one pair of
    // charts per dataset and program (14 MB of them).
    let plots = if args.no_plots || args.full {
        Vec::new()
    } else {
        plot_rows(&rows, &args.out.join("plots"), "recompute")?
    };
    let failed = rows.iter().filter(|r| r.error.is_some()).count();
    let order = format!("{:?}", args.order).to_lowercase();
    // The full study draws no per-case plots: `dredbench findings` draws its own.
    let plots_hint = if args.full {
        "`dredbench findings`: `results/findings/plots/`"
    } else {
        "`deletion_cost_*`"
    };
    let mut md =
        format!(
        "# dredbench study\n\nRevision `{git_rev}`, {} case(s), {} batch(es) each, engines {}; \
         {:.0} s on this machine{}. Rows with an error: {failed}.\n\n\
         Each cell is a median over the case's batches followed by its spread in brackets: \
         p10 and p90 when the case has at least {PERCENTILES_FROM} batches, else the minimum \
         and the maximum. ‼ marks a bimodal case (the bracket's ends more than \
         {BIMODAL_RATIO:.0}× apart): its median may match no batch, so look at its per-batch \
         plot ({plots_hint}). Times are µs per batch, measured side by side in one run. \
         `recompute / X, per batch` is the median over batches of recomputation's time divided \
         by X's on the same batch (a median of per-batch ratios, not a ratio of medians). \
         `over-deleted / removed` is DRed's over-deleted IDB facts divided by the IDB facts the \
         batch really removed (a batch that removed nothing counts as 1), over the batches on \
         which `dred` did not saturate (a saturated batch recomputed the level and counts all \
         of it); `bf deleted / \
         removed` the same for the facts Backward/Forward deleted. The engines process every \
         batch in the order `--order {order}` gives (`shuffle`, the default: a seeded random \
         permutation per batch; the report's `position` column says where each ran){}{}. \
         `A/A dred@2 / dred` is the A/A check: a second, independent `dred` beside the first, the median over batches of its time divided by the first's with \
         p10 and p90 by nearest rank; ⚠ marks a case whose A/A median leaves [0.9, 1.1] (the \
         instrument does not resolve that case's ratios), and its ratio cells with it.\n\n",
        cases.len(),
        if args.full {
            "5 or 11 (reverted)".to_string()
        } else if args.quick {
            format!("{batches} forward, each followed by its inverse,")
        } else {
            batches.to_string()
        },
        engines.iter().map(|e| e.name()).collect::<Vec<_>>().join(", "),
        seconds,
        if args.full {
            " (every invocation of the resumable study, `runs.csv`)"
        } else {
            ""
        },
        if args.isolate {
            ", and every timed call follows a 64 MiB write and a fixed sort-and-hash \
             (`--isolate`): every time is a cold call's"
        } else {
            ""
        },
        match args.repeat {
            Some(1) => String::new(),
            None if !args.quick => String::new(),
            Some(n) => format!(
                "; every case ran {n} times, its engines built afresh each time and placed \
                 so that each holds every place and follows every other equally often over \
                 the runs, and a batch's time is the median of its {n} calls (`--repeat`; \
                 `position` is then empty)"
            ),
            None => format!(
                "; every case ran {QUICK_DESIGN_PASSES} times through a Williams design of its \
                 engines (as many runs as engines, twice that when odd), its engines built \
                 afresh each time, so that each holds every place and follows every other \
                 equally often on every batch, and a batch's time is the median of its calls \
                 (`--repeat`; `position` is then empty)"
            ),
        }
    );
    md.push_str(&calibration.line());
    md.push_str("\n\n");
    md.push_str(&summary(&rows));
    md.push_str(if args.full {
        "\nPlots: `dredbench findings` draws them, into `plots/`."
    } else if plots.is_empty() {
        "\nPlots: none (`--no-plots`)."
    } else {
        "\nPlots: "
    });
    md.push_str(
        &plots
            .iter()
            .filter(|p| p.extension().is_some_and(|e| e == "png"))
            .filter_map(|p| {
                p.file_name()
                    .map(|n| format!("[{0}](plots/{0})", n.to_string_lossy()))
            })
            .collect::<Vec<_>>()
            .join(", "),
    );
    md.push('\n');
    let summary_path = args.out.join("summary.md");
    dred_core::io::write_atomic(&summary_path, md.as_bytes())?;
    eprintln!(
        "study: {} case(s) in {:.0} s; wrote {}, {} and {} plot file(s) under {}",
        cases.len(),
        started.elapsed().as_secs_f64(),
        report.display(),
        summary_path.display(),
        plots.len(),
        args.out.display()
    );
    Ok(if failed == 0 {
        Outcome::Agree
    } else {
        Outcome::Mismatch
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A resumed study skips exactly the cases whose rows its report holds: rows are matched
    /// by dataset, program stem and stream label, which names kind, relation, size, batches,
    /// seed and revert.
    #[test]
    fn a_resumed_study_runs_only_the_cases_not_in_its_report() {
        let cases = crate::full_study::full_cases();
        let row_of = |c: &SweepCase| {
            let l = crate::cases::labels_of(c, "r");
            ReportRow {
                dataset: l.dataset,
                program: l.program,
                stream: l.stream,
                engine: "dred".into(),
                ..ReportRow::default()
            }
        };
        // Every other case done (one row is enough).
        let rows: Vec<ReportRow> = cases.iter().step_by(2).map(row_of).collect();
        let left = not_in_report(&cases, &rows);
        assert_eq!(left.len(), cases.len() / 2);
        assert!(left
            .iter()
            .zip(cases.iter().skip(1).step_by(2))
            .all(|(a, b)| std::ptr::eq(*a, b)));
        // A row of another size, relation or batch count is another case.
        let mut other = row_of(&cases[1]);
        other.stream = other.stream.replace("-b11-", "-b12-");
        assert_eq!(not_in_report(&cases[1..2], &[other]).len(), 1);
        assert!(not_in_report(&cases, &cases.iter().map(row_of).collect::<Vec<_>>()).is_empty());
    }

    /// A study folder of an older revision resumes from its plain `report.csv`; the first
    /// save writes `report.csv.gz` with those rows and the new ones, and removes the plain
    /// report, so the next resumption reads the gzipped one alone.
    #[test]
    fn a_plain_report_is_resumed_from_and_replaced_by_the_gzipped_one() {
        let dir = tempfile::tempdir().expect("tempdir");
        let row = |batch: usize| ReportRow {
            dataset: "d".into(),
            program: "p".into(),
            engine: "dred".into(),
            batch,
            ..ReportRow::default()
        };
        let old = vec![row(0), row(1)];
        crate::report::write_report(&dir.path().join(PLAIN_REPORT), &old).expect("plain");
        let previous = report_in(dir.path());
        assert_eq!(previous, dir.path().join(PLAIN_REPORT));
        let mut rows = crate::report::read_report(&previous).expect("resumes");
        assert_eq!(rows, old);
        rows.push(row(2));
        save_report(dir.path(), &rows, Effort::Fast).expect("save");
        assert!(!dir.path().join(PLAIN_REPORT).exists(), "superseded");
        assert_eq!(report_in(dir.path()), dir.path().join(REPORT));
        assert_eq!(
            crate::report::read_report(&dir.path().join(REPORT)).expect("reads"),
            rows
        );
        // Saving again with nothing plain beside it is a plain rewrite.
        save_report(dir.path(), &rows, Effort::Best).expect("save");
        assert_eq!(
            crate::report::read_report(&report_in(dir.path())).expect("reads"),
            rows
        );
    }
}
