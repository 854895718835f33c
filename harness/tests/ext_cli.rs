//! End-to-end tests of external engines (`--engines ext:NAME`, docs/engine-protocol.md): the
//! shipped adapters agree with the built-in engines on the seed example, the fuzzer finds and
//! shrinks a planted wrong adapter, and every way a child can misbehave (die, hang, answer
//! malformed lines, refuse) is an engine failure or a usage error naming the engine and the
//! batch, never a hang or a panic.
//!
//! Tests that need clingo (`pip install clingo==5.8.3`) skip with a printed reason when it is
//! missing, and fail instead when `DREDBENCH_REQUIRE_CLINGO=1` (CI sets it).

mod common;
use std::path::Path;
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use common::{dredbench, repo, stderr};

const SEED: [&str; 6] = [
    "--program",
    "datasets/seed/path.dl",
    "--facts",
    "datasets/seed/facts",
    "--updates",
    "datasets/seed/delete-ab.updates",
];

/// Whether clingo's Python package imports; panics when it does not and CI requires it.
fn clingo_available() -> bool {
    let python = std::env::var("DREDBENCH_PYTHON").unwrap_or_else(|_| "python3".into());
    let ok = Command::new(&python)
        .args(["-c", "import clingo"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        assert!(
            std::env::var("DREDBENCH_REQUIRE_CLINGO").as_deref() != Ok("1"),
            "DREDBENCH_REQUIRE_CLINGO=1 but `{python} -c 'import clingo'` fails: install it \
             with `{python} -m pip install --user clingo==5.8.3`"
        );
        eprintln!("skipped: clingo is not installed for {python} (pip install clingo==5.8.3)");
    }
    ok
}

/// Runs `dredbench` with an engines file holding `engines` (written under `dir`).
fn with_engines(dir: &Path, engines: &str, args: &[&str]) -> Output {
    let file = dir.join("engines.toml");
    std::fs::write(&file, engines).expect("engines file");
    let mut all = vec!["--engines-file", file.to_str().expect("utf-8")];
    all.extend_from_slice(args);
    dredbench(&all)
}

/// `dredbench fuzz --negation` on `cases` random cases from `seed`: `engines` must agree with
/// the oracle on every one.
fn fuzz_agrees(cases: usize, seed: u64, engines: &str) {
    let (cases, seed) = (cases.to_string(), seed.to_string());
    let o = dredbench(&[
        "fuzz",
        "--cases",
        &cases,
        "--seed",
        &seed,
        "--negation",
        "--engines",
        engines,
    ]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(
        err.contains(&format!("{cases} cases, 0 disagreements")),
        "{err}"
    );
}

fn column(csv: &str, name: &str) -> Vec<(String, String)> {
    let mut reader = csv::Reader::from_reader(csv.as_bytes());
    let header = reader.headers().expect("header").clone();
    let engine = header.iter().position(|h| h == "engine").expect("engine");
    let col = header.iter().position(|h| h == name).expect(name);
    reader
        .records()
        .map(|r| {
            let r = r.expect("a row");
            (r[engine].to_string(), r[col].to_string())
        })
        .collect()
}

#[test]
fn ext_dred_agrees_with_dred_and_reports_its_own_time_beside_the_exchange() {
    let tmp = tempfile::tempdir().expect("tmp");
    let report = tmp.path().join("r.csv");
    let mut args = vec!["run"];
    args.extend(SEED);
    args.extend([
        "--engines",
        "dred,ext:dred",
        "--check",
        "full",
        "--report",
        report.to_str().expect("utf-8"),
    ]);
    let o = dredbench(&args);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stderr(&o).contains("engines dred, ext:dred agree"));
    let csv = std::fs::read_to_string(&report).expect("report");
    let own = column(&csv, "engine_ns");
    let ext: Vec<_> = own.iter().filter(|(e, _)| e == "ext:dred").collect();
    assert_eq!(ext.len(), 2, "materialisation and one batch: {ext:?}");
    assert!(ext.iter().all(|(_, v)| v.parse::<u64>().is_ok()), "{ext:?}");
    assert!(own.iter().any(|(e, v)| e == "dred" && v.is_empty()));
    let counters = column(&csv, "counters");
    let version = format!("version_command=dredbench_{}", env!("CARGO_PKG_VERSION"));
    assert!(
        counters.iter().any(|(e, v)| e == "ext:dred"
            && v.contains(&version)
            && v.contains("hello_engine=dred")
            && v.contains("hello_symbols=ids")),
        "batch 0 records the declared version and the greeting, which took symbols as \
         numbers: {counters:?}"
    );
    assert!(
        counters
            .iter()
            .any(|(e, v)| e == "ext:dred" && v.contains("overdeleted=3")),
        "the seed's batch over-deletes path(a,b), path(a,c), path(a,d): {counters:?}"
    );
}

#[test]
fn clingo_agrees_on_the_seed_and_with_negation() {
    if !clingo_available() {
        return;
    }
    let mut args = vec!["run"];
    args.extend(SEED);
    args.extend(["--engines", "dred,ext:clingo,ext:dred", "--check", "full"]);
    let o = dredbench(&args);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    // Negation, constants and a fresh constant, against the oracle, from the fuzzer.
    fuzz_agrees(40, 5, "ext:clingo");
}

#[test]
fn a_feature_the_engine_lacks_is_refused_as_bad_input() {
    if !clingo_available() {
        return;
    }
    let tmp = tempfile::tempdir().expect("tmp");
    std::fs::write(
        tmp.path().join("agg.dl"),
        ".decl e(x: symbol, y: symbol)\n.decl n(x: symbol, c: number)\n.input e\n\
         n(x, c) :- e(x, _), c = count : { e(x, _) }.\n",
    )
    .expect("program");
    std::fs::create_dir(tmp.path().join("facts")).expect("facts");
    std::fs::write(tmp.path().join("facts/e.facts"), "a\tb\n").expect("facts");
    let program = tmp.path().join("agg.dl");
    let facts = tmp.path().join("facts");
    let run = [
        "run",
        "--program",
        program.to_str().expect("utf-8"),
        "--facts",
        facts.to_str().expect("utf-8"),
        "--engines",
        "dred,ext:clingo",
    ];
    // Refused by the engines file's declaration, before the engine starts ...
    let o = dredbench(&run);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("does not support aggregates"),
        "{}",
        stderr(&o)
    );
    // ... and by the adapter itself when the declaration claims more than it can do.
    let adapter = repo().join("harness/adapters/clingo_adapter.py");
    let engines = format!(
        "[engine.clingo]\ncommand = [\"{{python}}\", \"{}\"]\nsupports = [\"aggregates\"]\n",
        adapter.display()
    );
    let o = with_engines(tmp.path(), &engines, &run);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("does not support aggregates"),
        "{}",
        stderr(&o)
    );
}

/// Records and ADTs cross the protocol as text (`[1, a]`, `$Add($Num(1), $Var(x))`) and are
/// read back into the run's record table, records the served engine built included: on the
/// records and ADT conformance cases under churn, `ext:dred` agrees with the oracle after
/// every batch.
#[test]
fn ext_dred_exchanges_records_and_adts() {
    for case in ["records", "adts"] {
        let dir = repo().join("datasets/conformance").join(case);
        let (program, facts, churn) = (
            dir.join("program.dl"),
            dir.join("facts"),
            dir.join("churn.updates"),
        );
        let o = dredbench(&[
            "run",
            "--program",
            program.to_str().expect("utf-8"),
            "--facts",
            facts.to_str().expect("utf-8"),
            "--updates",
            churn.to_str().expect("utf-8"),
            "--check",
            "full",
            "--engines",
            "oracle,ext:dred",
        ]);
        assert_eq!(o.status.code(), Some(0), "{case}: {}", stderr(&o));
        assert!(
            stderr(&o).contains("4 batch(es); engines oracle, ext:dred agree after every batch"),
            "{case}: {}",
            stderr(&o)
        );
    }
}

/// `ext:dred` reads each batch's change from `dred`'s rounds (`dredbench serve`): on random
/// programs with negation and aggregates it must agree with the oracle after every batch.
#[test]
fn ext_dred_agrees_with_the_oracle_on_random_programs() {
    fuzz_agrees(200, 11, "ext:dred");
}

/// The planted bug: `ext:dred` leaves one removed fact out of its answer after a deletion.
/// The fuzzer must find it within a minute and shrink it to at most three rules.
#[test]
fn fuzz_finds_and_shrinks_a_wrong_external_engine() {
    let tmp = tempfile::tempdir().expect("tmp");
    let out = tmp.path().join("failures");
    let started = Instant::now();
    let o = Command::new(env!("CARGO_BIN_EXE_dredbench"))
        .args([
            "fuzz",
            "--time-limit",
            "60",
            "--seed",
            "1",
            "--engines",
            "ext:dred",
            "--out",
            out.to_str().expect("utf-8"),
        ])
        .current_dir(repo())
        .env("DREDBENCH_SERVE_DROP_REMOVAL", "1")
        .output()
        .expect("dredbench runs");
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        started.elapsed() < Duration::from_secs(90),
        "found and shrunk in {:?}",
        started.elapsed()
    );
    assert!(err.contains("disagreement of engine `ext:dred`"), "{err}");
    let rules: usize = err
        .lines()
        .find_map(|l| l.strip_prefix("shrunk to "))
        .and_then(|l| l.split(' ').next())
        .and_then(|n| n.parse().ok())
        .expect("the shrunk size");
    assert!(rules <= 3, "shrunk to {rules} rules: {err}");
    let dir = std::fs::read_dir(&out)
        .expect("written")
        .next()
        .expect("one case")
        .expect("entry")
        .path();
    assert!(dir.join("p.dl").is_file() && dir.join("u.updates").is_file());
    // Without the planted bug the written case passes.
    let p = dir.join("p.dl");
    let f = dir.join("facts");
    let u = dir.join("u.updates");
    let o = dredbench(&[
        "run",
        "--program",
        p.to_str().expect("utf-8"),
        "--facts",
        f.to_str().expect("utf-8"),
        "--updates",
        u.to_str().expect("utf-8"),
        "--engines",
        "oracle,ext:dred",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}

/// A child that dies, hangs or answers malformed lines fails the case as an engine failure
/// naming the engine and the batch (exit 1), within the engine's timeout.
#[test]
fn a_misbehaving_child_is_an_engine_failure_naming_engine_and_batch() {
    let tmp = tempfile::tempdir().expect("tmp");
    // Greets, answers materialisation with the seed's model through `dredbench serve`, then
    // misbehaves on the first batch in the way `how` says.
    let script = tmp.path().join("bad.sh");
    std::fs::write(
        &script,
        r#"#!/bin/sh
how="$1"
read hello
echo "protocol 1 changes"
read program
read facts
echo "+	path	a	b"
echo "ok"
while read line; do
  [ "$line" = "commit" ] || continue
  case "$how" in
    die) echo "dying on purpose" >&2; exit 3 ;;
    hang) sleep 30 ;;
    garbage) echo "path a b"; echo "ok" ;;
    unknown) echo "+	nope	a"; echo "ok" ;;
    symbol) echo "+	path	zz	zz"; echo "ok" ;;
    twice) echo "+	path	a	b"; echo "ok" ;;
    badok) echo "ok time_ns=soon" ;;
    error) echo "error out of patience" ;;
  esac
done
"#,
    )
    .expect("script");
    let cases = [
        ("die", "ended without answering (exit status: 3"),
        ("die", "dying on purpose"),
        ("hang", "no answer within 2 s"),
        ("garbage", "malformed answer"),
        ("unknown", "relation `nope` is not declared"),
        ("symbol", "occurs in no program constant"),
        ("twice", "adds a fact already in its model"),
        ("badok", "time_ns=soon"),
        ("error", "answered `error out of patience`"),
    ];
    for (how, expected) in cases {
        let engines = format!(
            "[engine.bad]\ncommand = [\"sh\", \"{}\", \"{how}\"]\ntimeout_s = 2\n",
            script.display()
        );
        let mut args = vec!["run"];
        args.extend(SEED);
        args.extend(["--engines", "ext:bad"]);
        let started = Instant::now();
        let o = with_engines(tmp.path(), &engines, &args);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(1), "{how}: {err}");
        assert!(
            err.contains("engine `ext:bad` failed in batch 1"),
            "{how}: {err}"
        );
        assert!(err.contains(expected), "{how}: {err}");
        assert!(started.elapsed() < Duration::from_secs(20), "{how}");
    }
}

/// An external engine in a sweep gets rows like any engine, and `regress` judges them (by
/// name, against `recompute`); a failing external engine is a row with `error` set and the
/// sweep goes on.
#[test]
fn sweep_and_regress_take_external_engines() {
    let tmp = tempfile::tempdir().expect("tmp");
    let report = tmp.path().join("sweep.csv");
    let sweep = |engines: &str, report: &Path| {
        dredbench(&[
            "sweep",
            "--datasets",
            "go-cc",
            "--programs",
            "datasets/programs/reach.dl",
            "--kinds",
            "delete,insert",
            "--sizes",
            "10",
            "--batches",
            "5",
            "--engines",
            engines,
            "--report",
            report.to_str().expect("utf-8"),
        ])
    };
    let o = sweep("recompute,ext:dred,dred", &report);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let csv = std::fs::read_to_string(&report).expect("report");
    let ext = column(&csv, "engine_ns");
    assert_eq!(
        ext.iter()
            .filter(|(e, v)| e == "ext:dred" && !v.is_empty())
            .count(),
        12,
        "two cases of materialisation and 5 batches: {ext:?}"
    );
    assert!(column(&csv, "error").iter().all(|(_, v)| v.is_empty()));
    let o = dredbench(&[
        "regress",
        "--baseline",
        report.to_str().expect("utf-8"),
        "--report",
        report.to_str().expect("utf-8"),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    // A sweep with an engine that fails: error rows, not an abort.
    let engines = "[engine.dead]\ncommand = [\"sh\", \"-c\", \"exit 4\"]\n";
    std::fs::write(tmp.path().join("engines.toml"), engines).expect("engines");
    let failing = tmp.path().join("failing.csv");
    let o = dredbench(&[
        "--engines-file",
        tmp.path().join("engines.toml").to_str().expect("utf-8"),
        "sweep",
        "--datasets",
        "go-cc",
        "--programs",
        "datasets/programs/reach.dl",
        "--kinds",
        "delete",
        "--sizes",
        "1",
        "--batches",
        "3",
        "--engines",
        "recompute,ext:dead",
        "--report",
        failing.to_str().expect("utf-8"),
    ]);
    let csv = std::fs::read_to_string(&failing).expect("report");
    assert!(
        column(&csv, "error")
            .iter()
            .any(|(e, v)| e == "ext:dead" && v.contains("failed in batch 0")),
        "{csv}\n{}",
        stderr(&o)
    );
}

/// An engine answering at level `model` (its whole model after every batch) is compared like
/// any other; one whose model is wrong is a mismatch (exit 1) whose rows carry the error, never
/// a measurement.
#[test]
fn an_engine_at_level_model_is_checked_and_a_wrong_one_is_a_mismatch() {
    let tmp = tempfile::tempdir().expect("tmp");
    // The seed's models before and after its batch, as `dred` writes them.
    for (dir, with_updates) in [("m0", false), ("m1", true)] {
        let out = tmp.path().join(dir);
        let mut args = vec!["run", SEED[0], SEED[1], SEED[2], SEED[3]];
        if with_updates {
            args.extend([SEED[4], SEED[5]]);
        }
        args.extend(["--engines", "dred", "--out", out.to_str().expect("utf-8")]);
        let o = dredbench(&args);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    }
    let script = tmp.path().join("model.sh");
    std::fs::write(
        &script,
        r#"#!/bin/sh
dir="$1"; after="$2"
read hello
echo "protocol 1 model name=files"
read program
read facts
sed 's/^/+	path	/' "$dir/m0/path.csv"
echo "ok"
while read line; do
  [ "$line" = "commit" ] || continue
  sed 's/^/+	path	/' "$dir/$after/path.csv"
  echo "ok time_ns=1"
done
"#,
    )
    .expect("script");
    let report = tmp.path().join("r.csv");
    for (after, code) in [("m1", 0), ("m0", 1)] {
        let engines = format!(
            "[engine.files]\ncommand = [\"sh\", \"{}\", \"{}\", \"{after}\"]\n",
            script.display(),
            tmp.path().display()
        );
        let mut args = vec!["run"];
        args.extend(SEED);
        args.extend([
            "--engines",
            "dred,ext:files",
            "--check",
            "full",
            "--report",
            report.to_str().expect("utf-8"),
        ]);
        let o = with_engines(tmp.path(), &engines, &args);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(code), "{after}: {err}");
        let csv = std::fs::read_to_string(&report).expect("report");
        let errors = column(&csv, "error");
        if code == 0 {
            assert!(errors.iter().all(|(_, e)| e.is_empty()), "{csv}");
        } else {
            assert!(
                err.contains("engines `dred` and `ext:files` disagree"),
                "{err}"
            );
            assert!(
                errors
                    .iter()
                    .any(|(e, v)| e == "ext:files" && v.starts_with("mismatch")),
                "{csv}"
            );
        }
    }
}

#[test]
fn unknown_engines_and_bad_engines_files_are_usage_errors() {
    let tmp = tempfile::tempdir().expect("tmp");
    let mut args = vec!["run"];
    args.extend(SEED);
    args.extend(["--engines", "dred,ext:nope"]);
    let o = dredbench(&args);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("`ext:nope` is not declared in the engines file")
            && stderr(&o).contains("clingo, dred"),
        "{}",
        stderr(&o)
    );
    let o = with_engines(tmp.path(), "[engine.x]\ncommand = 3\n", &args);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(
        err.contains("engines.toml") && err.contains("line 2"),
        "{err}"
    );
    let o = with_engines(
        tmp.path(),
        "[engine.x]\ncommand = [\"/nonexistent/engine\"]\n",
        &[
            "run",
            SEED[0],
            SEED[1],
            SEED[2],
            SEED[3],
            "--engines",
            "ext:x",
        ],
    );
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("engine `ext:x` failed in batch 0")
            && stderr(&o).contains("cannot start `/nonexistent/engine`"),
        "{}",
        stderr(&o)
    );
    for bad in ["ext:", "ext:a b", "ext:x@0"] {
        let o = dredbench(&["run", SEED[0], SEED[1], SEED[2], SEED[3], "--engines", bad]);
        assert_eq!(o.status.code(), Some(2), "{bad}");
    }
}

/// Symbols as numbers (`symbols=ids`): a symbol the harness's table gains after the engine
/// started (here interned by hand, as a later update stream would) reaches the engine as a
/// `symbol N TEXT` line before the batch that uses it, and the engine's answers, in
/// numbers, leave it with the model `dred` has; a second batch removes it again.
#[test]
fn a_symbol_numbered_after_the_start_reaches_the_engine() {
    use dred_core::{Batch, Engine, Fact, RequestedBatch};
    use harness::external::{ExternalEngine, Registry};
    use std::sync::Arc;

    let root = repo();
    let inputs = harness::inputs::read_inputs(
        &root.join("datasets/seed/path.dl"),
        &root.join("datasets/seed/facts"),
        None,
        None,
    )
    .expect("the seed");
    let engines = format!(
        "[engine.dred]\ncommand = [{:?}, \"serve\", \"--engine\", \"dred\"]\n",
        env!("CARGO_BIN_EXE_dredbench")
    );
    let registry = Registry::parse(Path::new("engines.toml"), &engines).expect("engines file");
    let decl = registry.get("dred").expect("declared").clone();
    let symbols = Arc::new(inputs.symbols.clone());
    let mut ext = ExternalEngine::new("ext:dred", decl, inputs.program.clone(), symbols);
    let mut dred = harness::engines::EngineKind::Dred.build(
        inputs.program.clone(),
        1,
        &dd_baseline::Cluster::single(),
    );
    let mut edb = inputs.edb.clone();
    let report0 = ext.materialise(&edb).expect("ext materialises");
    dred.materialise(&edb).expect("dred materialises");
    ext.settle().expect("settles");
    let counters = report0.counters.unwrap_or_default();
    assert!(counters.contains("hello_symbols=ids"), "{counters}");

    let edge = inputs.program.relation_id("edge").expect("edge");
    let d = inputs.symbols.get("d").expect("d");
    let fresh = inputs.symbols.intern_shared("fresh-after-start");
    let fact = Fact::new(edge, vec![d, fresh]);
    for requested in [
        RequestedBatch {
            deletions: vec![],
            insertions: vec![fact.clone()],
        },
        RequestedBatch {
            deletions: vec![fact.clone()],
            insertions: vec![],
        },
    ] {
        let batch = Batch::normalise(&requested, &edb);
        edb.apply(&batch);
        ext.apply(&batch).expect("ext applies");
        dred.apply(&batch).expect("dred applies");
        ext.settle().expect("the answer folds in");
        dred.settle().expect("settles");
        assert_eq!(ext.model(), dred.model(), "after {requested:?}");
    }
}
