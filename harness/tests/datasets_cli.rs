//! End-to-end tests of `dredbench datasets` and `dredbench updates`: every dataset that needs
//! no network loads and its transitive closure agrees between engines; generators and streams
//! are reproducible by seed; malformed input is refused with `file:line`. Nothing here uses
//! the network: each command runs with an empty temporary cache.

mod common;
use common::{dredbench_in_cache as dredbench, stderr, stdout};

use std::path::Path;

/// `dredbench datasets path NAME`.
fn facts_of(cache: &Path, name: &str) -> String {
    let o = dredbench(cache, &["datasets", "path", name]);
    assert_eq!(o.status.code(), Some(0), "{name}: {}", stderr(&o));
    stdout(&o).trim().to_string()
}

/// Runs a program on a facts directory with the given engines; returns the size of each
/// output relation as printed (`  rel: N`).
fn run_agrees(program: &str, facts: &str, engines: &str, updates: Option<&str>) -> Vec<String> {
    let mut args = vec![
        "run",
        "--program",
        program,
        "--facts",
        facts,
        "--engines",
        engines,
    ];
    if let Some(u) = updates {
        args.extend(["--updates", u]);
    }
    let tmp = tempfile::tempdir().expect("tmp");
    let o = dredbench(tmp.path(), &args);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(0), "{program} on {facts}: {err}");
    assert!(err.contains("agree after every batch"), "{err}");
    err.lines()
        .filter(|l| l.starts_with("  "))
        .map(|l| l.trim().to_string())
        .collect()
}

/// Small instances of every generator kind.
const SMALL_GENERATED: &[&str] = &[
    "gen:er?n=60&m=150&seed=2",
    "gen:rmat?n=64&m=180&seed=2",
    "gen:grid?rows=6&cols=7",
    "gen:chain?n=40",
    "gen:cliques?count=3&size=5&density=70&seed=2",
    "gen:layered?layers=4&width=6&fanout=2&seed=2",
];

#[test]
fn list_shows_every_dataset_generator_and_program() {
    let cache = tempfile::tempdir().expect("tmp");
    let o = dredbench(cache.path(), &["datasets", "list"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = stdout(&o);
    for name in ["seed", "go-cc", "go-mf"] {
        let line = out
            .lines()
            .find(|l| l.starts_with(&format!("{name} ")))
            .expect(name);
        assert!(line.contains("shipped"), "{line}");
    }
    for name in ["go-bp", "wordnet", "debian-deps", "celegans"] {
        let line = out
            .lines()
            .find(|l| l.starts_with(&format!("{name} ")))
            .expect(name);
        assert!(line.contains("not installed"), "{line}");
    }
    for kind in ["er", "rmat", "grid", "chain", "cliques", "layered"] {
        assert!(out.contains(&format!("gen:{kind}?")), "{kind}: {out}");
    }
    assert!(out.contains("tc_linear.dl"), "{out}");
    assert!(out.contains(&cache.path().display().to_string()), "{out}");
}

#[test]
fn small_datasets_agree_with_the_oracle_on_every_program() {
    let cache = tempfile::tempdir().expect("tmp");
    let mut names = vec!["seed"];
    names.extend(SMALL_GENERATED);
    for name in names {
        let facts = facts_of(cache.path(), name);
        for program in [
            "datasets/programs/tc_linear.dl",
            "datasets/programs/tc_nonlinear.dl",
            "datasets/programs/reach.dl",
            "datasets/programs/reach_root.dl",
            "datasets/programs/same_generation.dl",
            "datasets/programs/magic_path_source.dl",
        ] {
            run_agrees(program, &facts, "recompute,oracle", None);
        }
    }
}

#[test]
fn seed_figures_through_the_shipped_programs() {
    let cache = tempfile::tempdir().expect("tmp");
    let facts = facts_of(cache.path(), "seed");
    assert!(facts.ends_with("datasets/seed/facts"), "{facts}");
    let sizes = |p| run_agrees(p, &facts, "recompute,oracle", None);
    // SPEC §6: 20 path tuples; the magic program has 11 q and 5 m.
    assert_eq!(sizes("datasets/programs/tc_linear.dl"), ["path: 20"]);
    assert_eq!(sizes("datasets/programs/tc_nonlinear.dl"), ["path: 20"]);
    assert_eq!(
        sizes("datasets/programs/magic_path_a.dl"),
        ["q: 11", "m: 5"]
    );
    // The seed's source is `a` (out-degree 2, smallest name), so the source form agrees.
    assert_eq!(
        sizes("datasets/programs/magic_path_source.dl"),
        ["q: 11", "m: 5"]
    );
    assert_eq!(sizes("datasets/programs/reach.dl"), ["reach: 5"]);
    // The seed's root is `d`, reached from a, b, c and e (not from the cycle u, v, w).
    assert_eq!(sizes("datasets/programs/reach_root.dl"), ["reach: 5"]);
}

#[test]
fn shipped_gene_ontology_graphs_load_and_close() {
    // The oracle takes minutes on these; recompute is checked against the oracle and the
    // other engines in the recorded --release run (datasets/README.md). Here: they load,
    // and their closure sizes do not drift.
    let cache = tempfile::tempdir().expect("tmp");
    // Every term reaches the root `all`, so reach_root.dl holds every node.
    for (name, tc, rooted) in [
        ("go-cc", "path: 49633", "reach: 4181"),
        ("go-mf", "path: 83327", "reach: 11239"),
    ] {
        let facts = facts_of(cache.path(), name);
        assert!(
            facts.ends_with(&format!("datasets/{name}/facts")),
            "{facts}"
        );
        let sizes = run_agrees("datasets/programs/tc_linear.dl", &facts, "recompute", None);
        assert_eq!(sizes, [tc], "{name}");
        run_agrees("datasets/programs/reach.dl", &facts, "recompute", None);
        let sizes = run_agrees("datasets/programs/reach_root.dl", &facts, "recompute", None);
        assert_eq!(sizes, [rooted], "{name}");
    }
}

#[test]
fn generators_are_deterministic_by_seed() {
    let tmp = tempfile::tempdir().expect("tmp");
    let gen = |kind: &str, seed: &str, out: &str, extra: &[&str]| {
        let dir = tmp.path().join(out);
        let dir_s = dir.to_str().expect("utf-8").to_string();
        let mut args = vec![
            "datasets", "generate", kind, "--seed", seed, "--out", &dir_s,
        ];
        args.extend(extra);
        let o = dredbench(tmp.path(), &args);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        std::fs::read(dir.join("facts/edge.facts")).expect("edge.facts")
    };
    for (kind, extra) in [
        ("er", &["--nodes", "300", "--edges", "900"][..]),
        ("rmat", &["--nodes", "300", "--edges", "900"][..]),
        (
            "cliques",
            &["--param", "count=4", "--param", "density=50"][..],
        ),
        (
            "layered",
            &["--param", "layers=5", "--param", "width=20"][..],
        ),
    ] {
        let a = gen(kind, "7", &format!("{kind}-a"), extra);
        let b = gen(kind, "7", &format!("{kind}-b"), extra);
        let c = gen(kind, "8", &format!("{kind}-c"), extra);
        assert!(!a.is_empty());
        assert_eq!(a, b, "{kind}: same seed, same bytes");
        assert_ne!(a, c, "{kind}: another seed, another graph");
    }
    // Pinned: the first lines of a small Erdős–Rényi graph never change across platforms or
    // releases (SplitMix64, integer arithmetic only).
    let er = gen("er", "1", "er-pinned", &["--nodes", "10", "--edges", "5"]);
    assert_eq!(String::from_utf8_lossy(&er), PINNED_ER);
    // A key the kind does not have is refused.
    let o = dredbench(
        tmp.path(),
        &[
            "datasets", "generate", "chain", "--edges", "5", "--out", "x",
        ],
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("no key `m`"), "{}", stderr(&o));
}

/// `dredbench datasets generate er --nodes 10 --edges 5 --seed 1`.
const PINNED_ER: &str = "n0\tn5\nn1\tn8\nn5\tn3\nn5\tn9\nn7\tn0\n";

#[test]
fn snap_import_and_malformed_lines() {
    let tmp = tempfile::tempdir().expect("tmp");
    let good = tmp.path().join("web.txt");
    std::fs::write(&good, "# SNAP\n# FromNodeId\tToNodeId\n1\t2\n2 3\n3\t1\n").expect("write");
    let out = tmp.path().join("web");
    let o = dredbench(
        tmp.path(),
        &[
            "datasets",
            "import",
            good.to_str().expect("utf-8"),
            "--out",
            out.to_str().expect("utf-8"),
        ],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let facts = out.join("facts");
    assert_eq!(
        std::fs::read_to_string(facts.join("edge.facts")).expect("edges"),
        "1\t2\n2\t3\n3\t1\n"
    );
    let sizes = run_agrees(
        "datasets/programs/tc_linear.dl",
        facts.to_str().expect("utf-8"),
        "recompute,oracle",
        None,
    );
    assert_eq!(sizes, ["path: 9"]);

    let bad = tmp.path().join("bad.txt");
    std::fs::write(&bad, "# c\n1 2\n1 2 3\n").expect("write");
    let o = dredbench(
        tmp.path(),
        &[
            "datasets",
            "import",
            bad.to_str().expect("utf-8"),
            "--out",
            "x",
        ],
    );
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(err.contains("bad.txt:3: expected two"), "{err}");
    // The same through a `snap:` name.
    let o = dredbench(
        tmp.path(),
        &["datasets", "path", &format!("snap:{}", bad.display())],
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("bad.txt:3:"), "{}", stderr(&o));
}

#[test]
fn malformed_facts_are_refused_with_file_and_line() {
    let tmp = tempfile::tempdir().expect("tmp");
    let facts = tmp.path().join("broken");
    std::fs::create_dir(&facts).expect("mkdir");
    std::fs::write(facts.join("edge.facts"), "a\tb\nb\tc\td\n").expect("write");
    let o = dredbench(
        tmp.path(),
        &[
            "updates",
            "--dataset",
            facts.to_str().expect("utf-8"),
            "--kind",
            "delete",
        ],
    );
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(err.contains("edge.facts:2:"), "{err}");
}

#[test]
fn unknown_and_uninstalled_datasets_are_clear_errors() {
    let tmp = tempfile::tempdir().expect("tmp");
    let o = dredbench(tmp.path(), &["datasets", "path", "wordnet"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("dredbench datasets fetch wordnet"),
        "{}",
        stderr(&o)
    );
    let o = dredbench(tmp.path(), &["datasets", "path", "nothing-like-it"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("unknown dataset"), "{}", stderr(&o));
    // Fetching a shipped dataset without a package, or an unknown name, fails before any
    // download.
    let o = dredbench(tmp.path(), &["datasets", "fetch", "seed"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("nothing to fetch"), "{}", stderr(&o));
    let o = dredbench(tmp.path(), &["datasets", "fetch", "nothing-like-it"]);
    assert_eq!(o.status.code(), Some(2));
}

/// `dredbench updates` with the given arguments; the stream text.
fn updates(cache: &Path, args: &[&str]) -> String {
    let mut all = vec!["updates"];
    all.extend(args);
    let o = dredbench(cache, &all);
    assert_eq!(o.status.code(), Some(0), "{args:?}: {}", stderr(&o));
    stdout(&o)
}

#[test]
fn update_streams_are_reproducible_and_the_engines_agree_on_them() {
    let cache = tempfile::tempdir().expect("tmp");
    // (dataset, kind, size, batches): the seed graph has two cycles, so two scc-delete
    // batches of one edge use them up.
    let cases: &[(&str, &str, &str, &str)] = &[
        ("seed", "delete", "2", "3"),
        ("seed", "insert", "3", "3"),
        ("seed", "mixed", "4", "3"),
        ("seed", "scc-delete", "1", "2"),
        ("seed", "bridge-delete", "2", "3"),
        ("gen:er?n=60&m=150&seed=2", "mixed", "6", "3"),
        (
            "gen:cliques?count=3&size=5&density=70&seed=2",
            "scc-delete",
            "4",
            "3",
        ),
        (
            "gen:layered?layers=4&width=6&fanout=2&seed=2",
            "bridge-delete",
            "3",
            "3",
        ),
        ("gen:grid?rows=6&cols=7", "delete", "5", "3"),
    ];
    for &(dataset, kind, size, batches) in cases {
        let args = [
            "--dataset",
            dataset,
            "--kind",
            kind,
            "--size",
            size,
            "--batches",
            batches,
            "--seed",
            "5",
        ];
        let a = updates(cache.path(), &args);
        let b = updates(cache.path(), &args);
        assert_eq!(a, b, "{dataset} {kind}: same seed, same stream");
        let mut other = args;
        other[9] = "6";
        if kind != "scc-delete" || dataset != "seed" {
            assert_ne!(
                a,
                updates(cache.path(), &other),
                "{dataset} {kind}: seed matters"
            );
        }
        assert_eq!(a.matches("commit\n").count().to_string(), batches, "{a}");
        let stream = cache.path().join(format!("{kind}.updates"));
        std::fs::write(&stream, &a).expect("write");
        let facts = facts_of(cache.path(), dataset);
        for program in [
            "datasets/programs/tc_linear.dl",
            "datasets/programs/tc_nonlinear.dl",
            "datasets/programs/reach.dl",
        ] {
            run_agrees(
                program,
                &facts,
                "recompute,oracle",
                Some(stream.to_str().expect("utf-8")),
            );
        }
    }
}

#[test]
fn update_stream_format_and_revert() {
    let cache = tempfile::tempdir().expect("tmp");
    let text = updates(
        cache.path(),
        &[
            "--dataset",
            "seed",
            "--kind",
            "delete",
            "--size",
            "2",
            "--batches",
            "2",
            "--seed",
            "3",
            "--revert",
        ],
    );
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[0].starts_with("# dredbench updates --dataset seed --kind delete"));
    assert!(lines[1].contains("dataset_hash"), "{text}");
    assert_eq!(text.matches("commit\n").count(), 4, "{text}");
    let dels: Vec<&str> = lines
        .iter()
        .copied()
        .filter(|l| l.starts_with("-\tedge\t"))
        .collect();
    let ins: Vec<&str> = lines
        .iter()
        .copied()
        .filter(|l| l.starts_with("+\tedge\t"))
        .collect();
    assert_eq!(dels.len(), 4);
    assert_eq!(ins.len(), 4, "every deletion is reverted");
    // --out writes the same text.
    let out = cache.path().join("s.updates");
    let o = dredbench(
        cache.path(),
        &[
            "updates",
            "--dataset",
            "seed",
            "--kind",
            "delete",
            "--size",
            "2",
            "--batches",
            "2",
            "--seed",
            "3",
            "--revert",
            "--out",
            out.to_str().expect("utf-8"),
        ],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(std::fs::read_to_string(&out).expect("stream"), text);
    // Targeted deletions need a cycle.
    let o = dredbench(
        cache.path(),
        &[
            "updates",
            "--dataset",
            "gen:chain?n=10",
            "--kind",
            "scc-delete",
        ],
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("no cycle"), "{}", stderr(&o));
}
