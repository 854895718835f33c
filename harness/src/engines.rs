//! The engines `dredbench` can run, by name, and how each is built.

use std::sync::Arc;

use clap::ValueEnum;
use dd_baseline::{Cluster, DdConfig, DdEngine};
use dred_core::maintain::recompute::RecomputeLevels;
use dred_core::per_batch::PerBatch;
use dred_core::{
    Auto, Bf, Counting, Dred, Engine, Oracle, Program, Recompute, Reference, WrongSupport,
};

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
    /// Recomputation on `dred`'s storage: per level, the strata a batch's deletions reach lose
    /// every fact and are evaluated again from the levels below; insertions semi-naively.
    #[value(name = "recompute-levels")]
    RecomputeLevels,
    /// `dred`'s storage with the deletion algorithm rotated batch by batch (DRed, B/F,
    /// `recompute-levels`): each hands the next a model the others maintained; for the fuzzer.
    Rotate,
    /// `dred`'s storage, the deletion algorithm chosen per batch (DRed, B/F or
    /// `recompute-levels`) from predicted costs, and abandoned for recomputation once it
    /// passes a budget set by the predicted recomputation (`dred_core::auto`).
    Auto,
    /// Derivation counts (Gupta, Mumick and Subrahmanian 1993): one per fact in non-recursive
    /// strata, one per round of semi-naive evaluation in recursive strata (replayed when
    /// their input changes); negation and aggregates through the strata's net changes.
    Counting,
    /// Naive evaluation by ground enumeration, independent of every other engine; slow.
    Oracle,
    /// The same program compiled to differential-dataflow on timely: `--workers` threads per
    /// process, and a cluster of processes with `--processes`, `--process`, `--hostfile`.
    Dd,
    /// A program outside the harness, declared in the engines file and spoken to over the
    /// engine protocol (`docs/engine-protocol.md`); named `ext:NAME` on the command line, so
    /// it is not one of the names `--engines` takes bare.
    #[value(skip)]
    External,
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
            EngineKind::RecomputeLevels => "recompute-levels",
            EngineKind::Rotate => "rotate",
            EngineKind::Auto => "auto",
            EngineKind::Counting => "counting",
            EngineKind::Oracle => "oracle",
            EngineKind::Dd => "dd",
            EngineKind::External => "ext",
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
            | EngineKind::RecomputeLevels
            | EngineKind::Rotate
            | EngineKind::Auto
            | EngineKind::Counting
            | EngineKind::Oracle
            | EngineKind::Dd
            | EngineKind::External => true,
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
            EngineKind::RecomputeLevels => Box::new(RecomputeLevels::new(program)),
            EngineKind::Rotate => Box::new(PerBatch::rotating(program)),
            EngineKind::Auto => Box::new(Auto::new(program)),
            EngineKind::Counting => Box::new(Counting::new(program)),
            EngineKind::Oracle => Box::new(Oracle::new(program)),
            EngineKind::Dd => Box::new(DdEngine::new(
                program,
                DdConfig::new(workers, cluster.clone()),
            )),
            // Which external engine is a matter of the spec, not the kind: this one refuses
            // to run, and `EngineSpec::build` builds the real one.
            EngineKind::External => Box::new(crate::external::Unnamed),
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

/// One engine of a run as `--engines` names it: an engine kind and which independent
/// instance of it. `dred@2` is a second `dred`, built and fed apart from the first, so that
/// the two read the same batches side by side: the A/A check of the instrument (their time
/// ratio must read 1 within the noise). A name given twice (`dred,dred`) means the same as
/// `dred,dred@2`.
///
/// An external engine is spelled `ext:NAME` (and `ext:NAME@2`), NAME declared in the engines
/// file ([`crate::external`]); its kind is [`EngineKind::External`] and `external` holds NAME.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct EngineSpec {
    /// What is built.
    pub kind: EngineKind,
    /// Which instance, from 1; reports name instance 1 by the kind alone.
    pub instance: u8,
    /// The external engine's name in the engines file, for [`EngineKind::External`] (interned
    /// for the life of the process, so that specs stay `Copy`); `None` for the built-in ones.
    pub external: Option<&'static str>,
}

impl EngineSpec {
    /// The first (usually the only) instance of `kind`.
    pub const fn of(kind: EngineKind) -> Self {
        EngineSpec {
            kind,
            instance: 1,
            external: None,
        }
    }

    /// The first instance of the external engine `name` (not checked against the engines
    /// file here: [`crate::external::check_specs`] does that before a command runs).
    pub fn external(name: &str) -> Self {
        EngineSpec {
            kind: EngineKind::External,
            instance: 1,
            external: Some(crate::external::intern_name(name)),
        }
    }

    /// The name in reports and messages: `dred`, `dred@2` for a second instance, `ext:NAME`
    /// for an external engine.
    pub fn name(&self) -> String {
        let base = match self.external {
            Some(name) => format!("ext:{name}"),
            None => self.kind.name().to_string(),
        };
        if self.instance <= 1 {
            base
        } else {
            format!("{base}@{}", self.instance)
        }
    }

    /// Whether the engine maintains `program`: [`EngineKind::supports`] for the built-in
    /// engines; for an external one, whether the engines file declares every feature the
    /// program uses (false when the name is not declared).
    pub fn supports(&self, program: &Program) -> bool {
        match self.external {
            Some(name) => crate::external::declared(name)
                .is_some_and(|decl| decl.missing_feature(program).is_none()),
            None => self.kind.supports(program),
        }
    }

    /// Builds the engine for a program: [`EngineKind::build`] for the built-in engines; an
    /// external engine is declared here and its process started at materialisation (so that
    /// a command that cannot start is an engine failure of that batch, not a panic).
    /// `symbols` must hold every symbol of the program, EDB and batches the engine will see:
    /// it writes and reads values through them.
    pub fn build(
        &self,
        program: Arc<Program>,
        symbols: &Arc<dred_core::Symbols>,
        workers: usize,
        cluster: &Cluster,
    ) -> Box<dyn Engine> {
        match self.external {
            Some(name) => Box::new(crate::external::ExternalEngine::declared_as(
                &self.name(),
                name,
                program,
                symbols.clone(),
            )),
            None => self.kind.build(program, workers, cluster),
        }
    }

    /// `engines` with every repeated entry made the next instance of its kind not yet named,
    /// so that `dred,dred` runs two instances (`dred`, `dred@2`).
    pub fn distinct(engines: &[EngineSpec]) -> Vec<EngineSpec> {
        let mut out: Vec<EngineSpec> = Vec::with_capacity(engines.len());
        for &e in engines {
            let mut e = e;
            while out.contains(&e) {
                e.instance = e.instance.saturating_add(1);
            }
            out.push(e);
        }
        out
    }

    /// The specs of engine kinds, one instance each.
    pub fn of_kinds(kinds: &[EngineKind]) -> Vec<EngineSpec> {
        kinds.iter().map(|&k| EngineSpec::of(k)).collect()
    }
}

impl From<EngineKind> for EngineSpec {
    fn from(kind: EngineKind) -> Self {
        EngineSpec::of(kind)
    }
}

impl std::fmt::Display for EngineSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.name())
    }
}

impl std::str::FromStr for EngineSpec {
    type Err = String;

    /// `NAME` or `NAME@K` (K from 1 to 255), NAME one of the engines' names or `ext:NAME`
    /// for an engine of the engines file.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let (name, instance) = match s.split_once('@') {
            Some((name, k)) => {
                let k: u8 =
                    k.parse().ok().filter(|&k| k >= 1).ok_or_else(|| {
                        format!("`{s}`: after `@`, an instance number from 1 to 255")
                    })?;
                (name, k)
            }
            None => (s, 1),
        };
        if let Some(ext) = name.strip_prefix("ext:") {
            crate::external::check_name(ext).map_err(|e| format!("`{s}`: {e}"))?;
            return Ok(EngineSpec {
                instance,
                ..EngineSpec::external(ext)
            });
        }
        let kind = EngineKind::from_str(name, false).map_err(|_| {
            let names: Vec<&str> = EngineKind::value_variants()
                .iter()
                .map(|k| k.name())
                .collect();
            format!(
                "`{name}` is not an engine; engines: {} (`NAME@2` for a second instance, \
                 `ext:NAME` for an engine of the engines file)",
                names.join(", ")
            )
        })?;
        Ok(EngineSpec {
            kind,
            instance,
            external: None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_instance_is_spelled_with_at_or_by_repeating_the_name() {
        let dred2: EngineSpec = "dred@2".parse().expect("dred@2");
        assert_eq!(dred2.kind, EngineKind::Dred);
        assert_eq!(dred2.name(), "dred@2");
        let plain: EngineSpec = "wrong-support".parse().expect("a plain name");
        assert_eq!(plain.name(), "wrong-support");
        assert_eq!(
            "dred@1".parse::<EngineSpec>().map(|e| e.name()),
            Ok("dred".into())
        );
        let repeated = EngineSpec::distinct(&[
            EngineSpec::of(EngineKind::Dred),
            EngineSpec::of(EngineKind::Recompute),
            EngineSpec::of(EngineKind::Dred),
            dred2,
        ]);
        let names: Vec<String> = repeated.iter().map(|e| e.name()).collect();
        assert_eq!(names, ["dred", "recompute", "dred@2", "dred@3"]);
    }

    #[test]
    fn a_bad_engine_name_or_instance_is_refused_with_the_names() {
        let err = "dredd".parse::<EngineSpec>().expect_err("not an engine");
        assert!(err.contains("engines: dred, bf"), "{err}");
        for bad in ["dred@0", "dred@", "dred@x", "dred@256"] {
            assert!(bad.parse::<EngineSpec>().is_err(), "{bad} accepted");
        }
    }
}
