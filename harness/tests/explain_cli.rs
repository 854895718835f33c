//! End-to-end tests of `dredbench explain`: the seed's explanation of path(a, d) (over-deleted
//! in the third frontier through path(a, b) ← edge(a, b), rederived in round 1 through e), the
//! batch summary, JSON, `bf`'s checks, an insertion through negation, and located errors for a
//! bad `--fact` or `--batch` (exit 2).

mod common;
use common::{dredbench, stderr};

const SEED: [&str; 6] = [
    "--program",
    "datasets/seed/path.dl",
    "--facts",
    "datasets/seed/facts",
    "--updates",
    "datasets/seed/delete-ab.updates",
];

fn explain(extra: &[&str]) -> std::process::Output {
    let mut args = vec!["explain"];
    args.extend(SEED);
    args.extend(extra);
    dredbench(&args)
}

fn stdout(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

#[test]
fn seed_path_ad_is_explained() {
    for engine in ["dred", "reference"] {
        let o = explain(&[
            "--batch",
            "1",
            "--fact",
            "path(\"a\", \"d\")",
            "--engine",
            engine,
        ]);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        let out = stdout(&o);
        let expected = [
            "over-deleted in round 3 of level 0 (overdelete):",
            "  round 3  path(\"a\", \"d\")  by  path(x, z) :- path(x, y), path(y, z).",
            "           body: path(\"a\", \"b\") [over-deleted in round 2], path(\"b\", \"d\") [in the old model]",
            "  round 2  path(\"a\", \"b\")  by  path(x, y) :- edge(x, y).",
            "  round 1  edge(\"a\", \"b\")  deleted by the batch (D-)",
            "rederived in round 1 of level 0 (rederive):",
            "           body: path(\"a\", \"e\") [kept (not over-deleted, or below)], path(\"e\", \"d\") [kept (not over-deleted, or below)]",
        ];
        for line in expected {
            assert!(
                out.lines().any(|l| l == line),
                "{engine}: missing {line:?} in\n{out}"
            );
        }
        // Both record their derivations while they run the batch.
        let how = if engine == "dred" {
            "instances recorded: the first instance the engine found, while it ran the batch"
        } else {
            "instances recorded: an instance of the engine's instance store, while it ran the batch"
        };
        assert!(out.lines().any(|l| l == how), "{engine}: {out}");
    }
}

#[test]
fn summary_and_json() {
    let o = explain(&["--batch", "1"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(
        out.contains("over-deleted 3 derived fact(s), rederived 1, inserted 0"),
        "{out}"
    );
    assert!(
        out.lines()
            .any(|l| l.trim_start().starts_with("3  edge(\"a\", \"b\")")),
        "{out}"
    );
    let o = explain(&["--batch", "1", "--json"]);
    let j: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    assert_eq!(j["groups"][0]["root"], "edge(\"a\", \"b\")");
    assert_eq!(j["groups"][0]["count"], 3);
    assert_eq!(j["recorded"], true);
    // What recording cost the batch, measured on copies of the engine.
    assert!(j["batch_ns_recording"].is_u64(), "{j:#}");
    assert!(j["batch_ns_unrecorded"].is_u64(), "{j:#}");
    let o = explain(&["--batch", "1", "--fact", "path(\"a\", \"d\")", "--json"]);
    let j: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    let chain = &j["entries"][0]["chain"];
    assert_eq!(chain.as_array().map(Vec::len), Some(3), "{j:#}");
    assert_eq!(chain[0]["trigger"]["fact"], "path(\"a\", \"b\")");
    assert_eq!(chain[2]["source"], "update");
    assert_eq!(j["entries"][1]["phase"], "rederive");
    assert_eq!(
        (j["before"].clone(), j["after"].clone()),
        (true.into(), true.into())
    );
}

#[test]
fn bf_tells_its_checks() {
    let o = explain(&[
        "--batch",
        "1",
        "--fact",
        "path(\"a\", \"d\")",
        "--engine",
        "bf",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(
        out.contains("checked by bf: a derivation from facts still proved was found"),
        "{out}"
    );
    let o = explain(&[
        "--batch",
        "1",
        "--fact",
        "path(\"a\", \"c\")",
        "--engine",
        "bf",
    ]);
    let out = stdout(&o);
    assert!(out.contains("checked by bf: no derivation"), "{out}");
    assert!(
        out.contains("deleted in round 3 of level 0 (delete):"),
        "{out}"
    );
}

#[test]
fn an_insertion_through_negation_is_explained() {
    let tmp = tempfile::tempdir().expect("tmp");
    let program = tmp.path().join("p.dl");
    std::fs::write(
        &program,
        ".decl edge(x: symbol, y: symbol)\n.decl path(x: symbol, y: symbol)\n\
         .decl node(x: symbol)\n.decl unreachable(x: symbol)\n.input edge\n\
         path(x, y) :- edge(x, y).\npath(x, z) :- path(x, y), path(y, z).\n\
         node(x) :- edge(x, _).\nnode(y) :- edge(_, y).\n\
         unreachable(y) :- node(y), !path(\"a\", y).\n",
    )
    .expect("write");
    let o = dredbench(&[
        "explain",
        "--program",
        program.to_str().expect("utf-8"),
        "--facts",
        "datasets/seed/facts",
        "--updates",
        "datasets/seed/delete-ab.updates",
        "--batch",
        "1",
        "--fact",
        "unreachable(\"b\")",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(
        out.contains("inserted in round 1 of level 1 (insert):"),
        "{out}"
    );
    assert!(
        out.contains("through a negated atom: path(\"a\", \"b\") [lost by a level below]"),
        "{out}"
    );
    // The chain goes on below: path(a, b) was over-deleted at level 0, from edge(a, b).
    assert!(out.contains("deleted by the batch (D-)"), "{out}");
}

#[test]
fn bad_fact_or_batch_is_a_located_error() {
    let o = explain(&["--batch", "1", "--fact", "path(\"a\", 3)"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--fact:1:11"), "{}", stderr(&o));
    let o = explain(&["--batch", "1", "--fact", "path(\"a\", y)"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("needs a constant"), "{}", stderr(&o));
    let o = explain(&["--batch", "1", "--fact", "nope(\"a\")"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("not declared"), "{}", stderr(&o));
    for batch in ["0", "2"] {
        let o = explain(&["--batch", batch]);
        assert_eq!(o.status.code(), Some(2));
        assert!(stderr(&o).contains("has 1 batch(es)"), "{}", stderr(&o));
    }
}

/// Floats are printed as floats in facts and in the rules that derive them: the constant
/// of `d + c < 10` (a `float` comparison) reads 10, not its stored word.
#[test]
fn float_facts_and_rules_are_printed_as_written() {
    let case = "datasets/conformance/numeric";
    let o = dredbench(&[
        "explain",
        "--program",
        &format!("{case}/program.dl"),
        "--facts",
        &format!("{case}/facts"),
        "--updates",
        &format!("{case}/churn.updates"),
        "--batch",
        "4",
        "--fact",
        "dist(2, 0.25)",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(
        out.contains(
            "round 2  dist(2, 0.25)  by  dist(b, $e0) :- dist(a, d), edge(a, b, c), $e1 < 10, \
             $e0 = (d + c), $e1 = (d + c)."
        ),
        "{out}"
    );
    assert!(
        out.contains("edge(1, 2, 0.25)  inserted by the batch (A+)"),
        "{out}"
    );
}
