//! Comparing a report with a committed baseline (`dredbench regress`): a report regresses
//! when a model mismatch appears, when a deterministic figure changes, or when an engine's
//! time relative to a reference engine worsens past a tolerance ([`Tolerances`]).
//!
//! Rows are matched by (dataset, program, stream, kind, size, seed, engine, workers, batch).
//! Deterministic figures are the ones set semantics fixes whatever the machine: the change
//! after normalisation, over-deleted, rederived and inserted counts, and the model's size and
//! net change. Times are never compared absolutely — machines differ and are shared — but as
//! the median, over the batches of a case, of an engine's time divided by the reference
//! engine's time on the same batch, measured side by side in the same run. Work counters
//! (probes and rows touched) are deterministic for a given plan, so growth of an engine's
//! total work on a case past a small tolerance fails too, with no noise to allow for;
//! baselines written before the counters existed skip this check.

use std::collections::BTreeMap;

use crate::report::ReportRow;
use crate::stats::{median, AaCheck};

/// What counts as a regression: how much worse an engine's times relative to the reference
/// engine, and its work, may get before a report fails against its baseline.
#[derive(Debug, Clone)]
pub struct Tolerances {
    /// Allowed relative worsening of an engine's median time ratio to the reference engine
    /// on one case (0.5 = up to 50% slower relative to it).
    pub tolerance: f64,
    /// The engine times are divided by.
    pub reference_engine: String,
    /// Cases without an A/A pair in either report whose reference engine takes less than
    /// this many microseconds a batch (median) are left out of time ratios, whole. Cases
    /// with one are judged by it instead ([`timed_cases`]).
    pub min_time_us: u64,
    /// Standard deviations of a case's A/A-measured noise by which its time ratio may
    /// worsen, where that is more than the tolerance (and likewise for the aggregate).
    pub noise_z: f64,
    /// The least share of the cases whose times can be judged: below it the report fails,
    /// since a gate that leaves out most cases (their A/A pairs unreliable, or below the
    /// floor) would pass a slowdown unseen.
    pub min_judged: f64,
    /// Allowed relative growth of an engine's total work (probes plus rows touched, summed
    /// over a case's batches).
    pub work_tolerance: f64,
    /// Allowed relative worsening of an engine's time ratios over all timed cases together
    /// (the geometric mean, over the cases, of the new median ratio divided by the old).
    pub aggregate_tolerance: f64,
}

/// Identifies one case of one engine across runs: everything but the batch.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct CaseKey {
    dataset: String,
    program: String,
    stream: String,
    kind: String,
    size: Option<usize>,
    seed: Option<u64>,
    engine: String,
    workers: usize,
}

impl CaseKey {
    /// `dataset program kind size K`, for messages.
    pub fn describe(&self) -> String {
        format!(
            "{} {} {} size {}",
            self.dataset,
            self.program,
            self.kind,
            self.size.map_or("-".into(), |k| k.to_string())
        )
    }

    fn of(r: &ReportRow) -> Self {
        CaseKey {
            dataset: r.dataset.clone(),
            program: r.program.clone(),
            stream: r.stream.clone(),
            kind: r.kind.clone(),
            size: r.size,
            seed: r.seed,
            engine: r.engine.clone(),
            workers: r.workers,
        }
    }

    /// The same case without engine and workers: where engines are compared.
    fn without_engine(mut self) -> Self {
        self.engine.clear();
        self.workers = 0;
        self
    }
}

/// Identifies one row across runs.
type RowKey = (CaseKey, usize);

fn key(r: &ReportRow) -> RowKey {
    (CaseKey::of(r), r.batch)
}

/// The deterministic figures of a row, named.
fn figures(r: &ReportRow) -> [(&'static str, Option<usize>); 14] {
    [
        ("eff_del", Some(r.eff_del)),
        ("eff_ins", Some(r.eff_ins)),
        ("overdeleted", r.overdeleted),
        ("rederived", r.rederived),
        ("inserted", r.inserted),
        ("model_removed", Some(r.model_removed)),
        ("model_added", Some(r.model_added)),
        ("model_size", Some(r.model_size)),
        ("checked", r.checked.map(|n| n as usize)),
        ("disproved", r.disproved.map(|n| n as usize)),
        (
            "backward_instances",
            r.backward_instances.map(|n| n as usize),
        ),
        ("counts_changed", r.counts_changed.map(|n| n as usize)),
        ("rounds_moved", r.rounds_moved.map(|n| n as usize)),
        ("rounds_replayed", r.rounds_replayed.map(|n| n as usize)),
    ]
}

/// Total work (probes plus rows touched, all phases, all batches) per case, for engines
/// that count it.
fn work_totals(rows: &[ReportRow]) -> BTreeMap<CaseKey, u64> {
    let mut totals: BTreeMap<CaseKey, u64> = BTreeMap::new();
    for r in rows {
        let counters = [
            r.overdelete_probes,
            r.overdelete_touched,
            r.rederive_probes,
            r.rederive_touched,
            r.insert_probes,
            r.insert_touched,
        ];
        if counters.iter().any(Option::is_some) {
            *totals.entry(CaseKey::of(r)).or_default() += counters.iter().flatten().sum::<u64>();
        }
    }
    totals
}

/// Median time ratio engine / reference per case, over the batches after the first, for
/// every case (which ones are judged: [`timed_cases`]).
pub fn time_ratios(rows: &[ReportRow], reference: &str) -> BTreeMap<CaseKey, f64> {
    let reference_time = reference_times(rows, reference);
    let mut ratios: BTreeMap<CaseKey, Vec<f64>> = BTreeMap::new();
    for r in rows.iter().filter(|r| r.engine != reference && r.batch > 0) {
        let case = CaseKey::of(r).without_engine();
        if let Some(&t) = reference_time.get(&(case, r.batch)) {
            ratios
                .entry(CaseKey::of(r))
                .or_default()
                .push(r.scheduled_ns() as f64 / t.max(1) as f64);
        }
    }
    ratios
        .into_iter()
        .filter_map(|(k, v)| Some((k, median(v)?)))
        .collect()
}

/// The reference engine's time per case (without engine) and batch, nanoseconds.
fn reference_times(rows: &[ReportRow], reference: &str) -> BTreeMap<(CaseKey, usize), u64> {
    rows.iter()
        .filter(|r| r.engine == reference && r.batch > 0)
        .map(|r| ((CaseKey::of(r).without_engine(), r.batch), r.scheduled_ns()))
        .collect()
}

/// The A/A check of every case (without engine) that ran a second instance of an engine
/// (`dred@2` beside `dred`): per batch, the second's time over the first's.
pub fn aa_checks(rows: &[ReportRow]) -> BTreeMap<CaseKey, AaCheck> {
    type Times = BTreeMap<usize, u64>;
    let mut by_case: BTreeMap<CaseKey, BTreeMap<&str, Times>> = BTreeMap::new();
    for r in rows.iter().filter(|r| r.batch > 0 && r.error.is_none()) {
        by_case
            .entry(CaseKey::of(r).without_engine())
            .or_default()
            .entry(r.engine.as_str())
            .or_default()
            .insert(r.batch, r.scheduled_ns());
    }
    let mut out = BTreeMap::new();
    for (case, engines) in by_case {
        let pair = engines.iter().find_map(|(name, second)| {
            let (first, _) = name.split_once('@')?;
            AaCheck::of(second, engines.get(first)?)
        });
        if let Some(check) = pair {
            out.insert(case, check);
        }
    }
    out
}

/// How a case's time ratios are judged.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Timing {
    /// By the noise its A/A pairs measured: the standard deviation of the logarithm of
    /// (new median ratio / old median ratio) that noise alone would give.
    Noise(f64),
    /// Without an A/A pair in either report, by the reference's median time against the
    /// fixed floor ([`Tolerances::min_time_us`]).
    Floor,
}

/// Why a case's times are not judged.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Untimed {
    /// An A/A median outside [`crate::stats::AA_RELIABLE`]: the instrument does not read 1
    /// when it compares an engine with itself here (the median found).
    Unreliable(f64),
    /// No A/A pair, and the reference's median batch is below the floor.
    BelowFloor,
}

/// Which cases (without engine) of `report` are judged against `baseline`, and how. A case
/// with an A/A pair in either report is judged whenever every A/A pair it has reads
/// reliable, however short its batches; its noise is the standard error of a median of its
/// per-batch log ratios (1.2533 σ / √n, σ from the A/A spread), old and new combined (a
/// report without the pair counts the other's twice). A case with none falls back to the
/// floor on the reference's median time.
pub fn timed_cases(
    baseline: &[ReportRow],
    report: &[ReportRow],
    args: &Tolerances,
) -> BTreeMap<CaseKey, Result<Timing, Untimed>> {
    let (old_aa, new_aa) = (aa_checks(baseline), aa_checks(report));
    let median_reference_us = |rows: &[ReportRow]| -> BTreeMap<CaseKey, f64> {
        let mut per_case: BTreeMap<CaseKey, Vec<f64>> = BTreeMap::new();
        for ((case, _), t) in reference_times(rows, &args.reference_engine) {
            per_case.entry(case).or_default().push(t as f64 / 1e3);
        }
        per_case
            .into_iter()
            .filter_map(|(c, v)| Some((c, median(v)?)))
            .collect()
    };
    let (old_ref, new_ref) = (median_reference_us(baseline), median_reference_us(report));
    let se = |c: &AaCheck| 1.2533 * c.log_sd() / (c.n.max(1) as f64).sqrt();
    let mut out = BTreeMap::new();
    for (case, new_t) in &new_ref {
        let Some(old_t) = old_ref.get(case) else {
            continue;
        };
        let checks: Vec<&AaCheck> = [old_aa.get(case), new_aa.get(case)]
            .into_iter()
            .flatten()
            .collect();
        let timing = if let Some(bad) = checks.iter().find(|c| !c.reliable()) {
            Err(Untimed::Unreliable(bad.median))
        } else if checks.is_empty() {
            if new_t.min(*old_t) >= args.min_time_us as f64 {
                Ok(Timing::Floor)
            } else {
                Err(Untimed::BelowFloor)
            }
        } else {
            let factor = if checks.len() == 1 { 2.0 } else { 1.0 };
            let variance: f64 = checks.iter().map(|c| se(c).powi(2)).sum::<f64>() * factor;
            Ok(Timing::Noise(variance.sqrt()))
        };
        out.insert(case.clone(), timing);
    }
    out
}

/// The factor by which a median ratio may worsen on a case before it fails: the fixed
/// tolerance, widened to `z` standard deviations of the case's noise where that is larger.
fn allowed_factor(timing: Timing, tolerance: f64, z: f64) -> f64 {
    match timing {
        Timing::Noise(sd) => (1.0 + tolerance).max((z * sd).exp()),
        Timing::Floor => 1.0 + tolerance,
    }
}

/// Per engine, over the cases judged: the geometric mean of new median ratio / old, the
/// number of cases, and the factor it may reach (the aggregate tolerance, widened to `z`
/// standard errors of the mean of the cases' noise).
pub fn aggregate_change(
    old: &BTreeMap<CaseKey, f64>,
    new: &BTreeMap<CaseKey, f64>,
    timed: &BTreeMap<CaseKey, Result<Timing, Untimed>>,
    aggregate_tolerance: f64,
    z: f64,
) -> BTreeMap<String, (f64, usize, f64)> {
    // Per engine: sum of log changes, sum of noise variances, cases.
    let mut sums: BTreeMap<String, (f64, f64, usize)> = BTreeMap::new();
    for (case, &o) in old {
        let Some(Ok(timing)) = timed.get(&case.clone().without_engine()) else {
            continue;
        };
        if let Some(&n) = new.get(case) {
            // A ratio of 0 (an engine under the timer's resolution) counts as the smallest
            // positive one, so that the logarithm stays finite.
            let change = n.max(f64::MIN_POSITIVE) / o.max(f64::MIN_POSITIVE);
            let e = sums.entry(case.engine.clone()).or_default();
            e.0 += change.ln();
            if let Timing::Noise(sd) = timing {
                e.1 += sd * sd;
            }
            e.2 += 1;
        }
    }
    sums.into_iter()
        .map(|(engine, (logs, variance, n))| {
            let n_f = n as f64;
            let sd_of_mean = variance.sqrt() / n_f;
            let allowed = (1.0 + aggregate_tolerance).max((z * sd_of_mean).exp());
            (engine, ((logs / n_f).exp(), n, allowed))
        })
        .collect()
}

/// Everything that makes `report` a regression against `baseline`, as readable lines.
pub fn find_regressions(
    baseline: &[ReportRow],
    report: &[ReportRow],
    args: &Tolerances,
) -> Vec<String> {
    let mut problems = Vec::new();
    for r in report {
        if let Some(e) = &r.error {
            problems.push(format!(
                "{} {} batch {} engine {}: {e}",
                r.dataset, r.program, r.batch, r.engine
            ));
        }
    }
    let new: BTreeMap<RowKey, &ReportRow> = report.iter().map(|r| (key(r), r)).collect();
    for b in baseline {
        let k = key(b);
        let Some(r) = new.get(&k) else {
            problems.push(format!(
                "missing from the report: {} {} {} size {:?} seed {:?} engine {} batch {}",
                b.dataset, b.program, b.kind, b.size, b.seed, b.engine, b.batch
            ));
            continue;
        };
        for ((name, old), (_, now)) in figures(b).into_iter().zip(figures(r)) {
            if old != now {
                problems.push(format!(
                    "{name} changed: {} {} {} size {:?} seed {:?} engine {} batch {}: {} -> {}",
                    b.dataset,
                    b.program,
                    b.kind,
                    b.size,
                    b.seed,
                    b.engine,
                    b.batch,
                    old.map_or("-".into(), |v| v.to_string()),
                    now.map_or("-".into(), |v| v.to_string())
                ));
            }
        }
    }
    let new_work = work_totals(report);
    for (case, old) in work_totals(baseline) {
        if let Some(&now) = new_work.get(&case) {
            if now as f64 > old as f64 * (1.0 + args.work_tolerance) {
                problems.push(format!(
                    "work grew: {} {} {} size {:?} engine {}: {} -> {} probes + rows touched (tolerance {:.0}%)",
                    case.dataset,
                    case.program,
                    case.kind,
                    case.size,
                    case.engine,
                    old,
                    now,
                    args.work_tolerance * 100.0
                ));
            }
        }
    }
    let old_ratios = time_ratios(baseline, &args.reference_engine);
    let new_ratios = time_ratios(report, &args.reference_engine);
    let timed = timed_cases(baseline, report, args);
    let judged = timed.values().filter(|t| t.is_ok()).count();
    if !timed.is_empty() && (judged as f64) < args.min_judged * timed.len() as f64 {
        let unreliable = timed
            .values()
            .filter(|t| matches!(t, Err(Untimed::Unreliable(_))))
            .count();
        problems.push(format!(
            "time ratios judged on only {judged} of {} case(s) ({unreliable} with an unreliable \
             A/A pair, the others below the floor; at least {:.0}% must be judged)",
            timed.len(),
            args.min_judged * 100.0
        ));
    }
    for (engine, (factor, cases, allowed)) in aggregate_change(
        &old_ratios,
        &new_ratios,
        &timed,
        args.aggregate_tolerance,
        args.noise_z,
    ) {
        if factor > allowed {
            problems.push(format!(
                "time ratios worse overall: engine {engine} vs {}: geometric mean of new / old \
                 median ratio over {cases} timed case(s) {factor:.2} (allowed {allowed:.2})",
                args.reference_engine,
            ));
        }
    }
    for (case, old) in &old_ratios {
        let Some(Ok(timing)) = timed.get(&case.clone().without_engine()) else {
            continue;
        };
        let allowed = allowed_factor(*timing, args.tolerance, args.noise_z);
        if let Some(now) = new_ratios.get(case) {
            if *now > old * allowed {
                problems.push(format!(
                    "time ratio worse: {} {} {} size {:?} engine {} vs {}: median {:.4} -> {:.4} \
                     ({:.2}×; allowed {allowed:.2}× {})",
                    case.dataset,
                    case.program,
                    case.kind,
                    case.size,
                    case.engine,
                    args.reference_engine,
                    old,
                    now,
                    now / old,
                    match timing {
                        Timing::Noise(sd) => format!("by the A/A noise, σ {sd:.3}"),
                        Timing::Floor => "by the fixed tolerance".into(),
                    }
                ));
            }
        }
    }
    problems
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args() -> Tolerances {
        Tolerances {
            tolerance: 0.5,
            reference_engine: "recompute".into(),
            min_time_us: 0,
            noise_z: 4.0,
            min_judged: 0.0,
            work_tolerance: 0.1,
            aggregate_tolerance: 0.5,
        }
    }

    fn rows() -> Vec<ReportRow> {
        let mut v = Vec::new();
        for batch in 1..=3 {
            for (engine, t) in [("recompute", 1000), ("dred", 100)] {
                v.push(ReportRow {
                    dataset: "g".into(),
                    program: "tc".into(),
                    engine: engine.into(),
                    workers: 1,
                    batch,
                    eff_del: 1,
                    overdeleted: (engine == "dred").then_some(5),
                    overdelete_probes: (engine == "dred").then_some(50),
                    insert_touched: Some(200),
                    model_size: 40,
                    time_ns: t * 1000,
                    ..ReportRow::default()
                });
            }
        }
        v
    }

    #[test]
    fn identical_report_passes() {
        assert!(find_regressions(&rows(), &rows(), &args()).is_empty());
    }

    #[test]
    fn changed_figure_mismatch_and_slowdown_fail() {
        let base = rows();
        let mut r = rows();
        r[1].overdeleted = Some(6);
        let p = find_regressions(&base, &r, &args());
        assert!(
            p.len() == 1 && p[0].contains("overdeleted changed"),
            "{p:?}"
        );

        let mut r = rows();
        r[5].error = Some("mismatch: models differ after batch 3".into());
        assert_eq!(find_regressions(&base, &r, &args()).len(), 1);

        // Twice as slow relative to recompute on every batch: past a 50% tolerance.
        let mut r = rows();
        for row in r.iter_mut().filter(|x| x.engine == "dred") {
            row.time_ns = 200_000;
        }
        let p = find_regressions(&base, &r, &args());
        assert!(
            p.len() == 2
                && p.iter().any(|x| x.contains("time ratio worse:"))
                && p.iter().any(|x| x.contains("time ratios worse overall")),
            "{p:?}"
        );
        // Uniformly slower machine: ratios unchanged, passes.
        let mut r = rows();
        for row in &mut r {
            row.time_ns *= 3;
        }
        assert!(find_regressions(&base, &r, &args()).is_empty());

        // Work is deterministic: 5% more passes, 20% more fails, less passes.
        for (factor, fails) in [(1.05, false), (1.2, true), (0.5, false)] {
            let mut r = rows();
            for row in r.iter_mut().filter(|x| x.engine == "dred") {
                row.overdelete_probes = Some((50.0 * factor) as u64);
                row.insert_touched = Some((200.0 * factor) as u64);
            }
            let p = find_regressions(&base, &r, &args());
            assert_eq!(p.len(), usize::from(fails), "{factor}: {p:?}");
            assert!(!fails || p[0].contains("work grew"), "{p:?}");
        }

        let r = rows()[..4].to_vec();
        assert!(find_regressions(&base, &r, &args())
            .iter()
            .any(|p| p.starts_with("missing")));
    }

    /// A case is timed or not as a whole, by its reference's median batch: a report whose
    /// reference runs mostly below the bound is not judged by the one batch it ran slowly
    /// (where a noisy batch of the engine would decide the median), and one above the bound
    /// is judged by all its batches.
    #[test]
    fn time_bound_applies_to_whole_cases() {
        let case = |reference: [u64; 5], engine: [u64; 5]| -> Vec<ReportRow> {
            let mut v = Vec::new();
            for (i, (t_ref, t)) in reference.into_iter().zip(engine).enumerate() {
                for (name, time_us) in [("recompute", t_ref), ("dred", t)] {
                    v.push(ReportRow {
                        dataset: "g".into(),
                        program: "reach".into(),
                        engine: name.into(),
                        batch: i + 1,
                        time_ns: time_us * 1000,
                        ..ReportRow::default()
                    });
                }
            }
            v
        };
        let bounded = Tolerances {
            min_time_us: 200,
            ..args()
        };
        let base = case([250; 5], [40, 2, 2, 2, 2]);
        // The reference's median batch is 150 µs: the case is not timed, although batch 1
        // (250 µs, where dred took 40 µs) is above the bound.
        let fast = case([250, 150, 150, 150, 150], [40, 2, 2, 2, 2]);
        assert!(find_regressions(&base, &fast, &bounded).is_empty());
        assert!(!timed_cases(&base, &fast, &bounded)
            .get(&CaseKey::of(&fast[1]).without_engine())
            .is_some_and(|t| t.is_ok()));
        // Above the bound, every batch counts: dred 20x slower on all but one fails.
        let slower = case([250, 199, 250, 250, 250], [40, 40, 40, 40, 2]);
        let p = find_regressions(&base, &slower, &bounded);
        assert!(
            p.len() == 2 && p.iter().any(|x| x.contains("time ratio worse:")),
            "{p:?}"
        );
        let ratios = time_ratios(&slower, "recompute");
        assert_eq!(ratios.get(&CaseKey::of(&slower[1])), Some(&0.16));
    }

    /// With a loose per-case tolerance (CI's: 200%), an engine made 1.8× slower on every case
    /// passes each case but fails overall; noise of ±30% on single cases, half up and half
    /// down, passes both.
    #[test]
    fn the_overall_check_catches_a_slowdown_spread_over_every_case() {
        let cases = |factor: &dyn Fn(usize) -> f64| -> Vec<ReportRow> {
            let mut v = Vec::new();
            for case in 0..8 {
                for batch in 1..=3 {
                    for (engine, t) in [("recompute", 1000.0), ("dred", 100.0 * factor(case))] {
                        v.push(ReportRow {
                            dataset: format!("g{case}"),
                            program: "tc".into(),
                            engine: engine.into(),
                            workers: 1,
                            batch,
                            time_ns: (t * 1000.0) as u64,
                            ..ReportRow::default()
                        });
                    }
                }
            }
            v
        };
        let loose = Tolerances {
            tolerance: 2.0,
            ..args()
        };
        let base = cases(&|_| 1.0);
        let p = find_regressions(&base, &cases(&|_| 1.8), &loose);
        assert!(
            p.len() == 1 && p[0].contains("time ratios worse overall") && p[0].contains("1.80"),
            "{p:?}"
        );
        let noisy = cases(&|c| if c % 2 == 0 { 1.3 } else { 0.77 });
        assert!(find_regressions(&base, &noisy, &loose).is_empty());
    }

    /// Cases of 5 µs batches (recompute 10 µs), 41 batches each, every time with noise of
    /// ±20% (a fixed pseudo-random draw per seed), `dred` `slow` times slower, and the A/A
    /// pair `dred@2` beside it when `aa` (`aa_bias` times slower than `dred`).
    fn small_cases(seed: u64, slow: f64, aa: bool, aa_bias: f64) -> Vec<ReportRow> {
        let mut rng = crate::datasets::rng::SplitMix64::new(seed);
        let mut noise = move || 0.8 + 0.4 * (rng.below(1_000) as f64 / 1_000.0);
        let mut v = Vec::new();
        for case in 0..6 {
            for batch in 1..=41 {
                let mut engines = vec![("recompute", 10.0), ("dred", 5.0 * slow)];
                if aa {
                    engines.push(("dred@2", 5.0 * slow * aa_bias));
                }
                for (engine, us) in engines {
                    v.push(ReportRow {
                        dataset: format!("g{case}"),
                        program: "reach".into(),
                        engine: engine.into(),
                        workers: 1,
                        batch,
                        time_ns: (us * 1000.0 * noise()) as u64,
                        ..ReportRow::default()
                    });
                }
            }
        }
        v
    }

    /// With an A/A pair, batches of 5 µs are judged (the fixed floor of 200 µs left them
    /// out): `dred` made 1.5× slower fails per case and overall, noise alone passes, on
    /// three independent reruns; a case whose pair reads 1.2 is left out as unreliable.
    #[test]
    fn the_aa_noise_floor_catches_a_slowdown_of_microsecond_batches_and_passes_noise() {
        let gate = Tolerances {
            tolerance: 0.25,
            min_time_us: 200,
            aggregate_tolerance: 0.2,
            min_judged: 0.5,
            ..args()
        };
        let base = small_cases(1, 1.0, true, 1.0);
        let timed = timed_cases(&base, &small_cases(2, 1.0, true, 1.0), &gate);
        assert_eq!(timed.len(), 6);
        assert!(
            timed.values().all(|t| matches!(t, Ok(Timing::Noise(_)))),
            "{timed:?}"
        );
        for seed in 2..5 {
            let same = small_cases(seed, 1.0, true, 1.0);
            let p = find_regressions(&base, &same, &gate);
            assert!(p.is_empty(), "seed {seed}: {p:?}");
            let slow = small_cases(seed, 1.5, true, 1.0);
            let p = find_regressions(&base, &slow, &gate);
            assert!(
                p.iter()
                    .any(|x| x.contains("time ratios worse overall: engine dred "))
                    && p.iter().any(|x| x.contains("time ratio worse: g0 reach")),
                "seed {seed}: {p:?}"
            );
        }
        // Without the pair, the same cases fall under the floor: nothing is judged, and the
        // gate says so rather than passing blind (unless told to accept it).
        let (plain_base, plain_slow) = (
            small_cases(1, 1.0, false, 1.0),
            small_cases(2, 1.5, false, 1.0),
        );
        let p = find_regressions(&plain_base, &plain_slow, &gate);
        assert!(
            p.len() == 1 && p[0].contains("judged on only 0 of 6 case(s)"),
            "{p:?}"
        );
        let blind = Tolerances {
            min_judged: 0.0,
            ..gate.clone()
        };
        assert!(find_regressions(&plain_base, &plain_slow, &blind).is_empty());
        assert!(timed_cases(&plain_base, &plain_slow, &gate)
            .values()
            .all(|t| *t == Err(Untimed::BelowFloor)));
        // A pair reading 1.2: the instrument cannot resolve this case; left out.
        let biased = small_cases(2, 1.5, true, 1.2);
        assert!(find_regressions(&base, &biased, &gate)
            .iter()
            .any(|x| x.contains("6 with an unreliable A/A pair")));
        let timed = timed_cases(&base, &biased, &gate);
        assert!(
            timed
                .values()
                .all(|t| matches!(t, Err(Untimed::Unreliable(m)) if *m > 1.1)),
            "{timed:?}"
        );
    }
}
