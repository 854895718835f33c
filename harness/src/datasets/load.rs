//! Reading and writing graph datasets.
//!
//! - SNAP-style edge lists ([`parse_snap`]): one edge per line, two whitespace-separated node
//!   names, `#` starts a comment line, blank lines ignored. Anything else is an error naming
//!   `file:line`.
//! - Dataset directories ([`write_dataset`], [`read_graph`]): `DIR/facts/edge.facts` (the
//!   relation `edge(x: symbol, y: symbol)`, tab-separated, sorted by name, no duplicates),
//!   `DIR/facts/source.facts` (`source(x: symbol)`, one line: the default source for
//!   `reach.dl`, see [`Graph::default_source`]), `DIR/facts/root.facts` (`root(x: symbol)`,
//!   one line: the default root for `reach_root.dl`, the sink the most nodes reach, see
//!   [`Graph::default_root`]) — both empty for a graph without edges — and `DIR/PROVENANCE`
//!   (`key: value` lines saying where the data came from, with `source_node` and `root_node`).
//!   `.facts` files are read through `dred_core::io::read_facts_dir`, so they
//!   are validated exactly as `dredbench run` validates them (errors at `file:line:col`).

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use dred_core::{io, load_program, SourceFile, Symbols};

use super::graph::Graph;
use super::DatasetError;

/// A malformed line in an input file, located.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{file}:{line}: {message}")]
pub struct LineError {
    /// The file as given.
    pub file: String,
    /// 1-based line number.
    pub line: usize,
    /// What is wrong.
    pub message: String,
}

/// Parses a SNAP-style edge list. Node names are kept as written (SNAP's integer ids become
/// symbols such as `"17"`). Every line is either blank, a `#` comment, or exactly two
/// whitespace-separated fields; anything else is a [`LineError`] at `file:line`.
pub fn parse_snap(file: &str, text: &str) -> Result<Graph, LineError> {
    let mut g = Graph::new();
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let fields: Vec<&str> = line.split_whitespace().collect();
        if fields.len() != 2 {
            return Err(LineError {
                file: file.to_string(),
                line: i + 1,
                message: format!(
                    "expected two whitespace-separated node names, found {} field(s): `{line}`",
                    fields.len()
                ),
            });
        }
        g.add_named(fields[0], fields[1]);
    }
    Ok(g)
}

/// Reads a SNAP-style edge list from a file.
pub fn read_snap(path: &Path) -> Result<Graph, DatasetError> {
    let text = std::fs::read_to_string(path).map_err(|e| DatasetError::io(path, e))?;
    Ok(parse_snap(&path.display().to_string(), &text)?)
}

/// The program that declares the graph relations, used to read a dataset's `.facts`.
pub const GRAPH_DECLS: &str = "\
.decl edge(x: symbol, y: symbol)
.input edge
";

/// Reads `edge.facts` of a facts directory into a graph, validated by dred-core's reader.
pub fn read_graph(facts_dir: &Path) -> Result<Graph, DatasetError> {
    let mut symbols = Symbols::new();
    let source = SourceFile::new("<graph declarations>", GRAPH_DECLS);
    let program =
        load_program(&source, &mut symbols).map_err(|d| DatasetError::Invalid(d.render()))?;
    let edb = io::read_facts_dir(facts_dir, &program, &mut symbols).map_err(|e| match e {
        io::InputError::Syntax(d) => DatasetError::Invalid(d.render()),
        other => DatasetError::Invalid(other.to_string()),
    })?;
    let mut g = Graph::new();
    let name = |v| symbols.name(v).unwrap_or_default().to_string();
    for t in &edb.relations[0] {
        g.add_named(&name(t[0]), &name(t[1]));
    }
    Ok(g)
}

/// `key: value` lines recording where a dataset came from; written beside its facts.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Provenance {
    /// The entries in writing order.
    pub entries: Vec<(String, String)>,
}

impl Provenance {
    /// Adds an entry (values are kept on one line: newlines become spaces).
    pub fn add(&mut self, key: &str, value: impl ToString) -> &mut Self {
        let v = value.to_string().replace(['\n', '\r'], " ");
        self.entries.push((key.to_string(), v));
        self
    }

    /// The value of the first entry with this key.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.entries
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    /// Reads a `PROVENANCE` file; missing file gives an empty record.
    pub fn read(path: &Path) -> Provenance {
        let text = std::fs::read_to_string(path).unwrap_or_default();
        let mut p = Provenance::default();
        for line in text.lines() {
            if line.starts_with('#') {
                continue;
            }
            if let Some((k, v)) = line.split_once(':') {
                p.entries.push((k.trim().to_string(), v.trim().to_string()));
            }
        }
        p
    }

    pub(crate) fn render(&self) -> String {
        let mut s = String::from("# Where this dataset came from (written by dredbench).\n");
        for (k, v) in &self.entries {
            let _ = writeln!(s, "{k}: {v}");
        }
        s
    }
}

/// What [`write_dataset`] wrote.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Written {
    /// The facts directory (`DIR/facts`), to pass to `dredbench run --facts`.
    pub facts: PathBuf,
    /// Node count.
    pub nodes: usize,
    /// Edge count (lines of `edge.facts`).
    pub edges: usize,
    /// The node in `source.facts`, if the graph has edges.
    pub source: Option<String>,
    /// The node in `root.facts` ([`Graph::default_root`]), if the graph has edges.
    pub root: Option<String>,
    /// SHA-256 of `edge.facts`, hex.
    pub edges_sha256: String,
}

/// Hex SHA-256 of some bytes.
pub fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::{Digest, Sha256};
    let digest = Sha256::digest(bytes);
    let mut s = String::with_capacity(64);
    for b in digest {
        let _ = write!(s, "{b:02x}");
    }
    s
}

/// Checks that a node name can be written into a `.facts` file and read back unchanged.
fn check_name(name: &str) -> Result<(), DatasetError> {
    if name.is_empty() || name.contains(['\t', '\n', '\r']) || name.trim() != name {
        return Err(DatasetError::Invalid(format!(
            "node name {name:?} cannot be stored in a .facts file (empty, or a tab, newline or \
             surrounding space)"
        )));
    }
    Ok(())
}

/// Writes a graph as a dataset directory: `dir/facts/edge.facts` sorted by name,
/// `dir/facts/source.facts` (`source` if given, else [`Graph::default_source`]),
/// `dir/facts/root.facts` ([`Graph::default_root`]; each of the two a single line, empty for
/// a graph without edges) and `dir/PROVENANCE` (the given entries plus counts, `source_node`,
/// `root_node` and the SHA-256 of `edge.facts`).
///
/// The directory is built beside `dir` under a temporary name and renamed into place, so a
/// reader never sees a half-written dataset; an existing `dir` is replaced.
pub fn write_dataset(
    dir: &Path,
    graph: &Graph,
    source: Option<&str>,
    provenance: &Provenance,
) -> Result<Written, DatasetError> {
    write_dataset_with(dir, graph, source, provenance, &[])
}

/// Facts of a relation besides the graph's, written as `<name>.facts` (rows sorted, each
/// once, tab-separated).
pub type ExtraRelation = (&'static str, Vec<Vec<String>>);

/// [`write_dataset`] with more relations (`extras`): a dataset whose programs read more
/// than the graph (Debian's `package` and `conflicts`, GO's `part_of`).
pub fn write_dataset_with(
    dir: &Path,
    graph: &Graph,
    source: Option<&str>,
    provenance: &Provenance,
    extras: &[ExtraRelation],
) -> Result<Written, DatasetError> {
    let mut extra_texts = Vec::new();
    for (name, rows) in extras {
        let rows: BTreeSet<&Vec<String>> = rows.iter().collect();
        let mut text = String::new();
        for row in &rows {
            for v in row.iter() {
                check_name(v)?;
            }
            text.push_str(&row.join("\t"));
            text.push('\n');
        }
        extra_texts.push((*name, text, rows.len()));
    }
    let mut edges = String::new();
    for (a, b) in graph.named_edges_sorted() {
        check_name(a)?;
        check_name(b)?;
        edges.push_str(a);
        edges.push('\t');
        edges.push_str(b);
        edges.push('\n');
    }
    let source = source
        .map(str::to_string)
        .or_else(|| graph.default_source().map(str::to_string));
    let source_text = source
        .as_ref()
        .map(|s| format!("{s}\n"))
        .unwrap_or_default();
    let root = graph.default_root().map(str::to_string);
    let root_text = root.as_ref().map(|s| format!("{s}\n")).unwrap_or_default();
    let edges_sha256 = sha256_hex(edges.as_bytes());

    let mut prov = provenance.clone();
    prov.add("nodes", graph.node_count())
        .add("edges", graph.edge_count())
        .add("source_node", source.as_deref().unwrap_or("(none)"))
        .add("root_node", root.as_deref().unwrap_or("(none)"))
        .add("edge_facts_sha256", &edges_sha256);
    for (name, _, n) in &extra_texts {
        prov.add(&format!("{name}_facts"), n);
    }

    let parent = dir
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    std::fs::create_dir_all(parent).map_err(|e| DatasetError::io(parent, e))?;
    let leaf = dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "dataset".into());
    let tmp = parent.join(format!(".{leaf}.tmp{}", super::unique_suffix()));
    let _ = std::fs::remove_dir_all(&tmp);
    let facts = tmp.join("facts");
    std::fs::create_dir_all(&facts).map_err(|e| DatasetError::io(&facts, e))?;
    let write =
        |p: PathBuf, text: &str| std::fs::write(&p, text).map_err(|e| DatasetError::io(&p, e));
    write(facts.join("edge.facts"), &edges)?;
    write(facts.join("source.facts"), &source_text)?;
    write(facts.join("root.facts"), &root_text)?;
    for (name, text, _) in &extra_texts {
        write(facts.join(format!("{name}.facts")), text)?;
    }
    write(tmp.join("PROVENANCE"), &prov.render())?;
    if dir.exists() {
        std::fs::remove_dir_all(dir).map_err(|e| DatasetError::io(dir, e))?;
    }
    std::fs::rename(&tmp, dir).map_err(|e| DatasetError::io(dir, e))?;
    Ok(Written {
        facts: dir.join("facts"),
        nodes: graph.node_count(),
        edges: graph.edge_count(),
        source,
        root,
        edges_sha256,
    })
}

/// Counts the lines of a facts file without parsing it (for listings).
pub fn count_lines(path: &Path) -> Option<usize> {
    let bytes = std::fs::read(path).ok()?;
    Some(bytecount(&bytes))
}

fn bytecount(bytes: &[u8]) -> usize {
    let n = bytes.iter().filter(|&&b| b == b'\n').count();
    if bytes.last().is_some_and(|&b| b != b'\n') {
        n + 1
    } else {
        n
    }
}

/// Reads and checks a program file (for commands that take `--program`).
pub fn read_program(
    path: &Path,
    symbols: &mut Symbols,
) -> Result<Arc<dred_core::Program>, DatasetError> {
    let text = std::fs::read_to_string(path).map_err(|e| DatasetError::io(path, e))?;
    let source = SourceFile::new(path.display().to_string(), text);
    load_program(&source, symbols)
        .map(Arc::new)
        .map_err(|d| DatasetError::Invalid(d.render()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snap_lists_with_comments_and_blank_lines() {
        let text = "# Directed graph\n# FromNodeId\tToNodeId\n0\t1\n1 2\n\n  2   0  \n0\t1\n";
        let g = parse_snap("g.txt", text).expect("parses");
        assert_eq!(g.node_count(), 3);
        assert_eq!(g.edge_count(), 3, "the repeated 0 → 1 is one edge");
    }

    #[test]
    fn snap_rejects_malformed_lines_with_file_and_line() {
        let e = parse_snap("g.txt", "# c\n0 1\n0 1 7\n").expect_err("three fields");
        assert_eq!((e.file.as_str(), e.line), ("g.txt", 3));
        assert!(e.to_string().starts_with("g.txt:3: expected two"), "{e}");
        let e = parse_snap("g.txt", "0 1\n5\n").expect_err("one field");
        assert!(e.to_string().starts_with("g.txt:2:"), "{e}");
    }

    #[test]
    fn dataset_round_trip() {
        let tmp = tempfile::tempdir().expect("tmp");
        let g = parse_snap("g", "b c\na b\na c\n").expect("parses");
        let mut prov = Provenance::default();
        prov.add("name", "tiny");
        let dir = tmp.path().join("tiny");
        let w = write_dataset(&dir, &g, None, &prov).expect("writes");
        assert_eq!((w.nodes, w.edges, w.source.as_deref()), (3, 3, Some("a")));
        let edges = std::fs::read_to_string(w.facts.join("edge.facts")).expect("edge.facts");
        assert_eq!(edges, "a\tb\na\tc\nb\tc\n");
        assert_eq!(
            std::fs::read_to_string(w.facts.join("source.facts")).expect("source"),
            "a\n"
        );
        assert_eq!(w.root.as_deref(), Some("c"));
        assert_eq!(
            std::fs::read_to_string(w.facts.join("root.facts")).expect("root"),
            "c\n"
        );
        let back = read_graph(&w.facts).expect("reads back");
        assert_eq!(back.named_edges_sorted(), g.named_edges_sorted());
        let p = Provenance::read(&dir.join("PROVENANCE"));
        assert_eq!(p.get("name"), Some("tiny"));
        assert_eq!(p.get("edges"), Some("3"));
        assert_eq!(p.get("root_node"), Some("c"));
        assert_eq!(p.get("edge_facts_sha256"), Some(w.edges_sha256.as_str()));
        // Writing again replaces the directory.
        write_dataset(&dir, &g, Some("b"), &prov).expect("rewrites");
        assert_eq!(
            std::fs::read_to_string(dir.join("facts/source.facts")).expect("source"),
            "b\n"
        );
    }

    #[test]
    fn malformed_facts_are_located() {
        let tmp = tempfile::tempdir().expect("tmp");
        std::fs::write(tmp.path().join("edge.facts"), "a\tb\nc\n").expect("write");
        let e = read_graph(tmp.path()).expect_err("one column");
        let text = e.to_string();
        assert!(text.contains("edge.facts:2:"), "{text}");
    }

    #[test]
    fn unwritable_names_are_refused() {
        let mut g = Graph::new();
        g.add_named("a b ", "c");
        let tmp = tempfile::tempdir().expect("tmp");
        assert!(write_dataset(&tmp.path().join("d"), &g, None, &Provenance::default()).is_err());
    }

    #[test]
    fn sha256_of_empty_input() {
        assert_eq!(
            sha256_hex(b""),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
    }
}
