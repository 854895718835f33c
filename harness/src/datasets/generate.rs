//! Graph generators, deterministic by seed: the same [`GenSpec`] gives the same `edge.facts`,
//! byte for byte, on every platform (all randomness comes from [`SplitMix64`] with integer
//! arithmetic; nodes are named `n0`, `n1`, …).
//!
//! A spec is written `gen:KIND?key=value&key=value` (`,` may replace `&`, the `gen:` prefix
//! is optional where only a generator can be meant); missing keys take their defaults, and
//! `n` (a node budget) may stand in for the shape keys of `grid`, `cliques` and `layered`.
//! [`GenSpec::canonical`] spells every key, so two spellings of one graph share one cache
//! directory.

use std::collections::BTreeSet;
use std::fmt;

use clap::ValueEnum;

use super::graph::Graph;
use super::rng::SplitMix64;

/// The graph families `dredbench` can generate.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, ValueEnum)]
pub enum GenKind {
    /// Erdős–Rényi G(n, m): `m` distinct directed edges between `n` nodes, uniformly, no
    /// self-loops. Keys: n=1000, m=4000, seed=1.
    Er,
    /// R-MAT power-law graph (quadrant probabilities 0.57/0.19/0.19/0.05 over
    /// ⌈log2 n⌉ levels, out-of-range ids, self-loops and duplicates redrawn, node names
    /// shuffled so that hubs are not the lowest names). Keys: n=1024, m=8192, seed=1.
    Rmat,
    /// A rows × cols grid with edges right and down: a DAG with many alternative paths.
    /// Keys: rows=30, cols=30 (or n: rows = ⌊√n⌋, cols = ⌊n / rows⌋).
    Grid,
    /// A path n0 → n1 → … of `n` nodes: the deepest recursion. Keys: n=70000.
    Chain,
    /// `count` dense strongly connected components of `size` nodes, each edge of a clique
    /// present with probability density/100 plus a cycle through each clique, clique i
    /// linked to clique i+1 by one edge: the case that makes DRed over-delete most.
    /// Keys: count=10, size=30, density=100, seed=1 (or n: count = ⌊n / size⌋).
    Cliques,
    /// A single-source layered DAG: root n0 → every node of layer 1; each node of a layer →
    /// its own position in the next layer plus `fanout - 1` other random nodes there; every
    /// node is reachable from n0 by many alternative paths. Keys: layers=10, width=100,
    /// fanout=3, seed=1 (or n: layers = ⌊(n - 1) / width⌋).
    Layered,
}

impl GenKind {
    /// Every kind, in the order `datasets list` shows them.
    pub const ALL: [GenKind; 6] = [
        GenKind::Er,
        GenKind::Rmat,
        GenKind::Grid,
        GenKind::Chain,
        GenKind::Cliques,
        GenKind::Layered,
    ];

    /// The name used in specs and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            GenKind::Er => "er",
            GenKind::Rmat => "rmat",
            GenKind::Grid => "grid",
            GenKind::Chain => "chain",
            GenKind::Cliques => "cliques",
            GenKind::Layered => "layered",
        }
    }

    /// The kind's keys with their defaults, in canonical order.
    pub fn defaults(self) -> &'static [(&'static str, u64)] {
        match self {
            GenKind::Er => &[("n", 1000), ("m", 4000), ("seed", 1)],
            GenKind::Rmat => &[("n", 1024), ("m", 8192), ("seed", 1), ("dag", 0)],
            GenKind::Grid => &[("rows", 30), ("cols", 30)],
            GenKind::Chain => &[("n", 70_000)],
            GenKind::Cliques => &[("count", 10), ("size", 30), ("density", 100), ("seed", 1)],
            GenKind::Layered => &[("layers", 10), ("width", 100), ("fanout", 3), ("seed", 1)],
        }
    }

    /// One line on what the kind is for, for `datasets list`.
    pub fn summary(self) -> &'static str {
        match self {
            GenKind::Er => "Erdős–Rényi G(n, m), uniform random directed edges",
            GenKind::Rmat => {
                "R-MAT power-law graph (skewed degrees, one giant SCC; dag=1: acyclic, edges toward hubs)"
            }
            GenKind::Grid => "grid with edges right and down (DAG, many alternative paths)",
            GenKind::Chain => "one long path (deepest recursion; use with reach.dl)",
            GenKind::Cliques => "chain of dense cyclic components (DRed's worst over-deletion)",
            GenKind::Layered => "single-source layered DAG with many alternative paths",
        }
    }

    fn from_name(s: &str) -> Option<GenKind> {
        GenKind::ALL.into_iter().find(|k| k.name() == s)
    }
}

impl fmt::Display for GenKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Largest node count a generator accepts (node numbers are 32-bit).
pub const MAX_NODES: u64 = 50_000_000;

/// A fully specified generated graph: a kind and a value for each of its keys.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct GenSpec {
    /// The family.
    pub kind: GenKind,
    /// Every key of the kind with its value, in the kind's canonical order.
    pub params: Vec<(&'static str, u64)>,
}

impl GenSpec {
    /// The spec with every key at its default.
    pub fn defaults(kind: GenKind) -> GenSpec {
        GenSpec {
            kind,
            params: kind.defaults().to_vec(),
        }
    }

    /// Builds a spec from `key=value` pairs; unknown keys, bad numbers and impossible shapes
    /// are errors that name the key.
    pub fn from_pairs(kind: GenKind, pairs: &[(String, u64)]) -> Result<GenSpec, String> {
        let mut spec = GenSpec::defaults(kind);
        let known = |k: &str| kind.defaults().iter().any(|(d, _)| *d == k);
        let shape_from_n = matches!(kind, GenKind::Grid | GenKind::Cliques | GenKind::Layered);
        let mut n_budget = None;
        let mut explicit = BTreeSet::new();
        for (k, v) in pairs {
            if k == "n" && shape_from_n {
                n_budget = Some(*v);
            } else if known(k) {
                explicit.insert(k.clone());
                spec.set(k, *v);
            } else {
                let keys: Vec<&str> = kind.defaults().iter().map(|(k, _)| *k).collect();
                let extra = if shape_from_n { ", n" } else { "" };
                return Err(format!(
                    "generator `{kind}` has no key `{k}` (keys: {}{extra})",
                    keys.join(", ")
                ));
            }
        }
        if let Some(n) = n_budget {
            let unset = |k: &str| !explicit.contains(k);
            match kind {
                GenKind::Grid => {
                    let rows = (n as f64).sqrt().floor().max(1.0) as u64;
                    if unset("rows") {
                        spec.set("rows", rows);
                    }
                    if unset("cols") {
                        spec.set("cols", (n / spec.get("rows").max(1)).max(1));
                    }
                }
                GenKind::Cliques if unset("count") => {
                    spec.set("count", (n / spec.get("size").max(1)).max(1));
                }
                GenKind::Layered if unset("layers") => {
                    spec.set(
                        "layers",
                        (n.saturating_sub(1) / spec.get("width").max(1)).max(1),
                    );
                }
                _ => {}
            }
        }
        spec.validate()?;
        Ok(spec)
    }

    /// Parses `gen:KIND`, `gen:KIND?k=v&k=v` or `KIND?k=v,k=v`.
    pub fn parse(text: &str) -> Result<GenSpec, String> {
        let body = text.strip_prefix("gen:").unwrap_or(text);
        let (kind_name, query) = body.split_once('?').unwrap_or((body, ""));
        let kind = GenKind::from_name(kind_name).ok_or_else(|| {
            let names: Vec<&str> = GenKind::ALL.iter().map(|k| k.name()).collect();
            format!(
                "unknown generator `{kind_name}` (one of: {})",
                names.join(", ")
            )
        })?;
        let mut pairs = Vec::new();
        for part in query.split(['&', ',']).filter(|p| !p.is_empty()) {
            let (k, v) = part
                .split_once('=')
                .ok_or_else(|| format!("`{part}` in `{text}` is not key=value"))?;
            let v: u64 = v
                .parse()
                .map_err(|_| format!("`{k}={v}` in `{text}`: not a non-negative integer"))?;
            pairs.push((k.to_string(), v));
        }
        GenSpec::from_pairs(kind, &pairs)
    }

    /// The value of key `k` (0 if the kind has no such key).
    pub fn get(&self, k: &str) -> u64 {
        self.params
            .iter()
            .find(|(name, _)| *name == k)
            .map_or(0, |(_, v)| *v)
    }

    fn set(&mut self, k: &str, v: u64) {
        if let Some(p) = self.params.iter_mut().find(|(name, _)| *name == k) {
            p.1 = v;
        }
    }

    /// `gen:KIND?k=v&…` with every key, in canonical order: equal graphs, equal strings.
    pub fn canonical(&self) -> String {
        let kv: Vec<String> = self
            .params
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        format!("gen:{}?{}", self.kind, kv.join("&"))
    }

    /// A file-system-safe name for the cache directory: `KIND-k1-v1-k2-v2…` flattened to
    /// `KIND-n1000-m4000-seed1`.
    pub fn dir_name(&self) -> String {
        let mut s = self.kind.name().to_string();
        for (k, v) in &self.params {
            s.push('-');
            s.push_str(k);
            s.push_str(&v.to_string());
        }
        s
    }

    /// Number of nodes the graph will have.
    pub fn node_count(&self) -> u64 {
        let g = |k| self.get(k);
        match self.kind {
            GenKind::Er | GenKind::Rmat | GenKind::Chain => g("n"),
            GenKind::Grid => g("rows").saturating_mul(g("cols")),
            GenKind::Cliques => g("count").saturating_mul(g("size")),
            GenKind::Layered => g("layers").saturating_mul(g("width")).saturating_add(1),
        }
    }

    fn validate(&self) -> Result<(), String> {
        let g = |k| self.get(k);
        let n = self.node_count();
        let fail = |why: String| Err(format!("{}: {why}", self.canonical()));
        if n > MAX_NODES {
            return fail(format!("{n} nodes is more than the {MAX_NODES} supported"));
        }
        match self.kind {
            GenKind::Er | GenKind::Rmat => {
                if n < 2 {
                    return fail("needs n ≥ 2".into());
                }
                // Rejection sampling needs room: at most half (er) or a quarter (rmat, whose
                // draws concentrate) of all possible edges.
                let room = n * (n - 1) / if self.kind == GenKind::Er { 2 } else { 4 };
                if self.kind == GenKind::Rmat && g("dag") > 1 {
                    return fail("dag is 0 or 1".into());
                }
                if g("m") > room {
                    return fail(format!(
                        "m = {} is too dense for {} nodes (at most {room}); use `cliques` for dense graphs",
                        g("m"),
                        n
                    ));
                }
            }
            GenKind::Grid => {
                if n < 2 {
                    return fail("needs rows × cols ≥ 2".into());
                }
            }
            GenKind::Chain => {
                if n < 2 {
                    return fail("needs n ≥ 2".into());
                }
            }
            GenKind::Cliques => {
                if g("size") < 2 || g("count") < 1 {
                    return fail("needs size ≥ 2 and count ≥ 1".into());
                }
                if g("density") > 100 {
                    return fail("density is a percentage, at most 100".into());
                }
            }
            GenKind::Layered => {
                if g("layers") < 1 || g("width") < 1 {
                    return fail("needs layers ≥ 1 and width ≥ 1".into());
                }
                if g("fanout") < 1 || g("fanout") > g("width") {
                    return fail("needs 1 ≤ fanout ≤ width".into());
                }
            }
        }
        Ok(())
    }

    /// Generates the graph. Deterministic: depends on nothing but the spec.
    pub fn generate(&self) -> Graph {
        let g = |k| self.get(k);
        let mut graph = Graph::new();
        let n = self.node_count() as usize;
        // Nodes are created in number order, so node number i is named `n{i}` — except for
        // rmat, which renames by a seeded permutation.
        let mut rng = SplitMix64::new(g("seed"));
        let names: Vec<String> = if self.kind == GenKind::Rmat {
            let mut perm: Vec<usize> = (0..n).collect();
            rng.shuffle(&mut perm);
            perm.into_iter().map(|i| format!("n{i}")).collect()
        } else {
            (0..n).map(|i| format!("n{i}")).collect()
        };
        for name in &names {
            graph.node(name);
        }
        let node = |i: u64| i as u32;
        match self.kind {
            GenKind::Er => {
                let m = g("m") as usize;
                while graph.edge_count() < m {
                    let a = rng.below(n as u64);
                    let b = rng.below(n as u64);
                    if a != b {
                        graph.add(node(a), node(b));
                    }
                }
            }
            GenKind::Rmat => {
                let levels = (n as u64).next_power_of_two().trailing_zeros();
                let m = g("m") as usize;
                while graph.edge_count() < m {
                    let (mut a, mut b) = (0u64, 0u64);
                    for _ in 0..levels {
                        // Quadrants with probabilities 57, 19, 19, 5 percent.
                        let r = rng.below(100);
                        let (da, db) = match r {
                            0..=56 => (0, 0),
                            57..=75 => (0, 1),
                            76..=94 => (1, 0),
                            _ => (1, 1),
                        };
                        a = (a << 1) | da;
                        b = (b << 1) | db;
                    }
                    if a < n as u64 && b < n as u64 && a != b {
                        // dag=1: every edge points to the lower R-MAT index, which is the
                        // likelier hub — acyclic, like citations or an ontology's is-a edges.
                        if g("dag") == 1 && a < b {
                            std::mem::swap(&mut a, &mut b);
                        }
                        graph.add(node(a), node(b));
                    }
                }
            }
            GenKind::Grid => {
                let (rows, cols) = (g("rows"), g("cols"));
                for r in 0..rows {
                    for c in 0..cols {
                        let v = r * cols + c;
                        if c + 1 < cols {
                            graph.add(node(v), node(v + 1));
                        }
                        if r + 1 < rows {
                            graph.add(node(v), node(v + cols));
                        }
                    }
                }
            }
            GenKind::Chain => {
                for i in 0..(n as u64).saturating_sub(1) {
                    graph.add(node(i), node(i + 1));
                }
            }
            GenKind::Cliques => {
                let (count, size, density) = (g("count"), g("size"), g("density"));
                for c in 0..count {
                    let base = c * size;
                    for i in 0..size {
                        for j in 0..size {
                            if i != j && (density == 100 || rng.chance(density, 100)) {
                                graph.add(node(base + i), node(base + j));
                            }
                        }
                        // A cycle through the clique keeps it strongly connected at any density.
                        graph.add(node(base + i), node(base + (i + 1) % size));
                    }
                    if c + 1 < count {
                        graph.add(node(base), node(base + size));
                    }
                }
            }
            GenKind::Layered => {
                let (layers, width, fanout) = (g("layers"), g("width"), g("fanout"));
                let at = |layer: u64, j: u64| node(1 + layer * width + j);
                for j in 0..width {
                    graph.add(node(0), at(0, j));
                }
                for l in 0..layers.saturating_sub(1) {
                    for j in 0..width {
                        let mut targets = BTreeSet::from([j]);
                        while (targets.len() as u64) < fanout {
                            targets.insert(rng.below(width));
                        }
                        for t in targets {
                            graph.add(at(l, j), at(l + 1, t));
                        }
                    }
                }
            }
        }
        graph
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn edges_text(spec: &str) -> String {
        let g = GenSpec::parse(spec).expect("spec").generate();
        let mut s = String::new();
        for (a, b) in g.named_edges_sorted() {
            s.push_str(a);
            s.push('\t');
            s.push_str(b);
            s.push('\n');
        }
        s
    }

    #[test]
    fn every_kind_is_deterministic_by_seed() {
        for spec in [
            "gen:er?n=200&m=800&seed=5",
            "gen:rmat?n=256&m=1000&seed=5",
            "gen:grid?rows=7&cols=9",
            "gen:chain?n=100",
            "gen:cliques?count=4&size=6&density=60&seed=5",
            "gen:layered?layers=5&width=10&fanout=3&seed=5",
        ] {
            assert_eq!(edges_text(spec), edges_text(spec), "{spec}");
        }
        // A different seed gives a different graph for the random kinds.
        for (a, b) in [
            ("gen:er?n=200&m=800&seed=5", "gen:er?n=200&m=800&seed=6"),
            (
                "gen:rmat?n=256&m=1000&seed=5",
                "gen:rmat?n=256&m=1000&seed=6",
            ),
            (
                "gen:cliques?count=4&size=6&density=60&seed=5",
                "gen:cliques?count=4&size=6&density=60&seed=6",
            ),
            (
                "gen:layered?layers=5&width=10&fanout=3&seed=5",
                "gen:layered?layers=5&width=10&fanout=3&seed=6",
            ),
        ] {
            assert_ne!(edges_text(a), edges_text(b), "{a} vs {b}");
        }
    }

    #[test]
    fn rmat_dag_is_acyclic_and_the_default_is_not() {
        let cyclic = |spec: &str| {
            let text = edges_text(spec);
            let edges: Vec<(&str, &str)> = text
                .lines()
                .map(|l| l.split_once('\t').expect("tab"))
                .collect();
            // Kahn's algorithm: a cycle leaves edges that never become removable.
            let mut indegree: std::collections::HashMap<&str, usize> = Default::default();
            for &(a, b) in &edges {
                indegree.entry(a).or_default();
                *indegree.entry(b).or_default() += 1;
            }
            let mut ready: Vec<&str> = indegree
                .iter()
                .filter(|(_, &d)| d == 0)
                .map(|(&v, _)| v)
                .collect();
            let mut seen = 0;
            while let Some(v) = ready.pop() {
                seen += 1;
                for &(a, b) in &edges {
                    if a == v {
                        let d = indegree.get_mut(b).expect("node");
                        *d -= 1;
                        if *d == 0 {
                            ready.push(b);
                        }
                    }
                }
            }
            seen < indegree.len()
        };
        assert!(cyclic("gen:rmat?n=256&m=1000&seed=5"));
        assert!(!cyclic("gen:rmat?n=256&m=1000&seed=5&dag=1"));
        assert_eq!(
            edges_text("gen:rmat?n=256&m=1000&seed=5&dag=1")
                .lines()
                .count(),
            1000
        );
    }

    #[test]
    fn pinned_er_graph() {
        // Pins the whole pipeline (rng, sampling, naming, sorting) across platforms and
        // releases: changing it silently would change every recorded result.
        let text = edges_text("gen:er?n=10&m=5&seed=1");
        assert_eq!(text, "n0\tn5\nn1\tn8\nn5\tn3\nn5\tn9\nn7\tn0\n");
        assert_eq!(text, edges_text("er?seed=1,m=5,n=10"));
    }

    #[test]
    fn shapes_and_counts() {
        let count = |s: &str| {
            let g = GenSpec::parse(s).expect("spec").generate();
            (g.node_count(), g.edge_count())
        };
        assert_eq!(count("gen:er?n=100&m=300"), (100, 300));
        assert_eq!(count("gen:rmat?n=100&m=300"), (100, 300));
        assert_eq!(count("gen:grid?rows=3&cols=4"), (12, 3 * 3 + 2 * 4));
        assert_eq!(count("gen:chain"), (70_000, 69_999));
        assert_eq!(count("gen:cliques?count=3&size=4"), (12, 3 * 12 + 2));
        // layered: root → 10, then 4 layer steps × 10 nodes × fanout 3.
        assert_eq!(
            count("gen:layered?layers=5&width=10&fanout=3"),
            (51, 10 + 4 * 10 * 3)
        );
        assert_eq!(count("gen:grid?n=100"), (100, 2 * 10 * 9));
        assert_eq!(count("gen:layered?n=101&width=10"), (101, 10 + 9 * 10 * 3));
    }

    #[test]
    fn canonical_spelling_includes_every_key() {
        let s = GenSpec::parse("gen:cliques?size=5").expect("spec");
        assert_eq!(
            s.canonical(),
            "gen:cliques?count=10&size=5&density=100&seed=1"
        );
        assert_eq!(s.dir_name(), "cliques-count10-size5-density100-seed1");
        assert_eq!(GenSpec::parse(&s.canonical()).expect("again"), s);
    }

    #[test]
    fn bad_specs_name_the_problem() {
        let e = |s: &str| GenSpec::parse(s).expect_err(s);
        assert!(e("gen:nope").contains("unknown generator `nope`"));
        assert!(e("gen:er?k=3").contains("no key `k`"));
        assert!(e("gen:er?n=x").contains("not a non-negative integer"));
        assert!(e("gen:er?n=10&m=1000").contains("too dense"));
        assert!(e("gen:layered?width=2&fanout=3").contains("fanout"));
        assert!(e("gen:er?n").contains("not key=value"));
        assert!(e("gen:chain?n=100000000000").contains("supported"));
    }

    #[test]
    fn layered_reaches_everything_from_its_root() {
        let g = GenSpec::parse("gen:layered?layers=6&width=8&fanout=2&seed=3")
            .expect("spec")
            .generate();
        assert_eq!(g.default_source(), Some("n0"));
        let adj = g.adjacency();
        let mut seen = vec![false; g.node_count()];
        let mut stack = vec![0u32];
        seen[0] = true;
        while let Some(v) = stack.pop() {
            for &w in adj.succ(v) {
                if !seen[w as usize] {
                    seen[w as usize] = true;
                    stack.push(w);
                }
            }
        }
        assert!(seen.iter().all(|&s| s));
    }

    #[test]
    fn cliques_are_strongly_connected_at_any_density() {
        let g = GenSpec::parse("gen:cliques?count=3&size=8&density=0")
            .expect("spec")
            .generate();
        let comp = g.adjacency().scc();
        let distinct: BTreeSet<u32> = comp.iter().copied().collect();
        assert_eq!(distinct.len(), 3);
    }
}
