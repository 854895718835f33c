//! Writing `.csv` model outputs: tab-separated, sorted by typed value (numbers numerically,
//! symbols and records by their text), so that two outputs compare with `diff`.

use std::cmp::Ordering;
use std::io::Write;
use std::path::Path;

use super::InputError;
use crate::engine::{Edb, Model};
use crate::program::{Program, RelId};
use crate::syntax::ast::Type;
use crate::value::{Symbols, Tuple, Value};

/// Writes `bytes` to `path` through a temporary file in the same directory and a rename, so
/// that `path` holds either its old content or the new one, never a torn write.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty());
    let dir = dir.unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "out".into());
    let tmp = dir.join(format!(".{name}.tmp{}", std::process::id()));
    {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
    }
    std::fs::rename(&tmp, path)
}

/// One tuple as a `.csv`/`.facts` line without the newline: tab-separated raw values, or `()`
/// for zero arity.
pub fn format_tuple_raw(types: &[Type], tuple: &[Value], symbols: &Symbols) -> String {
    if types.is_empty() {
        return "()".into();
    }
    let fields: Vec<String> = types
        .iter()
        .zip(tuple)
        .map(|(&ty, &v)| symbols.raw(ty, v))
        .collect();
    fields.join("\t")
}

/// The tuples in output order: column by column, numeric values by value and symbols by text.
pub fn sorted_for_output<'a>(
    types: &[Type],
    tuples: impl IntoIterator<Item = &'a Tuple>,
    symbols: &Symbols,
) -> Vec<&'a Tuple> {
    let mut v: Vec<&Tuple> = tuples.into_iter().collect();
    if types.iter().any(|t| matches!(t, Type::Record(_))) {
        // A record's word is the order it was first built in, which differs from engine to
        // engine: by its text instead, written once per tuple rather than per comparison.
        v.sort_by_cached_key(|t| {
            types
                .iter()
                .zip(t.iter())
                .map(|(&ty, &x)| match ty {
                    Type::Symbol => SortKey::Text(symbols.name(x).as_deref().unwrap_or("").into()),
                    Type::Record(_) => SortKey::Text(symbols.raw(ty, x)),
                    _ => SortKey::Word(x),
                })
                .collect::<Vec<_>>()
        });
        return v;
    }
    v.sort_by(|a, b| {
        for ((&ty, x), y) in types.iter().zip(a.iter()).zip(b.iter()) {
            let o = match ty {
                Type::Symbol => symbols.name(*x).cmp(&symbols.name(*y)),
                // The numeric encodings keep order (`crate::value::encode_float`).
                _ => x.cmp(y),
            };
            if o != Ordering::Equal {
                return o;
            }
        }
        Ordering::Equal
    });
    v
}

/// A column's value as output order compares it (each column holds one variant).
#[derive(PartialEq, Eq, PartialOrd, Ord)]
enum SortKey {
    /// A numeric value's word: the encodings keep order.
    Word(Value),
    /// A symbol's or a record's text.
    Text(String),
}

/// Writes `<relation>.csv` into `dir` for every `.output` relation (from the model for derived
/// relations, from the EDB for input ones), creating `dir` if needed.
pub fn write_outputs(
    dir: &Path,
    program: &Program,
    model: &Model,
    edb: &Edb,
    symbols: &Symbols,
) -> Result<Vec<RelId>, InputError> {
    std::fs::create_dir_all(dir).map_err(|e| InputError::io(dir, e))?;
    let mut written = Vec::new();
    for (rel, decl) in program.relations.iter().enumerate() {
        if !decl.output {
            continue;
        }
        let tuples = if decl.input {
            &edb.relations[rel]
        } else {
            &model.relations[rel]
        };
        let mut text = String::new();
        for t in sorted_for_output(&decl.types, tuples, symbols) {
            text.push_str(&format_tuple_raw(&decl.types, t, symbols));
            text.push('\n');
        }
        let path = dir.join(format!("{}.csv", decl.name));
        write_atomic(&path, text.as_bytes()).map_err(|e| InputError::io(&path, e))?;
        written.push(rel);
    }
    Ok(written)
}
