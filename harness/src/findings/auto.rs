//! The findings on `auto` (issue 40): per deleting batch on which `auto` ran beside `dred`,
//! `bf` and `recompute` (same batch, same model, side by side), its *regret* — its time over
//! the best of the three — and what it chose against what was best.
//!
//! Batches that delete nothing are left out (every engine runs the same insertion), as are
//! batches of a case with an error. All batches count, the inverse batches of a reverted
//! stream too: a collapse must not hide among the forward ones.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use super::{round_sig, thousands};
use crate::report::ReportRow;
use crate::stats::median;

/// The fixed algorithms `auto` is measured against, in table order.
pub const FIXED: [&str; 3] = ["dred", "bf", "recompute"];

/// One deleting batch with `auto` and the three fixed engines.
#[derive(Clone, Debug, PartialEq)]
pub struct AutoBatch {
    /// The program (the workload family of the tables).
    pub program: String,
    /// Nanoseconds of `auto` and of [`FIXED`], in that order.
    pub time_ns: [u64; 4],
    /// What `auto` chose (`dred`, `bf`, `recompute`).
    pub chosen: String,
    /// The incremental algorithm that scouted a chosen recomputation (`dred`, `bf`), if one
    /// did.
    pub scout: Option<String>,
    /// Whether the choice passed its budget (and another algorithm finished the batch).
    pub abandoned: bool,
    /// Nanoseconds of the A/A instance `dred@2` on the batch, where it ran.
    pub aa_ns: Option<u64>,
}

impl AutoBatch {
    /// The fixed engine that was fastest (ties: table order).
    pub fn best(&self) -> &'static str {
        let mut best = 0;
        for i in 1..FIXED.len() {
            if self.time_ns[1 + i] < self.time_ns[1 + best] {
                best = i;
            }
        }
        FIXED[best]
    }

    /// `engine`'s time (`auto` or one of [`FIXED`]) over the best fixed one's.
    pub fn over_best(&self, engine: &str) -> f64 {
        let t = |e: &str| {
            let i = std::iter::once("auto")
                .chain(FIXED)
                .position(|x| x == e)
                .expect("auto or a fixed engine");
            self.time_ns[i].max(1) as f64
        };
        t(engine) / t(self.best())
    }
}

/// The deleting batches of `rows` with `auto` and every fixed engine, in report order.
pub fn auto_batches(rows: &[ReportRow]) -> Vec<AutoBatch> {
    type Key<'a> = (&'a str, &'a str, &'a str, usize);
    let mut failed: std::collections::BTreeSet<(&str, &str, &str)> = Default::default();
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
            let auto = engines.get("auto")?;
            if auto.eff_del == 0 {
                return None;
            }
            let mut time_ns = [auto.scheduled_ns(), 0, 0, 0];
            for (i, e) in FIXED.iter().enumerate() {
                time_ns[1 + i] = engines.get(e)?.scheduled_ns();
            }
            Some(AutoBatch {
                program: k.1.to_string(),
                time_ns,
                chosen: auto.chosen.clone().unwrap_or_default(),
                scout: auto.scout.clone(),
                abandoned: auto.abandoned.is_some_and(|n| n > 0),
                aa_ns: engines.get("dred@2").map(|r| r.scheduled_ns()),
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

/// The regret table: per program and over all, batches, auto / best (median, p90, worst),
/// the share within 1.25× and the geometric means of auto and of each fixed engine over
/// the best.
pub fn regret_table(batches: &[AutoBatch]) -> String {
    if batches.is_empty() {
        return "No batch of the report ran `auto` beside `dred`, `bf` and `recompute`.\n".into();
    }
    let mut families: Vec<(String, Vec<&AutoBatch>)> = Vec::new();
    for b in batches {
        match families.iter_mut().find(|(p, _)| *p == b.program) {
            Some((_, v)) => v.push(b),
            None => families.push((b.program.clone(), vec![b])),
        }
    }
    families.push(("all".into(), batches.iter().collect()));
    let mut s = String::from(
        "| program | batches | auto / best: median | p90 | worst | ≤ 1.25× | geomean auto | \
         dred | bf | recompute |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n",
    );
    for (program, bs) in families {
        let r: Vec<f64> = bs.iter().map(|b| b.over_best("auto")).collect();
        let within = r.iter().filter(|&&x| x <= 1.25).count() as f64 / r.len() as f64;
        let g = |e: &str| format!("{:.2}", geomean(bs.iter().map(|b| b.over_best(e))));
        let _ = writeln!(
            s,
            "| {program} | {} | {:.2} | {:.2} | {} | {:.0}% | {} | {} | {} | {} |",
            thousands(r.len() as f64),
            median(r.clone()).unwrap_or(f64::NAN),
            quantile(&r, 0.9),
            thousands(round_sig(quantile(&r, 1.0), 2)),
            100.0 * within,
            g("auto"),
            g("dred"),
            g("bf"),
            g("recompute"),
        );
    }
    s
}

/// The confusion table: rows what `auto` chose (a recomputation's scout and abandoned
/// apart: `recompute, dred scouted` is a batch the scout finished, `…, abandoned` one it
/// abandoned), columns which fixed engine was fastest, cells batches.
pub fn confusion_table(batches: &[AutoBatch]) -> String {
    if batches.is_empty() {
        return "No batch of the report ran `auto` beside `dred`, `bf` and `recompute`.\n".into();
    }
    let mut s =
        String::from("| chosen ＼ fastest | dred | bf | recompute |\n|---|---:|---:|---:|\n");
    let scouts = [None, Some("dred"), Some("bf")];
    for (chosen, scout) in FIXED.iter().flat_map(|c| scouts.map(|s| (c, s))) {
        for abandoned in [false, true] {
            let row: Vec<usize> = FIXED
                .iter()
                .map(|best| {
                    batches
                        .iter()
                        .filter(|b| b.chosen == *chosen && b.abandoned == abandoned)
                        .filter(|b| b.scout.as_deref() == scout)
                        .filter(|b| b.best() == *best)
                        .count()
                })
                .collect();
            if row.iter().sum::<usize>() == 0 {
                continue;
            }
            let mut name = chosen.to_string();
            if let Some(scout) = scout {
                let _ = write!(name, ", {scout} scouted");
            }
            if abandoned {
                name.push_str(", abandoned");
            }
            let _ = writeln!(
                s,
                "| {name} | {} |",
                row.iter()
                    .map(|n| thousands(*n as f64))
                    .collect::<Vec<_>>()
                    .join(" | ")
            );
        }
    }
    s
}

/// The values the findings' text cites: `auto_batches`, `auto_median`, `auto_p90`,
/// `auto_worst`, `auto_within_125` and `auto_within_2` (percent of batches),
/// `auto_geomean` and `auto_geomean_{dred,bf,recompute}`, `auto_over_2x_recompute`
/// (batches), `auto_abandoned` (batches); and the regret's noise floor
/// ([`floor_values`]).
pub fn values(batches: &[AutoBatch]) -> Vec<(String, String)> {
    let mut v = regret_values(batches);
    v.extend(floor_values(batches));
    v.extend(own_cost_values(batches));
    v
}

/// `auto`'s own cost: on the batches where it ran the algorithm it chose to the end (DRed or
/// B/F, no scout, not abandoned), its time over that algorithm's engine beside it — the
/// bookkeeping of choosing, which on a batch of microseconds runs cold after the other
/// engines. Per bucket of that engine's time (`small`: under 10 µs, `mid`: 10–100 µs,
/// `large`: 100 µs or more): `auto_own_{bucket}_batches` and `auto_own_{bucket}_geomean`;
/// and the A/A pair's `dred@2` / `dred` on the batches where `dred` took under 10 µs,
/// `auto_own_aa_small_geomean`, the same code measured twice.
pub fn own_cost_values(batches: &[AutoBatch]) -> Vec<(String, String)> {
    let ran: Vec<(f64, u64)> = batches
        .iter()
        .filter(|b| b.scout.is_none() && !b.abandoned)
        .filter_map(|b| {
            let i = 1 + FIXED[..2].iter().position(|&e| e == b.chosen)?;
            let engine = b.time_ns[i].max(1);
            Some((b.time_ns[0].max(1) as f64 / engine as f64, engine))
        })
        .collect();
    let mean = |r: &[f64]| {
        if r.is_empty() {
            "–".to_string()
        } else {
            format!("{:.2}", geomean(r.iter().copied()))
        }
    };
    let mut v = Vec::new();
    for (bucket, low, high) in [
        ("small", 0, 10_000),
        ("mid", 10_000, 100_000),
        ("large", 100_000, u64::MAX),
    ] {
        let r: Vec<f64> = ran
            .iter()
            .filter(|&&(_, t)| (low..high).contains(&t))
            .map(|&(r, _)| r)
            .collect();
        v.push((
            format!("auto_own_{bucket}_batches"),
            thousands(r.len() as f64),
        ));
        v.push((format!("auto_own_{bucket}_geomean"), mean(&r)));
    }
    let aa: Vec<f64> = batches
        .iter()
        .filter(|b| b.time_ns[1] < 10_000)
        .filter_map(|b| {
            b.aa_ns
                .map(|aa| aa.max(1) as f64 / b.time_ns[1].max(1) as f64)
        })
        .collect();
    v.push(("auto_own_aa_small_geomean".into(), mean(&aa)));
    v
}

/// What the instrument's noise alone costs the regret: on the batches where `dred` was the
/// fastest and its A/A instance `dred@2` ran beside it, `dred@2` is what a chooser that picked
/// the fastest algorithm every time would read — the same algorithm, measured again — so its
/// "regret" is the floor no chooser can go below. Values: `auto_floor_batches`,
/// `auto_floor_within_125` (percent), `auto_floor_geomean`, and `auto`'s own
/// `auto_floor_auto_within_125` and `auto_floor_auto_geomean` on the same batches; and
/// `auto`'s regret where the noise is small, on the batches whose best took at least a
/// millisecond: `auto_ms_batches`, `auto_ms_within_125`, `auto_ms_geomean`.
pub fn floor_values(batches: &[AutoBatch]) -> Vec<(String, String)> {
    // A share or a mean of no batch is `–`, so that the text reads for any report.
    let within = |r: &[f64]| {
        let n = r.iter().filter(|&&x| x <= 1.25).count();
        if r.is_empty() {
            "–".to_string()
        } else {
            format!("{:.1}", 100.0 * n as f64 / r.len() as f64)
        }
    };
    let mean = |r: &[f64]| {
        if r.is_empty() {
            "–".to_string()
        } else {
            format!("{:.2}", geomean(r.iter().copied()))
        }
    };
    let on: Vec<(&AutoBatch, u64)> = batches
        .iter()
        .filter(|b| b.best() == "dred")
        .filter_map(|b| b.aa_ns.map(|aa| (b, aa)))
        .collect();
    let floor: Vec<f64> = on
        .iter()
        .map(|(b, aa)| (*aa).max(1) as f64 / b.time_ns[1].max(1) as f64)
        .collect();
    let auto: Vec<f64> = on.iter().map(|(b, _)| b.over_best("auto")).collect();
    // Where the noise is small: the batches whose best took a millisecond or more.
    let slow: Vec<f64> = batches
        .iter()
        .filter(|b| b.time_ns[1..].iter().min().is_some_and(|&t| t >= 1_000_000))
        .map(|b| b.over_best("auto"))
        .collect();
    vec![
        ("auto_floor_batches".into(), thousands(on.len() as f64)),
        ("auto_floor_within_125".into(), within(&floor)),
        ("auto_floor_geomean".into(), mean(&floor)),
        ("auto_floor_auto_within_125".into(), within(&auto)),
        ("auto_floor_auto_geomean".into(), mean(&auto)),
        ("auto_ms_batches".into(), thousands(slow.len() as f64)),
        ("auto_ms_within_125".into(), within(&slow)),
        ("auto_ms_geomean".into(), mean(&slow)),
    ]
}

/// The regret figures of [`values`].
fn regret_values(batches: &[AutoBatch]) -> Vec<(String, String)> {
    let mut v = vec![("auto_batches".to_string(), thousands(batches.len() as f64))];
    if batches.is_empty() {
        return v;
    }
    let r: Vec<f64> = batches.iter().map(|b| b.over_best("auto")).collect();
    let share = |limit: f64| {
        let n = r.iter().filter(|&&x| x <= limit).count();
        format!("{:.1}", 100.0 * n as f64 / r.len() as f64)
    };
    v.push((
        "auto_median".into(),
        format!("{:.2}", median(r.clone()).unwrap_or(f64::NAN)),
    ));
    v.push(("auto_p90".into(), format!("{:.2}", quantile(&r, 0.9))));
    v.push((
        "auto_worst".into(),
        thousands(round_sig(quantile(&r, 1.0), 2)),
    ));
    v.push(("auto_within_125".into(), share(1.25)));
    v.push(("auto_within_2".into(), share(2.0)));
    v.push((
        "auto_geomean".into(),
        format!("{:.2}", geomean(r.iter().copied())),
    ));
    for e in FIXED {
        v.push((
            format!("auto_geomean_{e}"),
            format!("{:.2}", geomean(batches.iter().map(|b| b.over_best(e)))),
        ));
    }
    let over = batches
        .iter()
        .filter(|b| b.time_ns[0] > 2 * b.time_ns[3])
        .count();
    v.push(("auto_over_2x_recompute".into(), thousands(over as f64)));
    let abandoned = batches.iter().filter(|b| b.abandoned).count();
    v.push(("auto_abandoned".into(), thousands(abandoned as f64)));
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
            time_ns,
            chosen: (engine == "auto").then(|| "dred".to_string()),
            abandoned: (engine == "auto").then_some(usize::from(batch == 2)),
            ..ReportRow::default()
        }
    }

    /// The rows of one deleting batch: `auto` (first), the fixed engines and `dred@2`, with
    /// these times.
    fn with_aa(batch: usize, [auto, dred, bf, rec, aa]: [u64; 5]) -> Vec<ReportRow> {
        [
            ("auto", auto),
            ("dred", dred),
            ("bf", bf),
            ("recompute", rec),
            ("dred@2", aa),
        ]
        .into_iter()
        .map(|(e, t)| row(e, batch, 1, t))
        .collect()
    }

    #[test]
    fn regret_is_auto_over_the_fastest_fixed_engine_on_deleting_batches() {
        let mut rows = Vec::new();
        for (batch, del, [auto, dred, bf, rec]) in [
            (0, 0, [9, 9, 9, 9]),
            (1, 1, [150, 100, 300, 1_000]),
            (2, 1, [2_000, 5_000, 4_000, 1_000]),
            (3, 0, [50, 10, 10, 10]),
        ] {
            for (e, t) in [
                ("auto", auto),
                ("dred", dred),
                ("bf", bf),
                ("recompute", rec),
            ] {
                rows.push(row(e, batch, del, t));
            }
        }
        let batches = auto_batches(&rows);
        assert_eq!(
            batches.len(),
            2,
            "batch 0 and the batch without deletions are out"
        );
        assert_eq!(batches[0].best(), "dred");
        assert!((batches[0].over_best("auto") - 1.5).abs() < 1e-9);
        assert_eq!(batches[1].best(), "recompute");
        assert!(batches[1].abandoned);
        let v: BTreeMap<_, _> = values(&batches).into_iter().collect();
        assert_eq!(v["auto_batches"], "2");
        assert_eq!(v["auto_worst"], "2");
        assert_eq!(v["auto_within_2"], "100.0");
        assert_eq!(v["auto_within_125"], "0.0");
        assert_eq!(v["auto_over_2x_recompute"], "0");
        assert_eq!(v["auto_abandoned"], "1");
        assert_eq!(v["auto_floor_batches"], "0", "no dred@2 in these rows");
        let confusion = confusion_table(&batches);
        assert!(confusion.contains("| dred | 1 | 0 | 0 |"), "{confusion}");
        assert!(
            confusion.contains("| dred, abandoned | 0 | 0 | 1 |"),
            "{confusion}"
        );
        assert!(regret_table(&batches).contains("| all | 2 | 1.75 |"));
    }

    /// A scouted recomputation has rows of its own, by scout and by whether it finished.
    #[test]
    fn a_scouted_recomputation_is_a_row_of_its_own() {
        let mut rows = Vec::new();
        for (batch, scout, abandoned, [dred, bf, rec]) in [
            (1, None, 0, [500, 300, 100]),
            (2, Some("dred"), 0, [100, 300, 1_000]),
            (3, Some("dred"), 1, [5_000, 4_000, 1_000]),
            (4, Some("bf"), 1, [5_000, 4_000, 1_000]),
        ] {
            for (e, t) in [
                ("auto", 200),
                ("dred", dred),
                ("bf", bf),
                ("recompute", rec),
            ] {
                let mut r = row(e, batch, 1, t);
                if e == "auto" {
                    r.chosen = Some("recompute".into());
                    r.scout = scout.map(str::to_string);
                    r.abandoned = Some(abandoned);
                }
                rows.push(r);
            }
        }
        let confusion = confusion_table(&auto_batches(&rows));
        for line in [
            "| recompute | 0 | 0 | 1 |",
            "| recompute, dred scouted | 1 | 0 | 0 |",
            "| recompute, dred scouted, abandoned | 0 | 0 | 1 |",
            "| recompute, bf scouted, abandoned | 0 | 0 | 1 |",
        ] {
            assert!(confusion.contains(line), "{line} not in\n{confusion}");
        }
        assert_eq!(confusion.lines().count(), 6, "{confusion}");
    }

    /// The floor counts only batches where `dred` was fastest and `dred@2` ran: there,
    /// `dred@2` over `dred` is what a perfect chooser reads.
    #[test]
    fn the_floor_is_the_aa_instance_where_dred_was_fastest() {
        let mut rows = Vec::new();
        for (batch, [auto, dred, bf, rec, aa]) in [
            (1, [150, 100, 300, 1_000, 140]),
            (2, [100, 100, 300, 1_000, 110]),
            (3, [900, 500, 200, 1_000, 50]),
        ] {
            rows.extend(with_aa(batch, [auto, dred, bf, rec, aa]));
        }
        let v: BTreeMap<_, _> = values(&auto_batches(&rows)).into_iter().collect();
        assert_eq!(v["auto_floor_batches"], "2", "batch 3's fastest is bf");
        assert_eq!(v["auto_floor_within_125"], "50.0", "1.40 and 1.10");
        assert_eq!(
            v["auto_floor_geomean"],
            format!("{:.2}", (1.4f64 * 1.1).sqrt())
        );
        assert_eq!(v["auto_floor_auto_within_125"], "50.0", "1.50 and 1.00");
        assert_eq!(
            v["auto_ms_batches"], "0",
            "every batch here takes nanoseconds"
        );
    }

    /// `auto`'s own cost counts the batches it finished with its choice, against the engine
    /// of that choice, by that engine's time; scouted and abandoned batches are out.
    #[test]
    fn auto_s_own_cost_is_over_the_engine_it_ran() {
        let mut rows = Vec::new();
        for (batch, chosen, abandoned, [auto, dred, bf, rec, aa]) in [
            (1, "dred", 0, [6_000, 4_000, 3_000, 900_000, 5_000]),
            (2, "bf", 0, [9_000, 8_000, 6_000, 900_000, 8_000]),
            (3, "bf", 0, [60_000, 10_000, 50_000, 900_000, 12_000]),
            (4, "dred", 1, [90_000, 5_000, 5_000, 50_000, 5_000]),
            (
                5,
                "recompute",
                0,
                [1_000_000, 500_000, 400_000, 900_000, 500_000],
            ),
        ] {
            let mut batch_rows = with_aa(batch, [auto, dred, bf, rec, aa]);
            batch_rows[0].chosen = Some(chosen.into());
            batch_rows[0].abandoned = Some(abandoned);
            rows.extend(batch_rows);
        }
        let v: BTreeMap<_, _> = own_cost_values(&auto_batches(&rows)).into_iter().collect();
        assert_eq!(v["auto_own_small_batches"], "2", "batches 1 and 2");
        assert_eq!(
            v["auto_own_small_geomean"],
            format!("{:.2}", (1.5f64 * 1.5).sqrt()),
            "6,000 / 4,000 and 9,000 / 6,000"
        );
        assert_eq!(
            v["auto_own_mid_batches"], "1",
            "batch 3, against bf's 50 µs"
        );
        assert_eq!(v["auto_own_mid_geomean"], "1.20");
        assert_eq!(
            v["auto_own_large_batches"], "0",
            "batch 4 abandoned, 5 recomputed"
        );
        assert_eq!(v["auto_own_large_geomean"], "–");
        assert_eq!(
            v["auto_own_aa_small_geomean"],
            format!("{:.2}", (1.25f64 * 1.0 * 1.0).powf(1.0 / 3.0)),
            "dred under 10 µs: batches 1, 2 and 4"
        );
    }

    #[test]
    fn a_case_with_an_error_is_left_out() {
        let mut rows = vec![
            row("auto", 1, 1, 10),
            row("dred", 1, 1, 10),
            row("bf", 1, 1, 10),
            row("recompute", 1, 1, 10),
        ];
        rows[1].error = Some("mismatch".into());
        assert!(auto_batches(&rows).is_empty());
        assert!(regret_table(&[]).starts_with("No batch"));
    }
}
