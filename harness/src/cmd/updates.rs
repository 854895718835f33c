//! `dredbench updates`: a seeded update stream generated from a dataset — uniform deletions,
//! insertions or a mix, or targeted deletions (inside the largest strongly connected
//! component; edges that are the only path between their ends) — in the update-stream format
//! of SPEC §2, ready for `dredbench run --updates`.

use std::path::PathBuf;

use clap::Args;
use dred_core::{io, load_program, SourceFile, Symbols};

use crate::datasets::{self, load::GRAPH_DECLS, DatasetError, Locations};
use crate::updates::{generate_stream, render, StreamSpec, UpdateKind};
use crate::{BadInput, Outcome};

/// Arguments of `dredbench updates`.
#[derive(Debug, Clone, Args)]
pub struct UpdatesArgs {
    /// The dataset: a name from `dredbench datasets list`, `gen:KIND?key=value&…`,
    /// `snap:PATH`, or a directory of `.facts` files.
    #[arg(long)]
    pub dataset: String,
    /// A program declaring the EDB relations to read (default: `edge(x: symbol, y: symbol)`
    /// only). The stream changes one of its `.input` relations.
    #[arg(long)]
    pub program: Option<PathBuf>,
    /// What each batch changes.
    #[arg(long, value_enum)]
    pub kind: UpdateKind,
    /// Changes per batch (k).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..))]
    pub size: u64,
    /// Number of batches.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..))]
    pub batches: u64,
    /// Seed of the random draws: same dataset, arguments and seed give the same stream.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// The `.input` relation to change (default: `edge`, or the program's only input).
    #[arg(long)]
    pub relation: Option<String>,
    /// Follow every batch by its inverse, so that each odd batch starts from the dataset
    /// itself.
    #[arg(long)]
    pub revert: bool,
    /// Write the stream here (default: standard output).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Cache directory for generated and imported datasets (as for `dredbench datasets`).
    #[arg(long)]
    pub cache: Option<PathBuf>,
}

/// Runs the command.
pub fn run(args: &UpdatesArgs) -> anyhow::Result<Outcome> {
    let loc = Locations::with_cache(args.cache.as_deref());
    let facts = datasets::resolve_in(&args.dataset, &loc).map_err(|e| match e {
        DatasetError::Invalid(r) => BadInput::Located(r),
        other => BadInput::Other(other.to_string()),
    })?;
    let mut symbols = Symbols::new();
    let source = match &args.program {
        Some(p) => {
            let text = std::fs::read_to_string(p)
                .map_err(|e| BadInput::Other(format!("{}: {e}", p.display())))?;
            SourceFile::new(p.display().to_string(), text)
        }
        None => SourceFile::new("<edge declaration>", GRAPH_DECLS),
    };
    let program = load_program(&source, &mut symbols).map_err(|d| BadInput::Located(d.render()))?;
    let edb = io::read_facts_dir(&facts, &program, &mut symbols).map_err(|e| match e {
        io::InputError::Syntax(d) => BadInput::Located(d.render()),
        other => BadInput::Other(other.to_string()),
    })?;
    let spec = StreamSpec {
        kind: args.kind,
        size: args.size as usize,
        batches: args.batches as usize,
        seed: args.seed,
        relation: args.relation.clone(),
        revert: args.revert,
    };
    let stream = generate_stream(&program, &symbols, &edb, &spec)
        .map_err(|e| BadInput::Other(e.to_string()))?;
    let rel = &program.relations[stream.relation];
    let mut command = format!(
        "dredbench updates --dataset {} --kind {} --size {} --batches {} --seed {}",
        args.dataset,
        args.kind.name(),
        args.size,
        args.batches,
        args.seed
    );
    if let Some(r) = &args.relation {
        command.push_str(&format!(" --relation {r}"));
    }
    if args.revert {
        command.push_str(" --revert");
    }
    let header = vec![
        command,
        format!(
            "relation {} ({} facts); dataset_hash {} (as in report rows)",
            rel.name,
            edb.relations[stream.relation].len(),
            crate::provenance::dataset_hash(&facts).unwrap_or_else(|_| "unknown".into())
        ),
    ];
    let text = render(&stream, &program, &symbols, &header);
    match &args.out {
        Some(path) => {
            io::write_atomic(path, text.as_bytes())
                .map_err(|e| anyhow::anyhow!("writing {}: {e}", path.display()))?;
            eprintln!(
                "{} batch(es) of {} on {} written to {}",
                stream.batches.len(),
                args.kind.name(),
                rel.name,
                path.display()
            );
        }
        None => print!("{text}"),
    }
    Ok(Outcome::Agree)
}
