//! The machine's calibration, which travels with every study: linear transitive closure of a
//! shipped graph (GO MF) computed by `recompute` and by datafrog, side by side, their times
//! alternating over a few runs. Every speedup a study publishes divides by `recompute`'s time,
//! and how fast `recompute` is against a well-known engine depends on the machine (its memory
//! more than its clock: issue 43 measured 0.8–1.0× on one machine and 1.3–2.3× on another with
//! the same binary). The ratio is printed in the study's summary and the findings, written
//! beside the report (`calibration.csv`), and `dredbench regress` fails past
//! [`RATIO_LIMIT`].

use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use anyhow::Context as _;
use dred_core::{load_program, Evaluator, SourceFile, Symbols};

/// The graph the calibration closes, a shipped dataset.
pub const GRAPH: &str = "go-mf";
/// The program, as shipped in `datasets/programs/tc_linear.dl`.
const PROGRAM: &str = include_str!("../../datasets/programs/tc_linear.dl");
/// Alternating runs of each engine (pairs, back to back); 0.4 s on GO MF.
pub const RUNS: usize = 21;
/// `regress` fails when `recompute` takes more than this many times datafrog's time: the
/// speedups of such a machine overstate what an incremental engine gains.
pub const RATIO_LIMIT: f64 = 1.5;
/// The file beside a study's report.
pub const FILE: &str = "calibration.csv";

/// One calibration: the graph, its closure's size, and the median times of both engines.
#[derive(Clone, Debug, PartialEq)]
pub struct Calibration {
    /// Dataset closed.
    pub graph: String,
    /// Its edges.
    pub edges: usize,
    /// Paths in its closure (both engines found as many).
    pub paths: usize,
    /// Runs of each engine.
    pub runs: usize,
    /// Median time of one evaluation by `recompute`, ns.
    pub recompute_ns: u64,
    /// Median time of one evaluation by datafrog, ns.
    pub datafrog_ns: u64,
    /// The median over the pairs of runs of `recompute`'s time over datafrog's: each pair
    /// runs back to back, so a machine slowed for a while slows both (on a shared machine
    /// the ratio of the medians of 7 runs read 1.02, 1.48 and 1.04 in three studies).
    pub ratio: f64,
}

impl Calibration {
    /// `recompute`'s time over datafrog's, the median over pairs of runs.
    pub fn ratio(&self) -> f64 {
        self.ratio
    }

    /// The sentence a summary prints.
    pub fn line(&self) -> String {
        format!(
            "Calibration: on this machine `recompute` takes {:.2}× datafrog's time on linear \
             transitive closure of {} ({} edges, {} paths; the median ratio of {} pairs of runs, \
             medians {:.1} against {:.1} ms): speedups against `recompute` read accordingly{}.",
            self.ratio(),
            self.graph,
            self.edges,
            self.paths,
            self.runs,
            self.recompute_ns as f64 / 1e6,
            self.datafrog_ns as f64 / 1e6,
            if self.ratio() > RATIO_LIMIT {
                format!(" (past {RATIO_LIMIT}×: `dredbench regress` fails on this machine)")
            } else {
                String::new()
            }
        )
    }

    /// Writes the calibration as a one-row CSV into `dir` ([`FILE`]), atomically.
    pub fn write(&self, dir: &Path) -> anyhow::Result<()> {
        let mut w = csv::Writer::from_writer(Vec::new());
        w.write_record([
            "graph",
            "edges",
            "paths",
            "runs",
            "recompute_ns",
            "datafrog_ns",
            "ratio",
        ])?;
        w.write_record([
            self.graph.clone(),
            self.edges.to_string(),
            self.paths.to_string(),
            self.runs.to_string(),
            self.recompute_ns.to_string(),
            self.datafrog_ns.to_string(),
            self.ratio.to_string(),
        ])?;
        let path = dir.join(FILE);
        dred_core::io::write_atomic(&path, &w.into_inner()?)
            .with_context(|| format!("writing {}", path.display()))
    }

    /// The calibration written into `dir`, if there is one; an error when the file is there
    /// but not one.
    pub fn read(dir: &Path) -> anyhow::Result<Option<Calibration>> {
        let path = dir.join(FILE);
        if !path.exists() {
            return Ok(None);
        }
        let bad = || format!("{}: not a calibration written by dredbench", path.display());
        let mut r = csv::Reader::from_path(&path).with_context(bad)?;
        let row = r
            .records()
            .next()
            .ok_or_else(|| anyhow::anyhow!(bad()))?
            .with_context(bad)?;
        let field = |i: usize| row.get(i).ok_or_else(|| anyhow::anyhow!(bad()));
        let number = |i: usize| -> anyhow::Result<u64> { field(i)?.parse().with_context(bad) };
        Ok(Some(Calibration {
            graph: field(0)?.to_string(),
            edges: number(1)? as usize,
            paths: number(2)? as usize,
            runs: number(3)? as usize,
            recompute_ns: number(4)?,
            datafrog_ns: number(5)?,
            ratio: field(6)?.parse().with_context(bad)?,
        }))
    }
}

/// Linear TC by datafrog, from edges as dense codes: the number of paths.
fn datafrog_tc(edges: &[(u32, u32)]) -> usize {
    use datafrog::{Iteration, Relation};
    let mut iteration = Iteration::new();
    // edge indexed by its source: (y, z); path indexed by its target: (y, x).
    let edge_by_src: Relation<(u32, u32)> = edges.iter().copied().collect();
    let path_by_dst = iteration.variable::<(u32, u32)>("path_by_dst");
    path_by_dst.extend(edges.iter().map(|&(x, y)| (y, x)));
    while iteration.changed() {
        // path(x, z) :- path(x, y), edge(y, z).
        path_by_dst.from_join(&path_by_dst, &edge_by_src, |_y, &x, &z| (z, x));
    }
    path_by_dst.complete().len()
}

fn median<T: PartialOrd + Copy>(mut v: Vec<T>) -> T {
    v.sort_unstable_by(|a, b| a.partial_cmp(b).expect("no NaN"));
    v[v.len() / 2]
}

/// Measures the calibration on [`GRAPH`] (resolved as every dataset is): `runs` evaluations
/// of each engine, alternating, after one of each that checks they agree.
pub fn measure(runs: usize) -> anyhow::Result<Calibration> {
    measure_on(GRAPH, runs)
}

/// [`measure`] on any graph dataset (`dredbench calibrate --dataset NAME`): its `edge.facts`
/// closed by `tc_linear.dl`.
pub fn measure_on(graph: &str, runs: usize) -> anyhow::Result<Calibration> {
    let facts = crate::datasets::resolve(graph).map_err(|e| anyhow::anyhow!("calibration: {e}"))?;
    let mut symbols = Symbols::new();
    let program = load_program(&SourceFile::new("tc_linear.dl", PROGRAM), &mut symbols)
        .map_err(|d| anyhow::anyhow!("calibration: {}", d.render()))?;
    let program = Arc::new(program);
    let edb = dred_core::io::read_facts_dir(&facts, &program, &mut symbols)
        .map_err(|e| anyhow::anyhow!("calibration: {e}"))?;
    let edge = program
        .relation_id("edge")
        .context("tc_linear declares edge")?;
    let path = program
        .relation_id("path")
        .context("tc_linear declares path")?;
    let code = |v: i64| u32::try_from(v).context("a symbol's code fits 32 bits");
    let edges: Vec<(u32, u32)> = edb.relations[edge]
        .iter()
        .map(|t| Ok((code(t[0])?, code(t[1])?)))
        .collect::<anyhow::Result<_>>()?;
    let mut evaluator = Evaluator::new(program.clone());
    let rows = || edb.relations[edge].iter().map(|t| (edge, t.as_slice()));
    evaluator.evaluate(rows());
    let paths = evaluator.relations()[path].len();
    let theirs = datafrog_tc(&edges);
    anyhow::ensure!(
        paths == theirs,
        "calibration: recompute found {paths} paths of {graph} and datafrog {theirs}"
    );
    let (mut ours, mut frog) = (Vec::new(), Vec::new());
    for _ in 0..runs.max(1) {
        let t = Instant::now();
        evaluator.evaluate(rows());
        ours.push(t.elapsed().as_nanos() as u64);
        let t = Instant::now();
        std::hint::black_box(datafrog_tc(&edges));
        frog.push(t.elapsed().as_nanos() as u64);
    }
    let ratios: Vec<f64> = ours
        .iter()
        .zip(&frog)
        .map(|(&a, &b)| a as f64 / b.max(1) as f64)
        .collect();
    Ok(Calibration {
        graph: graph.to_string(),
        edges: edges.len(),
        paths,
        runs: ours.len(),
        recompute_ns: median(ours),
        datafrog_ns: median(frog),
        ratio: median(ratios),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Both engines close GO MF to the same paths, the calibration reads back as written, and
    /// its line names the ratio (and the limit when past it).
    #[test]
    fn the_calibration_measures_writes_and_reads_back() {
        let c = measure(1).expect("calibration");
        assert!(c.edges > 0 && c.paths >= c.edges, "{c:?}");
        assert!(c.recompute_ns > 0 && c.datafrog_ns > 0);
        let dir = tempfile::tempdir().expect("tmp");
        assert_eq!(Calibration::read(dir.path()).expect("none"), None);
        c.write(dir.path()).expect("write");
        assert_eq!(
            Calibration::read(dir.path()).expect("read"),
            Some(c.clone())
        );
        assert!(c.line().contains(&format!("{:.2}× datafrog", c.ratio())));
        let slow = Calibration { ratio: 2.0, ..c };
        assert!(slow.line().contains("regress` fails"), "{}", slow.line());
        std::fs::write(dir.path().join(FILE), "graph\n").expect("write");
        assert!(Calibration::read(dir.path()).is_err());
    }
}
