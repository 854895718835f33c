//! The `dd` engine: drives the compiled dataflow through the synchronous [`Engine`] interface.
//!
//! The engine *is* worker 0 of its process: that worker and its dataflow live on the engine's
//! own thread, so with one worker a batch involves no thread hand-off at all. Further workers
//! of the process run on threads of their own and take commands through channels. Each batch:
//!
//! 1. becomes the next timestamp, its updates encoded as the dataflow's records (on this
//!    thread, in stream order, so codes agree across processes); every local worker gets the
//!    same list and feeds its share (update `i` goes to global worker `i mod peers`, so every
//!    process, holding the same stream, feeds each update exactly once in the cluster);
//! 2. every worker advances and flushes every input — even with nothing to feed, or the
//!    computation would wait for it forever — and steps until the probe passes the batch;
//! 3. each worker hands over the consolidated net changes of derived relations it saw, as
//!    records; the engine keeps them, and [`Engine::settle`] (called by the harness outside
//!    the timing) decodes them and folds them into the model's digest, so no batch scans the
//!    whole model and a batch's time is the dataflow's alone. [`Engine::model`] reads the
//!    model from the dataflow's arrangement of it.
//!
//! Waiting workers park rather than spin (the machines are small and shared), and a worker
//! thread that panics sets a flag the engine checks while waiting, so a failure becomes an
//! error rather than a hang.
//!
//! Timely's `execute` runs every worker on a thread of its own; to keep worker 0 here, the
//! engine builds the communication allocators itself (the same steps as `execute_from`).

use std::any::Any;
use std::cell::RefCell;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError, Sender};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use dred_core::{
    Batch, BatchReport, Edb, Engine, EngineError, Model, ModelDigest, NetChange, Program, RelId,
    Value,
};
use timely::communication::allocator::{Allocator, AllocatorBuilder, Thread};
use timely::worker::Worker;
use timely::WorkerConfig;

use crate::compile::{self, Dataflow, Gather};
use crate::config::{DdConfig, Records};
use crate::plan::ProgramPlan;
use crate::row::{Codes, CodesExhausted, Diff, Record, Row, Time};

/// The engine's name on the command line and in reports.
pub const NAME: &str = "dd";

/// How long a waiting worker parks before it looks again (messages wake it earlier).
const PARK: Duration = Duration::from_millis(1);

/// How long the engine waits for a reply before checking whether a worker failed.
const POLL: Duration = Duration::from_millis(50);

/// One update as the engine sees it: relation, tuple of values, +1 or -1.
type Update = (RelId, Row, Diff);

/// One update as the dataflow sees it: relation, record, +1 or -1.
type Encoded<R> = (RelId, R, Diff);

/// What the worker threads are asked. Dropping the sender shuts the worker down.
enum Command<R> {
    /// Feed these updates at `time`, complete it, reply with the net changes.
    Batch {
        time: Time,
        updates: Arc<Vec<Encoded<R>>>,
    },
    /// Reply with the derived facts of this worker's share of the model (diff 1 each).
    ReadModel,
}

/// This process's timely workers: worker 0 here, the others on threads; their dataflows hold
/// records `R`.
struct Runtime<R: Record> {
    worker: Worker,
    /// Worker 0's dataflow handles; `None` once shut down.
    dataflow: Option<Dataflow<R>>,
    program: Arc<Program>,
    /// The codes of the records' words (unused by general rows).
    codes: Arc<Codes>,
    /// The program's facts as records, fed by worker 0 at time 0.
    facts: Arc<Vec<(RelId, R)>>,
    /// One sender per worker thread; cleared to shut them down.
    commands: Vec<Sender<Command<R>>>,
    replies: Receiver<Vec<Encoded<R>>>,
    failed: Arc<AtomicBool>,
    threads: Vec<JoinHandle<()>>,
    /// Network threads of a cluster; dropped after the workers.
    comms: Option<Box<dyn Any + Send>>,
    /// Net changes of each timestamp since the engine last settled, in order, as records.
    unsettled: Vec<Vec<Encoded<R>>>,
}

/// Sets the shared flag when the worker thread holding it unwinds.
struct FailFlag(Arc<AtomicBool>);

impl Drop for FailFlag {
    fn drop(&mut self) {
        if std::thread::panicking() {
            self.0.store(true, Ordering::SeqCst);
        }
    }
}

fn misuse(message: impl Into<String>) -> EngineError {
    EngineError::Misuse {
        engine: NAME.into(),
        message: message.into(),
    }
}

/// The allocator of one worker; must run on the thread that will host the worker.
fn allocator(builder: AllocatorBuilder) -> Allocator {
    match builder {
        AllocatorBuilder::Thread(_) => Allocator::Thread(Thread::default()),
        AllocatorBuilder::Process(p) => Allocator::Process(p.build()),
        AllocatorBuilder::Tcp(t) => Allocator::Tcp(t.build()),
    }
}

/// Feeds one worker's share of a batch at `time` and advances every input past it.
/// `share` is this worker's part of the batch: update `i` of a batch is worker `i mod peers`'s
/// ([`share`]).
fn feed<R: Record>(
    worker: &Worker,
    dataflow: &mut Dataflow<R>,
    program_facts: &[(RelId, R)],
    time: Time,
    share: impl IntoIterator<Item = Encoded<R>>,
) {
    let index = worker.index();
    for (rel, tuple, diff) in share {
        if let Some(Some(input)) = dataflow.inputs.get_mut(rel) {
            input.update(tuple, diff);
        }
    }
    let next = time + 1;
    if let Some(facts) = dataflow.facts.as_mut() {
        if index == 0 {
            for (rel, tuple) in program_facts {
                facts.insert((*rel, tuple.clone()));
            }
        }
        facts.advance_to(next);
        facts.flush();
    }
    // Program facts never change: closing their input lets it drop out of progress tracking.
    dataflow.facts = None;
    for input in dataflow.inputs.iter_mut().flatten() {
        input.advance_to(next);
        input.flush();
    }
}

/// Worker `worker`'s share of a batch: update `i` goes to worker `i mod peers`.
fn share<'a, R: Record>(
    updates: &'a [Encoded<R>],
    worker: &Worker,
) -> impl Iterator<Item = Encoded<R>> + 'a {
    updates
        .iter()
        .skip(worker.index())
        .step_by(worker.peers())
        .cloned()
}

/// A worker thread's life: build the dataflow, serve batches until the engine hangs up, then
/// step until every worker has shut down.
#[allow(clippy::too_many_arguments)]
fn serve<R: Record>(
    builder: AllocatorBuilder,
    program: &Program,
    plan: &ProgramPlan,
    codes: &Arc<Codes>,
    program_facts: &[(RelId, R)],
    gather_to: Gather,
    commands: &Receiver<Command<R>>,
    replies: &Sender<Vec<Encoded<R>>>,
) {
    let mut worker = Worker::new(
        WorkerConfig::default(),
        allocator(builder),
        Some(Instant::now()),
    );
    let mut dataflow = compile::build::<R>(&mut worker, program, plan, gather_to, codes);
    while let Ok(command) = commands.recv() {
        let reply = match command {
            Command::Batch { time, updates } => {
                let mine = share(&updates, &worker);
                feed(&worker, &mut dataflow, program_facts, time, mine);
                let next = time + 1;
                let probe = dataflow.probe.clone();
                worker.step_or_park_while(Some(PARK), || probe.less_than(&next));
                compile::compact_model(&mut dataflow.model, next);
                std::mem::take(&mut *dataflow.changes.borrow_mut())
            }
            Command::ReadModel => compile::read_model(&mut dataflow.model)
                .into_iter()
                .map(|(rel, row)| (rel, row, 1))
                .collect(),
        };
        if replies.send(reply).is_err() {
            break;
        }
    }
    drop(dataflow);
    while worker.has_dataflows() {
        worker.step_or_park(Some(PARK));
    }
}

/// What the engine asks of its runtime, whatever the record type: batches and model reads in
/// values, encoded and decoded at this boundary.
trait Driver {
    /// Runs one timestamp on every local worker, fed `updates`; keeps the workers' net
    /// changes (as records: decoding them is the harness's business, not the batch's) and
    /// returns the numbers of facts (removed, added).
    fn step(
        &mut self,
        time: Time,
        updates: &mut dyn Iterator<Item = (RelId, &[Value], Diff)>,
    ) -> Result<(usize, usize), EngineError>;

    /// Applies to `digest` the changes kept since this was last called, and forgets them;
    /// each must change a fact by ±1 (a derived relation is a set).
    fn settle_into(&mut self, digest: &mut ModelDigest) -> Result<(), EngineError>;

    /// `digest` with the changes kept since the last [`Driver::settle_into`] applied
    /// (unchecked: `settle_into` reports an inconsistent change).
    fn unsettled_into(&self, digest: &mut ModelDigest);

    /// Every derived fact of the model, read from this process's workers.
    fn read_model(&mut self) -> Result<Vec<Update>, EngineError>;

    /// The record type, for diagnostics.
    fn records(&self) -> &'static str;
}

/// Starts the runtime whose record type `config` and the program's widest record call for.
fn start(program: Arc<Program>, config: &DdConfig) -> Result<Box<dyn Driver>, EngineError> {
    // A string functor interns the strings it makes in the symbol table of its process
    // (shared by the process's worker threads and its harness): two processes would give a
    // string made in both different indices.
    if program.has_string_functors() && config.cluster().processes() > 1 {
        return Err(EngineError::Unsupported {
            engine: NAME.into(),
            feature: "string functors across several processes (each process interns the \
                      strings its rules make in a table of its own)"
                .into(),
        });
    }
    // Records likewise: the record table is the process's (`dred_core::records`).
    if program.has_records() && config.cluster().processes() > 1 {
        return Err(EngineError::Unsupported {
            engine: NAME.into(),
            feature: "records across several processes (each process interns the records \
                      its rules build in a table of its own)"
                .into(),
        });
    }
    let plan = ProgramPlan::new(&program);
    let width = plan.max_record_width(&program);
    // An aggregate's value is computed inside the dataflow, where values cannot be given
    // codes in stream order (every process must give a value the same code): aggregate
    // programs run on general rows, whose words are the values.
    // The same holds for the values arithmetic computes.
    let width = if program.aggregates.is_empty() && !program.has_arithmetic() {
        width
    } else {
        usize::MAX
    };
    Ok(match config.records() {
        Records::Narrowest if width <= 2 => {
            Box::new(Runtime::<[u32; 2]>::start(program, plan, config)?)
        }
        Records::Narrowest if width <= 4 => {
            Box::new(Runtime::<[u32; 4]>::start(program, plan, config)?)
        }
        _ => Box::new(Runtime::<Row>::start(program, plan, config)?),
    })
}

/// More distinct values than 32-bit codes can hold: a limit of this engine, reported as such.
fn exhausted(e: CodesExhausted) -> EngineError {
    EngineError::Unsupported {
        engine: NAME.into(),
        feature: e.to_string(),
    }
}

impl<R: Record> Runtime<R> {
    /// Starts the workers of this process; with a cluster, returns once every process is
    /// connected.
    fn start(
        program: Arc<Program>,
        plan: ProgramPlan,
        config: &DdConfig,
    ) -> Result<Runtime<R>, EngineError> {
        let codes = Arc::new(Codes::default());
        // Constants first, then the program's facts, in program order: every process gives
        // them the same codes.
        let plan = Arc::new(if R::ENCODED {
            plan.encoded(&codes).map_err(exhausted)?
        } else {
            plan
        });
        let facts = program
            .facts
            .iter()
            .map(|f| Ok((f.rel, R::encode(&f.tuple, &codes)?)))
            .collect::<Result<Vec<_>, CodesExhausted>>()
            .map_err(exhausted)?;
        let facts = Arc::new(facts);
        let gather_to = Gather {
            processes: config.cluster().processes(),
            threads: config.workers(),
        };
        let (builders, comms) = config
            .timely()
            .communication
            .try_build()
            .map_err(|e| misuse(format!("cannot start timely: {e}")))?;
        let mut builders = builders.into_iter();
        let first = builders
            .next()
            .ok_or_else(|| misuse("timely configured no worker"))?;
        let failed = Arc::new(AtomicBool::new(false));
        let (reply_tx, replies) = channel();
        let mut commands = Vec::new();
        let mut threads = Vec::new();
        for (i, builder) in builders.enumerate() {
            let (tx, rx) = channel::<Command<R>>();
            let (program, plan, codes, facts, replies, flag) = (
                program.clone(),
                plan.clone(),
                codes.clone(),
                facts.clone(),
                reply_tx.clone(),
                failed.clone(),
            );
            let handle = std::thread::Builder::new()
                .name(format!("timely:work-{}", i + 1))
                .spawn(move || {
                    let _flag = FailFlag(flag);
                    serve(
                        builder, &program, &plan, &codes, &facts, gather_to, &rx, &replies,
                    );
                })
                .map_err(|e| misuse(format!("cannot start a worker thread: {e}")))?;
            commands.push(tx);
            threads.push(handle);
        }
        let mut worker = Worker::new(
            WorkerConfig::default(),
            allocator(first),
            Some(Instant::now()),
        );
        let dataflow = compile::build::<R>(&mut worker, &program, &plan, gather_to, &codes);
        Ok(Runtime {
            worker,
            dataflow: Some(dataflow),
            program,
            codes,
            facts,
            commands,
            replies,
            failed,
            threads,
            comms: Some(comms),
            unsettled: Vec::new(),
        })
    }

    /// Runs one timestamp on every local worker; returns their changes, concatenated.
    fn run_time(
        &mut self,
        time: Time,
        updates: &mut dyn Iterator<Item = (RelId, &[Value], Diff)>,
    ) -> Result<Vec<Encoded<R>>, EngineError> {
        let dataflow = self
            .dataflow
            .as_mut()
            .ok_or_else(|| misuse("the dataflow has shut down"))?;
        let codes = &self.codes;
        let alone = self.worker.peers() == 1;
        if alone {
            // The only worker: every update is its own, encoded as it is fed (no list).
            let mut failed = None;
            let encoded = updates.map_while(|(rel, tuple, d)| match R::encode(tuple, codes) {
                Ok(r) => Some((rel, r, d)),
                Err(e) => {
                    failed = Some(e);
                    None
                }
            });
            feed(&self.worker, dataflow, &self.facts, time, encoded);
            if let Some(e) = failed {
                return Err(exhausted(e));
            }
        } else {
            let updates = updates
                .map(|(rel, tuple, d)| Ok((rel, R::encode(tuple, codes)?, d)))
                .collect::<Result<Vec<_>, CodesExhausted>>()
                .map_err(exhausted)?;
            let updates = Arc::new(updates);
            for tx in &self.commands {
                tx.send(Command::Batch {
                    time,
                    updates: updates.clone(),
                })
                .map_err(|_| misuse("a timely worker has stopped"))?;
            }
            let mine = share(&updates, &self.worker);
            feed(&self.worker, dataflow, &self.facts, time, mine);
        }
        let next = time + 1;
        while dataflow.probe.less_than(&next) {
            if alone {
                self.worker.step();
            } else {
                if self.failed.load(Ordering::SeqCst) {
                    return Err(misuse("a timely worker panicked"));
                }
                self.worker.step_or_park(Some(PARK));
            }
        }
        compile::compact_model(&mut dataflow.model, next);
        let mut all = std::mem::take(&mut *dataflow.changes.borrow_mut());
        self.gather(&mut all)?;
        Ok(all)
    }

    /// Every derived fact of the model, read from the arrangements of this process's
    /// workers (together they hold the whole model).
    fn read_encoded(&mut self) -> Result<Vec<Encoded<R>>, EngineError> {
        let dataflow = self
            .dataflow
            .as_mut()
            .ok_or_else(|| misuse("the dataflow has shut down"))?;
        for tx in &self.commands {
            tx.send(Command::ReadModel)
                .map_err(|_| misuse("a timely worker has stopped"))?;
        }
        let mut all: Vec<Encoded<R>> = compile::read_model(&mut dataflow.model)
            .into_iter()
            .map(|(rel, row)| (rel, row, 1))
            .collect();
        self.gather(&mut all)?;
        Ok(all)
    }

    /// Appends one reply of every worker thread to `all`.
    fn gather(&mut self, all: &mut Vec<Encoded<R>>) -> Result<(), EngineError> {
        let mut pending = self.commands.len();
        while pending > 0 {
            match self.replies.recv_timeout(POLL) {
                Ok(mut changes) => {
                    all.append(&mut changes);
                    pending -= 1;
                }
                Err(RecvTimeoutError::Timeout) => {
                    if self.failed.load(Ordering::SeqCst) {
                        return Err(misuse("a timely worker panicked"));
                    }
                }
                Err(RecvTimeoutError::Disconnected) => {
                    return Err(misuse("every timely worker thread has stopped"));
                }
            }
        }
        Ok(())
    }
}

impl<R: Record> Runtime<R> {
    /// The changes in values.
    fn decode(&self, changes: Vec<Encoded<R>>) -> Vec<Update> {
        changes
            .into_iter()
            .map(|(rel, r, d)| (rel, self.values(rel, &r), d))
            .collect()
    }

    /// The tuple of a record of relation `rel`.
    fn values(&self, rel: RelId, record: &R) -> Row {
        record.decode(self.program.relations[rel].arity(), &self.codes)
    }
}

impl<R: Record> Driver for Runtime<R> {
    fn step(
        &mut self,
        time: Time,
        updates: &mut dyn Iterator<Item = (RelId, &[Value], Diff)>,
    ) -> Result<(usize, usize), EngineError> {
        let changes = self.run_time(time, updates)?;
        let removed = changes.iter().filter(|(_, _, d)| *d < 0).count();
        let added = changes.len() - removed;
        self.unsettled.push(changes);
        Ok((removed, added))
    }

    fn settle_into(&mut self, digest: &mut ModelDigest) -> Result<(), EngineError> {
        for changes in std::mem::take(&mut self.unsettled) {
            for (rel, record, diff) in changes {
                let tuple = self.values(rel, &record);
                match diff {
                    1 => digest.add(rel, &tuple),
                    -1 => digest.remove(rel, &tuple),
                    d => {
                        return Err(misuse(format!(
                            "internal: derived fact of relation {rel} changed by {d}, not by ±1"
                        )))
                    }
                }
            }
        }
        Ok(())
    }

    fn unsettled_into(&self, digest: &mut ModelDigest) {
        for (rel, record, diff) in self.unsettled.iter().flatten() {
            let tuple = self.values(*rel, record);
            if *diff > 0 {
                digest.add(*rel, &tuple);
            } else {
                digest.remove(*rel, &tuple);
            }
        }
    }

    fn read_model(&mut self) -> Result<Vec<Update>, EngineError> {
        let facts = self.read_encoded()?;
        Ok(self.decode(facts))
    }

    fn records(&self) -> &'static str {
        std::any::type_name::<R>()
    }
}

impl<R: Record> Drop for Runtime<R> {
    fn drop(&mut self) {
        // Hanging up tells the worker threads to close their inputs; closing ours too lets
        // the dataflow drain on every worker.
        self.commands.clear();
        self.dataflow = None;
        while self.worker.has_dataflows() && !self.failed.load(Ordering::SeqCst) {
            self.worker.step_or_park(Some(PARK));
        }
        if self.failed.load(Ordering::SeqCst) {
            // Surviving workers may wait forever for the failed one: join nothing.
            for t in self.threads.drain(..) {
                std::mem::forget(t);
            }
            std::mem::forget(self.comms.take());
            return;
        }
        for t in self.threads.drain(..) {
            // A panic was already reported through the flag.
            let _ = t.join();
        }
    }
}

/// The differential-dataflow engine. See the crate documentation for how it is built and fed.
pub struct DdEngine {
    program: Arc<Program>,
    config: DdConfig,
    /// Workers started ahead of materialisation (so that connecting a cluster is not timed), or
    /// why they could not start. In a cell: reading the model ([`Engine::model`], `&self`)
    /// steps the workers' traces.
    runtime: RefCell<Option<Result<Box<dyn Driver>, EngineError>>>,
    /// True once the runtime has run a timestamp: a new materialisation needs a fresh one.
    used: bool,
    time: Time,
    /// The digest of the model as of the last [`Engine::settle`], followed from the net
    /// changes: the engine holds no copy of the model beside its dataflow's arrangement.
    digest: ModelDigest,
    last: (usize, usize),
}

impl std::fmt::Debug for DdEngine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DdEngine")
            .field("config", &self.config)
            .field("time", &self.time)
            .field("model_size", &self.digest.len())
            .finish_non_exhaustive()
    }
}

impl DdEngine {
    /// An engine for `program` with `config`. The workers start now (with a cluster: this waits
    /// until every process is connected); a failure to start is reported by
    /// [`Engine::materialise`].
    pub fn new(program: Arc<Program>, config: DdConfig) -> Self {
        let runtime = RefCell::new(Some(start(program.clone(), &config)));
        DdEngine {
            digest: ModelDigest::empty(&program),
            program,
            config,
            runtime,
            used: false,
            time: 0,
            last: (0, 0),
        }
    }

    /// As [`DdEngine::new`], but failing at once when the workers cannot start.
    pub fn start(program: Arc<Program>, config: DdConfig) -> Result<Self, EngineError> {
        let engine = DdEngine::new(program, config);
        let failed = match &*engine.runtime.borrow() {
            Some(Err(e)) => Some(e.clone()),
            _ => None,
        };
        match failed {
            Some(e) => Err(e),
            None => Ok(engine),
        }
    }

    /// The configuration the engine runs with.
    pub fn config(&self) -> &DdConfig {
        &self.config
    }

    /// The record type the dataflow runs on (`[u32; 2]`, `[u32; 4]` or the general row), or
    /// `None` when the workers could not start.
    pub fn records(&self) -> Option<&'static str> {
        match &*self.runtime.borrow() {
            Some(Ok(r)) => Some(r.records()),
            _ => None,
        }
    }

    /// Facts (removed, added) in the derived relations by the last batch or materialisation.
    pub fn last_change(&self) -> (usize, usize) {
        self.last
    }

    /// Runs one timestamp and keeps its net changes for [`Engine::settle`].
    fn run(
        &mut self,
        time: Time,
        updates: &mut dyn Iterator<Item = (RelId, &[Value], Diff)>,
    ) -> Result<(), EngineError> {
        let mut cell = self.runtime.borrow_mut();
        let runtime = match cell.as_mut() {
            Some(Ok(r)) => r,
            Some(Err(e)) => return Err(misuse(e.to_string())),
            None => return Err(misuse("batch applied before materialisation")),
        };
        let result = runtime.step(time, updates);
        drop(cell);
        self.used = true;
        self.last = result?;
        Ok(())
    }
}

impl Engine for DdEngine {
    fn name(&self) -> &str {
        NAME
    }

    fn materialise(&mut self, edb: &Edb) -> Result<BatchReport, EngineError> {
        if self.used || self.runtime.borrow().is_none() {
            // A second materialisation starts from an empty dataflow.
            *self.runtime.borrow_mut() = None;
            *self.runtime.borrow_mut() = Some(start(self.program.clone(), &self.config));
            self.used = false;
        }
        self.digest = ModelDigest::empty(&self.program);
        self.time = 0;
        let mut updates = edb
            .relations
            .iter()
            .enumerate()
            .flat_map(|(rel, tuples)| tuples.iter().map(move |t| (rel, &t[..], 1)));
        self.run(0, &mut updates)?;
        Ok(BatchReport::default())
    }

    fn apply(&mut self, batch: &Batch) -> Result<BatchReport, EngineError> {
        if !self.used {
            return Err(misuse("batch applied before materialisation"));
        }
        let mut updates = batch
            .deletions
            .iter()
            .map(|f| (f.rel, &f.tuple[..], -1))
            .chain(batch.insertions.iter().map(|f| (f.rel, &f.tuple[..], 1)));
        self.time += 1;
        self.run(self.time, &mut updates)?;
        Ok(BatchReport::default())
    }

    fn settle(&mut self) -> Result<(), EngineError> {
        match self.runtime.borrow_mut().as_mut() {
            Some(Ok(runtime)) => runtime.settle_into(&mut self.digest),
            _ => Ok(()),
        }
    }

    /// Read from the arrangements of the workers' dataflows (every worker of this process
    /// answers): exact after every batch, settled or not. Empty before materialisation, and
    /// when the workers have failed (every later batch reports that failure).
    fn model(&self) -> Model {
        let mut model = Model::empty(&self.program);
        let facts = match self.runtime.borrow_mut().as_mut() {
            Some(Ok(runtime)) if self.used => runtime.read_model().unwrap_or_default(),
            _ => Vec::new(),
        };
        for (rel, row, _) in facts {
            model.relations[rel].insert(row.to_vec());
        }
        model
    }

    fn digest(&self) -> ModelDigest {
        let mut digest = self.digest.clone();
        if let Some(Ok(runtime)) = self.runtime.borrow().as_ref() {
            runtime.unsettled_into(&mut digest);
        }
        digest
    }

    fn net_change(&self) -> Option<NetChange> {
        let (removed, added) = self.last;
        Some(NetChange { removed, added })
    }
}
