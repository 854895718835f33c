//! Linear transitive closure, `recompute` (this crate's semi-naive evaluator) against
//! datafrog on the same graph, side by side in one run: two random graphs, the shipped
//! Gene Ontology graphs GO CC and GO MF (their `edge.facts`, terms numbered in order of first
//! appearance), and GO BP and WordNet when `dredbench datasets fetch` has installed them in
//! the dataset cache (`$DREDBENCH_CACHE`, else `$XDG_CACHE_HOME/dredbench`, else
//! `~/.cache/dredbench`; skipped with a message otherwise).
//!
//! path(x, y) :- edge(x, y).
//! path(x, z) :- path(x, y), edge(y, z).

use std::sync::Arc;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use dred_core::{load_program, Evaluator, SourceFile, Symbols};

/// A deterministic random graph: `m` distinct edges over `n` nodes (SplitMix64).
fn random_graph(n: u64, m: usize, seed: u64) -> Vec<(u32, u32)> {
    let mut state = seed;
    let mut next = || {
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    };
    let mut edges = std::collections::BTreeSet::new();
    while edges.len() < m {
        edges.insert(((next() % n) as u32, (next() % n) as u32));
    }
    edges.into_iter().collect()
}

/// A shipped graph's edges, its terms numbered densely in order of first appearance.
fn shipped_graph(name: &str) -> Vec<(u32, u32)> {
    let path = format!(
        "{}/../datasets/{name}/facts/edge.facts",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    numbered(&text)
}

/// A fetched graph's edges from the dataset cache, if installed there.
fn fetched_graph(name: &str) -> Option<Vec<(u32, u32)>> {
    let env = |k: &str| std::env::var_os(k).filter(|v| !v.is_empty());
    let cache = env("DREDBENCH_CACHE")
        .map(std::path::PathBuf::from)
        .or_else(|| env("XDG_CACHE_HOME").map(|x| std::path::Path::new(&x).join("dredbench")))
        .or_else(|| env("HOME").map(|h| std::path::Path::new(&h).join(".cache/dredbench")))?;
    let path = cache.join(name).join("facts/edge.facts");
    match std::fs::read_to_string(&path) {
        Ok(text) => Some(numbered(&text)),
        Err(_) => {
            eprintln!(
                "{name}: not installed ({} missing; `dredbench datasets fetch {name}`), skipped",
                path.display()
            );
            None
        }
    }
}

/// Tab-separated edges, terms numbered densely in order of first appearance.
fn numbered(text: &str) -> Vec<(u32, u32)> {
    let mut ids = std::collections::HashMap::new();
    let mut id = |term: &str| {
        let next = ids.len() as u32;
        *ids.entry(term.to_string()).or_insert(next)
    };
    text.lines()
        .filter_map(|l| l.split_once('\t'))
        .map(|(a, b)| (id(a), id(b)))
        .collect()
}

fn datafrog_tc(edges: &[(u32, u32)]) -> usize {
    use datafrog::{Iteration, Relation};
    let mut iteration = Iteration::new();
    // edge indexed by its source: (y, z).
    let edge_by_src: Relation<(u32, u32)> = edges.iter().copied().collect();
    // path indexed by its target: (y, x).
    let path_by_dst = iteration.variable::<(u32, u32)>("path_by_dst");
    path_by_dst.extend(edges.iter().map(|&(x, y)| (y, x)));
    while iteration.changed() {
        // path(x, z) :- path(x, y), edge(y, z).
        path_by_dst.from_join(&path_by_dst, &edge_by_src, |_y, &x, &z| (z, x));
    }
    path_by_dst.complete().len()
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("linear_tc");
    group.sample_size(10);
    let mut graphs = vec![
        ("random".to_string(), random_graph(1000, 2000, 42)),
        ("random".to_string(), random_graph(2000, 5000, 42)),
        ("go-cc".to_string(), shipped_graph("go-cc")),
        ("go-mf".to_string(), shipped_graph("go-mf")),
    ];
    for name in ["go-bp", "wordnet"] {
        if let Some(edges) = fetched_graph(name) {
            graphs.push((name.to_string(), edges));
        }
    }
    for (name, edges) in graphs {
        let n = edges
            .iter()
            .map(|&(a, b)| a.max(b) as usize + 1)
            .max()
            .unwrap_or(0);
        let m = edges.len();
        let mut symbols = Symbols::new();
        let program = Arc::new(
            load_program(
                &SourceFile::new(
                    "tc.dl",
                    ".decl edge(x: number, y: number)\n.decl path(x: number, y: number)\n\
                     .input edge\npath(x, y) :- edge(x, y).\npath(x, z) :- path(x, y), edge(y, z).\n",
                ),
                &mut symbols,
            )
            .expect("program"),
        );
        let rows: Vec<[i64; 2]> = edges
            .iter()
            .map(|&(a, b)| [i64::from(a), i64::from(b)])
            .collect();
        let mut evaluator = Evaluator::new(program.clone());
        evaluator.evaluate(rows.iter().map(|r| (0, &r[..])));
        let ours = evaluator.relations()[1].len();
        let theirs = datafrog_tc(&edges);
        assert_eq!(ours, theirs, "both compute the same closure");
        let id = format!("{name}_{n}n_{m}e_{ours}paths");
        group.bench_function(BenchmarkId::new("recompute", &id), |b| {
            b.iter(|| {
                evaluator.evaluate(rows.iter().map(|r| (0, &r[..])));
                evaluator.relations()[1].len()
            })
        });
        group.bench_function(BenchmarkId::new("datafrog", &id), |b| {
            b.iter(|| datafrog_tc(&edges))
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
