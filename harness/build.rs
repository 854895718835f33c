//! Records the git revision the binary is built from, so that every report names the code
//! that measured it — also when `dredbench` runs outside its checkout, where asking git at
//! run time would name the working directory's repository instead (or nothing).

use std::process::Command;

fn git(args: &[&str]) -> Option<String> {
    Command::new("git")
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
}

fn main() {
    // Rerun when the commit or the index moves, or when any source of the workspace changes
    // (an uncommitted edit makes the build `-dirty`).
    for path in [
        "../.git/HEAD",
        "../.git/index",
        "../.git/refs",
        "../.git/packed-refs",
        "../dred-core",
        "../dd-baseline",
        "../harness/src",
        "../Cargo.toml",
        "../Cargo.lock",
    ] {
        // A path that does not exist would make every build rerun this script and
        // recompile the crate (a fresh clone has `packed-refs`, a long-lived checkout may
        // not).
        if std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join(path)
            .exists()
        {
            println!("cargo:rerun-if-changed={path}");
        }
    }
    let rev = match git(&["rev-parse", "--short=12", "HEAD"]) {
        Some(rev) if !rev.is_empty() => {
            // Only the code counts: an edited result file does not change what measures.
            let dirty = git(&[
                "status",
                "--porcelain",
                "--untracked-files=no",
                "--",
                "../dred-core",
                "../dd-baseline",
                "../harness",
                "../Cargo.toml",
                "../Cargo.lock",
            ])
            .is_some_and(|s| !s.is_empty());
            if dirty {
                format!("{rev}-dirty")
            } else {
                rev
            }
        }
        _ => "unknown".to_string(),
    };
    println!("cargo:rustc-env=DREDBENCH_GIT_REV={rev}");
}
