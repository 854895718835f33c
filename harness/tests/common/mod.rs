//! Running the `dredbench` binary from end-to-end tests: from the workspace root, so the
//! shipped `datasets/` paths resolve as a user at the root would write them.

// Each test binary uses a subset of these.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The workspace root.
pub fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("workspace root")
        .to_path_buf()
}

/// Runs `dredbench` with these arguments in the workspace root.
pub fn dredbench(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_dredbench"))
        .args(args)
        .current_dir(repo())
        .output()
        .expect("dredbench runs")
}

/// Runs `dredbench` with its dataset cache in `cache` (generated and imported datasets go
/// there, never into the user's cache) and the shipped datasets found from the source tree.
pub fn dredbench_in_cache(cache: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_dredbench"))
        .args(args)
        .current_dir(repo())
        .env("DREDBENCH_CACHE", cache)
        .env_remove("DREDBENCH_DATASETS")
        .output()
        .expect("dredbench runs")
}

/// Standard error as text.
pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Standard output as text.
pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// Writes `text` to `dir/name` (a fixture); its path as an argument.
pub fn write(dir: &Path, name: &str, text: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, text).expect("write fixture");
    p.display().to_string()
}

/// A scratch directory with an empty `facts/` folder in it, and that folder's path.
pub fn scratch_with_facts() -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().expect("tmp");
    let facts = tmp.path().join("facts");
    std::fs::create_dir(&facts).expect("mkdir");
    (tmp, facts)
}
