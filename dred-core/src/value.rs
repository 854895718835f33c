//! Values and the symbol table.
//!
//! Every column is typed, so a value is one machine word: a `number` column holds the integer
//! itself and a `symbol` column the index of an interned string. Two facts are equal exactly
//! when their words are equal, which lets storage hash and compare tuples without looking at
//! types.
//!
//! **One table per run, shared.** String functors (`cat`, `substr`, `to_string`; see
//! [`crate::strings`]) make strings while rules are evaluated, in every engine, `dd`'s worker
//! threads included, and the harness must print them and compare models word for word. So
//! [`Symbols`] is a cheap handle (an `Arc`) on one append-only table behind a read-write
//! lock: cloning a handle shares the table, the same string always gets the same index in
//! it whoever interns it first, and an index once given never changes. The checker stores a
//! handle in every string functor of a checked program ([`crate::program::Expr::Str`]),
//! so the engines reach the table only through programs that use string functors: a program
//! without them never takes the lock during evaluation. A fresh, independent table is
//! [`Symbols::new`]; nothing needs a deep copy (the table only grows, so a clone that interns
//! more names changes no index the original gave).
//!
//! Why not a lock-free interner or per-engine tables: the lock is uncontended except under
//! `dd --workers N` on programs that build strings, where each evaluation of a building
//! functor takes the read lock once to resolve its operands and once to find its result
//! (the write lock only for a string never seen), which costs far less than the string work
//! itself; per-engine tables would give the same string different indices in different
//! engines and break the word-for-word comparison of models.

use std::sync::{Arc, PoisonError, RwLock, RwLockReadGuard, RwLockWriteGuard};

use crate::syntax::ast::Type;

/// One column value: an `i64` for `number` columns, a [`Symbols`] index for `symbol` columns.
pub type Value = i64;

/// A tuple of values, as many as the relation's arity.
pub type Tuple = Vec<Value>;

/// The sign bit of a word: flipping it maps the unsigned order of 64-bit words onto the
/// signed order of [`Value`]s.
const SIGN: u64 = 1 << 63;

/// An `unsigned` value as a word. The encoding keeps order: `a < b` as unsigned numbers
/// exactly when `encode_unsigned(a) < encode_unsigned(b)` as [`Value`]s, so every engine
/// compares, sorts, indexes and takes `min`/`max` of `unsigned` columns on the words alone,
/// as it does for `number` columns; only arithmetic, files and printing decode.
pub fn encode_unsigned(u: u64) -> Value {
    (u ^ SIGN) as Value
}

/// The `unsigned` value a word encodes ([`encode_unsigned`]'s inverse).
pub fn decode_unsigned(v: Value) -> u64 {
    v as u64 ^ SIGN
}

/// A `float` value as a word, in an encoding that keeps order the way
/// [`encode_unsigned`]'s does: `a < b` exactly when their words are, for every pair of
/// floats but NaN. Before encoding, `-0.0` becomes `0.0` (they compare equal, so they are one
/// value) and every NaN the one NaN `f64::NAN`, which orders above `+inf` (Soufflé's NaN
/// compares false with everything; README, "Numeric types"). Positive floats keep their bit
/// pattern, so `0.0` is the word 0.
pub fn encode_float(f: f64) -> Value {
    let f = if f.is_nan() {
        f64::NAN
    } else if f == 0.0 {
        0.0
    } else {
        f
    };
    let bits = f.to_bits();
    let key = if bits & SIGN != 0 { !bits } else { bits | SIGN };
    encode_unsigned(key)
}

/// The `float` value a word encodes ([`encode_float`]'s inverse on canonical floats).
pub fn decode_float(v: Value) -> f64 {
    let key = decode_unsigned(v);
    f64::from_bits(if key & SIGN != 0 { key & !SIGN } else { !key })
}

/// A numeric value of type `ty` as text: decimal digits for `number` and `unsigned`; for
/// `float` the shortest decimal that reads back as the same float (Rust's `{}`), with an
/// exponent outside [1e-5, 1e16), `inf`, `-inf` and `nan`. Soufflé prints floats with six
/// significant digits; we print them so that an output file reads back unchanged.
pub fn format_numeric(ty: Type, v: Value) -> String {
    match ty {
        Type::Unsigned => decode_unsigned(v).to_string(),
        Type::Float => {
            let f = decode_float(v);
            let a = f.abs();
            if f.is_finite() && a != 0.0 && !(1e-5..1e16).contains(&a) {
                format!("{f:e}")
            } else {
                f.to_string()
            }
        }
        Type::Number | Type::Symbol | Type::Record(_) => v.to_string(),
    }
}

/// Reads a numeric value of type `ty` from a `.facts` field or an update (surrounding white
/// space ignored): a decimal `i64` for `number`, a decimal `u64` for `unsigned`, and for
/// `float` what Rust's `f64` parser reads (digits with an optional fraction and exponent,
/// `inf`, `nan`). The error says what was expected.
pub fn parse_numeric(field: &str, ty: Type) -> Result<Value, String> {
    let t = field.trim();
    match ty {
        Type::Number => t
            .parse::<i64>()
            .map_err(|_| format!("`{field}` is not a number (signed 64-bit integer)")),
        Type::Unsigned => t
            .parse::<u64>()
            .map(encode_unsigned)
            .map_err(|_| format!("`{field}` is not an unsigned (64-bit integer, 0 or more)")),
        Type::Float => t
            .parse::<f64>()
            .map(encode_float)
            .map_err(|_| format!("`{field}` is not a float")),
        Type::Symbol | Type::Record(_) => {
            unreachable!("symbols and records are interned, not parsed as numbers")
        }
    }
}

/// A handle on a run's interned strings (see the module header: clones share one table).
/// Indices are dense, start at 0 and never change once given, so a model computed by one
/// engine can be compared word for word with another's.
#[derive(Clone, Default)]
pub struct Symbols {
    shared: Arc<Shared>,
}

/// What the handles of one table share.
#[derive(Default)]
struct Shared {
    table: RwLock<Table>,
    /// Compiled `match` patterns by the pattern's index (`None`: not a valid pattern), so
    /// that a pattern is compiled once per run ([`crate::strings`]).
    regexes: RwLock<hashbrown::HashMap<Value, Option<regex::Regex>>>,
    /// The run's records ([`crate::records`]): built while rules are evaluated, like strings.
    records: RwLock<RecordTable>,
}

/// The records of a run: record `i` (a word from 1; 0 is `nil`) has the fields
/// `fields[i - 1]`.
#[derive(Default)]
struct RecordTable {
    index: hashbrown::HashMap<Arc<[Value]>, Value>,
    fields: Vec<Arc<[Value]>>,
}

/// The strings of a [`Symbols`] table, read under one lock ([`Symbols::names`]).
pub struct SymbolNames<'a>(RwLockReadGuard<'a, Table>);

impl std::fmt::Debug for SymbolNames<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SymbolNames")
            .field("len", &self.0.names.len())
            .finish()
    }
}

impl SymbolNames<'_> {
    /// The string of an index given by [`Symbols::intern`]; `None` for any other value.
    #[inline]
    pub fn get(&self, v: Value) -> Option<&str> {
        usize::try_from(v)
            .ok()
            .and_then(|i| self.0.names.get(i))
            .map(|s| &**s)
    }
}

/// The table itself.
#[derive(Default)]
struct Table {
    /// Hashed with hashbrown's default (foldhash) rather than SipHash: every symbol of every
    /// facts file and update is looked up here.
    index: hashbrown::HashMap<Arc<str>, Value>,
    names: Vec<Arc<str>>,
}

impl std::fmt::Debug for Symbols {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Symbols").field("len", &self.len()).finish()
    }
}

/// Two handles are equal when they share one table (what an [`crate::program::Expr`]
/// holding a handle compares).
impl PartialEq for Symbols {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.shared, &other.shared)
    }
}

impl Eq for Symbols {}

impl std::hash::Hash for Symbols {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        std::ptr::hash(Arc::as_ptr(&self.shared), state);
    }
}

impl Symbols {
    /// A new, empty table (not shared with any other).
    pub fn new() -> Self {
        Self::default()
    }

    /// A lock is only poisoned by a panic while it is held, and no code here panics under
    /// one: the table is consistent whatever happened elsewhere.
    fn read(&self) -> RwLockReadGuard<'_, Table> {
        self.shared
            .table
            .read()
            .unwrap_or_else(PoisonError::into_inner)
    }

    fn write(&self) -> RwLockWriteGuard<'_, Table> {
        self.shared
            .table
            .write()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// The index of `s`, adding it if new; every handle on the table sees it at once. A
    /// `&mut` handle, so that what loads input reads as the table's writer (a program's
    /// constants, facts, updates); evaluation interns through its own handle
    /// ([`Symbols::intern_shared`]).
    pub fn intern(&mut self, s: &str) -> Value {
        self.intern_shared(s)
    }

    /// [`Symbols::intern`] through a shared handle: what string functors call while rules
    /// are evaluated, from any engine or thread.
    pub fn intern_shared(&self, s: &str) -> Value {
        if let Some(&v) = self.read().index.get(s) {
            return v;
        }
        let mut table = self.write();
        // Another handle may have added it between the two locks.
        if let Some(&v) = table.index.get(s) {
            return v;
        }
        let v = table.names.len() as Value;
        let name: Arc<str> = Arc::from(s);
        table.names.push(name.clone());
        table.index.insert(name, v);
        v
    }

    /// The index of `s` if it was interned.
    pub fn get(&self, s: &str) -> Option<Value> {
        self.read().index.get(s).copied()
    }

    /// The string of an index given by [`Symbols::intern`]; `None` for any other value.
    pub fn name(&self, v: Value) -> Option<Arc<str>> {
        let table = self.read();
        usize::try_from(v)
            .ok()
            .and_then(|i| table.names.get(i))
            .cloned()
    }

    /// The table's strings under one read lock, for code that writes many values: a lookup
    /// through it is an index into the table, where [`Symbols::name`] takes the lock and a
    /// reference count per value (writing an answer of 800 facts cost ~125 ns a fact that
    /// way). While it is held, this thread must not intern ([`Symbols::intern_shared`]
    /// waits for the write lock, which it never gets).
    pub fn names(&self) -> SymbolNames<'_> {
        SymbolNames(self.read())
    }

    /// Number of interned strings.
    pub fn len(&self) -> usize {
        self.read().names.len()
    }

    /// True when nothing is interned.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The record with these fields, added if new ([`crate::records`]): a word from 1, the
    /// same for the same fields whoever builds it first.
    pub fn record(&self, fields: &[Value]) -> Value {
        let known = self
            .shared
            .records
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .index
            .get(fields)
            .copied();
        if let Some(v) = known {
            return v;
        }
        let mut table = self
            .shared
            .records
            .write()
            .unwrap_or_else(PoisonError::into_inner);
        // Another handle may have added it between the two locks.
        if let Some(&v) = table.index.get(fields) {
            return v;
        }
        let v = table.fields.len() as Value + 1;
        let fields: Arc<[Value]> = Arc::from(fields);
        table.fields.push(fields.clone());
        table.index.insert(fields, v);
        v
    }

    /// The fields of the record `v`; `None` for `nil` and any word no record has.
    pub fn record_fields(&self, v: Value) -> Option<Arc<[Value]>> {
        let table = self
            .shared
            .records
            .read()
            .unwrap_or_else(PoisonError::into_inner);
        let i = usize::try_from(v.checked_sub(1)?).ok()?;
        table.fields.get(i).cloned()
    }

    /// Field `i` of the record `v`; `None` for `nil` (a pattern `[x, y]` does not match it)
    /// and any word no record has.
    pub fn record_field(&self, v: Value, i: usize) -> Option<Value> {
        let table = self
            .shared
            .records
            .read()
            .unwrap_or_else(PoisonError::into_inner);
        let fields = table.fields.get(usize::try_from(v.checked_sub(1)?).ok()?)?;
        fields.get(i).copied()
    }

    /// Number of records built so far.
    pub fn records_len(&self) -> usize {
        self.shared
            .records
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .fields
            .len()
    }

    /// `f` applied to the regular expression `pattern` (a symbol) compiles to, compiled once
    /// per table by `compile`; `None` when `pattern` is no symbol of the table.
    pub(crate) fn with_regex<R>(
        &self,
        pattern: Value,
        compile: impl FnOnce(&str) -> Option<regex::Regex>,
        f: impl FnOnce(Option<&regex::Regex>) -> R,
    ) -> Option<R> {
        {
            let cache = self
                .shared
                .regexes
                .read()
                .unwrap_or_else(PoisonError::into_inner);
            if let Some(re) = cache.get(&pattern) {
                return Some(f(re.as_ref()));
            }
        }
        let text = self.name(pattern)?;
        let re = compile(&text);
        let mut cache = self
            .shared
            .regexes
            .write()
            .unwrap_or_else(PoisonError::into_inner);
        let re = cache.entry(pattern).or_insert(re);
        Some(f(re.as_ref()))
    }

    /// A value as a program would write it: `"text"` for symbols, [`format_numeric`] for
    /// the numeric types, `[1, a]` or `nil` for records (as files write them).
    pub fn display(&self, ty: Type, v: Value) -> String {
        match ty {
            Type::Symbol => quote(self.name(v).as_deref().unwrap_or("<unknown symbol>")),
            ty => self.raw(ty, v),
        }
    }

    /// A value as a `.facts` or `.csv` file holds it: the bare string,
    /// [`format_numeric`], or a record as [`crate::records::write_value`] writes it.
    pub fn raw(&self, ty: Type, v: Value) -> String {
        let mut out = String::new();
        crate::records::write_value(self, ty, v, &mut out);
        out
    }
}

/// A string as a program constant: in double quotes, with exactly the escapes the lexer reads
/// (`\"`, `\\`, `\n`, `\t`), so that printing and parsing a program round-trip.
pub fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numeric_encodings_keep_order_and_round_trip() {
        let us = [
            0,
            1,
            2,
            1 << 31,
            i64::MAX as u64,
            1 << 63,
            u64::MAX - 1,
            u64::MAX,
        ];
        for w in us.windows(2) {
            assert!(encode_unsigned(w[0]) < encode_unsigned(w[1]), "{w:?}");
        }
        for &u in &us {
            assert_eq!(decode_unsigned(encode_unsigned(u)), u);
        }
        let fs = [
            f64::NEG_INFINITY,
            -1e300,
            -2.5,
            -f64::MIN_POSITIVE,
            0.0,
            5e-324,
            0.1,
            1.0,
            1e300,
            f64::INFINITY,
            f64::NAN,
        ];
        for w in fs.windows(2) {
            assert!(encode_float(w[0]) < encode_float(w[1]), "{w:?}");
        }
        for &f in &fs[..fs.len() - 1] {
            assert_eq!(decode_float(encode_float(f)), f);
        }
        assert!(decode_float(encode_float(f64::NAN)).is_nan());
        assert_eq!(encode_float(-0.0), encode_float(0.0));
        assert_eq!(encode_float(0.0), 0);
        assert_eq!(encode_float(-f64::NAN), encode_float(f64::NAN));
    }

    #[test]
    fn numeric_text_reads_back() {
        for (ty, text) in [
            (Type::Unsigned, "18446744073709551615"),
            (Type::Unsigned, "0"),
            (Type::Float, "1.5"),
            (Type::Float, "-0.1"),
            (Type::Float, "1e300"),
            (Type::Float, "2.5e-7"),
            (Type::Float, "inf"),
            (Type::Number, "-9"),
        ] {
            let v = parse_numeric(text, ty).expect("valid");
            assert_eq!(format_numeric(ty, v), text);
        }
        assert_eq!(format_numeric(Type::Float, encode_float(3.0)), "3");
        assert!(parse_numeric("-1", Type::Unsigned).is_err());
        assert!(parse_numeric("1.5", Type::Number).is_err());
        assert!(parse_numeric("x", Type::Float).is_err());
    }

    #[test]
    fn interning_is_stable() {
        let mut s = Symbols::new();
        let a = s.intern("a");
        let b = s.intern("b");
        assert_eq!(s.intern("a"), a);
        assert_ne!(a, b);
        assert_eq!(s.name(b).as_deref(), Some("b"));
        assert_eq!(s.name(7), None);
        assert_eq!(s.display(Type::Symbol, a), "\"a\"");
    }

    #[test]
    fn clones_share_one_table_and_new_tables_are_independent() {
        let s = Symbols::new();
        let mut shared = s.clone();
        let a = shared.intern("a");
        assert_eq!(s.get("a"), Some(a));
        assert_eq!(s, shared);
        let other = Symbols::new();
        assert_eq!(other.get("a"), None);
        assert_ne!(s, other);
    }

    #[test]
    fn threads_interning_the_same_strings_agree_on_their_indices() {
        let s = Symbols::new();
        let handles: Vec<_> = (0..4)
            .map(|t| {
                let s = s.clone();
                std::thread::spawn(move || {
                    (0..200)
                        .map(|i| (i, s.intern_shared(&format!("w{}", (i * 7 + t) % 100))))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        for h in handles {
            for (_, v) in h.join().expect("thread") {
                let name = s.name(v).expect("interned");
                assert_eq!(s.get(&name), Some(v));
            }
        }
        assert_eq!(s.len(), 100);
    }
}
