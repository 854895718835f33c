//! The Polonius-style borrow check (`datasets/programs/polonius_naive.dl`) end to end: on the
//! hand-written `datasets/polonius-mini` (no registry needed), and on the facts of a small real
//! crate that `dredbench datasets fetch rust-nll:CRATE` compiles from the local cargo registry
//! into a temporary cache — every engine agreeing batch by batch, no error on code rustc
//! accepted, one on a planted invalidation. The fetch tests are skipped, with a note, on a
//! machine whose registry holds none of the small crates tried.

mod common;
use common::{dredbench_in_cache as dredbench, repo, stderr};

use std::path::{Path, PathBuf};

use harness::datasets::nll::{cargo_home, find_in_registry, CrateSpec};
use harness::datasets::Provenance;

const PROGRAM: &str = "datasets/programs/polonius_naive.dl";
const MINI: &str = "datasets/polonius-mini/facts";

/// Runs the program with `--check full` and `--out`; returns the `errors` rows.
fn errors_after(facts: &str, updates: Option<&Path>, engines: &str, cache: &Path) -> Vec<String> {
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
    let text = std::fs::read_to_string(out.path().join("errors.csv")).expect("errors.csv");
    text.lines().map(str::to_string).collect()
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).expect("write");
    p
}

#[test]
fn mini_fixture_errors_where_a_live_loan_is_invalidated() {
    let cache = tempfile::tempdir().expect("tmp");
    let engines = "recompute,oracle,dred,bf";
    // f and d invalidate a loan their reference (used, or dropped while initialised) still
    // holds; g does not use its reference, h's loan is killed first, e's guard is moved out
    // before its drop.
    let expected = ["d::bw0\td::Start(bb0[1])", "f::bw0\tf::Start(bb0[2])"];
    assert_eq!(errors_after(MINI, None, engines, cache.path()), expected);
    // The same without the liveness: f's reference no longer used after the write.
    let tmp = tempfile::tempdir().expect("tmp");
    let u = write(
        tmp.path(),
        "dead.updates",
        "-\tvar_used_at\tf::_2\tf::Mid(bb0[3])\n",
    );
    assert_eq!(
        errors_after(MINI, Some(&u), engines, cache.path()),
        ["d::bw0\td::Start(bb0[1])"]
    );
    // Each of g, h and e gets its error when what spared it is undone.
    for (edit, new) in [
        (
            "+\tvar_used_at\tg::_2\tg::Mid(bb0[3])",
            "g::bw0\tg::Start(bb0[2])",
        ),
        (
            "-\tloan_killed_at\th::bw0\th::Mid(bb0[1])",
            "h::bw0\th::Start(bb0[2])",
        ),
        (
            "-\tpath_moved_at_base\te::mp2\te::Mid(bb0[1])",
            "e::bw0\te::Start(bb0[2])",
        ),
    ] {
        let u = write(tmp.path(), "one.updates", &format!("{edit}\n"));
        let mut want: Vec<&str> = expected.to_vec();
        want.push(new);
        want.sort();
        assert_eq!(
            errors_after(MINI, Some(&u), engines, cache.path()),
            want,
            "{edit}"
        );
    }
    // The shipped stream goes through all of it and back; dd agrees too.
    let shipped = repo().join("datasets/polonius-mini/edits.updates");
    assert_eq!(
        errors_after(
            MINI,
            Some(&shipped),
            "dred,bf,recompute,oracle,dd",
            cache.path()
        ),
        expected
    );
}

/// The first of a few small crates that the local registry holds.
fn small_crate() -> Option<String> {
    for name in ["same-file", "itoa", "colorchoice"] {
        let spec = CrateSpec::parse(&format!("rust-nll:{name}"), "rust-nll:").expect("spec");
        if find_in_registry(&spec, &cargo_home()).is_ok() {
            return Some(name.to_string());
        }
    }
    eprintln!(
        "note: none of same-file, itoa, colorchoice is in {}; the fetch tests are skipped",
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

/// `datasets fetch rust-nll:CRATE` into `cache`; returns the facts directory.
fn fetch(cache: &Path, krate: &str) -> PathBuf {
    let name = format!("rust-nll:{krate}");
    let o = dredbench(cache, &["datasets", "fetch", &name]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(err.contains("-Znll-facts"), "the command is shown: {err}");
    let facts = PathBuf::from(String::from_utf8_lossy(&o.stdout).trim());
    assert!(facts.starts_with(cache), "{}", facts.display());
    facts
}

#[test]
fn a_fetched_crate_has_no_borrow_errors_and_a_planted_one_is_found() {
    let Some(krate) = small_crate() else { return };
    let cache = tempfile::tempdir().expect("tmp");
    let facts = fetch(cache.path(), &krate);
    let dir = facts.parent().expect("dataset dir");

    // Provenance: what was compiled, by which compiler, and what came out.
    let prov = Provenance::read(&dir.join("PROVENANCE"));
    assert_eq!(prov.get("crate"), Some(krate.as_str()));
    let version = prov.get("crate_version").expect("version").to_string();
    assert!(
        prov.get("rustc_version")
            .is_some_and(|v| v.starts_with("rustc ")),
        "{prov:?}"
    );
    assert!(prov
        .get("command")
        .is_some_and(|c| c.contains("-Znll-facts")));
    let count = |k: &str| -> usize {
        prov.get(k)
            .and_then(|v| v.parse().ok())
            .unwrap_or_else(|| panic!("{k} in {prov:?}"))
    };
    let functions = count("functions");
    assert!(functions >= 5, "{functions} functions");
    assert_eq!(lines(&dir.join("FUNCTIONS")).len(), functions);
    let mut total = 0;
    for rel in ["cfg_edge", "loan_issued_at", "subset_base", "var_used_at"] {
        let n = lines(&facts.join(format!("{rel}.facts"))).len();
        assert_eq!(n, count(&format!("{rel}_facts")), "{rel}");
        assert!(n >= 5, "{rel}: {n}");
        total += n;
    }
    assert!(
        count("facts") >= total && count("facts") >= 1000,
        "{prov:?}"
    );
    let hash = prov.get("dataset_hash").expect("hash");
    assert_eq!(
        hash,
        harness::provenance::dataset_hash(&facts).expect("hash")
    );
    // Every value carries its function: `<prefix>::<value>`, prefixes from FUNCTIONS.
    let prefixes: Vec<String> = lines(&dir.join("FUNCTIONS"))
        .iter()
        .map(|l| l.split('\t').next().expect("prefix").to_string())
        .collect();
    for line in lines(&facts.join("loan_issued_at.facts")) {
        let vals: Vec<&str> = line.split('\t').collect();
        assert_eq!(vals.len(), 3, "{line}");
        let (f, loan) = vals[1].split_once("::").expect("prefixed");
        assert!(prefixes.iter().any(|p| p == f), "{line}");
        assert!(loan.starts_with("bw"), "{line}");
        assert!(
            vals.iter().all(|v| v.starts_with(&format!("{f}::"))),
            "{line}"
        );
    }

    // The name resolves to the installed copy, and the listing shows it.
    let path = dredbench(
        cache.path(),
        &["datasets", "path", &format!("rust-nll:{krate}")],
    );
    assert_eq!(path.status.code(), Some(0), "{}", stderr(&path));
    assert_eq!(
        String::from_utf8_lossy(&path.stdout).trim(),
        facts.display().to_string()
    );
    let list = dredbench(cache.path(), &["datasets", "list"]);
    let listing = String::from_utf8_lossy(&list.stdout).into_owned();
    assert!(
        listing.contains(&format!("rust-nll:{krate}@{version}")),
        "{listing}"
    );

    // A few statements deleted and put back (cfg edges and loans): every engine agrees
    // after every batch, and rustc's accepted code has no error at any batch's end.
    let cfg = lines(&facts.join("cfg_edge.facts"));
    let loans = lines(&facts.join("loan_issued_at.facts"));
    let pick = |rows: &[String], k: usize| -> Vec<String> {
        let step = (rows.len() / k).max(1);
        rows.iter().step_by(step).take(k).cloned().collect()
    };
    let (edges, issued) = (pick(&cfg, 3), pick(&loans, 2));
    let mut stream = String::from("# edges and loans deleted, put back, deleted together\n");
    for (sign, rel, rows) in [
        ("-", "cfg_edge", &edges),
        ("+", "cfg_edge", &edges),
        ("-", "loan_issued_at", &issued),
        ("+", "loan_issued_at", &issued),
    ] {
        for r in rows.iter() {
            stream.push_str(&format!("{sign}\t{rel}\t{r}\n"));
        }
        stream.push_str("commit\n");
    }
    for r in &edges {
        stream.push_str(&format!("-\tcfg_edge\t{r}\n"));
    }
    for r in &issued {
        stream.push_str(&format!("-\tloan_issued_at\t{r}\n"));
    }
    let tmp = tempfile::tempdir().expect("tmp");
    let u = write(tmp.path(), "edits.updates", &stream);
    let facts_arg = facts.display().to_string();
    assert_eq!(
        errors_after(&facts_arg, Some(&u), "dred,bf,recompute", cache.path()),
        Vec::<String>::new()
    );

    // A planted invalidation where a loan is live is an error, found by every engine
    // incrementally, and gone when the plant is removed.
    let out = tempfile::tempdir().expect("tmp");
    let o = dredbench(
        cache.path(),
        &[
            "run",
            "--program",
            PROGRAM,
            "--facts",
            &facts_arg,
            "--engines",
            "recompute",
            "--out",
            &out.path().display().to_string(),
        ],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let live = lines(&out.path().join("loan_live_at.csv"));
    let (loan, point) = live
        .first()
        .and_then(|l| l.split_once('\t'))
        .expect("some loan is live somewhere");
    let plant = write(
        tmp.path(),
        "plant.updates",
        &format!("+\tloan_invalidated_at\t{point}\t{loan}\n"),
    );
    assert_eq!(
        errors_after(&facts_arg, Some(&plant), "dred,bf,recompute", cache.path()),
        [format!("{loan}\t{point}")]
    );
    let both = write(
        tmp.path(),
        "plant-and-remove.updates",
        &format!(
            "+\tloan_invalidated_at\t{point}\t{loan}\ncommit\n\
             -\tloan_invalidated_at\t{point}\t{loan}\ncommit\n"
        ),
    );
    assert!(errors_after(&facts_arg, Some(&both), "dred,bf,recompute", cache.path()).is_empty());
}

#[test]
fn fetch_errors_are_bad_input() {
    let cache = tempfile::tempdir().expect("tmp");
    for (name, says) in [
        (
            "rust-nll:no-such-crate-for-dredbench",
            "not found in the local cargo registry",
        ),
        ("rust-nll:", "is not a crate name"),
        ("rust-nll:a/b", "is not a crate name"),
        ("rust-nll:itoa@", "malformed version"),
    ] {
        let o = dredbench(cache.path(), &["datasets", "fetch", name]);
        assert_eq!(o.status.code(), Some(2), "{name}: {}", stderr(&o));
        assert!(stderr(&o).contains(says), "{name}: {}", stderr(&o));
    }
    let o = dredbench(cache.path(), &["datasets", "path", "rust-nll:itoa"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("run `dredbench datasets fetch rust-nll:itoa`"),
        "{}",
        stderr(&o)
    );
}

/// A compiler that refuses `-Znll-facts` (a stand-in that answers everything else as the real
/// one) is named as the cause, with exit code 2, and leaves nothing behind.
#[cfg(unix)]
#[test]
fn a_compiler_refusing_the_flag_is_a_clear_error() {
    use std::os::unix::fs::PermissionsExt;
    let Some(krate) = small_crate() else { return };
    let cache = tempfile::tempdir().expect("tmp");
    let fake = cache.path().join("rustc-without-nll-facts");
    std::fs::write(
        &fake,
        "#!/bin/sh\n\
         for a in \"$@\"; do case \"$a\" in -Znll-facts*) \
         echo \"error: unknown unstable option: \\`nll-facts'\" >&2; exit 1;; esac; done\n\
         exec rustc \"$@\"\n",
    )
    .expect("write");
    std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_dredbench"))
        .args(["datasets", "fetch", &format!("rust-nll:{krate}")])
        .current_dir(repo())
        .env("DREDBENCH_CACHE", cache.path())
        .env("RUSTC", &fake)
        .output()
        .expect("runs");
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("refused -Znll-facts"), "{err}");
    let left: Vec<_> = std::fs::read_dir(cache.path().join("rust-nll"))
        .expect("dir")
        .collect();
    assert!(
        left.is_empty(),
        "scratch and partial datasets removed: {left:?}"
    );
}
