//! Crates of the local cargo registry compiled for their facts: what every dataset that
//! rustc extracts from a registry crate shares (`rust-nll:` in [`super::nll`], `rust-mir:` in
//! [`super::mir`]).
//!
//! A crate is found in `$CARGO_HOME/registry/src/*/<crate>-<version>/` (nothing is
//! downloaded; without a version the highest present is taken), its source is copied to a
//! scratch directory, and a scratch package that depends on the copy by path is built with
//! `cargo rustc -p <crate>@<version> --lib --offline -- <flags>` under `RUSTC_BOOTSTRAP=1`
//! ([`compile_crate`]). As a dependency rather than a workspace root, the crate's
//! dev-dependencies and the optional dependencies its default features leave off are never
//! resolved, so a crate builds offline whenever its normal dependencies are in the registry.
//! Only the library target gets the flags. `$CARGO` and `$RUSTC` choose the tools.
//! The dataset is then written under a temporary name beside its place and renamed into it
//! ([`install_renamed`]), so a failed fetch never leaves half a dataset.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use super::load::{sha256_hex, Provenance};
use super::{DatasetError, Locations};

pub(crate) fn fetch_err(msg: impl Into<String>) -> DatasetError {
    DatasetError::Fetch(msg.into())
}

/// A crate version `MAJOR.MINOR.PATCH[-PRE][+BUILD]`, ordered by the numbers, a release
/// above its pre-releases, pre-releases by their text (enough to pick the highest of a
/// registry's few copies).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Version {
    numbers: [u64; 3],
    /// `(true, "")` for a release, `(false, pre)` for a pre-release, so releases sort last.
    release: (bool, String),
    text: String,
}

impl Version {
    /// Parses a version as crates.io spells it; `None` if it is not one.
    pub fn parse(text: &str) -> Option<Version> {
        let core = text.split('+').next().unwrap_or(text);
        let (nums, pre) = match core.split_once('-') {
            Some((n, p)) if !p.is_empty() => (n, Some(p)),
            Some(_) => return None,
            None => (core, None),
        };
        let mut numbers = [0u64; 3];
        let mut parts = nums.split('.');
        for n in &mut numbers {
            let part = parts.next()?;
            if part.is_empty() || !part.bytes().all(|b| b.is_ascii_digit()) {
                return None;
            }
            *n = part.parse().ok()?;
        }
        if parts.next().is_some() {
            return None;
        }
        Some(Version {
            numbers,
            release: match pre {
                None => (true, String::new()),
                Some(p) => (false, p.to_string()),
            },
            text: text.to_string(),
        })
    }

    /// The version as written.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// Whether `pattern` (`0.8.12`, `0.8.x`, `0.8`, `1.*`, or the exact text) selects it.
    pub fn matches(&self, pattern: &str) -> bool {
        if pattern == self.text {
            return true;
        }
        let parts: Vec<&str> = pattern.split('.').collect();
        if parts.len() > 3 {
            return false;
        }
        // A pattern without a pre-release part selects releases only.
        if !self.release.0 {
            return false;
        }
        parts
            .iter()
            .zip(self.numbers)
            .all(|(p, n)| matches!(*p, "x" | "X" | "*") || p.parse::<u64>().is_ok_and(|v| v == n))
    }
}

/// A parsed `SCHEME:CRATE[@VERSION]` (`rust-nll:regex-syntax@0.8.x`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CrateSpec {
    /// The crate (package) name as in the registry, e.g. `regex-syntax`.
    pub krate: String,
    /// The version pattern after `@`, if any.
    pub version: Option<String>,
}

impl CrateSpec {
    /// Parses `SCHEME CRATE[@VERSION]` (`scheme` such as `rust-nll:`).
    pub fn parse(name: &str, scheme: &str) -> Result<CrateSpec, DatasetError> {
        let rest = name.strip_prefix(scheme).ok_or_else(|| {
            fetch_err(format!(
                "`{name}` is not of the form {scheme}CRATE[@VERSION]"
            ))
        })?;
        let (krate, version) = match rest.split_once('@') {
            Some((k, v)) => (k, Some(v)),
            None => (rest, None),
        };
        let valid = !krate.is_empty()
            && krate
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
        if !valid {
            return Err(fetch_err(format!(
                "`{name}`: `{krate}` is not a crate name (letters, digits, `-`, `_`); write \
                 {scheme}CRATE or {scheme}CRATE@VERSION, e.g. {scheme}regex-syntax@0.8.x"
            )));
        }
        if version.is_some_and(|v| v.is_empty() || v.contains(['/', '\\']) || v.contains("..")) {
            return Err(fetch_err(format!(
                "`{name}`: empty or malformed version after `@` (e.g. @0.8.12 or @0.8.x)"
            )));
        }
        Ok(CrateSpec {
            krate: krate.to_string(),
            version: version.map(str::to_string),
        })
    }

    /// The versions among `dir_names` (`<crate>-<version>` entries of a registry `src/` or
    /// of the install directory) that this spec selects, highest first.
    pub(crate) fn select<'a>(&self, dir_names: impl IntoIterator<Item = &'a str>) -> Vec<Version> {
        let lead = format!("{}-", self.krate);
        let mut found: Vec<Version> = dir_names
            .into_iter()
            .filter_map(|n| n.strip_prefix(&lead))
            .filter_map(Version::parse)
            .filter(|v| self.version.as_deref().is_none_or(|p| v.matches(p)))
            .collect();
        found.sort();
        found.dedup();
        found.reverse();
        found
    }

    fn describe(&self) -> String {
        match &self.version {
            Some(v) => format!("{} {v}", self.krate),
            None => self.krate.clone(),
        }
    }
}

/// `$CARGO_HOME`, else `~/.cargo`.
pub fn cargo_home() -> PathBuf {
    std::env::var_os("CARGO_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| {
            std::env::var_os("HOME")
                .filter(|v| !v.is_empty())
                .map(|h| PathBuf::from(h).join(".cargo"))
        })
        .unwrap_or_else(|| PathBuf::from(".cargo"))
}

/// The unpacked-source directories of the registry (`<cargo home>/registry/src/*`), sorted.
pub fn registry_src_dirs(cargo_home: &Path) -> Vec<PathBuf> {
    let src = cargo_home.join("registry").join("src");
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&src)
        .map(|rd| {
            rd.filter_map(Result::ok)
                .map(|e| e.path())
                .filter(|p| p.is_dir())
                .collect()
        })
        .unwrap_or_default();
    dirs.sort();
    dirs
}

pub(crate) fn dir_names(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .map(|rd| {
            rd.filter_map(Result::ok)
                .filter(|e| e.path().is_dir())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default()
}

/// The number of crate directories in the registry's sources (for listings).
pub fn registry_crate_count(cargo_home: &Path) -> usize {
    registry_src_dirs(cargo_home)
        .iter()
        .map(|d| dir_names(d).len())
        .sum()
}

/// A crate's unpacked source in the registry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RegistryCrate {
    /// The crate name.
    pub krate: String,
    /// Its version.
    pub version: String,
    /// `<cargo home>/registry/src/<index>/<crate>-<version>`.
    pub dir: PathBuf,
    /// The other versions present that the spec also selects (a higher one was taken).
    pub others: Vec<String>,
}

/// Finds the crate's source in the registry: the highest version the spec selects, over
/// every index directory (the first index in byte order holding it).
pub fn find_in_registry(
    spec: &CrateSpec,
    cargo_home: &Path,
) -> Result<RegistryCrate, DatasetError> {
    let roots = registry_src_dirs(cargo_home);
    let mut versions: Vec<(Version, PathBuf)> = Vec::new();
    for root in &roots {
        let names = dir_names(root);
        for v in spec.select(names.iter().map(String::as_str)) {
            let dir = root.join(format!("{}-{}", spec.krate, v.as_str()));
            if !versions.iter().any(|(w, _)| w == &v) {
                versions.push((v, dir));
            }
        }
    }
    versions.sort_by(|a, b| b.0.cmp(&a.0));
    let Some((best, dir)) = versions.first().cloned() else {
        let src = cargo_home.join("registry").join("src");
        let any = roots.iter().any(|r| {
            let lead = format!("{}-", spec.krate);
            dir_names(r).iter().any(|n| {
                n.strip_prefix(&lead)
                    .is_some_and(|v| Version::parse(v).is_some())
            })
        });
        let why = if roots.is_empty() {
            format!(
                "there is no registry source directory {} (set CARGO_HOME to the cargo home \
                 whose registry holds it)",
                src.join("*").display()
            )
        } else if any {
            format!(
                "no version of it in {} matches `{}`",
                src.join("*").display(),
                spec.version.as_deref().unwrap_or("")
            )
        } else {
            format!("it is not in {}", src.join("*").display())
        };
        return Err(fetch_err(format!(
            "crate {} not found in the local cargo registry: {why}; only crates already \
             downloaded by cargo can be fetched (nothing is downloaded)",
            spec.describe()
        )));
    };
    Ok(RegistryCrate {
        krate: spec.krate.clone(),
        version: best.as_str().to_string(),
        dir,
        others: versions
            .iter()
            .skip(1)
            .map(|(v, _)| v.as_str().to_string())
            .collect(),
    })
}

/// Runs a tool; its stdout on success, its stderr as the error otherwise.
pub(crate) fn run_tool(cmd: &mut Command, what: &str) -> Result<String, DatasetError> {
    let program = cmd.get_program().to_string_lossy().into_owned();
    let out = cmd.output().map_err(|e| {
        fetch_err(format!(
            "{what}: cannot run `{program}` ({e}); datasets compiled from the registry need cargo and rustc"
        ))
    })?;
    if !out.status.success() {
        return Err(fetch_err(format!(
            "{what}: `{program}` failed ({}): {}",
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        )));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

pub(crate) fn tool(var: &str, default: &str) -> OsString {
    std::env::var_os(var)
        .filter(|v| !v.is_empty())
        .unwrap_or_else(|| default.into())
}

/// Copies a directory tree (files and directories; symbolic links followed), returning the
/// SHA-256 over its sorted relative paths and contents: what was compiled.
pub(crate) fn copy_tree(from: &Path, to: &Path) -> Result<String, DatasetError> {
    let mut files: Vec<(String, PathBuf)> = Vec::new();
    let mut stack = vec![(from.to_path_buf(), String::new())];
    while let Some((dir, rel)) = stack.pop() {
        let target = if rel.is_empty() {
            to.to_path_buf()
        } else {
            to.join(&rel)
        };
        std::fs::create_dir_all(&target).map_err(|e| DatasetError::io(&target, e))?;
        let entries = std::fs::read_dir(&dir).map_err(|e| DatasetError::io(&dir, e))?;
        for e in entries.filter_map(Result::ok) {
            let name = e.file_name().to_string_lossy().into_owned();
            let child = if rel.is_empty() {
                name
            } else {
                format!("{rel}/{name}")
            };
            let path = e.path();
            if path.is_dir() {
                stack.push((path, child));
            } else if path.is_file() {
                files.push((child, path));
            }
        }
    }
    files.sort();
    let mut listing = Vec::new();
    for (rel, path) in &files {
        let bytes = std::fs::read(path).map_err(|e| DatasetError::io(path, e))?;
        let dest = to.join(rel);
        std::fs::write(&dest, &bytes).map_err(|e| DatasetError::io(&dest, e))?;
        let _ = writeln!(listing, "{}\t{}", sha256_hex(&bytes), rel);
    }
    Ok(sha256_hex(&listing))
}

/// The SHA-256 of the `.crate` archive the registry cache holds for this source, if any
/// (the crates.io checksum of the package).
pub(crate) fn crate_file_sha256(krate: &RegistryCrate, cargo_home: &Path) -> Option<String> {
    let index = krate.dir.parent()?.file_name()?;
    let file = cargo_home
        .join("registry")
        .join("cache")
        .join(index)
        .join(format!("{}-{}.crate", krate.krate, krate.version));
    std::fs::read(file).ok().map(|b| sha256_hex(&b))
}

/// The last lines of a tool's output, for an error message.
pub(crate) fn tail(text: &str, lines: usize) -> String {
    let all: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    all[all.len().saturating_sub(lines)..].join("\n")
}

/// What [`compile_crate`] ran and read: the provenance of a compiled dataset.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Compiled {
    /// The command, as a reader can rerun it (in a scratch package).
    pub command: String,
    /// `rustc -vV`.
    pub rustc_version: String,
    /// `cargo -V`.
    pub cargo_version: String,
    /// SHA-256 over the copied source tree (paths and contents).
    pub source_sha256: String,
    /// The compiler's standard error (warnings), for diagnostics.
    pub stderr: String,
}

/// Compiles the library of `krate` in a scratch package under `work` with `flags` passed to
/// rustc (`-Znll-facts …`, `-Zunpretty=mir …`) and `RUSTC_BOOTSTRAP=1`. `flag` names the
/// unstable option for the error a compiler that refuses it gets. The outputs are wherever
/// the flags put them.
pub fn compile_crate(
    krate: &RegistryCrate,
    work: &Path,
    flags: &[String],
    flag: &str,
) -> Result<Compiled, DatasetError> {
    let cargo = tool("CARGO", "cargo");
    let rustc = tool("RUSTC", "rustc");
    let rustc_version = run_tool(
        Command::new(&rustc).arg("-vV"),
        "asking the compiler its version",
    )?;
    let cargo_version = run_tool(Command::new(&cargo).arg("-V"), "asking cargo its version")?;
    let copy = work
        .join("crate")
        .join(format!("{}-{}", krate.krate, krate.version));
    eprintln!("  copying the source to {}", copy.display());
    let source_sha256 = copy_tree(&krate.dir, &copy)?;
    let shim = work.join("shim");
    std::fs::create_dir_all(shim.join("src")).map_err(|e| DatasetError::io(&shim, e))?;
    let manifest = format!(
        "# Written by dredbench: builds {k} {v} as a dependency, so that its\n\
         # dev-dependencies are not resolved.\n\
         [package]\nname = \"dredbench-scratch\"\nversion = \"0.0.0\"\n\
         edition = \"2021\"\npublish = false\n\n[dependencies]\n\
         scratch-target = {{ package = \"{k}\", path = {path:?} }}\n\n[workspace]\n",
        k = krate.krate,
        v = krate.version,
        path = copy.display().to_string(),
    );
    let write =
        |p: PathBuf, text: &str| std::fs::write(&p, text).map_err(|e| DatasetError::io(&p, e));
    write(shim.join("Cargo.toml"), &manifest)?;
    write(shim.join("src").join("lib.rs"), "")?;
    let target = work.join("target");
    let package = format!("{}@{}", krate.krate, krate.version);
    let mut args: Vec<String> = ["rustc", "-p", &package, "--lib", "--offline", "--"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    args.extend(flags.iter().cloned());
    let command = format!(
        "RUSTC_BOOTSTRAP=1 CARGO_TARGET_DIR={} {} {} (in a scratch package depending on a copy \
         of the crate by path)",
        target.display(),
        cargo.to_string_lossy(),
        args.join(" ")
    );
    eprintln!("  {command}");
    let out = Command::new(&cargo)
        .args(&args)
        .current_dir(&shim)
        .env("RUSTC_BOOTSTRAP", "1")
        .env("CARGO_TARGET_DIR", &target)
        .output()
        .map_err(|e| {
            fetch_err(format!(
                "cannot run `{}` ({e}); datasets compiled from the registry need cargo and rustc",
                cargo.to_string_lossy()
            ))
        })?;
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    if !out.status.success() {
        // A stable compiler that ignores RUSTC_BOOTSTRAP refuses every -Z flag; one that
        // dropped the flag names it as unknown.
        let bare = flag.trim_start_matches("-Z");
        let refused = stderr.contains("only accepted on the nightly compiler")
            || (stderr.contains(bare)
                && [
                    "unknown unstable option",
                    "unknown option",
                    "Unrecognized option",
                    "incorrect value",
                ]
                .iter()
                .any(|m| stderr.contains(m)));
        let first = rustc_version.lines().next().unwrap_or("rustc").trim();
        if refused {
            return Err(fetch_err(format!(
                "the compiler ({first}) refused {flag} (it needs a compiler that still has \
                 the flag, run with RUSTC_BOOTSTRAP=1): {}",
                tail(&stderr, 6)
            )));
        }
        return Err(fetch_err(format!(
            "compiling {} {} with {flag} failed ({}; {first}; offline, so every dependency \
             must be in the local registry): {}",
            krate.krate,
            krate.version,
            out.status,
            tail(&stderr, 12)
        )));
    }
    Ok(Compiled {
        command,
        rustc_version,
        cargo_version,
        source_sha256,
        stderr,
    })
}

/// Runs `fetch` with a fresh scratch directory beside `dest` (absolute, since cargo and
/// rustc run elsewhere), removed afterwards whether the fetch succeeded or not.
pub fn with_scratch<T>(
    dest: &Path,
    label: &str,
    fetch: impl FnOnce(&Path) -> Result<T, DatasetError>,
) -> Result<T, DatasetError> {
    let parent = dest
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."))
        .to_path_buf();
    std::fs::create_dir_all(&parent).map_err(|e| DatasetError::io(&parent, e))?;
    let work = parent.join(format!(".fetch-{label}-{}", super::unique_suffix()));
    let _ = std::fs::remove_dir_all(&work);
    std::fs::create_dir_all(&work).map_err(|e| DatasetError::io(&work, e))?;
    let work = work
        .canonicalize()
        .map_err(|e| DatasetError::io(&work, e))?;
    let result = fetch(&work);
    let _ = std::fs::remove_dir_all(&work);
    result
}

/// Writes a dataset with `build` into a temporary directory beside `dest`, then replaces
/// `dest` by it; on an error nothing at `dest` changes and the temporary is removed.
pub fn install_renamed<T>(
    dest: &Path,
    build: impl FnOnce(&Path) -> Result<T, DatasetError>,
) -> Result<T, DatasetError> {
    let tmp = dest
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."))
        .join(format!(
            ".{}.tmp{}",
            dest.file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_else(|| "dataset".into()),
            super::unique_suffix()
        ));
    let _ = std::fs::remove_dir_all(&tmp);
    let built = match build(&tmp) {
        Ok(v) => v,
        Err(e) => {
            let _ = std::fs::remove_dir_all(&tmp);
            return Err(e);
        }
    };
    if dest.exists() {
        std::fs::remove_dir_all(dest).map_err(|e| DatasetError::io(dest, e))?;
    }
    std::fs::rename(&tmp, dest).map_err(|e| DatasetError::io(dest, e))?;
    Ok(built)
}

/// `rustc -vV` on one line, for a PROVENANCE file.
pub fn one_line(text: &str) -> String {
    text.trim().lines().collect::<Vec<_>>().join("; ")
}

/// Seconds since the Unix epoch, for a PROVENANCE file.
pub fn now_unix() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

/// What a fetch of a registry crate (`rust-nll:`, `rust-mir:`) installed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CrateWritten {
    /// The dataset directory (`facts/`, `FUNCTIONS`, `PROVENANCE`).
    pub dir: PathBuf,
    /// Its facts directory, for `dredbench run --facts`.
    pub facts: PathBuf,
    /// `SCHEME<crate>@<version>`.
    pub name: String,
    /// Function bodies read.
    pub functions: usize,
    /// Facts written, all relations together.
    pub total_facts: usize,
    /// Facts written per relation.
    pub relations: BTreeMap<String, usize>,
    /// [`crate::provenance::dataset_hash`] of the facts directory.
    pub dataset_hash: String,
}

/// An installed dataset compiled from a registry crate, in the cache.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Installed {
    /// `SCHEME<crate>@<version>`.
    pub name: String,
    /// Its facts directory.
    pub facts: PathBuf,
    /// Its `PROVENANCE`.
    pub provenance: Provenance,
}

/// Every dataset installed under `<cache>/<subdir>` whose `facts/` holds `marker`, by name.
pub fn installed_under(
    loc: &Locations,
    subdir: &str,
    scheme: &str,
    marker: &str,
) -> Vec<Installed> {
    let root = loc.cache.join(subdir);
    let mut out: Vec<Installed> = dir_names(&root)
        .into_iter()
        .filter(|n| !n.starts_with('.'))
        .filter_map(|n| {
            let dir = root.join(&n);
            let facts = dir.join("facts");
            if !facts.join(marker).is_file() {
                return None;
            }
            let provenance = Provenance::read(&dir.join("PROVENANCE"));
            let name = match (provenance.get("crate"), provenance.get("crate_version")) {
                (Some(c), Some(v)) => format!("{scheme}{c}@{v}"),
                _ => format!("{scheme}{n}"),
            };
            Some(Installed {
                name,
                facts,
                provenance,
            })
        })
        .collect();
    out.sort_by(|a, b| a.name.cmp(&b.name));
    out
}

/// The facts directory of the highest installed version under `<cache>/<subdir>` that
/// `name` (`SCHEME CRATE[@VERSION]`) selects. Never compiles anything.
pub fn resolve_installed_under(
    name: &str,
    loc: &Locations,
    subdir: &str,
    scheme: &str,
    marker: &str,
) -> Result<PathBuf, DatasetError> {
    let spec = CrateSpec::parse(name, scheme)?;
    let root = loc.cache.join(subdir);
    let names = dir_names(&root);
    for v in spec.select(names.iter().map(String::as_str)) {
        let facts = root
            .join(format!("{}-{}", spec.krate, v.as_str()))
            .join("facts");
        if facts.join(marker).is_file() {
            return Ok(facts);
        }
    }
    Err(DatasetError::NotInstalled {
        name: name.to_string(),
        cache: loc.cache.display().to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: &str = "rust-nll:";

    #[test]
    fn versions_order_and_patterns() {
        let v = |s| Version::parse(s).expect(s);
        assert!(v("0.8.12") > v("0.8.9"));
        assert!(v("1.0.0") > v("1.0.0-rc.1"));
        assert!(v("0.10.0") > v("0.9.99"));
        assert!(Version::parse("2d-1.0.0").is_none());
        assert!(Version::parse("1.0").is_none());
        assert!(v("0.8.12").matches("0.8.x"));
        assert!(v("0.8.12").matches("0.8"));
        assert!(v("0.8.12").matches("0.8.12"));
        assert!(v("0.8.12").matches("*"));
        assert!(!v("0.8.12").matches("0.7.x"));
        assert!(!v("1.0.0-rc.1").matches("1.x"));
        assert!(v("1.0.0-rc.1").matches("1.0.0-rc.1"));
    }

    #[test]
    fn specs_parse_and_select_versions() {
        let s = CrateSpec::parse("rust-nll:regex-syntax@0.8.x", S).expect("parses");
        assert_eq!(s.krate, "regex-syntax");
        assert_eq!(s.version.as_deref(), Some("0.8.x"));
        let found = s.select([
            "regex-syntax-0.8.5",
            "regex-syntax-0.8.12",
            "regex-syntax-0.6.29",
            "regex-0.8.1",
            "regex-syntax-utf8-0.8.1",
        ]);
        let found: Vec<&str> = found.iter().map(Version::as_str).collect();
        assert_eq!(found, ["0.8.12", "0.8.5"]);
        let any = CrateSpec::parse("rust-nll:regex-syntax", S).expect("parses");
        assert_eq!(
            any.select(["regex-syntax-0.6.29", "regex-syntax-0.8.5"])[0].as_str(),
            "0.8.5"
        );
        for bad in [
            "rust-nll:",
            "rust-nll:a b",
            "rust-nll:x@",
            "rust-nll:../x",
            "regex",
        ] {
            assert!(CrateSpec::parse(bad, S).is_err(), "{bad}");
        }
    }

    #[test]
    fn registry_lookup_names_what_is_missing() {
        let tmp = tempfile::tempdir().expect("tmp");
        let src = tmp.path().join("registry/src/index.example-1");
        std::fs::create_dir_all(src.join("tiny-0.1.0")).expect("mkdir");
        std::fs::create_dir_all(src.join("tiny-0.2.0")).expect("mkdir");
        let spec = CrateSpec::parse("rust-nll:tiny", S).expect("spec");
        let found = find_in_registry(&spec, tmp.path()).expect("found");
        assert_eq!(
            (found.version.as_str(), found.others.as_slice()),
            ("0.2.0", &["0.1.0".to_string()][..])
        );
        let spec = CrateSpec::parse("rust-nll:tiny@0.1", S).expect("spec");
        assert_eq!(
            find_in_registry(&spec, tmp.path()).expect("found").version,
            "0.1.0"
        );
        let e = find_in_registry(
            &CrateSpec::parse("rust-nll:tiny@0.3.x", S).expect("spec"),
            tmp.path(),
        )
        .expect_err("no such version");
        assert!(e.to_string().contains("no version of it"), "{e}");
        let e = find_in_registry(
            &CrateSpec::parse("rust-nll:absent", S).expect("spec"),
            tmp.path(),
        )
        .expect_err("absent");
        assert!(
            e.to_string()
                .contains("crate absent not found in the local cargo registry"),
            "{e}"
        );
    }
}
