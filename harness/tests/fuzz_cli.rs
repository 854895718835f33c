//! End-to-end tests of `dredbench fuzz`: a clean run's summary, a failure found, shrunk,
//! written as files that `dredbench run` reproduces, the time limit, and usage errors.

mod common;
use common::{dredbench, stderr};

#[test]
fn agreeing_engines_give_the_summary_line_and_exit_0() {
    for negation in [false, true] {
        let mut args = vec!["fuzz", "--cases", "150", "--seed", "7"];
        if negation {
            args.push("--negation");
        }
        let o = dredbench(&args);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(0), "{err}");
        assert!(err.contains("150 cases, 0 disagreements"), "{err}");
        assert!(
            err.contains("over-deleted") && err.contains("features:"),
            "{err}"
        );
        assert!(
            err.contains(
                "engines oracle,recompute,dred,reference,bf,dd,recompute-levels,rotate,auto,counting"
            ),
            "{err}"
        );
    }
}

/// The negative control `wrong-support` keeps cyclic self-support: fuzz finds a case where
/// its model differs from the oracle's, shrinks it to a few rules, writes it, and the
/// printed command reproduces the mismatch.
#[test]
fn a_disagreement_is_shrunk_written_and_reproducible() {
    let tmp = tempfile::tempdir().expect("tmp");
    let out = tmp.path().join("failures");
    let o = dredbench(&[
        "fuzz",
        "--cases",
        "500",
        "--seed",
        "3",
        "--engines",
        "wrong-support",
        "--out",
        out.to_str().expect("utf-8"),
    ]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains("disagreement of engine `wrong-support`"),
        "{err}"
    );
    let dirs: Vec<_> = std::fs::read_dir(&out)
        .expect("the failure directory")
        .map(|d| d.expect("entry").path())
        .collect();
    assert_eq!(dirs.len(), 1, "{dirs:?}");
    let dir = &dirs[0];
    for file in [
        "p.dl",
        "u.updates",
        "failure.txt",
        "facts/e.facts",
        "facts/h.facts",
    ] {
        assert!(dir.join(file).is_file(), "{file} in {}", dir.display());
    }
    let program = std::fs::read_to_string(dir.join("p.dl")).expect("p.dl");
    let rules = program.lines().filter(|l| !l.starts_with('.')).count();
    assert!(
        (1..=4).contains(&rules),
        "shrunk to {rules} rules:\n{program}"
    );
    // The printed command, run as printed.
    let command = err
        .lines()
        .find_map(|l| l.trim().strip_prefix("dredbench "))
        .expect("a command to reproduce");
    let args: Vec<&str> = command.split_whitespace().collect();
    let again = dredbench(&args);
    assert_eq!(again.status.code(), Some(1), "{}", stderr(&again));
    assert!(stderr(&again).contains("MISMATCH"), "{}", stderr(&again));
}

#[test]
fn a_time_limit_instead_of_a_case_count() {
    let o = dredbench(&[
        "fuzz",
        "--time-limit",
        "1",
        "--seed",
        "4",
        "--engines",
        "dred",
    ]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(err.contains(" cases, 0 disagreements"), "{err}");
}

#[test]
fn usage_errors_exit_2() {
    for args in [
        vec!["fuzz", "--seed", "1"],
        vec!["fuzz", "--cases", "5", "--time-limit", "1"],
        vec!["fuzz", "--time-limit", "-1"],
        vec!["fuzz", "--cases", "5", "--engines", "nonsense"],
    ] {
        let o = dredbench(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
    }
}
