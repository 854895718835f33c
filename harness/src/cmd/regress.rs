//! `dredbench regress`: compares a report with a committed baseline and fails when a model
//! mismatch appears, when a deterministic figure changes, or when an engine's time relative
//! to a reference engine worsens past a tolerance (how: [`crate::regression`]).

use std::path::PathBuf;

use clap::Args;

use crate::calibration::{Calibration, RATIO_LIMIT};
use crate::regression::{
    aggregate_change, find_regressions, time_ratios, timed_cases, Timing, Tolerances, Untimed,
};
use crate::report::read_report;
use crate::Outcome;

/// Arguments of `dredbench regress`.
#[derive(Debug, Clone, Args)]
pub struct RegressArgs {
    /// The committed baseline report (CSV, plain or gzipped: the content decides).
    #[arg(long)]
    pub baseline: PathBuf,
    /// The report to check (plain or gzipped).
    #[arg(long)]
    pub report: PathBuf,
    /// Allowed relative worsening of an engine's median time ratio to the reference engine
    /// (0.5 = up to 50% slower relative to it).
    #[arg(long, default_value_t = 0.5)]
    pub tolerance: f64,
    /// The engine times are divided by.
    #[arg(long, default_value = "recompute")]
    pub reference_engine: String,
    /// For cases without an A/A pair (a second instance such as `dred@2`) in either report:
    /// those whose reference engine takes less than this many microseconds a batch (median)
    /// are left out of time ratios. A case is kept or left out whole: keeping only its
    /// batches above the bound would compare the batches that the reference happened to run
    /// slowly. Cases with an A/A pair are judged by it, whatever their times: left out when
    /// its median leaves [0.9, 1.1], else with a tolerance widened to their measured noise.
    #[arg(long, default_value_t = 200)]
    pub min_time_us: u64,
    /// How many standard deviations of a case's A/A-measured noise its median time ratio
    /// may worsen by, where that is more than `--tolerance` (and likewise for the geometric
    /// mean against `--aggregate-tolerance`).
    #[arg(long, default_value_t = 4.0)]
    pub noise_z: f64,
    /// The least share of the cases (0 to 1) whose times must be judged: when fewer can be
    /// (their A/A pairs unreliable, or below `--min-time-us` without one), the report fails
    /// rather than pass a slowdown unseen.
    #[arg(long, default_value_t = 0.5)]
    pub min_judged: f64,
    /// Allowed relative growth of an engine's total work (probes plus rows touched, summed
    /// over a case's batches).
    #[arg(long, default_value_t = 0.1)]
    pub work_tolerance: f64,
    /// Allowed relative worsening of an engine's time ratios over all timed cases together:
    /// the geometric mean, over the cases, of the new median ratio divided by the old. Noise
    /// of single cases averages out, so this can be tight enough that an engine made 2×
    /// slower everywhere fails (0.5: the ratios may worsen by half on average).
    #[arg(long, default_value_t = 0.5)]
    pub aggregate_tolerance: f64,
}

/// Runs the command: prints every problem; `Mismatch` (exit 1) when there is one.
pub fn run(args: &RegressArgs) -> anyhow::Result<Outcome> {
    let baseline = read_report(&args.baseline)?;
    let report = read_report(&args.report)?;
    if baseline.is_empty() {
        anyhow::bail!("{}: baseline has no rows", args.baseline.display());
    }
    let tolerances = Tolerances {
        tolerance: args.tolerance,
        reference_engine: args.reference_engine.clone(),
        min_time_us: args.min_time_us,
        noise_z: args.noise_z,
        min_judged: args.min_judged,
        work_tolerance: args.work_tolerance,
        aggregate_tolerance: args.aggregate_tolerance,
    };
    let mut problems = find_regressions(&baseline, &report, &tolerances);
    // The machine's calibration, written by `study` beside its report: a `recompute` much
    // slower than datafrog makes every speedup of the report read too high.
    let beside = args.report.parent().unwrap_or(std::path::Path::new("."));
    match Calibration::read(beside)? {
        Some(c) => {
            eprintln!("regress: {}", c.line());
            if c.ratio() > RATIO_LIMIT {
                problems.push(format!(
                    "calibration: recompute takes {:.2}× datafrog's time on linear TC of {}, \
                     past {RATIO_LIMIT}× ({})",
                    c.ratio(),
                    c.graph,
                    beside.join(crate::calibration::FILE).display()
                ));
            }
        }
        None => eprintln!(
            "regress: no {} beside the report (a study writes one): the machine is not \
             calibrated",
            crate::calibration::FILE
        ),
    }
    let timed = timed_cases(&baseline, &report, &tolerances);
    let by_aa = timed
        .values()
        .filter(|t| matches!(t, Ok(Timing::Noise(_))))
        .count();
    let by_floor = timed
        .values()
        .filter(|t| matches!(t, Ok(Timing::Floor)))
        .count();
    let unreliable: Vec<String> = timed
        .iter()
        .filter_map(|(case, t)| match t {
            Err(Untimed::Unreliable(m)) => Some(format!("{} (A/A median {m:.2})", case.describe())),
            _ => None,
        })
        .collect();
    let below = timed
        .values()
        .filter(|t| matches!(t, Err(Untimed::BelowFloor)))
        .count();
    eprintln!(
        "regress: time ratios judged on {} of {} case(s): {by_aa} by their A/A noise, \
         {by_floor} by the {} µs floor; left out: {} with an unreliable A/A pair, {below} \
         without one below the floor",
        by_aa + by_floor,
        timed.len(),
        args.min_time_us,
        unreliable.len()
    );
    for u in &unreliable {
        eprintln!("  unreliable: {u}");
    }
    if problems.is_empty() {
        let old = time_ratios(&baseline, &args.reference_engine);
        let new = time_ratios(&report, &args.reference_engine);
        let overall: Vec<String> =
            aggregate_change(&old, &new, &timed, args.aggregate_tolerance, args.noise_z)
                .into_iter()
                .map(|(e, (f, n, allowed))| {
                    format!("{e} {f:.2} over {n} case(s), allowed {allowed:.2}")
                })
                .collect();
        eprintln!(
            "regress: {} baseline row(s) matched; deterministic figures equal; time ratios within \
             their allowance per case and overall (new / old, geometric mean: {})",
            baseline.len(),
            overall.join("; ")
        );
        Ok(Outcome::Agree)
    } else {
        eprintln!("regress: {} problem(s):", problems.len());
        for p in &problems {
            eprintln!("  {p}");
        }
        Ok(Outcome::Mismatch)
    }
}
