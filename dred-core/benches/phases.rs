//! Each phase of `dred` on its own, on a real graph: one edge deleted (phase 1 over-deletes,
//! phase 2 rederives) and then inserted back (phase 3), so the model is the same at every
//! iteration. The edges cycle through a fixed seeded sample; each benchmark times only its
//! phase, the rest of the cycle runs untimed. A `recompute` of the same model is the scale.
//!
//! The graph is `datasets/go-mf` (shipped) unless `DRED_BENCH_FACTS` names another facts
//! directory, e.g. `$(dredbench datasets path go-bp)` after `dredbench datasets fetch go-bp`.
//! Programs: `tc_linear.dl` and `reach.dl` from `datasets/programs`.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use dred_core::dred::Dred;
use dred_core::io::read_facts_dir;
use dred_core::{load_program, Edb, Engine, Fact, Recompute, SourceFile, Symbols};

fn splitmix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Which phase a benchmark times.
#[derive(Clone, Copy)]
enum Timed {
    Overdelete,
    Rederive,
    Insert,
}

/// Deletes and reinserts `f`; returns the time of the `timed` phase.
fn cycle(engine: &mut Dred, f: &Fact, timed: Timed) -> Duration {
    let t = Instant::now();
    let over = engine
        .overdelete(std::slice::from_ref(f))
        .expect("the model is closed and holds f");
    let overdelete = t.elapsed();
    let t = Instant::now();
    let re = engine.rederive(&over);
    let rederive = t.elapsed();
    std::hint::black_box(re);
    engine.end_batch();
    let t = Instant::now();
    std::hint::black_box(engine.insert(std::slice::from_ref(f)));
    let insert = t.elapsed();
    engine.end_batch();
    match timed {
        Timed::Overdelete => overdelete,
        Timed::Rederive => rederive,
        Timed::Insert => insert,
    }
}

fn bench(c: &mut Criterion) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let facts: PathBuf = std::env::var_os("DRED_BENCH_FACTS")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("datasets/go-mf/facts"));
    let label = facts
        .parent()
        .and_then(Path::file_name)
        .map_or("facts".into(), |s| s.to_string_lossy().into_owned());
    let mut group = c.benchmark_group(format!("phases_{label}"));
    group.sample_size(20);
    for program_name in ["tc_linear", "reach"] {
        let path = root.join(format!("datasets/programs/{program_name}.dl"));
        let text = std::fs::read_to_string(&path).expect("program file");
        let mut symbols = Symbols::new();
        let program = Arc::new(
            load_program(
                &SourceFile::new(path.display().to_string(), text),
                &mut symbols,
            )
            .expect("program"),
        );
        let edb: Edb = read_facts_dir(&facts, &program, &mut symbols).expect("facts");
        let edge = program.relation_id("edge").expect("edge");
        let edges: Vec<Fact> = edb.facts().filter(|f| f.rel == edge).collect();
        let mut state = 11;
        let sample: Vec<Fact> = (0..64)
            .map(|_| edges[(splitmix(&mut state) % edges.len() as u64) as usize].clone())
            .collect();
        let mut dred = Dred::new(program.clone());
        dred.set_trace_facts(false);
        dred.materialise(&edb).expect("materialise");
        let size = dred.model().len();
        for (phase, timed) in [
            ("overdelete", Timed::Overdelete),
            ("rederive", Timed::Rederive),
            ("insert", Timed::Insert),
        ] {
            let mut i = 0;
            group.bench_function(
                BenchmarkId::new(phase, format!("{program_name}_{size}idb")),
                |b| {
                    b.iter_custom(|iters| {
                        (0..iters)
                            .map(|_| {
                                i += 1;
                                cycle(&mut dred, &sample[i % sample.len()], timed)
                            })
                            .sum()
                    })
                },
            );
        }
        let mut recompute = Recompute::new(program.clone());
        group.sample_size(10);
        group.bench_function(
            BenchmarkId::new("recompute", format!("{program_name}_{size}idb")),
            |b| b.iter(|| recompute.materialise(&edb).expect("recompute")),
        );
        group.sample_size(20);
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
