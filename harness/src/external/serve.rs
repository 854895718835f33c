//! The engine's side of the protocol for the built-in engines: `dredbench serve --engine
//! dred` reads requests on stdin and answers on stdout (`docs/engine-protocol.md`). Declared
//! in the shipped `engines.toml` as `ext:dred`, it runs beside `dred` in one run, so the
//! report shows what the protocol costs: writing, parsing and checking the lines, on top of
//! the same engine's work.
//!
//! It answers at level `changes`. For engines that list the facts of their phases' rounds
//! (`dred`, `bf`), a batch's net change is read from those rounds (a derived fact over-deleted
//! and neither rederived nor inserted again went; one rederived or inserted that did not hold
//! before came), which costs in proportion to the rounds; the result is checked against the
//! engine's own net-change count and against the model held before, and, for other engines or
//! when a check fails, the change is computed by comparing whole models instead.

use std::collections::HashSet;
use std::io::{BufRead, Write};
use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use dred_core::engine::Phase;
use dred_core::io::parse_updates;
use dred_core::{Batch, BatchReport, Edb, Engine, Fact, Model, Program, SourceFile, Symbols};

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
pub fn serve(kind: EngineKind, input: impl BufRead, mut output: impl Write) -> anyhow::Result<()> {
    let mut lines = input.lines();
    let mut next = || -> anyhow::Result<Option<String>> {
        match lines.next() {
            None => Ok(None),
            Some(line) => Ok(Some(line?)),
        }
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
    answer(
        &mut output,
        &format!(
            "protocol {VERSION} changes name=dredbench-serve engine={kind} version={}\n",
            env!("CARGO_PKG_VERSION")
        ),
    )?;
    let program_line = next()?.unwrap_or_default();
    let facts_line = next()?.unwrap_or_default();
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
    let mut state = match State::start(kind, Path::new(program_path), Path::new(facts_dir)) {
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
    let mut batch_text = String::new();
    while let Some(line) = next()? {
        if line != "commit" {
            batch_text.push_str(&line);
            batch_text.push('\n');
            continue;
        }
        match state.batch(&batch_text, planted) {
            Ok(text) => answer(&mut output, &text)?,
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
    edb: Edb,
    engine: Box<dyn Engine>,
    /// The engine's model as last answered: the "before" of the next batch's change.
    held: Model,
    batches: usize,
}

impl State {
    fn start(kind: EngineKind, program: &Path, facts: &Path) -> anyhow::Result<Started> {
        let inputs = read_inputs(program, facts, None, None)?;
        let program = inputs.program.clone();
        if !kind.supports(&program) {
            return Ok(Started::Unsupported(format!(
                "this program (engine `{kind}` runs programs without negation or aggregates)"
            )));
        }
        let mut engine = kind.build(program.clone(), 1, &dd_baseline::Cluster::single());
        // The rounds' facts are how a batch's change is read without copying the model.
        engine.set_trace_facts(true);
        let t = Instant::now();
        let report = engine.materialise(&inputs.edb)?;
        let ns = t.elapsed().as_nanos();
        engine.settle()?;
        let held = engine.model();
        let mut text = super::client::model_lines(&program, &inputs.symbols, &held);
        text.push_str(&format!("ok time_ns={ns}{}\n", counters(&report)));
        Ok(Started::Running(
            State {
                program,
                symbols: inputs.symbols,
                edb: inputs.edb,
                engine,
                held,
                batches: 0,
            },
            text,
        ))
    }

    fn batch(&mut self, text: &str, planted: bool) -> anyhow::Result<String> {
        self.batches += 1;
        let file = SourceFile::new(format!("batch {}", self.batches), text.to_string());
        let requested = parse_updates(&file, &self.program, &mut self.symbols)
            .map_err(|d| anyhow::anyhow!("{}", d.render()))?;
        let requested = requested.into_iter().next().unwrap_or_default();
        let batch = Batch::normalise(&requested, &self.edb);
        self.edb.apply(&batch);
        let t = Instant::now();
        let report = self.engine.apply(&batch)?;
        let ns = t.elapsed().as_nanos();
        self.engine.settle()?;
        let (mut removed, added) = self.change(&report);
        for f in &removed {
            self.held.relations[f.rel].remove(&f.tuple);
        }
        for f in &added {
            self.held.relations[f.rel].insert(f.tuple.clone());
        }
        if planted && !batch.deletions.is_empty() && !removed.is_empty() {
            removed.remove(0);
        }
        let mut out = String::new();
        for (sign, facts) in [('-', &removed), ('+', &added)] {
            for f in facts {
                wire::push_fact(
                    &mut out,
                    sign,
                    &self.program,
                    &self.symbols,
                    f.rel,
                    &f.tuple,
                );
            }
        }
        out.push_str(&format!("ok time_ns={ns}{}\n", counters(&report)));
        Ok(out)
    }

    /// The batch's net change of the IDB, sorted: from the rounds when they account for the
    /// engine's net change exactly, else by comparing whole models.
    fn change(&self, report: &BatchReport) -> (Vec<Fact>, Vec<Fact>) {
        if let Some(from_rounds) = self.change_from_rounds(report) {
            return from_rounds;
        }
        let after = self.engine.model();
        let facts = |m: std::collections::BTreeMap<usize, Vec<dred_core::Tuple>>| -> Vec<Fact> {
            m.into_iter()
                .flat_map(|(rel, ts)| ts.into_iter().map(move |t| Fact::new(rel, t)))
                .collect()
        };
        (
            facts(self.held.minus(&after)),
            facts(after.minus(&self.held)),
        )
    }

    fn change_from_rounds(&self, report: &BatchReport) -> Option<(Vec<Fact>, Vec<Fact>)> {
        let expected = self.engine.net_change()?;
        let mut gone: HashSet<&Fact> = HashSet::new();
        let mut back: HashSet<&Fact> = HashSet::new();
        for round in &report.rounds {
            if round.facts.len() != round.size {
                return None;
            }
            let set = match round.phase {
                Phase::Overdelete | Phase::Delete => &mut gone,
                Phase::Rederive | Phase::Insert => &mut back,
            };
            set.extend(round.facts.iter().filter(|f| self.program.is_idb(f.rel)));
        }
        let mut removed: Vec<Fact> = gone
            .iter()
            .filter(|f| !back.contains(*f))
            .map(|f| (*f).clone())
            .collect();
        let mut added: Vec<Fact> = back
            .iter()
            .filter(|f| !self.held.contains(f.rel, &f.tuple))
            .map(|f| (*f).clone())
            .collect();
        let consistent = removed.len() == expected.removed
            && added.len() == expected.added
            && removed.iter().all(|f| self.held.contains(f.rel, &f.tuple))
            && back
                .iter()
                .all(|f| gone.contains(*f) || !self.held.contains(f.rel, &f.tuple));
        if !consistent {
            return None;
        }
        removed.sort();
        added.sort();
        Some((removed, added))
    }
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
