//! The plans the chassis makes once per program, shared by the algorithms' phases: per relation the
//! rules seeded with one of its facts (phase 1, and the seeded later rounds of phase 2),
//! per rule the head-bound orders of a proof search (phase 2) and the semi-naive delta plans
//! (phase 3), and the plans of a rule's instances over the survivors (phase 2's scans).
//! Plans only read the program and create indexes on the relations; they hold no rows, so
//! they stay valid across batches and compaction.

use crate::plan::{
    plan_negation_seeded, plan_rule_adaptive, plan_rule_with, plan_seeded_adaptive, AtomStep,
    PlanOptions, RulePlan, Step, Version,
};
use crate::program::{Literal, Program, RelId, Term};
use crate::storage::{IndexId, Relation, RowId};
use crate::value::Value;

/// Plans made once per program.
#[derive(Clone, Debug)]
pub(crate) struct Plans {
    /// For each DRed level and relation, the plans of every (rule of that level, positive
    /// body atom over the relation): the atom is seeded with one fact, the other atoms match
    /// every live row. A level runs only its own rules, so that a level above never sees a
    /// lower one half maintained.
    seeded: Vec<Vec<Vec<RulePlan>>>,
    /// For each DRed level and relation, the plans of every (rule of that level, negated body
    /// atom over the relation), seeded with one fact of it ([`plan_negation_seeded`]). Empty
    /// for a program without negation.
    negated: Vec<Vec<Vec<RulePlan>>>,
    /// The aggregate relations of each DRed level.
    pub(crate) aggregates_of_level: Vec<Vec<AggregatePlan>>,
    /// For each rule, plans with the head's variables bound — "is there a proof of this
    /// fact by this rule?" — in every order that starts from a different positive body atom
    /// (one plan for rules with at most one);
    /// [`OrderStats`](super::order_stats::OrderStats) picks among them.
    pub(crate) head_bound: Vec<Vec<RulePlan>>,
    /// For each rule, one semi-naive plan per positive body atom as the delta.
    pub(crate) semi_naive: Vec<Vec<RulePlan>>,
    /// For each stratum, the plans of its evaluation from scratch: `recompute`'s (a base
    /// rule's order free, not from its first atom), but a recursive rule's plans order the
    /// atoms after the delta per row where they can, as phase 3's do. Measured on getopts'
    /// liveness and smallvec's points-to: phase 3's plans throughout cost liveness's
    /// recomputations a fifth more than `recompute`'s, and `recompute`'s fixed orders
    /// throughout cost points-to's twice as much as per-row orders.
    pub(crate) evaluation: Vec<crate::eval::StratumPlan>,
    /// For each stratum, the indexes its evaluation from scratch reads (`evaluation`'s plans,
    /// its aggregate's groups): those a recomputation keeps up to date while it evaluates
    /// ([`crate::storage::Relation::defer_index`]). Only those: on GO BP's TC, building and
    /// growing `path`'s index by its second column, which only phase 3's plan of `edge` as
    /// the delta reads, was a tenth of `recompute-levels`' samples.
    pub(crate) evaluation_reads: Vec<Vec<(RelId, IndexId)>>,
    /// For each recursive stratum whose fixed orders (`recompute`'s throughout) read only
    /// indexes `evaluation_reads` has: those plans and the indexes they read. A
    /// recomputation runs them when the per-row orders would first build a larger deferred
    /// index (`Store::evaluate_stratum`): on getopts' liveness analysis the per-row orders
    /// of `move_error_trace`, fed by 10 move errors, built an index of 1.4 M rows of
    /// `path_maybe_uninit_on_exit` on every recomputation after an insertion (52–71 ms of
    /// 330–390), which the fixed orders, checking those rows by their whole tuple, never read.
    pub(crate) evaluation_fixed: Vec<Option<FixedOrders>>,
    /// The indexes phase 3 reads: those of every semi-naive plan and of the plans seeded
    /// with a fact of a lower level (levels above 0), with every stratum's
    /// `evaluation_reads` (its aggregate's groups among them). Those only the deletion
    /// algorithms read stay deferred through an insertion.
    pub(crate) insertion_reads: Vec<(RelId, IndexId)>,
    /// For each rule with a positive body atom, a plan of all its instances over the live
    /// rows (round 1 of rederivation by scan, see [`ScanStats`](crate::dred::production::rederive_cost::ScanStats)).
    pub(crate) survivors: Vec<Option<RulePlan>>,
    /// Per relation: the rules with that head, in program order.
    pub(crate) rules_by_head: Vec<Vec<usize>>,
    /// Per rule: the relation of each positive body atom, in body order.
    pub(crate) atom_rels: Vec<Vec<RelId>>,
}

/// A stratum's evaluation in fixed orders and the indexes it reads ([`Plans::evaluation_fixed`]).
pub(crate) type FixedOrders = (crate::eval::StratumPlan, Vec<(RelId, IndexId)>);

impl Plans {
    /// Plans every rule of `program`, creating the indexes they use in `relations`.
    pub(crate) fn new(program: &Program, relations: &mut [Relation]) -> Self {
        let levels = program.num_levels();
        let mut seeded = vec![vec![Vec::new(); program.relations.len()]; levels];
        let mut negated = vec![vec![Vec::new(); program.relations.len()]; levels];
        let mut aggregates_of_level = vec![Vec::new(); levels];
        for (k, def) in program.aggregates.iter().enumerate() {
            let cols: Vec<usize> = (0..def.group).collect();
            let by_group = |relations: &mut [Relation], rel: RelId| {
                (def.group > 0).then(|| relations[rel].ensure_index(&cols))
            };
            aggregates_of_level[program.level_of(def.rel)].push(AggregatePlan {
                def: k,
                rows: by_group(relations, def.rel),
                input_rows: by_group(relations, def.input),
            });
        }
        let mut head_bound = Vec::new();
        let mut semi_naive = Vec::new();
        let mut survivors = Vec::new();
        for (r, rule) in program.rules.iter().enumerate() {
            let level = program.rule_level(r);
            for (l, lit) in rule.body.iter().enumerate() {
                if let Literal::Negative(a) = lit {
                    negated[level][a.rel].push(plan_negation_seeded(program, r, l, relations));
                }
            }
            let atoms: Vec<RelId> = rule.positive_atoms().map(|a| a.rel).collect();
            let full = vec![Version::Full; atoms.len()];
            let seed = PlanOptions {
                seeded: true,
                prebound: Vec::new(),
            };
            // From one atom's row (a frontier fact, a delta's row) the other atoms are
            // ordered per binding where there is a choice (`plan::adaptive`).
            let from_atom = |relations: &mut [Relation], versions: &[Version], i, options| {
                plan_seeded_adaptive(program, r, versions, i, options, relations).unwrap_or_else(
                    || plan_rule_with(program, r, versions, Some(i), options, relations),
                )
            };
            for (i, &rel) in atoms.iter().enumerate() {
                seeded[level][rel].push(from_atom(relations, &full, i, &seed));
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
                // And the order chosen per binding, measured like the others.
                orders.extend(plan_rule_adaptive(program, rule, r, &head, relations));
            }
            head_bound.push(orders);
            let unseeded = PlanOptions::default();
            let mut per_delta = Vec::new();
            for p in 0..atoms.len() {
                let versions: Vec<Version> = (0..atoms.len())
                    .map(|j| match j.cmp(&p) {
                        std::cmp::Ordering::Less => Version::Old,
                        std::cmp::Ordering::Equal => Version::Delta,
                        std::cmp::Ordering::Greater => Version::Full,
                    })
                    .collect();
                per_delta.push(from_atom(relations, &versions, p, &unseeded));
            }
            semi_naive.push(per_delta);
            survivors.push((!atoms.is_empty()).then(|| {
                plan_rule_with(program, r, &full, None, &PlanOptions::default(), relations)
            }));
        }
        let evaluation: Vec<crate::eval::StratumPlan> = (0..program.strata.len())
            .map(|s| crate::eval::StratumPlan::new(program, s, true, relations))
            .collect();
        let evaluation_reads: Vec<Vec<(RelId, IndexId)>> = program
            .strata
            .iter()
            .zip(&evaluation)
            .map(|(stratum, plans)| {
                let mut reads = Vec::new();
                plans
                    .plans()
                    .for_each(|plan| indexes_read(plan, &mut reads));
                for a in aggregates_of_level.iter().flatten() {
                    let def = &program.aggregates[a.def];
                    if stratum.relations.contains(&def.rel) {
                        reads.extend(a.rows.map(|ix| (def.rel, ix)));
                        reads.extend(a.input_rows.map(|ix| (def.input, ix)));
                    }
                }
                reads.sort_unstable();
                reads.dedup();
                reads
            })
            .collect();
        let evaluation_fixed = program
            .strata
            .iter()
            .enumerate()
            .map(|(s, stratum)| {
                if !stratum.recursive || stratum.aggregate.is_some() {
                    return None;
                }
                // Planned against a copy: fixed orders needing an index the relations lack
                // are not kept, and must not add one (it would be maintained for nothing).
                let mut scratch = relations.to_vec();
                let fixed = crate::eval::StratumPlan::new(program, s, false, &mut scratch);
                let mut reads = Vec::new();
                fixed
                    .plans()
                    .for_each(|plan| indexes_read(plan, &mut reads));
                reads.sort_unstable();
                reads.dedup();
                let known = reads
                    .iter()
                    .all(|r| evaluation_reads[s].binary_search(r).is_ok());
                (known && reads != evaluation_reads[s]).then_some((fixed, reads))
            })
            .collect();
        let mut insertion_reads: Vec<(RelId, IndexId)> =
            evaluation_reads.iter().flatten().copied().collect();
        for plan in semi_naive.iter().flatten() {
            indexes_read(plan, &mut insertion_reads);
        }
        for plan in seeded.iter().chain(&negated).flatten().flatten() {
            indexes_read(plan, &mut insertion_reads);
        }
        insertion_reads.sort_unstable();
        insertion_reads.dedup();
        // Made once rather than by each batch that needs them, which allocated a heap block
        // per relation or rule for them (a polonius deletion on getopts: hundreds).
        let mut rules_by_head = vec![Vec::new(); program.relations.len()];
        for (i, rule) in program.rules.iter().enumerate() {
            rules_by_head[rule.head.rel].push(i);
        }
        let atom_rels = program
            .rules
            .iter()
            .map(|r| r.positive_atoms().map(|a| a.rel).collect())
            .collect();
        Plans {
            seeded,
            negated,
            aggregates_of_level,
            head_bound,
            semi_naive,
            evaluation,
            evaluation_reads,
            evaluation_fixed,
            insertion_reads,
            survivors,
            rules_by_head,
            atom_rels,
        }
    }
}

/// Adds the (relation, index) pairs `plan` looks up, in any of its orders, to `out`.
fn indexes_read(plan: &RulePlan, out: &mut Vec<(RelId, IndexId)>) {
    fn atom(a: &AtomStep, out: &mut Vec<(RelId, IndexId)>) {
        out.extend(a.index.map(|ix| (a.rel, ix)));
    }
    fn step(s: &Step, out: &mut Vec<(RelId, IndexId)>) {
        match s {
            Step::Atom(a) => atom(a, out),
            Step::Absent {
                rel,
                index: Some(ix),
                ..
            } => out.push((*rel, *ix)),
            _ => {}
        }
    }
    plan.steps.iter().for_each(|s| step(s, out));
    if let Some(search) = &plan.adaptive {
        if let Some((_, seed)) = &search.seed {
            atom(seed, out);
        }
        search.start.iter().for_each(|s| step(s, out));
        for choice in search.choices.iter().flatten() {
            atom(&choice.atom, out);
            choice.then.iter().for_each(|s| step(s, out));
        }
    }
    out.extend(
        plan.first_lookup
            .as_ref()
            .and_then(|f| f.index.map(|ix| (f.rel, ix))),
    );
}

/// How a maintenance algorithm finds the rows of one group of an aggregate relation and of
/// its input.
#[derive(Clone, Debug)]
pub struct AggregatePlan {
    /// Index in [`Program::aggregates`].
    pub(crate) def: usize,
    /// The aggregate relation's index on its group columns; `None` without grouping (one
    /// group: every row).
    pub(crate) rows: Option<IndexId>,
    /// The input's index on the group columns, likewise.
    pub(crate) input_rows: Option<IndexId>,
}

impl AggregatePlan {
    /// The live rows of `rel` in group `key`, through `index` (every live row without one).
    pub(crate) fn group(relation: &Relation, index: Option<IndexId>, key: &[Value]) -> Vec<RowId> {
        match index {
            Some(ix) => relation
                .lookup(ix, key)
                .iter()
                .copied()
                .filter(|&r| relation.is_live(r))
                .collect(),
            None => (0..relation.end())
                .filter(|&r| relation.is_live(r))
                .collect(),
        }
    }
}

impl Plans {
    /// The plans of level `level`'s rules seeded with one fact of `rel` in a positive atom.
    pub(crate) fn seeded(&self, level: usize, rel: RelId) -> &[RulePlan] {
        &self.seeded[level][rel]
    }

    /// The plans of level `level`'s rules seeded with one fact of `rel` in a negated atom.
    pub(crate) fn negated(&self, level: usize, rel: RelId) -> &[RulePlan] {
        &self.negated[level][rel]
    }
}

/// The relation and key of a plan's first atom step: two plans with the same one start alike.
pub(crate) fn first_atom(plan: &RulePlan) -> Option<(RelId, Option<usize>)> {
    plan.steps.iter().find_map(|s| match s {
        crate::plan::Step::Atom(a) => Some((a.rel, a.index)),
        _ => None,
    })
}

/// True when the plan's first atom is probed on bound columns (an index lookup or a
/// membership test), not scanned.
pub(crate) fn starts_with_lookup(plan: &RulePlan) -> bool {
    plan.steps.iter().find_map(|s| match s {
        crate::plan::Step::Atom(a) => Some(a.index.is_some() || a.membership),
        _ => None,
    }) == Some(true)
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
