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
//!
//! Where the counts live: beside the relation's rows, by row id ([`CountDeltas`] during a
//! batch, the engine's count column after it). An instance's head is looked up once in its
//! relation (a head not stored yet becomes a tombstone: a row of count 0, invisible to the
//! joins), and its count changes by an array write. Why: a count map keyed by the tuple
//! cost an allocation and a hash probe per instance, a sort of the changed heads and a
//! second probe per head (a profile of joins of GO relations, 1,000 edges deleted: most of
//! the batch in allocation, the maps' probes and the sort; the batch 2.5× `dred`'s time
//! then, 0.4× since).

use hashbrown::HashSet;

use super::plans::{CountingPlans, SeededPlan};
use crate::dred::production::heads::HeadProbes;
use crate::engine::NetChange;
use crate::exec::{Matcher, Versions, WorkCounter};
use crate::program::{Atom, Literal, Program, RelId, Rule, Term};
use crate::storage::{prefetch, Insertion, Relation, RowId};
use crate::value::{Tuple, Value};

/// The net changes of one relation's counts in the current batch, by row id. Outside a
/// batch every change is 0 and nothing is listed, so the same columns serve batch after
/// batch without being cleared.
#[derive(Clone, Debug, Default)]
pub(crate) struct CountDeltas {
    /// Per row id: the net change of the row's count so far (0 past the end).
    changes: Vec<i64>,
    /// The rows whose change left 0, in that order (a row whose change went back to 0 and
    /// left it again is listed twice; [`CountDeltas::take`] reads it once).
    touched: Vec<RowId>,
    /// Heads found while their relation was borrowed by a join and not stored yet: their
    /// values, one after the other, and the change of each.
    absent: Vec<Value>,
    absent_changes: Vec<i64>,
}

impl CountDeltas {
    /// Adds `change` to row `r`'s net change.
    #[inline]
    fn add(&mut self, r: RowId, change: i64) {
        let i = r as usize;
        if i >= self.changes.len() {
            self.changes.resize(i + 1, 0);
        }
        if self.changes[i] == 0 {
            self.touched.push(r);
        }
        self.changes[i] += change;
    }

    /// The rows listed so far, handed over (the list is left empty, its allocation kept
    /// for [`CountDeltas::give_back`]).
    pub(crate) fn take_touched(&mut self) -> Vec<RowId> {
        std::mem::take(&mut self.touched)
    }

    /// Hands back a list taken by [`CountDeltas::take_touched`], emptied.
    pub(crate) fn give_back(&mut self, mut rows: Vec<RowId>) {
        debug_assert!(self.touched.is_empty(), "a relation changed its own counts");
        rows.clear();
        self.touched = rows;
    }

    /// A hint that row `r`'s change will be read soon ([`CountDeltas::take`]).
    #[inline]
    pub(crate) fn prefetch(&self, r: RowId) {
        if let Some(c) = self.changes.get(r as usize) {
            prefetch(c);
        }
    }

    /// Row `r`'s net change, reset to 0.
    #[inline]
    pub(crate) fn take(&mut self, r: RowId) -> i64 {
        self.changes.get_mut(r as usize).map_or(0, std::mem::take)
    }

    /// Forgets every change, for a relation whose row ids changed (its changes must all be
    /// 0: between batches), and makes room for `rows` rows (so that the next batch does not
    /// grow the column a doubling at a time).
    pub(crate) fn reset(&mut self, rows: usize) {
        debug_assert!(self.changes.iter().all(|&c| c == 0) && self.touched.is_empty());
        self.changes.clear();
        self.changes.resize(rows, 0);
    }
}

/// What the events of one batch (or of materialisation) have changed so far above them.
#[derive(Clone, Debug, Default)]
pub(crate) struct Pending {
    /// Per relation (used for those of non-recursive strata): the net change of each row's
    /// count so far.
    pub counts: Vec<CountDeltas>,
    /// The relations with heads in [`CountDeltas::absent`].
    absent_in: Vec<RelId>,
    /// A row's values, copied out of its relation while the relation changes.
    scratch: Vec<Value>,
    /// The versions of the relations a join reads (all of every relation), reused.
    versions: Vec<Versions>,
    /// Heads of instances waiting to be looked up ([`Database::settle_heads`]).
    probes: HeadProbes,
    /// The change each held head's count takes, in the order of `probes`.
    signs: Vec<i64>,
    /// The rows of heads being stored, reused.
    rows: Vec<Option<RowId>>,
    /// During [`Database::insert_run`]: the relation whose joins see only its rows below
    /// this end (the facts of the run entered so far).
    visible: Option<(RelId, RowId)>,
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
    /// Nothing pending, for a program of `strata` and `aggregates`, with `counts` (one per
    /// relation, every change 0) as the columns of count changes.
    pub(crate) fn new(counts: Vec<CountDeltas>, strata: usize, aggregates: usize) -> Self {
        Pending {
            counts,
            dirty: vec![false; strata],
            from_round_1: vec![false; strata],
            changed_inputs: vec![Vec::new(); strata],
            groups: vec![HashSet::new(); aggregates],
            ..Pending::default()
        }
    }

    /// Nothing pending again, for the next batch, with every allocation kept. Its columns
    /// of count changes must be all 0 (as a batch that ended leaves them).
    pub(crate) fn begin(&mut self) {
        debug_assert!(self.absent_in.is_empty() && self.signs.is_empty());
        self.visible = None;
        self.dirty.fill(false);
        self.from_round_1.fill(false);
        self.changed_inputs.iter_mut().for_each(Vec::clear);
        self.groups.iter_mut().for_each(HashSet::clear);
        self.net = NetChange::default();
        self.work = WorkCounter::default();
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
        self.event_with(pending, rel, tuple, insert, None);
    }

    /// [`Database::event`] of the fact stored at row `r` of `rel` (live: it leaves; a
    /// tombstone: it comes back under the same id, which keeps its count's place).
    pub(crate) fn event_at(&mut self, pending: &mut Pending, rel: RelId, r: RowId, insert: bool) {
        let mut tuple = std::mem::take(&mut pending.scratch);
        tuple.clear();
        tuple.extend_from_slice(self.relations[rel].row(r));
        self.event_with(pending, rel, &tuple, insert, Some(r));
        pending.scratch = tuple;
    }

    fn event_with(
        &mut self,
        pending: &mut Pending,
        rel: RelId,
        tuple: &[Value],
        insert: bool,
        row: Option<RowId>,
    ) {
        let plans = self.plans;
        // The instances that stop holding are found before the fact changes, those that
        // start after: entering, those true by its absence go, then those that use it come.
        let (going, coming) = if insert {
            (&plans.negative[rel], &plans.positive[rel])
        } else {
            (&plans.positive[rel], &plans.negative[rel])
        };
        self.count(pending, going, tuple, -1);
        let relation = &mut self.relations[rel];
        match (row, insert) {
            (Some(r), true) => relation.revive(r),
            (Some(r), false) => relation.remove_id(r),
            (None, true) => {
                relation.insert(tuple);
            }
            (None, false) => {
                relation.remove(tuple);
            }
        }
        self.count(pending, coming, tuple, 1);
        self.noted(pending, rel, tuple, insert);
    }

    /// The facts stored at `rows` leave the database (or, with `insert`, come back from
    /// their tombstones), one after the other in that order ([`Database::event_at`] of
    /// each), with the reads of the facts ahead started early: each fact's values, and the
    /// first index entry each of its joins reads.
    ///
    /// Why: event after event, each seeded join waited for its index entry and then its
    /// group's rows; on two-hop paths over WordNet with 1,000 edges deleted the events cost
    /// 1.7 times `dred`'s over-deletion of the same instances, which starts these reads for
    /// the facts ahead (`prefetch_frontier`).
    pub(crate) fn row_events(
        &mut self,
        pending: &mut Pending,
        rows: &[(RelId, RowId)],
        insert: bool,
    ) {
        // Both ways the joins over the fact's positive atoms are the ones worth starting: a
        // negation's (the other way's) reads every live row, not an index entry ahead.
        let plans = &self.plans.positive;
        for (i, &(rel, r)) in rows.iter().enumerate() {
            if let Some(&(ahead, row)) = rows.get(i + LOOKUPS_AHEAD + ENTRIES_AHEAD) {
                self.relations[ahead].prefetch_values(row);
            }
            if let Some(&(ahead, row)) = rows.get(i + ENTRIES_AHEAD) {
                let row = self.relations[ahead].row(row);
                prefetch_joins(self.relations, &plans[ahead], row, &pending.work);
            }
            self.event_at(pending, rel, r, insert);
        }
    }

    /// Facts of `rel` (their values one after the other in `values`), none stored, enter
    /// the database one after the other: [`Database::event`] of each, in order, but stored
    /// together first ([`Relation::insert_batch_with`]: one probe per fact, the indexes
    /// updated together) and each fact's joins made to see the rows of `rel` up to its own
    /// (the versions of the matcher), so that what each event counts is what it counts
    /// one at a time. Only for a relation of arity 1 or more that no rule negates (a
    /// negation reads every live row, not a version).
    pub(crate) fn insert_run(&mut self, pending: &mut Pending, rel: RelId, values: &[Value]) {
        let relation = &mut self.relations[rel];
        let arity = relation.arity();
        debug_assert!(arity > 0 && self.plans.negative[rel].is_empty());
        let first = relation.end();
        let mut appended = 0;
        relation.insert_batch_with(values.chunks_exact(arity), false, |_, outcome| {
            assert_eq!(
                outcome,
                Insertion::Appended,
                "a fact entering is not stored"
            );
            appended += 1;
        });
        debug_assert_eq!(appended * arity, values.len());
        let plans = self.plans;
        let tuples = values.chunks_exact(arity);
        for (i, tuple) in tuples.clone().enumerate() {
            if let Some(ahead) = tuples.clone().nth(i + ENTRIES_AHEAD) {
                prefetch_joins(self.relations, &plans.positive[rel], ahead, &pending.work);
            }
            pending.visible = Some((rel, first + i as RowId + 1));
            self.count(pending, &plans.positive[rel], tuple, 1);
            self.noted(pending, rel, tuple, true);
        }
        pending.visible = None;
    }

    /// What an event of `tuple` of `rel` entering (`insert`) or leaving changes besides
    /// counts: the recursive strata and aggregate groups that read it, the net change.
    fn noted(&mut self, pending: &mut Pending, rel: RelId, tuple: &[Value], insert: bool) {
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

    /// Adds `change` to the count of fact `tuple` of `rel` (a relation of a non-recursive
    /// stratum), storing it as a tombstone of count 0 first if it is not stored.
    pub(crate) fn add_count(
        &mut self,
        pending: &mut Pending,
        rel: RelId,
        tuple: &[Value],
        change: i64,
    ) {
        let r = stored_row(&mut self.relations[rel], tuple);
        pending.counts[rel].add(r, change);
    }

    /// Adds `sign` to the count of the head of every instance of `plans` seeded with
    /// `tuple`, over the relations as they are. The heads are looked up
    /// [`HeadProbes::DEPTH`] at a time, across events: a change may stay pending until
    /// [`Database::settle_heads`].
    fn count(&mut self, pending: &mut Pending, plans: &[SeededPlan], tuple: &[Value], sign: i64) {
        if plans.is_empty() {
            return;
        }
        let Pending {
            counts,
            absent_in,
            versions,
            probes,
            signs,
            work,
            visible,
            ..
        } = pending;
        versions.clear();
        versions.extend(self.relations.iter().map(Versions::complete));
        if let Some((rel, end)) = *visible {
            versions[rel] = Versions {
                old_end: end,
                delta_end: end,
            };
        }
        let matcher = Matcher {
            relations: self.relations,
            versions,
            work,
        };
        let relations: &[Relation] = self.relations;
        for seeded in plans {
            let rule = &self.program.rules[seeded.rule];
            let plan = &seeded.plan;
            matcher.for_each_seeded(plan, tuple, &mut |vars| {
                if !first_position(rule, seeded.literal, tuple, vars) {
                    return;
                }
                // A head carries its instance's sign: the heads held may come from events
                // of both signs.
                probes.push_instance(relations, plan, vars);
                signs.push(sign);
                if probes.is_full() {
                    drain_heads(relations, probes, signs, counts, absent_in);
                }
            });
        }
    }

    /// Finds the rows of the heads still held and adds their changes, storing the heads
    /// not stored yet as tombstones. Before a relation's changes are read, and between
    /// batches, nothing may be held: the events of a relation's facts change no
    /// relation but theirs, and a head lies in a higher stratum than its rule's body, so
    /// a head is looked up correctly however late, as long as it is before its relation's
    /// changes are read.
    ///
    /// Why heads wait across events: looked up at the end of each event, as before, the
    /// few heads of one event were looked up as soon as their loads had started, and each
    /// waited for its cache miss.
    pub(crate) fn settle_heads(&mut self, pending: &mut Pending) {
        let relations: &[Relation] = self.relations;
        let Pending {
            counts,
            absent_in,
            probes,
            signs,
            ..
        } = pending;
        drain_heads(relations, probes, signs, counts, absent_in);
        for rel in std::mem::take(absent_in) {
            store_absent(
                &mut self.relations[rel],
                &mut counts[rel],
                &mut pending.rows,
            );
        }
    }
}

/// Looks up the heads `probes` holds, adding each one's sign (`signs`, in the same order) to
/// its row's change, or keeping it as absent when it is not stored.
fn drain_heads(
    relations: &[Relation],
    probes: &mut HeadProbes,
    signs: &mut Vec<i64>,
    counts: &mut [CountDeltas],
    absent_in: &mut Vec<RelId>,
) {
    let mut next = signs.iter();
    probes.drain_values(relations, |rel, head, row| {
        let sign = *next.next().expect("a sign per head");
        let deltas = &mut counts[rel];
        match row {
            Some(r) => deltas.add(r, sign),
            None => {
                if deltas.absent_changes.is_empty() {
                    absent_in.push(rel);
                }
                deltas.absent.extend_from_slice(head);
                deltas.absent_changes.push(sign);
            }
        }
    });
    debug_assert!(next.next().is_none(), "a head per sign");
    signs.clear();
}

/// How many facts ahead of the one being handled a lookup of its own is started
/// ([`Relation::prefetch_row`], [`Relation::prefetch_values`], a count's slot).
pub(crate) const LOOKUPS_AHEAD: usize = 8;

/// How many events ahead the first index entry of each of an event's joins is started
/// ([`prefetch_joins`]); as `dred`'s over-deletion does.
const ENTRIES_AHEAD: usize = 8;

/// A hint that the joins of `plans` seeded with `row` will run soon: starts loading the
/// first index entry each reads ([`Matcher::prefetch_start`]). Changes no result and counts
/// no work.
fn prefetch_joins(relations: &[Relation], plans: &[SeededPlan], row: &[Value], work: &WorkCounter) {
    let matcher = Matcher {
        relations,
        versions: &[],
        work,
    };
    for seeded in plans {
        matcher.prefetch_start(&seeded.plan, row);
    }
}

/// Stores the heads `deltas` holds as absent, as tombstones (rows the joins do not see), and
/// adds their changes to their rows. `rows` is scratch space.
///
/// Inserted a batch at a time (one probe per head, the indexes updated together, see
/// [`Relation::insert_batch_with`]) and then removed, rather than looked up and inserted one
/// by one: on 1,000-edge insertions into two-hop views most heads are new.
fn store_absent(relation: &mut Relation, deltas: &mut CountDeltas, rows: &mut Vec<Option<RowId>>) {
    let arity = relation.arity();
    let mut values = std::mem::take(&mut deltas.absent);
    let mut changes = std::mem::take(&mut deltas.absent_changes);
    if arity == 0 {
        for &change in &changes {
            let r = stored_row(relation, &[]);
            deltas.add(r, change);
        }
    } else {
        // Every head was absent when its join ran and nothing has been stored since: a head
        // is appended, or is present because it was appended earlier in this batch of heads.
        rows.clear();
        let mut next = relation.end();
        relation.insert_batch_with(values.chunks_exact(arity), true, |_, outcome| {
            rows.push(match outcome {
                Insertion::Appended => {
                    next += 1;
                    Some(next - 1)
                }
                Insertion::Revived(r) => Some(r),
                Insertion::Present => None,
            })
        });
        for (i, row) in rows.iter_mut().enumerate() {
            if row.is_none() {
                *row = relation.row_id(&values[i * arity..(i + 1) * arity]);
            }
        }
        for &r in rows.iter().flatten() {
            if relation.is_live(r) {
                relation.remove_id(r);
            }
        }
        for (row, &change) in rows.iter().zip(&changes) {
            deltas.add(row.expect("a head just stored"), change);
        }
    }
    values.clear();
    changes.clear();
    deltas.absent = values;
    deltas.absent_changes = changes;
}

/// The newest row of `relation` with these values, live or a tombstone; when there is none,
/// a new tombstone (a row the joins do not see) with them.
pub(crate) fn stored_row(relation: &mut Relation, values: &[Value]) -> RowId {
    if let Some(r) = relation.find_row(values) {
        return r;
    }
    relation.insert(values);
    let r = relation.end() - 1;
    relation.remove_id(r);
    r
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
