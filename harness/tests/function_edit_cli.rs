//! Update streams that model edits of a program (issue 36, item 4), end to end on the
//! hand-written `datasets/polonius-mini` (no cargo registry needed): `updates --kind
//! function-edit` deletes every fact of a function across all relations and puts it back, and
//! every engine follows the stream (`--check full`); single statements by `--kind delete
//! --relation R`; `sweep --kinds function-edit`; unprefixed data refused with exit 2.

mod common;
use common::{dredbench_in_cache as dredbench, repo, stderr};

use std::collections::BTreeMap;
use std::path::Path;

const PROGRAM: &str = "datasets/programs/polonius_naive.dl";
const DATASET: &str = "datasets/polonius-mini";
const FACTS: &str = "datasets/polonius-mini/facts";

/// `run` on the fixture with `--check full` and four engines: must exit 0, all agreeing.
fn run_agrees(cache: &Path, updates: &Path) {
    let u = updates.display().to_string();
    let o = dredbench(
        cache,
        &[
            "run",
            "--program",
            PROGRAM,
            "--facts",
            FACTS,
            "--updates",
            &u,
            "--engines",
            "dred,bf,recompute,oracle",
            "--check",
            "full",
        ],
    );
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(0), "{u}: {err}");
    assert!(err.contains("agree after every batch"), "{err}");
}

/// `updates` with these arguments into `out`; must exit 0. Returns the stream's text.
fn updates(cache: &Path, args: &[&str], out: &Path) -> String {
    let o_arg = out.display().to_string();
    let mut all = vec!["updates"];
    all.extend(args);
    all.extend(["--out", &o_arg]);
    let o = dredbench(cache, &all);
    assert_eq!(o.status.code(), Some(0), "{args:?}: {}", stderr(&o));
    std::fs::read_to_string(out).expect("stream")
}

/// Every fact line of the fixture, as `relation⇥values`, by function prefix.
fn fixture_by_function() -> BTreeMap<String, Vec<String>> {
    let mut by: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for entry in std::fs::read_dir(repo().join(FACTS)).expect("facts") {
        let path = entry.expect("entry").path();
        let rel = path
            .file_stem()
            .expect("stem")
            .to_string_lossy()
            .into_owned();
        for line in std::fs::read_to_string(&path).expect("read").lines() {
            let function = line.split_once("::").expect("prefixed").0.to_string();
            by.entry(function)
                .or_default()
                .push(format!("{rel}\t{line}"));
        }
    }
    for lines in by.values_mut() {
        lines.sort();
    }
    by
}

/// The batches of a stream: (note, sorted `-` lines, sorted `+` lines), without the sign.
fn batches(text: &str) -> Vec<(String, Vec<String>, Vec<String>)> {
    let mut out = Vec::new();
    let (mut note, mut del, mut ins) = (String::new(), Vec::new(), Vec::new());
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("# batch ") {
            note = rest.to_string();
        } else if let Some(f) = line.strip_prefix("-\t") {
            del.push(f.to_string());
        } else if let Some(f) = line.strip_prefix("+\t") {
            ins.push(f.to_string());
        } else if line == "commit" {
            del.sort();
            ins.sort();
            out.push((
                std::mem::take(&mut note),
                std::mem::take(&mut del),
                std::mem::take(&mut ins),
            ));
        }
    }
    out
}

#[test]
fn function_edits_delete_whole_functions_and_every_engine_follows() {
    let cache = tempfile::tempdir().expect("tmp");
    let tmp = tempfile::tempdir().expect("tmp");
    let by_function = fixture_by_function();
    assert_eq!(by_function.len(), 5, "d, e, f, g, h");
    // Without --program every facts file of the dataset is read (all 15 are the program's).
    let x = tmp.path().join("x.updates");
    let args = [
        "--dataset",
        DATASET,
        "--kind",
        "function-edit",
        "--size",
        "1",
        "--batches",
        "3",
        "--revert",
        "--seed",
        "1",
    ];
    let text = updates(cache.path(), &args, &x);
    assert!(
        text.contains("# 5 function(s) (the prefix `FUNCTION::` of"),
        "{text}"
    );
    assert!(
        text.contains("value) hold 101 of the 101 facts\n"),
        "{text}"
    );
    let bs = batches(&text);
    assert_eq!(bs.len(), 6);
    for pair in bs.chunks(2) {
        let (note, del, ins) = &pair[0];
        let function = note.rsplit(" of ").next().expect("function named");
        assert_eq!(
            del, &by_function[function],
            "batch {note}: every fact of {function}, in every relation"
        );
        assert!(ins.is_empty());
        assert_eq!((&pair[1].1, &pair[1].2), (ins, del), "the revert");
    }
    run_agrees(cache.path(), &x);
    // Reproducible; with the program, the same functions are drawn (the same facts, in the
    // program's relation order).
    assert_eq!(updates(cache.path(), &args, &x), text);
    let y = tmp.path().join("y.updates");
    let mut with_program = args.to_vec();
    with_program.extend(["--program", PROGRAM]);
    let text_p = updates(cache.path(), &with_program, &y);
    assert!(text_p.starts_with(&format!(
        "# dredbench updates --dataset {DATASET} --program {PROGRAM} --kind function-edit"
    )));
    assert_eq!(batches(&text_p), bs);
    run_agrees(cache.path(), &y);
    // Without --revert each function is edited once: five batches delete the whole EDB,
    // a sixth has no function left (exit 2).
    let z = tmp.path().join("z.updates");
    let mut once = vec![
        "--dataset",
        DATASET,
        "--kind",
        "function-edit",
        "--seed",
        "3",
    ];
    let text = updates(cache.path(), &[&once[..], &["--batches", "5"]].concat(), &z);
    let mut all: Vec<String> = batches(&text).into_iter().flat_map(|b| b.1).collect();
    all.sort();
    let mut every: Vec<String> = by_function.values().flatten().cloned().collect();
    every.sort();
    assert_eq!(all, every, "each function once, all of them");
    run_agrees(cache.path(), &z);
    once.extend(["--batches", "6"]);
    let o = dredbench(cache.path(), &[&["updates"], &once[..]].concat());
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("only 0 are left"), "{}", stderr(&o));
}

#[test]
fn single_statements_by_relation_are_deleted_and_put_back() {
    let cache = tempfile::tempdir().expect("tmp");
    let tmp = tempfile::tempdir().expect("tmp");
    for rel in ["cfg_edge", "loan_issued_at", "subset_base"] {
        for program in [None, Some(PROGRAM)] {
            let u = tmp.path().join(format!("{rel}.updates"));
            let mut args = vec![
                "--dataset",
                DATASET,
                "--kind",
                "delete",
                "--relation",
                rel,
                "--size",
                "1",
                "--batches",
                "3",
                "--revert",
                "--seed",
                "1",
            ];
            if let Some(p) = program {
                args.extend(["--program", p]);
            }
            let text = updates(cache.path(), &args, &u);
            let bs = batches(&text);
            assert_eq!(bs.len(), 6, "{text}");
            for (_, del, ins) in &bs {
                assert_eq!(del.len() + ins.len(), 1, "{text}");
                assert!(del
                    .iter()
                    .chain(ins)
                    .all(|f| f.starts_with(&format!("{rel}\t"))));
            }
            run_agrees(cache.path(), &u);
        }
    }
}

#[test]
fn sweep_runs_function_edits_and_unprefixed_data_is_refused() {
    let cache = tempfile::tempdir().expect("tmp");
    let tmp = tempfile::tempdir().expect("tmp");
    let report = tmp.path().join("sweep.csv");
    let r = report.display().to_string();
    let o = dredbench(
        cache.path(),
        &[
            "sweep",
            "--datasets",
            DATASET,
            "--programs",
            PROGRAM,
            "--kinds",
            "function-edit,delete",
            "--relation",
            "cfg_edge",
            "--sizes",
            "1,2",
            "--batches",
            "2",
            "--revert",
            "--engines",
            "dred,bf,recompute",
            "--report",
            &r,
        ],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = std::fs::read_to_string(&report).expect("report");
    assert!(!text.contains("stream:"), "no case failed: {text}");
    for stream in [
        "function-edit:cfg_edge-k1-b2-s1-revert",
        "function-edit:cfg_edge-k2-b2-s1-revert",
        "delete:cfg_edge-k2-b2-s1-revert",
    ] {
        assert!(text.contains(stream), "{stream} in {text}");
    }
    let o = dredbench(
        cache.path(),
        &[
            "sweep",
            "--datasets",
            DATASET,
            "--programs",
            PROGRAM,
            "--kinds",
            "function-edit",
            "--sizes",
            "2",
            "--batches",
            "2",
            "--engines",
            "dred,recompute",
            "--report",
            &r,
        ],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = std::fs::read_to_string(&report).expect("report");
    assert!(text.contains("function-edit-k2-b2-s1"), "{text}");
    // The seed's graph has no function prefixes: a clear error naming the kind, exit 2.
    let o = dredbench(
        cache.path(),
        &[
            "updates",
            "--dataset",
            "datasets/seed",
            "--kind",
            "function-edit",
        ],
    );
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(
        err.contains("--kind function-edit needs facts prefixed by their function"),
        "{err}"
    );
}
