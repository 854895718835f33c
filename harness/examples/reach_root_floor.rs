//! A floor for DRed on `reach_root`: the same three phases and the same over-deleted,
//! rederived and inserted sets as `dred`, hand-written for this one program over dense node
//! ids, adjacency arrays and flag vectors: no interning, hashing, indexes or rule
//! interpretation. It answers one question of issue 6's performance note: how much of
//! `dred`'s time on a batch is the algorithm's (the facts DRed must over-delete and rederive)
//! and how much is the engine's constant factor.
//!
//! It runs `dred`, `dd` (1 worker) and the floor side by side, batch by batch, on the
//! harness's own stream, and stops with exit code 1 if the floor's counts or model ever
//! differ from `dred`'s. With `--recompute` it also times the generic `recompute` engine
//! beside a floor for recomputation (one breadth-first search from the roots).
//!
//! ```text
//! cargo run --release -p harness --example reach_root_floor -- \
//!     --dataset 'gen:rmat?n=65536&m=262144&seed=1&dag=1' --seeds 1,2,3 --batches 20 \
//!     --report floor.csv
//! ```
//!
//! Only streams whose insertions re-insert edges of the initial EDB are supported (deletion
//! streams, reverted or not); the floor's adjacency arrays are built once.

use std::collections::HashMap;
use std::io::Write as _;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use anyhow::{bail, Context as _};
use clap::Parser;
use dred_core::{Batch, Edb, Engine, Program, RelId, Value};
use harness::charts::{scatter_chart, Series};
use harness::datasets;
use harness::engines::EngineKind;
use harness::inputs::read_inputs;
use harness::updates::{generate_stream, Stream, StreamSpec, UpdateKind};

#[derive(Parser)]
#[command(about = "Times dred, dd and a hand-written DRed floor for reach_root side by side")]
struct Args {
    /// A dataset name, as `sweep --datasets` takes it; repeat for several.
    #[arg(long = "dataset", required = true)]
    datasets: Vec<String>,
    /// The program; it must be `reach_root` (edge/2, root/1, reach/1).
    #[arg(long, default_value = "datasets/programs/reach_root.dl")]
    program: PathBuf,
    /// The kind of stream (`delete` or `bridge-delete`, say).
    #[arg(long, default_value = "delete")]
    kind: UpdateKind,
    /// Changes per batch.
    #[arg(long, default_value_t = 1)]
    size: usize,
    /// Stream seeds; one stream each.
    #[arg(long, value_delimiter = ',', default_value = "1,2,3")]
    seeds: Vec<u64>,
    /// Batches per stream, before reverts.
    #[arg(long, default_value_t = 20)]
    batches: usize,
    /// Do not follow every batch by its inverse.
    #[arg(long)]
    no_revert: bool,
    /// Also time `recompute` and a floor for recomputation.
    #[arg(long)]
    recompute: bool,
    /// Where to write one row per engine and batch (CSV; gzipped when the name ends in `.gz`).
    #[arg(long)]
    report: Option<PathBuf>,
    /// Draw every deleting batch's time against its over-deleted facts, all datasets
    /// together, to `<PLOT>.svg` and `<PLOT>.png`.
    #[arg(long)]
    plot: Option<PathBuf>,
}

/// The relation ids of `reach_root`.
struct Relations {
    edge: RelId,
    root: RelId,
    reach: RelId,
}

impl Relations {
    fn of(program: &Program) -> anyhow::Result<Relations> {
        let find = |name: &str, arity: usize| {
            program
                .relations
                .iter()
                .position(|r| r.name == name && r.types.len() == arity)
                .with_context(|| format!("the program has no relation `{name}` of arity {arity}"))
        };
        Ok(Relations {
            edge: find("edge", 2)?,
            root: find("root", 1)?,
            reach: find("reach", 1)?,
        })
    }
}

/// An edge of the initial EDB: its nodes, and its slots in the successor and predecessor
/// arrays.
#[derive(Clone, Copy)]
struct EdgeSlot {
    x: u32,
    y: u32,
    s: u32,
    p: u32,
}

/// What the floor did in one batch: the figures `dred` reports, to compare.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Counts {
    overdeleted: usize,
    rederived: usize,
    inserted: usize,
}

/// `reach_root` maintained by DRed over dense ids: `reach(x) :- root(x).` and
/// `reach(x) :- edge(x, y), reach(y).` Edges are slots of two adjacency arrays (successors
/// and predecessors) with a liveness flag each, built once: a batch allocates only the list
/// of the edges it changes.
struct Floor {
    ids: HashMap<Value, u32>,
    values: Vec<Value>,
    succ_start: Vec<u32>,
    succ: Vec<u32>,
    succ_alive: Vec<bool>,
    pred_start: Vec<u32>,
    pred: Vec<u32>,
    pred_alive: Vec<bool>,
    /// For each edge (x, y) of the initial EDB: its slot in `succ` and in `pred`.
    slots: HashMap<(u32, u32), (u32, u32)>,
    is_root: Vec<bool>,
    reach: Vec<bool>,
    overdeleted: Vec<bool>,
    frontier: Vec<u32>,
    removed: Vec<u32>,
}

impl Floor {
    fn new(edb: &Edb, rels: &Relations) -> Floor {
        let mut ids: HashMap<Value, u32> = HashMap::new();
        let mut values: Vec<Value> = Vec::new();
        let mut id = |v: Value| {
            *ids.entry(v).or_insert_with(|| {
                values.push(v);
                (values.len() - 1) as u32
            })
        };
        let edges: Vec<(u32, u32)> = edb.relations[rels.edge]
            .iter()
            .map(|t| (id(t[0]), id(t[1])))
            .collect();
        let roots: Vec<u32> = edb.relations[rels.root].iter().map(|t| id(t[0])).collect();
        let n = values.len();
        let starts = |key: &dyn Fn(&(u32, u32)) -> u32| {
            let mut start = vec![0u32; n + 1];
            for e in &edges {
                start[key(e) as usize + 1] += 1;
            }
            for i in 0..n {
                start[i + 1] += start[i];
            }
            start
        };
        let succ_start = starts(&|e| e.0);
        let pred_start = starts(&|e| e.1);
        let mut succ = vec![0u32; edges.len()];
        let mut pred = vec![0u32; edges.len()];
        let mut succ_fill = succ_start.clone();
        let mut pred_fill = pred_start.clone();
        let mut slots = HashMap::with_capacity(edges.len());
        for &(x, y) in &edges {
            let s = succ_fill[x as usize];
            succ_fill[x as usize] += 1;
            succ[s as usize] = y;
            let p = pred_fill[y as usize];
            pred_fill[y as usize] += 1;
            pred[p as usize] = x;
            slots.insert((x, y), (s, p));
        }
        let mut is_root = vec![false; n];
        for r in roots {
            is_root[r as usize] = true;
        }
        let mut floor = Floor {
            ids,
            values,
            succ_start,
            succ,
            succ_alive: vec![true; edges.len()],
            pred_start,
            pred,
            pred_alive: vec![true; edges.len()],
            slots,
            is_root,
            reach: vec![false; n],
            overdeleted: vec![false; n],
            frontier: Vec::new(),
            removed: Vec::new(),
        };
        floor.reach = floor.recompute();
        floor
    }

    /// Brings the edges' liveness to the batch's, without maintaining `reach`.
    fn set_edges(&mut self, batch: &Batch) -> anyhow::Result<()> {
        for (facts, alive) in [(&batch.deletions, false), (&batch.insertions, true)] {
            for f in facts {
                let e = self.slot(&f.tuple)?;
                self.succ_alive[e.s as usize] = alive;
                self.pred_alive[e.p as usize] = alive;
            }
        }
        Ok(())
    }

    /// The edge (x, y) and its slots in `succ` and `pred`.
    fn slot(&self, t: &[Value]) -> anyhow::Result<EdgeSlot> {
        let id = |v: &Value| self.ids.get(v).copied();
        match (id(&t[0]), id(&t[1])) {
            (Some(x), Some(y)) => self
                .slots
                .get(&(x, y))
                .map(|&(s, p)| EdgeSlot { x, y, s, p })
                .context("an inserted edge is not in the initial EDB: not supported"),
            _ => bail!("an edge names a node outside the initial EDB: not supported"),
        }
    }

    /// Pops `frontier` until empty, offering `pick` every predecessor x of a popped node
    /// through a live edge and pushing those it accepts; returns how many it accepted.
    fn close_over_predecessors(&mut self, mut pick: impl FnMut(&mut Floor, u32) -> bool) -> usize {
        let mut added = 0;
        while let Some(z) = self.frontier.pop() {
            let (lo, hi) = (self.pred_start[z as usize], self.pred_start[z as usize + 1]);
            for p in lo..hi {
                if !self.pred_alive[p as usize] {
                    continue;
                }
                let x = self.pred[p as usize];
                if pick(self, x) {
                    self.frontier.push(x);
                    added += 1;
                }
            }
        }
        added
    }

    // Kept out of line so that profilers can collect it alone (`--toggle-collect`).
    #[inline(never)]
    fn apply(&mut self, batch: &Batch, rels: &Relations) -> anyhow::Result<Counts> {
        let mut deleted = Vec::new();
        let mut inserted = Vec::new();
        for f in &batch.deletions {
            if f.rel != rels.edge {
                bail!("only edges may change");
            }
            deleted.push(self.slot(&f.tuple)?);
        }
        for f in &batch.insertions {
            if f.rel != rels.edge {
                bail!("only edges may change");
            }
            inserted.push(self.slot(&f.tuple)?);
        }
        // Phase 1: D- is every reach(x) with a deleted edge (x, y) and reach(y) old.
        self.removed.clear();
        for &EdgeSlot { x, y, .. } in &deleted {
            if self.reach[y as usize] && self.reach[x as usize] && !self.overdeleted[x as usize] {
                self.overdeleted[x as usize] = true;
                self.removed.push(x);
                self.frontier.push(x);
            }
        }
        let mut removed = std::mem::take(&mut self.removed);
        // Phase 1 walks the old relations: this batch's deleted edges are still live here.
        self.close_over_predecessors(|f, x| {
            if f.reach[x as usize] && !f.overdeleted[x as usize] {
                f.overdeleted[x as usize] = true;
                removed.push(x);
                true
            } else {
                false
            }
        });
        let overdeleted = removed.len();
        for &EdgeSlot { s, p, .. } in &deleted {
            self.succ_alive[s as usize] = false;
            self.pred_alive[p as usize] = false;
        }
        for &x in &removed {
            self.reach[x as usize] = false;
        }
        // Phase 2: a fact returns if a root or a surviving successor proves it; what returns
        // proves its over-deleted predecessors in turn (the rounds, as one worklist).
        for &x in &removed {
            let (lo, hi) = (self.succ_start[x as usize], self.succ_start[x as usize + 1]);
            let proved = self.is_root[x as usize]
                || (lo..hi).any(|s| {
                    self.succ_alive[s as usize] && self.reach[self.succ[s as usize] as usize]
                });
            if proved && !self.reach[x as usize] {
                self.reach[x as usize] = true;
                self.frontier.push(x);
            }
        }
        let seeded = self.frontier.len();
        let rederived = seeded
            + self.close_over_predecessors(|f, x| {
                if f.overdeleted[x as usize] && !f.reach[x as usize] {
                    f.reach[x as usize] = true;
                    true
                } else {
                    false
                }
            });
        for &x in &removed {
            self.overdeleted[x as usize] = false;
        }
        self.removed = removed;
        // Phase 3: semi-naive over the inserted edges.
        for &EdgeSlot { s, p, .. } in &inserted {
            self.succ_alive[s as usize] = true;
            self.pred_alive[p as usize] = true;
        }
        let mut added = 0;
        for &EdgeSlot { x, y, .. } in &inserted {
            if self.reach[y as usize] && !self.reach[x as usize] {
                self.reach[x as usize] = true;
                self.frontier.push(x);
                added += 1;
            }
        }
        added += self.close_over_predecessors(|f, x| {
            if f.reach[x as usize] {
                false
            } else {
                f.reach[x as usize] = true;
                true
            }
        });
        Ok(Counts {
            overdeleted,
            rederived,
            inserted: added,
        })
    }

    /// The model from scratch: one search from the roots over live predecessor edges.
    fn recompute(&mut self) -> Vec<bool> {
        let mut reach = vec![false; self.values.len()];
        self.frontier.clear();
        for (x, &r) in self.is_root.iter().enumerate() {
            if r {
                reach[x] = true;
                self.frontier.push(x as u32);
            }
        }
        while let Some(z) = self.frontier.pop() {
            let (lo, hi) = (self.pred_start[z as usize], self.pred_start[z as usize + 1]);
            for p in lo..hi {
                let x = self.pred[p as usize];
                if self.pred_alive[p as usize] && !reach[x as usize] {
                    reach[x as usize] = true;
                    self.frontier.push(x);
                }
            }
        }
        reach
    }

    fn model(&self) -> Vec<Value> {
        let mut m: Vec<Value> = (0..self.values.len())
            .filter(|&x| self.reach[x])
            .map(|x| self.values[x])
            .collect();
        m.sort_unstable();
        m
    }
}

/// One timed call.
struct Row {
    seed: u64,
    batch: usize,
    deletes: bool,
    engine: &'static str,
    ns: u128,
    overdeleted: Option<usize>,
}

/// The median, NaN for none (printed as such).
fn median(v: Vec<f64>) -> f64 {
    harness::stats::median(v).unwrap_or(f64::NAN)
}

/// Runs `kinds` (which must include `dred`), the floor and, with `recompute_floor`, the floor
/// for recomputation over one stream, batch by batch, timing each call into `rows`. Returns
/// a disagreement between the floor and `dred` (counts or model) if there is one.
#[allow(clippy::too_many_arguments)]
fn compare_stream(
    program: &Arc<Program>,
    rels: &Relations,
    edb: &Edb,
    stream: &Stream,
    kinds: &[EngineKind],
    recompute_floor: bool,
    seed: u64,
    rows: &mut Vec<Row>,
    after_batch: &mut dyn FnMut(),
) -> anyhow::Result<Option<String>> {
    let dred = kinds
        .iter()
        .position(|&k| k == EngineKind::Dred)
        .context("the floor is checked against dred: it must run")?;
    let cluster = dd_baseline::Cluster::single();
    let mut engines: Vec<Box<dyn Engine>> = kinds
        .iter()
        .map(|k| k.build(program.clone(), 1, &cluster))
        .collect();
    for e in &mut engines {
        // As in the harness's timed runs: rounds report their sizes, not their facts.
        e.set_trace_facts(false);
        e.materialise(edb)?;
        e.settle()?;
    }
    let mut floor = Floor::new(edb, rels);
    // Recomputation runs on its own copy, whose edges follow the stream untimed, so that it
    // always recomputes the batch's new model wherever it comes in the rotation.
    let mut floor_rc = Floor::new(edb, rels);
    let mut edb = edb.clone();
    for (i, requested) in stream.requested_batches().iter().enumerate() {
        let batch = Batch::normalise(requested, &edb);
        edb.apply(&batch);
        let batch_no = i + 1;
        let deletes = !batch.deletions.is_empty();
        // Callers: the engines, then the floor, then its recomputation; each batch starts
        // with the next one, as the harness rotates engines.
        let callers = engines.len() + 1 + usize::from(recompute_floor);
        let mut dred_counts = None;
        let mut floor_counts = None;
        for k in 0..callers {
            let c = (batch_no + k) % callers;
            std::hint::black_box(Vec::<u8>::with_capacity(1 << 16));
            let (engine, ns, overdeleted) = if c < engines.len() {
                let t = Instant::now();
                let rep = engines[c].apply(&batch)?;
                let ns = t.elapsed().as_nanos();
                engines[c].settle()?;
                if c == dred {
                    dred_counts = Some(Counts {
                        overdeleted: rep.overdeleted.unwrap_or_default(),
                        rederived: rep.rederived.unwrap_or_default(),
                        inserted: rep.inserted.unwrap_or_default(),
                    });
                }
                (kinds[c].name(), ns, rep.overdeleted)
            } else if c == engines.len() {
                let t = Instant::now();
                let counts = floor.apply(&batch, rels)?;
                let ns = t.elapsed().as_nanos();
                floor_counts = Some(counts);
                ("floor", ns, Some(counts.overdeleted))
            } else {
                floor_rc.set_edges(&batch)?;
                let t = Instant::now();
                floor_rc.reach = std::hint::black_box(floor_rc.recompute());
                ("floor_recompute", t.elapsed().as_nanos(), None)
            };
            rows.push(Row {
                seed,
                batch: batch_no,
                deletes,
                engine,
                ns,
                overdeleted,
            });
        }
        if dred_counts != floor_counts {
            return Ok(Some(format!(
                "seed {seed}, batch {batch_no}: dred {dred_counts:?}, floor {floor_counts:?}"
            )));
        }
        let dred_model: Vec<Value> = engines[dred].model().relations[rels.reach]
            .iter()
            .map(|t| t[0])
            .collect();
        if dred_model != floor.model() {
            return Ok(Some(format!(
                "seed {seed}, batch {batch_no}: the floor's reach differs from dred's"
            )));
        }
        if recompute_floor && floor_rc.reach != floor.reach {
            return Ok(Some(format!(
                "seed {seed}, batch {batch_no}: the floor's reach differs from its recomputation"
            )));
        }
        after_batch();
    }
    Ok(None)
}

/// Prints one dataset's medians over its deleting batches, and the medians of the per-batch
/// ratios (each batch against itself).
fn summarise(dataset: &str, rows: &[&Row], names: &[&str]) {
    let of = |engine: &str| -> HashMap<(u64, usize), f64> {
        rows.iter()
            .filter(|r| r.deletes && r.engine == engine)
            .map(|r| ((r.seed, r.batch), r.ns as f64 / 1000.0))
            .collect()
    };
    let ods: Vec<f64> = rows
        .iter()
        .filter(|r| r.deletes && r.engine == "floor")
        .map(|r| r.overdeleted.unwrap_or_default() as f64)
        .collect();
    println!(
        "{dataset}: {} deleting batches, median over-deleted {}",
        ods.len(),
        median(ods)
    );
    for name in names {
        println!(
            "  {name:>16}: median {:>10.1} µs",
            median(of(name).into_values().collect())
        );
    }
    let ratio = |a: &str, b: &str| {
        let (a, b) = (of(a), of(b));
        median(
            a.iter()
                .filter_map(|(k, x)| b.get(k).map(|y| x / y))
                .collect(),
        )
    };
    println!(
        "  median per-batch ratios: dred/dd {:.3}, floor/dd {:.3}, dred/floor {:.1}",
        ratio("dred", "dd"),
        ratio("floor", "dd"),
        ratio("dred", "floor")
    );
    if names.contains(&"recompute") {
        println!(
            "  recompute/dred {:.1}, floor_recompute/floor {:.1}, recompute/floor_recompute {:.1}",
            ratio("recompute", "dred"),
            ratio("floor_recompute", "floor"),
            ratio("recompute", "floor_recompute")
        );
    }
}

/// Exit codes as `dredbench`'s: 0 agreement, 1 the floor disagrees with `dred`, 2 bad input
/// or usage (an unknown dataset, a program that is not `reach_root`, an unsupported stream).
fn main() {
    let args = Args::parse();
    match run(&args) {
        Ok(true) => {}
        Ok(false) => std::process::exit(1),
        Err(e) => {
            eprintln!("error: {e:#}");
            std::process::exit(2);
        }
    }
}

/// Runs every dataset's streams; false when the floor disagreed with `dred` (said on stderr).
fn run(args: &Args) -> anyhow::Result<bool> {
    let mut kinds = vec![EngineKind::Dred, EngineKind::Dd];
    if args.recompute {
        kinds.push(EngineKind::Recompute);
    }
    let mut names: Vec<&str> = kinds.iter().map(|k| k.name()).collect();
    names.push("floor");
    if args.recompute {
        names.push("floor_recompute");
    }
    let per_stream = args.batches * if args.no_revert { 1 } else { 2 };
    let total = args.datasets.len() * args.seeds.len() * per_stream;
    let progress = harness::cases::progress_bar(total as u64);
    let mut rows: Vec<Vec<Row>> = Vec::new();
    for dataset in &args.datasets {
        let dir = datasets::resolve(dataset).map_err(|e| anyhow::anyhow!("{dataset}: {e}"))?;
        let inputs =
            read_inputs(&args.program, &dir, None, None).map_err(|e| anyhow::anyhow!("{e}"))?;
        let program = inputs.program.clone();
        let rels = Relations::of(&program)?;
        let mut of_dataset = Vec::new();
        for &seed in &args.seeds {
            let spec = StreamSpec {
                kind: args.kind,
                size: args.size,
                batches: args.batches,
                seed,
                relation: Some("edge".into()),
                revert: !args.no_revert,
                to: None,
            };
            let stream = generate_stream(&program, &inputs.symbols, &inputs.edb, &spec)
                .map_err(|e| anyhow::anyhow!("stream: {e}"))?;
            let disagreement = compare_stream(
                &program,
                &rels,
                &inputs.edb,
                &stream,
                &kinds,
                args.recompute,
                seed,
                &mut of_dataset,
                &mut || progress.inc(1),
            )?;
            if let Some(d) = disagreement {
                progress.finish_and_clear();
                eprintln!("{dataset}: {d}");
                return Ok(false);
            }
        }
        rows.push(of_dataset);
    }
    progress.finish_and_clear();
    if let Some(path) = &args.report {
        let mut out = Vec::new();
        writeln!(
            out,
            "dataset,git_rev,seed,batch,deletes,engine,ns,overdeleted"
        )?;
        let rev = harness::provenance::git_revision();
        for (dataset, rows) in args.datasets.iter().zip(&rows) {
            for r in rows {
                let od = r.overdeleted.map(|n| n.to_string()).unwrap_or_default();
                writeln!(
                    out,
                    "\"{dataset}\",{rev},{},{},{},{},{},{od}",
                    r.seed, r.batch, r.deletes, r.engine, r.ns
                )?;
            }
        }
        // Gzipped like the harness's reports when the name ends in `.gz`, so that the
        // committed floor runs (`floor-*.csv.gz`) are reproduced under their own names.
        if harness::report::is_gzip_name(path) {
            let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
            gz.write_all(&out)?;
            out = gz.finish()?;
        }
        dred_core::io::write_atomic(path, &out)
            .with_context(|| format!("writing {}", path.display()))?;
    }
    for (dataset, rows) in args.datasets.iter().zip(&rows) {
        summarise(dataset, &rows.iter().collect::<Vec<_>>(), &names);
    }
    if let Some(stem) = &args.plot {
        // Every deleting batch of every dataset: time against the facts DRed over-deleted
        // (+ 1, for the log scale), one series per caller.
        let series: Vec<Series> =
            names
                .iter()
                .map(|&name| {
                    let mut points: Vec<(f64, f64)> = Vec::new();
                    for rows in &rows {
                        let over: HashMap<(u64, usize), usize> = rows
                            .iter()
                            .filter(|r| r.engine == "floor")
                            .filter_map(|r| Some(((r.seed, r.batch), r.overdeleted?)))
                            .collect();
                        points.extend(rows.iter().filter(|r| r.deletes && r.engine == name).map(
                            |r| {
                                let o = over[&(r.seed, r.batch)];
                                (o as f64 + 1.0, (r.ns as f64 / 1000.0).max(0.1))
                            },
                        ));
                    }
                    points.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.total_cmp(&b.1)));
                    Series {
                        name: name.to_string(),
                        points,
                    }
                })
                .collect();
        let files = scatter_chart(
            stem,
            "reach_root deletions: dred, dd and a hand-written DRed (floor)",
            "facts over-deleted + 1",
            "batch time (µs)",
            &series,
        )?;
        for f in files {
            println!("wrote {}", f.display());
        }
    }
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;
    use harness::datasets::{resolve_in, Locations};

    /// A cyclic R-MAT graph, its inputs for `program`, and the relations of `reach_root`.
    fn inputs(cache: &std::path::Path, program: &std::path::Path) -> harness::inputs::Inputs {
        let loc = Locations::with_cache(Some(cache));
        let dir = resolve_in("gen:rmat?n=300&m=1500&seed=7", &loc).expect("generated");
        read_inputs(program, &dir, None, None).expect("inputs")
    }

    fn stream(inputs: &harness::inputs::Inputs, spec: StreamSpec) -> Stream {
        generate_stream(&inputs.program, &inputs.symbols, &inputs.edb, &spec).expect("stream")
    }

    /// Runs `compare_stream` over one stream with `dred` alone; its disagreement, if any.
    fn check(
        inputs: &harness::inputs::Inputs,
        spec: StreamSpec,
        recompute_floor: bool,
        rows: &mut Vec<Row>,
    ) -> Option<String> {
        let rels = Relations::of(&inputs.program).expect("reach_root's relations");
        let stream = stream(inputs, spec);
        compare_stream(
            &inputs.program,
            &rels,
            &inputs.edb,
            &stream,
            &[EngineKind::Dred],
            recompute_floor,
            1,
            rows,
            &mut || {},
        )
        .expect("runs")
    }

    fn spec(kind: UpdateKind, size: usize, seed: u64, revert: bool) -> StreamSpec {
        StreamSpec {
            kind,
            size,
            batches: 12,
            seed,
            relation: Some("edge".into()),
            revert,
            to: None,
        }
    }

    #[test]
    fn the_floor_over_deletes_and_rederives_what_dred_does() {
        let cache = tempfile::tempdir().expect("tempdir");
        let program =
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../datasets/programs/reach_root.dl");
        let inputs = inputs(cache.path(), &program);
        let mut rows = Vec::new();
        for s in [
            spec(UpdateKind::Delete, 1, 1, true),
            spec(UpdateKind::Delete, 40, 2, false),
            spec(UpdateKind::SccDelete, 3, 3, true),
        ] {
            assert_eq!(check(&inputs, s, true, &mut rows), None);
        }
        let overdeleted: usize = rows
            .iter()
            .filter(|r| r.engine == "floor")
            .filter_map(|r| r.overdeleted)
            .sum();
        assert!(overdeleted > 100, "the streams over-delete ({overdeleted})");
        // Reverted streams have 24 batches, the other 12.
        let batches = 24 + 12 + 24;
        assert_eq!(
            rows.iter()
                .filter(|r| r.engine == "floor_recompute")
                .count(),
            batches
        );
    }

    #[test]
    fn a_program_that_is_not_reach_root_is_caught() {
        // Reachability the other way round: same relations, other rules; the floor's counts
        // or model must then differ from dred's.
        let cache = tempfile::tempdir().expect("tempdir");
        let program = cache.path().join("forward.dl");
        std::fs::write(
            &program,
            ".decl edge(x: symbol, y: symbol)\n.decl root(x: symbol)\n.decl reach(x: symbol)\n\
             .input edge\n.input root\n.output reach\n\
             reach(x) :- root(x).\nreach(y) :- reach(x), edge(x, y).\n",
        )
        .expect("written");
        let inputs = inputs(cache.path(), &program);
        let disagreement = check(
            &inputs,
            spec(UpdateKind::Delete, 40, 2, false),
            false,
            &mut Vec::new(),
        );
        assert!(disagreement.is_some());
    }
}
