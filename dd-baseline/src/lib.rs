//! `dd-baseline`: the programs `dred-core` checks, compiled to differential-dataflow on timely —
//! the comparator for the DRed engines. Any checked program runs: recursion (linear and not),
//! constants, repeated variables, wildcards, comparisons, program facts (also zero-arity), and
//! stratified negation.
//!
//! The pipeline:
//! 1. [`plan`] turns each checked rule into a logical plan: join order, the shared arrangement
//!    each atom is read through, where comparisons and negations are checked, the head projection;
//! 2. [`compile`] renders the plans as one dataflow per worker: an input per `.input` relation,
//!    one iterative scope per stratum with its recursive relations as variables, joins on
//!    arrangements shared across rules, `distinct` for set semantics, `antijoin` for negation;
//! 3. [`DdEngine`] implements [`dred_core::Engine`]: each batch becomes one timestamp, fed to the
//!    workers, awaited with a probe, and its consolidated net change kept for the harness; the
//!    model itself lives only in an arrangement of the dataflow, read on request;
//! 4. [`row`] gives the dataflow its records: rows of 32-bit codes (`[u32; 2]` or `[u32; 4]`)
//!    when every record of the program fits, as a hand-written differential-dataflow program
//!    for a graph would use, and general rows of values otherwise ([`Records`] can force them);
//! 5. [`config`] describes workers and processes, built explicitly (timely never parses the
//!    process's arguments).
//!
//! # Running on several workers and processes
//!
//! `dredbench run --engines dd --workers N` runs N worker threads in one process.
//!
//! For a cluster, start the *same* `dredbench run` command (same program, facts and update
//! stream) once per process, adding `--processes P --process I` (I = 0 … P-1) and
//! `--hostfile FILE`, whose first P non-empty lines are the processes' `host:port` addresses
//! in process order (without a hostfile, `localhost:2101`, `localhost:2102`, … as timely's
//! own default). Each process connects to the others before materialising, so start them
//! together; each runs N workers, and each feeds only its share of every batch (update `i`
//! goes to global worker `i mod (P·N)`), so every update enters the computation once.
//! The net change of every batch is sent to one worker in *every* process, so each process
//! holds the full model: each compares it with its other engines, writes its own report and
//! outputs (give processes different `--report`/`--out` paths on a shared file system), and
//! exits 0 only if everything agreed. A process that dies leaves the others waiting for it;
//! run clusters under a timeout.
//!
//! ```text
//! $ printf '127.0.0.1:4100\n127.0.0.1:4101\n' > hosts
//! $ dredbench run --engines dd --processes 2 --process 0 --hostfile hosts ... --out out0 &
//! $ dredbench run --engines dd --processes 2 --process 1 --hostfile hosts ... --out out1
//! ```

#![deny(missing_docs)]

pub mod compile;
pub mod config;
pub mod engine;
pub mod plan;
pub mod row;

pub use config::{Cluster, ConfigError, DdConfig, Records};
pub use engine::DdEngine;
pub use row::Row;
