//! From a checked [`Program`] (planned by [`crate::plan`]) to one timely dataflow per worker.
//!
//! The dataflow, in the outer scope whose timestamp is the batch number:
//!
//! - one input collection per `.input` relation, and one constant input holding the program's
//!   facts (fed at time 0, then closed);
//! - per stratum, in dependency order, one iterative scope (`u64` round counter, so recursion
//!   deeper than 2^16 rounds is fine). Its recursive relations are [`Variable`]s; every relation of
//!   the stratum is `distinct(facts ∪ rules)` *inside* the loop, so the loop converges and set
//!   semantics hold. A non-recursive stratum uses the same code path and converges in one round;
//! - every atom that takes part in a join is read through a shared arrangement ([`ArrSpec`]):
//!   arrangements of lower strata are built once in the outer scope and entered into every loop
//!   that reads them; arrangements of a stratum's own relations are built once inside its loop and
//!   used by all its rules (a rule with a single positive atom just maps over the relation);
//! - the read-back: every derived relation, tagged with its id, consolidated (leaving a loop
//!   merges all rounds into one outer time, so updates and their cancellations both arrive),
//!   inspected into a per-worker buffer (the batch's net change), and arranged where it arrived
//!   (`Dataflow::model`): that arrangement is the engine's model, read on demand by
//!   `read_model` — the engine keeps no other copy of it — and probed.
//!
//! - an aggregate relation's stratum (the checker rewrites every aggregate into one, see
//!   [`dred_core::program::AggregateDef`]) is no loop but one `reduce` of its input, a lower
//!   relation, keyed by the group columns: the number of rows, or the sum, minimum or maximum
//!   of the target column over the group's distinct values weighed by their multiplicities.
//!   Aggregate programs run on general rows, whose words are the values (`crate::engine`).
//!
//! Pitfalls this module guards against: `antijoin` needs a right side of multiplicities 0/1
//! (negated bindings with `_` columns are made distinct); `distinct` must be inside the loop; every
//! input must be advanced and flushed by every worker each batch (the engine does that).

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;
use std::sync::Arc;

use differential_dataflow::collection::concatenate;
use differential_dataflow::input::{Input, InputSession};
use differential_dataflow::operators::arrange::arrangement::arrange_core;
use differential_dataflow::operators::arrange::{Arranged, TraceAgent};
use differential_dataflow::operators::iterate::{Variable, VecVariable};
use differential_dataflow::trace::implementations::ValSpine;
use differential_dataflow::trace::wrappers::enter::TraceEnter;
use differential_dataflow::Hashable;
use differential_dataflow::{AsCollection, VecCollection};
use dred_core::program::Stratum;
use dred_core::syntax::ast::{AggFunc, Type};
use dred_core::{Program, RelId, Value};
use timely::dataflow::channels::pact::Exchange;
use timely::dataflow::channels::pact::Pipeline;
use timely::dataflow::operators::probe::Handle as ProbeHandle;
use timely::dataflow::operators::Exchange as _;
use timely::dataflow::Scope;
use timely::order::Product;
use timely::worker::Worker;

use crate::plan::{gather, ArrSpec, Pattern, ProgramPlan, RulePlan, Start, StepLogic};
use crate::row::{Codes, Diff, Record, Time};

/// Timestamp inside a stratum's loop: (batch, round).
type Iter = Product<Time, u64>;
type OuterColl<'s, R> = VecCollection<'s, Time, R, Diff>;
type InnerColl<'s, R> = VecCollection<'s, Iter, R, Diff>;
type Spine<R, T> = ValSpine<R, R, T, Diff>;
type OuterArr<'s, R> = Arranged<'s, TraceAgent<Spine<R, Time>>>;
type LocalArr<'s, R> = Arranged<'s, TraceAgent<Spine<R, Iter>>>;
type EnteredArr<'s, R> = Arranged<'s, TraceEnter<TraceAgent<Spine<R, Time>>, Iter>>;

/// An arrangement usable inside a loop: built there, or built outside and entered.
enum InnerArr<'s, R: Record> {
    Local(LocalArr<'s, R>),
    Entered(EnteredArr<'s, R>),
}

impl<R: Record> Clone for InnerArr<'_, R> {
    fn clone(&self) -> Self {
        match self {
            InnerArr::Local(a) => InnerArr::Local(a.clone()),
            InnerArr::Entered(a) => InnerArr::Entered(a.clone()),
        }
    }
}

/// How results reach the engine that drives this process's workers.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Gather {
    /// Processes in the cluster.
    pub processes: usize,
    /// Worker threads per process.
    pub threads: usize,
}

/// What a worker keeps to drive its copy of the dataflow, whose records are `R`s.
pub(crate) struct Dataflow<R: Record> {
    /// Per relation id: the input of an `.input` relation, `None` for derived relations.
    pub inputs: Vec<Option<InputSession<Time, R, Diff>>>,
    /// The program's facts as `(relation, tuple)`; dropped (closed) after time 0.
    pub facts: Option<InputSession<Time, (RelId, R), Diff>>,
    /// Passes a time once every derived relation is final for it on every worker.
    pub probe: ProbeHandle<Time>,
    /// Net changes of derived relations seen by this worker since last taken.
    pub changes: Rc<RefCell<Vec<(RelId, R, Diff)>>>,
    /// The derived facts this worker saw, arranged: read by [`read_model`].
    pub model: ModelTrace<R>,
}

type ModelBatcher<R> =
    differential_dataflow::trace::implementations::KeyBatcher<(RelId, R), Time, Diff>;
type ModelSpine<R> =
    differential_dataflow::trace::implementations::KeySpine<(RelId, R), Time, Diff>;
/// The trace of the derived facts one worker holds.
pub(crate) type ModelTrace<R> = TraceAgent<ModelSpine<R>>;

/// The derived facts in this worker's share of the model, as of every time completed so far
/// (call once the probe has passed the last time fed); lets the trace compact what is before.
pub(crate) fn read_model<R: Record>(trace: &mut ModelTrace<R>) -> Vec<(RelId, R)> {
    use differential_dataflow::trace::cursor::{cursor_list, Cursor};
    use differential_dataflow::trace::TraceReader;
    use timely::progress::Antichain;
    let mut upper = Antichain::new();
    trace.read_upper(&mut upper);
    let Some(batches) = trace.batches_through(upper.borrow()) else {
        return Vec::new();
    };
    let (mut cursor, storage) = cursor_list(batches);
    let mut facts = Vec::new();
    for ((fact, ()), times) in cursor.to_vec(&storage, |k| k.clone(), |_| ()) {
        if times.iter().map(|(_, d)| d).sum::<Diff>() > 0 {
            facts.push(fact);
        }
    }
    facts
}

/// Lets the model's trace forget the distinctions between times before `frontier` (every
/// time before it is complete): without this its history would grow with every batch.
pub(crate) fn compact_model<R: Record>(trace: &mut ModelTrace<R>, frontier: Time) {
    use differential_dataflow::trace::TraceReader;
    use timely::progress::frontier::AntichainRef;
    trace.set_logical_compaction(AntichainRef::new(&[frontier]));
    trace.set_physical_compaction(AntichainRef::new(&[frontier]));
}

/// Builds the program's dataflow on `worker`, over records `R`; `plan` holds the constants as
/// `R`'s words, and `codes` is the table its words come from.
pub(crate) fn build<R: Record>(
    worker: &mut Worker,
    program: &Program,
    plan: &ProgramPlan,
    gather_to: Gather,
    codes: &Arc<Codes>,
) -> Dataflow<R> {
    let local = worker.index() % gather_to.threads.max(1);
    let probe = ProbeHandle::new();
    let changes = Rc::new(RefCell::new(Vec::new()));
    let sink = changes.clone();
    let (inputs, facts, model) = worker.dataflow::<Time, _, _>(|scope| {
        let n = program.relations.len();
        let mut inputs: Vec<Option<InputSession<Time, R, Diff>>> = (0..n).map(|_| None).collect();
        let mut rels: Vec<Option<OuterColl<'_, R>>> = (0..n).map(|_| None).collect();
        for (rel, decl) in program.relations.iter().enumerate() {
            if decl.input {
                let (handle, coll) = scope.new_collection::<R, Diff>();
                inputs[rel] = Some(handle);
                rels[rel] = Some(coll);
            }
        }
        let (facts_in, facts) = scope.new_collection::<(RelId, R), Diff>();
        let mut outer = Outer {
            program,
            codes: codes.clone(),
            scope,
            rels,
            arrs: HashMap::new(),
            negs: HashMap::new(),
            facts,
        };
        for (stratum, plans) in program.strata.iter().zip(&plan.strata) {
            outer.stratum(stratum, plans);
        }

        // Read-back: every derived relation, net change per batch.
        let derived: Vec<VecCollection<'_, Time, (RelId, R), Diff>> = (0..n)
            .filter(|&rel| program.is_idb(rel))
            .map(|rel| outer.rel(rel).map(move |row| (rel, row)))
            .collect();
        let all = concatenate(scope, derived);
        let model = if gather_to.processes > 1 {
            // Every process gets the whole change: consolidated where the fact hashes to,
            // then a copy to the worker with this worker's local index in each process, which
            // arranges it where it arrived, so that the workers of every process together
            // hold the whole model.
            let (processes, threads) = (gather_to.processes, gather_to.threads);
            let mine = all
                .consolidate()
                .flat_map(move |x| (0..processes).map(move |p| (p, x.clone())))
                .inner
                .exchange(move |((p, _), _, _)| (p * threads + local) as u64)
                .as_collection()
                .map(|(_, fact)| (fact, ()));
            arrange_core::<_, _, ModelBatcher<R>, ModelSpine<R>>(
                mine.inner,
                Pipeline,
                "model",
                ModelBatcher::<R>::new,
            )
        } else {
            // One process: the model arrangement itself consolidates (each fact's updates
            // meet at the worker it hashes to), so there is no separate `consolidate`, which
            // would be a second arrangement of every change.
            let keyed = all.map(|fact| (fact, ()));
            let pact =
                Exchange::new(|((fact, ()), _, _): &(((RelId, R), ()), Time, Diff)| fact.hashed());
            arrange_core::<_, _, ModelBatcher<R>, ModelSpine<R>>(
                keyed.inner,
                pact,
                "model",
                ModelBatcher::<R>::new,
            )
        };
        // The batch's net change: the arrangement's new batches, read where they were built.
        model
            .clone()
            .as_collection(|(rel, row): &(RelId, R), _| (*rel, row.clone()))
            .inspect_batch(move |_, data| {
                let mut out = sink.borrow_mut();
                out.extend(
                    data.iter()
                        .map(|((rel, row), _, d)| (*rel, row.clone(), *d)),
                );
            })
            .probe_with(&probe);
        (inputs, facts_in, model.trace)
    });
    Dataflow {
        inputs,
        facts: Some(facts),
        probe,
        changes,
        model,
    }
}

/// The outer scope while strata are added: each relation's collection once computed, and the
/// shared arrangements of lower strata.
struct Outer<'a, 's, R: Record> {
    program: &'a Program,
    codes: Arc<Codes>,
    scope: Scope<'s, Time>,
    rels: Vec<Option<OuterColl<'s, R>>>,
    arrs: HashMap<ArrSpec, OuterArr<'s, R>>,
    /// Negated bindings (distinct when the pattern has `_`), keyed by the whole row.
    negs: HashMap<Pattern, OuterArr<'s, R>>,
    facts: VecCollection<'s, Time, (RelId, R), Diff>,
}

impl<'s, R: Record> Outer<'_, 's, R> {
    /// A relation already computed: inputs, or derived relations of earlier strata.
    fn rel(&self, rel: RelId) -> OuterColl<'s, R> {
        self.rels[rel]
            .clone()
            .expect("strata come in dependency order, inputs exist from the start")
    }

    /// The shared arrangement `spec` of a lower relation, built on first use.
    fn arrangement(&mut self, spec: &ArrSpec) -> OuterArr<'s, R> {
        if let Some(a) = self.arrs.get(spec) {
            return a.clone();
        }
        let name = format!("arrange {}", spec.describe(self.program));
        let val = spec.val();
        let s = spec.clone();
        let identity = spec.pattern.is_identity();
        let arr = self
            .rel(spec.pattern.rel)
            .flat_map(move |row| keyed(&s, &val, identity, &row))
            .arrange_by_key_named(&name);
        self.arrs.insert(spec.clone(), arr.clone());
        arr
    }

    /// The bindings of a negated atom as a set keyed by the whole binding row.
    fn negation(&mut self, pattern: &Pattern) -> OuterArr<'s, R> {
        if !pattern.has_wildcard() {
            // Without `_` distinct tuples give distinct bindings: already a set.
            return self.arrangement(&ArrSpec {
                pattern: pattern.clone(),
                key: (0..pattern.width).collect(),
            });
        }
        if let Some(a) = self.negs.get(pattern) {
            return a.clone();
        }
        let name = format!("arrange distinct {}", pattern.describe(self.program));
        let p = pattern.clone();
        let arr = self
            .rel(pattern.rel)
            .flat_map(move |row| p.bind(&row))
            .distinct()
            .map(|b| (b, R::default()))
            .arrange_by_key_named(&name);
        self.negs.insert(pattern.clone(), arr.clone());
        arr
    }

    /// Adds one stratum: an iterative scope computing its relations from lower ones, or the
    /// `reduce` of an aggregate relation.
    fn stratum(&mut self, stratum: &Stratum, plans: &[RulePlan]) {
        if let Some(k) = stratum.aggregate {
            self.aggregate(k);
            return;
        }
        let here = |rel: RelId| stratum.relations.contains(&rel);
        // Everything read from lower strata is prepared outside the loop, so that it is shared
        // with other strata and entered rather than rebuilt.
        let mut lower_arrs = HashMap::new();
        let mut lower_negs = HashMap::new();
        let mut lower_rels = HashMap::new();
        for plan in plans {
            for spec in plan.arrangements() {
                if !here(spec.pattern.rel) && !lower_arrs.contains_key(spec) {
                    lower_arrs.insert(spec.clone(), self.arrangement(spec));
                }
            }
            for neg in &plan.negations {
                if !lower_negs.contains_key(&neg.pattern) {
                    lower_negs.insert(neg.pattern.clone(), self.negation(&neg.pattern));
                }
            }
            if let Start::Scan { pattern, .. } = &plan.start {
                if !here(pattern.rel) {
                    lower_rels.insert(pattern.rel, self.rel(pattern.rel));
                }
            }
        }
        let facts: Vec<(RelId, OuterColl<'s, R>)> = stratum
            .relations
            .iter()
            .filter(|&&rel| {
                stratum
                    .facts
                    .iter()
                    .any(|&f| self.program.facts[f].rel == rel)
            })
            .map(|&rel| {
                let coll = self
                    .facts
                    .clone()
                    .filter(move |(r, _)| *r == rel)
                    .map(|(_, row)| row);
                (rel, coll)
            })
            .collect();

        let program = self.program;
        let codes = self.codes.clone();
        let outer = self.scope;
        let results: Vec<(RelId, OuterColl<'s, R>)> = outer.iterative::<u64, _, _>(|inner| {
            let mut ctx = Inner {
                program,
                codes,
                scope: inner,
                here: stratum.relations.clone(),
                current: HashMap::new(),
                lower_arrs,
                lower_negs,
                lower_rels,
                local: HashMap::new(),
                entered: HashMap::new(),
                entered_rels: HashMap::new(),
            };
            let mut variables: HashMap<RelId, VecVariable<'_, Iter, R, Diff>> = HashMap::new();
            if stratum.recursive {
                for &rel in &stratum.relations {
                    // Each round reads the previous round's relation: one step of the round counter.
                    let (var, coll) = Variable::new(inner, Product::new(0, 1));
                    ctx.current.insert(rel, coll);
                    variables.insert(rel, var);
                }
            }
            let mut parts: HashMap<RelId, Vec<InnerColl<'_, R>>> = HashMap::new();
            for plan in plans {
                let derived = ctx.rule(plan);
                parts.entry(plan.head_rel).or_default().push(derived);
            }
            for (rel, coll) in facts {
                parts.entry(rel).or_default().push(coll.enter(inner));
            }
            let mut out = Vec::new();
            for &rel in &stratum.relations {
                let name = format!("distinct {}", program.relations[rel].name);
                // rel = distinct(facts ∪ every rule's derivations), inside the loop.
                let mut result = concatenate(inner, parts.remove(&rel).unwrap_or_default())
                    .threshold_named(&name, |_, _| 1 as Diff);
                if stratum.recursive && program.has_arithmetic() {
                    // The round guard (`dred_core::rounds`): a change at an iteration past
                    // the limit ends the worker. Only programs with arithmetic can iterate
                    // without end, so the others' dataflows stay as they were.
                    let limit = dred_core::rounds::max_rounds() as u64;
                    let names =
                        dred_core::rounds::names(program, stratum.relations.iter().copied());
                    result = result.inspect(move |(_, time, _)| {
                        if time.inner > limit {
                            std::panic::panic_any(dred_core::rounds::RoundLimitExceeded {
                                rounds: limit as usize,
                                relations: names.clone(),
                            });
                        }
                    });
                }
                if let Some(var) = variables.remove(&rel) {
                    var.set(result.clone());
                }
                out.push((rel, result.leave(outer)));
            }
            out
        });
        for (rel, coll) in results {
            self.rels[rel] = Some(coll);
        }
    }
}

impl<'s, R: Record> Outer<'_, 's, R> {
    /// Adds aggregate relation `k` (of [`Program::aggregates`]): its input keyed by the group
    /// columns, reduced to one value per group, the row the group's key and that value.
    fn aggregate(&mut self, k: usize) {
        let def = self.program.aggregates[k].clone();
        debug_assert!(!R::ENCODED, "aggregate programs run on general rows");
        let (group, target, func, value_type) = (def.group, def.target, def.func, def.value_type);
        let name = format!("aggregate {}", self.program.relations[def.input].name);
        let result = self
            .rel(def.input)
            .map(move |row| {
                let key = R::from_words((0..group).map(|c| row.word(c)));
                let val = R::from_words(target.map(|c| row.word(c)));
                (key, val)
            })
            .reduce_named(
                &name,
                move |_key, vals: &[(&R, Diff)], out: &mut Vec<(R, Diff)>| {
                    // `vals`: the group's distinct target values, ascending, with multiplicities.
                    let value = match func {
                        AggFunc::Count => vals.iter().map(|(_, m)| *m as Value).sum(),
                        // A `float` sum must add the same terms in the same order as the
                        // other engines: each value as many times as it occurs. An integer
                        // sum adds each value times its multiplicity (modular arithmetic).
                        AggFunc::Sum if value_type == Type::Float => dred_core::arith::sum(
                            value_type,
                            vals.iter().flat_map(|(v, m)| {
                                std::iter::repeat_n(v.word(0), usize::try_from(*m).unwrap_or(0))
                            }),
                        ),
                        AggFunc::Sum => dred_core::arith::sum(
                            value_type,
                            vals.iter().map(|(v, m)| {
                                dred_core::arith::times(value_type, v.word(0), *m as Value)
                            }),
                        ),
                        AggFunc::Min => vals[0].0.word(0),
                        AggFunc::Max => vals[vals.len() - 1].0.word(0),
                    };
                    out.push((R::from_words([value]), 1));
                },
            )
            .map(move |(key, val)| {
                R::from_words((0..group).map(|c| key.word(c)).chain([val.word(0)]))
            });
        self.rels[def.rel] = Some(result);
    }
}

/// One stratum's loop while its rules are added.
struct Inner<'a, 'i, 's, R: Record> {
    program: &'a Program,
    codes: Arc<Codes>,
    scope: Scope<'i, Iter>,
    /// The stratum's relations.
    here: Vec<RelId>,
    /// The stratum's recursive relations as of the previous round.
    current: HashMap<RelId, InnerColl<'i, R>>,
    lower_arrs: HashMap<ArrSpec, OuterArr<'s, R>>,
    lower_negs: HashMap<Pattern, OuterArr<'s, R>>,
    lower_rels: HashMap<RelId, OuterColl<'s, R>>,
    local: HashMap<ArrSpec, LocalArr<'i, R>>,
    entered: HashMap<ArrSpec, EnteredArr<'i, R>>,
    entered_rels: HashMap<RelId, InnerColl<'i, R>>,
}

impl<'i, R: Record> Inner<'_, 'i, '_, R> {
    /// The relation's tuples inside the loop.
    fn tuples(&mut self, rel: RelId) -> InnerColl<'i, R> {
        if let Some(c) = self.current.get(&rel) {
            return c.clone();
        }
        if let Some(c) = self.entered_rels.get(&rel) {
            return c.clone();
        }
        let coll = self.lower_rels[&rel].clone().enter(self.scope);
        self.entered_rels.insert(rel, coll.clone());
        coll
    }

    /// The bindings of an atom.
    fn bindings(&mut self, pattern: &Pattern) -> InnerColl<'i, R> {
        let tuples = self.tuples(pattern.rel);
        if pattern.is_identity() {
            tuples
        } else {
            let p = pattern.clone();
            tuples.flat_map(move |row| p.bind(&row))
        }
    }

    /// The shared arrangement `spec`: built once per loop for the stratum's own relations,
    /// entered from outside for lower ones.
    fn arrangement(&mut self, spec: &ArrSpec) -> InnerArr<'i, R> {
        if !self.here.contains(&spec.pattern.rel) {
            if let Some(a) = self.entered.get(spec) {
                return InnerArr::Entered(a.clone());
            }
            let arr = self.lower_arrs[spec].clone().enter(self.scope);
            self.entered.insert(spec.clone(), arr.clone());
            return InnerArr::Entered(arr);
        }
        if let Some(a) = self.local.get(spec) {
            return InnerArr::Local(a.clone());
        }
        let name = format!("arrange {}", spec.describe(self.program));
        let val = spec.val();
        let s = spec.clone();
        let identity = spec.pattern.is_identity();
        let arr = self
            .tuples(spec.pattern.rel)
            .flat_map(move |row| keyed(&s, &val, identity, &row))
            .arrange_by_key_named(&name);
        self.local.insert(spec.clone(), arr.clone());
        InnerArr::Local(arr)
    }

    /// The derivations of one rule in this round. The comments give the general rule shape
    /// each code path implements; the rule's own text names its operators.
    fn rule(&mut self, plan: &RulePlan) -> InnerColl<'i, R> {
        let mut rows = match &plan.start {
            // H :- A, C1, ..., Ck.  (one positive atom: scan its bindings, filter, project)
            Start::Scan { pattern, logic } => {
                let bindings = self.bindings(pattern);
                if logic.is_identity(pattern.width) {
                    bindings
                } else {
                    let (logic, codes, none) = (logic.clone(), self.codes.clone(), R::default());
                    bindings.flat_map(move |b| logic.apply(&none, &b, &none, &codes))
                }
            }
            // H :- A1(k, u), A2(k, w), ...  (join A1 and A2 on their shared variables k, both
            // through shared arrangements keyed by k)
            Start::Join { left, right, logic } => {
                let l = self.arrangement(left);
                let r = self.arrangement(right);
                join(l, r, logic.clone(), self.codes.clone())
            }
        };
        for step in &plan.joins {
            // ..., B(k, w), ...  (the rule's bindings so far, keyed by the variables k they
            // share with B, joined with B's shared arrangement keyed by k)
            let name = format!(
                "[{}] bindings by {:?} for {}",
                plan.text,
                step.key,
                step.right.pattern.describe(self.program)
            );
            let (key, val) = (step.key.clone(), step.val.clone());
            let keyed = rows
                .map(move |b| (gather(&b, &key), gather(&b, &val)))
                .arrange_by_key_named(&name);
            let right = self.arrangement(&step.right);
            rows = join(
                InnerArr::Local(keyed),
                right,
                step.logic.clone(),
                self.codes.clone(),
            );
        }
        if !plan.post.is_empty() {
            // ..., v = e, ..., c  (each row extended by the assignments' values, kept when
            // their checks and the comparisons over them hold)
            let (post, width) = (plan.post.clone(), plan.joined_width);
            rows = rows.flat_map(move |b| post.apply(&b, width));
        }
        for neg in &plan.negations {
            // ..., !N(k), ...  (antijoin: bindings minus those whose k is in N; N is a lower
            // stratum, so a set constant within this loop)
            let set = self.negation(&neg.pattern);
            let name = format!(
                "[{}] bindings by {:?} against !{}",
                plan.text,
                neg.key,
                neg.pattern.describe(self.program)
            );
            let key = neg.key.clone();
            let keyed = rows
                .clone()
                .map(move |b| (gather(&b, &key), b))
                .arrange_by_key_named(&name);
            let blocked = keyed.join_core(set, |_k: &R, b: &R, _: &R| Some(b.clone()));
            rows = rows.concat(blocked.negate());
        }
        // H(t1, ..., tn) :- ...  (project onto the head's variables and constants)
        let head = StepLogic {
            filters: Vec::new(),
            output: plan.head.clone(),
        };
        if head.is_identity(plan.head.len())
            && plan.post.is_empty()
            && rows_width(plan) == plan.head.len()
        {
            rows
        } else {
            let none = R::default();
            rows.map(move |b| head.project(&none, &b, &none))
        }
    }

    fn negation(&mut self, pattern: &Pattern) -> EnteredArr<'i, R> {
        self.lower_negs[pattern].clone().enter(self.scope)
    }
}

/// The `(key, value)` of `spec`'s arrangement for a tuple of its relation, if the tuple
/// matches the pattern (`identity`: the pattern's [`Pattern::is_identity`], whose bindings are the tuple itself).
#[inline]
fn keyed<R: Record>(spec: &ArrSpec, val: &[usize], identity: bool, tuple: &R) -> Option<(R, R)> {
    if identity {
        Some(spec.split(tuple, val))
    } else {
        spec.pattern.bind(tuple).map(|b| spec.split(&b, val))
    }
}

/// Width of a rule's rows before the head projection.
fn rows_width(plan: &RulePlan) -> usize {
    let last = match plan.joins.last() {
        Some(j) => &j.logic,
        None => match &plan.start {
            Start::Scan { pattern, logic } => {
                if logic.is_identity(pattern.width) {
                    return pattern.width;
                }
                logic
            }
            Start::Join { logic, .. } => logic,
        },
    };
    last.output.len()
}

/// Joins two arrangements keyed alike; `logic` makes each output row from (key, left, right).
fn join<'i, R: Record>(
    left: InnerArr<'i, R>,
    right: InnerArr<'i, R>,
    logic: StepLogic,
    codes: Arc<Codes>,
) -> InnerColl<'i, R> {
    macro_rules! go {
        ($l:expr, $r:expr) => {
            $l.join_core($r, move |k: &R, l: &R, r: &R| logic.apply(k, l, r, &codes))
        };
    }
    match (left, right) {
        (InnerArr::Local(l), InnerArr::Local(r)) => go!(l, r),
        (InnerArr::Local(l), InnerArr::Entered(r)) => go!(l, r),
        (InnerArr::Entered(l), InnerArr::Local(r)) => go!(l, r),
        (InnerArr::Entered(l), InnerArr::Entered(r)) => go!(l, r),
    }
}
