//! Single-fact maintenance, `dred` against `recompute`, on linear transitive closure and
//! single-source reachability over the same random graph, side by side in one run. Each
//! iteration deletes one edge and inserts it back (two batches), so the model is the same
//! at every iteration; the edges cycle through a fixed seeded sample.
//!
//! path(x, y) :- edge(x, y).           reach(y) :- source(y).
//! path(x, z) :- path(x, y), edge(y, z). reach(y) :- reach(x), edge(x, y).

use std::sync::Arc;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use dred_core::dred::Dred;
use dred_core::{load_program, Batch, Edb, Engine, Fact, Recompute, SourceFile, Symbols};

fn splitmix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

const TC: &str =
    ".decl edge(x: number, y: number)\n.decl path(x: number, y: number)\n.input edge\n\
path(x, y) :- edge(x, y).\npath(x, z) :- path(x, y), edge(y, z).\n";
const REACH: &str =
    ".decl edge(x: number, y: number)\n.decl source(x: number)\n.decl reach(x: number)\n\
.input edge\n.input source\nreach(y) :- source(y).\nreach(y) :- reach(x), edge(x, y).\n";

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("single_edge_delete_reinsert");
    group.sample_size(20);
    // A random DAG (edges from smaller to larger ids, like an ontology) and a random graph
    // with a giant strongly connected component, where DRed over-deletes most of the model.
    for (name, src, n, m, dag) in [
        ("tc_dag", TC, 2000u64, 6000usize, true),
        ("reach_dag", REACH, 100_000, 300_000, true),
        ("tc_cyclic", TC, 1000, 1500, false),
        ("reach_cyclic", REACH, 100_000, 300_000, false),
    ] {
        let program = Arc::new(
            load_program(&SourceFile::new(name, src), &mut Symbols::new()).expect("program"),
        );
        let edge = program.relation_id("edge").expect("edge");
        let mut edb = Edb::empty(&program);
        let mut state = 7;
        while edb.relations[edge].len() < m {
            let (mut a, mut b) = (splitmix(&mut state) % n, splitmix(&mut state) % n);
            if dag && a == b {
                continue;
            }
            if dag && a > b {
                std::mem::swap(&mut a, &mut b);
            }
            edb.insert(Fact::new(edge, vec![a as i64, b as i64]));
        }
        if let Some(source) = program.relation_id("source") {
            edb.insert(Fact::new(source, vec![0]));
        }
        let all: Vec<Fact> = edb.facts().filter(|f| f.rel == edge).collect();
        let sample: Vec<Fact> = (0..64)
            .map(|_| all[(splitmix(&mut state) % all.len() as u64) as usize].clone())
            .collect();
        let engines: Vec<(&str, Box<dyn Engine>)> = vec![
            ("dred", Box::new(Dred::new(program.clone()))),
            ("recompute", Box::new(Recompute::new(program.clone()))),
        ];
        for (engine_name, mut engine) in engines {
            // As `dredbench` times them: no copy of each round's facts for a trace (on by
            // default, it made `dred` copy every fact it derived).
            engine.set_trace_facts(false);
            engine.materialise(&edb).expect("materialise");
            let size = engine.model().len();
            let mut i = 0;
            group.bench_function(
                BenchmarkId::new(engine_name, format!("{name}_{n}n_{m}e_{size}idb")),
                |b| {
                    b.iter(|| {
                        let f = &sample[i % sample.len()];
                        i += 1;
                        let del = Batch {
                            deletions: vec![f.clone()],
                            ..Batch::default()
                        };
                        let ins = Batch {
                            insertions: vec![f.clone()],
                            ..Batch::default()
                        };
                        engine.apply(&del).expect("delete");
                        engine.apply(&ins).expect("insert");
                    })
                },
            );
        }
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
