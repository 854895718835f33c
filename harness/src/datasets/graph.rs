//! Directed graphs with dense node numbers: what generators build, converters produce and
//! targeted update streams analyse (strongly connected components, alternative paths).
//!
//! Node numbers are an implementation detail: everything written to disk uses node *names*
//! (symbols), and every choice that must be reproducible (the source node, the order in which
//! edges are sampled) is made on names, not on numbers.

use std::collections::{BTreeSet, HashMap};

/// A directed graph over named nodes, without duplicate edges.
#[derive(Clone, Debug, Default)]
pub struct Graph {
    names: Vec<String>,
    ids: HashMap<String, u32>,
    edges: BTreeSet<(u32, u32)>,
}

impl Graph {
    /// An empty graph.
    pub fn new() -> Self {
        Self::default()
    }

    /// The number of `name`, adding the node if new.
    pub fn node(&mut self, name: &str) -> u32 {
        if let Some(&id) = self.ids.get(name) {
            return id;
        }
        let id = self.names.len() as u32;
        self.names.push(name.to_string());
        self.ids.insert(name.to_string(), id);
        id
    }

    /// Adds the edge `from → to` by names; false if it was present.
    pub fn add_named(&mut self, from: &str, to: &str) -> bool {
        let (a, b) = (self.node(from), self.node(to));
        self.edges.insert((a, b))
    }

    /// Adds the edge `from → to` between existing node numbers; false if it was present.
    pub fn add(&mut self, from: u32, to: u32) -> bool {
        self.edges.insert((from, to))
    }

    /// True when the edge is present.
    pub fn contains(&self, from: u32, to: u32) -> bool {
        self.edges.contains(&(from, to))
    }

    /// Node count.
    pub fn node_count(&self) -> usize {
        self.names.len()
    }

    /// Edge count.
    pub fn edge_count(&self) -> usize {
        self.edges.len()
    }

    /// The name of node `id`.
    pub fn name(&self, id: u32) -> &str {
        &self.names[id as usize]
    }

    /// The edges as `(from, to)` node numbers, in number order.
    pub fn edges(&self) -> impl Iterator<Item = (u32, u32)> + '_ {
        self.edges.iter().copied()
    }

    /// The edges as name pairs, sorted by name (byte order): the order of `edge.facts`.
    pub fn named_edges_sorted(&self) -> Vec<(&str, &str)> {
        let mut v: Vec<(&str, &str)> = self
            .edges
            .iter()
            .map(|&(a, b)| (self.name(a), self.name(b)))
            .collect();
        v.sort_unstable();
        v
    }

    /// The default source for single-source reachability: the node of highest out-degree,
    /// ties broken by the smallest name in byte order. `None` for a graph without edges.
    pub fn default_source(&self) -> Option<&str> {
        let mut out = vec![0usize; self.names.len()];
        for &(a, _) in &self.edges {
            out[a as usize] += 1;
        }
        (0..self.names.len())
            .filter(|&i| out[i] > 0)
            .min_by(|&i, &j| {
                out[j]
                    .cmp(&out[i])
                    .then_with(|| self.names[i].cmp(&self.names[j]))
            })
            .map(|i| self.names[i].as_str())
    }

    /// The default root for reachability towards a root (`datasets/programs/reach_root.dl`,
    /// written to `root.facts`): among the sinks — nodes with at least one predecessor and no
    /// successor, a self-loop counting as a successor — the one from which the most nodes
    /// reach it (the size of its reverse-reachable set, itself included), ties broken by the
    /// smallest name in byte order. On child → parent graphs such as the ontologies this is
    /// the top of the hierarchy (GO's `all`, WordNet's `entity.n.00001740`), so `reach_root.dl`
    /// covers most of the graph and deleting an edge near the top over-deletes much of it.
    ///
    /// Each sink's reverse-reachable set is found by a search over reversed edges sharing one
    /// visited array stamped per search. To bound the cost on graphs with many sinks, sinks are
    /// searched in order of in-degree (highest first, then smallest name) and no new search is
    /// started once the searches have visited more than 2²⁸ edges in all; the root is chosen
    /// among the sinks searched. The result depends on the graph alone (not on node numbers or
    /// insertion order).
    ///
    /// Without such a sink (every node lies on a cycle or leads to one) it is the node of
    /// highest in-degree, ties broken by the smallest name. `None` for a graph without edges.
    pub fn default_root(&self) -> Option<&str> {
        self.root_within(1 << 28)
    }

    /// [`Graph::default_root`] with the edge budget given: no search starts after more than
    /// `budget` edges have been visited in all (the first search always runs).
    fn root_within(&self, budget: u64) -> Option<&str> {
        let n = self.names.len();
        let (mut inn, mut out) = (vec![0usize; n], vec![0usize; n]);
        for &(a, b) in &self.edges {
            out[a as usize] += 1;
            inn[b as usize] += 1;
        }
        let by_in_degree = |&i: &usize, &j: &usize| {
            inn[j]
                .cmp(&inn[i])
                .then_with(|| self.names[i].cmp(&self.names[j]))
        };
        let mut sinks: Vec<usize> = (0..n).filter(|&i| out[i] == 0 && inn[i] > 0).collect();
        if sinks.is_empty() {
            return (0..n)
                .filter(|&i| inn[i] > 0)
                .min_by(by_in_degree)
                .map(|i| self.names[i].as_str());
        }
        sinks.sort_by(by_in_degree);
        // Predecessor lists, compressed: `preds[start[v]..start[v + 1]]` lead into `v`.
        let mut start = vec![0usize; n + 1];
        for &(_, b) in &self.edges {
            start[b as usize + 1] += 1;
        }
        for i in 0..n {
            start[i + 1] += start[i];
        }
        let mut fill = start.clone();
        let mut preds = vec![0u32; self.edges.len()];
        for &(a, b) in &self.edges {
            preds[fill[b as usize]] = a;
            fill[b as usize] += 1;
        }
        // One visited array for every search, never cleared: a node is visited in search `k`
        // when it holds the stamp `k` (searches number fewer than the nodes, so below
        // `u32::MAX`, the initial value).
        let mut seen = vec![u32::MAX; n];
        let mut stack = Vec::new();
        let mut visited_edges = 0u64;
        let mut best: Option<(usize, usize)> = None;
        for (k, &sink) in sinks.iter().enumerate() {
            if visited_edges > budget {
                break;
            }
            let stamp = k as u32;
            seen[sink] = stamp;
            stack.push(sink);
            let mut count = 0usize;
            while let Some(v) = stack.pop() {
                count += 1;
                let ps = &preds[start[v]..start[v + 1]];
                visited_edges += ps.len() as u64;
                for &p in ps {
                    if seen[p as usize] != stamp {
                        seen[p as usize] = stamp;
                        stack.push(p as usize);
                    }
                }
            }
            let better = match best {
                None => true,
                Some((b, c)) => count > c || (count == c && self.names[sink] < self.names[b]),
            };
            if better {
                best = Some((sink, count));
            }
        }
        best.map(|(i, _)| self.names[i].as_str())
    }

    /// Successor lists (compressed): `adj[off[v]..off[v+1]]` are the successors of `v`.
    pub fn adjacency(&self) -> Adjacency {
        Adjacency::new(self.names.len(), self.edges.iter().copied())
    }
}

/// Successor lists in compressed form, for traversals.
#[derive(Clone, Debug)]
pub struct Adjacency {
    off: Vec<usize>,
    adj: Vec<u32>,
}

impl Adjacency {
    /// Builds the successor lists of `n` nodes from edges `(from, to)` with numbers below `n`.
    pub fn new(n: usize, edges: impl Iterator<Item = (u32, u32)> + Clone) -> Self {
        let mut off = vec![0usize; n + 1];
        for (a, _) in edges.clone() {
            off[a as usize + 1] += 1;
        }
        for i in 0..n {
            off[i + 1] += off[i];
        }
        let mut fill = off.clone();
        let mut adj = vec![0u32; off[n]];
        for (a, b) in edges {
            adj[fill[a as usize]] = b;
            fill[a as usize] += 1;
        }
        Adjacency { off, adj }
    }

    /// Number of nodes.
    pub fn len(&self) -> usize {
        self.off.len() - 1
    }

    /// True when there are no nodes.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The successors of `v`.
    pub fn succ(&self, v: u32) -> &[u32] {
        &self.adj[self.off[v as usize]..self.off[v as usize + 1]]
    }

    /// The strongly connected component of every node, numbered from 0 (iterative Tarjan, so
    /// a 70,000-node chain does not overflow the stack).
    pub fn scc(&self) -> Vec<u32> {
        const NONE: u32 = u32::MAX;
        let n = self.len();
        let mut index = vec![NONE; n];
        let mut low = vec![0u32; n];
        let mut on_stack = vec![false; n];
        let mut comp = vec![NONE; n];
        let mut stack: Vec<u32> = Vec::new();
        let mut next_index = 0u32;
        let mut next_comp = 0u32;
        // Call stack of (node, position in its successor list).
        let mut calls: Vec<(u32, usize)> = Vec::new();
        for root in 0..n as u32 {
            if index[root as usize] != NONE {
                continue;
            }
            calls.push((root, 0));
            while let Some(&(v, pos)) = calls.last() {
                let vi = v as usize;
                if pos == 0 && index[vi] == NONE {
                    index[vi] = next_index;
                    low[vi] = next_index;
                    next_index += 1;
                    stack.push(v);
                    on_stack[vi] = true;
                }
                let succ = self.succ(v);
                if pos < succ.len() {
                    let w = succ[pos];
                    if let Some(top) = calls.last_mut() {
                        top.1 += 1;
                    }
                    let wi = w as usize;
                    if index[wi] == NONE {
                        calls.push((w, 0));
                    } else if on_stack[wi] {
                        low[vi] = low[vi].min(index[wi]);
                    }
                    continue;
                }
                // All successors done: close v, then update the caller.
                if low[vi] == index[vi] {
                    loop {
                        let w = stack.pop().expect("v is on the stack");
                        on_stack[w as usize] = false;
                        comp[w as usize] = next_comp;
                        if w == v {
                            break;
                        }
                    }
                    next_comp += 1;
                }
                calls.pop();
                if let Some(&(u, _)) = calls.last() {
                    low[u as usize] = low[u as usize].min(low[vi]);
                }
            }
        }
        comp
    }

    /// True when `to` is reachable from `from` by a path that does not use the edge
    /// `from → to` itself (a path of length ≥ 2, or through a parallel route).
    pub fn other_path(&self, from: u32, to: u32, seen: &mut Vec<bool>) -> bool {
        seen.clear();
        seen.resize(self.len(), false);
        let mut queue = std::collections::VecDeque::new();
        seen[from as usize] = true;
        for &w in self.succ(from) {
            if w == to {
                continue; // the direct edge is the one removed
            }
            if !seen[w as usize] {
                seen[w as usize] = true;
                queue.push_back(w);
            }
        }
        while let Some(v) = queue.pop_front() {
            if v == to {
                return true;
            }
            for &w in self.succ(v) {
                if !seen[w as usize] {
                    seen[w as usize] = true;
                    queue.push_back(w);
                }
            }
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn graph(edges: &[(&str, &str)]) -> Graph {
        let mut g = Graph::new();
        for (a, b) in edges {
            g.add_named(a, b);
        }
        g
    }

    #[test]
    fn scc_of_the_seed_graph() {
        let g = graph(&crate::seed_edges());
        let comp = g.adjacency().scc();
        let c = |n: &str| comp[g.ids[n] as usize];
        assert_eq!(c("b"), c("c"));
        assert_eq!(c("u"), c("v"));
        assert_eq!(c("v"), c("w"));
        assert_ne!(c("a"), c("b"));
        assert_ne!(c("d"), c("b"));
        assert_ne!(c("u"), c("b"));
    }

    #[test]
    fn long_chain_does_not_overflow() {
        let mut g = Graph::new();
        let ids: Vec<u32> = (0..200_000).map(|i| g.node(&format!("n{i}"))).collect();
        for w in ids.windows(2) {
            g.add(w[0], w[1]);
        }
        g.add(ids[ids.len() - 1], ids[0]);
        let comp = g.adjacency().scc();
        assert!(comp.iter().all(|&c| c == comp[0]));
    }

    #[test]
    fn other_path_ignores_the_direct_edge() {
        let g = graph(&[("a", "b"), ("b", "c"), ("a", "c"), ("c", "d")]);
        let adj = g.adjacency();
        let id = |n: &str| g.ids[n];
        let mut seen = Vec::new();
        assert!(adj.other_path(id("a"), id("c"), &mut seen));
        assert!(!adj.other_path(id("a"), id("b"), &mut seen));
        assert!(!adj.other_path(id("c"), id("d"), &mut seen));
    }

    #[test]
    fn default_root_of_the_seed_graph_is_d() {
        // datasets/seed/facts/edge.facts: `d` is the only sink; a, b, c, e reach it, the
        // cycle u → v → w → u does not.
        let seed = Path::new(env!("CARGO_MANIFEST_DIR")).join("../datasets/seed/facts");
        let g = crate::datasets::load::read_graph(&seed).expect("seed graph");
        assert_eq!(g.edge_count(), 9);
        assert_eq!(g.default_root(), Some("d"));
    }

    #[test]
    fn default_root_is_the_sink_most_nodes_reach() {
        // A chain: its end, whatever the names' order.
        let chain = graph(&[("n0", "n1"), ("n1", "n2"), ("n2", "n3")]);
        assert_eq!(chain.default_root(), Some("n3"));
        let chain = graph(&[("c", "b"), ("b", "a")]);
        assert_eq!(chain.default_root(), Some("a"));
        // Two trees: the one under `t` (5 nodes) is larger than the one under `s` (4 nodes)
        // although `s` has more children and the smaller name.
        let g = graph(&[
            ("a", "s"),
            ("b", "s"),
            ("c", "s"),
            ("d", "t"),
            ("e", "d"),
            ("f", "e"),
            ("g", "f"),
        ]);
        assert_eq!(g.default_root(), Some("t"));
        // Two trees of 3 nodes each: the smaller name `k` wins the tie although `m` has the
        // higher in-degree (so is searched first).
        let tie = graph(&[("p", "m"), ("q", "m"), ("s", "r"), ("r", "k")]);
        assert_eq!(tie.default_root(), Some("k"));
        // A node reaching both sinks counts for both: 3 each, `x` before `y`.
        let shared = graph(&[("a", "y"), ("b", "x"), ("c", "x"), ("c", "y")]);
        assert_eq!(shared.default_root(), Some("x"));
        // A self-loop is a successor: `a` (reached by `b` and itself) is no sink, so the root
        // is `c` although `a` has the same reach and the smaller name.
        let looped = graph(&[("a", "a"), ("b", "a"), ("b", "c")]);
        assert_eq!(looped.default_root(), Some("c"));
        // A node without predecessors is no candidate, even when it has no successors.
        let mut isolated = graph(&[("b", "c")]);
        isolated.node("a");
        assert_eq!(isolated.default_root(), Some("c"));
    }

    #[test]
    fn default_root_does_not_depend_on_insertion_order() {
        let edges = [("p", "m"), ("q", "m"), ("s", "r"), ("r", "k"), ("k", "z")];
        let forward = graph(&edges);
        let mut reversed = edges;
        reversed.reverse();
        let backward = graph(&reversed);
        assert_eq!(forward.default_root(), Some("z"));
        assert_eq!(backward.default_root(), Some("z"));
    }

    #[test]
    fn default_root_stops_searching_past_the_edge_budget() {
        // `s` (in-degree 3, reach 4) is searched before `t` (in-degree 1, reach 6); its search
        // visits 3 edges.
        let g = graph(&[
            ("a", "s"),
            ("b", "s"),
            ("c", "s"),
            ("d", "t"),
            ("e", "d"),
            ("f", "e"),
            ("g", "f"),
            ("h", "g"),
        ]);
        assert_eq!(g.default_root(), Some("t"));
        assert_eq!(g.root_within(3), Some("t"), "3 edges do not exceed 3");
        assert_eq!(
            g.root_within(2),
            Some("s"),
            "3 edges exceed 2: `t` is never searched"
        );
        assert_eq!(g.root_within(0), Some("s"), "the first search always runs");
    }

    #[test]
    fn default_root_without_a_sink_is_highest_in_degree() {
        // a → b → c → a, c → b, a → c: in-degrees a 1, b 2, c 2; `b` wins the tie by name.
        let cyclic = graph(&[("a", "b"), ("b", "c"), ("c", "a"), ("c", "b"), ("a", "c")]);
        assert_eq!(cyclic.default_root(), Some("b"));
        let self_loop = graph(&[("a", "a")]);
        assert_eq!(self_loop.default_root(), Some("a"));
    }

    #[test]
    fn default_root_of_a_graph_without_edges_is_none() {
        assert_eq!(Graph::new().default_root(), None);
        let mut lonely = Graph::new();
        lonely.node("a");
        assert_eq!(lonely.default_root(), None);
    }

    #[test]
    fn default_source_is_highest_out_degree_then_smallest_name() {
        let g = graph(&[("b", "x"), ("b", "y"), ("a", "x"), ("a", "y"), ("c", "x")]);
        assert_eq!(g.default_source(), Some("a"));
        assert_eq!(Graph::new().default_source(), None);
    }
}
