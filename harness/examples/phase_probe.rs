//! Diagnostic: replays one update stream through `dred` with each forced choice of phase 2
//! (round 1 by checks or scans; later rounds seeded or by checks) and through `recompute`,
//! each from a fresh materialisation, and prints every batch's phase times and work
//! counters side by side: where a slow batch's work goes, and what the cost model chose.
//!
//! `cargo run --release -p harness --example phase_probe -- PROGRAM FACTS UPDATES`

use std::path::PathBuf;
use std::time::Instant;

use dred_core::dred::production::rederive::{LaterRounds, Round1};
use dred_core::engine::Batch;
use dred_core::{Dred, Engine, Recompute};
use harness::inputs::read_inputs;

fn main() -> anyhow::Result<()> {
    let args: Vec<PathBuf> = std::env::args_os().skip(1).map(PathBuf::from).collect();
    let [program, facts, updates] = args.as_slice() else {
        anyhow::bail!("usage: phase_probe PROGRAM FACTS UPDATES");
    };
    let inputs =
        read_inputs(program, facts, Some(updates), None).map_err(|e| anyhow::anyhow!("{e}"))?;
    let all: [(&str, Option<(Round1, LaterRounds)>); 7] = [
        ("recompute", None),
        ("dred", Some((Round1::Cheaper, LaterRounds::Cheaper))),
        ("scans+seeded", Some((Round1::Scans, LaterRounds::Seeded))),
        ("checks+seeded", Some((Round1::Checks, LaterRounds::Seeded))),
        ("scans+checks", Some((Round1::Scans, LaterRounds::Checks))),
        (
            "cheaper+seeded",
            Some((Round1::Cheaper, LaterRounds::Seeded)),
        ),
        ("scans+cheaper", Some((Round1::Scans, LaterRounds::Cheaper))),
    ];
    // PROBE_CHOICES=dred,scans+seeded picks some (default: all but scans+checks, which can
    // take minutes where later rounds by checks collapse).
    let wanted = std::env::var("PROBE_CHOICES")
        .unwrap_or_else(|_| "recompute,dred,scans+seeded,checks+seeded".into());
    let choices = all
        .into_iter()
        .filter(|(n, _)| wanted.split(',').any(|w| w == *n));
    for (name, choice) in choices {
        let mut engine: Box<dyn Engine> = match choice {
            None => Box::new(Recompute::new(inputs.program.clone())),
            Some((r1, later)) => {
                let mut d = Dred::new(inputs.program.clone());
                d.set_round1(r1);
                d.set_later_rounds(later);
                Box::new(d)
            }
        };
        // As `dredbench` times it: no copy of each round's facts for a trace.
        engine.set_trace_facts(false);
        let t = Instant::now();
        engine.materialise(&inputs.edb)?;
        println!(
            "{name:>14} materialise {:8.1} ms",
            t.elapsed().as_secs_f64() * 1e3
        );
        let mut edb = inputs.edb.clone();
        for (i, requested) in inputs.batches.iter().enumerate() {
            let batch = Batch::normalise(requested, &edb);
            edb.apply(&batch);
            let t = Instant::now();
            let r = engine.apply(&batch)?;
            let ms = t.elapsed().as_secs_f64() * 1e3;
            let ns = |v: Option<u64>| v.map_or(0.0, |n| n as f64 / 1e6);
            let w = |v: Option<dred_core::engine::Work>| {
                v.map_or((0, 0), |w| (w.probes / 1_000, w.touched / 1_000))
            };
            println!(
                "{name:>14} batch {:>2} {ms:8.1} ms  over {:>8} ({:7.1} ms, {:?} k)  \
                 rederived {:>8} ({:7.1} ms, {:?} k)  insert {:7.1} ms",
                i + 1,
                r.overdeleted.unwrap_or(0),
                ns(r.overdelete_ns),
                w(r.overdelete_work),
                r.rederived.unwrap_or(0),
                ns(r.rederive_ns),
                w(r.rederive_work),
                ns(r.insert_ns),
            );
        }
    }
    Ok(())
}
