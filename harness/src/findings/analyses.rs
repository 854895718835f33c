//! The program analyses of a full study (issue 36): the borrow check, the liveness and
//! initialisation analysis and the points-to analysis over facts of real crates, with the
//! figures the graphs get — over-deletion against the size of the change, each engine's
//! speedup over recomputation and its worst batch, the crossovers, `bf` against `dred` — and
//! the shape of each workload (`workloads.csv`, written by the study).
//!
//! A case is a program analysis when its (dataset, program) has a line in `workloads.csv`;
//! a study without that file (older than it) has none, and the tables say so.

use std::collections::BTreeSet;
use std::fmt::Write as _;

use super::{cell, crossover, round_sig, thousands, CaseFigures, Crossover, Findings, RECOMPUTE};
use crate::datasets::workload::WorkloadShape;
use crate::stats::{median, Spread};

/// The engines the analyses' tables compare with recomputation, in column order; those a
/// study did not run show `—`.
pub const ENGINES: [&str; 5] = ["dred", "bf", "counting", "dd", "auto"];

/// Whether a case is a program analysis: its workload was measured.
pub fn is_analysis(f: &Findings, c: &CaseFigures) -> bool {
    workload(&f.workloads, &c.dataset, &c.program).is_some()
}

fn workload<'a>(w: &'a [WorkloadShape], dataset: &str, program: &str) -> Option<&'a WorkloadShape> {
    w.iter()
        .find(|s| s.dataset == dataset && s.program == program)
}

/// The analysis cases, in report order.
fn cases(f: &Findings) -> impl Iterator<Item = &CaseFigures> {
    f.cases.iter().filter(move |c| is_analysis(f, c))
}

/// Rows (dataset, program, kind) of the analysis cases, in report order.
fn streams(f: &Findings) -> Vec<(String, String, String)> {
    let mut seen: Vec<(String, String, String)> = Vec::new();
    for c in cases(f) {
        let key = (c.dataset.clone(), c.program.clone(), c.kind.clone());
        if !seen.contains(&key) {
            seen.push(key);
        }
    }
    seen
}

/// The sizes measured for one stream, ascending.
fn sizes(f: &Findings, d: &str, p: &str, kind: &str) -> Vec<usize> {
    let s: BTreeSet<usize> = cases(f)
        .filter(|c| c.dataset == d && c.program == p && c.kind == kind)
        .map(|c| c.size)
        .collect();
    s.into_iter().collect()
}

const NONE: &str = "No program analysis in this study (its folder has no `workloads.csv`, or \
                    none of its cases is one).\n";

/// The shape of every workload: relations, facts, the largest recursive component and the
/// share of the derived facts in it.
pub fn shapes_table(f: &Findings) -> String {
    if f.workloads.is_empty() {
        return NONE.into();
    }
    let mut s = String::from(
        "| dataset | analysis | input relations | derived relations | EDB facts | derived facts \
         | recursive components | largest recursive component | its facts | share |\n\
         |---|---|---:|---:|---:|---:|---:|---|---:|---:|\n",
    );
    for w in &f.workloads {
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {:.0}% |",
            w.dataset,
            w.program,
            w.input_relations,
            w.derived_relations,
            thousands(w.edb_facts as f64),
            thousands(w.idb_facts as f64),
            w.recursive_components,
            if w.largest_component.is_empty() {
                "—".to_string()
            } else {
                format!("`{}`", w.largest_component.replace(' ', "`, `"))
            },
            thousands(w.component_facts as f64),
            100.0 * w.component_share
        );
    }
    s
}

/// Over-deletion against the size of the change: rows (dataset, analysis, change), one
/// column per size, cells the median over-deletion ratio with the median number of facts
/// DRed over-deleted in brackets.
pub fn overdeletion_table(f: &Findings) -> String {
    let rows = streams(f);
    if rows.is_empty() {
        return NONE.into();
    }
    let all: BTreeSet<usize> = cases(f).map(|c| c.size).collect();
    let mut s = String::from("| dataset | analysis | change |");
    for k in &all {
        let _ = write!(s, " {} |", thousands(*k as f64));
    }
    s.push_str("\n|---|---|---|");
    s.push_str(&"---:|".repeat(all.len()));
    s.push('\n');
    for (d, p, kind) in rows {
        let _ = write!(s, "| {d} | {p} | {kind} |");
        for &k in &all {
            let c = f.case(&d, &p, &kind, k);
            let text = match c.and_then(|c| Some((c.overdeletion?, c.overdeleted?))) {
                Some((ratio, over)) => format!(
                    "{} ({})",
                    cell(Some(ratio.median)),
                    thousands(over.median.round())
                ),
                None => "—".into(),
            };
            let _ = write!(s, " {text} |");
        }
        s.push('\n');
    }
    s
}

/// `12× [3.1–40]`, or `—`.
fn speedup_cell(sp: Option<&Spread>) -> String {
    match sp {
        None => "—".into(),
        Some(sp) => format!(
            "{}× [{}–{}]",
            thousands(round_sig(sp.median, 2)),
            thousands(round_sig(sp.lo, 2)),
            thousands(round_sig(sp.hi, 2))
        ),
    }
}

/// Per case: recomputation's median time, then per engine the median of recompute / engine
/// over the forward batches with p10–p90 (or the range, under 10 batches), and its worst
/// batch of all (inverse ones included) as the same ratio, ‼ when the engine took more than
/// the collapse factor times recomputation's time; `bf / dred` last. ⚠: the case's A/A pair
/// is unreliable.
pub fn speedups_table(f: &Findings) -> String {
    let rows: Vec<&CaseFigures> = cases(f).collect();
    if rows.is_empty() {
        return NONE.into();
    }
    let factor = crate::summary::COLLAPSE_FACTOR;
    let mut s = String::from("| dataset | analysis | change | k | recompute ms |");
    for e in ENGINES {
        let _ = write!(s, " {e} | worst |");
    }
    s.push_str(" bf / dred |\n|---|---|---|---:|---:|");
    s.push_str(&"---:|---:|".repeat(ENGINES.len()));
    s.push_str("---:|\n");
    for c in rows {
        let flag = if c.unreliable() { " ⚠" } else { "" };
        let _ = write!(
            s,
            "| {} | {} | {} | {} | {} |",
            c.dataset,
            c.program,
            c.kind,
            thousands(c.size as f64),
            cell(c.time.get(RECOMPUTE).map(|t| t.median / 1000.0))
        );
        for e in ENGINES {
            let worst = match c.worst.get(e) {
                None => "—".to_string(),
                Some(w) => format!(
                    "{}{}×",
                    if w.ratio > factor { "‼ " } else { "" },
                    thousands(round_sig(1.0 / w.ratio, 2))
                ),
            };
            let sp = speedup_cell(c.speedup.get(e));
            let flag = if c.speedup.contains_key(e) { flag } else { "" };
            let _ = write!(s, " {sp}{flag} | {worst} |");
        }
        let _ = writeln!(s, " {}{flag} |", cell(c.bf_over_dred.map(|b| b.median)));
    }
    s
}

/// The change size at which recomputing becomes as cheap as each engine, per stream with at
/// least two sizes (single statements deleted, 1 to 1,000).
pub fn crossover_table(f: &Findings) -> String {
    let rows: Vec<(String, String, String, Vec<usize>)> = streams(f)
        .into_iter()
        .map(|(d, p, k)| {
            let sizes = sizes(f, &d, &p, &k);
            (d, p, k, sizes)
        })
        .filter(|(_, _, _, sizes)| sizes.len() >= 2)
        .collect();
    if rows.is_empty() {
        return NONE.into();
    }
    let mut s = String::from("| dataset | analysis | change | sizes |");
    for e in ENGINES {
        let _ = write!(s, " {e} |");
    }
    s.push_str("\n|---|---|---|---|");
    s.push_str(&"---:|".repeat(ENGINES.len()));
    s.push('\n');
    for (d, p, kind, sizes) in rows {
        let _ = write!(
            s,
            "| {d} | {p} | {kind} | {}–{} |",
            thousands(sizes[0] as f64),
            thousands(sizes[sizes.len() - 1] as f64)
        );
        for e in ENGINES {
            let c = crossover_in(f, &d, &p, &kind, e);
            let _ = write!(s, " {} |", c.map_or("—".into(), |c| c.render()));
        }
        s.push('\n');
    }
    s
}

fn crossover_in(f: &Findings, d: &str, p: &str, kind: &str, engine: &str) -> Option<Crossover> {
    let points: Vec<(usize, f64)> = sizes(f, d, p, kind)
        .into_iter()
        .filter_map(|k| Some((k, f.case(d, p, kind, k)?.speedup.get(engine)?.median)))
        .collect();
    crossover(&points)
}

/// The figures the prose cites: cases and workloads, and per engine the median over the
/// cases of a single change (k = 1) of their median speedup, the cases with a batch past the
/// collapse factor and the worst ratio (`analyses_*`).
pub fn values(f: &Findings) -> Vec<(String, String)> {
    let mut v = Vec::new();
    let all: Vec<&CaseFigures> = cases(f).collect();
    v.push(("analyses_cases".into(), all.len().to_string()));
    v.push(("analyses_workloads".into(), f.workloads.len().to_string()));
    let datasets: BTreeSet<&str> = f
        .workloads
        .iter()
        .map(|w| w.dataset.split(':').next_back().unwrap_or(&w.dataset))
        .collect();
    v.push(("analyses_crates".into(), datasets.len().to_string()));
    let share: Vec<f64> = f.workloads.iter().map(|w| w.component_share).collect();
    let (lo, hi) = share
        .iter()
        .fold((f64::MAX, 0.0f64), |(lo, hi), &x| (lo.min(x), hi.max(x)));
    v.push((
        "analyses_share_range".into(),
        if share.is_empty() {
            "—".into()
        } else {
            format!("{:.0}–{:.0}%", 100.0 * lo, 100.0 * hi)
        },
    ));
    let factor = crate::summary::COLLAPSE_FACTOR;
    for e in ENGINES {
        let single: Vec<f64> = all
            .iter()
            .filter(|c| c.size == 1)
            .filter_map(|c| c.speedup.get(e).map(|s| s.median))
            .collect();
        v.push((format!("analyses_{e}_k1_cases"), single.len().to_string()));
        v.push((
            format!("analyses_{e}_k1_median"),
            median(single).map_or("—".into(), |m| format!("{}×", thousands(round_sig(m, 2)))),
        ));
        let measured: Vec<f64> = all
            .iter()
            .filter_map(|c| Some(c.worst.get(e)?.ratio))
            .collect();
        v.push((
            format!("analyses_{e}_collapsed"),
            measured.iter().filter(|&&r| r > factor).count().to_string(),
        ));
        v.push((format!("analyses_{e}_of"), measured.len().to_string()));
        v.push((
            format!("analyses_{e}_worst"),
            if measured.is_empty() {
                "—".into()
            } else {
                format!(
                    "{}×",
                    thousands(round_sig(measured.iter().copied().fold(0.0, f64::max), 2))
                )
            },
        ));
    }
    let bf: Vec<f64> = all
        .iter()
        .filter_map(|c| c.bf_over_dred.map(|b| b.median))
        .collect();
    v.push(("analyses_bf_cases".into(), bf.len().to_string()));
    v.push((
        "analyses_bf_faster".into(),
        bf.iter().filter(|&&r| r < 1.0).count().to_string(),
    ));
    v.push((
        "analyses_bf_median".into(),
        median(bf).map_or("—".into(), |m| cell(Some(m))),
    ));
    v
}
