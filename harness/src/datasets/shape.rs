//! The shape of a graph dataset, measured for the findings: how cyclic, how deep and how
//! concentrated its edges are — the properties expected to predict how much one deletion
//! makes DRed over-delete.

use serde::{Deserialize, Serialize};

use super::graph::Graph;

/// Measured properties of one graph; every field is exact (no sampling).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Shape {
    /// The dataset's name as the study names it.
    pub dataset: String,
    /// Nodes (ends of at least one edge).
    pub nodes: usize,
    /// Distinct edges.
    pub edges: usize,
    /// Nodes of the largest strongly connected component.
    pub largest_scc: usize,
    /// Share of the nodes that lie in a strongly connected component of two or more nodes.
    pub cyclic_share: f64,
    /// Longest path of the condensation (the DAG of components), in edges.
    pub depth: usize,
    /// Largest in-degree (edges into one node).
    pub max_in: usize,
    /// Largest out-degree.
    pub max_out: usize,
    /// Edges per node.
    pub mean_degree: f64,
}

/// Measures `g`; linear in its size (iterative Tarjan, then one pass over the components).
pub fn shape(dataset: &str, g: &Graph) -> Shape {
    let adj = g.adjacency();
    let n = adj.len();
    let comp = adj.scc();
    let ncomp = comp.iter().map(|&c| c as usize + 1).max().unwrap_or(0);
    let mut size = vec![0usize; ncomp];
    for &c in &comp {
        size[c as usize] += 1;
    }
    // Tarjan closes a component after every component it reaches, so successors across
    // components have smaller numbers: visiting components in increasing number sees each
    // successor's depth first.
    let mut members: Vec<Vec<u32>> = vec![Vec::new(); ncomp];
    for (v, &c) in comp.iter().enumerate() {
        members[c as usize].push(v as u32);
    }
    let mut depth = vec![0usize; ncomp];
    for c in 0..ncomp {
        let mut d = 0;
        for &v in &members[c] {
            for &w in adj.succ(v) {
                let cw = comp[w as usize] as usize;
                if cw != c {
                    d = d.max(depth[cw] + 1);
                }
            }
        }
        depth[c] = d;
    }
    let mut indeg = vec![0usize; n];
    let mut max_out = 0;
    for v in 0..n as u32 {
        max_out = max_out.max(adj.succ(v).len());
        for &w in adj.succ(v) {
            indeg[w as usize] += 1;
        }
    }
    let edges = g.edge_count();
    Shape {
        dataset: dataset.to_string(),
        nodes: n,
        edges,
        largest_scc: size.iter().copied().max().unwrap_or(0),
        cyclic_share: if n == 0 {
            0.0
        } else {
            size.iter().filter(|&&s| s > 1).sum::<usize>() as f64 / n as f64
        },
        depth: depth.iter().copied().max().unwrap_or(0),
        max_in: indeg.iter().copied().max().unwrap_or(0),
        max_out,
        mean_degree: if n == 0 { 0.0 } else { edges as f64 / n as f64 },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn graph(edges: &[(&str, &str)]) -> Graph {
        let mut g = Graph::new();
        for (a, b) in edges {
            g.add_named(a, b);
        }
        g
    }

    #[test]
    fn a_cycle_feeding_a_chain() {
        // a↔b is one component; b→c→d→e is a chain of 3 edges after it.
        let s = shape(
            "t",
            &graph(&[
                ("a", "b"),
                ("b", "a"),
                ("b", "c"),
                ("c", "d"),
                ("d", "e"),
                ("a", "e"),
            ]),
        );
        assert_eq!((s.nodes, s.edges, s.largest_scc), (5, 6, 2));
        assert!((s.cyclic_share - 0.4).abs() < 1e-9);
        assert_eq!(s.depth, 3);
        assert_eq!((s.max_in, s.max_out), (2, 2));
        assert!((s.mean_degree - 1.2).abs() < 1e-9);
    }

    #[test]
    fn a_dag_and_an_empty_graph() {
        let s = shape(
            "t",
            &graph(&[("r", "x"), ("r", "y"), ("r", "z"), ("x", "y")]),
        );
        assert_eq!((s.largest_scc, s.depth, s.max_out, s.max_in), (1, 2, 3, 2));
        assert_eq!(s.cyclic_share, 0.0);
        let e = shape("empty", &Graph::new());
        assert_eq!((e.nodes, e.edges, e.depth), (0, 0, 0));
    }
}
