//! The production DRed engine (`dred`): the three phases of SPEC §4 without materialising
//! ground instances — delta rules evaluated over indexed relations.
//!
//! State between batches is only the model: one [`Relation`] per relation (EDB and IDB) with
//! the indexes the plans need, kept up to date through all three phases instead of rebuilt.
//! Deletion leaves tombstones (row ids stay valid while a batch runs); relations are compacted
//! between batches once tombstones outnumber live rows.
//!
//! Per batch:
//! 1. [`overdelete`]: from D- outwards, a rule fires when one body atom matches a frontier
//!    fact and the others match the *old* relations — nothing is removed until the phase
//!    ends, so the relations are the old ones throughout;
//! 2. [`rederive`]: round 1 looks, for every over-deleted fact, for one instance with the
//!    head bound whose body holds in the survivors (or, when most of a relation was
//!    over-deleted, enumerates the rule's instances over the survivors once); round k+1
//!    follows delta rules from the facts restored in round k — an instance not available
//!    in round k must use one — or searches again for each fact still pending, whichever
//!    is estimated cheaper;
//! 3. [`insert`]: semi-naive evaluation over the updated relations, the delta in any body
//!    position (EDB atoms included), starting from A+.
//!
//! Rounds are Jacobi rounds — what a round finds becomes visible in the next — so the
//! frontiers equal those of the reference engine fact for fact.
//!
//! Cost: phase 1 is proportional to the instances through over-deleted facts, phase 2 to
//! one bounded search per over-deleted fact plus the instances through restored facts,
//! phase 3 to the instances through new facts. Memory: the model, its indexes and, during a
//! batch, the sets of that batch.
//!
//! This module is the engine: its state between batches and the order of the phases. What
//! the phases share lives beside them: the plans made once per program (`plans.rs`), the
//! batched head lookups (`heads.rs`), the sets of facts as row references and their spare
//! vectors (`rows.rs`, [`RowRef`]); phase 2's cost model is [`rederive_cost`].

pub mod insert;
pub mod overdelete;
pub mod rederive;
pub mod rederive_cost;

mod heads;
mod plans;
mod rows;

use std::collections::HashSet;
use std::sync::Arc;
use std::time::Instant;

use crate::engine::{
    Batch, BatchReport, Edb, Engine, EngineError, Fact, Model, ModelDigest, NetChange, Phase, Round,
};
use crate::exec::{idb_digest, idb_model};
use crate::program::{Program, RelId};
use crate::storage::{Relation, RowMarks};
use crate::value::Tuple;
use heads::RecentHeads;
use plans::Plans;
use rederive_cost::RederiveCosts;
pub use rows::RowRef;

/// The production DRed engine. Cloning copies the whole model (benchmarks use it to replay
/// one batch from the same state).
#[derive(Clone, Debug)]
pub struct Dred {
    program: Arc<Program>,
    relations: Vec<Relation>,
    plans: Plans,
    /// Program facts, which rederive through their empty-body instance.
    program_facts: HashSet<(RelId, Tuple)>,
    materialised: bool,
    trace_facts: bool,
    /// Net IDB change of the last materialisation or batch.
    last_change: NetChange,
    /// The measured cost of each order of the head-bound checks and of round-1 scans, kept
    /// across batches.
    rederive_costs: RederiveCosts,
    /// Phase 1's marks of D and phase 2's of the facts still pending: kept across batches so
    /// that a batch clears only the marks it made (see [`RowMarks`]).
    deleted_marks: RowMarks,
    pending_marks: RowMarks,
    /// Phase 1's heads found lately ([`RecentHeads`]), kept across batches.
    recent_heads: RecentHeads,
    /// The results of the last batch's phases 1 and 2, emptied and filled again by the next
    /// (their vectors' memory kept, see [`SpareRows`](rows::SpareRows)).
    last_overdeleted: overdelete::OverDeleted,
    last_rederived: rederive::Rederived,
    /// Batches applied since materialisation (errors name the batch).
    batches: usize,
    /// Set when a batch found the model broken: every later batch fails with it.
    broken: Option<EngineError>,
}

impl Dred {
    /// A `dred` engine for a positive program.
    pub fn new(program: Arc<Program>) -> Self {
        let mut relations: Vec<Relation> = program
            .relations
            .iter()
            .map(|d| Relation::new(d.arity()))
            .collect();
        let plans = Plans::new(&program, &mut relations);
        let rederive_costs = RederiveCosts::new(&program, &plans.head_bound);
        let program_facts = program
            .facts
            .iter()
            .map(|f| (f.rel, f.tuple.clone()))
            .collect();
        Dred {
            program,
            relations,
            plans,
            program_facts,
            materialised: false,
            trace_facts: true,
            last_change: NetChange::default(),
            rederive_costs,
            deleted_marks: RowMarks::default(),
            pending_marks: RowMarks::default(),
            recent_heads: RecentHeads::default(),
            last_overdeleted: overdelete::OverDeleted::default(),
            last_rederived: rederive::Rederived::default(),
            batches: 0,
            broken: None,
        }
    }

    /// Checks that `batch` is normalised against this engine's EDB, as [`Batch::normalise`]
    /// makes it: every fact of an input relation with the relation's arity, D- present, A+
    /// absent. Phase 1 relies on it (a deleted fact is a row of the model).
    fn check_batch(&self, batch: &Batch) -> Result<(), EngineError> {
        let misuse = |what: &str, f: &Fact| EngineError::Misuse {
            engine: "dred".into(),
            message: format!(
                "batch {}: {what} {}{:?}: the batch is not normalised against this EDB",
                self.batches + 1,
                self.program
                    .relations
                    .get(f.rel)
                    .map_or("?", |d| d.name.as_str()),
                f.tuple
            ),
        };
        for (facts, present, what) in [
            (&batch.deletions, true, "deleted fact is absent:"),
            (&batch.insertions, false, "inserted fact is present:"),
        ] {
            for f in facts {
                let fits = self
                    .program
                    .relations
                    .get(f.rel)
                    .is_some_and(|d| d.input && d.arity() == f.tuple.len());
                if !fits {
                    return Err(misuse("not a fact of an input relation:", f));
                }
                if self.relations[f.rel].contains(&f.tuple) != present {
                    return Err(misuse(what, f));
                }
            }
        }
        Ok(())
    }

    fn check_supported(&self) -> Result<(), EngineError> {
        if self.program.has_negation() {
            return Err(EngineError::Unsupported {
                engine: "dred".into(),
                feature: "negation (DRed over stratified negation is a later extension)".into(),
            });
        }
        Ok(())
    }

    fn fact(&self, (rel, r): RowRef) -> Fact {
        Fact::new(rel, self.relations[rel].row(r).to_vec())
    }

    fn round(&self, phase: Phase, round: usize, rows: &[RowRef]) -> Round {
        if self.trace_facts {
            Round::with_facts(phase, round, rows.iter().map(|&rr| self.fact(rr)).collect())
        } else {
            Round {
                phase,
                round,
                size: rows.len(),
                facts: Vec::new(),
            }
        }
    }

    /// Phase 1 on the current model: D from `deletions` (the D- of a normalised batch, so
    /// every fact is present), then D removed. Call [`Dred::rederive`] with the result next:
    /// until then the model lacks every over-deleted fact. Panics before
    /// [`Engine::materialise`]. An error, and nothing removed, when a fact of D is not in the
    /// model (the model was not closed under the rules, or D- not normalised); the engine
    /// refuses every later batch then.
    pub fn overdelete(
        &mut self,
        deletions: &[Fact],
    ) -> Result<overdelete::OverDeleted, EngineError> {
        assert!(self.materialised, "dred: overdelete before materialise");
        let over = overdelete::overdelete(
            &self.program,
            &self.relations,
            &self.plans,
            deletions,
            &mut self.deleted_marks,
            &mut self.recent_heads,
            std::mem::take(&mut self.last_overdeleted),
        );
        if let Some(rel) = over.not_closed {
            let error = EngineError::Invariant {
                engine: "dred".into(),
                batch: self.batches,
                invariant: format!(
                    "phase 1 reached a fact of `{}` that is not in the old model: the old model \
                     is not closed under the rules (an earlier batch left it wrong) or D- is \
                     not in it",
                    self.program.relations[rel].name
                ),
            };
            self.broken = Some(error.clone());
            return Err(error);
        }
        let mut over = over;
        // D leaves the model by row id; survivors are what stays live.
        for &(rel, r) in &over.deleted {
            self.relations[rel].remove_id(r);
        }
        over.work.touched += over.deleted.len() as u64;
        Ok(over)
    }

    /// Phase 2: restores the over-deleted facts that still have a proof. `over` must be the
    /// result of the [`Dred::overdelete`] just before (its row ids index this model).
    pub fn rederive(&mut self, over: &overdelete::OverDeleted) -> rederive::Rederived {
        rederive::rederive(
            &self.program,
            &mut self.relations,
            &self.plans,
            &mut self.rederive_costs,
            &self.program_facts,
            &over.overdeleted_idb,
            &mut self.pending_marks,
            std::mem::take(&mut self.last_rederived),
        )
    }

    /// How round 1 of rederivation finds proofs from now on; the default picks per rule by
    /// estimated cost. Results do not depend on it (tests run every choice).
    pub fn set_round1(&mut self, round1: rederive::Round1) {
        self.rederive_costs.round1 = round1;
    }

    /// How rounds 2 and later of rederivation find proofs from now on; the default picks per
    /// round by estimated cost. Results do not depend on it (tests run every choice).
    pub fn set_later_rounds(&mut self, later: rederive::LaterRounds) {
        self.rederive_costs.later_rounds = later;
    }

    /// Phase 3: adds `insertions` (the A+ of a normalised batch) and what follows from them.
    /// Afterwards the model is the least model of the program on the updated EDB.
    pub fn insert(&mut self, insertions: &[Fact]) -> insert::Inserted {
        assert!(self.materialised, "dred: insert before materialise");
        insert::insert(
            &self.program,
            &mut self.relations,
            &self.plans,
            insertions,
            self.trace_facts,
        )
    }

    /// Facts in the derived relations.
    fn idb_len(&self) -> usize {
        self.relations
            .iter()
            .enumerate()
            .filter(|(rel, _)| self.program.is_idb(*rel))
            .map(|(_, r)| r.len())
            .sum()
    }

    /// Ends a batch run phase by phase: compacts relations whose tombstones outnumber their
    /// live rows (row ids change, so no phase result of the batch may be used afterwards).
    pub fn end_batch(&mut self) {
        for r in &mut self.relations {
            if r.dead_count() > 1024 && r.dead_count() > r.len() {
                r.compact();
            }
        }
    }
}

impl Engine for Dred {
    fn name(&self) -> &str {
        "dred"
    }

    fn materialise(&mut self, edb: &Edb) -> Result<BatchReport, EngineError> {
        self.check_supported()?;
        for r in &mut self.relations {
            r.clear();
        }
        self.batches = 0;
        self.broken = None;
        // The initial model is phase 3 from an empty model, with the whole EDB and the program
        // facts as the first delta, read where they are rather than copied or listed: on a
        // large EDB and a small model a copy as facts (a heap block per tuple) was a third of
        // the engine's peak memory, and a list of references to them 8 bytes an edge of it.
        let facts = &self.program.facts;
        let first = edb.relations.iter().enumerate().map(|(rel, tuples)| {
            tuples
                .iter()
                .chain(facts.iter().filter(move |f| f.rel == rel).map(|f| &f.tuple))
        });
        self.materialised = true;
        let t = Instant::now();
        let outcome = insert::insert_rows(
            &self.program,
            &mut self.relations,
            &self.plans,
            first,
            self.trace_facts,
        );
        self.last_change = NetChange {
            removed: 0,
            added: self.idb_len(),
        };
        // As the reference, batch 0 leaves `inserted` empty: the model's size says it all.
        Ok(BatchReport {
            insert_us: Some(t.elapsed().as_micros() as u64),
            insert_work: Some(outcome.work),
            rounds: outcome.rounds,
            ..BatchReport::default()
        })
    }

    fn apply(&mut self, batch: &Batch) -> Result<BatchReport, EngineError> {
        if !self.materialised {
            return Err(EngineError::Misuse {
                engine: "dred".into(),
                message: "apply before materialise".into(),
            });
        }
        if let Some(e) = &self.broken {
            return Err(e.clone());
        }
        self.check_batch(batch)?;
        self.batches += 1;
        let mut report = BatchReport::default();

        let t = Instant::now();
        let over = self.overdelete(&batch.deletions)?;
        report.overdelete_us = Some(t.elapsed().as_micros() as u64);
        report.overdeleted = Some(over.overdeleted_idb.len());
        report.overdelete_work = Some(over.work);
        let mut rounds: Vec<Round> = over
            .rounds
            .iter()
            .enumerate()
            .map(|(i, rows)| self.round(Phase::Overdelete, i + 1, rows))
            .collect();

        let t = Instant::now();
        let re = self.rederive(&over);
        report.rederive_us = Some(t.elapsed().as_micros() as u64);
        report.rederived = Some(re.rederived);
        report.rederive_work = Some(re.work);
        for (i, rows) in re.rounds.iter().enumerate() {
            rounds.push(self.round(Phase::Rederive, i + 1, rows));
        }

        let t = Instant::now();
        let ins = self.insert(&batch.insertions);
        report.insert_us = Some(t.elapsed().as_micros() as u64);
        report.inserted = Some(ins.inserted);
        report.insert_work = Some(ins.work);
        rounds.extend(ins.rounds);
        report.rounds = rounds;

        // Net change: an over-deleted fact not rederived is gone unless phase 3 derived it
        // again (as a new row); one probe per such fact, before compaction moves rows.
        let (mut gone, mut back) = (0, 0);
        for &(rel, r) in &over.overdeleted_idb {
            let relation = &self.relations[rel];
            if !relation.is_live(r) {
                if relation.row_id(relation.row(r)).is_some() {
                    back += 1;
                } else {
                    gone += 1;
                }
            }
        }
        self.last_change = NetChange {
            removed: gone,
            added: ins.inserted - back,
        };

        self.end_batch();
        self.last_overdeleted = over;
        self.last_rederived = re;
        if cfg!(debug_assertions) {
            for r in &self.relations {
                r.check_invariants();
            }
        }
        Ok(report)
    }

    fn set_trace_facts(&mut self, on: bool) {
        self.trace_facts = on;
    }

    fn digest(&self) -> ModelDigest {
        idb_digest(&self.program, &self.relations)
    }

    fn net_change(&self) -> Option<NetChange> {
        Some(self.last_change)
    }

    fn model(&self) -> Model {
        idb_model(&self.program, &self.relations)
    }
}

#[cfg(test)]
mod tests;
