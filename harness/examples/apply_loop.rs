//! Diagnostic: applies one update stream through one engine (`ENGINE=dred|bf|auto|counting`,
//! and `auto-dred`, `auto-bf`: `auto` with the method forced), timing
//! only the `apply` calls, for a profile of an engine's per-batch cost without the harness's.
//!
//! `VERBOSE=1` prints each batch's time and counters. The summary gives, per parity of the
//! batch (a reverting stream alternates deletions and insertions), the median time of a
//! call and the heap blocks it allocated.
//!
//! `ENGINE=auto cargo run --release -p harness --example apply_loop -- PROGRAM FACTS UPDATES`

use std::path::PathBuf;
use std::time::Instant;

use dred_core::auto::Choosing;
use dred_core::engine::Batch;
use dred_core::per_batch::Method;
use dred_core::{Auto, Bf, Counting, Dred, Engine};
use harness::inputs::read_inputs;

fn main() -> anyhow::Result<()> {
    let args: Vec<PathBuf> = std::env::args_os().skip(1).map(PathBuf::from).collect();
    let [program, facts, updates] = args.as_slice() else {
        anyhow::bail!("usage: apply_loop PROGRAM FACTS UPDATES");
    };
    let inputs =
        read_inputs(program, facts, Some(updates), None).map_err(|e| anyhow::anyhow!("{e}"))?;
    let name = std::env::var("ENGINE").unwrap_or_else(|_| "dred".into());
    let forced = |method| {
        let mut auto = Auto::new(inputs.program.clone());
        auto.set_choosing(Choosing::Forced(method));
        Box::new(auto)
    };
    let mut engine: Box<dyn Engine> = match name.as_str() {
        "auto" => Box::new(Auto::new(inputs.program.clone())),
        "auto-dred" => forced(Method::Dred),
        "auto-bf" => forced(Method::BackwardForward),
        "bf" => Box::new(Bf::new(inputs.program.clone())),
        "counting" => Box::new(Counting::new(inputs.program.clone())),
        _ => Box::new(Dred::new(inputs.program.clone())),
    };
    // As `run` does unless asked for a trace: rounds listed by size only. (On by default,
    // the facts of every round are copied and sorted: `dred`'s 1,000-edge deletions from
    // two-hop paths over C. elegans read 3.8 ms with them, 2.5 ms in `run`.)
    engine.set_trace_facts(false);
    engine.materialise(&inputs.edb)?;
    let mut edb = inputs.edb.clone();
    let batches: Vec<Batch> = inputs
        .batches
        .iter()
        .map(|requested| {
            let batch = Batch::normalise(requested, &edb);
            edb.apply(&batch);
            batch
        })
        .collect();
    // A reverting stream ends where it began, so it can be applied again (`LOOPS` times).
    let loops: usize = std::env::var("LOOPS").map_or(1, |v| v.parse().unwrap_or(1));
    let verbose = std::env::var_os("VERBOSE").is_some();
    // `SCRUB=1`: before each call, untimed, write through 64 MiB (twice the last-level
    // cache), so that every call is timed cold, as the study's calls are after other engines.
    let mut sweep = std::env::var_os("SCRUB").map(|_| vec![1u64; (64 << 20) / 8]);
    let mut times = [Vec::new(), Vec::new()];
    // Heap blocks each call allocated (`harness::memory::blocks_allocated`).
    let mut allocated: [Vec<usize>; 2] = [Vec::new(), Vec::new()];
    for _ in 0..loops {
        for (i, batch) in batches.iter().enumerate() {
            // As the harness does before each timed call (`runner.rs`): what the last batch
            // freed is consolidated here, not inside `apply`.
            std::hint::black_box(Vec::<u8>::with_capacity(1 << 16));
            if let Some(sweep) = sweep.as_mut() {
                for x in sweep.iter_mut().step_by(8) {
                    *x = x.wrapping_add(1);
                }
                std::hint::black_box(&*sweep);
            }
            let blocks = harness::memory::blocks_allocated();
            let t = Instant::now();
            let report = engine.apply(batch)?;
            let ns = t.elapsed().as_nanos() as u64;
            times[i % 2].push(ns);
            allocated[i % 2].push(harness::memory::blocks_allocated() - blocks);
            if verbose {
                let w = |w: Option<dred_core::engine::Work>| {
                    w.map_or((0, 0), |w| (w.probes, w.touched))
                };
                println!(
                    "batch {:>3} {:>10} ns phase 1 {:?} phase 2 {:?} over {:?}",
                    i + 1,
                    ns,
                    w(report.overdelete_work),
                    w(report.rederive_work),
                    report.overdeleted
                );
            }
        }
    }
    for (k, (mut v, mut blocks)) in times.into_iter().zip(allocated).enumerate() {
        v.sort_unstable();
        blocks.sort_unstable();
        println!(
            "{name} batches {} mod 2: median {} ns, p10 {}, p90 {}; heap blocks allocated \
             per call: median {}",
            k,
            v[v.len() / 2],
            v[v.len() / 10],
            v[9 * v.len() / 10],
            blocks[blocks.len() / 2]
        );
    }
    Ok(())
}
