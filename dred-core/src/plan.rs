//! Join plans: for each rule and each semi-naive delta position, the order in which body
//! literals are matched, which index each atom is probed through, and which columns bind or
//! check variables. Planned once per program; evaluation only follows the plan.
//!
//! Order: the delta atom first (it is the smallest input in a semi-naive round), then
//! greedily fully bound atoms, then the atom with most bound columns, ties to lower strata
//! and then source order. Comparisons, negated
//! atoms and assignments run as soon as all their variables are bound (an assignment's: its
//! expression's), so that a variable an assignment binds is a lookup key of the atoms after
//! it.

mod adaptive;

pub use adaptive::{
    plan_rule_adaptive, plan_seeded_adaptive, AdaptiveSearch, Choice,
    MAX_ATOMS as MAX_ADAPTIVE_ATOMS,
};

use crate::program::{Atom, Expr, Literal, Program, RelId, Rule, Term, VarId};
use crate::storage::{IndexId, Relation};
use crate::syntax::ast::CmpOp;
use crate::value::Value;

/// Which semi-naive version of a relation an atom reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Version {
    /// Rows known before the current round.
    Old,
    /// Rows new in the previous round.
    Delta,
    /// Old and delta rows together (everything before the current round).
    Full,
}

/// A value known when a step runs: a constant or an already bound variable.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Operand {
    /// A constant.
    Const(Value),
    /// A bound variable.
    Var(VarId),
}

impl Operand {
    #[inline]
    pub(crate) fn get(self, vars: &[Value]) -> Value {
        match self {
            Operand::Const(c) => c,
            Operand::Var(v) => vars[v],
        }
    }
}

/// How one positive atom is matched.
#[derive(Clone, Debug)]
pub struct AtomStep {
    /// The relation.
    pub rel: RelId,
    /// Which rows are visible.
    pub version: Version,
    /// Probe through this index with `key`; `None` scans the visible rows, unless
    /// `membership` is set.
    pub index: Option<IndexId>,
    /// Every column is bound: `key` is the whole row and one lookup in the relation's row set
    /// decides the atom (no index group to walk, no row to read back).
    pub membership: bool,
    /// Key values, in the index's column order.
    pub key: Vec<Operand>,
    /// Columns that must equal a known value (used when scanning, and for a variable repeated
    /// within the atom).
    pub checks: Vec<(usize, Operand)>,
    /// Columns that bind a variable for the first time.
    pub binds: Vec<(usize, VarId)>,
    /// When this atom walks an index group and the next step is a membership test: how that
    /// test's key is made from a row of the group, so that the matcher can start loading the
    /// tests of rows ahead and their cache misses overlap. Empty otherwise.
    pub next_membership: Vec<KeyPart>,
}

/// One value of a key made ahead of time from a row not visited yet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeyPart {
    /// A value known before the atom runs (a constant or an earlier variable).
    Known(Operand),
    /// Column `c` of the row.
    Column(usize),
}

/// One step of a plan.
#[derive(Clone, Debug)]
pub enum Step {
    /// Match a positive atom.
    Atom(AtomStep),
    /// Keep the binding when the comparison holds.
    Compare(Operand, CmpOp, Operand),
    /// Bind `var` to the value of `expr`, or with `check` (`var` bound before) keep the
    /// binding when they are equal; where `expr` has no value (a division by zero) there is
    /// no instance.
    Assign {
        /// The variable bound or checked.
        var: VarId,
        /// Its value, over variables bound before this step.
        expr: Expr,
        /// `var` is bound already: compare instead of binding.
        check: bool,
    },
    /// Keep the binding when no row of `rel` (a lower stratum, complete) matches.
    Absent {
        /// The negated relation.
        rel: RelId,
        /// Index on the bound columns, or `None` when every column is bound (set lookup).
        index: Option<IndexId>,
        /// The bound values: the whole row when `index` is `None`, else the index key.
        key: Vec<Operand>,
    },
}

/// A complete plan for one rule and one choice of delta atom.
#[derive(Clone, Debug)]
pub struct RulePlan {
    /// Index of the rule in [`Program::rules`].
    pub rule: usize,
    /// Steps in execution order.
    pub steps: Vec<Step>,
    /// The head relation.
    pub head_rel: RelId,
    /// The head's values.
    pub head: Vec<Operand>,
    /// Number of variables of the rule.
    pub num_vars: usize,
    /// For a seeded plan, the step of the atom that is given one row instead of scanned.
    pub seed_step: Option<usize>,
    /// The plan's first lookup, its key made from the row a run starts from (the seed row of
    /// a seeded plan, the head's values of a plan with the head bound), when every key value
    /// comes from that row or is a constant: callers running the plan on many rows start
    /// loading what the lookups of rows ahead will read.
    pub first_lookup: Option<FirstLookup>,
    /// A seeded plan of two steps: the seed atom (step 0), then one atom walked through an
    /// index on values the seed bound, with nothing after it — the delta rules of linear
    /// recursion (`path(x, z) :- path(x, y), edge(y, z)` seeded at either atom, `reach(x)
    /// :- edge(x, y), reach(y)` seeded at `reach`). [`crate::exec::Matcher::for_each_seeded`]
    /// runs such a plan in one loop instead of stepping through it.
    pub seeded_walk: bool,
    /// The first step walks an index group and the second is a membership test fed by it
    /// ([`AtomStep::next_membership`]), with no seed among them — the searches of
    /// rederivation with the head bound, `reach(x) :- edge(x, y), reach(y)` with `x` given.
    /// [`crate::exec::Matcher::exists`] starts such a plan at the walk.
    pub starts_with_walk_test: bool,
    /// A head-bound plan whose order is chosen per binding ([`plan_rule_adaptive`]):
    /// [`crate::exec::Matcher::exists`] and [`crate::exec::Matcher::for_each_bound`] follow
    /// this table instead of `steps` (which keep the planner's fixed order, for hints).
    pub adaptive: Option<Box<AdaptiveSearch>>,
}

/// See [`RulePlan::first_lookup`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FirstLookup {
    /// The relation looked up.
    pub rel: RelId,
    /// The index probed, or `None` for a membership test (the key is the whole row).
    pub index: Option<IndexId>,
    /// The key's values in the index's column order (at most 8).
    pub key: Vec<StartValue>,
}

/// One value of a [`FirstLookup`]'s key.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StartValue {
    /// A constant of the rule.
    Const(Value),
    /// Column `c` of the row the run starts from.
    Column(usize),
}

/// The first lookup of `steps` and its key from the starting row: for a seeded plan the
/// seed atom (step `seed_step`) binds variables from it; otherwise `head` does (the
/// prebound head variables at their first position in the head).
fn first_lookup(steps: &[Step], seed_step: Option<usize>, head: &[Term]) -> Option<FirstLookup> {
    let mut from_row: Vec<(VarId, usize)> = Vec::new();
    let mut atoms = steps.iter().enumerate().filter_map(|(i, s)| match s {
        Step::Atom(a) => Some((i, a)),
        _ => None,
    });
    let (_, first) = match seed_step {
        Some(seed) => {
            let (i, a) = atoms.next()?;
            if i != seed {
                return None;
            }
            from_row.extend(a.binds.iter().map(|&(c, v)| (v, c)));
            atoms.next()?
        }
        None => {
            for (c, t) in head.iter().enumerate() {
                if let Term::Var(v) = *t {
                    if !from_row.iter().any(|&(w, _)| w == v) {
                        from_row.push((v, c));
                    }
                }
            }
            atoms.next()?
        }
    };
    if first.key.len() > 8 || (first.index.is_none() && !first.membership) {
        return None;
    }
    let key = first
        .key
        .iter()
        .map(|op| match *op {
            Operand::Const(c) => Some(StartValue::Const(c)),
            Operand::Var(v) => from_row
                .iter()
                .find(|&&(w, _)| w == v)
                .map(|&(_, c)| StartValue::Column(c)),
        })
        .collect::<Option<Vec<_>>>()?;
    Some(FirstLookup {
        rel: first.rel,
        index: first.index,
        key,
    })
}

/// Fills [`AtomStep::next_membership`] for every indexed atom directly followed by a
/// membership test: each value of the test's key is a column this atom binds or a value
/// known before it.
fn link_membership_tests(steps: &mut [Step]) {
    for i in 1..steps.len() {
        let (before, after) = steps.split_at_mut(i);
        let (Step::Atom(walk), Step::Atom(test)) = (&mut before[i - 1], &after[0]) else {
            continue;
        };
        // Keys of more than 8 values are rare and built on the heap: not worth it there.
        if walk.index.is_none() || !test.membership || test.key.len() > 8 {
            continue;
        }
        walk.next_membership = test
            .key
            .iter()
            .map(|&op| match op {
                Operand::Var(v) => match walk.binds.iter().find(|&&(_, b)| b == v) {
                    Some(&(c, _)) => KeyPart::Column(c),
                    None => KeyPart::Known(op),
                },
                Operand::Const(_) => KeyPart::Known(op),
            })
            .collect();
    }
}

/// Evaluates a comparison of two words by the operator; symbols reach here only with `=` and
/// `!=`, which the checker guarantees.
#[inline]
pub fn compare(l: Value, op: CmpOp, r: Value) -> bool {
    match op {
        CmpOp::Eq => l == r,
        CmpOp::Ne => l != r,
        CmpOp::Lt => l < r,
        CmpOp::Le => l <= r,
        CmpOp::Gt => l > r,
        CmpOp::Ge => l >= r,
    }
}

fn operand(t: Term, bound: &[bool]) -> Option<Operand> {
    match t {
        Term::Const(c) => Some(Operand::Const(c)),
        Term::Var(v) if bound[v] => Some(Operand::Var(v)),
        _ => None,
    }
}

/// Plans `rule` with every positive atom at position `atom_versions[i]` (one entry per positive
/// atom, in source order); `first` is the positive-atom position to start from (the delta
/// atom), if any. Registers the indexes it needs on `relations`.
pub fn plan_rule(
    program: &Program,
    rule_idx: usize,
    atom_versions: &[Version],
    first: Option<usize>,
    relations: &mut [Relation],
) -> RulePlan {
    plan_rule_with(
        program,
        rule_idx,
        atom_versions,
        first,
        &PlanOptions::default(),
        relations,
    )
}

/// Variations on a plan used by incremental maintenance.
#[derive(Clone, Debug, Default)]
pub struct PlanOptions {
    /// The `first` atom will be given exactly one row (a fact of a frontier), not scanned:
    /// its constants and repeated variables become checks, and the plan records its step in
    /// [`RulePlan::seed_step`].
    pub seeded: bool,
    /// Variables bound before the first step (the head's, when looking for a proof of a
    /// given fact); the caller sets their values.
    pub prebound: Vec<VarId>,
}

/// [`plan_rule`] with [`PlanOptions`].
pub fn plan_rule_with(
    program: &Program,
    rule_idx: usize,
    atom_versions: &[Version],
    first: Option<usize>,
    options: &PlanOptions,
    relations: &mut [Relation],
) -> RulePlan {
    plan_body(
        program,
        &program.rules[rule_idx],
        rule_idx,
        atom_versions,
        first,
        options,
        relations,
    )
}

/// A plan of `rule` (index `rule_idx`) given one fact of its negated body literal `literal`
/// (an index into the rule's body): the instances whose negated atom that fact matches — with
/// constants and repeated variables checked, wildcards matching anything — and whose other
/// literals hold over every visible row. The negated atom itself is still checked absent, so
/// the plan finds the instances that the fact's *absence* makes true. DRed runs it with the
/// facts a lower level added (phase 1: instances that held before and no longer do) and
/// removed (phase 3: instances that hold now and did not). [`RulePlan::seed_step`] is the
/// step that takes the fact; `seeded_walk` and `first_lookup` are as for any seeded plan.
pub fn plan_negation_seeded(
    program: &Program,
    rule_idx: usize,
    literal: usize,
    relations: &mut [Relation],
) -> RulePlan {
    let rule = &program.rules[rule_idx];
    let Literal::Negative(atom) = &rule.body[literal] else {
        panic!("body literal {literal} of rule {rule_idx} is not negated")
    };
    // The negated atom as a positive atom placed first, to be given the fact; the rest of the
    // body (the negation included) as written.
    let mut seeded = rule.clone();
    seeded.body.insert(0, Literal::Positive(atom.clone()));
    let n = seeded.positive_atoms().count();
    let options = PlanOptions {
        seeded: true,
        prebound: Vec::new(),
    };
    plan_body(
        program,
        &seeded,
        rule_idx,
        &vec![Version::Full; n],
        Some(0),
        &options,
        relations,
    )
}

/// Places every comparison, negated atom and assignment of `rule` not placed yet
/// (`placed_other`) whose variables are all `bound`, as steps appended to `steps`: they run
/// as soon as they can. An assignment's variable is then `bound`, which may make more
/// ready, so the body is passed over again until nothing more is placed (once for a rule
/// without assignments).
fn place_ready(
    rule: &Rule,
    bound: &mut [bool],
    placed_other: &mut [bool],
    steps: &mut Vec<Step>,
    relations: &mut [Relation],
) {
    let mut again = true;
    while again {
        again = false;
        place_ready_once(rule, bound, placed_other, steps, relations, &mut again);
    }
}

/// One pass of [`place_ready`]; sets `again` when it binds a variable.
fn place_ready_once(
    rule: &Rule,
    bound: &mut [bool],
    placed_other: &mut [bool],
    steps: &mut Vec<Step>,
    relations: &mut [Relation],
    again: &mut bool,
) {
    for (i, lit) in rule.body.iter().enumerate() {
        if placed_other[i] {
            continue;
        }
        match lit {
            Literal::Assign { var, expr } => {
                if expr.ready(bound) {
                    steps.push(Step::Assign {
                        var: *var,
                        expr: expr.clone(),
                        check: bound[*var],
                    });
                    placed_other[i] = true;
                    *again |= !bound[*var];
                    bound[*var] = true;
                } else if bound[*var] {
                    // `var` given (a head checked for a proof) and the expression's one
                    // unknown solvable: computed, it keys the atom that would otherwise be
                    // scanned; the assignment stays and checks once it is ready.
                    if let Some((x, value)) = expr.solve(Expr::Term(Term::Var(*var)), bound) {
                        steps.push(Step::Assign {
                            var: x,
                            expr: value,
                            check: false,
                        });
                        bound[x] = true;
                        *again = true;
                    }
                }
            }
            Literal::Compare { left, op, right } => {
                if let (Some(l), Some(r)) = (operand(*left, bound), operand(*right, bound)) {
                    steps.push(Step::Compare(l, *op, r));
                    placed_other[i] = true;
                }
            }
            Literal::Negative(a) => {
                let ready = a.args.iter().all(|t| match t {
                    Term::Var(v) => bound[*v],
                    _ => true,
                });
                if ready {
                    let all_bound = a.args.iter().all(|t| !matches!(t, Term::Wildcard));
                    let (index, key) = if all_bound {
                        let key = a
                            .args
                            .iter()
                            .map(|t| operand(*t, bound).expect("bound"))
                            .collect();
                        (None, key)
                    } else {
                        let cols: Vec<usize> = (0..a.args.len())
                            .filter(|&c| !matches!(a.args[c], Term::Wildcard))
                            .collect();
                        let key = cols
                            .iter()
                            .map(|&c| operand(a.args[c], bound).expect("bound"))
                            .collect();
                        (Some(relations[a.rel].ensure_index(&cols)), key)
                    };
                    steps.push(Step::Absent {
                        rel: a.rel,
                        index,
                        key,
                    });
                    placed_other[i] = true;
                }
            }
            Literal::Positive(_) => {}
        }
    }
}

/// How positive atom `atom` is matched when the variables `bound` are known: probed through
/// an index on its bound columns (registered on `relations`), a membership test when every
/// column is bound, or scanned when `scan` or nothing is bound. Returns the step and the
/// variables bound after it.
fn atom_step(
    atom: &Atom,
    version: Version,
    bound: &[bool],
    scan: bool,
    relations: &mut [Relation],
) -> (AtomStep, Vec<bool>) {
    let mut key_cols = Vec::new();
    let mut key = Vec::new();
    let mut checks = Vec::new();
    let mut binds = Vec::new();
    let mut bound_here = bound.to_vec();
    for (c, t) in atom.args.iter().enumerate() {
        match operand(*t, bound) {
            Some(op) => {
                key_cols.push(c);
                key.push(op);
            }
            None => {
                if let Term::Var(v) = t {
                    if bound_here[*v] {
                        checks.push((c, Operand::Var(*v)));
                    } else {
                        bound_here[*v] = true;
                        binds.push((c, *v));
                    }
                }
            }
        }
    }
    let scan = scan || key_cols.is_empty();
    let membership = !scan && key_cols.len() == atom.args.len() && checks.is_empty();
    let index = if scan {
        for (c, op) in key_cols.iter().zip(&key) {
            checks.push((*c, *op));
        }
        key.clear();
        None
    } else if membership {
        None
    } else {
        Some(relations[atom.rel].ensure_index(&key_cols))
    };
    let step = AtomStep {
        rel: atom.rel,
        version,
        index,
        membership,
        key,
        checks,
        binds,
        next_membership: Vec::new(),
    };
    (step, bound_here)
}

fn plan_body(
    program: &Program,
    rule: &Rule,
    rule_idx: usize,
    atom_versions: &[Version],
    first: Option<usize>,
    options: &PlanOptions,
    relations: &mut [Relation],
) -> RulePlan {
    let atoms: Vec<&Atom> = rule.positive_atoms().collect();
    assert_eq!(atoms.len(), atom_versions.len());
    assert!(
        !options.seeded || first.is_some(),
        "a seeded plan names its atom"
    );
    let mut bound = vec![false; rule.num_vars()];
    for &v in &options.prebound {
        bound[v] = true;
    }
    let mut seed_step = None;
    let mut placed_atoms = vec![false; atoms.len()];
    let mut placed_other: Vec<bool> = rule
        .body
        .iter()
        .map(|l| matches!(l, Literal::Positive(_)))
        .collect();
    let mut steps = Vec::new();

    place_ready(rule, &mut bound, &mut placed_other, &mut steps, relations);

    for n in 0..atoms.len() {
        let pick = if let (0, Some(first)) = (n, first) {
            first
        } else {
            // Fully bound atoms first (membership tests), then most bound columns; ties go
            // to relations of lower strata — EDB and lower strata are usually far smaller
            // than the recursive relation being derived — then to source order. Existence
            // checks with the head bound (rederivation) break ties the other way: there the
            // facts checked are mostly those DRed over-deleted, whose bound values sit on
            // hubs — `path(x, z)` with z a common ancestor, where `edge(y, z)` lists every
            // child of z while `path(x, y)` lists only the ancestors of x. Measured with
            // `benches/phases.rs` on linear TC: rederivation 3.0× faster on GO MF, 1.4× on
            // GO BP, unchanged on WordNet. `dred` also plans the other orders and learns
            // which is cheapest (`maintain::order_stats::OrderStats`); this one is
            // where it starts.
            let head_stratum = program.stratum_of[rule.head.rel];
            let prefer_recursive = !options.prebound.is_empty();
            (0..atoms.len())
                .filter(|&i| !placed_atoms[i])
                .max_by_key(|&i| {
                    let b = atoms[i]
                        .args
                        .iter()
                        .filter(|t| operand(**t, &bound).is_some())
                        .count();
                    let all = b == atoms[i].args.len();
                    let lower =
                        (program.stratum_of[atoms[i].rel] != head_stratum) != prefer_recursive;
                    (all, b, lower, std::cmp::Reverse(i))
                })
                .expect("an unplaced atom remains")
        };
        placed_atoms[pick] = true;
        let atom = atoms[pick];
        let version = atom_versions[pick];
        // The delta atom is scanned: a delta is small, and an index would have to cover
        // rows of every version. Other atoms are probed on their bound columns.
        let seeded_here = n == 0 && options.seeded;
        if seeded_here {
            seed_step = Some(steps.len());
        }
        let scan = version == Version::Delta || seeded_here;
        let (step, bound_here) = atom_step(atom, version, &bound, scan, relations);
        steps.push(Step::Atom(step));
        bound = bound_here;
        place_ready(rule, &mut bound, &mut placed_other, &mut steps, relations);
    }
    debug_assert!(
        placed_other.iter().all(|&p| p),
        "range restriction guarantees placement"
    );
    link_membership_tests(&mut steps);
    let head = rule
        .head
        .args
        .iter()
        .map(|t| operand(*t, &bound).expect("range-restricted head"))
        .collect();
    let first_lookup = first_lookup(&steps, seed_step, &rule.head.args);
    let seeded_walk = seed_step == Some(0)
        && matches!(steps.as_slice(),
            [Step::Atom(_), Step::Atom(walk)] if walk.index.is_some() && !walk.membership);
    let starts_with_walk_test = seed_step.is_none()
        && matches!(steps.as_slice(),
            [Step::Atom(walk), Step::Atom(_), ..]
                if walk.index.is_some() && !walk.membership && !walk.next_membership.is_empty());
    RulePlan {
        rule: rule_idx,
        steps,
        head_rel: rule.head.rel,
        head,
        num_vars: rule.num_vars(),
        seed_step,
        first_lookup,
        seeded_walk,
        starts_with_walk_test,
        adaptive: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{load_program, SourceFile, Symbols};

    /// An assignment runs as soon as its expression's variables are bound, so that the
    /// variable it binds is the lookup key of the atom after it rather than a check after a
    /// scan; with that variable bound beforehand (the head given), it checks instead.
    #[test]
    fn assignments_run_before_the_atoms_they_key() {
        let src = ".decl e(x: number, y: number)\n.decl next(x: number, z: number)\n.input e\n\
                   next(x, z) :- e(x, _), k = x + 1, e(k, z).\n\
                   next(x, y + 1) :- e(x, y).\n";
        let mut symbols = Symbols::new();
        let program = load_program(&SourceFile::new("p.dl", src), &mut symbols).expect("program");
        let mut relations: Vec<Relation> = program
            .relations
            .iter()
            .map(|r| Relation::new(r.arity()))
            .collect();
        let full = [Version::Full, Version::Full];
        let plan = plan_rule(&program, 0, &full, None, &mut relations);
        let k = program.rules[0]
            .var_names
            .iter()
            .position(|n| n == "k")
            .expect("k");
        let by_col0 = relations[0].ensure_index(&[0]);
        let [Step::Atom(scan), Step::Assign { var, check, .. }, Step::Atom(walk)] =
            plan.steps.as_slice()
        else {
            panic!("scan, assignment, lookup: {:?}", plan.steps)
        };
        assert!(scan.index.is_none() && !scan.membership);
        assert_eq!((*var, *check), (k, false));
        assert_eq!(walk.index, Some(by_col0));
        assert_eq!(walk.key, vec![Operand::Var(k)]);
        // next(x, $e0) with the head bound: y is solved from $e0 = y + 1 (y = $e0 - 1), the
        // assignment checks $e0 at once, and e(x, y) is a membership test.
        let head_bound = PlanOptions {
            seeded: false,
            prebound: program.rules[1].head_vars().collect(),
        };
        let plan = plan_rule_with(
            &program,
            1,
            &[Version::Full],
            None,
            &head_bound,
            &mut relations,
        );
        let y = program.rules[1]
            .var_names
            .iter()
            .position(|n| n == "y")
            .expect("y");
        let [Step::Assign {
            var, check: false, ..
        }, Step::Assign { check: true, .. }, Step::Atom(test)] = plan.steps.as_slice()
        else {
            panic!("solve, check, membership test: {:?}", plan.steps)
        };
        assert_eq!(*var, y);
        assert!(test.membership);
    }

    /// `solve` inverts the one-to-one integer operators along the path to the one unbound
    /// variable, and gives up on anything else: two unknowns, an unknown twice, `*`, floats.
    #[test]
    fn solve_inverts_one_to_one_integer_operators() {
        use crate::syntax::ast::{ArithOp, Type};
        let (x, y, v) = (0, 1, 2);
        let var = |i| Expr::Term(Term::Var(i));
        let num = |c| Expr::Term(Term::Const(c));
        let op = |o, args| Expr::Op(o, args);
        let bound = [false, true, true];
        let values = [7, -3, 0];
        // v = -(y - (x bxor 5)) + 2 for x = 7, y = -3.
        let e = op(
            ArithOp::Add,
            vec![
                op(
                    ArithOp::Neg,
                    vec![op(
                        ArithOp::Sub,
                        vec![var(y), op(ArithOp::BXor, vec![var(x), num(5)])],
                    )],
                ),
                num(2),
            ],
        );
        let at = |vals: [Value; 3]| move |i: VarId| vals[i];
        let given = e.eval(&at(values)).expect("a value");
        let (solved, inverse) = e.solve(var(v), &bound).expect("solvable");
        assert_eq!(solved, x);
        assert_eq!(inverse.eval(&at([0, -3, given])), Some(7));
        // Wrapping: x + 1 = i64::MIN solves to i64::MAX.
        let plus_one = op(ArithOp::Add, vec![var(x), num(1)]);
        let (_, inverse) = plus_one.solve(var(v), &bound).expect("solvable");
        assert_eq!(inverse.eval(&at([0, 0, Value::MIN])), Some(Value::MAX));
        // Unsigned: 3 - x.
        let u = Expr::Typed(Type::Unsigned, ArithOp::Sub, vec![num(3), var(x)]);
        assert!(u.solve(var(v), &bound).is_some());
        // Not solvable.
        for e in [
            op(ArithOp::Add, vec![var(x), var(x)]),
            op(ArithOp::Mul, vec![var(x), num(3)]),
            op(ArithOp::Add, vec![var(x), Expr::Term(Term::Var(3))]),
            Expr::Typed(Type::Float, ArithOp::Add, vec![var(x), num(1)]),
            var(y),
        ] {
            assert!(
                e.solve(var(v), &[false, true, true, false]).is_none(),
                "{e:?}"
            );
        }
    }

    /// A plan's first lookup takes its key from the row a run starts from: the seed row's
    /// columns through the seed atom's variables, the head's positions for a plan with the
    /// head bound, and the rule's constants; a plan with no lookup after its start has none.
    #[test]
    fn first_lookup_keys_come_from_the_starting_row() {
        let src = ".decl edge(x: symbol, y: symbol)\n.decl path(x: symbol, y: symbol)\n\
                   .decl far(x: symbol)\n.input edge\n\
                   path(x, y) :- edge(x, y).\n\
                   path(x, z) :- path(x, y), edge(y, z).\n\
                   far(x) :- path(x, y), edge(y, \"a\").\n";
        let mut symbols = Symbols::new();
        let program = load_program(&SourceFile::new("p.dl", src), &mut symbols).expect("program");
        let edge = program.relation_id("edge").expect("edge");
        let mut relations: Vec<Relation> = program
            .relations
            .iter()
            .map(|r| Relation::new(r.arity()))
            .collect();
        let full = [Version::Full, Version::Full];
        let seeded = PlanOptions {
            seeded: true,
            prebound: Vec::new(),
        };
        let head_bound = |rule: usize| PlanOptions {
            seeded: false,
            prebound: program.rules[rule].head_vars().collect(),
        };
        let by_col0 = relations[edge].ensure_index(&[0]);
        let by_col1 = relations[edge].ensure_index(&[1]);
        let a = symbols.intern("a");

        // path(x, z) :- path(x, y)*, edge(y, z): y is the seed's column 1.
        let plan = plan_rule_with(&program, 1, &full, Some(0), &seeded, &mut relations);
        let want = FirstLookup {
            rel: edge,
            index: Some(by_col0),
            key: vec![StartValue::Column(1)],
        };
        assert_eq!(plan.first_lookup, Some(want));
        // The same rule with (x, z) bound, from edge(y, z): z is the head's position 1.
        let plan = plan_rule_with(&program, 1, &full, Some(1), &head_bound(1), &mut relations);
        let want = FirstLookup {
            rel: edge,
            index: Some(by_col1),
            key: vec![StartValue::Column(1)],
        };
        assert_eq!(plan.first_lookup, Some(want));
        // far(x) :- path(x, y)*, edge(y, "a"): a membership test of the seed's y and "a".
        let plan = plan_rule_with(&program, 2, &full, Some(0), &seeded, &mut relations);
        let want = FirstLookup {
            rel: edge,
            index: None,
            key: vec![StartValue::Column(1), StartValue::Const(a)],
        };
        assert_eq!(plan.first_lookup, Some(want));
        // path(x, y) :- edge(x, y)*: nothing after the seed.
        let plan = plan_rule_with(
            &program,
            0,
            &[Version::Full],
            Some(0),
            &seeded,
            &mut relations,
        );
        assert_eq!(plan.first_lookup, None);
        // A semi-naive plan scans its delta first: no lookup to start from.
        let delta = [Version::Delta, Version::Full];
        let plan = plan_rule(&program, 1, &delta, Some(0), &mut relations);
        assert_eq!(plan.first_lookup, None);
    }
}
