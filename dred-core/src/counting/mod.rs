//! `counting`: maintenance by derivation counts — one count per fact in non-recursive strata
//! (Gupta, Mumick and Subrahmanian, "Maintaining views incrementally", SIGMOD 1993), counts
//! per round of semi-naive evaluation in recursive strata (after the *recursive counting* of
//! Motik, Nenov, Piro and Horrocks, "Maintenance of datalog materialisations revisited", AIJ
//! 2019, §4; that paper was not at hand, so what is implemented is stated here and its
//! properties are tested, not its sections followed).
//!
//! Contract.
//! - Input: a checked program — positive, with stratified negation, with aggregates: every
//!   program the checker accepts — and, per batch, a normalised [`Batch`].
//! - Output: after [`Engine::materialise`] and each [`Engine::apply`], the model is the least
//!   (stratified) model of the program on the EDB so far, equal to the oracle's.
//! - Postcondition, per derived fact of a non-recursive stratum: its count is the number of
//!   rule instances (program facts included) deriving it over the current database, above 0
//!   exactly when it holds. Per fact of a recursive stratum: its counts per round
//!   (`rounds`), the first of which is the round semi-naive evaluation first derives it in.
//!   An aggregate fact holds alone for its group (no count).
//! - Algorithm: the database changes one fact at a time (`events`): EDB facts first, then
//!   stratum by stratum in evaluation order each fact whose count left or reached 0 (a
//!   non-recursive stratum), whose round counts came or went (a recursive stratum, maintained
//!   by differences round by round: `differences`), or whose group's value moved (an
//!   aggregate, folded again from its input). Every event adjusts the counts of the
//!   non-recursive rules above it by the delta rules, seeded with its fact on the chassis's
//!   plans and executor ([`crate::exec::Matcher`]). A lower stratum's net changes feed the
//!   next, as in `dred`; negation counts an instance from the moment its negated fact
//!   leaves. In a recursive stratum, a changed input fact moves the instances that use it,
//!   and then, in increasing order of rounds, every fact whose round changed (it came, left,
//!   or its first derivation moved) moves the instances that use it; rounds nothing reached
//!   are not looked at. Materialisation evaluates each recursive stratum from round 1
//!   (`rounds`).
//! - What it is not: a fact whose first derivation moves to a later round moves every
//!   instance that uses it, and so on up the rounds — a deletion that lengthens the
//!   shortest derivations of many facts (a cut through a long chain) costs those facts'
//!   instances twice (out, then in) even where every fact stays, the known weakness of
//!   recursive counting against DRed and B/F. Materialisation is event by event: slower than
//!   `recompute`'s evaluation (a memchr borrow check: 9.7 s against 3.4 s, loaded).
//! - Counters ([`BatchReport`]): `counts_changed` (facts whose count, or counts per round,
//!   differ after the batch, facts that came and went included; an aggregate row that came
//!   or went counts as a count of 1 reaching or leaving 0), `rounds_moved` (recursive
//!   facts holding before and after whose round differs), `rounds_replayed` (at
//!   materialisation the rounds evaluated; in a batch the rounds looked at, summed over the
//!   recursive strata), `inserted`/`overdeleted` (derived facts that came/went),
//!   `insert_work` and `insert_ns` (the whole batch: joins, one probe per row inserted or
//!   removed or instance moved).
//! - Cost per batch: O(Σ instances using a changed fact) for the non-recursive strata, each
//!   found by one seeded join per event; per recursive stratum, O(Σ instances using a changed
//!   input fact or a fact whose round changed), each found by one seeded join and costing a
//!   lookup per body fact of the stratum. Memory: the relations, two words per row of a
//!   relation of a non-recursive stratum (its count, and its change during a batch, columns
//!   by row id: `events::CountDeltas`) and, per row of a relation of a recursive one, a
//!   (round, count) pair of 8 bytes, its whole list in a map beside when it has derivations
//!   in more than one round (`rounds::RoundColumn`; a fact of a recursive stratum keeps one
//!   row for as long as it has counts, [`Relation::make_live`]); during a batch, the old
//!   counts of the recursive facts it touches. A head reached but not derived stays as a
//!   tombstone with no count until the relation is compacted (when its tombstones outnumber
//!   its live rows).

mod differences;
mod events;
mod plans;
mod rounds;
#[cfg(test)]
mod tests;

use std::sync::Arc;
use std::time::Instant;

use crate::engine::{
    Batch, BatchReport, Edb, Engine, EngineError, Fact, Model, ModelDigest, NetChange,
};
use crate::exec::{idb_digest, idb_model};
use crate::maintain::plans::AggregatePlan;
use crate::maintain::prefetch_lookups;
use crate::program::{Program, RelId};
use crate::storage::{prefetch, Relation, RowId};
use crate::value::{Tuple, Value};
use events::{CountDeltas, Database, Pending, LOOKUPS_AHEAD};
use plans::CountingPlans;
use rounds::RoundColumn;
pub use rounds::RoundCounts;

/// The counts of one relation's facts.
#[derive(Clone, Debug)]
enum FactCounts {
    /// An EDB or aggregate relation: a fact holds by being stored.
    Stored,
    /// A relation of a non-recursive stratum: derivations per fact, by row id (0 for a
    /// tombstone, above 0 for a live row; rows past the end count 0).
    Single(Vec<u64>),
    /// A relation of a recursive stratum: derivations per fact and round, by row id.
    PerRound(RoundColumn),
}

/// The `counting` engine (see the module header).
#[derive(Clone, Debug)]
pub struct Counting {
    /// The program as given.
    program: Arc<Program>,
    /// The program, wildcards of positive atoms named (so a binding names every body fact).
    named: Arc<Program>,
    /// Every relation, EDB and IDB, with the plans' indexes.
    relations: Vec<Relation>,
    plans: CountingPlans,
    /// Per relation.
    counts: Vec<FactCounts>,
    /// What a batch has changed so far, kept between batches with every change 0 and every
    /// list empty (its allocations kept): per relation the columns a batch's count changes
    /// are gathered in, and the scratch space of the events. Why kept: made afresh, it cost
    /// a single-edge deletion from two-hop paths over GO MF about ten heap blocks, and kept,
    /// that batch took 6.1 µs instead of 7.8 with every call cold (`apply_loop`, `SCRUB=1`).
    pending: Pending,
    materialised: bool,
    /// Batches applied since materialisation.
    batches: usize,
    /// Set when a batch found the counts broken: every later batch fails with it.
    broken: Option<EngineError>,
    /// Net change of the last materialisation or batch.
    last_change: NetChange,
}

/// Where the facts of a batch are stored, found by its check.
#[derive(Debug, Default)]
struct StoredBatch {
    /// The deleted facts' rows, in the batch's order.
    deleted: Vec<(RelId, RowId)>,
    /// Inserted facts stored as tombstones (deleted since the relation was last compacted):
    /// their rows, which they come back under, as `dred`'s insertion revives them.
    revived: Vec<(RelId, RowId)>,
    /// The other inserted facts, by their place in the batch's insertions.
    appended: Vec<usize>,
}

/// The counters of one batch, summed over strata.
#[derive(Debug, Default)]
struct Counters {
    counts_changed: u64,
    rounds_moved: u64,
    rounds_replayed: u64,
}

impl Counting {
    /// A counting engine for `program`; it supports every checked program.
    pub fn new(program: Arc<Program>) -> Self {
        let named = Arc::new(program.with_named_wildcards());
        let mut relations: Vec<Relation> = named
            .relations
            .iter()
            .map(|d| Relation::new(d.arity()))
            .collect();
        let plans = CountingPlans::new(&named, &mut relations);
        let counts = (0..named.relations.len())
            .map(|rel| match named.stratum_of[rel] {
                Some(s) if named.strata[s].aggregate.is_some() => FactCounts::Stored,
                Some(s) if named.strata[s].recursive => {
                    FactCounts::PerRound(RoundColumn::default())
                }
                Some(_) => FactCounts::Single(Vec::new()),
                None => FactCounts::Stored,
            })
            .collect();
        Counting {
            pending: Pending::new(
                vec![CountDeltas::default(); named.relations.len()],
                named.strata.len(),
                named.aggregates.len(),
            ),
            program,
            named,
            relations,
            plans,
            counts,
            materialised: false,
            batches: 0,
            broken: None,
            last_change: NetChange::default(),
        }
    }

    /// The program it maintains, as it was given.
    pub fn program(&self) -> &Arc<Program> {
        &self.program
    }

    /// The derivation count of a fact of a non-recursive stratum (0 when it does not hold);
    /// `None` for a relation of another kind.
    pub fn count(&self, rel: RelId, tuple: &[Value]) -> Option<u64> {
        match &self.counts[rel] {
            FactCounts::Single(c) => Some(
                self.relations[rel]
                    .row_id(tuple)
                    .map_or(0, |r| c[r as usize]),
            ),
            _ => None,
        }
    }

    /// The derivation counts per round of a fact of a recursive stratum, (round, count)
    /// pairs with rounds ascending (empty when it does not hold); `None` for a relation of
    /// another kind.
    pub fn round_counts(&self, rel: RelId, tuple: &[Value]) -> Option<RoundCounts> {
        match &self.counts[rel] {
            FactCounts::PerRound(c) => Some(
                self.relations[rel]
                    .row_id(tuple)
                    .map_or_else(Vec::new, |r| c.get(r)),
            ),
            _ => None,
        }
    }

    /// Runs the events of the EDB facts `stored` lists (leaving, then coming back under
    /// their old rows) and then of `edb_events` (EDB facts entering or leaving), then every
    /// stratum in evaluation order from what reached it; `pending` may hold counts noted
    /// already.
    fn propagate(
        &mut self,
        stored: &StoredBatch,
        edb_events: impl IntoIterator<Item = (RelId, Tuple, bool)>,
        mut pending: Pending,
    ) -> Result<(Pending, Counters), EngineError> {
        let program = self.named.clone();
        let mut counters = Counters::default();
        let mut db = Database {
            program: &program,
            relations: &mut self.relations,
            plans: &self.plans,
        };
        db.row_events(&mut pending, &stored.deleted, false);
        db.row_events(&mut pending, &stored.revived, true);
        // Insertions into a relation no rule negates come in runs, stored together.
        let mut run: (Option<RelId>, Vec<Value>) = (None, Vec::new());
        for (rel, tuple, insert) in edb_events {
            let in_runs = insert && !tuple.is_empty() && self.plans.negative[rel].is_empty();
            if in_runs && run.0 == Some(rel) {
                run.1.extend_from_slice(&tuple);
                continue;
            }
            if let Some(r) = run.0.take() {
                db.insert_run(&mut pending, r, &run.1);
                run.1.clear();
            }
            if in_runs {
                run = (Some(rel), tuple);
            } else {
                db.event(&mut pending, rel, &tuple, insert);
            }
        }
        if let Some(r) = run.0 {
            db.insert_run(&mut pending, r, &run.1);
        }
        for (s, stratum) in program.strata.iter().enumerate() {
            if let Some(k) = stratum.aggregate {
                counters.counts_changed +=
                    fold_groups(&mut db, &mut pending, &self.plans.aggregates[k]);
                continue;
            }
            if let Some(replay) = &self.plans.replay[s] {
                if !std::mem::take(&mut pending.dirty[s]) {
                    continue;
                }
                let mut counts: Vec<RoundColumn> = stratum
                    .relations
                    .iter()
                    .map(|&rel| match &mut self.counts[rel] {
                        FactCounts::PerRound(c) => std::mem::take(c),
                        _ => unreachable!("a relation of a recursive stratum"),
                    })
                    .collect();
                let changed = std::mem::take(&mut pending.changed_inputs[s]);
                let replayed = if pending.from_round_1[s] {
                    db.materialise_rounds(s, replay, &mut counts, &mut pending)
                } else {
                    match db.maintain_rounds(s, replay, &mut counts, changed, &mut pending) {
                        Ok(replayed) => replayed,
                        Err(message) => {
                            return Err(EngineError::Invariant {
                                engine: "counting".into(),
                                batch: self.batches,
                                invariant: message,
                            })
                        }
                    }
                };
                counters.counts_changed += replayed.counts_changed;
                counters.rounds_moved += replayed.rounds_moved;
                counters.rounds_replayed += replayed.rounds;
                for (&rel, c) in stratum.relations.iter().zip(counts) {
                    self.counts[rel] = FactCounts::PerRound(c);
                }
                continue;
            }
            for &rel in &stratum.relations {
                db.settle_heads(&mut pending);
                // In the order the rows' counts first changed: fixed by the batch, so that
                // its work counts do not depend on hashing.
                let touched = pending.counts[rel].take_touched();
                let FactCounts::Single(counts) = &mut self.counts[rel] else {
                    unreachable!("a relation of a non-recursive stratum");
                };
                let end = db.relations[rel].end() as usize;
                if counts.len() < end {
                    counts.resize(end, 0);
                }
                // Rows are touched in the order instances found them: scattered. The reads
                // of the first rows start together too: on a single-fact batch there are no
                // rows further ahead, and every read misses the cache.
                let prefetch_row =
                    |r: RowId, pending: &Pending, relation: &Relation, counts: &[u64]| {
                        pending.counts[rel].prefetch(r);
                        if let Some(c) = counts.get(r as usize) {
                            prefetch(c);
                        }
                        relation.prefetch_values(r);
                    };
                for &r in touched.iter().take(LOOKUPS_AHEAD) {
                    prefetch_row(r, &pending, &db.relations[rel], counts);
                }
                for (i, &r) in touched.iter().enumerate() {
                    if let Some(&ahead) = touched.get(i + LOOKUPS_AHEAD) {
                        prefetch_row(ahead, &pending, &db.relations[rel], counts);
                    }
                    let delta = pending.counts[rel].take(r);
                    if delta == 0 {
                        continue;
                    }
                    counters.counts_changed += 1;
                    let before = counts[r as usize];
                    let Some(after) = before.checked_add_signed(delta) else {
                        let message = format!(
                            "the count of {}{:?} fell below 0 ({before} {delta:+})",
                            program.relations[rel].name,
                            db.relations[rel].row(r)
                        );
                        return Err(EngineError::Invariant {
                            engine: "counting".into(),
                            batch: self.batches,
                            invariant: message,
                        });
                    };
                    counts[r as usize] = after;
                    match (before, after) {
                        (0, 0) => {}
                        (0, _) => db.event_at(&mut pending, rel, r, true),
                        (_, 0) => db.event_at(&mut pending, rel, r, false),
                        _ => {}
                    }
                }
                pending.counts[rel].give_back(touched);
            }
        }
        // The top strata's relations are read by no rule: nothing is held (a check).
        db.settle_heads(&mut pending);
        Ok((pending, counters))
    }

    /// The report of a batch (or materialisation) that took `ns` nanoseconds.
    fn report(&self, pending: &Pending, counters: &Counters, ns: u64) -> BatchReport {
        BatchReport {
            overdeleted: Some(pending.net.removed),
            inserted: Some(pending.net.added),
            insert_ns: Some(ns),
            insert_work: Some(pending.work.total()),
            counts_changed: Some(counters.counts_changed),
            rounds_moved: Some(counters.rounds_moved),
            rounds_replayed: Some(counters.rounds_replayed),
            ..BatchReport::default()
        }
    }

    /// A misuse error of the current batch.
    fn misuse(&self, message: String) -> EngineError {
        EngineError::Misuse {
            engine: "counting".into(),
            message,
        }
    }

    /// Checks that `batch` is normalised against the EDB (every deleted fact a live row of an
    /// input relation of its arity, every inserted fact not a live row of one) and says
    /// where its facts are stored: the deletion and the revivals then need no second probe
    /// per fact. The probes of the facts ahead are started early ([`prefetch_lookups`]); on
    /// two-hop paths over WordNet this check was a seventh of a 1,000-edge deletion (perf).
    fn check_batch(&self, batch: &Batch) -> Result<StoredBatch, EngineError> {
        let mut stored = StoredBatch {
            deleted: Vec::with_capacity(batch.deletions.len()),
            ..StoredBatch::default()
        };
        for (facts, deleting, what) in [
            (&batch.deletions, true, "deleted fact is absent"),
            (&batch.insertions, false, "inserted fact is present"),
        ] {
            let fits = |f: &Fact| {
                self.program
                    .relations
                    .get(f.rel)
                    .is_some_and(|d| d.input && d.arity() == f.tuple.len())
            };
            for (i, f) in facts.iter().enumerate() {
                // In three stages, as the chassis's batch check does: with the slot alone
                // started, the check took 18% of counting's 500-edge deletions from two-hop
                // paths over WordNet, against 5% of `dred`'s (perf, one run each).
                prefetch_lookups(&self.relations, facts, i);
                let fits = fits(f);
                let found = if fits {
                    let relation = &self.relations[f.rel];
                    relation
                        .find_row(&f.tuple)
                        .map(|r| (r, relation.is_live(r)))
                } else {
                    None
                };
                if !fits || found.is_some_and(|(_, live)| live) != deleting {
                    return Err(self.misuse(format!(
                        "batch {}: {what} or not of an input relation: {:?}: the batch is not \
                         normalised against this EDB",
                        self.batches + 1,
                        f
                    )));
                }
                // A deleted fact was found live just above.
                match found {
                    Some((r, _)) if deleting => stored.deleted.push((f.rel, r)),
                    Some((r, _)) => stored.revived.push((f.rel, r)),
                    None => stored.appended.push(i),
                }
            }
        }
        Ok(stored)
    }
}

/// Folds again every group of aggregate `plan` that its input's events touched: where the
/// value moved, the old row leaves and the new one comes, as events. Returns the rows that
/// came or went (each a count of 1 reaching or leaving 0).
fn fold_groups(db: &mut Database<'_>, pending: &mut Pending, plan: &AggregatePlan) -> u64 {
    let mut changed = 0;
    let def = &db.program.aggregates[plan.def];
    let mut keys: Vec<Tuple> = std::mem::take(&mut pending.groups[plan.def])
        .into_iter()
        .collect();
    keys.sort_unstable();
    for key in keys {
        let input = &db.relations[def.input];
        let rows = AggregatePlan::group(input, plan.input_rows, &key);
        pending.work.touch(rows.len() as u64);
        let new: Option<Tuple> = def.fold(rows.iter().map(|&r| input.row(r))).map(|v| {
            let mut row = key.clone();
            row.push(v);
            row
        });
        let output = &db.relations[def.rel];
        let old: Option<Tuple> = AggregatePlan::group(output, plan.rows, &key)
            .first()
            .map(|&r| output.row(r).to_vec());
        if old == new {
            continue;
        }
        if let Some(old) = old {
            db.event(pending, def.rel, &old, false);
            changed += 1;
        }
        if let Some(new) = new {
            db.event(pending, def.rel, &new, true);
            changed += 1;
        }
    }
    changed
}

impl Engine for Counting {
    fn name(&self) -> &str {
        "counting"
    }

    fn materialise(&mut self, edb: &Edb) -> Result<BatchReport, EngineError> {
        let t = Instant::now();
        for r in &mut self.relations {
            r.clear();
        }
        for c in &mut self.counts {
            match c {
                FactCounts::Stored => {}
                FactCounts::Single(m) => m.clear(),
                FactCounts::PerRound(m) => m.clear(),
            }
        }
        self.batches = 0;
        self.broken = None;
        self.materialised = true;
        let program = self.named.clone();
        let mut pending = Pending::new(
            vec![CountDeltas::default(); program.relations.len()],
            program.strata.len(),
            program.aggregates.len(),
        );
        // The initial model is a batch from the empty one: program facts hold by their
        // empty-body instance, every recursive stratum is evaluated once, every EDB fact
        // comes as an event.
        let mut db = Database {
            program: &program,
            relations: &mut self.relations,
            plans: &self.plans,
        };
        for (s, stratum) in program.strata.iter().enumerate() {
            pending.dirty[s] = stratum.recursive;
            pending.from_round_1[s] = stratum.recursive;
            if !stratum.recursive {
                for &f in &stratum.facts {
                    let fact = &program.facts[f];
                    db.add_count(&mut pending, fact.rel, &fact.tuple, 1);
                }
            }
        }
        let events = edb.facts().map(|f| (f.rel, f.tuple, true));
        let (pending, counters) = self
            .propagate(&StoredBatch::default(), events, pending)
            .map_err(|e| self.fail(e))?;
        self.last_change = pending.net;
        let report = self.report(&pending, &counters, t.elapsed().as_nanos() as u64);
        self.pending = pending;
        // Heads stored whose count ended at 0 (found through a negation, or derived and
        // then disproved) are tombstones: rebuilt here, so that the first batch does not pay
        // for them.
        for rel in 0..self.relations.len() {
            if self.relations[rel].dead_count() > 0 {
                self.compact(rel);
            }
        }
        Ok(report)
    }

    fn apply(&mut self, batch: &Batch) -> Result<BatchReport, EngineError> {
        if !self.materialised {
            return Err(self.misuse("apply before materialise".into()));
        }
        if let Some(e) = &self.broken {
            return Err(e.clone());
        }
        let stored = self.check_batch(batch)?;
        self.batches += 1;
        let t = Instant::now();
        let program = self.named.clone();
        let mut pending = std::mem::take(&mut self.pending);
        if pending.counts.len() == program.relations.len() {
            pending.begin();
        } else {
            // Lost with a batch that failed.
            pending = Pending::new(
                vec![CountDeltas::default(); program.relations.len()],
                program.strata.len(),
                program.aggregates.len(),
            );
        }
        let appended = stored.appended.iter().map(|&i| {
            let f = &batch.insertions[i];
            (f.rel, f.tuple.clone(), true)
        });
        let (pending, counters) = self
            .propagate(&stored, appended, pending)
            .map_err(|e| self.fail(e))?;
        self.last_change = pending.net;
        let report = self.report(&pending, &counters, t.elapsed().as_nanos() as u64);
        self.pending = pending;
        // Deletions leave tombstones; rebuild a relation once they outnumber its rows.
        for rel in 0..self.relations.len() {
            let r = &self.relations[rel];
            if r.dead_count() > 1024 && r.dead_count() > r.len() {
                self.compact(rel);
            }
        }
        Ok(report)
    }

    fn model(&self) -> Model {
        idb_model(&self.named, &self.relations)
    }

    fn digest(&self) -> ModelDigest {
        idb_digest(&self.named, &self.relations)
    }

    fn net_change(&self) -> Option<NetChange> {
        Some(self.last_change)
    }
}

impl Counting {
    /// Every derived fact's derivation counts, sorted by relation and tuple: for a fact of a
    /// recursive stratum its (round, count) pairs, for one of a non-recursive stratum a
    /// single pair of round 0 (counts there are not per round). Aggregate facts have none.
    pub fn derivation_counts(&self) -> Vec<(RelId, Tuple, RoundCounts)> {
        let mut out = Vec::new();
        for (rel, counts) in self.counts.iter().enumerate() {
            match counts {
                FactCounts::Stored => {}
                FactCounts::Single(c) => {
                    let relation = &self.relations[rel];
                    out.extend(
                        (0..relation.end())
                            .filter(|&r| relation.is_live(r))
                            .map(|r| (rel, relation.row(r).to_vec(), vec![(0, c[r as usize])])),
                    );
                }
                FactCounts::PerRound(c) => {
                    let relation = &self.relations[rel];
                    out.extend(
                        (0..relation.end())
                            .filter(|&r| relation.is_live(r))
                            .map(|r| (rel, relation.row(r).to_vec(), c.get(r))),
                    );
                }
            }
        }
        out.sort();
        out
    }

    /// Rebuilds relation `rel` without its tombstones, and its count column with it (row
    /// ids change; compaction keeps the live rows in their order).
    fn compact(&mut self, rel: RelId) {
        let relation = &self.relations[rel];
        let live = (0..relation.end()).filter(|&r| relation.is_live(r));
        match &mut self.counts[rel] {
            FactCounts::Single(counts) => {
                let kept: Vec<u64> = live
                    .map(|r| counts.get(r as usize).copied().unwrap_or(0))
                    .collect();
                debug_assert!(kept.iter().all(|&n| n > 0), "a live row of count 0");
                *counts = kept;
            }
            FactCounts::PerRound(counts) => *counts = counts.compacted(live),
            FactCounts::Stored => {}
        }
        self.relations[rel].compact();
        let rows = match &self.counts[rel] {
            FactCounts::Single(c) => {
                debug_assert_eq!(c.len(), self.relations[rel].end() as usize);
                c.len()
            }
            _ => 0,
        };
        self.pending.counts[rel].reset(rows);
    }

    /// Marks the engine broken by `error` when it is a broken invariant; returns it.
    fn fail(&mut self, error: EngineError) -> EngineError {
        if matches!(error, EngineError::Invariant { .. }) {
            self.broken = Some(error.clone());
        }
        error
    }
}
