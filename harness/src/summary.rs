//! The summary tables of a report: the study's key table in Markdown ([`summary`]: per
//! case, over-deletion, each engine's time per batch and its ratio to recomputation's) and
//! the spread of every case's times as CSV ([`spread_table`], beside the charts). Each
//! figure is a median over a case's batches followed by its spread ([`Spread`]).

use std::collections::BTreeMap;
use std::fmt::Write as _;

use crate::report::ReportRow;
use crate::stats::{AaCheck, Spread};

/// A batch on which an engine takes more than this many times recomputation's time on the
/// same batch is a collapse, flagged in the summary whatever the median says.
pub const COLLAPSE_FACTOR: f64 = 3.0;

/// The key table as Markdown: per case, over-deleted / removed for each DRed engine, each
/// engine's time per batch, and the per-batch ratio of recomputation's time to it on the same
/// batch — each as its median over the case's batches with the spread beside it
/// ([`Spread::render`]: p10 and p90 from 20 batches on, else the minimum and the maximum; ‼
/// marks a bimodal case). An engine whose slowest batch, against recomputation on the same
/// batch, took more than [`COLLAPSE_FACTOR`] times recomputation's time gets
/// `‼ worst N× recompute` in its ratio cell, and the table a line saying so: a collapse
/// never hides in a median.
pub fn summary(rows: &[ReportRow]) -> String {
    type Key = (String, String, String, usize);
    let mut by_case: BTreeMap<Key, Vec<&ReportRow>> = BTreeMap::new();
    for r in rows.iter().filter(|r| r.batch > 0 && r.error.is_none()) {
        by_case
            .entry((
                r.dataset.clone(),
                r.program.clone(),
                r.kind.clone(),
                r.size.unwrap_or(0),
            ))
            .or_default()
            .push(r);
    }
    let mut engines: Vec<String> = rows.iter().map(|r| r.engine.clone()).collect();
    engines.sort();
    engines.dedup();
    // A second instance (`dred@2`) is the A/A check: its ratio to the first gets a column of
    // its own, not a column of times.
    let aa_pairs: Vec<(String, String)> = engines
        .iter()
        .filter_map(|e| {
            let (first, _) = e.split_once('@')?;
            engines
                .iter()
                .any(|f| f == first)
                .then(|| (e.clone(), first.to_string()))
        })
        .collect();
    engines.retain(|e| e != "recompute" && !e.is_empty() && !e.contains('@'));
    let with_bf = engines.iter().any(|e| e == "bf");
    let mut s = String::new();
    let _ = write!(
        s,
        "| dataset | program | change | k | batches | model | over-deleted / removed |"
    );
    if with_bf {
        s.push_str(" bf deleted / removed |");
    }
    for e in &engines {
        let _ = write!(s, " {e} µs | recompute / {e}, per batch |");
    }
    s.push_str(" recompute µs |");
    for (second, first) in &aa_pairs {
        let _ = write!(s, " A/A {second} / {first} |");
    }
    s.push_str("\n|---|---|---|---|---|---|---|");
    if with_bf {
        s.push_str("---|");
    }
    for _ in &aa_pairs {
        s.push_str("---|");
    }
    for _ in &engines {
        s.push_str("---|---|");
    }
    s.push_str("---|\n");
    let cell = |spread: Option<Spread>, decimals: usize, unit: &str| {
        spread.map_or("–".into(), |v| {
            let r = v.render(decimals);
            // The unit after the median: `3.1× [0.5–4.0]`.
            match r.split_once(' ') {
                Some((m, rest)) => format!("{m}{unit} {rest}"),
                None => r,
            }
        })
    };
    let mut collapsed = 0;
    for ((dataset, program, kind, size), case) in &by_case {
        let model = case.iter().map(|r| r.model_size).max().unwrap_or(0);
        let batches = case.iter().map(|r| r.batch).max().unwrap_or(0);
        let deleted_ratio = |of: &dyn Fn(&str) -> bool| {
            Spread::of(
                // A saturated batch's `overdeleted` is the level's size (see FINDINGS).
                case.iter()
                    .filter(|r| of(&r.engine) && r.saturated.unwrap_or(0) == 0)
                    .filter_map(|r| {
                        r.overdeleted
                            .map(|o| o as f64 / r.model_removed.max(1) as f64)
                    })
                    .collect(),
            )
        };
        let ratio = deleted_ratio(&|e| {
            e == "dred" || (e == "reference" && !engines.contains(&"dred".to_string()))
        });
        let time_of = |engine: &str| -> BTreeMap<usize, u64> {
            case.iter()
                .filter(|r| r.engine == engine)
                .map(|r| (r.batch, r.scheduled_ns()))
                .collect()
        };
        let recompute = time_of("recompute");
        // The case's A/A checks; an unreliable one flags every time ratio of the row.
        let checks: Vec<Option<AaCheck>> = aa_pairs
            .iter()
            .map(|(second, first)| AaCheck::of(&time_of(second), &time_of(first)))
            .collect();
        let flag = if checks.iter().flatten().any(|c| !c.reliable()) {
            " ⚠"
        } else {
            ""
        };
        let _ = write!(
            s,
            "| {dataset} | {program} | {kind} | {size} | {batches} | {model} | {} |",
            cell(ratio, 2, "")
        );
        if with_bf {
            let _ = write!(s, " {} |", cell(deleted_ratio(&|e| e == "bf"), 2, ""));
        }
        for e in &engines {
            let t = time_of(e);
            let times = Spread::of(t.values().map(|&v| v as f64 / 1e3).collect());
            let ratios: Vec<f64> = t
                .iter()
                .filter_map(|(b, &te)| recompute.get(b).map(|&tr| tr as f64 / te.max(1) as f64))
                .collect();
            let worst = ratios.iter().copied().fold(f64::INFINITY, f64::min);
            let collapse = if worst < 1.0 / COLLAPSE_FACTOR {
                collapsed += 1;
                format!(" ‼ worst {:.1}× recompute", 1.0 / worst)
            } else {
                String::new()
            };
            let speedup = Spread::of(ratios);
            let _ = write!(
                s,
                " {} | {}{collapse}{flag} |",
                cell(times, 1, ""),
                cell(speedup, 1, "×")
            );
        }
        let times = Spread::of(recompute.values().map(|&v| v as f64 / 1e3).collect());
        let _ = write!(s, " {} |", cell(times, 1, ""));
        for check in &checks {
            let _ = write!(s, " {} |", check.map_or("–".into(), |c| c.render()));
        }
        s.push('\n');
    }
    if collapsed > 0 {
        let _ = writeln!(
            s,
            "\n‼ worst N× recompute: in {collapsed} cell(s) an engine's slowest batch took more \
             than {COLLAPSE_FACTOR}× recomputation's time on the same batch."
        );
    }
    s
}

/// The table behind the charts' medians, as CSV: per dataset, program, kind, change size and
/// engine, the batches (after materialisation, without errors), the median time per batch
/// with its spread (p10 and p90 from 20 batches on, else the minimum and the maximum, named
/// in `spread`), and whether the case is bimodal (ends more than 10× apart).
pub fn spread_table(rows: &[ReportRow]) -> String {
    type Key = (String, String, String, Option<usize>, String);
    let mut times: BTreeMap<Key, Vec<f64>> = BTreeMap::new();
    for r in rows.iter().filter(|r| r.batch > 0 && r.error.is_none()) {
        times
            .entry((
                r.dataset.clone(),
                r.program.clone(),
                r.kind.clone(),
                r.size,
                r.engine.clone(),
            ))
            .or_default()
            .push(r.scheduled_ns() as f64);
    }
    let mut csv = String::from(
        "dataset,program,kind,size,engine,batches,time_median_ns,time_lo_ns,time_hi_ns,spread,bimodal\n",
    );
    for ((dataset, program, kind, size, engine), v) in times {
        let Some(s) = Spread::of(v) else { continue };
        csv.push_str(&format!(
            "{},{},{},{},{},{},{},{},{},{},{}\n",
            quote(&dataset),
            quote(&program),
            kind,
            size.map_or(String::new(), |k| k.to_string()),
            engine,
            s.n,
            s.median,
            s.lo,
            s.hi,
            if s.percentiles() {
                "p10-p90"
            } else {
                "min-max"
            },
            s.bimodal()
        ));
    }
    csv
}

/// A CSV field, quoted when it holds a comma or a quote.
fn quote(field: &str) -> String {
    if field.contains([',', '"']) {
        format!("\"{}\"", field.replace('"', "\"\""))
    } else {
        field.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Twenty batches of `dred` at 1 µs and `recompute` at 100 µs, but batch 7 of `dred`
    /// at `slow_ns`, of which it waited `waited` for a CPU.
    fn seventh_batch_slow(slow_ns: u64, waited: u64) -> Vec<ReportRow> {
        let mut rows = Vec::new();
        for batch in 1..=20 {
            let seventh = batch == 7;
            for (engine, t) in [
                ("dred", if seventh { slow_ns } else { 1_000 }),
                ("recompute", 100_000),
            ] {
                rows.push(ReportRow {
                    dataset: "d".into(),
                    program: "p".into(),
                    engine: engine.into(),
                    kind: "delete".into(),
                    size: Some(1),
                    batch,
                    workers: 1,
                    time_ns: t,
                    descheduled_ns: Some(if seventh && engine == "dred" {
                        waited
                    } else {
                        0
                    }),
                    ..ReportRow::default()
                });
            }
        }
        rows
    }

    /// One batch of twenty at 4× recomputation's time flags the cell, though the median is
    /// a speed-up; at 2× it does not.
    #[test]
    fn a_collapsed_batch_is_flagged_whatever_the_median() {
        let flagged = summary(&seventh_batch_slow(400_000, 0));
        assert!(flagged.contains("‼ worst 4.0× recompute"), "{flagged}");
        assert!(flagged.contains("in 1 cell(s)"), "{flagged}");
        let fine = summary(&seventh_batch_slow(200_000, 0));
        assert!(!fine.contains("worst"), "{fine}");
    }

    /// A batch slow only by its wait for a CPU (`descheduled_ns`) is not a collapse: the
    /// checks read the time the thread ran.
    #[test]
    fn a_batch_slow_by_its_wait_for_a_cpu_is_not_flagged() {
        let waited = summary(&seventh_batch_slow(4_400_000, 4_300_000));
        assert!(!waited.contains("worst"), "{waited}");
        let worked = summary(&seventh_batch_slow(4_400_000, 0));
        assert!(worked.contains("‼ worst 44.0× recompute"), "{worked}");
    }

    /// The key table: `dred`'s over-deleted / removed, and a `bf deleted / removed` column
    /// when `bf` ran (absent otherwise).
    #[test]
    fn key_table_has_bf_deleted_over_removed_when_bf_ran() {
        let row = |engine: &str, batch: usize, over: usize, removed: usize| ReportRow {
            dataset: "d".into(),
            program: "p".into(),
            engine: engine.into(),
            kind: "delete".into(),
            size: Some(1),
            batch,
            overdeleted: Some(over),
            model_removed: removed,
            time_ns: 10_000,
            ..ReportRow::default()
        };
        let mut rows = Vec::new();
        for batch in 1..=3 {
            rows.push(row("dred", batch, 40, 4));
            rows.push(row("bf", batch, 4, 4));
            rows.push(ReportRow {
                overdeleted: None,
                ..row("recompute", batch, 0, 4)
            });
        }
        let table = summary(&rows);
        let header = table.lines().next().expect("header");
        assert!(header.contains("| over-deleted / removed | bf deleted / removed |"));
        let line = table.lines().nth(2).expect("a case");
        assert!(
            line.contains("| 10.00 [10.00–10.00] | 1.00 [1.00–1.00] |"),
            "{line}"
        );
        rows.retain(|r| r.engine != "bf");
        assert!(!summary(&rows).contains("bf deleted"));
    }

    /// The spread table: a bimodal case (62 µs and 5,681 µs batches) is flagged, a steady one
    /// is not; 21 batches give p10 and p90; names with commas are quoted.
    #[test]
    fn spread_table_flags_bimodal_cases() {
        let mut rows = Vec::new();
        for batch in 1..=21 {
            for (engine, t) in [
                ("dred", if batch % 2 == 0 { 62 } else { 5681 }),
                ("dd", 300),
            ] {
                rows.push(ReportRow {
                    dataset: "gen:rmat?n=4,m=8".into(),
                    program: "reach_root".into(),
                    engine: engine.into(),
                    kind: "delete".into(),
                    size: Some(1),
                    batch,
                    time_ns: t * 1000,
                    ..ReportRow::default()
                });
            }
        }
        let table = spread_table(&rows);
        assert!(
            table.contains(
                "\"gen:rmat?n=4,m=8\",reach_root,delete,1,dred,21,5681000,62000,5681000,p10-p90,true"
            ),
            "{table}"
        );
        assert!(
            table.contains(",dd,21,300000,300000,300000,p10-p90,false"),
            "{table}"
        );
    }
}
