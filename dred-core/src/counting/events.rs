//! One fact entering or leaving the database (an *event*) and what it changes above it: the
//! derivation counts of the rules of non-recursive strata (by the delta rules of Gupta,
//! Mumick and Subrahmanian), the recursive strata to maintain, the aggregate groups to fold
//! again.
//!
//! Why one fact at a time: the count of a rule's head is the number of the rule's instances
//! over the database, so over a sequence of single-fact events the counts' changes add up
//! (they telescope) to the difference between the instances over the final and the initial
//! database, whatever the order of the events. One event changes exactly the instances that
//! use its fact: an insertion adds those that use it positively over the database with it
//! (and removes those that held by its absence, found before it comes); a deletion the
//! mirror. A fact used at several positive (or negated) atoms of one instance is found once
//! per position; the instance is counted at the first of them only
//! ([`first_position`]), so no instance counts twice.

use hashbrown::{HashMap, HashSet};

use super::plans::{CountingPlans, SeededPlan};
use crate::engine::NetChange;
use crate::exec::{Matcher, Versions, WorkCounter};
use crate::program::{Atom, Literal, Program, RelId, Rule, Term};
use crate::storage::Relation;
use crate::value::{Tuple, Value};

/// What the events of one batch (or of materialisation) have changed so far above them.
#[derive(Debug, Default)]
pub(crate) struct Pending {
    /// Per relation of a non-recursive stratum: the net change of each fact's count so far.
    pub counts: Vec<HashMap<Tuple, i64>>,
    /// Per stratum: true for a recursive stratum whose input changed.
    pub dirty: Vec<bool>,
    /// Per stratum: a recursive stratum to evaluate from round 1 (at materialisation),
    /// whatever its input; its changed inputs are then not listed.
    pub from_round_1: Vec<bool>,
    /// Per recursive stratum: the input facts that entered (true) or left it, listed unless
    /// the stratum is evaluated from round 1.
    pub changed_inputs: Vec<Vec<(RelId, Tuple, bool)>>,
    /// Per aggregate: the groups (their key) whose input changed.
    pub groups: Vec<HashSet<Tuple>>,
    /// Derived facts that left and entered the model.
    pub net: NetChange,
    /// Joins, one probe per row inserted or removed.
    pub work: WorkCounter,
}

impl Pending {
    /// Nothing pending, for a program of `relations`, `strata` and `aggregates`.
    pub(crate) fn new(relations: usize, strata: usize, aggregates: usize) -> Self {
        Pending {
            counts: vec![HashMap::new(); relations],
            dirty: vec![false; strata],
            from_round_1: vec![false; strata],
            changed_inputs: vec![Vec::new(); strata],
            groups: vec![HashSet::new(); aggregates],
            ..Pending::default()
        }
    }
}

/// The database and what reads it: the relations, the program and its plans.
pub(crate) struct Database<'a> {
    /// The program, wildcards of positive atoms named.
    pub program: &'a Program,
    /// Every relation, EDB and IDB.
    pub relations: &'a mut [Relation],
    /// The plans.
    pub plans: &'a CountingPlans,
}

impl Database<'_> {
    /// Fact `tuple` of `rel` enters (`insert`) or leaves the database, which must not (must)
    /// hold it; the counts, strata and groups it affects are noted in `pending`.
    pub(crate) fn event(
        &mut self,
        pending: &mut Pending,
        rel: RelId,
        tuple: &[Value],
        insert: bool,
    ) {
        if insert {
            // Instances true by the fact's absence stop holding: found while it is absent.
            self.count(pending, &self.plans.negative[rel], tuple, -1);
            self.relations[rel].insert(tuple);
            self.count(pending, &self.plans.positive[rel], tuple, 1);
        } else {
            self.count(pending, &self.plans.positive[rel], tuple, -1);
            self.relations[rel].remove(tuple);
            self.count(pending, &self.plans.negative[rel], tuple, 1);
        }
        pending.work.probe(1);
        for &s in &self.plans.recursive_readers[rel] {
            pending.dirty[s] = true;
            if !pending.from_round_1[s] {
                pending.changed_inputs[s].push((rel, tuple.to_vec(), insert));
            }
        }
        for &k in &self.plans.aggregates_over[rel] {
            let group = self.program.aggregates[k].group;
            pending.groups[k].insert(tuple[..group].to_vec());
        }
        if self.program.is_idb(rel) {
            if insert {
                pending.net.added += 1;
            } else {
                pending.net.removed += 1;
            }
        }
    }

    /// Adds `sign` to the count of the head of every instance of `plans` seeded with
    /// `tuple`, over the relations as they are.
    fn count(&self, pending: &mut Pending, plans: &[SeededPlan], tuple: &[Value], sign: i64) {
        if plans.is_empty() {
            return;
        }
        let versions: Vec<Versions> = self.relations.iter().map(Versions::complete).collect();
        let matcher = Matcher {
            relations: self.relations,
            versions: &versions,
            work: &pending.work,
        };
        let counts = &mut pending.counts;
        for seeded in plans {
            let rule = &self.program.rules[seeded.rule];
            let plan = &seeded.plan;
            matcher.for_each_seeded(plan, tuple, &mut |vars| {
                if !first_position(rule, seeded.literal, tuple, vars) {
                    return;
                }
                let head: Tuple = plan.head.iter().map(|o| o.get(vars)).collect();
                *counts[plan.head_rel].entry(head).or_default() += sign;
            });
        }
    }
}

/// True when body literal `literal` of `rule` is the first of its kind (positive or negated)
/// over its relation that `tuple` matches under the binding `vars`: the one position an
/// instance using the fact several times is counted at.
pub(crate) fn first_position<'r>(
    rule: &'r Rule,
    literal: usize,
    tuple: &[Value],
    vars: &[Value],
) -> bool {
    let same_kind = |l: &'r Literal| -> Option<&'r Atom> {
        match (l, &rule.body[literal]) {
            (Literal::Positive(a), Literal::Positive(s))
            | (Literal::Negative(a), Literal::Negative(s))
                if a.rel == s.rel =>
            {
                Some(a)
            }
            _ => None,
        }
    };
    !rule.body[..literal]
        .iter()
        .filter_map(same_kind)
        .any(|a| matches(a, tuple, vars))
}

/// True when atom `a` under the binding `vars` matches `tuple` (a wildcard matches anything).
fn matches(a: &Atom, tuple: &[Value], vars: &[Value]) -> bool {
    a.args.iter().zip(tuple).all(|(t, &v)| match *t {
        Term::Var(x) => vars[x] == v,
        Term::Const(c) => c == v,
        Term::Wildcard => true,
    })
}
