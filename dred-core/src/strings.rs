//! What Soufflé's string functors and constraints mean on values: the one definition of
//! `cat`, `strlen`, `substr`, `to_number`, `to_string`, `ord`, `contains` and `match`, used
//! by every engine through [`crate::program::Expr::eval`] (the oracle included, as for
//! [`crate::arith`]).
//!
//! A functor that makes a string interns it in the run's shared table ([`Symbols`], whose
//! module header says why one table serves every engine, `dd`'s worker threads and the
//! harness): the same string gets the same index whichever engine makes it first, so models
//! stay comparable word for word.
//!
//! Soufflé's meaning, and where it is undefined or differs, the choice made here (README,
//! "String functors"; cases in `datasets/conformance/strings/`):
//! - lengths and positions count bytes of UTF-8, as Soufflé's `std::string` does:
//!   `strlen("é")` is 2;
//! - `substr(s, i, n)` is `std::string::substr(i, n)` with Soufflé's conversions: i < 0 or
//!   i > strlen(s) gives `""` (Soufflé warns and gives `""` too), n < 0 or past the end takes
//!   the rest of s. A cut inside a multi-byte character cannot make a Rust string: the
//!   partial character's bytes become U+FFFD (Soufflé would keep the raw bytes);
//! - `to_number(s)` reads s as C's `strtoll` in base 10 reads it (what Soufflé's
//!   `std::stoll` does): leading white space, an optional sign, at least one digit, and
//!   anything after the digits ignored (`to_number("12ab")` is 12). A string without digits
//!   there, or a number beyond 64 bits, has no value: the rule instance derives nothing, as
//!   for a division by zero (Soufflé stops with an error);
//! - `to_string(n)` is n in decimal (an `unsigned` too; a `float` as
//!   [`crate::value::format_numeric`] writes it, not `std::to_string`'s `1.500000`); `cat`
//!   concatenates any number (one or more) of symbols;
//! - `to_float(s)` and `to_unsigned(s)` read the start of s as `strtod` and `strtoull` do
//!   (white space, then digits, for a float with a sign, fraction and exponent; for an
//!   unsigned no sign); nothing readable, or an unsigned beyond 64 bits, has no value;
//! - `ord(s)` is s's index in the run's table: implementation-defined, as in Soufflé (where
//!   it is the order of first appearance); equal for equal strings within a run, not across
//!   runs;
//! - `contains(sub, s)` is 1 when sub occurs in s (the empty string occurs in every string);
//! - `match(pattern, s)` is 1 when the regular expression matches the whole of s (Soufflé's
//!   `std::regex_match`), with the `regex` crate's syntax rather than ECMAScript's (no
//!   back-references or look-around; `.` and classes match characters, not bytes). An
//!   invalid pattern matches nothing (Soufflé warns and answers false), so `!match` holds;
//!   a constant invalid pattern is refused by the checker.

use crate::syntax::ast::{ArithOp, Type};
use crate::value::{Symbols, Value};

/// The value of the string functor or constraint `op` on `args`, making and interning a
/// new string in `symbols` where `op` builds one; `None` where it has no value (a
/// `to_number` of a string without a number). `args` has the types and count of
/// [`ArithOp::signature`] (the checker guarantees it).
pub fn apply(op: ArithOp, args: &[Value], symbols: &Symbols) -> Option<Value> {
    let text = |i: usize| symbols.name(args[i]);
    Some(match op {
        ArithOp::Cat => {
            let mut out = String::new();
            for &a in args {
                out.push_str(&symbols.name(a)?);
            }
            symbols.intern_shared(&out)
        }
        ArithOp::Strlen => text(0)?.len() as Value,
        ArithOp::Substr => symbols.intern_shared(&substr(&text(0)?, args[1], args[2])),
        ArithOp::ToNumber => to_number(&text(0)?)?,
        ArithOp::ToString => symbols.intern_shared(&args[0].to_string()),
        ArithOp::UnsignedToString | ArithOp::FloatToString => {
            let ty = op.signature().0;
            let crate::syntax::ast::Operands::Fixed(&[ty]) = ty else {
                unreachable!("one operand")
            };
            symbols.intern_shared(&crate::value::format_numeric(ty, args[0]))
        }
        ArithOp::ToUnsigned => {
            let n = text(0)?;
            crate::value::parse_numeric(leading_number(&n, false)?, Type::Unsigned).ok()?
        }
        ArithOp::ToFloat => {
            let n = text(0)?;
            crate::value::parse_numeric(leading_number(&n, true)?, Type::Float).ok()?
        }
        ArithOp::Ord => args[0],
        ArithOp::Contains => Value::from(text(1)?.contains(&*text(0)?)),
        ArithOp::Match => {
            let s = text(1)?;
            let matched =
                symbols.with_regex(args[0], compile, |re| re.is_some_and(|re| re.is_match(&s)))?;
            Value::from(matched)
        }
        op => unreachable!("`{}` is not a string functor", op.symbol()),
    })
}

/// `s.substr(i, n)` as Soufflé computes it on bytes (see the module header).
pub fn substr(s: &str, i: Value, n: Value) -> String {
    let bytes = s.as_bytes();
    let Ok(start) = usize::try_from(i) else {
        return String::new();
    };
    if start > bytes.len() {
        return String::new();
    }
    let rest = bytes.len() - start;
    let len = usize::try_from(n).map_or(rest, |n| n.min(rest));
    String::from_utf8_lossy(&bytes[start..start + len]).into_owned()
}

/// The number at the start of `s` as `strtoull` (`float`: `strtod`) finds it: after white
/// space, digits (`float`: with an optional sign, fraction and exponent; `unsigned`: no
/// sign); `None` without digits there. What follows is ignored, as for `to_number`.
fn leading_number(s: &str, float: bool) -> Option<&str> {
    let t = s.trim_start_matches([' ', '\t', '\n', '\x0b', '\x0c', '\r']);
    let b = t.as_bytes();
    let mut i = usize::from(float && matches!(b.first(), Some(b'-' | b'+')));
    let digits = |i: &mut usize| {
        let start = *i;
        while b.get(*i).is_some_and(u8::is_ascii_digit) {
            *i += 1;
        }
        *i > start
    };
    let mut any = digits(&mut i);
    if float {
        if b.get(i) == Some(&b'.') {
            i += 1;
            any |= digits(&mut i);
        }
        if any && matches!(b.get(i), Some(b'e' | b'E')) {
            let mut j = i + 1 + usize::from(matches!(b.get(i + 1), Some(b'-' | b'+')));
            if digits(&mut j) {
                i = j;
            }
        }
    }
    any.then(|| &t[..i])
}

/// `s` read as `strtoll` reads a base-10 number (see the module header); `None` without
/// digits or beyond 64 bits.
pub fn to_number(s: &str) -> Option<Value> {
    // C's isspace in the "C" locale.
    let t = s.trim_start_matches([' ', '\t', '\n', '\x0b', '\x0c', '\r']);
    let (negative, t) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    let digits = t.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 {
        return None;
    }
    // Accumulated negatively so that i64::MIN is read.
    let mut v: Value = 0;
    for d in t.as_bytes()[..digits].iter().map(|b| Value::from(b - b'0')) {
        v = v.checked_mul(10)?.checked_sub(d)?;
    }
    if negative {
        Some(v)
    } else {
        v.checked_neg()
    }
}

/// The regular expression that matches exactly the strings `pattern` matches whole, or
/// `None` when `pattern` is not valid in the `regex` crate's syntax. The pattern is checked
/// alone before it is anchored, so that an unbalanced `a)|(b` is refused rather than
/// balanced by the anchoring group.
pub fn compile(pattern: &str) -> Option<regex::Regex> {
    regex::Regex::new(pattern).ok()?;
    regex::Regex::new(&format!(r"\A(?:{pattern})\z")).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use ArithOp::*;

    fn sym(s: &Symbols, text: &str) -> Value {
        s.intern_shared(text)
    }

    fn text(s: &Symbols, v: Option<Value>) -> String {
        s.name(v.expect("a value")).expect("a symbol").to_string()
    }

    #[test]
    fn cat_concatenates_any_number_of_symbols_and_interns_the_result() {
        let s = Symbols::new();
        let (a, b, e) = (sym(&s, "ab"), sym(&s, "cé"), sym(&s, ""));
        assert_eq!(text(&s, apply(Cat, &[a, b], &s)), "abcé");
        assert_eq!(text(&s, apply(Cat, &[a, e, b, a], &s)), "abcéab");
        assert_eq!(apply(Cat, &[a], &s), Some(a));
        assert_eq!(apply(Cat, &[e, e], &s), Some(e));
        // The same string always has the same index.
        assert_eq!(apply(Cat, &[a, b], &s), s.get("abcé"));
    }

    #[test]
    fn strlen_counts_bytes_of_utf8() {
        let s = Symbols::new();
        assert_eq!(apply(Strlen, &[sym(&s, "")], &s), Some(0));
        assert_eq!(apply(Strlen, &[sym(&s, "hello")], &s), Some(5));
        assert_eq!(apply(Strlen, &[sym(&s, "é")], &s), Some(2));
        assert_eq!(apply(Strlen, &[sym(&s, "日本")], &s), Some(6));
    }

    #[test]
    fn substr_follows_std_string_substr() {
        assert_eq!(substr("Hello_", 2, 3), "llo");
        assert_eq!(substr("World!", 3, 6), "ld!");
        assert_eq!(substr("abc", 0, 0), "");
        assert_eq!(substr("abc", 3, 1), "");
        assert_eq!(substr("abc", 4, 1), "");
        assert_eq!(substr("abc", -1, 2), "");
        assert_eq!(substr("abc", 1, -1), "bc");
        assert_eq!(substr("abc", 1, i64::MAX), "bc");
        assert_eq!(substr("", 0, 5), "");
        assert_eq!(substr("aé", 1, 2), "é");
        assert_eq!(substr("aé", 1, 1), "\u{FFFD}");
        let s = Symbols::new();
        let v = apply(Substr, &[sym(&s, "Hello_"), 2, 3], &s);
        assert_eq!(text(&s, v), "llo");
    }

    #[test]
    fn to_number_reads_as_strtoll_and_has_no_value_without_digits() {
        assert_eq!(to_number("123"), Some(123));
        assert_eq!(to_number("-42"), Some(-42));
        assert_eq!(to_number("+7"), Some(7));
        assert_eq!(to_number("  \t12"), Some(12));
        assert_eq!(to_number("12ab"), Some(12));
        assert_eq!(to_number("007"), Some(7));
        assert_eq!(to_number("9223372036854775807"), Some(i64::MAX));
        assert_eq!(to_number("-9223372036854775808"), Some(i64::MIN));
        assert_eq!(to_number("9223372036854775808"), None);
        assert_eq!(to_number(""), None);
        assert_eq!(to_number("abc"), None);
        assert_eq!(to_number("-"), None);
        assert_eq!(to_number(" - 1"), None);
        assert_eq!(to_number("0x10"), Some(0));
        let s = Symbols::new();
        assert_eq!(apply(ToNumber, &[sym(&s, "x")], &s), None);
        assert_eq!(apply(ToNumber, &[sym(&s, "1534")], &s), Some(1534));
    }

    #[test]
    fn to_string_writes_decimal_and_round_trips() {
        let s = Symbols::new();
        for n in [0, -5, 42, i64::MIN, i64::MAX] {
            let v = apply(ToString, &[n], &s);
            assert_eq!(text(&s, v), n.to_string());
            assert_eq!(apply(ToNumber, &[v.expect("a value")], &s), Some(n));
        }
    }

    #[test]
    fn ord_is_the_symbols_index() {
        let s = Symbols::new();
        let (a, b) = (sym(&s, "Homer"), sym(&s, "Marge"));
        assert_eq!(apply(Ord, &[a], &s), Some(a));
        assert!(apply(Ord, &[a], &s) < apply(Ord, &[b], &s));
    }

    #[test]
    fn contains_finds_substrings() {
        let s = Symbols::new();
        let c = |sub: &str, t: &str| apply(Contains, &[sym(&s, sub), sym(&s, t)], &s);
        assert_eq!(c("ab", "abba"), Some(1));
        assert_eq!(c("cab", "bcab"), Some(1));
        assert_eq!(c("ab", "aaaa"), Some(0));
        assert_eq!(c("", "x"), Some(1));
        assert_eq!(c("", ""), Some(1));
        assert_eq!(c("x", ""), Some(0));
        assert_eq!(c("é", "café"), Some(1));
    }

    #[test]
    fn match_is_a_whole_string_match_and_an_invalid_pattern_matches_nothing() {
        let s = Symbols::new();
        let m = |p: &str, t: &str| apply(Match, &[sym(&s, p), sym(&s, t)], &s);
        assert_eq!(m("a.*", "abba"), Some(1));
        assert_eq!(m("a.*", "bcab"), Some(0));
        assert_eq!(m("b", "abc"), Some(0));
        assert_eq!(m("a|ab", "ab"), Some(1));
        assert_eq!(m("", ""), Some(1));
        assert_eq!(m("c[0-9]+", "c42"), Some(1));
        assert_eq!(m("(", "("), Some(0));
        assert_eq!(m("a)|(b", "a)|(b"), Some(0));
        assert_eq!(m("a)|(b", "b"), Some(0));
        assert!(compile("a)|(b").is_none());
        assert!(compile("x*").is_some());
    }
}

/// String functors through the engines of this crate: strings made during evaluation are
/// interned in the program's table, and every engine gives the oracle's model, word for
/// word, from scratch and after a batch.
#[cfg(test)]
mod engine_tests {
    use std::sync::Arc;

    use crate::engine::{Batch, Edb, Engine, Fact};
    use crate::{load_program, Auto, Bf, Counting, Dred, Oracle, Recompute, SourceFile, Symbols};

    #[test]
    fn engines_make_the_same_strings_and_agree() {
        let src =
            ".decl w(x: symbol)\n.input w\n.decl g(x: symbol)\n.decl l(x: symbol, n: number)\n\
                   .decl c(x: symbol)\n\
                   g(x) :- w(x).\n\
                   g(cat(x, \"a\")) :- g(x), strlen(x) < 3.\n\
                   l(x, to_number(x)) :- g(x).\n\
                   c(y) :- g(x), y = substr(x, 1, 5), !w(y), contains(\"a\", y).\n";
        let mut symbols = Symbols::new();
        let program =
            Arc::new(load_program(&SourceFile::new("p.dl", src), &mut symbols).expect("checks"));
        let mut edb = Edb::empty(&program);
        for s in ["1", "b", "a"] {
            edb.insert(Fact::new(0, vec![symbols.intern(s)]));
        }
        let mut oracle = Oracle::new(program.clone());
        oracle.materialise(&edb).expect("oracle");
        let model = oracle.model();
        let rows = |name: &str| -> Vec<String> {
            let rel = program.relation_id(name).expect("declared");
            let mut v: Vec<String> = model.relations[rel]
                .iter()
                .map(|t| program.fact_to_string(&symbols, rel, t))
                .collect();
            v.sort();
            v
        };
        assert_eq!(
            rows("g"),
            [
                "g(\"1\")",
                "g(\"1a\")",
                "g(\"1aa\")",
                "g(\"a\")",
                "g(\"aa\")",
                "g(\"aaa\")",
                "g(\"b\")",
                "g(\"ba\")",
                "g(\"baa\")"
            ]
        );
        // Only the strings that write a number have a `to_number`.
        assert_eq!(rows("l"), ["l(\"1\", 1)", "l(\"1a\", 1)", "l(\"1aa\", 1)"]);
        assert_eq!(rows("c"), ["c(\"aa\")"]);
        let mut engines: Vec<Box<dyn Engine>> = vec![
            Box::new(Recompute::new(program.clone())),
            Box::new(Dred::new(program.clone())),
            Box::new(Bf::new(program.clone())),
            Box::new(Counting::new(program.clone())),
            Box::new(Auto::new(program.clone())),
        ];
        let batch = Batch {
            deletions: vec![Fact::new(0, vec![symbols.intern("a")])],
            insertions: vec![Fact::new(0, vec![symbols.intern("aa")])],
            requested_deletions: 1,
            requested_insertions: 1,
        };
        let mut after = edb.clone();
        after.apply(&batch);
        let mut oracle_after = Oracle::new(program.clone());
        oracle_after.materialise(&after).expect("oracle");
        for e in &mut engines {
            e.materialise(&edb).expect("materialises");
            assert_eq!(e.model(), model, "{}", e.name());
            e.apply(&batch).expect("applies");
            assert_eq!(
                e.model(),
                oracle_after.model(),
                "{} after the batch",
                e.name()
            );
        }
    }
}
