//! The engine's side of the protocol for the built-in engines: `dredbench serve --engine
//! dred` reads requests on stdin and answers on stdout (`docs/engine-protocol.md`). Declared
//! in the shipped `engines.toml` as `ext:dred`, it runs beside `dred` in one run, so the
//! report shows what the protocol costs: writing, parsing and checking the lines, on top of
//! the same engine's work.
//!
//! It answers at level `changes`, with symbols as numbers whenever the harness offers it.
//! Engines that keep a batch's net change as facts
//! ([`Engine::keep_change_facts`]: the set-based maintenance engines, `dred`, `bf`, `auto`,
//! ...) hand it over, checked against their own net-change count. For engines that list the
//! facts of their phases' rounds (`reference`), it is read from those rounds
//! (`change_from_rounds`), which costs in proportion to the rounds (and tracing slows the
//! engine: `dred` served that way took 1.10× its own time); for the others it is computed by
//! comparing whole models (a copy of the model per batch: slow on large models, but any
//! engine can be served).

use hashbrown::HashSet;
use std::io::{BufRead, Write};
use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use dred_core::engine::Phase;
use dred_core::syntax::ast::Type;
use dred_core::{
    Batch, BatchReport, Engine, Fact, FactList, Model, Program, RelId, RequestedBatch, Symbols,
    Value,
};

use super::wire::{self, VERSION};
use crate::engines::EngineKind;
use crate::inputs::read_inputs;

/// The test-only switch of a wrong adapter: when set (to anything), the first fact an answer
/// removes after a batch with deletions is left out of the answer, as a buggy engine would.
/// It exists to prove that `fuzz --engines ext:NAME` finds and shrinks such a bug.
pub const PLANTED_DROP_VAR: &str = "DREDBENCH_SERVE_DROP_REMOVAL";

/// Serves one engine of kind `kind` over `input` and `output` until the input ends. Returns
/// an error (after answering `error ...` where an answer was due) when a request is
/// malformed or the engine fails: the state is then unknown, so nothing more is served.
pub fn serve(kind: EngineKind, input: impl BufRead, output: impl Write) -> anyhow::Result<()> {
    serve_with(kind, true, input, output)
}

/// [`serve`], accepting the option `symbols=ids` only if `accept_numbers`.
pub fn serve_with(
    kind: EngineKind,
    accept_numbers: bool,
    mut input: impl BufRead,
    mut output: impl Write,
) -> anyhow::Result<()> {
    let mut next = || -> anyhow::Result<Option<String>> {
        let mut line = String::new();
        if input.read_line(&mut line)? == 0 {
            return Ok(None);
        }
        let end = line.trim_end_matches(['\n', '\r']).len();
        line.truncate(end);
        Ok(Some(line))
    };
    let answer = |out: &mut dyn Write, text: &str| -> anyhow::Result<()> {
        out.write_all(text.as_bytes())?;
        out.flush()?;
        Ok(())
    };
    let Some(hello) = next()? else {
        return Ok(());
    };
    let offered: Vec<&str> = hello.split(' ').collect();
    if offered.first() != Some(&"protocol")
        || offered.get(1) != Some(&VERSION.to_string().as_str())
        || !offered.contains(&"changes")
    {
        answer(
            &mut output,
            &format!("error expected `protocol {VERSION} changes ...`, got {hello:?}\n"),
        )?;
        anyhow::bail!("unexpected greeting {hello:?}");
    }
    // Symbols as numbers whenever offered: the harness offers them only for programs whose
    // answers hold no symbol it has not numbered.
    let numbers = accept_numbers && offered.contains(&wire::SYMBOL_NUMBERS);
    answer(
        &mut output,
        &format!(
            "protocol {VERSION} changes{} name=dredbench-serve engine={kind} version={}\n",
            if numbers {
                format!(" {}", wire::SYMBOL_NUMBERS)
            } else {
                String::new()
            },
            env!("CARGO_PKG_VERSION")
        ),
    )?;
    let program_line = next()?.unwrap_or_default();
    let facts_line = next()?.unwrap_or_default();
    let symbols_line = if numbers { next()? } else { None };
    let symbols_path = match symbols_line.as_deref().map(|l| l.strip_prefix("symbols ")) {
        None if !numbers => None,
        Some(Some(path)) => Some(Path::new(path)),
        _ => {
            answer(&mut output, "error expected a `symbols PATH` line\n")?;
            anyhow::bail!("expected `symbols PATH`, got {symbols_line:?}");
        }
    };
    let (Some(program_path), Some(facts_dir)) = (
        program_line.strip_prefix("program "),
        facts_line.strip_prefix("facts "),
    ) else {
        answer(
            &mut output,
            "error expected `program PATH` and `facts DIR` lines\n",
        )?;
        anyhow::bail!("expected program and facts, got {program_line:?}, {facts_line:?}");
    };
    let started = State::start(
        kind,
        Path::new(program_path),
        Path::new(facts_dir),
        symbols_path,
    );
    let mut state = match started {
        Ok(Started::Running(state, text)) => {
            answer(&mut output, &text)?;
            state
        }
        Ok(Started::Unsupported(feature)) => {
            answer(&mut output, &format!("unsupported {feature}\n"))?;
            return Ok(());
        }
        Err(e) => {
            answer(
                &mut output,
                &format!("error {}\n", one_line(&e.to_string())),
            )?;
            return Err(e);
        }
    };
    let planted = std::env::var_os(PLANTED_DROP_VAR).is_some();
    // The batch's lines, read into one buffer (no allocation per line) and parsed at its
    // `commit`; one answer buffer for every batch, so that a large answer lands in memory
    // already mapped.
    let mut batch_text = String::new();
    let mut out = String::new();
    loop {
        let start = batch_text.len();
        if input.read_line(&mut batch_text)? == 0 {
            break;
        }
        let line = batch_text[start..].trim_end_matches(['\n', '\r']);
        if line != "commit" {
            continue;
        }
        batch_text.truncate(start);
        match state.batch(&batch_text, planted, &mut out) {
            Ok(()) => answer(&mut output, &out)?,
            Err(e) => {
                answer(
                    &mut output,
                    &format!("error {}\n", one_line(&e.to_string())),
                )?;
                return Err(e);
            }
        }
        batch_text.clear();
    }
    Ok(())
}

/// The numbers the harness gave symbols ([`wire::SYMBOL_NUMBERS`]), both ways.
#[derive(Debug, Default)]
struct Numbering {
    /// The engine's value of each number, in order.
    values: Vec<Value>,
    /// The number of each engine value (`u32::MAX`: none).
    numbers: Vec<u32>,
}

impl Numbering {
    /// Gives the symbol `name` the next number, interning it in the engine's table.
    fn give(&mut self, symbols: &mut Symbols, name: &str) {
        let v = symbols.intern(name);
        let n = self.values.len() as u32;
        self.values.push(v);
        let i = usize::try_from(v).expect("symbols are numbered from 0");
        if self.numbers.len() <= i {
            self.numbers.resize(i + 1, u32::MAX);
        }
        self.numbers[i] = n;
    }
}

/// How answers write symbols: as numbers when the harness gave them.
fn symbol_form(numbering: &Option<Numbering>) -> wire::SymbolNumbers<'_> {
    match numbering {
        Some(n) => wire::SymbolNumbers::Mapped(&n.numbers),
        None => wire::SymbolNumbers::Text,
    }
}

/// A message on one line (answers are line-oriented).
fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// What starting the engine gave: a running state and its first answer, or a refusal.
enum Started {
    Running(State, String),
    Unsupported(String),
}

/// The served engine and what is needed to answer for it.
struct State {
    program: Arc<Program>,
    symbols: Symbols,
    /// The current EDB, by hash: the protocol promises normalised batches, and each one is
    /// checked against it (a lookup per update rather than a normalisation through sorted
    /// sets, which cost ~2 µs an update here).
    edb: HashSet<Fact>,
    /// The input relations by their name in update lines.
    inputs: hashbrown::HashMap<String, RelId>,
    engine: Box<dyn Engine>,
    /// The engine's model as last answered, the "before" of the next batch's change, for
    /// engines whose rounds do not give the change ([`lists_rounds`]).
    held: Option<Model>,
    batches: usize,
    /// Symbols travel as numbers: the numbers the harness gave.
    numbers: Option<Numbering>,
}

impl State {
    fn start(
        kind: EngineKind,
        program: &Path,
        facts: &Path,
        symbols: Option<&Path>,
    ) -> anyhow::Result<Started> {
        let mut inputs = read_inputs(program, facts, None, None)?;
        let numbers = match symbols {
            None => None,
            Some(path) => {
                let text = std::fs::read_to_string(path)
                    .map_err(|e| anyhow::anyhow!("reading {}: {e}", path.display()))?;
                let mut numbering = Numbering::default();
                for name in text.lines() {
                    numbering.give(&mut inputs.symbols, name);
                }
                Some(numbering)
            }
        };
        let program = inputs.program.clone();
        if !kind.supports(&program) {
            return Ok(Started::Unsupported(format!(
                "this program (engine `{kind}` runs programs without negation or aggregates)"
            )));
        }
        let mut engine = kind.build(program.clone(), 1, &dd_baseline::Cluster::single());
        // How a batch's change is read without copying the model: kept by the engine as
        // facts, or else from its rounds' facts.
        let keeps_change = engine.keep_change_facts(true);
        engine.set_trace_facts(!keeps_change);
        let t = Instant::now();
        let report = engine.materialise(&inputs.edb)?;
        let ns = t.elapsed().as_nanos();
        engine.settle()?;
        let model = engine.model();
        let form = symbol_form(&numbers);
        let mut text = super::client::model_lines(&program, &inputs.symbols, &model, form);
        let held = (!keeps_change && !lists_rounds(kind)).then_some(model);
        text.push_str(&format!("ok time_ns={ns}{}\n", counters(&report)));
        let input_names = program
            .relations
            .iter()
            .enumerate()
            .filter(|(_, d)| d.input)
            .map(|(rel, d)| (d.facts_name().to_string(), rel))
            .collect();
        Ok(Started::Running(
            State {
                program,
                symbols: inputs.symbols,
                edb: inputs.edb.facts().collect(),
                inputs: input_names,
                engine,
                held,
                batches: 0,
                numbers,
            },
            text,
        ))
    }

    /// Applies the batch of update lines `text`; its answer replaces `out`'s text.
    fn batch(&mut self, text: &str, planted: bool, out: &mut String) -> anyhow::Result<()> {
        let served = Instant::now();
        self.batches += 1;
        let requested = self.parse(text)?;
        let parse_ns = served.elapsed().as_nanos();
        let batch = self.normalised(requested)?;
        let read_ns = served.elapsed().as_nanos();
        let t = Instant::now();
        let report = self.engine.apply(&batch)?;
        let ns = t.elapsed().as_nanos();
        self.engine.settle()?;
        let t_change = Instant::now();
        let (mut removed, added, how) = self.change(&report)?;
        let change_ns = t_change.elapsed().as_nanos();
        if planted && !batch.deletions.is_empty() && !removed.is_empty() {
            // The least fact, so that the planted bug is the same from run to run.
            let mut facts = removed.to_facts();
            facts.sort();
            removed = facts[1..]
                .iter()
                .map(|f| (f.rel, f.tuple.as_slice()))
                .collect();
        }
        let t_format = Instant::now();
        out.clear();
        let form = symbol_form(&self.numbers);
        let writer = wire::FactWriter::new(&self.program, &self.symbols).with_numbers(form);
        for (sign, facts) in [('-', &removed), ('+', &added)] {
            for (rel, values) in facts.iter() {
                writer.push(out, sign, rel, values);
            }
        }
        drop(writer);
        let format_ns = t_format.elapsed().as_nanos();
        // Everything `serve` did for the batch but read its lines and write the answer.
        let serve_ns = served.elapsed().as_nanos();
        out.push_str(&format!(
            "ok time_ns={ns}{} change_from={how} read_ns={read_ns} parse_ns={parse_ns} change_ns={change_ns} \
             format_ns={format_ns} serve_ns={serve_ns}\n",
            counters(&report)
        ));
        Ok(())
    }

    /// The update lines of one batch (`text`, without its `commit`).
    ///
    /// Why not [`dred_core::io::parse_updates`]: it copies the text twice and keeps what a
    /// diagnostic needs (spans, a `SourceFile`), and it cost ~1 µs an update line in the
    /// served engine's time; the protocol's lines are written by a harness, and an error
    /// here names the batch, the line and the field instead.
    fn parse(&mut self, text: &str) -> anyhow::Result<RequestedBatch> {
        let mut requested = RequestedBatch::default();
        for (i, line) in text.lines().enumerate() {
            let line = line.strip_suffix('\r').unwrap_or(line);
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            if let Some(numbered) = line.strip_prefix("symbol ") {
                self.number_symbol_line(numbered).map_err(|e| {
                    anyhow::anyhow!("batch {}, line {}: {e}: {line:?}", self.batches, i + 1)
                })?;
                continue;
            }
            let (deletion, fact) = self.parse_update(line).map_err(|e| {
                anyhow::anyhow!("batch {}, line {}: {e}: {line:?}", self.batches, i + 1)
            })?;
            if deletion {
                requested.deletions.push(fact);
            } else {
                requested.insertions.push(fact);
            }
        }
        Ok(requested)
    }

    /// A `symbol N TEXT` line's `N TEXT`: the next number, and its symbol.
    fn number_symbol_line(&mut self, numbered: &str) -> Result<(), String> {
        let Some(numbering) = self.numbers.as_mut() else {
            return Err("a `symbol` line, but symbols travel as text".into());
        };
        let (n, name) = numbered.split_once(' ').unwrap_or((numbered, ""));
        let next = numbering.values.len();
        if n.parse::<usize>().ok() != Some(next) {
            return Err(format!("symbols are numbered in order: the next is {next}"));
        }
        numbering.give(&mut self.symbols, name);
        Ok(())
    }

    /// One update line: whether it deletes, and its fact.
    fn parse_update(&mut self, line: &str) -> Result<(bool, Fact), String> {
        let mut fields = line.split('\t');
        let deletion = match fields.next() {
            Some("-") => true,
            Some("+") => false,
            _ => return Err("expected `+` or `-`, a tab, a relation and its values".into()),
        };
        let name = fields.next().unwrap_or_default();
        let rel = *self
            .inputs
            .get(name)
            .ok_or_else(|| format!("`{name}` is not an input relation of the program"))?;
        let types = &self.program.relations[rel].types;
        if types.is_empty() {
            return match (fields.next(), fields.next()) {
                (None | Some("()"), None) => Ok((deletion, Fact::new(rel, Vec::new()))),
                _ => Err(format!("`{name}` has no columns")),
            };
        }
        let mut tuple = Vec::with_capacity(types.len());
        let mut count = 0;
        for field in fields {
            match (types.get(count), &self.numbers) {
                (Some(Type::Symbol), Some(numbering)) => tuple.push(
                    field
                        .parse::<usize>()
                        .ok()
                        .and_then(|n| numbering.values.get(n).copied())
                        .ok_or_else(|| {
                            format!("`{field}` is not the number of a symbol it was given")
                        })?,
                ),
                (Some(&ty), _) => {
                    tuple.push(dred_core::io::parse_value(field, ty, &mut self.symbols)?)
                }
                (None, _) => {}
            }
            count += 1;
        }
        if count != types.len() {
            return Err(format!(
                "`{name}` has {} column(s), the line {count}",
                types.len()
            ));
        }
        Ok((deletion, Fact::new(rel, tuple)))
    }

    /// The batch of `requested`, checked to be normalised as the protocol promises (every
    /// deletion present, every insertion absent, none twice), and applied to the EDB kept.
    fn normalised(&mut self, requested: RequestedBatch) -> anyhow::Result<Batch> {
        let name = |f: &Fact| {
            let decl = &self.program.relations[f.rel];
            let values: Vec<String> = decl
                .types
                .iter()
                .zip(&f.tuple)
                .map(|(&ty, &v)| match ty {
                    dred_core::syntax::ast::Type::Symbol => {
                        format!("{:?}", self.symbols.name(v).as_deref().unwrap_or("?"))
                    }
                    ty => self.symbols.raw(ty, v),
                })
                .collect();
            format!("{}({})", decl.facts_name(), values.join(", "))
        };
        for f in &requested.insertions {
            anyhow::ensure!(
                !self.edb.contains(f),
                "batch {}: inserted fact {} is present: the batch is not normalised",
                self.batches,
                name(f)
            );
        }
        for f in &requested.deletions {
            anyhow::ensure!(
                self.edb.remove(f),
                "batch {}: deleted fact {} is absent (or deleted twice): the batch is not \
                 normalised",
                self.batches,
                name(f)
            );
        }
        for f in &requested.insertions {
            anyhow::ensure!(
                self.edb.insert(f.clone()),
                "batch {}: fact {} is inserted twice: the batch is not normalised",
                self.batches,
                name(f)
            );
        }
        let (mut deletions, mut insertions) = (requested.deletions, requested.insertions);
        deletions.sort_unstable();
        insertions.sort_unstable();
        Ok(Batch {
            requested_deletions: deletions.len(),
            requested_insertions: insertions.len(),
            deletions,
            insertions,
        })
    }

    /// The batch's net change of the IDB, in no particular order, and how it was found.
    fn change(
        &mut self,
        report: &BatchReport,
    ) -> anyhow::Result<(FactList, FactList, &'static str)> {
        if let Some(change) = self.engine.take_change_facts() {
            let expected = self.engine.net_change();
            anyhow::ensure!(
                expected
                    .is_some_and(|n| (n.removed, n.added) == (change.removed.len(), change.added.len())),
                "the engine's change has {} removed and {} added facts, its net change {expected:?}",
                change.removed.len(),
                change.added.len(),
            );
            return Ok((change.removed, change.added, "kept"));
        }
        let Some(held) = self.held.as_mut() else {
            let (removed, added) = change_from_rounds(&self.program, report, self.engine.as_ref())?;
            let list =
                |facts: Vec<&Fact>| facts.iter().map(|f| (f.rel, f.tuple.as_slice())).collect();
            let (removed, added) = (list(removed), list(added));
            return Ok((removed, added, "rounds"));
        };
        let after = self.engine.model();
        let facts = |m: std::collections::BTreeMap<usize, Vec<dred_core::Tuple>>| -> FactList {
            m.iter()
                .flat_map(|(&rel, ts)| ts.iter().map(move |t| (rel, t.as_slice())))
                .collect()
        };
        let removed = facts(held.minus(&after));
        let added = facts(after.minus(held));
        *held = after;
        Ok((removed, added, "models"))
    }
}

/// Whether the engine's reports list every fact of every round of its phases (with
/// [`Engine::set_trace_facts`] on), so that a batch's change can be read from them.
fn lists_rounds(kind: EngineKind) -> bool {
    matches!(
        kind,
        EngineKind::Dred | EngineKind::Bf | EngineKind::Reference
    )
}

/// A batch's net change read from the rounds of its phases. Each derived fact belongs to one
/// DRed level, whose phases run once per batch: a fact over-deleted (or deleted, for `bf`)
/// and neither rederived nor inserted again went; a fact inserted held before only if it was
/// over-deleted and not rederived, so one inserted and not over-deleted came. The counts are
/// checked against the engine's own net change; a difference is an error, never a guess.
fn change_from_rounds<'r>(
    program: &Program,
    report: &'r BatchReport,
    engine: &dyn Engine,
) -> anyhow::Result<(Vec<&'r Fact>, Vec<&'r Fact>)> {
    let expected = engine
        .net_change()
        .ok_or_else(|| anyhow::anyhow!("the engine reports no net change"))?;
    let mut gone: HashSet<&Fact> = HashSet::new();
    for round in &report.rounds {
        anyhow::ensure!(
            round.facts.len() == round.size,
            "a round without its facts (tracing is off)"
        );
        if matches!(round.phase, Phase::Overdelete | Phase::Delete) {
            gone.extend(round.facts.iter().filter(|f| program.is_idb(f.rel)));
        }
    }
    // A rederived fact came back; an inserted one came back if it went, else it is new.
    let mut added: Vec<&Fact> = Vec::new();
    for round in &report.rounds {
        let idb = round.facts.iter().filter(|f| program.is_idb(f.rel));
        match round.phase {
            Phase::Overdelete | Phase::Delete => {}
            Phase::Rederive => {
                for f in idb {
                    gone.remove(f);
                }
            }
            Phase::Insert if gone.is_empty() => added.extend(idb),
            Phase::Insert => added.extend(idb.filter(|f| !gone.remove(*f))),
        }
    }
    let removed: Vec<&Fact> = gone.into_iter().collect();
    anyhow::ensure!(
        removed.len() == expected.removed && added.len() == expected.added,
        "the rounds give {} removed and {} added facts, the engine's net change {:?}",
        removed.len(),
        added.len(),
        expected
    );
    Ok((removed, added))
}

/// The report's DRed figures as ` key=value` words of the `ok` line.
fn counters(report: &BatchReport) -> String {
    let mut s = String::new();
    for (key, value) in [
        ("overdeleted", report.overdeleted),
        ("rederived", report.rederived),
        ("inserted", report.inserted),
    ] {
        if let Some(v) = value {
            s.push_str(&format!(" {key}={v}"));
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The greeting (offering `levels`), then the seed example's program and facts.
    fn seed_opening(levels: &str) -> String {
        let seed = Path::new(env!("CARGO_MANIFEST_DIR")).join("../datasets/seed");
        format!(
            "protocol 1 {levels}\nprogram {}\nfacts {}\n",
            seed.join("path.dl").display(),
            seed.join("facts").display()
        )
    }

    /// The seed example (SPEC §6) served: the 20 `path` facts, then deleting edge(a, b)
    /// removes path(a, b) and path(a, c) only (path(a, d) is rederived), then an empty batch.
    #[test]
    fn the_seed_is_served_as_its_model_then_its_net_change() {
        let input = format!(
            "{}-\tedge\ta\tb\ncommit\ncommit\n",
            seed_opening("changes model")
        );
        let mut out = Vec::new();
        serve(EngineKind::Dred, input.as_bytes(), &mut out).expect("serves");
        let out = String::from_utf8(out).expect("utf-8");
        let answers: Vec<&str> = out.lines().collect();
        assert!(answers[0].starts_with("protocol 1 changes "), "{out}");
        let oks: Vec<usize> = (0..answers.len())
            .filter(|&i| answers[i].starts_with("ok"))
            .collect();
        assert_eq!(oks.len(), 3, "{out}");
        assert_eq!(oks[0], 21, "20 facts of path, then ok: {out}");
        assert!(answers[1..21].iter().all(|l| l.starts_with("+\tpath\t")));
        // The lines of an answer come in no particular order.
        let mut change = answers[22..oks[1]].to_vec();
        change.sort_unstable();
        assert_eq!(change, ["-\tpath\ta\tb", "-\tpath\ta\tc"], "{out}");
        assert!(
            answers[oks[1]].contains("overdeleted=3 rederived=1"),
            "{out}"
        );
        assert_eq!(oks[2], oks[1] + 1, "an empty batch changes nothing: {out}");
    }

    /// The protocol promises normalised batches; one that is not gets an `error` answer
    /// naming the fact, and nothing more is served.
    #[test]
    fn a_batch_not_normalised_is_answered_with_an_error() {
        let start = seed_opening("changes");
        for (batch, what) in [
            (
                "-\tedge\ta\tz\ncommit\n",
                "deleted fact edge(\"a\", \"z\") is absent",
            ),
            (
                "+\tedge\ta\tb\ncommit\n",
                "inserted fact edge(\"a\", \"b\") is present",
            ),
            (
                "+\tedge\tz\ta\n+\tedge\tz\ta\ncommit\n",
                "edge(\"z\", \"a\") is inserted twice",
            ),
            (
                "-\tedge\ta\tb\n-\tedge\ta\tb\ncommit\n",
                "edge(\"a\", \"b\") is absent (or deleted twice)",
            ),
            (
                "-\tedge\ta\tb\n+\tedge\ta\tb\ncommit\ncommit\n",
                "inserted fact edge(\"a\", \"b\") is present",
            ),
        ] {
            assert_refused(&format!("{start}{batch}"), "error batch 1: ", what);
        }
    }

    /// Serving `input` fails, and its last answer starts with `prefix` and holds `what`.
    fn assert_refused(input: &str, prefix: &str, what: &str) {
        let mut out = Vec::new();
        let r = serve(EngineKind::Dred, input.as_bytes(), &mut out);
        let out = String::from_utf8(out).expect("utf-8");
        let last = out.lines().last().unwrap_or_default();
        assert!(r.is_err(), "{input:?}: {out}");
        assert!(
            last.starts_with(prefix) && last.contains(what),
            "{input:?}: {last}"
        );
    }

    /// Update lines are read by `serve`'s own parser: a malformed one is an `error` answer
    /// naming the batch, the line and what is wrong, and nothing more is served.
    #[test]
    fn a_malformed_update_line_is_answered_with_an_error_naming_it() {
        let start = seed_opening("changes");
        for (batch, what) in [
            ("-\tpath\ta\tb\ncommit\n", "`path` is not an input relation"),
            ("-\tnope\ta\tb\ncommit\n", "`nope` is not an input relation"),
            ("+\tedge\ta\ncommit\n", "`edge` has 2 column(s), the line 1"),
            (
                "+\tedge\ta\tb\tc\ncommit\n",
                "`edge` has 2 column(s), the line 3",
            ),
            (
                "# a comment\n*\tedge\ta\tb\ncommit\n",
                "line 2: expected `+` or `-`",
            ),
        ] {
            assert_refused(&format!("{start}{batch}"), "error batch 1, line ", what);
        }
    }

    /// Fresh symbols, numbers and zero-arity facts in updates (both spellings of a
    /// zero-arity fact, `\r\n` line ends) are read as the update files' parser reads them.
    #[test]
    fn updates_with_fresh_symbols_numbers_and_zero_arity_facts_are_read() {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::write(
            dir.path().join("p.dl"),
            ".decl e(x: symbol, n: number)\n.decl r()\n.decl d(x: symbol, n: number)\n\
             .input e\n.input r\nd(x, n) :- e(x, n), r().\n",
        )
        .expect("program");
        std::fs::create_dir(dir.path().join("facts")).expect("facts dir");
        std::fs::write(dir.path().join("facts/e.facts"), "a\t1\n").expect("facts");
        std::fs::write(dir.path().join("facts/r.facts"), "").expect("facts");
        let input = format!(
            "protocol 1 changes\nprogram {}\nfacts {}\n\
             +\tr\r\n+\te\tfresh\t-7\r\ncommit\n-\tr\t()\ncommit\n",
            dir.path().join("p.dl").display(),
            dir.path().join("facts").display()
        );
        let mut out = Vec::new();
        serve(EngineKind::Dred, input.as_bytes(), &mut out).expect("serves");
        let out = String::from_utf8(out).expect("utf-8");
        let mut answers = out.lines().skip(1).collect::<Vec<_>>();
        assert_eq!(
            answers.first().map(|l| l.starts_with("ok ")),
            Some(true),
            "{out}"
        );
        answers.remove(0);
        let first_ok = answers
            .iter()
            .position(|l| l.starts_with("ok "))
            .expect("ok");
        let mut added = answers[..first_ok].to_vec();
        added.sort_unstable();
        assert_eq!(added, ["+\td\ta\t1", "+\td\tfresh\t-7"], "{out}");
        let mut removed = answers[first_ok + 1..answers.len() - 1].to_vec();
        removed.sort_unstable();
        assert_eq!(removed, ["-\td\ta\t1", "-\td\tfresh\t-7"], "{out}");
    }

    /// Offered `symbols=ids`, `serve` accepts, reads the symbols' numbers from the file and
    /// from `symbol` lines, and answers with numbers: the seed's model, then an inserted
    /// edge to a fresh symbol numbered in the batch.
    #[test]
    fn symbols_travel_as_numbers_when_offered() {
        let dir = tempfile::tempdir().expect("tempdir");
        // Numbers as the harness would give them: in the order of a table, here reversed.
        let names = ["w", "v", "u", "e", "d", "c", "b", "a"];
        std::fs::write(dir.path().join("symbols"), names.join("\n") + "\n").expect("symbols");
        let number = |s: &str| names.iter().position(|&n| n == s).expect("numbered");
        let input = format!(
            "{}symbols {}\nsymbol 8 fresh\n+\tedge\t{}\t8\ncommit\n",
            seed_opening("changes model symbols=ids"),
            dir.path().join("symbols").display(),
            number("d"),
        );
        let mut out = Vec::new();
        serve(EngineKind::Dred, input.as_bytes(), &mut out).expect("serves");
        let out = String::from_utf8(out).expect("utf-8");
        let answers: Vec<&str> = out.lines().collect();
        assert!(
            answers[0].starts_with("protocol 1 changes symbols=ids "),
            "{out}"
        );
        let path_a_d = format!("+\tpath\t{}\t{}", number("a"), number("d"));
        assert!(answers[1..21].contains(&path_a_d.as_str()), "{out}");
        assert!(answers[21].starts_with("ok "), "{out}");
        let mut change = answers[22..answers.len() - 1].to_vec();
        change.sort_unstable();
        // d reaches fresh, and so do a, b, c, e, which reach d.
        let mut expected: Vec<String> = ["a", "b", "c", "d", "e"]
            .iter()
            .map(|s| format!("+\tpath\t{}\t8", number(s)))
            .collect();
        expected.sort_unstable();
        assert_eq!(change, expected, "{out}");
        // A number it was not given is an error naming it.
        let bad = format!(
            "{}symbols {}\n+\tedge\t0\t9\ncommit\n",
            seed_opening("changes symbols=ids"),
            dir.path().join("symbols").display(),
        );
        assert_refused(
            &bad,
            "error batch 1, line 1: ",
            "`9` is not the number of a symbol",
        );
    }

    #[test]
    fn a_greeting_of_another_version_is_answered_with_an_error() {
        let mut out = Vec::new();
        let r = serve(
            EngineKind::Dred,
            "protocol 2 changes\n".as_bytes(),
            &mut out,
        );
        assert!(r.is_err());
        assert!(String::from_utf8_lossy(&out).starts_with("error "));
    }
}
