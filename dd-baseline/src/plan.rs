//! Logical plans: how each checked rule becomes a chain of dataflow steps, decided before any
//! timely type is involved.
//!
//! A rule `H :- A1, ..., An, !N1, ..., !Nm, C1, ..., Ck` (positive atoms `A`, negated atoms `N`,
//! comparisons `C`) is planned as
//!
//! 1. **start**: one positive atom read as its *bindings* (the values of its distinct variables,
//!    in order of first occurrence, after its constants and repeated variables are checked), or
//!    the first two positive atoms joined through two shared arrangements;
//! 2. **joins**: every further positive atom, joined on the variables it shares with what is
//!    already bound. The order follows the body, except that the next atom is always one sharing
//!    the most variables with the atoms before it, so that a cross product is only planned when
//!    the rule itself is one;
//! 3. **comparisons**: each checked inside the first step after which all its variables are bound;
//!    a comparison of two constants is decided here, and a false one removes the rule;
//! 4. **assignments** (arithmetic, [`Literal::Assign`]): after all joins, each computes its
//!    variable's value from the row (or, for a variable an atom bound, drops the row unless it
//!    is equal), in body order, then the comparisons that read a computed variable
//!    ([`Post`]); a variable only an assignment binds is never a join key, so an atom that
//!    shares no other variable with the atoms before it is joined as a cross product;
//! 5. **negations**: each `!N` an antijoin with `N`'s bindings, after all joins;
//! 6. **head**: a projection onto the head's terms.
//!
//! After each step only the variables still needed (by later atoms, comparisons, negations or the
//! head) are kept.
//!
//! Atoms are read through [`ArrSpec`]s: a relation, an access [`Pattern`] and the key columns.
//! Two atoms with the same relation, pattern and key — in one rule or in different rules — name
//! the same spec, and the compiler builds one arrangement for it (arrange once, reuse across
//! rules).

use std::collections::BTreeSet;
use std::fmt;

use dred_core::program::{Atom, Expr, Literal, Term, VarId};
use dred_core::syntax::ast::CmpOp;
use dred_core::{Program, RelId, Value};

use crate::row::{holds, Codes, CodesExhausted, Record};
use dred_core::plan::compare;

/// How one column of an atom is matched.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Pat {
    /// The column must hold this value.
    Const(Value),
    /// The column binds (or, when seen before in the atom, must equal) the atom's variable with
    /// this index in its binding order.
    Var(usize),
    /// `_`: anything.
    Wild,
}

/// How an atom reads its relation: per column a [`Pat`]. The atom's *bindings* are the values of
/// its distinct variables in order of first occurrence.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Pattern {
    /// The relation read.
    pub rel: RelId,
    /// One entry per column.
    pub cols: Vec<Pat>,
    /// Number of distinct variables, the length of a binding row.
    pub width: usize,
}

impl Pattern {
    /// The pattern of `atom`, and the rule variables its binding positions stand for.
    pub fn of(atom: &Atom) -> (Pattern, Vec<VarId>) {
        let mut vars: Vec<VarId> = Vec::new();
        let cols = atom
            .args
            .iter()
            .map(|t| match *t {
                Term::Const(c) => Pat::Const(c),
                Term::Wildcard => Pat::Wild,
                Term::Var(v) => Pat::Var(match vars.iter().position(|&w| w == v) {
                    Some(i) => i,
                    None => {
                        vars.push(v);
                        vars.len() - 1
                    }
                }),
            })
            .collect();
        let width = vars.len();
        (
            Pattern {
                rel: atom.rel,
                cols,
                width,
            },
            vars,
        )
    }

    /// True when the bindings are the tuple itself (distinct variables, no constants, no `_`).
    pub fn is_identity(&self) -> bool {
        self.cols.iter().enumerate().all(|(i, p)| *p == Pat::Var(i))
    }

    /// True when some column is `_`: then distinct tuples can give equal bindings.
    pub fn has_wildcard(&self) -> bool {
        self.cols.contains(&Pat::Wild)
    }

    /// The bindings of `tuple`, or `None` when a constant or a repeated variable does not match.
    #[inline]
    pub fn bind<R: Record>(&self, tuple: &R) -> Option<R> {
        let mut out: smallvec::SmallVec<[Value; 4]> = smallvec::SmallVec::new();
        for (j, p) in self.cols.iter().enumerate() {
            let v = tuple.word(j);
            match *p {
                Pat::Const(c) if c != v => return None,
                Pat::Var(i) if i == out.len() => out.push(v),
                Pat::Var(i) if out[i] != v => return None,
                _ => {}
            }
        }
        Some(R::from_words(out))
    }

    /// The pattern as an atom over its binding positions: `edge(v0, 7, _)`.
    pub fn describe(&self, program: &Program) -> String {
        let args: Vec<String> = self.cols.iter().map(ToString::to_string).collect();
        format!("{}({})", program.relations[self.rel].name, args.join(", "))
    }
}

impl fmt::Display for Pat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Pat::Const(c) => write!(f, "{c}"),
            Pat::Var(i) => write!(f, "v{i}"),
            Pat::Wild => f.write_str("_"),
        }
    }
}

/// A shared arrangement: the bindings of a pattern, keyed by some binding positions (in key
/// order), with the other positions (ascending) as the value.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ArrSpec {
    /// Whose bindings.
    pub pattern: Pattern,
    /// Binding positions forming the key, in key order.
    pub key: Vec<usize>,
}

impl ArrSpec {
    /// Binding positions forming the value: those not in the key, ascending.
    pub fn val(&self) -> Vec<usize> {
        (0..self.pattern.width)
            .filter(|p| !self.key.contains(p))
            .collect()
    }

    /// A binding row as `(key, value)`.
    #[inline]
    pub fn split<R: Record>(&self, bindings: &R, val: &[usize]) -> (R, R) {
        (gather(bindings, &self.key), gather(bindings, val))
    }

    /// The spec as text for operator names: `edge(v0, v1) by [v1]`.
    pub fn describe(&self, program: &Program) -> String {
        let key: Vec<String> = self.key.iter().map(|k| format!("v{k}")).collect();
        format!("{} by [{}]", self.pattern.describe(program), key.join(", "))
    }
}

/// The words of `row` at `positions`, in that order.
#[inline]
pub fn gather<R: Record>(row: &R, positions: &[usize]) -> R {
    R::from_words(positions.iter().map(|&p| row.word(p)))
}

/// Where a value of a join step comes from: the join key, the left value or the right value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Src {
    /// Position in the key.
    Key(usize),
    /// Position in the left side's value.
    Left(usize),
    /// Position in the right side's value.
    Right(usize),
}

/// An operand of a comparison or a head term.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Operand {
    /// A bound value.
    Slot(Src),
    /// A constant.
    Const(Value),
}

impl Operand {
    #[inline]
    fn get<R: Record>(self, key: &R, left: &R, right: &R) -> Value {
        match self {
            Operand::Const(c) => c,
            Operand::Slot(Src::Key(i)) => key.word(i),
            Operand::Slot(Src::Left(i)) => left.word(i),
            Operand::Slot(Src::Right(i)) => right.word(i),
        }
    }
}

/// A comparison checked inside a step.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Filter {
    /// Left operand.
    pub left: Operand,
    /// Operator.
    pub op: CmpOp,
    /// Right operand.
    pub right: Operand,
}

/// What one step emits per match: comparisons to pass, then the output row.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StepLogic {
    /// Comparisons that must hold.
    pub filters: Vec<Filter>,
    /// The output row, value by value.
    pub output: Vec<Operand>,
}

impl StepLogic {
    /// The output row for one match of `key`, `left` and `right`, if every filter holds
    /// (`codes`: the table the records' words come from, for order comparisons).
    #[inline]
    pub fn apply<R: Record>(&self, key: &R, left: &R, right: &R, codes: &Codes) -> Option<R> {
        for f in &self.filters {
            let (l, r) = (f.left.get(key, left, right), f.right.get(key, left, right));
            if !holds::<R>(l, f.op, r, codes) {
                return None;
            }
        }
        Some(self.project(key, left, right))
    }

    /// The output row for one match, without checking the filters.
    #[inline]
    pub fn project<R: Record>(&self, key: &R, left: &R, right: &R) -> R {
        R::from_words(self.output.iter().map(|o| o.get(key, left, right)))
    }

    /// True when the step passes a `width`-value left row through unchanged.
    pub fn is_identity(&self, width: usize) -> bool {
        self.filters.is_empty()
            && self.output.len() == width
            && self
                .output
                .iter()
                .enumerate()
                .all(|(i, o)| *o == Operand::Slot(Src::Left(i)))
    }
}

/// How a rule's pipeline starts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Start {
    /// A single positive atom: its bindings, through `logic` (over `Src::Left`).
    Scan {
        /// The atom.
        pattern: Pattern,
        /// Filters and projection.
        logic: StepLogic,
    },
    /// The first two positive atoms, joined through their shared arrangements.
    Join {
        /// The first atom, keyed by the shared variables.
        left: ArrSpec,
        /// The second atom, keyed by the same variables in the same order.
        right: ArrSpec,
        /// Filters and output per match.
        logic: StepLogic,
    },
}

/// A further positive atom joined to the rule's current bindings.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JoinStep {
    /// Positions of the current row forming the key (matching `right.key`).
    pub key: Vec<usize>,
    /// Positions of the current row carried as the left value.
    pub val: Vec<usize>,
    /// The atom's shared arrangement.
    pub right: ArrSpec,
    /// Filters and output per match.
    pub logic: StepLogic,
}

/// A negated atom: rows whose values at `key` are bindings of `pattern` are dropped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NegStep {
    /// Positions of the current row, in the pattern's binding order.
    pub key: Vec<usize>,
    /// The negated atom.
    pub pattern: Pattern,
}

/// One assignment of [`Post`]: a value computed from the row.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PostAssign {
    /// The value, its variables the positions of the row (as built so far) they are at.
    pub expr: Expr,
    /// `Some(p)`: the variable is at position p already, and the row is kept only when it
    /// equals the value; `None`: the value is appended to the row.
    pub check: Option<usize>,
}

/// What runs on each row after the joins: assignments in order, then comparisons over the
/// row they extend (positions in it). Rows are general rows here ([`crate::engine`] runs
/// programs with arithmetic on values, not codes: a computed value cannot be given a code in
/// stream order).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Post {
    /// The assignments, in body order.
    pub assigns: Vec<PostAssign>,
    /// The comparisons that read a computed variable.
    pub filters: Vec<(usize, CmpOp, Operand)>,
}

impl Post {
    /// True when there is nothing to run.
    pub fn is_empty(&self) -> bool {
        self.assigns.is_empty() && self.filters.is_empty()
    }

    /// The row extended by the assignments' values, if every check and comparison holds and
    /// every value exists (none for a division by zero).
    pub fn apply<R: Record>(&self, row: &R, width: usize) -> Option<R> {
        let mut words: Vec<Value> = (0..width).map(|i| row.word(i)).collect();
        for a in &self.assigns {
            let v = a.expr.eval(&|p| words[p])?;
            match a.check {
                Some(p) if words[p] != v => return None,
                Some(_) => {}
                None => words.push(v),
            }
        }
        for &(l, op, r) in &self.filters {
            let r = match r {
                Operand::Const(c) => c,
                Operand::Slot(Src::Left(p)) => words[p],
                Operand::Slot(_) => unreachable!("post filters read the row"),
            };
            if !compare(words[l], op, r) {
                return None;
            }
        }
        Some(R::from_words(words))
    }
}

/// The plan of one rule.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RulePlan {
    /// Index in [`Program::rules`].
    pub rule: usize,
    /// The rule as written, for operator names.
    pub text: String,
    /// The derived relation.
    pub head_rel: RelId,
    /// The first step.
    pub start: Start,
    /// Further joins, in order.
    pub joins: Vec<JoinStep>,
    /// Assignments and the comparisons over their values, after all joins.
    pub post: Post,
    /// Width of the row after the joins (before [`RulePlan::post`] extends it).
    pub joined_width: usize,
    /// Antijoins, after the assignments.
    pub negations: Vec<NegStep>,
    /// The head tuple, over the final row (`Src::Left`) and constants.
    pub head: Vec<Operand>,
}

impl RulePlan {
    /// Every shared arrangement the plan reads.
    pub fn arrangements(&self) -> impl Iterator<Item = &ArrSpec> {
        let start = match &self.start {
            Start::Join { left, right, .. } => vec![left, right],
            Start::Scan { .. } => Vec::new(),
        };
        start.into_iter().chain(self.joins.iter().map(|j| &j.right))
    }
}

/// Plans per stratum, in [`Program::strata`] order; each stratum's rules in its order.
#[derive(Clone, Debug, Default)]
pub struct ProgramPlan {
    /// `strata[s]`: the plans of the rules of stratum `s` (rules that can never fire are left
    /// out).
    pub strata: Vec<Vec<RulePlan>>,
}

impl ProgramPlan {
    /// Plans every rule of `program`.
    pub fn new(program: &Program) -> Self {
        ProgramPlan {
            strata: program
                .strata
                .iter()
                .map(|s| {
                    s.rules
                        .iter()
                        .filter_map(|&r| plan_rule(program, r))
                        .collect()
                })
                .collect(),
        }
    }
}

impl ProgramPlan {
    /// The most words any record of the dataflow holds: a tuple of any relation, or a row
    /// some step builds (bindings, keys and values are never wider than these).
    pub fn max_record_width(&self, program: &Program) -> usize {
        let arity = program.relations.iter().map(|r| r.arity()).max();
        let steps = self.strata.iter().flatten().flat_map(|plan| {
            let start = match &plan.start {
                Start::Scan { logic, .. } | Start::Join { logic, .. } => logic.output.len(),
            };
            let joins = plan.joins.iter().map(|j| j.logic.output.len());
            std::iter::once(start).chain(joins)
        });
        arity.into_iter().chain(steps).max().unwrap_or(0)
    }

    /// The plan with every constant replaced by its code in `codes`, for a dataflow of
    /// encoded records. Constants are encoded in plan order, so every process gives them the
    /// same codes.
    pub fn encoded(&self, codes: &Codes) -> Result<ProgramPlan, CodesExhausted> {
        assert!(
            self.strata.iter().flatten().all(|r| r.post.is_empty()),
            "programs with arithmetic run on values, never on codes"
        );
        let mut plan = self.clone();
        let code = |v: &mut Value| -> Result<(), CodesExhausted> {
            *v = codes.encode(*v)?;
            Ok(())
        };
        for rule in plan.strata.iter_mut().flatten() {
            let mut patterns: Vec<&mut Pattern> = Vec::new();
            let mut logics: Vec<&mut StepLogic> = Vec::new();
            match &mut rule.start {
                Start::Scan { pattern, logic } => {
                    patterns.push(pattern);
                    logics.push(logic);
                }
                Start::Join { left, right, logic } => {
                    patterns.push(&mut left.pattern);
                    patterns.push(&mut right.pattern);
                    logics.push(logic);
                }
            }
            for step in &mut rule.joins {
                patterns.push(&mut step.right.pattern);
                logics.push(&mut step.logic);
            }
            for neg in &mut rule.negations {
                patterns.push(&mut neg.pattern);
            }
            for pattern in patterns {
                for col in &mut pattern.cols {
                    if let Pat::Const(c) = col {
                        code(c)?;
                    }
                }
            }
            let filters = logics.into_iter().flat_map(|l| {
                let StepLogic { filters, output } = l;
                filters
                    .iter_mut()
                    .flat_map(|f| [&mut f.left, &mut f.right])
                    .chain(output.iter_mut())
            });
            for operand in filters.chain(rule.head.iter_mut()) {
                if let Operand::Const(c) = operand {
                    code(c)?;
                }
            }
        }
        Ok(plan)
    }
}

/// A comparison over rule variables.
#[derive(Clone, Copy, Debug)]
struct VarCmp {
    left: Term,
    op: CmpOp,
    right: Term,
}

impl VarCmp {
    fn vars(&self) -> impl Iterator<Item = VarId> {
        [self.left, self.right].into_iter().filter_map(|t| match t {
            Term::Var(v) => Some(v),
            _ => None,
        })
    }
}

/// The plan of rule `r`, or `None` when a comparison between constants is false (it never fires).
pub fn plan_rule(program: &Program, r: usize) -> Option<RulePlan> {
    let rule = &program.rules[r];
    let positives: Vec<(Pattern, Vec<VarId>)> = rule.positive_atoms().map(Pattern::of).collect();
    let negatives: Vec<(Pattern, Vec<VarId>)> = rule
        .body
        .iter()
        .filter_map(|l| match l {
            Literal::Negative(a) => Some(Pattern::of(a)),
            _ => None,
        })
        .collect();
    // Variables the atoms bind; the others are bound by assignments, after the joins.
    let atom_bound: BTreeSet<VarId> = positives
        .iter()
        .flat_map(|(_, vs)| vs.iter().copied())
        .collect();
    let assigns: Vec<(VarId, &Expr)> = rule
        .body
        .iter()
        .filter_map(|l| match l {
            Literal::Assign { var, expr } => Some((*var, expr)),
            _ => None,
        })
        .collect();
    let mut comparisons = Vec::new();
    let mut late = Vec::new();
    for lit in &rule.body {
        if let Literal::Compare { left, op, right } = *lit {
            match (left, right) {
                (Term::Const(l), Term::Const(r)) => {
                    if !compare(l, op, r) {
                        return None;
                    }
                }
                _ => {
                    let c = VarCmp { left, op, right };
                    if c.vars().all(|v| atom_bound.contains(&v)) {
                        comparisons.push(c);
                    } else {
                        late.push(c);
                    }
                }
            }
        }
    }
    // What the assignments and late comparisons read from the joined row.
    let mut post_reads: BTreeSet<VarId> = BTreeSet::new();
    for (var, expr) in &assigns {
        post_reads.insert(*var);
        expr.for_each_var(&mut |v| {
            post_reads.insert(v);
        });
    }
    for c in &late {
        post_reads.extend(c.vars());
    }
    post_reads.retain(|v| atom_bound.contains(v));

    // Join order: body order, but always an atom sharing the most bound variables next.
    let mut order = vec![0];
    let mut bound: BTreeSet<VarId> = positives[0].1.iter().copied().collect();
    let mut remaining: Vec<usize> = (1..positives.len()).collect();
    while !remaining.is_empty() {
        let (pick, _) = remaining
            .iter()
            .enumerate()
            .map(|(i, &a)| {
                let shared = positives[a].1.iter().filter(|v| bound.contains(v)).count();
                (i, shared)
            })
            .fold((0, 0), |best, cur| if cur.1 > best.1 { cur } else { best });
        let a = remaining.remove(pick);
        bound.extend(positives[a].1.iter().copied());
        order.push(a);
    }

    // The step at which each comparison is checked: the first after which its variables are
    // bound; the start covers the first two atoms when it is a join.
    let n = order.len();
    let mut bound_after: Vec<BTreeSet<VarId>> = Vec::with_capacity(n);
    let mut acc = BTreeSet::new();
    for &a in &order {
        acc.extend(positives[a].1.iter().copied());
        bound_after.push(acc.clone());
    }
    let cmp_step: Vec<usize> = comparisons
        .iter()
        .map(|c| {
            let s = (0..n)
                .find(|&s| c.vars().all(|v| bound_after[s].contains(&v)))
                .unwrap_or(n - 1);
            if n >= 2 {
                s.max(1)
            } else {
                s
            }
        })
        .collect();
    let head_vars: BTreeSet<VarId> = rule.head_vars().collect();
    let neg_vars: BTreeSet<VarId> = negatives
        .iter()
        .flat_map(|(_, vs)| vs.iter().copied())
        .collect();
    let needed_after = |s: usize| -> BTreeSet<VarId> {
        let mut need: BTreeSet<VarId> = head_vars.union(&neg_vars).copied().collect();
        need.extend(post_reads.iter().copied());
        for &a in &order[s + 1..] {
            need.extend(positives[a].1.iter().copied());
        }
        for (c, &cs) in comparisons.iter().zip(&cmp_step) {
            if cs > s {
                need.extend(c.vars());
            }
        }
        need
    };
    let filters_at = |s: usize, src: &dyn Fn(VarId) -> Src| -> Vec<Filter> {
        let operand = |t: Term| match t {
            Term::Var(v) => Operand::Slot(src(v)),
            Term::Const(c) => Operand::Const(c),
            Term::Wildcard => unreachable!("the checker refuses `_` in comparisons"),
        };
        comparisons
            .iter()
            .zip(&cmp_step)
            .filter(|(_, &cs)| cs == s)
            .map(|(c, _)| Filter {
                left: operand(c.left),
                op: c.op,
                right: operand(c.right),
            })
            .collect()
    };

    let (first_pattern, first_vars) = &positives[order[0]];
    let (start, mut layout, next) = if n == 1 {
        let need = needed_after(0);
        let src = |v: VarId| {
            Src::Left(
                first_vars
                    .iter()
                    .position(|&w| w == v)
                    .expect("the atom binds it"),
            )
        };
        let kept: Vec<VarId> = first_vars
            .iter()
            .copied()
            .filter(|v| need.contains(v))
            .collect();
        let logic = StepLogic {
            filters: filters_at(0, &src),
            output: kept.iter().map(|&v| Operand::Slot(src(v))).collect(),
        };
        let start = Start::Scan {
            pattern: first_pattern.clone(),
            logic,
        };
        (start, kept, 1)
    } else {
        let (second_pattern, second_vars) = &positives[order[1]];
        let step = join_shape(first_vars, second_vars);
        let need = needed_after(1);
        let src = |v: VarId| step.src(v);
        let (output, kept) = step.output(&need);
        let start = Start::Join {
            left: ArrSpec {
                pattern: first_pattern.clone(),
                key: step.left_key.clone(),
            },
            right: ArrSpec {
                pattern: second_pattern.clone(),
                key: step.right_key.clone(),
            },
            logic: StepLogic {
                filters: filters_at(1, &src),
                output,
            },
        };
        (start, kept, 2)
    };

    let mut joins = Vec::new();
    for (s, &a) in order.iter().enumerate().skip(next) {
        let (pattern, vars) = &positives[a];
        let step = join_shape(&layout, vars);
        let need = needed_after(s);
        let src = |v: VarId| step.src(v);
        let (output, kept) = step.output(&need);
        joins.push(JoinStep {
            key: step.left_key.clone(),
            val: step.left_val_pos.clone(),
            right: ArrSpec {
                pattern: pattern.clone(),
                key: step.right_key.clone(),
            },
            logic: StepLogic {
                filters: filters_at(s, &src),
                output,
            },
        });
        layout = kept;
    }

    let joined_width = layout.len();
    let mut post = Post::default();
    for (var, expr) in assigns {
        let mut at = expr.clone();
        remap(&mut at, &layout);
        let check = layout.iter().position(|&w| w == var);
        if check.is_none() {
            layout.push(var);
        }
        post.assigns.push(PostAssign { expr: at, check });
    }
    for c in &late {
        let pos = |t: Term| match t {
            Term::Var(v) => Operand::Slot(Src::Left(
                layout
                    .iter()
                    .position(|&w| w == v)
                    .expect("bound by an atom or an assignment"),
            )),
            Term::Const(k) => Operand::Const(k),
            Term::Wildcard => unreachable!("the checker refuses `_` in comparisons"),
        };
        // Written with the left side a position: `c < x` is `x > c`.
        let (l, op, r) = match pos(c.left) {
            Operand::Slot(Src::Left(p)) => (p, c.op, pos(c.right)),
            left => {
                let Operand::Slot(Src::Left(p)) = pos(c.right) else {
                    unreachable!("a comparison of two constants is decided when planned")
                };
                (p, mirror(c.op), left)
            }
        };
        post.filters.push((l, op, r));
    }
    let position = |v: VarId| {
        layout
            .iter()
            .position(|&w| w == v)
            .expect("needed variables are kept to the end")
    };
    let negations = negatives
        .into_iter()
        .map(|(pattern, vars)| NegStep {
            key: vars.iter().map(|&v| position(v)).collect(),
            pattern,
        })
        .collect();
    let head = rule
        .head
        .args
        .iter()
        .map(|t| match *t {
            Term::Var(v) => Operand::Slot(Src::Left(position(v))),
            Term::Const(c) => Operand::Const(c),
            Term::Wildcard => unreachable!("the checker refuses `_` in heads"),
        })
        .collect();
    Some(RulePlan {
        rule: r,
        text: program.rule_text(r).to_string(),
        head_rel: rule.head.rel,
        start,
        joins,
        post,
        joined_width,
        negations,
        head,
    })
}

/// `expr` with each variable replaced by its position in `layout`.
fn remap(expr: &mut Expr, layout: &[VarId]) {
    match expr {
        Expr::Term(Term::Var(v)) => {
            *v = layout
                .iter()
                .position(|w| w == v)
                .expect("an assignment's variables are bound before it");
        }
        Expr::Term(_) => {}
        Expr::Op(..) | Expr::Typed(..) | Expr::Str(..) | Expr::Record(..) => expr
            .operands_mut()
            .iter_mut()
            .for_each(|a| remap(a, layout)),
    }
}

/// The operator with its sides swapped: `a op b` is `b mirror(op) a`.
fn mirror(op: CmpOp) -> CmpOp {
    match op {
        CmpOp::Lt => CmpOp::Gt,
        CmpOp::Le => CmpOp::Ge,
        CmpOp::Gt => CmpOp::Lt,
        CmpOp::Ge => CmpOp::Le,
        same => same,
    }
}

/// The shape of a join between a left row (variables `left`) and an atom (variables `right`).
struct JoinShape {
    /// Shared variables, in the atom's order: the key.
    key_vars: Vec<VarId>,
    left_key: Vec<usize>,
    right_key: Vec<usize>,
    left_val_pos: Vec<usize>,
    left_val: Vec<VarId>,
    right_val: Vec<VarId>,
}

fn join_shape(left: &[VarId], right: &[VarId]) -> JoinShape {
    let mut key_vars = Vec::new();
    let mut left_key = Vec::new();
    let mut right_key = Vec::new();
    for (rp, &v) in right.iter().enumerate() {
        if let Some(lp) = left.iter().position(|&w| w == v) {
            key_vars.push(v);
            left_key.push(lp);
            right_key.push(rp);
        }
    }
    let left_val_pos: Vec<usize> = (0..left.len()).filter(|p| !left_key.contains(p)).collect();
    let left_val = left_val_pos.iter().map(|&p| left[p]).collect();
    let right_val = right
        .iter()
        .copied()
        .filter(|v| !key_vars.contains(v))
        .collect();
    JoinShape {
        key_vars,
        left_key,
        right_key,
        left_val_pos,
        left_val,
        right_val,
    }
}

impl JoinShape {
    fn src(&self, v: VarId) -> Src {
        if let Some(i) = self.key_vars.iter().position(|&w| w == v) {
            Src::Key(i)
        } else if let Some(i) = self.left_val.iter().position(|&w| w == v) {
            Src::Left(i)
        } else if let Some(i) = self.right_val.iter().position(|&w| w == v) {
            Src::Right(i)
        } else {
            unreachable!("comparisons and outputs only name variables bound by this step")
        }
    }

    /// The output operands keeping the needed variables, and the new row's variables.
    fn output(&self, need: &BTreeSet<VarId>) -> (Vec<Operand>, Vec<VarId>) {
        let kept: Vec<VarId> = self
            .key_vars
            .iter()
            .chain(&self.left_val)
            .chain(&self.right_val)
            .copied()
            .filter(|v| need.contains(v))
            .collect();
        (
            kept.iter().map(|&v| Operand::Slot(self.src(v))).collect(),
            kept,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::row::row;
    use dred_core::{load_program, SourceFile, Symbols};

    fn plans(src: &str) -> (Program, ProgramPlan) {
        let p = load_program(&SourceFile::new("t.dl", src), &mut Symbols::new()).expect("checks");
        let plan = ProgramPlan::new(&p);
        (p, plan)
    }

    #[test]
    fn linear_tc_joins_on_the_shared_variable() {
        let (p, plan) = plans(
            ".decl e(x: number, y: number)\n.decl t(x: number, y: number)\n.input e\n\
             t(x, y) :- e(x, y).\nt(x, z) :- t(x, y), e(y, z).\n",
        );
        let s = p.stratum_of[1].expect("t");
        let rec = &plan.strata[s][1];
        let Start::Join { left, right, logic } = &rec.start else {
            panic!("two atoms start with a join")
        };
        // t(x, y) keyed by y, e(y, z) keyed by y; output (x, z).
        assert_eq!(left.key, vec![1]);
        assert_eq!(right.key, vec![0]);
        assert_eq!(
            logic.output,
            vec![Operand::Slot(Src::Left(0)), Operand::Slot(Src::Right(0))]
        );
        assert!(rec.joins.is_empty());
    }

    #[test]
    fn patterns_check_constants_and_repeats() {
        let (pat, vars) = Pattern::of(&Atom {
            rel: 0,
            args: vec![Term::Var(3), Term::Const(7), Term::Var(3), Term::Wildcard],
        });
        assert_eq!(vars, vec![3]);
        assert_eq!(pat.bind(&row(&[1, 7, 1, 9])).as_deref(), Some(&[1][..]));
        assert_eq!(pat.bind(&row(&[1, 7, 2, 9])), None);
        assert_eq!(pat.bind(&row(&[1, 8, 1, 9])), None);
        let fixed: [u32; 4] = [1, 7, 1, 9];
        assert_eq!(pat.bind(&fixed), Some([1, 0, 0, 0]));
        assert!(pat.has_wildcard() && !pat.is_identity());
    }

    #[test]
    fn false_constant_comparison_drops_the_rule() {
        let (_, plan) =
            plans(".decl e(x: number)\n.decl t(x: number)\n.input e\nt(x) :- e(x), 1 > 2.\n");
        assert!(plan.strata.iter().all(Vec::is_empty));
    }

    #[test]
    fn comparisons_wait_for_their_variables() {
        let (_, plan) = plans(
            ".decl e(x: number, y: number)\n.decl t(x: number, y: number)\n.input e\n\
             t(x, w) :- e(x, y), e(y, z), e(z, w), x < w.\n",
        );
        let r = &plan.strata[0][0];
        let Start::Join { logic, .. } = &r.start else {
            panic!("join")
        };
        assert!(logic.filters.is_empty());
        assert_eq!(r.joins.len(), 1);
        assert_eq!(r.joins[0].logic.filters.len(), 1);
    }
}
