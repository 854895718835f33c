//! Provenance of a measurement: the code revision and a content hash of the dataset, so a
//! reported figure can be traced to exactly what produced it.

use std::path::Path;
use std::process::Command;

use sha2::{Digest, Sha256};

/// The git revision of the working directory (`abc1234`, with `-dirty` when there are
/// uncommitted changes to tracked files), or `unknown` when git or the checkout is missing.
pub fn git_revision() -> String {
    let run = |args: &[&str]| {
        Command::new("git")
            .args(args)
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
    };
    match run(&["rev-parse", "--short=12", "HEAD"]) {
        Some(rev) if !rev.is_empty() => {
            let dirty = run(&["status", "--porcelain", "--untracked-files=no"])
                .is_some_and(|s| !s.is_empty());
            if dirty {
                format!("{rev}-dirty")
            } else {
                rev
            }
        }
        _ => "unknown".to_string(),
    }
}

/// SHA-256 over the sorted `.facts` file names of `dir` and their bytes, as the first 16 hex
/// digits. Equal for equal datasets wherever they are stored; any changed byte changes it.
pub fn dataset_hash(dir: &Path) -> std::io::Result<String> {
    let mut names: Vec<_> = std::fs::read_dir(dir)?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "facts"))
        .collect();
    names.sort();
    let mut h = Sha256::new();
    for p in names {
        let name = p.file_name().map(|n| n.to_string_lossy().into_owned());
        h.update(name.unwrap_or_default().as_bytes());
        h.update([0]);
        let bytes = std::fs::read(&p)?;
        h.update((bytes.len() as u64).to_le_bytes());
        h.update(&bytes);
    }
    let digest = h.finalize();
    Ok(digest.iter().take(8).map(|b| format!("{b:02x}")).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hash_depends_on_content_not_location() {
        let a = tempfile::tempdir().expect("tmp");
        let b = tempfile::tempdir().expect("tmp");
        for d in [a.path(), b.path()] {
            std::fs::write(d.join("edge.facts"), "a\tb\n").expect("write");
            std::fs::write(d.join("notes.txt"), "ignored").expect("write");
        }
        let ha = dataset_hash(a.path()).expect("hash");
        assert_eq!(ha, dataset_hash(b.path()).expect("hash"));
        assert_eq!(ha.len(), 16);
        std::fs::write(b.path().join("edge.facts"), "a\tc\n").expect("write");
        assert_ne!(ha, dataset_hash(b.path()).expect("hash"));
    }
}
