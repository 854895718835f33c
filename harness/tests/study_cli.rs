//! End-to-end: `dredbench study --quick` (its report gzipped), `sweep` (a failed case is a
//! row, the sweep goes on), and `regress` on the study's own gzipped report (passes) and on
//! tampered plain copies (fails).

mod common;
use common::dredbench_in_cache;

use std::path::Path;

#[test]
fn quick_study_writes_report_plots_and_summary_and_regress_checks_it() {
    let tmp = tempfile::tempdir().expect("tmp");
    let out = tmp.path().join("study");
    // An earlier run's plain report, which the study's gzipped one supersedes.
    std::fs::create_dir_all(&out).expect("out");
    std::fs::write(out.join("report.csv"), "dataset,program,engine\n").expect("stale");
    let o = dredbench_in_cache(
        tmp.path(),
        // Two runs of each case, not the quick study's ten: a debug build takes 18 s a run.
        &[
            "study",
            "--quick",
            "--repeat",
            "2",
            "--out",
            out.to_str().expect("utf-8"),
        ],
    );
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let summary = std::fs::read_to_string(out.join("summary.md")).expect("summary");
    assert!(summary.contains("| gen:layered"), "{summary}");
    assert!(summary.contains("recompute / dred"), "{summary}");
    let png = std::fs::metadata(out.join("plots/overdeletion.png")).expect("plot");
    assert!(png.len() > 10_000, "a real picture, not an empty file");
    // The study's report is gzipped, and a plain `report.csv` of an earlier run in its
    // folder is gone.
    let report = out.join("report.csv.gz");
    assert_eq!(
        std::fs::read(&report).expect("report.csv.gz")[..2],
        [0x1f, 0x8b]
    );
    assert!(!out.join("report.csv").exists());

    let regress = |path: &Path| {
        dredbench_in_cache(
            tmp.path(),
            &[
                "regress",
                "--baseline",
                report.to_str().expect("utf-8"),
                "--report",
                path.to_str().expect("utf-8"),
                "--tolerance",
                "1000",
                // A debug build's A/A pairs are not what this test is about.
                "--min-judged",
                "0",
            ],
        )
    };
    // The machine's calibration, beside the report and in the summary; regress fails on a
    // report whose calibration reads `recompute` past 1.5× datafrog (a debug build's
    // `recompute`, at opt-level 1 against datafrog's 2, may well).
    assert!(
        summary.contains("Calibration: on this machine `recompute` takes"),
        "{summary}"
    );
    let calibration = std::fs::read_to_string(out.join("calibration.csv")).expect("calibration");
    let ratio: f64 = calibration
        .lines()
        .nth(1)
        .and_then(|l| l.split(',').nth(6))
        .and_then(|r| r.parse().ok())
        .expect("a ratio");
    let o = regress(&report);
    let err = String::from_utf8_lossy(&o.stderr).to_string();
    assert!(err.contains("regress: Calibration:"), "{err}");
    assert_eq!(
        o.status.code(),
        Some(if ratio > 1.5 { 1 } else { 0 }),
        "{err}"
    );
    // Planted: one beside a copy of the report, fast then slow.
    let planted = tmp.path().join("planted");
    std::fs::create_dir_all(&planted).expect("planted");
    std::fs::copy(&report, planted.join("report.csv.gz")).expect("copy");
    for (ratio, code) in [(1.0, 0), (2.0, 1)] {
        std::fs::write(
            planted.join("calibration.csv"),
            format!(
                "graph,edges,paths,runs,recompute_ns,datafrog_ns,ratio\n\
                 go-mf,10,20,7,1000000,1000000,{ratio}\n"
            ),
        )
        .expect("calibration");
        let o = regress(&planted.join("report.csv.gz"));
        let err = String::from_utf8_lossy(&o.stderr).to_string();
        assert_eq!(o.status.code(), Some(code), "{err}");
        assert_eq!(err.contains("past 1.5×"), code == 1, "{err}");
    }
    // The other checks below run on reports without a calibration beside them.

    // Tamper with one deterministic figure: the over-deleted count of the first dred row
    // that has one.
    let mut text = String::new();
    std::io::Read::read_to_string(
        &mut flate2::read::GzDecoder::new(std::fs::File::open(&report).expect("report")),
        &mut text,
    )
    .expect("gunzip");
    let mut rdr = csv::Reader::from_reader(text.as_bytes());
    let headers = rdr.headers().expect("headers").clone();
    let col = headers
        .iter()
        .position(|h| h == "overdeleted")
        .expect("column");
    let mut rows: Vec<csv::StringRecord> = rdr.records().map(|r| r.expect("row")).collect();
    // Every row's times are medians over the two runs of its case.
    let repeats = headers
        .iter()
        .position(|h| h == "repeats")
        .expect("repeats");
    assert!(rows.iter().all(|r| &r[repeats] == "2"));
    assert!(summary.contains("every case ran 2 times"), "{summary}");
    let i = rows
        .iter()
        .position(|r| !r[col].is_empty() && &r[col] != "0")
        .expect("some batch over-deleted");
    let mut fields: Vec<String> = rows[i].iter().map(str::to_string).collect();
    fields[col] = (fields[col].parse::<u64>().expect("number") + 1).to_string();
    rows[i] = csv::StringRecord::from(fields);
    let write = |name: &str, rows: &[csv::StringRecord]| {
        let path = tmp.path().join(name);
        let mut w = csv::Writer::from_path(&path).expect("writer");
        w.write_record(&headers).expect("headers");
        for r in rows {
            w.write_record(r).expect("row");
        }
        w.flush().expect("flush");
        path
    };
    let tampered = write("tampered.csv", &rows);
    let o = regress(&tampered);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("overdeleted changed"));

    // An injected mismatch.
    let err_col = headers
        .iter()
        .position(|h| h == "error")
        .expect("error column");
    let mut rows: Vec<csv::StringRecord> = csv::Reader::from_reader(text.as_bytes())
        .records()
        .map(|r| r.expect("row"))
        .collect();
    let mut fields: Vec<String> = rows[3].iter().map(str::to_string).collect();
    fields[err_col] = "mismatch: models differ after batch 1".into();
    rows[3] = csv::StringRecord::from(fields);
    let o = regress(&write("mismatch.csv", &rows));
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("mismatch"));
}

#[test]
fn a_failed_case_is_a_row_and_the_sweep_goes_on() {
    let tmp = tempfile::tempdir().expect("tmp");
    let report = tmp.path().join("sweep.csv");
    let o = dredbench_in_cache(
        tmp.path(),
        &[
            "sweep",
            "--datasets",
            "seed",
            "--programs",
            "datasets/programs/tc_linear.dl",
            "--kinds",
            "delete",
            "--sizes",
            "1,50",
            "--batches",
            "3",
            "--engines",
            "dred,recompute,oracle",
            "--report",
            report.to_str().expect("utf-8"),
        ],
    );
    assert_eq!(
        o.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let text = std::fs::read_to_string(&report).expect("report");
    let (headers, rows) = read_report(&report);
    let col = |n: &str| headers.iter().position(|h| h == n).expect(n);
    let ok: Vec<_> = rows.iter().filter(|r| r[col("error")].is_empty()).collect();
    let failed: Vec<_> = rows
        .iter()
        .filter(|r| !r[col("error")].is_empty())
        .collect();
    // k = 1: three engines × (batch 0 + 3 batches); k = 50: one error row.
    assert_eq!(ok.len(), 12, "{text}");
    assert_eq!(failed.len(), 1, "{text}");
    assert!(
        failed[0][col("error")].contains("cannot delete 50"),
        "{text}"
    );
    assert!(ok
        .iter()
        .all(|r| &r[col("size")] == "1" && &r[col("kind")] == "delete"));
}

/// Reads a report: its header positions and rows.
fn read_report(path: &std::path::Path) -> (csv::StringRecord, Vec<csv::StringRecord>) {
    let text = std::fs::read_to_string(path).expect("report");
    let mut rdr = csv::Reader::from_reader(text.as_bytes());
    let headers = rdr.headers().expect("headers").clone();
    let rows = rdr.records().map(|r| r.expect("row")).collect();
    (headers, rows)
}

/// An engine alone in its sweep reports its footprint on every row, a high-water mark that
/// never falls from batch to batch; and alone it reports the same model sizes as beside
/// another engine (its model is then not copied out at materialisation).
#[test]
fn an_engine_alone_reports_its_footprint_and_the_same_model_sizes() {
    let tmp = tempfile::tempdir().expect("tmp");
    let sweep = |engines: &str, name: &str| {
        let report = tmp.path().join(name);
        let o = dredbench_in_cache(
            tmp.path(),
            &[
                "sweep",
                "--datasets",
                "gen:layered?layers=6&width=40&fanout=3&seed=1",
                "--programs",
                "datasets/programs/tc_linear.dl",
                "--kinds",
                "delete",
                "--revert",
                "--sizes",
                "5",
                "--batches",
                "4",
                "--engines",
                engines,
                "--report",
                report.to_str().expect("utf-8"),
            ],
        );
        assert_eq!(
            o.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&o.stderr)
        );
        read_report(&report)
    };
    let (h, alone) = sweep("dred", "alone.csv");
    let (h2, beside) = sweep("dred,recompute", "beside.csv");
    let col = |h: &csv::StringRecord, n: &str| h.iter().position(|x| x == n).expect(n);
    let sizes = |h: &csv::StringRecord, rows: &[csv::StringRecord]| -> Vec<(String, String)> {
        rows.iter()
            .filter(|r| &r[col(h, "engine")] == "dred")
            .map(|r| {
                (
                    r[col(h, "batch")].to_string(),
                    r[col(h, "model_size")].to_string(),
                )
            })
            .collect()
    };
    assert_eq!(alone.len(), 9, "batch 0, four deletions and their reverts");
    assert_eq!(sizes(&h, &alone), sizes(&h2, &beside));
    assert!(sizes(&h, &alone).iter().all(|(_, s)| s != "0"));
    // A peak of the stream: positive from materialisation on, never falling.
    let assert_peak = |name: &str| {
        let peaks: Vec<u64> = alone
            .iter()
            .map(|r| r[col(&h, name)].parse().expect("a figure on every row"))
            .collect();
        assert!(peaks[0] > 0, "{name}: {peaks:?}");
        assert!(peaks.windows(2).all(|w| w[0] <= w[1]), "{name}: {peaks:?}");
    };
    // The heap's figure is kept everywhere.
    assert_peak("peak_heap_kb");
    if !std::path::Path::new("/proc/self/clear_refs").exists() {
        return; // no footprint outside Linux: the column stays empty
    }
    assert_peak("peak_rss_kb");
}
