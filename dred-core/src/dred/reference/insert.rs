//! Phase 3 of the reference: insert and propagate (SPEC §4).
//!
//! Input: relations holding exactly the least model L⁻ of the program on I \ D- (the
//! survivors after phase 2), the plans of [`insertion_plans`], and the first delta: A+ (at
//! the initial materialisation, the whole EDB and every program fact, over empty relations).
//! Output: the relations grown to the least model L′ of the program on I′ = (I \ D-) ∪ A+,
//! and the facts added in each round ([`Inserted`]).
//! Postcondition: the relations hold exactly L′, every fact once.
//!
//! Semi-naive: round 1 adds the first delta; each later round matches every rule against the
//! *updated* relations and keeps the instances with at least one body fact in the latest
//! delta, adding heads not yet present as the next delta, until a round adds nothing. A rule
//! with k positive atoms runs as k plans, plan p reading atom p from the delta, atoms before
//! it from the rows before the delta and atoms after it from all rows so far: every instance
//! with some body fact in the delta is found once per round — in a non-linear rule both
//! atoms may be new, and an atom of a lower stratum or an EDB relation may be the new one.
//! Matching the current relations (not a cached set of old instances) lets constants that
//! only the inserted facts bring take part in new proofs.
//!
//! Cost: the sum of the matching work of every round — intermediate joins may be far larger
//! than the facts they add, so this is not O(|A+|) — plus duplicate elimination of heads.

use crate::engine::Phase;
use crate::exec::{Matcher, Versions, WorkCounter};
use crate::plan::{plan_rule, RulePlan, Version};
use crate::program::Program;
use crate::record::Recorder;
use crate::storage::{Relation, RowId};
use crate::value::Value;
use crate::Fact;

/// One plan per (rule, positive atom as delta) of `program`; registers indexes on
/// `relations`.
pub fn insertion_plans(program: &Program, relations: &mut [Relation]) -> Vec<RulePlan> {
    let mut plans = Vec::new();
    for r in 0..program.rules.len() {
        let n = program.rules[r].positive_atoms().count();
        for p in 0..n {
            let versions: Vec<Version> = (0..n)
                .map(|j| match j.cmp(&p) {
                    std::cmp::Ordering::Less => Version::Old,
                    std::cmp::Ordering::Equal => Version::Delta,
                    std::cmp::Ordering::Greater => Version::Full,
                })
                .collect();
            plans.push(plan_rule(program, r, &versions, Some(p), relations));
        }
    }
    plans
}

/// The result of phase 3.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Inserted {
    /// The facts added in each round, sorted; round 1 is the first delta. Never empty rounds.
    pub rounds: Vec<Vec<Fact>>,
    /// IDB facts added (the first delta's program facts included).
    pub idb_added: usize,
}

/// Runs phase 3: adds `first` to `relations` and propagates semi-naively with `plans` (from
/// [`insertion_plans`] on the same program). Facts of `first` already present are not added
/// again and are not part of round 1. With `rec` (the recorder and the level), each fact of
/// round 2 and later is recorded with the first instance that derived it.
pub fn insert(
    program: &Program,
    plans: &[RulePlan],
    relations: &mut [Relation],
    first: impl IntoIterator<Item = Fact>,
    mut rec: Option<(&mut Recorder, usize)>,
) -> Inserted {
    let mut versions: Vec<Versions> = relations.iter().map(Versions::complete).collect();
    let mut result = Inserted::default();
    let mut round: Vec<Fact> = first
        .into_iter()
        .filter(|f| relations[f.rel].insert(&f.tuple))
        .collect();
    let mut out: Vec<Value> = Vec::new();
    while !round.is_empty() {
        crate::rounds::check(result.rounds.len() + 1, || {
            crate::rounds::names(program, round.iter().map(|f| f.rel))
        });
        round.sort();
        result.idb_added += round.iter().filter(|f| program.is_idb(f.rel)).count();
        result.rounds.push(round);
        // The latest delta is every row added since the previous round.
        for (v, r) in versions.iter_mut().zip(relations.iter()) {
            v.old_end = v.delta_end;
            v.delta_end = r.len() as RowId;
        }
        // Match every rule with its delta atom at each position; heads are new rows.
        for plan in plans {
            out.clear();
            let matcher = Matcher {
                relations,
                versions: &versions,
                // The reference engine reports instance counts, not work.
                work: &WorkCounter::default(),
            };
            let Some((rec, level)) = rec.as_mut() else {
                let n = matcher.run(plan, &mut out);
                relations[plan.head_rel].insert_flat(&out, n);
                continue;
            };
            // Recording: each instance's binding beside its head; a head new to its relation
            // is recorded with the first instance that gave it (the rule's own variables: the
            // plans' named wildcards come after them).
            let own = program.rules[plan.rule].num_vars();
            let mut bindings: Vec<Vec<Value>> = Vec::new();
            matcher.for_each(plan, &mut |vars| {
                out.extend(plan.head.iter().map(|o| o.get(vars)));
                bindings.push(vars[..own].to_vec());
            });
            let relation = &mut relations[plan.head_rel];
            let arity = plan.head.len();
            let round = result.rounds.len() + 1;
            for (i, vars) in bindings.iter().enumerate() {
                let head = &out[i * arity..(i + 1) * arity];
                if relation.insert(head) {
                    let (rule, rel) = (Some(plan.rule), plan.head_rel);
                    rec.note(*level, Phase::Insert, round, rel, head, rule, vars);
                }
            }
        }
        round = relations
            .iter()
            .zip(&versions)
            .enumerate()
            .flat_map(|(rel, (r, v))| {
                let new = crate::storage::RowRange::new(v.delta_end, r.len() as RowId);
                r.rows(new).map(move |t| Fact::new(rel, t.to_vec()))
            })
            .collect();
    }
    result
}
