//! The one interface every engine implements, and the sets it exchanges: facts, the EDB, a
//! normalised batch, the IDB model, and the figures of one batch.
//!
//! The harness owns the EDB and normalises each requested batch (SPEC §3) once; every engine
//! receives the same [`Batch`], so they can be compared fact for fact.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use crate::program::{Program, RelId};
use crate::value::{Tuple, Value};

/// A ground fact of one relation.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Fact {
    /// The relation.
    pub rel: RelId,
    /// Its values, as many as the relation's arity.
    pub tuple: Tuple,
}

impl Fact {
    /// A fact of `rel`.
    pub fn new(rel: RelId, tuple: Tuple) -> Self {
        Fact { rel, tuple }
    }
}

/// The extensional database: the current facts of every `.input` relation.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Edb {
    /// Facts per relation id; relations that are not `.input` stay empty.
    pub relations: Vec<BTreeSet<Tuple>>,
}

impl Edb {
    /// An empty EDB for this program.
    pub fn empty(program: &Program) -> Self {
        Edb {
            relations: vec![BTreeSet::new(); program.relations.len()],
        }
    }

    /// True when the fact is present.
    pub fn contains(&self, fact: &Fact) -> bool {
        self.relations[fact.rel].contains(&fact.tuple)
    }

    /// Adds a fact; false if it was present.
    pub fn insert(&mut self, fact: Fact) -> bool {
        self.relations[fact.rel].insert(fact.tuple)
    }

    /// Number of facts.
    pub fn len(&self) -> usize {
        self.relations.iter().map(BTreeSet::len).sum()
    }

    /// True when there are no facts.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Every fact, by relation then tuple.
    pub fn facts(&self) -> impl Iterator<Item = Fact> + '_ {
        self.relations
            .iter()
            .enumerate()
            .flat_map(|(rel, ts)| ts.iter().map(move |t| Fact::new(rel, t.clone())))
    }

    /// Applies a normalised batch: I' = (I \ D-) ∪ A+.
    pub fn apply(&mut self, batch: &Batch) {
        for f in &batch.deletions {
            self.relations[f.rel].remove(&f.tuple);
        }
        for f in &batch.insertions {
            self.relations[f.rel].insert(f.tuple.clone());
        }
    }
}

/// Deletions and insertions as requested by an update stream, before normalisation.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RequestedBatch {
    /// D0, in stream order (may repeat, may name absent facts).
    pub deletions: Vec<Fact>,
    /// A0, in stream order (may repeat, may name present facts).
    pub insertions: Vec<Fact>,
}

/// The actual change of one batch (SPEC §3): `deletions` is D- = (D0 ∩ I) \ A0 and
/// `insertions` is A+ = A0 \ I, both sorted and free of duplicates.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Batch {
    /// D-: present EDB facts that really go.
    pub deletions: Vec<Fact>,
    /// A+: absent EDB facts that really come.
    pub insertions: Vec<Fact>,
    /// |D0| as requested (with repetitions).
    pub requested_deletions: usize,
    /// |A0| as requested (with repetitions).
    pub requested_insertions: usize,
}

impl Batch {
    /// Normalises a requested batch against the current EDB: deletions are read before
    /// insertions, so a present fact both deleted and inserted stays and is in neither set.
    pub fn normalise(requested: &RequestedBatch, edb: &Edb) -> Batch {
        let inserted: BTreeSet<&Fact> = requested.insertions.iter().collect();
        let deletions: BTreeSet<Fact> = requested
            .deletions
            .iter()
            .filter(|f| edb.contains(f) && !inserted.contains(f))
            .cloned()
            .collect();
        let insertions: BTreeSet<Fact> = requested
            .insertions
            .iter()
            .filter(|f| !edb.contains(f))
            .cloned()
            .collect();
        Batch {
            deletions: deletions.into_iter().collect(),
            insertions: insertions.into_iter().collect(),
            requested_deletions: requested.deletions.len(),
            requested_insertions: requested.insertions.len(),
        }
    }

    /// True when the batch changes nothing.
    pub fn is_empty(&self) -> bool {
        self.deletions.is_empty() && self.insertions.is_empty()
    }
}

/// The IDB part of a model: the facts of every derived relation, sorted. Two engines agree
/// exactly when their `Model`s are equal.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Model {
    /// Facts per relation id; `.input` relations stay empty.
    pub relations: Vec<BTreeSet<Tuple>>,
}

impl Model {
    /// An empty model with a slot per relation of the program.
    pub fn empty(program: &Program) -> Self {
        Model {
            relations: vec![BTreeSet::new(); program.relations.len()],
        }
    }

    /// Number of facts.
    pub fn len(&self) -> usize {
        self.relations.iter().map(BTreeSet::len).sum()
    }

    /// True when no derived fact holds.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// True when the fact holds.
    pub fn contains(&self, rel: RelId, tuple: &[Value]) -> bool {
        self.relations[rel].contains(tuple)
    }

    /// The net change from this model to `after`.
    pub fn change_to(&self, after: &Model) -> NetChange {
        NetChange {
            removed: self.minus(after).values().map(Vec::len).sum(),
            added: after.minus(self).values().map(Vec::len).sum(),
        }
    }

    /// Facts here and not in `other`, per relation (relations with none are left out).
    pub fn minus(&self, other: &Model) -> BTreeMap<RelId, Vec<Tuple>> {
        let mut out = BTreeMap::new();
        for (rel, ts) in self.relations.iter().enumerate() {
            let empty = BTreeSet::new();
            let theirs = other.relations.get(rel).unwrap_or(&empty);
            let only: Vec<Tuple> = ts.difference(theirs).cloned().collect();
            if !only.is_empty() {
                out.insert(rel, only);
            }
        }
        out
    }
}

/// An order-independent digest of a model, per relation: the number of facts and two wrapping
/// sums of independent 64-bit hashes of the facts. Equal models give equal digests whatever
/// their storage order; unequal models give equal digests only by a hash collision in both
/// sums (about 2⁻¹²⁸ per relation for unrelated changes). Computing one reads the model once
/// and allocates nothing per fact, so comparing engines after every batch does not disturb the
/// timing of the next (a full [`Model`] copy is millions of allocations).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ModelDigest {
    /// Per relation id: (facts, first hash sum, second hash sum); zero for `.input` relations.
    pub relations: Vec<(u64, u64, u64)>,
}

/// SplitMix64's finaliser: a bijective mix of 64 bits.
fn mix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

impl ModelDigest {
    /// An empty digest with a slot per relation of the program.
    pub fn empty(program: &Program) -> Self {
        ModelDigest {
            relations: vec![(0, 0, 0); program.relations.len()],
        }
    }

    /// The two hashes of a fact.
    #[inline]
    fn hashes(tuple: &[Value]) -> (u64, u64) {
        let (mut a, mut b) = (0x243F_6A88_85A3_08D3_u64, 0x1319_8A2E_0370_7344_u64);
        for &v in tuple {
            a = mix64(a ^ v as u64);
            b = mix64(b.wrapping_add(v as u64).rotate_left(17));
        }
        (a, b)
    }

    /// Adds one fact of relation `rel`.
    #[inline]
    pub fn add(&mut self, rel: RelId, tuple: &[Value]) {
        let (a, b) = Self::hashes(tuple);
        let slot = &mut self.relations[rel];
        slot.0 += 1;
        slot.1 = slot.1.wrapping_add(a);
        slot.2 = slot.2.wrapping_add(b);
    }

    /// Removes one fact of relation `rel` that was added: the digest is then that of the
    /// model without it, so a digest can follow net changes without holding the model.
    #[inline]
    pub fn remove(&mut self, rel: RelId, tuple: &[Value]) {
        let (a, b) = Self::hashes(tuple);
        let slot = &mut self.relations[rel];
        slot.0 = slot.0.wrapping_sub(1);
        slot.1 = slot.1.wrapping_sub(a);
        slot.2 = slot.2.wrapping_sub(b);
    }

    /// The digest of a model.
    pub fn of_model(model: &Model) -> Self {
        let mut d = ModelDigest {
            relations: vec![(0, 0, 0); model.relations.len()],
        };
        for (rel, ts) in model.relations.iter().enumerate() {
            for t in ts {
                d.add(rel, t);
            }
        }
        d
    }

    /// Number of facts.
    pub fn len(&self) -> usize {
        self.relations.iter().map(|r| r.0 as usize).sum()
    }

    /// True when no fact holds.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// The net change of the derived relations made by one batch (or materialisation).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct NetChange {
    /// Facts that held before and not after.
    pub removed: usize,
    /// Facts that hold after and not before.
    pub added: usize,
}

/// The three phases of DRed, named as in traces and reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Phase {
    /// Phase 1: over-delete along old proofs.
    Overdelete,
    /// Phase 2: rederive from the survivors.
    Rederive,
    /// Phase 3: insert and propagate.
    Insert,
    /// B/F's deletion (`bf`): the facts a check found without a derivation, in place of
    /// phases 1 and 2.
    Delete,
}

impl Phase {
    /// The name used in traces.
    pub fn name(self) -> &'static str {
        match self {
            Phase::Overdelete => "overdelete",
            Phase::Rederive => "rederive",
            Phase::Insert => "insert",
            Phase::Delete => "delete",
        }
    }
}

/// One round of one phase: the facts that entered the phase's set in that round (a
/// frontier). Round 1 of `Overdelete` is D-; round 1 of `Insert` is A+.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Round {
    /// The DRed level the round belongs to ([`crate::program::Stratum::level`]): 0 for every
    /// round of a program without negation. Written as `stratum` in traces.
    pub stratum: usize,
    /// Which phase.
    pub phase: Phase,
    /// From 1.
    pub round: usize,
    /// Number of facts in the round.
    pub size: usize,
    /// The facts, sorted; empty when the engine was told not to trace facts
    /// ([`Engine::set_trace_facts`]).
    pub facts: Vec<Fact>,
}

impl Round {
    /// A round with its facts (sorted here).
    pub fn with_facts(phase: Phase, round: usize, mut facts: Vec<Fact>) -> Self {
        facts.sort();
        Round {
            stratum: 0,
            phase,
            round,
            size: facts.len(),
            facts,
        }
    }

    /// The same round, of DRed level `stratum`.
    pub fn in_stratum(mut self, stratum: usize) -> Self {
        self.stratum = stratum;
        self
    }
}

/// Work done by one phase, counted as it runs (not estimated): deterministic for a given
/// program, plan and input, so it explains and compares costs where wall time is noisy.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Work {
    /// Hash probes into stored relations: one per index lookup, membership test or row
    /// insertion. Bookkeeping sets of a batch (D, pending) are not counted.
    pub probes: u64,
    /// Stored rows visited by joins (every candidate row an index lookup or scan yields,
    /// tombstones included) plus rows removed or revived.
    pub touched: u64,
}

impl std::ops::AddAssign for Work {
    fn add_assign(&mut self, other: Work) {
        self.probes += other.probes;
        self.touched += other.touched;
    }
}

/// What an engine reports about one batch (or the initial materialisation). Figures an engine
/// does not compute stay `None` and are left empty in reports.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BatchReport {
    /// |D ∩ J|: IDB facts removed in phase 1; for `bf`, the IDB facts it deleted.
    pub overdeleted: Option<usize>,
    /// IDB facts put back in phase 2 (0 for `bf`, which puts none back).
    pub rederived: Option<usize>,
    /// IDB facts newly derived in phase 3.
    pub inserted: Option<usize>,
    /// Phase 1 wall time in nanoseconds.
    pub overdelete_ns: Option<u64>,
    /// Phase 2 wall time in nanoseconds.
    pub rederive_ns: Option<u64>,
    /// Phase 3 wall time in nanoseconds.
    pub insert_ns: Option<u64>,
    /// G: old successful ground instances enumerated.
    pub instances: Option<u64>,
    /// B: total body length of those instances.
    pub body_len: Option<u64>,
    /// Body-membership tests made in phase 2.
    pub membership_tests: Option<u64>,
    /// `bf`: derived facts whose derivability was checked.
    pub checked: Option<u64>,
    /// `bf`: derived facts a check found without a derivation (deleted).
    pub disproved: Option<u64>,
    /// `bf`: rule instances considered backwards (head bound to a checked fact).
    pub backward_instances: Option<u64>,
    /// `dred`: levels whose phase 1 passed its budget and over-deleted the level wholesale
    /// (rederivation then recomputed it; see `dred::production::overdelete`).
    pub saturated: Option<usize>,
    /// `auto`: the algorithm it chose for the batch (`dred`, `bf` or `recompute`).
    pub chosen: Option<&'static str>,
    /// `auto`: the incremental algorithm (`dred` or `bf`) that scouted a chosen
    /// recomputation, if one did (see [`crate::auto::Choice::scout`]).
    pub scout: Option<&'static str>,
    /// `auto`: how many algorithms passed their budget on the batch (0, 1 or 2; see
    /// [`crate::auto::Choice::abandoned`]).
    pub abandoned: Option<usize>,
    /// `auto`: its predicted nanoseconds of DRed, B/F and recomputation for the batch.
    pub predicted_ns: Option<[u64; 3]>,
    /// `counting`: derived facts whose derivation count (per round, in a recursive stratum)
    /// changed, facts that came or went included.
    pub counts_changed: Option<u64>,
    /// `counting`: facts of recursive strata holding before and after the batch whose round
    /// (the first round of semi-naive evaluation deriving them) moved.
    pub rounds_moved: Option<u64>,
    /// `counting`: rounds of recursive strata looked at (at materialisation: evaluated).
    pub rounds_replayed: Option<u64>,
    /// Work counted in phase 1 (engines that count it).
    pub overdelete_work: Option<Work>,
    /// Work counted in phase 2.
    pub rederive_work: Option<Work>,
    /// Work counted in phase 3; for `recompute`, the whole evaluation.
    pub insert_work: Option<Work>,
    /// Per-round frontiers of each phase, in order; empty for engines without phases.
    pub rounds: Vec<Round>,
    /// An external engine's own time for the batch, as it reported it (the harness times
    /// the whole exchange around it); `None` for the built-in engines.
    pub engine_ns: Option<u64>,
    /// An external engine's other counters for the batch, `key=value` words separated by
    /// spaces, in the order it gave them.
    pub counters: Option<String>,
}

/// Why an engine could not run a program or batch.
#[derive(Clone, Debug, thiserror::Error)]
pub enum EngineError {
    /// The program uses a feature this engine does not implement.
    #[error("engine `{engine}` does not support {feature}")]
    Unsupported {
        /// The engine's name.
        engine: String,
        /// What it lacks.
        feature: String,
    },
    /// A batch arrived before materialisation, or similar misuse.
    #[error("engine `{engine}`: {message}")]
    Misuse {
        /// The engine's name.
        engine: String,
        /// What went wrong.
        message: String,
    },
    /// The engine found its own state broken: a bug of the engine, not of the input. The
    /// engine refuses every later batch with the same error rather than give a wrong model.
    #[error("engine `{engine}` failed in batch {batch}: invariant broken: {invariant}")]
    Invariant {
        /// The engine's name.
        engine: String,
        /// The batch (1 for the first after materialisation) in which it was found.
        batch: usize,
        /// The invariant and what broke it.
        invariant: String,
    },
}

impl EngineError {
    /// True when the engine cannot run the program at all (a usage matter, not a failure).
    pub fn is_unsupported(&self) -> bool {
        matches!(self, EngineError::Unsupported { .. })
    }
}

/// An engine maintaining the least model of one checked program.
///
/// Protocol: [`Engine::materialise`] once with the initial EDB, then [`Engine::apply`] per
/// batch. After each call [`Engine::model`] is the exact IDB of the program on the EDB so far.
pub trait Engine {
    /// The engine's name as used on the command line.
    fn name(&self) -> &str;

    /// Computes the initial model from the EDB (batch 0).
    fn materialise(&mut self, edb: &Edb) -> Result<BatchReport, EngineError>;

    /// Applies one normalised batch: afterwards the model is that of I' = (I \ D-) ∪ A+.
    fn apply(&mut self, batch: &Batch) -> Result<BatchReport, EngineError>;

    /// Finishes bookkeeping that the engine deferred out of [`Engine::apply`]: work that only
    /// keeps a copy of the model for [`Engine::model`] and [`Engine::digest`], not the state the
    /// engine maintains. The harness calls it after timing `apply`, so that timing measures
    /// maintenance alone; it also checks what it folds in, and an inconsistency is an error
    /// here. `model` and `digest` are exact whether or not it was called. Engines that defer
    /// nothing keep the default, which does nothing.
    fn settle(&mut self) -> Result<(), EngineError> {
        Ok(())
    }

    /// The current IDB, every derived relation.
    fn model(&self) -> Model;

    /// The digest of [`Engine::model`]; engines override it to compute it from their own
    /// storage without building the model.
    fn digest(&self) -> ModelDigest {
        ModelDigest::of_model(&self.model())
    }

    /// The net change of the IDB made by the last [`Engine::materialise`] or
    /// [`Engine::apply`], for engines that know it without comparing whole models.
    fn net_change(&self) -> Option<NetChange> {
        None
    }

    /// Whether reports list the facts of every round (`true`, the default) or only their
    /// number: listing them costs time in proportion to the rounds' sizes, which timed runs
    /// should not pay unless a trace asks for the facts.
    fn set_trace_facts(&mut self, _on: bool) {}

    /// Asks the engine to keep, from the next [`Engine::apply`] on, the facts of each batch's
    /// net change for [`Engine::take_change_facts`]. Returns whether it does: engines that
    /// cannot keep them without comparing whole models keep the default, `false`.
    fn keep_change_facts(&mut self, _on: bool) -> bool {
        false
    }

    /// The facts the last [`Engine::apply`] removed from and added to the IDB, in no
    /// particular order, when [`Engine::keep_change_facts`] was accepted; taken, so a second
    /// call gives `None`. Their numbers are [`Engine::net_change`]'s.
    fn take_change_facts(&mut self) -> Option<ChangeFacts> {
        None
    }
}

/// A batch's net change of the IDB as facts ([`Engine::take_change_facts`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ChangeFacts {
    /// Facts that held before the batch and not after.
    pub removed: FactList,
    /// Facts that hold after the batch and not before.
    pub added: FactList,
}

/// Facts kept flat, in the order pushed: a relation and the end of its values per fact, and
/// every fact's values in one vector. Why: a batch's change can hold millions of facts, and
/// one allocation per fact (a [`Fact`]'s tuple) cost more than finding them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FactList {
    /// Per fact: its relation, and where its values start and end in `values`.
    facts: Vec<(RelId, usize, usize)>,
    values: Vec<Value>,
}

impl FactList {
    /// Adds the fact of relation `rel` with values `values`.
    pub fn push(&mut self, rel: RelId, values: &[Value]) {
        let start = self.values.len();
        self.values.extend_from_slice(values);
        self.facts.push((rel, start, self.values.len()));
    }

    /// Adds every fact of `other`, in its order.
    pub fn append(&mut self, other: &FactList) {
        self.extend(other.iter());
    }

    /// How many facts.
    pub fn len(&self) -> usize {
        self.facts.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.facts.is_empty()
    }

    /// Each fact's relation and values, in the order pushed.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = (RelId, &[Value])> + '_ {
        self.facts
            .iter()
            .map(|&(rel, start, end)| (rel, &self.values[start..end]))
    }

    /// The facts as [`Fact`]s (one allocation each).
    pub fn to_facts(&self) -> Vec<Fact> {
        self.iter()
            .map(|(rel, values)| Fact::new(rel, values.to_vec()))
            .collect()
    }
}

impl<'a> Extend<(RelId, &'a [Value])> for FactList {
    /// Pushes each fact, in order.
    fn extend<I: IntoIterator<Item = (RelId, &'a [Value])>>(&mut self, facts: I) {
        for (rel, values) in facts {
            self.push(rel, values);
        }
    }
}

impl<'a> FromIterator<(RelId, &'a [Value])> for FactList {
    /// The facts, in order.
    fn from_iter<I: IntoIterator<Item = (RelId, &'a [Value])>>(facts: I) -> Self {
        let mut list = FactList::default();
        list.extend(facts);
        list
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fact_list_gives_back_its_facts_in_order() {
        let mut a = FactList::default();
        a.push(1, &[3, 4]);
        a.push(0, &[]);
        let mut b = FactList::default();
        b.push(2, &[5]);
        a.append(&b);
        assert_eq!(a.len(), 3);
        assert_eq!(
            a.iter().collect::<Vec<_>>(),
            vec![(1, &[3, 4][..]), (0, &[][..]), (2, &[5][..])]
        );
        assert_eq!(
            a.to_facts(),
            vec![
                Fact::new(1, vec![3, 4]),
                Fact::new(0, vec![]),
                Fact::new(2, vec![5])
            ]
        );
        assert!(FactList::default().is_empty());
    }

    #[test]
    fn normalisation_follows_spec() {
        let f = |v: i64| Fact::new(0, vec![v]);
        let mut edb = Edb {
            relations: vec![BTreeSet::new()],
        };
        edb.insert(f(1));
        edb.insert(f(2));
        let req = RequestedBatch {
            deletions: vec![f(1), f(1), f(2), f(9)],
            insertions: vec![f(2), f(3), f(3)],
        };
        let b = Batch::normalise(&req, &edb);
        // 1 really goes; 2 is deleted and re-inserted (no change); 9 is absent; 3 comes once.
        assert_eq!(b.deletions, vec![f(1)]);
        assert_eq!(b.insertions, vec![f(3)]);
        assert_eq!((b.requested_deletions, b.requested_insertions), (4, 3));
        edb.apply(&b);
        assert_eq!(edb.facts().collect::<Vec<_>>(), vec![f(2), f(3)]);
    }

    /// A digest that follows additions and removals equals the digest of the model they leave.
    #[test]
    fn digest_follows_removals() {
        let mut model = Model {
            relations: vec![BTreeSet::new(), BTreeSet::new()],
        };
        let mut d = ModelDigest::of_model(&model);
        for (rel, t) in [(0, vec![1, 2]), (1, vec![3]), (0, vec![2, 1]), (1, vec![4])] {
            d.add(rel, &t);
            model.relations[rel].insert(t);
        }
        d.remove(0, &[1, 2]);
        model.relations[0].remove(&vec![1, 2]);
        assert_eq!(d, ModelDigest::of_model(&model));
        assert_eq!(d.len(), 3);
    }
}
