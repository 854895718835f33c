//! Soufflé's record types (`.type Pair = [a: number, b: symbol]`) and algebraic data types
//! (`.type E = Num {n: number} | Add {l: E, r: E}`), and their values. (Recording rule
//! instances for `explain` is [`crate::record`], unrelated.)
//!
//! **ADTs are records underneath.** The value `$Add(l, r)` is stored as the record of its
//! branch's tag (its index among the type's branches) followed by its fields, `[1, l, r]`,
//! and a nullary branch as the record of its tag alone; the checker matches a constructor
//! pattern by comparing the tag and taking the fields apart, as for a record. So everything
//! below holds for ADTs too, but that `nil` is no ADT value.
//!
//! **Values.** A record is one word, like every value: the index of its fields in the run's
//! record table, kept beside the strings in [`Symbols`] (and for the same reason: every
//! engine, `dd`'s worker threads included, builds records while rules are evaluated, and
//! models are compared word for word). `nil` is the word 0, records are numbered from 1 in
//! the order they are first built, and the same fields always give the same word. Two
//! records are equal exactly when their words are, so engines join and index record columns
//! as they do any other; only `=` and `!=` compare them (Soufflé's order of records is its
//! table's and means nothing, so order comparisons are refused). The table holds fields as
//! words and not their types: `[1, 2]` of two record types is one entry.
//!
//! **Types.** A record type is [`Type::Record`] with an index into one process-wide
//! registry of record types, filled by the parser. Record types may refer to each other and
//! to themselves (`.type List = [head: number, tail: List]`, ended by `nil`), so a program's
//! record types are registered together, as one group whose members refer to each other by
//! index; a group equal to one registered before (the same program parsed again, by another
//! engine or test) gets the same indices, so types stay comparable across the parses of one
//! run. A type is immutable once registered and the registry only grows (by the few record
//! types programs declare), which is why a global table is sound here where the values'
//! table is per run.
//!
//! **Text.** In `.facts` files, update streams and outputs a record is written as Soufflé
//! writes it: `[1, a]`, fields separated by `, `, a `symbol` field bare (or in double quotes
//! when it holds `,`, `[`, `]`, `(`, `)` or `"`, starts with `$`, or is empty or `nil`),
//! `nil` for the empty reference; an ADT value as `$Add($Num(1), $Var(x))`, a nullary
//! branch as `$Zero` (read also as `$Zero()`).

use std::collections::HashMap;
use std::sync::{OnceLock, PoisonError, RwLock};

use crate::syntax::ast::Type;
use crate::value::{Symbols, Value};

/// A record type or an algebraic data type: its name as declared and its fields (a record
/// type's) or branches (an ADT's), fields each a name and a type (possibly a record type or
/// an ADT, possibly this one).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct RecordType {
    /// The name declared by `.type`.
    pub name: String,
    /// A record type's fields in order; empty for an ADT.
    pub fields: Vec<(String, Type)>,
    /// An ADT's branches in order (its value's tag is the branch's index); empty for a
    /// record type.
    pub branches: Vec<Branch>,
}

impl RecordType {
    /// True for an algebraic data type (`.type T = A {..} | B {..}`).
    pub fn is_adt(&self) -> bool {
        !self.branches.is_empty()
    }

    /// The branch named `name` with its tag, if the type is an ADT that has it.
    pub fn branch(&self, name: &str) -> Option<(usize, &Branch)> {
        self.branches
            .iter()
            .enumerate()
            .find(|(_, b)| b.name == name)
    }
}

/// A branch of an ADT, `Name {f: T, ...}`: its value `$Name(a, ...)` is stored as the record
/// of its tag (the branch's index) followed by its fields, so engines treat ADTs as records.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Branch {
    /// The constructor's name (written `$Name`).
    pub name: String,
    /// Its fields in order.
    pub fields: Vec<(String, Type)>,
}

/// The process-wide registry of record types (see the module header).
#[derive(Default)]
struct Registry {
    types: Vec<&'static RecordType>,
    /// Each group registered, as given (members referring to each other by their index in
    /// the group), to the index of its first member.
    groups: HashMap<Vec<RecordType>, u32>,
}

fn registry() -> &'static RwLock<Registry> {
    static REGISTRY: OnceLock<RwLock<Registry>> = OnceLock::new();
    REGISTRY.get_or_init(Default::default)
}

/// Registers a program's record types as one group and returns the registry index of its
/// first member: member `i` is then `Type::Record(offset + i)`. In `group`, a field of a
/// record type of the group is written `Type::Record(i)` with `i` its index in the group.
/// Registering an equal group again returns the same offset.
pub fn register(group: &[RecordType]) -> u32 {
    let mut reg = registry().write().unwrap_or_else(PoisonError::into_inner);
    if let Some(&offset) = reg.groups.get(group) {
        return offset;
    }
    let offset = u32::try_from(reg.types.len()).expect("fewer than 2^32 record types");
    let globalise = |fields: &[(String, Type)]| -> Vec<(String, Type)> {
        fields
            .iter()
            .map(|(n, ty)| {
                let ty = match ty {
                    Type::Record(i) => Type::Record(offset + i),
                    other => *other,
                };
                (n.clone(), ty)
            })
            .collect()
    };
    for t in group {
        let branches = t
            .branches
            .iter()
            .map(|b| Branch {
                name: b.name.clone(),
                fields: globalise(&b.fields),
            })
            .collect();
        // Leaked on purpose: a registered type lives as long as the process (module header).
        reg.types.push(Box::leak(Box::new(RecordType {
            name: t.name.clone(),
            fields: globalise(&t.fields),
            branches,
        })));
    }
    reg.groups.insert(group.to_vec(), offset);
    offset
}

/// The record type registered at `id`.
///
/// # Panics
/// When no type has that index: every [`Type::Record`] comes from [`register`].
pub fn record_type(id: u32) -> &'static RecordType {
    let reg = registry().read().unwrap_or_else(PoisonError::into_inner);
    reg.types[id as usize]
}

/// `nil`, the empty record reference of every record type.
pub const NIL: Value = 0;

/// True when a bare `symbol` field would not read back as itself.
fn needs_quotes(s: &str) -> bool {
    s.is_empty()
        || s == "nil"
        || s.starts_with('$')
        || s.contains([',', '[', ']', '(', ')', '"'])
        || s.trim() != s
}

/// A value of type `ty` as files hold it; a record in Soufflé's `[a, b]` (module header).
pub fn write_value(symbols: &Symbols, ty: Type, v: Value, out: &mut String) {
    /// What is left to write: a value (and whether it is a record's field), or punctuation.
    /// An explicit stack rather than recursion, since rules can build records nested as
    /// deep as their fixpoint runs.
    enum Part {
        Value(Type, Value, bool),
        Text(&'static str),
    }
    let mut todo = vec![Part::Value(ty, v, false)];
    while let Some(part) = todo.pop() {
        let (ty, v, in_record) = match part {
            Part::Text(t) => {
                out.push_str(t);
                continue;
            }
            Part::Value(ty, v, in_record) => (ty, v, in_record),
        };
        match ty {
            Type::Record(id) => {
                let Some(fields) = symbols.record_fields(v) else {
                    out.push_str("nil");
                    continue;
                };
                let rt = record_type(id);
                let (open, close, field_types) = if rt.is_adt() {
                    let tag = usize::try_from(fields[0]).expect("a branch's tag");
                    let branch = &rt.branches[tag];
                    out.push('$');
                    out.push_str(&branch.name);
                    if branch.fields.is_empty() {
                        continue;
                    }
                    ("(", ")", &branch.fields[..])
                } else {
                    ("[", "]", &rt.fields[..])
                };
                let values = &fields[usize::from(rt.is_adt())..];
                out.push_str(open);
                todo.push(Part::Text(close));
                let typed = field_types.iter().zip(values.iter()).enumerate().rev();
                for (i, ((_, fty), &fv)) in typed {
                    todo.push(Part::Value(*fty, fv, true));
                    if i > 0 {
                        todo.push(Part::Text(", "));
                    }
                }
            }
            Type::Symbol if in_record => {
                let name = symbols.name(v);
                let s = name.as_deref().unwrap_or("<unknown symbol>");
                if needs_quotes(s) {
                    out.push_str(&crate::value::quote(s));
                } else {
                    out.push_str(s);
                }
            }
            Type::Symbol => out.push_str(symbols.name(v).as_deref().unwrap_or("<unknown symbol>")),
            numeric => out.push_str(&crate::value::format_numeric(numeric, v)),
        }
    }
}

/// Reads a record of type `id` written as [`write_value`] writes it (spaces around fields
/// and brackets allowed), interning its strings and records.
pub fn parse_record(text: &str, id: u32, symbols: &Symbols) -> Result<Value, String> {
    let mut reader = Reader {
        text,
        pos: 0,
        depth: 0,
    };
    let v = reader.record(id, symbols)?;
    reader.skip_spaces();
    if reader.pos < text.len() {
        return Err(format!(
            "unexpected `{}` after the record",
            &text[reader.pos..]
        ));
    }
    Ok(v)
}

/// A cursor over a record's text.
struct Reader<'a> {
    text: &'a str,
    pos: usize,
    /// How deep the records being read nest ([`MAX_NESTING`]).
    depth: usize,
}

/// How deep a record read from text may nest (a list of that many elements, say): reading
/// recurses once per level, and a deeper value is refused rather than overflowing the stack
/// (of a thread with Rust's default 2 MiB, in a debug build too).
const MAX_NESTING: usize = 1_000;

impl Reader<'_> {
    fn rest(&self) -> &str {
        &self.text[self.pos..]
    }

    fn skip_spaces(&mut self) {
        let rest = self.rest();
        self.pos += rest.len() - rest.trim_start().len();
    }

    fn record(&mut self, id: u32, symbols: &Symbols) -> Result<Value, String> {
        self.skip_spaces();
        if let Some(after) = self.rest().strip_prefix("nil") {
            if !after.starts_with(|c: char| c.is_alphanumeric() || c == '_') {
                self.pos += 3;
                return Ok(NIL);
            }
        }
        let rt = record_type(id);
        if rt.is_adt() {
            return self.adt(rt, symbols);
        }
        if !self.rest().starts_with('[') {
            return Err(format!(
                "expected a `{}` record (`[...]` or `nil`) at `{}`",
                rt.name,
                self.rest()
            ));
        }
        self.pos += 1;
        let mut fields = Vec::with_capacity(rt.fields.len());
        for (i, (fname, fty)) in rt.fields.iter().enumerate() {
            if i > 0 {
                self.skip_spaces();
                if !self.rest().starts_with(',') {
                    return Err(format!(
                        "a `{}` record has {} field(s); expected `,` before field `{fname}`",
                        rt.name,
                        rt.fields.len()
                    ));
                }
                self.pos += 1;
            }
            fields.push(
                self.field(*fty, symbols)
                    .map_err(|why| in_field(why, fname, &format!("a `{}` record", rt.name)))?,
            );
        }
        self.skip_spaces();
        if !self.rest().starts_with(']') {
            return Err(format!(
                "a `{}` record has {} field(s); expected `]` at `{}`",
                rt.name,
                rt.fields.len(),
                self.rest()
            ));
        }
        self.pos += 1;
        Ok(symbols.record(&fields))
    }

    /// `$Branch(f, ...)` or `$Branch` of the ADT `rt`.
    fn adt(&mut self, rt: &RecordType, symbols: &Symbols) -> Result<Value, String> {
        let Some(rest) = self.text[self.pos..].strip_prefix('$') else {
            return Err(format!(
                "expected a `{}` value (`$Branch(...)`) at `{}`",
                rt.name,
                self.rest()
            ));
        };
        let len = rest
            .find(|c: char| !(c.is_alphanumeric() || c == '_'))
            .unwrap_or(rest.len());
        let name = &rest[..len];
        let Some((tag, branch)) = rt.branch(name) else {
            return Err(format!("`{}` has no branch `{name}`", rt.name));
        };
        self.pos += 1 + len;
        let mut fields = vec![tag as Value];
        self.skip_spaces();
        if !self.rest().starts_with('(') {
            if branch.fields.is_empty() {
                return Ok(symbols.record(&fields));
            }
            return Err(format!("expected `(` after `${name}`"));
        }
        self.pos += 1;
        for (i, (fname, fty)) in branch.fields.iter().enumerate() {
            if i > 0 {
                self.skip_spaces();
                if !self.rest().starts_with(',') {
                    return Err(format!(
                        "`${name}` has {} field(s); expected `,` before field `{fname}`",
                        branch.fields.len()
                    ));
                }
                self.pos += 1;
            }
            fields.push(
                self.field(*fty, symbols)
                    .map_err(|why| in_field(why, fname, &format!("`${name}`")))?,
            );
        }
        self.skip_spaces();
        if !self.rest().starts_with(')') {
            return Err(format!(
                "`${name}` has {} field(s); expected `)` at `{}`",
                branch.fields.len(),
                self.rest()
            ));
        }
        self.pos += 1;
        Ok(symbols.record(&fields))
    }

    fn field(&mut self, ty: Type, symbols: &Symbols) -> Result<Value, String> {
        self.skip_spaces();
        match ty {
            Type::Record(_) if self.depth >= MAX_NESTING => {
                Err(format!("records nested more than {MAX_NESTING} deep"))
            }
            Type::Record(id) => {
                self.depth += 1;
                let v = self.record(id, symbols);
                self.depth -= 1;
                v
            }
            Type::Symbol if self.rest().starts_with('"') => {
                let (s, len) = unquote(self.rest())?;
                self.pos += len;
                Ok(symbols.intern_shared(&s))
            }
            ty => {
                let rest = &self.text[self.pos..];
                let end = rest.find([',', ']', ')']).unwrap_or(rest.len());
                let field = rest[..end].trim_end();
                self.pos += end;
                if ty == Type::Symbol {
                    Ok(symbols.intern_shared(field))
                } else {
                    crate::value::parse_numeric(field, ty)
                }
            }
        }
    }
}

/// The error `why` of a field `fname` of `owner`, said with the innermost field only (a
/// value nested deep would otherwise give a message as deep).
fn in_field(why: String, fname: &str, owner: &str) -> String {
    if why.starts_with("field `") {
        why
    } else {
        format!("field `{fname}` of {owner}: {why}")
    }
}

/// The string of a quoted field at the start of `s` (the escapes of [`crate::value::quote`])
/// and the length of its text.
fn unquote(s: &str) -> Result<(String, usize), String> {
    let mut out = String::new();
    let mut chars = s.char_indices().skip(1);
    while let Some((i, c)) = chars.next() {
        match c {
            '"' => return Ok((out, i + 1)),
            '\\' => match chars.next() {
                Some((_, 'n')) => out.push('\n'),
                Some((_, 't')) => out.push('\t'),
                Some((_, c @ ('"' | '\\'))) => out.push(c),
                _ => return Err("a bad escape in a quoted string".into()),
            },
            c => out.push(c),
        }
    }
    Err("a quoted string without its closing `\"`".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pair_and_list() -> (u32, u32) {
        let offset = register(&[
            RecordType {
                name: "Pair".into(),
                fields: vec![("a".into(), Type::Number), ("b".into(), Type::Symbol)],
                branches: vec![],
            },
            RecordType {
                name: "List".into(),
                fields: vec![
                    ("head".into(), Type::Record(0)),
                    ("tail".into(), Type::Record(1)),
                ],
                branches: vec![],
            },
        ]);
        (offset, offset + 1)
    }

    #[test]
    fn equal_groups_share_indices_and_refer_to_each_other() {
        let (pair, list) = pair_and_list();
        assert_eq!(pair_and_list(), (pair, list));
        assert_eq!(record_type(list).fields[0].1, Type::Record(pair));
        assert_eq!(record_type(list).fields[1].1, Type::Record(list));
        assert_eq!(record_type(pair).name, "Pair");
    }

    #[test]
    fn records_round_trip_through_text() {
        let (_, list) = pair_and_list();
        let symbols = Symbols::new();
        for text in [
            "nil",
            "[[1, a], nil]",
            "[[-3, \"x, y\"], [[4, \"\"], nil]]",
            "[[2, \"nil\"], nil]",
        ] {
            let v = parse_record(text, list, &symbols).expect(text);
            let mut out = String::new();
            write_value(&symbols, Type::Record(list), v, &mut out);
            assert_eq!(out, text);
        }
        let a = parse_record(" [ [1 , a ] , nil ] ", list, &symbols).expect("spaced");
        assert_eq!(
            a,
            parse_record("[[1, a], nil]", list, &symbols).expect("plain")
        );
        assert_ne!(a, NIL);
    }

    #[test]
    fn deep_records_are_read_and_written_without_recursing_past_the_limit() {
        let (_, list) = pair_and_list();
        let symbols = Symbols::new();
        let deep = |n: usize| format!("{}nil{}", "[[1, a], ".repeat(n), "]".repeat(n));
        let text = deep(MAX_NESTING - 1);
        let v = parse_record(&text, list, &symbols).expect("just under the limit");
        let mut out = String::new();
        write_value(&symbols, Type::Record(list), v, &mut out);
        assert_eq!(out, text);
        let err = parse_record(&deep(MAX_NESTING + 1), list, &symbols).expect_err("too deep");
        assert!(
            err.contains("nested more than"),
            "{}",
            &err[..200.min(err.len())]
        );
        assert!(
            err.len() < 200,
            "one field named, not every level: {}",
            err.len()
        );
    }

    #[test]
    fn malformed_records_are_refused_with_a_reason() {
        let (pair, _) = pair_and_list();
        let symbols = Symbols::new();
        for (text, why) in [
            ("[1]", "expected `,`"),
            ("[1, a, b]", "expected `]`"),
            ("1, a", "expected a `Pair` record"),
            ("[x, a]", "field `a`"),
            ("[1, a] z", "after the record"),
            ("[1, \"a]", "closing"),
        ] {
            let err = parse_record(text, pair, &symbols).expect_err(text);
            assert!(err.contains(why), "{text}: {err}");
        }
    }
}
