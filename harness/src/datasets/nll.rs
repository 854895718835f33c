//! Program-analysis datasets from real Rust code: the borrow checker's input facts that rustc
//! writes under `-Znll-facts`, for one crate of the local cargo registry, merged into one
//! facts directory (`dredbench datasets fetch rust-nll:CRATE[@VERSION]`).
//!
//! # How a crate is compiled
//!
//! The crate's unpacked source is looked up in the local cargo registry
//! (`$CARGO_HOME/registry/src/*/<crate>-<version>/`, `CARGO_HOME` defaulting to `~/.cargo`);
//! nothing is downloaded. Without a version the highest one present is taken; `@0.8.12`,
//! `@0.8.x` or `@0.8` pick among several (missing or `x`/`*` components match anything). The
//! source is copied to a scratch directory, and a scratch package that depends on the copy by
//! path is built with
//!
//! ```text
//! RUSTC_BOOTSTRAP=1 CARGO_TARGET_DIR=<scratch>/target \
//!   cargo rustc -p <crate>@<version> --lib --offline -- -Znll-facts -Znll-facts-dir=<scratch>/nll
//! ```
//!
//! The detour through a scratch package matters: as a dependency rather than the workspace
//! root, the crate's dev-dependencies and the optional dependencies its default features do
//! not enable are never resolved, so a crate builds offline whenever its normal dependencies
//! are in the registry (most crates' dev-dependencies are not). The crate is compiled with its
//! default features; only its library target gets the flags (its dependencies and build
//! script are compiled normally). `RUSTC_BOOTSTRAP=1` lets the stable compiler accept the
//! unstable flag; it is set for the whole build, so a dependency's build script that probes
//! the compiler for unstable features finds them, consistently with the compiler that then
//! builds it. `$CARGO` and `$RUSTC` choose the tools (default `cargo`, `rustc` on `PATH`).
//! The scratch directory is removed afterwards, whether the fetch succeeded or not.
//!
//! # What rustc writes, and what is kept
//!
//! One directory per MIR body the borrow checker checked (functions, methods, closures,
//! constants' initialisers), named after its def path with rustc's disambiguators, components
//! joined by `-` (`f`, `m-f`, `{impl#0}-f`, `f-{closure#0}`), holding one `<relation>.facts`
//! file per relation: one fact per line, each value a double-quoted string in Rust's `Debug`
//! form, values separated by tabs (`"Start(bb0[0])"⇥"Mid(bb0[0])"`, ⇥ a tab). rustc 1.95
//! writes 18 relations, all kept, under the same names ([`RELATIONS`] lists them with their
//! columns): control flow (`cfg_edge`), loans (`loan_issued_at`, `loan_killed_at`,
//! `loan_invalidated_at`), origins (`subset_base`, `universal_region`, `placeholder`,
//! `known_placeholder_subset`), variables (`var_used_at`, `var_defined_at`,
//! `var_dropped_at`, `use_of_var_derefs_origin`, `drop_of_var_derefs_origin`) and move paths
//! (`path_is_var`, `child_path`, `path_assigned_at_base`, `path_moved_at_base`,
//! `path_accessed_at_base`). A relation file of another name that rustc may write is kept
//! too, under its name; every file of [`RELATIONS`] exists in the output, empty if no body
//! had a fact of it, so a program may read any of them.
//!
//! Conversion, per body:
//!
//! - every value is unquoted (the `Debug` escapes `\"`, `\\`, `\'`, `\n`, `\r`, `\t`, `\0`,
//!   `\u{…}` undone) and prefixed by the body's name and `::`, so that bodies share one
//!   directory without sharing a point, origin, loan, variable or path: point `Mid(bb0[3])`
//!   of `f` becomes `f::Mid(bb0[3])`, origin `'?3` becomes `f::'?3`, loan `bw0` `f::bw0`.
//!   Origins that rustc numbers alike in two bodies (`'?0`, which is `'static`, in every
//!   body) are thus different symbols: the facts are intra-procedural, and so is the borrow
//!   check over them;
//! - the body's name is rustc's directory name; a character that could break the prefix
//!   (`:`, whitespace, control characters) becomes `_`. Names that needed no change are kept
//!   exactly (so a function keeps its name across versions of a crate); a changed name that
//!   meets a name already taken gets `~2`, `~3`, … in the byte order of the original
//!   directory names. rustc's names are def paths with disambiguators, so they are unique
//!   within a crate; they cannot meet across modules, since the module path is part of the
//!   name. Because no prefix contains `::`, two bodies never produce the same value;
//! - duplicate lines within a body are written once (rustc repeats a few: 1,150 of 2,054,710
//!   lines on regex-syntax 0.8.12, 1,007 of them in `subset_base` and 123 in `cfg_edge`).
//!   Output lines are grouped by body (in the byte order of the prefixes) and sorted within
//!   each body, so the files are a deterministic function of rustc's output.
//!
//! Dropped: files in the facts directory that are not `.facts` files or not in a body's
//! directory (rustc writes none), and nothing else. A line that is not tab-separated quoted
//! strings, a value holding a tab or a line break (it could not be written back), or a
//! relation whose arity differs between bodies is an error naming the file and line.
//!
//! # What is installed
//!
//! `<cache>/rust-nll/<crate>-<version>/` (or `--out DIR`): `facts/<relation>.facts`,
//! `FUNCTIONS` (one line per body: prefix, rustc's directory name, fact count,
//! tab-separated) and `PROVENANCE` (crate, version, registry path, SHA-256 of the `.crate`
//! file when the registry cache holds it and of the source tree, `rustc -vV`, `cargo -V`, the
//! command, body and fact counts per relation, and the harness's dataset hash of `facts/`).
//! The dataset is built under a temporary name beside its place and renamed into it.
//!
//! Errors (all [`DatasetError::Fetch`], exit code 2): a malformed name, a crate not in the
//! registry, a compiler that refuses `-Znll-facts`, a failed compilation (with the end of
//! cargo's output), a compilation that wrote no facts, and malformed facts.

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::ffi::OsString;
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use super::load::{sha256_hex, Provenance};
use super::{DatasetError, Locations};

/// The name prefix of these datasets: `rust-nll:CRATE[@VERSION]`.
pub const SCHEME: &str = "rust-nll:";

/// The relations rustc 1.95 writes under `-Znll-facts`, with their column names, in the
/// order of its files; each is written to the facts directory, empty if no body had one.
pub const RELATIONS: &[(&str, &[&str])] = &[
    ("cfg_edge", &["point1", "point2"]),
    ("child_path", &["child", "parent"]),
    ("drop_of_var_derefs_origin", &["var", "origin"]),
    ("known_placeholder_subset", &["origin1", "origin2"]),
    ("loan_invalidated_at", &["point", "loan"]),
    ("loan_issued_at", &["origin", "loan", "point"]),
    ("loan_killed_at", &["loan", "point"]),
    ("path_accessed_at_base", &["path", "point"]),
    ("path_assigned_at_base", &["path", "point"]),
    ("path_is_var", &["path", "var"]),
    ("path_moved_at_base", &["path", "point"]),
    ("placeholder", &["origin", "loan"]),
    ("subset_base", &["origin1", "origin2", "point"]),
    ("universal_region", &["origin"]),
    ("use_of_var_derefs_origin", &["var", "origin"]),
    ("var_defined_at", &["var", "point"]),
    ("var_dropped_at", &["var", "point"]),
    ("var_used_at", &["var", "point"]),
];

/// Whether a dataset name is of this form (`rust-nll:…`).
pub fn is_nll_name(name: &str) -> bool {
    name.starts_with(SCHEME)
}

fn fetch_err(msg: impl Into<String>) -> DatasetError {
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

/// A parsed `rust-nll:CRATE[@VERSION]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CrateSpec {
    /// The crate (package) name as in the registry, e.g. `regex-syntax`.
    pub krate: String,
    /// The version pattern after `@`, if any.
    pub version: Option<String>,
}

impl CrateSpec {
    /// Parses `rust-nll:CRATE[@VERSION]`.
    pub fn parse(name: &str) -> Result<CrateSpec, DatasetError> {
        let rest = name.strip_prefix(SCHEME).ok_or_else(|| {
            fetch_err(format!(
                "`{name}` is not of the form {SCHEME}CRATE[@VERSION]"
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
                 {SCHEME}CRATE or {SCHEME}CRATE@VERSION, e.g. {SCHEME}regex-syntax@0.8.x"
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
    fn select<'a>(&self, dir_names: impl IntoIterator<Item = &'a str>) -> Vec<Version> {
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

fn dir_names(dir: &Path) -> Vec<String> {
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

/// What a fetch installed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NllWritten {
    /// The dataset directory (`facts/`, `FUNCTIONS`, `PROVENANCE`).
    pub dir: PathBuf,
    /// Its facts directory, for `dredbench run --facts`.
    pub facts: PathBuf,
    /// `rust-nll:<crate>@<version>`.
    pub name: String,
    /// Bodies (function directories) converted.
    pub functions: usize,
    /// Facts written, all relations together.
    pub total_facts: usize,
    /// Facts written per relation.
    pub relations: BTreeMap<String, usize>,
    /// [`crate::provenance::dataset_hash`] of the facts directory.
    pub dataset_hash: String,
}

/// The install directory of a crate version under the cache: `<cache>/rust-nll/<crate>-<v>`.
pub fn install_dir(loc: &Locations, krate: &str, version: &str) -> PathBuf {
    loc.cache
        .join("rust-nll")
        .join(format!("{krate}-{version}"))
}

/// An installed `rust-nll` dataset in the cache.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Installed {
    /// `rust-nll:<crate>@<version>`.
    pub name: String,
    /// Its facts directory.
    pub facts: PathBuf,
    /// Its `PROVENANCE`.
    pub provenance: Provenance,
}

/// Every installed `rust-nll` dataset in the cache, by name.
pub fn installed(loc: &Locations) -> Vec<Installed> {
    let root = loc.cache.join("rust-nll");
    let mut out: Vec<Installed> = dir_names(&root)
        .into_iter()
        .filter(|n| !n.starts_with('.'))
        .filter_map(|n| {
            let dir = root.join(&n);
            let facts = dir.join("facts");
            if !facts.join("cfg_edge.facts").is_file() {
                return None;
            }
            let provenance = Provenance::read(&dir.join("PROVENANCE"));
            let name = match (provenance.get("crate"), provenance.get("crate_version")) {
                (Some(c), Some(v)) => format!("{SCHEME}{c}@{v}"),
                _ => format!("{SCHEME}{n}"),
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

/// The facts directory of an installed `rust-nll:CRATE[@VERSION]` (the highest installed
/// version the spec selects). Never compiles anything.
pub fn resolve_installed(name: &str, loc: &Locations) -> Result<PathBuf, DatasetError> {
    let spec = CrateSpec::parse(name)?;
    let root = loc.cache.join("rust-nll");
    let names = dir_names(&root);
    for v in spec.select(names.iter().map(String::as_str)) {
        let facts = install_dir(loc, &spec.krate, v.as_str()).join("facts");
        if facts.join("cfg_edge.facts").is_file() {
            return Ok(facts);
        }
    }
    Err(DatasetError::NotInstalled {
        name: name.to_string(),
        cache: loc.cache.display().to_string(),
    })
}

/// Runs a tool; its stdout on success, its stderr as the error otherwise.
fn run_tool(cmd: &mut Command, what: &str) -> Result<String, DatasetError> {
    let program = cmd.get_program().to_string_lossy().into_owned();
    let out = cmd.output().map_err(|e| {
        fetch_err(format!(
            "{what}: cannot run `{program}` ({e}); rust-nll datasets need cargo and rustc"
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

fn tool(var: &str, default: &str) -> OsString {
    std::env::var_os(var)
        .filter(|v| !v.is_empty())
        .unwrap_or_else(|| default.into())
}

/// Copies a directory tree (files and directories; symbolic links followed), returning the
/// SHA-256 over its sorted relative paths and contents: what was compiled.
fn copy_tree(from: &Path, to: &Path) -> Result<String, DatasetError> {
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
fn crate_file_sha256(krate: &RegistryCrate, cargo_home: &Path) -> Option<String> {
    let index = krate.dir.parent()?.file_name()?;
    let file = cargo_home
        .join("registry")
        .join("cache")
        .join(index)
        .join(format!("{}-{}.crate", krate.krate, krate.version));
    std::fs::read(file).ok().map(|b| sha256_hex(&b))
}

/// The last lines of a tool's output, for an error message.
fn tail(text: &str, lines: usize) -> String {
    let all: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    all[all.len().saturating_sub(lines)..].join("\n")
}

/// Fetches `rust-nll:CRATE[@VERSION]`: compiles the crate from the local registry with
/// `-Znll-facts`, converts the facts and installs them into `dest` (default
/// `<cache>/rust-nll/<crate>-<version>`), replacing what is there. Progress on stderr.
pub fn fetch(name: &str, loc: &Locations, dest: Option<&Path>) -> Result<NllWritten, DatasetError> {
    let spec = CrateSpec::parse(name)?;
    let home = cargo_home();
    let krate = find_in_registry(&spec, &home)?;
    eprintln!(
        "  {} {} from {}",
        krate.krate,
        krate.version,
        krate.dir.display()
    );
    if !krate.others.is_empty() {
        eprintln!(
            "  (also present: {}; pick one with {SCHEME}{}@VERSION)",
            krate.others.join(", "),
            krate.krate
        );
    }
    let dest = dest.map_or_else(
        || install_dir(loc, &krate.krate, &krate.version),
        Path::to_path_buf,
    );
    let parent = dest
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."))
        .to_path_buf();
    std::fs::create_dir_all(&parent).map_err(|e| DatasetError::io(&parent, e))?;
    let work = parent.join(format!(".fetch-{}-{}", krate.krate, super::unique_suffix()));
    let _ = std::fs::remove_dir_all(&work);
    std::fs::create_dir_all(&work).map_err(|e| DatasetError::io(&work, e))?;
    // Cargo and rustc want absolute paths: the compiler runs in the crate's directory.
    let work = work
        .canonicalize()
        .map_err(|e| DatasetError::io(&work, e))?;
    let result = fetch_in(&krate, &home, &dest, &work);
    let _ = std::fs::remove_dir_all(&work);
    result
}

fn fetch_in(
    krate: &RegistryCrate,
    home: &Path,
    dest: &Path,
    work: &Path,
) -> Result<NllWritten, DatasetError> {
    let cargo = tool("CARGO", "cargo");
    let rustc = tool("RUSTC", "rustc");
    let rustc_vv = run_tool(
        Command::new(&rustc).arg("-vV"),
        "asking the compiler its version",
    )?;
    let cargo_v = run_tool(Command::new(&cargo).arg("-V"), "asking cargo its version")?;

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
         [package]\nname = \"dredbench-nll-scratch\"\nversion = \"0.0.0\"\n\
         edition = \"2021\"\npublish = false\n\n[dependencies]\n\
         nll-target = {{ package = \"{k}\", path = {path:?} }}\n\n[workspace]\n",
        k = krate.krate,
        v = krate.version,
        path = copy.display().to_string(),
    );
    let write =
        |p: PathBuf, text: &str| std::fs::write(&p, text).map_err(|e| DatasetError::io(&p, e));
    write(shim.join("Cargo.toml"), &manifest)?;
    write(shim.join("src").join("lib.rs"), "")?;

    let raw = work.join("nll");
    let target = work.join("target");
    let package = format!("{}@{}", krate.krate, krate.version);
    let nll_dir = format!("-Znll-facts-dir={}", raw.display());
    let args: Vec<&str> = vec![
        "rustc",
        "-p",
        &package,
        "--lib",
        "--offline",
        "--",
        "-Znll-facts",
        &nll_dir,
    ];
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
                "cannot run `{}` ({e}); rust-nll datasets need cargo and rustc",
                cargo.to_string_lossy()
            ))
        })?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    if !out.status.success() {
        // A stable compiler that ignores RUSTC_BOOTSTRAP refuses every -Z flag; one that
        // dropped the flag names it as unknown.
        let refused = stderr.contains("only accepted on the nightly compiler")
            || (stderr.contains("nll-facts")
                && [
                    "unknown unstable option",
                    "unknown option",
                    "Unrecognized option",
                ]
                .iter()
                .any(|m| stderr.contains(m)));
        let first = rustc_vv.lines().next().unwrap_or("rustc").trim();
        if refused {
            return Err(fetch_err(format!(
                "the compiler ({first}) refused -Znll-facts, so it cannot write the borrow \
                 checker's facts (it needs a compiler that still has the flag, run with \
                 RUSTC_BOOTSTRAP=1): {}",
                tail(&stderr, 6)
            )));
        }
        return Err(fetch_err(format!(
            "compiling {} {} with -Znll-facts failed ({}; {first}; offline, so every \
             dependency must be in the local registry): {}",
            krate.krate,
            krate.version,
            out.status,
            tail(&stderr, 12)
        )));
    }
    if !raw.is_dir() {
        return Err(fetch_err(format!(
            "compiling {} {} succeeded but rustc wrote no facts into {} (does this compiler \
             still implement -Znll-facts? does the crate have a library with functions?)",
            krate.krate,
            krate.version,
            raw.display()
        )));
    }
    eprintln!("  converting {}", raw.display());
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
    let installed = (|| {
        let facts = tmp.join("facts");
        let conv = convert(&raw, &facts)?;
        if conv.functions.is_empty() {
            return Err(fetch_err(format!(
                "rustc wrote no function directories into {}",
                raw.display()
            )));
        }
        let mut functions = String::new();
        for f in &conv.functions {
            let _ = writeln!(functions, "{}\t{}\t{}", f.prefix, f.directory, f.facts);
        }
        write(tmp.join("FUNCTIONS"), &functions)?;
        let hash =
            crate::provenance::dataset_hash(&facts).map_err(|e| DatasetError::io(&facts, e))?;
        let name = format!("{SCHEME}{}@{}", krate.krate, krate.version);
        let mut prov = Provenance::default();
        prov.add("name", &name)
            .add("crate", &krate.krate)
            .add("crate_version", &krate.version)
            .add("features", "default")
            .add("registry_source", krate.dir.display())
            .add(
                "crate_file_sha256",
                crate_file_sha256(krate, home)
                    .unwrap_or_else(|| "(no .crate in the registry cache)".into()),
            )
            .add("source_tree_sha256", &source_sha256)
            .add(
                "rustc_version",
                rustc_vv.trim().lines().collect::<Vec<_>>().join("; "),
            )
            .add("cargo_version", cargo_v.trim())
            .add("command", &command)
            .add(
                "conversion",
                "every value `<function>::<value>`, <function> = rustc's facts directory \
                 name (see FUNCTIONS); all relations kept; duplicate lines within a function \
                 dropped",
            )
            .add("functions", conv.functions.len())
            .add("facts", conv.total());
        for (rel, n) in &conv.relations {
            prov.add(&format!("{rel}_facts"), n);
        }
        prov.add("dataset_hash", &hash)
            .add(
                "fetched_at_unix",
                std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map(|d| d.as_secs())
                    .unwrap_or(0),
            )
            .add("tool", concat!("dredbench ", env!("CARGO_PKG_VERSION")));
        write(tmp.join("PROVENANCE"), &prov.render())?;
        Ok(NllWritten {
            dir: dest.to_path_buf(),
            facts: dest.join("facts"),
            name,
            functions: conv.functions.len(),
            total_facts: conv.total(),
            relations: conv.relations.clone(),
            dataset_hash: hash,
        })
    })();
    let written = match installed {
        Ok(w) => w,
        Err(e) => {
            let _ = std::fs::remove_dir_all(&tmp);
            return Err(e);
        }
    };
    if dest.exists() {
        std::fs::remove_dir_all(dest).map_err(|e| DatasetError::io(dest, e))?;
    }
    std::fs::rename(&tmp, dest).map_err(|e| DatasetError::io(dest, e))?;
    Ok(written)
}

/// One converted body.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Function {
    /// The prefix its values carry (before `::`).
    pub prefix: String,
    /// rustc's directory name for it.
    pub directory: String,
    /// Facts written for it, all relations together.
    pub facts: usize,
}

/// What [`convert`] wrote.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Conversion {
    /// The bodies, in output order (by prefix).
    pub functions: Vec<Function>,
    /// Facts written per relation (every relation of [`RELATIONS`] included).
    pub relations: BTreeMap<String, usize>,
}

impl Conversion {
    /// All facts written.
    pub fn total(&self) -> usize {
        self.relations.values().sum()
    }
}

/// The prefix of each body from rustc's directory names (in any order), returned in the
/// same order: names that need no change keep themselves; others have `:`, whitespace and
/// control characters replaced by `_`, then `~2`, `~3`, … while the result is taken, in the
/// byte order of the original names. See the module docs.
pub fn function_prefixes(names: &[String]) -> Vec<String> {
    let sanitize = |n: &str| -> String {
        n.chars()
            .map(|c| {
                if c == ':' || c.is_whitespace() || c.is_control() {
                    '_'
                } else {
                    c
                }
            })
            .collect()
    };
    let mut out: Vec<Option<String>> = vec![None; names.len()];
    let mut taken: HashSet<String> = HashSet::new();
    for (i, n) in names.iter().enumerate() {
        if !n.is_empty() && sanitize(n) == *n && taken.insert(n.clone()) {
            out[i] = Some(n.clone());
        }
    }
    let mut rest: Vec<usize> = (0..names.len()).filter(|&i| out[i].is_none()).collect();
    rest.sort_by(|&a, &b| names[a].cmp(&names[b]).then(a.cmp(&b)));
    for i in rest {
        let base = match sanitize(&names[i]) {
            s if s.is_empty() => "_".to_string(),
            s => s,
        };
        let mut candidate = base.clone();
        let mut k = 2;
        while !taken.insert(candidate.clone()) {
            candidate = format!("{base}~{k}");
            k += 1;
        }
        out[i] = Some(candidate);
    }
    out.into_iter().map(Option::unwrap_or_default).collect()
}

/// Parses one line of a rustc facts file: tab-separated `Debug`-quoted strings. `what` is
/// `file:line` for the error.
pub fn parse_fact_line(line: &str, what: &str) -> Result<Vec<String>, DatasetError> {
    let bad = |why: &str| fetch_err(format!("{what}: {why}: `{line}`"));
    let mut fields = Vec::new();
    let mut chars = line.chars().peekable();
    loop {
        if chars.next() != Some('"') {
            return Err(bad("expected a double-quoted value"));
        }
        let mut value = String::new();
        loop {
            match chars.next() {
                None => return Err(bad("unterminated quoted value")),
                Some('"') => break,
                Some('\\') => match chars.next() {
                    Some('"') => value.push('"'),
                    Some('\\') => value.push('\\'),
                    Some('\'') => value.push('\''),
                    Some('n') => value.push('\n'),
                    Some('r') => value.push('\r'),
                    Some('t') => value.push('\t'),
                    Some('0') => value.push('\0'),
                    Some('u') => {
                        if chars.next() != Some('{') {
                            return Err(bad("malformed \\u escape"));
                        }
                        let mut hex = String::new();
                        for c in chars.by_ref() {
                            if c == '}' {
                                break;
                            }
                            hex.push(c);
                        }
                        let c = u32::from_str_radix(&hex, 16)
                            .ok()
                            .and_then(char::from_u32)
                            .ok_or_else(|| bad("malformed \\u escape"))?;
                        value.push(c);
                    }
                    _ => return Err(bad("unknown escape")),
                },
                Some(c) => value.push(c),
            }
        }
        if value.contains(['\t', '\n', '\r']) {
            return Err(bad(
                "a value holds a tab or line break, which a .facts file cannot hold",
            ));
        }
        fields.push(value);
        match chars.next() {
            None => return Ok(fields),
            Some('\t') => {}
            Some(_) => return Err(bad("expected a tab or the end of the line after a value")),
        }
    }
}

/// Converts rustc's facts directory `raw` (one subdirectory per body) into one facts
/// directory `out` (created; its files replaced), as the module docs describe.
pub fn convert(raw: &Path, out: &Path) -> Result<Conversion, DatasetError> {
    let mut dirs: Vec<(String, PathBuf)> = std::fs::read_dir(raw)
        .map_err(|e| DatasetError::io(raw, e))?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .map(|p| {
            let name = p
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            (name, p)
        })
        .collect();
    dirs.sort();
    let names: Vec<String> = dirs.iter().map(|(n, _)| n.clone()).collect();
    let prefixes = function_prefixes(&names);
    let mut order: Vec<usize> = (0..dirs.len()).collect();
    order.sort_by(|&a, &b| prefixes[a].cmp(&prefixes[b]));

    std::fs::create_dir_all(out).map_err(|e| DatasetError::io(out, e))?;
    struct Output {
        file: std::io::BufWriter<std::fs::File>,
        path: PathBuf,
        count: usize,
        arity: Option<(usize, String)>,
    }
    let open = |rel: &str| -> Result<Output, DatasetError> {
        let path = out.join(format!("{rel}.facts"));
        let file = std::fs::File::create(&path).map_err(|e| DatasetError::io(&path, e))?;
        Ok(Output {
            file: std::io::BufWriter::new(file),
            path,
            count: 0,
            arity: None,
        })
    };
    let mut outputs: BTreeMap<String, Output> = BTreeMap::new();
    for (rel, _) in RELATIONS {
        outputs.insert(rel.to_string(), open(rel)?);
    }
    let mut conv = Conversion::default();
    for i in order {
        let (dir_name, dir) = &dirs[i];
        let prefix = &prefixes[i];
        let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
            .map_err(|e| DatasetError::io(dir, e))?
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| p.is_file() && p.extension().is_some_and(|x| x == "facts"))
            .collect();
        files.sort();
        let mut count = 0;
        for path in files {
            let rel = path
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default();
            if rel.is_empty() || rel.starts_with('.') {
                continue;
            }
            let text = std::fs::read_to_string(&path).map_err(|e| DatasetError::io(&path, e))?;
            let mut lines: BTreeSet<String> = BTreeSet::new();
            for (n, line) in text.lines().enumerate() {
                let line = line.strip_suffix('\r').unwrap_or(line);
                if line.is_empty() {
                    continue;
                }
                let what = format!("{}:{}", path.display(), n + 1);
                let fields = parse_fact_line(line, &what)?;
                if !outputs.contains_key(&rel) {
                    outputs.insert(rel.clone(), open(&rel)?);
                }
                let o = outputs
                    .get_mut(&rel)
                    .ok_or_else(|| fetch_err(format!("internal: no output for `{rel}`")))?;
                match &o.arity {
                    None => o.arity = Some((fields.len(), what.clone())),
                    Some((k, first)) if *k != fields.len() => {
                        return Err(fetch_err(format!(
                            "{what}: `{rel}` has {} value(s) here but {k} at {first}",
                            fields.len()
                        )));
                    }
                    Some(_) => {}
                }
                let row: Vec<String> = fields.iter().map(|v| format!("{prefix}::{v}")).collect();
                lines.insert(row.join("\t"));
            }
            if lines.is_empty() {
                continue;
            }
            let o = outputs
                .get_mut(&rel)
                .ok_or_else(|| fetch_err(format!("internal: no output for `{rel}`")))?;
            for l in &lines {
                o.file
                    .write_all(l.as_bytes())
                    .and_then(|()| o.file.write_all(b"\n"))
                    .map_err(|e| DatasetError::io(&o.path, e))?;
            }
            o.count += lines.len();
            count += lines.len();
        }
        conv.functions.push(Function {
            prefix: prefix.clone(),
            directory: dir_name.clone(),
            facts: count,
        });
    }
    for (rel, mut o) in outputs {
        o.file.flush().map_err(|e| DatasetError::io(&o.path, e))?;
        conv.relations.insert(rel, o.count);
    }
    Ok(conv)
}

#[cfg(test)]
mod tests {
    use super::*;

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
        let s = CrateSpec::parse("rust-nll:regex-syntax@0.8.x").expect("parses");
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
        let any = CrateSpec::parse("rust-nll:regex-syntax").expect("parses");
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
            assert!(CrateSpec::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn registry_lookup_names_what_is_missing() {
        let tmp = tempfile::tempdir().expect("tmp");
        let src = tmp.path().join("registry/src/index.example-1");
        std::fs::create_dir_all(src.join("tiny-0.1.0")).expect("mkdir");
        std::fs::create_dir_all(src.join("tiny-0.2.0")).expect("mkdir");
        let spec = CrateSpec::parse("rust-nll:tiny").expect("spec");
        let found = find_in_registry(&spec, tmp.path()).expect("found");
        assert_eq!(
            (found.version.as_str(), found.others.as_slice()),
            ("0.2.0", &["0.1.0".to_string()][..])
        );
        let spec = CrateSpec::parse("rust-nll:tiny@0.1").expect("spec");
        assert_eq!(
            find_in_registry(&spec, tmp.path()).expect("found").version,
            "0.1.0"
        );
        let e = find_in_registry(
            &CrateSpec::parse("rust-nll:tiny@0.3.x").expect("spec"),
            tmp.path(),
        )
        .expect_err("no such version");
        assert!(e.to_string().contains("no version of it"), "{e}");
        let e = find_in_registry(
            &CrateSpec::parse("rust-nll:absent").expect("spec"),
            tmp.path(),
        )
        .expect_err("absent");
        assert!(
            e.to_string()
                .contains("crate absent not found in the local cargo registry"),
            "{e}"
        );
    }

    #[test]
    fn quoted_lines_parse_with_escapes_and_refuse_garbage() {
        assert_eq!(
            parse_fact_line("\"'?3\"\t\"bw0\"\t\"Mid(bb0[3])\"", "f:1").expect("parses"),
            ["'?3", "bw0", "Mid(bb0[3])"]
        );
        assert_eq!(
            parse_fact_line(r#""a\"b\\c\u{e9}""#, "f:1").expect("parses"),
            ["a\"b\\cé"]
        );
        for bad in ["x", "\"a", "\"a\" \"b\"", "\"a\"\t", r#""a\tb""#, r#""\q""#] {
            let e = parse_fact_line(bad, "dir/f/cfg_edge.facts:7").expect_err(bad);
            assert!(e.to_string().starts_with("dir/f/cfg_edge.facts:7: "), "{e}");
        }
    }

    #[test]
    fn prefixes_keep_clean_names_and_disambiguate_the_rest() {
        let names: Vec<String> = ["f", "a b", "a_b", "a:b", "m-f", "{impl#0}-f", ""]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let p = function_prefixes(&names);
        // Clean names keep themselves; the changed ones, in byte order of the originals
        // (`""` < `a b` < `a:b`), take `_`, then `a_b~2` (`a_b` is taken), `a_b~3`.
        assert_eq!(p, ["f", "a_b~2", "a_b", "a_b~3", "m-f", "{impl#0}-f", "_"]);
        // The same names in another order get the same prefixes.
        let mut rev = names.clone();
        rev.reverse();
        let mut q = function_prefixes(&rev);
        q.reverse();
        assert_eq!(p, q);
    }

    fn write(path: &Path, text: &str) {
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(path, text).expect("write");
    }

    #[test]
    fn conversion_prefixes_every_value_by_its_function() {
        let tmp = tempfile::tempdir().expect("tmp");
        let raw = tmp.path().join("raw");
        // Two functions whose ids coincide, one with a name that needs a change and collides
        // with a clean one after it, a duplicate line, a relation rustc may add, and a stray
        // file at the top (dropped).
        write(
            &raw.join("f/cfg_edge.facts"),
            "\"Start(bb0[0])\"\t\"Mid(bb0[0])\"\n\"Start(bb0[0])\"\t\"Mid(bb0[0])\"\n",
        );
        write(
            &raw.join("f/loan_issued_at.facts"),
            "\"'?3\"\t\"bw0\"\t\"Mid(bb0[0])\"\n",
        );
        write(&raw.join("f/new_relation.facts"), "\"x\"\n");
        write(
            &raw.join("m-f/cfg_edge.facts"),
            "\"Start(bb0[0])\"\t\"Mid(bb0[0])\"\n",
        );
        write(
            &raw.join("g h/cfg_edge.facts"),
            "\"Start(bb1[2])\"\t\"Mid(bb1[2])\"\n",
        );
        write(&raw.join("g_h/universal_region.facts"), "\"'?0\"\n");
        write(&raw.join("README"), "not a function\n");
        let out = tmp.path().join("out");
        let conv = convert(&raw, &out).expect("converts");
        let read =
            |rel: &str| std::fs::read_to_string(out.join(format!("{rel}.facts"))).expect(rel);
        assert_eq!(
            read("cfg_edge"),
            "f::Start(bb0[0])\tf::Mid(bb0[0])\n\
             g_h~2::Start(bb1[2])\tg_h~2::Mid(bb1[2])\n\
             m-f::Start(bb0[0])\tm-f::Mid(bb0[0])\n"
        );
        assert_eq!(read("loan_issued_at"), "f::'?3\tf::bw0\tf::Mid(bb0[0])\n");
        assert_eq!(read("universal_region"), "g_h::'?0\n");
        assert_eq!(read("new_relation"), "f::x\n");
        assert_eq!(read("subset_base"), "", "every known relation is written");
        let funcs: Vec<(&str, &str, usize)> = conv
            .functions
            .iter()
            .map(|f| (f.prefix.as_str(), f.directory.as_str(), f.facts))
            .collect();
        assert_eq!(
            funcs,
            [
                ("f", "f", 3),
                ("g_h", "g_h", 1),
                ("g_h~2", "g h", 1),
                ("m-f", "m-f", 1)
            ]
        );
        assert_eq!(conv.relations["cfg_edge"], 3);
        assert_eq!(conv.total(), 6);
        // Read back through dred-core's reader, as `dredbench run` will.
        let mut symbols = dred_core::Symbols::new();
        let decls = ".decl cfg_edge(p: symbol, q: symbol)\n.input cfg_edge\n\
                     .decl loan_issued_at(o: symbol, l: symbol, p: symbol)\n\
                     .input loan_issued_at\n";
        let program =
            dred_core::load_program(&dred_core::SourceFile::new("decls", decls), &mut symbols)
                .expect("program");
        let edb = dred_core::io::read_facts_dir(&out, &program, &mut symbols).expect("reads");
        assert_eq!(edb.relations[0].len(), 3);
        assert_eq!(edb.relations[1].len(), 1);
    }

    #[test]
    fn conversion_errors_name_file_and_line() {
        let tmp = tempfile::tempdir().expect("tmp");
        let raw = tmp.path().join("raw");
        write(&raw.join("f/cfg_edge.facts"), "\"a\"\t\"b\"\nnot quoted\n");
        let e = convert(&raw, &tmp.path().join("out")).expect_err("malformed");
        assert!(
            e.to_string()
                .contains("cfg_edge.facts:2: expected a double-quoted value"),
            "{e}"
        );
        let raw = tmp.path().join("raw2");
        write(&raw.join("f/cfg_edge.facts"), "\"a\"\t\"b\"\n");
        write(&raw.join("g/cfg_edge.facts"), "\"a\"\n");
        let e = convert(&raw, &tmp.path().join("out2")).expect_err("arity");
        assert!(
            e.to_string()
                .contains("`cfg_edge` has 1 value(s) here but 2 at"),
            "{e}"
        );
    }
}
