//! The join executor: runs one rule plan ([`RulePlan`], made by [`crate::plan`]) over a set of
//! [`Relation`]s, within the row ranges each relation shows ([`Versions`]), counting its work
//! ([`WorkCounter`]). Every engine that evaluates rules over relations runs its joins here:
//! `recompute` ([`crate::eval`]), each phase of `dred` and the reference's instance store.
//!
//! What [`Matcher`] guarantees: it finds every instance of a plan whose positive atoms match
//! live rows in the ranges of the versions the plan names (and whose comparisons and negations
//! hold), each once, in one fixed order — steps in plan order, each index group's rows by
//! ascending id, a scan by ascending id. Its fused paths ([`RulePlan::seeded_walk`],
//! [`RulePlan::starts_with_walk_test`], the walk of an index group with the membership tests
//! it feeds) give the same instances, in the same order, with the same work counts as the
//! step-by-step interpreter (tested below). Work: one probe per index lookup, membership test
//! or negation; one row touched per stored row visited, per membership test passed and per
//! seed row. It never writes to the relations: callers insert the heads afterwards
//! ([`Relation::insert_flat`]), and its hints (`prefetch_*`) change no result and count nothing.
//!
//! Beside it, the two ways the engines built on relations read their model back
//! (`idb_model`, `idb_digest`).

mod adaptive;

use std::cell::Cell;

use crate::engine::{Model, ModelDigest, Work};
use crate::plan::{compare, AtomStep, KeyPart, Operand, RulePlan, StartValue, Step, Version};
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

/// Counts [`Work`] while relations are borrowed immutably by a [`Matcher`] (hence cells).
#[derive(Clone, Debug, Default)]
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
        self.unseeded(plan, &mut vars, &mut |vars| {
            count += 1;
            out.extend(plan.head.iter().map(|o| o.get(vars)));
            true
        });
        count
    }

    /// Calls `emit` with the variable binding of every instance of `plan`.
    pub fn for_each<F: FnMut(&[Value])>(&self, plan: &RulePlan, emit: &mut F) {
        let mut vars = vec![0; plan.num_vars];
        self.unseeded(plan, &mut vars, &mut |vars| {
            emit(vars);
            true
        });
    }

    /// The instances of `plan` from its first step, or, for a plan ordered per binding from
    /// its first atom ([`crate::plan::plan_seeded_adaptive`]), from each visible row of it.
    fn unseeded<F: FnMut(&[Value]) -> bool>(
        &self,
        plan: &RulePlan,
        vars: &mut [Value],
        emit: &mut F,
    ) -> bool {
        match &plan.adaptive {
            Some(search) if search.seed.is_some() => self.adaptive_scan(search, vars, emit),
            _ => self.step(plan, 0, None, vars, emit),
        }
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
        if let Some(search) = plan.adaptive.as_deref().filter(|s| s.seed.is_some()) {
            self.adaptive_seeded(search, row, vars, &mut |vars| {
                emit(vars);
                true
            });
            return;
        }
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
        if let Some(search) = &plan.adaptive {
            self.adaptive(search, vars, &mut stop);
        } else if plan.starts_with_walk_test {
            self.start_walk_test(plan, vars, &mut stop);
        } else {
            self.step(plan, 0, None, vars, &mut stop);
        }
        found
    }

    /// Calls `emit` with the binding of each instance of `plan` with the prebound variables
    /// set as in `vars`, in the order [`Matcher::exists`] finds them, until `emit` returns
    /// false. Returns false when stopped so.
    pub fn for_each_bound<F: FnMut(&[Value]) -> bool>(
        &self,
        plan: &RulePlan,
        vars: &mut [Value],
        emit: &mut F,
    ) -> bool {
        if let Some(search) = &plan.adaptive {
            self.adaptive(search, vars, emit)
        } else if plan.starts_with_walk_test {
            self.start_walk_test(plan, vars, emit)
        } else {
            self.step(plan, 0, None, vars, emit)
        }
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

    /// True when no live row of `rel` matches `key` (bound in `vars`) through `index`, or
    /// as a whole row when `index` is `None`: a negation's step; one probe.
    fn absent(&self, rel: RelId, index: Option<IndexId>, key: &[Operand], vars: &[Value]) -> bool {
        let relation = &self.relations[rel];
        let mut buf = [0; 8];
        let key = fill_key(key, vars, &mut buf);
        self.work.probe(1);
        !match index {
            None => relation.contains(&key),
            Some(ix) => relation
                .lookup(ix, &key)
                .iter()
                .any(|&r| relation.is_live(r)),
        }
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
                !self.absent(*rel, *index, key, vars) || self.step(plan, i + 1, seed, vars, emit)
            }
            Step::Assign { var, expr, check } => match expr.eval(&|v| vars[v]) {
                None => true,
                Some(x) if *check => x != vars[*var] || self.step(plan, i + 1, seed, vars, emit),
                Some(x) => {
                    vars[*var] = x;
                    self.step(plan, i + 1, seed, vars, emit)
                }
            },
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

#[cfg(test)]
mod tests;
