//! What Soufflé's C preprocessor does beyond `#include`: `#define` (object-like and
//! function-like macros), `#undef`, and the conditionals `#ifdef`, `#ifndef`, `#if`, `#elif`,
//! `#else`, `#endif`; `#error` stops with its message. The include splice
//! ([`super::include`]) runs a file through this line by line once it holds a directive or
//! a macro is defined, so that macros defined in an included file apply after it and a
//! conditional can leave an `#include` out, as with `cpp`.
//!
//! The subset, and where it differs from `cpp`: a directive is a line whose first character
//! other than white space is `#` (outside a block comment), continued by a `\` at the end of
//! a line. Macros are expanded in the lines that are kept, outside strings and comments, and
//! rescanned (a macro is not expanded inside its own expansion); a function-like macro's
//! `(` must stand on the line of its name, and its arguments may run over the lines after
//! (with comments between them), as `cpp` reads them. In a body, `#param` makes the argument a
//! string literal and `##` joins the pieces on either side (both before the rescan; an
//! argument is substituted as written, not expanded first). `#line` and directives `cpp` has
//! and Soufflé programs do not use are refused. An
//! `#if` expression has integers, `defined NAME`/`defined(NAME)`, macros (an undefined name
//! is 0), `!`, `&&`, `||`, the comparisons and parentheses.

use std::collections::HashMap;

/// A macro: its parameters (`None` for an object-like macro) and its body.
#[derive(Clone, Debug)]
pub(super) struct Macro {
    pub(super) params: Option<Vec<String>>,
    pub(super) body: String,
}

/// The macros defined on the command line (`dredbench -M NAME=VALUE`), which every program
/// read afterwards starts with; process-wide, as a compiler's `-D` is for its run.
static COMMAND_LINE: std::sync::RwLock<Vec<(String, Macro)>> = std::sync::RwLock::new(Vec::new());

/// Defines the macros every program read from now on starts with, from `NAME`, `NAME=VALUE`
/// or `NAME(params)=BODY` (as `cpp -D` reads them: `NAME` alone is defined as `1`); replaces
/// those set before. An error names the first definition that does not read.
pub fn set_command_line_macros(defs: &[String]) -> Result<(), String> {
    let mut macros = Vec::with_capacity(defs.len());
    for d in defs {
        let text = match d.split_once('=') {
            Some((name, value)) => format!("{name} {value}"),
            None => format!("{d} 1"),
        };
        let parsed = parse_define(&text)
            .map_err(|e| format!("macro `{d}`: {}", e.replace(" after `#define`", "")))?;
        if !d.starts_with(parsed.0.as_str())
            || !matches!(d[parsed.0.len()..].chars().next(), None | Some('=' | '('))
        {
            return Err(format!(
                "macro `{d}`: expected NAME, NAME=VALUE or NAME(params)=BODY"
            ));
        }
        macros.push(parsed);
    }
    *COMMAND_LINE
        .write()
        .unwrap_or_else(std::sync::PoisonError::into_inner) = macros;
    Ok(())
}

/// The macros set by [`set_command_line_macros`].
pub(super) fn command_line_macros() -> Vec<(String, Macro)> {
    COMMAND_LINE
        .read()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .clone()
}

/// How deep expansions may nest before the preprocessor gives up (a macro expanding into
/// ever longer text through other macros).
const MAX_DEPTH: usize = 64;

/// The byte ranges of `line` outside strings and comments, given whether the line starts
/// inside a block comment; and whether it ends inside one.
pub(super) fn code_ranges(line: &str, mut in_comment: bool) -> (Vec<(usize, usize)>, bool) {
    let b = line.as_bytes();
    let mut ranges = Vec::new();
    let mut i = 0;
    let mut start = 0;
    while i < b.len() {
        if in_comment {
            if b[i] == b'*' && b.get(i + 1) == Some(&b'/') {
                in_comment = false;
                i += 2;
                start = i;
            } else {
                i += 1;
            }
            continue;
        }
        match b[i] {
            b'/' if b.get(i + 1) == Some(&b'*') => {
                ranges.push((start, i));
                in_comment = true;
                i += 2;
            }
            b'/' if b.get(i + 1) == Some(&b'/') => {
                ranges.push((start, i));
                return (ranges, false);
            }
            b'"' => {
                ranges.push((start, i));
                i += 1;
                while i < b.len() && b[i] != b'"' {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
                i = (i + 1).min(b.len());
                start = i;
            }
            _ => i += 1,
        }
    }
    if !in_comment {
        ranges.push((start, b.len()));
    }
    (ranges, in_comment)
}

fn is_ident_start(c: u8) -> bool {
    c.is_ascii_alphabetic() || c == b'_'
}

fn is_ident(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

/// One expansion in a line: the invocation's byte range and its replacement.
pub(super) struct Expansion {
    pub(super) start: usize,
    pub(super) end: usize,
    pub(super) text: String,
}

/// The identifiers of `text` in its code ranges `code`: each one's byte range, and the end
/// of the code range it stands in.
fn identifiers(text: &str, code: &[(usize, usize)]) -> Vec<(usize, usize, usize)> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    for &(from, to) in code {
        let mut i = from;
        while i < to {
            if !is_ident_start(b[i]) || (i > 0 && is_ident(b[i - 1])) {
                i += 1;
                continue;
            }
            let mut j = i;
            while j < to && is_ident(b[j]) {
                j += 1;
            }
            out.push((i, j, to));
            i = j;
        }
    }
    out
}

/// A macro invocation: its byte range, the macro's name and the macro, its arguments.
struct Invocation<'m> {
    start: usize,
    end: usize,
    name: &'m str,
    m: &'m Macro,
    args: Vec<String>,
}

/// The invocations in `text` (code ranges `code`) of the macros not `disabled`, in order; a
/// function-like macro's name without `(` after it is none.
fn invocations<'m>(
    text: &str,
    code: &[(usize, usize)],
    macros: &'m HashMap<String, Macro>,
    disabled: &[String],
) -> Vec<Invocation<'m>> {
    let mut out = Vec::new();
    let mut after = 0;
    for (i, j, to) in identifiers(text, code) {
        if i < after {
            continue; // inside the arguments of the previous invocation
        }
        let Some((name, m)) = macros
            .get_key_value(&text[i..j])
            .filter(|(n, _)| !disabled.iter().any(|d| d == *n))
        else {
            continue;
        };
        let (args, end) = match &m.params {
            None => (Vec::new(), j),
            // The arguments may hold strings, so they may close past the code range.
            Some(_) => match call_args(text, j, text.len().max(to)) {
                Some(found) => found,
                None => continue,
            },
        };
        out.push(Invocation {
            start: i,
            end,
            name,
            m,
            args,
        });
        after = end;
    }
    out
}

/// The byte range of the name of a call in `text` (code ranges `code`) of a function-like
/// macro whose `(` stands on the call's line and whose `)` is not in `text`: the call goes
/// on in the lines after, which the caller joins to it (`cpp` reads a call's arguments
/// across lines).
pub(super) fn unclosed_call(
    text: &str,
    code: &[(usize, usize)],
    macros: &HashMap<String, Macro>,
) -> Option<(usize, usize)> {
    let mut after = 0;
    for (i, j, _) in identifiers(text, code) {
        if i < after || macros.get(&text[i..j]).is_none_or(|m| m.params.is_none()) {
            continue;
        }
        let line_end = text[j..].find('\n').map_or(text.len(), |k| j + k);
        let opens = text[j..line_end].trim_start().starts_with('(');
        match call_args(text, j, text.len()) {
            Some((_, end)) => after = end,
            None if opens => return Some((i, j)),
            None => {}
        }
    }
    None
}

/// [`code_ranges`] of a text of several lines (a `//` comment ends at its line's end).
pub(super) fn code_ranges_of_lines(
    text: &str,
    mut in_comment: bool,
) -> (Vec<(usize, usize)>, bool) {
    let mut ranges = Vec::new();
    let mut at = 0;
    for line in text.split_inclusive('\n') {
        let (code, open) = code_ranges(line, in_comment);
        ranges.extend(code.into_iter().map(|(a, b)| (at + a, at + b)));
        in_comment = open;
        at += line.len();
    }
    (ranges, in_comment)
}

/// The macro invocations of `line` (outside strings and comments, by `code_ranges`) with
/// their expansions, in order; an error for a wrong number of arguments or expansions nested
/// too deep.
pub(super) fn expand_line(
    line: &str,
    code: &[(usize, usize)],
    macros: &HashMap<String, Macro>,
) -> Result<Vec<Expansion>, String> {
    invocations(line, code, macros, &[])
        .into_iter()
        .map(|inv| {
            let mut disabled = vec![inv.name.to_string()];
            let text = apply(inv.m, inv.name, &inv.args, macros, &mut disabled, 0)?;
            Ok(Expansion {
                start: inv.start,
                end: inv.end,
                text,
            })
        })
        .collect()
}

/// The arguments of a call whose `(` follows (after white space) byte `at`, and the byte
/// after its `)`; `None` when no `(` follows or the `)` is not before `to`. Strings and
/// comments inside are skipped (a `//` comment to its line's end).
fn call_args(text: &str, at: usize, to: usize) -> Option<(Vec<String>, usize)> {
    let b = text.as_bytes();
    let mut i = at;
    while i < to && b[i].is_ascii_whitespace() {
        i += 1;
    }
    if i >= to || b[i] != b'(' {
        return None;
    }
    let mut depth = 0;
    let mut args = Vec::new();
    // The argument so far, its comments each a space (as `cpp` reads them: a `//` comment
    // moved into a body could hide the rest of its line); `text[copied..i]` is still to add.
    let mut arg = String::new();
    let mut copied = i + 1;
    while i < to {
        match b[i] {
            b'(' => depth += 1,
            b')' => {
                depth -= 1;
                if depth == 0 {
                    arg.push_str(&text[copied..i]);
                    let last = arg.trim();
                    if !(args.is_empty() && last.is_empty()) {
                        args.push(last.to_string());
                    }
                    return Some((args, i + 1));
                }
            }
            b',' if depth == 1 => {
                arg.push_str(&text[copied..i]);
                args.push(arg.trim().to_string());
                arg.clear();
                copied = i + 1;
            }
            b'"' => {
                i += 1;
                while i < to && b[i] != b'"' {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
            }
            b'/' if b.get(i + 1) == Some(&b'/') => {
                arg.push_str(&text[copied..i]);
                arg.push(' ');
                // The line's end is kept: it is the comment's end.
                i = text[i..to].find('\n').map_or(to, |k| i + k);
                copied = i;
                continue;
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                arg.push_str(&text[copied..i]);
                arg.push(' ');
                i = text[i + 2..to].find("*/").map_or(to, |k| i + 2 + k + 2);
                copied = i;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// The expansion of macro `m` (named `name`) with `args`, rescanned for other macros;
/// `disabled` are the macros being expanded, which are not expanded again.
fn apply(
    m: &Macro,
    name: &str,
    args: &[String],
    macros: &HashMap<String, Macro>,
    disabled: &mut Vec<String>,
    depth: usize,
) -> Result<String, String> {
    if depth > MAX_DEPTH {
        return Err(format!(
            "macro expansion nested more than {MAX_DEPTH} deep (in `{name}`)"
        ));
    }
    let params: &[String] = m.params.as_deref().unwrap_or(&[]);
    if m.params.is_some() && params.len() != args.len() {
        return Err(format!(
            "macro `{name}` takes {} argument(s), here {}",
            params.len(),
            args.len()
        ));
    }
    let body = replace_params(&m.body, m.params.is_some(), |word| {
        params
            .iter()
            .position(|p| p == word)
            .map(|k| args[k].as_str())
    });
    rescan(&body, macros, disabled, depth + 1)
}

/// A piece of a macro body: what `#` and `##` work on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum BodyToken {
    /// A name.
    Ident,
    /// A run of white space.
    Space,
    /// `#`.
    Hash,
    /// `##`.
    Paste,
    /// Anything else: a string or comment whole, or one character.
    Other,
}

/// `body` cut into [`BodyToken`]s, each with its text.
fn body_tokens(body: &str) -> Vec<(BodyToken, &str)> {
    let b = body.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let start = i;
        let kind = if is_ident_start(b[i]) {
            while i < b.len() && is_ident(b[i]) {
                i += 1;
            }
            BodyToken::Ident
        } else if b[i].is_ascii_whitespace() {
            while i < b.len() && b[i].is_ascii_whitespace() {
                i += 1;
            }
            BodyToken::Space
        } else if b[i] == b'#' {
            i += 1;
            if b.get(i) == Some(&b'#') {
                i += 1;
                BodyToken::Paste
            } else {
                BodyToken::Hash
            }
        } else if b[i] == b'"' {
            i += 1;
            while i < b.len() && b[i] != b'"' {
                i += if b[i] == b'\\' { 2 } else { 1 };
            }
            i = (i + 1).min(b.len());
            BodyToken::Other
        } else if b[i] == b'/' && matches!(b.get(i + 1), Some(b'/' | b'*')) {
            // A comment runs to the end of the body (a `#define` is one line).
            i = b.len();
            BodyToken::Other
        } else {
            i += body[i..].chars().next().map_or(1, char::len_utf8);
            BodyToken::Other
        };
        out.push((kind, &body[start..i]));
    }
    out
}

/// `body` with each parameter (`arg` gives its argument) replaced by its argument, `#param`
/// (in a function-like macro) by the argument as a string literal, and each `##` removed
/// with the white space around it, so that the pieces on either side join into one.
fn replace_params<'a>(
    body: &str,
    function_like: bool,
    arg: impl Fn(&str) -> Option<&'a str>,
) -> String {
    let tokens = body_tokens(body);
    let mut out = String::with_capacity(body.len());
    let mut i = 0;
    while i < tokens.len() {
        let (kind, text) = tokens[i];
        i += 1;
        match kind {
            BodyToken::Hash if function_like => {
                while tokens.get(i).is_some_and(|t| t.0 == BodyToken::Space) {
                    i += 1;
                }
                // `parse_define` checked that a parameter follows.
                if let Some(a) = tokens.get(i).and_then(|t| arg(t.1)) {
                    out.push_str(&stringify(a));
                    i += 1;
                }
            }
            BodyToken::Paste => {
                out.truncate(out.trim_end().len());
                while tokens.get(i).is_some_and(|t| t.0 == BodyToken::Space) {
                    i += 1;
                }
            }
            BodyToken::Ident => out.push_str(arg(text).unwrap_or(text)),
            _ => out.push_str(text),
        }
    }
    out
}

/// An argument as `#` makes it a string literal: white space runs as one space, `"` and `\`
/// escaped.
fn stringify(arg: &str) -> String {
    let mut out = String::from('"');
    let mut space = false;
    for c in arg.trim().chars() {
        if c.is_whitespace() {
            space = true;
            continue;
        }
        if space {
            out.push(' ');
            space = false;
        }
        if c == '"' || c == '\\' {
            out.push('\\');
        }
        out.push(c);
    }
    out.push('"');
    out
}

/// `text` with every identifier outside strings for which `f` gives a replacement replaced.
fn substitute(text: &str, f: impl Fn(&str) -> Option<String>) -> String {
    let (code, _) = code_ranges(text, false);
    let mut out = String::with_capacity(text.len());
    let mut copied = 0;
    for (i, j, _) in identifiers(text, &code) {
        if let Some(r) = f(&text[i..j]) {
            out.push_str(&text[copied..i]);
            out.push_str(&r);
            copied = j;
        }
    }
    out.push_str(&text[copied..]);
    out
}

/// `text` with the macros in it expanded, but those in `disabled`.
fn rescan(
    text: &str,
    macros: &HashMap<String, Macro>,
    disabled: &mut Vec<String>,
    depth: usize,
) -> Result<String, String> {
    let (code, _) = code_ranges(text, false);
    let mut out = String::with_capacity(text.len());
    let mut copied = 0;
    for inv in invocations(text, &code, macros, disabled) {
        disabled.push(inv.name.to_string());
        let expanded = apply(inv.m, inv.name, &inv.args, macros, disabled, depth);
        disabled.pop();
        out.push_str(&text[copied..inv.start]);
        out.push_str(&expanded?);
        copied = inv.end;
    }
    out.push_str(&text[copied..]);
    Ok(out)
}

/// Reads `#define`'s rest (`NAME body` or `NAME(p, ...) body`) into a name and a macro.
pub(super) fn parse_define(rest: &str) -> Result<(String, Macro), String> {
    let b = rest.as_bytes();
    let mut j = 0;
    while j < b.len() && is_ident(b[j]) {
        j += 1;
    }
    if j == 0 || !is_ident_start(b[0]) {
        return Err("expected a macro name after `#define`".into());
    }
    let name = rest[..j].to_string();
    let (params, body) = if b.get(j) == Some(&b'(') {
        let close = rest[j..]
            .find(')')
            .map(|k| j + k)
            .ok_or_else(|| format!("the parameters of macro `{name}` do not close"))?;
        let params: Vec<String> = rest[j + 1..close]
            .split(',')
            .map(|p| p.trim().to_string())
            .filter(|p| !p.is_empty())
            .collect();
        if let Some(bad) = params
            .iter()
            .find(|p| !p.bytes().all(is_ident) || !is_ident_start(p.as_bytes()[0]))
        {
            return Err(format!("`{bad}` is not a parameter name of macro `{name}`"));
        }
        (Some(params), rest[close + 1..].trim())
    } else {
        (None, rest[j..].trim())
    };
    let tokens: Vec<(BodyToken, &str)> = body_tokens(body)
        .into_iter()
        .filter(|t| t.0 != BodyToken::Space)
        .collect();
    if tokens.first().is_some_and(|t| t.0 == BodyToken::Paste)
        || tokens.last().is_some_and(|t| t.0 == BodyToken::Paste)
    {
        return Err(format!(
            "macro `{name}`: `##` cannot be at either end of the body"
        ));
    }
    if let Some(params) = &params {
        for (k, t) in tokens.iter().enumerate() {
            let names_param = tokens
                .get(k + 1)
                .is_some_and(|n| n.0 == BodyToken::Ident && params.iter().any(|p| p == n.1));
            if t.0 == BodyToken::Hash && !names_param {
                return Err(format!(
                    "macro `{name}`: `#` must be followed by a parameter of the macro"
                ));
            }
        }
    }
    Ok((
        name,
        Macro {
            params,
            body: body.to_string(),
        },
    ))
}

/// The value of an `#if` expression (non-zero is true).
pub(super) fn eval_condition(expr: &str, macros: &HashMap<String, Macro>) -> Result<i64, String> {
    // `defined` first, on the text as written, then every other macro expanded.
    let mut with_defined = String::new();
    let mut rest = expr;
    while let Some(k) = rest.find("defined") {
        let before_ok = k == 0 || !is_ident(rest.as_bytes()[k - 1]);
        let after = &rest[k + 7..];
        if !before_ok || after.bytes().next().is_some_and(is_ident) {
            with_defined.push_str(&rest[..k + 7]);
            rest = after;
            continue;
        }
        with_defined.push_str(&rest[..k]);
        let t = after.trim_start();
        let (inner, tail) = if let Some(p) = t.strip_prefix('(') {
            let close = p.find(')').ok_or("`defined(` without `)`")?;
            (p[..close].trim(), &p[close + 1..])
        } else {
            let end = t.bytes().position(|c| !is_ident(c)).unwrap_or(t.len());
            (&t[..end], &t[end..])
        };
        if inner.is_empty() {
            return Err("`defined` without a macro name".into());
        }
        with_defined.push_str(if macros.contains_key(inner) {
            " 1 "
        } else {
            " 0 "
        });
        rest = tail;
    }
    with_defined.push_str(rest);
    let expanded = rescan(&with_defined, macros, &mut Vec::new(), 0)?;
    // Names left are undefined macros: 0, as in `cpp`.
    let zeroed = substitute(&expanded, |_| Some("0".to_string()));
    let mut p = CondParser {
        s: zeroed.as_bytes(),
        i: 0,
    };
    let v = p.or()?;
    p.space();
    if p.i < p.s.len() {
        return Err(format!(
            "unexpected `{}` in the `#if` expression",
            String::from_utf8_lossy(&p.s[p.i..])
        ));
    }
    Ok(v)
}

/// A recursive-descent evaluator of `#if` expressions.
struct CondParser<'a> {
    s: &'a [u8],
    i: usize,
}

impl CondParser<'_> {
    fn space(&mut self) {
        while self.i < self.s.len() && self.s[self.i].is_ascii_whitespace() {
            self.i += 1;
        }
    }

    fn eat(&mut self, op: &str) -> bool {
        self.space();
        if self.s[self.i..].starts_with(op.as_bytes()) {
            self.i += op.len();
            true
        } else {
            false
        }
    }

    fn or(&mut self) -> Result<i64, String> {
        let mut v = self.and()?;
        while self.eat("||") {
            let r = self.and()?;
            v = i64::from(v != 0 || r != 0);
        }
        Ok(v)
    }

    fn and(&mut self) -> Result<i64, String> {
        let mut v = self.cmp()?;
        while self.eat("&&") {
            let r = self.cmp()?;
            v = i64::from(v != 0 && r != 0);
        }
        Ok(v)
    }

    fn cmp(&mut self) -> Result<i64, String> {
        let l = self.unary()?;
        for (op, f) in [
            ("==", i64::eq as fn(&i64, &i64) -> bool),
            ("!=", i64::ne),
            ("<=", i64::le),
            (">=", i64::ge),
            ("<", i64::lt),
            (">", i64::gt),
        ] {
            if self.eat(op) {
                let r = self.unary()?;
                return Ok(i64::from(f(&l, &r)));
            }
        }
        Ok(l)
    }

    fn unary(&mut self) -> Result<i64, String> {
        if self.eat("!") {
            return Ok(i64::from(self.unary()? == 0));
        }
        if self.eat("(") {
            let v = self.or()?;
            if !self.eat(")") {
                return Err("`(` without `)` in the `#if` expression".into());
            }
            return Ok(v);
        }
        self.space();
        let start = self.i;
        while self.i < self.s.len() && self.s[self.i].is_ascii_digit() {
            self.i += 1;
        }
        std::str::from_utf8(&self.s[start..self.i])
            .ok()
            .and_then(|d| d.parse().ok())
            .ok_or_else(|| {
                format!(
                    "expected a number at `{}` in the `#if` expression",
                    String::from_utf8_lossy(&self.s[start..])
                )
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn macros(defs: &[&str]) -> HashMap<String, Macro> {
        defs.iter()
            .map(|d| parse_define(d).expect(d))
            .collect::<HashMap<_, _>>()
    }

    fn expanded(line: &str, m: &HashMap<String, Macro>) -> String {
        let (code, _) = code_ranges(line, false);
        let mut out = String::new();
        let mut at = 0;
        for e in expand_line(line, &code, m).expect(line) {
            out.push_str(&line[at..e.start]);
            out.push_str(&e.text);
            at = e.end;
        }
        out.push_str(&line[at..]);
        out
    }

    #[test]
    fn macros_expand_outside_strings_and_comments_and_rescan() {
        let m = macros(&[
            "EDGE(a, b) edge(a, b)",
            "PATH path",
            "TWO(x) EDGE(x, x), PATH(x, x)",
            "SELF SELF + 1",
        ]);
        assert_eq!(
            expanded("PATH(x, y) :- EDGE(x, y). // PATH", &m),
            "path(x, y) :- edge(x, y). // PATH"
        );
        assert_eq!(
            expanded("r(\"PATH\") :- TWO(z).", &m),
            "r(\"PATH\") :- edge(z, z), path(z, z)."
        );
        assert_eq!(
            expanded("x = SELF", &m),
            "x = SELF + 1",
            "not expanded in itself"
        );
        assert_eq!(
            expanded("EDGE = PATHS", &m),
            "EDGE = PATHS",
            "no call, no match"
        );
        let (code, _) = code_ranges("EDGE(a)", false);
        assert!(expand_line("EDGE(a)", &code, &m).is_err());
    }

    #[test]
    fn conditions_evaluate_like_cpp() {
        let m = macros(&["ONE 1", "FLAG", "N 3"]);
        for (expr, v) in [
            ("defined(FLAG)", 1),
            ("defined FLAG && !defined(OTHER)", 1),
            ("ONE == 1 && N > 2", 1),
            ("UNDEFINED", 0),
            ("(N - 0) || 0", -1),
            ("!(N >= 4)", 1),
        ] {
            match eval_condition(expr, &m) {
                Ok(got) if v >= 0 => assert_eq!(got != 0, v == 1, "{expr}"),
                Ok(got) => panic!("{expr}: {got}, expected an error"),
                Err(e) => assert!(v < 0, "{expr}: {e}"),
            }
        }
    }

    #[test]
    fn defines_are_checked() {
        assert!(parse_define("F(a, b) a + b").is_ok());
        for bad in [
            "",
            "1X",
            "F(a b) a",
            "G(x) #y",
            "H ## b",
            "I(a) a ##",
            "K(a",
        ] {
            assert!(parse_define(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn stringify_and_paste_like_cpp() {
        let m = macros(&[
            "NAME(x) name(#x, # x)",
            "REL(k) rel_ ## k",
            "JOIN a ## _b",
            "BOTH(p, s) p##s(#s)",
            "QUOTE(x) #x",
        ]);
        assert_eq!(
            expanded("NAME( foo   bar )", &m),
            "name(\"foo bar\", \"foo bar\")"
        );
        assert_eq!(expanded("REL(edge)(x, y)", &m), "rel_edge(x, y)");
        assert_eq!(expanded("JOIN", &m), "a_b");
        assert_eq!(expanded("BOTH(e, dge)", &m), "edge(\"dge\")");
        assert_eq!(expanded(r#"QUOTE("a\b")"#, &m), r#""\"a\\b\"""#);
        // A pasted name is rescanned: it may name a macro.
        let m = macros(&["CAT(a, b) a ## b", "AB done"]);
        assert_eq!(expanded("CAT(A, B)", &m), "done");
    }

    #[test]
    fn comments_and_strings_are_no_code() {
        let (code, open) = code_ranges("a /* b */ \"c\" d /* e", false);
        let pieces: Vec<&str> = code
            .iter()
            .map(|&(f, t)| &"a /* b */ \"c\" d /* e"[f..t])
            .collect();
        assert_eq!(pieces, ["a ", " ", " d "]);
        assert!(open);
        let (code, open) = code_ranges("still */ x", true);
        assert_eq!(code, [(8, 10)]);
        assert!(!open);
    }
}
