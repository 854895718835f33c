//! The lines of the engine protocol, version 1 (`docs/engine-protocol.md`), shared by the
//! harness's side ([`super::client`]) and the engine side of the built-in engines
//! ([`super::serve`]): the greeting, fact lines, and the line that ends every answer.
//!
//! Values travel as in `.facts` files and update streams: raw symbol text and decimal
//! numbers, tab-separated; or, once an engine accepts [`SYMBOL_NUMBERS`], symbols as the
//! numbers the harness gave them. No escaping exists there, so a symbol holding a tab, a newline or
//! a carriage return cannot travel; the harness refuses such a program or EDB
//! ([`check_representable`]) rather than send a value the engine would read back wrong.

use dred_core::io::format_tuple_raw;
use dred_core::syntax::ast::Type;
use dred_core::value::SymbolNames;
use dred_core::{Program, RelId, Symbols, Tuple, Value};

/// The protocol version this harness speaks.
pub const VERSION: u32 = 1;

/// What an engine's answers hold after each batch, as agreed at the greeting.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Level {
    /// The batch's net change of the IDB: `+` lines for facts that came, `-` for facts that
    /// went (at materialisation, the whole model as `+` lines).
    Changes,
    /// The whole IDB after the batch, as `+` lines; the harness computes the change.
    Model,
}

impl Level {
    /// The level's word in the greeting.
    pub fn word(self) -> &'static str {
        match self {
            Level::Changes => "changes",
            Level::Model => "model",
        }
    }

    /// The level a greeting's word names.
    pub fn from_word(word: &str) -> Option<Level> {
        match word {
            "changes" => Some(Level::Changes),
            "model" => Some(Level::Model),
            _ => None,
        }
    }
}

/// The option word by which the harness offers, and an engine accepts, symbols written as
/// their numbers (`docs/engine-protocol.md`, *Symbols as numbers*).
pub const SYMBOL_NUMBERS: &str = "symbols=ids";

/// The harness's greeting: the version and the levels it accepts, most preferred first,
/// then [`SYMBOL_NUMBERS`] when `numbers` offers it.
pub fn greeting(numbers: bool) -> String {
    let option = if numbers {
        format!(" {SYMBOL_NUMBERS}")
    } else {
        String::new()
    };
    format!("protocol {VERSION} changes model{option}\n")
}

/// The engine's greeting parsed: the level it chose and its `key=value` words (`name`,
/// `version`, anything else it wants recorded).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hello {
    /// The level of every later answer.
    pub level: Level,
    /// The `key=value` words after the level.
    pub info: Vec<(String, String)>,
}

/// Parses the engine's reply to [`greeting`]: `protocol 1 LEVEL [key=value ...]`.
pub fn parse_hello(line: &str) -> Result<Hello, String> {
    let mut words = line.split(' ');
    if words.next() != Some("protocol") {
        return Err(format!("expected `protocol {VERSION} LEVEL`, got {line:?}"));
    }
    match words.next() {
        Some(v) if v == VERSION.to_string() => {}
        Some(v) => {
            return Err(format!(
                "the engine speaks protocol version {v:?}; this harness speaks {VERSION}"
            ))
        }
        None => return Err(format!("expected `protocol {VERSION} LEVEL`, got {line:?}")),
    }
    let level = words
        .next()
        .and_then(Level::from_word)
        .ok_or_else(|| format!("{line:?}: the level must be `changes` or `model`"))?;
    let info = words
        .filter(|w| !w.is_empty())
        .map(key_value)
        .collect::<Result<_, _>>()?;
    Ok(Hello { level, info })
}

/// How an answer ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Terminal {
    /// `ok [time_ns=N] [key=value ...]`: the answer is complete.
    Ok {
        /// The engine's own time for the exchange, if it measured one.
        time_ns: Option<u64>,
        /// Its other counters, in the order given.
        counters: Vec<(String, String)>,
    },
    /// `error MESSAGE`: the engine failed on this request.
    Error(String),
    /// `unsupported FEATURE`: the engine cannot run this program (or batch).
    Unsupported(String),
}

/// Whether `line` ends an answer (its first word is `ok`, `error`, `unsupported` or
/// `protocol`): what a reader looks for to know an answer is complete.
pub fn is_terminal(line: &str) -> bool {
    let first = line.split(' ').next().unwrap_or_default();
    matches!(first, "ok" | "error" | "unsupported" | "protocol")
}

/// Parses the line that ends an answer.
pub fn parse_terminal(line: &str) -> Result<Terminal, String> {
    let (first, rest) = line.split_once(' ').unwrap_or((line, ""));
    match first {
        "ok" => {
            let mut time_ns = None;
            let mut counters = Vec::new();
            for word in rest.split(' ').filter(|w| !w.is_empty()) {
                let (k, v) = key_value(word)?;
                if k == "time_ns" {
                    time_ns = Some(v.parse::<u64>().map_err(|_| {
                        format!("`time_ns={v}`: a whole number of nanoseconds expected")
                    })?);
                } else {
                    counters.push((k, v));
                }
            }
            Ok(Terminal::Ok { time_ns, counters })
        }
        "error" => Ok(Terminal::Error(rest.trim().to_string())),
        "unsupported" if !rest.trim().is_empty() => {
            Ok(Terminal::Unsupported(rest.trim().to_string()))
        }
        "unsupported" => Err("`unsupported` must name the feature".into()),
        _ => Err(format!(
            "expected a fact line or `ok`, `error` or `unsupported`, got {line:?}"
        )),
    }
}

/// One `key=value` word: key of letters, digits, `_`, `-`, `.`; value non-empty.
fn key_value(word: &str) -> Result<(String, String), String> {
    let (k, v) = word
        .split_once('=')
        .ok_or_else(|| format!("{word:?}: expected key=value"))?;
    let key_ok = !k.is_empty()
        && k.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'));
    if !key_ok || v.is_empty() {
        return Err(format!(
            "{word:?}: expected key=value (key of [A-Za-z0-9_.-])"
        ));
    }
    Ok((k.to_string(), v.to_string()))
}

/// Writes fact lines (`SIGN\trel[\tvalue...]\n`, a zero-arity fact with no values) for one
/// request or answer.
///
/// Why a writer rather than a function per fact: the engine's answers and the harness's
/// requests are timed, and writing a value through [`dred_core::records::write_value`] took
/// the symbol table's lock and a reference count per value and allocated per value (~125 ns
/// a fact of two symbols in `serve`'s answers). The writer holds the strings' lock
/// ([`Symbols::names`]) while it lives and writes numbers without allocating; for a program
/// with record columns it writes through `write_value`, which takes the table's locks
/// itself, and holds none.
#[derive(Debug)]
pub struct FactWriter<'a> {
    program: &'a Program,
    symbols: &'a Symbols,
    names: Option<SymbolNames<'a>>,
    numbers: SymbolNumbers<'a>,
}

/// How a [`FactWriter`] writes a symbol.
#[derive(Clone, Copy, Debug)]
pub enum SymbolNumbers<'a> {
    /// As its text.
    Text,
    /// As its number in the harness's table, which is its value there (the harness's side).
    Values,
    /// As the number the harness gave it, found by its value in the engine's table
    /// (`u32::MAX` for a symbol the harness has not numbered; `serve`'s side).
    Mapped(&'a [u32]),
}

impl<'a> FactWriter<'a> {
    /// A writer for facts of `program`'s relations, whose symbols are in `symbols`. Nothing
    /// may intern in `symbols` from this thread while it lives.
    pub fn new(program: &'a Program, symbols: &'a Symbols) -> Self {
        FactWriter {
            program,
            symbols,
            names: (!program.has_records()).then(|| symbols.names()),
            numbers: SymbolNumbers::Text,
        }
    }

    /// The same writer writing symbols as `numbers` says (for a program without records,
    /// the only programs whose symbols travel as numbers).
    pub fn with_numbers(self, numbers: SymbolNumbers<'a>) -> Self {
        FactWriter { numbers, ..self }
    }

    /// Appends the line of `sign` (`+` or `-`) and the fact `tuple` of `rel` to `out`.
    pub fn push(&self, out: &mut String, sign: char, rel: RelId, tuple: &[Value]) {
        let decl = &self.program.relations[rel];
        out.push(sign);
        out.push('\t');
        out.push_str(decl.facts_name());
        for (&ty, &v) in decl.types.iter().zip(tuple) {
            out.push('\t');
            match (&self.names, ty, self.numbers) {
                (_, Type::Symbol, SymbolNumbers::Values) => push_decimal(out, v),
                (_, Type::Symbol, SymbolNumbers::Mapped(numbers)) => {
                    // A symbol without a number (none the harness gave) is written `?`,
                    // which the harness refuses as malformed: never a wrong symbol.
                    match usize::try_from(v).ok().and_then(|i| numbers.get(i)) {
                        Some(&n) if n != u32::MAX => push_decimal(out, i64::from(n)),
                        _ => out.push('?'),
                    }
                }
                (Some(names), Type::Symbol, SymbolNumbers::Text) => {
                    out.push_str(names.get(v).unwrap_or("<unknown symbol>"))
                }
                (Some(_), Type::Number, _) => push_decimal(out, v),
                _ => dred_core::records::write_value(self.symbols, ty, v, out),
            }
        }
        out.push('\n');
    }
}

/// Appends `v` in decimal. Why not `write!`: through `fmt`'s machinery a number cost more
/// than copying a symbol's text (answers with symbols as numbers took longer to format than
/// with their text).
fn push_decimal(out: &mut String, v: i64) {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    let mut n = v.unsigned_abs();
    loop {
        at -= 1;
        digits[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    if v < 0 {
        out.push('-');
    }
    // Only ASCII digits were written.
    out.push_str(std::str::from_utf8(&digits[at..]).unwrap_or_default());
}

/// The symbols' values by text, for reading answers: a copy of the table's index taken
/// once, so that the values of answers are looked up without the table's lock.
#[derive(Debug, Default)]
pub struct SymbolIndex {
    known: hashbrown::HashMap<Box<str>, Value>,
    /// Symbols travel as their numbers ([`SYMBOL_NUMBERS`]): a symbol field is a value of
    /// the harness's table below this count, the symbols numbered so far.
    numbered: Option<usize>,
    /// For a program with string functors or records, whose answers may hold strings and
    /// records its rules made: the table such a value is interned in, as an engine of the
    /// harness would.
    table: Option<Symbols>,
}

impl SymbolIndex {
    /// The index of every symbol of `symbols`.
    pub fn of(symbols: &Symbols) -> Self {
        SymbolIndex {
            known: (0..symbols.len() as Value)
                .filter_map(|v| symbols.name(v).map(|s| (Box::from(&*s), v)))
                .collect(),
            numbered: None,
            table: None,
        }
    }

    /// An index for answers writing symbols as numbers, `count` of them numbered so far.
    pub fn numbered(count: usize) -> Self {
        SymbolIndex {
            numbered: Some(count),
            ..SymbolIndex::default()
        }
    }

    /// The same index, interning in `symbols` a string it does not know (for programs with
    /// string functors).
    pub fn interning(self, symbols: &Symbols) -> Self {
        SymbolIndex {
            table: Some(symbols.clone()),
            ..self
        }
    }

    /// The value of a symbol, if it was interned (or interned now, see
    /// [`SymbolIndex::interning`]).
    pub fn get(&self, s: &str) -> Option<Value> {
        self.known
            .get(s)
            .copied()
            .or_else(|| self.table.as_ref().map(|t| t.intern_shared(s)))
    }
}

/// One fact line parsed against the program: its sign (`+` or `-`) and relation, its values
/// written into `tuple` (cleared first; a buffer reused from line to line, so that removing a
/// fact allocates nothing). Symbols are looked up, never added: a symbol the harness never
/// saw cannot be in the right model, and the line is refused naming it; but in a program
/// with string functors, whose rules make strings, `symbols` interns what it does not know
/// ([`SymbolIndex::interning`]).
pub fn parse_fact(
    line: &str,
    program: &Program,
    symbols: &SymbolIndex,
    tuple: &mut Tuple,
) -> Result<(char, RelId), String> {
    tuple.clear();
    let mut fields = line.split('\t');
    let sign = match fields.next() {
        Some("+") => '+',
        Some("-") => '-',
        _ => {
            return Err(format!(
                "expected `+` or `-`, a tab, a relation and its values, got {line:?}"
            ))
        }
    };
    let name = fields.next().unwrap_or_default();
    let rel = program
        .relation_id(name)
        .ok_or_else(|| format!("{line:?}: relation `{name}` is not declared in the program"))?;
    if !program.is_idb(rel) {
        return Err(format!(
            "{line:?}: `{name}` is an input relation; answers hold derived facts only"
        ));
    }
    let types = &program.relations[rel].types;
    if types.is_empty() {
        return match fields.next() {
            None | Some("()") if fields.next().is_none() => Ok((sign, rel)),
            _ => Err(format!("{line:?}: `{name}` has no columns")),
        };
    }
    let mut count = 0;
    for field in fields {
        count += 1;
        let Some(&ty) = types.get(count - 1) else {
            continue;
        };
        tuple.push(match ty {
            Type::Number => field.parse::<i64>().map_err(|_| {
                format!("{line:?}: `{field}` is not a number (signed 64-bit decimal)")
            })?,
            numeric @ (Type::Unsigned | Type::Float) => {
                dred_core::value::parse_numeric(field, numeric)
                    .map_err(|e| format!("{line:?}: {e}"))?
            }
            Type::Record(id) => {
                let table = symbols
                    .table
                    .as_ref()
                    .ok_or_else(|| format!("{line:?}: a record where the harness expects none"))?;
                dred_core::records::parse_record(field, id, table)
                    .map_err(|e| format!("{line:?}: {e}"))?
            }
            Type::Symbol if symbols.numbered.is_some() => field
                .parse::<Value>()
                .ok()
                .filter(|&v| usize::try_from(v).is_ok_and(|i| Some(i) < symbols.numbered))
                .ok_or_else(|| {
                    format!(
                        "{line:?}: `{field}` is not the number of a symbol the harness gave \
                         (symbols travel as numbers: `{SYMBOL_NUMBERS}`)"
                    )
                })?,
            Type::Symbol => symbols.get(field).ok_or_else(|| {
                format!(
                    "{line:?}: the symbol {field:?} occurs in no program constant, fact or \
                     update, so no fact of the model can hold it"
                )
            })?,
        });
    }
    if count != types.len() {
        return Err(format!(
            "{line:?}: `{name}` has {} column(s), the line {count}",
            types.len()
        ));
    }
    Ok((sign, rel))
}

/// Refuses symbols that cannot travel (a tab, a newline or a carriage return in them): the
/// first such symbol, quoted.
pub fn check_representable(symbols: &Symbols) -> Result<(), String> {
    for i in 0..symbols.len() {
        let Some(s) = symbols.name(i as Value) else {
            continue;
        };
        if s.contains(['\t', '\n', '\r']) {
            return Err(format!(
                "the symbol {} holds a tab, newline or carriage return, which protocol \
                 version {VERSION} cannot carry",
                dred_core::value::quote(&s)
            ));
        }
    }
    Ok(())
}

/// A relation's facts as `.facts` lines (what the harness writes for an engine to read).
pub fn facts_file(types: &[Type], tuples: &[&Tuple], symbols: &Symbols) -> String {
    let mut text = String::new();
    for t in tuples {
        text.push_str(&format_tuple_raw(types, t, symbols));
        text.push('\n');
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn terminal_lines_parse_and_malformed_ones_are_refused() {
        assert_eq!(
            parse_terminal("ok time_ns=12 rounds=3"),
            Ok(Terminal::Ok {
                time_ns: Some(12),
                counters: vec![("rounds".into(), "3".into())]
            })
        );
        assert_eq!(
            parse_terminal("ok"),
            Ok(Terminal::Ok {
                time_ns: None,
                counters: vec![]
            })
        );
        assert_eq!(
            parse_terminal("unsupported aggregates"),
            Ok(Terminal::Unsupported("aggregates".into()))
        );
        assert_eq!(
            parse_terminal("error out of memory"),
            Ok(Terminal::Error("out of memory".into()))
        );
        for bad in ["ok time_ns=x", "ok rounds", "ok =3", "unsupported", "done"] {
            assert!(parse_terminal(bad).is_err(), "{bad} accepted");
        }
        assert!(is_terminal("ok") && is_terminal("error x") && !is_terminal("+\tp\ta"));
    }

    #[test]
    fn numbers_are_written_in_decimal() {
        for v in [0, 7, 10, 12_345, -1, -90, i64::MAX, i64::MIN] {
            let mut out = String::from("x");
            push_decimal(&mut out, v);
            assert_eq!(out, format!("x{v}"));
        }
    }

    #[test]
    fn the_greeting_names_version_and_level() {
        let h = parse_hello("protocol 1 changes name=dred").expect("hello");
        assert_eq!(h.level, Level::Changes);
        assert_eq!(h.info, vec![("name".into(), "dred".into())]);
        assert!(parse_hello("protocol 2 changes").is_err());
        assert!(parse_hello("protocol 1 digest").is_err());
        assert!(parse_hello("hello").is_err());
    }
}
