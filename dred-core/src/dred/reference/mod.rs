//! The `reference` engine: DRed exactly as the seed specifies (SPEC §4), for positive
//! programs, one module per step.
//!
//! On each batch that changes something:
//! 1. [`instances`]: enumerate every successful ground instance over the *old* I ∪ J — head
//!    and whole body — with a reverse index from body fact to heads (G instances, B body
//!    facts, over M old facts);
//! 2. [`overdelete`](mod@overdelete): from D-, put into D every head of an old instance with
//!    a body fact in D, as a queue in rounds (frontiers); the over-deleted IDB is D ∩ J;
//! 3. [`rederive`](mod@rederive): from the survivors S = (I ∪ J) \ D, restore in rounds the
//!    heads of old instances whose whole body is in S;
//! 4. [`insert`](mod@insert): add A+ and propagate semi-naively over the updated relations.
//!
//! The initial materialisation is phase 3 alone, from empty relations, with the whole EDB and
//! every program fact as the first delta; its report has the insert time and rounds and no
//! DRed counters. A batch with empty D- and A+ returns the old model
//! and enumerates nothing (its batch was still normalised and checked).
//!
//! # Cost, in the terms of the seed
//!
//! With C₀ the matching work of enumerating the old instances, M the old facts, G the old
//! successful instances and B their total body length:
//! - the instance store and its reverse index take C₀ + O(M + G·log G + B) time (the log
//!   factor sorts instances for deterministic scans) and O(M + G + B) space — for *every*
//!   batch, even one that deletes a single fact, since the store is rebuilt from the old set;
//! - the over-delete queue then costs O(M + G + B + 1): each fact of D is expanded once and
//!   reads each of its reverse-index entries once;
//! - the rederive scans cost O((d + 1)(G + B + 1)) for d = |D ∩ J|: at most d rounds that
//!   restore something and one final round, each scanning the stored instances of the
//!   pending heads. The `membership_tests` counter counts only the short-circuited body
//!   tests, not the scanning, skipping or set construction around them;
//! - the insert phase costs the sum of its rounds' matching work (rebuilding the relations'
//!   indexes from the survivors first, O(M)), which can far exceed |A+|.
//!
//! # Why not to use it on large inputs
//!
//! G is the number of successful instances of the *whole* old model, not of the change: for
//! the non-linear transitive closure it grows with the number of paths times the nodes they
//! pass through (cubic on a dense component), and it is paid in time and memory by every
//! batch, however small. The reference exists to be checked line by line against the seed,
//! to give the exact over-deleted and rederived sets and the counters that explain DRed's
//! costs; the production `dred` engine computes the same sets with delta rules over indexes.

pub mod insert;
pub mod instances;
pub mod overdelete;
pub mod rederive;

use std::sync::Arc;
use std::time::Instant;

use crate::engine::{Batch, BatchReport, Edb, Engine, EngineError, Fact, Model, Phase, Round};
use crate::plan::RulePlan;
use crate::program::Program;
use crate::storage::Relation;
use crate::value::Value;

use instances::{FactTable, InstanceStore, StoreError};
use overdelete::{overdelete, Frontier};
use rederive::{rederive, Survivors};

/// The reference DRed engine (SPEC §4). Positive programs only: a program with negation is
/// refused by [`Engine::materialise`] with [`EngineError::Unsupported`].
#[derive(Debug)]
pub struct Reference {
    core: Core,
}

impl Reference {
    /// A reference engine for `program`.
    pub fn new(program: Arc<Program>) -> Self {
        Reference {
            core: Core::new(program, "reference"),
        }
    }
}

impl Engine for Reference {
    fn name(&self) -> &str {
        self.core.name
    }

    fn materialise(&mut self, edb: &Edb) -> Result<BatchReport, EngineError> {
        self.core.materialise(edb)
    }

    fn apply(&mut self, batch: &Batch) -> Result<BatchReport, EngineError> {
        self.core.check_batch(batch)?;
        if batch.is_empty() {
            return Ok(Core::unchanged());
        }
        let core = &mut self.core;

        // Phase 1: the old instances, then D along them.
        let start = Instant::now();
        let facts = FactTable::new(&core.relations).map_err(|e| core.store_error(e))?;
        let store = InstanceStore::enumerate(&core.named, &core.enumeration_plans, &facts)
            .map_err(|e| core.store_error(e))?;
        let overdeleted = overdelete(&store, &facts, core.deletions(&facts, batch)?);
        let overdelete_us = micros(start);

        // Phase 2: S = (I ∪ J) \ D, grown by rederivation.
        let start = Instant::now();
        let mut survivors = Survivors::after(&facts, &overdeleted);
        let rederived = rederive(&store, &facts, &overdeleted, &mut survivors);
        let rederive_us = micros(start);

        let mut rounds = Vec::new();
        for (i, frontier) in overdeleted.frontiers().iter().enumerate() {
            rounds.push(Round::with_facts(
                Phase::Overdelete,
                i + 1,
                facts.sorted_facts(frontier.0.iter().copied()),
            ));
        }
        for (i, restored) in rederived.rounds.iter().enumerate() {
            rounds.push(Round::with_facts(
                Phase::Rederive,
                i + 1,
                facts.sorted_facts(restored.iter().copied()),
            ));
        }
        let mut report = BatchReport {
            overdeleted: Some(overdeleted.idb().len()),
            rederived: Some(rederived.len()),
            instances: Some(store.len() as u64),
            body_len: Some(store.body_len() as u64),
            membership_tests: Some(rederived.membership_tests),
            overdelete_us: Some(overdelete_us),
            rederive_us: Some(rederive_us),
            rounds,
            ..BatchReport::default()
        };

        // Phase 3: relations rebuilt from S, then A+ propagated.
        let start = Instant::now();
        let next = core.rebuild(&facts, &survivors);
        drop(store);
        drop(facts);
        core.relations = next;
        core.insert_phase(batch.insertions.iter().cloned(), &mut report, start);
        Ok(report)
    }

    fn model(&self) -> Model {
        self.core.model()
    }
}

/// Microseconds since `start`.
pub(crate) fn micros(start: Instant) -> u64 {
    u64::try_from(start.elapsed().as_micros()).unwrap_or(u64::MAX)
}

/// What the reference and the wrong-support control share: the program with wildcards named,
/// the plans, and the current I ∪ J as indexed relations.
#[derive(Debug)]
pub(crate) struct Core {
    /// Engine name, for messages.
    pub(crate) name: &'static str,
    /// The program as checked.
    pub(crate) program: Arc<Program>,
    /// The program with every wildcard a variable ([`instances::name_wildcards`]).
    pub(crate) named: Program,
    /// One full-match plan per rule, for enumerating instances.
    pub(crate) enumeration_plans: Vec<RulePlan>,
    /// One plan per (rule, delta position), for phase 3.
    pub(crate) insertion_plans: Vec<RulePlan>,
    /// Empty relations with every index the plans use; every relation set is a clone of it.
    template: Vec<Relation>,
    /// The current I ∪ J: the EDB and the exact IDB.
    pub(crate) relations: Vec<Relation>,
    materialised: bool,
}

impl Core {
    pub(crate) fn new(program: Arc<Program>, name: &'static str) -> Self {
        let named = instances::name_wildcards(&program);
        let mut template: Vec<Relation> = program
            .relations
            .iter()
            .map(|d| Relation::new(d.arity()))
            .collect();
        let enumeration_plans = instances::enumeration_plans(&named, &mut template);
        let insertion_plans = insert::insertion_plans(&named, &mut template);
        Core {
            name,
            relations: template.clone(),
            program,
            named,
            enumeration_plans,
            insertion_plans,
            template,
            materialised: false,
        }
    }

    fn misuse(&self, message: String) -> EngineError {
        EngineError::Misuse {
            engine: self.name.into(),
            message,
        }
    }

    pub(crate) fn store_error(&self, e: StoreError) -> EngineError {
        match e {
            StoreError::TooLarge(_) => EngineError::Unsupported {
                engine: self.name.into(),
                feature: e.to_string(),
            },
            StoreError::NotClosed(_) => self.misuse(e.to_string()),
        }
    }

    fn describe(&self, f: &Fact) -> String {
        let name = self
            .program
            .relations
            .get(f.rel)
            .map_or("<no such relation>", |d| d.name.as_str());
        format!("{name}{:?}", f.tuple)
    }

    /// Checks that `f` is a well-formed fact of an `.input` relation.
    fn check_edb_fact(&self, f: &Fact) -> Result<(), EngineError> {
        match self.program.relations.get(f.rel) {
            Some(d) if d.input && d.arity() == f.tuple.len() => Ok(()),
            _ => Err(self.misuse(format!(
                "{} is not a fact of an input relation of its arity",
                self.describe(f)
            ))),
        }
    }

    /// Builds I ∪ J from `edb` by phase 3 from empty relations.
    pub(crate) fn materialise(&mut self, edb: &Edb) -> Result<BatchReport, EngineError> {
        if self.program.has_negation() {
            return Err(EngineError::Unsupported {
                engine: self.name.into(),
                feature: "negation (DRed as in the seed covers positive programs)".into(),
            });
        }
        if edb.relations.len() > self.program.relations.len()
            && edb.relations[self.program.relations.len()..]
                .iter()
                .any(|r| !r.is_empty())
        {
            return Err(self.misuse("the EDB has facts of undeclared relations".into()));
        }
        for f in edb.facts() {
            self.check_edb_fact(&f)?;
        }
        let program_facts = self
            .program
            .facts
            .iter()
            .map(|pf| Fact::new(pf.rel, pf.tuple.clone()));
        let first: Vec<Fact> = edb.facts().chain(program_facts).collect();
        self.relations = self.template.clone();
        let mut report = BatchReport::default();
        self.insert_phase(first, &mut report, Instant::now());
        // Batch 0 is no DRed batch: only its time and rounds are reported; the facts it
        // derived are the report's `model_added`.
        report.inserted = None;
        self.materialised = true;
        Ok(report)
    }

    /// Checks that `batch` is normalised against this engine's EDB: D- present, A+ absent,
    /// every fact of an input relation with the right arity.
    pub(crate) fn check_batch(&self, batch: &Batch) -> Result<(), EngineError> {
        if !self.materialised {
            return Err(self.misuse("apply before materialise".into()));
        }
        for f in &batch.deletions {
            self.check_edb_fact(f)?;
            if !self.relations[f.rel].contains(&f.tuple) {
                return Err(self.misuse(format!(
                    "deleted fact {} is absent: the batch is not normalised against this EDB",
                    self.describe(f)
                )));
            }
        }
        for f in &batch.insertions {
            self.check_edb_fact(f)?;
            if self.relations[f.rel].contains(&f.tuple) {
                return Err(self.misuse(format!(
                    "inserted fact {} is present: the batch is not normalised against this EDB",
                    self.describe(f)
                )));
            }
        }
        Ok(())
    }

    /// The report of a batch that changes nothing: nothing enumerated, nothing moved.
    pub(crate) fn unchanged() -> BatchReport {
        BatchReport {
            overdeleted: Some(0),
            rederived: Some(0),
            inserted: Some(0),
            overdelete_us: Some(0),
            rederive_us: Some(0),
            insert_us: Some(0),
            instances: Some(0),
            body_len: Some(0),
            membership_tests: Some(0),
            ..BatchReport::default()
        }
    }

    /// D- as the first frontier: the ids of the batch's deletions (present, by
    /// [`Core::check_batch`]), sorted by value.
    pub(crate) fn deletions(
        &self,
        facts: &FactTable<'_>,
        batch: &Batch,
    ) -> Result<Frontier, EngineError> {
        let mut ids = Vec::with_capacity(batch.deletions.len());
        for f in &batch.deletions {
            match facts.id(f.rel, &f.tuple) {
                Some(id) => ids.push(id),
                None => {
                    return Err(self.misuse(format!("deleted fact {} is absent", self.describe(f))))
                }
            }
        }
        ids.sort_by(|&a, &b| facts.cmp_by_value(a, b));
        ids.dedup();
        Ok(Frontier(ids))
    }

    /// Fresh relations (with every index) holding exactly the facts of `survivors`, in id order.
    pub(crate) fn rebuild(&self, facts: &FactTable<'_>, survivors: &Survivors) -> Vec<Relation> {
        let mut next = self.template.clone();
        for f in survivors.iter() {
            next[facts.rel(f)].insert(facts.tuple(f));
        }
        next
    }

    /// Phase 3 from the current relations with `first` as the first delta; fills the insert
    /// figures of `report` (time measured from `start`).
    pub(crate) fn insert_phase(
        &mut self,
        first: impl IntoIterator<Item = Fact>,
        report: &mut BatchReport,
        start: Instant,
    ) {
        let inserted = insert::insert(
            &self.program,
            &self.insertion_plans,
            &mut self.relations,
            first,
        );
        report.insert_us = Some(micros(start));
        report.inserted = Some(inserted.idb_added);
        for (i, facts) in inserted.rounds.into_iter().enumerate() {
            report
                .rounds
                .push(Round::with_facts(Phase::Insert, i + 1, facts));
        }
        if cfg!(debug_assertions) {
            for r in &self.relations {
                r.check_invariants();
            }
        }
    }

    /// The IDB part of the current relations.
    pub(crate) fn model(&self) -> Model {
        let mut m = Model::empty(&self.program);
        for (rel, r) in self.relations.iter().enumerate() {
            if self.program.is_idb(rel) {
                m.relations[rel] = r.rows(r.all()).map(<[Value]>::to_vec).collect();
            }
        }
        m
    }
}

#[cfg(test)]
mod tests;
