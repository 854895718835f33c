//! `dredbench run`: every engine on the same program, EDB and update stream; models compared
//! after every batch; report, trace and outputs written on request.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use clap::Args;
use dred_core::{
    io, load_program, Batch, BatchReport, Edb, Engine, Model, Program, RequestedBatch, SourceFile,
    Symbols,
};

use crate::compare::describe_difference;
use crate::engines::EngineKind;
use crate::report::{ReportRow, TraceLine};
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
    #[arg(long, value_delimiter = ',', default_values_t = EngineKind::default_set())]
    pub engines: Vec<EngineKind>,
    /// Write the final model of each `.output` relation as `<relation>.csv` here.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Write one CSV row per engine per batch here.
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
    /// Dataset name in reports (default: the facts directory's name).
    #[arg(long)]
    pub dataset: Option<String>,
}

impl std::fmt::Display for EngineKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Everything read from the command's input files, checked.
#[derive(Debug)]
pub struct Inputs {
    /// The checked program.
    pub program: Arc<Program>,
    /// All symbols of program, facts and updates.
    pub symbols: Symbols,
    /// The initial EDB.
    pub edb: Edb,
    /// The update stream's batches, in order.
    pub batches: Vec<RequestedBatch>,
}

fn located(e: io::InputError) -> BadInput {
    match e {
        io::InputError::Syntax(d) => BadInput::Located(d.render()),
        other => BadInput::Other(other.to_string()),
    }
}

/// Reads and checks the program, facts and update stream; every error is bad input.
pub fn read_inputs(
    program: &Path,
    facts: &Path,
    updates: Option<&Path>,
) -> Result<Inputs, BadInput> {
    let text = std::fs::read_to_string(program)
        .map_err(|e| BadInput::Other(format!("{}: {e}", program.display())))?;
    let mut symbols = Symbols::new();
    let source = SourceFile::new(program.display().to_string(), text);
    let program =
        Arc::new(load_program(&source, &mut symbols).map_err(|d| BadInput::Located(d.render()))?);
    let edb = io::read_facts_dir(facts, &program, &mut symbols).map_err(located)?;
    let batches = match updates {
        Some(u) => io::read_updates(u, &program, &mut symbols).map_err(located)?,
        None => Vec::new(),
    };
    Ok(Inputs {
        program,
        symbols,
        edb,
        batches,
    })
}

struct Running {
    kind: EngineKind,
    engine: Box<dyn Engine>,
    model: Model,
}

fn stem(p: &Path) -> String {
    p.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default()
}

fn dataset_name(facts: &Path) -> String {
    let canonical = facts.canonicalize().unwrap_or_else(|_| facts.to_path_buf());
    let name = stem(&canonical);
    // `datasets/seed/facts` is named after `seed`, not after `facts`.
    if name == "facts" {
        canonical.parent().map(stem).unwrap_or(name)
    } else {
        name
    }
}

/// Runs the command; returns whether the engines agreed.
pub fn run(args: &RunArgs) -> anyhow::Result<Outcome> {
    let inputs = read_inputs(&args.program, &args.facts, args.updates.as_deref())?;
    let Inputs {
        program,
        symbols,
        mut edb,
        batches,
    } = inputs;
    let workers = args.workers as usize;
    let dataset = args
        .dataset
        .clone()
        .unwrap_or_else(|| dataset_name(&args.facts));
    let program_name = stem(&args.program);
    let mut kinds = Vec::new();
    for k in &args.engines {
        if !kinds.contains(k) {
            kinds.push(*k);
        }
    }
    if kinds.is_empty() {
        return Err(BadInput::Other("--engines names no engine".into()).into());
    }

    let mut rows: Vec<ReportRow> = Vec::new();
    let mut trace: Vec<TraceLine> = Vec::new();
    let mut running: Vec<Running> = Vec::new();
    let mut outcome = Outcome::Agree;

    let empty = Model::empty(&program);
    for &kind in &kinds {
        let mut engine = kind.build(program.clone(), workers);
        let t = Instant::now();
        let rep = engine
            .materialise(&edb)
            .map_err(|e| BadInput::Other(e.to_string()))?;
        let time_us = t.elapsed().as_micros() as u64;
        let model = engine.model();
        let row = row_for(
            &dataset,
            &program_name,
            kind,
            workers,
            0,
            &Batch::default(),
            &rep,
            &empty,
            &model,
            time_us,
        );
        rows.push(row);
        collect_trace(
            &mut trace,
            &program,
            &symbols,
            kind,
            0,
            &rep,
            args.trace_facts,
        );
        running.push(Running {
            kind,
            engine,
            model,
        });
    }
    if !check_agreement(&program, &symbols, &running, 0) {
        outcome = Outcome::Mismatch;
    }

    if outcome == Outcome::Agree {
        for (i, requested) in batches.iter().enumerate() {
            let batch_no = i + 1;
            let batch = Batch::normalise(requested, &edb);
            edb.apply(&batch);
            for r in &mut running {
                let t = Instant::now();
                let rep = r
                    .engine
                    .apply(&batch)
                    .map_err(|e| BadInput::Other(e.to_string()))?;
                let time_us = t.elapsed().as_micros() as u64;
                let model = r.engine.model();
                rows.push(row_for(
                    &dataset,
                    &program_name,
                    r.kind,
                    workers,
                    batch_no,
                    &batch,
                    &rep,
                    &r.model,
                    &model,
                    time_us,
                ));
                collect_trace(
                    &mut trace,
                    &program,
                    &symbols,
                    r.kind,
                    batch_no,
                    &rep,
                    args.trace_facts,
                );
                r.model = model;
            }
            if !check_agreement(&program, &symbols, &running, batch_no) {
                outcome = Outcome::Mismatch;
                break;
            }
        }
    }

    if let Some(path) = &args.report {
        let git_rev = crate::provenance::git_revision();
        let dataset_hash = crate::provenance::dataset_hash(&args.facts).unwrap_or_default();
        let stream = args.updates.as_deref().map(stem).unwrap_or_default();
        for row in &mut rows {
            row.git_rev.clone_from(&git_rev);
            row.dataset_hash.clone_from(&dataset_hash);
            row.stream.clone_from(&stream);
        }
        if outcome == Outcome::Mismatch {
            if let Some(last) = rows.last().map(|r| r.batch) {
                for row in rows.iter_mut().filter(|r| r.batch == last) {
                    row.error = Some(format!("mismatch: models differ after batch {last}"));
                }
            }
        }
        let mut w = csv::Writer::from_writer(Vec::new());
        for row in &rows {
            w.serialize(row)?;
        }
        let bytes = w.into_inner()?;
        io::write_atomic(path, &bytes)
            .map_err(|e| anyhow::anyhow!("writing {}: {e}", path.display()))?;
    }
    if let Some(path) = &args.trace {
        let mut text = String::new();
        for line in &trace {
            text.push_str(&serde_json::to_string(line)?);
            text.push('\n');
        }
        io::write_atomic(path, text.as_bytes())
            .map_err(|e| anyhow::anyhow!("writing {}: {e}", path.display()))?;
    }
    if let Some(dir) = &args.out {
        io::write_outputs(dir, &program, &running[0].model, &edb, &symbols)
            .map_err(|e| anyhow::anyhow!("{e}"))?;
    }
    let last = &running[0].model;
    let names: Vec<&str> = running.iter().map(|r| r.kind.name()).collect();
    if outcome == Outcome::Agree {
        eprintln!(
            "{} batch(es); engines {} agree after every batch; final IDB has {} fact(s)",
            batches.len(),
            names.join(", "),
            last.len()
        );
        for (rel, decl) in program.relations.iter().enumerate() {
            if program.is_idb(rel) && decl.output {
                eprintln!("  {}: {}", decl.name, last.relations[rel].len());
            }
        }
    }
    Ok(outcome)
}

/// Compares every engine with the first; prints each difference; true when all agree.
fn check_agreement(
    program: &Program,
    symbols: &Symbols,
    running: &[Running],
    batch: usize,
) -> bool {
    let mut agree = true;
    let first = &running[0];
    for other in &running[1..] {
        if let Some(diff) = describe_difference(
            program,
            symbols,
            first.kind.name(),
            &first.model,
            other.kind.name(),
            &other.model,
        ) {
            eprintln!(
                "MISMATCH after batch {batch}: engines `{}` and `{}` disagree\n{diff}",
                first.kind.name(),
                other.kind.name()
            );
            agree = false;
        }
    }
    agree
}

#[allow(clippy::too_many_arguments)]
fn row_for(
    dataset: &str,
    program: &str,
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
        dataset: dataset.to_string(),
        program: program.to_string(),
        engine: kind.name().to_string(),
        workers: kind.workers(workers),
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
        ..ReportRow::default()
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
            size: round.facts.len(),
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
