//! The plans `counting` makes once per program: per relation, the plans that count the rule
//! instances one fact of it takes part in (for the rules of non-recursive strata), the
//! recursive strata and aggregates that read it, and per recursive stratum the semi-naive
//! plans its rounds are replayed with. Plans hold no rows: they stay valid across batches
//! and compaction.

use crate::maintain::plans::AggregatePlan;
use crate::plan::{plan_negation_seeded, plan_rule_with, PlanOptions, RulePlan, Version};
use crate::program::{Literal, Program, RelId};
use crate::storage::Relation;

/// A plan of one rule seeded with one fact at one body literal.
#[derive(Clone, Debug)]
pub(crate) struct SeededPlan {
    /// The plan ([`crate::plan::PlanOptions::seeded`] or [`plan_negation_seeded`]).
    pub plan: RulePlan,
    /// The rule, in [`Program::rules`].
    pub rule: usize,
    /// The seeded literal's index in the rule's body.
    pub literal: usize,
}

/// The semi-naive plans of one recursive stratum.
#[derive(Clone, Debug, Default)]
pub(crate) struct ReplayPlans {
    /// Rules reading no relation of the stratum: their instances are all of round 1.
    pub base: Vec<RulePlan>,
    /// One plan per (recursive rule, same-stratum atom as the delta): same-stratum atoms
    /// before the delta read rows of earlier rounds (`Old`), those after it every row so far
    /// (`Full`), so each instance is found once, in the round after its latest body fact's.
    pub recursive: Vec<RulePlan>,
    /// Per (rule, positive atom over a lower relation): the rule seeded with one fact of
    /// that relation, every other atom over the live rows — the instances a changed input
    /// fact is in (`counting::differences`).
    pub seeded: Vec<(RelId, SeededPlan)>,
    /// Per (rule, positive atom over a relation of the stratum): the rule seeded with one
    /// fact of it — the instances a fact whose round changed is in.
    pub same_seeded: Vec<(RelId, SeededPlan)>,
    /// Per (rule, negated atom): the rule seeded with one fact of the negated (lower)
    /// relation — the instances that fact's absence makes true.
    pub negated_seeded: Vec<(RelId, SeededPlan)>,
}

/// Every plan of the engine.
#[derive(Clone, Debug)]
pub(crate) struct CountingPlans {
    /// Per relation: plans of the rules of non-recursive strata seeded at a positive atom
    /// over it, the other atoms over every live row.
    pub positive: Vec<Vec<SeededPlan>>,
    /// Per relation: plans of the rules of non-recursive strata seeded at a negated atom
    /// over it.
    pub negative: Vec<Vec<SeededPlan>>,
    /// Per relation: the recursive strata with a rule reading it (positively or not) from a
    /// lower stratum.
    pub recursive_readers: Vec<Vec<usize>>,
    /// Per relation: the aggregates ([`Program::aggregates`]) over it.
    pub aggregates_over: Vec<Vec<usize>>,
    /// Per aggregate: how to find its rows and its input's by group.
    pub aggregates: Vec<AggregatePlan>,
    /// Per stratum: its replay plans when it is recursive.
    pub replay: Vec<Option<ReplayPlans>>,
}

impl CountingPlans {
    /// Plans every rule of `program` (whose positive atoms must have no wildcards, see
    /// [`Program::with_named_wildcards`], so that a binding names every body fact), creating
    /// the indexes the plans use in `relations`.
    pub(crate) fn new(program: &Program, relations: &mut [Relation]) -> Self {
        let n = program.relations.len();
        let mut plans = CountingPlans {
            positive: vec![Vec::new(); n],
            negative: vec![Vec::new(); n],
            recursive_readers: vec![Vec::new(); n],
            aggregates_over: vec![Vec::new(); n],
            aggregates: Vec::new(),
            replay: vec![None; program.strata.len()],
        };
        for (k, def) in program.aggregates.iter().enumerate() {
            let cols: Vec<usize> = (0..def.group).collect();
            let by_group = |relations: &mut [Relation], rel: RelId| {
                (def.group > 0).then(|| relations[rel].ensure_index(&cols))
            };
            plans.aggregates.push(AggregatePlan {
                def: k,
                rows: by_group(relations, def.rel),
                input_rows: by_group(relations, def.input),
            });
            plans.aggregates_over[def.input].push(k);
        }
        let seeded = PlanOptions {
            seeded: true,
            prebound: Vec::new(),
        };
        for (s, stratum) in program.strata.iter().enumerate() {
            if stratum.recursive {
                plans.replay[s] = Some(replay_plans(program, s, relations));
                for &r in &stratum.rules {
                    for lit in &program.rules[r].body {
                        let (Literal::Positive(a) | Literal::Negative(a)) = lit else {
                            continue;
                        };
                        let readers = &mut plans.recursive_readers[a.rel];
                        if program.stratum_of[a.rel] != Some(s) && !readers.contains(&s) {
                            readers.push(s);
                        }
                    }
                }
                continue;
            }
            for &r in &stratum.rules {
                let rule = &program.rules[r];
                let full = vec![Version::Full; rule.positive_atoms().count()];
                let mut position = 0;
                for (l, lit) in rule.body.iter().enumerate() {
                    match lit {
                        Literal::Positive(a) => {
                            let plan = plan_rule_with(
                                program,
                                r,
                                &full,
                                Some(position),
                                &seeded,
                                relations,
                            );
                            plans.positive[a.rel].push(SeededPlan {
                                plan,
                                rule: r,
                                literal: l,
                            });
                            position += 1;
                        }
                        Literal::Negative(a) => {
                            let plan = plan_negation_seeded(program, r, l, relations);
                            plans.negative[a.rel].push(SeededPlan {
                                plan,
                                rule: r,
                                literal: l,
                            });
                        }
                        Literal::Compare { .. } | Literal::Assign { .. } => {}
                    }
                }
            }
        }
        plans
    }
}

/// The semi-naive plans of recursive stratum `s` (as `recompute`'s evaluator makes them).
fn replay_plans(program: &Program, s: usize, relations: &mut [Relation]) -> ReplayPlans {
    let mut out = ReplayPlans::default();
    let seed = PlanOptions {
        seeded: true,
        prebound: Vec::new(),
    };
    for &r in &program.strata[s].rules {
        let rule = &program.rules[r];
        let full = vec![Version::Full; rule.positive_atoms().count()];
        let mut position = 0;
        for (l, lit) in rule.body.iter().enumerate() {
            match lit {
                Literal::Positive(a) => {
                    let plan = plan_rule_with(program, r, &full, Some(position), &seed, relations);
                    let seeded = SeededPlan {
                        plan,
                        rule: r,
                        literal: l,
                    };
                    if program.stratum_of[a.rel] == Some(s) {
                        out.same_seeded.push((a.rel, seeded));
                    } else {
                        out.seeded.push((a.rel, seeded));
                    }
                    position += 1;
                }
                Literal::Negative(a) => {
                    let plan = plan_negation_seeded(program, r, l, relations);
                    out.negated_seeded.push((
                        a.rel,
                        SeededPlan {
                            plan,
                            rule: r,
                            literal: l,
                        },
                    ));
                }
                Literal::Compare { .. } | Literal::Assign { .. } => {}
            }
        }
        let same: Vec<bool> = program.rules[r]
            .positive_atoms()
            .map(|a| program.stratum_of[a.rel] == Some(s))
            .collect();
        if !same.contains(&true) {
            let full = vec![Version::Full; same.len()];
            let plan = plan_rule_with(program, r, &full, None, &PlanOptions::default(), relations);
            out.base.push(plan);
            continue;
        }
        for p in (0..same.len()).filter(|&p| same[p]) {
            let versions = crate::eval::delta_versions(&same, p);
            let plan = plan_rule_with(
                program,
                r,
                &versions,
                Some(p),
                &PlanOptions::default(),
                relations,
            );
            out.recursive.push(plan);
        }
    }
    out
}
