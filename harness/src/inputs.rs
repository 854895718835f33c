//! A case's inputs read from files: the program (for a query, its magic-set rewrite), the
//! facts and the update stream, all checked against the program. Every problem is bad input
//! (exit 2), rendered with its file, line and column when it has them. Also how reports name
//! them ([`stem`], [`dataset_name`]).

use std::path::Path;
use std::sync::Arc;

use dred_core::{io, load_program, magic, Edb, Program, RequestedBatch, SourceFile, Symbols};

use crate::BadInput;

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
    /// With `--query`: the rewrite, whose program is `program`.
    pub magic: Option<magic::MagicProgram>,
}

/// An input error as bad input, rendered with its location when it has one.
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
    query: Option<&str>,
) -> Result<Inputs, BadInput> {
    let text = std::fs::read_to_string(program)
        .map_err(|e| BadInput::Other(format!("{}: {e}", program.display())))?;
    let mut symbols = Symbols::new();
    let source = SourceFile::new(program.display().to_string(), text);
    let diag = |d: dred_core::Diagnostic| BadInput::Located(d.render());
    let mut program = load_program(&source, &mut symbols).map_err(diag)?;
    let mut magic = None;
    if let Some(q) = query {
        let query = magic::parse_query(q, &program, &mut symbols).map_err(diag)?;
        let rewritten = magic::rewrite(&program, &query, &mut symbols).map_err(diag)?;
        // Facts and updates are read against the generated program, which declares the same
        // input relations.
        program = rewritten.program.clone();
        magic = Some(rewritten);
    }
    let program = Arc::new(program);
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
        magic,
    })
}

/// The file name of `p` without its extension (empty when it has none): how reports name a
/// program or a stream.
pub fn stem(p: &Path) -> String {
    p.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// The name of the dataset in facts directory `facts`: the directory's own name, or its
/// parent's for a directory called `facts` (`datasets/seed/facts` is `seed`).
pub fn dataset_name(facts: &Path) -> String {
    let canonical = facts.canonicalize().unwrap_or_else(|_| facts.to_path_buf());
    // A directory's whole name: `same-file-1.0.6` is not a file `same-file-1.0` with an
    // extension.
    let whole = |p: &Path| {
        p.file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| p.display().to_string())
    };
    let name = whole(&canonical);
    // `datasets/seed/facts` is named after `seed`, not after `facts`.
    if name == "facts" {
        canonical.parent().map(whole).unwrap_or(name)
    } else {
        name
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_dataset_is_named_after_its_whole_directory_name() {
        let dir = tempfile::tempdir().expect("tempdir");
        let facts = dir.path().join("same-file-1.0.6").join("facts");
        std::fs::create_dir_all(&facts).expect("mkdir");
        assert_eq!(dataset_name(&facts), "same-file-1.0.6");
        assert_eq!(
            dataset_name(facts.parent().expect("parent")),
            "same-file-1.0.6"
        );
        assert_eq!(dataset_name(Path::new("datasets/seed/facts")), "seed");
    }
}
