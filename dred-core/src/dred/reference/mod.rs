//! The `reference` engine: DRed exactly as the seed specifies (SPEC §4), one module per step,
//! extended level by level to stratified negation (SPEC §8, see "Levels" below).
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
//! # Levels
//!
//! A program with negation is maintained one DRed level after another
//! ([`crate::program::Stratum::level`]: the coarsest stratification, a negated atom reads a
//! lower level). Level 0 holds the EDB and is maintained as above, with its own rules only.
//! Each level above receives the net changes of the relations below it (the EDB's
//! included): the facts they lost and the facts they gained, by value.
//! 1. Over-delete: the old instances of the level's rules (over the relations as they were
//!    before the batch, negated atoms included) are enumerated; round 1 is the heads of those
//!    with a positive body fact that was lost, or a negated atom that a gained fact now
//!    matches; later rounds follow the level's own facts as at level 0.
//! 2. Rederive: against the relations below in their *new* state and the level's survivors —
//!    the instances of the level's rules over those, enumerated afresh (a proof may use a fact
//!    a lower level gained, or the absence of one it lost).
//! 3. Insert: round 1 is every head of an instance of the level's rules over the relations
//!    now that is not yet a fact (each must use a change from below: any other instance held
//!    before and its head survived or was rederived); then semi-naive as at level 0.
//!
//! The production engine computes the same rounds by delta rules (its `LowerChanges`).
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

use std::collections::BTreeSet;

use crate::engine::{Batch, BatchReport, Edb, Engine, EngineError, Fact, Model, Phase, Round};
use crate::exec::{Matcher, Versions, WorkCounter};
use crate::plan::RulePlan;
use crate::program::{Literal, Program, Term};
use crate::record::{Derivation, Recorder};
use crate::storage::Relation;
use crate::value::Value;

use instances::{FactId, FactTable, InstanceId, InstanceStore, Scope, StoreError};
use overdelete::{overdelete, overdelete_from, Frontier};
use rederive::{rederive, rederive_pending, Survivors};

/// The reference DRed engine (SPEC §4), with stratified negation maintained level by level
/// (see the module's docs).
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

    /// Whether the batches from now on record, for each fact of each round, the rule
    /// instance that put it there ([`Reference::last_derivations`]): from the instance store,
    /// an instance through a fact of the round before (over-deletion), the instance whose
    /// body held (rederivation), the first instance that derived it (insertion).
    pub fn set_recording(&mut self, on: bool) {
        self.core.recorder = on.then(Recorder::default);
    }

    /// The derivations the last batch recorded; `None` when not recording.
    pub fn last_derivations(&self) -> Option<&[Derivation]> {
        self.core
            .recorder
            .as_ref()
            .map(|r| r.derivations.as_slice())
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
        if let Some(rec) = &mut self.core.recorder {
            rec.derivations.clear();
        }
        if batch.is_empty() {
            return Ok(Core::unchanged());
        }
        let core = &mut self.core;
        let levels = core.program.num_levels();
        let old = (levels > 1).then(|| core.relations.clone());

        // Phase 1: the old instances, then D along them.
        let start = Instant::now();
        let facts = FactTable::new(&core.relations).map_err(|e| core.store_error(e))?;
        let level0 = Scope {
            level: Some(0),
            closed: true,
        };
        let store =
            InstanceStore::enumerate_level(&core.named, &core.enumeration_plans, &facts, level0)
                .map_err(|e| core.store_error(e))?;
        let overdeleted = overdelete(&store, &facts, core.deletions(&facts, batch)?);
        let overdelete_ns = nanos(start);

        // Phase 2: S = (I ∪ J) \ D, grown by rederivation.
        let start = Instant::now();
        let mut survivors = Survivors::after(&facts, &overdeleted);
        let recording = core.recorder.is_some();
        let rederived = rederive(&store, &facts, &overdeleted, &mut survivors, recording);
        let rederive_ns = nanos(start);
        if recording {
            let mut found = core.record_overdeleted(0, &store, &facts, &overdeleted, |_| None);
            found.extend(core.record_rederived(0, &store, &facts, &rederived));
            if let Some(rec) = core.recorder.as_mut() {
                rec.derivations.extend(found);
            }
        }

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
            overdelete_ns: Some(overdelete_ns),
            rederive_ns: Some(rederive_ns),
            rounds,
            ..BatchReport::default()
        };

        // Phase 3: relations rebuilt from S, then A+ propagated.
        let start = Instant::now();
        let next = core.rebuild(&facts, &survivors);
        drop(store);
        drop(facts);
        core.relations = next;
        core.insert_phase(0, batch.insertions.iter().cloned(), &mut report, start);
        if let Some(old) = old {
            for level in 1..levels {
                core.maintain_level(level, &old, &mut report)?;
            }
        }
        Ok(report)
    }

    fn model(&self) -> Model {
        self.core.model()
    }
}

/// The rows of `relation` whose first columns are `key`, by scan.
fn group_of<'r>(relation: &'r Relation, key: &'r [Value]) -> impl Iterator<Item = &'r [Value]> {
    relation
        .rows(relation.all())
        .filter(move |t| &t[..key.len()] == key)
}

/// The groups of level `level`'s aggregates that a lost or gained input fact falls in: (index
/// in [`Program::aggregates`], group key), each once.
fn touched_groups(
    program: &Program,
    level: usize,
    removed: &[Fact],
    added: &[Fact],
) -> BTreeSet<(usize, Vec<Value>)> {
    let mut out = BTreeSet::new();
    for (k, def) in program.aggregates.iter().enumerate() {
        if program.level_of(def.rel) != level {
            continue;
        }
        for f in removed.iter().chain(added) {
            if f.rel == def.input {
                out.insert((k, f.tuple[..def.group].to_vec()));
            }
        }
    }
    out
}

/// Adds `x` to a figure of a report (absent counts as 0).
fn add<T: std::ops::Add<Output = T> + Default>(figure: &mut Option<T>, x: T) {
    *figure = Some(figure.take().unwrap_or_default() + x);
}

/// Microseconds since `start`.
pub(crate) fn nanos(start: Instant) -> u64 {
    u64::try_from(start.elapsed().as_nanos()).unwrap_or(u64::MAX)
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
    /// Per DRed level, one plan per (rule of the level, delta position), for phase 3.
    pub(crate) insertion_plans: Vec<Vec<RulePlan>>,
    /// Empty relations with every index the plans use; every relation set is a clone of it.
    template: Vec<Relation>,
    /// The current I ∪ J: the EDB and the exact IDB.
    pub(crate) relations: Vec<Relation>,
    materialised: bool,
    /// The derivations of the last batch, when recording ([`Reference::set_recording`]).
    pub(crate) recorder: Option<Recorder>,
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
        let mut insertion_plans = vec![Vec::new(); program.num_levels()];
        for plan in insert::insertion_plans(&named, &mut template) {
            insertion_plans[program.rule_level(plan.rule)].push(plan);
        }
        Core {
            name,
            relations: template.clone(),
            program,
            named,
            enumeration_plans,
            insertion_plans,
            template,
            materialised: false,
            recorder: None,
        }
    }

    /// The rule of instance `i` of `store` (over `facts`) and its binding of the rule's own
    /// variables (the named wildcards, which come after them, dropped); `None` for a
    /// program fact. With `named`, the whole binding of the named rule instead.
    fn instance_binding(
        &self,
        store: &InstanceStore,
        facts: &FactTable<'_>,
        i: InstanceId,
        named: bool,
    ) -> Option<(usize, Vec<Value>)> {
        let r = store.rule(i)?;
        let rule = &self.named.rules[r];
        let mut vars = vec![0; rule.num_vars()];
        let mut bind = |args: &[Term], tuple: &[Value]| {
            for (t, &v) in args.iter().zip(tuple) {
                if let Term::Var(x) = *t {
                    vars[x] = v;
                }
            }
        };
        bind(&rule.head.args, facts.tuple(store.head(i)));
        for (atom, &b) in rule.positive_atoms().zip(store.body(i)) {
            bind(&atom.args, facts.tuple(b));
        }
        // A variable only an assignment binds is in no fact: computed again, in body order
        // (the instance held, so every expression has its value).
        for lit in &rule.body {
            if let crate::program::Literal::Assign { var, expr } = lit {
                if let Some(v) = expr.eval(&|x| vars[x]) {
                    vars[*var] = v;
                }
            }
        }
        if !named {
            vars.truncate(self.program.rules[r].num_vars());
        }
        Some((r, vars))
    }

    /// Records phase 1's rounds at `level`: a fact of round 1 by `first` (the instance that
    /// put it there, `None` for one that entered outright), a fact of a later round by the
    /// first instance of the store with a body fact in the round before.
    fn record_overdeleted(
        &self,
        level: usize,
        store: &InstanceStore,
        facts: &FactTable<'_>,
        overdeleted: &overdelete::OverDeleted,
        first: impl Fn(FactId) -> Option<InstanceId>,
    ) -> Vec<Derivation> {
        let mut found = Vec::new();
        let mut previous: std::collections::HashSet<FactId> = Default::default();
        for (k, frontier) in overdeleted.frontiers().iter().enumerate() {
            for &h in &frontier.0 {
                let instance = if k == 0 {
                    first(h)
                } else {
                    store
                        .of_head(h)
                        .find(|&i| store.body(i).iter().any(|b| previous.contains(b)))
                };
                found.push((k + 1, h, instance));
            }
            previous = frontier.0.iter().copied().collect();
        }
        self.derivations(level, Phase::Overdelete, store, facts, found)
    }

    /// Records phase 2's rounds at `level`: each restored fact by the instance whose body held.
    fn record_rederived(
        &self,
        level: usize,
        store: &InstanceStore,
        facts: &FactTable<'_>,
        rederived: &rederive::Rederived,
    ) -> Vec<Derivation> {
        let round_of: std::collections::HashMap<FactId, usize> = rederived
            .rounds
            .iter()
            .enumerate()
            .flat_map(|(k, r)| r.iter().map(move |&f| (f, k + 1)))
            .collect();
        let found = rederived
            .proofs
            .iter()
            .map(|&(h, i)| (round_of[&h], h, i))
            .collect();
        self.derivations(level, Phase::Rederive, store, facts, found)
    }

    /// The derivations of (round, fact, instance) triples of one phase.
    fn derivations(
        &self,
        level: usize,
        phase: Phase,
        store: &InstanceStore,
        facts: &FactTable<'_>,
        found: Vec<(usize, FactId, Option<InstanceId>)>,
    ) -> Vec<Derivation> {
        found
            .into_iter()
            .map(|(round, h, i)| {
                let instance = i.and_then(|i| self.instance_binding(store, facts, i, false));
                let (rule, binding) = match instance {
                    Some((r, vars)) => (Some(r), vars),
                    None => (None, Vec::new()),
                };
                Derivation {
                    stratum: level,
                    phase,
                    round,
                    fact: facts.fact(h),
                    rule,
                    binding,
                }
            })
            .collect()
    }

    /// Whether a negated atom of instance `i` matches one of `added` (facts the levels below
    /// gained): the instance the batch falsified from below.
    fn negated_by(
        &self,
        store: &InstanceStore,
        facts: &FactTable<'_>,
        i: InstanceId,
        added: &[Fact],
    ) -> bool {
        let Some((r, vars)) = self.instance_binding(store, facts, i, true) else {
            return false;
        };
        self.named.rules[r].body.iter().any(|lit| match lit {
            Literal::Negative(a) => added.iter().any(|f| {
                f.rel == a.rel
                    && a.args.iter().zip(&f.tuple).all(|(t, &v)| match *t {
                        Term::Var(x) => vars[x] == v,
                        Term::Const(c) => c == v,
                        Term::Wildcard => true,
                    })
            }),
            _ => false,
        })
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
        let first: Vec<Fact> = edb.facts().chain(self.program_facts(0)).collect();
        self.relations = self.template.clone();
        let mut report = BatchReport::default();
        let start = Instant::now();
        self.insert_phase(0, first, &mut report, start);
        // Each level above from the complete levels below.
        for level in 1..self.program.num_levels() {
            let mut first: Vec<Fact> = self
                .program_facts(level)
                .chain(self.absent_heads(level))
                .collect();
            for def in &self.program.aggregates {
                if self.program.level_of(def.rel) == level {
                    let input = &self.relations[def.input];
                    let keys: BTreeSet<&[Value]> =
                        input.rows(input.all()).map(|t| &t[..def.group]).collect();
                    for key in keys {
                        let value = def.fold(group_of(input, key)).expect("a key has rows");
                        let mut row = key.to_vec();
                        row.push(value);
                        first.push(Fact::new(def.rel, row));
                    }
                }
            }
            self.insert_phase(level, first, &mut report, start);
        }
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
            overdelete_ns: Some(0),
            rederive_ns: Some(0),
            insert_ns: Some(0),
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

    /// The program facts of level `level`.
    fn program_facts(&self, level: usize) -> impl Iterator<Item = Fact> + '_ {
        self.program
            .facts
            .iter()
            .filter(move |pf| self.program.level_of(pf.rel) == level)
            .map(|pf| Fact::new(pf.rel, pf.tuple.clone()))
    }

    /// The heads of the instances of level `level`'s rules over the current relations that
    /// are not facts yet, each once.
    fn absent_heads(&self, level: usize) -> Vec<Fact> {
        self.absent_heads_by(level).into_keys().collect()
    }

    /// [`Core::absent_heads`], each with the first instance that gives it: its rule and the
    /// binding of the rule's own variables.
    fn absent_heads_by(
        &self,
        level: usize,
    ) -> std::collections::BTreeMap<Fact, (usize, Vec<Value>)> {
        let versions: Vec<Versions> = self.relations.iter().map(Versions::complete).collect();
        let matcher = Matcher {
            relations: &self.relations,
            versions: &versions,
            work: &WorkCounter::default(),
        };
        let mut heads = std::collections::BTreeMap::new();
        for plan in &self.enumeration_plans {
            if self.program.rule_level(plan.rule) != level {
                continue;
            }
            let own = self.program.rules[plan.rule].num_vars();
            matcher.for_each(plan, &mut |vars| {
                let tuple: Vec<Value> = plan.head.iter().map(|o| o.get(vars)).collect();
                if !self.relations[plan.head_rel].contains(&tuple) {
                    heads
                        .entry(Fact::new(plan.head_rel, tuple))
                        .or_insert_with(|| (plan.rule, vars[..own].to_vec()));
                }
            });
        }
        heads
    }

    /// The three phases of level `level` > 0 (see the module's docs), from the relations as
    /// they were before the batch (`old`) and as the levels below left them (the current
    /// ones); adds the level's figures and rounds to `report`.
    fn maintain_level(
        &mut self,
        level: usize,
        old: &[Relation],
        report: &mut BatchReport,
    ) -> Result<(), EngineError> {
        let program = self.program.clone();
        let below = |rel: usize| !program.is_idb(rel) || program.level_of(rel) < level;
        // The net changes below, by value.
        let (mut removed, mut added) = (Vec::new(), Vec::new());
        for (rel, (before, now)) in old.iter().zip(&self.relations).enumerate() {
            if below(rel) {
                removed.extend(
                    before
                        .rows(before.all())
                        .filter(|t| !now.contains(t))
                        .map(|t| Fact::new(rel, t.to_vec())),
                );
                added.extend(
                    now.rows(now.all())
                        .filter(|t| !before.contains(t))
                        .map(|t| Fact::new(rel, t.to_vec())),
                );
            }
        }

        // Phase 1: the level's old instances; round 1 the heads the changes below falsify.
        let start = Instant::now();
        let facts_old = FactTable::new(old).map_err(|e| self.store_error(e))?;
        let scope = Scope {
            level: Some(level),
            closed: true,
        };
        let store =
            InstanceStore::enumerate_level(&self.named, &self.enumeration_plans, &facts_old, scope)
                .map_err(|e| self.store_error(e))?;
        // The level's aggregate groups whose input changed, and their old rows.
        let touched = touched_groups(&program, level, &removed, &added);
        let mut first: Vec<FactId> = Vec::new();
        for (def, key) in &touched {
            let def = &program.aggregates[*def];
            first.extend(group_of(&old[def.rel], key).map(|t| {
                facts_old
                    .id(def.rel, t)
                    .expect("a row of the old relations")
            }));
        }
        for f in &removed {
            let id = facts_old
                .id(f.rel, &f.tuple)
                .expect("a lost fact was in the old relations");
            first.extend_from_slice(store.heads_using(id));
        }
        for f in &added {
            first.extend(store.heads_negating(f.rel, &f.tuple));
        }
        first.sort_by(|&a, &b| facts_old.cmp_by_value(a, b));
        first.dedup();
        let overdeleted = overdelete_from(&store, &facts_old, Frontier(first), true);
        let recording = self.recorder.is_some();
        if recording {
            // Round 1: an aggregate row of a touched group entered outright; another fact by
            // an instance through a fact lost below, or one a gained fact falsifies.
            let lost: std::collections::HashSet<FactId> = removed
                .iter()
                .filter_map(|f| facts_old.id(f.rel, &f.tuple))
                .collect();
            let firsts: std::collections::HashMap<FactId, Option<InstanceId>> = overdeleted
                .frontiers()
                .first()
                .map(|f| f.0.as_slice())
                .unwrap_or_default()
                .iter()
                .map(|&h| {
                    let through_lost = store
                        .of_head(h)
                        .find(|&i| store.body(i).iter().any(|b| lost.contains(b)));
                    let instance = through_lost.or_else(|| {
                        store
                            .of_head(h)
                            .find(|&i| self.negated_by(&store, &facts_old, i, &added))
                    });
                    (h, instance)
                })
                .collect();
            let found = self.record_overdeleted(level, &store, &facts_old, &overdeleted, |h| {
                firsts.get(&h).copied().flatten()
            });
            if let Some(rec) = self.recorder.as_mut() {
                rec.derivations.extend(found);
            }
        }
        add(&mut report.overdelete_ns, nanos(start));
        add(&mut report.overdeleted, overdeleted.idb().len());
        add(&mut report.instances, store.len() as u64);
        add(&mut report.body_len, store.body_len() as u64);
        for (i, frontier) in overdeleted.frontiers().iter().enumerate() {
            let facts = facts_old.sorted_facts(frontier.0.iter().copied());
            report
                .rounds
                .push(Round::with_facts(Phase::Overdelete, i + 1, facts).in_stratum(level));
        }

        // Phase 2: against the new relations below and the level's survivors.
        let start = Instant::now();
        let facts_now = FactTable::new(&self.relations).map_err(|e| self.store_error(e))?;
        let open = Scope {
            level: Some(level),
            closed: false,
        };
        let now_store =
            InstanceStore::enumerate_level(&self.named, &self.enumeration_plans, &facts_now, open)
                .map_err(|e| self.store_error(e))?;
        let pending: Vec<FactId> = overdeleted
            .idb()
            .iter()
            .map(|&f| {
                facts_now
                    .id(facts_old.rel(f), facts_old.tuple(f))
                    .expect("a level's facts are unchanged until the level is maintained")
            })
            .collect();
        let mut survivors = Survivors::all(&facts_now);
        for &f in &pending {
            survivors.remove(f);
        }
        // Each touched group's value over the new input: an old row that keeps it is
        // restored in round 1, a new value is a fact for phase 3.
        let mut stays: Vec<FactId> = Vec::new();
        let mut changed: Vec<Fact> = Vec::new();
        for (def, key) in &touched {
            let def = &program.aggregates[*def];
            let value = def.fold(group_of(&self.relations[def.input], key));
            let old_row: Option<&[Value]> = group_of(&self.relations[def.rel], key).next();
            match (old_row, value) {
                (Some(row), Some(v)) if row[def.group] == v => {
                    stays.push(facts_now.id(def.rel, row).expect("a row of the relations"));
                }
                (_, Some(v)) => {
                    let mut row = key.clone();
                    row.push(v);
                    changed.push(Fact::new(def.rel, row));
                }
                (_, None) => {}
            }
        }
        let rederived = rederive_pending(
            &now_store,
            &facts_now,
            pending,
            &stays,
            &mut survivors,
            recording,
        );
        if recording {
            let found = self.record_rederived(level, &now_store, &facts_now, &rederived);
            if let Some(rec) = self.recorder.as_mut() {
                rec.derivations.extend(found);
            }
        }
        add(&mut report.rederive_ns, nanos(start));
        add(&mut report.rederived, rederived.len());
        add(&mut report.membership_tests, rederived.membership_tests);
        for (i, restored) in rederived.rounds.iter().enumerate() {
            let facts = facts_now.sorted_facts(restored.iter().copied());
            report
                .rounds
                .push(Round::with_facts(Phase::Rederive, i + 1, facts).in_stratum(level));
        }

        // Phase 3: round 1 the heads the changes below make true, then semi-naive.
        let start = Instant::now();
        let next = self.rebuild(&facts_now, &survivors);
        drop(now_store);
        drop(facts_now);
        self.relations = next;
        let absent = self.absent_heads_by(level);
        let mut first: Vec<Fact> = absent.keys().cloned().collect();
        first.extend(changed);
        let mut level_report = BatchReport::default();
        self.insert_phase_by(level, first, &absent, &mut level_report, start);
        add(&mut report.insert_ns, level_report.insert_ns.unwrap_or(0));
        add(&mut report.inserted, level_report.inserted.unwrap_or(0));
        report.rounds.extend(level_report.rounds);
        Ok(())
    }

    /// Phase 3 of level `level` from the current relations with `first` as the first delta;
    /// fills the insert figures of `report` (time measured from `start`) and appends its
    /// rounds.
    pub(crate) fn insert_phase(
        &mut self,
        level: usize,
        first: impl IntoIterator<Item = Fact>,
        report: &mut BatchReport,
        start: Instant,
    ) {
        let none = std::collections::BTreeMap::new();
        self.insert_phase_by(level, first, &none, report, start);
    }

    /// [`Core::insert_phase`]; when recording, a fact of round 1 is recorded with its
    /// instance in `origins` (the heads the changes below make true), or as entering
    /// outright (A+, an aggregate's new row).
    fn insert_phase_by(
        &mut self,
        level: usize,
        first: impl IntoIterator<Item = Fact>,
        origins: &std::collections::BTreeMap<Fact, (usize, Vec<Value>)>,
        report: &mut BatchReport,
        start: Instant,
    ) {
        let inserted = insert::insert(
            &self.program,
            &self.insertion_plans[level],
            &mut self.relations,
            first,
            self.recorder.as_mut().map(|r| (r, level)),
        );
        if let (Some(rec), Some(round1)) = (self.recorder.as_mut(), inserted.rounds.first()) {
            for f in round1 {
                let (rule, vars) = match origins.get(f) {
                    Some((r, vars)) => (Some(*r), vars.as_slice()),
                    None => (None, &[][..]),
                };
                rec.note(level, Phase::Insert, 1, f.rel, &f.tuple, rule, vars);
            }
        }
        report.insert_ns = Some(nanos(start));
        report.inserted = Some(inserted.idb_added);
        for (i, facts) in inserted.rounds.into_iter().enumerate() {
            report
                .rounds
                .push(Round::with_facts(Phase::Insert, i + 1, facts).in_stratum(level));
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
