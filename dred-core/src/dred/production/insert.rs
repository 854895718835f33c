//! Phase 3 of `dred`: insert and propagate.
//!
//! Input: the relations after rederivation and A+. Output: A+ added, and every fact derived
//! by an instance with at least one body fact new in the previous round (the delta may sit in
//! any positive body atom, EDB atoms included, so both atoms of a non-linear rule can be new),
//! over the updated relations — new constants join freely. Round 1 is A+ itself.
//! Postcondition: the live rows are the least model of the program on I' = (I \ D-) ∪ A+.

use super::Plans;
use crate::engine::{Fact, Phase, Round, Work};
use crate::eval::{insert_flat, Matcher, Versions, WorkCounter};
use crate::program::Program;
use crate::storage::{Relation, RowId};
use crate::value::Value;

/// The result of phase 3.
#[derive(Debug, Default)]
pub struct Inserted {
    /// IDB facts new in this phase.
    pub inserted: usize,
    /// Round 1 is A+; round k+1 the facts first derived in round k.
    pub rounds: Vec<Round>,
    /// Work of the phase (joins, one probe per fact of A+ and per instance's head).
    pub work: Work,
}

/// Runs phase 3, appending to `relations`.
pub(crate) fn insert(
    program: &Program,
    relations: &mut [Relation],
    plans: &Plans,
    additions: &[Fact],
    trace_facts: bool,
) -> Inserted {
    let start: Vec<RowId> = relations.iter().map(Relation::end).collect();
    let work = WorkCounter::default();
    work.probe(additions.len() as u64);
    // Round 1's facts are copied only for a trace: a copy allocates, and on 1,000-edge
    // insertions the copies were a seventh of the phase.
    let mut added: Vec<Fact> = Vec::new();
    let mut first = 0;
    // Per relation, one batch: its indexes are maintained together.
    let mut by_rel: Vec<Vec<&Fact>> = vec![Vec::new(); relations.len()];
    for f in additions {
        by_rel[f.rel].push(f);
    }
    let mut rows: Vec<&[Value]> = Vec::new();
    for (rel, facts) in by_rel.iter().enumerate().filter(|(_, f)| !f.is_empty()) {
        rows.clear();
        rows.extend(facts.iter().map(|f| &f.tuple[..]));
        let new = relations[rel].insert_batch(&rows);
        first += new.iter().filter(|&&n| n).count();
        if trace_facts {
            added.extend(
                facts
                    .iter()
                    .zip(new)
                    .filter(|(_, n)| *n)
                    .map(|(f, _)| (*f).clone()),
            );
        }
    }
    let mut out = Inserted::default();
    if first == 0 {
        out.work = work.total();
        return out;
    }
    out.rounds.push(if trace_facts {
        Round::with_facts(Phase::Insert, 1, added)
    } else {
        Round {
            phase: Phase::Insert,
            round: 1,
            size: first,
            facts: Vec::new(),
        }
    });
    let mut versions: Vec<Versions> = relations
        .iter()
        .zip(&start)
        .map(|(r, &s)| Versions {
            old_end: s,
            delta_end: r.end(),
        })
        .collect();
    let atom_rels: Vec<Vec<usize>> = program
        .rules
        .iter()
        .map(|r| r.positive_atoms().map(|a| a.rel).collect())
        .collect();
    let mut buf: Vec<Value> = Vec::new();
    loop {
        for (ri, per_delta) in plans.semi_naive.iter().enumerate() {
            for (p, plan) in per_delta.iter().enumerate() {
                let v = versions[atom_rels[ri][p]];
                if v.old_end >= v.delta_end {
                    continue;
                }
                // head :- old(b_1..b_{p-1}), delta(b_p), full(b_{p+1}..b_n)
                buf.clear();
                let n = Matcher {
                    relations,
                    versions: &versions,
                    work: &work,
                }
                .run(plan, &mut buf);
                work.probe(n);
                insert_flat(&mut relations[plan.head_rel], &buf, n);
            }
        }
        let mut facts = Vec::new();
        let mut size = 0;
        for (rel, r) in relations.iter().enumerate() {
            let v = &mut versions[rel];
            v.old_end = v.delta_end;
            v.delta_end = r.end();
            // Rows appended in phase 3 are live: nothing is removed in this phase.
            size += (v.delta_end - v.old_end) as usize;
            if trace_facts {
                facts.extend(
                    (v.old_end..v.delta_end).map(|row| Fact::new(rel, r.row(row).to_vec())),
                );
            }
        }
        if size == 0 {
            break;
        }
        let round = out.rounds.len() + 1;
        out.rounds.push(if trace_facts {
            Round::with_facts(Phase::Insert, round, facts)
        } else {
            Round {
                phase: Phase::Insert,
                round,
                size,
                facts,
            }
        });
    }
    out.inserted = relations
        .iter()
        .enumerate()
        .filter(|(rel, _)| program.is_idb(*rel))
        .map(|(rel, r)| (start[rel]..r.end()).filter(|&row| r.is_live(row)).count())
        .sum();
    out.work = work.total();
    out
}
