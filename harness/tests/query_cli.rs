//! `dredbench run --query` and `dredbench rewrite` on the seed query of SPEC §6.

mod common;
use common::dredbench;

#[test]
fn seed_query_is_maintained_with_its_demand() {
    let tmp = tempfile::tempdir().expect("tmp");
    let out = tmp.path().join("out");
    let report = tmp.path().join("r.csv");
    let o = dredbench(&[
        "run",
        "--program",
        "datasets/seed/path.dl",
        "--facts",
        "datasets/seed/facts",
        "--updates",
        "datasets/seed/delete-ab.updates",
        "--query",
        "path(\"a\", y)",
        "--engines",
        "dred,reference,recompute,oracle",
        "--out",
        out.to_str().expect("utf-8"),
        "--report",
        report.to_str().expect("utf-8"),
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert_eq!(
        std::fs::read_to_string(out.join("answers.csv")).expect("answers"),
        "a\td\na\te\n"
    );
    let demand = std::fs::read_to_string(out.join("magic_path_bf.csv")).expect("demand");
    assert_eq!(
        demand, "a\nd\ne\n",
        "m(d) stays, m(b) and m(c) are withdrawn"
    );
    let text = std::fs::read_to_string(&report).expect("report");
    let mut rdr = csv::Reader::from_reader(text.as_bytes());
    let headers = rdr.headers().expect("headers").clone();
    let col = |n: &str| headers.iter().position(|h| h == n).expect(n);
    for r in rdr.records().map(|r| r.expect("row")) {
        let batch = &r[col("batch")];
        assert_eq!(&r[col("model_size")], if batch == "0" { "16" } else { "6" });
        if batch == "1" && matches!(&r[col("engine")], "dred" | "reference") {
            assert_eq!(&r[col("overdeleted")], "12", "9 q + 3 m");
            assert_eq!(&r[col("rederived")], "2", "q(a,d) and m(d)");
        }
        if batch == "1" && &r[col("engine")] == "reference" {
            assert_eq!(&r[col("instances")], "37");
        }
    }
}

#[test]
fn rewrite_prints_the_program_and_bad_queries_exit_2() {
    let o = dredbench(&[
        "rewrite",
        "--program",
        "datasets/seed/path.dl",
        "--query",
        "path(\"a\", y)",
    ]);
    assert_eq!(o.status.code(), Some(0));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("magic_path_bf(\"a\")."), "{text}");
    assert!(text.contains("path_bf(x, z) :- magic_path_bf(x), path_bf(x, y), path_bf(y, z)."));
    for q in [
        "nope(x)",
        "path(\"a\")",
        "path(1, y)",
        "edge(\"a\", y)",
        "path(\"a\", y",
    ] {
        let o = dredbench(&[
            "run",
            "--program",
            "datasets/seed/path.dl",
            "--facts",
            "datasets/seed/facts",
            "--query",
            q,
        ]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{q}: {err}");
        assert!(err.contains("--query:1:"), "{q}: {err}");
    }
}
