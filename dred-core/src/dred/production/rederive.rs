//! Phase 2 of `dred`: rederive from the survivors.
//!
//! Input: the relations with D removed (tombstoned), so the live rows are the survivors S,
//! and the over-deleted IDB D ∩ J. Output: the facts of D ∩ J restored, in rounds. Round 1
//! restores every over-deleted fact that has an instance (by a rule with its head bound, or
//! as a program fact) whose body holds in S; round k+1 restores those that have an instance
//! with a body in S plus the facts restored up to round k — such an instance must use a fact
//! restored in round k, so only delta rules seeded with those facts are run. Facts restored in
//! a round become visible at the next (Jacobi rounds), and a fact still in D is never
//! evidence. The phase stops after a round that restores nothing (that empty round is
//! reported) or once every over-deleted fact is back — the rounds of the reference engine.
//! Postcondition: the live rows are exactly the facts of the new least model that were in
//! the old one (the new model is contained in the old one after deletions only).

use std::collections::HashSet;

use super::{bind_head, Plans, RowRef};
use crate::engine::Work;
use crate::eval::{Matcher, Versions, WorkCounter};
use crate::program::{Program, RelId};
use crate::storage::Relation;
use crate::value::{Tuple, Value};

/// The result of phase 2.
#[derive(Debug, Default)]
pub struct Rederived {
    /// Facts restored in all rounds.
    pub rederived: usize,
    /// The facts restored in each round.
    pub rounds: Vec<Vec<RowRef>>,
    /// Work of the phase (joins, one probe per program-fact test and per instance's head in
    /// later rounds, one row touched per revival).
    pub work: Work,
}

/// Runs phase 2, reviving restored facts in `relations`.
pub(crate) fn rederive(
    program: &Program,
    relations: &mut [Relation],
    plans: &Plans,
    program_facts: &HashSet<(RelId, Tuple)>,
    overdeleted_idb: &[RowRef],
) -> Rederived {
    let mut rules_by_head: Vec<Vec<usize>> = vec![Vec::new(); program.relations.len()];
    for (i, rule) in program.rules.iter().enumerate() {
        rules_by_head[rule.head.rel].push(i);
    }
    // Over-deleted facts not restored yet (their rows are tombstones, still found by value).
    let mut pending: hashbrown::HashSet<RowRef> = overdeleted_idb.iter().copied().collect();

    let work = WorkCounter::default();
    // Round 1: one bounded search per over-deleted fact.
    let mut restored: Vec<RowRef> = Vec::new();
    {
        let versions: Vec<Versions> = relations.iter().map(Versions::complete).collect();
        let matcher = Matcher {
            relations,
            versions: &versions,
            work: &work,
        };
        let mut vars: Vec<Value> = Vec::new();
        for &(rel, r) in overdeleted_idb {
            let tuple = relations[rel].row(r);
            if !program_facts.is_empty() {
                work.probe(1);
                if program_facts.contains(&(rel, tuple.to_vec())) {
                    restored.push((rel, r));
                    continue;
                }
            }
            for &ri in &rules_by_head[rel] {
                let plan = &plans.head_bound[ri];
                vars.clear();
                vars.resize(plan.num_vars, 0);
                // head(t) :- body, with the head bound to the over-deleted fact.
                if bind_head(&program.rules[ri].head.args, tuple, &mut vars)
                    && matcher.exists(plan, &mut vars)
                {
                    restored.push((rel, r));
                    break;
                }
            }
        }
    }

    let mut out = Rederived::default();
    if overdeleted_idb.is_empty() {
        out.work = work.total();
        return out;
    }
    let mut head = Vec::new();
    loop {
        for &(rel, r) in &restored {
            pending.remove(&(rel, r));
            relations[rel].revive(r);
        }
        work.touch(restored.len() as u64);
        out.rederived += restored.len();
        // As the reference: stop after a round that restores nothing, or once every
        // over-deleted fact is back (no further, empty round then).
        let done = restored.is_empty() || pending.is_empty();
        out.rounds.push(std::mem::take(&mut restored));
        if done {
            break;
        }
        let versions: Vec<Versions> = relations.iter().map(Versions::complete).collect();
        let matcher = Matcher {
            relations,
            versions: &versions,
            work: &work,
        };
        let mut seen: hashbrown::HashSet<RowRef> = hashbrown::HashSet::new();
        let last = out.rounds.last().expect("a round was just pushed");
        for &(rel, r) in last {
            let row = relations[rel].row(r);
            for plan in &plans.seeded[rel] {
                // head :- ..., body_i = a fact restored last round, ... (the rest live)
                matcher.for_each_seeded(plan, row, &mut |vars| {
                    head.clear();
                    head.extend(plan.head.iter().map(|o| o.get(vars)));
                    work.probe(1);
                    if let Some(h) = relations[plan.head_rel].find_row(&head) {
                        if pending.contains(&(plan.head_rel, h)) && seen.insert((plan.head_rel, h))
                        {
                            restored.push((plan.head_rel, h));
                        }
                    }
                });
            }
        }
    }
    out.work = work.total();
    out
}
