//! End-to-end: reports stored gzipped. `sweep --report X.csv.gz` writes gzip; `regress`
//! (baseline and report, either plain or gzipped), `plot` and `findings` (a study folder with
//! `report.csv.gz`, or an older one with `report.csv`) read it as they read the plain CSV,
//! with the same results.

mod common;
use common::{dredbench_in_cache, stderr};

use std::path::Path;

/// `dredbench` with its cache in `dir`; exit code and standard error.
fn run(dir: &Path, args: &[&str]) -> (Option<i32>, String) {
    let o = dredbench_in_cache(&dir.join("cache"), args);
    (o.status.code(), stderr(&o))
}

fn s(p: &Path) -> &str {
    p.to_str().expect("utf-8")
}

fn gunzip(path: &Path) -> Vec<u8> {
    let mut text = Vec::new();
    std::io::Read::read_to_end(
        &mut flate2::read::MultiGzDecoder::new(std::fs::File::open(path).expect("open")),
        &mut text,
    )
    .expect("gunzip");
    text
}

#[test]
fn regress_plot_and_findings_read_gzipped_reports() {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = tmp.path();
    let study = dir.join("study");
    std::fs::create_dir_all(&study).expect("study");
    let gz = study.join("report.csv.gz");
    let dataset = "gen:layered?layers=4&width=8&fanout=2&seed=1";
    let (code, err) = run(
        dir,
        &[
            "sweep",
            "--datasets",
            dataset,
            "--programs",
            "datasets/programs/tc_linear.dl",
            "--kinds",
            "delete,insert",
            "--sizes",
            "1,4",
            "--batches",
            "3",
            "--revert",
            "--engines",
            "dred,bf,recompute",
            "--report",
            s(&gz),
        ],
    );
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(std::fs::read(&gz).expect("report")[..2], [0x1f, 0x8b]);
    let plain = dir.join("plain.csv");
    let text = gunzip(&gz);
    std::fs::write(&plain, &text).expect("plain");

    // regress: gzipped against gzipped, and each side plain against the other gzipped.
    let regress = |baseline: &Path, report: &Path| {
        run(
            dir,
            &[
                "regress",
                "--baseline",
                s(baseline),
                "--report",
                s(report),
                "--tolerance",
                "1000",
                "--aggregate-tolerance",
                "1000",
                "--min-judged",
                "0",
            ],
        )
    };
    let rows = text.iter().filter(|&&b| b == b'\n').count() - 1;
    for (b, r) in [(&gz, &gz), (&plain, &gz), (&gz, &plain)] {
        let (code, err) = regress(b, r);
        assert_eq!(code, Some(0), "{} / {}: {err}", b.display(), r.display());
        assert!(
            err.contains(&format!("{rows} baseline row(s) matched")),
            "{err}"
        );
    }
    // A deterministic figure changed in a gzipped report fails as it does in a plain one.
    let mut rdr = csv::Reader::from_reader(&text[..]);
    let header = rdr.headers().expect("header").clone();
    let col = header.iter().position(|h| h == "model_size").expect("col");
    let mut records: Vec<csv::StringRecord> = rdr.records().map(|r| r.expect("row")).collect();
    let mut fields: Vec<String> = records[1].iter().map(str::to_string).collect();
    fields[col] = (fields[col].parse::<u64>().expect("size") + 1).to_string();
    records[1] = csv::StringRecord::from(fields);
    let tampered = dir.join("tampered.csv.gz");
    let gz_out = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    let mut w = csv::Writer::from_writer(gz_out);
    w.write_record(&header).expect("header");
    for r in &records {
        w.write_record(r).expect("row");
    }
    let bytes = w.into_inner().expect("flush").finish().expect("gzip");
    std::fs::write(&tampered, bytes).expect("write");
    let (code, err) = regress(&gz, &tampered);
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("model_size changed"), "{err}");
    // A report that is not there: exit 2, and the error names the spelling that is.
    let (code, err) = regress(&gz, &study.join("report.csv"));
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("report.csv.gz exists"), "{err}");

    // plot: the same charts from the gzipped report as from the plain one.
    for (report, out) in [(&gz, "plots-gz"), (&plain, "plots-plain")] {
        let (code, err) = run(dir, &["plot", s(report), "--out", s(&dir.join(out))]);
        assert_eq!(code, Some(0), "{err}");
    }
    for f in ["overdeletion.svg", "crossover.csv", "spread.csv"] {
        assert_eq!(
            std::fs::read(dir.join("plots-gz").join(f)).expect(f),
            std::fs::read(dir.join("plots-plain").join(f)).expect(f),
            "{f}"
        );
    }
    assert!(dir.join("plots-gz/overdeletion.png").exists());

    // findings: a study folder with report.csv.gz, and the same folder holding the plain
    // report.csv of an older revision, give the same document.
    std::fs::write(
        study.join("datasets.csv"),
        format!(
            "dataset,nodes,edges,largest_scc,cyclic_share,depth,max_in,max_out,mean_degree\n\
             \"{dataset}\",32,48,1,0.0,3,2,2,1.5\n"
        ),
    )
    .expect("datasets.csv");
    let template = dir.join("T.md");
    std::fs::write(
        &template,
        "{{value:cases}} cases, k=1 median {{value:od_k1_median}}.\n\n{{table:overdeletion}}\n",
    )
    .expect("template");
    let findings = |out: &Path| {
        let (code, err) = run(
            dir,
            &[
                "findings",
                "--study",
                s(&study),
                "--template",
                s(&template),
                "--out",
                s(out),
            ],
        );
        assert_eq!(code, Some(0), "{err}");
        std::fs::read_to_string(out).expect("document")
    };
    let from_gz = findings(&dir.join("from-gz.md"));
    assert!(from_gz.starts_with("4 cases, k=1 median "), "{from_gz}");
    std::fs::remove_file(&gz).expect("rm");
    std::fs::copy(&plain, study.join("report.csv")).expect("plain report");
    assert_eq!(findings(&dir.join("from-plain.md")), from_gz);
}
