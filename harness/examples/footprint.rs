//! Diagnostic: materialises `dred` on a program and its facts and prints the heap each
//! relation holds, by structure (the arena of rows, the set table or map by value, the
//! tombstone bits, each index by its key columns): what the engine's footprint is made of;
//! and the peaks of the heap and of the resident set during materialisation.
//!
//! `cargo run --release -p harness --example footprint -- PROGRAM FACTS`

use std::path::PathBuf;

use dred_core::{Dred, Engine};
use harness::inputs::read_inputs;
use harness::memory::{self, Footprint};

fn main() -> anyhow::Result<()> {
    let args: Vec<PathBuf> = std::env::args_os().skip(1).map(PathBuf::from).collect();
    let [program, facts] = args.as_slice() else {
        anyhow::bail!("usage: footprint PROGRAM FACTS");
    };
    let inputs = read_inputs(program, facts, None, None).map_err(|e| anyhow::anyhow!("{e}"))?;
    let mut dred = Dred::new(inputs.program.clone());
    // As `dredbench run` without a trace: no copy of each round's facts.
    dred.set_trace_facts(false);
    let start = Footprint::start();
    let before = memory::live_heap_bytes();
    dred.materialise(&inputs.edb)?;
    let mib = |b: usize| b as f64 / f64::from(1 << 20);
    println!(
        "materialisation: heap peak {:.2} MiB, heap after {:.2} MiB, resident set peak {}",
        mib(start.peak_heap_growth_kb() as usize * 1024),
        mib(memory::live_heap_bytes().saturating_sub(before)),
        start
            .peak_growth_kb()
            .map_or("unknown".into(), |kb| format!(
                "{:.2} MiB",
                kb as f64 / 1024.0
            )),
    );
    let kib = |b: usize| format!("{:.0}", b as f64 / 1024.0);
    println!(
        "{:<16} {:>10} {:>10} {:>10} {:>10} {:>10}  indexes KiB (key columns)",
        "relation", "rows", "total KiB", "arena KiB", "set KiB", "dead KiB"
    );
    let (mut all, mut rows_total) = (0, 0);
    for (name, rows, b) in dred.storage_bytes() {
        let indexes: Vec<String> = b
            .indexes
            .iter()
            .map(|(cols, bytes)| format!("{} ({cols:?})", kib(*bytes)))
            .collect();
        println!(
            "{name:<16} {rows:>10} {:>10} {:>10} {:>10} {:>10}  {}",
            kib(b.total()),
            kib(b.rows),
            kib(b.set),
            kib(b.tombstones),
            indexes.join(", ")
        );
        all += b.total();
        rows_total += rows;
    }
    println!("{:<16} {rows_total:>10} {:>10}", "all", kib(all));
    Ok(())
}
