//! Values and the symbol table.
//!
//! Every column is typed, so a value is one machine word: a `number` column holds the integer
//! itself and a `symbol` column the index of an interned string. Two facts are equal exactly
//! when their words are equal, which lets storage hash and compare tuples without looking at
//! types.

use std::sync::Arc;

use crate::syntax::ast::Type;

/// One column value: an `i64` for `number` columns, a [`Symbols`] index for `symbol` columns.
pub type Value = i64;

/// A tuple of values, as many as the relation's arity.
pub type Tuple = Vec<Value>;

/// Interned strings. Indices are dense, start at 0 and never change once given, so a model
/// computed by one engine can be compared word for word with another's.
#[derive(Clone, Debug, Default)]
pub struct Symbols {
    /// Hashed with hashbrown's default (foldhash) rather than SipHash: every symbol of every
    /// facts file and update is looked up here.
    index: hashbrown::HashMap<Arc<str>, Value>,
    names: Vec<Arc<str>>,
}

impl Symbols {
    /// An empty table.
    pub fn new() -> Self {
        Self::default()
    }

    /// The index of `s`, adding it if new.
    pub fn intern(&mut self, s: &str) -> Value {
        if let Some(&v) = self.index.get(s) {
            return v;
        }
        let v = self.names.len() as Value;
        let name: Arc<str> = Arc::from(s);
        self.names.push(name.clone());
        self.index.insert(name, v);
        v
    }

    /// The index of `s` if it was interned.
    pub fn get(&self, s: &str) -> Option<Value> {
        self.index.get(s).copied()
    }

    /// The string of an index given by [`Symbols::intern`]; `None` for any other value.
    pub fn name(&self, v: Value) -> Option<&str> {
        usize::try_from(v)
            .ok()
            .and_then(|i| self.names.get(i))
            .map(|s| &**s)
    }

    /// Number of interned strings.
    pub fn len(&self) -> usize {
        self.names.len()
    }

    /// True when nothing is interned.
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    /// A value as a program would write it: `"text"` for symbols, digits for numbers.
    pub fn display(&self, ty: Type, v: Value) -> String {
        match ty {
            Type::Number => v.to_string(),
            Type::Symbol => quote(self.name(v).unwrap_or("<unknown symbol>")),
        }
    }

    /// A value as a `.facts` or `.csv` file holds it: the bare string, or digits.
    pub fn raw(&self, ty: Type, v: Value) -> String {
        match ty {
            Type::Number => v.to_string(),
            Type::Symbol => self.name(v).unwrap_or("<unknown symbol>").to_string(),
        }
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
    fn interning_is_stable() {
        let mut s = Symbols::new();
        let a = s.intern("a");
        let b = s.intern("b");
        assert_eq!(s.intern("a"), a);
        assert_ne!(a, b);
        assert_eq!(s.name(b), Some("b"));
        assert_eq!(s.name(7), None);
        assert_eq!(s.display(Type::Symbol, a), "\"a\"");
    }
}
