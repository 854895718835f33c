//! `dredbench updates`: a seeded update stream generated from a dataset — uniform deletions,
//! insertions or a mix, targeted deletions (inside the largest strongly connected component;
//! edges that are the only path between their ends; at the hubs), edits of whole functions of
//! a program-analysis dataset, or the upgrade of such a dataset to another version of it
//! (`--kind version-edit --to OTHER_DATASET`, function by function) — in the update-stream
//! format of SPEC §2, ready for `dredbench run --updates`.
//!
//! The relations are read as a program declares them (`--program`). Without one, the
//! declarations come from the dataset itself: `edge(x: symbol, y: symbol)` for the graph
//! kinds, but the `--relation` named (if it is not `edge`) and, for `function-edit`, every
//! `.facts` file of the dataset, each with as many `symbol` columns as its first line has
//! values — so `--relation cfg_edge` or `--kind function-edit` work on a `rust-nll:` dataset
//! without a program. For `version-edit` the declarations are read from both versions, which
//! must have the same `.facts` files with the same widths. A stream read with symbol columns names the same facts in the same text,
//! but draws in textual order: give `--program` for streams that are to match those a sweep
//! draws, and for `function-edit` streams that a program reading only some of the dataset's
//! relations will run (`run` refuses updates of relations its program does not declare).

use std::io::BufRead as _;
use std::path::{Path, PathBuf};

use clap::Args;
use dred_core::{io, load_program, SourceFile, Symbols};

use crate::datasets::{self, load::GRAPH_DECLS, DatasetError, Locations};
use crate::updates::{
    generate_stream, read_version, render, version_edit_stream, StreamSpec, UpdateKind,
};
use crate::{BadInput, Outcome};

/// Arguments of `dredbench updates`.
#[derive(Debug, Clone, Args)]
pub struct UpdatesArgs {
    /// The dataset: a name from `dredbench datasets list`, `gen:KIND?key=value&…`,
    /// `snap:PATH`, or a directory of `.facts` files.
    #[arg(long)]
    pub dataset: String,
    /// A program declaring the EDB relations to read. The stream changes one of its `.input`
    /// relations (`function-edit`: all of them). Default: `edge(x: symbol, y: symbol)`, or the
    /// `--relation` named, or for `function-edit` every `.facts` file of the dataset, read
    /// with `symbol` columns.
    #[arg(long)]
    pub program: Option<PathBuf>,
    /// What each batch changes.
    #[arg(long, value_enum)]
    pub kind: UpdateKind,
    /// Changes per batch (k).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..))]
    pub size: u64,
    /// Number of batches (default 1; `version-edit`: the whole walk to the other version,
    /// and a number caps it).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    pub batches: Option<u64>,
    /// Seed of the random draws: same dataset, arguments and seed give the same stream.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// The `.input` relation to change (default: `edge`, or the program's only input;
    /// `function-edit`: every input relation, and a name restricts it to that one).
    #[arg(long)]
    pub relation: Option<String>,
    /// Follow every batch by its inverse, so that each odd batch starts from the dataset
    /// itself.
    #[arg(long)]
    pub revert: bool,
    /// `version-edit`: the dataset of the version to upgrade to (a name or a directory, as
    /// `--dataset`, which is the version upgraded from).
    #[arg(long, value_name = "OTHER_DATASET")]
    pub to: Option<String>,
    /// Write the stream here (default: standard output).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Cache directory for generated and imported datasets (as for `dredbench datasets`).
    #[arg(long)]
    pub cache: Option<PathBuf>,
}

/// Runs the command.
pub fn run(args: &UpdatesArgs) -> anyhow::Result<Outcome> {
    let version_edit = args.kind == UpdateKind::VersionEdit;
    match (&args.to, version_edit) {
        (None, true) => {
            return Err(BadInput::Other(
                "--kind version-edit needs --to OTHER_DATASET, the version to upgrade to".into(),
            )
            .into())
        }
        (Some(_), false) => {
            return Err(BadInput::Other(format!(
                "--to is for --kind version-edit only, not --kind {}",
                args.kind.name()
            ))
            .into())
        }
        _ => {}
    }
    let loc = Locations::with_cache(args.cache.as_deref());
    let resolve = |name: &str| {
        datasets::resolve_in(name, &loc).map_err(|e| match e {
            DatasetError::Invalid(r) => BadInput::Located(r),
            other => BadInput::Other(other.to_string()),
        })
    };
    let facts = resolve(&args.dataset)?;
    // The other version's facts directory.
    let target = match &args.to {
        Some(to) => Some(resolve(to).map_err(|e| BadInput::Other(format!("--to {to}: {e}")))?),
        None => None,
    };
    let mut symbols = Symbols::new();
    let source = match &args.program {
        Some(p) => {
            let text = std::fs::read_to_string(p)
                .map_err(|e| BadInput::Other(format!("{}: {e}", p.display())))?;
            SourceFile::new(p.display().to_string(), text)
        }
        None => match inferred_declarations(
            &facts,
            target.as_deref(),
            args.kind,
            args.relation.as_deref(),
        )? {
            Some(decls) => {
                SourceFile::new(format!("<declarations from {}>", facts.display()), decls)
            }
            None => SourceFile::new("<edge declaration>", GRAPH_DECLS),
        },
    };
    let program = load_program(&source, &mut symbols).map_err(|d| BadInput::Located(d.render()))?;
    let edb = io::read_facts_dir(&facts, &program, &mut symbols).map_err(|e| match e {
        io::InputError::Syntax(d) => BadInput::Located(d.render()),
        other => BadInput::Other(other.to_string()),
    })?;
    let spec = StreamSpec {
        kind: args.kind,
        size: args.size as usize,
        batches: match args.batches {
            Some(b) => b as usize,
            None if version_edit => usize::MAX,
            None => 1,
        },
        seed: args.seed,
        relation: args.relation.clone(),
        revert: args.revert,
        to: args.to.clone(),
    };
    let stream = match (&target, &args.to) {
        (Some(dir), Some(to)) => {
            let new = read_version(dir, to, &program, &mut symbols)
                .map_err(|e| BadInput::Other(e.to_string()))?;
            version_edit_stream(&program, &symbols, &edb, &new, &spec)
        }
        _ => generate_stream(&program, &symbols, &edb, &spec),
    }
    .map_err(|e| BadInput::Other(e.to_string()))?;
    let mut command = format!("dredbench updates --dataset {}", args.dataset);
    if let Some(p) = &args.program {
        // The program decides which relations are read and their column types, so the
        // stream cannot be reproduced without it.
        command.push_str(&format!(" --program {}", p.display()));
    }
    command.push_str(&format!(" --kind {}", args.kind.name()));
    if let Some(to) = &args.to {
        command.push_str(&format!(" --to {to}"));
    }
    command.push_str(&format!(" --size {}", args.size));
    if let Some(b) = args.batches {
        command.push_str(&format!(" --batches {b}"));
    } else if !version_edit {
        command.push_str(" --batches 1");
    }
    command.push_str(&format!(" --seed {}", args.seed));
    if let Some(r) = &args.relation {
        command.push_str(&format!(" --relation {r}"));
    }
    if args.revert {
        command.push_str(" --revert");
    }
    let names: Vec<&str> = stream
        .relations
        .iter()
        .map(|&r| program.relations[r].name.as_str())
        .collect();
    let nfacts: usize = stream
        .relations
        .iter()
        .map(|&r| edb.relations[r].len())
        .sum();
    let mut header = vec![
        command,
        format!(
            "relation{} {} ({nfacts} facts); dataset_hash {} (as in report rows)",
            if names.len() == 1 { "" } else { "s" },
            names.join(", "),
            crate::provenance::dataset_hash(&facts).unwrap_or_else(|_| "unknown".into())
        ),
    ];
    if let (Some(dir), Some(to)) = (&target, &args.to) {
        header.push(format!(
            "upgraded to {to}: dataset_hash {}",
            crate::provenance::dataset_hash(dir).unwrap_or_else(|_| "unknown".into())
        ));
    }
    if !stream.source.is_empty() {
        header.push(stream.source.clone());
    }
    let on = match names.as_slice() {
        [one] => one.to_string(),
        many => format!("{} relations", many.len()),
    };
    let text = render(&stream, &program, &symbols, &header);
    match &args.out {
        Some(path) => {
            io::write_atomic(path, text.as_bytes())
                .map_err(|e| anyhow::anyhow!("writing {}: {e}", path.display()))?;
            eprintln!(
                "{} batch(es) of {} on {} written to {}",
                stream.batches.len(),
                args.kind.name(),
                on,
                path.display()
            );
        }
        None => print!("{text}"),
    }
    Ok(Outcome::Agree)
}

/// The declarations read when no `--program` is given (see the module's comment): `None` for
/// the default `edge` declaration, else the text of a program declaring, as `.input` with
/// `symbol` columns, the `relation` named (other than `edge`) or, for `function-edit` and
/// `version-edit` without one, every `.facts` file of `dir` whose name is a relation name
/// and which holds a fact. Columns are counted on each file's first line; a later line of
/// another width is then an error located in the file when the facts are read. With a
/// `target` (the other version of a version edit), its `.facts` files must be the same, each
/// first line as wide, and a relation empty in one version is declared from the other.
fn inferred_declarations(
    dir: &Path,
    target: Option<&Path>,
    kind: UpdateKind,
    relation: Option<&str>,
) -> Result<Option<String>, BadInput> {
    let names: Vec<String> = match relation {
        Some("edge") => return Ok(None),
        Some(name) => vec![name.to_string()],
        None if matches!(kind, UpdateKind::FunctionEdit | UpdateKind::VersionEdit) => {
            let names = relation_files(dir)?;
            if let Some(target) = target {
                let other = relation_files(target)?;
                if other != names {
                    let only = |a: &[String], b: &[String]| {
                        let v: Vec<&str> = a
                            .iter()
                            .filter(|n| !b.contains(n))
                            .map(String::as_str)
                            .collect();
                        if v.is_empty() {
                            "none".to_string()
                        } else {
                            v.join(", ")
                        }
                    };
                    return Err(BadInput::Other(format!(
                        "the two datasets' relations differ: only in {}: {}; only in {}: {}",
                        dir.display(),
                        only(&names, &other),
                        target.display(),
                        only(&other, &names)
                    )));
                }
            }
            names
        }
        None => return Ok(None),
    };
    let mut decls = String::new();
    for name in &names {
        if relation.is_some() && !is_relation_name(name) {
            return Err(BadInput::Other(format!(
                "--relation `{name}` is not a relation name (letters, digits and `_`, not \
                 starting with a digit)"
            )));
        }
        let mut width = None;
        for d in std::iter::once(dir).chain(target) {
            let path = d.join(format!("{name}.facts"));
            let first = first_line(&path).map_err(|e| {
                BadInput::Other(if relation.is_some() {
                    format!(
                        "no facts file {} for --relation `{name}` ({e}); without --program \
                         the relation is read from its facts file",
                        path.display()
                    )
                } else {
                    format!("{}: {e}", path.display())
                })
            })?;
            let Some(first) = first else { continue };
            let arity = if first.trim() == "()" {
                0
            } else {
                first.split('\t').count()
            };
            match width {
                Some(w) if w != arity => {
                    return Err(BadInput::Other(format!(
                        "the two datasets' relations differ: `{name}` has {w} column(s) in {} \
                         and {arity} in {}",
                        dir.display(),
                        d.display()
                    )))
                }
                _ => width = Some(arity),
            }
        }
        let Some(arity) = width else {
            if relation.is_some() {
                return Err(BadInput::Other(format!(
                    "{} is empty: there is nothing to change in `{name}` (without --program \
                     its columns are counted on its first line)",
                    dir.join(format!("{name}.facts")).display()
                )));
            }
            // An empty relation has no function's facts to edit.
            continue;
        };
        let columns: Vec<String> = (1..=arity).map(|i| format!("c{i}: symbol")).collect();
        decls.push_str(&format!(
            ".decl {name}({})\n.input {name}\n",
            columns.join(", ")
        ));
    }
    Ok(Some(decls))
}

/// The names of the `.facts` files of `dir` that are relation names, sorted.
fn relation_files(dir: &Path) -> Result<Vec<String>, BadInput> {
    let entries =
        std::fs::read_dir(dir).map_err(|e| BadInput::Other(format!("{}: {e}", dir.display())))?;
    let mut names: Vec<String> = entries
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            name.strip_suffix(".facts")
                .filter(|stem| is_relation_name(stem))
                .map(str::to_string)
        })
        .collect();
    names.sort();
    Ok(names)
}

/// Whether `name` can be a relation of a program: an identifier of our Soufflé subset.
fn is_relation_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// The first non-empty line of a file, without reading the rest (rust-nll files run to
/// hundreds of megabytes on large crates); `None` if it has none.
fn first_line(path: &Path) -> std::io::Result<Option<String>> {
    let file = std::fs::File::open(path)?;
    for line in std::io::BufReader::new(file).lines() {
        let line = line?;
        let line = line.strip_suffix('\r').unwrap_or(&line);
        if !line.is_empty() {
            return Ok(Some(line.to_string()));
        }
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn declarations_are_inferred_from_the_facts_files() {
        let dir = tempfile::tempdir().expect("tmp");
        let write =
            |name: &str, text: &str| std::fs::write(dir.path().join(name), text).expect("w");
        write("cfg_edge.facts", "\nf::a\tf::b\n");
        write("loan.facts", "f::l\tf::o\t7\n");
        write("empty.facts", "");
        write("bad-name.facts", "f::x\n");
        write("flag.facts", "()\n");
        write("README", "not facts");
        let d = dir.path();
        // The graph kinds without --relation, and `--relation edge`, keep `edge`.
        assert_eq!(
            inferred_declarations(d, None, UpdateKind::Delete, None).expect("ok"),
            None
        );
        assert_eq!(
            inferred_declarations(d, None, UpdateKind::FunctionEdit, Some("edge")).expect("ok"),
            None
        );
        assert_eq!(
            inferred_declarations(d, None, UpdateKind::Delete, Some("cfg_edge")).expect("ok"),
            Some(".decl cfg_edge(c1: symbol, c2: symbol)\n.input cfg_edge\n".into())
        );
        // function-edit: every non-empty facts file with a relation's name, by name.
        assert_eq!(
            inferred_declarations(d, None, UpdateKind::FunctionEdit, None).expect("ok"),
            Some(
                ".decl cfg_edge(c1: symbol, c2: symbol)\n.input cfg_edge\n\
                 .decl flag()\n.input flag\n\
                 .decl loan(c1: symbol, c2: symbol, c3: symbol)\n.input loan\n"
                    .into()
            )
        );
        for (name, why) in [
            ("nope", "no facts file"),
            ("empty", "is empty"),
            ("bad-name", "not a relation name"),
        ] {
            let e = inferred_declarations(d, None, UpdateKind::Delete, Some(name)).expect_err(name);
            assert!(e.to_string().contains(why), "{name}: {e}");
        }
    }

    #[test]
    fn version_edit_declarations_are_read_from_both_versions() {
        let old = tempfile::tempdir().expect("tmp");
        let new = tempfile::tempdir().expect("tmp");
        let write =
            |dir: &Path, name: &str, text: &str| std::fs::write(dir.join(name), text).expect("w");
        let (o, n) = (old.path(), new.path());
        write(o, "cfg_edge.facts", "f::a\tf::b\n");
        write(n, "cfg_edge.facts", "g::a\tg::b\n");
        // Empty in the old version: declared from the new one.
        write(o, "loan.facts", "");
        write(n, "loan.facts", "g::l\tg::o\tg::p\n");
        write(o, "none.facts", "");
        write(n, "none.facts", "");
        let decls = |relation| inferred_declarations(o, Some(n), UpdateKind::VersionEdit, relation);
        assert_eq!(
            decls(None).expect("ok"),
            Some(
                ".decl cfg_edge(c1: symbol, c2: symbol)\n.input cfg_edge\n\
                 .decl loan(c1: symbol, c2: symbol, c3: symbol)\n.input loan\n"
                    .into()
            )
        );
        assert_eq!(
            decls(Some("loan")).expect("ok"),
            Some(".decl loan(c1: symbol, c2: symbol, c3: symbol)\n.input loan\n".into())
        );
        let e = decls(Some("none")).expect_err("empty in both");
        assert!(e.to_string().contains("is empty"), "{e}");
        // Another width, another set of files: the relations differ.
        write(n, "cfg_edge.facts", "g::a\tg::b\tg::c\n");
        let e = decls(None).expect_err("width");
        assert!(
            e.to_string()
                .contains("relations differ: `cfg_edge` has 2 column(s) in"),
            "{e}"
        );
        write(n, "cfg_edge.facts", "g::a\tg::b\n");
        write(n, "extra.facts", "g::x\n");
        let e = decls(None).expect_err("files");
        let e = e.to_string();
        assert!(
            e.contains("relations differ: only in")
                && e.contains(": none; only in")
                && e.ends_with(": extra"),
            "{e}"
        );
        let e = decls(Some("extra")).expect_err("missing in the old version");
        assert!(e.to_string().contains("no facts file"), "{e}");
    }
}
