//! The findings' plots, as SVG and PNG: small multiples on log–log axes, one panel per
//! program (or engine), one colour per dataset (or program) shared by every panel, at most 8
//! series a panel. A zero, which a log axis cannot show, is drawn on its own line below the
//! smallest positive value and labelled `0`.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use anyhow::anyhow;
use plotters::coord::Shift;
use plotters::prelude::*;

use super::{crossover_of, forward, short_dataset, Crossover, Findings, ENGINES, RECOMPUTE};
use crate::report::ReportRow;

/// Most series a panel shows; more datasets are split over two figures.
pub const MAX_SERIES: usize = 8;

/// One panel.
#[derive(Clone, Debug, Default)]
pub struct Panel {
    /// Caption.
    pub title: String,
    /// (index into the figure's legend, points); x and y ≥ 0.
    pub series: Vec<(usize, Vec<(f64, f64)>)>,
    /// Crossover marks: x on the line y = 1.
    pub marks: Vec<(usize, f64)>,
    /// A horizontal reference line (y = 1 for ratios).
    pub reference: Option<f64>,
}

/// A figure of panels sharing axes' meaning and a legend.
#[derive(Clone, Debug)]
pub struct Figure {
    /// File stem.
    pub name: String,
    /// Title over the panels.
    pub title: String,
    /// X axis description.
    pub x: String,
    /// Y axis description.
    pub y: String,
    /// Legend names; a series' colour is its index.
    pub legend: Vec<String>,
    /// Panels in reading order.
    pub panels: Vec<Panel>,
    /// Lines through the points (else points alone).
    pub lines: bool,
}

fn err<E: std::fmt::Debug>(e: E) -> anyhow::Error {
    anyhow!("{e:?}")
}

/// Axis bounds for values ≥ 0 on a log axis: (where zero is drawn, low, high).
fn log_bounds(values: impl Iterator<Item = f64>) -> (f64, f64, f64) {
    let (mut lo, mut hi) = (f64::MAX, 0.0f64);
    for v in values.filter(|v| *v > 0.0) {
        lo = lo.min(v);
        hi = hi.max(v);
    }
    if hi == 0.0 {
        (lo, hi) = (1.0, 10.0);
    }
    let zero = lo / 4.0;
    (zero, zero / 1.6, hi * 1.6)
}

fn colour(i: usize) -> RGBAColor {
    Palette99::pick(i).to_rgba()
}

/// Draws `fig` to `<dir>/<name>.svg` and `.png`; returns both paths.
pub fn draw_figure(fig: &Figure, dir: &Path) -> anyhow::Result<[PathBuf; 2]> {
    crate::charts::register_font();
    std::fs::create_dir_all(dir)?;
    let svg = dir.join(format!("{}.svg", fig.name));
    let png = dir.join(format!("{}.png", fig.name));
    let cols = fig.panels.len().clamp(1, 3);
    let rows = fig.panels.len().div_ceil(cols).max(1);
    let size = (360 * cols as u32 + 230, 300 * rows as u32 + 50);
    crate::charts::save_svg(&svg, size, |area| draw(area, fig, rows, cols))?;
    crate::charts::save_png(&png, size, |area| draw(area, fig, rows, cols))?;
    Ok([svg, png])
}

fn draw<DB: DrawingBackend>(
    root: DrawingArea<DB, Shift>,
    fig: &Figure,
    rows: usize,
    cols: usize,
) -> anyhow::Result<()> {
    root.fill(&WHITE).map_err(err)?;
    let root = root.titled(&fig.title, ("sans-serif", 20)).map_err(err)?;
    let (w, _) = root.dim_in_pixel();
    let (grid, legend) = root.split_horizontally(w.saturating_sub(230));
    let all = fig
        .panels
        .iter()
        .flat_map(|p| p.series.iter().flat_map(|s| s.1.iter()));
    let (x_zero, x_lo, x_hi) = log_bounds(all.clone().map(|p| p.0));
    let (y_zero, y_lo, y_hi) = log_bounds(
        all.map(|p| p.1)
            .chain(fig.panels.iter().filter_map(|p| p.reference)),
    );
    let x_has_zero = fig
        .panels
        .iter()
        .any(|p| p.series.iter().any(|s| s.1.iter().any(|q| q.0 == 0.0)));
    let y_has_zero = fig
        .panels
        .iter()
        .any(|p| p.series.iter().any(|s| s.1.iter().any(|q| q.1 == 0.0)));
    let place = |(x, y): (f64, f64)| {
        (
            if x == 0.0 { x_zero } else { x },
            if y == 0.0 { y_zero } else { y },
        )
    };
    for (area, panel) in grid.split_evenly((rows, cols)).into_iter().zip(&fig.panels) {
        let mut chart = ChartBuilder::on(&area)
            .caption(&panel.title, ("sans-serif", 16))
            .margin(8)
            .x_label_area_size(38)
            .y_label_area_size(58)
            .build_cartesian_2d((x_lo..x_hi).log_scale(), (y_lo..y_hi).log_scale())
            .map_err(err)?;
        let y_zero_label = y_has_zero;
        let x_zero_label = x_has_zero;
        chart
            .configure_mesh()
            .x_desc(&fig.x)
            .y_desc(&fig.y)
            .label_style(("sans-serif", 12))
            .x_label_formatter(&|v| label(*v))
            .y_label_formatter(&|v| label(*v))
            .light_line_style(WHITE.mix(0.0))
            .draw()
            .map_err(err)?;
        if y_zero_label {
            chart
                .draw_series(std::iter::once(Text::new(
                    "0",
                    (x_lo, y_zero),
                    ("sans-serif", 12).into_font().color(&BLACK),
                )))
                .map_err(err)?;
            let cut = (y_zero * (y_zero * 4.0)).sqrt();
            chart
                .draw_series(LineSeries::new([(x_lo, cut), (x_hi, cut)], BLACK.mix(0.25)))
                .map_err(err)?;
        }
        if x_zero_label {
            chart
                .draw_series(std::iter::once(Text::new(
                    "0",
                    (x_zero, y_lo),
                    ("sans-serif", 12).into_font().color(&BLACK),
                )))
                .map_err(err)?;
            let cut = (x_zero * (x_zero * 4.0)).sqrt();
            chart
                .draw_series(LineSeries::new([(cut, y_lo), (cut, y_hi)], BLACK.mix(0.25)))
                .map_err(err)?;
        }
        if let Some(r) = panel.reference {
            chart
                .draw_series(LineSeries::new(
                    [(x_lo, r), (x_hi, r)],
                    BLACK.mix(0.6).stroke_width(1),
                ))
                .map_err(err)?;
        }
        for (i, points) in &panel.series {
            let c = colour(*i);
            let pts: Vec<(f64, f64)> = points.iter().map(|&p| place(p)).collect();
            if fig.lines {
                chart
                    .draw_series(LineSeries::new(pts.iter().copied(), c.stroke_width(2)))
                    .map_err(err)?;
                chart
                    .draw_series(pts.iter().map(|&p| Circle::new(p, 3, c.filled())))
                    .map_err(err)?;
            } else {
                chart
                    .draw_series(pts.iter().map(|&p| Circle::new(p, 2, c.mix(0.5).filled())))
                    .map_err(err)?;
            }
        }
        for (i, x) in &panel.marks {
            let c = colour(*i);
            chart
                .draw_series(std::iter::once(Cross::new((*x, 1.0), 7, c.stroke_width(3))))
                .map_err(err)?;
        }
    }
    for (i, name) in fig.legend.iter().enumerate() {
        let y = 40 + 22 * i as i32;
        let c = colour(i);
        legend
            .draw(&Circle::new((16, y), 5, c.filled()))
            .map_err(err)?;
        legend
            .draw(&Text::new(
                name.clone(),
                (28, y - 8),
                ("sans-serif", 14).into_font().color(&BLACK),
            ))
            .map_err(err)?;
    }
    if fig.panels.iter().any(|p| !p.marks.is_empty()) {
        let y = 40 + 22 * fig.legend.len() as i32 + 10;
        legend
            .draw(&Cross::new((16, y), 6, BLACK.stroke_width(3)))
            .map_err(err)?;
        legend
            .draw(&Text::new(
                "crossover",
                (28, y - 8),
                ("sans-serif", 14).into_font().color(&BLACK),
            ))
            .map_err(err)?;
    }
    root.present().map_err(err)?;
    Ok(())
}

/// Tick labels: powers of ten in full below 10,000, else as 1e4.
fn label(v: f64) -> String {
    if v >= 10_000.0 {
        format!("1e{:.0}", v.log10())
    } else if v >= 1.0 {
        format!("{v:.0}")
    } else {
        format!("{}", super::round_sig(v, 1))
    }
}

/// Datasets of random-deletion cases, split into the real and the generated ones, each
/// group at most [`MAX_SERIES`].
fn dataset_groups(f: &Findings) -> Vec<(&'static str, Vec<String>)> {
    let mut real = Vec::new();
    let mut generated = Vec::new();
    for (d, _) in f.pairs("delete") {
        let group = if d.starts_with("gen:") {
            &mut generated
        } else {
            &mut real
        };
        if !group.contains(&d) {
            group.push(d);
        }
    }
    let mut out = Vec::new();
    for (name, group) in [("real", real), ("generated", generated)] {
        for (i, chunk) in group.chunks(MAX_SERIES).enumerate() {
            let label = if i == 0 { name } else { "more" };
            out.push((label, chunk.to_vec()));
        }
    }
    out
}

fn programs_of(f: &Findings, kind: &str) -> Vec<String> {
    let mut p: Vec<String> = Vec::new();
    for (_, prog) in f.pairs(kind) {
        if !p.contains(&prog) {
            p.push(prog);
        }
    }
    p
}

/// The over-deletion small multiples (one figure per dataset group) and the speedup small
/// multiples per engine with crossovers marked.
pub fn figures(f: &Findings, rows: &[ReportRow]) -> Vec<Figure> {
    let mut figs = Vec::new();
    let programs = programs_of(f, "delete");
    for (group, datasets) in dataset_groups(f) {
        let legend: Vec<String> = datasets.iter().map(|d| short_dataset(d)).collect();
        let panel_of = |program: &str,
                        value: &dyn Fn(&super::CaseFigures) -> Option<f64>,
                        engine: Option<&str>| {
            let mut panel = Panel {
                title: program.to_string(),
                ..Panel::default()
            };
            for (i, d) in datasets.iter().enumerate() {
                let pts: Vec<(f64, f64)> = f
                    .of_kind("delete")
                    .filter(|c| &c.dataset == d && c.program == program)
                    .filter_map(|c| Some((c.size as f64, value(c)?)))
                    .collect();
                if !pts.is_empty() {
                    panel.series.push((i, pts));
                }
                if let Some(e) = engine {
                    if let Some(Crossover::At(x)) = crossover_of(f, d, program, "delete", e) {
                        panel.marks.push((i, x));
                    }
                }
            }
            panel
        };
        let od_panels: Vec<Panel> = programs
            .iter()
            .map(|p| panel_of(p, &|c| c.overdeletion.map(|s| s.median), None))
            .filter(|p| !p.series.is_empty())
            .collect();
        figs.push(Figure {
            name: format!("overdeletion_{group}"),
            title: format!("DRed over-deleted / net removed, random deletions ({group} graphs; median per case)"),
            x: "facts deleted per batch".into(),
            y: "over-deleted / removed".into(),
            legend: legend.clone(),
            panels: od_panels,
            lines: true,
        });
        for engine in ENGINES {
            let panels: Vec<Panel> = programs
                .iter()
                .map(|p| {
                    let mut panel = panel_of(
                        p,
                        &|c| c.speedup.get(engine).map(|s| s.median),
                        Some(engine),
                    );
                    panel.reference = Some(1.0);
                    panel
                })
                .filter(|p| !p.series.is_empty())
                .collect();
            figs.push(Figure {
                name: format!("speedup_{engine}_{group}"),
                title: format!("recompute time / {engine} time, random deletions ({group} graphs; median of per-batch ratios)"),
                x: "facts deleted per batch".into(),
                y: format!("recompute / {engine}"),
                legend: legend.clone(),
                panels,
                lines: true,
            });
        }
    }
    figs.push(time_against_overdeletion(rows));
    figs
}

/// One panel per engine: every forward batch of every deletion case, its time against the
/// facts DRed over-deleted in it; one colour per program.
pub fn time_against_overdeletion(rows: &[ReportRow]) -> Figure {
    use std::collections::BTreeMap;
    type Key<'a> = (&'a str, &'a str, &'a str, usize);
    let mut over: BTreeMap<Key, usize> = BTreeMap::new();
    let mut failed: BTreeSet<(&str, &str, &str)> = BTreeSet::new();
    for r in rows {
        if r.error.is_some() {
            failed.insert((&r.dataset, &r.program, &r.stream));
        }
        if r.engine == "dred" && forward(&r.stream, r.batch) && r.kind.contains("delete") {
            if let Some(o) = r.overdeleted {
                over.insert((&r.dataset, &r.program, &r.stream, r.batch), o);
            }
        }
    }
    let mut programs: Vec<String> = Vec::new();
    for r in rows {
        if !programs.contains(&r.program) {
            programs.push(r.program.clone());
        }
    }
    programs.truncate(MAX_SERIES);
    let engines: Vec<&str> = ENGINES.iter().copied().chain([RECOMPUTE]).collect();
    let panels = engines
        .iter()
        .map(|&e| {
            let mut series: Vec<(usize, Vec<(f64, f64)>)> =
                (0..programs.len()).map(|i| (i, Vec::new())).collect();
            for r in rows {
                if r.engine != e
                    || failed.contains(&(r.dataset.as_str(), r.program.as_str(), r.stream.as_str()))
                {
                    continue;
                }
                let Some(&o) = over.get(&(
                    r.dataset.as_str(),
                    r.program.as_str(),
                    r.stream.as_str(),
                    r.batch,
                )) else {
                    continue;
                };
                if let Some(i) = programs.iter().position(|p| *p == r.program) {
                    series[i].1.push((o as f64, r.time_us().max(1e-3)));
                }
            }
            series.retain(|s| !s.1.is_empty());
            Panel {
                title: e.to_string(),
                series,
                ..Panel::default()
            }
        })
        .collect();
    Figure {
        name: "time_vs_overdeletion".into(),
        title: "Time per batch against the facts DRed over-deleted in it (every deletion batch)"
            .into(),
        x: "facts DRed over-deleted".into(),
        y: "µs per batch".into(),
        legend: programs,
        panels,
        lines: false,
    }
}
