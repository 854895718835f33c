//! The points-to analysis (`datasets/programs/andersen.dl`) end to end: on the hand-written
//! `datasets/andersen-mini` (model worked out by hand), and on the facts that
//! `dredbench datasets fetch rust-mir:CRATE` reads from the MIR of a small crate of the local
//! cargo registry into a temporary cache — every engine agreeing batch by batch on function
//! edits and single-statement deletions. The fetch tests are skipped, with a note, on a
//! machine whose registry holds none of the small crates tried.

mod common;
use common::{dredbench_in_cache as dredbench, repo, stderr};

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use harness::datasets::registry::{cargo_home, find_in_registry, CrateSpec};
use harness::datasets::Provenance;

const PROGRAM: &str = "datasets/programs/andersen.dl";
const MINI: &str = "datasets/andersen-mini/facts";
const ALL_ENGINES: &str = "dred,bf,recompute,reference,oracle,dd";

/// Runs the program with `--check full` and `--out`; returns the rows of each output.
fn model_after(
    facts: &str,
    updates: Option<&Path>,
    engines: &str,
    cache: &Path,
) -> std::collections::BTreeMap<String, BTreeSet<String>> {
    let out = tempfile::tempdir().expect("tmp");
    let out_dir = out.path().display().to_string();
    let mut args = vec![
        "run",
        "--program",
        PROGRAM,
        "--facts",
        facts,
        "--engines",
        engines,
        "--check",
        "full",
        "--out",
        &out_dir,
    ];
    let updates = updates.map(|u| u.display().to_string());
    if let Some(u) = &updates {
        args.extend(["--updates", u]);
    }
    let o = dredbench(cache, &args);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(0), "{facts}: {err}");
    assert!(err.contains("agree after every batch"), "{err}");
    ["points_to", "reachable", "call_edge", "callback", "flow"]
        .iter()
        .map(|rel| {
            let text = std::fs::read_to_string(out.path().join(format!("{rel}.csv")))
                .unwrap_or_else(|e| panic!("{rel}.csv: {e}"));
            (rel.to_string(), text.lines().map(str::to_string).collect())
        })
        .collect()
}

fn set(rows: &[&str]) -> BTreeSet<String> {
    rows.iter().map(|r| r.replace(' ', "\t")).collect()
}

#[test]
fn mini_fixture_gives_the_model_worked_out_by_hand() {
    let cache = tempfile::tempdir().expect("tmp");
    let m = model_after(MINI, None, ALL_ENGINES, cache.path());
    assert_eq!(m["reachable"], set(&["c", "id", "m"]));
    assert_eq!(m["call_edge"], set(&["m::bb0 id", "m::bb2 c"]));
    assert_eq!(m["callback"], set(&["m::bb1 c"]));
    let pt = &m["points_to"];
    assert_eq!(pt.len(), 22, "{pt:?}");
    for row in [
        "m::_7 m::_2",       // through the store *(_6) = _4
        "m::_8 m::_2",       // the load _8 = *_6
        "id::_0 m::_2",      // the static call's actual reaches the return
        "m::_10 m::bb1.new", // the library's fresh object
        "m::_13 c::code",    // the dynamic call's result, from the callback's flows
        "c::_2 m::_2",       // a callback binds every actual to every formal
        "u::_1 u::_5",       // statements of unreachable functions are kept
    ] {
        assert!(pt.contains(&row.replace(' ', "\t")), "{row} in {pt:?}");
    }
    // `u` is unreachable: its call to `id` makes no flow.
    assert!(!pt.contains("id::_1\tu::_5"), "{pt:?}");

    // Edits: each function deleted and put back; every engine agrees after every batch.
    let stream = cache.path().join("edits.updates");
    let o = dredbench(
        cache.path(),
        &[
            "updates",
            "--dataset",
            MINI,
            "--program",
            PROGRAM,
            "--kind",
            "function-edit",
            "--size",
            "1",
            "--batches",
            "4",
            "--revert",
            "--out",
            &stream.display().to_string(),
        ],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let after = model_after(MINI, Some(&stream), ALL_ENGINES, cache.path());
    assert_eq!(after, m, "every edit is reverted");
}

/// The first of a few small crates that the local registry holds.
fn small_crate() -> Option<String> {
    for name in ["itoa", "strsim", "either"] {
        let spec = CrateSpec::parse(&format!("rust-mir:{name}"), "rust-mir:").expect("spec");
        if find_in_registry(&spec, &cargo_home()).is_ok() {
            return Some(name.to_string());
        }
    }
    eprintln!(
        "note: none of itoa, strsim, either is in {}; the fetch tests are skipped",
        cargo_home().join("registry/src").display()
    );
    None
}

fn lines(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .lines()
        .map(str::to_string)
        .collect()
}

/// `datasets fetch rust-mir:CRATE` into `cache`; returns the facts directory.
fn fetch(cache: &Path, krate: &str) -> PathBuf {
    let o = dredbench(cache, &["datasets", "fetch", &format!("rust-mir:{krate}")]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(
        err.contains("-Zunpretty=mir"),
        "the command is shown: {err}"
    );
    let facts = PathBuf::from(String::from_utf8_lossy(&o.stdout).trim());
    assert!(facts.starts_with(cache), "{}", facts.display());
    facts
}

#[test]
fn a_fetched_crate_gives_a_points_to_model_every_engine_agrees_on() {
    let Some(krate) = small_crate() else { return };
    let cache = tempfile::tempdir().expect("tmp");
    let facts = fetch(cache.path(), &krate);
    let dir = facts.parent().expect("dataset dir");
    let prov = Provenance::read(&dir.join("PROVENANCE"));
    assert_eq!(prov.get("crate"), Some(krate.as_str()));
    assert!(prov
        .get("command")
        .is_some_and(|c| c.contains("-Zunpretty=mir")));
    let count = |k: &str| -> usize {
        prov.get(k)
            .and_then(|v| v.parse().ok())
            .unwrap_or_else(|| panic!("{k} in {prov:?}"))
    };
    let functions = count("functions");
    assert!(functions >= 10, "{functions} functions");
    assert_eq!(lines(&dir.join("FUNCTIONS")).len(), functions);
    for rel in ["address_of", "assign", "call_in", "formal", "fn_return"] {
        let n = lines(&facts.join(format!("{rel}.facts"))).len();
        assert_eq!(n, count(&format!("{rel}_facts")), "{rel}");
        assert!(n >= 5, "{rel}: {n}");
    }
    assert_eq!(
        prov.get("dataset_hash").expect("hash"),
        harness::provenance::dataset_hash(&facts).expect("hash")
    );
    // Every value of a statement carries its function's prefix, from FUNCTIONS.
    let prefixes: BTreeSet<String> = lines(&dir.join("FUNCTIONS"))
        .iter()
        .map(|l| l.split('\t').next().expect("prefix").to_string())
        .collect();
    for line in lines(&facts.join("assign.facts")) {
        let (to, from) = line.split_once('\t').expect("two columns");
        let (f, _) = to.split_once("::").expect("prefixed");
        assert!(prefixes.contains(f), "{line}");
        assert!(from.starts_with(&format!("{f}::")), "{line}");
    }
    // The name resolves to the installed copy.
    let path = dredbench(
        cache.path(),
        &["datasets", "path", &format!("rust-mir:{krate}")],
    );
    assert_eq!(path.status.code(), Some(0), "{}", stderr(&path));

    // Function edits and single assignments deleted and put back: every engine agrees.
    let facts_s = facts.display().to_string();
    let mut streams = Vec::new();
    for (kind, relation) in [("function-edit", None), ("delete", Some("assign"))] {
        let stream = cache.path().join(format!("{kind}.updates"));
        let mut args = vec![
            "updates",
            "--dataset",
            &facts_s,
            "--program",
            PROGRAM,
            "--kind",
            kind,
            "--size",
            "2",
            "--batches",
            "3",
            "--revert",
        ];
        if let Some(r) = relation {
            args.extend(["--relation", r]);
        }
        let out = stream.display().to_string();
        args.extend(["--out", &out]);
        let o = dredbench(cache.path(), &args);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        streams.push(stream);
    }
    let before = model_after(&facts_s, None, "dred,bf,recompute,dd", cache.path());
    assert!(
        before["points_to"].len() >= 100,
        "{}",
        before["points_to"].len()
    );
    assert!(before["reachable"].len() >= 5);
    for stream in &streams {
        let after = model_after(&facts_s, Some(stream), "dred,bf,recompute,dd", cache.path());
        assert_eq!(after, before, "{}: every batch reverted", stream.display());
    }
}

#[test]
fn fetch_errors_are_bad_input() {
    let cache = tempfile::tempdir().expect("tmp");
    for (name, says) in [
        (
            "rust-mir:no-such-crate-for-dredbench",
            "not found in the local cargo registry",
        ),
        ("rust-mir:", "is not a crate name"),
        ("rust-mir:itoa@", "malformed version"),
    ] {
        let o = dredbench(cache.path(), &["datasets", "fetch", name]);
        assert_eq!(o.status.code(), Some(2), "{name}: {}", stderr(&o));
        assert!(stderr(&o).contains(says), "{name}: {}", stderr(&o));
    }
    let o = dredbench(cache.path(), &["datasets", "path", "rust-mir:itoa"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
}

/// A compiler that refuses `-Zunpretty=mir` is named as the cause, exit code 2, nothing left.
#[cfg(unix)]
#[test]
fn a_compiler_refusing_the_flag_is_a_clear_error() {
    use std::os::unix::fs::PermissionsExt;
    let Some(krate) = small_crate() else { return };
    let cache = tempfile::tempdir().expect("tmp");
    let fake = cache.path().join("rustc-without-unpretty");
    std::fs::write(
        &fake,
        "#!/bin/sh\n\
         for a in \"$@\"; do case \"$a\" in -Zunpretty*) \
         echo \"error: unknown unstable option: \\`unpretty'\" >&2; exit 1;; esac; done\n\
         exec rustc \"$@\"\n",
    )
    .expect("write");
    std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_dredbench"))
        .args(["datasets", "fetch", &format!("rust-mir:{krate}")])
        .current_dir(repo())
        .env("DREDBENCH_CACHE", cache.path())
        .env("RUSTC", &fake)
        .output()
        .expect("runs");
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("refused -Zunpretty=mir"), "{err}");
    let left: Vec<_> = std::fs::read_dir(cache.path().join("rust-mir"))
        .expect("dir")
        .collect();
    assert!(
        left.is_empty(),
        "scratch and partial datasets removed: {left:?}"
    );
}
