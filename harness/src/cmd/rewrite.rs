//! `dredbench rewrite`: prints the magic-set program generated for a query, so users can
//! read exactly what `run --query` maintains.

use std::path::PathBuf;

use clap::Args;
use dred_core::{load_program, magic, SourceFile, Symbols};

use crate::{BadInput, Outcome};

/// Arguments of `dredbench rewrite`.
#[derive(Debug, Clone, Args)]
pub struct RewriteArgs {
    /// The Datalog program (Soufflé subset).
    #[arg(long)]
    pub program: PathBuf,
    /// The query atom, constants bound and variables free, e.g. `path("a", y)`.
    #[arg(long)]
    pub query: String,
}

/// Prints the generated program on standard output.
pub fn run(args: &RewriteArgs) -> anyhow::Result<Outcome> {
    let text = std::fs::read_to_string(&args.program)
        .map_err(|e| BadInput::Other(format!("{}: {e}", args.program.display())))?;
    let mut symbols = Symbols::new();
    let source = SourceFile::new(args.program.display().to_string(), text);
    let program = load_program(&source, &mut symbols).map_err(|d| BadInput::Located(d.render()))?;
    let query = magic::parse_query(&args.query, &program, &mut symbols)
        .map_err(|d| BadInput::Located(d.render()))?;
    let generated = magic::rewrite(&program, &query, &mut symbols)
        .map_err(|d| BadInput::Located(d.render()))?;
    print!("{}", generated.text);
    Ok(Outcome::Agree)
}
