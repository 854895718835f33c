//! Recomputation as a deletion algorithm: a level's strata that read a changed relation lose
//! every fact, and are evaluated again from the relations below them, on the chassis's
//! storage. The baseline an incremental algorithm must beat, batch by batch, without leaving
//! the engine (`recompute`, [`crate::Recompute`], evaluates the whole program into a fresh
//! model instead).
//!
//! Input: at level 0, D- and the relations before the batch; above, the net changes of the
//! levels below. Output: D is D- and every live fact of the *affected* strata of the level
//! (those whose rules or aggregate read a relation that changed, or a relation of an affected
//! stratum); those strata are then evaluated semi-naively from scratch, one at a time in
//! dependency order, over the new relations below, their facts appended as new rows. At
//! level 0 the evaluation runs before A+ is inserted (phase 3 adds A+ and its consequences);
//! above, it runs over the new relations below, so the level is complete and phase 3 has
//! nothing to add. A batch without deletions at level 0 deletes nothing there.
//! Postcondition: the level's live rows are the least model of its rules over the relations
//! below (at level 0: over E \ D-).
//!
//! Counters: `overdeleted` = the facts deleted, `rederived` = those the evaluation derived
//! again, `inserted` also counts the facts the evaluation found new (above level 0). Trace
//! rounds: one `delete` round of D, then the evaluation's rounds as `rederive` rounds. A
//! recomputation records no derivations for `explain`.
//!
//! Cost: per affected stratum, one evaluation of it from scratch; no state between batches.
//! The emptied relations' indexes that no evaluation reads are deferred
//! ([`crate::storage::Relation::defer_index`]): phase 3 builds those it reads, an incremental
//! algorithm all of them, each in one pass; a stream that recomputes batch after batch never
//! builds those only the incremental algorithms read.

use super::levels::LowerChanges;
use super::plans::AggregatePlan;
use super::{Deleted, Deletion, LevelDeletion, Replaced, RowRef, Store};
use crate::engine::{BatchReport, EngineError, Fact, Phase, Round};
use crate::program::{Literal, Program, RelId};
use crate::value::Tuple;
use std::time::Instant;

/// Recomputing the affected strata of each level (see the module's header). No state.
#[derive(Clone, Copy, Debug, Default)]
pub struct Recompute;

/// The engine `recompute-levels`: the chassis with recomputation as its deletion.
pub type RecomputeLevels = super::Maintained<Recompute>;

impl RecomputeLevels {
    /// A `recompute-levels` engine for a program, with or without negation and aggregates.
    pub fn new(program: std::sync::Arc<crate::program::Program>) -> Self {
        Self::with(program, |_| Recompute)
    }
}

/// The strata of `level` (every level: `None`) that read, through a rule's body or their
/// aggregate, a relation that `changed` marks or a relation of such a stratum before them;
/// marks their relations in `changed`. Strata are in dependency order, so one pass reaches
/// them all.
pub(crate) fn affected_strata(
    program: &Program,
    level: Option<usize>,
    changed: &mut [bool],
) -> Vec<usize> {
    let mut out = Vec::new();
    for (s, stratum) in program.strata.iter().enumerate() {
        if level.is_some_and(|l| stratum.level != l) {
            continue;
        }
        let reads_changed = stratum.rules.iter().any(|&r| {
            program.rules[r].body.iter().any(|l| match l {
                Literal::Positive(a) | Literal::Negative(a) => changed[a.rel],
                _ => false,
            })
        }) || stratum
            .aggregate
            .is_some_and(|k| changed[program.aggregates[k].input]);
        if reads_changed {
            for &rel in &stratum.relations {
                changed[rel] = true;
            }
            out.push(s);
        }
    }
    out
}

impl Recompute {
    /// Deletes every live fact of `strata`, then evaluates them again; `deleted.deleted[from..]`
    /// are the facts not yet out of the model (at level 0, D- first), and they are the
    /// recomputation's delete round with the facts of the strata.
    ///
    /// A relation of the strata that holds no row of `deleted` is replaced by an empty one
    /// ([`Replaced`]) rather than deleted row by row: its old facts are listed nowhere, the
    /// batch's counters compare it with the new one, and a level above that reads it is
    /// recomputed too (it has no lost facts as rows to start from; see
    /// [`LowerChanges::replaced`]). The others (those of D: above level 0, an abandoned
    /// algorithm's partial deletion) lose their facts as tombstones, each appended to D.
    fn recompute(
        store: &mut Store,
        level: usize,
        strata: &[usize],
        mut deleted: Deleted,
        from: usize,
        complete: bool,
    ) -> LevelDeletion {
        let program = store.program.clone();
        let mut holds_deleted = vec![false; store.relations.len()];
        for &(rel, _) in &deleted.deleted[..from] {
            holds_deleted[rel] = true;
        }
        let mut replaced: Vec<Replaced> = Vec::new();
        for &s in strata {
            for &rel in &program.strata[s].relations {
                if !holds_deleted[rel] {
                    let mut fresh = store.emptied(rel);
                    // Indexed only when read: by an evaluation (`Store::evaluate_stratum`
                    // builds what it reads) or by a later phase or batch that needs them
                    // (`Store::build_deferred_indexes`). A batch recomputing again next never
                    // builds those only the incremental algorithms read (on GO BP's TC,
                    // `path`'s index on its first column: with it, `recompute-levels` took
                    // 1.6 times `recompute`, without it 1.3).
                    for ix in 0..fresh.index_count() {
                        fresh.defer_index(ix);
                    }
                    let old = std::mem::replace(&mut store.relations[rel], fresh);
                    deleted.work.touched += old.len() as u64;
                    replaced.push(Replaced {
                        rel,
                        old,
                        evaluated_end: 0,
                        restored: 0,
                    });
                    continue;
                }
                let relation = &store.relations[rel];
                for r in 0..relation.end() {
                    if relation.is_live(r) {
                        deleted.deleted.push((rel, r));
                        deleted.overdeleted_idb.push((rel, r));
                    }
                }
            }
        }
        // One round of D; none when nothing was deleted (no affected stratum, no D-).
        let old_facts: usize = replaced.iter().map(|x| x.old.len()).sum();
        let mut rounds = Vec::new();
        if deleted.deleted.len() > from || old_facts > 0 {
            let rows = &deleted.deleted[from..];
            let mut round = store.round(level, Phase::Delete, 1, rows);
            round.size += old_facts;
            if store.trace_facts {
                for x in &replaced {
                    let all = x.old.all();
                    round
                        .facts
                        .extend(x.old.rows(all).map(|row| Fact::new(x.rel, row.to_vec())));
                }
            }
            deleted.rounds.push(rows.to_vec());
            rounds.push(round);
        }
        for &(rel, r) in &deleted.deleted[from..] {
            store.relations[rel].remove_id(r);
        }
        deleted.work.touched += (deleted.deleted.len() - from) as u64;

        let t = Instant::now();
        let mut out = LevelDeletion {
            complete,
            ..LevelDeletion::default()
        };
        let mut evaluated_rounds = 0;
        for &s in strata {
            let (ins, folding) = store.evaluate_stratum(s);
            out.appended += ins.inserted;
            out.restore_work += ins.work;
            out.restore_work += folding;
            for r in ins.rounds {
                evaluated_rounds += 1;
                rounds.push(Round {
                    phase: Phase::Rederive,
                    round: evaluated_rounds,
                    ..r
                });
            }
        }
        // The facts of D live again (as new rows): one probe each; of a replaced relation,
        // the new rows found among the old.
        out.restored = deleted
            .overdeleted_idb
            .iter()
            .filter(|&&(rel, r)| {
                let relation = &store.relations[rel];
                relation.row_id(relation.row(r)).is_some()
            })
            .count();
        out.restore_work.probes += deleted.overdeleted_idb.len() as u64;
        for x in &mut replaced {
            let new = &store.relations[x.rel];
            x.evaluated_end = new.end();
            // Level 0 has no negation and no aggregate, so its model over the EDB less D-
            // lies within the old one, and every new fact is an old one restored: no probe
            // of the old relation per new fact (a ninth of `recompute-levels`' samples on
            // GO BP's TC). Above, a change below may add facts the old relation lacked.
            x.restored = if level == 0 {
                debug_assert_eq!(
                    x.old.count_present(new, new.all()),
                    new.len(),
                    "level 0's new model within its old"
                );
                new.len()
            } else {
                out.restore_work.probes += new.len() as u64;
                x.old.count_present(new, new.all())
            };
            out.restored += x.restored;
        }
        out.restore_ns = t.elapsed().as_nanos() as u64;
        out.rounds = rounds;
        out.deleted = deleted;
        out.replaced = replaced;
        out
    }

    /// Finishes a level whose algorithm passed its budget and stopped (`partial`, its D out of
    /// the model, some of it perhaps live again): the level's strata that read a relation
    /// `changed` marks (at level 0, the relations of D-; above, those the levels below
    /// changed), or an affected stratum's, lose every live fact and are evaluated again, as
    /// [`Recompute`] does without an algorithm before it. No rollback is needed: whatever the
    /// algorithm removed or restored lies in those strata, and their evaluation reads only
    /// the relations below them, which are already the batch's. `complete` as for
    /// [`LevelDeletion::complete`] (above level 0).
    pub(crate) fn resume(
        store: &mut Store,
        level: usize,
        changed: &mut [bool],
        partial: LevelDeletion,
        complete: bool,
    ) -> LevelDeletion {
        let mut deleted = partial.deleted;
        deleted.abandoned = false;
        // The facts of D live again are deleted anew below (and listed then).
        let relations = &store.relations;
        deleted
            .deleted
            .retain(|&(rel, r)| !relations[rel].is_live(r));
        deleted
            .overdeleted_idb
            .retain(|&(rel, r)| !relations[rel].is_live(r));
        deleted.rounds.clear();
        let strata = affected_strata(&store.program, Some(level), changed);
        if level == 0 {
            Self::undo_partial(store, &strata, &mut deleted);
        }
        let from = deleted.deleted.len();
        let mut out = Self::recompute(store, level, &strata, deleted, from, complete);
        let mut rounds = partial.rounds;
        rounds.append(&mut out.rounds);
        out.rounds = rounds;
        out.restore_work += partial.restore_work;
        out.restore_ns += partial.restore_ns;
        out
    }

    /// At level 0, makes the facts an abandoned algorithm removed from `strata`'s relations
    /// live again and drops them from D, so that [`Recompute::recompute`] replaces those
    /// relations whole, as it does when no algorithm ran before it. Tombstoning every live
    /// row instead and evaluating into the same relation cost twice a fresh recomputation
    /// (B/F abandoned on a 1,000-edge deletion of GO BP's TC: 169 ms where
    /// `recompute-levels` takes about 80). Sound at level 0 only: there an algorithm's
    /// deletion only removes old facts and restores some of them, so after this the
    /// relations hold exactly their facts before the batch; above, a change below may have
    /// added new ones. One probe per fact of D in those relations, which the budget bounded.
    fn undo_partial(store: &mut Store, strata: &[usize], deleted: &mut Deleted) {
        let program = &store.program;
        let mut in_strata = vec![false; store.relations.len()];
        for &s in strata {
            for &rel in &program.strata[s].relations {
                in_strata[rel] = true;
            }
        }
        let mut row = Vec::new();
        for &(rel, r) in &deleted.deleted {
            if !in_strata[rel] {
                continue;
            }
            let relation = &mut store.relations[rel];
            row.clear();
            row.extend_from_slice(relation.row(r));
            // Its newest row (this one, a copy restored, or a copy removed again) is made
            // live; one already live is left as it is.
            relation.make_live(&row);
            deleted.work.probes += 1;
        }
        deleted.deleted.retain(|&(rel, _)| !in_strata[rel]);
        deleted.overdeleted_idb.retain(|&(rel, _)| !in_strata[rel]);
    }

    /// A level above 0 recomputed from the net changes below (`changes`), the relations
    /// shown new: [`Deletion::delete_level`] once they are (DRed's saturation calls it so).
    pub(crate) fn level_above(
        store: &mut Store,
        level: usize,
        changes: &LowerChanges,
    ) -> LevelDeletion {
        let mut changed = Self::changed_by(store, lower_changed(changes));
        for (c, &replaced) in changed.iter_mut().zip(&changes.replaced) {
            *c |= replaced;
        }
        let strata = affected_strata(&store.program, Some(level), &mut changed);
        Self::recompute(store, level, &strata, Deleted::default(), 0, true)
    }

    /// The relations of `facts`, marked.
    pub(crate) fn changed_by(store: &Store, facts: impl IntoIterator<Item = RelId>) -> Vec<bool> {
        let mut changed = vec![false; store.relations.len()];
        for rel in facts {
            changed[rel] = true;
        }
        changed
    }
}

/// The relations the levels below changed, once per changed fact.
pub(crate) fn lower_changed(changes: &LowerChanges) -> impl Iterator<Item = RelId> + '_ {
    changes
        .removed
        .iter()
        .chain(&changes.added)
        .map(|&(rel, _)| rel)
}

impl Deletion for Recompute {
    fn name(&self) -> &'static str {
        "recompute-levels"
    }

    fn reads_indexes(&self) -> bool {
        false
    }

    fn delete_level0(
        &mut self,
        store: &mut Store,
        deletions: &[Fact],
        reuse: Deleted,
    ) -> Result<LevelDeletion, EngineError> {
        let mut deleted = Deleted {
            spare: reuse.spare,
            ..Deleted::default()
        };
        if deletions.is_empty() {
            return Ok(LevelDeletion {
                deleted,
                ..LevelDeletion::default()
            });
        }
        let mut changed = vec![false; store.relations.len()];
        for f in deletions {
            let Some(r) = store.relations[f.rel].row_id(&f.tuple) else {
                return Err(store.invariant(store.not_closed_message(f.rel)));
            };
            deleted.deleted.push((f.rel, r));
            changed[f.rel] = true;
        }
        deleted.work.probes += deletions.len() as u64;
        let strata = affected_strata(&store.program, Some(0), &mut changed);
        Ok(Self::recompute(store, 0, &strata, deleted, 0, false))
    }

    fn delete_level(
        &mut self,
        store: &mut Store,
        level: usize,
        changes: &LowerChanges,
        _touched: &[(AggregatePlan, Tuple)],
        _old_rows: &[Option<RowRef>],
    ) -> Result<LevelDeletion, EngineError> {
        changes.show_new(&mut store.relations);
        Ok(Self::level_above(store, level, changes))
    }

    fn report(&mut self, _store: &Store, _report: &mut BatchReport) {}
}
