//! The executor of head-bound searches ordered per binding ([`AdaptiveSearch`], planned by
//! [`crate::plan::plan_rule_adaptive`]).
//!
//! What it guarantees: the same instances as any fixed order of the rule with the head bound
//! (each once), in an order fixed by the data — at each level the remaining atom with the
//! smallest index group under the current binding goes next (a membership test first, ties
//! to the earlier atom in the body), its rows by ascending id. Work: one probe per group
//! looked up to choose (whether walked or not), per membership test and per negation; one
//! row touched per stored row visited and per membership test passed, as elsewhere.

use super::{fill_key, Matcher};
use crate::plan::{compare, AdaptiveSearch, Step};
use crate::storage::{RowId, RowRange};
use crate::value::Value;

/// The atom chosen at one level of the search and how it is matched.
enum Pick<'r> {
    /// A membership test (every column bound).
    Test(usize),
    /// A walk of this index group, rows below the bound visible.
    Walk(usize, &'r [RowId], RowId),
    /// A scan of these rows (no column bound).
    Scan(usize, RowRange),
}

impl<'a> Matcher<'a> {
    /// Every instance of search `s` with the head's variables set in `vars`, given to `emit`
    /// until it returns false; returns false once stopped.
    pub(super) fn adaptive<F: FnMut(&[Value]) -> bool>(
        &self,
        s: &AdaptiveSearch,
        vars: &mut [Value],
        emit: &mut F,
    ) -> bool {
        !self.filters_hold(&s.start, vars) || self.adaptive_from(s, s.first_mask(), vars, emit)
    }

    /// Every instance of seeded search `s` whose seed atom is `row` (counted as one row
    /// touched, as a fixed seeded plan counts it), given to `emit` until it returns false;
    /// returns false once stopped.
    pub(super) fn adaptive_seeded<F: FnMut(&[Value]) -> bool>(
        &self,
        s: &AdaptiveSearch,
        row: &[Value],
        vars: &mut [Value],
        emit: &mut F,
    ) -> bool {
        let Some((_, seed)) = &s.seed else {
            unreachable!("a seeded search has a seed (checked when planned)")
        };
        self.work.touch(1);
        for &(c, v) in &seed.binds {
            vars[v] = row[c];
        }
        !seed.checks.iter().all(|&(c, op)| row[c] == op.get(vars)) || self.adaptive(s, vars, emit)
    }

    /// Every instance of seeded search `s` over each visible row of its seed atom's version
    /// (a semi-naive plan's delta), given to `emit` until it returns false; returns false
    /// once stopped.
    pub(super) fn adaptive_scan<F: FnMut(&[Value]) -> bool>(
        &self,
        s: &AdaptiveSearch,
        vars: &mut [Value],
        emit: &mut F,
    ) -> bool {
        let Some((_, seed)) = &s.seed else {
            unreachable!("a seeded search has a seed (checked when planned)")
        };
        let relation = &self.relations[seed.rel];
        let range = self.versions[seed.rel].range(seed.version);
        let check_live = relation.has_dead();
        let mut visited = 0;
        let mut go_on = true;
        for r in range.lo..range.hi {
            visited += 1;
            if check_live && !relation.is_live(r) {
                continue;
            }
            let row = relation.row(r);
            for &(c, v) in &seed.binds {
                vars[v] = row[c];
            }
            if seed.checks.iter().all(|&(c, op)| row[c] == op.get(vars))
                && !self.adaptive(s, vars, emit)
            {
                go_on = false;
                break;
            }
        }
        self.work.touch(visited);
        go_on
    }

    /// The search after the atoms of bit set `mask` are matched.
    fn adaptive_from<F: FnMut(&[Value]) -> bool>(
        &self,
        s: &AdaptiveSearch,
        mask: usize,
        vars: &mut [Value],
        emit: &mut F,
    ) -> bool {
        let full = (1usize << s.atoms) - 1;
        if mask == full {
            return emit(vars);
        }
        let mut pick: Option<(usize, Pick<'a>)> = None;
        for a in 0..s.atoms {
            if mask & (1 << a) != 0 {
                continue;
            }
            let step = &s.choice(mask, a).atom;
            let range = self.versions[step.rel].range(step.version);
            if range.is_empty() {
                return true; // no row of this atom is visible: no instance
            }
            if step.membership {
                pick = Some((0, Pick::Test(a)));
                break;
            }
            let (cost, this) = match step.index {
                Some(ix) => {
                    let rows = self.visible_group(&self.relations[step.rel], step, ix, range, vars);
                    if rows.first().is_none_or(|&r| r >= range.hi) {
                        return true; // an empty group: no instance
                    }
                    (rows.len(), Pick::Walk(a, rows, range.hi))
                }
                None => ((range.hi - range.lo) as usize, Pick::Scan(a, range)),
            };
            if pick.as_ref().is_none_or(|&(best, _)| cost < best) {
                pick = Some((cost, this));
            }
        }
        let Some((_, pick)) = pick else {
            unreachable!("an atom remains when the mask is not full")
        };
        match pick {
            Pick::Test(a) => {
                let choice = s.choice(mask, a);
                let step = &choice.atom;
                let relation = &self.relations[step.rel];
                let range = self.versions[step.rel].range(step.version);
                let mut buf = [0; 8];
                let key = fill_key(&step.key, vars, &mut buf);
                self.work.probe(1);
                match relation.find_row(&key) {
                    Some(r) if r >= range.lo && r < range.hi && relation.is_live(r) => {
                        self.work.touch(1);
                        !self.filters_hold(&choice.then, vars)
                            || self.adaptive_from(s, mask | (1 << a), vars, emit)
                    }
                    _ => true,
                }
            }
            Pick::Walk(a, rows, hi) => {
                let mut visited = 0;
                let go_on = self.adaptive_rows(
                    s,
                    mask,
                    a,
                    rows.iter().copied(),
                    hi,
                    &mut visited,
                    vars,
                    emit,
                );
                self.work.touch(visited);
                go_on
            }
            Pick::Scan(a, range) => {
                let mut visited = 0;
                let go_on = self.adaptive_rows(
                    s,
                    mask,
                    a,
                    range.lo..range.hi,
                    range.hi,
                    &mut visited,
                    vars,
                    emit,
                );
                self.work.touch(visited);
                go_on
            }
        }
    }

    /// Atom `a` (after `mask`) matched against each live row of `rows` below `hi`: binds its
    /// variables, checks its columns, runs the filters it makes ready and the search below.
    /// Counts the rows visited in `visited`.
    #[allow(clippy::too_many_arguments)]
    fn adaptive_rows<F: FnMut(&[Value]) -> bool>(
        &self,
        s: &AdaptiveSearch,
        mask: usize,
        a: usize,
        rows: impl Iterator<Item = RowId>,
        hi: RowId,
        visited: &mut u64,
        vars: &mut [Value],
        emit: &mut F,
    ) -> bool {
        let choice = s.choice(mask, a);
        let step = &choice.atom;
        let relation = &self.relations[step.rel];
        let check_live = relation.has_dead();
        for r in rows {
            if r >= hi {
                break;
            }
            *visited += 1;
            if check_live && !relation.is_live(r) {
                continue;
            }
            let row = relation.row(r);
            // Bind first: a check may compare with a variable bound in this atom.
            for &(c, v) in &step.binds {
                vars[v] = row[c];
            }
            if !step.checks.iter().all(|&(c, op)| row[c] == op.get(vars))
                || !self.filters_hold(&choice.then, vars)
            {
                continue;
            }
            if !self.adaptive_from(s, mask | (1 << a), vars, emit) {
                return false;
            }
        }
        true
    }

    /// True when every comparison and negation of `steps` holds under `vars`.
    fn filters_hold(&self, steps: &[Step], vars: &[Value]) -> bool {
        steps.iter().all(|step| match step {
            Step::Compare(l, op, r) => compare(l.get(vars), *op, r.get(vars)),
            Step::Absent { rel, index, key } => self.absent(*rel, *index, key, vars),
            Step::Atom(_) => unreachable!("filters are comparisons and negations"),
            Step::Assign { .. } => unreachable!("rules with assignments have no adaptive plan"),
        })
    }
}
