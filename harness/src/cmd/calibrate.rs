//! `dredbench calibrate`: how fast `recompute` is against datafrog on this machine, on any
//! graph dataset — the calibration every study measures on GO MF first
//! ([`crate::calibration`]), repeated so that a reader can quote a median of several runs.

use clap::Args;

use crate::calibration::{measure_on, GRAPH, RUNS};
use crate::Outcome;

/// Arguments of `dredbench calibrate`.
#[derive(Debug, Clone, Args)]
pub struct CalibrateArgs {
    /// The graph closed (any dataset name with an `edge` relation: shipped, fetched,
    /// `gen:…`).
    #[arg(long, default_value = GRAPH)]
    pub dataset: String,
    /// Pairs of runs per calibration, back to back.
    #[arg(long, default_value_t = RUNS)]
    pub runs: usize,
    /// Independent calibrations; with more than one, the median of their ratios is printed
    /// last.
    #[arg(long, default_value_t = 1)]
    pub repeat: usize,
}

/// Runs the command: one line per calibration on standard output.
pub fn run(args: &CalibrateArgs) -> anyhow::Result<Outcome> {
    let mut ratios = Vec::new();
    for _ in 0..args.repeat.max(1) {
        let c = measure_on(&args.dataset, args.runs)
            .map_err(|e| crate::BadInput::Other(e.to_string()))?;
        println!("{}", c.line());
        ratios.push(c.ratio());
    }
    if ratios.len() > 1 {
        ratios.sort_by(f64::total_cmp);
        let median = crate::stats::median(ratios.clone()).unwrap_or(f64::NAN);
        println!(
            "median of {} calibrations on {}: {median:.2} (range {:.2}–{:.2})",
            ratios.len(),
            args.dataset,
            ratios[0],
            ratios[ratios.len() - 1]
        );
    }
    Ok(Outcome::Agree)
}
