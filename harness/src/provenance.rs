//! Provenance of a measurement: the code revision and a content hash of the dataset, so a
//! reported figure can be traced to exactly what produced it.

use std::path::Path;

use sha2::{Digest, Sha256};

/// The git revision `dredbench` was built from (`abc1234`, with `-dirty` when the code —
/// the crates and the workspace manifest — differed from that commit at build time), or `unknown` when it was built outside a git
/// checkout. Recorded by the build script, so it names the code that measured, wherever the
/// binary runs.
pub fn git_revision() -> String {
    env!("DREDBENCH_GIT_REV").to_string()
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

    /// Built inside a git checkout, the revision is the commit's short hash, possibly
    /// `-dirty`; built from sources without one, `unknown`.
    #[test]
    fn revision_is_the_checkout_commit() {
        let rev = git_revision();
        if !Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../.git")
            .exists()
        {
            assert_eq!(rev, "unknown");
            return;
        }
        let hash = rev.strip_suffix("-dirty").unwrap_or(&rev);
        assert!(
            hash.len() == 12 && hash.chars().all(|c| c.is_ascii_hexdigit()),
            "{rev}"
        );
    }

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
