//! The harness's side of the engine protocol: [`ExternalEngine`], an [`Engine`] whose work is
//! done by a child process.
//!
//! The child is started at materialisation, in a fresh temporary directory holding the
//! program's text and the initial EDB as `.facts` files. Every exchange (greeting, program,
//! each batch) writes its request and reads the answer up to its last line in the calling
//! thread (`external::pipes`), for at most the engine's timeout: a child that hangs, whether
//! reading or writing, is killed and the batch is its failure, never a hang of the harness.
//! Answers are checked against the model the harness keeps for the engine (`external::held`;
//! a fact added twice, or removed while absent, is a malformed answer) in [`Engine::settle`],
//! after the exchange is timed, so that [`Engine::model`], [`Engine::digest`] and
//! [`Engine::net_change`] are exactly what the engine said, and the runner compares them like
//! any engine's.

use std::collections::{BTreeSet, VecDeque};
use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use dred_core::{
    Batch, BatchReport, Edb, Engine, EngineError, Model, ModelDigest, NetChange, Program, Symbols,
    Value,
};

use super::held::{Held, PendingAnswer};
use super::pipes::{Broken, Pipes};
use super::registry::EngineDecl;
use super::wire::{self, Level, Terminal};

/// Lines of the child's stderr kept for error messages.
const STDERR_TAIL: usize = 12;

/// An engine outside the harness, run as a child process speaking the engine protocol.
#[derive(Debug)]
pub struct ExternalEngine {
    /// `ext:NAME` (with `@K` for a further instance): the name in reports.
    name: String,
    /// The declaration, or why there is none.
    decl: Result<EngineDecl, String>,
    program: Arc<Program>,
    symbols: Arc<Symbols>,
    /// `symbols` by text, built at materialisation.
    index: wire::SymbolIndex,
    process: Option<Process>,
    level: Level,
    /// What the engine said its IDB is, up to the last answer folded in.
    held: Held,
    /// The last answer, read but not yet folded in (see [`PendingAnswer`]).
    pending: Option<PendingAnswer>,
    /// Batches sent so far (for messages).
    batches: usize,
    /// Set once the engine failed: every later call repeats it rather than trust its state.
    broken: Option<EngineError>,
    /// The program and initial facts the engine was told to read; removed when dropped.
    workdir: Option<tempfile::TempDir>,
    /// What the engine said of itself in its greeting (`name=`, `version=`, ...).
    info: Vec<(String, String)>,
    /// The first line of the declared version command's output, if one is declared.
    version: Option<String>,
    /// Symbols travel as their numbers (the engine accepted [`wire::SYMBOL_NUMBERS`]).
    numbers: bool,
    /// Symbols numbered for the engine so far: the harness's table's first `numbered`.
    numbered: usize,
}

/// A running child, its pipes and the thread that keeps its last words.
#[derive(Debug)]
struct Process {
    child: Child,
    pipes: Pipes,
    stderr: Arc<Mutex<VecDeque<String>>>,
    /// The thread filling `stderr`: it ends at the child's end of stderr.
    stderr_reader: std::thread::JoinHandle<()>,
    timeout: Duration,
    /// For an engine declared `same_cpu`: the pin of the harness's thread, held while the
    /// process lives.
    _same_cpu: Option<super::SameCpu>,
}

impl ExternalEngine {
    /// The engine `name` of the engines file in use (`crate::external::registry`), reported
    /// as `display_name`. An undeclared name is not an error until materialisation, where it
    /// fails the case (commands check names before they start: `check_specs`).
    pub fn declared_as(
        display_name: &str,
        name: &str,
        program: Arc<Program>,
        symbols: Arc<Symbols>,
    ) -> Self {
        let decl = super::registry().and_then(|r| r.get(name).cloned());
        Self::with_decl(display_name, decl, program, symbols)
    }

    /// The engine of declaration `decl`, reported as `display_name`.
    pub fn new(
        display_name: &str,
        decl: EngineDecl,
        program: Arc<Program>,
        symbols: Arc<Symbols>,
    ) -> Self {
        Self::with_decl(display_name, Ok(decl), program, symbols)
    }

    /// Builds the engine; the declared version command runs here, outside the timed
    /// materialisation, and its first line goes into batch 0's `counters` as `version=`.
    fn with_decl(
        display_name: &str,
        decl: Result<EngineDecl, String>,
        program: Arc<Program>,
        symbols: Arc<Symbols>,
    ) -> Self {
        let version = decl.as_ref().ok().and_then(|d| {
            d.version.as_ref()?;
            Some(
                d.version_line()
                    .unwrap_or_else(|e| format!("unknown ({e})")),
            )
        });
        ExternalEngine {
            version,
            name: display_name.to_string(),
            decl,
            held: Held::empty(&program),
            pending: None,
            program,
            symbols,
            index: wire::SymbolIndex::default(),
            numbers: false,
            numbered: 0,
            process: None,
            level: Level::Changes,
            batches: 0,
            broken: None,
            workdir: None,
            info: Vec::new(),
        }
    }

    /// What the engine said of itself when greeted (`key=value` words, e.g. `version`).
    pub fn info(&self) -> &[(String, String)] {
        &self.info
    }

    fn misuse(&self, message: String) -> EngineError {
        EngineError::Misuse {
            engine: self.name.clone(),
            message,
        }
    }

    /// Records a failure: the child is killed and every later call fails the same way.
    fn fail(&mut self, e: EngineError) -> EngineError {
        if let Some(mut p) = self.process.take() {
            let _ = p.child.kill();
            let _ = p.child.wait();
        }
        self.broken = Some(e.clone());
        e
    }

    /// Writes the harness's symbols, one a line in the order of their numbers (symbols
    /// travel as numbers), beside the program; returns the file's path.
    fn write_symbols(&mut self) -> std::io::Result<String> {
        let dir = self.workdir.as_ref().ok_or_else(|| {
            std::io::Error::other("the inputs are written first (`write_inputs`)")
        })?;
        let path = dir.path().join("symbols");
        let count = self.symbols.len();
        let mut text = String::new();
        {
            let names = self.symbols.names();
            for v in 0..count {
                text.push_str(names.get(v as Value).unwrap_or_default());
                text.push('\n');
            }
        }
        std::fs::write(&path, text)?;
        self.numbered = count;
        Ok(path.display().to_string())
    }

    /// Writes the program and the EDB where the engine reads them; returns the program's
    /// and the facts directory's paths.
    fn write_inputs(&mut self, edb: &Edb) -> std::io::Result<(String, String)> {
        let dir = tempfile::Builder::new()
            .prefix("dredbench-ext-")
            .tempdir()?;
        let program_path = dir.path().join("program.dl");
        std::fs::write(&program_path, self.program.source.text.as_bytes())?;
        let facts = dir.path().join("facts");
        std::fs::create_dir(&facts)?;
        for (rel, decl) in self.program.relations.iter().enumerate() {
            if !decl.input {
                continue;
            }
            let tuples: Vec<_> = edb.relations.get(rel).into_iter().flatten().collect();
            let text = wire::facts_file(&decl.types, &tuples, &self.symbols);
            std::fs::write(facts.join(format!("{}.facts", decl.facts_name())), text)?;
        }
        let paths = (
            program_path.display().to_string(),
            facts.display().to_string(),
        );
        self.workdir = Some(dir);
        Ok(paths)
    }

    fn start(&mut self, decl: &EngineDecl) -> Result<(), EngineError> {
        let command = decl.start_command();
        let (exe, args) = command
            .split_first()
            .ok_or_else(|| self.misuse("an empty command".into()))?;
        // Before the spawn: the child inherits the thread's mask.
        let same_cpu = match decl.same_cpu.then(super::SameCpu::pin_here).transpose() {
            Ok(pin) => pin,
            Err(e) => {
                return Err(self.misuse(format!(
                    "cannot run it on the harness's CPU (`same_cpu = true`): {e}"
                )))
            }
        };
        let mut child = Command::new(exe)
            .args(args)
            .current_dir(&decl.dir)
            .envs(&decl.env)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| {
                self.misuse(format!(
                    "cannot start `{}` in {}: {e}",
                    command.join(" "),
                    decl.dir.display()
                ))
            })?;
        let (Some(stdin), Some(stdout), Some(stderr)) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            let _ = child.kill();
            return Err(self.misuse("the child's pipes could not be opened".into()));
        };
        let pipes = match Pipes::new(stdin, stdout) {
            Ok(pipes) => pipes,
            Err(e) => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(self.misuse(format!("the child's pipes could not be set up: {e}")));
            }
        };
        let tail = Arc::new(Mutex::new(VecDeque::new()));
        let keep = tail.clone();
        let stderr_reader = std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines() {
                let Ok(line) = line else { break };
                if let Ok(mut t) = keep.lock() {
                    if t.len() == STDERR_TAIL {
                        t.pop_front();
                    }
                    t.push_back(line);
                }
            }
        });
        self.process = Some(Process {
            child,
            pipes,
            stderr: tail,
            stderr_reader,
            timeout: decl.timeout(),
            _same_cpu: same_cpu,
        });
        Ok(())
    }

    /// Sends `request` and waits for the answer: its fact lines and its last line.
    fn exchange(&mut self, request: Vec<u8>) -> Result<(String, String), EngineError> {
        let Some(p) = self.process.as_mut() else {
            return Err(self.misuse("no process (materialise first)".into()));
        };
        let message = match p.pipes.exchange(&request, Instant::now() + p.timeout) {
            Ok(answer) => return Ok((answer.facts, answer.last)),
            Err(Broken::Unreadable(e)) => format!("its answer could not be read: {e}"),
            Err(Broken::Closed) => {
                format!("the process ended without answering ({})", p.end_status())
            }
            Err(Broken::TimedOut) => {
                let _ = p.child.kill();
                format!(
                    "no answer within {} s (the engines file's `timeout_s`); the process was \
                     killed{}",
                    p.timeout.as_secs_f64(),
                    p.stderr_tail()
                )
            }
        };
        Err(self.misuse(message))
    }

    /// Reads an answer's last line: `Ok` with the report's external figures, or the engine's
    /// error or refusal.
    fn finish(&self, last: &str, report: &mut BatchReport) -> Result<(), EngineError> {
        match wire::parse_terminal(last).map_err(|e| self.misuse(format!("malformed: {e}")))? {
            Terminal::Ok { time_ns, counters } => {
                report.engine_ns = time_ns;
                if !counters.is_empty() {
                    let words: Vec<String> =
                        counters.iter().map(|(k, v)| format!("{k}={v}")).collect();
                    report.counters = Some(words.join(" "));
                }
                Ok(())
            }
            Terminal::Error(message) => Err(self.misuse(format!("answered `error {message}`"))),
            Terminal::Unsupported(feature) => Err(EngineError::Unsupported {
                engine: self.name.clone(),
                feature,
            }),
        }
    }

    /// Folds the answer awaiting it into the model kept for the engine.
    fn fold_pending(&mut self) -> Result<(), EngineError> {
        let Some(answer) = self.pending.take() else {
            return Ok(());
        };
        let result = self
            .held
            .fold(&answer, self.level, &self.program, &self.index);
        if let Some(p) = self.process.as_mut() {
            p.pipes.recycle(answer.facts.into_bytes());
        }
        result.map_err(|e| self.misuse(format!("malformed answer to batch {}: {e}", answer.batch)))
    }

    /// The model kept for the engine with any answer not yet folded in (a copy; only when
    /// [`Engine::settle`] was not called after the last batch).
    fn current(&self) -> std::borrow::Cow<'_, Held> {
        match &self.pending {
            None => std::borrow::Cow::Borrowed(&self.held),
            Some(answer) => {
                let mut held = self.held.clone();
                // A malformed answer is reported by `settle` or the next batch; here the
                // model is as far as it could be read.
                let _ = held.fold(answer, self.level, &self.program, &self.index);
                std::borrow::Cow::Owned(held)
            }
        }
    }

    fn materialise_inner(&mut self, edb: &Edb) -> Result<BatchReport, EngineError> {
        let decl = self.decl.clone().map_err(|e| self.misuse(e))?;
        if let Some(f) = decl.missing_feature(&self.program) {
            return Err(EngineError::Unsupported {
                engine: self.name.clone(),
                feature: format!(
                    "{} (its declaration in the engines file does not list it)",
                    f.name()
                ),
            });
        }
        wire::check_representable(&self.symbols).map_err(|feature| EngineError::Unsupported {
            engine: self.name.clone(),
            feature,
        })?;
        self.index = wire::SymbolIndex::of(&self.symbols);
        if self.program.has_string_functors() || self.program.has_records() {
            // Answers may hold strings and records the rules made, which the harness's
            // engines intern in the same table.
            self.index = std::mem::take(&mut self.index).interning(&self.symbols);
        }
        let (program, facts) = self
            .write_inputs(edb)
            .map_err(|e| self.misuse(format!("writing its inputs: {e}")))?;
        self.start(&decl)?;
        // Symbols as numbers only where every symbol of an answer is one the harness has
        // (no string functors or records make new ones).
        let offer = !self.program.has_string_functors() && !self.program.has_records();
        let (lines, last) = self.exchange(wire::greeting(offer).into_bytes())?;
        if let Some(first) = lines.lines().next() {
            return Err(self.misuse(format!(
                "malformed greeting: {first:?} before the `protocol` line"
            )));
        }
        if !last.starts_with("protocol") {
            self.finish(&last, &mut BatchReport::default())?;
            return Err(self.misuse(format!("malformed greeting: {last:?}")));
        }
        let hello = wire::parse_hello(&last)
            .map_err(|e| self.misuse(format!("malformed greeting: {e}")))?;
        self.level = hello.level;
        self.info = hello.info;
        self.numbers = offer
            && self
                .info
                .iter()
                .any(|(k, v)| wire::SYMBOL_NUMBERS == format!("{k}={v}"));
        let mut request = format!("program {program}\nfacts {facts}\n");
        if self.numbers {
            let path = self
                .write_symbols()
                .map_err(|e| self.misuse(format!("writing its symbols: {e}")))?;
            request.push_str(&format!("symbols {path}\n"));
            self.index = wire::SymbolIndex::numbered(self.numbered);
        }
        let (lines, last) = self.exchange(request.into())?;
        let mut report = BatchReport::default();
        self.finish(&last, &mut report)?;
        self.pending = Some(PendingAnswer {
            facts: lines,
            whole: true,
            batch: 0,
        });
        // Provenance in batch 0's row: the declared version command's answer, then what the
        // engine said of itself, then its counters (values made single words).
        let mut words: Vec<String> = Vec::new();
        if let Some(v) = &self.version {
            words.push(format!("version_command={}", one_word(v)));
        }
        words.extend(self.info.iter().map(|(k, v)| format!("hello_{k}={v}")));
        words.extend(report.counters.take());
        if !words.is_empty() {
            report.counters = Some(words.join(" "));
        }
        Ok(report)
    }

    /// The first line of the declared version command's output (`None` without one).
    pub fn version(&self) -> Option<&str> {
        self.version.as_deref()
    }

    fn apply_inner(&mut self, batch: &Batch) -> Result<BatchReport, EngineError> {
        // The caller may not have settled the last batch: its answer is checked first.
        self.fold_pending()?;
        self.batches += 1;
        let mut request = String::new();
        if self.numbers {
            // Symbols the harness's table gained since the engine was last told.
            let count = self.symbols.len();
            for v in self.numbered..count {
                let name = self.symbols.name(v as Value).unwrap_or_default();
                request.push_str(&format!("symbol {v} {name}\n"));
            }
            if count > self.numbered {
                self.numbered = count;
                self.index = wire::SymbolIndex::numbered(count);
            }
        }
        let numbers = if self.numbers {
            wire::SymbolNumbers::Values
        } else {
            wire::SymbolNumbers::Text
        };
        let writer = wire::FactWriter::new(&self.program, &self.symbols).with_numbers(numbers);
        for (sign, facts) in [('-', &batch.deletions), ('+', &batch.insertions)] {
            for f in facts {
                writer.push(&mut request, sign, f.rel, &f.tuple);
            }
        }
        drop(writer);
        request.push_str("commit\n");
        let (lines, last) = self.exchange(request.into_bytes())?;
        let mut report = BatchReport::default();
        self.finish(&last, &mut report)?;
        self.pending = Some(PendingAnswer {
            facts: lines,
            whole: false,
            batch: self.batches,
        });
        Ok(report)
    }
}

impl Process {
    /// How the child ended (waiting up to a second for it), with its last stderr lines.
    fn end_status(&mut self) -> String {
        let deadline = Instant::now() + Duration::from_secs(1);
        let status = loop {
            match self.child.try_wait() {
                Ok(Some(s)) => break s.to_string(),
                Ok(None) if Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(10))
                }
                Ok(None) => break "still running, its output closed".to_string(),
                Err(e) => break e.to_string(),
            }
        };
        // The child's last words may still be on their way through the reader thread
        // (seen on a loaded machine): let it reach the end of stderr, within a second more.
        let deadline = Instant::now() + Duration::from_secs(1);
        while !self.stderr_reader.is_finished() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(5));
        }
        format!("{status}{}", self.stderr_tail())
    }

    fn stderr_tail(&self) -> String {
        let lines: Vec<String> = self
            .stderr
            .lock()
            .map(|t| t.iter().cloned().collect())
            .unwrap_or_default();
        if lines.is_empty() {
            String::new()
        } else {
            format!("; its stderr ended with: {}", lines.join(" | "))
        }
    }
}

/// A value as one `key=value` word: blanks become `_`, `=` stays (the first `=` splits).
fn one_word(s: &str) -> String {
    let s = s.trim();
    if s.is_empty() {
        return "-".into();
    }
    s.split_whitespace().collect::<Vec<_>>().join("_")
}

impl Drop for ExternalEngine {
    /// Closes the child's input (its signal to exit), gives it a second, then kills it.
    fn drop(&mut self) {
        if let Some(mut p) = self.process.take() {
            p.pipes.close_input();
            let deadline = Instant::now() + Duration::from_secs(1);
            while Instant::now() < deadline {
                if let Ok(Some(_)) = p.child.try_wait() {
                    return;
                }
                std::thread::sleep(Duration::from_millis(5));
            }
            let _ = p.child.kill();
            let _ = p.child.wait();
        }
    }
}

impl Engine for ExternalEngine {
    fn name(&self) -> &str {
        &self.name
    }

    fn materialise(&mut self, edb: &Edb) -> Result<BatchReport, EngineError> {
        if let Some(e) = &self.broken {
            return Err(e.clone());
        }
        if self.process.is_some() {
            return Err(self.misuse("materialised twice".into()));
        }
        self.materialise_inner(edb).map_err(|e| self.fail(e))
    }

    fn apply(&mut self, batch: &Batch) -> Result<BatchReport, EngineError> {
        if let Some(e) = &self.broken {
            return Err(e.clone());
        }
        self.apply_inner(batch).map_err(|e| self.fail(e))
    }

    /// Reads and checks the last answer's fact lines into the model kept for the engine: a
    /// malformed answer fails the batch here.
    fn settle(&mut self) -> Result<(), EngineError> {
        if let Some(e) = &self.broken {
            return Err(e.clone());
        }
        self.fold_pending().map_err(|e| self.fail(e))
    }

    fn model(&self) -> Model {
        Model {
            relations: self
                .current()
                .model
                .iter()
                .map(|r| r.iter().cloned().collect())
                .collect(),
        }
    }

    fn digest(&self) -> ModelDigest {
        self.current().digest.clone()
    }

    fn net_change(&self) -> Option<NetChange> {
        Some(self.current().last_change)
    }
}

/// The facts of `model` that `program` declares, sorted, as `+` lines: what an engine at
/// level `model` answers (and, at level `changes`, at materialisation).
pub fn model_lines(
    program: &Program,
    symbols: &Symbols,
    model: &Model,
    numbers: wire::SymbolNumbers<'_>,
) -> String {
    let mut out = String::new();
    let writer = wire::FactWriter::new(program, symbols).with_numbers(numbers);
    for (rel, tuples) in model.relations.iter().enumerate() {
        let sorted: BTreeSet<_> = tuples.iter().collect();
        for t in sorted {
            writer.push(&mut out, '+', rel, t);
        }
    }
    out
}
