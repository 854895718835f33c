//! The findings of a full study (`dredbench study --full`): from its report and the graphs'
//! shapes, the figures a reader of the field asks for, computed and never typed by hand.
//!
//! - per case, over its *forward* batches (in a reverted stream the odd ones, each starting
//!   from the original EDB; the even ones only undo them): DRed's over-deletion ratio
//!   (over-deleted / net removed, a batch that removed nothing counting as 1), its work
//!   amplification ((over-deleted + rederived + inserted) / net change, likewise), each
//!   engine's time and the per-batch ratio of recomputation's time to it, `bf`'s time
//!   against `dred`'s;
//! - the crossover: the change size at which recomputing becomes as cheap as an engine,
//!   interpolated log–log between the two measured sizes around it ([`crossover`]);
//! - which graph properties predict a large over-deletion: Spearman's rank correlation over
//!   the random-deletion cases ([`spearman`]);
//! - the A/A check of the cases that ran a second `dred` (`dred@2`): per batch, its time over
//!   the first's, over all the case's batches; a case whose median leaves [0.9, 1.1] has its
//!   time ratios marked ⚠ (unreliable) in every table.
//!
//! [`render`] fills a template with these figures: `{{table:NAME}}`, `{{value:NAME}}` and
//! `{{figure:NAME}}` placeholders; an unknown name is an error, so no figure is silently
//! left out.

pub mod analyses;
pub mod auto;
pub mod families;
pub mod plots;

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use crate::datasets::shape::Shape;
use crate::report::ReportRow;
use crate::stats::{median, AaCheck, Spread};

/// The engines the findings compare, in table order; recomputation is the line to beat.
pub const ENGINES: [&str; 3] = ["dred", "bf", "dd"];
/// The baseline engine.
pub const RECOMPUTE: &str = "recompute";

/// The figures of one case (dataset, program, stream) over its forward batches.
#[derive(Clone, Debug)]
pub struct CaseFigures {
    /// Dataset name.
    pub dataset: String,
    /// Program stem.
    pub program: String,
    /// Kind, with the relation when not the default (`delete:part_of`).
    pub kind: String,
    /// Requested change size.
    pub size: usize,
    /// Forward batches summarised.
    pub batches: usize,
    /// Forward batches on which `dred`'s phase 1 saturated (report column `saturated`):
    /// there it stopped and recomputed the level, and `overdeleted` counts the level's whole
    /// old content, a figure of the engine's policy rather than of DRed's over-deletion. They
    /// are left out of `overdeletion`, `amplification` and `overdeleted`.
    pub saturated: usize,
    /// DRed's over-deleted / net removed, per batch (batches that saturated left out).
    pub overdeletion: Option<Spread>,
    /// (over-deleted + rederived + inserted) / net change, per batch.
    pub amplification: Option<Spread>,
    /// Facts DRed over-deleted per batch.
    pub overdeleted: Option<Spread>,
    /// IDB facts really removed per batch.
    pub removed: Option<Spread>,
    /// IDB size before the stream.
    pub model_size: usize,
    /// Time per batch, µs, per engine (recomputation included).
    pub time: BTreeMap<String, Spread>,
    /// Per batch, recomputation's time / the engine's, per engine.
    pub speedup: BTreeMap<String, Spread>,
    /// Per batch, `bf`'s time / `dred`'s.
    pub bf_over_dred: Option<Spread>,
    /// Facts `bf` checked per batch.
    pub bf_checked: Option<Spread>,
    /// The A/A check (`dred@2` / `dred`, every batch after materialisation), if the case ran
    /// the pair.
    pub aa: Option<AaCheck>,
    /// Per engine, over every batch after materialisation (inverse batches of a reverted
    /// stream included, so that no slow batch is left out): the worst ratio of its time to
    /// recomputation's on the same batch, and how many batches passed
    /// [`COLLAPSE_FACTOR`](crate::summary::COLLAPSE_FACTOR) times it, of how many.
    pub worst: BTreeMap<String, Worst>,
}

/// An engine's slowest batch of a case against recomputation on the same batch.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Worst {
    /// The largest engine / recompute time ratio over the case's batches.
    pub ratio: f64,
    /// Batches whose ratio is above [`COLLAPSE_FACTOR`](crate::summary::COLLAPSE_FACTOR).
    pub collapsed: usize,
    /// Batches with both times.
    pub batches: usize,
}

impl CaseFigures {
    /// Whether the case's time ratios are flagged: its A/A pair reads outside [0.9, 1.1].
    pub fn unreliable(&self) -> bool {
        self.aa.is_some_and(|a| !a.reliable())
    }
}

/// A study's report, grouped into cases.
#[derive(Clone, Debug, Default)]
pub struct Findings {
    /// Cases without an error, in report order.
    pub cases: Vec<CaseFigures>,
    /// Cases with an error row: (dataset, program, stream, the first error).
    pub failed: Vec<(String, String, String, String)>,
    /// The graphs' shapes.
    pub shapes: Vec<Shape>,
    /// Revisions the rows came from.
    pub revisions: BTreeSet<String>,
    /// Rows read.
    pub rows: usize,
    /// The batches past the run's per-batch time limit (`time_limit_ns`; their engines were
    /// not run on the rest of the case) or, in a run without one, past the full study's
    /// ([`crate::full_study::BATCH_LIMIT_S`]), each as "engine on dataset / program /
    /// stream, batch N (T s > L s)".
    pub over_limit: Vec<String>,
    /// The deleting batches that ran `auto` beside `dred`, `bf` and `recompute`.
    pub auto: Vec<auto::AutoBatch>,
    /// The batches with `dred`, `bf`, `counting`, `dd` and `recompute` side by side.
    pub families: Vec<families::FamilyBatch>,
    /// The program analyses' shapes (`workloads.csv`); their cases are the analyses
    /// ([`analyses::is_analysis`]).
    pub workloads: Vec<crate::datasets::workload::WorkloadShape>,
}

/// Whether a batch of a stream is a forward one (not the inverse of the one before it).
pub fn forward(stream: &str, batch: usize) -> bool {
    batch >= 1 && (!stream.ends_with("-revert") || batch % 2 == 1)
}

fn ratio(num: f64, den: usize) -> f64 {
    num / den.max(1) as f64
}

impl Findings {
    /// Groups `rows` into cases and computes their figures.
    pub fn of(rows: &[ReportRow], shapes: Vec<Shape>) -> Findings {
        type Key = (String, String, String);
        let mut order: Vec<Key> = Vec::new();
        let mut by_case: BTreeMap<Key, Vec<&ReportRow>> = BTreeMap::new();
        let mut revisions = BTreeSet::new();
        for r in rows {
            revisions.insert(r.git_rev.clone());
            let key = (r.dataset.clone(), r.program.clone(), r.stream.clone());
            let entry = by_case.entry(key.clone()).or_default();
            if entry.is_empty() {
                order.push(key);
            }
            entry.push(r);
        }
        let over_limit = rows
            .iter()
            .filter_map(|r| {
                let full_study = crate::full_study::BATCH_LIMIT_S * 1_000_000_000;
                let limit = r
                    .time_limit_ns
                    .or((r.batch > 0 && r.time_ns > full_study).then_some(full_study))?;
                Some(format!(
                    "`{}` on {} / {} / {}, batch {} ({:.0} s > {:.0} s)",
                    r.engine,
                    r.dataset,
                    r.program,
                    r.stream,
                    r.batch,
                    r.time_ns as f64 / 1e9,
                    limit as f64 / 1e9
                ))
            })
            .collect();
        let mut findings = Findings {
            shapes,
            revisions,
            rows: rows.len(),
            over_limit,
            auto: auto::auto_batches(rows),
            families: families::family_batches(rows),
            ..Findings::default()
        };
        for key in order {
            let case = &by_case[&key];
            if let Some(e) = case.iter().find_map(|r| r.error.as_ref()) {
                let first = e.lines().next().unwrap_or_default().to_string();
                findings.failed.push((key.0, key.1, key.2, first));
                continue;
            }
            findings.cases.push(case_figures(case));
        }
        findings
    }

    /// The shape of a dataset, if measured.
    pub fn shape(&self, dataset: &str) -> Option<&Shape> {
        self.shapes.iter().find(|s| s.dataset == dataset)
    }

    /// The cases of one kind (with relation), in report order.
    pub fn of_kind<'a>(&'a self, kind: &'a str) -> impl Iterator<Item = &'a CaseFigures> + 'a {
        self.cases.iter().filter(move |c| c.kind == kind)
    }

    /// (dataset, program) pairs with a case of `kind`, in report order.
    pub fn pairs(&self, kind: &str) -> Vec<(String, String)> {
        let mut seen = Vec::new();
        for c in self.of_kind(kind) {
            let p = (c.dataset.clone(), c.program.clone());
            if !seen.contains(&p) {
                seen.push(p);
            }
        }
        seen
    }

    /// The case of a dataset, program, kind and size.
    pub fn case(
        &self,
        dataset: &str,
        program: &str,
        kind: &str,
        size: usize,
    ) -> Option<&CaseFigures> {
        self.cases.iter().find(|c| {
            c.dataset == dataset && c.program == program && c.kind == kind && c.size == size
        })
    }

    /// The change sizes of `kind`'s cases, ascending.
    pub fn sizes(&self, kind: &str) -> Vec<usize> {
        let s: BTreeSet<usize> = self.of_kind(kind).map(|c| c.size).collect();
        s.into_iter().collect()
    }
}

fn case_figures(rows: &[&ReportRow]) -> CaseFigures {
    let first = rows[0];
    let mut by_batch: BTreeMap<usize, BTreeMap<&str, &ReportRow>> = BTreeMap::new();
    let mut model_size = 0;
    let mut aa_times: BTreeMap<&str, BTreeMap<usize, u64>> = BTreeMap::new();
    let mut every_batch: BTreeMap<usize, BTreeMap<&str, u64>> = BTreeMap::new();
    for r in rows {
        if r.batch > 0 {
            every_batch
                .entry(r.batch)
                .or_default()
                .insert(r.engine.as_str(), r.scheduled_ns());
        }
        if r.batch == 0 && r.engine == RECOMPUTE {
            model_size = r.model_size;
        }
        if r.batch > 0 && (r.engine == "dred" || r.engine == "dred@2") {
            aa_times
                .entry(r.engine.as_str())
                .or_default()
                .insert(r.batch, r.scheduled_ns());
        }
        if forward(&r.stream, r.batch) {
            by_batch
                .entry(r.batch)
                .or_default()
                .insert(r.engine.as_str(), r);
        }
    }
    let mut over = Vec::new();
    let mut amp = Vec::new();
    let mut overdeleted = Vec::new();
    let mut saturated = 0;
    let mut removed = Vec::new();
    let mut time: BTreeMap<String, Vec<f64>> = BTreeMap::new();
    let mut speedup: BTreeMap<String, Vec<f64>> = BTreeMap::new();
    let mut bf_over_dred = Vec::new();
    let mut bf_checked = Vec::new();
    for engines in by_batch.values() {
        if let Some(d) = engines.get("dred") {
            if d.saturated.unwrap_or(0) > 0 {
                saturated += 1;
            } else if let (Some(o), Some(re), Some(ins)) = (d.overdeleted, d.rederived, d.inserted)
            {
                over.push(ratio(o as f64, d.model_removed));
                amp.push(ratio(
                    (o + re + ins) as f64,
                    d.model_removed + d.model_added,
                ));
                overdeleted.push(o as f64);
            }
            removed.push(d.model_removed as f64);
        }
        for (e, r) in engines {
            time.entry(e.to_string())
                .or_default()
                .push(r.scheduled_ns() as f64 / 1e3);
        }
        if let Some(base) = engines.get(RECOMPUTE) {
            for (e, r) in engines {
                if *e != RECOMPUTE {
                    speedup
                        .entry(e.to_string())
                        .or_default()
                        .push(base.scheduled_ns() as f64 / r.scheduled_ns() as f64);
                }
            }
        }
        if let (Some(b), Some(d)) = (engines.get("bf"), engines.get("dred")) {
            bf_over_dred.push(b.scheduled_ns() as f64 / d.scheduled_ns() as f64);
            if let Some(c) = b.checked {
                bf_checked.push(c as f64);
            }
        }
    }
    let mut worst: BTreeMap<String, Worst> = BTreeMap::new();
    for engines in every_batch.values() {
        let Some(&base) = engines.get(RECOMPUTE) else {
            continue;
        };
        for (e, &t) in engines.iter().filter(|(e, _)| **e != RECOMPUTE) {
            let ratio = t.max(1) as f64 / base.max(1) as f64;
            let w = worst.entry(e.to_string()).or_insert(Worst {
                ratio,
                collapsed: 0,
                batches: 0,
            });
            w.ratio = w.ratio.max(ratio);
            w.batches += 1;
            w.collapsed += usize::from(ratio > crate::summary::COLLAPSE_FACTOR);
        }
    }
    let spreads = |m: BTreeMap<String, Vec<f64>>| {
        m.into_iter()
            .filter_map(|(k, v)| Some((k, Spread::of(v)?)))
            .collect()
    };
    CaseFigures {
        dataset: first.dataset.clone(),
        program: first.program.clone(),
        kind: first.kind.clone(),
        size: first.size.unwrap_or(0),
        batches: by_batch.len(),
        saturated,
        overdeletion: Spread::of(over),
        amplification: Spread::of(amp),
        overdeleted: Spread::of(overdeleted),
        removed: Spread::of(removed),
        model_size,
        time: spreads(time),
        speedup: spreads(speedup),
        bf_over_dred: Spread::of(bf_over_dred),
        bf_checked: Spread::of(bf_checked),
        aa: match (aa_times.get("dred@2"), aa_times.get("dred")) {
            (Some(second), Some(first)) => AaCheck::of(second, first),
            _ => None,
        },
        worst,
    }
}

/// Where recomputation becomes as cheap as an engine, from (change size, median of the
/// per-batch ratio recompute / engine) points in ascending size.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Crossover {
    /// Recomputing is already as cheap at the smallest size measured.
    AtOrBelow(usize),
    /// Between two measured sizes: the size where the log–log line through them crosses 1.
    At(f64),
    /// The engine is faster at every size measured, up to this one.
    Above(usize),
}

/// The crossover of `points` (size, speedup), sizes ascending; `None` without points.
pub fn crossover(points: &[(usize, f64)]) -> Option<Crossover> {
    let (&(s0, r0), _) = points.split_first()?;
    if r0 <= 1.0 {
        return Some(Crossover::AtOrBelow(s0));
    }
    for w in points.windows(2) {
        let ((s1, r1), (s2, r2)) = (w[0], w[1]);
        if r2 <= 1.0 {
            let (l1, l2) = ((s1 as f64).ln(), (s2 as f64).ln());
            let t = r1.ln() / (r1.ln() - r2.ln());
            return Some(Crossover::At((l1 + t * (l2 - l1)).exp()));
        }
    }
    points.last().map(|&(s, _)| Crossover::Above(s))
}

impl Crossover {
    /// `≤ 1`, `≈ 340`, `> 10,000`.
    pub fn render(&self) -> String {
        match self {
            Crossover::AtOrBelow(s) => format!("≤ {}", thousands(*s as f64)),
            Crossover::At(x) => format!("≈ {}", thousands(round_sig(*x, 2))),
            Crossover::Above(s) => format!("> {}", thousands(*s as f64)),
        }
    }
}

/// Spearman's rank correlation of paired values (average ranks for ties); `None` for fewer
/// than 3 pairs or a constant side.
pub fn spearman(pairs: &[(f64, f64)]) -> Option<f64> {
    if pairs.len() < 3 {
        return None;
    }
    let ranks = |v: Vec<f64>| -> Vec<f64> {
        let mut idx: Vec<usize> = (0..v.len()).collect();
        idx.sort_by(|&a, &b| v[a].total_cmp(&v[b]));
        let mut r = vec![0.0; v.len()];
        let mut i = 0;
        while i < idx.len() {
            let mut j = i;
            while j + 1 < idx.len() && v[idx[j + 1]] == v[idx[i]] {
                j += 1;
            }
            let avg = (i + j) as f64 / 2.0 + 1.0;
            for &k in &idx[i..=j] {
                r[k] = avg;
            }
            i = j + 1;
        }
        r
    };
    let x = ranks(pairs.iter().map(|p| p.0).collect());
    let y = ranks(pairs.iter().map(|p| p.1).collect());
    let n = x.len() as f64;
    let (mx, my) = (x.iter().sum::<f64>() / n, y.iter().sum::<f64>() / n);
    let (mut sxy, mut sxx, mut syy) = (0.0, 0.0, 0.0);
    for (a, b) in x.iter().zip(&y) {
        sxy += (a - mx) * (b - my);
        sxx += (a - mx) * (a - mx);
        syy += (b - my) * (b - my);
    }
    (sxx > 0.0 && syy > 0.0).then(|| sxy / (sxx * syy).sqrt())
}

/// `x` rounded to `digits` significant digits.
pub fn round_sig(x: f64, digits: i32) -> f64 {
    if x == 0.0 || !x.is_finite() {
        return x;
    }
    let scale = 10f64.powi(digits - 1 - x.abs().log10().floor() as i32);
    (x * scale).round() / scale
}

/// A non-negative number with thousands separators when whole, else with the fewest
/// decimals that show two significant digits (`12,345`, `3.4`, `0.021`).
pub fn thousands(x: f64) -> String {
    if x >= 10.0 || x == x.round() {
        let s = format!("{:.0}", x.round());
        let mut out = String::new();
        for (i, c) in s.chars().enumerate() {
            if i > 0 && (s.len() - i) % 3 == 0 {
                out.push(',');
            }
            out.push(c);
        }
        out
    } else {
        let r = round_sig(x, 2);
        let decimals = (1 - r.abs().log10().floor() as i32).max(0) as usize;
        format!("{r:.decimals$}")
    }
}

/// A dataset's short name in tables: the generator's kind and size instead of its query.
pub fn short_dataset(name: &str) -> String {
    let Some(rest) = name.strip_prefix("gen:") else {
        return name.to_string();
    };
    let (kind, query) = rest.split_once('?').unwrap_or((rest, ""));
    let get = |k: &str| {
        query
            .split('&')
            .find_map(|kv| kv.strip_prefix(k).and_then(|v| v.strip_prefix('=')))
    };
    match (kind, get("n")) {
        ("rmat", Some(n)) => format!("R-MAT {}", thousands(n.parse().unwrap_or(0.0))),
        _ => kind.to_string(),
    }
}

/// The named tables.
pub const TABLES: [&str; 18] = [
    "aa",
    "overdeletion",
    "bf_work",
    "amplification",
    "targeted",
    "crossover",
    "predictors",
    "bf",
    "datasets",
    "collapses",
    "auto_regret",
    "auto_confusion",
    "families",
    "counting",
    "analysis_shapes",
    "analysis_overdeletion",
    "analysis_speedups",
    "analysis_crossover",
];

/// Renders table `name` as Markdown.
pub fn table(f: &Findings, name: &str) -> Option<String> {
    Some(match name {
        "overdeletion" => by_size_table(f, "delete", |c| c.overdeletion.map(|s| s.median)),
        "amplification" => by_size_table(f, "delete", |c| c.amplification.map(|s| s.median)),
        "targeted" => targeted_table(f),
        "crossover" => crossover_table(f),
        "predictors" => predictors_table(f),
        "bf" => timed_table(f, "delete", |c| c.bf_over_dred.map(|s| s.median)),
        "aa" => aa_table(f),
        "bf_work" => by_size_table(f, "delete", |c| {
            let checked = c.bf_checked?.median;
            let over = c.overdeleted?.median;
            (over > 0.0).then(|| checked / over)
        }),
        "datasets" => datasets_table(f),
        "collapses" => collapses_table(f),
        "auto_regret" => auto::regret_table(&f.auto),
        "auto_confusion" => auto::confusion_table(&f.auto),
        "families" => families::families_table(&f.families),
        "counting" => families::counting_table(&f.families),
        "analysis_shapes" => analyses::shapes_table(f),
        "analysis_overdeletion" => analyses::overdeletion_table(f),
        "analysis_speedups" => analyses::speedups_table(f),
        "analysis_crossover" => analyses::crossover_table(f),
        _ => return None,
    })
}

fn cell(v: Option<f64>) -> String {
    match v {
        None => "—".into(),
        Some(0.0) => "0".into(),
        Some(x) => thousands(round_sig(x, 2)),
    }
}

/// Rows (dataset, program) of `kind`, columns its sizes, cells `value` of the case.
fn by_size_table(f: &Findings, kind: &str, value: impl Fn(&CaseFigures) -> Option<f64>) -> String {
    marked_table(f, kind, value, |_| false)
}

/// [`by_size_table`] with the cells of the cases `mark` picks followed by ⚠.
fn marked_table(
    f: &Findings,
    kind: &str,
    value: impl Fn(&CaseFigures) -> Option<f64>,
    mark: impl Fn(&CaseFigures) -> bool,
) -> String {
    let sizes = f.sizes(kind);
    let mut s = String::from("| dataset | program |");
    for k in &sizes {
        let _ = write!(s, " {} |", thousands(*k as f64));
    }
    s.push_str("\n|---|---|");
    s.push_str(&"---:|".repeat(sizes.len()));
    s.push('\n');
    for (d, p) in f.pairs(kind) {
        let _ = write!(s, "| {} | {} |", short_dataset(&d), p);
        for &k in &sizes {
            let case = f.case(&d, &p, kind, k);
            let flag = if case.is_some_and(&mark) { " ⚠" } else { "" };
            let _ = write!(s, " {}{flag} |", cell(case.and_then(&value)));
        }
        s.push('\n');
    }
    s
}

/// [`by_size_table`] of a time ratio: the cell of a case whose A/A pair is unreliable is
/// marked ⚠.
fn timed_table(f: &Findings, kind: &str, value: impl Fn(&CaseFigures) -> Option<f64>) -> String {
    marked_table(f, kind, value, CaseFigures::unreliable)
}

/// Every (case, engine) whose slowest batch took more than
/// [`COLLAPSE_FACTOR`](crate::summary::COLLAPSE_FACTOR) times recomputation's time on the same
/// batch, worst first: the worst ratio, the batches past the factor of those measured, and the
/// case's median speedup beside it (a collapse hides in a median; this table shows it). The
/// [`COLLAPSES_SHOWN`] worst, then a line counting the rest (every case's worst ratio per
/// engine is in `cases.csv`); one line saying so when there is none.
fn collapses_table(f: &Findings) -> String {
    let factor = crate::summary::COLLAPSE_FACTOR;
    let mut rows: Vec<(&CaseFigures, &str, Worst)> = f
        .cases
        .iter()
        .flat_map(|c| {
            c.worst
                .iter()
                .filter(|(e, w)| !e.contains('@') && w.ratio > factor)
                .map(move |(e, w)| (c, e.as_str(), *w))
        })
        .collect();
    if rows.is_empty() {
        return format!(
            "No engine took more than {factor}× recomputation's time on any batch of any case.\n"
        );
    }
    rows.sort_by(|a, b| b.2.ratio.total_cmp(&a.2.ratio));
    let rest = rows.len().saturating_sub(COLLAPSES_SHOWN);
    rows.truncate(COLLAPSES_SHOWN);
    let mut s = format!(
        "| dataset | program | change | k | engine | worst batch / recompute | batches over \
         ×{factor} | median speedup |\n|---|---|---|---:|---|---:|---:|---:|\n"
    );
    for (c, e, w) in rows {
        let median = c.speedup.get(e).map(|sp| sp.median);
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {e} | ‼ {}× | {} of {} | {} |",
            short_dataset(&c.dataset),
            c.program,
            c.kind,
            thousands(c.size as f64),
            thousands(round_sig(w.ratio, 2)),
            w.collapsed,
            w.batches,
            median.map_or("—".into(), |m| format!("{}×", thousands(round_sig(m, 2)))),
        );
    }
    if rest > 0 {
        let _ = writeln!(
            s,
            "\n… and {rest} more (case, engine) pairs past ×{factor}: the `worst_*` columns of \
             `findings/cases.csv` give every case's worst ratio per engine."
        );
    }
    s
}

/// Rows of the collapses table shown in the findings; the rest are counted.
pub const COLLAPSES_SHOWN: usize = 25;

/// The A/A check of every case that ran the pair: rows (dataset, program, kind), columns the
/// change sizes, cells the median of `dred@2` / `dred` per batch with p10 and p90, ⚠ outside
/// [0.9, 1.1].
fn aa_table(f: &Findings) -> String {
    let with_aa: Vec<&CaseFigures> = f.cases.iter().filter(|c| c.aa.is_some()).collect();
    let sizes: BTreeSet<usize> = with_aa.iter().map(|c| c.size).collect();
    let mut rows: Vec<(String, String, String)> = Vec::new();
    for c in &with_aa {
        let key = (c.dataset.clone(), c.program.clone(), c.kind.clone());
        if !rows.contains(&key) {
            rows.push(key);
        }
    }
    let mut s = String::from("| dataset | program | change |");
    for k in &sizes {
        let _ = write!(s, " {} | dred µs |", thousands(*k as f64));
    }
    s.push_str("\n|---|---|---|");
    s.push_str(&"---:|---:|".repeat(sizes.len()));
    s.push('\n');
    for (d, p, kind) in rows {
        let _ = write!(s, "| {} | {} | {} |", short_dataset(&d), p, kind);
        for &k in &sizes {
            let case = f.case(&d, &p, &kind, k);
            let check = case.and_then(|c| c.aa);
            let time = case.and_then(|c| c.time.get("dred")).map(|t| t.median);
            let _ = write!(
                s,
                " {} | {} |",
                check.map_or("—".into(), |a| a.render().replace(" unreliable", "")),
                cell(time)
            );
        }
        s.push('\n');
    }
    s
}

/// Over-deletion ratio per targeted kind at its smallest and largest common sizes.
fn targeted_table(f: &Findings) -> String {
    let kinds = ["delete", "bridge-delete", "hub-delete", "scc-delete"];
    let sizes = [1usize, 100];
    let mut s = String::from("| dataset | program |");
    for k in sizes {
        for kind in kinds {
            let _ = write!(s, " {kind} {k} |");
        }
    }
    s.push_str("\n|---|---|");
    s.push_str(&"---:|".repeat(kinds.len() * sizes.len()));
    s.push('\n');
    for (d, p) in f.pairs("delete") {
        let _ = write!(s, "| {} | {} |", short_dataset(&d), p);
        for k in sizes {
            for kind in kinds {
                let v = f
                    .case(&d, &p, kind, k)
                    .and_then(|c| c.overdeletion.map(|x| x.median));
                let _ = write!(s, " {} |", cell(v));
            }
        }
        s.push('\n');
    }
    s
}

/// The crossover of an engine on (dataset, program) under `kind`.
pub fn crossover_of(f: &Findings, d: &str, p: &str, kind: &str, engine: &str) -> Option<Crossover> {
    let points: Vec<(usize, f64)> = f
        .sizes(kind)
        .into_iter()
        .filter_map(|k| {
            let c = f.case(d, p, kind, k)?;
            Some((k, c.speedup.get(engine)?.median))
        })
        .collect();
    crossover(&points)
}

fn crossover_table(f: &Findings) -> String {
    let mut s = String::from(
        "| dataset | program | sizes | dred, deletions | bf, deletions | dd, deletions | dred, insertions | dd, insertions |\n|---|---|---|---:|---:|---:|---:|---:|\n",
    );
    for (d, p) in f.pairs("delete") {
        let sizes = f.sizes("delete");
        let measured: Vec<usize> = sizes
            .into_iter()
            .filter(|&k| f.case(&d, &p, "delete", k).is_some())
            .collect();
        let _ = write!(
            s,
            "| {} | {} | {}–{} |",
            short_dataset(&d),
            p,
            thousands(*measured.first().unwrap_or(&0) as f64),
            thousands(*measured.last().unwrap_or(&0) as f64)
        );
        for (kind, engine) in [
            ("delete", "dred"),
            ("delete", "bf"),
            ("delete", "dd"),
            ("insert", "dred"),
            ("insert", "dd"),
        ] {
            let c = crossover_of(f, &d, &p, kind, engine);
            // Interpolated from the case's sizes: flagged if any of them is.
            let flagged = f
                .sizes(kind)
                .into_iter()
                .any(|k| f.case(&d, &p, kind, k).is_some_and(CaseFigures::unreliable));
            let flag = if flagged && c.is_some() { " ⚠" } else { "" };
            let _ = write!(s, " {}{flag} |", c.map_or("—".into(), |c| c.render()));
        }
        s.push('\n');
    }
    s
}

/// A graph property by name.
pub type Property = (&'static str, fn(&Shape) -> f64);

/// The graph properties the predictors table correlates with.
pub const PROPERTIES: [Property; 6] = [
    ("largest SCC", |s| s.largest_scc as f64),
    ("cyclic share", |s| s.cyclic_share),
    ("depth", |s| s.depth as f64),
    ("max fan-in", |s| s.max_in as f64),
    ("mean degree", |s| s.mean_degree),
    ("edges", |s| s.edges as f64),
];

/// Per program (and pooled), Spearman's ρ over the random-deletion cases between a graph
/// property and the case's median over-deletion ratio; with the number of cases.
pub fn predictors(f: &Findings) -> Vec<(String, usize, Vec<Option<f64>>)> {
    let mut programs: Vec<String> = Vec::new();
    for c in f.of_kind("delete") {
        if !programs.contains(&c.program) {
            programs.push(c.program.clone());
        }
    }
    let mut out = Vec::new();
    let groups = programs
        .iter()
        .map(|p| (p.clone(), Some(p.clone())))
        .chain(std::iter::once(("all programs".to_string(), None)));
    for (label, program) in groups {
        let cases: Vec<(&CaseFigures, &Shape)> = f
            .of_kind("delete")
            .filter(|c| program.as_ref().is_none_or(|p| &c.program == p))
            .filter_map(|c| Some((c, f.shape(&c.dataset)?)))
            .filter(|(c, _)| c.overdeletion.is_some())
            .collect();
        let rhos = PROPERTIES
            .iter()
            .map(|(_, prop)| {
                let pairs: Vec<(f64, f64)> = cases
                    .iter()
                    .map(|(c, s)| (prop(s), c.overdeletion.map_or(0.0, |o| o.median)))
                    .collect();
                spearman(&pairs)
            })
            .collect();
        out.push((label, cases.len(), rhos));
    }
    out
}

fn predictors_table(f: &Findings) -> String {
    let mut s = String::from("| program | cases |");
    for (name, _) in PROPERTIES {
        let _ = write!(s, " {name} |");
    }
    s.push_str("\n|---|---:|");
    s.push_str(&"---:|".repeat(PROPERTIES.len()));
    s.push('\n');
    for (label, n, rhos) in predictors(f) {
        let _ = write!(s, "| {label} | {n} |");
        for r in rhos {
            let _ = write!(s, " {} |", r.map_or("—".into(), |r| format!("{r:+.2}")));
        }
        s.push('\n');
    }
    s
}

fn datasets_table(f: &Findings) -> String {
    let mut s = String::from(
        "| dataset | nodes | edges | largest SCC | in cyclic SCCs | depth | max fan-in | max fan-out | edges / node |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|\n",
    );
    for sh in &f.shapes {
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {:.1}% | {} | {} | {} | {:.2} |",
            short_dataset(&sh.dataset),
            thousands(sh.nodes as f64),
            thousands(sh.edges as f64),
            thousands(sh.largest_scc as f64),
            100.0 * sh.cyclic_share,
            sh.depth,
            thousands(sh.max_in as f64),
            thousands(sh.max_out as f64),
            sh.mean_degree
        );
    }
    s
}

/// Scalar figures the prose cites, by name.
pub fn values(
    f: &Findings,
    rows: &[ReportRow],
    runs: &[crate::cmd::study::Invocation],
) -> BTreeMap<String, String> {
    let mut v = BTreeMap::new();
    let mut put = |k: &str, x: String| {
        v.insert(k.to_string(), x);
    };
    for (engine, (n, rho)) in time_follows_overdeletion(rows) {
        put(
            &format!("rho_time_{engine}"),
            rho.map_or("—".into(), |r| format!("{r:+.2}")),
        );
        put("rho_batches", thousands(n as f64));
    }
    let saturated: Vec<usize> = f.cases.iter().map(|c| c.saturated).collect();
    put(
        "saturated_batches",
        thousands(saturated.iter().sum::<usize>() as f64),
    );
    put(
        "saturated_cases",
        thousands(saturated.iter().filter(|&&n| n > 0).count() as f64),
    );
    put(
        "forward_batches",
        thousands(f.cases.iter().map(|c| c.batches).sum::<usize>() as f64),
    );
    // ρ of each property over every program's random-deletion cases, and per program.
    for (label, n, rhos) in predictors(f) {
        let key = if label == "all programs" {
            "all".to_string()
        } else {
            label.clone()
        };
        put(&format!("rho_{key}_cases"), n.to_string());
        for ((name, _), r) in PROPERTIES.iter().zip(rhos) {
            let name = name.replace(' ', "_");
            put(
                &format!("rho_{key}_{name}"),
                r.map_or("—".into(), |r| format!("{r:+.2}")),
            );
        }
    }
    // Collapses: per engine, the cases with a batch past COLLAPSE_FACTOR× recomputation, of
    // the cases it ran beside recomputation, and its worst ratio over them all.
    for engine in ENGINES {
        let measured: Vec<&Worst> = f.cases.iter().filter_map(|c| c.worst.get(engine)).collect();
        let factor = crate::summary::COLLAPSE_FACTOR;
        let collapsed = measured.iter().filter(|w| w.ratio > factor).count();
        put(
            &format!("collapse_{engine}_cases"),
            thousands(collapsed as f64),
        );
        put(
            &format!("collapse_{engine}_of"),
            thousands(measured.len() as f64),
        );
        let worst = measured.iter().map(|w| w.ratio).fold(0.0, f64::max);
        put(
            &format!("collapse_{engine}_worst"),
            format!("{}×", thousands(round_sig(worst, 2))),
        );
    }
    put(
        "collapse_factor",
        crate::summary::COLLAPSE_FACTOR.to_string(),
    );
    for (k, x) in auto::values(&f.auto) {
        put(&k, x);
    }
    for (k, x) in families::values(&f.families) {
        put(&k, x);
    }
    for (k, x) in analyses::values(f) {
        put(&k, x);
    }
    // The A/A check: how many cases ran it, how many read unreliable, the range of medians.
    let aa: Vec<(AaCheck, f64)> = f
        .cases
        .iter()
        .filter_map(|c| Some((c.aa?, c.time.get("dred")?.median)))
        .collect();
    put("aa_cases", aa.len().to_string());
    put(
        "aa_unreliable",
        aa.iter().filter(|(a, _)| !a.reliable()).count().to_string(),
    );
    let medians: Vec<f64> = aa.iter().map(|(a, _)| a.median).collect();
    let (lo, hi) = medians
        .iter()
        .fold((f64::MAX, 0.0f64), |(lo, hi), &x| (lo.min(x), hi.max(x)));
    if !medians.is_empty() {
        put("aa_median_min", format!("{lo:.2}"));
        put("aa_median_max", format!("{hi:.2}"));
    }
    for (name, big) in [("ge20", true), ("lt20", false)] {
        let part: Vec<&AaCheck> = aa
            .iter()
            .filter(|(_, t)| (*t >= 20.0) == big)
            .map(|(a, _)| a)
            .collect();
        put(&format!("aa_{name}_cases"), part.len().to_string());
        let within = |lo: f64, hi: f64| {
            part.iter()
                .filter(|a| a.median >= lo && a.median <= hi)
                .count()
        };
        put(
            &format!("aa_{name}_within5"),
            within(0.95, 1.05).to_string(),
        );
        put(&format!("aa_{name}_within10"), within(0.9, 1.1).to_string());
        put(
            &format!("aa_{name}_spread_ok"),
            part.iter()
                .filter(|a| a.p10 >= 0.8 && a.p90 <= 1.25)
                .count()
                .to_string(),
        );
    }
    put("cases", thousands(f.cases.len() as f64));
    put("failed", thousands(f.failed.len() as f64));
    put("rows", thousands(f.rows as f64));
    put("over_limit", f.over_limit.len().to_string());
    let slowest = rows
        .iter()
        .filter(|r| r.batch > 0)
        .map(|r| r.time_ns)
        .max()
        .unwrap_or(0);
    put(
        "batch_limit_s",
        crate::full_study::BATCH_LIMIT_S.to_string(),
    );
    put("slowest_batch_s", format!("{:.0}", slowest as f64 / 1e9));
    put(
        "over_limit_list",
        if f.over_limit.is_empty() {
            String::new()
        } else {
            format!(": {}", f.over_limit.join("; "))
        },
    );
    let datasets: BTreeSet<&str> = f.cases.iter().map(|c| c.dataset.as_str()).collect();
    let programs: BTreeSet<&str> = f.cases.iter().map(|c| c.program.as_str()).collect();
    put("datasets", datasets.len().to_string());
    put("programs", programs.len().to_string());
    let minutes = runs.iter().map(|r| r.seconds).sum::<f64>() / 60.0;
    put("wall_minutes", format!("{minutes:.0}"));
    put("invocations", runs.len().to_string());
    put(
        "revisions",
        f.revisions
            .iter()
            .map(|r| format!("`{r}`"))
            .collect::<Vec<_>>()
            .join(", "),
    );
    // Over-deletion ratios of random single deletions and of 100 deletions, over cases.
    for k in [1usize, 100, 10000] {
        let ratios: Vec<f64> = f
            .of_kind("delete")
            .filter(|c| c.size == k)
            .filter_map(|c| c.overdeletion.map(|o| o.median))
            .collect();
        if let Some(s) = Spread::of(ratios.clone()) {
            put(&format!("od_k{k}_cases"), ratios.len().to_string());
            put(&format!("od_k{k}_median"), cell(Some(s.median)));
            let max = ratios.iter().copied().fold(0.0, f64::max);
            put(&format!("od_k{k}_max"), cell(Some(max)));
            let zero = ratios.iter().filter(|&&r| r == 0.0).count();
            put(&format!("od_k{k}_zero"), zero.to_string());
            let above10 = ratios.iter().filter(|&&r| r > 10.0).count();
            put(&format!("od_k{k}_above10"), above10.to_string());
        }
        let amp: Vec<f64> = f
            .of_kind("delete")
            .filter(|c| c.size == k)
            .filter_map(|c| c.amplification.map(|o| o.median))
            .collect();
        if let Some(m) = median(amp) {
            put(&format!("amp_k{k}_median"), cell(Some(m)));
        }
    }
    // Graphs where most nodes lie on cycles against the others, single deletions.
    for (name, cyclic) in [("cyclic", true), ("acyclic", false)] {
        let ratios: Vec<f64> = f
            .of_kind("delete")
            .filter(|c| c.size == 1)
            .filter(|c| {
                f.shape(&c.dataset)
                    .is_some_and(|s| (s.cyclic_share >= 0.5) == cyclic)
            })
            .filter_map(|c| c.overdeletion.map(|o| o.median))
            .collect();
        put(&format!("od_k1_{name}_cases"), ratios.len().to_string());
        if let Some(m) = median(ratios) {
            put(&format!("od_k1_{name}_median"), cell(Some(m)));
        }
    }
    // bf against dred: cases of every deletion kind where bf's median time is below dred's.
    let pairs: Vec<f64> = f
        .cases
        .iter()
        .filter(|c| c.kind.contains("delete"))
        .filter_map(|c| c.bf_over_dred.map(|s| s.median))
        .collect();
    put("bf_cases", pairs.len().to_string());
    put(
        "bf_faster",
        pairs.iter().filter(|&&r| r < 1.0).count().to_string(),
    );
    if let Some(m) = median(pairs) {
        put("bf_median", cell(Some(m)));
    }
    // Crossovers: how many (dataset, program) pairs never cross within their sizes.
    for engine in ENGINES {
        let named: Vec<(String, Crossover)> = f
            .pairs("delete")
            .iter()
            .filter_map(|(d, p)| {
                let c = crossover_of(f, d, p, "delete", engine)?;
                Some((format!("{} `{p}`", short_dataset(d)), c))
            })
            .collect();
        let at1: Vec<&str> = named
            .iter()
            .filter(|(_, c)| matches!(c, Crossover::AtOrBelow(_)))
            .map(|(n, _)| n.as_str())
            .collect();
        put(&format!("cross_{engine}_at1_list"), at1.join(", "));
        let never: Vec<&str> = named
            .iter()
            .filter(|(_, c)| matches!(c, Crossover::Above(_)))
            .map(|(n, _)| n.as_str())
            .collect();
        put(&format!("cross_{engine}_never_list"), never.join(", "));
        let all: Vec<Crossover> = named.into_iter().map(|(_, c)| c).collect();
        put(&format!("cross_{engine}_pairs"), all.len().to_string());
        put(
            &format!("cross_{engine}_never"),
            all.iter()
                .filter(|c| matches!(c, Crossover::Above(_)))
                .count()
                .to_string(),
        );
        put(
            &format!("cross_{engine}_at1"),
            all.iter()
                .filter(|c| matches!(c, Crossover::AtOrBelow(_)))
                .count()
                .to_string(),
        );
        let between: Vec<f64> = all
            .iter()
            .filter_map(|c| match c {
                Crossover::At(x) => Some(*x),
                _ => None,
            })
            .collect();
        put(
            &format!("cross_{engine}_between"),
            between.len().to_string(),
        );
        let (lo, hi) = between
            .iter()
            .fold((f64::MAX, 0.0f64), |(lo, hi), &x| (lo.min(x), hi.max(x)));
        if let Some(m) = median(between) {
            let show = |x: f64| thousands(round_sig(x, 2));
            put(&format!("cross_{engine}_median"), show(m));
            put(&format!("cross_{engine}_min"), show(lo));
            put(&format!("cross_{engine}_max"), show(hi));
        }
    }
    v
}

/// Per engine, Spearman's ρ between an engine's time and the facts DRed over-deleted, over
/// every forward batch of every deletion case without an error on which `dred` did not
/// saturate; with the batch count.
pub fn time_follows_overdeletion(rows: &[ReportRow]) -> BTreeMap<String, (usize, Option<f64>)> {
    let mut over: BTreeMap<(&str, &str, &str, usize), usize> = BTreeMap::new();
    let mut failed: BTreeSet<(&str, &str, &str)> = BTreeSet::new();
    for r in rows {
        if r.error.is_some() {
            failed.insert((&r.dataset, &r.program, &r.stream));
        }
        // A saturated batch's `overdeleted` is its level's size, not DRed's over-deletion.
        if r.engine == "dred"
            && forward(&r.stream, r.batch)
            && r.kind.contains("delete")
            && r.saturated.unwrap_or(0) == 0
        {
            if let Some(o) = r.overdeleted {
                over.insert((&r.dataset, &r.program, &r.stream, r.batch), o);
            }
        }
    }
    let mut pairs: BTreeMap<String, Vec<(f64, f64)>> = BTreeMap::new();
    for r in rows {
        if failed.contains(&(r.dataset.as_str(), r.program.as_str(), r.stream.as_str())) {
            continue;
        }
        if let Some(&o) = over.get(&(
            r.dataset.as_str(),
            r.program.as_str(),
            r.stream.as_str(),
            r.batch,
        )) {
            pairs
                .entry(r.engine.clone())
                .or_default()
                .push((o as f64, r.scheduled_ns() as f64));
        }
    }
    pairs
        .into_iter()
        .map(|(e, p)| (e, (p.len(), spearman(&p))))
        .collect()
}

/// `{{case:DATASET|PROGRAM|KIND|SIZE|FIGURE}}`: one figure of one case, the median over its
/// forward batches — `od` (over-deletion ratio), `amp` (work amplification), `overdeleted`,
/// `removed`, `speedup_dred`, `speedup_bf`, `speedup_dd`, `bf_over_dred`, `time_ENGINE` (µs).
pub fn case_value(f: &Findings, spec: &str) -> Option<String> {
    let parts: Vec<&str> = spec.split('|').collect();
    let [dataset, program, kind, size, figure] = parts[..] else {
        return None;
    };
    let c = f.case(dataset, program, kind, size.parse().ok()?)?;
    let spread = match figure {
        "od" => c.overdeletion,
        "amp" => c.amplification,
        "overdeleted" => c.overdeleted,
        "removed" => c.removed,
        "bf_over_dred" => c.bf_over_dred,
        _ => {
            if let Some(e) = figure.strip_prefix("speedup_") {
                c.speedup.get(e).copied()
            } else if let Some(e) = figure.strip_prefix("time_") {
                c.time.get(e).copied()
            } else {
                return None;
            }
        }
    };
    Some(cell(Some(spread?.median)))
}

/// Fills `template`'s placeholders: `{{table:NAME}}`, `{{value:NAME}}`, `{{figure:NAME}}`
/// (the PNG `<plots>/NAME.png`, embedded and linking its SVG). Errors name the first unknown one.
pub fn render(
    template: &str,
    f: &Findings,
    values: &BTreeMap<String, String>,
    figures: &BTreeSet<String>,
    plots: &str,
) -> anyhow::Result<String> {
    let mut out = String::new();
    let mut rest = template;
    while let Some(start) = rest.find("{{") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let end = after
            .find("}}")
            .ok_or_else(|| anyhow::anyhow!("template: `{{{{` without `}}}}`"))?;
        let inner = after[..end].trim();
        let (what, name) = inner
            .split_once(':')
            .ok_or_else(|| anyhow::anyhow!("template: `{{{{{inner}}}}}` is not WHAT:NAME"))?;
        let unknown = || anyhow::anyhow!("template: unknown {what} `{name}`");
        match what {
            "table" => out.push_str(&table(f, name).ok_or_else(unknown)?),
            "value" => out.push_str(values.get(name).ok_or_else(unknown)?),
            "case" => out.push_str(&case_value(f, name).ok_or_else(unknown)?),
            "figure" => {
                if !figures.contains(name) {
                    return Err(unknown());
                }
                // The PNG only: the SVGs `findings` writes beside them are not kept in
                // `results/` (one is over a megabyte), see `.gitignore`.
                let _ = write!(out, "![{name}]({plots}/{name}.png)");
            }
            _ => {
                return Err(anyhow::anyhow!(
                    "template: unknown placeholder kind `{what}`"
                ))
            }
        }
        rest = &after[end + 2..];
    }
    out.push_str(rest);
    Ok(out)
}

#[cfg(test)]
mod tests;
