//! What a batch carries from one level to the next: the net changes of the levels below as
//! rows ([`LowerChanges`]), the aggregate groups they touched, and the counters summed over
//! the levels. Shared by every deletion algorithm: a level above 0 starts from the changes
//! below, whatever algorithm maintained them.

use std::collections::HashSet;

use super::plans::AggregatePlan;
use super::RowRef;
use crate::engine::{ChangeFacts, Fact, FactList, Work};
use crate::program::{Literal, Program, RelId};
use crate::storage::{Relation, RowId};
use crate::value::{Tuple, Value};

/// True when relation `rel` is maintained before level `level`: an `.input` relation (it
/// changes in level 0) or a derived relation of a lower level.
pub(crate) fn is_below(program: &Program, rel: RelId, level: usize) -> bool {
    !program.is_idb(rel) || program.level_of(rel) < level
}

/// The groups of `aggregates` (one level's) whose input changed below: each group key of a
/// lost or gained input row, once per aggregate, in order of the changes.
pub(crate) fn touched_groups(
    program: &Program,
    aggregates: &[AggregatePlan],
    changes: &LowerChanges,
    relations: &[Relation],
) -> Vec<(AggregatePlan, Tuple)> {
    let mut out = Vec::new();
    for a in aggregates {
        let def = &program.aggregates[a.def];
        let mut seen: HashSet<&[Value]> = HashSet::new();
        for &(rel, r) in changes.removed.iter().chain(&changes.added) {
            if rel == def.input {
                let key = &relations[rel].row(r)[..def.group];
                if seen.insert(key) {
                    out.push((a.clone(), key.to_vec()));
                }
            }
        }
    }
    out
}

/// The touched groups' values over the new input: per relation, the rows to add (a group
/// whose value moved or that was empty before); per group, whether its old row keeps its
/// value.
pub(crate) fn aggregate_outcome(
    program: &Program,
    relations: &[Relation],
    touched: &[(AggregatePlan, Tuple)],
    old_rows: &[Option<RowRef>],
) -> (Vec<Vec<Tuple>>, Vec<bool>) {
    let mut additions: Vec<Vec<Tuple>> = vec![Vec::new(); relations.len()];
    let mut kept = Vec::with_capacity(touched.len());
    for ((a, key), old) in touched.iter().zip(old_rows) {
        let def = &program.aggregates[a.def];
        let input = &relations[def.input];
        let rows = AggregatePlan::group(input, a.input_rows, key);
        let new = def.fold(rows.iter().map(|&r| input.row(r)));
        let old = old.map(|(rel, r)| relations[rel].row(r)[def.group]);
        match (old, new) {
            (Some(old), Some(v)) if old == v => kept.push(true),
            (_, Some(v)) => {
                kept.push(false);
                let mut row = key.clone();
                row.push(v);
                additions[def.rel].push(row);
            }
            (_, None) => kept.push(false),
        }
    }
    (additions, kept)
}

/// The counters of a batch, summed over its levels.
#[derive(Debug, Default)]
pub(crate) struct LevelTotals {
    /// IDB facts deleted (DRed: over-deleted).
    pub(crate) overdeleted: usize,
    /// Of those, the facts put back before phase 3.
    pub(crate) rederived: usize,
    /// IDB facts new in the batch's model (phase 3's, and those a restoration found new).
    pub(crate) inserted: usize,
    /// Work of deletion, restoration and phase 3.
    pub(crate) work: [Work; 3],
}

/// The net changes of the levels maintained so far in a batch (the EDB's included), as rows:
/// what seeds the levels above. Kept only for programs with negation.
///
/// Why rows and a view of the old relations rather than copies: phase 1 of a level must
/// match instances of the relations *before* the batch (an instance that used two lost
/// facts must be found), and every lost fact is still a tombstone, every gained fact a live
/// row, until the batch ends — so flipping their liveness shows the old relations and flips
/// back, in time proportional to the change.
#[derive(Debug)]
pub struct LowerChanges {
    /// Each relation's end when the batch began: rows past it were appended by the batch.
    pub(crate) batch_start: Vec<RowId>,
    /// Facts lost: tombstones with no live row of the same values.
    pub(crate) removed: Vec<RowRef>,
    /// Facts gained: live rows whose values were not in the model before the batch.
    pub(crate) added: Vec<RowRef>,
    /// Of `added`, the rows made live again without being appended (revived EDB facts).
    pub(crate) revived: Vec<RowRef>,
    /// Per relation: replaced by a recomputation ([`super::Replaced`]), its change in neither
    /// `removed` nor `added` (its rows are all new, its old facts elsewhere). A level that
    /// reads such a relation is recomputed.
    pub(crate) replaced: Vec<bool>,
}

impl LowerChanges {
    pub(crate) fn new(relations: &[Relation]) -> Self {
        LowerChanges {
            batch_start: relations.iter().map(Relation::end).collect(),
            removed: Vec::new(),
            added: Vec::new(),
            revived: Vec::new(),
            replaced: vec![false; relations.len()],
        }
    }

    /// Adds one level's net change: of its D (`deleted`), the rows with no live copy now;
    /// of the rows appended since `insert_start` to the relations `ours` selects, the live
    /// ones whose values were not among D (those came back). Returns, of D's rows of the
    /// relations `idb` selects, how many are gone and how many came back as new rows — what
    /// [`super::Store::gone_and_back`] counts over D ∩ J, from the same pass (a batch
    /// deleting millions of rows paid a probe per row for each).
    pub(crate) fn record(
        &mut self,
        relations: &[Relation],
        deleted: &[RowRef],
        insert_start: &[RowId],
        idb: impl Fn(RelId) -> bool,
        ours: impl Fn(RelId) -> bool,
    ) -> (usize, usize) {
        let mut back: HashSet<RowRef> = HashSet::new();
        let (mut gone_idb, mut back_idb) = (0, 0);
        live_copies_of_dead(relations, deleted, |(rel, r), copy| {
            let counted = idb(rel);
            match copy {
                Some(copy) => {
                    back.insert((rel, copy));
                    back_idb += usize::from(counted);
                }
                None => {
                    self.removed.push((rel, r));
                    gone_idb += usize::from(counted);
                }
            }
        });
        for (rel, relation) in relations.iter().enumerate() {
            if !ours(rel) {
                continue;
            }
            for r in insert_start[rel]..relation.end() {
                if relation.is_live(r) && !back.contains(&(rel, r)) {
                    self.added.push((rel, r));
                }
            }
        }
        (gone_idb, back_idb)
    }

    /// Adds the facts of A+ that phase 3 revived rather than appended (rows before
    /// `insert_start`).
    pub(crate) fn record_revived(
        &mut self,
        relations: &[Relation],
        insertions: &[Fact],
        insert_start: &[RowId],
    ) {
        for (i, f) in insertions.iter().enumerate() {
            super::store::prefetch_lookups(relations, insertions, i);
            if let Some(r) = relations[f.rel].row_id(&f.tuple) {
                if r < insert_start[f.rel] {
                    self.added.push((f.rel, r));
                    self.revived.push((f.rel, r));
                }
            }
        }
    }

    /// Whether a stratum of `level` reads a relation [`LowerChanges::replaced`] marks (in a
    /// rule's body or as its aggregate's input).
    pub(crate) fn read_replaced(&self, program: &Program, level: usize) -> bool {
        program
            .strata
            .iter()
            .filter(|stratum| stratum.level == level)
            .any(|stratum| {
                stratum.rules.iter().any(|&r| {
                    program.rules[r].body.iter().any(|l| match l {
                        Literal::Positive(a) | Literal::Negative(a) => self.replaced[a.rel],
                        _ => false,
                    })
                }) || stratum
                    .aggregate
                    .is_some_and(|k| self.replaced[program.aggregates[k].input])
            })
    }

    /// The derived facts lost and gained, with their values: the batch's net change of the
    /// IDB once every level is recorded (EDB rows left out).
    pub(crate) fn idb_facts(&self, program: &Program, relations: &[Relation]) -> ChangeFacts {
        let facts = |rows: &[RowRef]| -> FactList {
            rows.iter()
                .filter(|&&(rel, _)| program.is_idb(rel))
                .map(|&(rel, r)| (rel, relations[rel].row(r)))
                .collect()
        };
        ChangeFacts {
            removed: facts(&self.removed),
            added: facts(&self.added),
        }
    }

    /// Shows the relations as they were before the batch: lost facts live, gained ones not.
    pub fn show_old(&self, relations: &mut [Relation]) {
        for &(rel, r) in &self.removed {
            relations[rel].revive(r);
        }
        for &(rel, r) in &self.added {
            relations[rel].remove_id(r);
        }
    }

    /// Undoes [`LowerChanges::show_old`].
    pub fn show_new(&self, relations: &mut [Relation]) {
        for &(rel, r) in &self.added {
            relations[rel].revive(r);
        }
        for &(rel, r) in &self.removed {
            relations[rel].remove_id(r);
        }
    }
}

/// Calls `f` with each row of `rows` that is a tombstone, in order, and the id of a live row
/// with its values (a copy appended since), if any. The same answers as
/// [`Relation::row_id`] row by row, with the lookups overlapped: each row's values are loaded
/// [`VALUES_AHEAD`] rows before it and its slot [`SLOTS_AHEAD`] before. Why: a batch that
/// removes most of a level (a saturated one) has millions of deleted rows scattered over the
/// arena, and two passes over them (the net change and the changes for the levels above)
/// were 218 ms of a 790 ms batch, nearly all cache misses (getopts' liveness analysis, 2.1 M
/// rows).
pub(crate) fn live_copies_of_dead(
    relations: &[Relation],
    rows: &[RowRef],
    mut f: impl FnMut(RowRef, Option<RowId>),
) {
    let values_hint = |i: usize| {
        if let Some(&(rel, r)) = rows.get(i) {
            relations[rel].prefetch_values(r);
        }
    };
    let slot_hint = |i: usize| {
        if let Some(&(rel, r)) = rows.get(i) {
            let relation = &relations[rel];
            if !relation.is_live(r) {
                let row = relation.row(r);
                relation.prefetch_row(relation.lookup_hash(row), row);
            }
        }
    };
    (0..VALUES_AHEAD).for_each(values_hint);
    (0..SLOTS_AHEAD).for_each(slot_hint);
    for (i, &(rel, r)) in rows.iter().enumerate() {
        values_hint(i + VALUES_AHEAD);
        slot_hint(i + SLOTS_AHEAD);
        let relation = &relations[rel];
        if !relation.is_live(r) {
            f((rel, r), relation.row_id(relation.row(r)));
        }
    }
}

/// How far ahead [`live_copies_of_dead`] loads a row's values ...
const VALUES_AHEAD: usize = 16;
/// ... and its slot (after its values have arrived).
const SLOTS_AHEAD: usize = 8;
