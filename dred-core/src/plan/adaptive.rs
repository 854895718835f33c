//! Head-bound searches whose join order is chosen per binding, at run time: the plan of a
//! search that starts from a given head (a B/F check, a DRed rederivation check) holds, for
//! every set of body atoms already matched, how each remaining atom would be matched; the
//! executor ([`crate::exec::Matcher::exists`], [`crate::exec::Matcher::for_each_bound`])
//! looks up each remaining atom's index group under the current binding and walks the
//! smallest next (a membership test before any walk).
//!
//! Why: a fixed order cannot fit every binding of a nonlinear rule. With the head of
//! `points_to(r, o) :- store(p, q), points_to(p, r), points_to(q, o)` bound, the planner's
//! order walked `points_to(·, r)`, then for each `p` all of `points_to(·, o)`, testing
//! `store(p, q)` last: a cross product of two large groups where `store(p, ·)` holds one or
//! two rows. On smallvec's points-to analysis that rule cost 68,000 probes and rows a check,
//! 1.88 G over the 27,616 checks of ten deleted assignments (B/F: 23 s against 82 ms for
//! recomputing). Choosing per binding walks `store(p, ·)` there, and in
//! `points_to(p, o) :- load(p, q), points_to(q, r), points_to(r, o)` the smaller of
//! `points_to(q, ·)` and `points_to(·, o)` (the other becomes a membership test): the
//! intersection step of a worst-case optimal join, on hash indexes.
//!
//! The same choice serves searches that start from one atom's row instead of the head
//! ([`plan_seeded_adaptive`]): over-deletion's seeded plans (one frontier fact) and
//! insertion's semi-naive plans (each row of a delta). Why: with `path_maybe_uninit_on_exit(m,
//! p)` given, `path_conditionally_init_on_entry(m, q) :- path_maybe_init_on_entry(m, q),
//! cfg_edge(p, q), path_maybe_uninit_on_exit(m, p)` has two atoms with one bound column each;
//! the fixed order took the first in the body, every point where path `m` may be
//! initialised, where `cfg_edge(p, ·)` holds one or two successors. On getopts' liveness
//! analysis, re-inserting 1,000 control-flow edges cost that rule and one like it 172 M
//! probes (2.8 s, against 180 ms for recomputing the whole model).
//!
//! Cost: one probe for each remaining atom's group at each level of the search, against one
//! for the atom a fixed order takes; an empty group ends the search at once. Only rules of
//! 2 to [`MAX_ATOMS`] positive atoms get such a plan (the table holds 2^k · k entries), and a
//! seeded search only when two atoms or more remain after its seed; rules with arithmetic
//! (assignments) keep their fixed orders.

use super::{atom_step, place_ready, AtomStep, PlanOptions, RulePlan, Step, Version};
use crate::program::{Program, Rule, Term};
use crate::storage::Relation;

/// Rules with more positive atoms than this keep their fixed orders only.
pub const MAX_ATOMS: usize = 4;

/// How one body atom is matched once a given set of atoms has been, and what runs after it.
#[derive(Clone, Debug)]
pub struct Choice {
    /// The atom's lookup, membership test or scan under the variables bound so far.
    pub atom: AtomStep,
    /// The comparisons and negations whose variables this atom binds the last of.
    pub then: Vec<Step>,
}

/// The search table of one rule with its head bound, or from one atom's row
/// ([`RulePlan::adaptive`]).
#[derive(Clone, Debug)]
pub struct AdaptiveSearch {
    /// The rule's positive atoms, k.
    pub atoms: usize,
    /// The atom matched before the search, if any: its position among the positive atoms and
    /// how a row binds and checks it (given one row, or each row of its version).
    pub seed: Option<(usize, AtomStep)>,
    /// Comparisons and negations over the variables bound before the first choice (the
    /// head's, or the seed's): run before any atom is chosen.
    pub start: Vec<Step>,
    /// `choices[mask * atoms + a]`: atom `a` after the atoms in bit set `mask` (`None` when
    /// `a` is in `mask`).
    pub choices: Vec<Option<Choice>>,
}

impl AdaptiveSearch {
    /// The atoms matched before the first choice: the seed's, or none.
    #[inline]
    pub fn first_mask(&self) -> usize {
        self.seed.as_ref().map_or(0, |&(s, _)| 1 << s)
    }

    /// How atom `a` is matched after the atoms of `mask`.
    #[inline]
    pub fn choice(&self, mask: usize, a: usize) -> &Choice {
        self.choices[mask * self.atoms + a]
            .as_ref()
            .expect("an atom not matched yet has a choice")
    }
}

/// The head-bound plan of rule `rule_idx` with its order chosen per binding: the planner's
/// fixed order as `steps` (for the hints that read them), and the search table in
/// [`RulePlan::adaptive`]. `None` for a rule of fewer than 2 or more than [`MAX_ATOMS`]
/// positive atoms, where there is no choice to make or the table would be too large.
pub fn plan_rule_adaptive(
    program: &Program,
    rule: &Rule,
    rule_idx: usize,
    options: &PlanOptions,
    relations: &mut [Relation],
) -> Option<RulePlan> {
    let k = rule.positive_atoms().count();
    if !(2..=MAX_ATOMS).contains(&k) || options.seeded || has_assignment(rule) {
        return None;
    }
    let full = vec![Version::Full; k];
    let mut plan = super::plan_body(program, rule, rule_idx, &full, None, options, relations);
    let mut head_bound = vec![false; rule.num_vars()];
    for &v in &options.prebound {
        head_bound[v] = true;
    }
    plan.adaptive = Some(Box::new(search(rule, &full, &head_bound, None, relations)));
    Some(plan)
}

/// The plan of rule `rule_idx` from atom `first`'s row, its positive atoms at
/// `atom_versions`, with the order of the others chosen per binding: the planner's fixed
/// order as `steps` (seeded as `options` says: one given row, or a scan of `first`'s
/// version), and the search table in [`RulePlan::adaptive`] with `first` as its seed.
/// `None` where fewer than two atoms remain after the seed or more than [`MAX_ATOMS`] in
/// all, or with variables bound beforehand.
pub fn plan_seeded_adaptive(
    program: &Program,
    rule_idx: usize,
    atom_versions: &[Version],
    first: usize,
    options: &PlanOptions,
    relations: &mut [Relation],
) -> Option<RulePlan> {
    let rule = &program.rules[rule_idx];
    let k = rule.positive_atoms().count();
    if !(3..=MAX_ATOMS).contains(&k) || !options.prebound.is_empty() || has_assignment(rule) {
        return None;
    }
    let mut plan = super::plan_body(
        program,
        rule,
        rule_idx,
        atom_versions,
        Some(first),
        options,
        relations,
    );
    let unbound = vec![false; rule.num_vars()];
    let s = search(rule, atom_versions, &unbound, Some(first), relations);
    plan.adaptive = Some(Box::new(s));
    Some(plan)
}

/// True when `rule` computes a value ([`crate::program::Literal::Assign`]). Such rules keep
/// their fixed orders: the table's sets of bound variables follow the atoms alone, and an
/// assignment binds one between them.
fn has_assignment(rule: &Rule) -> bool {
    rule.body
        .iter()
        .any(|l| matches!(l, crate::program::Literal::Assign { .. }))
}

/// The search table of `rule` with the variables of `head_bound` bound first, then `seed`'s
/// (whose row binds them), the atoms at `versions`; registers the indexes it needs.
fn search(
    rule: &Rule,
    versions: &[Version],
    head_bound: &[bool],
    seed: Option<usize>,
    relations: &mut [Relation],
) -> AdaptiveSearch {
    let atoms: Vec<_> = rule.positive_atoms().collect();
    let k = atoms.len();
    // Which variables each set of atoms binds (with the head's), and which filters are
    // ready then: readiness only grows with the variables bound, so the filters to run
    // after atom a are those ready with mask + a and not with mask.
    let bound_by = |mask: usize| {
        let mut bound = head_bound.to_vec();
        for (i, atom) in atoms.iter().enumerate() {
            if mask & (1 << i) != 0 {
                for t in &atom.args {
                    if let Term::Var(v) = *t {
                        bound[v] = true;
                    }
                }
            }
        }
        bound
    };
    let positive: Vec<bool> = rule
        .body
        .iter()
        .map(|l| matches!(l, crate::program::Literal::Positive(_)))
        .collect();
    // Only the sets that hold the seed are reached (and only their lookups need indexes).
    let first_mask = seed.map_or(0, |s| 1usize << s);
    let reached = |mask: usize| mask & first_mask == first_mask;
    // Per set of atoms matched, which filters have run by then.
    let mut start = Vec::new();
    let mut ran_by: Vec<Vec<bool>> = Vec::with_capacity(1 << k);
    for mask in 0..1usize << k {
        let mut placed = positive.clone();
        let mut steps = Vec::new();
        place_ready(
            rule,
            &mut bound_by(mask),
            &mut placed,
            &mut steps,
            relations,
        );
        if mask == first_mask {
            start = steps;
        }
        ran_by.push(placed);
    }
    let seed = seed.map(|s| {
        let (step, _) = atom_step(atoms[s], versions[s], head_bound, true, relations);
        (s, step)
    });
    let mut choices = Vec::with_capacity((1 << k) * k);
    for (mask, ran) in ran_by.iter().enumerate() {
        let bound = bound_by(mask);
        for (a, atom) in atoms.iter().enumerate() {
            if mask & (1 << a) != 0 || !reached(mask) {
                choices.push(None);
                continue;
            }
            let (step, _) = atom_step(atom, versions[a], &bound, false, relations);
            // The filters newly ready, planned over the variables bound once `a` is.
            let mut placed = ran.clone();
            let mut then = Vec::new();
            place_ready(
                rule,
                &mut bound_by(mask | (1 << a)),
                &mut placed,
                &mut then,
                relations,
            );
            choices.push(Some(Choice { atom: step, then }));
        }
    }
    AdaptiveSearch {
        atoms: k,
        seed,
        start,
        choices,
    }
}
