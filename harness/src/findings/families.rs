//! The four families of maintenance side by side (issue 39): per batch on which `dred`
//! (delete and rederive), `bf` (backward/forward), `counting` (derivation counts) and `dd`
//! (differential dataflow) ran beside `recompute` — same batch, same model, one run — which
//! was fastest, how far each was from the fastest, and `counting` against `dred` and `dd`
//! (the targets: ≤ 0.5× `dred` on non-recursive programs, within 3× `dd` on the
//! program analyses).
//!
//! Every batch after materialisation counts, forward and inverse, deleting (any fact
//! deleted) and inserting apart; batches of a case with an error are left out.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use super::{round_sig, thousands};
use crate::report::ReportRow;
use crate::stats::median;

/// The engines compared, in table order.
pub const FAMILIES: [&str; 5] = ["dred", "bf", "counting", "dd", "recompute"];

/// One batch with every engine of [`FAMILIES`].
#[derive(Clone, Debug, PartialEq)]
pub struct FamilyBatch {
    /// The program (the workload of the tables' rows).
    pub program: String,
    /// Whether the batch deletes (it may also insert).
    pub deleting: bool,
    /// Nanoseconds of each engine of [`FAMILIES`], in that order.
    pub time_ns: [u64; 5],
}

impl FamilyBatch {
    /// The index in [`FAMILIES`] of the fastest engine (ties: table order).
    pub fn fastest(&self) -> usize {
        (0..FAMILIES.len())
            .min_by_key(|&i| (self.time_ns[i], i))
            .expect("five engines")
    }

    /// Engine `a`'s time over engine `b`'s (indexes into [`FAMILIES`]).
    pub fn ratio(&self, a: usize, b: usize) -> f64 {
        self.time_ns[a].max(1) as f64 / self.time_ns[b].max(1) as f64
    }
}

/// The batches of `rows` with every engine of [`FAMILIES`], in report order.
pub fn family_batches(rows: &[ReportRow]) -> Vec<FamilyBatch> {
    type Key<'a> = (&'a str, &'a str, &'a str, usize);
    let mut failed: BTreeSet<(&str, &str, &str)> = BTreeSet::new();
    let mut by_batch: BTreeMap<Key<'_>, BTreeMap<&str, &ReportRow>> = BTreeMap::new();
    let mut order: Vec<Key<'_>> = Vec::new();
    for r in rows {
        if r.error.is_some() {
            failed.insert((&r.dataset, &r.program, &r.stream));
        }
        if r.batch == 0 {
            continue;
        }
        let key = (
            r.dataset.as_str(),
            r.program.as_str(),
            r.stream.as_str(),
            r.batch,
        );
        let entry = by_batch.entry(key).or_default();
        if entry.is_empty() {
            order.push(key);
        }
        entry.insert(r.engine.as_str(), r);
    }
    order
        .into_iter()
        .filter(|k| !failed.contains(&(k.0, k.1, k.2)))
        .filter_map(|k| {
            let engines = &by_batch[&k];
            let mut time_ns = [0; 5];
            for (i, e) in FAMILIES.iter().enumerate() {
                time_ns[i] = engines.get(e)?.scheduled_ns();
            }
            let any = engines.values().next()?;
            if any.eff_del == 0 && any.eff_ins == 0 {
                return None;
            }
            Some(FamilyBatch {
                program: k.1.to_string(),
                deleting: any.eff_del > 0,
                time_ns,
            })
        })
        .collect()
}

/// The value at quantile `q` of `xs` (nearest rank, below).
fn quantile(xs: &[f64], q: f64) -> f64 {
    let mut v = xs.to_vec();
    v.sort_by(f64::total_cmp);
    v[((q * v.len() as f64) as usize).min(v.len() - 1)]
}

fn geomean(xs: impl Iterator<Item = f64>) -> f64 {
    let (sum, n) = xs.fold((0.0, 0usize), |(s, n), x| (s + x.ln(), n + 1));
    (sum / n.max(1) as f64).exp()
}

/// The batches grouped by program, deleting before inserting, then every program together.
fn groups(batches: &[FamilyBatch]) -> Vec<(String, &'static str, Vec<&FamilyBatch>)> {
    let mut out: Vec<(String, &'static str, Vec<&FamilyBatch>)> = Vec::new();
    let mut programs: Vec<&str> = Vec::new();
    for b in batches {
        if !programs.contains(&b.program.as_str()) {
            programs.push(&b.program);
        }
    }
    for program in programs.into_iter().map(Some).chain([None]) {
        for (deleting, dir) in [(true, "delete"), (false, "insert")] {
            let bs: Vec<&FamilyBatch> = batches
                .iter()
                .filter(|b| b.deleting == deleting && program.is_none_or(|p| b.program == p))
                .collect();
            if !bs.is_empty() {
                out.push((program.unwrap_or("all").to_string(), dir, bs));
            }
        }
    }
    out
}

const NONE: &str = "No batch of the report ran `dred`, `bf`, `counting`, `dd` and `recompute` \
                    side by side.\n";

/// Per program and direction: the share of batches each engine was fastest on, and the
/// geometric mean of each engine's time over the fastest's.
pub fn families_table(batches: &[FamilyBatch]) -> String {
    if batches.is_empty() {
        return NONE.into();
    }
    let mut s = String::from("| program | batches | dir |");
    for e in FAMILIES {
        let _ = write!(s, " fastest: {e} |");
    }
    for e in FAMILIES {
        let _ = write!(s, " geomean over fastest: {e} |");
    }
    s.push_str("\n|---|---:|---|");
    s.push_str(&"---:|".repeat(2 * FAMILIES.len()));
    s.push('\n');
    for (program, dir, bs) in groups(batches) {
        let _ = write!(s, "| {program} | {} | {dir} |", thousands(bs.len() as f64));
        for i in 0..FAMILIES.len() {
            let n = bs.iter().filter(|b| b.fastest() == i).count();
            let _ = write!(s, " {:.0}% |", 100.0 * n as f64 / bs.len() as f64);
        }
        for i in 0..FAMILIES.len() {
            let g = geomean(bs.iter().map(|b| b.ratio(i, b.fastest())));
            let _ = write!(s, " {g:.2} |");
        }
        s.push('\n');
    }
    s
}

/// `counting` against `dred` and against `dd`, per program and direction: the median of
/// the per-batch ratios with p10 and p90, and the worst batch's.
pub fn counting_table(batches: &[FamilyBatch]) -> String {
    if batches.is_empty() {
        return NONE.into();
    }
    let mut s = String::from(
        "| program | dir | batches | counting / dred: median [p10, p90] | worst | \
         counting / dd: median [p10, p90] | worst |\n|---|---|---:|---|---:|---|---:|\n",
    );
    let spread = |r: &[f64]| {
        format!(
            "{:.2} [{:.2}, {:.2}] | {}",
            median(r.to_vec()).unwrap_or(f64::NAN),
            quantile(r, 0.1),
            quantile(r, 0.9),
            thousands(round_sig(quantile(r, 1.0), 2))
        )
    };
    for (program, dir, bs) in groups(batches) {
        let over_dred: Vec<f64> = bs.iter().map(|b| b.ratio(2, 0)).collect();
        let over_dd: Vec<f64> = bs.iter().map(|b| b.ratio(2, 3)).collect();
        let _ = writeln!(
            s,
            "| {program} | {dir} | {} | {} | {} |",
            thousands(bs.len() as f64),
            spread(&over_dred),
            spread(&over_dd)
        );
    }
    s
}

/// The values the findings' text cites: `families_batches`, per engine
/// `families_fastest_<engine>` (percent of batches), and over the deleting batches
/// `counting_over_dred_median`, `counting_over_dd_median` and `counting_over_dd_worst`.
pub fn values(batches: &[FamilyBatch]) -> Vec<(String, String)> {
    let mut v = vec![(
        "families_batches".to_string(),
        thousands(batches.len() as f64),
    )];
    for (i, e) in FAMILIES.iter().enumerate() {
        let n = batches.iter().filter(|b| b.fastest() == i).count();
        let share = if batches.is_empty() {
            "–".to_string()
        } else {
            format!("{:.0}", 100.0 * n as f64 / batches.len() as f64)
        };
        v.push((format!("families_fastest_{e}"), share));
    }
    let deleting: Vec<&FamilyBatch> = batches.iter().filter(|b| b.deleting).collect();
    let ratios =
        |a: usize, b: usize| -> Vec<f64> { deleting.iter().map(|x| x.ratio(a, b)).collect() };
    let (over_dred, over_dd) = (ratios(2, 0), ratios(2, 3));
    let fmt = |r: &[f64], q: Option<f64>| match (r.is_empty(), q) {
        (true, _) => "–".to_string(),
        (false, None) => format!("{:.2}", median(r.to_vec()).unwrap_or(f64::NAN)),
        (false, Some(q)) => thousands(round_sig(quantile(r, q), 2)),
    };
    v.push(("counting_over_dred_median".into(), fmt(&over_dred, None)));
    v.push(("counting_over_dd_median".into(), fmt(&over_dd, None)));
    v.push(("counting_over_dd_worst".into(), fmt(&over_dd, Some(1.0))));
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(engine: &str, batch: usize, eff_del: usize, time_ns: u64) -> ReportRow {
        ReportRow {
            dataset: "g".into(),
            program: "tc".into(),
            engine: engine.into(),
            stream: "s".into(),
            batch,
            eff_del,
            eff_ins: usize::from(eff_del == 0),
            time_ns,
            ..ReportRow::default()
        }
    }

    #[test]
    fn batches_with_all_five_engines_are_compared_side_by_side() {
        let mut rows = Vec::new();
        for (batch, del, times) in [
            (0, 0, [9, 9, 9, 9, 9]),
            (1, 1, [100, 300, 50, 200, 1_000]),
            (2, 0, [10, 20, 40, 80, 1_000]),
        ] {
            for (e, t) in FAMILIES.iter().zip(times) {
                rows.push(row(e, batch, del, t));
            }
        }
        // A batch without `counting` is not compared.
        for e in ["dred", "bf", "dd", "recompute"] {
            rows.push(row(e, 3, 1, 5));
        }
        let batches = family_batches(&rows);
        assert_eq!(batches.len(), 2, "{batches:?}");
        assert_eq!(FAMILIES[batches[0].fastest()], "counting");
        assert_eq!(FAMILIES[batches[1].fastest()], "dred");
        let v: BTreeMap<_, _> = values(&batches).into_iter().collect();
        assert_eq!(v["families_batches"], "2");
        assert_eq!(v["families_fastest_counting"], "50");
        assert_eq!(v["counting_over_dred_median"], "0.50");
        assert_eq!(v["counting_over_dd_median"], "0.25");
        let t = counting_table(&batches);
        assert!(
            t.contains("| tc | insert | 1 | 4.00 [4.00, 4.00] | 4 |"),
            "{t}"
        );
        let f = families_table(&batches);
        assert!(
            f.contains("| all | 1 | delete | 0% | 0% | 100% | 0% | 0% |"),
            "{f}"
        );
        assert!(families_table(&[]).starts_with("No batch"));
    }
}
