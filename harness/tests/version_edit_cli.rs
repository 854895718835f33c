//! Version-to-version edit streams (issue 36, item 4), end to end: `updates --kind
//! version-edit --to OTHER_DATASET` walks from one version of a program-analysis dataset to
//! another, function by function, and every engine follows it (`--check full`); `sweep
//! --kinds version-edit --to`; bad input refused with exit 2. The two versions are
//! hand-made in a temporary directory from `datasets/polonius-mini` (no cargo registry
//! needed); a last test upgrades unicode-width 0.1.14 to 0.2.3 when the local cargo registry
//! holds both, and is skipped otherwise.

mod common;
use common::{dredbench_in_cache as dredbench, repo, stderr};

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

const PROGRAM: &str = "datasets/programs/polonius_naive.dl";
const FACTS: &str = "datasets/polonius-mini/facts";

/// Every fact line of a facts directory, as `relation⇥values`.
fn facts_of(dir: &Path) -> BTreeSet<String> {
    let mut all = BTreeSet::new();
    for entry in std::fs::read_dir(dir).expect("facts") {
        let path = entry.expect("entry").path();
        if path.extension().is_none_or(|e| e != "facts") {
            continue;
        }
        let rel = path
            .file_stem()
            .expect("stem")
            .to_string_lossy()
            .into_owned();
        for line in std::fs::read_to_string(&path).expect("read").lines() {
            if !line.is_empty() {
                all.insert(format!("{rel}\t{line}"));
            }
        }
    }
    all
}

/// Writes `facts` (`relation⇥values` lines) into `dir`, one file per relation of `relations`
/// (each written, empty if it has no fact).
fn write_facts(dir: &Path, relations: &BTreeSet<String>, facts: &BTreeSet<String>) {
    std::fs::create_dir_all(dir).expect("mkdir");
    for rel in relations {
        let mut text = String::new();
        for f in facts {
            if let Some(values) = f.strip_prefix(&format!("{rel}\t")) {
                text.push_str(values);
                text.push('\n');
            }
        }
        std::fs::write(dir.join(format!("{rel}.facts")), text).expect("write");
    }
}

/// The relation names of a facts directory.
fn relations_of(dir: &Path) -> BTreeSet<String> {
    std::fs::read_dir(dir)
        .expect("facts")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "facts"))
        .map(|p| p.file_stem().expect("stem").to_string_lossy().into_owned())
        .collect()
}

/// Two versions of the fixture under `root`: `old` is `polonius-mini` as shipped (functions
/// d, e, f, g, h); in `new`, d is changed (its first cfg edge replaced by another), e is
/// removed, z is added (a copy of f under another name), and f, g, h are unchanged.
fn versions(root: &Path) -> (PathBuf, PathBuf) {
    let shipped = repo().join(FACTS);
    let relations = relations_of(&shipped);
    let old = facts_of(&shipped);
    let function = |f: &String| {
        f.split('\t')
            .nth(1)
            .and_then(|v| v.split_once("::"))
            .map(|(p, _)| p.to_string())
    };
    let d_edge = old
        .iter()
        .find(|f| f.starts_with("cfg_edge\td::"))
        .expect("d has a cfg edge")
        .clone();
    let mut new: BTreeSet<String> = old
        .iter()
        .filter(|f| function(f).as_deref() != Some("e") && **f != d_edge)
        .cloned()
        .collect();
    new.insert("cfg_edge\td::Mid(bb9[0])\td::Start(bb9[1])".into());
    for f in old.iter().filter(|f| function(f).as_deref() == Some("f")) {
        new.insert(f.replace("\tf::", "\tz::"));
    }
    let (o, n) = (root.join("old"), root.join("new"));
    write_facts(&o, &relations, &old);
    write_facts(&n, &relations, &new);
    (o, n)
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

/// The batches of a stream: (note, `-` facts, `+` facts), each fact as `relation⇥values`.
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
            out.push((
                std::mem::take(&mut note),
                std::mem::take(&mut del),
                std::mem::take(&mut ins),
            ));
        }
    }
    out
}

/// Applies the batches to `facts`, checking that each is a valid update of the state the
/// previous ones left: every deletion present, every insertion absent, none twice.
fn apply(
    mut facts: BTreeSet<String>,
    bs: &[(String, Vec<String>, Vec<String>)],
) -> BTreeSet<String> {
    for (note, del, ins) in bs {
        for f in del {
            assert!(facts.remove(f), "batch {note}: deletes absent {f}");
        }
        for f in ins {
            assert!(!del.contains(f), "batch {note}: deletes and inserts {f}");
            assert!(facts.insert(f.clone()), "batch {note}: inserts present {f}");
        }
    }
    facts
}

/// `run` on `facts` with `--check full` and these engines: must exit 0, all agreeing.
/// Returns the first engine's final model as written by `--out`.
fn run_agrees(
    cache: &Path,
    facts: &Path,
    updates: Option<&Path>,
    engines: &str,
) -> BTreeSet<String> {
    let out = tempfile::tempdir().expect("tmp");
    let f = facts.display().to_string();
    let o_arg = out.path().display().to_string();
    let mut args = vec![
        "run",
        "--program",
        PROGRAM,
        "--facts",
        &f,
        "--engines",
        engines,
        "--check",
        "full",
        "--out",
        &o_arg,
    ];
    let u = updates.map(|u| u.display().to_string());
    if let Some(u) = &u {
        args.extend(["--updates", u]);
    }
    let o = dredbench(cache, &args);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(0), "{u:?}: {err}");
    assert!(err.contains("agree"), "{err}");
    let mut model = BTreeSet::new();
    for entry in std::fs::read_dir(out.path()).expect("out") {
        let path = entry.expect("entry").path();
        let rel = path
            .file_stem()
            .expect("stem")
            .to_string_lossy()
            .into_owned();
        for line in std::fs::read_to_string(&path).expect("read").lines() {
            model.insert(format!("{rel}\t{line}"));
        }
    }
    model
}

#[test]
fn version_edits_walk_to_the_new_version_and_every_engine_follows() {
    let cache = tempfile::tempdir().expect("tmp");
    let tmp = tempfile::tempdir().expect("tmp");
    let (old, new) = versions(tmp.path());
    let (o, n) = (old.display().to_string(), new.display().to_string());
    let (old_facts, new_facts) = (facts_of(&old), facts_of(&new));
    let args = |size: &'static str| {
        vec![
            "--dataset",
            o.as_str(),
            "--to",
            n.as_str(),
            "--program",
            PROGRAM,
            "--kind",
            "version-edit",
            "--size",
            size,
            "--seed",
            "1",
        ]
    };
    // One function per batch: three batches (d changed, e removed, z added), f, g and h
    // untouched; the walk ends at the new version.
    let x = tmp.path().join("x.updates");
    let text = updates(cache.path(), &args("1"), &x);
    assert!(
        text.starts_with(&format!(
            "# dredbench updates --dataset {o} --program {PROGRAM} --kind version-edit --to {n} \
             --size 1 --seed 1\n"
        )),
        "{text}"
    );
    assert!(
        text.contains(&format!("\n# upgraded to {n}: dataset_hash ")),
        "{text}"
    );
    assert!(
        text.contains(
            "# version edit: 5 function(s) before, 5 after; 1 changed, 1 added, 1 removed, 3 \
             unchanged; the whole upgrade deletes"
        ),
        "{text}"
    );
    let bs = batches(&text);
    assert_eq!(bs.len(), 3, "{text}");
    let mut notes: Vec<String> = bs
        .iter()
        .map(|(note, _, _)| note.rsplit(": ").next().expect("note").to_string())
        .collect();
    notes.sort();
    assert_eq!(notes, ["added z", "changed d", "removed e"], "{text}");
    let d = bs.iter().find(|b| b.0.ends_with("changed d")).expect("d");
    assert_eq!(
        (d.1.len(), d.2.len()),
        (1, 1),
        "one cfg edge replaced: {d:?}"
    );
    assert!(!text.contains("\tf::") && !text.contains("\tg::") && !text.contains("\th::"));
    assert_eq!(apply(old_facts.clone(), &bs), new_facts);
    // Every engine follows the walk, and ends with the new version's model.
    let engines = "dred,bf,recompute,oracle";
    let walked = run_agrees(cache.path(), &old, Some(&x), engines);
    assert_eq!(walked, run_agrees(cache.path(), &new, None, "recompute"));
    // Reproducible; a size above the number of edited functions gives the whole upgrade in
    // one batch.
    assert_eq!(updates(cache.path(), &args("1"), &x), text);
    let y = tmp.path().join("y.updates");
    let whole = batches(&updates(cache.path(), &args("10"), &y));
    assert_eq!(whole.len(), 1);
    assert_eq!(apply(old_facts.clone(), &whole), new_facts);
    assert_eq!(
        whole[0].0.split_once("version edit 1 of 1: ").map(|n| n.1),
        Some("changed d; added z; removed e")
    );
    run_agrees(cache.path(), &old, Some(&y), engines);
    // --revert: each edit followed by its inverse; --batches caps the walk.
    let z = tmp.path().join("z.updates");
    let reverted = batches(&updates(
        cache.path(),
        &[&args("1")[..], &["--revert", "--batches", "2"]].concat(),
        &z,
    ));
    assert_eq!(reverted.len(), 4);
    for (i, pair) in reverted.chunks(2).enumerate() {
        // The walk's batch, but for its number in the stream.
        let tail = |note: &str| note.split_once("; ").map(|n| n.1.to_string());
        assert_eq!(tail(&pair[0].0), tail(&bs[i].0));
        assert_eq!((&pair[0].1, &pair[0].2), (&bs[i].1, &bs[i].2), "batch {i}");
        assert_eq!((&pair[1].1, &pair[1].2), (&pair[0].2, &pair[0].1));
        assert_eq!(apply(old_facts.clone(), &reverted[..2 * i + 2]), old_facts);
    }
    run_agrees(cache.path(), &old, Some(&z), engines);
    // Without --program every facts file of both versions is read, with symbol columns:
    // the same edits.
    let w = tmp.path().join("w.updates");
    let inferred: Vec<String> = args("1")
        .iter()
        .filter(|a| !["--program", PROGRAM].contains(a))
        .map(|a| a.to_string())
        .collect();
    let inferred: Vec<&str> = inferred.iter().map(String::as_str).collect();
    let bare = batches(&updates(cache.path(), &inferred, &w));
    let sorted = |b: &[(String, Vec<String>, Vec<String>)]| -> Vec<(String, BTreeSet<String>, BTreeSet<String>)> {
        b.iter()
            .map(|(n, d, i)| (n.clone(), d.iter().cloned().collect(), i.iter().cloned().collect()))
            .collect()
    };
    assert_eq!(sorted(&bare), sorted(&bs));
    // --relation cfg_edge: only d's edge changes (e's and z's cfg edges come and go).
    let v = tmp.path().join("v.updates");
    let cfg = batches(&updates(
        cache.path(),
        &[&args("10")[..], &["--relation", "cfg_edge"]].concat(),
        &v,
    ));
    assert!(cfg[0]
        .1
        .iter()
        .chain(&cfg[0].2)
        .all(|f| f.starts_with("cfg_edge\t")));
    run_agrees(cache.path(), &old, Some(&v), "dred,recompute");
}

#[test]
fn sweep_runs_version_edits() {
    let cache = tempfile::tempdir().expect("tmp");
    let tmp = tempfile::tempdir().expect("tmp");
    let (old, new) = versions(tmp.path());
    let (o, n) = (old.display().to_string(), new.display().to_string());
    let report = tmp.path().join("sweep.csv");
    let r = report.display().to_string();
    let o = dredbench(
        cache.path(),
        &[
            "sweep",
            "--datasets",
            &o,
            "--programs",
            PROGRAM,
            "--kinds",
            "version-edit,delete",
            "--relation",
            "cfg_edge",
            "--to",
            &n,
            "--sizes",
            "1,5",
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
    let rows = |stream: &str| text.lines().filter(|l| l.contains(stream)).count();
    // In cfg_edge too d is changed, e removed and z added. Size 1: the walk's first 2
    // batches of 3, each reverted; size 5: the whole upgrade and its revert. Three engines,
    // batch 0 included.
    let k = |size: usize| format!(",version-edit:cfg_edge-k{size}-b2-s1-revert-to-{n},");
    assert_eq!(rows(&k(1)), 3 * 5, "{text}");
    assert_eq!(rows(&k(5)), 3 * 3, "{text}");
    // Other kinds ignore --to.
    assert_eq!(rows(",delete:cfg_edge-k1-b2-s1-revert,"), 3 * 5, "{text}");
}

#[test]
fn bad_version_edits_are_refused_with_exit_2() {
    let cache = tempfile::tempdir().expect("tmp");
    let tmp = tempfile::tempdir().expect("tmp");
    let (old, new) = versions(tmp.path());
    let (o, n) = (old.display().to_string(), new.display().to_string());
    // A new version missing a relation the program reads; another with an extra file.
    let short = tmp.path().join("short");
    let long = tmp.path().join("long");
    for dir in [&short, &long] {
        std::fs::create_dir_all(dir).expect("mkdir");
        for e in std::fs::read_dir(&new).expect("new") {
            let p = e.expect("entry").path();
            std::fs::copy(&p, dir.join(p.file_name().expect("name"))).expect("copy");
        }
    }
    std::fs::remove_file(short.join("subset_base.facts")).expect("rm");
    std::fs::write(long.join("extra.facts"), "z::a\n").expect("w");
    let (s, l) = (short.display().to_string(), long.display().to_string());
    let program = ["--program", PROGRAM];
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec!["--to", &n, "--kind", "delete"], "--to is for --kind version-edit only"),
        (vec!["--kind", "version-edit"], "--kind version-edit needs --to OTHER_DATASET"),
        (
            vec!["--kind", "version-edit", "--to", "no-such-dataset-anywhere"],
            "--to no-such-dataset-anywhere: ",
        ),
        (vec!["--kind", "version-edit", "--to", &o], "nothing to upgrade"),
        (
            [&["--kind", "version-edit", "--to", &s][..], &program[..]].concat(),
            "has no `subset_base.facts`, which the program reads: the two datasets' relations differ",
        ),
        (
            vec!["--kind", "version-edit", "--to", &s],
            "the two datasets' relations differ: only in",
        ),
        (
            vec!["--kind", "version-edit", "--to", &l],
            ": none; only in",
        ),
    ];
    for (args, message) in cases {
        let all = [&["updates", "--dataset", &o][..], &args[..]].concat();
        let out = dredbench(cache.path(), &all);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(message), "{args:?}: {message} in {err}");
        assert!(!err.contains("panicked"), "{err}");
    }
    // Data without function prefixes.
    let out = dredbench(
        cache.path(),
        &[
            "updates",
            "--dataset",
            "datasets/seed",
            "--to",
            "datasets/seed",
            "--kind",
            "version-edit",
        ],
    );
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("--kind version-edit needs facts prefixed by their function"),
        "{}",
        stderr(&out)
    );
    // sweep: the kind without --to, --to without the kind, an unknown --to.
    let r = tmp.path().join("r.csv").display().to_string();
    for (extra, message) in [
        (
            vec!["--kinds", "version-edit"],
            "--kinds version-edit needs --to",
        ),
        (
            vec!["--kinds", "delete", "--to", &n],
            "--to is for --kinds version-edit only",
        ),
        (
            vec![
                "--kinds",
                "version-edit",
                "--to",
                "no-such-dataset-anywhere",
            ],
            "--to no-such-dataset-anywhere: ",
        ),
    ] {
        let all = [
            &[
                "sweep",
                "--datasets",
                &o,
                "--programs",
                PROGRAM,
                "--report",
                &r,
            ][..],
            &extra[..],
        ]
        .concat();
        let out = dredbench(cache.path(), &all);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{extra:?}: {err}");
        assert!(err.contains(message), "{extra:?}: {message} in {err}");
    }
}

/// `$CARGO_HOME` (default `~/.cargo`).
fn cargo_home() -> Option<PathBuf> {
    std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".cargo")))
}

/// Whether the local cargo registry holds the unpacked source of `crate-version`.
fn in_registry(name: &str) -> bool {
    let Some(src) = cargo_home().map(|h| h.join("registry/src")) else {
        return false;
    };
    std::fs::read_dir(src)
        .into_iter()
        .flatten()
        .filter_map(|e| e.ok())
        .any(|index| index.path().join(name).join("Cargo.toml").is_file())
}

#[test]
fn unicode_width_upgrades_when_the_registry_holds_both_versions() {
    let versions = ["unicode-width-0.1.14", "unicode-width-0.2.3"];
    if !versions.iter().all(|v| in_registry(v)) {
        eprintln!("note: the cargo registry lacks {versions:?}; skipped");
        return;
    }
    let cache = tempfile::tempdir().expect("tmp");
    let mut dirs = Vec::new();
    for name in [
        "rust-nll:unicode-width@0.1.14",
        "rust-nll:unicode-width@0.2.3",
    ] {
        let o = dredbench(cache.path(), &["datasets", "fetch", name]);
        assert_eq!(o.status.code(), Some(0), "{name}: {}", stderr(&o));
        dirs.push(PathBuf::from(String::from_utf8_lossy(&o.stdout).trim()));
    }
    let out = cache.path().join("uw.updates");
    let text = updates(
        cache.path(),
        &[
            "--dataset",
            "rust-nll:unicode-width@0.1.14",
            "--to",
            "rust-nll:unicode-width@0.2.3",
            "--program",
            PROGRAM,
            "--kind",
            "version-edit",
            "--size",
            "10",
        ],
        &out,
    );
    assert!(text.contains("# version edit: "), "{text}");
    let bs = batches(&text);
    assert!(bs.len() > 1, "{} batch(es)", bs.len());
    // The walk is valid batch by batch and ends at the new version, in every relation the
    // program reads (all of them but known_placeholder_subset, path_accessed_at_base and
    // placeholder).
    let read: BTreeSet<String> = std::fs::read_to_string(repo().join(PROGRAM))
        .expect("program")
        .lines()
        .filter_map(|l| l.strip_prefix(".input "))
        .map(|r| r.trim().to_string())
        .collect();
    let of_program = |dir: &Path| -> BTreeSet<String> {
        facts_of(dir)
            .into_iter()
            .filter(|f| read.contains(f.split('\t').next().expect("rel")))
            .collect()
    };
    assert_eq!(apply(of_program(&dirs[0]), &bs), of_program(&dirs[1]));
}
