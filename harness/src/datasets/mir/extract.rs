//! From rustc's textual MIR (`-Zunpretty=mir`) to the facts of a field-insensitive,
//! inclusion-based (Andersen-style) points-to analysis. The module header of
//! [`super`] states what is kept and what is dropped; this file implements it.

use std::collections::{BTreeMap, BTreeSet, HashMap};

/// The relations written, with their columns (`:n` marks a `number` column), in file order.
pub const RELATIONS: &[(&str, &[&str])] = &[
    ("actual", &["site", "index:n", "value"]),
    ("address_of", &["pointer", "object"]),
    ("assign", &["to", "from"]),
    ("call_dynamic", &["site", "callee"]),
    ("call_external", &["site", "value"]),
    ("call_in", &["site", "function"]),
    ("call_result", &["site", "value"]),
    ("call_static", &["site", "function"]),
    ("entry", &["function"]),
    ("fn_object", &["object", "function"]),
    ("fn_return", &["function", "value"]),
    ("formal", &["function", "index:n", "value"]),
    ("load", &["to", "pointer"]),
    ("store", &["pointer", "from"]),
];

/// Extracted facts: relation name → set of rows (every value as written to the file).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Facts {
    /// Rows per relation of [`RELATIONS`] (every relation present, maybe empty).
    pub relations: BTreeMap<&'static str, BTreeSet<Vec<String>>>,
    /// One entry per function body kept: its prefix, the header's name, facts attributed to it.
    pub functions: Vec<FunctionInfo>,
    /// What was seen and not modelled, by kind (for PROVENANCE and the docs' figures).
    pub dropped: BTreeMap<&'static str, usize>,
}

/// One function body of the MIR.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FunctionInfo {
    /// The prefix its values carry (before `::`).
    pub prefix: String,
    /// The name rustc printed in the header (registry path shortened to the crate).
    pub name: String,
    /// Statement and call facts whose first value carries its prefix.
    pub facts: usize,
}

impl Facts {
    /// All rows, all relations together.
    pub fn total(&self) -> usize {
        self.relations.values().map(BTreeSet::len).sum()
    }

    fn add(&mut self, rel: &'static str, row: Vec<String>) {
        debug_assert!(RELATIONS.iter().any(|(r, _)| *r == rel));
        self.relations.entry(rel).or_default().insert(row);
    }
}

/// A parse failure: the 1-based line of the MIR text and what was wrong there.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("MIR line {line}: {message}")]
pub struct MirError {
    /// 1-based line number in the MIR text.
    pub line: usize,
    /// What could not be read.
    pub message: String,
}

/// A function body as read from the text, before facts are made.
struct Body {
    /// Header name, shortened.
    name: String,
    prefix: String,
    /// Parameter types, `_1` first.
    params: Vec<String>,
    return_type: String,
    /// Local → type, parameters and `_0` included.
    types: HashMap<u32, String>,
    has_self: bool,
    /// `{closure@SPAN}` this body implements, if a closure.
    closure_span: Option<String>,
    /// (block, line number, text) of each statement or terminator line.
    lines: Vec<(String, usize, String)>,
}

/// Shortens the absolute paths rustc prints in `<impl at PATH:L:C: L:C>` and
/// `{closure@PATH:L:C: L:C}` to the part from the crate's `src/` (or the file name).
fn shorten_paths(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find('/') {
        // A path starts at `/` preceded by `at ` or `@`.
        let before = &rest[..i];
        if !(before.ends_with("at ") || before.ends_with('@')) {
            out.push_str(&rest[..=i]);
            rest = &rest[i + 1..];
            continue;
        }
        out.push_str(before);
        let end = rest[i..]
            .find(|c: char| c == ':' || c.is_whitespace() || c == '>' || c == '}')
            .map_or(rest.len(), |e| i + e);
        let path = &rest[i..end];
        let short = match path.rfind("/src/") {
            Some(s) => &path[s + 1..],
            None => path.rsplit('/').next().unwrap_or(path),
        };
        out.push_str(short);
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}

/// The prefix of a body: its name with `::` → `.`, `<impl at FILE:L:C: L:C>` →
/// `{impl@FILE@L.C}`, and no `:` or whitespace left (values are `prefix::value`).
fn prefix_of(name: &str) -> String {
    let mut s = String::new();
    let mut rest = name;
    while let Some(i) = rest.find("<impl at ") {
        s.push_str(&rest[..i]);
        let after = &rest[i + "<impl at ".len()..];
        let close = after.find('>').unwrap_or(after.len());
        let inner = &after[..close];
        let mut parts = inner.splitn(3, ':');
        let file = parts.next().unwrap_or("");
        let l = parts.next().unwrap_or("");
        let c: String = parts
            .next()
            .unwrap_or("")
            .chars()
            .take_while(char::is_ascii_digit)
            .collect();
        s.push_str(&format!("{{impl@{file}@{l}.{c}}}"));
        rest = after.get(close + 1..).unwrap_or("");
    }
    s.push_str(rest);
    s.replace("::", ".")
        .chars()
        .map(|c| {
            if c == ':' || c.is_whitespace() {
                '_'
            } else {
                c
            }
        })
        .collect()
}

const SCALARS: &[&str] = &[
    "bool", "char", "u8", "u16", "u32", "u64", "u128", "usize", "i8", "i16", "i32", "i64", "i128",
    "isize", "f32", "f64", "()", "!",
];

/// Whether a value of this type can hold no pointer (a primitive scalar or unit).
fn is_scalar(ty: &str) -> bool {
    SCALARS.contains(&ty.trim())
}

/// The base name of a type: references, raw pointers, lifetimes and generic arguments
/// removed, last path segment (`&mut parse::ParserI<'_, P>` → `ParserI`).
fn base_type(ty: &str) -> String {
    let mut t = ty.trim();
    loop {
        let before = t;
        for lead in ["&mut ", "&", "*mut ", "*const ", "mut "] {
            if let Some(r) = t.strip_prefix(lead) {
                t = r.trim_start();
            }
        }
        if t.starts_with('\'') {
            t = t.split_once(' ').map_or("", |(_, r)| r);
        }
        if t == before {
            break;
        }
    }
    if t.starts_with('[') || t.starts_with('(') || t.starts_with('{') {
        return t.to_string();
    }
    let head = t.split('<').next().unwrap_or(t);
    head.rsplit("::").next().unwrap_or(head).trim().to_string()
}

/// The type an associated function without `self` is taken to belong to: its return type,
/// `Result<T, _>`, `Option<T>` and `Box<T>` unwrapped (constructors return `Self` in these).
fn return_owner(ret: &str) -> String {
    let t = ret.trim();
    for wrap in ["Result<", "Option<", "Box<"] {
        let last = t.rsplit("::").next().unwrap_or(t);
        if let Some(inner) = last.strip_prefix(wrap) {
            let arg = split_top(inner.trim_end_matches('>'), ',');
            if let Some(first) = arg.first() {
                return base_type(first);
            }
        }
    }
    base_type(t)
}

/// Splits at `sep` outside (), [], {}, <> (a `->` is not a bracket).
fn split_top(s: &str, sep: char) -> Vec<String> {
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut cur = String::new();
    let mut prev = ' ';
    for c in s.chars() {
        match c {
            '(' | '[' | '{' | '<' => depth += 1,
            ')' | ']' | '}' => depth -= 1,
            '>' if prev != '-' => depth -= 1,
            _ => {}
        }
        if c == sep && depth == 0 {
            out.push(cur.trim().to_string());
            cur.clear();
        } else {
            cur.push(c);
        }
        prev = c;
    }
    if !cur.trim().is_empty() {
        out.push(cur.trim().to_string());
    }
    out
}

/// The index of the bracket closing the one at `open` (same kind), outside nested ones.
fn matching(s: &[u8], open: usize) -> Option<usize> {
    let (o, c) = match s[open] {
        b'(' => (b'(', b')'),
        b'[' => (b'[', b']'),
        b'{' => (b'{', b'}'),
        b'<' => (b'<', b'>'),
        _ => return None,
    };
    let mut depth = 0;
    for (i, &b) in s.iter().enumerate().skip(open) {
        if b == o {
            depth += 1;
        } else if b == c && !(c == b'>' && i > 0 && s[i - 1] == b'-') {
            depth -= 1;
            if depth == 0 {
                return Some(i);
            }
        }
    }
    None
}

/// A place, field-insensitively: a local and how many times it is dereferenced.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Place {
    local: u32,
    derefs: u32,
}

/// Parses a place at the start of `s`; returns it and the bytes consumed.
fn parse_place(s: &str) -> Option<(Place, usize)> {
    let b = s.as_bytes();
    let (mut place, mut end) = if b.first() == Some(&b'(') {
        if b.get(1) == Some(&b'*') {
            let (inner, used) = parse_place(&s[2..])?;
            if b.get(2 + used) != Some(&b')') {
                return None;
            }
            (
                Place {
                    local: inner.local,
                    derefs: inner.derefs + 1,
                },
                2 + used + 1,
            )
        } else {
            let (inner, _) = parse_place(&s[1..])?;
            // `(P.f: T)` or `(P as Variant)`: field-insensitive, the same place.
            let close = matching(b, 0)?;
            (inner, close + 1)
        }
    } else if b.first() == Some(&b'_') {
        let digits = s[1..].bytes().take_while(u8::is_ascii_digit).count();
        if digits == 0 {
            return None;
        }
        (
            Place {
                local: s[1..1 + digits].parse().ok()?,
                derefs: 0,
            },
            1 + digits,
        )
    } else {
        return None;
    };
    // Index and subslice projections: every element is the same abstract location.
    while b.get(end) == Some(&b'[') {
        end = matching(b, end)? + 1;
    }
    place.derefs += 0;
    Some((place, end))
}

/// An operand's contribution: the place it reads, if any (`copy P`, `move P`).
fn operand_place(op: &str) -> Option<Place> {
    let op = op.trim();
    let rest = op
        .strip_prefix("copy ")
        .or_else(|| op.strip_prefix("move "))?;
    let (p, used) = parse_place(rest)?;
    (used == rest.len()).then_some(p)
}

/// What a non-call right-hand side contributes to its left-hand side.
enum Source {
    /// `&P`: the address of the place.
    Address(Place),
    /// A value read from the place.
    Value(Place),
    /// The code object of a closure (by span) or a function item.
    Closure(String),
    FnItem(String),
}

/// The sources of an rvalue (every operand it reads, or the place it borrows).
fn rvalue_sources(rhs: &str) -> Vec<Source> {
    let rhs = rhs.trim();
    for lead in [
        "&raw const ",
        "&raw mut ",
        "&fake shallow ",
        "&fake deep ",
        "&mut ",
        "&",
    ] {
        if let Some(rest) = rhs.strip_prefix(lead) {
            return parse_place(rest)
                .map(|(p, _)| vec![Source::Address(p)])
                .unwrap_or_default();
        }
    }
    let mut out = Vec::new();
    if let Some(rest) = rhs.strip_prefix("{closure@") {
        if let Some(close) = matching(rhs.as_bytes(), 0) {
            out.push(Source::Closure(
                rest[..close - "{closure@".len()].to_string(),
            ));
        }
    }
    if rhs.contains("ReifyFnPointer") {
        if let Some((item, _)) = rhs.split_once(" as ") {
            let item = item.trim().trim_start_matches("const ").trim();
            if !item.starts_with("copy ") && !item.starts_with("move ") {
                out.push(Source::FnItem(item.to_string()));
            }
        }
    }
    if let Some(inner) = rhs
        .strip_prefix("CopyForDeref(")
        .and_then(|r| r.strip_suffix(')'))
    {
        if let Some((p, _)) = parse_place(inner) {
            out.push(Source::Value(p));
        }
    }
    // Every `copy P` / `move P` in the rvalue (casts, aggregates, pointer offsets).
    let b = rhs.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let at_word = i == 0 || !(b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_');
        if at_word && (rhs[i..].starts_with("copy ") || rhs[i..].starts_with("move ")) {
            if let Some((p, used)) = parse_place(&rhs[i + 5..]) {
                out.push(Source::Value(p));
                i += 5 + used;
                continue;
            }
        }
        i += 1;
    }
    out
}

/// A call terminator split into destination, callee and arguments.
struct Call<'a> {
    dest: &'a str,
    callee: &'a str,
    args: Vec<String>,
}

/// Splits `DEST = CALLEE(ARGS) -> …;` (a call terminator), or `None` if the line is not one.
fn parse_call(line: &str) -> Option<Call<'_>> {
    let line = line.strip_suffix(';')?;
    let arrow = ["-> [return:", "-> unwind ", "-> [success"]
        .iter()
        .filter_map(|a| line.rfind(a))
        .max()?;
    let head = line[..arrow].trim_end();
    let (dest, call) = head.split_once(" = ")?;
    let cb = call.as_bytes();
    if cb.last() != Some(&b')') {
        return None;
    }
    // The argument list is the bracket group that ends the call.
    let mut depth = 0;
    let mut open = None;
    for i in (0..cb.len()).rev() {
        match cb[i] {
            b')' => depth += 1,
            b'(' => {
                depth -= 1;
                if depth == 0 {
                    open = Some(i);
                    break;
                }
            }
            _ => {}
        }
    }
    let open = open?;
    Some(Call {
        dest: dest.trim(),
        callee: call[..open].trim(),
        args: split_top(&call[open + 1..cb.len() - 1], ','),
    })
}

/// What a callee path names: `(type key, method)`; the type key is `None` for a free function.
fn callee_key(path: &str) -> (Option<String>, String) {
    let p = path.trim();
    if p.starts_with('<') {
        let b = p.as_bytes();
        if let Some(close) = matching(b, 0) {
            let inner = &p[1..close];
            let ty = inner
                .rsplit_once(" as ")
                .map_or(inner, |(t, _)| t)
                .trim()
                .to_string();
            let method = strip_generics(&p[close + 1..]);
            let method = method.trim_start_matches("::").to_string();
            let key = if ty.starts_with("{closure@") {
                ty
            } else {
                base_type(&ty)
            };
            return (Some(key), method);
        }
    }
    let plain = strip_generics(p);
    let segs: Vec<&str> = plain.split("::").filter(|s| !s.is_empty()).collect();
    let method = segs.last().copied().unwrap_or("").to_string();
    let owner = segs.len().checked_sub(2).map(|i| segs[i]);
    match owner {
        Some(o) if o.starts_with(|c: char| c.is_ascii_uppercase()) => (Some(o.to_string()), method),
        _ => (None, method),
    }
}

/// `a::B::<T>::c::<U>` → `a::B::c` (generic argument lists removed).
fn strip_generics(p: &str) -> String {
    let b = p.as_bytes();
    let mut out = String::new();
    let mut i = 0;
    while i < b.len() {
        if p[i..].starts_with("::<") {
            if let Some(close) = matching(b, i + 2) {
                i = close + 1;
                continue;
            }
        }
        if b[i] == b'<' && i > 0 && b[i - 1] != b':' {
            if let Some(close) = matching(b, i) {
                i = close + 1;
                continue;
            }
        }
        out.push(b[i] as char);
        i += 1;
    }
    out
}

/// Whether a type key names a type parameter or a trait object (dispatch unknown statically).
fn is_type_parameter(key: &str) -> bool {
    let k = key.trim();
    k.starts_with("dyn ")
        || (k.len() <= 3
            && k.starts_with(|c: char| c.is_ascii_uppercase())
            && k[1..].chars().all(|c| c.is_ascii_digit()))
}

/// Reads the MIR text into bodies (functions only; constants, statics, promoted values and
/// the second, compile-time copy of `const fn` bodies are skipped and counted).
fn read_bodies(text: &str, dropped: &mut BTreeMap<&'static str, usize>) -> Vec<Body> {
    let mut bodies = Vec::new();
    let mut lines = text.lines().enumerate().peekable();
    let mut ctfe_next = false;
    while let Some((_, line)) = lines.next() {
        if line.starts_with("// MIR FOR CTFE") {
            ctfe_next = true;
            continue;
        }
        if line.starts_with(' ') || line.starts_with('}') || !line.trim_end().ends_with('{') {
            continue;
        }
        // A top-level item: read to its closing `}` at column 0.
        let mut body_lines = Vec::new();
        for (n, l) in lines.by_ref() {
            if l.starts_with('}') {
                break;
            }
            body_lines.push((n, l));
        }
        if ctfe_next {
            ctfe_next = false;
            *dropped
                .entry("const fn bodies for compile-time evaluation")
                .or_default() += 1;
            continue;
        }
        let Some(header) = line.strip_prefix("fn ") else {
            *dropped
                .entry("constant, static, promoted and allocation bodies")
                .or_default() += 1;
            continue;
        };
        let header = shorten_paths(header.trim_end().trim_end_matches('{').trim_end());
        let Some(open) = header.find('(') else {
            continue;
        };
        let name = header[..open].to_string();
        let close = matching(header.as_bytes(), open).unwrap_or(header.len() - 1);
        let param_text = &header[open + 1..close];
        let return_type = header[close + 1..]
            .trim()
            .strip_prefix("->")
            .unwrap_or("()")
            .trim()
            .to_string();
        let mut params = Vec::new();
        for (i, part) in split_top(param_text, ',').iter().enumerate() {
            let want = format!("_{}: ", i + 1);
            params.push(part.strip_prefix(&want).unwrap_or(part).to_string());
        }
        let mut types: HashMap<u32, String> = HashMap::new();
        types.insert(0, return_type.clone());
        for (i, t) in params.iter().enumerate() {
            types.insert(i as u32 + 1, t.clone());
        }
        let mut has_self = false;
        let mut block = String::from("bb0");
        let mut stmts = Vec::new();
        for (n, l) in body_lines {
            let t = l.trim();
            if let Some(decl) = t.strip_prefix("let ") {
                let decl = decl.strip_prefix("mut ").unwrap_or(decl);
                if let Some((local, ty)) = decl.split_once(": ") {
                    if let Some(id) = local.strip_prefix('_').and_then(|d| d.parse().ok()) {
                        types.insert(id, shorten_paths(ty.trim_end_matches(';')));
                    }
                }
            } else if t == "debug self => _1;" {
                has_self = true;
            } else if t.starts_with("bb") && t.ends_with('{') {
                block = t.split([':', ' ', '[']).next().unwrap_or("bb").to_string();
            } else if l.starts_with("        ") && !t.is_empty() {
                stmts.push((block.clone(), n + 1, shorten_paths(t)));
            }
        }
        let closure_span = params
            .first()
            .and_then(|t| t.find("{closure@").map(|i| &t[i..]))
            .and_then(|t| t.find('}').map(|c| t["{closure@".len()..c].to_string()));
        bodies.push(Body {
            prefix: prefix_of(&name),
            name,
            params,
            return_type,
            types,
            has_self,
            closure_span,
            lines: stmts,
        });
    }
    // Distinct bodies can print alike (impls expanded from one macro share a span).
    let mut seen: HashMap<String, usize> = HashMap::new();
    for b in &mut bodies {
        let k = seen.entry(b.prefix.clone()).or_default();
        *k += 1;
        if *k > 1 {
            b.prefix = format!("{}~{k}", b.prefix);
        }
    }
    bodies
}

/// The definition index: who a call may reach.
struct Definitions {
    /// (type key or None, method, arity) → body indices.
    by_key: HashMap<(Option<String>, String, usize), Vec<usize>>,
    /// (method, arity) → bodies with a `self` (for calls on type parameters and `dyn`).
    methods: HashMap<(String, usize), Vec<usize>>,
    /// Closure span → closure bodies.
    closures: HashMap<String, Vec<usize>>,
}

fn method_name(name: &str) -> String {
    let stripped = strip_generics(name);
    stripped
        .rsplit("::")
        .next()
        .unwrap_or(&stripped)
        .to_string()
}

fn index_definitions(bodies: &[Body]) -> Definitions {
    let mut d = Definitions {
        by_key: HashMap::new(),
        methods: HashMap::new(),
        closures: HashMap::new(),
    };
    for (i, b) in bodies.iter().enumerate() {
        if let Some(span) = &b.closure_span {
            if b.name.ends_with('}') {
                d.closures.entry(span.clone()).or_default().push(i);
                continue;
            }
        }
        let m = method_name(&b.name);
        let arity = b.params.len();
        let key = if b.has_self {
            Some(base_type(&b.params[0]))
        } else if b.name.contains("<impl at ") {
            Some(return_owner(&b.return_type))
        } else {
            None
        };
        if b.has_self {
            d.methods.entry((m.clone(), arity)).or_default().push(i);
        }
        d.by_key.entry((key, m, arity)).or_default().push(i);
    }
    d
}

/// Makes the facts of one body: the variables of the statements, the call sites.
struct BodyFacts<'a> {
    body: &'a Body,
    facts: &'a mut Facts,
    count: usize,
}

impl BodyFacts<'_> {
    fn var(&self, local: u32) -> String {
        format!("{}::_{local}", self.body.prefix)
    }

    fn add(&mut self, rel: &'static str, row: Vec<String>) {
        self.count += 1;
        self.facts.add(rel, row);
    }

    /// The variable holding the value of `place` (a load chain through synthetic
    /// variables `_N*`, `_N**`, … for dereferences).
    fn value(&mut self, p: Place) -> String {
        let mut v = self.var(p.local);
        for k in 1..=p.derefs {
            let next = format!(
                "{}::_{}{}",
                self.body.prefix,
                p.local,
                "*".repeat(k as usize)
            );
            self.add("load", vec![next.clone(), v]);
            v = next;
        }
        v
    }

    /// The variable holding the address of `place`.
    fn address(&mut self, p: Place) -> String {
        if p.derefs == 0 {
            let addr = format!("{}::&_{}", self.body.prefix, p.local);
            let obj = self.var(p.local);
            self.add("address_of", vec![addr.clone(), obj]);
            addr
        } else {
            self.value(Place {
                local: p.local,
                derefs: p.derefs - 1,
            })
        }
    }

    /// Makes `dest` receive `from` (a variable): an assignment, or a store through a
    /// dereferenced destination.
    fn flow_into(&mut self, dest: Place, from: String) {
        if dest.derefs == 0 {
            let to = self.var(dest.local);
            if to != from {
                self.add("assign", vec![to, from]);
            }
        } else {
            let ptr = self.value(Place {
                local: dest.local,
                derefs: dest.derefs - 1,
            });
            self.add("store", vec![ptr, from]);
        }
    }

    fn local_type(&self, p: Place) -> Option<&str> {
        (p.derefs == 0)
            .then(|| self.body.types.get(&p.local).map(String::as_str))
            .flatten()
    }
}

/// Extracts the points-to facts of every function body in `text` (`-Zunpretty=mir` output).
pub fn extract(text: &str) -> Result<Facts, MirError> {
    let mut facts = Facts::default();
    for (rel, _) in RELATIONS {
        facts.relations.insert(rel, BTreeSet::new());
    }
    let mut dropped = BTreeMap::new();
    let bodies = read_bodies(text, &mut dropped);
    let defs = index_definitions(&bodies);
    let mut called: BTreeSet<usize> = BTreeSet::new();
    let mut counts = vec![0usize; bodies.len()];
    for (bi, body) in bodies.iter().enumerate() {
        let mut bf = BodyFacts {
            body,
            facts: &mut facts,
            count: 0,
        };
        let f = body.prefix.clone();
        // The interface: parameters and the return place. A closure's arguments arrive as
        // one tuple (position 1) and are spread over its parameters field-insensitively.
        let is_closure = body.closure_span.is_some() && body.name.ends_with('}');
        for i in 1..=body.params.len() as u32 {
            let index = if is_closure { i.min(2) - 1 } else { i - 1 };
            let v = bf.var(i);
            bf.add("formal", vec![f.clone(), index.to_string(), v]);
        }
        let ret = bf.var(0);
        bf.add("fn_return", vec![f.clone(), ret]);
        bf.add("fn_object", vec![format!("{f}::code"), f.clone()]);
        for (block, line_no, line) in &body.lines {
            if let Some(call) = parse_call(line) {
                let site = format!("{f}::{block}");
                extract_call(
                    &mut bf,
                    &defs,
                    &bodies,
                    &site,
                    &call,
                    &mut called,
                    &mut dropped,
                )
                .map_err(|message| MirError {
                    line: *line_no,
                    message,
                })?;
                continue;
            }
            let Some((lhs, rhs)) = line.strip_suffix(';').and_then(|l| l.split_once(" = ")) else {
                continue;
            };
            let Some((dest, used)) = parse_place(lhs) else {
                // `discriminant(P) = N`, and other statements that are not assignments.
                continue;
            };
            if used != lhs.len() {
                continue;
            }
            if bf.local_type(dest).is_some_and(is_scalar) {
                *dropped.entry("assignments to scalar locals").or_default() += 1;
                continue;
            }
            for src in rvalue_sources(rhs) {
                let from = match src {
                    Source::Address(p) => {
                        if dest.derefs == 0 && p.derefs == 0 {
                            let to = bf.var(dest.local);
                            let obj = bf.var(p.local);
                            bf.add("address_of", vec![to, obj]);
                            continue;
                        }
                        bf.address(p)
                    }
                    Source::Value(p) => bf.value(p),
                    Source::Closure(span) => {
                        let targets = defs.closures.get(&span).cloned().unwrap_or_default();
                        for t in targets {
                            let obj = format!("{}::code", bodies[t].prefix);
                            let tmp = format!("{f}::{block}.fn{t}");
                            bf.add("address_of", vec![tmp.clone(), obj]);
                            bf.flow_into(dest, tmp);
                        }
                        continue;
                    }
                    Source::FnItem(path) => {
                        let (key, m) = callee_key(&path);
                        let mut found = Vec::new();
                        for ((k, mm, _), v) in &defs.by_key {
                            if *mm == m && *k == key {
                                found.extend(v.iter().copied());
                            }
                        }
                        found.sort_unstable();
                        for t in found {
                            let obj = format!("{}::code", bodies[t].prefix);
                            let tmp = format!("{f}::{block}.fn{t}");
                            bf.add("address_of", vec![tmp.clone(), obj]);
                            bf.flow_into(dest, tmp);
                        }
                        continue;
                    }
                };
                bf.flow_into(dest, from);
            }
        }
        counts[bi] = bf.count;
    }
    // Entry points: the functions no call in the crate reaches statically (closures are
    // reached through their objects).
    for (i, b) in bodies.iter().enumerate() {
        let closure = b.closure_span.is_some() && b.name.ends_with('}');
        if !closure && !called.contains(&i) {
            facts.add("entry", vec![b.prefix.clone()]);
        }
    }
    facts.functions = bodies
        .iter()
        .zip(counts)
        .map(|(b, n)| FunctionInfo {
            prefix: b.prefix.clone(),
            name: b.name.clone(),
            facts: n,
        })
        .collect();
    facts.dropped = dropped;
    Ok(facts)
}

fn extract_call(
    bf: &mut BodyFacts<'_>,
    defs: &Definitions,
    bodies: &[Body],
    site: &str,
    call: &Call<'_>,
    called: &mut BTreeSet<usize>,
    dropped: &mut BTreeMap<&'static str, usize>,
) -> Result<(), String> {
    let f = bf.body.prefix.clone();
    bf.add("call_in", vec![site.to_string(), f.clone()]);
    let (dest, used) =
        parse_place(call.dest).ok_or_else(|| format!("call destination `{}`", call.dest))?;
    if used != call.dest.len() {
        return Err(format!("call destination `{}`", call.dest));
    }
    let dest_scalar = bf.local_type(dest).is_some_and(is_scalar);
    if !dest_scalar {
        let v = if dest.derefs == 0 {
            bf.var(dest.local)
        } else {
            let tmp = format!("{site}.ret");
            bf.flow_into(dest, tmp.clone());
            tmp
        };
        bf.add("call_result", vec![site.to_string(), v]);
    }
    // Arguments: their variables (None for constants and scalars).
    let mut args: Vec<Option<(String, Option<String>)>> = Vec::new();
    for a in &call.args {
        match operand_place(a) {
            Some(p) => {
                let ty = bf.local_type(p).map(str::to_string);
                if ty.as_deref().is_some_and(is_scalar) {
                    args.push(None);
                } else {
                    let v = bf.value(p);
                    args.push(Some((v, ty)));
                }
            }
            None => args.push(None),
        }
    }
    for (i, a) in args.iter().enumerate() {
        if let Some((v, _)) = a {
            bf.add("actual", vec![site.to_string(), i.to_string(), v.clone()]);
        }
    }
    // A call through a local (a function pointer).
    if let Some(p) = operand_place(call.callee) {
        let v = bf.value(p);
        bf.add("call_dynamic", vec![site.to_string(), v]);
        return Ok(());
    }
    let (key, method) = callee_key(call.callee);
    let arity = call.args.len();
    let mut targets: Vec<usize> = Vec::new();
    let mut dynamic_through_first = false;
    match &key {
        Some(k) if k.starts_with("{closure@") => {
            let span = k["{closure@".len()..k.len() - 1].to_string();
            targets = defs.closures.get(&span).cloned().unwrap_or_default();
        }
        Some(k) => {
            if let Some(v) = defs.by_key.get(&(Some(k.clone()), method.clone(), arity)) {
                targets = v.clone();
            } else if is_type_parameter(k) {
                if let Some(v) = defs.methods.get(&(method.clone(), arity)) {
                    targets = v.clone();
                } else if matches!(method.as_str(), "call" | "call_mut" | "call_once") {
                    dynamic_through_first = true;
                }
            }
        }
        None => {
            if let Some(v) = defs.by_key.get(&(None, method.clone(), arity)) {
                targets = v.clone();
            }
        }
    }
    if dynamic_through_first {
        if let Some(Some((v, _))) = args.first() {
            bf.add("call_dynamic", vec![site.to_string(), v.clone()]);
        }
        return Ok(());
    }
    if !targets.is_empty() {
        targets.sort_unstable();
        targets.dedup();
        for t in targets {
            called.insert(t);
            bf.add(
                "call_static",
                vec![site.to_string(), bodies[t].prefix.clone()],
            );
        }
        return Ok(());
    }
    // A call outside the crate (or one the names cannot resolve): a library function
    // modelled conservatively.
    *dropped
        .entry("calls to functions outside the crate (modelled)")
        .or_default() += 1;
    let present: Vec<&(String, Option<String>)> = args.iter().flatten().collect();
    if !dest_scalar {
        let d = format!("{site}.new");
        let v = if dest.derefs == 0 {
            bf.var(dest.local)
        } else {
            format!("{site}.ret")
        };
        bf.add("address_of", vec![v.clone(), d]);
        for (a, _) in &present {
            bf.add("assign", vec![v.clone(), a.clone()]);
        }
    }
    for (i, (a, ty)) in present.iter().enumerate() {
        bf.add("call_external", vec![site.to_string(), a.clone()]);
        let mutable = ty
            .as_deref()
            .is_some_and(|t| t.starts_with("&mut ") || t.starts_with("*mut "));
        if mutable {
            for (j, (b, _)) in present.iter().enumerate() {
                if i != j {
                    bf.add("store", vec![a.clone(), b.clone()]);
                }
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn places_are_read_field_insensitively() {
        let p = |s: &str| parse_place(s).map(|(p, used)| (p.local, p.derefs, used == s.len()));
        assert_eq!(p("_3"), Some((3, 0, true)));
        assert_eq!(p("(*_3)"), Some((3, 1, true)));
        assert_eq!(p("((*_1).0: &mut Vec<(u8, u8)>)"), Some((1, 1, true)));
        assert_eq!(p("(*((*_1).0: &T))"), Some((1, 2, true)));
        assert_eq!(p("(_4 as Some)"), Some((4, 0, true)));
        assert_eq!(p("_5[_6]"), Some((5, 0, true)));
        assert_eq!(p("(*_5)[0 of 2]"), Some((5, 1, true)));
        assert_eq!(p("const 3_u8"), None);
    }

    #[test]
    fn callee_paths_name_type_and_method() {
        assert_eq!(
            callee_key("parser::ParserI::<'_, P>::bump"),
            (Some("ParserI".into()), "bump".into())
        );
        assert_eq!(
            callee_key("<W as core::fmt::Write>::write_str"),
            (Some("W".into()), "write_str".into())
        );
        assert_eq!(callee_key("is_hex"), (None, "is_hex".into()));
        assert_eq!(
            callee_key("core::slice::<impl [T]>::iter"),
            (None, "iter".into())
        );
        assert_eq!(
            callee_key("<Vec<I> as Index<usize>>::index"),
            (Some("Vec".into()), "index".into())
        );
        assert!(is_type_parameter("W") && is_type_parameter("dyn Foo"));
        assert!(!is_type_parameter("Vec"));
    }

    #[test]
    fn prefixes_have_no_double_colon() {
        let name = shorten_paths(
            "parse::<impl at /root/.cargo/registry/src/index.crates.io-1/regex-syntax-0.8.12/src/ast/parse.rs:41:1: 41:15>::span",
        );
        assert_eq!(name, "parse::<impl at src/ast/parse.rs:41:1: 41:15>::span");
        assert_eq!(prefix_of(&name), "parse.{impl@src/ast/parse.rs@41.1}.span");
    }

    const SAMPLE: &str = r#"// WARNING: This output format is intended for human consumers only
fn id(_1: &u8) -> &u8 {
    debug x => _1;
    let mut _0: &u8;

    bb0: {
        _0 = copy _1;
        return;
    }
}

fn <impl at /r/src/lib.rs:3:1: 3:10>::get(_1: &S) -> &u8 {
    debug self => _1;
    let mut _0: &u8;
    let _2: &u8;

    bb0: {
        _2 = &((*_1).0: u8);
        _0 = id(copy _2) -> [return: bb1, unwind continue];
    }

    bb1: {
        return;
    }
}

fn main() -> () {
    let mut _0: ();
    let _1: S;
    let _2: &S;
    let _3: &u8;
    let mut _4: Vec<&u8>;
    let mut _5: &mut Vec<&u8>;
    let _6: ();
    let mut _7: usize;

    bb0: {
        _1 = S { x: const 1_u8 };
        _2 = &_1;
        _3 = S::get(copy _2) -> [return: bb1, unwind continue];
    }

    bb1: {
        _4 = Vec::<&u8>::new() -> [return: bb2, unwind continue];
    }

    bb2: {
        _5 = &mut _4;
        _6 = Vec::<&u8>::push(move _5, copy _3) -> [return: bb3, unwind continue];
    }

    bb3: {
        _7 = Vec::<&u8>::len(copy _5) -> [return: bb4, unwind continue];
    }

    bb4: {
        (*_5) = move _4;
        return;
    }
}

const X: u8 = {
    let mut _0: u8;
    bb0: {
        _0 = const 1_u8;
        return;
    }
}
"#;

    #[test]
    fn a_small_body_gives_the_expected_facts() {
        let f = extract(SAMPLE).expect("extracts");
        let has = |rel: &str, row: &[&str]| {
            f.relations[rel].contains(&row.iter().map(|s| s.to_string()).collect::<Vec<_>>())
        };
        let get = "{impl@src/lib.rs@3.1}.get";
        assert!(has("assign", &["id::_0", "id::_1"]));
        assert!(has("formal", &["id", "0", "id::_1"]));
        assert!(has("fn_return", &["id", "id::_0"]));
        // `&((*_1).0)`: the address of a field of *_1 is the value of _1.
        assert!(has(
            "assign",
            &[&format!("{get}::_2"), &format!("{get}::_1")]
        ));
        assert!(has("call_static", &[&format!("{get}::bb0"), "id"]));
        assert!(has(
            "actual",
            &[&format!("{get}::bb0"), "0", &format!("{get}::_2")]
        ));
        assert!(has(
            "call_result",
            &[&format!("{get}::bb0"), &format!("{get}::_0")]
        ));
        // `S::get` resolves by the self type of `get`.
        assert!(has("call_static", &["main::bb0", get]));
        assert!(has("address_of", &["main::_2", "main::_1"]));
        // `Vec::new()`: outside the crate, a fresh object.
        assert!(has("address_of", &["main::_4", "main::bb1.new"]));
        // `push(&mut v, x)`: the library may store x through &mut v.
        assert!(has("store", &["main::_5", "main::_3"]));
        assert!(has("call_external", &["main::bb2", "main::_3"]));
        // `(*_5) = move _4`: a store.
        assert!(has("store", &["main::_5", "main::_4"]));
        // A scalar destination gets no facts; the constant body is dropped.
        assert!(!f.relations["call_result"]
            .iter()
            .any(|r| r[0] == "main::bb3"));
        assert_eq!(
            f.dropped
                .get("constant, static, promoted and allocation bodies")
                .copied(),
            Some(1)
        );
        assert!(has("entry", &["main"]));
        assert!(!has("entry", &["id"]));
        assert_eq!(f.functions.len(), 3);
    }
}
