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

pub mod insert;
pub mod overdelete;
pub mod rederive;

use std::collections::HashSet;
use std::sync::Arc;
use std::time::Instant;

use crate::engine::{
    Batch, BatchReport, Edb, Engine, EngineError, Fact, Model, ModelDigest, NetChange, Phase, Round,
};
use crate::exec::{idb_digest, idb_model};
use crate::plan::{plan_rule_with, PlanOptions, RulePlan, Version};
use crate::program::{Program, RelId, Term};
use crate::storage::{Relation, RowId, RowMarks};
use crate::value::{Tuple, Value};

/// A fact identified by its relation and row id, valid while a batch runs.
pub type RowRef = (RelId, RowId);

/// Plans made once per program.
#[derive(Clone, Debug)]
pub(crate) struct Plans {
    /// For each relation, the plans of every (rule, positive body atom over it): the atom is
    /// seeded with one fact, the other atoms match every live row.
    pub(crate) seeded: Vec<Vec<RulePlan>>,
    /// For each rule, plans with the head's variables bound — "is there a proof of this
    /// fact by this rule?" — in every order that starts from a different positive body atom
    /// (one plan for rules with at most one); [`rederive::OrderStats`] picks among them.
    pub(crate) head_bound: Vec<Vec<RulePlan>>,
    /// For each rule, one semi-naive plan per positive body atom as the delta.
    pub(crate) semi_naive: Vec<Vec<RulePlan>>,
    /// For each rule with a positive body atom, a plan of all its instances over the live
    /// rows (round 1 of rederivation by scan, see [`rederive::ScanStats`]).
    pub(crate) survivors: Vec<Option<RulePlan>>,
}

impl Plans {
    fn new(program: &Program, relations: &mut [Relation]) -> Self {
        let mut seeded = vec![Vec::new(); program.relations.len()];
        let mut head_bound = Vec::new();
        let mut semi_naive = Vec::new();
        let mut survivors = Vec::new();
        for (r, rule) in program.rules.iter().enumerate() {
            let atoms: Vec<RelId> = rule.positive_atoms().map(|a| a.rel).collect();
            let full = vec![Version::Full; atoms.len()];
            let seed = PlanOptions {
                seeded: true,
                prebound: Vec::new(),
            };
            for (i, &rel) in atoms.iter().enumerate() {
                seeded[rel].push(plan_rule_with(program, r, &full, Some(i), &seed, relations));
            }
            let prebound: Vec<usize> = rule.head_vars().collect();
            let head = PlanOptions {
                seeded: false,
                prebound,
            };
            // The planner's own order first (the default until the others are measured),
            // then one starting from each other positive atom.
            let default = plan_rule_with(program, r, &full, None, &head, relations);
            let mut orders = vec![default];
            if atoms.len() > 1 {
                for i in 0..atoms.len() {
                    let plan = plan_rule_with(program, r, &full, Some(i), &head, relations);
                    // An order that starts by scanning a whole relation is never worth
                    // trying: even its exploration would cost a scan per check.
                    if starts_with_lookup(&plan) && first_atom(&plan) != first_atom(&orders[0]) {
                        orders.push(plan);
                    }
                }
            }
            head_bound.push(orders);
            let mut per_delta = Vec::new();
            for p in 0..atoms.len() {
                let versions: Vec<Version> = (0..atoms.len())
                    .map(|j| match j.cmp(&p) {
                        std::cmp::Ordering::Less => Version::Old,
                        std::cmp::Ordering::Equal => Version::Delta,
                        std::cmp::Ordering::Greater => Version::Full,
                    })
                    .collect();
                per_delta.push(plan_rule_with(
                    program,
                    r,
                    &versions,
                    Some(p),
                    &PlanOptions::default(),
                    relations,
                ));
            }
            semi_naive.push(per_delta);
            survivors.push((!atoms.is_empty()).then(|| {
                plan_rule_with(program, r, &full, None, &PlanOptions::default(), relations)
            }));
        }
        Plans {
            seeded,
            head_bound,
            semi_naive,
            survivors,
        }
    }
}

/// The relation and key of a plan's first atom step: two plans with the same one start alike.
fn first_atom(plan: &RulePlan) -> Option<(RelId, Option<usize>)> {
    plan.steps.iter().find_map(|s| match s {
        crate::plan::Step::Atom(a) => Some((a.rel, a.index)),
        _ => None,
    })
}

/// True when the plan's first atom is probed on bound columns (an index lookup or a
/// membership test), not scanned.
fn starts_with_lookup(plan: &RulePlan) -> bool {
    plan.steps.iter().find_map(|s| match s {
        crate::plan::Step::Atom(a) => Some(a.index.is_some() || a.membership),
        _ => None,
    }) == Some(true)
}

/// Heads of instances, to be found in their relations a batch at a time.
///
/// Phases 1 and 2 look up the head of every instance through an over-deleted or restored
/// fact: on large deletions most of their time, one cache miss each. Found one by one, each
/// waits for its miss; here each head's slot is prefetched when the head is pushed and looked
/// up only [`HeadProbes::DEPTH`] heads later, so that the misses overlap.
#[derive(Debug, Default)]
pub(crate) struct HeadProbes {
    /// One record per head rather than a vector per field: a push is one vector's growth
    /// check, not three (on R-MAT TC, 12 million pushes for 20 single-edge deletions).
    heads: Vec<HeadProbe>,
    values: Vec<Value>,
}

/// A head held by [`HeadProbes`].
#[derive(Clone, Copy, Debug)]
struct HeadProbe {
    rel: RelId,
    /// Where the head's values start in [`HeadProbes::values`].
    start: usize,
    hash: u64,
    /// While draining: the row its lookup compares first.
    candidate: Option<RowId>,
}

impl HeadProbes {
    /// Heads held before they are looked up: enough to cover a miss's latency, few enough
    /// that their slots stay in the L1 cache until used.
    pub(crate) const DEPTH: usize = 32;

    /// Adds a head of relation `rel` and starts loading its slot.
    #[inline]
    pub(crate) fn push(&mut self, relations: &[Relation], rel: RelId, head: &[Value]) {
        let hash = relations[rel].lookup_hash(head);
        relations[rel].prefetch_row(hash, head);
        self.heads.push(HeadProbe {
            rel,
            start: self.values.len(),
            hash,
            candidate: None,
        });
        self.values.extend_from_slice(head);
    }

    /// Adds the head of an instance of `plan` (its variables bound as in `vars`) and starts
    /// loading its slot; the head's values are written once, into the batch.
    #[inline]
    pub(crate) fn push_instance(
        &mut self,
        relations: &[Relation],
        plan: &RulePlan,
        vars: &[Value],
    ) {
        let head = plan.head.iter().map(|o| o.get(vars));
        self.push_unless_recent(relations, plan.head_rel, head, None);
    }

    /// [`HeadProbes::push_instance`], unless `recent` shows the head found already in this
    /// phase: then nothing is pushed. For callers whose `found` does nothing for a head it
    /// was given before (see [`RecentHeads`]). The head is recognised by its values, compared
    /// with the row the table names, so neither a collision nor a stale slot can mislead.
    #[inline]
    pub(crate) fn push_instance_unless_recent(
        &mut self,
        relations: &[Relation],
        plan: &RulePlan,
        vars: &[Value],
        recent: &RecentHeads,
    ) {
        let head = plan.head.iter().map(|o| o.get(vars));
        self.push_unless_recent(relations, plan.head_rel, head, Some(recent));
    }

    /// Adds a head of relation `rel` given by its values and starts loading its slot, unless
    /// `recent` is given and shows it found already (see
    /// [`HeadProbes::push_instance_unless_recent`]).
    #[inline(always)]
    fn push_unless_recent(
        &mut self,
        relations: &[Relation],
        rel: RelId,
        head: impl Iterator<Item = Value>,
        recent: Option<&RecentHeads>,
    ) {
        let start = self.values.len();
        self.values.extend(head);
        let relation = &relations[rel];
        let head = &self.values[start..];
        let hash = relation.lookup_hash(head);
        // Hash 0: found by the dense map, which costs less than the table (and a real hash
        // of 0 only misses the table).
        if let Some(recent) = recent.filter(|_| hash != 0) {
            if let Some(r) = recent.found(hash, rel) {
                if crate::storage::same_values(relation.row(r), head) {
                    self.values.truncate(start);
                    return;
                }
            }
        }
        relation.prefetch_row(hash, head);
        self.heads.push(HeadProbe {
            rel,
            start,
            hash,
            candidate: None,
        });
    }

    /// True when enough heads are held to look them up.
    #[inline]
    pub(crate) fn is_full(&self) -> bool {
        self.heads.len() >= Self::DEPTH
    }

    /// Looks up every head held, in the order pushed, and forgets them: `found` gets the
    /// relation and the newest row with the head's values (live or not), if any.
    pub(crate) fn drain(
        &mut self,
        relations: &[Relation],
        found: impl FnMut(RelId, Option<RowId>),
    ) {
        self.drain_into(relations, None, found);
    }

    /// [`HeadProbes::drain`], noting in `recent` each head found (for
    /// [`HeadProbes::push_instance_unless_recent`]).
    pub(crate) fn drain_noting(
        &mut self,
        relations: &[Relation],
        recent: &mut RecentHeads,
        found: impl FnMut(RelId, Option<RowId>),
    ) {
        self.drain_into(relations, Some(recent), found);
    }

    #[inline(always)]
    fn drain_into(
        &mut self,
        relations: &[Relation],
        mut recent: Option<&mut RecentHeads>,
        mut found: impl FnMut(RelId, Option<RowId>),
    ) {
        // The slots have arrived by now (prefetched when pushed): note the row each lookup
        // will compare with and start loading it, so that those misses overlap too; the
        // lookups then compare that row without walking the slots again.
        for h in &mut self.heads {
            h.candidate = relations[h.rel].first_candidate(h.hash);
        }
        for (i, h) in self.heads.iter().enumerate() {
            let end = self.heads.get(i + 1).map_or(self.values.len(), |n| n.start);
            let head = &self.values[h.start..end];
            let row = relations[h.rel].find_row_candidate(h.hash, head, h.candidate);
            if let (Some(recent), Some(r)) = (recent.as_deref_mut(), row.filter(|_| h.hash != 0)) {
                recent.note(h.hash, h.rel, r);
            }
            found(h.rel, row);
        }
        self.heads.clear();
        self.values.clear();
    }
}

/// Vectors of facts kept from earlier batches, so that a batch's sets grow into memory it
/// used before rather than into blocks fresh from the allocator; at most
/// [`SpareRows::HELD`] facts' room in all, so that large batches do not leave their memory
/// held (a batch of that size pays little for growing its vectors).
///
/// Why: the engines of a sweep share the allocator, and a block `dred` freed is soon reused
/// by the engine after it, so the next batch's vectors came back out of the cache. On R-MAT
/// `reach_root` deletions run after another engine's turn, growing them was 40% of `dred`'s
/// write misses in the last-level cache (callgrind, 2 MB cache). Kept without a bound, the
/// vectors of every round of R-MAT TC's 1,000-edge deletions held 73–89 MB more at the
/// peak (220 against 131–146 MB).
#[derive(Clone, Debug, Default)]
pub(crate) struct SpareRows {
    vectors: Vec<Vec<RowRef>>,
}

impl SpareRows {
    /// Facts' room kept at most (1 MiB).
    pub(crate) const HELD: usize = 1 << 16;

    /// An empty vector, with the capacity of one kept if any.
    pub(crate) fn take(&mut self) -> Vec<RowRef> {
        self.vectors.pop().unwrap_or_default()
    }

    /// Keeps `rows`' vector (emptied) for a later [`SpareRows::take`], if there is room.
    pub(crate) fn keep(&mut self, mut rows: Vec<RowRef>) {
        // A few vectors (one per round at most): summed each time rather than tracked.
        let held: usize = self.vectors.iter().map(Vec::capacity).sum();
        if held + rows.capacity() <= Self::HELD {
            rows.clear();
            self.vectors.push(rows);
        }
    }

    /// Keeps every vector of `rounds` there is room for, leaving it empty.
    pub(crate) fn keep_all(&mut self, rounds: &mut Vec<Vec<RowRef>>) {
        for rows in rounds.drain(..) {
            self.keep(rows);
        }
    }

    /// Empties `rows` for reuse, or gives its memory back when it holds room for more than
    /// [`SpareRows::HELD`] facts.
    pub(crate) fn reuse(rows: &mut Vec<RowRef>) {
        if rows.capacity() > Self::HELD {
            *rows = Vec::new();
        } else {
            rows.clear();
        }
    }
}

/// The heads found lately in a phase, by hash: a small direct-mapped table (one slot per
/// hash, the newest head winning), kept across batches and emptied by a generation count.
///
/// Why: most instances through over-deleted facts share their head with another — on R-MAT
/// TC's single-edge deletions of 1,400–1,600 over-deleted facts, 87% of the ~10,000 heads
/// looked up in phase 1 were found before in the same phase — and each lookup in a
/// relation's set table hashes, walks control bytes and compares a row in the arena, 340
/// instructions a head with the batching (callgrind) and a cache miss into tables of 10 MB.
/// This table is 96 KB, in the L2 cache, and a hit costs a slot and the row found last time.
/// A head it misses is looked up as before: it only saves work, for callers to which a head
/// found twice means nothing new (phase 1 marks D: a fact already in D is not reached again).
#[derive(Clone, Debug, Default)]
pub(crate) struct RecentHeads {
    slots: Vec<RecentSlot>,
    /// The phase's number: slots of other numbers are empty.
    generation: u32,
}

#[derive(Clone, Copy, Debug, Default)]
struct RecentSlot {
    hash: u64,
    rel: u32,
    row: RowId,
    generation: u32,
}

impl RecentHeads {
    /// Slots: a power of two.
    const SLOTS: usize = 4096;

    /// Forgets every head: a new phase, whose row ids the old slots may not name.
    pub(crate) fn begin(&mut self) {
        if self.slots.is_empty() {
            self.slots = vec![RecentSlot::default(); Self::SLOTS];
        }
        self.generation = self.generation.wrapping_add(1);
        if self.generation == 0 {
            self.slots.fill(RecentSlot::default());
            self.generation = 1;
        }
    }

    #[inline(always)]
    fn slot(hash: u64) -> usize {
        // The high half: the tables use the low 32 bits (home slot, tag) and the top 7.
        (hash >> 32) as usize & (Self::SLOTS - 1)
    }

    /// The row last noted for a head of relation `rel` with this hash, in this phase.
    #[inline(always)]
    fn found(&self, hash: u64, rel: RelId) -> Option<RowId> {
        let s = self.slots.get(Self::slot(hash))?;
        (s.generation == self.generation && s.hash == hash && s.rel as usize == rel)
            .then_some(s.row)
    }

    /// Notes that the head of relation `rel` with this hash is row `row`.
    #[inline(always)]
    fn note(&mut self, hash: u64, rel: RelId, row: RowId) {
        let generation = self.generation;
        if let Some(s) = self.slots.get_mut(Self::slot(hash)) {
            *s = RecentSlot {
                hash,
                rel: rel as u32,
                row,
                generation,
            };
        }
    }
}

/// Binds the head of `rule` to `tuple` into `vars`; false when a constant or a repeated
/// variable of the head disagrees with the tuple.
pub(crate) fn bind_head(head: &[Term], tuple: &[Value], vars: &mut [Value]) -> bool {
    for (i, (t, &v)) in head.iter().zip(tuple).enumerate() {
        match *t {
            Term::Const(c) if c != v => return false,
            Term::Var(x) => {
                // A variable repeated in the head was bound at its first position. Heads are
                // short, so rescanning them beats allocating a set per call (once per
                // over-deleted fact and rule).
                if head[..i].contains(&Term::Var(x)) {
                    if vars[x] != v {
                        return false;
                    }
                } else {
                    vars[x] = v;
                }
            }
            _ => {}
        }
    }
    true
}

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
    rederive_costs: rederive::RederiveCosts,
    /// Phase 1's marks of D and phase 2's of the facts still pending: kept across batches so
    /// that a batch clears only the marks it made (see [`RowMarks`]).
    deleted_marks: RowMarks,
    pending_marks: RowMarks,
    /// Phase 1's heads found lately ([`RecentHeads`]), kept across batches.
    recent_heads: RecentHeads,
    /// The results of the last batch's phases 1 and 2, emptied and filled again by the next
    /// (their vectors' memory kept, see [`SpareRows`]).
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
        let rederive_costs = rederive::RederiveCosts {
            rules: rederive::RuleStats::new(program.rules.len()),
            orders: rederive::OrderStats::new(&plans.head_bound),
            scans: rederive::ScanStats::new(program.rules.len()),
            round1: rederive::Round1::default(),
            later: rederive::LaterStats::new(program.relations.len(), program.rules.len()),
            later_rounds: rederive::LaterRounds::default(),
        };
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
