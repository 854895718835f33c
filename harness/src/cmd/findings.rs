//! `dredbench findings`: `results/FINDINGS.md` and its plots from a full study's folder
//! (`report.csv.gz`, or `report.csv` from an older revision; `datasets.csv`, `workloads.csv`,
//! `runs.csv`),
//! through a template whose placeholders [`crate::findings::render`] fills; also
//! `cases.csv`, the per-case figures for scripts.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use clap::Args;

use crate::cmd::study::Invocation;
use crate::datasets::shape::Shape;
use crate::findings::{plots, render, values, Findings};
use crate::report::{csv_reader, read_report, report_in};
use crate::Outcome;

/// Arguments of `dredbench findings`.
#[derive(Debug, Clone, Args)]
pub struct FindingsArgs {
    /// The full study's folder (`dredbench study --full --out DIR`).
    #[arg(long, default_value = "results/findings")]
    pub study: PathBuf,
    /// The template (default `<study>/FINDINGS.template.md`).
    #[arg(long)]
    pub template: Option<PathBuf>,
    /// The document written.
    #[arg(long, default_value = "results/FINDINGS.md")]
    pub out: PathBuf,
}

/// The rows of a CSV of the study's folder, plain or gzipped ([`csv_reader`]).
fn read_csv<T: serde::de::DeserializeOwned>(path: &Path) -> anyhow::Result<Vec<T>> {
    let mut rdr = csv_reader(path)?;
    rdr.deserialize()
        .collect::<Result<Vec<T>, _>>()
        .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))
}

/// The plots folder as the document links it: relative to the document's folder when the
/// study lies under it.
fn plots_link(study: &Path, out: &Path) -> String {
    let plots = study.join("plots");
    let base = out.parent().unwrap_or(Path::new(""));
    plots
        .strip_prefix(base)
        .unwrap_or(&plots)
        .to_string_lossy()
        .replace('\\', "/")
}

/// Runs the command.
pub fn run(args: &FindingsArgs) -> anyhow::Result<Outcome> {
    let rows = read_report(&report_in(&args.study))?;
    let shapes: Vec<Shape> = read_csv(&args.study.join("datasets.csv"))?;
    let runs_path = args.study.join("runs.csv");
    let runs: Vec<Invocation> = if runs_path.exists() {
        read_csv(&runs_path)?
    } else {
        Vec::new()
    };
    let template_path = args
        .template
        .clone()
        .unwrap_or_else(|| args.study.join("FINDINGS.template.md"));
    let template = std::fs::read_to_string(&template_path)
        .map_err(|e| anyhow::anyhow!("reading {}: {e}", template_path.display()))?;
    let mut findings = Findings::of(&rows, shapes);
    // The program analyses' shapes; a study older than them has none.
    let workloads_path = args.study.join(crate::cmd::study::WORKLOADS);
    if workloads_path.exists() {
        findings.workloads = read_csv(&workloads_path)?;
    }
    let mut figures = BTreeSet::new();
    for fig in plots::figures(&findings, &rows) {
        plots::draw_figure(&fig, &args.study.join("plots"))?;
        figures.insert(fig.name.clone());
    }
    let mut values = values(&findings, &rows, &runs);
    // The machine's calibration, as the study wrote it beside its report.
    values.insert(
        "calibration".into(),
        match crate::calibration::Calibration::read(&args.study)? {
            Some(c) => c.line(),
            None => format!(
                "Calibration: none (no `{}` beside the report: the study predates the \
                 calibration of issue 43), so how fast `recompute` is on the study's machine \
                 against another engine is not known; `dredbench study` now measures it first.",
                crate::calibration::FILE
            ),
        },
    );
    let text = render(
        &template,
        &findings,
        &values,
        &figures,
        &plots_link(&args.study, &args.out),
    )
    .map_err(|e| anyhow::anyhow!("{}: {e}", template_path.display()))?;
    dred_core::io::write_atomic(&args.out, text.as_bytes())
        .map_err(|e| anyhow::anyhow!("writing {}: {e}", args.out.display()))?;
    write_cases(&findings, &args.study.join("cases.csv"))?;
    eprintln!(
        "findings: {} case(s), {} failed; wrote {}, {} plot(s) and {}",
        findings.cases.len(),
        findings.failed.len(),
        args.out.display(),
        figures.len(),
        args.study.join("cases.csv").display()
    );
    Ok(Outcome::Agree)
}

/// One line per case: its medians, for scripts.
fn write_cases(f: &Findings, path: &Path) -> anyhow::Result<()> {
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record([
        "dataset",
        "program",
        "kind",
        "size",
        "batches",
        "dred_saturated",
        "model_size",
        "removed",
        "overdeleted",
        "overdeletion_ratio",
        "amplification",
        "bf_checked",
        "bf_over_dred",
        "time_dred_us",
        "time_bf_us",
        "time_dd_us",
        "time_recompute_us",
        "speedup_dred",
        "speedup_bf",
        "speedup_dd",
        "aa_median",
        "aa_p10",
        "aa_p90",
        "aa_unreliable",
        "worst_dred",
        "worst_bf",
        "worst_dd",
    ])?;
    let m = |s: Option<crate::stats::Spread>| s.map_or(String::new(), |s| format!("{}", s.median));
    for c in &f.cases {
        let t = |e: &str| m(c.time.get(e).copied());
        let sp = |e: &str| m(c.speedup.get(e).copied());
        let worst = |e: &str| {
            c.worst
                .get(e)
                .map_or(String::new(), |w| w.ratio.to_string())
        };
        w.write_record([
            c.dataset.clone(),
            c.program.clone(),
            c.kind.clone(),
            c.size.to_string(),
            c.batches.to_string(),
            c.saturated.to_string(),
            c.model_size.to_string(),
            m(c.removed),
            m(c.overdeleted),
            m(c.overdeletion),
            m(c.amplification),
            m(c.bf_checked),
            m(c.bf_over_dred),
            t("dred"),
            t("bf"),
            t("dd"),
            t("recompute"),
            sp("dred"),
            sp("bf"),
            sp("dd"),
            c.aa.map_or(String::new(), |a| a.median.to_string()),
            c.aa.map_or(String::new(), |a| a.p10.to_string()),
            c.aa.map_or(String::new(), |a| a.p90.to_string()),
            c.aa.map_or(String::new(), |a| (!a.reliable()).to_string()),
            worst("dred"),
            worst("bf"),
            worst("dd"),
        ])?;
    }
    dred_core::io::write_atomic(path, &w.into_inner()?)
        .map_err(|e| anyhow::anyhow!("writing {}: {e}", path.display()))
}
