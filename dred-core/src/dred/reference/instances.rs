//! The reference's store of old successful ground instances, and the numbering of old facts it
//! is built on (SPEC §4, phase 1, first half).
//!
//! Input: the old set I ∪ J as indexed relations, and the program with every wildcard named
//! (see [`name_wildcards`]).
//! Output: a [`FactTable`] numbering the M facts of I ∪ J densely, and an [`InstanceStore`]
//! holding every ground instance whose positive body atoms all hold in I ∪ J (and whose
//! comparisons hold) — its head, its rule and its whole body — plus every program fact as an
//! instance with an empty body; with a reverse index from each body fact to the heads of the
//! instances it occurs in.
//! Postcondition: the store has G instances and B body facts in all; instances of one head are
//! contiguous and ordered by rule, then by body facts compared by value, so that every scan
//! over them (and the membership counts of phase 2) is deterministic. Building it costs the
//! matching work C₀ plus O(M + G·log G + B) and keeps O(M + G + B) words.
//!
//! Pitfall: the store describes the *old* set. It is never updated: a batch that changes the
//! model enumerates afresh on the next batch.

use std::cmp::Ordering;
use std::collections::HashMap;
use std::ops::Range;

use crate::exec::{Matcher, Versions, WorkCounter};
use crate::plan::{plan_rule, RulePlan, Version};
use crate::program::{Literal, Program, RelId, Term};
use crate::storage::Relation;
use crate::value::Value;
use crate::Fact;

/// Dense number of a fact of the old I ∪ J: fact `(rel, row)` is `offset(rel) + row`.
pub type FactId = u32;

/// Why the store could not be built.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StoreError {
    /// More facts or instances than 32-bit ids can number.
    #[error("more than 2^32 {0}: too large for the reference engine")]
    TooLarge(&'static str),
    /// An old instance's head is not an old fact: the old model was not closed under the
    /// rules (the text names the rule or program fact and the missing head).
    #[error("the old model is not closed: {0}")]
    NotClosed(String),
}

/// The numbering of the facts of one set of relations (the old I ∪ J). Ids follow relation
/// order, then row order; every fact of the relations has exactly one id.
#[derive(Debug)]
pub struct FactTable<'a> {
    relations: &'a [Relation],
    /// `offsets[rel]..offsets[rel + 1]` are the ids of `rel`'s facts.
    offsets: Vec<FactId>,
}

impl<'a> FactTable<'a> {
    /// Numbers the facts of `relations`; fails when there are 2^32 or more.
    pub fn new(relations: &'a [Relation]) -> Result<Self, StoreError> {
        let mut offsets = Vec::with_capacity(relations.len() + 1);
        let mut next: u64 = 0;
        for r in relations {
            offsets.push(FactId::try_from(next).map_err(|_| StoreError::TooLarge("facts"))?);
            next += r.len() as u64;
        }
        offsets.push(FactId::try_from(next).map_err(|_| StoreError::TooLarge("facts"))?);
        Ok(FactTable { relations, offsets })
    }

    /// M: the number of facts.
    pub fn len(&self) -> usize {
        self.offsets.last().map_or(0, |&n| n as usize)
    }

    /// True when there are no facts.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The relations numbered.
    pub fn relations(&self) -> &'a [Relation] {
        self.relations
    }

    /// The id of a fact, or `None` when it is not in the set.
    pub fn id(&self, rel: RelId, tuple: &[Value]) -> Option<FactId> {
        let relation = self.relations.get(rel)?;
        if tuple.len() != relation.arity() {
            return None;
        }
        relation.row_id(tuple).map(|r| self.offsets[rel] + r)
    }

    /// The relation of a fact.
    pub fn rel(&self, id: FactId) -> RelId {
        // The last relation whose first id is ≤ id (empty relations share their offset with
        // the next one, and hold no id).
        self.offsets.partition_point(|&o| o <= id) - 1
    }

    /// The values of a fact.
    pub fn tuple(&self, id: FactId) -> &'a [Value] {
        let rel = self.rel(id);
        self.relations[rel].row(id - self.offsets[rel])
    }

    /// A fact by id, as an owned [`Fact`].
    pub fn fact(&self, id: FactId) -> Fact {
        Fact::new(self.rel(id), self.tuple(id).to_vec())
    }

    /// Orders two facts by value: relation, then tuple.
    pub fn cmp_by_value(&self, a: FactId, b: FactId) -> Ordering {
        (self.rel(a), self.tuple(a)).cmp(&(self.rel(b), self.tuple(b)))
    }

    /// Owned facts of some ids, sorted by value.
    pub fn sorted_facts(&self, ids: impl IntoIterator<Item = FactId>) -> Vec<Fact> {
        let mut out: Vec<Fact> = ids.into_iter().map(|id| self.fact(id)).collect();
        out.sort();
        out
    }
}

/// The program with every wildcard `_` in a positive atom replaced by a fresh variable
/// (named `_1`, `_2`, … per rule). A ground instance fixes every body fact, so a wildcard
/// must be bound too: `p(x) :- e(x, _)` has one instance per matching `e` fact.
pub fn name_wildcards(program: &Program) -> Program {
    let mut named = program.clone();
    for rule in &mut named.rules {
        let mut fresh = 0;
        for lit in &mut rule.body {
            if let Literal::Positive(atom) = lit {
                let types = &program.relations[atom.rel].types;
                for (t, &ty) in atom.args.iter_mut().zip(types) {
                    if *t == Term::Wildcard {
                        fresh += 1;
                        *t = Term::Var(rule.var_names.len());
                        rule.var_names.push(format!("_{fresh}"));
                        rule.var_types.push(ty);
                    }
                }
            }
        }
    }
    named
}

/// One plan per rule of `named` (a program from [`name_wildcards`]) that matches the whole
/// body against the full relations; registers its indexes on `relations`.
pub fn enumeration_plans(named: &Program, relations: &mut [Relation]) -> Vec<RulePlan> {
    (0..named.rules.len())
        .map(|r| {
            let n = named.rules[r].positive_atoms().count();
            plan_rule(named, r, &vec![Version::Full; n], None, relations)
        })
        .collect()
}

/// Index of an instance in an [`InstanceStore`].
pub type InstanceId = u32;

/// Every old successful ground instance: head, rule, whole body; grouped by head, with a
/// reverse index from body facts to heads.
#[derive(Debug, Clone, Default)]
pub struct InstanceStore {
    /// Rule of each instance (index in [`Program::rules`]); `None` for a program fact.
    rules: Vec<Option<usize>>,
    /// Head of each instance.
    heads: Vec<FactId>,
    /// Body of instance `i` is `body[body_start[i]..body_start[i + 1]]`.
    body_start: Vec<usize>,
    body: Vec<FactId>,
    /// Instances of head `h` are `head_start[h]..head_start[h + 1]`.
    head_start: Vec<usize>,
    /// Heads of the instances with `f` in their body are `uses[use_start[f]..use_start[f + 1]]`.
    use_start: Vec<usize>,
    uses: Vec<FactId>,
    /// The heads of the instances with a negated atom, by the atom as grounded (a wildcard
    /// left `None`): the facts whose arrival would falsify the instance.
    negated: HashMap<(RelId, Vec<Option<Value>>), Vec<FactId>>,
    /// Per relation, the wildcard positions of the keys of `negated` over it.
    negated_masks: Vec<Vec<Vec<bool>>>,
}

/// Which instances [`InstanceStore::enumerate_level`] keeps.
#[derive(Clone, Copy, Debug)]
pub struct Scope {
    /// Only the rules and program facts of this DRed level; `None`: all.
    pub level: Option<usize>,
    /// Every head must be a fact of the table (the set is a model, closed under the
    /// rules): an instance whose head is missing is an error. When false, such instances are
    /// left out — the relations are a mix of states and the head is new.
    pub closed: bool,
}

impl InstanceStore {
    /// Enumerates every ground instance of `named` (a program from [`name_wildcards`], with
    /// `plans` from [`enumeration_plans`]) whose body holds in the facts of `facts`, and every
    /// program fact. Fails when an instance's head is not among the facts (the old model was
    /// not closed) or when ids would overflow.
    pub fn enumerate(
        named: &Program,
        plans: &[RulePlan],
        facts: &FactTable<'_>,
    ) -> Result<Self, StoreError> {
        let all = Scope {
            level: None,
            closed: true,
        };
        Self::enumerate_level(named, plans, facts, all)
    }

    /// [`InstanceStore::enumerate`] of the instances in `scope`. Negated atoms hold in
    /// `facts`' relations; each instance's negated atoms are kept, grounded, for
    /// [`InstanceStore::heads_negating`].
    pub fn enumerate_level(
        named: &Program,
        plans: &[RulePlan],
        facts: &FactTable<'_>,
        scope: Scope,
    ) -> Result<Self, StoreError> {
        let in_scope = |rel: RelId| scope.level.is_none_or(|l| named.level_of(rel) == l);
        let relations = facts.relations();
        let versions: Vec<Versions> = relations.iter().map(Versions::complete).collect();
        let matcher = Matcher {
            relations,
            versions: &versions,
            // The reference engine reports instance counts, not work.
            work: &WorkCounter::default(),
        };
        // Raw instances in the order found: (head, rule, body range in `raw_body`).
        let mut raw: Vec<(FactId, Option<usize>, Range<usize>)> = Vec::new();
        let mut raw_body: Vec<FactId> = Vec::new();
        for pf in named.facts.iter().filter(|pf| in_scope(pf.rel)) {
            let head = facts.id(pf.rel, &pf.tuple).ok_or_else(|| {
                StoreError::NotClosed(format!(
                    "program fact rel#{}{:?} is missing",
                    pf.rel, pf.tuple
                ))
            })?;
            raw.push((head, None, raw_body.len()..raw_body.len()));
        }
        let mut missing: Option<StoreError> = None;
        let mut tuple: Vec<Value> = Vec::new();
        let mut negated: HashMap<(RelId, Vec<Option<Value>>), Vec<FactId>> = HashMap::new();
        for plan in plans.iter().filter(|p| in_scope(p.head_rel)) {
            let rule = &named.rules[plan.rule];
            matcher.for_each(plan, &mut |vars| {
                if missing.is_some() {
                    return;
                }
                ground(&rule.head.args, vars, &mut tuple);
                let Some(head) = facts.id(rule.head.rel, &tuple) else {
                    if scope.closed {
                        missing = Some(StoreError::NotClosed(format!(
                            "rule {} derives rel#{}{:?}, which is missing",
                            plan.rule, rule.head.rel, tuple
                        )));
                    }
                    return;
                };
                for lit in &rule.body {
                    if let Literal::Negative(atom) = lit {
                        let pattern = atom
                            .args
                            .iter()
                            .map(|t| match *t {
                                Term::Var(v) => Some(vars[v]),
                                Term::Const(c) => Some(c),
                                Term::Wildcard => None,
                            })
                            .collect();
                        negated.entry((atom.rel, pattern)).or_default().push(head);
                    }
                }
                let start = raw_body.len();
                for atom in rule.positive_atoms() {
                    ground(&atom.args, vars, &mut tuple);
                    // The matcher found this atom among the facts, so it has an id.
                    match facts.id(atom.rel, &tuple) {
                        Some(id) => raw_body.push(id),
                        None => unreachable!("a matched body atom is a fact of the relations"),
                    }
                }
                raw.push((head, Some(plan.rule), start..raw_body.len()));
            });
        }
        if let Some(e) = missing {
            return Err(e);
        }
        if u32::try_from(raw.len()).is_err() {
            return Err(StoreError::TooLarge("ground instances"));
        }

        // Group by head; within a head by rule, then body by value (deterministic scans).
        raw.sort_by(|a, b| {
            a.0.cmp(&b.0).then(a.1.cmp(&b.1)).then_with(|| {
                let (ba, bb) = (&raw_body[a.2.clone()], &raw_body[b.2.clone()]);
                ba.iter()
                    .zip(bb)
                    .map(|(&x, &y)| facts.cmp_by_value(x, y))
                    .find(|o| o.is_ne())
                    .unwrap_or(ba.len().cmp(&bb.len()))
            })
        });

        let m = facts.len();
        let mut store = InstanceStore {
            rules: Vec::with_capacity(raw.len()),
            heads: Vec::with_capacity(raw.len()),
            body_start: Vec::with_capacity(raw.len() + 1),
            body: Vec::with_capacity(raw_body.len()),
            head_start: vec![0; m + 1],
            use_start: vec![0; m + 1],
            uses: Vec::new(),
            negated_masks: vec![Vec::new(); named.relations.len()],
            negated: HashMap::new(),
        };
        for (rel, pattern) in negated.keys() {
            let mask: Vec<bool> = pattern.iter().map(Option::is_none).collect();
            if !store.negated_masks[*rel].contains(&mask) {
                store.negated_masks[*rel].push(mask);
            }
        }
        for heads in negated.values_mut() {
            heads.sort_unstable();
            heads.dedup();
        }
        store.negated = negated;
        for (head, rule, range) in &raw {
            store.rules.push(*rule);
            store.heads.push(*head);
            store.body_start.push(store.body.len());
            store.body.extend_from_slice(&raw_body[range.clone()]);
            store.head_start[*head as usize + 1] += 1;
        }
        store.body_start.push(store.body.len());
        for h in 0..m {
            store.head_start[h + 1] += store.head_start[h];
        }
        // Reverse index, by counting sort on the body fact.
        for &f in &store.body {
            store.use_start[f as usize + 1] += 1;
        }
        for f in 0..m {
            store.use_start[f + 1] += store.use_start[f];
        }
        let mut fill = store.use_start.clone();
        store.uses = vec![0; store.body.len()];
        for i in 0..store.heads.len() {
            let head = store.heads[i];
            for &f in &store.body[store.body_start[i]..store.body_start[i + 1]] {
                store.uses[fill[f as usize]] = head;
                fill[f as usize] += 1;
            }
        }
        Ok(store)
    }

    /// G: the number of instances (program facts included).
    pub fn len(&self) -> usize {
        self.heads.len()
    }

    /// True when there is no instance.
    pub fn is_empty(&self) -> bool {
        self.heads.is_empty()
    }

    /// B: the total body length of all instances.
    pub fn body_len(&self) -> usize {
        self.body.len()
    }

    /// The head of instance `i`.
    pub fn head(&self, i: InstanceId) -> FactId {
        self.heads[i as usize]
    }

    /// The rule of instance `i`; `None` for a program fact.
    pub fn rule(&self, i: InstanceId) -> Option<usize> {
        self.rules[i as usize]
    }

    /// The body facts of instance `i`, in the order of the rule's positive atoms.
    pub fn body(&self, i: InstanceId) -> &[FactId] {
        let i = i as usize;
        &self.body[self.body_start[i]..self.body_start[i + 1]]
    }

    /// The instances whose head is `h`, ordered by rule then body.
    pub fn of_head(&self, h: FactId) -> Range<InstanceId> {
        let h = h as usize;
        // Both bounds are ≤ G, which fits (checked when built).
        self.head_start[h] as InstanceId..self.head_start[h + 1] as InstanceId
    }

    /// The heads of the instances with a negated atom that fact `tuple` of `rel` matches:
    /// the instances its arrival falsifies (each head once per pattern).
    pub fn heads_negating(&self, rel: RelId, tuple: &[Value]) -> Vec<FactId> {
        let mut out = Vec::new();
        for mask in &self.negated_masks[rel] {
            let pattern: Vec<Option<Value>> = tuple
                .iter()
                .zip(mask)
                .map(|(&v, &wild)| (!wild).then_some(v))
                .collect();
            if let Some(heads) = self.negated.get(&(rel, pattern)) {
                out.extend_from_slice(heads);
            }
        }
        out
    }

    /// The heads of the instances with `f` in their body (once per occurrence).
    pub fn heads_using(&self, f: FactId) -> &[FactId] {
        let f = f as usize;
        &self.uses[self.use_start[f]..self.use_start[f + 1]]
    }
}

/// The values of `args` under a complete binding, into `out`.
fn ground(args: &[Term], vars: &[Value], out: &mut Vec<Value>) {
    out.clear();
    out.extend(args.iter().map(|t| match *t {
        Term::Var(v) => vars[v],
        Term::Const(c) => c,
        // `name_wildcards` leaves none in positive atoms, and heads never have one.
        Term::Wildcard => unreachable!("wildcards are named before enumeration"),
    }));
}
