//! The compiled `dd` engine against differential-dataflow programs written by hand for one
//! rule set each, over `(u32, u32)` rows — the direct programs a DD user would write — on the
//! same graph and the same stream (issue 23: is our comparator weakened?).
//!
//! Programs: linear transitive closure (`datasets/programs/tc_linear.dl`) and single-source
//! reachability (`reach.dl`). Each hand-written program arranges the edges by source once,
//! outside its loop, enters the arrangement, joins, and keeps `distinct` inside the loop, as
//! the compiled one does; it leaves the loop, consolidates and counts the changes it sees
//! (the compiled engine hands them to the harness), and is probed.
//!
//! The compiled engine runs twice: on the record type it picks (`dd`: two-word rows of 32-bit
//! codes for these programs) and forced onto its general rows (`dd-general`: the engine
//! before issue 23 gave it fixed-width rows). Each hand-written program also runs over the
//! general row type (`hand-row`: a `SmallVec<[i64; 2]>` holding one value per node), which
//! tells how much of a cost is the rows and how much the plan.
//!
//! Benchmarks, 1 worker:
//! - `materialise/<engine>/<program>`: the initial model, from starting the worker and building
//!   the dataflow until the model is complete (sample of 10). Not timed, as in the harness:
//!   `dd`'s `settle` (bringing its digest up to date for the harness) and tearing down;
//! - `delete/<engine>/<program>` and `insert/<engine>/<program>`: one edge of a fixed seeded
//!   sample of 20 deleted, then inserted back; each benchmark times only its half (the model
//!   is the same at every iteration). For `dd`, `apply` is timed and `settle` (its model copy
//!   for the harness) is not, as in the harness.
//!
//! The graph is `datasets/go-mf` (shipped) unless `DRED_BENCH_FACTS` names another facts
//! directory, e.g. `$(dredbench datasets path go-bp)` after `dredbench datasets fetch go-bp`.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use dd_baseline::row::{Codes, Record};
use dd_baseline::{DdConfig, DdEngine, Records};
use differential_dataflow::input::{Input, InputSession};
use differential_dataflow::operators::iterate::Iterate;
use differential_dataflow::VecCollection;
use dred_core::io::read_facts_dir;
use dred_core::{load_program, Batch, Edb, Engine, Fact, Program, SourceFile, Symbols};
use timely::communication::allocator::{Allocator, Thread};
use timely::dataflow::operators::probe::Handle;
use timely::worker::Worker;
use timely::WorkerConfig;

fn splitmix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Which program a hand-written dataflow computes.
#[derive(Clone, Copy, Debug)]
enum Rules {
    /// `path(x, y) :- edge(x, y). path(x, z) :- path(x, y), edge(y, z).`
    TcLinear,
    /// `reach(x) :- source(x). reach(y) :- reach(x), edge(x, y).`
    Reach,
}

/// A node of a hand-written dataflow: `u32` (what a DD user writes), or the compiled engine's
/// row type holding one value (to tell the cost of the rows from that of the plan).
trait Node:
    differential_dataflow::ExchangeData + differential_dataflow::Hashable + std::hash::Hash
{
    fn of(id: u32) -> Self;
}

impl Node for u32 {
    fn of(id: u32) -> Self {
        id
    }
}

/// A two-word row holding one id and a padding 0: what the compiled engine's `[u32; 2]`
/// records are for a one-column key or value (an experiment: how much the padding costs).
impl Node for [u32; 2] {
    fn of(id: u32) -> Self {
        [id, 0]
    }
}

/// The compiled engine's row (`dd_baseline::row::Row`): inline up to two `i64`s.
type EngineRow = smallvec::SmallVec<[i64; 2]>;

impl Node for EngineRow {
    fn of(id: u32) -> Self {
        EngineRow::from_slice(&[i64::from(id)])
    }
}

/// A hand-written dataflow on a worker of its own, driven batch by batch.
struct Hand<N: Node> {
    worker: Worker,
    edges: InputSession<u64, (N, N), isize>,
    sources: InputSession<u64, N, isize>,
    probe: Handle<u64>,
    /// Changes of the output seen so far (what a user would read).
    seen: std::rc::Rc<std::cell::Cell<usize>>,
}

impl<N: Node> Hand<N> {
    fn new(rules: Rules, edges: &[(u32, u32)], sources: &[u32]) -> Self {
        let mut worker = Worker::new(
            WorkerConfig::default(),
            Allocator::Thread(Thread::default()),
            Some(Instant::now()),
        );
        let probe = Handle::new();
        let seen = std::rc::Rc::new(std::cell::Cell::new(0));
        let count = seen.clone();
        let (edge_input, source_input) = worker.dataflow::<u64, _, _>(|scope| {
            let (edge_input, edges) = scope.new_collection::<(N, N), isize>();
            let (source_input, sources) = scope.new_collection::<N, isize>();
            // edge(y, z) keyed by y, arranged once outside the loop.
            let by_source = edges.clone().arrange_by_key();
            let out: VecCollection<'_, u64, (N, N), isize> = match rules {
                Rules::TcLinear => edges.clone().iterate(|scope, paths| {
                    let by_source = by_source.enter(scope);
                    // path(x, z) :- path(x, y), edge(y, z).
                    paths
                        .map(|(x, y)| (y, x))
                        .arrange_by_key()
                        .join_core(by_source, |_y, x, z| Some((x.clone(), z.clone())))
                        // path(x, y) :- edge(x, y).
                        .concat(edges.enter(scope))
                        .distinct()
                }),
                Rules::Reach => sources
                    .clone()
                    .iterate(|scope, reach| {
                        let by_source = by_source.enter(scope);
                        // reach(y) :- reach(x), edge(x, y).
                        reach
                            .map(|x| (x, ()))
                            .arrange_by_key()
                            .join_core(by_source, |_x, &(), y| Some(y.clone()))
                            // reach(x) :- source(x).
                            .concat(sources.enter(scope))
                            .distinct()
                    })
                    .map(|x| (x.clone(), x)),
            };
            out.consolidate()
                .inspect_batch(move |_, data| count.set(count.get() + data.len()))
                .probe_with(&probe);
            (edge_input, source_input)
        });
        let mut hand = Hand {
            worker,
            edges: edge_input,
            sources: source_input,
            probe,
            seen,
        };
        for &(x, y) in edges {
            hand.edges.insert((N::of(x), N::of(y)));
        }
        for &s in sources {
            hand.sources.insert(N::of(s));
        }
        hand.run();
        hand
    }

    /// Completes the current time: advances both inputs past it and steps until the probe
    /// passes it.
    fn run(&mut self) {
        let next = self.edges.time() + 1;
        self.edges.advance_to(next);
        self.edges.flush();
        self.sources.advance_to(next);
        self.sources.flush();
        let (probe, edges) = (&self.probe, &self.edges);
        self.worker.step_while(|| probe.less_than(edges.time()));
    }

    fn update(&mut self, (x, y): (u32, u32), diff: isize) {
        self.edges.update((N::of(x), N::of(y)), diff);
        self.run();
    }
}

/// The program's EDB and, for the hand-written dataflows, its edges and sources over dense
/// `u32` ids.
struct Workload {
    program: Arc<Program>,
    edb: Edb,
    edges: Vec<(u32, u32)>,
    sources: Vec<u32>,
    /// The edge facts of the sample, for `dd`, and the same edges for the hand-written.
    sample: Vec<(Fact, (u32, u32))>,
}

/// The EDB's edges and sources over dense `u32` ids (in the EDB's order), as a user of
/// differential-dataflow would prepare them for a hand-written program.
fn dense(program: &Program, edb: &Edb) -> (Vec<(u32, u32)>, Vec<u32>) {
    let mut ids: HashMap<i64, u32> = HashMap::new();
    let mut id = |v: i64| {
        let next = ids.len() as u32;
        *ids.entry(v).or_insert(next)
    };
    let edge = program.relation_id("edge").expect("edge");
    let edges = edb.relations[edge]
        .iter()
        .map(|t| (id(t[0]), id(t[1])))
        .collect();
    let sources = program
        .relation_id("source")
        .map(|s| edb.relations[s].iter().map(|t| id(t[0])).collect())
        .unwrap_or_default();
    (edges, sources)
}

fn workload(root: &Path, facts: &Path, program_name: &str) -> Workload {
    let path = root.join(format!("datasets/programs/{program_name}.dl"));
    let text = std::fs::read_to_string(&path).expect("program file");
    let mut symbols = Symbols::new();
    let program = Arc::new(
        load_program(
            &SourceFile::new(path.display().to_string(), text),
            &mut symbols,
        )
        .expect("program"),
    );
    let edb = read_facts_dir(facts, &program, &mut symbols).expect("facts");
    let edge = program.relation_id("edge").expect("edge");
    let edge_facts: Vec<Fact> = edb.facts().filter(|f| f.rel == edge).collect();
    let (edges, sources) = dense(&program, &edb);
    let mut state = 23;
    let sample = (0..20)
        .map(|_| {
            let i = (splitmix(&mut state) % edge_facts.len() as u64) as usize;
            (edge_facts[i].clone(), edges[i])
        })
        .collect();
    Workload {
        program,
        edb,
        edges,
        sources,
        sample,
    }
}

/// A `dd` engine with the model materialised, and the time from starting it to the model.
fn dd_engine(w: &Workload, records: Records) -> (DdEngine, Duration) {
    let config = DdConfig::threads(1).with_records(records);
    let t = Instant::now();
    let mut dd = DdEngine::start(w.program.clone(), config).expect("timely starts");
    dd.set_trace_facts(false);
    dd.materialise(&w.edb).expect("materialise");
    let time = t.elapsed();
    dd.settle().expect("settle");
    (dd, time)
}

/// Benchmarks `build`, which returns what it built (dropped untimed) and the time to time.
fn untimed_drop<T>(
    group: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    id: BenchmarkId,
    mut build: impl FnMut() -> (T, Duration),
) {
    group.bench_function(id, |b| {
        b.iter_custom(|iters| {
            (0..iters)
                .map(|_| {
                    let (built, time) = build();
                    drop(built);
                    time
                })
                .sum()
        })
    });
}

/// Deletes edge `i` of the sample and inserts it back with `dd`; the time of the half asked.
fn dd_cycle(dd: &mut DdEngine, fact: &Fact, delete: bool) -> Duration {
    let del = Batch {
        deletions: vec![fact.clone()],
        ..Batch::default()
    };
    let ins = Batch {
        insertions: vec![fact.clone()],
        ..Batch::default()
    };
    let t = Instant::now();
    dd.apply(&del).expect("delete");
    let deletion = t.elapsed();
    dd.settle().expect("settle");
    let t = Instant::now();
    dd.apply(&ins).expect("insert");
    let insertion = t.elapsed();
    dd.settle().expect("settle");
    if delete {
        deletion
    } else {
        insertion
    }
}

fn hand_cycle<N: Node>(hand: &mut Hand<N>, edge: (u32, u32), delete: bool) -> Duration {
    let t = Instant::now();
    hand.update(edge, -1);
    let deletion = t.elapsed();
    let t = Instant::now();
    hand.update(edge, 1);
    let insertion = t.elapsed();
    if delete {
        deletion
    } else {
        insertion
    }
}

/// Benchmarks `cycle(i)` for i = 1, 2, …: each call runs one delete-and-insert cycle on the
/// i-th edge of the sample and returns the time of the half the benchmark measures.
fn cycles(
    group: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    id: BenchmarkId,
    mut cycle: impl FnMut(usize) -> Duration,
) {
    let mut i = 0;
    group.bench_function(id, |b| {
        b.iter_custom(|iters| {
            (0..iters)
                .map(|_| {
                    i += 1;
                    cycle(i)
                })
                .sum()
        })
    });
}

fn bench(c: &mut Criterion) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let facts: PathBuf = std::env::var_os("DRED_BENCH_FACTS")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("datasets/go-mf/facts"));
    let label = facts
        .parent()
        .and_then(Path::file_name)
        .map_or("facts".into(), |s| s.to_string_lossy().into_owned());
    let mut group = c.benchmark_group(format!("dd_vs_hand_{label}"));
    for (program_name, rules) in [("tc_linear", Rules::TcLinear), ("reach", Rules::Reach)] {
        let w = workload(&root, &facts, program_name);
        group.sample_size(10);
        for (engine, records) in [("dd", Records::Narrowest), ("dd-general", Records::General)] {
            let id = BenchmarkId::new(format!("materialise/{engine}"), program_name);
            untimed_drop(&mut group, id, || dd_engine(&w, records));
        }
        if std::env::var_os("DRED_BENCH_PAIR").is_some() {
            // The fixed cost: workers started and dataflow built for an empty EDB.
            let empty = Workload {
                edb: Edb::empty(&w.program),
                program: w.program.clone(),
                edges: Vec::new(),
                sources: Vec::new(),
                sample: Vec::new(),
            };
            let id = BenchmarkId::new("materialise/dd-empty", program_name);
            untimed_drop(&mut group, id, || dd_engine(&empty, Records::Narrowest));
            // What `dd`'s materialisation pays before its dataflow sees a fact: reading the
            // EDB's tuples (the engine interface's `BTreeSet<Vec<i64>>` per relation) and
            // encoding them as records, as `dd`'s runtime does.
            let id = BenchmarkId::new("materialise/dd-input", program_name);
            untimed_drop(&mut group, id, || {
                let codes = Codes::default();
                let t = Instant::now();
                let records: Vec<(usize, [u32; 2], isize)> = w
                    .edb
                    .relations
                    .iter()
                    .enumerate()
                    .flat_map(|(rel, tuples)| tuples.iter().map(move |t| (rel, &t[..], 1)))
                    .map(|(rel, t, d)| (rel, <[u32; 2]>::encode(t, &codes).expect("codes"), d))
                    .collect();
                (records, t.elapsed())
            });
            // The hand-written program reading the same EDB as the engine: ids made dense
            // from the EDB's tuples, timed with it.
            let id = BenchmarkId::new("materialise/hand-from-edb", program_name);
            untimed_drop(&mut group, id, || {
                let t = Instant::now();
                let (edges, sources) = dense(&w.program, &w.edb);
                let hand = Hand::<u32>::new(rules, &edges, &sources);
                let time = t.elapsed();
                std::hint::black_box(hand.seen.get());
                (hand, time)
            });
            let id = BenchmarkId::new("materialise/hand-empty", program_name);
            untimed_drop(&mut group, id, || {
                let t = Instant::now();
                let hand = Hand::<u32>::new(rules, &[], &[]);
                (hand, t.elapsed())
            });
        }
        let id = BenchmarkId::new("materialise/hand", program_name);
        untimed_drop(&mut group, id, || {
            let t = Instant::now();
            let hand = Hand::<u32>::new(rules, &w.edges, &w.sources);
            let time = t.elapsed();
            std::hint::black_box(hand.seen.get());
            (hand, time)
        });
        if std::env::var_os("DRED_BENCH_PAIR").is_some() {
            let id = BenchmarkId::new("materialise/hand-pair", program_name);
            untimed_drop(&mut group, id, || {
                let t = Instant::now();
                let hand = Hand::<[u32; 2]>::new(rules, &w.edges, &w.sources);
                let time = t.elapsed();
                std::hint::black_box(hand.seen.get());
                (hand, time)
            });
        }
        let id = BenchmarkId::new("materialise/hand-row", program_name);
        untimed_drop(&mut group, id, || {
            let t = Instant::now();
            let hand = Hand::<EngineRow>::new(rules, &w.edges, &w.sources);
            let time = t.elapsed();
            std::hint::black_box(hand.seen.get());
            (hand, time)
        });
        group.sample_size(20);
        let mut dd = dd_engine(&w, Records::Narrowest).0;
        let mut dd_general = dd_engine(&w, Records::General).0;
        let mut hand = Hand::<u32>::new(rules, &w.edges, &w.sources);
        let mut hand_row = Hand::<EngineRow>::new(rules, &w.edges, &w.sources);
        for (half, delete) in [("delete", true), ("insert", false)] {
            let id = |engine: &str| BenchmarkId::new(format!("{half}/{engine}"), program_name);
            cycles(&mut group, id("dd"), |i| {
                dd_cycle(&mut dd, &w.sample[i % w.sample.len()].0, delete)
            });
            cycles(&mut group, id("dd-general"), |i| {
                dd_cycle(&mut dd_general, &w.sample[i % w.sample.len()].0, delete)
            });
            cycles(&mut group, id("hand"), |i| {
                hand_cycle(&mut hand, w.sample[i % w.sample.len()].1, delete)
            });
            cycles(&mut group, id("hand-row"), |i| {
                hand_cycle(&mut hand_row, w.sample[i % w.sample.len()].1, delete)
            });
        }
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
