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
//!
//! The other directives of Soufflé's preprocessor (`#define`, `#ifdef`, ...) are read here
//! too, in the same pass ([`super::preprocess`] says what of `cpp` is supported): a file that
//! holds one, and every file once a macro is defined, is read line by line, so that a
//! conditional can leave an include out and a macro defined in an included file applies
//! after it. A macro's expansion is located at its invocation.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::lexer::{lex, Tok};
use super::preprocess::{self, Macro};
use crate::diagnostic::{Diagnostic, Piece, SourceFile, Span};

/// How deep includes may nest (a chain of distinct files longer than this is refused, to
/// keep a generated chain from exhausting memory).
const MAX_DEPTH: usize = 64;

/// `file` with every include directive replaced by the included file's text, recursively,
/// and the command line's macros ([`preprocess::set_command_line_macros`]) defined first.
pub(crate) fn expand(file: &SourceFile) -> Result<SourceFile, Diagnostic> {
    let macros: HashMap<String, Macro> = preprocess::command_line_macros().into_iter().collect();
    if macros.is_empty() && !has_cpp_directive(file) && directives(file)?.is_empty() {
        return Ok(file.clone());
    }
    let mut splice = Splice {
        text: String::new(),
        pieces: Vec::new(),
        stack: Vec::new(),
        macros,
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

/// True when a line of `file` is a preprocessor directive other than `#include` (a cheap
/// test: a line starting with `#` inside a block comment counts too, and is then read line
/// by line like the rest).
fn has_cpp_directive(file: &SourceFile) -> bool {
    file.text.lines().any(|l| {
        l.trim_start()
            .strip_prefix('#')
            .is_some_and(|rest| !rest.trim_start().starts_with("include"))
    })
}

/// One open conditional: whether its current branch is kept, whether a branch of it was
/// kept already, whether its `#else` was seen, and where it opened.
struct Conditional {
    active: bool,
    taken: bool,
    seen_else: bool,
    span: Span,
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
    /// The macros defined so far, by name.
    macros: HashMap<String, Macro>,
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
            origin_len: to - from,
        });
    }

    /// Appends `text`, the expansion of the macro invocation `file[from..to]`.
    fn expansion(&mut self, file: &SourceFile, text: &str, from: usize, to: usize) {
        if text.is_empty() {
            return;
        }
        let start = self.text.len();
        self.text.push_str(text);
        self.pieces.push(Piece {
            start,
            end: self.text.len(),
            file: file.clone(),
            origin: from,
            origin_len: to - from,
        });
    }

    /// Splices `file` (canonical path `path`) with its includes.
    fn file(&mut self, file: &SourceFile, path: PathBuf) -> Result<(), Diagnostic> {
        if !self.macros.is_empty() || has_cpp_directive(file) {
            self.stack.push((path, file.clone()));
            self.lines(file)?;
            self.stack.pop();
            return Ok(());
        }
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
            origin_len: 1,
        });
    }

    /// Splices `file` line by line: preprocessor directives obeyed, lines a conditional
    /// leaves out dropped, macros expanded in the others (see [`super::preprocess`]).
    fn lines(&mut self, file: &SourceFile) -> Result<(), Diagnostic> {
        let text = &file.text;
        let err = |span: Span, msg: String, label: &str| Diagnostic::new(file, span, msg, label);
        let mut conds: Vec<Conditional> = Vec::new();
        let mut in_comment = false;
        let mut pos = 0;
        while pos < text.len() {
            let mut end = text[pos..].find('\n').map_or(text.len(), |i| pos + i + 1);
            let active = conds.iter().all(|c| c.active);
            let line = &text[pos..end];
            let indent = line.len() - line.trim_start().len();
            if !in_comment && line.trim_start().starts_with('#') {
                // A directive, continued by a `\` at the end of its lines.
                let mut joined = String::new();
                let mut piece = line;
                loop {
                    let body = piece.trim_end_matches(['\n', '\r']);
                    match body.strip_suffix('\\') {
                        Some(cont) if end < text.len() => {
                            joined.push_str(cont);
                            joined.push(' ');
                            let next = text[end..].find('\n').map_or(text.len(), |i| end + i + 1);
                            piece = &text[end..next];
                            end = next;
                        }
                        _ => {
                            joined.push_str(body);
                            break;
                        }
                    }
                }
                let hash = pos + indent;
                let span = Span::new(hash, end.max(hash + 1).min(text.len()));
                let after = joined.trim_start()[1..].trim_start();
                let name_len = after
                    .bytes()
                    .position(|c| !c.is_ascii_alphanumeric() && c != b'_')
                    .unwrap_or(after.len());
                let (name, rest) = (&after[..name_len], after[name_len..].trim());
                // A comment after a directive is no part of it.
                let rest = match preprocess::code_ranges(rest, false).0.last() {
                    Some(&(_, e)) if e < rest.len() && !rest[e..].starts_with('"') => {
                        rest[..e].trim()
                    }
                    _ => rest,
                };
                let name_span = Span::new(hash, (hash + 1 + name_len).min(text.len()));
                self.directive(file, name, rest, span, name_span, active, &mut conds)?;
                pos = end;
                continue;
            }
            let (mut code, still_open) = preprocess::code_ranges(line, in_comment);
            let mut line = line;
            if active && !self.macros.is_empty() {
                // A call whose arguments go on in the next lines takes them in (and any
                // comment it opens or closes on the way).
                let starts_in_comment = in_comment;
                let mut open = still_open;
                while let Some((i, j)) = preprocess::unclosed_call(line, &code, &self.macros) {
                    if end >= text.len() {
                        return Err(err(
                            Span::new(pos + i, pos + j),
                            format!("the arguments of macro `{}` never close", &line[i..j]),
                            "this call has no `)`",
                        ));
                    }
                    end = text[end..].find('\n').map_or(text.len(), |i| end + i + 1);
                    line = &text[pos..end];
                    (code, open) = preprocess::code_ranges_of_lines(line, starts_in_comment);
                }
                in_comment = open;
            } else {
                in_comment = still_open;
            }
            if !active {
                pos = end;
                continue;
            }
            let include = !in_comment
                && code.first().is_some_and(|&(f, _)| f == 0)
                && line.trim_start().starts_with(".include");
            if include {
                let found = directives(&SourceFile::new(file.name.clone(), line.to_string()))?;
                if let Some(d) = found.into_iter().next() {
                    let d = Directive {
                        span: Span::new(pos + d.span.start, pos + d.span.end),
                        name: d.name,
                        name_span: Span::new(pos + d.name_span.start, pos + d.name_span.end),
                    };
                    self.copy(file, pos, d.span.start);
                    self.include(file, &d)?;
                    self.copy(file, d.span.end, end);
                    pos = end;
                    continue;
                }
            }
            let expansions = if self.macros.is_empty() {
                Vec::new()
            } else {
                preprocess::expand_line(line, &code, &self.macros)
                    .map_err(|why| err(Span::new(pos, end), why, "in this line"))?
            };
            let mut at = pos;
            for e in expansions {
                self.copy(file, at, pos + e.start);
                self.expansion(file, &e.text, pos + e.start, pos + e.end);
                at = pos + e.end;
            }
            self.copy(file, at, end);
            pos = end;
        }
        if let Some(open) = conds.last() {
            return Err(err(
                open.span,
                "this conditional has no `#endif`".into(),
                "opened here",
            ));
        }
        Ok(())
    }

    /// Splices the file the include directive `d` of `file` names in place, each side a
    /// space standing for the directive.
    fn include(&mut self, file: &SourceFile, d: &Directive) -> Result<(), Diagnostic> {
        let included = self.read(file, d)?;
        self.copy_space(file, d.span.start);
        let path = canonical(Path::new(&*included.name));
        self.file(&included, path)?;
        self.copy_space(file, d.span.end.saturating_sub(1));
        Ok(())
    }

    /// Obeys the directive `#name rest` of `file` (at `span`, its name at `name_span`) under
    /// the open conditionals `conds`; `active` when the line is kept.
    #[allow(clippy::too_many_arguments)]
    fn directive(
        &mut self,
        file: &SourceFile,
        name: &str,
        rest: &str,
        span: Span,
        name_span: Span,
        active: bool,
        conds: &mut Vec<Conditional>,
    ) -> Result<(), Diagnostic> {
        let err = |msg: String, label: &str| Diagnostic::new(file, span, msg, label);
        let unmatched = |what: &str| {
            Diagnostic::new(
                file,
                name_span,
                format!("`#{what}` without `#if`, `#ifdef` or `#ifndef`"),
                "nothing to close",
            )
        };
        match name {
            "ifdef" | "ifndef" | "if" => {
                let holds = if !active {
                    false
                } else if name == "if" {
                    preprocess::eval_condition(rest, &self.macros)
                        .map_err(|why| err(why, "in this condition"))?
                        != 0
                } else {
                    let macro_name = rest.split_whitespace().next().ok_or_else(|| {
                        err(format!("`#{name}` needs a macro name"), "name missing")
                    })?;
                    self.macros.contains_key(macro_name) == (name == "ifdef")
                };
                conds.push(Conditional {
                    active: holds,
                    taken: holds || !active,
                    seen_else: false,
                    span,
                });
            }
            "elif" | "else" => {
                let outer = conds.len() > 1 && conds[..conds.len() - 1].iter().all(|c| c.active);
                let outer = outer || conds.len() == 1;
                let macros = &self.macros;
                let c = conds.last_mut().ok_or_else(|| unmatched(name))?;
                if c.seen_else {
                    return Err(err(
                        format!("`#{name}` after `#else`"),
                        "the conditional has had its `#else`",
                    ));
                }
                let holds = !c.taken
                    && outer
                    && (name == "else"
                        || preprocess::eval_condition(rest, macros)
                            .map_err(|why| err(why, "in this condition"))?
                            != 0);
                c.active = holds;
                c.taken |= holds;
                c.seen_else = name == "else";
            }
            "endif" => {
                conds.pop().ok_or_else(|| unmatched(name))?;
            }
            _ if !active => {}
            "include" => {
                let quoted = rest
                    .strip_prefix('"')
                    .and_then(|r| r.strip_suffix('"'))
                    .filter(|n| !n.contains('"'));
                let Some(included) = quoted else {
                    return Err(err(
                        "expected the included file's name in double quotes".into(),
                        "write `#include \"file.dl\"`",
                    ));
                };
                let d = Directive {
                    span,
                    name: included.to_string(),
                    name_span: span,
                };
                self.include(file, &d)?;
            }
            "define" => {
                let (macro_name, m) =
                    preprocess::parse_define(rest).map_err(|why| err(why, "in this `#define`"))?;
                self.macros.insert(macro_name, m);
            }
            "undef" => {
                self.macros.remove(rest.trim());
            }
            "error" => {
                return Err(err(format!("#error {rest}"), "`#error` in a kept line"));
            }
            "pragma" => {}
            other => {
                return Err(Diagnostic::new(
                    file,
                    name_span,
                    format!("unknown preprocessor directive `#{other}`"),
                    "supported: #include, #define, #undef, #ifdef, #ifndef, #if, #elif, #else, #endif, #error",
                ));
            }
        }
        Ok(())
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
    fn conditionals_leave_includes_out_and_macros_cross_files() {
        let dir = scratch("cpp");
        std::fs::write(
            dir.join("sub/defs.dl"),
            "#define REL(x) rel(x, x)\n#ifndef NO_EXTRA\n#define EXTRA 1\n#endif\n",
        )
        .expect("write");
        let f = main(
            &dir,
            "#include \"sub/defs.dl\"\n#if EXTRA && !defined(OTHER)\nkept :- REL(1).\n\
             #else\n#include \"missing.dl\"\n#endif\n#ifdef OTHER\ndropped.\n#elif EXTRA\n\
             second :- \"REL(2)\", REL(3). // REL(4)\n#endif\n#undef REL\nlast :- REL(5).\n",
        );
        let spliced = expand(&f).expect("expands");
        let kept: Vec<&str> = spliced
            .text
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .collect();
        assert_eq!(
            kept,
            [
                "kept :- rel(1, 1).",
                "second :- \"REL(2)\", rel(3, 3). // REL(4)",
                "last :- REL(5)."
            ],
            "{}",
            spliced.text
        );
        // An expansion is located at its invocation, the text after it where it is.
        let at = spliced.text.find("rel(3, 3)").expect("expanded");
        assert_eq!(spliced.line_col(at), (10, 21));
        assert_eq!(spliced.line_col(at + 8), (10, 21 + 6), "within `REL(3)`");
        let after = spliced.text.find(". // REL(4)").expect("rest of the line");
        assert_eq!(spliced.line_col(after), (10, 27));
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// A call's arguments may run over lines, with comments among them; the lines after the
    /// call keep their place, and a call whose `(` is not on its name's line is no call.
    #[test]
    fn a_call_may_span_lines() {
        let f = SourceFile::new(
            "p.dl",
            "#define E(a, b) edge(a, b)\nr(x, y) :- E(x, // the source\n   y), /* E( */ x < 2.\n\
             s(x) :- E\n(x, x).\nt(x) :- E(x, \"a)\"), E(x,\nx).\n",
        );
        let spliced = expand(&f).expect("expands");
        let text: String = spliced
            .text
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        assert_eq!(
            text,
            "r(x, y) :- edge(x, y), /* E( */ x < 2. s(x) :- E (x, x). \
             t(x) :- edge(x, \"a)\"), edge(x, x).",
            "{}",
            spliced.text
        );
        let at = spliced.text.find("x < 2").expect("rest of the line");
        assert_eq!(spliced.line_col(at), (3, 17));
    }

    #[test]
    fn preprocessor_errors_are_located() {
        for (text, at, what) in [
            ("a.\n#ifdef X\nb.\n", (2, 1), "no `#endif`"),
            ("#endif\n", (1, 1), "`#endif` without `#if`"),
            (
                "#if 1\n#else\n#elif 1\n#endif\n",
                (3, 1),
                "`#elif` after `#else`",
            ),
            (
                "  #frobnicate\n",
                (1, 3),
                "unknown preprocessor directive `#frobnicate`",
            ),
            (
                "#define F(a) a\nr(F(1, 2)).\n",
                (2, 1),
                "takes 1 argument(s), here 2",
            ),
            (
                "#define G(x) #y\n",
                (1, 1),
                "`#` must be followed by a parameter",
            ),
            ("#if (1\n#endif\n", (1, 1), "without `)`"),
            (
                "#ifdef A\n#error skipped\n#else\n#error \\\n  kept\n#endif\n",
                (4, 1),
                "#error kept",
            ),
            ("#include missing.dl\n", (1, 10), "double quotes"),
            ("#define A\n#include missing.dl\n", (2, 1), "double quotes"),
            (
                "#define F(a) a\nr(x) :- e(x),\n  F(x,\n",
                (3, 3),
                "the arguments of macro `F` never close",
            ),
        ] {
            let f = SourceFile::new("p.dl", text);
            let e = expand(&f).expect_err(text);
            assert_eq!((e.line(), e.column()), at, "{text}: {e}");
            assert!(e.message.contains(what), "{text}: {e}");
        }
    }

    #[test]
    fn a_qualified_name_ending_in_include_is_no_directive() {
        let f = SourceFile::new("p.dl", "r(x) :- inst.include(x).\n");
        let same = expand(&f).expect("no directive");
        assert!(same.pieces.is_none());
    }
}
