//! One engine, the deletion algorithm chosen batch by batch: DRed, B/F or recomputing the
//! affected levels, all on the chassis's one storage ([`crate::maintain`]). Each algorithm
//! keeps its own state between batches (DRed's measured costs, B/F's plans and scratch), so
//! a batch of one leaves the others ready; what they share is the model, which each leaves as
//! the least model of the program on the updated EDB.
//!
//! This module only makes the choice possible; choosing well is left to a caller (the
//! engine `auto` will choose per batch from measured costs).

use std::sync::Arc;

use crate::bf::BfDeletion;
use crate::dred::production::DredDeletion;
use crate::engine::{BatchReport, EngineError, Fact};
use crate::maintain::levels::LowerChanges;
use crate::maintain::plans::AggregatePlan;
use crate::maintain::recompute::Recompute;
use crate::maintain::{Deleted, Deletion, LevelDeletion, Maintained, RowRef, Store};
use crate::program::Program;
use crate::value::Tuple;

/// A deletion algorithm of the chassis.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    /// DRed: over-delete, then rederive.
    Dred,
    /// Backward/Forward: delete only what a check finds underivable.
    BackwardForward,
    /// Recompute the affected strata of each level from the levels below.
    Recompute,
}

impl Method {
    /// Every method, in a fixed order.
    pub const ALL: [Method; 3] = [Method::Dred, Method::BackwardForward, Method::Recompute];
}

/// The three algorithms, and which one the next batch uses.
#[derive(Clone, Debug)]
pub struct PerBatchDeletion {
    dred: DredDeletion,
    bf: BfDeletion,
    recompute: Recompute,
    /// The method of the batches from now on, until changed.
    method: Method,
    /// The method of the last batch applied (its report's counters are that method's).
    last: Method,
    /// Batch k uses `Method::ALL[(k - 1) % 3]`, whatever [`PerBatch::set_method`] said.
    rotate: bool,
}

/// An engine whose deletion algorithm is chosen per batch ([`PerBatch::set_method`]).
pub type PerBatch = Maintained<PerBatchDeletion>;

impl PerBatchDeletion {
    /// The algorithm of the running batch.
    fn chosen(&mut self) -> &mut dyn Deletion {
        match self.method {
            Method::Dred => &mut self.dred,
            Method::BackwardForward => &mut self.bf,
            Method::Recompute => &mut self.recompute,
        }
    }
}

impl Deletion for PerBatchDeletion {
    fn name(&self) -> &'static str {
        if self.rotate {
            "rotate"
        } else {
            "per-batch"
        }
    }

    fn materialised(&mut self, store: &Store) {
        self.dred.materialised(store);
        self.bf.materialised(store);
        self.recompute.materialised(store);
    }

    fn delete_level0(
        &mut self,
        store: &mut Store,
        deletions: &[Fact],
        reuse: Deleted,
    ) -> Result<LevelDeletion, EngineError> {
        if self.rotate {
            self.method = Method::ALL[(store.batches - 1) % Method::ALL.len()];
        }
        self.last = self.method;
        if self.method != Method::Recompute {
            store.build_deferred_indexes();
        }
        self.chosen().delete_level0(store, deletions, reuse)
    }

    /// The chosen algorithm builds what a recomputation deferred, or not (a recomputation
    /// after a recomputation leaves them deferred): the alternation tests cover both.
    fn reads_indexes(&self) -> bool {
        false
    }

    fn delete_level(
        &mut self,
        store: &mut Store,
        level: usize,
        changes: &LowerChanges,
        touched: &[(AggregatePlan, Tuple)],
        old_rows: &[Option<RowRef>],
    ) -> Result<LevelDeletion, EngineError> {
        if self.method != Method::Recompute {
            store.build_deferred_indexes();
        }
        self.chosen()
            .delete_level(store, level, changes, touched, old_rows)
    }

    fn report(&mut self, store: &Store, report: &mut BatchReport) {
        self.chosen().report(store, report);
    }
}

impl Maintained<PerBatchDeletion> {
    /// An engine for `program` with every algorithm's plans, DRed's deletion until
    /// [`PerBatch::set_method`] says otherwise.
    pub fn new(program: Arc<Program>) -> Self {
        Self::scheduled(program, false)
    }

    /// An engine (`rotate`) whose batch k uses DRed, B/F and recomputation in turn
    /// (`Method::ALL[(k - 1) % 3]`): each hands the next a model the others maintained, which
    /// is what the fuzzer checks it on.
    pub fn rotating(program: Arc<Program>) -> Self {
        Self::scheduled(program, true)
    }

    fn scheduled(program: Arc<Program>, rotate: bool) -> Self {
        Self::with(program, |store| PerBatchDeletion {
            dred: DredDeletion::new(store),
            bf: BfDeletion::new(store),
            recompute: Recompute,
            method: Method::Dred,
            last: Method::Dred,
            rotate,
        })
    }

    /// The deletion algorithm of the batches from now on (ignored by a rotating engine).
    pub fn set_method(&mut self, method: Method) {
        self.deletion.method = method;
    }

    /// The deletion algorithm of the last batch applied.
    pub fn last_method(&self) -> Method {
        self.deletion.last
    }
}
