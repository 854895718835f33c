//! recompute against datafrog on linear TC of a facts directory, as `dredbench calibrate`
//! measures it (21 back-to-back pairs, median of the pairs' ratios), written against the
//! library API so that it builds in older trees too (issue 43's before/after).
//! `cargo run --release -p dred-core --example calib_pairs -- PROGRAM FACTS_DIR`
use std::sync::Arc;
use std::time::Instant;

use dred_core::{load_program, Evaluator, SourceFile, Symbols};

fn datafrog_tc(edges: &[(u32, u32)]) -> usize {
    use datafrog::{Iteration, Relation};
    let mut iteration = Iteration::new();
    let edge_by_src: Relation<(u32, u32)> = edges.iter().copied().collect();
    let path_by_dst = iteration.variable::<(u32, u32)>("path_by_dst");
    path_by_dst.extend(edges.iter().map(|&(x, y)| (y, x)));
    while iteration.changed() {
        path_by_dst.from_join(&path_by_dst, &edge_by_src, |_y, &x, &z| (z, x));
    }
    path_by_dst.complete().len()
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let text = std::fs::read_to_string(&args[0]).expect("program");
    let mut symbols = Symbols::new();
    let program = Arc::new(
        load_program(&SourceFile::new("tc_linear.dl", text), &mut symbols).expect("checks"),
    );
    let edb = dred_core::io::read_facts_dir(std::path::Path::new(&args[1]), &program, &mut symbols)
        .expect("facts");
    let edge = program.relations.iter().position(|r| r.name == "edge").expect("edge");
    let path = program.relations.iter().position(|r| r.name == "path").expect("path");
    let edges: Vec<(u32, u32)> = edb.relations[edge]
        .iter()
        .map(|t| (t[0] as u32, t[1] as u32))
        .collect();
    let mut evaluator = Evaluator::new(program.clone());
    let rows = || edb.relations[edge].iter().map(|t| (edge, t.as_slice()));
    evaluator.evaluate(rows());
    let paths = evaluator.relations()[path].len();
    assert_eq!(paths, datafrog_tc(&edges), "the engines agree");
    let mut ratios = Vec::new();
    for _ in 0..21 {
        let t = Instant::now();
        evaluator.evaluate(rows());
        let ours = t.elapsed().as_nanos() as f64;
        let t = Instant::now();
        std::hint::black_box(datafrog_tc(&edges));
        let frog = t.elapsed().as_nanos() as f64;
        ratios.push(ours / frog);
    }
    ratios.sort_by(|a, b| a.partial_cmp(b).expect("no NaN"));
    println!("{:.2} ({paths} paths)", ratios[ratios.len() / 2]);
}
