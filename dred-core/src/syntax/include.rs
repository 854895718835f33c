//! `.include "file"` and `#include "file"`: the named file's text stands where the directive
//! is written, as with Soufflé's preprocessor, before anything else is read.
//!
//! A relative name is resolved against the directory of the file that writes the directive
//! (the working directory for a file given without one). Included files may include others;
//! a file may be included more than once (its declarations are then declared twice, an error
//! of the checker, as in Soufflé), but never from inside itself: a cycle is an error at the
//! directive that closes it, naming the chain. A file that cannot be read is an error at its
//! name in the directive. The spliced text keeps, for every part, the file it comes from
//! ([`SourceFile::pieces`]), so that every later error names the included file, its line and
//! its column. A text without a directive is returned unchanged.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::lexer::{lex, Tok};
use crate::diagnostic::{Diagnostic, Piece, SourceFile, Span};

/// How deep includes may nest (a chain of distinct files longer than this is refused, to
/// keep a generated chain from exhausting memory).
const MAX_DEPTH: usize = 64;

/// `file` with every include directive replaced by the included file's text, recursively.
pub(crate) fn expand(file: &SourceFile) -> Result<SourceFile, Diagnostic> {
    if directives(file)?.is_empty() {
        return Ok(file.clone());
    }
    let mut splice = Splice {
        text: String::new(),
        pieces: Vec::new(),
        stack: Vec::new(),
    };
    let own = SourceFile::new(file.name.clone(), file.text.clone());
    let path = canonical(Path::new(&*file.name));
    splice.file(&own, path)?;
    Ok(SourceFile {
        name: file.name.clone(),
        text: Arc::from(splice.text),
        pieces: Some(Arc::from(splice.pieces)),
    })
}

/// One include directive: its whole span, and the file name with the span of its string.
struct Directive {
    span: Span,
    name: String,
    name_span: Span,
}

/// The include directives of `file`, in order: `.include` or `#include` (the `.` or `#`
/// directly before `include`, and not ending a qualified name such as `inst.include`) and a
/// quoted file name.
fn directives(file: &SourceFile) -> Result<Vec<Directive>, Diagnostic> {
    // A cheap test first: most programs include nothing.
    if !file.text.contains("include") {
        return Ok(Vec::new());
    }
    let toks = lex(file)?;
    let mut out = Vec::new();
    for (i, (tok, span)) in toks.iter().enumerate() {
        if !matches!(tok, Tok::Dot | Tok::Other('#')) {
            continue;
        }
        let Some((Tok::Ident(word), word_span)) = toks.get(i + 1) else {
            continue;
        };
        if word != "include" || word_span.start != span.end {
            continue;
        }
        let qualified =
            i > 0 && matches!(&toks[i - 1], (Tok::Ident(_), prev) if prev.end == span.start);
        if qualified {
            continue;
        }
        match toks.get(i + 2) {
            Some((Tok::Str(name), name_span)) => out.push(Directive {
                span: span.to(*name_span),
                name: name.clone(),
                name_span: *name_span,
            }),
            other => {
                let at = other.map_or(span.to(*word_span), |(_, s)| *s);
                return Err(Diagnostic::new(
                    file,
                    at,
                    "expected the included file's name in double quotes",
                    "write `.include \"file.dl\"`",
                ));
            }
        }
    }
    Ok(out)
}

/// The path as the file system names it, for recognising a file reached twice; the path as
/// given when it cannot be resolved.
fn canonical(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
}

/// The spliced text being built.
struct Splice {
    text: String,
    pieces: Vec<Piece>,
    /// The files being spliced, outermost first, with their canonical paths.
    stack: Vec<(PathBuf, SourceFile)>,
}

impl Splice {
    /// Copies `file[from..to]` as a piece.
    fn copy(&mut self, file: &SourceFile, from: usize, to: usize) {
        if from >= to {
            return;
        }
        let start = self.text.len();
        self.text.push_str(&file.text[from..to]);
        self.pieces.push(Piece {
            start,
            end: self.text.len(),
            file: file.clone(),
            origin: from,
        });
    }

    /// Splices `file` (canonical path `path`) with its includes.
    fn file(&mut self, file: &SourceFile, path: PathBuf) -> Result<(), Diagnostic> {
        self.stack.push((path, file.clone()));
        let mut at = 0;
        for d in directives(file)? {
            self.copy(file, at, d.span.start);
            let included = self.read(file, &d)?;
            // A space on each side (standing for the directive) keeps tokens of the two
            // files apart.
            self.copy_space(file, d.span.start);
            let path = canonical(Path::new(&*included.name));
            self.file(&included, path)?;
            self.copy_space(file, d.span.end.saturating_sub(1));
            at = d.span.end;
        }
        self.copy(file, at, file.text.len());
        self.stack.pop();
        Ok(())
    }

    /// One space, located at `offset` of `file`.
    fn copy_space(&mut self, file: &SourceFile, offset: usize) {
        let start = self.text.len();
        self.text.push(' ');
        self.pieces.push(Piece {
            start,
            end: start + 1,
            file: file.clone(),
            origin: offset,
        });
    }

    /// The file directive `d` of `file` names, read, or the error at its name.
    fn read(&self, file: &SourceFile, d: &Directive) -> Result<SourceFile, Diagnostic> {
        let dir = Path::new(&*file.name)
            .parent()
            .filter(|p| !p.as_os_str().is_empty());
        let path = match dir {
            Some(dir) if Path::new(&d.name).is_relative() => dir.join(&d.name),
            _ => PathBuf::from(&d.name),
        };
        let shown = path.display().to_string();
        let err = |msg: String, label: &str| Diagnostic::new(file, d.name_span, msg, label);
        let key = canonical(&path);
        if let Some(first) = self.stack.iter().position(|(p, _)| *p == key) {
            let chain: Vec<String> = self.stack[first..]
                .iter()
                .map(|(_, f)| format!("`{}`", f.name))
                .chain([format!("`{shown}`")])
                .collect();
            return Err(Diagnostic::new(
                file,
                d.span,
                format!("include cycle: {}", chain.join(" includes ")),
                "a file cannot include itself, directly or not",
            ));
        }
        if self.stack.len() >= MAX_DEPTH {
            return Err(err(
                format!("includes nested more than {MAX_DEPTH} deep"),
                "too deep",
            ));
        }
        match std::fs::read_to_string(&path) {
            Ok(text) => Ok(SourceFile::new(shown, text)),
            Err(e) => Err(err(
                format!("cannot read included file `{shown}`: {e}"),
                "included from here",
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fresh directory under the system's temporary one.
    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!(
            "dred-include-{name}-{}-{:?}",
            std::process::id(),
            std::thread::current().id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("sub")).expect("scratch dir");
        dir
    }

    fn main(dir: &Path, text: &str) -> SourceFile {
        let path = dir.join("main.dl");
        std::fs::write(&path, text).expect("write");
        SourceFile::new(path.display().to_string(), text)
    }

    #[test]
    fn included_text_stands_in_place_and_positions_map_back() {
        let dir = scratch("splice");
        std::fs::write(
            dir.join("sub/a.dl"),
            ".decl a(x: number)\n#include \"b.dl\"\n",
        )
        .expect("write");
        std::fs::write(dir.join("sub/b.dl"), ".decl b(x: number)\n").expect("write");
        let f = main(&dir, "// main\n.include \"sub/a.dl\"\n.decl c(x: number)\n");
        let spliced = expand(&f).expect("expands");
        assert!(!spliced.text.contains("include"), "{}", spliced.text);
        for (what, file, line) in [
            (".decl a", "sub/a.dl", 1),
            (".decl b", "sub/b.dl", 1),
            (".decl c", "main.dl", 3),
        ] {
            let at = spliced.text.find(what).expect(what);
            let (origin, _) = spliced.locate(at);
            assert!(origin.name.ends_with(file), "{what}: {}", origin.name);
            assert_eq!(spliced.line_col(at), (line, 1), "{what}");
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_missing_file_and_a_cycle_are_located_errors() {
        let dir = scratch("errors");
        let f = main(&dir, ".decl c(x: number)\n  .include \"nowhere.dl\"\n");
        let e = expand(&f).expect_err("missing");
        assert_eq!((e.line(), e.column()), (2, 12), "{e}");
        assert!(e.message.contains("cannot read included file"), "{e}");
        std::fs::write(dir.join("sub/x.dl"), "\n.include \"y.dl\"\n").expect("write");
        std::fs::write(dir.join("sub/y.dl"), ".include \"x.dl\"\n").expect("write");
        let f = main(&dir, ".include \"sub/x.dl\"\n");
        let e = expand(&f).expect_err("cycle");
        assert!(e.to_string().contains("y.dl:1:1: include cycle"), "{e}");
        assert!(e.message.contains("x.dl` includes `"), "{e}");
        let f = main(&dir, ".include nowhere\n");
        let e = expand(&f).expect_err("unquoted");
        assert_eq!((e.line(), e.column()), (1, 10), "{e}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_qualified_name_ending_in_include_is_no_directive() {
        let f = SourceFile::new("p.dl", "r(x) :- inst.include(x).\n");
        let same = expand(&f).expect("no directive");
        assert!(same.pieces.is_none());
    }
}
