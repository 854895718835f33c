//! `dredbench plot`: charts from report CSVs, as SVG and PNG (the charts are described in
//! [`crate::charts`]).

use std::path::PathBuf;

use clap::Args;

use crate::charts::plot_rows;
use crate::report::read_report;
use crate::Outcome;

/// Arguments of `dredbench plot`.
#[derive(Debug, Clone, Args)]
pub struct PlotArgs {
    /// Report CSVs (from `run`, `sweep` or `study`), plain or gzipped.
    #[arg(required = true)]
    pub reports: Vec<PathBuf>,
    /// Directory for the SVG and PNG files.
    #[arg(long)]
    pub out: PathBuf,
    /// The recomputation engine, drawn as the line to beat.
    #[arg(long, default_value = "recompute")]
    pub recompute_engine: String,
}

/// Runs the command.
pub fn run(args: &PlotArgs) -> anyhow::Result<Outcome> {
    let mut rows = Vec::new();
    for r in &args.reports {
        rows.extend(read_report(r)?);
    }
    let written = plot_rows(&rows, &args.out, &args.recompute_engine)?;
    for w in &written {
        eprintln!("wrote {}", w.display());
    }
    Ok(Outcome::Agree)
}
