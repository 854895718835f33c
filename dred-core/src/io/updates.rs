//! Update streams: `+`/`-`, a tab, the relation, then its tab-separated values; `commit`
//! ends a batch; `#` starts a comment line; a last batch without `commit` is committed at end
//! of file. Only `.input` relations may be updated.

use std::path::Path;

use super::facts::parse_row;
use super::InputError;
use crate::diagnostic::{Diagnostic, SourceFile, Span};
use crate::engine::{Fact, RequestedBatch};
use crate::program::Program;
use crate::value::Symbols;

/// Reads an update stream file into batches, in order.
pub fn read_updates(
    path: &Path,
    program: &Program,
    symbols: &mut Symbols,
) -> Result<Vec<RequestedBatch>, InputError> {
    let text = std::fs::read_to_string(path).map_err(|e| InputError::io(path, e))?;
    let file = SourceFile::new(path.display().to_string(), text);
    Ok(parse_updates(&file, program, symbols)?)
}

/// Parses an update stream held in memory.
pub fn parse_updates(
    file: &SourceFile,
    program: &Program,
    symbols: &mut Symbols,
) -> Result<Vec<RequestedBatch>, Diagnostic> {
    let text = file.text.clone();
    let mut batches = Vec::new();
    let mut current = RequestedBatch::default();
    let mut open = false;
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let start = offset;
        offset += line.len();
        let body = line.strip_suffix('\n').unwrap_or(line);
        let body = body.strip_suffix('\r').unwrap_or(body);
        if body.trim().is_empty() || body.trim_start().starts_with('#') {
            continue;
        }
        if body.trim() == "commit" {
            batches.push(std::mem::take(&mut current));
            open = false;
            continue;
        }
        let whole = Span::new(start, start + body.len());
        let (sign, rest) = match body.split_once('\t') {
            Some((s @ ("+" | "-"), rest)) => (s, rest),
            _ => {
                return Err(Diagnostic::new(
                    file,
                    whole,
                    "expected `+` or `-`, a tab, a relation and its values, or `commit`",
                    "malformed update",
                ))
            }
        };
        let rel_start = start + 2;
        let (name, values) = rest.split_once('\t').unwrap_or((rest, ""));
        let name_span = Span::new(rel_start, rel_start + name.len());
        let Some(rel) = program.input_id(name) else {
            return Err(Diagnostic::new(
                file,
                name_span,
                format!("relation `{name}` is not declared in the program"),
                "unknown relation",
            ));
        };
        if !program.relations[rel].input {
            return Err(Diagnostic::new(
                file,
                name_span,
                format!("`{name}` is a derived relation; only `.input` relations can be updated"),
                "not an input relation",
            ));
        }
        let values_start = rel_start + name.len() + 1;
        let arity = program.relations[rel].arity();
        let tuple = if arity == 0 && !rest.contains('\t') {
            Vec::new()
        } else if arity > 0 && !rest.contains('\t') {
            return Err(Diagnostic::new(
                file,
                whole,
                format!("`{name}` has {arity} column(s) but this update has none"),
                "wrong column count",
            ));
        } else {
            parse_row(file, values_start, values, program, rel, symbols)?
        };
        let fact = Fact::new(rel, tuple);
        if sign == "+" {
            current.insertions.push(fact);
        } else {
            current.deletions.push(fact);
        }
        open = true;
    }
    if open {
        batches.push(current);
    }
    Ok(batches)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::load_program;

    fn setup() -> (Program, Symbols) {
        let mut syms = Symbols::new();
        let p = load_program(
            &SourceFile::new(
                "p.dl",
                ".decl e(x: symbol, n: number)\n.decl r()\n.decl d(x: symbol)\n.input e\n.input r\nd(x) :- e(x, _).\n",
            ),
            &mut syms,
        )
        .expect("program");
        (p, syms)
    }

    #[test]
    fn batches_and_commits() {
        let (p, mut syms) = setup();
        let f = SourceFile::new(
            "u.txt",
            "# c\n-\te\ta\t1\n+\te\tb\t-2\ncommit\ncommit\n+\tr\n+\tr\t()\n",
        );
        let b = parse_updates(&f, &p, &mut syms).expect("parses");
        assert_eq!(b.len(), 3);
        assert_eq!(b[0].deletions.len(), 1);
        assert_eq!(b[0].insertions[0].tuple[1], -2);
        assert!(b[1].deletions.is_empty() && b[1].insertions.is_empty());
        assert_eq!(b[2].insertions.len(), 2);
    }

    #[test]
    fn malformed_updates_are_located() {
        let (p, mut syms) = setup();
        let cases = [
            ("+\tzz\ta\t1\n", 1, 3),
            ("commit\n+\td\ta\n", 2, 3),
            ("+\te\ta\n", 1, 5),
            ("+\te\ta\tx1\n", 1, 7),
            ("* e a 1\n", 1, 1),
            ("+\te\n", 1, 1),
            ("+\tr\tz\n", 1, 5),
        ];
        for (src, line, col) in cases {
            let e = parse_updates(&SourceFile::new("u.txt", src), &p, &mut syms).expect_err(src);
            assert_eq!((e.line(), e.column()), (line, col), "{src:?}: {e}");
        }
    }
}
