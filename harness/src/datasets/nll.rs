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
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use super::load::Provenance;
use super::registry::{self, crate_file_sha256, fetch_err, CrateWritten, RegistryCrate};
pub use super::registry::{cargo_home, find_in_registry, CrateSpec, Installed};
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

/// The install directory of a crate version under the cache: `<cache>/rust-nll/<crate>-<v>`.
pub fn install_dir(loc: &Locations, krate: &str, version: &str) -> PathBuf {
    loc.cache.join(CACHE_DIR).join(format!("{krate}-{version}"))
}

const CACHE_DIR: &str = "rust-nll";
const MARKER: &str = "cfg_edge.facts";

/// Every installed `rust-nll` dataset in the cache, by name.
pub fn installed(loc: &Locations) -> Vec<Installed> {
    registry::installed_under(loc, CACHE_DIR, SCHEME, MARKER)
}

/// The facts directory of an installed `rust-nll:CRATE[@VERSION]` (the highest installed
/// version the spec selects). Never compiles anything.
pub fn resolve_installed(name: &str, loc: &Locations) -> Result<PathBuf, DatasetError> {
    registry::resolve_installed_under(name, loc, CACHE_DIR, SCHEME, MARKER)
}

/// Fetches `rust-nll:CRATE[@VERSION]`: compiles the crate from the local registry with
/// `-Znll-facts`, converts the facts and installs them into `dest` (default
/// `<cache>/rust-nll/<crate>-<version>`), replacing what is there. Progress on stderr.
pub fn fetch(
    name: &str,
    loc: &Locations,
    dest: Option<&Path>,
) -> Result<CrateWritten, DatasetError> {
    let spec = CrateSpec::parse(name, SCHEME)?;
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
    let label = format!("{}-{}", krate.krate, krate.version);
    registry::with_scratch(&dest, &label, |work| fetch_in(&krate, &home, &dest, work))
}

fn fetch_in(
    krate: &RegistryCrate,
    home: &Path,
    dest: &Path,
    work: &Path,
) -> Result<CrateWritten, DatasetError> {
    let raw = work.join("nll");
    let flags = [
        "-Znll-facts".to_string(),
        format!("-Znll-facts-dir={}", raw.display()),
    ];
    let compiled = registry::compile_crate(krate, work, &flags, "-Znll-facts")?;
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
    let write =
        |p: PathBuf, text: &str| std::fs::write(&p, text).map_err(|e| DatasetError::io(&p, e));
    registry::install_renamed(dest, |tmp| {
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
            .add("source_tree_sha256", &compiled.source_sha256)
            .add("rustc_version", registry::one_line(&compiled.rustc_version))
            .add("cargo_version", compiled.cargo_version.trim())
            .add("command", &compiled.command)
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
            .add("fetched_at_unix", registry::now_unix())
            .add("tool", concat!("dredbench ", env!("CARGO_PKG_VERSION")));
        write(tmp.join("PROVENANCE"), &prov.render())?;
        Ok(CrateWritten {
            dir: dest.to_path_buf(),
            facts: dest.join("facts"),
            name,
            functions: conv.functions.len(),
            total_facts: conv.total(),
            relations: conv.relations.clone(),
            dataset_hash: hash,
        })
    })
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
