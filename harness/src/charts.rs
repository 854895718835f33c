//! Charts from report rows, as SVG and PNG (what `dredbench plot` and `study` draw):
//!
//! - `overdeletion`: over-deleted IDB facts against change size, log–log, one line per
//!   dataset, program and engine (median over batches and seeds);
//! - `overdeletion_ratio`: over-deleted / actually removed, against change size;
//! - `time_<dataset>_<program>`: median time per batch against change size, one line per
//!   engine, recomputation included, and the change size from which recomputing is cheaper
//!   than each incremental engine, also written to `crossover.csv`;
//! - `spread.csv`: per case and engine, the median time per batch with its spread (p10/p90
//!   or min/max) and a bimodal flag — what the median lines of the charts hide (see
//!   [`crate::summary::spread_table`]);
//! - `deletion_cost_<dataset>_<program>`: every batch that deletes, one point per engine:
//!   its time against the number of facts DRed over-deleted in that batch (+1, so that a
//!   batch that over-deletes nothing is drawn too), log–log. DRed pays per over-deleted
//!   fact; an engine that does not over-delete shows no such slope, and where the two clouds
//!   cross tells which batches each engine wins.
//!
//! Text is drawn with an embedded DejaVu Sans, so PNGs render the same on a machine without
//! fonts.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use anyhow::{anyhow, Context};
use plotters::coord::Shift;
use plotters::prelude::*;

use crate::report::ReportRow;
use crate::stats::median;
use crate::summary::spread_table;

/// One line of a chart.
#[derive(Debug, Clone)]
pub struct Series {
    /// Legend text.
    pub name: String,
    /// Points, x ascending, both coordinates positive.
    pub points: Vec<(f64, f64)>,
}

/// The change size of a row: the sweep's requested size, else the actual change.
fn change_size(r: &ReportRow) -> usize {
    r.size.unwrap_or(r.eff_del + r.eff_ins)
}

/// Groups rows by a series name and change size, takes the median of `value` (rows where it
/// is `None` or not positive are left out: log scales cannot show them).
fn series_by(
    rows: &[&ReportRow],
    name: impl Fn(&ReportRow) -> String,
    value: impl Fn(&ReportRow) -> Option<f64>,
) -> Vec<Series> {
    let mut groups: BTreeMap<String, BTreeMap<usize, Vec<f64>>> = BTreeMap::new();
    for r in rows {
        let x = change_size(r);
        if r.batch == 0 || x == 0 || r.error.is_some() {
            continue;
        }
        if let Some(v) = value(r).filter(|v| *v > 0.0) {
            groups
                .entry(name(r))
                .or_default()
                .entry(x)
                .or_default()
                .push(v);
        }
    }
    groups
        .into_iter()
        .map(|(name, pts)| Series {
            name,
            points: pts
                .into_iter()
                .filter_map(|(x, v)| Some((x as f64, median(v)?)))
                .collect(),
        })
        .filter(|s| !s.points.is_empty())
        .collect()
}

/// Draws a log–log line chart to `<stem>.svg` and `<stem>.png`; returns the two paths.
pub fn line_chart(
    stem: &Path,
    title: &str,
    x_label: &str,
    y_label: &str,
    series: &[Series],
) -> anyhow::Result<[PathBuf; 2]> {
    chart_files(stem, &Labels::new(title, x_label, y_label), series, true)
}

/// Draws a log–log scatter chart (points only, one colour per series) to `<stem>.svg` and
/// `<stem>.png`; returns the two paths.
pub fn scatter_chart(
    stem: &Path,
    title: &str,
    x_label: &str,
    y_label: &str,
    series: &[Series],
) -> anyhow::Result<[PathBuf; 2]> {
    chart_files(stem, &Labels::new(title, x_label, y_label), series, false)
}

/// The plot's size in pixels; a chart with a legend beside it ([`LEGEND_INSIDE_MAX`]) is
/// wider by the legend's width ([`legend_width`]).
const PLOT: (u32, u32) = (900, 600);

/// The most series whose legend goes inside the plot. Why: the legend of the study's
/// `overdeletion` charts (17 series) covered most of the plot, and the series drawn under it.
const LEGEND_INSIDE_MAX: usize = 8;

/// Width in pixels of a legend drawn beside the plot: the marker, then the longest name at
/// 8 pixels a character (DejaVu Sans at 14 px averages about 7.5), at most 900.
fn legend_width(series: &[Series]) -> u32 {
    let longest = series.iter().map(|s| s.name.chars().count()).max();
    (48 + 8 * longest.unwrap_or(0) as u32).min(900)
}

/// True when the legend of `series` goes beside the plot rather than inside it.
fn legend_beside(series: &[Series]) -> bool {
    series.len() > LEGEND_INSIDE_MAX
}

/// The image size for `series`.
fn canvas(series: &[Series]) -> (u32, u32) {
    if legend_beside(series) {
        (PLOT.0 + legend_width(series), PLOT.1)
    } else {
        PLOT
    }
}

/// Draws `series` (see [`draw`]) as `<stem>.svg` and `<stem>.png`; returns the two paths.
fn chart_files(
    stem: &Path,
    labels: &Labels,
    series: &[Series],
    lines: bool,
) -> anyhow::Result<[PathBuf; 2]> {
    register_font();
    let svg = stem.with_extension("svg");
    let png = stem.with_extension("png");
    let size = canvas(series);
    save_svg(&svg, size, |area| draw(area, labels, series, lines))?;
    save_png(&png, size, |area| draw(area, labels, series, lines))?;
    Ok([svg, png])
}

/// Draws a chart with `draw` on an SVG canvas of `size` pixels and writes it to `path`,
/// atomically, less the attributes that restate SVG's initial values ([`trim_svg`]): the
/// picture is the one plotters drew. An error names the file.
pub fn save_svg(
    path: &Path,
    size: (u32, u32),
    draw: impl FnOnce(DrawingArea<SVGBackend<'_>, Shift>) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    let mut text = String::new();
    draw(SVGBackend::with_string(&mut text, size).into_drawing_area())
        .with_context(|| format!("drawing {}", path.display()))?;
    dred_core::io::write_atomic(path, trim_svg(&text).as_bytes())
        .map_err(|e| anyhow!("writing {}: {e}", path.display()))
}

/// Draws a chart with `draw` on an RGB canvas of `size` pixels and writes it to `path` as
/// a PNG, atomically, compressed as hard as the `png` crate goes (adaptive filters, deflate
/// level 9): the same pixels as plotters' own PNG writer, in about half its bytes (it
/// compresses fast). An error names the file.
pub fn save_png(
    path: &Path,
    size: (u32, u32),
    draw: impl FnOnce(DrawingArea<BitMapBackend<'_>, Shift>) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    let mut pixels = vec![0u8; size.0 as usize * size.1 as usize * 3];
    draw(BitMapBackend::with_buffer(&mut pixels, size).into_drawing_area())
        .with_context(|| format!("drawing {}", path.display()))?;
    let mut bytes = Vec::new();
    let mut encoder = png::Encoder::new(&mut bytes, size.0, size.1);
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    encoder.set_compression(png::Compression::Best);
    encoder.set_adaptive_filter(png::AdaptiveFilterType::Adaptive);
    let encoded = encoder.write_header().and_then(|mut w| {
        w.write_image_data(&pixels)?;
        w.finish()
    });
    encoded.with_context(|| format!("encoding {}", path.display()))?;
    dred_core::io::write_atomic(path, &bytes)
        .map_err(|e| anyhow!("writing {}: {e}", path.display()))
}

/// SVG attributes whose value is the property's initial value: `stroke="none"`,
/// `stroke-width="1"`, `opacity="1"`. Plotters writes them on nearly every element (a
/// scatter of 17,000 points spent a third of its 1.6 MB on them).
pub const DEFAULT_ATTRIBUTES: [&str; 3] =
    [" stroke=\"none\"", " stroke-width=\"1\"", " opacity=\"1\""];

/// `svg` without the attributes of [`DEFAULT_ATTRIBUTES`] inside its tags; text between
/// tags and quoted values are left as they are. The picture is the same as long as no
/// ancestor element sets `stroke`, `stroke-width` or `opacity` otherwise (`stroke` and
/// `stroke-width` are inherited): plotters' SVG is one flat `<svg>` of shapes, and a
/// document with a group (`<g`) is returned whole, since a group could set them.
pub fn trim_svg(svg: &str) -> String {
    if svg.contains("<g") {
        return svg.to_string();
    }
    let mut out = String::with_capacity(svg.len());
    let (mut in_tag, mut in_quote) = (false, false);
    let mut rest = svg;
    while let Some(c) = rest.chars().next() {
        if in_tag && !in_quote {
            if let Some(a) = DEFAULT_ATTRIBUTES.iter().find(|a| rest.starts_with(**a)) {
                rest = &rest[a.len()..];
                continue;
            }
        }
        match c {
            '<' if !in_quote => in_tag = true,
            '>' if !in_quote => in_tag = false,
            '"' if in_tag => in_quote = !in_quote,
            _ => {}
        }
        out.push(c);
        rest = &rest[c.len_utf8()..];
    }
    out
}

/// A chart's title and axis descriptions.
struct Labels<'a> {
    title: &'a str,
    x: &'a str,
    y: &'a str,
}

impl<'a> Labels<'a> {
    fn new(title: &'a str, x: &'a str, y: &'a str) -> Self {
        Labels { title, x, y }
    }
}

/// Registers the embedded DejaVu Sans as `sans-serif`, once.
pub fn register_font() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        // The embedded font is valid; a failure would only lose text, never data.
        let _ = plotters::style::register_font(
            "sans-serif",
            FontStyle::Normal,
            dejavu::sans::regular(),
        );
    });
}

/// Draws `series` on log–log axes: as lines through their points when `lines`, else as
/// points alone. The legend is inside the plot's upper left corner for a few series, and
/// beside the plot (on a canvas from [`canvas`]) for more.
fn draw<DB: DrawingBackend>(
    root: DrawingArea<DB, Shift>,
    labels: &Labels,
    series: &[Series],
    lines: bool,
) -> anyhow::Result<()> {
    let err = |e: DrawingAreaErrorKind<DB::ErrorType>| anyhow!("{e:?}");
    root.fill(&WHITE).map_err(err)?;
    let (root, beside) = if legend_beside(series) {
        let (plot, legend) = root.split_horizontally(PLOT.0);
        (plot, Some(legend))
    } else {
        (root, None)
    };
    let pts = series.iter().flat_map(|s| s.points.iter());
    let (mut x_min, mut x_max, mut y_min, mut y_max) = (1.0f64, 1.0f64, f64::MAX, 0.0f64);
    for &(x, y) in pts {
        x_min = x_min.min(x);
        x_max = x_max.max(x);
        y_min = y_min.min(y);
        y_max = y_max.max(y);
    }
    if y_max <= 0.0 {
        y_min = 1.0;
        y_max = 10.0;
    }
    let mut chart = ChartBuilder::on(&root)
        .caption(labels.title, ("sans-serif", 22))
        .margin(15)
        .x_label_area_size(45)
        .y_label_area_size(70)
        .build_cartesian_2d(
            (x_min * 0.8..x_max * 1.25).log_scale(),
            (y_min * 0.8..y_max * 1.25).log_scale(),
        )
        .map_err(err)?;
    chart
        .configure_mesh()
        .x_desc(labels.x)
        .y_desc(labels.y)
        .label_style(("sans-serif", 14))
        .draw()
        .map_err(err)?;
    for (i, s) in series.iter().enumerate() {
        let color = Palette99::pick(i).to_rgba();
        if lines {
            chart
                .draw_series(LineSeries::new(
                    s.points.iter().copied(),
                    color.stroke_width(2),
                ))
                .map_err(err)?
                .label(s.name.clone())
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 18, y)], color.stroke_width(2))
                });
            chart
                .draw_series(s.points.iter().map(|&p| Circle::new(p, 3, color.filled())))
                .map_err(err)?;
        } else {
            // Many points overlap: translucent, so that density shows.
            let fill = color.mix(0.55).filled();
            chart
                .draw_series(s.points.iter().map(|&p| Circle::new(p, 3, fill)))
                .map_err(err)?
                .label(s.name.clone())
                .legend(move |(x, y)| Circle::new((x + 9, y), 4, color.filled()));
        }
    }
    match &beside {
        None => chart
            .configure_series_labels()
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK)
            .label_font(("sans-serif", 14))
            .position(SeriesLabelPosition::UpperLeft)
            .draw()
            .map_err(err)?,
        Some(area) => {
            // One row a series, from the top of the plot area down, as tight as the
            // height requires.
            let (top, bottom) = (60, PLOT.1 as i32 - 20);
            let step = ((bottom - top) / series.len().max(1) as i32).clamp(8, 22);
            for (i, s) in series.iter().enumerate() {
                let color = Palette99::pick(i).to_rgba();
                let y = top + step * i as i32;
                if lines {
                    area.draw(&PathElement::new(
                        vec![(8, y), (26, y)],
                        color.stroke_width(2),
                    ))
                    .map_err(err)?;
                } else {
                    area.draw(&Circle::new((17, y), 4, color.filled()))
                        .map_err(err)?;
                }
                area.draw(&Text::new(
                    s.name.clone(),
                    (34, y - 8),
                    ("sans-serif", 14).into_font().color(&BLACK),
                ))
                .map_err(err)?;
            }
        }
    }
    root.present().map_err(err)?;
    if let Some(area) = beside {
        area.present().map_err(err)?;
    }
    Ok(())
}

/// For each incremental engine, the smallest change size at which recomputation's median
/// time is no worse than the engine's; `None` if the engine is faster at every size.
pub fn crossovers(time: &[Series], recompute: &str) -> Vec<(String, Option<f64>)> {
    let Some(base) = time.iter().find(|s| s.name == recompute) else {
        return Vec::new();
    };
    let base: BTreeMap<u64, f64> = base.points.iter().map(|&(x, y)| (x as u64, y)).collect();
    time.iter()
        .filter(|s| s.name != recompute)
        .map(|s| {
            let cross = s
                .points
                .iter()
                .find(|&&(x, y)| base.get(&(x as u64)).is_some_and(|&b| b <= y))
                .map(|&(x, _)| x);
            (s.name.clone(), cross)
        })
        .collect()
}

/// For the rows of one dataset and program: per engine, one point per batch that deletes —
/// (facts over-deleted in that batch + 1, time µs). The over-deleted count of a batch is the
/// one a DRed engine (`dred` or `reference`, which agree) reported for it; batches no DRed
/// engine ran are left out, as are failed cases.
pub fn deletion_cost(rows: &[&ReportRow]) -> Vec<Series> {
    type BatchKey<'a> = (&'a str, &'a str, Option<usize>, Option<u64>, usize);
    fn key(r: &ReportRow) -> BatchKey<'_> {
        (&r.stream, &r.kind, r.size, r.seed, r.batch)
    }
    let mut over: BTreeMap<BatchKey, usize> = BTreeMap::new();
    for r in rows {
        if let Some(o) = r.overdeleted {
            over.entry(key(r)).or_insert(o);
        }
    }
    let mut per_engine: BTreeMap<&str, Vec<(f64, f64)>> = BTreeMap::new();
    for r in rows {
        if r.batch == 0 || r.eff_del == 0 || r.error.is_some() {
            continue;
        }
        if let Some(&o) = over.get(&key(r)) {
            per_engine
                .entry(&r.engine)
                .or_default()
                .push((o as f64 + 1.0, r.time_us().max(1e-3)));
        }
    }
    per_engine
        .into_iter()
        .map(|(engine, mut points)| {
            points.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.total_cmp(&b.1)));
            Series {
                name: engine.to_string(),
                points,
            }
        })
        .collect()
}

fn file_safe(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// Draws every chart for these rows into `out`; returns the files written.
pub fn plot_rows(rows: &[ReportRow], out: &Path, recompute: &str) -> anyhow::Result<Vec<PathBuf>> {
    std::fs::create_dir_all(out).with_context(|| format!("creating {}", out.display()))?;
    let all: Vec<&ReportRow> = rows.iter().collect();
    let mut written = Vec::new();
    let label = |r: &ReportRow| format!("{} / {} / {}", r.dataset, r.program, r.engine);
    let over = series_by(&all, label, |r| r.overdeleted.map(|v| v as f64));
    if !over.is_empty() {
        written.extend(line_chart(
            &out.join("overdeletion"),
            "Over-deleted IDB facts vs change size",
            "change size (EDB facts per batch)",
            "over-deleted IDB facts (median)",
            &over,
        )?);
        let ratio = series_by(&all, label, |r| {
            r.overdeleted
                .map(|o| o as f64 / (r.model_removed.max(1)) as f64)
        });
        written.extend(line_chart(
            &out.join("overdeletion_ratio"),
            "Over-deleted / actually removed",
            "change size (EDB facts per batch)",
            "over-deleted / removed (median)",
            &ratio,
        )?);
    }
    let cases: BTreeSet<(String, String)> = rows
        .iter()
        .map(|r| (r.dataset.clone(), r.program.clone()))
        .collect();
    let mut crossover_csv = String::from("dataset,program,engine,recompute_cheaper_from_size\n");
    for (dataset, program) in cases {
        let case_rows: Vec<&ReportRow> = rows
            .iter()
            .filter(|r| r.dataset == dataset && r.program == program)
            .collect();
        let time = series_by(&case_rows, |r| r.engine.clone(), |r| Some(r.time_us()));
        if time.is_empty() {
            continue;
        }
        for (engine, cross) in crossovers(&time, recompute) {
            crossover_csv.push_str(&format!(
                "{dataset},{program},{engine},{}\n",
                cross.map_or(String::new(), |c| c.to_string())
            ));
        }
        written.extend(line_chart(
            &out.join(format!(
                "time_{}_{}",
                file_safe(&dataset),
                file_safe(&program)
            )),
            &format!("Time per batch: {dataset} / {program}"),
            "change size (EDB facts per batch)",
            "time per batch, µs (median)",
            &time,
        )?);
        let cost = deletion_cost(&case_rows);
        if !cost.is_empty() {
            written.extend(scatter_chart(
                &out.join(format!(
                    "deletion_cost_{}_{}",
                    file_safe(&dataset),
                    file_safe(&program)
                )),
                &format!("Batches that delete: {dataset} / {program}"),
                "IDB facts over-deleted by DRed in the batch, + 1",
                "time of the batch, µs",
                &cost,
            )?);
        }
    }
    let path = out.join("crossover.csv");
    dred_core::io::write_atomic(&path, crossover_csv.as_bytes())
        .with_context(|| format!("writing {}", path.display()))?;
    written.push(path);
    let path = out.join("spread.csv");
    dred_core::io::write_atomic(&path, spread_table(rows).as_bytes())
        .with_context(|| format!("writing {}", path.display()))?;
    written.push(path);
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crossover_is_first_size_where_recompute_wins() {
        let s = |name: &str, pts: &[(f64, f64)]| Series {
            name: name.into(),
            points: pts.to_vec(),
        };
        let time = vec![
            s("recompute", &[(1.0, 100.0), (10.0, 100.0), (100.0, 110.0)]),
            s("dred", &[(1.0, 1.0), (10.0, 60.0), (100.0, 500.0)]),
            s("dd", &[(1.0, 2.0), (10.0, 3.0), (100.0, 4.0)]),
        ];
        let c = crossovers(&time, "recompute");
        assert_eq!(c, vec![("dred".into(), Some(100.0)), ("dd".into(), None)]);
    }

    /// Each engine's point of a batch takes the over-deleted count DRed reported for that
    /// same batch (matched by stream, seed and batch), insertion-only batches and failed
    /// cases are left out, and a batch that over-deleted nothing sits at x = 1.
    #[test]
    fn deletion_cost_pairs_each_batch_with_its_overdeletion() {
        let row =
            |engine: &str, seed: u64, batch: usize, del: usize, over: Option<usize>, t: u64| {
                ReportRow {
                    dataset: "g".into(),
                    program: "p".into(),
                    engine: engine.into(),
                    stream: "s".into(),
                    kind: "delete".into(),
                    size: Some(1),
                    seed: Some(seed),
                    batch,
                    eff_del: del,
                    eff_ins: 1 - del,
                    overdeleted: over,
                    time_ns: t * 1000,
                    ..ReportRow::default()
                }
            };
        let mut rows = vec![
            row("dred", 1, 1, 1, Some(40), 30),
            row("dd", 1, 1, 1, None, 100),
            row("dred", 2, 1, 1, Some(0), 2),
            row("dd", 2, 1, 1, None, 90),
            // Insertions: no point.
            row("dred", 1, 2, 0, Some(0), 5),
            row("dd", 1, 2, 0, None, 80),
            // A batch no DRed engine ran: no point.
            row("dd", 3, 1, 1, None, 70),
        ];
        let mut failed = row("dd", 2, 3, 1, None, 60);
        failed.error = Some("mismatch".into());
        rows.push(failed);
        rows.push(row("dred", 2, 3, 1, Some(7), 9));
        let refs: Vec<&ReportRow> = rows.iter().collect();
        let cost = deletion_cost(&refs);
        let points = |name: &str| {
            cost.iter()
                .find(|s| s.name == name)
                .map(|s| s.points.clone())
                .unwrap_or_default()
        };
        assert_eq!(points("dred"), vec![(1.0, 2.0), (8.0, 9.0), (41.0, 30.0)]);
        assert_eq!(points("dd"), vec![(1.0, 90.0), (41.0, 100.0)]);
        let tmp = tempfile::tempdir().expect("tmp");
        let files = plot_rows(&rows, tmp.path(), "recompute").expect("plots");
        let svg = tmp.path().join("deletion_cost_g_p.svg");
        assert!(files.contains(&svg), "{files:?}");
        let text = std::fs::read_to_string(&svg).expect("svg");
        assert!(text.contains("<circle") && text.contains("dd"), "{text}");
    }

    /// A chart of more series than fit a legend inside the plot is widened, and every
    /// series is named in the legend beside it.
    #[test]
    fn many_series_get_a_legend_beside_the_plot() {
        let series: Vec<Series> = (0..17)
            .map(|i| Series {
                name: format!("dataset {i:02} / reach / dred"),
                points: vec![(1.0, 1.0 + i as f64), (10.0, 5.0 + i as f64)],
            })
            .collect();
        assert_eq!(canvas(&series[..LEGEND_INSIDE_MAX]), PLOT);
        // 25 characters a name.
        let wide = PLOT.0 + 48 + 8 * 25;
        assert_eq!(canvas(&series), (wide, PLOT.1));
        let tmp = tempfile::tempdir().expect("tmp");
        let [svg, png] =
            line_chart(&tmp.path().join("many"), "t", "x", "y", &series).expect("chart");
        let text = std::fs::read_to_string(&svg).expect("svg");
        assert!(text.contains(&format!("width=\"{wide}\"")), "widened");
        for s in &series {
            assert!(text.contains(&s.name), "{} in the legend", s.name);
        }
        assert!(std::fs::metadata(png).expect("png").len() > 40);
    }

    #[test]
    fn writes_nonempty_svg_and_png() {
        let tmp = tempfile::tempdir().expect("tmp");
        let mut rows = Vec::new();
        for (size, over, t) in [(1, 3, 10), (10, 40, 90), (100, 300, 900)] {
            for engine in ["reference", "recompute"] {
                rows.push(ReportRow {
                    dataset: "seed".into(),
                    program: "path".into(),
                    engine: engine.into(),
                    batch: 1,
                    size: Some(size),
                    overdeleted: (engine == "reference").then_some(over),
                    model_removed: 2,
                    time_ns: 1000 * if engine == "recompute" { 500 } else { t },
                    ..ReportRow::default()
                });
            }
        }
        let files = plot_rows(&rows, tmp.path(), "recompute").expect("plots");
        assert_eq!(files.len(), 8, "{files:?}");
        for f in &files {
            let len = std::fs::metadata(f).expect("exists").len();
            assert!(len > 40, "{} is {len} bytes", f.display());
        }
        let svg = std::fs::read_to_string(tmp.path().join("overdeletion.svg")).expect("svg");
        assert!(
            svg.contains("seed / path / reference") && svg.contains("<polyline"),
            "{svg}"
        );
        let crossover = std::fs::read_to_string(tmp.path().join("crossover.csv")).expect("csv");
        assert!(crossover.contains("seed,path,reference,100"), "{crossover}");
        let spread = std::fs::read_to_string(tmp.path().join("spread.csv")).expect("csv");
        assert!(
            spread.contains("seed,path,,10,reference,1,90000,90000,90000,min-max,false"),
            "{spread}"
        );
    }

    /// Attributes that restate SVG's initial values go from inside tags, also after a `>`
    /// in a quoted value; the same text between tags stays, and so does a document with a
    /// group.
    #[test]
    fn trim_svg_drops_default_attributes_inside_tags_only() {
        let svg = "<svg width=\"10\">\n<circle cx=\"1\" opacity=\"1\" fill=\"#FF0000\" \
                   stroke=\"none\" stroke-width=\"1\"/>\n\
                   <line opacity=\"0.2\" stroke=\"#000000\" stroke-width=\"1\" x1=\"0\"/>\n\
                   <text font-family=\"a > b\" opacity=\"1\">\n x opacity=\"1\" y\n</text>\n</svg>\n";
        assert_eq!(
            trim_svg(svg),
            "<svg width=\"10\">\n<circle cx=\"1\" fill=\"#FF0000\"/>\n\
             <line opacity=\"0.2\" stroke=\"#000000\" x1=\"0\"/>\n\
             <text font-family=\"a > b\">\n x opacity=\"1\" y\n</text>\n</svg>\n"
        );
        let grouped = "<svg><g stroke=\"#000\"><rect stroke=\"none\"/></g></svg>";
        assert_eq!(trim_svg(grouped), grouped);
    }

    /// A chart written by [`save_png`] has the pixels plotters' own PNG writer gives it, in
    /// fewer bytes; [`save_svg`]'s has no default attribute left and the legend's text.
    #[test]
    fn saved_charts_are_the_pictures_plotters_draws_in_fewer_bytes() {
        register_font();
        let tmp = tempfile::tempdir().expect("tmp");
        let series: Vec<Series> = (0..4)
            .map(|i| Series {
                name: format!("engine {i}"),
                points: (1..=40)
                    .map(|x| (x as f64, (x * (i + 1)) as f64 + (x % 7) as f64))
                    .collect(),
            })
            .collect();
        let labels = Labels::new("A chart", "x", "y");
        let size = canvas(&series);
        let theirs = tmp.path().join("theirs.png");
        draw(
            BitMapBackend::new(&theirs, size).into_drawing_area(),
            &labels,
            &series,
            false,
        )
        .expect("plotters' png");
        let ours = tmp.path().join("ours.png");
        save_png(&ours, size, |a| draw(a, &labels, &series, false)).expect("ours");
        let decode = |p: &Path| {
            let decoder = png::Decoder::new(std::fs::File::open(p).expect("open"));
            let mut reader = decoder.read_info().expect("header");
            let mut buf = vec![0; reader.output_buffer_size()];
            let info = reader.next_frame(&mut buf).expect("frame");
            buf.truncate(info.buffer_size());
            (info.width, info.height, info.color_type, buf)
        };
        assert_eq!(decode(&ours), decode(&theirs));
        let len = |p: &Path| std::fs::metadata(p).expect("file").len();
        assert!(
            len(&ours) < len(&theirs),
            "{} >= {}",
            len(&ours),
            len(&theirs)
        );

        let svg = tmp.path().join("c.svg");
        save_svg(&svg, size, |a| draw(a, &labels, &series, false)).expect("svg");
        let text = std::fs::read_to_string(&svg).expect("svg");
        assert!(
            text.contains("<circle") && text.contains("engine 3"),
            "{text}"
        );
        for a in DEFAULT_ATTRIBUTES {
            assert!(!text.contains(a), "{a} left in");
        }
    }
}
