//! Diagnostic: replays one update stream through `auto` with the method of each batch forced
//! (`AUTO_FORCE=dred,bf,recompute,...`, one per batch, the last repeated) and through `dred`,
//! and prints each batch's counters side by side.
//!
//! `AUTO_FORCE=dred,bf cargo run --release -p harness --example auto_probe -- PROGRAM FACTS UPDATES`

use std::path::PathBuf;
use std::time::Instant;

use dred_core::auto::Choosing;
use dred_core::engine::Batch;
use dred_core::per_batch::Method;
use dred_core::{Auto, Dred, Engine};
use harness::inputs::read_inputs;

fn main() -> anyhow::Result<()> {
    let args: Vec<PathBuf> = std::env::args_os().skip(1).map(PathBuf::from).collect();
    let [program, facts, updates] = args.as_slice() else {
        anyhow::bail!("usage: auto_probe PROGRAM FACTS UPDATES");
    };
    let inputs =
        read_inputs(program, facts, Some(updates), None).map_err(|e| anyhow::anyhow!("{e}"))?;
    let forced: Vec<Method> = std::env::var("AUTO_FORCE")
        .unwrap_or_else(|_| "dred".into())
        .split(',')
        .map(|m| match m {
            "bf" => Method::BackwardForward,
            "recompute" => Method::Recompute,
            _ => Method::Dred,
        })
        .collect();
    for name in ["dred", "auto"] {
        let mut dred = Dred::new(inputs.program.clone());
        let mut auto = Auto::new(inputs.program.clone());
        dred.set_trace_facts(false);
        auto.set_trace_facts(false);
        let engine: &mut dyn Engine = if name == "dred" { &mut dred } else { &mut auto };
        engine.materialise(&inputs.edb)?;
        let mut edb = inputs.edb.clone();
        for (i, requested) in inputs.batches.iter().enumerate() {
            let batch = Batch::normalise(requested, &edb);
            edb.apply(&batch);
            let method = forced[i.min(forced.len() - 1)];
            if name == "auto" {
                auto.set_choosing(Choosing::Forced(method));
            }
            let engine: &mut dyn Engine = if name == "dred" { &mut dred } else { &mut auto };
            let t = Instant::now();
            let r = engine.apply(&batch)?;
            let w =
                |v: Option<dred_core::engine::Work>| v.map_or((0, 0), |w| (w.probes, w.touched));
            println!(
                "{name:>5} {:>9?} batch {:>2} {:8.3} ms over {:>7} {:?} rederived {:>7} {:?}",
                if name == "auto" { Some(method) } else { None },
                i + 1,
                t.elapsed().as_secs_f64() * 1e3,
                r.overdeleted.unwrap_or(0),
                w(r.overdelete_work),
                r.rederived.unwrap_or(0),
                w(r.rederive_work),
            );
        }
    }
    Ok(())
}
