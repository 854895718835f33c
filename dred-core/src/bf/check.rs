//! B/F's provability check: backward chaining over the rules with the current relations,
//! memoised within a level of a batch, with forward saturation of the facts checked.
//!
//! Input: the relations as B/F's deletion sees them — the level's facts not deleted yet
//! (I \ D) and the relations below the level already maintained — and a fact F of the level.
//! Output: whether F has a derivation from facts that are still proved (`true`), with every
//! fact the check visited marked *checked* (C) and those found derivable marked *proved* (P).
//!
//! How (the paper's `checkProvability` and `saturate`): F joins C; a program fact is proved
//! at once; otherwise every rule instance with head F over the current relations is
//! considered in turn (a *backward instance*), and each of its open body facts — facts of the
//! level not yet proved — is checked in turn, until F is proved. Facts below the level and
//! `.input` facts hold if present: they are maintained already, so present means proved.
//! *Saturation* is forward chaining restricted to C: when a fact is proved, every backward
//! instance waiting on it loses one open fact, and an instance left with none proves its
//! head. A fact met again while its own check is still running returns at once (it is in C):
//! that is how a fact in a cycle never proves itself — the instances that need it wait for
//! it, and saturation proves them if it is proved later by another instance.
//!
//! Postcondition (the unfounded-set argument): when `Checker::check` returns, every fact of
//! C \ P has, in each of its instances over the relations at its check, an open body fact in
//! C \ P, so no fact of C \ P is derivable from the maintained facts; and every fact of P is.
//! Both stay true while the level deletes more facts (deleted facts are never proved), so the
//! marks are kept for the whole level: a fact is checked at most once per level and batch.
//!
//! Backward chaining runs on an explicit stack (a fact's frame lists its instances and how far
//! the check has gone through their open facts), not on the thread's stack: chains of
//! thousands of facts (a path graph) must not overflow it.
//!
//! Cost: per checked fact, the instances with its head bound (one head-bound plan per rule
//! with its head's relation, stopped at the first instance whose body is proved already) and
//! one probe per body atom of each to name the body fact; memory: the open facts of the
//! instances of facts not proved at once, kept until the level ends.

use std::collections::HashSet;

use crate::exec::{Matcher, Versions, WorkCounter};
use crate::maintain::order_stats::OrderStats;
use crate::maintain::plans::{bind_head, first_atom, starts_with_lookup};
use crate::maintain::{Guard, RowRef};
use crate::plan::{plan_rule_adaptive, plan_rule_with, PlanOptions, RulePlan, Version};
use crate::program::{Program, RelId, Term};
use crate::storage::{Relation, RowMarks};
use crate::value::{Tuple, Value};

/// The plans of B/F's backward chaining, made once per program: per rule, plans of its
/// instances with the head's variables bound, in every order that starts from a different
/// positive body atom probed on bound columns (as `dred`'s rederivation; the order is chosen
/// from measured work, [`OrderStats`]). Wildcards of positive body atoms become fresh
/// variables first, so that every instance names each of its body facts.
#[derive(Clone, Debug)]
pub(crate) struct BackwardPlans {
    /// The program's rules with the wildcards of positive atoms named (the plans' rules).
    rules: Vec<crate::program::Rule>,
    /// Per rule, its plans with the head bound: the planner's order first, then one starting
    /// from each other positive atom that is looked up rather than scanned.
    head_bound: Vec<Vec<RulePlan>>,
    /// Per relation, the rules whose head is over it.
    by_head: Vec<Vec<usize>>,
}

impl BackwardPlans {
    /// Plans every rule of `program` with its head bound, creating the indexes in `relations`.
    pub(crate) fn new(program: &Program, relations: &mut [Relation]) -> Self {
        let named = program.with_named_wildcards();
        let mut by_head = vec![Vec::new(); program.relations.len()];
        let head_bound = named
            .rules
            .iter()
            .enumerate()
            .map(|(r, rule)| {
                by_head[rule.head.rel].push(r);
                let atoms = rule.positive_atoms().count();
                let options = PlanOptions {
                    seeded: false,
                    prebound: rule.head_vars().collect(),
                };
                let full = vec![Version::Full; atoms];
                let mut orders = vec![plan_rule_with(&named, r, &full, None, &options, relations)];
                if atoms > 1 {
                    for i in 0..atoms {
                        let plan = plan_rule_with(&named, r, &full, Some(i), &options, relations);
                        if starts_with_lookup(&plan) && first_atom(&plan) != first_atom(&orders[0])
                        {
                            orders.push(plan);
                        }
                    }
                    // And the order chosen per binding, measured like the others.
                    orders.extend(plan_rule_adaptive(&named, rule, r, &options, relations));
                }
                orders
            })
            .collect();
        BackwardPlans {
            rules: named.rules,
            head_bound,
            by_head,
        }
    }
}

/// A rule instance considered backwards whose body was not proved when found.
#[derive(Clone, Copy, Debug)]
struct Instance {
    head: RowRef,
    /// Its open body facts not proved yet; at 0 the head is proved.
    open: u32,
    /// Its open body facts, `open_facts[lo..hi]` (in body order, each once).
    lo: u32,
    hi: u32,
}

/// A fact whose check is running: its instances `first..end`, the next one to follow and
/// the next open fact of it.
#[derive(Clone, Copy, Debug)]
struct Frame {
    fact: RowRef,
    next: usize,
    end: usize,
    next_fact: u32,
}

/// The backward instances waiting on each open fact: per row, a list linked through one
/// array, newest first.
///
/// Why not a hash map from fact to a vector of instances: on a level whose facts all lose
/// their support (a layered graph's magic-set closure cut at its source: 199,742 facts
/// disproved through 4.8 M backward instances), probing, growing and allocating that map
/// was a quarter of B/F's time (perf). Here a fact's list is one array read by row id and a
/// new waiter one push.
#[derive(Clone, Debug, Default)]
struct WaitLists {
    /// Per relation, by row id: 1 + the index in `links` of the row's newest waiter, or 0
    /// for none. Grown on demand, so only the relations with open facts take room.
    heads: Vec<Vec<u32>>,
    /// (instance, 1 + the index of the next waiter on the same row, or 0).
    links: Vec<(u32, u32)>,
    /// The rows given a list since the last reset (the only non-zero heads).
    touched: Vec<RowRef>,
}

impl WaitLists {
    /// Forgets every list, in proportion to the rows that had one.
    fn reset(&mut self) {
        for &(rel, r) in &self.touched {
            self.heads[rel][r as usize] = 0;
        }
        self.touched.clear();
        self.links.clear();
    }

    /// Adds `instance` to the waiters on `fact`.
    fn push(&mut self, (rel, r): RowRef, instance: u32) {
        if self.heads.len() <= rel {
            self.heads.resize_with(rel + 1, Vec::new);
        }
        let heads = &mut self.heads[rel];
        let i = r as usize;
        if heads.len() <= i {
            heads.resize((i + 1).next_power_of_two(), 0);
        }
        if heads[i] == 0 {
            self.touched.push((rel, r));
        }
        self.links.push((instance, heads[i]));
        heads[i] = self.links.len() as u32;
    }

    /// The first link of `fact`'s waiters, its list emptied (to walk with
    /// [`WaitLists::follow`]).
    fn take(&mut self, (rel, r): RowRef) -> u32 {
        self.heads
            .get_mut(rel)
            .and_then(|h| h.get_mut(r as usize))
            .map_or(0, std::mem::take)
    }

    /// The waiter at `link` and the link after it; `None` at the end of a list.
    fn follow(&self, link: u32) -> Option<(u32, u32)> {
        link.checked_sub(1).map(|i| self.links[i as usize])
    }
}

/// What B/F's checks counted in one batch.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CheckCounts {
    /// Derived facts whose derivability was checked (|C ∩ IDB|).
    pub checked: u64,
    /// Of those, the ones found without a derivation (|(C \ P) ∩ IDB|).
    pub disproved: u64,
    /// Rule instances with a checked fact as head, considered backwards.
    pub backward_instances: u64,
}

impl std::ops::AddAssign for CheckCounts {
    fn add_assign(&mut self, o: Self) {
        self.checked += o.checked;
        self.disproved += o.disproved;
        self.backward_instances += o.backward_instances;
    }
}

/// The checks of one level in one batch: the sets C and P and the backward instances still
/// waiting for body facts. Scratch kept across batches ([`Checker::begin`] empties it).
#[derive(Clone, Debug, Default)]
pub(crate) struct Checker {
    checked: RowMarks,
    proved: RowMarks,
    instances: Vec<Instance>,
    open_facts: Vec<RowRef>,
    /// For a fact not proved yet, the instances waiting on it.
    waiting: WaitLists,
    stack: Vec<Frame>,
    /// The facts of C in the order they joined it.
    order: Vec<RowRef>,
    /// Derived facts proved, of those checked (for [`CheckCounts::disproved`]).
    proved_idb: u64,
    counts: CheckCounts,
    /// The measured work of each rule's orders, kept across batches (`None` until
    /// [`Checker::new`]).
    orders: Option<OrderStats>,
}

/// What a check reads: the program, its backward plans, the relations as they are now, and
/// which relations count as maintained already.
pub(crate) struct CheckContext<'a> {
    pub(crate) program: &'a Program,
    pub(crate) backward: &'a BackwardPlans,
    pub(crate) relations: &'a [Relation],
    pub(crate) versions: &'a [Versions],
    pub(crate) work: &'a WorkCounter,
    /// The level being maintained: facts of its derived relations are checked; others hold
    /// when present.
    pub(crate) level: usize,
    /// Program facts of the level, proved by their empty-body instance.
    pub(crate) program_facts: &'a HashSet<(RelId, Tuple)>,
    /// A guard's work budget (probes plus rows touched, counted by `work`) past which a
    /// check stops unfinished ([`Checker::check`] gives `None`).
    pub(crate) budget: Option<&'a Guard>,
}

impl CheckContext<'_> {
    /// True once the work counted passes the budget.
    pub(crate) fn past_budget(&self) -> bool {
        self.budget.is_some_and(|b| {
            let w = self.work.total();
            b.passed(w.probes + w.touched)
        })
    }
}

impl CheckContext<'_> {
    /// True for a relation whose facts B/F checks at this level.
    fn is_checked(&self, rel: RelId) -> bool {
        self.program.is_idb(rel) && self.program.level_of(rel) == self.level
    }
}

impl Checker {
    /// A checker for these plans, with no measurements yet.
    pub(crate) fn new(backward: &BackwardPlans) -> Self {
        Checker {
            orders: Some(OrderStats::new(&backward.head_bound)),
            ..Checker::default()
        }
    }

    /// Empties the sets for a new level over `relations` (no row is appended while a level
    /// deletes).
    pub(crate) fn begin(&mut self, relations: &[Relation]) {
        self.checked.reset(relations);
        self.proved.reset(relations);
        self.instances.clear();
        self.open_facts.clear();
        self.waiting.reset();
        self.stack.clear();
        self.order.clear();
        self.proved_idb = 0;
        self.counts = CheckCounts::default();
    }

    /// The level's counts so far; `disproved` is exact once no check is running.
    pub(crate) fn counts(&self) -> CheckCounts {
        CheckCounts {
            disproved: self.counts.checked - self.proved_idb,
            ..self.counts
        }
    }

    /// The facts checked in this level, in the order their checks began, each with whether
    /// it was proved.
    pub(crate) fn outcomes(&self) -> impl Iterator<Item = (RowRef, bool)> + '_ {
        self.order.iter().map(|&f| (f, self.is_proved(f)))
    }

    /// True when `fact` was checked (it is in C).
    pub(crate) fn is_checked(&self, (rel, r): RowRef) -> bool {
        self.checked.contains(rel, r)
    }

    /// True when `fact` was proved (it is in P).
    pub(crate) fn is_proved(&self, (rel, r): RowRef) -> bool {
        self.proved.contains(rel, r)
    }

    /// Marks `fact` checked and proved from outside the rules (an aggregate row whose value
    /// stays): it counts as checked, and not as disproved.
    pub(crate) fn note_proved(&mut self, fact: RowRef) {
        if self.checked.insert(fact.0, fact.1) {
            self.counts.checked += 1;
            self.order.push(fact);
        }
        if self.proved.insert(fact.0, fact.1) {
            self.proved_idb += 1;
        }
    }

    /// Marks `fact` checked and not proved from outside the rules (an aggregate row whose
    /// value moves or whose group emptied).
    pub(crate) fn note_disproved(&mut self, fact: RowRef) {
        if self.checked.insert(fact.0, fact.1) {
            self.counts.checked += 1;
            self.order.push(fact);
        }
    }

    /// `checkProvability(fact)`: true when `fact`, a live row of a derived relation of the
    /// context's level, has a derivation from the maintained facts. Memoised: a fact checked
    /// before in this level answers from P. `None` when the context's budget ran out first:
    /// the check is unfinished and the checker's sets mean nothing until the next
    /// [`Checker::begin`] (the caller abandons the level).
    ///
    /// Why a check can stop midway: one check may explore a whole recursive component
    /// (18 M backward instances for one batch of a points-to analysis), and a guard that
    /// looked only between checks let `auto`'s B/F run 1.3 s past a budget of tens of
    /// milliseconds on a liveness analysis.
    pub(crate) fn check(&mut self, cx: &CheckContext<'_>, fact: RowRef) -> Option<bool> {
        if self.is_checked(fact) {
            return Some(self.is_proved(fact));
        }
        self.expand(cx, fact);
        while let Some(top) = self.stack.last_mut() {
            if cx.past_budget() {
                return None;
            }
            if self.proved.contains(top.fact.0, top.fact.1) || top.next == top.end {
                self.stack.pop();
                continue;
            }
            let inst = self.instances[top.next];
            let g = self.open_facts[(inst.lo + top.next_fact) as usize];
            top.next_fact += 1;
            if inst.lo + top.next_fact == inst.hi {
                top.next += 1;
                top.next_fact = 0;
            }
            if !self.checked.contains(g.0, g.1) {
                self.expand(cx, g);
            }
        }
        Some(self.is_proved(fact))
    }

    /// Starts the check of `fact`: it joins C; it is proved at once when it is a program
    /// fact or has an instance whose open body facts are all proved; otherwise its instances
    /// wait on their open facts and its frame goes on the stack.
    fn expand(&mut self, cx: &CheckContext<'_>, fact: RowRef) {
        let (rel, r) = fact;
        self.checked.insert(rel, r);
        self.counts.checked += 1;
        self.order.push(fact);
        let tuple = cx.relations[rel].row(r);
        if !cx.program_facts.is_empty() && cx.program_facts.contains(&(rel, tuple.to_vec())) {
            self.prove(fact);
            return;
        }
        let matcher = Matcher {
            relations: cx.relations,
            versions: cx.versions,
            work: cx.work,
        };
        let first = self.instances.len();
        let mut proved_now = false;
        let mut vars: Vec<Value> = Vec::new();
        let mut values: Vec<Value> = Vec::new();
        let orders = self
            .orders
            .as_mut()
            .expect("a checker made by Checker::new");
        for &ri in &cx.backward.by_head[rel] {
            let rule = &cx.backward.rules[ri];
            let order = orders.choose(ri);
            let plan = &cx.backward.head_bound[ri][order];
            let before = cx.work.total();
            vars.clear();
            vars.resize(plan.num_vars, 0);
            if !bind_head(&rule.head.args, tuple, &mut vars) {
                continue;
            }
            let (instances, open_facts, proved) =
                (&mut self.instances, &mut self.open_facts, &self.proved);
            let counts = &mut self.counts;
            matcher.for_each_bound(plan, &mut vars, &mut |vars| {
                counts.backward_instances += 1;
                let lo = open_facts.len();
                for atom in rule.positive_atoms() {
                    if !cx.is_checked(atom.rel) {
                        continue;
                    }
                    values.clear();
                    values.extend(atom.args.iter().map(|t| match *t {
                        Term::Var(x) => vars[x],
                        Term::Const(c) => c,
                        Term::Wildcard => unreachable!("positive wildcards are named"),
                    }));
                    cx.work.probe(1);
                    let Some(g) = cx.relations[atom.rel].row_id(&values) else {
                        unreachable!("an instance's body fact is a row it matched")
                    };
                    let g = (atom.rel, g);
                    if !proved.contains(g.0, g.1) && !open_facts[lo..].contains(&g) {
                        open_facts.push(g);
                    }
                }
                if open_facts.len() == lo {
                    proved_now = true;
                    return false;
                }
                instances.push(Instance {
                    head: fact,
                    open: (open_facts.len() - lo) as u32,
                    lo: lo as u32,
                    hi: open_facts.len() as u32,
                });
                true
            });
            let after = cx.work.total();
            let spent = (after.probes - before.probes) + (after.touched - before.touched);
            orders.record(ri, order, spent);
            if proved_now {
                break;
            }
        }
        if proved_now {
            // The instances found before the proved one are not needed: F is in P.
            let lo = self
                .instances
                .get(first)
                .map_or(self.open_facts.len(), |i| i.lo as usize);
            self.instances.truncate(first);
            self.open_facts.truncate(lo);
            self.prove(fact);
            return;
        }
        for id in first..self.instances.len() {
            let inst = self.instances[id];
            for &g in &self.open_facts[inst.lo as usize..inst.hi as usize] {
                self.waiting.push(g, id as u32);
            }
        }
        if first < self.instances.len() {
            self.stack.push(Frame {
                fact,
                next: first,
                end: self.instances.len(),
                next_fact: 0,
            });
        }
    }

    /// `saturate`: `fact` joins P, and so, transitively, does the head of every backward
    /// instance left with no open fact.
    fn prove(&mut self, fact: RowRef) {
        if !self.proved.insert(fact.0, fact.1) {
            return;
        }
        self.proved_idb += 1;
        let mut work = vec![fact];
        while let Some(g) = work.pop() {
            let mut link = self.waiting.take(g);
            while let Some((id, next)) = self.waiting.follow(link) {
                link = next;
                let inst = &mut self.instances[id as usize];
                inst.open -= 1;
                if inst.open == 0 && self.proved.insert(inst.head.0, inst.head.1) {
                    self.proved_idb += 1;
                    work.push(inst.head);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::WaitLists;

    /// Each row's waiters come back once, newest first, whatever rows are interleaved; a taken
    /// list is empty; a reset forgets every list and the lists work again after it.
    #[test]
    fn wait_lists_give_each_row_its_waiters() {
        let mut w = WaitLists::default();
        let drain = |w: &mut WaitLists, fact| {
            let mut out = Vec::new();
            let mut link = w.take(fact);
            while let Some((id, next)) = w.follow(link) {
                out.push(id);
                link = next;
            }
            out
        };
        w.push((2, 7), 10);
        w.push((0, 1000), 11);
        w.push((2, 7), 12);
        w.push((2, 8), 13);
        assert_eq!(drain(&mut w, (2, 7)), vec![12, 10]);
        assert_eq!(drain(&mut w, (2, 7)), Vec::<u32>::new());
        assert_eq!(
            drain(&mut w, (1, 0)),
            Vec::<u32>::new(),
            "a relation never seen"
        );
        w.push((2, 7), 14);
        w.reset();
        for fact in [(2, 7), (2, 8), (0, 1000)] {
            assert_eq!(drain(&mut w, fact), Vec::<u32>::new());
        }
        w.push((0, 1000), 15);
        assert_eq!(drain(&mut w, (0, 1000)), vec![15]);
    }
}
