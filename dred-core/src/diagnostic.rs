//! Located errors for everything a user writes: programs, facts and update streams.
//!
//! A [`Diagnostic`] names the file, the 1-based line and column, and carries the offending
//! source text so that it can be rendered with the line underlined. Every input layer
//! (parser, checker, fact and update readers) reports through it, so the binary prints one
//! format for all bad input.

use std::fmt;
use std::sync::Arc;

/// A byte range into one source text.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Span {
    /// Byte offset of the first character.
    pub start: usize,
    /// Byte offset one past the last character.
    pub end: usize,
}

impl Span {
    /// A span covering `start..end`.
    pub fn new(start: usize, end: usize) -> Self {
        Span { start, end }
    }

    /// The smallest span covering both.
    pub fn to(self, other: Span) -> Span {
        Span::new(self.start.min(other.start), self.end.max(other.end))
    }
}

/// A named source text, shared cheaply between the AST and diagnostics.
///
/// A program that includes other files (`.include "f"`) is one text spliced from theirs;
/// [`SourceFile::pieces`] then says which file each part comes from, and every position
/// ([`SourceFile::line_col`], [`SourceFile::locate`], diagnostics) is given in that file.
#[derive(Clone, Debug)]
pub struct SourceFile {
    /// The path as the user gave it.
    pub name: Arc<str>,
    /// The whole text.
    pub text: Arc<str>,
    /// For a text spliced from several files: its pieces, in order, covering it; `None` for
    /// the text of one file.
    pub pieces: Option<Arc<[Piece]>>,
}

/// A part of a spliced text ([`SourceFile::pieces`]) and where it comes from.
#[derive(Clone, Debug)]
pub struct Piece {
    /// Byte offset of the piece in the spliced text.
    pub start: usize,
    /// Byte offset one past its end.
    pub end: usize,
    /// The file it is copied from (a file of its own, without pieces).
    pub file: SourceFile,
    /// Byte offset in that file of the piece's first byte.
    pub origin: usize,
    /// Its length in that file: the piece's own for a copy, the invocation's for a macro's
    /// expansion (longer or shorter than the text it replaces), so that every byte of an
    /// expansion is located within the invocation.
    pub origin_len: usize,
}

impl SourceFile {
    /// Wraps a text with the name it is reported under.
    pub fn new(name: impl Into<Arc<str>>, text: impl Into<Arc<str>>) -> Self {
        SourceFile {
            name: name.into(),
            text: text.into(),
            pieces: None,
        }
    }

    /// The file a byte offset of this text comes from, and the offset there: the text itself
    /// unless it is spliced from included files.
    pub fn locate(&self, offset: usize) -> (&SourceFile, usize) {
        let Some(pieces) = &self.pieces else {
            return (self, offset);
        };
        let i = pieces
            .partition_point(|p| p.end <= offset)
            .min(pieces.len().saturating_sub(1));
        match pieces.get(i) {
            Some(p) => (
                &p.file,
                p.origin + offset.saturating_sub(p.start).min(p.origin_len),
            ),
            None => (self, offset),
        }
    }

    /// 1-based line and column (in characters) of a byte offset, in the file it comes from
    /// (see [`SourceFile::locate`]); offsets past the end map to the end of the text.
    pub fn line_col(&self, offset: usize) -> (usize, usize) {
        let (file, offset) = self.locate(offset);
        file.own_line_col(offset)
    }

    /// `line_col` in this text itself.
    fn own_line_col(&self, offset: usize) -> (usize, usize) {
        let offset = offset.min(self.text.len());
        let before = &self.text[..floor_char_boundary(&self.text, offset)];
        let line = before.matches('\n').count() + 1;
        let line_start = before.rfind('\n').map_or(0, |i| i + 1);
        let col = before[line_start..].chars().count() + 1;
        (line, col)
    }
}

fn floor_char_boundary(s: &str, mut i: usize) -> usize {
    while i > 0 && !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// One error in user input, located at file:line:column.
///
/// `Display` prints `file:line:col: message`; [`Diagnostic::render`] adds the source line with
/// the span underlined.
#[derive(Clone, Debug)]
pub struct Diagnostic {
    /// The file the error is in.
    pub file: SourceFile,
    /// Where in it.
    pub span: Span,
    /// What is wrong, in one sentence.
    pub message: String,
    /// A short label printed under the underlined text.
    pub label: String,
}

impl Diagnostic {
    /// An error at `span` of `file`.
    pub fn new(
        file: &SourceFile,
        span: Span,
        message: impl Into<String>,
        label: impl Into<String>,
    ) -> Self {
        Diagnostic {
            file: file.clone(),
            span,
            message: message.into(),
            label: label.into(),
        }
    }

    /// 1-based line of the error.
    pub fn line(&self) -> usize {
        self.file.line_col(self.span.start).0
    }

    /// 1-based column of the error.
    pub fn column(&self) -> usize {
        self.file.line_col(self.span.start).1
    }

    /// The message with the offending source shown and underlined, without colour, suitable
    /// for a terminal or a log.
    pub fn render(&self) -> String {
        use ariadne::{Config, Label, Report, ReportKind, Source};
        let (file, start) = self.file.locate(self.span.start);
        // The span's end in the same file (a span never straddles an included file's edge,
        // but is cut there if it did).
        let end = if self.span.end > self.span.start {
            let (end_file, last) = self.file.locate(self.span.end - 1);
            if std::ptr::eq(file, end_file) {
                last + 1
            } else {
                file.text.len()
            }
        } else {
            start
        };
        let span = Span::new(start, end.max(start));
        let name: &str = &file.name;
        let text: &str = &file.text;
        // ariadne counts characters, not bytes.
        let to_char = |b: usize| {
            text[..floor_char_boundary(text, b.min(text.len()))]
                .chars()
                .count()
        };
        let start = to_char(span.start);
        let end = to_char(span.end).max(start);
        let mut out = Vec::new();
        let header = format!(
            "{}:{}:{}: {}",
            name,
            self.line(),
            self.column(),
            self.message
        );
        let report = Report::build(ReportKind::Error, (name, start..end))
            .with_config(Config::default().with_color(false))
            .with_message(&header)
            .with_label(Label::new((name, start..end)).with_message(&self.label))
            .finish();
        if report.write((name, Source::from(text)), &mut out).is_err() {
            return header;
        }
        String::from_utf8_lossy(&out).into_owned()
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}:{}: {}",
            self.file.locate(self.span.start).0.name,
            self.line(),
            self.column(),
            self.message
        )
    }
}

impl std::error::Error for Diagnostic {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_and_column_are_one_based() {
        let f = SourceFile::new("p.dl", "ab\ncdé f\n");
        assert_eq!(f.line_col(0), (1, 1));
        assert_eq!(f.line_col(3), (2, 1));
        // 'f' is after a two-byte character.
        assert_eq!(f.line_col(8), (2, 5));
        let d = Diagnostic::new(&f, Span::new(8, 9), "bad", "here");
        assert_eq!(d.to_string(), "p.dl:2:5: bad");
        let r = d.render();
        assert!(r.contains("p.dl:2:5: bad"), "{r}");
        assert!(r.contains("cdé f"), "{r}");
    }
}
