//! End-to-end tests of `dredbench run`: the seed figures, outputs, exit codes, and located
//! errors for every kind of bad input.

mod common;
use common::{dredbench, stderr, write};

#[test]
fn seed_example_recompute_and_oracle_agree() {
    let tmp = tempfile::tempdir().expect("tmp");
    let report = tmp.path().join("report.csv");
    let out = tmp.path().join("out");
    let o = dredbench(&[
        "run",
        "--program",
        "datasets/seed/path.dl",
        "--facts",
        "datasets/seed/facts",
        "--updates",
        "datasets/seed/delete-ab.updates",
        "--engines",
        "recompute,oracle",
        "--report",
        report.to_str().expect("utf-8"),
        "--out",
        out.to_str().expect("utf-8"),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let mut rdr = csv::Reader::from_path(&report).expect("report");
    let headers = rdr.headers().expect("headers").clone();
    let col = |name: &str| headers.iter().position(|h| h == name).expect(name);
    let rows: Vec<csv::StringRecord> = rdr.records().map(|r| r.expect("row")).collect();
    assert_eq!(rows.len(), 4, "two engines, batches 0 and 1");
    for r in &rows {
        let (batch, size) = (&r[col("batch")], &r[col("model_size")]);
        let expected = if batch == "0" { "20" } else { "18" };
        assert_eq!(size, expected, "engine {} batch {batch}", &r[col("engine")]);
        if batch == "1" {
            assert_eq!(&r[col("eff_del")], "1");
            assert_eq!(&r[col("model_removed")], "2");
            assert_eq!(&r[col("model_added")], "0");
        }
    }
    let path_csv = std::fs::read_to_string(out.join("path.csv")).expect("path.csv");
    assert_eq!(path_csv.lines().count(), 18);
    assert!(path_csv.starts_with("a\td\na\te\nb\tb\n"), "{path_csv}");
}

#[test]
fn zero_arity_fact_and_empty_program() {
    let tmp = tempfile::tempdir().expect("tmp");
    let facts = tmp.path().join("facts");
    std::fs::create_dir(&facts).expect("mkdir");
    let prog = write(
        tmp.path(),
        "ready.dl",
        ".decl ready()\n.output ready\nready().\n",
    );
    let out = tmp.path().join("out");
    let o = dredbench(&[
        "run",
        "--program",
        &prog,
        "--facts",
        facts.to_str().expect("utf-8"),
        "--out",
        out.to_str().expect("utf-8"),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(
        std::fs::read_to_string(out.join("ready.csv")).expect("ready.csv"),
        "()\n"
    );

    let empty = write(tmp.path(), "empty.dl", "// nothing\n");
    let report = tmp.path().join("r.csv");
    let o = dredbench(&[
        "run",
        "--program",
        &empty,
        "--facts",
        facts.to_str().expect("utf-8"),
        "--report",
        report.to_str().expect("utf-8"),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = std::fs::read_to_string(&report).expect("report");
    assert!(
        text.lines()
            .skip(1)
            .all(|l| l.contains(",1,0,0,0,0,0,,,,0,0,0,")),
        "{text}"
    );
}

/// Every kind of bad input exits 2 with file:line:column, and never panics.
#[test]
fn bad_input_exits_2_with_location() {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = tmp.path();
    let good_prog = ".decl edge(x: symbol, y: number)\n.decl path(x: symbol, y: number)\n.input edge\n.output path\npath(x, y) :- edge(x, y).\n";
    let facts = dir.join("facts");
    std::fs::create_dir(&facts).expect("mkdir");
    write(&facts, "edge.facts", "a\t1\nb\t2\n");
    let good = write(dir, "good.dl", good_prog);
    let facts_s = facts.to_str().expect("utf-8").to_string();

    let cases: Vec<(&str, Vec<String>, String)> = vec![
        (
            "syntax",
            vec![
                "--program".into(),
                write(dir, "p1.dl", ".decl e(x: symbol)\ne(x) :- \n"),
            ],
            "p1.dl:3:1".into(),
        ),
        (
            "arity",
            vec![
                "--program".into(),
                write(
                    dir,
                    "p2.dl",
                    &format!("{good_prog}path(x) :- edge(x, _).\n"),
                ),
            ],
            "p2.dl:6:1".into(),
        ),
        (
            "unsafe rule",
            vec![
                "--program".into(),
                write(
                    dir,
                    "p3.dl",
                    &format!("{good_prog}path(z, y) :- edge(x, y).\n"),
                ),
            ],
            "p3.dl:6:6".into(),
        ),
        (
            "type",
            vec![
                "--program".into(),
                write(
                    dir,
                    "p4.dl",
                    &format!("{good_prog}path(x, 1) :- edge(x, \"s\").\n"),
                ),
            ],
            "p4.dl:6:23".into(),
        ),
        (
            "unstratifiable",
            vec![
                "--program".into(),
                write(
                    dir,
                    "p5.dl",
                    &format!("{good_prog}path(x, y) :- edge(x, y), !path(x, y).\n"),
                ),
            ],
            "p5.dl:6:1".into(),
        ),
        (
            "unknown relation in update",
            vec![
                "--program".into(),
                good.clone(),
                "--updates".into(),
                write(dir, "u1.updates", "+\tedge\tc\t3\n+\tnope\ta\t1\n"),
            ],
            "u1.updates:2:3".into(),
        ),
        (
            "update to IDB",
            vec![
                "--program".into(),
                good.clone(),
                "--updates".into(),
                write(dir, "u2.updates", "-\tpath\ta\t1\n"),
            ],
            "u2.updates:1:3".into(),
        ),
        (
            "malformed number in update",
            vec![
                "--program".into(),
                good.clone(),
                "--updates".into(),
                write(dir, "u3.updates", "commit\n+\tedge\tc\tthree\n"),
            ],
            "u3.updates:2:10".into(),
        ),
    ];
    for (what, mut extra, expect) in cases {
        let mut args = vec!["run".to_string(), "--facts".into(), facts_s.clone()];
        args.append(&mut extra);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let o = dredbench(&args);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{what}: {err}");
        assert!(err.contains(&expect), "{what}: expected {expect} in\n{err}");
        assert!(!err.contains("panicked"), "{what}: {err}");
    }

    // Malformed facts: wrong column count, then a bad number.
    for (content, expect) in [
        ("a\t1\nb\n", "edge.facts:2:1"),
        ("a\tx\n", "edge.facts:1:3"),
    ] {
        let bad = dir.join(format!("bad{}", expect.len() + content.len()));
        std::fs::create_dir(&bad).expect("mkdir");
        write(&bad, "edge.facts", content);
        let o = dredbench(&[
            "run",
            "--program",
            &good,
            "--facts",
            bad.to_str().expect("utf-8"),
        ]);
        assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
        assert!(stderr(&o).contains(expect), "{expect}: {}", stderr(&o));
    }

    // A missing facts file is named, at the `.input` declaration.
    let none = dir.join("none");
    std::fs::create_dir(&none).expect("mkdir");
    let o = dredbench(&[
        "run",
        "--program",
        &good,
        "--facts",
        none.to_str().expect("utf-8"),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("edge.facts") && stderr(&o).contains("good.dl:1:7"),
        "{}",
        stderr(&o)
    );

    // Usage errors.
    let o = dredbench(&[
        "run",
        "--program",
        &good,
        "--facts",
        &facts_s,
        "--engines",
        "nope",
    ]);
    assert_eq!(o.status.code(), Some(2));
    let o = dredbench(&["run", "--program", "/nonexistent.dl", "--facts", &facts_s]);
    assert_eq!(o.status.code(), Some(2));
}

/// `--check full` compares whole models after every batch: the seed example agrees, the
/// negative control is caught in batch 1, and an unknown mode is a usage error.
#[test]
fn check_full_on_the_seed_example() {
    let run = |engines: &str, check: &str| {
        dredbench(&[
            "run",
            "--program",
            "datasets/seed/path.dl",
            "--facts",
            "datasets/seed/facts",
            "--updates",
            "datasets/seed/delete-ab.updates",
            "--engines",
            engines,
            "--check",
            check,
        ])
    };
    let o = run("dred,reference,recompute,oracle", "full");
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let o = run("oracle,wrong-support", "full");
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("models differ after batch 1"),
        "{}",
        stderr(&o)
    );
    let o = run("oracle", "everything");
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
}

/// A program with negation and an aggregate over the seed graph, through every engine that
/// maintains it: the batch that deletes edge(a, b) inserts `unreachable` facts at level 1 and
/// changes a's out-degree at the aggregate's level; the trace tags rounds with `stratum`, and
/// `oracle` checks every model (the chassis's `recompute-levels` and `rotate`, and
/// `counting`, included).
#[test]
fn negation_and_aggregates_run_on_every_engine() {
    let tmp = tempfile::tempdir().expect("tmp");
    let program = write(
        tmp.path(),
        "p.dl",
        ".decl edge(x: symbol, y: symbol)\n.decl path(x: symbol, y: symbol)\n\
         .decl node(x: symbol)\n.decl unreachable(x: symbol)\n.decl outdeg(x: symbol, n: number)\n\
         .input edge\n.output unreachable\n.output outdeg\n\
         path(x, y) :- edge(x, y).\npath(x, z) :- path(x, y), path(y, z).\n\
         node(x) :- edge(x, _).\nnode(y) :- edge(_, y).\n\
         unreachable(y) :- node(y), !path(\"a\", y).\n\
         outdeg(x, n) :- node(x), n = count : { edge(x, _) }.\n",
    );
    let updates = write(
        tmp.path(),
        "u.updates",
        "-\tedge\ta\tb\ncommit\n+\tedge\ta\tb\ncommit\n",
    );
    let trace = tmp.path().join("trace.jsonl");
    let out = tmp.path().join("out");
    let o = dredbench(&[
        "run",
        "--program",
        &program,
        "--facts",
        "datasets/seed/facts",
        "--updates",
        &updates,
        "--engines",
        "dred,reference,bf,dd,recompute,oracle,recompute-levels,rotate,auto,counting",
        "--check",
        "full",
        "--trace",
        trace.to_str().expect("utf-8"),
        "--trace-facts",
        "--out",
        out.to_str().expect("utf-8"),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let lines: Vec<serde_json::Value> = std::fs::read_to_string(&trace)
        .expect("trace")
        .lines()
        .map(|l| serde_json::from_str(l).expect("json"))
        .collect();
    let inserted_above: Vec<String> = lines
        .iter()
        .filter(|l| l["engine"] == "dred" && l["batch"] == 1 && l["phase"] == "insert")
        .filter(|l| l["stratum"].as_u64().is_some_and(|s| s > 0))
        .flat_map(|l| l["facts"].as_array().cloned().unwrap_or_default())
        .map(|f| f.as_str().expect("fact").to_string())
        .collect();
    for f in [
        "unreachable(\"b\")",
        "unreachable(\"c\")",
        "@agg0(\"a\", 1)",
    ] {
        assert!(
            inserted_above.contains(&f.to_string()),
            "{f} not inserted above level 0: {inserted_above:?}"
        );
    }
    assert!(lines.iter().all(|l| l["stratum"].is_u64()));
    let outdeg = std::fs::read_to_string(out.join("outdeg.csv")).expect("outdeg.csv");
    assert!(outdeg.lines().any(|l| l == "a\t2"), "{outdeg}");
    assert!(outdeg.lines().any(|l| l == "d\t0"), "{outdeg}");
}

/// `bf` on the seed: its report has the counters of B/F (`checked`, `disproved`,
/// `backward_instances`), `overdeleted` = what it deleted and `rederived` = 0 beside `dred`'s
/// 3 and 1; its trace has `delete` rounds and no `rederive` ones.
#[test]
fn bf_reports_its_checks_on_the_seed() {
    let tmp = tempfile::tempdir().expect("tmp");
    let report = tmp.path().join("report.csv");
    let trace = tmp.path().join("trace.jsonl");
    let o = dredbench(&[
        "run",
        "--program",
        "datasets/seed/path.dl",
        "--facts",
        "datasets/seed/facts",
        "--updates",
        "datasets/seed/delete-ab.updates",
        "--engines",
        "dred,bf,oracle",
        "--check",
        "full",
        "--report",
        report.to_str().expect("utf-8"),
        "--trace",
        trace.to_str().expect("utf-8"),
        "--trace-facts",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let mut rdr = csv::Reader::from_path(&report).expect("report");
    let headers = rdr.headers().expect("headers").clone();
    let col = |name: &str| headers.iter().position(|h| h == name).expect(name);
    let rows: Vec<csv::StringRecord> = rdr.records().map(|r| r.expect("row")).collect();
    let batch1 = |engine: &str| {
        rows.iter()
            .find(|r| &r[col("engine")] == engine && &r[col("batch")] == "1")
            .unwrap_or_else(|| panic!("{engine} batch 1"))
            .clone()
    };
    let bf = batch1("bf");
    let figures = |r: &csv::StringRecord, names: &[&str]| -> Vec<String> {
        names.iter().map(|n| r[col(n)].to_string()).collect()
    };
    assert_eq!(
        figures(
            &bf,
            &[
                "overdeleted",
                "rederived",
                "checked",
                "disproved",
                "model_removed"
            ]
        ),
        ["2", "0", "9", "2", "2"]
    );
    assert!(
        bf[col("backward_instances")]
            .parse::<u64>()
            .expect("number")
            > 0
    );
    let dred = batch1("dred");
    assert_eq!(
        figures(&dred, &["overdeleted", "rederived", "checked"]),
        ["3", "1", ""]
    );
    let lines: Vec<serde_json::Value> = std::fs::read_to_string(&trace)
        .expect("trace")
        .lines()
        .map(|l| serde_json::from_str(l).expect("json"))
        .collect();
    let phases: std::collections::BTreeSet<&str> = lines
        .iter()
        .filter(|l| l["engine"] == "bf" && l["batch"] == 1)
        .map(|l| l["phase"].as_str().expect("phase"))
        .collect();
    // No insertion in the batch, so no insert round.
    assert_eq!(phases, ["delete"].into_iter().collect());
    let deleted: Vec<String> = lines
        .iter()
        .filter(|l| l["engine"] == "bf" && l["batch"] == 1 && l["phase"] == "delete")
        .flat_map(|l| l["facts"].as_array().cloned().unwrap_or_default())
        .map(|f| f.as_str().expect("fact").to_string())
        .collect();
    assert_eq!(
        deleted,
        [
            "edge(\"a\", \"b\")",
            "path(\"a\", \"b\")",
            "path(\"a\", \"c\")"
        ]
    );
}

/// `counting` on the seed: its report has its counters — three facts' counts changed
/// (path(a, b) and path(a, c) went, path(a, d) lost its two derivations of round 3), no round
/// moved, the recursive stratum replayed over 4 rounds — and `overdeleted` is its net removal;
/// `dred`'s rows leave the columns empty.
#[test]
fn counting_reports_its_counts_on_the_seed() {
    let tmp = tempfile::tempdir().expect("tmp");
    let report = tmp.path().join("report.csv");
    let o = dredbench(&[
        "run",
        "--program",
        "datasets/seed/path.dl",
        "--facts",
        "datasets/seed/facts",
        "--updates",
        "datasets/seed/delete-ab.updates",
        "--engines",
        "dred,counting,oracle",
        "--check",
        "full",
        "--report",
        report.to_str().expect("utf-8"),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let mut rdr = csv::Reader::from_path(&report).expect("report");
    let headers = rdr.headers().expect("headers").clone();
    let col = |name: &str| headers.iter().position(|h| h == name).expect(name);
    let rows: Vec<csv::StringRecord> = rdr.records().map(|r| r.expect("row")).collect();
    let figures = |engine: &str| -> Vec<String> {
        let row = rows
            .iter()
            .find(|r| &r[col("engine")] == engine && &r[col("batch")] == "1")
            .unwrap_or_else(|| panic!("{engine} batch 1"));
        [
            "overdeleted",
            "model_removed",
            "counts_changed",
            "rounds_moved",
            "rounds_replayed",
        ]
        .iter()
        .map(|n| row[col(n)].to_string())
        .collect()
    };
    // Rounds 1 to 3 looked at: path(a, b) leaves at 1, path(a, c) at 2, neither has a
    // derivation left at 3 (the unit test `seed_batch_counts` lists the counts).
    assert_eq!(figures("counting"), ["2", "2", "3", "0", "3"]);
    assert_eq!(figures("dred"), ["3", "2", "", "", ""]);
}

/// `--batch-time-limit`: a batch over it is recorded (`time_limit_ns` on its row) and its
/// engine not run on later batches; when every engine is past it before the last batch the
/// run fails and writes no outputs; a limit no batch reaches changes nothing; a limit that
/// is not a positive number of seconds is a usage error.
#[test]
fn a_batch_over_the_time_limit_is_recorded_and_stops_its_engine() {
    let tmp = tempfile::tempdir().expect("tmp");
    let case = |limit: &str, name: &str| {
        let report = tmp.path().join(format!("{name}.csv"));
        let out = tmp.path().join(name);
        let o = dredbench(&[
            "run",
            "--program",
            "datasets/conformance/types/program.dl",
            "--facts",
            "datasets/conformance/types/facts",
            "--updates",
            "datasets/conformance/types/churn.updates",
            "--engines",
            "dred,recompute",
            "--batch-time-limit",
            limit,
            "--report",
            report.to_str().expect("utf-8"),
            "--out",
            out.to_str().expect("utf-8"),
        ]);
        let rows: Vec<(String, String, String)> = if report.exists() {
            let mut rdr = csv::Reader::from_path(&report).expect("report");
            let headers = rdr.headers().expect("headers").clone();
            let col = |n: &str| headers.iter().position(|h| h == n).expect(n);
            let (b, e, l) = (col("batch"), col("engine"), col("time_limit_ns"));
            rdr.records()
                .map(|r| r.expect("row"))
                .map(|r| (r[b].to_string(), r[e].to_string(), r[l].to_string()))
                .collect()
        } else {
            Vec::new()
        };
        (o, rows, out.exists())
    };
    // One nanosecond: both engines pass it on batch 1 of 4.
    let (o, rows, wrote) = case("0.000000001", "tight");
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains("OVER THE LIMIT"), "{}", stderr(&o));
    assert!(stderr(&o).contains("no outputs written"), "{}", stderr(&o));
    assert!(!wrote, "no outputs past the limit");
    let marked: Vec<&(String, String, String)> = rows.iter().filter(|r| !r.2.is_empty()).collect();
    assert_eq!(marked.len(), 2, "{rows:?}");
    assert!(marked.iter().all(|r| r.0 == "1" && r.2 == "1"), "{rows:?}");
    assert!(rows.iter().all(|r| r.0 == "0" || r.0 == "1"), "{rows:?}");
    // An hour: nothing marked, every batch run, outputs written.
    let (o, rows, wrote) = case("3600", "loose");
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(wrote);
    assert!(rows.iter().all(|r| r.2.is_empty()), "{rows:?}");
    assert!(rows.iter().any(|r| r.0 == "4"), "{rows:?}");
    for bad in ["0", "inf", "soon"] {
        let (o, _, _) = case(bad, "bad");
        assert_eq!(o.status.code(), Some(2), "{bad}: {}", stderr(&o));
        assert!(
            stderr(&o).contains("positive number of seconds"),
            "{}",
            stderr(&o)
        );
    }
}
