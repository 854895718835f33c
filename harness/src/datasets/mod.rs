//! Datasets by name: the shipped ones, the ones fetched on demand into a cache, generated
//! graphs, and imported edge lists — each resolved to a directory of `.facts` files that
//! `dredbench run --facts` (and `dred_core::io::read_facts_dir`) reads.
//!
//! Every graph dataset holds `edge(x: symbol, y: symbol)` in `edge.facts`, and two one-line
//! files naming one node each:
//!
//! - `source.facts`, `source(x: symbol)`, for single-source reachability
//!   (`datasets/programs/reach.dl`, `magic_path_source.dl`): the node of highest out-degree,
//!   ties broken by the smallest name in byte order ([`Graph::default_source`]; the seed
//!   example's is `a`; a chain's, grid's and layered DAG's is the root `n0`);
//! - `root.facts`, `root(x: symbol)`, for reachability towards a root
//!   (`datasets/programs/reach_root.dl`: every node from which a path leads to the root): among
//!   the nodes with predecessors and no successors, the one the most nodes reach, ties by
//!   name; without such a node, the node of highest in-degree ([`Graph::default_root`]; the
//!   seed's is `d`, GO's `all`, WordNet's `entity.n.00001740`, a chain's its last node).
//!
//! Both are empty for a graph without edges. Beside the facts directory, `PROVENANCE` says
//! where the data came from (`source_node`, `root_node` among its entries).
//!
//! A dataset the tool wrote into the cache (fetched, generated or imported) before
//! `root.facts` existed gets it the next time [`resolve_in`] resolves it: computed from
//! `edge.facts` and written atomically (its `PROVENANCE` keeps no `root_node`). Shipped
//! directories and directories given by the user are never written to.
//!
//! Names ([`resolve`]):
//!
//! | name | what | where |
//! |---|---|---|
//! | `seed`, `go-cc`, `go-mf` | shipped in the repository | `datasets/<name>/facts` |
//! | `go-bp`, `wordnet`, `debian-deps`, `celegans` | fetched by `dredbench datasets fetch NAME` | `<cache>/<name>/facts` |
//! | `gen:KIND?key=value&…` | generated on first use, deterministic by seed ([`GenSpec`]) | `<cache>/generated/<spec>/facts` |
//! | `snap:PATH` | a SNAP-style edge list, converted on first use | `<cache>/imported/<stem>-<hash>/facts` |
//! | `rust-nll:CRATE[@VERSION]` | borrow-check facts of a crate of the local cargo registry, by `dredbench datasets fetch` ([`nll`]; not a graph) | `<cache>/rust-nll/<crate>-<version>/facts` |
//! | `rust-mir:CRATE[@VERSION]` | points-to facts of a crate of the local cargo registry, read from its MIR ([`mir`]; not a graph) | `<cache>/rust-mir/<crate>-<version>/facts` |
//! | a directory | used as is (its `facts/` subdirectory if it has one) | — |
//!
//! The cache is `$DREDBENCH_CACHE`, else `$XDG_CACHE_HOME/dredbench`, else
//! `~/.cache/dredbench`; the shipped datasets are found at `$DREDBENCH_DATASETS`, else at the
//! `datasets/` directory of the source tree the binary was built from. Nothing is ever
//! downloaded by [`resolve`]: a fetchable dataset that is not installed is an error telling
//! which command installs it.

pub mod fetch;
pub mod generate;
pub mod graph;
pub mod load;
pub mod mir;
pub mod nll;
pub mod registry;
pub mod rng;
pub mod shape;
pub mod sqlite;
pub mod workload;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

pub use generate::{GenKind, GenSpec};
pub use graph::Graph;
pub use load::{LineError, Provenance, Written};

/// Why a dataset could not be resolved, read, generated or fetched.
#[derive(Debug, thiserror::Error)]
pub enum DatasetError {
    /// The file system refused.
    #[error("{path}: {source}")]
    Io {
        /// The path involved.
        path: String,
        /// The OS error.
        source: std::io::Error,
    },
    /// Malformed `.facts` or program text, already rendered with `file:line:col`.
    #[error("{0}")]
    Invalid(String),
    /// A malformed line of an edge list, located at `file:line`.
    #[error(transparent)]
    Line(#[from] LineError),
    /// The name is none of the forms [`resolve`] accepts.
    #[error("unknown dataset `{0}`: not a catalogue name ({names}), a `gen:` spec, `snap:PATH`, `rust-nll:CRATE`, `rust-mir:CRATE` or a directory", names = catalogue_names())]
    Unknown(String),
    /// A fetchable dataset that is not in the cache yet.
    #[error("dataset `{name}` is not installed in {cache}: run `dredbench datasets fetch {name}`")]
    NotInstalled {
        /// The dataset.
        name: String,
        /// The cache directory searched.
        cache: String,
    },
    /// A bad generator spec.
    #[error("{0}")]
    Spec(String),
    /// Downloading or converting a package failed.
    #[error("{0}")]
    Fetch(String),
    /// A database file could not be read.
    #[error(transparent)]
    Sqlite(#[from] sqlite::SqliteError),
}

impl DatasetError {
    pub(crate) fn io(path: &Path, source: std::io::Error) -> Self {
        DatasetError::Io {
            path: path.display().to_string(),
            source,
        }
    }
}

/// How a fetchable dataset is made (see [`fetch()`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fetcher {
    /// One ontology (`cc`, `mf`, `bp`) of the Gene Ontology, from Debian's `r-bioc-go.db`.
    GoDb(&'static str),
    /// WordNet 3.0 noun and verb hypernyms, from Debian's `wordnet-base`.
    WordNet,
    /// The Debian package dependency graph, from `apt-cache dumpavail`.
    DebianDeps,
    /// The C. elegans neural network, from Debian's `r-cran-igraph`.
    Celegans,
}

/// A named dataset of the catalogue.
#[derive(Clone, Copy, Debug)]
pub struct Entry {
    /// The name used on the command line and by [`resolve`].
    pub name: &'static str,
    /// The facts directory relative to the shipped `datasets/` directory, if shipped.
    pub shipped: Option<&'static str>,
    /// How to (re)make it from Debian packages, if it can be fetched.
    pub fetcher: Option<Fetcher>,
    /// One line on what it is.
    pub description: &'static str,
    /// Its licence, in short (details in `datasets/README.md`).
    pub licence: &'static str,
    /// Edge count as measured when the catalogue was written (the live count is in
    /// `PROVENANCE`).
    pub approx_edges: usize,
}

/// Every named dataset: shipped first, then fetchable.
pub const CATALOGUE: &[Entry] = &[
    Entry {
        name: "seed",
        shipped: Some("seed/facts"),
        fetcher: None,
        description: "the worked example of SPEC §6 (a→b, b↔c, …, cycle u→v→w→u)",
        licence: "part of this project",
        approx_edges: 9,
    },
    Entry {
        name: "go-cc",
        shipped: Some("go-cc/facts"),
        fetcher: Some(Fetcher::GoDb("cc")),
        description: "Gene Ontology cellular component, child → parent (is_a, part_of)",
        licence: "CC BY 4.0",
        approx_edges: 6_838,
    },
    Entry {
        name: "go-mf",
        shipped: Some("go-mf/facts"),
        fetcher: Some(Fetcher::GoDb("mf")),
        description: "Gene Ontology molecular function, child → parent (is_a, part_of)",
        licence: "CC BY 4.0",
        approx_edges: 13_770,
    },
    Entry {
        name: "go-bp",
        shipped: None,
        fetcher: Some(Fetcher::GoDb("bp")),
        description: "Gene Ontology biological process, child → parent (is_a, part_of, regulates)",
        licence: "CC BY 4.0",
        approx_edges: 65_108,
    },
    Entry {
        name: "wordnet",
        shipped: None,
        fetcher: Some(Fetcher::WordNet),
        description: "WordNet 3.0 noun and verb hypernyms (Debian wordnet-base)",
        licence: "WordNet 3.0 licence",
        approx_edges: 97_666,
    },
    Entry {
        name: "debian-deps",
        shipped: None,
        fetcher: Some(Fetcher::DebianDeps),
        description: "Debian Depends/Pre-Depends graph of the apt lists (changes with them)",
        licence: "Debian metadata",
        approx_edges: 283_000,
    },
    Entry {
        name: "celegans",
        shipped: None,
        fetcher: Some(Fetcher::Celegans),
        description: "C. elegans neural network, directed (Debian r-cran-igraph)",
        licence: "research data (igraph)",
        approx_edges: 2_345,
    },
];

fn catalogue_names() -> String {
    CATALOGUE
        .iter()
        .map(|e| e.name)
        .collect::<Vec<_>>()
        .join(", ")
}

/// The catalogue entry of a name.
pub fn entry(name: &str) -> Option<&'static Entry> {
    CATALOGUE.iter().find(|e| e.name == name)
}

/// Where shipped datasets are and where fetched, generated and imported ones go.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Locations {
    /// The shipped `datasets/` directory.
    pub shipped: PathBuf,
    /// The cache directory (created on demand).
    pub cache: PathBuf,
}

impl Locations {
    /// From the environment: `$DREDBENCH_DATASETS` (else the source tree's `datasets/`) and
    /// `$DREDBENCH_CACHE` (else `$XDG_CACHE_HOME/dredbench`, else `~/.cache/dredbench`,
    /// else `.dredbench-cache` in the working directory).
    pub fn from_env() -> Locations {
        Locations {
            shipped: default_shipped(),
            cache: default_cache(),
        }
    }

    /// Like [`Locations::from_env`] but with the cache given, when it is.
    pub fn with_cache(cache: Option<&Path>) -> Locations {
        let mut l = Locations::from_env();
        if let Some(c) = cache {
            l.cache = c.to_path_buf();
        }
        l
    }

    /// The directory a fetched dataset is installed in (`<cache>/<name>`).
    pub fn fetched_dir(&self, name: &str) -> PathBuf {
        self.cache.join(name)
    }

    /// The directory a generated dataset is written to (`<cache>/generated/<spec>`).
    pub fn generated_dir(&self, spec: &GenSpec) -> PathBuf {
        self.cache.join("generated").join(spec.dir_name())
    }
}

fn env_path(var: &str) -> Option<PathBuf> {
    std::env::var_os(var)
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
}

fn default_shipped() -> PathBuf {
    env_path("DREDBENCH_DATASETS").unwrap_or_else(|| {
        let built = Path::new(env!("CARGO_MANIFEST_DIR")).join("../datasets");
        if built.is_dir() {
            built.canonicalize().unwrap_or(built)
        } else {
            PathBuf::from("datasets")
        }
    })
}

fn default_cache() -> PathBuf {
    if let Some(p) = env_path("DREDBENCH_CACHE") {
        return p;
    }
    if let Some(p) = env_path("XDG_CACHE_HOME") {
        return p.join("dredbench");
    }
    if let Some(home) = env_path("HOME") {
        return home.join(".cache").join("dredbench");
    }
    PathBuf::from(".dredbench-cache")
}

/// Resolves a dataset name to a directory of `.facts` files, with the locations of
/// [`Locations::from_env`]. See [`resolve_in`].
pub fn resolve(name: &str) -> Result<PathBuf, DatasetError> {
    resolve_in(name, &Locations::from_env())
}

/// Resolves a dataset name to a directory of `.facts` files (at least `edge.facts`; graph
/// datasets also `source.facts` and `root.facts`), ready for `dredbench run --facts`. A
/// directory the tool owns (fetched, generated or imported) that lacks `root.facts` gets it
/// before it is returned (see the module docs); shipped and user-given directories are
/// returned as they are:
///
/// - a catalogue name: the shipped directory, or the installed copy in the cache — a
///   fetchable dataset that is not installed is [`DatasetError::NotInstalled`] (this function
///   never uses the network);
/// - `gen:KIND?…`: the generated graph, written to the cache on first use (deterministic, so
///   a cached copy is always the same graph; concurrent first uses are safe);
/// - `snap:PATH`: the edge list converted on first use, cached under its name and content hash
///   (malformed lines are [`DatasetError::Line`] errors at `file:line`);
/// - an existing directory: its `facts/` subdirectory if it has one, else itself.
pub fn resolve_in(name: &str, loc: &Locations) -> Result<PathBuf, DatasetError> {
    if let Some(e) = entry(name) {
        if let Some(rel) = e.shipped {
            let dir = loc.shipped.join(rel);
            if dir.is_dir() {
                return Ok(dir);
            }
        }
        let dir = loc.fetched_dir(name).join("facts");
        if dir.join("edge.facts").is_file() {
            // Installed by `dredbench datasets fetch`, maybe before `root.facts` existed.
            ensure_root(&dir)?;
            return Ok(dir);
        }
        if e.shipped.is_some() {
            return Err(DatasetError::Invalid(format!(
                "shipped dataset `{name}` not found under {} (set DREDBENCH_DATASETS to the \
                 repository's datasets/ directory, or run `dredbench datasets fetch {name}`)",
                loc.shipped.display()
            )));
        }
        return Err(DatasetError::NotInstalled {
            name: name.to_string(),
            cache: loc.cache.display().to_string(),
        });
    }
    if nll::is_nll_name(name) {
        return nll::resolve_installed(name, loc);
    }
    if mir::is_mir_name(name) {
        return mir::resolve_installed(name, loc);
    }
    if name.starts_with("gen:") {
        let spec = GenSpec::parse(name).map_err(DatasetError::Spec)?;
        return Ok(generate_cached(&spec, loc)?.facts);
    }
    if let Some(path) = name.strip_prefix("snap:") {
        return import_cached(Path::new(path), loc);
    }
    let p = Path::new(name);
    if p.is_dir() {
        let facts = p.join("facts");
        return Ok(if facts.is_dir() {
            facts
        } else {
            p.to_path_buf()
        });
    }
    Err(DatasetError::Unknown(name.to_string()))
}

static UNIQUE: AtomicUsize = AtomicUsize::new(0);

/// A scratch name unique within this process and among processes.
pub(crate) fn unique_suffix() -> String {
    format!(
        "{}-{}",
        std::process::id(),
        UNIQUE.fetch_add(1, Ordering::Relaxed)
    )
}

/// Writes a dataset under a unique temporary name, then renames it to `dir` unless another
/// writer got there first (then the other copy, identical by construction, is kept).
fn publish(
    dir: &Path,
    make: impl FnOnce(&Path) -> Result<Written, DatasetError>,
) -> Result<PathBuf, DatasetError> {
    let facts = dir.join("facts");
    if facts.join("edge.facts").is_file() {
        return Ok(facts);
    }
    let parent = dir.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(parent).map_err(|e| DatasetError::io(parent, e))?;
    let leaf = dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = parent.join(format!(".{leaf}.new{}", unique_suffix()));
    make(&tmp)?;
    if std::fs::rename(&tmp, dir).is_err() {
        // Another process published the same dataset meanwhile.
        let _ = std::fs::remove_dir_all(&tmp);
        if !facts.join("edge.facts").is_file() {
            return Err(DatasetError::Invalid(format!(
                "could not publish {}",
                dir.display()
            )));
        }
    }
    Ok(facts)
}

/// Generates `spec` into the cache unless it is there already; returns what is there, with
/// `root.facts` added first if the cached copy predates it (`root` is then read from that
/// file, not from `PROVENANCE`).
pub fn generate_cached(spec: &GenSpec, loc: &Locations) -> Result<Written, DatasetError> {
    let dir = loc.generated_dir(spec);
    let facts = publish(&dir, |tmp| generate_into(spec, tmp))?;
    // A copy cached before `root.facts` existed gets it now (its PROVENANCE has no root_node).
    let root = ensure_root(&facts)?;
    let prov = Provenance::read(&dir.join("PROVENANCE"));
    let num = |k: &str| prov.get(k).and_then(|v| v.parse().ok()).unwrap_or(0);
    Ok(Written {
        facts,
        nodes: num("nodes"),
        edges: num("edges"),
        source: prov.get("source_node").map(str::to_string),
        root,
        edges_sha256: prov.get("edge_facts_sha256").unwrap_or("").to_string(),
    })
}

/// Generates `spec` into the dataset directory `dir` (replacing it): `dir/facts/edge.facts`,
/// `dir/facts/source.facts`, `dir/facts/root.facts`, `dir/PROVENANCE`.
pub fn generate_into(spec: &GenSpec, dir: &Path) -> Result<Written, DatasetError> {
    let graph = spec.generate();
    let mut prov = Provenance::default();
    prov.add("name", spec.canonical())
        .add("generator", spec.kind.summary())
        .add(
            "rng",
            "SplitMix64, integer arithmetic only (same bytes on every platform)",
        )
        .add("tool", concat!("dredbench ", env!("CARGO_PKG_VERSION")));
    load::write_dataset(dir, &graph, None, &prov)
}

/// Converts a SNAP-style edge list into the dataset directory `dir` (replacing it).
pub fn import_snap(path: &Path, dir: &Path) -> Result<Written, DatasetError> {
    let bytes = std::fs::read(path).map_err(|e| DatasetError::io(path, e))?;
    let text = String::from_utf8_lossy(&bytes);
    let graph = load::parse_snap(&path.display().to_string(), &text)?;
    let mut prov = Provenance::default();
    prov.add("name", format!("snap:{}", path.display()))
        .add("input_sha256", load::sha256_hex(&bytes))
        .add("tool", concat!("dredbench ", env!("CARGO_PKG_VERSION")));
    load::write_dataset(dir, &graph, None, &prov)
}

fn import_cached(path: &Path, loc: &Locations) -> Result<PathBuf, DatasetError> {
    let bytes = std::fs::read(path).map_err(|e| DatasetError::io(path, e))?;
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "edges".into());
    let stem: String = stem
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    let hash = load::sha256_hex(&bytes);
    let dir = loc
        .cache
        .join("imported")
        .join(format!("{stem}-{}", &hash[..16]));
    let facts = publish(&dir, |tmp| import_snap(path, tmp))?;
    ensure_root(&facts)?;
    Ok(facts)
}

/// Gives a facts directory the dataset tool owns (fetched into the cache, generated or
/// imported — never a shipped or user-given directory) its `root.facts` when it was written
/// before that file existed, and returns the node in it (`None` when the file is empty, i.e.
/// the graph has no edges).
///
/// The root is computed from `edge.facts` ([`Graph::default_root`]) and written to a file of
/// a unique name in the same directory, then renamed into place: readers never see a partial
/// file, and when several processes backfill at once each rename installs the same content
/// (it depends on the edges alone), the last one winning. `PROVENANCE` is left as it was (no
/// `root_node` entry). An existing `root.facts` is read, not checked.
fn ensure_root(facts: &Path) -> Result<Option<String>, DatasetError> {
    let path = facts.join("root.facts");
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            let graph = load::read_graph(facts)?;
            let text = graph
                .default_root()
                .map(|r| format!("{r}\n"))
                .unwrap_or_default();
            let tmp = facts.join(format!(".root.facts.new{}", unique_suffix()));
            let written = std::fs::write(&tmp, &text)
                .map_err(|e| DatasetError::io(&tmp, e))
                .and_then(|()| {
                    std::fs::rename(&tmp, &path).map_err(|e| DatasetError::io(&path, e))
                });
            if written.is_err() {
                let _ = std::fs::remove_file(&tmp);
            }
            written?;
            text
        }
        Err(e) => return Err(DatasetError::io(&path, e)),
    };
    Ok(text.lines().next().map(str::to_string))
}

/// Fetches catalogue dataset `name` from Debian packages into `dest` (default
/// `<cache>/<name>`), replacing what is there. Uses the network through `apt-get`.
pub fn fetch(name: &str, loc: &Locations, dest: Option<&Path>) -> Result<Written, DatasetError> {
    let e = entry(name).ok_or_else(|| DatasetError::Unknown(name.to_string()))?;
    let fetcher = e.fetcher.ok_or_else(|| {
        DatasetError::Fetch(format!(
            "dataset `{name}` is shipped in the repository and has nothing to fetch"
        ))
    })?;
    let dest = dest.map_or_else(|| loc.fetched_dir(name), Path::to_path_buf);
    fetch::fetch_into(name, fetcher, &dest)
}

/// Whether a catalogue dataset can be used now, and its size.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Status {
    /// The facts directory, if available.
    pub facts: Option<PathBuf>,
    /// Lines of `edge.facts`, if available.
    pub edges: Option<usize>,
    /// Its `PROVENANCE`, empty if none.
    pub provenance: Provenance,
}

/// The status of a catalogue entry under `loc` (reads no more than line counts, except that
/// an installed dataset without `root.facts` gets it first, as [`resolve_in`] does).
pub fn status(e: &Entry, loc: &Locations) -> Status {
    match resolve_in(e.name, loc) {
        Ok(facts) => {
            let edges = load::count_lines(&facts.join("edge.facts"));
            let provenance = facts
                .parent()
                .map(|d| Provenance::read(&d.join("PROVENANCE")))
                .unwrap_or_default();
            Status {
                facts: Some(facts),
                edges,
                provenance,
            }
        }
        Err(_) => Status {
            facts: None,
            edges: None,
            provenance: Provenance::default(),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn locations(tmp: &Path) -> Locations {
        Locations {
            shipped: Path::new(env!("CARGO_MANIFEST_DIR")).join("../datasets"),
            cache: tmp.to_path_buf(),
        }
    }

    #[test]
    fn shipped_names_resolve_to_facts_directories() {
        let tmp = tempfile::tempdir().expect("tmp");
        let loc = locations(tmp.path());
        for e in CATALOGUE.iter().filter(|e| e.shipped.is_some()) {
            let dir = resolve_in(e.name, &loc).expect(e.name);
            assert!(dir.join("edge.facts").is_file(), "{}", e.name);
            assert!(dir.join("source.facts").is_file(), "{}", e.name);
            // Shipped files are written by hand: they must say what the tool would write.
            let root = std::fs::read_to_string(dir.join("root.facts")).expect(e.name);
            let graph = load::read_graph(&dir).expect(e.name);
            let expected = graph.default_root().map(|r| format!("{r}\n"));
            assert_eq!(Some(root), expected, "{}", e.name);
        }
    }

    fn files_of(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .expect("lists")
            .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn a_cached_dataset_without_root_facts_gets_them_on_use() {
        let tmp = tempfile::tempdir().expect("tmp");
        let loc = locations(tmp.path());
        let name = "gen:chain?n=20";
        let facts = resolve_in(name, &loc).expect("generates");
        let root = facts.join("root.facts");
        assert_eq!(std::fs::read_to_string(&root).expect("written"), "n19\n");
        std::fs::remove_file(&root).expect("removes");
        assert_eq!(resolve_in(name, &loc).expect("cached"), facts);
        assert_eq!(std::fs::read_to_string(&root).expect("rewritten"), "n19\n");
        assert_eq!(
            files_of(&facts),
            ["edge.facts", "root.facts", "source.facts"],
            "no temporary file left"
        );
        // `generate_cached` reports the backfilled root too.
        std::fs::remove_file(&root).expect("removes");
        let spec = GenSpec::parse(name).expect("spec");
        let w = generate_cached(&spec, &loc).expect("cached");
        assert_eq!(w.root.as_deref(), Some("n19"));
        assert_eq!(std::fs::read_to_string(&root).expect("rewritten"), "n19\n");
    }

    #[test]
    fn fetched_and_imported_datasets_get_root_facts_but_user_directories_do_not() {
        let tmp = tempfile::tempdir().expect("tmp");
        let loc = locations(tmp.path());
        let seed_edges =
            std::fs::read(loc.shipped.join("seed/facts/edge.facts")).expect("seed edges");
        // A fetched dataset installed before root.facts existed (the seed's edges as go-bp).
        let fetched = loc.fetched_dir("go-bp").join("facts");
        std::fs::create_dir_all(&fetched).expect("mkdir");
        std::fs::write(fetched.join("edge.facts"), &seed_edges).expect("write");
        assert_eq!(resolve_in("go-bp", &loc).expect("installed"), fetched);
        assert_eq!(
            std::fs::read_to_string(fetched.join("root.facts")).expect("backfilled"),
            "d\n"
        );
        // An imported edge list whose cached copy lost its root.facts.
        let list = tmp.path().join("g.txt");
        std::fs::write(&list, "x y\ny z\nw z\n").expect("write");
        let snap = format!("snap:{}", list.display());
        let imported = resolve_in(&snap, &loc).expect("imports");
        std::fs::remove_file(imported.join("root.facts")).expect("removes");
        assert_eq!(resolve_in(&snap, &loc).expect("cached"), imported);
        assert_eq!(
            std::fs::read_to_string(imported.join("root.facts")).expect("backfilled"),
            "z\n"
        );
        // A directory given by the user is used as is.
        let user = tmp.path().join("mine");
        std::fs::create_dir_all(&user).expect("mkdir");
        std::fs::write(user.join("edge.facts"), &seed_edges).expect("write");
        assert_eq!(
            resolve_in(&user.display().to_string(), &loc).expect("dir"),
            user
        );
        assert_eq!(files_of(&user), ["edge.facts"]);
    }

    #[test]
    fn concurrent_backfills_agree() {
        let tmp = tempfile::tempdir().expect("tmp");
        let loc = locations(tmp.path());
        let facts = resolve_in("gen:chain?n=50", &loc).expect("generates");
        std::fs::remove_file(facts.join("root.facts")).expect("removes");
        let roots: Vec<Option<String>> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..8)
                .map(|_| s.spawn(|| ensure_root(&facts).expect("backfills")))
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().expect("joins"))
                .collect()
        });
        assert!(
            roots.iter().all(|r| r.as_deref() == Some("n49")),
            "{roots:?}"
        );
        assert_eq!(
            std::fs::read_to_string(facts.join("root.facts")).expect("one file"),
            "n49\n"
        );
        assert_eq!(
            files_of(&facts),
            ["edge.facts", "root.facts", "source.facts"]
        );
    }

    #[test]
    fn fetchable_names_are_not_installed_in_an_empty_cache() {
        let tmp = tempfile::tempdir().expect("tmp");
        let loc = locations(tmp.path());
        let e = resolve_in("wordnet", &loc).expect_err("not installed");
        assert!(matches!(e, DatasetError::NotInstalled { .. }));
        assert!(
            e.to_string().contains("dredbench datasets fetch wordnet"),
            "{e}"
        );
    }

    #[test]
    fn generated_specs_are_cached_once() {
        let tmp = tempfile::tempdir().expect("tmp");
        let loc = locations(tmp.path());
        let a = resolve_in("gen:er?n=50&m=100&seed=3", &loc).expect("generates");
        let b = resolve_in("gen:er?seed=3&m=100&n=50", &loc).expect("cached");
        assert_eq!(a, b);
        assert!(
            a.ends_with("generated/er-n50-m100-seed3/facts"),
            "{}",
            a.display()
        );
        let w = generate_cached(
            &GenSpec::parse("gen:er?n=50&m=100&seed=3").expect("spec"),
            &loc,
        )
        .expect("status");
        assert_eq!(w.edges, 100);
        assert!(matches!(
            resolve_in("gen:er?q=1", &loc),
            Err(DatasetError::Spec(_))
        ));
    }

    #[test]
    fn snap_files_import_and_report_bad_lines() {
        let tmp = tempfile::tempdir().expect("tmp");
        let loc = locations(tmp.path());
        let good = tmp.path().join("g.txt");
        std::fs::write(&good, "# g\n1 2\n2 3\n").expect("write");
        let dir = resolve_in(&format!("snap:{}", good.display()), &loc).expect("imports");
        assert_eq!(
            std::fs::read_to_string(dir.join("edge.facts")).expect("edges"),
            "1\t2\n2\t3\n"
        );
        let bad = tmp.path().join("bad.txt");
        std::fs::write(&bad, "1 2\n2\n").expect("write");
        let e = resolve_in(&format!("snap:{}", bad.display()), &loc).expect_err("bad");
        assert!(
            e.to_string().ends_with(
                "bad.txt:2: expected two whitespace-separated node names, found 1 field(s): `2`"
            ),
            "{e}"
        );
    }

    #[test]
    fn unknown_names_list_the_catalogue() {
        let tmp = tempfile::tempdir().expect("tmp");
        let e = resolve_in("no-such-thing", &locations(tmp.path())).expect_err("unknown");
        assert!(e.to_string().contains("go-cc"), "{e}");
    }
}
