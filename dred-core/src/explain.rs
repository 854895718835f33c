//! Explaining one batch of a DRed engine (`dred`, `reference`, `bf`): for each fact of each
//! phase's rounds, a rule instance that puts it in that round, over the facts that phase reads.
//!
//! Input: the program, the EDB and the IDB before and after the batch, the batch, and the
//! engine's rounds of the batch with their facts ([`crate::Round`], traced facts on).
//! Output ([`BatchExplanation`]), per fact and phase, where it entered and why:
//! - **over-deleted** (phase `overdelete`, `bf`'s `delete`): round 1 of level 0 is D- (the
//!   update); a fact of round k is the head of an *old* instance (every body fact in the old
//!   model) with a body fact in round k − 1 of the same phase and level — its *trigger*; in
//!   round 1 of a level above 0 the trigger is a fact the levels below lost (a positive body
//!   fact) or gained (a match of a negated atom);
//! - **rederived** (round r): an instance whose body facts are the level's survivors (old, not
//!   over-deleted) or facts rederived in rounds before r, and the relations below as phase 2
//!   reads them (at level 0, the EDB without D-; above, the new relations);
//! - **inserted**: round 1 of level 0 is A+; a fact of round k is the head of an instance over
//!   the new model without the level's facts of rounds k and later, with a body fact in an
//!   earlier round (or, above level 0, a fact gained below, or the loss of a fact a negated
//!   atom matched). Not necessarily round k − 1: `dred` runs a level's strata one after
//!   another, each to its fixpoint, so a stratum's first round reads the rounds of the strata
//!   before it and the changes below;
//! - an aggregate row of a touched group is explained by its group, not by an instance.
//!
//! Following triggers from a fact back to round 1 gives the chain from the update that caused
//! it ([`BatchExplanation::chain`]).
//!
//! How, two ways:
//! - **recorded** ([`BatchStates::recorded`]): the engines record, while they run the batch and
//!   only when asked ([`crate::Dred::set_recording`], [`crate::Reference::set_recording`]), the
//!   rule instance that put each fact into each round — its rule and binding
//!   ([`crate::record`]); `dred` and `bf` record the first instance they met, without an
//!   instance store. The explanation takes that instance (finding values for its wildcards,
//!   which bind nothing) and places its body facts; a fact without a recorded derivation, or
//!   whose recorded instance does not put it in its round, is an error.
//! - **searched** (an engine's rounds without a recording): per fact, the instances of the
//!   rules with its head (head-bound plans over the union of the old and new facts, wildcards
//!   of positive atoms named so that every body fact is known, negated atoms checked against
//!   the phase's state) are enumerated until one satisfies the phase's conditions: *an*
//!   instance that puts the fact in its round, not necessarily the first the engine met.
//!
//! Either way, [`BatchExplanation::verify`] checks every claim again, independently of how it
//! was found.

use std::collections::{BTreeMap, HashMap, HashSet};

use crate::engine::{Batch, Edb, Fact, Model, Phase, Round};
use crate::exec::{Matcher, Versions, WorkCounter};
use crate::plan::{compare, plan_rule_with, PlanOptions, RulePlan, Version};
use crate::program::{Literal, Program, RelId, Term};
use crate::record::Derivation;
use crate::storage::Relation;
use crate::value::{Tuple, Value};

/// Where a body fact of an explaining instance stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Place {
    /// In this round of the same phase and level.
    Round(usize),
    /// Lost by the levels below in this batch (in the old model, not the new).
    LostBelow,
    /// Gained by the levels below in this batch (in the new model, not the old).
    GainedBelow,
    /// In the state the phase reads, and not one of the above: an old fact (over-deletion),
    /// a survivor or a fact below (rederivation), a fact of the new model (insertion).
    Held,
}

/// A positive body fact of an instance, or the fact that a negated atom matches (in the
/// state where it is not absent).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BodyFact {
    /// The fact.
    pub fact: Fact,
    /// Where it stands.
    pub place: Place,
}

/// A ground rule instance with the explained fact as head.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Instance {
    /// Index in [`Program::rules`].
    pub rule: usize,
    /// The positive body facts, in body order.
    pub body: Vec<BodyFact>,
    /// The negated atoms, grounded (`None` for a wildcard), in body order.
    pub negated: Vec<(RelId, Vec<Option<Value>>)>,
    /// What puts the instance in its round: a body fact of the round before, or a change
    /// below (a lost positive fact, or a fact now matching / no longer matching a negated
    /// atom); `None` for rederivation, where any instance over the phase's state counts.
    pub trigger: Option<BodyFact>,
}

/// Why a fact entered a phase's set.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Source {
    /// A fact of the batch: D- (over-deletion) or A+ (insertion).
    Update,
    /// A fact written in the program: rederived by its empty-body instance.
    ProgramFact,
    /// An aggregate row of a group whose input changed below: over-deleted outright, kept when
    /// the group's value stays, inserted with the new value.
    AggregateGroup,
    /// A rule instance.
    Instance(Instance),
}

/// One fact in one phase of the batch.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    /// The DRed level ([`crate::program::Stratum::level`]).
    pub stratum: usize,
    /// The phase.
    pub phase: Phase,
    /// The round, from 1.
    pub round: usize,
    /// Why.
    pub source: Source,
}

/// The explanation of a batch: every fact of every round, with why it is there.
#[derive(Clone, Debug, Default)]
pub struct BatchExplanation {
    /// Per fact, its entries in the order of the engine's rounds (a fact can be over-deleted,
    /// then rederived or inserted again).
    pub entries: HashMap<Fact, Vec<Entry>>,
    /// Per (level, phase), the facts of each round (index 0 is round 1).
    rounds: BTreeMap<(usize, PhaseKey), Vec<HashSet<Fact>>>,
    old: HashSet<Fact>,
    new: HashSet<Fact>,
    deleted: HashSet<Fact>,
}

/// A phase as a map key.
type PhaseKey = u8;

/// A fact in one round of one phase at one level: (level, phase, round, fact).
type RoundKey<'a> = (usize, PhaseKey, usize, &'a Fact);

fn key(phase: Phase) -> PhaseKey {
    match phase {
        Phase::Overdelete => 0,
        Phase::Delete => 1,
        Phase::Rederive => 2,
        Phase::Insert => 3,
    }
}

/// What a batch looked like, as the explanation needs it.
#[derive(Debug)]
pub struct BatchStates<'a> {
    /// The program.
    pub program: &'a Program,
    /// The EDB before the batch.
    pub old_edb: &'a Edb,
    /// The batch, normalised against `old_edb`.
    pub batch: &'a Batch,
    /// The IDB before the batch.
    pub old_model: &'a Model,
    /// The IDB after the batch.
    pub new_model: &'a Model,
    /// The engine's rounds of the batch, with their facts.
    pub rounds: &'a [Round],
    /// The derivations the engine recorded while it ran the batch
    /// ([`crate::Dred::set_recording`]); `None` to find an instance per fact after the
    /// batch instead.
    pub recorded: Option<&'a [Derivation]>,
}

fn facts_of(edb: &Edb, model: &Model) -> HashSet<Fact> {
    let mut out: HashSet<Fact> = edb.facts().collect();
    for (rel, tuples) in model.relations.iter().enumerate() {
        out.extend(tuples.iter().map(|t| Fact::new(rel, t.clone())));
    }
    out
}

/// The program's rules as the explanation plans them: wildcards of positive atoms named (so
/// an instance names its body facts), negated atoms dropped (checked against the phase's
/// state instead of the union the plans run on).
fn planning_program(program: &Program) -> Program {
    let mut named = program.with_named_wildcards();
    for rule in &mut named.rules {
        rule.body.retain(|l| !matches!(l, Literal::Negative(_)));
    }
    named
}

/// The finder's view of one phase: which facts it may use and what triggers its rounds.
struct PhaseView<'a> {
    level: usize,
    phase: Phase,
    round: usize,
    x: &'a BatchExplanation,
    program: &'a Program,
    old_edb_minus: &'a HashSet<Fact>,
}

impl PhaseView<'_> {
    fn below(&self, rel: RelId) -> bool {
        !self.program.is_idb(rel) || self.program.level_of(rel) < self.level
    }

    fn in_round(&self, phase: Phase, round: usize, f: &Fact) -> bool {
        round >= 1
            && self
                .x
                .rounds
                .get(&(self.level, key(phase)))
                .and_then(|r| r.get(round - 1))
                .is_some_and(|s| s.contains(f))
    }

    fn in_rounds_before(&self, phase: Phase, round: usize, f: &Fact) -> bool {
        (1..round).any(|r| self.in_round(phase, r, f))
    }

    fn in_rounds_from(&self, phase: Phase, round: usize, f: &Fact) -> bool {
        self.x
            .rounds
            .get(&(self.level, key(phase)))
            .is_some_and(|rs| rs.iter().skip(round - 1).any(|s| s.contains(f)))
    }

    /// The state the phase reads: may an instance use `f` as a body fact?
    fn allowed(&self, f: &Fact) -> bool {
        match self.phase {
            Phase::Overdelete | Phase::Delete => self.x.old.contains(f),
            Phase::Rederive => {
                if self.below(f.rel) {
                    if self.level == 0 {
                        self.x.old.contains(f) && !self.old_edb_minus.contains(f)
                    } else {
                        self.x.new.contains(f)
                    }
                } else {
                    self.x.old.contains(f)
                        && (!self.x.deleted.contains(f)
                            || self.in_rounds_before(Phase::Rederive, self.round, f))
                }
            }
            Phase::Insert => {
                self.x.new.contains(f)
                    && (self.below(f.rel) || !self.in_rounds_from(Phase::Insert, self.round, f))
            }
        }
    }

    /// The state a negated atom must be absent from.
    fn negation_state(&self) -> &HashSet<Fact> {
        match self.phase {
            Phase::Overdelete | Phase::Delete => &self.x.old,
            Phase::Rederive | Phase::Insert => &self.x.new,
        }
    }

    fn place(&self, f: &Fact) -> Place {
        if self.round >= 2 && self.in_round(self.phase, self.round - 1, f) {
            return Place::Round(self.round - 1);
        }
        if self.below(f.rel) && self.level > 0 {
            match (self.x.old.contains(f), self.x.new.contains(f)) {
                (true, false) => return Place::LostBelow,
                (false, true) => return Place::GainedBelow,
                _ => {}
            }
        }
        if matches!(self.phase, Phase::Rederive | Phase::Insert) {
            for r in (1..self.round).rev() {
                if self.in_round(self.phase, r, f) {
                    return Place::Round(r);
                }
            }
        }
        Place::Held
    }
}

/// Whether a trigger in round `k` of the view's phase may put a fact in the view's round:
/// the round before it, or for insertion any earlier one (see the module's header).
fn earlier_round(view: &PhaseView<'_>, k: usize) -> bool {
    match view.phase {
        Phase::Insert => k >= 1 && k < view.round,
        _ => view.round >= 2 && k + 1 == view.round,
    }
}

/// Facts of `state` matching a grounded negated atom.
fn matching(state: &HashSet<Fact>, rel: RelId, pattern: &[Option<Value>]) -> Option<Fact> {
    if pattern.iter().all(Option::is_some) {
        let f = Fact::new(rel, pattern.iter().map(|v| v.expect("ground")).collect());
        return state.contains(&f).then_some(f);
    }
    state
        .iter()
        .filter(|f| f.rel == rel)
        .find(|f| {
            pattern
                .iter()
                .zip(&f.tuple)
                .all(|(p, v)| p.is_none_or(|p| p == *v))
        })
        .cloned()
}

fn ground(args: &[Term], vars: &[Value]) -> Vec<Option<Value>> {
    args.iter()
        .map(|t| match *t {
            Term::Var(x) => Some(vars[x]),
            Term::Const(c) => Some(c),
            Term::Wildcard => None,
        })
        .collect()
}

impl BatchExplanation {
    /// Explains every fact of every round of `states.rounds`. An error names a fact for which
    /// no instance puts it in its round: the engine's rounds are not what its phases should
    /// give (or the states given are not the batch's).
    pub fn of(states: &BatchStates<'_>) -> Result<Self, String> {
        let program = states.program;
        let mut x = BatchExplanation {
            old: facts_of(states.old_edb, states.old_model),
            ..BatchExplanation::default()
        };
        let mut new_edb = states.old_edb.clone();
        new_edb.apply(states.batch);
        x.new = facts_of(&new_edb, states.new_model);
        for r in states.rounds {
            let sets = x.rounds.entry((r.stratum, key(r.phase))).or_default();
            if sets.len() < r.round {
                sets.resize(r.round, HashSet::new());
            }
            sets[r.round - 1].extend(r.facts.iter().cloned());
            if matches!(r.phase, Phase::Overdelete | Phase::Delete) {
                x.deleted.extend(r.facts.iter().cloned());
            }
        }
        let deletions: HashSet<Fact> = states.batch.deletions.iter().cloned().collect();
        let insertions: HashSet<Fact> = states.batch.insertions.iter().cloned().collect();

        // The union of old and new facts, as relations the plans run on.
        let named = planning_program(program);
        let mut relations: Vec<Relation> = program
            .relations
            .iter()
            .map(|d| Relation::new(d.arity()))
            .collect();
        for f in x.old.iter().chain(&x.new) {
            relations[f.rel].insert(&f.tuple);
        }
        let plans: Vec<RulePlan> = named
            .rules
            .iter()
            .enumerate()
            .map(|(r, rule)| {
                let atoms = rule.positive_atoms().count();
                let options = PlanOptions {
                    seeded: false,
                    prebound: rule.head_vars().collect(),
                };
                plan_rule_with(
                    &named,
                    r,
                    &vec![Version::Full; atoms],
                    None,
                    &options,
                    &mut relations,
                )
            })
            .collect();
        // For a recorded instance of a rule with wildcards: the rule with every variable of
        // the recorded binding given, to find values for the wildcards.
        let completion: Vec<Option<RulePlan>> = named
            .rules
            .iter()
            .enumerate()
            .map(|(r, rule)| {
                let given = program.rules[r].num_vars();
                (states.recorded.is_some() && rule.num_vars() > given).then(|| {
                    let atoms = rule.positive_atoms().count();
                    let options = PlanOptions {
                        seeded: false,
                        prebound: (0..given).collect(),
                    };
                    plan_rule_with(
                        &named,
                        r,
                        &vec![Version::Full; atoms],
                        None,
                        &options,
                        &mut relations,
                    )
                })
            })
            .collect();
        let versions: Vec<Versions> = relations.iter().map(Versions::complete).collect();
        let work = WorkCounter::default();
        let matcher = Matcher {
            relations: &relations,
            versions: &versions,
            work: &work,
        };
        let aggregate_rels: HashSet<RelId> = program.aggregates.iter().map(|a| a.rel).collect();
        let program_facts: HashSet<Fact> = program
            .facts
            .iter()
            .map(|f| Fact::new(f.rel, f.tuple.clone()))
            .collect();

        // Recorded derivations by (level, phase, round, fact); the plans that name a recorded
        // instance's wildcards, made per rule when first needed.
        let recorded: Option<HashMap<RoundKey<'_>, &Derivation>> = states.recorded.map(|ds| {
            let mut m = HashMap::new();
            for d in ds {
                m.entry((d.stratum, key(d.phase), d.round, &d.fact))
                    .or_insert(d);
            }
            m
        });
        let mut found: Vec<(Fact, Entry)> = Vec::new();
        for r in states.rounds {
            for f in &r.facts {
                let view = PhaseView {
                    level: r.stratum,
                    phase: r.phase,
                    round: r.round,
                    x: &x,
                    program,
                    old_edb_minus: &deletions,
                };
                let place = || {
                    format!(
                        "{:?} in round {} of {} at level {}",
                        f,
                        r.round,
                        r.phase.name(),
                        r.stratum
                    )
                };
                if let Some(recorded) = &recorded {
                    let d = recorded
                        .get(&(r.stratum, key(r.phase), r.round, f))
                        .ok_or_else(|| format!("no derivation was recorded for {}", place()))?;
                    let source = match d.rule {
                        // Entered outright: which way, as the search below tells it (verify
                        // checks the claim).
                        None if r.stratum == 0 && r.round == 1 && r.phase != Phase::Rederive => {
                            Source::Update
                        }
                        None if r.phase == Phase::Rederive && program_facts.contains(f) => {
                            Source::ProgramFact
                        }
                        None => Source::AggregateGroup,
                        Some(ri) => Source::Instance(
                            recorded_instance(
                                program,
                                &named,
                                completion.get(ri).and_then(Option::as_ref),
                                &matcher,
                                &view,
                                ri,
                                &d.binding,
                            )
                            .ok_or_else(|| {
                                format!(
                                    "the recorded instance of rule {ri} does not put {}",
                                    place()
                                )
                            })?,
                        ),
                    };
                    found.push((
                        f.clone(),
                        Entry {
                            stratum: r.stratum,
                            phase: r.phase,
                            round: r.round,
                            source,
                        },
                    ));
                    continue;
                }
                let update = r.stratum == 0
                    && r.round == 1
                    && match r.phase {
                        Phase::Overdelete | Phase::Delete => deletions.contains(f),
                        Phase::Insert => insertions.contains(f),
                        Phase::Rederive => false,
                    };
                let source = if update {
                    Source::Update
                } else if r.phase == Phase::Rederive && program_facts.contains(f) {
                    Source::ProgramFact
                } else if aggregate_rels.contains(&f.rel) {
                    Source::AggregateGroup
                } else {
                    let view = PhaseView {
                        level: r.stratum,
                        phase: r.phase,
                        round: r.round,
                        x: &x,
                        program,
                        old_edb_minus: &deletions,
                    };
                    let instance = find_instance(program, &named, &plans, &matcher, &view, f)
                        .ok_or_else(|| {
                            format!(
                                "no instance puts {:?} in round {} of {} at level {}",
                                f,
                                r.round,
                                r.phase.name(),
                                r.stratum
                            )
                        })?;
                    Source::Instance(instance)
                };
                found.push((
                    f.clone(),
                    Entry {
                        stratum: r.stratum,
                        phase: r.phase,
                        round: r.round,
                        source,
                    },
                ));
            }
        }
        for (f, e) in found {
            x.entries.entry(f).or_default().push(e);
        }
        Ok(x)
    }

    /// The entries of `fact` in the batch, in the order of the engine's rounds (empty when the
    /// batch did not touch it).
    pub fn of_fact(&self, fact: &Fact) -> &[Entry] {
        self.entries.get(fact).map_or(&[], Vec::as_slice)
    }

    /// True when `fact` was in the model before the batch (EDB or IDB).
    pub fn was_present(&self, fact: &Fact) -> bool {
        self.old.contains(fact)
    }

    /// True when `fact` is in the model after the batch (EDB or IDB).
    pub fn is_present(&self, fact: &Fact) -> bool {
        self.new.contains(fact)
    }

    /// The chain of `entry` (of `fact`): the entry, then the entry of its trigger in the round
    /// before (or, for a change below, the phase of the level below that made it), down to an
    /// update, an aggregate group or a rederivation. Each step is (fact, entry).
    pub fn chain<'a>(&'a self, fact: &'a Fact, entry: &'a Entry) -> Vec<(&'a Fact, &'a Entry)> {
        let mut out = vec![(fact, entry)];
        let mut e = entry;
        while let Source::Instance(Instance {
            trigger: Some(t), ..
        }) = &e.source
        {
            let wanted = |c: &&Entry| match t.place {
                Place::Round(k) => c.stratum == e.stratum && c.phase == e.phase && c.round == k,
                Place::LostBelow => {
                    c.stratum < e.stratum && matches!(c.phase, Phase::Overdelete | Phase::Delete)
                }
                Place::GainedBelow => c.stratum < e.stratum && c.phase == Phase::Insert,
                Place::Held => false,
            };
            let Some(next) = self
                .entries
                .get(&t.fact)
                .and_then(|es| es.iter().find(wanted))
            else {
                break;
            };
            if out.len() > self.entries.len() + 1 {
                break;
            }
            e = next;
            out.push((&t.fact, e));
        }
        out
    }

    /// The facts over-deleted (or, for `bf`, deleted) in the batch, derived ones only, grouped
    /// by the fact their chain starts from (a fact of D-, or an aggregate group or insertion
    /// above level 0), largest groups first.
    pub fn overdeletion_groups(&self, program: &Program) -> Vec<(Fact, Vec<Fact>)> {
        let mut groups: HashMap<Fact, Vec<Fact>> = HashMap::new();
        for (f, es) in &self.entries {
            if !program.is_idb(f.rel) {
                continue;
            }
            for e in es {
                if matches!(e.phase, Phase::Overdelete | Phase::Delete) {
                    let chain = self.chain(f, e);
                    let root = chain.last().expect("the entry itself").0.clone();
                    groups.entry(root).or_default().push(f.clone());
                }
            }
        }
        let mut out: Vec<(Fact, Vec<Fact>)> = groups.into_iter().collect();
        for (_, v) in &mut out {
            v.sort();
        }
        out.sort_by(|a, b| b.1.len().cmp(&a.1.len()).then_with(|| a.0.cmp(&b.0)));
        out
    }

    /// Checks every claim of the explanation again, without the plans that found it: each
    /// instance's rule has the fact as head and the body facts as its positive atoms under one
    /// binding, its comparisons hold, its negated atoms are absent from the phase's state, each
    /// body fact is where it is said to be and is a fact the phase may use, and the trigger is
    /// what puts the instance in its round. `Err` names the first claim that fails.
    pub fn verify(&self, program: &Program, batch: &Batch) -> Result<(), String> {
        let deletions: HashSet<Fact> = batch.deletions.iter().cloned().collect();
        let insertions: HashSet<Fact> = batch.insertions.iter().cloned().collect();
        for (f, es) in &self.entries {
            for e in es {
                if !self.in_entry_round(f, e) {
                    return Err(format!("{f:?} is not in the round its entry names: {e:?}"));
                }
                let view = PhaseView {
                    level: e.stratum,
                    phase: e.phase,
                    round: e.round,
                    x: self,
                    program,
                    old_edb_minus: &deletions,
                };
                match &e.source {
                    Source::Update => {
                        let ok = e.stratum == 0
                            && e.round == 1
                            && match e.phase {
                                Phase::Insert => insertions.contains(f),
                                Phase::Overdelete | Phase::Delete => deletions.contains(f),
                                Phase::Rederive => false,
                            };
                        if !ok {
                            return Err(format!("{f:?} is not an update of round 1: {e:?}"));
                        }
                    }
                    Source::ProgramFact => {
                        let written = program
                            .facts
                            .iter()
                            .any(|p| p.rel == f.rel && p.tuple == f.tuple);
                        if e.phase != Phase::Rederive || !written {
                            return Err(format!("{f:?} is not a program fact rederived: {e:?}"));
                        }
                    }
                    Source::AggregateGroup => {
                        if !program.aggregates.iter().any(|a| a.rel == f.rel) {
                            return Err(format!("{f:?} is not an aggregate row"));
                        }
                    }
                    Source::Instance(i) => verify_instance(program, &view, f, i)
                        .map_err(|why| format!("{f:?}, {e:?}: {why}"))?,
                }
            }
        }
        Ok(())
    }

    fn in_entry_round(&self, f: &Fact, e: &Entry) -> bool {
        self.rounds
            .get(&(e.stratum, key(e.phase)))
            .and_then(|r| r.get(e.round - 1))
            .is_some_and(|s| s.contains(f))
    }
}

/// The first instance of a rule with head `fact` that the phase's conditions accept.
fn find_instance(
    program: &Program,
    named: &Program,
    plans: &[RulePlan],
    matcher: &Matcher<'_>,
    view: &PhaseView<'_>,
    fact: &Fact,
) -> Option<Instance> {
    let mut answer = None;
    for (ri, rule) in named.rules.iter().enumerate() {
        if rule.head.rel != fact.rel || program.rule_level(ri) != view.level {
            continue;
        }
        let plan = &plans[ri];
        let mut vars = vec![0; plan.num_vars];
        if !crate::maintain::plans::bind_head(&rule.head.args, &fact.tuple, &mut vars) {
            continue;
        }
        matcher.for_each_bound(plan, &mut vars, &mut |vars| match instance_at(
            program, named, ri, vars, view,
        ) {
            Some(i) => {
                answer = Some(i);
                false
            }
            None => true,
        });
        if answer.is_some() {
            break;
        }
    }
    answer
}

/// The instance a recorded derivation names: rule `ri` under `binding` (the rule's own
/// variables), its wildcards given values by `completion` (the rule's plan with that binding
/// given) when it has any; `None` when the phase does not accept it.
#[allow(clippy::too_many_arguments)]
fn recorded_instance(
    program: &Program,
    named: &Program,
    completion: Option<&RulePlan>,
    matcher: &Matcher<'_>,
    view: &PhaseView<'_>,
    ri: usize,
    binding: &[Value],
) -> Option<Instance> {
    if binding.len() != program.rules.get(ri)?.num_vars() {
        return None;
    }
    let Some(plan) = completion else {
        return instance_at(program, named, ri, binding, view);
    };
    let mut vars = binding.to_vec();
    vars.resize(plan.num_vars, 0);
    let mut answer = None;
    matcher.for_each_bound(plan, &mut vars, &mut |vars| {
        answer = instance_at(program, named, ri, vars, view);
        answer.is_none()
    });
    answer
}

/// The instance of rule `ri` bound by `vars`, if the phase accepts it.
fn instance_at(
    program: &Program,
    named: &Program,
    ri: usize,
    vars: &[Value],
    view: &PhaseView<'_>,
) -> Option<Instance> {
    let mut body = Vec::new();
    for atom in named.rules[ri].positive_atoms() {
        let fact = Fact::new(
            atom.rel,
            ground(&atom.args, vars)
                .into_iter()
                .map(Option::unwrap)
                .collect(),
        );
        if !view.allowed(&fact) {
            return None;
        }
        let place = view.place(&fact);
        body.push(BodyFact { fact, place });
    }
    let state = view.negation_state();
    let mut negated = Vec::new();
    let mut negated_trigger = None;
    for lit in &program.rules[ri].body {
        if let Literal::Negative(a) = lit {
            let pattern = ground(&a.args, vars);
            if matching(state, a.rel, &pattern).is_some() {
                return None;
            }
            if negated_trigger.is_none()
                && view.level > 0
                && (view.round == 1 || view.phase == Phase::Insert)
            {
                // Over-deletion: the atom now has a match (gained below); insertion: it had one
                // (lost below).
                let (other, place) = match view.phase {
                    Phase::Overdelete | Phase::Delete => (&view.x.new, Place::GainedBelow),
                    Phase::Insert => (&view.x.old, Place::LostBelow),
                    Phase::Rederive => (&view.x.new, Place::Held),
                };
                if view.phase != Phase::Rederive {
                    negated_trigger =
                        matching(other, a.rel, &pattern).map(|fact| BodyFact { fact, place });
                }
            }
            negated.push((a.rel, pattern));
        }
    }
    let trigger = match view.phase {
        Phase::Rederive => None,
        Phase::Overdelete | Phase::Delete | Phase::Insert => {
            let wanted = |p: Place| match p {
                Place::Round(k) => earlier_round(view, k),
                Place::LostBelow => view.round == 1 && view.phase != Phase::Insert,
                Place::GainedBelow => view.phase == Phase::Insert,
                Place::Held => false,
            };
            match body.iter().find(|b| wanted(b.place)) {
                Some(b) => Some(b.clone()),
                None => Some(negated_trigger?),
            }
        }
    };
    Some(Instance {
        rule: ri,
        body,
        negated,
        trigger,
    })
}

/// [`BatchExplanation::verify`] of one instance.
fn verify_instance(
    program: &Program,
    view: &PhaseView<'_>,
    fact: &Fact,
    i: &Instance,
) -> Result<(), String> {
    let rule = program.rules.get(i.rule).ok_or("no such rule")?;
    if rule.head.rel != fact.rel {
        return Err("the rule's head is another relation".into());
    }
    let mut vars: Vec<Option<Value>> = vec![None; rule.num_vars()];
    let mut unify = |args: &[Term], tuple: &[Value]| -> bool {
        args.len() == tuple.len()
            && args.iter().zip(tuple).all(|(t, &v)| match *t {
                Term::Const(c) => c == v,
                Term::Wildcard => true,
                Term::Var(x) => *vars[x].get_or_insert(v) == v,
            })
    };
    if !unify(&rule.head.args, &fact.tuple) {
        return Err("the head does not match the fact".into());
    }
    let atoms: Vec<_> = rule.positive_atoms().collect();
    if atoms.len() != i.body.len() {
        return Err("not one body fact per positive atom".into());
    }
    for (a, b) in atoms.iter().zip(&i.body) {
        if a.rel != b.fact.rel || !unify(&a.args, &b.fact.tuple) {
            return Err(format!("body fact {:?} does not match its atom", b.fact));
        }
        if !view.allowed(&b.fact) {
            return Err(format!(
                "body fact {:?} is not in the phase's state",
                b.fact
            ));
        }
        if view.place(&b.fact) != b.place && !matches!(b.place, Place::Round(_)) {
            return Err(format!("body fact {:?} is not {:?}", b.fact, b.place));
        }
        if let Place::Round(k) = b.place {
            if !view.in_round(view.phase, k, &b.fact) {
                return Err(format!("body fact {:?} is not in round {k}", b.fact));
            }
        }
    }
    // Assignments in body order (each after those binding its expression's variables):
    // each binds its variable, or holds when the head or an atom bound it to its value.
    for lit in &rule.body {
        if let Literal::Assign { var, expr } = lit {
            let mut ready = true;
            expr.for_each_var(&mut |w| ready &= vars[w].is_some());
            if !ready {
                return Err("an assignment's expression reads an unbound variable".into());
            }
            let Some(x) = expr.eval(&|w| vars[w].unwrap_or_default()) else {
                return Err("an assignment's expression has no value".into());
            };
            if *vars[*var].get_or_insert(x) != x {
                return Err("an assigned variable does not hold its expression's value".into());
            }
        }
    }
    let value = |t: &Term| match *t {
        Term::Const(c) => Some(c),
        Term::Var(x) => vars[x],
        Term::Wildcard => None,
    };
    let mut negated = i.negated.iter();
    for lit in &rule.body {
        match lit {
            Literal::Compare { left, op, right } => {
                let (Some(l), Some(r)) = (value(left), value(right)) else {
                    return Err("a comparison's variable is unbound".into());
                };
                if !compare(l, *op, r) {
                    return Err("a comparison fails".into());
                }
            }
            Literal::Negative(a) => {
                let pattern: Vec<Option<Value>> = a.args.iter().map(value).collect();
                if negated.next() != Some(&(a.rel, pattern.clone())) {
                    return Err("the negated atoms are not the rule's, grounded".into());
                }
                if matching(view.negation_state(), a.rel, &pattern).is_some() {
                    return Err("a negated atom holds in the phase's state".into());
                }
            }
            Literal::Positive(_) | Literal::Assign { .. } => {}
        }
    }
    match (&i.trigger, view.phase) {
        (None, Phase::Rederive) => Ok(()),
        (Some(t), Phase::Overdelete | Phase::Delete | Phase::Insert) => {
            let ok = match t.place {
                Place::Round(k) => earlier_round(view, k) && view.in_round(view.phase, k, &t.fact),
                Place::LostBelow => {
                    (view.round == 1 || view.phase == Phase::Insert)
                        && view.x.old.contains(&t.fact)
                        && !view.x.new.contains(&t.fact)
                }
                Place::GainedBelow => {
                    (view.round == 1 || view.phase == Phase::Insert)
                        && view.x.new.contains(&t.fact)
                        && !view.x.old.contains(&t.fact)
                }
                Place::Held => false,
            };
            if ok {
                Ok(())
            } else {
                Err(format!(
                    "the trigger {t:?} does not put the instance in its round"
                ))
            }
        }
        _ => Err("a trigger where none belongs, or none where one must be".into()),
    }
}

/// Parses a ground fact such as `path("a", "d")` against a program (relation declared, arity,
/// constants of the columns' types). Errors are located in the text as file `--fact`.
pub fn parse_fact(
    text: &str,
    program: &Program,
    symbols: &mut crate::value::Symbols,
) -> Result<Fact, crate::Diagnostic> {
    use crate::magic::{parse_atom_arg, CliAtom, QueryArg};
    let kind = CliAtom {
        flag: "--fact",
        what: "fact",
        shape: "a fact is one ground atom, such as path(\"a\", \"d\")",
        derived_only: false,
    };
    let (rel, args, file) = parse_atom_arg(kind, text, program, symbols)?;
    let mut tuple: Tuple = Vec::new();
    for (i, (arg, span)) in args.into_iter().enumerate() {
        match arg {
            QueryArg::Const(v) => tuple.push(v),
            QueryArg::Var(_) | QueryArg::Wildcard => {
                return Err(crate::Diagnostic::new(
                    &file,
                    span,
                    format!("a fact is ground: column {} needs a constant", i + 1),
                    "not a constant",
                ))
            }
        }
    }
    Ok(Fact::new(rel, tuple))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{Engine, RequestedBatch};
    use crate::record::Derivation;

    /// The seed (SPEC §6): path(a, d) is over-deleted in the third frontier through
    /// path(a, b) ← edge(a, b), and rederived in round 1 by path(a, d) :- path(a, e),
    /// path(e, d); the chain goes down to the deletion of edge(a, b). The same whether the
    /// engine recorded its derivations while it ran or the explanation searched for them.
    #[test]
    fn seed_path_ad_overdeleted_through_ab_and_rederived_through_e() {
        for record in [true, false] {
            seed_explained(record);
        }
    }

    /// A recorded derivation is checked, not trusted: path(a, d)'s over-deletion recorded
    /// through path(a, c), which is not in round 2, or under a binding of the wrong length,
    /// is refused.
    #[test]
    fn a_wrong_recorded_derivation_is_refused() {
        let run = SeedRun::new(true);
        let recorded = run.recorded.clone().expect("recording");
        let at = recorded
            .iter()
            .position(|r| r.fact == run.path("a", "d") && r.phase == Phase::Overdelete)
            .expect("recorded");
        assert_eq!(recorded[at].round, 3);
        let explain = |recorded: &[Derivation]| run.explain(Some(recorded));
        assert!(explain(&recorded).is_ok());
        let rule = recorded[at].rule.expect("an instance");
        let names = &run.program.rules[rule].var_names;
        let y = names.iter().position(|n| n == "y").expect("y");
        let mut through_c = recorded.clone();
        through_c[at].binding[y] = run.symbols.get("c").expect("c");
        let err = explain(&through_c).expect_err("path(a, c) is not in round 2");
        assert!(err.contains("does not put"), "{err}");
        let mut short = recorded.clone();
        short[at].binding.pop();
        assert!(explain(&short).is_err());
        let mut missing = recorded.clone();
        missing.remove(at);
        let err = explain(&missing).expect_err("unrecorded");
        assert!(err.contains("no derivation was recorded"), "{err}");
        // The update itself is recorded as entering outright.
        assert!(recorded
            .iter()
            .any(|r| r.fact == run.ab && r.rule.is_none() && r.round == 1));
    }

    /// The seed's batch (edge(a, b) deleted) run by `dred`, recording or not.
    struct SeedRun {
        program: std::sync::Arc<Program>,
        symbols: crate::value::Symbols,
        edb: Edb,
        ab: Fact,
        batch: Batch,
        old_model: Model,
        new_model: Model,
        report: crate::engine::BatchReport,
        recorded: Option<Vec<Derivation>>,
    }

    impl SeedRun {
        fn new(record: bool) -> SeedRun {
            let (program, mut symbols, edb) =
                crate::seed::seed_setup(include_str!("../../datasets/seed/path.dl"));
            let edge = program.relation_id("edge").expect("edge");
            let ab = Fact::new(edge, vec![symbols.intern("a"), symbols.intern("b")]);
            let batch = Batch::normalise(
                &RequestedBatch {
                    deletions: vec![ab.clone()],
                    insertions: vec![],
                },
                &edb,
            );
            let mut dred = crate::Dred::new(program.clone());
            dred.set_saturation(crate::dred::production::overdelete::Saturation::Never);
            dred.materialise(&edb).expect("materialise");
            dred.set_recording(record);
            let old_model = dred.model();
            let report = dred.apply(&batch).expect("apply");
            let new_model = dred.model();
            let recorded = dred.last_derivations().map(<[Derivation]>::to_vec);
            SeedRun {
                program,
                symbols,
                edb,
                ab,
                batch,
                old_model,
                new_model,
                report,
                recorded,
            }
        }

        /// The batch explained from `recorded` (`None`: searched).
        fn explain(&self, recorded: Option<&[Derivation]>) -> Result<BatchExplanation, String> {
            BatchExplanation::of(&BatchStates {
                program: &self.program,
                old_edb: &self.edb,
                batch: &self.batch,
                old_model: &self.old_model,
                new_model: &self.new_model,
                rounds: &self.report.rounds,
                recorded,
            })
        }

        /// path(x, y) of two seed constants.
        fn path(&self, a: &str, b: &str) -> Fact {
            let path = self.program.relation_id("path").expect("path");
            let id = |n: &str| self.symbols.get(n).expect("a seed constant");
            Fact::new(path, vec![id(a), id(b)])
        }
    }

    fn seed_explained(record: bool) {
        let run = SeedRun::new(record);
        assert_eq!(run.recorded.is_some(), record);
        let (program, batch, ab) = (&run.program, &run.batch, run.ab.clone());
        let x = run.explain(run.recorded.as_deref()).expect("explained");
        x.verify(program, batch).expect("verified");
        let p = |a: &str, b: &str| run.path(a, b);
        let entries = x.of_fact(&p("a", "d"));
        assert_eq!(entries.len(), 2, "{entries:?}");
        let (over, re) = (&entries[0], &entries[1]);
        assert_eq!((over.phase, over.round), (Phase::Overdelete, 3));
        let Source::Instance(i) = &over.source else {
            panic!("{over:?}")
        };
        assert_eq!(
            i.body
                .iter()
                .map(|b| (&b.fact, b.place))
                .collect::<Vec<_>>(),
            [(&p("a", "b"), Place::Round(2)), (&p("b", "d"), Place::Held)]
        );
        let chain: Vec<(Fact, usize)> = x
            .chain(&p("a", "d"), over)
            .into_iter()
            .map(|(f, e)| (f.clone(), e.round))
            .collect();
        assert_eq!(chain, [(p("a", "d"), 3), (p("a", "b"), 2), (ab.clone(), 1)]);
        assert_eq!(x.of_fact(&ab)[0].source, Source::Update);
        assert_eq!((re.phase, re.round), (Phase::Rederive, 1));
        let Source::Instance(i) = &re.source else {
            panic!("{re:?}")
        };
        assert_eq!(
            i.body
                .iter()
                .map(|b| (&b.fact, b.place))
                .collect::<Vec<_>>(),
            [(&p("a", "e"), Place::Held), (&p("e", "d"), Place::Held)]
        );
        assert_eq!(i.trigger, None);
        // Everything over-deleted goes back to edge(a, b).
        let groups = x.overdeletion_groups(program);
        assert_eq!(groups.len(), 1);
        assert_eq!(groups[0].0, ab);
        assert_eq!(groups[0].1, vec![p("a", "b"), p("a", "c"), p("a", "d")]);
        // A fact the batch did not touch has no entry.
        assert!(x.of_fact(&p("b", "c")).is_empty() && x.is_present(&p("b", "c")));
        // verify() fails on a wrong claim: path(a, c) was over-deleted, not a survivor.
        let mut wrong = x.clone();
        let entry = &mut wrong.entries.get_mut(&p("a", "d")).expect("entries")[1];
        if let Source::Instance(i) = &mut entry.source {
            i.body[0].fact = p("a", "c");
            i.body[1].fact = p("c", "d");
        }
        let why = wrong.verify(program, batch).expect_err("a wrong claim");
        assert!(why.contains("not in the phase's state"), "{why}");
        // ... and on a trigger in the wrong round.
        let mut wrong = x.clone();
        let entry = &mut wrong.entries.get_mut(&p("a", "d")).expect("entries")[0];
        if let Source::Instance(i) = &mut entry.source {
            i.body[0].place = Place::Round(1);
            i.trigger.as_mut().expect("a trigger").place = Place::Round(1);
        }
        assert!(wrong.verify(program, batch).is_err());
    }
}
