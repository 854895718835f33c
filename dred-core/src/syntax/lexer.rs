//! Tokens of the Soufflé subset, with byte spans; comments and whitespace are skipped.

use crate::diagnostic::{Diagnostic, SourceFile, Span};

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Tok {
    Ident(String),
    Str(String),
    Num(i64),
    /// A float literal (`1.5`, `2.0e-3`), as its bits.
    Float(u64),
    /// An integer literal beyond `i64::MAX`, up to `u64::MAX` (an `unsigned` or a `float`).
    BigNum(u64),
    LParen,
    RParen,
    LBrace,
    RBrace,
    Comma,
    Colon,
    Semi,
    Dot,
    Turnstile,
    Bang,
    Minus,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    Underscore,
    Other(char),
}

impl Tok {
    pub(crate) fn describe(&self) -> String {
        match self {
            Tok::Ident(s) => format!("name `{s}`"),
            Tok::Str(s) => format!("string \"{s}\""),
            Tok::Num(n) => format!("number {n}"),
            Tok::Float(b) => format!("float {}", f64::from_bits(*b)),
            Tok::BigNum(n) => format!("number {n}"),
            Tok::LParen => "`(`".into(),
            Tok::RParen => "`)`".into(),
            Tok::LBrace => "`{`".into(),
            Tok::RBrace => "`}`".into(),
            Tok::Comma => "`,`".into(),
            Tok::Colon => "`:`".into(),
            Tok::Semi => "`;`".into(),
            Tok::Dot => "`.`".into(),
            Tok::Turnstile => "`:-`".into(),
            Tok::Bang => "`!`".into(),
            Tok::Minus => "`-`".into(),
            Tok::Eq => "`=`".into(),
            Tok::Ne => "`!=`".into(),
            Tok::Lt => "`<`".into(),
            Tok::Le => "`<=`".into(),
            Tok::Gt => "`>`".into(),
            Tok::Ge => "`>=`".into(),
            Tok::Underscore => "`_`".into(),
            Tok::Other(c) => format!("`{c}`"),
        }
    }
}

/// Splits a program into tokens; fails on an unterminated string or comment, or a number out
/// of the i64 range.
pub(crate) fn lex(file: &SourceFile) -> Result<Vec<(Tok, Span)>, Diagnostic> {
    let text: &str = &file.text;
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        let start = i;
        match c {
            b' ' | b'\t' | b'\r' | b'\n' => {
                i += 1;
                continue;
            }
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
                continue;
            }
            b'/' if bytes.get(i + 1) == Some(&b'*') => {
                match text[i + 2..].find("*/") {
                    Some(end) => i = i + 2 + end + 2,
                    None => {
                        return Err(Diagnostic::new(
                            file,
                            Span::new(start, start + 2),
                            "unterminated block comment",
                            "this comment is never closed with */",
                        ))
                    }
                }
                continue;
            }
            b'"' => {
                let mut s = String::new();
                i += 1;
                loop {
                    let Some(ch) = text[i..].chars().next() else {
                        return Err(Diagnostic::new(
                            file,
                            Span::new(start, start + 1),
                            "unterminated string",
                            "this string is never closed",
                        ));
                    };
                    match ch {
                        '"' => {
                            i += 1;
                            break;
                        }
                        '\n' => {
                            return Err(Diagnostic::new(
                                file,
                                Span::new(start, i),
                                "unterminated string",
                                "strings cannot span lines",
                            ))
                        }
                        '\\' => {
                            let esc = text[i + 1..].chars().next();
                            let decoded = match esc {
                                Some('"') => '"',
                                Some('\\') => '\\',
                                Some('n') => '\n',
                                Some('t') => '\t',
                                _ => {
                                    return Err(Diagnostic::new(
                                        file,
                                        Span::new(i, i + 1 + esc.map_or(0, char::len_utf8)),
                                        "unknown escape in string",
                                        "expected one of \\\" \\\\ \\n \\t",
                                    ))
                                }
                            };
                            s.push(decoded);
                            i += 1 + esc.map_or(0, char::len_utf8);
                        }
                        ch => {
                            s.push(ch);
                            i += ch.len_utf8();
                        }
                    }
                }
                out.push((Tok::Str(s), Span::new(start, i)));
                continue;
            }
            b'0' if matches!(bytes.get(i + 1), Some(b'x' | b'X' | b'b' | b'B')) => {
                // Soufflé's hexadecimal (`0x1F`) and binary (`0b101`) literals.
                let radix = if bytes[i + 1].eq_ignore_ascii_case(&b'x') {
                    16
                } else {
                    2
                };
                i += 2;
                while i < bytes.len() && bytes[i].is_ascii_alphanumeric() {
                    i += 1;
                }
                let n = u64::from_str_radix(&text[start + 2..i], radix).map_err(|e| {
                    let why = match e.kind() {
                        std::num::IntErrorKind::PosOverflow => {
                            "integer literals are at most 64 bits".to_string()
                        }
                        _ if radix == 16 => "expected hexadecimal digits after `0x`".into(),
                        _ => "expected binary digits after `0b`".into(),
                    };
                    Diagnostic::new(file, Span::new(start, i), "malformed number", why)
                })?;
                let tok = i64::try_from(n).map_or(Tok::BigNum(n), Tok::Num);
                out.push((tok, Span::new(start, i)));
                continue;
            }
            b'0'..=b'9' => {
                while i < bytes.len() && bytes[i].is_ascii_digit() {
                    i += 1;
                }
                // `1.5`: a dot between digits (a rule's final dot is followed by no digit).
                if bytes.get(i) == Some(&b'.') && bytes.get(i + 1).is_some_and(u8::is_ascii_digit) {
                    i += 1;
                    while i < bytes.len() && bytes[i].is_ascii_digit() {
                        i += 1;
                    }
                    if matches!(bytes.get(i), Some(b'e' | b'E')) {
                        let sign = usize::from(matches!(bytes.get(i + 1), Some(b'+' | b'-')));
                        if bytes.get(i + 1 + sign).is_some_and(u8::is_ascii_digit) {
                            i += 1 + sign;
                            while i < bytes.len() && bytes[i].is_ascii_digit() {
                                i += 1;
                            }
                        }
                    }
                    let f: f64 = text[start..i].parse().expect("digits, a dot, digits");
                    out.push((Tok::Float(f.to_bits()), Span::new(start, i)));
                    continue;
                }
                let n = text[start..i].parse::<u64>().map_err(|_| {
                    Diagnostic::new(
                        file,
                        Span::new(start, i),
                        "number out of range",
                        "integer literals are at most 2^64 - 1 (an `unsigned`), 2^63 - 1 for a `number`",
                    )
                })?;
                let tok = i64::try_from(n).map_or(Tok::BigNum(n), Tok::Num);
                out.push((tok, Span::new(start, i)));
                continue;
            }
            c if c.is_ascii_alphabetic() || c == b'_' => {
                while i < bytes.len()
                    && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_' || bytes[i] == b'?')
                {
                    i += 1;
                }
                let word = &text[start..i];
                let tok = if word == "_" {
                    Tok::Underscore
                } else {
                    Tok::Ident(word.to_string())
                };
                out.push((tok, Span::new(start, i)));
                continue;
            }
            _ => {}
        }
        let two = |b: u8| bytes.get(i + 1) == Some(&b);
        let (tok, len) = match c {
            b'(' => (Tok::LParen, 1),
            b')' => (Tok::RParen, 1),
            b'{' => (Tok::LBrace, 1),
            b'}' => (Tok::RBrace, 1),
            b',' => (Tok::Comma, 1),
            b':' if two(b'-') => (Tok::Turnstile, 2),
            b':' => (Tok::Colon, 1),
            b';' => (Tok::Semi, 1),
            b'.' => (Tok::Dot, 1),
            b'!' if two(b'=') => (Tok::Ne, 2),
            b'!' => (Tok::Bang, 1),
            b'-' => (Tok::Minus, 1),
            b'=' => (Tok::Eq, 1),
            b'<' if two(b'=') => (Tok::Le, 2),
            b'<' => (Tok::Lt, 1),
            b'>' if two(b'=') => (Tok::Ge, 2),
            b'>' => (Tok::Gt, 1),
            _ => {
                let ch = text[i..].chars().next().unwrap_or('?');
                (Tok::Other(ch), ch.len_utf8())
            }
        };
        i += len;
        out.push((tok, Span::new(start, i)));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(s: &str) -> Vec<Tok> {
        lex(&SourceFile::new("t", s))
            .expect("lexes")
            .into_iter()
            .map(|(t, _)| t)
            .collect()
    }

    #[test]
    fn comments_and_operators() {
        assert_eq!(
            toks("a(x) :- b(x, \"s\\\"t\"), x != 3. // c\n/* d */ _"),
            vec![
                Tok::Ident("a".into()),
                Tok::LParen,
                Tok::Ident("x".into()),
                Tok::RParen,
                Tok::Turnstile,
                Tok::Ident("b".into()),
                Tok::LParen,
                Tok::Ident("x".into()),
                Tok::Comma,
                Tok::Str("s\"t".into()),
                Tok::RParen,
                Tok::Comma,
                Tok::Ident("x".into()),
                Tok::Ne,
                Tok::Num(3),
                Tok::Dot,
                Tok::Underscore,
            ]
        );
    }

    #[test]
    fn hexadecimal_and_binary_literals() {
        assert_eq!(
            toks("0x1F 0b101 0XfF 0"),
            vec![Tok::Num(31), Tok::Num(5), Tok::Num(255), Tok::Num(0)]
        );
        assert_eq!(
            toks("0x8000000000000000 18446744073709551615"),
            vec![Tok::BigNum(1 << 63), Tok::BigNum(u64::MAX)]
        );
        for s in ["0x", "0b102", "0xG", "0x10000000000000000"] {
            assert!(lex(&SourceFile::new("t", s)).is_err(), "{s}");
        }
    }

    #[test]
    fn unterminated_things_are_errors() {
        for s in ["a(\"x", "/* x", "18446744073709551616"] {
            assert!(lex(&SourceFile::new("t", s)).is_err(), "{s}");
        }
    }
}
