//! Semi-naive evaluation over indexed relations, stratum by stratum — the `recompute` engine.
//!
//! Within a recursive stratum every relation's rows form three consecutive id ranges: *old*
//! (known before the previous round), *delta* (new in the previous round) and rows being
//! derived now. A rule with k same-stratum atoms is run k times per round, with atom i reading
//! the delta, atoms before it the old rows and atoms after it old and delta rows — so every
//! instance using at least one new fact is found exactly once per round, and none is
//! repeated across rounds. Rows derived during a round have ids past every visible range, so
//! they can be inserted at once without being seen until the next round.

use std::cell::Cell;
use std::sync::Arc;

use crate::engine::{Batch, BatchReport, Edb, Engine, EngineError, Model, ModelDigest, Work};
use crate::plan::{
    compare, plan_rule, AtomStep, KeyPart, Operand, RulePlan, StartValue, Step, Version,
};
use crate::program::{Program, RelId};
use crate::storage::{IndexId, Relation, RowId, RowRange};
use crate::value::Value;

/// Visible row ranges of one relation during a round: old = `0..old_end`, delta =
/// `old_end..delta_end`, full = `0..delta_end`.
#[derive(Clone, Copy, Debug, Default)]
pub struct Versions {
    /// End of the old rows.
    pub old_end: RowId,
    /// End of the delta rows.
    pub delta_end: RowId,
}

impl Versions {
    /// The rows of one version.
    #[inline]
    pub fn range(self, v: Version) -> RowRange {
        match v {
            Version::Old => RowRange::new(0, self.old_end),
            Version::Delta => RowRange::new(self.old_end, self.delta_end),
            Version::Full => RowRange::new(0, self.delta_end),
        }
    }

    /// Everything in `rel`, as a completed lower stratum.
    pub fn complete(rel: &Relation) -> Self {
        let n = rel.end();
        Versions {
            old_end: n,
            delta_end: n,
        }
    }
}

/// Plans of one stratum.
#[derive(Clone, Debug)]
struct StratumPlan {
    /// Rules reading no relation of this stratum: run once, on full relations.
    base: Vec<RulePlan>,
    /// One plan per (recursive rule, same-stratum atom as delta).
    recursive: Vec<RulePlan>,
}

/// Counts [`Work`] while relations are borrowed immutably by a [`Matcher`] (hence cells).
#[derive(Debug, Default)]
pub struct WorkCounter {
    probes: Cell<u64>,
    touched: Cell<u64>,
}

impl WorkCounter {
    /// Counts `n` hash probes.
    #[inline]
    pub fn probe(&self, n: u64) {
        self.probes.set(self.probes.get() + n);
    }

    /// Counts `n` stored rows visited or written.
    #[inline]
    pub fn touch(&self, n: u64) {
        self.touched.set(self.touched.get() + n);
    }

    /// The work counted so far.
    pub fn total(&self) -> Work {
        Work {
            probes: self.probes.get(),
            touched: self.touched.get(),
        }
    }
}

/// Runs rule plans over a set of relations with given visible ranges, counting its work.
#[derive(Debug)]
pub struct Matcher<'a> {
    /// All relations, indexed by id.
    pub relations: &'a [Relation],
    /// Visible ranges, indexed by relation id.
    pub versions: &'a [Versions],
    /// Where index lookups, membership tests and visited rows are counted.
    pub work: &'a WorkCounter,
}

impl<'a> Matcher<'a> {
    /// Appends the head of every instance of `plan` over the visible rows to `out` (flattened,
    /// head arity values each); returns the number of instances found.
    pub fn run(&self, plan: &RulePlan, out: &mut Vec<Value>) -> u64 {
        let mut vars = vec![0; plan.num_vars];
        let mut count = 0;
        self.step(plan, 0, None, &mut vars, &mut |vars| {
            count += 1;
            out.extend(plan.head.iter().map(|o| o.get(vars)));
            true
        });
        count
    }

    /// Calls `emit` with the variable binding of every instance of `plan`.
    pub fn for_each<F: FnMut(&[Value])>(&self, plan: &RulePlan, emit: &mut F) {
        let mut vars = vec![0; plan.num_vars];
        self.step(plan, 0, None, &mut vars, &mut |vars| {
            emit(vars);
            true
        });
    }

    /// Calls `emit` with the variable binding of every instance of `plan` in which the seeded
    /// atom (see [`crate::plan::PlanOptions::seeded`]) is `row`.
    pub fn for_each_seeded<F: FnMut(&[Value])>(
        &self,
        plan: &RulePlan,
        row: &[Value],
        emit: &mut F,
    ) {
        // Called once per frontier fact and plan: the binding lives on the stack when it fits
        // (every rule of up to 16 variables), not in an allocation per call.
        let mut on_stack = [0; 16];
        let mut on_heap = Vec::new();
        let vars = if plan.num_vars <= on_stack.len() {
            &mut on_stack[..plan.num_vars]
        } else {
            on_heap.resize(plan.num_vars, 0);
            &mut on_heap[..]
        };
        if plan.seeded_walk {
            self.seeded_walk(plan, row, vars, emit);
            return;
        }
        self.step(plan, 0, Some(row), vars, &mut |vars| {
            emit(vars);
            true
        });
    }

    /// [`Matcher::for_each_seeded`] for a plan with [`RulePlan::seeded_walk`]: the same
    /// instances, in the same order, with the same work counts as [`Matcher::step`] on its
    /// two steps, in one loop.
    ///
    /// Why: over-deletion runs these plans once per frontier fact, nearly always on a short
    /// group (R-MAT `reach_root` deletions: 3.8 rows a run), where the interpreter's
    /// dispatch, its recursion and the closure between its two levels cost more than the
    /// rows walked.
    #[inline]
    fn seeded_walk<F: FnMut(&[Value])>(
        &self,
        plan: &RulePlan,
        row: &[Value],
        vars: &mut [Value],
        emit: &mut F,
    ) {
        let [Step::Atom(seed), Step::Atom(walk)] = plan.steps.as_slice() else {
            unreachable!("a seeded walk has two atom steps (checked when planned)");
        };
        let Some(ix) = walk.index else {
            unreachable!("a seeded walk's second atom has an index (checked when planned)");
        };
        self.work.touch(1);
        for &(c, v) in &seed.binds {
            vars[v] = row[c];
        }
        if !seed.checks.iter().all(|&(c, op)| row[c] == op.get(vars)) {
            return;
        }
        let range = self.versions[walk.rel].range(walk.version);
        if range.is_empty() {
            return;
        }
        let relation = &self.relations[walk.rel];
        let rows = self.visible_group(relation, walk, ix, range, vars);
        self.emit_group(relation, walk, rows, range.hi, vars, &mut |vars| {
            emit(vars);
            true
        });
    }

    /// Atom `a` as a plan's last step over `rows` of its index group in `relation` (those
    /// below `hi` visible): each live row whose checks hold binds `a`'s variables and is an
    /// instance, given to `emit` (false stops). Counts the rows visited as touched; returns
    /// false once stopped.
    #[inline(always)]
    fn emit_group<F: FnMut(&[Value]) -> bool>(
        &self,
        relation: &Relation,
        a: &AtomStep,
        rows: &[RowId],
        hi: RowId,
        vars: &mut [Value],
        emit: &mut F,
    ) -> bool {
        let check_live = relation.has_dead();
        let mut visited = 0;
        for &r in rows {
            if r >= hi {
                break;
            }
            visited += 1;
            if check_live && !relation.is_live(r) {
                continue;
            }
            let row = relation.row(r);
            // Bind first: a check may compare with a variable bound in this atom.
            for &(c, v) in &a.binds {
                vars[v] = row[c];
            }
            if a.checks.iter().all(|&(c, op)| row[c] == op.get(vars)) && !emit(vars) {
                self.work.touch(visited);
                return false;
            }
        }
        self.work.touch(visited);
        true
    }

    /// True when some instance of `plan` exists with the prebound variables (see
    /// [`crate::plan::PlanOptions::prebound`]) set as in `vars`; stops at the first.
    pub fn exists(&self, plan: &RulePlan, vars: &mut [Value]) -> bool {
        let mut found = false;
        let mut stop = |_: &[Value]| {
            found = true;
            false
        };
        if plan.starts_with_walk_test {
            self.start_walk_test(plan, vars, &mut stop);
        } else {
            self.step(plan, 0, None, vars, &mut stop);
        }
        found
    }

    /// [`Matcher::step`] from step 0 of a plan with [`RulePlan::starts_with_walk_test`]:
    /// the lookup of the walked atom, then [`Matcher::walk_tests`] directly — the same
    /// instances, order and work counts.
    ///
    /// Why: rederivation runs one such search per pending fact, and on R-MAT `reach_root`
    /// deletions `step`'s dispatch and frame around the walk were 165 instructions a search
    /// by callgrind's inclusive counts, over half of what the walk itself costs; going around
    /// them saves 81 (5% of phase 2's instructions there).
    #[inline]
    fn start_walk_test<F: FnMut(&[Value]) -> bool>(
        &self,
        plan: &RulePlan,
        vars: &mut [Value],
        emit: &mut F,
    ) -> bool {
        let [Step::Atom(walk), Step::Atom(test), ..] = plan.steps.as_slice() else {
            unreachable!("a walk and a test come first (checked when planned)");
        };
        debug_assert!(!walk.next_membership.is_empty() && test.membership);
        let Some(ix) = walk.index else {
            unreachable!("the walked atom has an index (checked when planned)");
        };
        let range = self.versions[walk.rel].range(walk.version);
        if range.is_empty() {
            return true;
        }
        let rows = self.visible_group(&self.relations[walk.rel], walk, ix, range, vars);
        self.walk_tests(plan, 0, walk, test, rows, range.hi, None, vars, emit)
    }

    /// The ids of atom `a`'s group in index `ix` of `relation` (`a`'s), its key bound in
    /// `vars`, from the first visible in `range` on (the caller stops at `range.hi`);
    /// counted as one probe.
    #[inline(always)]
    fn visible_group(
        &self,
        relation: &'a Relation,
        a: &AtomStep,
        ix: IndexId,
        range: RowRange,
        vars: &[Value],
    ) -> &'a [RowId] {
        let mut buf = [0; 8];
        let key = fill_key(&a.key, vars, &mut buf);
        self.work.probe(1);
        let rows = relation.lookup(ix, &key);
        let start = if range.lo == 0 {
            0
        } else {
            rows.partition_point(|&r| r < range.lo)
        };
        &rows[start..]
    }

    /// A hint before [`Matcher::exists`] on the same binding: follows the plan's first
    /// candidate instance — binding variables from the first row of each index group, checking
    /// nothing — to the first membership test, and starts loading that row's slot in the row
    /// set, the cache miss the test would wait for. Changes no result and counts no work;
    /// `vars` is scratch (bind the head again before `exists`).
    pub fn prefetch_first(&self, plan: &RulePlan, vars: &mut [Value]) {
        let mut buf = [0; 8];
        for step in &plan.steps {
            let Step::Atom(a) = step else {
                return;
            };
            if a.key.len() > buf.len() {
                return;
            }
            let relation = &self.relations[a.rel];
            let key = fill_key(&a.key, vars, &mut buf);
            if a.membership {
                relation.prefetch_row(relation.lookup_hash(&key), &key);
                return;
            }
            let Some(ix) = a.index else {
                return;
            };
            let Some(&r) = relation.lookup(ix, &key).first() else {
                return;
            };
            let row = relation.row(r);
            for &(c, v) in &a.binds {
                vars[v] = row[c];
            }
        }
    }

    /// A hint a few runs ahead of [`Matcher::for_each_seeded`] or [`Matcher::exists`] on the
    /// same plan, started from `row` (the seed row, or the head's values): starts loading
    /// the entry the plan's first lookup ([`RulePlan::first_lookup`]) will read — the index
    /// group's, or a membership test's slot — reading nothing that may miss. Changes no
    /// result and counts no work.
    ///
    /// Why only the entry: loading the rows of the group too, a stage later, changed nothing
    /// measurable on R-MAT `reach_root` deletions (paired, 30 runs: 1.000) and cost a
    /// second lookup per fact.
    #[inline]
    pub fn prefetch_start(&self, plan: &RulePlan, row: &[Value]) {
        let Some(first) = &plan.first_lookup else {
            return;
        };
        let mut buf = [0; 8];
        for (slot, part) in buf.iter_mut().zip(&first.key) {
            *slot = match *part {
                StartValue::Const(c) => c,
                StartValue::Column(c) => row[c],
            };
        }
        let key = &buf[..first.key.len()];
        let relation = &self.relations[first.rel];
        match first.index {
            None => relation.prefetch_row(relation.lookup_hash(key), key),
            Some(ix) => relation.prefetch_group(ix, key),
        }
    }

    /// Step `i`, atom `walk` walking the index group `rows` (visible below `hi`), when step
    /// `i + 1` is membership test `test` fed by it: the same instances, work counts and
    /// order as [`Matcher::step`] on both steps, in one loop that computes each test's key
    /// from the group row directly and starts the cache misses of tests ahead
    /// ([`TestsAhead`]). On a failing proof search over a hub (hundreds of parents, none
    /// a proof) most of the time went to these tests, one after another.
    #[allow(clippy::too_many_arguments)]
    fn walk_tests<F: FnMut(&[Value]) -> bool>(
        &self,
        plan: &RulePlan,
        i: usize,
        walk: &AtomStep,
        test: &AtomStep,
        rows: &[RowId],
        hi: RowId,
        seed: Option<&[Value]>,
        vars: &mut [Value],
        emit: &mut F,
    ) -> bool {
        let walked = &self.relations[walk.rel];
        let tested = &self.relations[test.rel];
        let test_range = self.versions[test.rel].range(test.version);
        let check_live = walked.has_dead();
        let mut ahead = TestsAhead::new(walk);
        let mut visited = 0;
        let mut key = [0; 8];
        let arity = walk.next_membership.len();
        for (p, &r) in rows.iter().enumerate() {
            if r >= hi {
                break;
            }
            ahead.prefetch(walked, tested, rows, p, vars);
            visited += 1;
            if check_live && !walked.is_live(r) {
                continue;
            }
            let row = walked.row(r);
            // Bind first: a check may compare with a variable bound in this atom (a repeated
            // variable, `t(y, "c1", y)`), whose value must be this row's, not the last one's.
            for &(c, v) in &walk.binds {
                vars[v] = row[c];
            }
            if walk.checks.iter().any(|&(c, op)| row[c] != op.get(vars)) {
                continue;
            }
            if test_range.is_empty() {
                continue;
            }
            fill_parts(&walk.next_membership, row, vars, &mut key);
            let hash = ahead
                .hash_of(p)
                .unwrap_or_else(|| tested.lookup_hash(&key[..arity]));
            self.work.probe(1);
            let found = tested
                .find_row_hashed(hash, &key[..arity])
                .is_some_and(|t| t >= test_range.lo && t < test_range.hi && tested.is_live(t));
            if !found {
                continue;
            }
            self.work.touch(1);
            // When the test is the last step, its success is an instance: emitted here, as
            // in `step`'s last indexed atom, rather than through a call that only emits.
            let go_on = if i + 2 == plan.steps.len() {
                emit(vars)
            } else {
                self.step(plan, i + 2, seed, vars, emit)
            };
            if !go_on {
                self.work.touch(visited);
                return false;
            }
        }
        self.work.touch(visited);
        true
    }

    /// Runs steps from `i`; `emit` returns false to stop everything. Returns false once
    /// stopped.
    fn step<F: FnMut(&[Value]) -> bool>(
        &self,
        plan: &RulePlan,
        i: usize,
        seed: Option<&[Value]>,
        vars: &mut [Value],
        emit: &mut F,
    ) -> bool {
        let Some(step) = plan.steps.get(i) else {
            return emit(vars);
        };
        match step {
            Step::Compare(l, op, r) => {
                !compare(l.get(vars), *op, r.get(vars)) || self.step(plan, i + 1, seed, vars, emit)
            }
            Step::Absent { rel, index, key } => {
                let relation = &self.relations[*rel];
                let mut buf = [0; 8];
                let key = fill_key(key, vars, &mut buf);
                self.work.probe(1);
                let present = match index {
                    None => relation.contains(&key),
                    Some(ix) => relation
                        .lookup(*ix, &key)
                        .iter()
                        .any(|&r| relation.is_live(r)),
                };
                present || self.step(plan, i + 1, seed, vars, emit)
            }
            Step::Atom(a) => {
                let relation = &self.relations[a.rel];
                // Binds the atom's variables from `row`; true when its checks then hold.
                let matches = |row: &[Value], vars: &mut [Value]| -> bool {
                    // Bind first: a check may compare with a variable bound in this atom.
                    for &(c, v) in &a.binds {
                        vars[v] = row[c];
                    }
                    a.checks.iter().all(|&(c, op)| row[c] == op.get(vars))
                };
                let visit = |row: &[Value], vars: &mut [Value], emit: &mut F| -> bool {
                    !matches(row, vars) || self.step(plan, i + 1, seed, vars, emit)
                };
                if plan.seed_step == Some(i) {
                    if let Some(row) = seed {
                        self.work.touch(1);
                        return visit(row, vars, emit);
                    }
                }
                let range = self.versions[a.rel].range(a.version);
                if range.is_empty() {
                    return true;
                }
                if a.membership {
                    // The newest row with these values is the only one that can be live
                    // (older copies were superseded as tombstones); it counts when it is
                    // live and visible.
                    let mut buf = [0; 8];
                    let key = fill_key(&a.key, vars, &mut buf);
                    self.work.probe(1);
                    return match relation.find_row(&key) {
                        Some(r) if r >= range.lo && r < range.hi && relation.is_live(r) => {
                            self.work.touch(1);
                            visit(&key, vars, emit)
                        }
                        _ => true,
                    };
                }
                // Tombstones are skipped; relations without any pay one branch per atom.
                let check_live = relation.has_dead();
                match a.index {
                    None => {
                        for r in range.lo..range.hi {
                            if (!check_live || relation.is_live(r))
                                && !visit(relation.row(r), vars, emit)
                            {
                                self.work.touch((r - range.lo + 1) as u64);
                                return false;
                            }
                        }
                        self.work.touch((range.hi - range.lo) as u64);
                    }
                    Some(ix) => {
                        let rows = self.visible_group(relation, a, ix, range, vars);
                        if let Some(Step::Atom(test)) = plan.steps.get(i + 1) {
                            if !a.next_membership.is_empty() && plan.seed_step != Some(i + 1) {
                                return self.walk_tests(
                                    plan, i, a, test, rows, range.hi, seed, vars, emit,
                                );
                            }
                        }
                        if i + 1 == plan.steps.len() {
                            // The last step: each row that passes is an instance, emitted
                            // here rather than through a call of `step` that only emits
                            // (most delta rules of over-deletion end with the walked atom;
                            // the calls were 7.7% of `dred`'s instructions on R-MAT TC's
                            // single-edge deletions, by callgrind).
                            return self.emit_group(relation, a, rows, range.hi, vars, emit);
                        }
                        let mut visited = 0;
                        for &r in rows {
                            if r >= range.hi {
                                break;
                            }
                            visited += 1;
                            if (!check_live || relation.is_live(r))
                                && !visit(relation.row(r), vars, emit)
                            {
                                self.work.touch(visited);
                                return false;
                            }
                        }
                        self.work.touch(visited);
                    }
                }
                true
            }
        }
    }
}

/// Prefetching for [`Matcher::walk_tests`]. The tests of a group are independent, but each
/// waits for cache misses one after another: the group row's values (its test's key), then
/// the test's slot. So both are started ahead, in two stages: the values of rows far ahead,
/// then the slots of rows whose values have had time to arrive (their hashes kept for the
/// tests). A third stage, loading the arena row a test's slot points at, made R-MAT
/// single-edge deletions slower side by side (median `dred / dd` 0.64–0.71 against
/// 0.59–0.61 without): most tests on a failing search find no tag to compare.
///
/// It starts after the first rows ([`TestsAhead::FROM`]) and how far ahead grows with the
/// walk (at row p, at most 2p + 4 rows), since most searches stop at their first rows (a
/// proof found): prefetches wasted on rows never reached stay proportional to the rows
/// visited.
struct TestsAhead<'p> {
    walk: &'p AtomStep,
    /// Rows from [`TestsAhead::FROM`] + 1 below this have had their values prefetched.
    values_to: usize,
    /// Rows from [`TestsAhead::FROM`] + 1 below this have had their test's slot prefetched
    /// and their hash kept.
    slots_to: usize,
    /// The hash of the test of row q, at q % `HASHES`, for the last `HASHES` rows below
    /// `slots_to`.
    hashes: [u64; TestsAhead::HASHES],
}

impl<'p> TestsAhead<'p> {
    /// Farthest a row's values are prefetched ahead of the row visited.
    const VALUES: usize = 16;
    /// How far ahead a test's slot is prefetched.
    const SLOTS: usize = 8;
    /// Rows visited before any prefetching: most searches that find a proof stop within
    /// them, and prefetches for their rows would be wasted work.
    const FROM: usize = 2;
    /// Hashes kept: more than [`TestsAhead::SLOTS`].
    const HASHES: usize = 16;

    fn new(walk: &'p AtomStep) -> Self {
        TestsAhead {
            walk,
            values_to: Self::FROM + 1,
            slots_to: Self::FROM + 1,
            hashes: [0; Self::HASHES],
        }
    }

    /// The hash of row p's test, if computed ahead.
    #[inline]
    fn hash_of(&self, p: usize) -> Option<u64> {
        (p > Self::FROM && p < self.slots_to).then(|| self.hashes[p % Self::HASHES])
    }

    /// Hints for the walk at row `p` of `rows` (rows of `walked`; tests in `tested`).
    /// Changes no result.
    #[inline]
    fn prefetch(
        &mut self,
        walked: &Relation,
        tested: &Relation,
        rows: &[RowId],
        p: usize,
        vars: &[Value],
    ) {
        if p < Self::FROM {
            return;
        }
        let values_to = (2 * p + 4).min(p + Self::VALUES).min(rows.len());
        while self.values_to < values_to {
            walked.prefetch_values(rows[self.values_to]);
            self.values_to += 1;
        }
        // Slots of rows whose values were asked for at least two rows ago.
        let slots_to = (p + Self::SLOTS).min(self.values_to.saturating_sub(2));
        let parts = &self.walk.next_membership;
        let mut key = [0; 8];
        while self.slots_to < slots_to {
            fill_parts(parts, walked.row(rows[self.slots_to]), vars, &mut key);
            let h = tested.lookup_hash(&key[..parts.len()]);
            tested.prefetch_row(h, &key[..parts.len()]);
            self.hashes[self.slots_to % Self::HASHES] = h;
            self.slots_to += 1;
        }
    }
}

/// The key of a membership test from the row of the atom before it (see
/// [`AtomStep::next_membership`], at most 8 values, checked when planned).
#[inline]
fn fill_parts(parts: &[KeyPart], row: &[Value], vars: &[Value], key: &mut [Value; 8]) {
    for (slot, part) in key.iter_mut().zip(parts) {
        *slot = match *part {
            KeyPart::Known(op) => op.get(vars),
            KeyPart::Column(c) => row[c],
        };
    }
}

/// Key values into a stack buffer when they fit, which they do for every key of arity ≤ 8.
#[inline]
fn fill_key<'b>(
    key: &[Operand],
    vars: &[Value],
    buf: &'b mut [Value; 8],
) -> std::borrow::Cow<'b, [Value]> {
    if key.len() <= buf.len() {
        for (slot, op) in buf.iter_mut().zip(key) {
            *slot = op.get(vars);
        }
        std::borrow::Cow::Borrowed(&buf[..key.len()])
    } else {
        std::borrow::Cow::Owned(key.iter().map(|o| o.get(vars)).collect())
    }
}

/// Semi-naive evaluation of a whole program from an EDB, with plans and indexes made once.
#[derive(Debug)]
pub struct Evaluator {
    program: Arc<Program>,
    relations: Vec<Relation>,
    plans: Vec<StratumPlan>,
    /// Instances matched in the last [`Evaluator::evaluate`] (a work measure).
    pub instances_matched: u64,
    /// Work of the last [`Evaluator::evaluate`]: joins, plus one probe per EDB row loaded
    /// and per derived head inserted.
    pub work: Work,
}

impl Evaluator {
    /// Plans every rule of the program and creates its relations with their indexes.
    pub fn new(program: Arc<Program>) -> Self {
        let mut relations: Vec<Relation> = program
            .relations
            .iter()
            .map(|d| Relation::new(d.arity()))
            .collect();
        let mut plans = Vec::new();
        for (s, stratum) in program.strata.iter().enumerate() {
            let mut sp = StratumPlan {
                base: Vec::new(),
                recursive: Vec::new(),
            };
            for &r in &stratum.rules {
                let rule = &program.rules[r];
                let same: Vec<bool> = rule
                    .positive_atoms()
                    .map(|a| program.stratum_of[a.rel] == Some(s))
                    .collect();
                if same.iter().any(|&b| b) {
                    for p in (0..same.len()).filter(|&p| same[p]) {
                        let versions: Vec<Version> = (0..same.len())
                            .map(|j| match (same[j], j.cmp(&p)) {
                                (false, _) => Version::Full,
                                (true, std::cmp::Ordering::Less) => Version::Old,
                                (true, std::cmp::Ordering::Equal) => Version::Delta,
                                (true, std::cmp::Ordering::Greater) => Version::Full,
                            })
                            .collect();
                        sp.recursive.push(plan_rule(
                            &program,
                            r,
                            &versions,
                            Some(p),
                            &mut relations,
                        ));
                    }
                } else {
                    let versions = vec![Version::Full; same.len()];
                    sp.base
                        .push(plan_rule(&program, r, &versions, None, &mut relations));
                }
            }
            plans.push(sp);
        }
        Evaluator {
            program,
            relations,
            plans,
            instances_matched: 0,
            work: Work::default(),
        }
    }

    /// The program evaluated.
    pub fn program(&self) -> &Arc<Program> {
        &self.program
    }

    /// All relations (EDB and IDB) as last evaluated.
    pub fn relations(&self) -> &[Relation] {
        &self.relations
    }

    /// Replaces every relation's content by the least model of the program on `edb`.
    pub fn evaluate<'a>(&mut self, edb: impl IntoIterator<Item = (RelId, &'a [Value])>) {
        for r in &mut self.relations {
            r.clear();
        }
        let work = WorkCounter::default();
        for (rel, tuple) in edb {
            work.probe(1);
            self.relations[rel].insert(tuple);
        }
        self.instances_matched = 0;
        let mut versions: Vec<Versions> = self.relations.iter().map(Versions::complete).collect();
        let mut out = Vec::new();
        let program = self.program.clone();
        for (s, stratum) in program.strata.iter().enumerate() {
            for &f in &stratum.facts {
                let fact = &program.facts[f];
                self.relations[fact.rel].insert(&fact.tuple);
            }
            for &rel in &stratum.relations {
                versions[rel] = Versions::complete(&self.relations[rel]);
            }
            for plan in &self.plans[s].base {
                out.clear();
                let n = Matcher {
                    relations: &self.relations,
                    versions: &versions,
                    work: &work,
                }
                .run(plan, &mut out);
                self.instances_matched += n;
                work.probe(n);
                insert_flat(&mut self.relations[plan.head_rel], &out, n);
            }
            if self.plans[s].recursive.is_empty() {
                for &rel in &stratum.relations {
                    versions[rel] = Versions::complete(&self.relations[rel]);
                }
                continue;
            }
            // First round: every row so far is delta.
            for &rel in &stratum.relations {
                versions[rel] = Versions {
                    old_end: 0,
                    delta_end: self.relations[rel].end(),
                };
            }
            loop {
                for plan in &self.plans[s].recursive {
                    out.clear();
                    let n = Matcher {
                        relations: &self.relations,
                        versions: &versions,
                        work: &work,
                    }
                    .run(plan, &mut out);
                    self.instances_matched += n;
                    work.probe(n);
                    insert_flat(&mut self.relations[plan.head_rel], &out, n);
                }
                let mut changed = false;
                for &rel in &stratum.relations {
                    let v = &mut versions[rel];
                    let len = self.relations[rel].end();
                    changed |= len > v.delta_end;
                    v.old_end = v.delta_end;
                    v.delta_end = len;
                }
                if !changed {
                    break;
                }
            }
            for &rel in &stratum.relations {
                versions[rel] = Versions::complete(&self.relations[rel]);
            }
        }
        self.work = work.total();
        if cfg!(debug_assertions) {
            for r in &self.relations {
                r.check_invariants();
            }
        }
    }

    /// The digest of [`Evaluator::model`], read from the relations directly.
    pub fn digest(&self) -> ModelDigest {
        idb_digest(&self.program, &self.relations)
    }

    /// The derived relations as a [`Model`].
    pub fn model(&self) -> Model {
        idb_model(&self.program, &self.relations)
    }
}

/// The live rows of the program's derived relations as a [`Model`].
pub(crate) fn idb_model(program: &Program, relations: &[Relation]) -> Model {
    let mut m = Model::empty(program);
    for (rel, r) in relations.iter().enumerate() {
        if program.is_idb(rel) {
            m.relations[rel] = r.rows(r.all()).map(<[Value]>::to_vec).collect();
        }
    }
    m
}

/// The digest of [`idb_model`], without building it.
pub(crate) fn idb_digest(program: &Program, relations: &[Relation]) -> ModelDigest {
    let mut d = ModelDigest::empty(program);
    for (rel, r) in relations.iter().enumerate() {
        if program.is_idb(rel) {
            for row in r.rows(r.all()) {
                d.add(rel, row);
            }
        }
    }
    d
}

/// Inserts `instances` heads given flattened in `flat`; returns how many were new.
pub(crate) fn insert_flat(rel: &mut Relation, flat: &[Value], instances: u64) -> usize {
    let arity = rel.arity();
    if arity == 0 {
        // A zero-arity head has no values to flatten: one instance makes it hold.
        return usize::from(instances > 0 && rel.insert(&[]));
    }
    let mut added = 0;
    for row in flat.chunks_exact(arity) {
        added += usize::from(rel.insert(row));
    }
    added
}

/// The `recompute` engine: after every batch, semi-naive evaluation from scratch on the new
/// EDB. The bar incremental maintenance must beat.
#[derive(Debug)]
pub struct Recompute {
    edb: Edb,
    evaluator: Evaluator,
    materialised: bool,
}

impl Recompute {
    /// A recompute engine for `program`; supports stratified negation.
    pub fn new(program: Arc<Program>) -> Self {
        Recompute {
            edb: Edb::empty(&program),
            evaluator: Evaluator::new(program),
            materialised: false,
        }
    }

    fn run(&mut self) -> BatchReport {
        let edb = &self.edb;
        let facts = edb
            .relations
            .iter()
            .enumerate()
            .flat_map(|(rel, ts)| ts.iter().map(move |t| (rel, t.as_slice())));
        self.evaluator.evaluate(facts);
        BatchReport {
            insert_work: Some(self.evaluator.work),
            ..BatchReport::default()
        }
    }
}

impl Engine for Recompute {
    fn name(&self) -> &str {
        "recompute"
    }

    fn materialise(&mut self, edb: &Edb) -> Result<BatchReport, EngineError> {
        self.edb = edb.clone();
        self.materialised = true;
        Ok(self.run())
    }

    fn apply(&mut self, batch: &Batch) -> Result<BatchReport, EngineError> {
        if !self.materialised {
            return Err(EngineError::Misuse {
                engine: "recompute".into(),
                message: "apply before materialise".into(),
            });
        }
        self.edb.apply(batch);
        Ok(self.run())
    }

    fn model(&self) -> Model {
        self.evaluator.model()
    }

    fn digest(&self) -> ModelDigest {
        self.evaluator.digest()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::{plan_rule_with, PlanOptions};
    use crate::program::Term;
    use crate::{load_program, SourceFile, Symbols};

    /// A walked atom with a variable repeated inside it (`t(y, 1, y)`) checks each row
    /// against that row's own first value, not the binding left by the row before
    /// (issue 22, case 1: `walk_tests` checked before binding, so `recompute` lost
    /// `p(3)`, and `dred` kept facts whose only proof had gone).
    #[test]
    fn walk_tests_checks_a_repeated_variable_against_its_own_row() {
        let src = ".decl t(a: number, b: number, c: number)\n.decl q(a: number)\n\
                   .decl p(a: number)\n.input t\n.input q\n\
                   p(y) :- t(y, 1, y), q(y).\n";
        let mut symbols = Symbols::new();
        let program = load_program(&SourceFile::new("p.dl", src), &mut symbols).expect("program");
        let (t, q) = (
            program.relation_id("t").expect("t"),
            program.relation_id("q").expect("q"),
        );
        let mut relations: Vec<Relation> = program
            .relations
            .iter()
            .map(|r| Relation::new(r.arity()))
            .collect();
        // Row 1 alone matches; row 0 leaves y = 2 behind, which row 1's check must not see,
        // and row 2 (y = 3, last column 4) must not pass on row 1's binding.
        relations[t].insert(&[2, 1, 5]);
        relations[t].insert(&[3, 1, 3]);
        relations[t].insert(&[4, 1, 3]);
        for v in [2, 3, 4, 5] {
            relations[q].insert(&[v]);
        }
        let plan = plan_rule(
            &program,
            0,
            &[Version::Full, Version::Full],
            None,
            &mut relations,
        );
        assert!(
            matches!(&plan.steps[..], [Step::Atom(w), Step::Atom(m)]
                if w.index.is_some() && !w.checks.is_empty() && m.membership
                    && !w.next_membership.is_empty()),
            "the plan walks t on its constant and tests q: {plan:?}"
        );
        let versions: Vec<Versions> = relations.iter().map(Versions::complete).collect();
        let work = WorkCounter::default();
        let matcher = Matcher {
            relations: &relations,
            versions: &versions,
            work: &work,
        };
        let mut heads = Vec::new();
        matcher.run(&plan, &mut heads);
        assert_eq!(heads, vec![3]);
    }

    /// The fused walk of an index group and its membership tests ([`Matcher::walk_tests`])
    /// finds the same instances, in the same order, with the same work counts as the step
    /// by step loop — on groups long enough for every prefetch stage, with tombstones in the
    /// walked relation, and on searches that fail after walking a whole group.
    #[test]
    fn walk_tests_equals_step_by_step() {
        let src = ".decl edge(x: symbol, y: symbol)\n.decl path(x: symbol, y: symbol)\n\
                   .input edge\npath(x, y) :- edge(x, y).\n\
                   path(x, z) :- path(x, y), edge(y, z).\n";
        let mut symbols = Symbols::new();
        let program = load_program(&SourceFile::new("p.dl", src), &mut symbols).expect("program");
        let (edge, path) = (
            program.relation_id("edge").expect("edge"),
            program.relation_id("path").expect("path"),
        );
        let mut relations: Vec<Relation> = program
            .relations
            .iter()
            .map(|r| Relation::new(r.arity()))
            .collect();
        // Node 0 is a hub with 40 parents; x reaches every third parent only.
        let x: Value = 1000;
        for y in 1..=40 {
            relations[edge].insert(&[y, 0]);
            if y % 3 == 0 {
                relations[path].insert(&[x, y]);
            }
        }
        relations[edge].remove(&[7, 0]);
        let rule = program
            .rules
            .iter()
            .position(|r| r.positive_atoms().count() == 2)
            .expect("the recursive rule");
        let prebound: Vec<usize> = program.rules[rule].head_vars().collect();
        let edge_atom = program.rules[rule]
            .positive_atoms()
            .position(|a| a.rel == edge)
            .expect("edge atom");
        let options = PlanOptions {
            seeded: false,
            prebound: prebound.clone(),
        };
        let full = [Version::Full, Version::Full];
        let fused = plan_rule_with(
            &program,
            rule,
            &full,
            Some(edge_atom),
            &options,
            &mut relations,
        );
        let Step::Atom(walk) = &fused.steps[0] else {
            panic!("the plan starts with the edge atom")
        };
        assert!(!walk.next_membership.is_empty(), "linked to path's test");
        assert!(fused.starts_with_walk_test, "exists starts at the walk");
        let mut plain = fused.clone();
        plain.starts_with_walk_test = false;
        if let Step::Atom(walk) = &mut plain.steps[0] {
            walk.next_membership.clear();
        }
        // Fused, but started through `step` rather than at the walk.
        let mut stepped = fused.clone();
        stepped.starts_with_walk_test = false;
        let versions: Vec<Versions> = relations.iter().map(Versions::complete).collect();
        // (x, z) bound: z = 0 walks the hub's 40 parents; x = 2000 reaches none of them.
        for (px, pz) in [(x, 0), (2000, 0), (x, 5)] {
            let mut runs = Vec::new();
            for plan in [&fused, &plain, &stepped] {
                let work = WorkCounter::default();
                let matcher = Matcher {
                    relations: &relations,
                    versions: &versions,
                    work: &work,
                };
                let mut vars = vec![0; plan.num_vars];
                vars[prebound[0]] = px;
                vars[prebound[1]] = pz;
                let mut seen = Vec::new();
                matcher.step(plan, 0, None, &mut vars.clone(), &mut |v| {
                    seen.push(v.to_vec());
                    true
                });
                let found = matcher.exists(plan, &mut vars);
                runs.push((seen, found, work.total()));
            }
            assert_eq!(runs[0], runs[1], "binding ({px}, {pz})");
            assert_eq!(runs[0], runs[2], "binding ({px}, {pz}), through step");
        }
        // Every third parent but the tombstone is a proof.
        assert_eq!(relations[edge].dead_count(), 1);
    }

    /// A seeded plan of the seed and one walked atom ([`RulePlan::seeded_walk`]) finds the
    /// same instances, in the same order, with the same work counts through its own loop as
    /// through [`Matcher::step`]: from either atom of a linear rule, with a constant and a
    /// repeated variable checked, tombstones in the walked relation, and versions that hide
    /// rows at both ends of a group. Each instance found is also checked on its own: its atoms
    /// ground to the seed row and to live rows (the two paths share the walked atom's checks).
    #[test]
    fn seeded_walk_equals_step_by_step() {
        let src = ".decl edge(x: symbol, y: symbol)\n.decl path(x: symbol, y: symbol)\n\
                   .decl tri(x: symbol, y: symbol, z: symbol)\n.decl twice(x: symbol)\n\
                   .decl from_a(x: symbol)\n.decl both(x: symbol)\n.input edge\n.input tri\n\
                   path(x, z) :- path(x, y), edge(y, z).\n\
                   twice(y) :- path(x, x), edge(x, y).\n\
                   from_a(z) :- path(\"a\", y), edge(y, z).\n\
                   both(x) :- path(x, w), tri(w, y, y).\n";
        let mut symbols = Symbols::new();
        let program = load_program(&SourceFile::new("p.dl", src), &mut symbols).expect("program");
        let (edge, path) = (
            program.relation_id("edge").expect("edge"),
            program.relation_id("path").expect("path"),
        );
        let a = symbols.intern("a");
        let mut relations: Vec<Relation> = program
            .relations
            .iter()
            .map(|r| Relation::new(r.arity()))
            .collect();
        // Node 1 has 12 successors, itself among them; path rows from `a` and from 5.
        for z in [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12] {
            relations[edge].insert(&[1, z]);
            relations[path].insert(&[5, z]);
            relations[path].insert(&[a, z]);
        }
        relations[path].insert(&[1, 1]);
        let tri = program.relation_id("tri").expect("tri");
        for w in 1..=12 {
            relations[tri].insert(&[w, 7, 7]);
            relations[tri].insert(&[w, 8, 9]);
        }
        relations[edge].remove(&[1, 4]);
        relations[path].remove(&[5, 3]);
        let seeded = PlanOptions {
            seeded: true,
            prebound: Vec::new(),
        };
        let full = [Version::Full, Version::Full];
        let complete: Vec<Versions> = relations.iter().map(Versions::complete).collect();
        // Old rows end before the group's last edges; delta rows start after its first.
        let mut narrow = complete.clone();
        narrow[edge] = Versions {
            old_end: 8,
            delta_end: relations[edge].end(),
        };
        narrow[path] = Versions {
            old_end: 20,
            delta_end: relations[path].end(),
        };
        let (mut plans, mut checked) = (0, 0);
        for rule in 0..program.rules.len() {
            for first in 0..2 {
                for versions_of_walk in [Version::Full, Version::Old, Version::Delta] {
                    let mut fast =
                        plan_rule_with(&program, rule, &full, Some(first), &seeded, &mut relations);
                    if !fast.seeded_walk {
                        continue; // the other atom is a membership test
                    }
                    plans += 1;
                    if let Step::Atom(walk) = &mut fast.steps[1] {
                        walk.version = versions_of_walk;
                    }
                    let mut slow = fast.clone();
                    slow.seeded_walk = false;
                    let seed_rel = match &fast.steps[0] {
                        Step::Atom(s) => s.rel,
                        _ => unreachable!(),
                    };
                    for versions in [&complete, &narrow] {
                        for r in 0..relations[seed_rel].end() {
                            let row = relations[seed_rel].row(r).to_vec();
                            let mut runs = Vec::new();
                            for plan in [&fast, &slow] {
                                let work = WorkCounter::default();
                                let matcher = Matcher {
                                    relations: &relations,
                                    versions,
                                    work: &work,
                                };
                                let mut seen = Vec::new();
                                matcher.for_each_seeded(plan, &row, &mut |v| seen.push(v.to_vec()));
                                runs.push((seen, work.total()));
                            }
                            assert_eq!(runs[0], runs[1], "rule {rule} at {first}, seed {row:?}");
                            // Each instance is one, independently of either path: the seed
                            // atom grounds to the seed row, every other atom to a live row.
                            for vars in &runs[0].0 {
                                let atoms = program.rules[rule].positive_atoms().enumerate();
                                for (i, atom) in atoms {
                                    let ground: Vec<Value> = atom
                                        .args
                                        .iter()
                                        .map(|t| match *t {
                                            Term::Var(v) => vars[v],
                                            Term::Const(c) => c,
                                            Term::Wildcard => unreachable!("no `_` here"),
                                        })
                                        .collect();
                                    if i == first {
                                        assert_eq!(ground, row, "rule {rule}: seed atom");
                                    } else {
                                        assert!(
                                            relations[atom.rel].contains(&ground),
                                            "rule {rule} at {first}: {ground:?} is no live row"
                                        );
                                    }
                                }
                            }
                            checked += usize::from(!runs[0].0.is_empty());
                        }
                    }
                }
            }
        }
        // Both seeds of `path` and `both`, the `path` seeds of `twice` and `from_a`, in
        // three versions each.
        assert_eq!(plans, 6 * 3);
        assert!(checked > 20, "instances were found: {checked}");
    }
}
