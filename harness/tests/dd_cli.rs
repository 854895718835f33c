//! End-to-end tests of the `dd` engine in `dredbench run`: the seed figures beside the other
//! engines, report columns, cluster flags, and a two-process cluster on loopback that must give
//! the same model as one process. Every child process runs under a timeout, so a cluster that
//! fails to connect fails the test instead of hanging CI.

mod common;
use common::{dredbench, repo, stderr};

use std::fs::File;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

/// Longest a cluster run may take before its processes are killed.
const CLUSTER_TIMEOUT: Duration = Duration::from_secs(120);

fn s(p: &Path) -> &str {
    p.to_str().expect("utf-8 path")
}

fn seed_args<'a>(updates: bool) -> Vec<&'a str> {
    let mut v = vec![
        "run",
        "--program",
        "datasets/seed/path.dl",
        "--facts",
        "datasets/seed/facts",
    ];
    if updates {
        v.extend(["--updates", "datasets/seed/delete-ab.updates"]);
    }
    v
}

fn report_rows(path: &Path) -> (csv::StringRecord, Vec<csv::StringRecord>) {
    let mut rdr = csv::Reader::from_path(path).expect("report");
    let headers = rdr.headers().expect("headers").clone();
    let rows = rdr.records().map(|r| r.expect("row")).collect();
    (headers, rows)
}

#[test]
fn dd_agrees_on_the_seed_example_and_fills_the_report() {
    let tmp = tempfile::tempdir().expect("tmp");
    let report = tmp.path().join("report.csv");
    let out = tmp.path().join("out");
    let mut args = seed_args(true);
    args.extend([
        "--engines",
        "dd,recompute,oracle",
        "--workers",
        "2",
        "--report",
        s(&report),
        "--out",
        s(&out),
    ]);
    let o = dredbench(&args);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let (headers, rows) = report_rows(&report);
    let col = |name: &str| headers.iter().position(|h| h == name).expect(name);
    let dd: Vec<&csv::StringRecord> = rows.iter().filter(|r| &r[col("engine")] == "dd").collect();
    assert_eq!(dd.len(), 2, "batches 0 and 1");
    for r in &dd {
        assert_eq!(&r[col("workers")], "2");
        let expected = if &r[col("batch")] == "0" { "20" } else { "18" };
        assert_eq!(&r[col("model_size")], expected);
        assert!(r[col("time_ns")].parse::<u64>().is_ok());
        // DRed-only figures stay empty.
        for c in ["overdeleted", "rederived", "inserted", "instances"] {
            assert_eq!(&r[col(c)], "", "{c}");
        }
    }
    assert_eq!(&dd[1][col("model_removed")], "2");
    // `--out` writes the first engine's model: dd's.
    let path_csv = std::fs::read_to_string(out.join("path.csv")).expect("path.csv");
    assert_eq!(path_csv.lines().count(), 18);
    assert!(path_csv.starts_with("a\td\na\te\n"), "{path_csv}");
}

#[test]
fn dd_runs_the_magic_set_program() {
    let o = dredbench(&[
        "run",
        "--program",
        "datasets/seed/magic.dl",
        "--facts",
        "datasets/seed/facts",
        "--updates",
        "datasets/seed/delete-ab.updates",
        "--engines",
        "dd,recompute",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("final IDB has 6 fact(s)"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn bad_cluster_flags_are_bad_input() {
    let tmp = tempfile::tempdir().expect("tmp");
    let mut args = seed_args(false);
    args.extend(["--engines", "dd", "--processes", "2", "--process", "2"]);
    let o = dredbench(&args);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("out of range"), "{}", stderr(&o));

    let hosts = tmp.path().join("hosts");
    std::fs::write(&hosts, "127.0.0.1:1\n").expect("hostfile");
    let mut args = seed_args(false);
    args.extend([
        "--engines",
        "dd",
        "--processes",
        "2",
        "--hostfile",
        s(&hosts),
    ]);
    let o = dredbench(&args);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("lists 1 address"), "{}", stderr(&o));
}

/// Programs whose rules make strings or build records are refused by a cluster of several
/// processes (each process interns them in a table of its own), an engine failure naming
/// why, before any process waits for the others.
#[test]
fn several_processes_refuse_string_functors_and_records() {
    for (case, why) in [
        (
            "strings/functors",
            "string functors across several processes",
        ),
        ("adts", "records across several processes"),
    ] {
        let dir = repo().join("datasets/conformance").join(case);
        let (program, facts) = (dir.join("program.dl"), dir.join("facts"));
        let o = dredbench(&[
            "run",
            "--program",
            s(&program),
            "--facts",
            s(&facts),
            "--engines",
            "dd",
            "--processes",
            "2",
            "--process",
            "0",
        ]);
        assert_eq!(o.status.code(), Some(1), "{case}: {}", stderr(&o));
        assert!(stderr(&o).contains(why), "{case}: {}", stderr(&o));
    }
}

/// Two distinct free loopback ports (held until the children start, to narrow the race).
fn free_ports() -> (Vec<TcpListener>, [u16; 2]) {
    let a = TcpListener::bind("127.0.0.1:0").expect("port");
    let b = TcpListener::bind("127.0.0.1:0").expect("port");
    let ports = [
        a.local_addr().expect("addr").port(),
        b.local_addr().expect("addr").port(),
    ];
    (vec![a, b], ports)
}

/// Waits for every child until the deadline; kills all of them on timeout.
fn wait_all(children: &mut [Child], logs: &[PathBuf]) -> Vec<ExitStatus> {
    let deadline = Instant::now() + CLUSTER_TIMEOUT;
    let mut status: Vec<Option<ExitStatus>> = vec![None; children.len()];
    while status.iter().any(Option::is_none) {
        for (i, c) in children.iter_mut().enumerate() {
            if status[i].is_none() {
                status[i] = c.try_wait().expect("wait");
            }
        }
        if Instant::now() > deadline {
            for c in children.iter_mut() {
                let _ = c.kill();
                let _ = c.wait();
            }
            let logs: Vec<String> = logs
                .iter()
                .map(|l| std::fs::read_to_string(l).unwrap_or_default())
                .collect();
            panic!("cluster timed out after {CLUSTER_TIMEOUT:?}; logs:\n{logs:#?}");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    status.into_iter().map(|s| s.expect("exited")).collect()
}

#[test]
fn two_processes_on_loopback_give_the_same_model_as_one() {
    let tmp = tempfile::tempdir().expect("tmp");
    let program = "datasets/seed/magic.dl";

    // The reference: one process, dd only.
    let single = tmp.path().join("single");
    let o = dredbench(&[
        "run",
        "--program",
        program,
        "--facts",
        "datasets/seed/facts",
        "--updates",
        "datasets/seed/delete-ab.updates",
        "--engines",
        "dd",
        "--out",
        s(&single),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));

    let (listeners, ports) = free_ports();
    let hosts = tmp.path().join("hosts");
    std::fs::write(
        &hosts,
        format!("127.0.0.1:{}\n127.0.0.1:{}\n", ports[0], ports[1]),
    )
    .expect("hostfile");
    drop(listeners);
    let mut children = Vec::new();
    let mut logs = Vec::new();
    for process in 0..2 {
        let out = tmp.path().join(format!("out{process}"));
        let report = tmp.path().join(format!("report{process}.csv"));
        let log = tmp.path().join(format!("log{process}"));
        let child = Command::new(env!("CARGO_BIN_EXE_dredbench"))
            .args([
                "run",
                "--program",
                program,
                "--facts",
                "datasets/seed/facts",
                "--updates",
                "datasets/seed/delete-ab.updates",
                "--engines",
                "dd,recompute",
                "--workers",
                "2",
                "--processes",
                "2",
                "--process",
                &process.to_string(),
                "--hostfile",
                s(&hosts),
                "--out",
                s(&out),
                "--report",
                s(&report),
            ])
            .current_dir(repo())
            .stdout(Stdio::null())
            .stderr(File::create(&log).expect("log"))
            .spawn()
            .expect("dredbench starts");
        children.push(child);
        logs.push(log);
    }
    let status = wait_all(&mut children, &logs);
    for (process, st) in status.iter().enumerate() {
        let log = std::fs::read_to_string(&logs[process]).unwrap_or_default();
        assert!(st.success(), "process {process}: {st}\n{log}");
        for rel in ["q", "m"] {
            let mine = std::fs::read_to_string(tmp.path().join(format!("out{process}/{rel}.csv")))
                .expect("output");
            let one = std::fs::read_to_string(single.join(format!("{rel}.csv"))).expect("output");
            assert_eq!(mine, one, "process {process}, relation {rel}");
        }
        let (headers, rows) = report_rows(&tmp.path().join(format!("report{process}.csv")));
        let col = |name: &str| headers.iter().position(|h| h == name).expect(name);
        let last_dd = rows
            .iter()
            .rfind(|r| &r[col("engine")] == "dd")
            .expect("dd rows");
        assert_eq!(&last_dd[col("model_size")], "6");
    }
}
