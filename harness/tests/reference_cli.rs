//! End-to-end tests of the `reference` and `wrong-support` engines through `dredbench run`:
//! the seed's figures in the report and the trace (SPEC §6), and the negative control
//! failing the model check with exit 1.

mod common;
use common::{dredbench, stderr};

use std::path::Path;

/// The report row of one engine and batch, as (column name → value).
fn row(report: &Path, engine: &str, batch: &str) -> Row {
    let mut rdr = csv::Reader::from_path(report).expect("report");
    let headers = rdr.headers().expect("headers").clone();
    for r in rdr.records() {
        let r = r.expect("row");
        let get = |name: &str| {
            let i = headers.iter().position(|h| h == name).expect(name);
            r[i].to_string()
        };
        if get("engine") == engine && get("batch") == batch {
            return headers
                .iter()
                .zip(r.iter())
                .map(|(h, v)| (h.to_string(), v.to_string()))
                .collect();
        }
    }
    panic!("no row for {engine} batch {batch}");
}

fn field<'a>(row: &'a [(String, String)], name: &str) -> &'a str {
    &row.iter().find(|(h, _)| h == name).expect(name).1
}

/// One trace line: (phase, round, facts).
type TraceRound = (String, u64, Vec<String>);

/// A report row as (column name, value) pairs.
type Row = Vec<(String, String)>;

/// The trace lines of the reference on batch 1.
fn trace_batch_1(trace: &Path) -> Vec<TraceRound> {
    let text = std::fs::read_to_string(trace).expect("trace");
    text.lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).expect("json line"))
        .filter(|v| v["engine"] == "reference" && v["batch"] == 1)
        .map(|v| {
            let facts: Vec<String> = v["facts"]
                .as_array()
                .expect("facts")
                .iter()
                .map(|f| f.as_str().expect("fact").to_string())
                .collect();
            assert_eq!(v["size"].as_u64(), Some(facts.len() as u64));
            (
                v["phase"].as_str().expect("phase").to_string(),
                v["round"].as_u64().expect("round"),
                facts,
            )
        })
        .collect()
}

/// Runs the seed deletion of edge(a, b) on `program` with the default engines; returns the
/// reference's batch-1 report row and trace.
fn seed_run(program: &str) -> (Row, Vec<TraceRound>) {
    let tmp = tempfile::tempdir().expect("tmp");
    let report = tmp.path().join("report.csv");
    let trace = tmp.path().join("trace.jsonl");
    let o = dredbench(&[
        "run",
        "--program",
        program,
        "--facts",
        "datasets/seed/facts",
        "--updates",
        "datasets/seed/delete-ab.updates",
        "--report",
        report.to_str().expect("utf-8"),
        "--trace",
        trace.to_str().expect("utf-8"),
        "--trace-facts",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("engines dred, bf, reference, dd, recompute, oracle agree"),
        "the default engines: {}",
        stderr(&o)
    );
    (row(&report, "reference", "1"), trace_batch_1(&trace))
}

fn facts(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

#[test]
fn seed_path_figures() {
    let (row, trace) = seed_run("datasets/seed/path.dl");
    for (name, value) in [
        ("overdeleted", "3"),
        ("rederived", "1"),
        ("inserted", "0"),
        ("model_removed", "2"),
        ("model_size", "18"),
        ("instances", "55"),
        ("body_len", "101"),
        ("membership_tests", "14"),
    ] {
        assert_eq!(field(&row, name), value, "{name}");
    }
    for name in ["overdelete_ns", "rederive_ns", "insert_ns"] {
        assert!(field(&row, name).parse::<u64>().is_ok(), "{name} filled");
    }
    let p = |phase: &str, round: u64, f: &[&str]| (phase.to_string(), round, facts(f));
    assert_eq!(
        trace,
        vec![
            p("overdelete", 1, &["edge(\"a\", \"b\")"]),
            p("overdelete", 2, &["path(\"a\", \"b\")"]),
            p(
                "overdelete",
                3,
                &["path(\"a\", \"c\")", "path(\"a\", \"d\")"]
            ),
            p("rederive", 1, &["path(\"a\", \"d\")"]),
            p("rederive", 2, &[]),
        ]
    );
}

#[test]
fn seed_magic_figures() {
    let (row, trace) = seed_run("datasets/seed/magic.dl");
    for (name, value) in [
        ("overdeleted", "12"),
        ("rederived", "2"),
        ("inserted", "0"),
        ("model_size", "6"),
        ("instances", "37"),
        ("membership_tests", "79"),
    ] {
        assert_eq!(field(&row, name), value, "{name}");
    }
    let over: Vec<&String> = trace
        .iter()
        .filter(|(phase, round, _)| phase == "overdelete" && *round > 1)
        .flat_map(|(_, _, f)| f)
        .collect();
    assert_eq!(over.iter().filter(|f| f.starts_with("q(")).count(), 9);
    assert_eq!(over.iter().filter(|f| f.starts_with("m(")).count(), 3);
    let rederive: Vec<&Vec<String>> = trace
        .iter()
        .filter(|(phase, _, _)| phase == "rederive")
        .map(|(_, _, f)| f)
        .collect();
    assert_eq!(
        rederive,
        vec![&facts(&["q(\"a\", \"d\")", "m(\"d\")"]), &facts(&[])]
    );
}

#[test]
fn wrong_support_fails_the_check() {
    let o = dredbench(&[
        "run",
        "--program",
        "datasets/seed/path.dl",
        "--facts",
        "datasets/seed/facts",
        "--updates",
        "datasets/seed/delete-ab.updates",
        "--engines",
        "reference,wrong-support",
    ]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("after batch 1"), "{err}");
    assert!(
        err.contains("`reference`") && err.contains("`wrong-support`"),
        "{err}"
    );
    assert!(err.contains("relation `path`"), "{err}");
    assert!(
        err.contains(
            "2 fact(s) in wrong-support, not in reference: path(\"a\", \"b\") path(\"a\", \"c\")"
        ),
        "{err}"
    );
}
