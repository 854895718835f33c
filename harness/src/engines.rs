//! The engines `dredbench` can run, by name, and how each is built.

use std::sync::Arc;

use clap::ValueEnum;
use dd_baseline::{Cluster, DdConfig, DdEngine};
use dred_core::{Bf, Dred, Engine, Oracle, Program, Recompute, Reference, WrongSupport};

/// EDBs up to this many facts count as small: the default engine set then includes the
/// instance-enumerating `reference` and `oracle`.
pub const SMALL_EDB: usize = 2_000;

/// An engine selectable on the command line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, ValueEnum)]
pub enum EngineKind {
    /// Production DRed: the same phases and frontiers as `reference`, by delta rules over
    /// indexed relations, without an instance store; the engine for real data.
    Dred,
    /// Backward/Forward (Motik et al., AAAI 2015): before deleting a fact, looks backwards for
    /// another derivation; deletes and follows only what has none. Same storage as `dred`.
    Bf,
    /// DRed exactly as the seed specifies, over a store of every old ground instance; reports
    /// frontiers and counters; for small inputs.
    Reference,
    /// Negative control: strips only facts with no support in the current set, so it keeps
    /// cyclically self-supporting facts and must fail the model check.
    #[value(name = "wrong-support")]
    WrongSupport,
    /// Semi-naive evaluation from scratch after every batch: the baseline to beat.
    Recompute,
    /// Naive evaluation by ground enumeration, independent of every other engine; slow.
    Oracle,
    /// The same program compiled to differential-dataflow on timely: `--workers` threads per
    /// process, and a cluster of processes with `--processes`, `--process`, `--hostfile`.
    Dd,
}

impl EngineKind {
    /// The name used on the command line and in reports.
    pub fn name(self) -> &'static str {
        match self {
            EngineKind::Dred => "dred",
            EngineKind::Bf => "bf",
            EngineKind::Reference => "reference",
            EngineKind::WrongSupport => "wrong-support",
            EngineKind::Recompute => "recompute",
            EngineKind::Oracle => "oracle",
            EngineKind::Dd => "dd",
        }
    }

    /// The engines run when `--engines` is not given: every engine that supports the
    /// program (`dd` included), with `reference` and `oracle` (which enumerate ground instances) only when the
    /// EDB has at most [`SMALL_EDB`] facts.
    pub fn default_for(program: &Program, edb_facts: usize) -> Vec<EngineKind> {
        let small = edb_facts <= SMALL_EDB;
        let mut v = Vec::new();
        if EngineKind::Dred.supports(program) {
            v.push(EngineKind::Dred);
            v.push(EngineKind::Bf);
            if small {
                v.push(EngineKind::Reference);
            }
        }
        v.push(EngineKind::Dd);
        v.push(EngineKind::Recompute);
        if small {
            v.push(EngineKind::Oracle);
        }
        v
    }

    /// Whether the engine maintains `program`: the negative control `wrong-support` only
    /// programs of one DRed level (no negation, no aggregate), the others every checked
    /// program (the DRed engines level by level).
    pub fn supports(self, program: &Program) -> bool {
        match self {
            EngineKind::WrongSupport => program.num_levels() == 1,
            EngineKind::Dred
            | EngineKind::Bf
            | EngineKind::Reference
            | EngineKind::Recompute
            | EngineKind::Oracle
            | EngineKind::Dd => true,
        }
    }

    /// Builds the engine for a program; `workers` is used by engines that run threads,
    /// `cluster` by engines that run on several processes (`dd`, which starts its workers
    /// here: with a cluster, this returns once every process has connected).
    pub fn build(
        self,
        program: Arc<Program>,
        workers: usize,
        cluster: &Cluster,
    ) -> Box<dyn Engine> {
        match self {
            EngineKind::Dred => Box::new(Dred::new(program)),
            EngineKind::Bf => Box::new(Bf::new(program)),
            EngineKind::Reference => Box::new(Reference::new(program)),
            EngineKind::WrongSupport => Box::new(WrongSupport::new(program)),
            EngineKind::Recompute => Box::new(Recompute::new(program)),
            EngineKind::Oracle => Box::new(Oracle::new(program)),
            EngineKind::Dd => Box::new(DdEngine::new(
                program,
                DdConfig::new(workers, cluster.clone()),
            )),
        }
    }

    /// Worker threads the engine actually uses, as reported.
    pub fn workers(self, requested: usize) -> usize {
        match self {
            EngineKind::Dd => requested,
            _ => 1,
        }
    }
}

/// The engine's name, as `--engines` takes it.
impl std::fmt::Display for EngineKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}
