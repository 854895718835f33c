//! The Backward/Forward maintenance engine (`bf`), after Motik, Nenov, Piro and Horrocks,
//! "Incremental Update of Datalog Materialisation: the Backward/Forward Algorithm", AAAI 2015:
//! the B/F algorithm the paper presents — a deletion loop over a queue of facts, with the
//! procedures `checkProvability` (backward chaining, memoised in the sets C and P) and
//! `saturate` (forward chaining restricted to C). The paper's text could not be read from this
//! machine when the engine was written (no network), so we cite the algorithm rather than a
//! section and page, state what is implemented here in full, and test it against the oracle
//! and against the property the paper proves for B/F (it deletes only facts without a
//! derivation), not against the paper's pseudocode.
//!
//! Where DRed deletes every fact with an old derivation through a deleted fact and then puts
//! back those that still have one, B/F asks first: before a fact reached from a deletion is
//! deleted, a *check* ([`check`]) looks backwards for a derivation from facts that are still
//! proved; only a fact without one is deleted, and only its consequences are followed
//! ([`delete`]). Insertions then run semi-naively, exactly as `dred`'s phase 3.
//!
//! Per batch and level (levels as in [`crate::dred`]: level 0 from D- and A+, each level above
//! from the net changes of those below):
//! 1. **delete** ([`delete`]): at level 0, D- leaves the model; above, the level's facts
//!    reached from the changes below through an *old* instance (as DRed's phase 1 finds its
//!    round 1, over the relations as they were) are checked. Then, round by round, the heads
//!    of instances through a fact just deleted are checked, over the level's facts not deleted
//!    yet and the new relations below, and those found underivable are deleted. Checks are
//!    memoised for the whole level: the sets C (checked) and P (proved) only grow. The
//!    level's aggregate rows of changed groups are checked by their group's new value.
//! 2. **insert**: `dred`'s phase 3 ([`crate::dred::production::insert`]), unchanged.
//!
//! What B/F guarantees (tested by `bf_deletes_exactly_what_lost_every_derivation`): on a
//! positive program its deleted set is the old IDB minus the least model of the program over
//! E \ E− — no fact is deleted that still has a derivation, so nothing is put back — and, on a
//! batch without insertions, the batch's net removal. It reports `overdeleted` = the facts it
//! deleted, `rederived` = 0, and `checked`, `disproved` (= deleted, checked by the engine) and
//! `backward_instances`. Trace rounds are phase `delete` (round 1: D-, or at a level above the
//! candidates found underivable) and `insert`.
//!
//! Cost: per batch, the checks (per checked fact, its instances with the head bound, the first
//! one whose body is proved ending the search) plus the instances through deleted facts plus
//! phase 3. A check may explore much of the model when many facts depend on one another
//! through cycles whose facts all lost their outside support (the paper's worst case); DRed
//! pays the same facts in over-deletion and rederivation. Memory: the model and its indexes,
//! B/F's head-bound plans, and during a batch the sets C and P (one bit a row) and the open
//! body facts of the instances of facts not proved at once.
//!
//! The engine shares `dred`'s storage, plans, executor, levels and insertion
//! ([`crate::Dred`] runs with B/F's deletion in place of its phases 1 and 2); it stores no
//! instances between batches.

pub mod check;
pub mod delete;
#[cfg(test)]
mod tests;

use std::sync::Arc;

use crate::engine::{Batch, BatchReport, Edb, Engine, EngineError, Model, ModelDigest, NetChange};
use crate::program::Program;
use crate::Dred;

/// The Backward/Forward engine. Cloning copies the whole model.
#[derive(Clone, Debug)]
pub struct Bf {
    engine: Dred,
}

impl Bf {
    /// A `bf` engine for a program, with or without stratified negation and aggregates.
    pub fn new(program: Arc<Program>) -> Self {
        Bf {
            engine: Dred::backward_forward(program),
        }
    }
}

impl Bf {
    /// The facts the last batch checked, in the order their checks began (level after
    /// level), each with whether the check proved it; empty unless facts are traced
    /// ([`Engine::set_trace_facts`], on by default).
    pub fn last_checks(&self) -> &[(crate::engine::Fact, bool)] {
        self.engine.last_checks()
    }

    /// [`Dred::set_recording`]: each fact deleted is recorded with the instance that made it
    /// a candidate, each fact inserted with the first instance that derived it.
    pub fn set_recording(&mut self, on: bool) {
        self.engine.set_recording(on);
    }

    /// [`Dred::last_derivations`].
    pub fn last_derivations(&self) -> Option<&[crate::record::Derivation]> {
        self.engine.last_derivations()
    }
}

impl Engine for Bf {
    fn name(&self) -> &str {
        self.engine.name()
    }

    fn materialise(&mut self, edb: &Edb) -> Result<BatchReport, EngineError> {
        self.engine.materialise(edb)
    }

    fn apply(&mut self, batch: &Batch) -> Result<BatchReport, EngineError> {
        self.engine.apply(batch)
    }

    fn set_trace_facts(&mut self, on: bool) {
        self.engine.set_trace_facts(on);
    }

    fn digest(&self) -> ModelDigest {
        self.engine.digest()
    }

    fn net_change(&self) -> Option<NetChange> {
        self.engine.net_change()
    }

    fn model(&self) -> Model {
        self.engine.model()
    }
}
