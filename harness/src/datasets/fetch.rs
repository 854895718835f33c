//! Installing the larger real graphs on demand, from Debian packages, into the cache.
//!
//! Each fetch uses only the machine's package tools and never installs anything
//! system-wide: `apt-get download PKG` into a scratch directory, `dpkg-deb -x` to unpack it
//! there, a converter from the packaged file to a [`Graph`], then
//! [`write_dataset_with`] into `<cache>/<name>/`. The Debian
//! dependency graph instead reads `apt-cache dumpavail` (the package lists fetched by the
//! last `apt-get update`). The scratch directory is removed afterwards.
//!
//! Every converter is a pure function of the packaged bytes, tested on small inline
//! fixtures; `PROVENANCE` records the package version, the SHA-256 of what was converted and
//! of the resulting `edge.facts`, so a measurement can be pinned to its input.
//!
//! Pitfall: the Debian graph changes whenever the package lists do. Record the
//! `edge_facts_sha256` of `PROVENANCE` with any result computed on it.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::process::Command;

use super::graph::Graph;
use super::load::{sha256_hex, write_dataset_with, ExtraRelation, Provenance, Written};
use super::sqlite::{Database, SqlValue};
use super::{DatasetError, Fetcher};

/// Runs a command; its stdout on success, an error with its stderr otherwise.
fn run(cmd: &mut Command, what: &str) -> Result<Vec<u8>, DatasetError> {
    let program = cmd.get_program().to_string_lossy().into_owned();
    let out = cmd.output().map_err(|e| {
        DatasetError::Fetch(format!(
            "{what}: cannot run `{program}` ({e}); fetching needs Debian's package tools \
             (apt-get, apt-cache, dpkg-deb)"
        ))
    })?;
    if !out.status.success() {
        let stderr = String::from_utf8_lossy(&out.stderr);
        let hint = if program == "apt-get" || program == "apt-cache" {
            " (if the package is unknown, run `apt-get update` first)"
        } else {
            ""
        };
        return Err(DatasetError::Fetch(format!(
            "{what}: `{program}` failed ({}){hint}: {}",
            out.status,
            stderr.trim()
        )));
    }
    Ok(out.stdout)
}

/// A downloaded and unpacked Debian package.
struct Unpacked {
    root: PathBuf,
    version: String,
    deb_sha256: String,
    deb_name: String,
}

/// `apt-get download PKG` into `work`, then `dpkg-deb -x` into `work/root`.
fn download_and_unpack(package: &str, work: &Path) -> Result<Unpacked, DatasetError> {
    eprintln!("  apt-get download {package}");
    run(
        Command::new("apt-get")
            .arg("download")
            .arg(package)
            .current_dir(work),
        &format!("downloading {package}"),
    )?;
    let deb = std::fs::read_dir(work)
        .map_err(|e| DatasetError::io(work, e))?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|x| x == "deb"))
        .ok_or_else(|| DatasetError::Fetch(format!("apt-get download {package} left no .deb")))?;
    let bytes = std::fs::read(&deb).map_err(|e| DatasetError::io(&deb, e))?;
    let deb_sha256 = sha256_hex(&bytes);
    drop(bytes);
    let version = run(
        Command::new("dpkg-deb").arg("-f").arg(&deb).arg("Version"),
        "reading the package version",
    )?;
    let root = work.join("root");
    eprintln!("  dpkg-deb -x {}", deb.display());
    run(
        Command::new("dpkg-deb").arg("-x").arg(&deb).arg(&root),
        &format!("unpacking {package}"),
    )?;
    Ok(Unpacked {
        root,
        version: String::from_utf8_lossy(&version).trim().to_string(),
        deb_sha256,
        deb_name: deb
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default(),
    })
}

fn find_file(root: &Path, name: &str) -> Result<PathBuf, DatasetError> {
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let entries = std::fs::read_dir(&dir).map_err(|e| DatasetError::io(&dir, e))?;
        for e in entries.filter_map(Result::ok) {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.file_name().is_some_and(|n| n == name) {
                return Ok(p);
            }
        }
    }
    Err(DatasetError::Fetch(format!(
        "the package holds no file `{name}`; its layout has changed"
    )))
}

/// Fetches dataset `name` (a fetchable catalogue entry) into `dest`, replacing it.
pub(crate) fn fetch_into(
    name: &str,
    fetcher: Fetcher,
    dest: &Path,
) -> Result<Written, DatasetError> {
    let parent = dest
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    std::fs::create_dir_all(parent).map_err(|e| DatasetError::io(parent, e))?;
    let work = parent.join(format!(".fetch-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&work);
    std::fs::create_dir_all(&work).map_err(|e| DatasetError::io(&work, e))?;
    let result = fetch_in(name, fetcher, dest, &work);
    let _ = std::fs::remove_dir_all(&work);
    result
}

fn fetch_in(
    name: &str,
    fetcher: Fetcher,
    dest: &Path,
    work: &Path,
) -> Result<Written, DatasetError> {
    let mut prov = Provenance::default();
    prov.add("name", name);
    let deb_provenance = |prov: &mut Provenance, package: &str, u: &Unpacked| {
        prov.add("debian_package", package)
            .add("debian_version", &u.version)
            .add("deb_file", &u.deb_name)
            .add("deb_sha256", &u.deb_sha256);
    };
    let mut extras: Vec<ExtraRelation> = Vec::new();
    let graph = match fetcher {
        Fetcher::GoDb(ontology) => {
            let u = download_and_unpack("r-bioc-go.db", work)?;
            deb_provenance(&mut prov, "r-bioc-go.db", &u);
            let path = find_file(&u.root, "GO.sqlite")?;
            eprintln!("  reading {}", path.display());
            let db = Database::open(&path)?;
            let (graph, by_type) = go_graph(&db, ontology)?;
            extras.push(("part_of", go_part_of(&db, ontology)?));
            for (k, v) in go_metadata(&db)? {
                prov.add(&format!("go_{k}"), v);
            }
            let types: Vec<String> = by_type.iter().map(|(t, n)| format!("{t}={n}")).collect();
            prov.add("source_file", "GO.sqlite (AnnotationDbi GO.db)")
                .add(
                    "selection",
                    format!("table go_{ontology}_parents, child → parent, every relationship type"),
                )
                .add("relationship_types", types.join(", "))
                .add(
                    "licence",
                    "Gene Ontology: CC BY 4.0 (http://geneontology.org/docs/go-citation-policy/)",
                );
            graph
        }
        Fetcher::WordNet => {
            let u = download_and_unpack("wordnet-base", work)?;
            deb_provenance(&mut prov, "wordnet-base", &u);
            let noun = find_file(&u.root, "data.noun")?;
            let verb = find_file(&u.root, "data.verb")?;
            let read = |p: &Path| std::fs::read(p).map_err(|e| DatasetError::io(p, e));
            let (nb, vb) = (read(&noun)?, read(&verb)?);
            prov.add("data_noun_sha256", sha256_hex(&nb))
                .add("data_verb_sha256", sha256_hex(&vb))
                .add("selection", "noun and verb synsets; hypernym (@) and instance hypernym (@i) pointers, hyponym → hypernym; node = first lemma.pos.offset")
                .add("licence", "WordNet 3.0 licence (Princeton University, permissive, see /usr/share/doc/wordnet-base/copyright)");
            wordnet_graph(&String::from_utf8_lossy(&nb), &String::from_utf8_lossy(&vb))?
        }
        Fetcher::Celegans => {
            let u = download_and_unpack("r-cran-igraph", work)?;
            deb_provenance(&mut prov, "r-cran-igraph", &u);
            let path = find_file(&u.root, "celegansneural.gml.gz")?;
            let gz = std::fs::read(&path).map_err(|e| DatasetError::io(&path, e))?;
            let mut text = String::new();
            std::io::Read::read_to_string(&mut flate2::read::GzDecoder::new(&gz[..]), &mut text)
                .map_err(|e| DatasetError::io(&path, e))?;
            prov.add("source_file", "celegansneural.gml.gz (Newman's network data collection)")
                .add("gml_gz_sha256", sha256_hex(&gz))
                .add("selection", "directed synaptic edges, weights dropped, node = GML label")
                .add("licence", "from White et al. 1986 / Watts and Strogatz 1998, as shipped in igraph (GPL-2+ package)");
            gml_graph(&text)?
        }
        Fetcher::DebianDeps => {
            eprintln!("  apt-cache dumpavail");
            let text = run(
                Command::new("apt-cache").arg("dumpavail"),
                "reading the package lists",
            )?;
            if text.is_empty() {
                return Err(DatasetError::Fetch(
                    "apt-cache dumpavail printed nothing: run `apt-get update` first".into(),
                ));
            }
            prov.add(
                "source",
                "apt-cache dumpavail (package lists of the last apt-get update)",
            )
            .add("dumpavail_sha256", sha256_hex(&text))
            .add("dumpavail_bytes", text.len());
            for (file, date) in apt_list_dates() {
                prov.add("apt_list", format!("{file} ({date})"));
            }
            let text = String::from_utf8_lossy(&text);
            let lists = debian_lists(&text)?;
            prov.add("packages", lists.records)
                .add("selection", "Depends and Pre-Depends, every alternative of `a | b`, version and architecture qualifiers dropped; package → dependency")
                .add("package_selection", "package.facts: every package record's name; conflicts.facts: package → package named without a version constraint in its Conflicts or Breaks, other qualifiers dropped")
                .add("licence", "Debian archive metadata; not redistributed");
            extras.push((
                "package",
                lists.packages.into_iter().map(|p| vec![p]).collect(),
            ));
            extras.push((
                "conflicts",
                lists
                    .conflicts
                    .into_iter()
                    .map(|(a, b)| vec![a, b])
                    .collect(),
            ));
            lists.graph
        }
    };
    let fetched_at = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    prov.add("fetched_at_unix", fetched_at)
        .add("tool", concat!("dredbench ", env!("CARGO_PKG_VERSION")));
    write_dataset_with(dest, &graph, None, &prov, &extras)
}

/// The `Date:` of every `Release`/`InRelease` file apt has, to say which lists were read.
fn apt_list_dates() -> Vec<(String, String)> {
    let dir = Path::new("/var/lib/apt/lists");
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return out;
    };
    for e in entries.filter_map(Result::ok) {
        let name = e.file_name().to_string_lossy().into_owned();
        if !(name.ends_with("_InRelease") || name.ends_with("_Release")) {
            continue;
        }
        let text = std::fs::read_to_string(e.path()).unwrap_or_default();
        if let Some(date) = text.lines().find_map(|l| l.strip_prefix("Date:")) {
            out.push((name, date.trim().to_string()));
        }
    }
    out.sort();
    out
}

/// The `metadata` table of GO.sqlite (source date and URL of the ontology release).
fn go_metadata(db: &Database) -> Result<Vec<(String, String)>, DatasetError> {
    let mut out = Vec::new();
    for row in db.table("metadata")? {
        if let (Some(k), Some(v)) = (
            row.values.first().and_then(SqlValue::as_str),
            row.values.get(1).and_then(SqlValue::as_str),
        ) {
            if k.starts_with("GOSOURCE") {
                let key = k.trim_start_matches("GOSOURCE").to_ascii_lowercase();
                out.push((format!("source_{key}"), v.to_string()));
            }
        }
    }
    Ok(out)
}

/// The child → parent graph of one GO ontology (`cc`, `mf` or `bp`) from AnnotationDbi's
/// `GO.sqlite`: table `go_<ontology>_parents(_id, _parent_id, relationship_type)` joined to
/// `go_term(_id INTEGER PRIMARY KEY, go_id, …)`. Every relationship type is kept (for CC and
/// MF these are exactly `isa` and `part of`); the counts per type are returned.
pub fn go_graph(
    db: &Database,
    ontology: &str,
) -> Result<(Graph, BTreeMap<String, usize>), DatasetError> {
    let mut terms: HashMap<i64, String> = HashMap::new();
    for row in db.table("go_term")? {
        let Some(go_id) = row.values.get(1).and_then(SqlValue::as_str) else {
            return Err(DatasetError::Fetch(format!(
                "go_term row {} has no GO id",
                row.rowid
            )));
        };
        terms.insert(row.rowid, go_id.to_string());
    }
    let table = format!("go_{ontology}_parents");
    let mut g = Graph::new();
    let mut by_type = BTreeMap::new();
    for row in db.table(&table)? {
        let v = &row.values;
        let ids = (
            v.first().and_then(SqlValue::as_i64),
            v.get(1).and_then(SqlValue::as_i64),
        );
        let (Some(child), Some(parent)) = ids else {
            return Err(DatasetError::Fetch(format!(
                "{table} row {}: expected two integer term ids",
                row.rowid
            )));
        };
        let name = |id: i64| {
            terms.get(&id).ok_or_else(|| {
                DatasetError::Fetch(format!("{table} row {}: unknown term id {id}", row.rowid))
            })
        };
        g.add_named(name(child)?, name(parent)?);
        let ty = v
            .get(2)
            .and_then(SqlValue::as_str)
            .unwrap_or("?")
            .to_string();
        *by_type.entry(ty).or_insert(0) += 1;
    }
    Ok((g, by_type))
}

/// The `part of` edges of one GO ontology (child → parent), a subset of [`go_graph`]'s: the
/// `part_of` relation of the GO programs.
pub fn go_part_of(db: &Database, ontology: &str) -> Result<Vec<Vec<String>>, DatasetError> {
    let mut terms: HashMap<i64, String> = HashMap::new();
    for row in db.table("go_term")? {
        if let Some(go_id) = row.values.get(1).and_then(SqlValue::as_str) {
            terms.insert(row.rowid, go_id.to_string());
        }
    }
    let table = format!("go_{ontology}_parents");
    let mut out = Vec::new();
    for row in db.table(&table)? {
        let v = &row.values;
        if v.get(2).and_then(SqlValue::as_str) != Some("part of") {
            continue;
        }
        let ends = (
            v.first()
                .and_then(SqlValue::as_i64)
                .and_then(|i| terms.get(&i)),
            v.get(1)
                .and_then(SqlValue::as_i64)
                .and_then(|i| terms.get(&i)),
        );
        let (Some(child), Some(parent)) = ends else {
            return Err(DatasetError::Fetch(format!(
                "{table} row {}: expected two known term ids",
                row.rowid
            )));
        };
        out.push(vec![child.clone(), parent.clone()]);
    }
    Ok(out)
}

/// The hypernym graph of WordNet 3.0 from the `data.noun` and `data.verb` files: an edge
/// from each synset to each of its hypernyms (`@`) and instance hypernyms (`@i`). A synset is
/// named `<first lemma>.<pos>.<offset>`, e.g. `dog.n.02084071`. Lines starting with a space
/// (the licence header) are skipped; any other malformed line is an error naming the file
/// and line.
pub fn wordnet_graph(noun: &str, verb: &str) -> Result<Graph, DatasetError> {
    struct Synset<'a> {
        pos: char,
        offset: &'a str,
        pointers: Vec<(&'a str, char)>,
    }
    let mut names: HashMap<(char, &str), String> = HashMap::new();
    let mut synsets = Vec::new();
    for (file, pos, text) in [("data.noun", 'n', noun), ("data.verb", 'v', verb)] {
        for (i, line) in text.lines().enumerate() {
            if line.starts_with(' ') || line.trim().is_empty() {
                continue;
            }
            let bad = |why: &str| DatasetError::Fetch(format!("{file}:{}: {why}", i + 1));
            let fields: Vec<&str> = line.split(" | ").next().unwrap_or("").split(' ').collect();
            let get = |k: usize| fields.get(k).copied().ok_or_else(|| bad("line ends early"));
            let offset = get(0)?;
            let words = usize::from_str_radix(get(3)?, 16).map_err(|_| bad("bad word count"))?;
            let lemma = get(4)?;
            let mut at = 4 + 2 * words;
            let ptrs: usize = get(at)?.parse().map_err(|_| bad("bad pointer count"))?;
            at += 1;
            let mut pointers = Vec::new();
            for _ in 0..ptrs {
                let symbol = get(at)?;
                let target = get(at + 1)?;
                let tpos = get(at + 2)?.chars().next().unwrap_or('?');
                if symbol == "@" || symbol == "@i" {
                    pointers.push((target, tpos));
                }
                at += 4;
            }
            names.insert((pos, offset), format!("{lemma}.{pos}.{offset}"));
            synsets.push(Synset {
                pos,
                offset,
                pointers,
            });
        }
    }
    let mut g = Graph::new();
    for s in &synsets {
        let from = &names[&(s.pos, s.offset)];
        for &(target, tpos) in &s.pointers {
            let to = names.get(&(tpos, target)).ok_or_else(|| {
                DatasetError::Fetch(format!(
                    "synset {from}: hypernym {tpos} {target} is not in data.noun or data.verb"
                ))
            })?;
            g.add_named(from, to);
        }
    }
    Ok(g)
}

/// The directed graph of a GML file (as in Newman's network data): nodes named by their
/// `label` (their `id` when they have none), one edge per `edge [ source … target … ]`;
/// other attributes (weights) are dropped.
pub fn gml_graph(text: &str) -> Result<Graph, DatasetError> {
    // Tokens: `[`, `]`, quoted strings, and bare words/numbers.
    #[derive(PartialEq)]
    enum Tok {
        Open,
        Close,
        Atom(String),
    }
    let mut tokens: Vec<Tok> = Vec::new();
    let mut chars = text.chars().peekable();
    while let Some(&c) = chars.peek() {
        if c.is_whitespace() {
            chars.next();
        } else if c == '[' || c == ']' {
            tokens.push(if c == '[' { Tok::Open } else { Tok::Close });
            chars.next();
        } else if c == '"' {
            chars.next();
            let mut s = String::new();
            loop {
                match chars.next() {
                    Some('"') => break,
                    Some(ch) => s.push(ch),
                    None => return Err(DatasetError::Fetch("GML: unterminated string".into())),
                }
            }
            tokens.push(Tok::Atom(s));
        } else {
            let mut s = String::new();
            while let Some(&ch) = chars.peek() {
                if ch.is_whitespace() || ch == '[' || ch == ']' {
                    break;
                }
                s.push(ch);
                chars.next();
            }
            tokens.push(Tok::Atom(s));
        }
    }
    // Walk key/value pairs; a `[` opens a block named by the key before it.
    let mut stack: Vec<(String, HashMap<String, String>)> = vec![("".into(), HashMap::new())];
    let mut labels: HashMap<String, String> = HashMap::new();
    let mut edges: Vec<(String, String)> = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        if tokens[i] == Tok::Close {
            let (key, fields) = stack
                .pop()
                .filter(|_| !stack.is_empty())
                .ok_or_else(|| DatasetError::Fetch("GML: unbalanced `]`".into()))?;
            match key.as_str() {
                "node" => {
                    let id = fields
                        .get("id")
                        .ok_or_else(|| DatasetError::Fetch("GML: node without id".into()))?;
                    let label = fields.get("label").unwrap_or(id);
                    labels.insert(id.clone(), label.clone());
                }
                "edge" => match (fields.get("source"), fields.get("target")) {
                    (Some(s), Some(t)) => edges.push((s.clone(), t.clone())),
                    _ => {
                        return Err(DatasetError::Fetch(
                            "GML: edge without source or target".into(),
                        ))
                    }
                },
                _ => {}
            }
            i += 1;
            continue;
        }
        let Tok::Atom(key) = &tokens[i] else {
            return Err(DatasetError::Fetch("GML: `[` without a key".into()));
        };
        match tokens.get(i + 1) {
            Some(Tok::Open) => stack.push((key.clone(), HashMap::new())),
            Some(Tok::Atom(value)) => {
                if let Some(top) = stack.last_mut() {
                    top.1.insert(key.clone(), value.clone());
                }
            }
            _ => {
                return Err(DatasetError::Fetch(format!(
                    "GML: key `{key}` without a value"
                )))
            }
        }
        i += 2;
    }
    if stack.len() != 1 {
        return Err(DatasetError::Fetch("GML: unclosed `[`".into()));
    }
    let mut g = Graph::new();
    for (s, t) in edges {
        let name = |id: &str| {
            labels.get(id).cloned().ok_or_else(|| {
                DatasetError::Fetch(format!("GML: edge names node {id}, which is not declared"))
            })
        };
        g.add_named(&name(&s)?, &name(&t)?);
    }
    Ok(g)
}

/// The package dependency graph of Debian package records (the output of `apt-cache
/// dumpavail`, or a `Packages` file): an edge from each package to every package named in
/// its `Depends` and `Pre-Depends`, every alternative of `a | b` included, version
/// constraints `(>= 1)`, architecture qualifiers `:any` and restriction lists `[…]`, `<…>`
/// dropped. Returns the graph and the number of package records read.
pub fn debian_graph(text: &str) -> Result<(Graph, usize), DatasetError> {
    let lists = debian_lists(text)?;
    Ok((lists.graph, lists.records))
}

/// What the installability programs read from Debian package records.
#[derive(Debug, Default)]
pub struct DebianLists {
    /// Package → dependency, as [`debian_graph`].
    pub graph: Graph,
    /// The number of package records read.
    pub records: usize,
    /// Every package record's name (a name with several records once).
    pub packages: Vec<String>,
    /// Package → package named without a version constraint in its `Conflicts` or `Breaks`,
    /// every alternative, other qualifiers dropped as for dependencies.
    pub conflicts: Vec<(String, String)>,
}

/// [`debian_graph`] with the package names and the `Conflicts`/`Breaks` pairs.
pub fn debian_lists(text: &str) -> Result<DebianLists, DatasetError> {
    let mut out = DebianLists::default();
    let mut package: Option<String> = None;
    // (is a conflict field, value) of the record's fields read so far.
    let mut fields: Vec<(bool, String)> = Vec::new();
    let mut current: Option<usize> = None; // index into fields of a continued field
    let flush =
        |package: &mut Option<String>, fields: &mut Vec<(bool, String)>, out: &mut DebianLists| {
            if let Some(p) = package.take() {
                out.records += 1;
                out.packages.push(p.clone());
                for (conflict, field) in fields.iter() {
                    for clause in field.split(',') {
                        for alt in clause.split('|') {
                            let name = strip_qualifiers(alt);
                            // A versioned conflict (`Breaks: x (<< 2)`) mostly names versions
                            // the archive no longer has, and versions are not modelled: only
                            // unversioned ones count.
                            if name.is_empty() || (*conflict && alt.contains('(')) {
                                continue;
                            }
                            if *conflict {
                                out.conflicts.push((p.clone(), name));
                            } else {
                                out.graph.add_named(&p, &name);
                            }
                        }
                    }
                }
            }
            fields.clear();
        };
    for line in text.lines() {
        if line.trim().is_empty() {
            flush(&mut package, &mut fields, &mut out);
            current = None;
            continue;
        }
        if line.starts_with([' ', '\t']) {
            if let Some(i) = current {
                fields[i].1.push(' ');
                fields[i].1.push_str(line.trim());
            }
            continue;
        }
        current = None;
        let Some((key, value)) = line.split_once(':') else {
            continue;
        };
        let conflict = match key {
            "Package" => {
                package = Some(value.trim().to_string());
                continue;
            }
            "Depends" | "Pre-Depends" => false,
            "Conflicts" | "Breaks" => true,
            _ => continue,
        };
        fields.push((conflict, value.trim().to_string()));
        current = Some(fields.len() - 1);
    }
    flush(&mut package, &mut fields, &mut out);
    out.packages.sort();
    out.packages.dedup();
    out.conflicts.sort();
    out.conflicts.dedup();
    Ok(out)
}

/// `name:any (>= 1) [amd64] <!nocheck>` → `name`.
fn strip_qualifiers(alt: &str) -> String {
    let mut s = String::new();
    // Inside a group, everything up to its closer is dropped (`>=` inside `( )` included).
    let mut closer: Option<char> = None;
    for c in alt.chars() {
        match (closer, c) {
            (None, '(') => closer = Some(')'),
            (None, '[') => closer = Some(']'),
            (None, '<') => closer = Some('>'),
            (None, _) => s.push(c),
            (Some(end), _) if c == end => closer = None,
            (Some(_), _) => {}
        }
    }
    let s = s.trim();
    s.split(':').next().unwrap_or("").trim().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wordnet_hypernyms_of_nouns_and_verbs() {
        let noun = "  1 This software and database is being provided to you\n\
00001740 03 n 01 entity 0 003 ~ 00001930 n 0000 ~ 00002137 n 0000 ~ 04431553 n 0000 | that which exists\n\
00001930 03 n 01 physical_entity 0 001 @ 00001740 n 0000 | an entity\n\
00002137 03 n 02 abstraction 0 abstract_entity 0 002 @ 00001740 n 0000 @i 00001930 n 0000 | a concept\n";
        let verb = "00001740 29 v 04 breathe 0 take_a_breath 0 respire 0 suspire 3 001 @ 00002000 v 0000 02 + 08 00 + 02 00 | draw air\n\
00002000 29 v 01 live 0 000 01 + 02 00 | be alive\n";
        let g = wordnet_graph(noun, verb).expect("parses");
        let edges = g.named_edges_sorted();
        assert_eq!(
            edges,
            vec![
                ("abstraction.n.00002137", "entity.n.00001740"),
                ("abstraction.n.00002137", "physical_entity.n.00001930"),
                ("breathe.v.00001740", "live.v.00002000"),
                ("physical_entity.n.00001930", "entity.n.00001740"),
            ]
        );
    }

    #[test]
    fn wordnet_errors_name_file_and_line() {
        let e = wordnet_graph("00001740 03 n zz entity\n", "").expect_err("bad count");
        assert!(e.to_string().contains("data.noun:1:"), "{e}");
        let e =
            wordnet_graph("00001 03 n 01 x 0 001 @ 00009 n 0000 | g\n", "").expect_err("dangling");
        assert!(e.to_string().contains("00009"), "{e}");
    }

    #[test]
    fn gml_nodes_by_label_and_directed_edges() {
        let text = r#"Creator "Mark Newman"
graph
[
  directed 1
  node [ id 0 label "1" ]
  node
  [
    id 1
    label "51"
  ]
  node [ id 2 ]
  edge [ source 0 target 1 value 3 ]
  edge [ source 1 target 2 value 1 ]
  edge [ source 0 target 1 value 1 ]
]"#;
        let g = gml_graph(text).expect("parses");
        assert_eq!(g.named_edges_sorted(), vec![("1", "51"), ("51", "2")]);
        assert!(gml_graph("graph [ edge [ source 0 target 9 ] ]").is_err());
        assert!(gml_graph("graph [ node [ id 0 ]").is_err());
        assert!(gml_graph("graph ]").is_err());
    }

    #[test]
    fn debian_depends_and_pre_depends_with_alternatives() {
        let text = "Package: a\nVersion: 1\nDepends: b (>= 1.0), c:any | d [amd64],\n e <!nocheck>\nPre-Depends: f\nDescription: x\n y\n\n\
Package: b\nDepends: libc6 (>= 2.34)\n\nPackage: lonely\n";
        let (g, records) = debian_graph(text).expect("parses");
        assert_eq!(records, 3);
        assert_eq!(
            g.named_edges_sorted(),
            vec![
                ("a", "b"),
                ("a", "c"),
                ("a", "d"),
                ("a", "e"),
                ("a", "f"),
                ("b", "libc6"),
            ]
        );
    }

    fn edges_contain(g: &Graph, a: &str, b: &str) -> bool {
        g.named_edges_sorted().contains(&(a, b))
    }

    #[test]
    fn debian_packages_and_conflicts() {
        let text = "Package: a\nDepends: b\nConflicts: c (<< 2), d:any | e\nBreaks: f\n\n\
Package: b\nBreaks: a (<= 0.9), g\n\nPackage: a\nDepends: b\n";
        let lists = debian_lists(text).expect("parses");
        assert_eq!(lists.records, 3);
        assert_eq!(lists.packages, vec!["a", "b"]);
        let pairs: Vec<(&str, &str)> = lists
            .conflicts
            .iter()
            .map(|(a, b)| (a.as_str(), b.as_str()))
            .collect();
        assert_eq!(pairs, vec![("a", "d"), ("a", "e"), ("a", "f"), ("b", "g")]);
        assert_eq!(lists.graph.named_edges_sorted(), vec![("a", "b")]);
    }

    /// Built by `harness/tests/fixtures/go_mini.sql` (512-byte pages, an overflow chain).
    const GO_MINI: &[u8] = include_bytes!("../../tests/fixtures/go_mini.sqlite");

    #[test]
    fn go_parents_from_a_sqlite_fixture() {
        let db = Database::from_bytes(GO_MINI.to_vec()).expect("opens");
        let terms = db.table("go_term").expect("go_term");
        assert_eq!(terms.len(), 300);
        let long = terms.iter().find(|r| r.rowid == 35).expect("term 5");
        assert_eq!(
            long.values[0],
            SqlValue::Null,
            "INTEGER PRIMARY KEY is the rowid"
        );
        assert_eq!(long.values[1].as_str(), Some("GO:0000005"));
        let def = long.values[4].as_str().expect("definition");
        assert_eq!(def.len(), 3200, "read through the overflow chain");
        assert!(def.starts_with("long definition long definition"));
        let (g, by_type) = go_graph(&db, "cc").expect("graph");
        assert_eq!(g.edge_count(), 299 + 100);
        assert_eq!(by_type.get("isa"), Some(&299));
        assert_eq!(by_type.get("part of"), Some(&100));
        let part_of = go_part_of(&db, "cc").expect("part of");
        assert_eq!(part_of.len(), 100);
        assert!(part_of.iter().all(|r| edges_contain(&g, &r[0], &r[1])));
        let edges = g.named_edges_sorted();
        assert!(edges.contains(&("GO:0000003", "GO:0000001")));
        assert!(edges.contains(&("GO:0000003", "GO:0000002")));
        assert!(edges.contains(&("GO:0000300", "GO:0000150")));
        let meta = go_metadata(&db).expect("metadata");
        assert!(meta.contains(&("source_date".into(), "2022-07-01".into())));
        assert!(matches!(
            go_graph(&db, "bp"),
            Err(DatasetError::Sqlite(
                super::super::sqlite::SqliteError::NoTable(_)
            ))
        ));
    }
}
