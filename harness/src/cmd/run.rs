//! `dredbench run`: every engine on the same program, EDB and update stream; models compared
//! after every batch; report, trace and outputs written on request.

use std::path::PathBuf;

use clap::Args;
use dred_core::io;

use crate::engines::{EngineKind, EngineSpec};
use crate::inputs::{dataset_name, read_inputs, stem};
use crate::report::write_report;
use crate::runner::{run_case, Case, Check, EngineOrder, Labels, OrderMode};
use crate::{BadInput, Outcome};

/// Arguments of `dredbench run`.
#[derive(Debug, Clone, Args)]
pub struct RunArgs {
    /// The Datalog program (Soufflé subset).
    #[arg(long)]
    pub program: PathBuf,
    /// Directory with one `<relation>.facts` per `.input` relation.
    #[arg(long)]
    pub facts: PathBuf,
    /// Update stream; without it only the initial model is computed and compared.
    #[arg(long)]
    pub updates: Option<PathBuf>,
    /// Engines to run, comma-separated; the first one's model is written by `--out`.
    /// Default: every engine that supports the program, the slow `reference` and `oracle`
    /// only on small EDBs.
    /// `dred@2` (or `dred` twice) adds a second, independent `dred`: the A/A check.
    /// `ext:NAME` is an engine of the engines file (`--engines-file`), run as a child
    /// process over the engine protocol (docs/engine-protocol.md).
    #[arg(long, value_delimiter = ',')]
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
    /// Seconds past which an engine's batch is over the limit: its row records the limit
    /// (`time_limit_ns`) and the engine is not run on later batches (nothing is interrupted).
    #[arg(long, value_name = "SECONDS", value_parser = crate::runner::batch_limit_seconds)]
    pub batch_time_limit: Option<std::time::Duration>,
    /// The most rounds one stratum's fixpoint may take in the set-based engines and the
    /// oracle before the engine fails with an error naming the relations (exit 1):
    /// arithmetic in a recursive rule may derive new values without end. `dd` has no guard.
    #[arg(long, value_name = "N", default_value_t = dred_core::rounds::DEFAULT_MAX_ROUNDS,
          value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..))]
    pub max_rounds: usize,

    /// Write the final model of each `.output` relation as `<relation>.csv` here.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Write one CSV row per engine per batch here (gzipped when the name ends in `.gz`).
    #[arg(long)]
    pub report: Option<PathBuf>,
    /// Write one JSON line per round of each DRed phase here.
    #[arg(long)]
    pub trace: Option<PathBuf>,
    /// Include the facts of each round in the trace.
    #[arg(long, requires = "trace")]
    pub trace_facts: bool,
    /// Worker threads for engines that use them.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..=256))]
    pub workers: u64,
    /// Processes of a timely cluster for the `dd` engine; start the same command once per
    /// process, each with its own `--process`.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..=1024))]
    pub processes: u64,
    /// This process's index in the cluster, from 0.
    #[arg(long, default_value_t = 0)]
    pub process: u64,
    /// File whose first `--processes` lines are the processes' `host:port` addresses
    /// (default: localhost:2101, localhost:2102, …).
    #[arg(long)]
    pub hostfile: Option<PathBuf>,
    /// Maintain the magic-set rewrite of the program for this query (e.g. `path("a", y)`)
    /// instead of the whole program; `--out` then holds every generated IDB relation and the
    /// query's answers as `answers.csv`.
    #[arg(long)]
    pub query: Option<String>,
    /// Dataset name in reports (default: the facts directory's name).
    #[arg(long)]
    pub dataset: Option<String>,
    /// What is compared after each batch: `digest` (the default) compares whole models after
    /// materialisation and after the last batch, and each engine's model digest and net
    /// change after the batches in between; `full` compares whole models after every batch.
    #[arg(long, value_enum, default_value_t = Check::Digest)]
    pub check: Check,
}

/// Runs the command; returns whether the engines agreed.
pub fn run(args: &RunArgs) -> anyhow::Result<Outcome> {
    dred_core::rounds::set_max_rounds(args.max_rounds);
    let inputs = read_inputs(
        &args.program,
        &args.facts,
        args.updates.as_deref(),
        args.query.as_deref(),
    )?;
    let workers = args.workers as usize;
    let cluster = dd_baseline::Cluster::from_flags(
        args.processes as usize,
        args.process as usize,
        args.hostfile.as_deref(),
    )
    .map_err(|e| BadInput::Other(e.to_string()))?;
    let kinds = if args.engines.is_empty() {
        EngineSpec::of_kinds(&EngineKind::default_for(&inputs.program, inputs.edb.len()))
    } else {
        EngineSpec::distinct(&args.engines)
    };
    if kinds.is_empty() {
        return Err(BadInput::Other("--engines names no engine".into()).into());
    }
    crate::external::check_specs(&kinds)?;
    let labels = Labels {
        dataset: args
            .dataset
            .clone()
            .unwrap_or_else(|| dataset_name(&args.facts)),
        program: stem(&args.program),
        stream: args.updates.as_deref().map(stem).unwrap_or_default(),
        git_rev: crate::provenance::git_revision(),
        dataset_hash: crate::provenance::dataset_hash(&args.facts).unwrap_or_default(),
        ..Labels::default()
    };
    let case = Case {
        program: &inputs.program,
        symbols: &inputs.symbols,
        edb: &inputs.edb,
        batches: &inputs.batches,
        order: EngineOrder::for_case(args.order, &labels)
            .isolated(args.isolate)
            .repeated(args.repeat),
        labels,
        check: args.check,
        batch_limit: args.batch_time_limit,
    };
    let program = inputs.program.clone();
    let symbols = std::sync::Arc::new(inputs.symbols.clone());
    let mut build = |spec: EngineSpec| spec.build(program.clone(), &symbols, workers, &cluster);
    let outcome = match run_case(&case, &kinds, workers, &mut build, args.trace_facts, |_| {}) {
        Ok(outcome) => outcome,
        // The engine cannot run this program: the request is what must change.
        Err(e) if e.unsupported => return Err(BadInput::Other(e.to_string()).into()),
        Err(e) => {
            if let Some(path) = &args.report {
                write_report(path, &e.rows)?;
            }
            eprintln!("ENGINE FAILED: {e}");
            return Ok(Outcome::EngineFailed);
        }
    };

    if let Some(path) = &args.report {
        write_report(path, &outcome.rows)?;
    }
    if let Some(path) = &args.trace {
        let mut text = String::new();
        for line in &outcome.trace {
            text.push_str(&serde_json::to_string(line)?);
            text.push('\n');
        }
        io::write_atomic(path, text.as_bytes())
            .map_err(|e| anyhow::anyhow!("writing {}: {e}", path.display()))?;
    }
    // Engines past the per-batch limit were not run on later batches: say which, and when
    // none went to the end, write no outputs (they would not be the final model).
    let mut stopped: Vec<String> = outcome
        .rows
        .iter()
        .filter(|r| r.time_limit_ns.is_some())
        .map(|r| format!("{} after batch {}", r.engine, r.batch))
        .collect();
    stopped.dedup();
    let last_run = outcome.rows.iter().map(|r| r.batch).max().unwrap_or(0);
    if !stopped.is_empty() {
        let limit = args.batch_time_limit.unwrap_or_default().as_secs_f64();
        eprintln!(
            "OVER THE LIMIT of {limit} s a batch: {} (not run on later batches)",
            stopped.join(", ")
        );
    }
    if last_run < inputs.batches.len() && outcome.mismatch.is_none() {
        eprintln!(
            "ENGINE FAILED: every engine passed the per-batch time limit by batch {last_run} \
             of {}; no outputs written",
            inputs.batches.len()
        );
        return Ok(Outcome::EngineFailed);
    }
    if let Some(dir) = &args.out {
        io::write_outputs(dir, &program, &outcome.model, &outcome.edb, &inputs.symbols)
            .map_err(|e| anyhow::anyhow!("{e}"))?;
        if let Some(m) = &inputs.magic {
            let types = &m.program.relations[m.answer_rel].types;
            let answers = m.answers(&outcome.model);
            let mut text = String::new();
            for t in io::sorted_for_output(types, &answers, &inputs.symbols) {
                text.push_str(&io::format_tuple_raw(types, t, &inputs.symbols));
                text.push('\n');
            }
            let path = dir.join("answers.csv");
            io::write_atomic(&path, text.as_bytes())
                .map_err(|e| anyhow::anyhow!("writing {}: {e}", path.display()))?;
        }
    }
    if let Some(m) = &outcome.mismatch {
        eprintln!("MISMATCH {m}");
        return Ok(Outcome::Mismatch);
    }
    if let Some(m) = &inputs.magic {
        eprintln!(
            "query {}: {} answer(s)",
            m.query.text,
            m.answers(&outcome.model).len()
        );
    }
    let names: Vec<String> = kinds.iter().map(|k| k.name()).collect();
    eprintln!(
        "{} batch(es); engines {} agree after every batch; final IDB has {} fact(s)",
        inputs.batches.len(),
        names.join(", "),
        outcome.model.len()
    );
    for (rel, decl) in program.relations.iter().enumerate() {
        if program.is_idb(rel) && decl.output {
            eprintln!("  {}: {}", decl.name, outcome.model.relations[rel].len());
        }
    }
    Ok(Outcome::Agree)
}
