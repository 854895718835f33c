//! `.facts` files: one tuple per line, tab-separated, values read by the declared column type;
//! a zero-arity fact is the line `()`.

use std::path::Path;

use super::InputError;
use crate::diagnostic::{Diagnostic, SourceFile, Span};
use crate::engine::{Edb, Fact};
use crate::program::{Program, RelId};
use crate::syntax::ast::Type;
use crate::value::{Symbols, Value};

/// Reads `<relation>.facts` from `dir` for every `.input` relation of the program. A missing
/// file is an error located at the `.input` declaration (as in Soufflé): a typo in a name
/// must not silently give an empty relation.
pub fn read_facts_dir(
    dir: &Path,
    program: &Program,
    symbols: &mut Symbols,
) -> Result<Edb, InputError> {
    if !dir.is_dir() {
        return Err(InputError::io(
            dir,
            std::io::Error::new(std::io::ErrorKind::NotFound, "facts directory not found"),
        ));
    }
    let mut edb = Edb::empty(program);
    for (rel, decl) in program.relations.iter().enumerate() {
        if !decl.input {
            continue;
        }
        let path = dir.join(format!("{}.facts", decl.facts_name()));
        if !path.is_file() {
            return Err(Diagnostic::new(
                &program.source,
                decl.span,
                format!(
                    "no facts file `{}` for input relation `{}`",
                    path.display(),
                    decl.facts_name()
                ),
                "declared `.input` here",
            )
            .into());
        }
        let text = std::fs::read_to_string(&path).map_err(|e| InputError::io(&path, e))?;
        let file = SourceFile::new(path.display().to_string(), text);
        let text = file.text.clone();
        let mut offset = 0;
        for line in text.split_inclusive('\n') {
            let start = offset;
            offset += line.len();
            let body = line.strip_suffix('\n').unwrap_or(line);
            let body = body.strip_suffix('\r').unwrap_or(body);
            if body.is_empty() && decl.arity() != 1 {
                continue;
            }
            let tuple = parse_row(&file, start, body, program, rel, symbols)?;
            edb.insert(Fact::new(rel, tuple));
        }
    }
    Ok(edb)
}

/// Parses the tab-separated values of one row starting at byte `start` of `file`.
pub(crate) fn parse_row(
    file: &SourceFile,
    start: usize,
    body: &str,
    program: &Program,
    rel: RelId,
    symbols: &mut Symbols,
) -> Result<Vec<Value>, Diagnostic> {
    let decl = &program.relations[rel];
    let whole = Span::new(start, start + body.len());
    if decl.arity() == 0 {
        return if body.trim() == "()" || body.trim().is_empty() {
            Ok(Vec::new())
        } else {
            Err(Diagnostic::new(
                file,
                whole,
                format!(
                    "`{}` has no columns; a fact of it is written `()`",
                    decl.facts_name()
                ),
                "expected `()`",
            ))
        };
    }
    let fields: Vec<&str> = body.split('\t').collect();
    if fields.len() != decl.arity() {
        return Err(Diagnostic::new(
            file,
            whole,
            format!(
                "`{}` has {} column(s) but this line has {} tab-separated value(s)",
                decl.facts_name(),
                decl.arity(),
                fields.len()
            ),
            "wrong column count",
        ));
    }
    let mut tuple = Vec::with_capacity(fields.len());
    let mut pos = start;
    for (i, (field, &ty)) in fields.iter().zip(&decl.types).enumerate() {
        let span = Span::new(pos, pos + field.len());
        pos += field.len() + 1;
        tuple.push(parse_value(field, ty, symbols).map_err(|why| {
            Diagnostic::new(
                file,
                span,
                format!("column {} of `{}`: {why}", i + 1, decl.facts_name()),
                "bad value",
            )
        })?);
    }
    Ok(tuple)
}

/// Reads one value of a column type: a `symbol` is the text itself, a numeric type's value
/// what [`crate::value::parse_numeric`] reads, a record what
/// [`crate::records::parse_record`] reads (`[1, a]`, `nil`).
pub fn parse_value(field: &str, ty: Type, symbols: &mut Symbols) -> Result<Value, String> {
    match ty {
        Type::Symbol => Ok(symbols.intern(field)),
        Type::Record(id) => crate::records::parse_record(field, id, symbols),
        numeric => crate::value::parse_numeric(field, numeric),
    }
}
