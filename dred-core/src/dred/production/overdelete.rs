//! Phase 1 of `dred`: over-delete along old proofs, by delta rules.
//!
//! Input: the old relations I ∪ J (unchanged during the phase) and D- (present EDB facts).
//! Output: D, every fact reachable from D- through an old successful instance (a rule fires
//! when one body atom matches a frontier fact and the other atoms match old facts), in
//! rounds: round 1 is D-, round k+1 the heads newly reached from round k, each fact once.
//! Postcondition: D ∩ J is the over-deleted IDB, the same set the reference engine computes
//! from its instance store; nothing is removed yet.

use super::{HeadProbes, Plans, RecentHeads, RowRef};
use crate::engine::{Fact, Work};
use crate::eval::{Matcher, Versions, WorkCounter};
use crate::program::Program;
use crate::storage::{Relation, RowMarks};

/// The result of phase 1.
#[derive(Debug, Default)]
pub struct OverDeleted {
    /// All of D: D- and every IDB fact reached, in the order reached.
    pub deleted: Vec<RowRef>,
    /// D ∩ J: the IDB part of D.
    pub overdeleted_idb: Vec<RowRef>,
    /// The frontiers: round 1 is D-, then the facts newly reached in each round.
    pub rounds: Vec<Vec<RowRef>>,
    /// Work of the phase (joins, one probe per deletion and per instance's head).
    pub work: Work,
}

/// Runs phase 1 over `relations` (the old model, all live). `in_d` and `recent` are scratch
/// kept across batches (reset here): the marks of the facts of D, and the heads found lately.
pub(crate) fn overdelete(
    program: &Program,
    relations: &[Relation],
    plans: &Plans,
    deletions: &[Fact],
    in_d: &mut RowMarks,
    recent: &mut RecentHeads,
) -> OverDeleted {
    // Nothing deleted: D is empty, no round, and no per-batch scratch.
    if deletions.is_empty() {
        return OverDeleted::default();
    }
    let versions: Vec<Versions> = relations.iter().map(Versions::complete).collect();
    let work = WorkCounter::default();
    let matcher = Matcher {
        relations,
        versions: &versions,
        work: &work,
    };
    in_d.reset(relations);
    recent.begin();
    let mut frontier: Vec<RowRef> = Vec::new();
    let mut out = OverDeleted::default();
    let mut heads = HeadProbes::default();
    // A head reached is in the old model (closed under the rules); it joins D once. So does
    // a fact of D-, which is normalised against the EDB: every one is present.
    // A head found again is in D already, so it may be skipped ([`RecentHeads`]).
    let reach = |heads: &mut HeadProbes,
                 recent: &mut RecentHeads,
                 in_d: &mut RowMarks,
                 next: &mut Vec<RowRef>| {
        heads.drain_noting(relations, recent, |rel, h| {
            let h = h
                .filter(|&h| relations[rel].is_live(h))
                .expect("the old model is closed under the rules and holds D-");
            if in_d.insert(rel, h) {
                next.push((rel, h));
            }
        });
    };
    for f in deletions {
        work.probe(1);
        heads.push(relations, f.rel, &f.tuple);
        if heads.is_full() {
            reach(&mut heads, recent, in_d, &mut frontier);
        }
    }
    reach(&mut heads, recent, in_d, &mut frontier);
    while !frontier.is_empty() {
        out.deleted.extend(&frontier);
        out.overdeleted_idb
            .extend(frontier.iter().filter(|(rel, _)| program.is_idb(*rel)));
        let mut next = Vec::new();
        for &(rel, r) in &frontier {
            let row = relations[rel].row(r);
            for plan in &plans.seeded[rel] {
                // head :- ..., body_i = the frontier fact, ... (other atoms over old facts)
                matcher.for_each_seeded(plan, row, &mut |vars| {
                    work.probe(1);
                    heads.push_instance_unless_recent(relations, plan, vars, recent);
                });
                if heads.is_full() {
                    reach(&mut heads, recent, in_d, &mut next);
                }
            }
        }
        reach(&mut heads, recent, in_d, &mut next);
        out.rounds.push(std::mem::replace(&mut frontier, next));
    }
    out.work = work.total();
    out
}
