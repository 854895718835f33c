//! Semi-naive evaluation over indexed relations, stratum by stratum — the `recompute` engine.
//!
//! Within a recursive stratum every relation's rows form three consecutive id ranges: *old*
//! (known before the previous round), *delta* (new in the previous round) and rows being
//! derived now. A rule with k same-stratum atoms is run k times per round, with atom i reading
//! the delta, atoms before it the old rows and atoms after it old and delta rows — so every
//! instance using at least one new fact is found exactly once per round, and none is
//! repeated across rounds. Rows derived during a round have ids past every visible range, so
//! they can be inserted at once without being seen until the next round.
//!
//! This module only schedules: which plans run, over which versions, round after round; each
//! join runs in the shared executor ([`crate::exec::Matcher`]), but for the plans of one
//! scanned and one walked atom, which run in a loop of their own (`scan_walk`). A stratum's
//! plans and its fixpoint loop (`StratumPlan`, `evaluate_rules`) also serve the maintenance
//! chassis when it recomputes a stratum, so that recomputing on the chassis and `recompute`
//! run the same joins.

pub(crate) mod scan_walk;

use std::sync::Arc;

use crate::engine::{Batch, BatchReport, Edb, Engine, EngineError, Model, ModelDigest, Work};
use crate::exec::{idb_digest, idb_model, Versions, WorkCounter};
use crate::plan::{plan_rule, RulePlan, Version};
use crate::program::{Program, RelId};
use crate::storage::Relation;
use crate::value::Value;

/// Plans of one stratum's evaluation from scratch: the `recompute` engine's, and the chassis's
/// when it recomputes a stratum ([`crate::maintain`]).
#[derive(Clone, Debug)]
pub(crate) struct StratumPlan {
    /// Rules reading no relation of this stratum: run once, on full relations.
    pub(crate) base: Vec<RulePlan>,
    /// One plan per (recursive rule, same-stratum atom as delta).
    pub(crate) recursive: Vec<RulePlan>,
}

impl StratumPlan {
    /// Plans the rules of stratum `s`, creating in `relations` the indexes the plans read;
    /// with `adaptive`, a recursive rule's plans order the atoms after the delta per row
    /// where they can ([`crate::plan::plan_seeded_adaptive`]).
    pub(crate) fn new(
        program: &Program,
        s: usize,
        adaptive: bool,
        relations: &mut [Relation],
    ) -> Self {
        let mut sp = StratumPlan {
            base: Vec::new(),
            recursive: Vec::new(),
        };
        for &r in &program.strata[s].rules {
            let rule = &program.rules[r];
            let same: Vec<bool> = rule
                .positive_atoms()
                .map(|a| program.stratum_of[a.rel] == Some(s))
                .collect();
            if same.iter().any(|&b| b) {
                for p in (0..same.len()).filter(|&p| same[p]) {
                    let versions = delta_versions(&same, p);
                    let options = crate::plan::PlanOptions::default();
                    let plan = adaptive
                        .then(|| {
                            crate::plan::plan_seeded_adaptive(
                                program, r, &versions, p, &options, relations,
                            )
                        })
                        .flatten()
                        .unwrap_or_else(|| plan_rule(program, r, &versions, Some(p), relations));
                    sp.recursive.push(plan);
                }
            } else {
                let versions = vec![Version::Full; same.len()];
                sp.base
                    .push(plan_rule(program, r, &versions, None, relations));
            }
        }
        sp
    }

    /// Every plan of the stratum.
    pub(crate) fn plans(&self) -> impl Iterator<Item = &RulePlan> {
        self.base.iter().chain(&self.recursive)
    }
}

/// The versions a rule's positive atoms read in its semi-naive plan with atom `p` as the
/// delta: `same` marks the atoms over the stratum's own relations; of those, the atoms
/// before `p` read the old rows and those after it every row; the others (complete
/// relations below) every row.
pub(crate) fn delta_versions(same: &[bool], p: usize) -> Vec<Version> {
    (0..same.len())
        .map(|j| match (same[j], j.cmp(&p)) {
            (false, _) => Version::Full,
            (true, std::cmp::Ordering::Less) => Version::Old,
            (true, std::cmp::Ordering::Equal) => Version::Delta,
            (true, std::cmp::Ordering::Greater) => Version::Full,
        })
        .collect()
}

/// Runs `plans` over the rows `versions` shows and appends their heads (seen from the next
/// round on); returns the instances matched.
fn run_plans(
    plans: &[RulePlan],
    relations: &mut [Relation],
    versions: &[Versions],
    work: &WorkCounter,
    out: &mut Vec<Value>,
) -> u64 {
    let mut instances = 0;
    for plan in plans {
        out.clear();
        let n = scan_walk::run(relations, versions, work, plan, out);
        instances += n;
        work.probe(n);
        relations[plan.head_rel].insert_flat(out, n);
    }
    instances
}

/// Runs the rules of stratum `s` (`plans`) to their fixpoint, semi-naively, appending what
/// they derive to `relations`: over the rows `versions` shows of the relations below (all of
/// them, complete), and over every row of the stratum's own relations, which must hold no
/// live row the rules would not derive (their program facts, an aggregate's rows). Calls
/// `round_done` with the relations after the base rules and after each round of the
/// recursive ones that added rows; leaves the stratum's relations complete in `versions`;
/// returns the instances matched. `out` is scratch.
#[allow(clippy::too_many_arguments)]
pub(crate) fn evaluate_rules(
    program: &Program,
    s: usize,
    plans: &StratumPlan,
    relations: &mut [Relation],
    versions: &mut [Versions],
    work: &WorkCounter,
    out: &mut Vec<Value>,
    mut round_done: impl FnMut(&[Relation]),
) -> u64 {
    let stratum = &program.strata[s];
    for &rel in &stratum.relations {
        versions[rel] = Versions::complete(&relations[rel]);
    }
    let mut instances = run_plans(&plans.base, relations, versions, work, out);
    round_done(relations);
    if plans.recursive.is_empty() {
        for &rel in &stratum.relations {
            versions[rel] = Versions::complete(&relations[rel]);
        }
        return instances;
    }
    // First round: every row so far is delta.
    for &rel in &stratum.relations {
        versions[rel] = Versions {
            old_end: 0,
            delta_end: relations[rel].end(),
        };
    }
    let mut round = 0;
    loop {
        round += 1;
        crate::rounds::check(round, || {
            crate::rounds::names(program, stratum.relations.iter().copied())
        });
        instances += run_plans(&plans.recursive, relations, versions, work, out);
        let mut changed = false;
        for &rel in &stratum.relations {
            let v = &mut versions[rel];
            let len = relations[rel].end();
            changed |= len > v.delta_end;
            v.old_end = v.delta_end;
            v.delta_end = len;
        }
        if !changed {
            break;
        }
        round_done(relations);
    }
    for &rel in &stratum.relations {
        versions[rel] = Versions::complete(&relations[rel]);
    }
    instances
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
    /// The heads of one plan's run, kept from one evaluation to the next: grown afresh each
    /// time, its pages were faulted in and zeroed again on every evaluation (21% of the
    /// samples of repeated linear TC evaluations, in `clear_page_erms`).
    out: Vec<Value>,
    /// Per relation, the EDB rows of one evaluation, flat, kept like `out`: loaded with
    /// [`Relation::insert_flat`] (lookups overlapped, indexes built once) rather than row by
    /// row, which was a tenth of `recompute`'s time on linear TC of WordNet.
    load: Vec<(Vec<Value>, u64)>,
}

impl Evaluator {
    /// Plans every rule of the program and creates its relations with their indexes.
    pub fn new(program: Arc<Program>) -> Self {
        let mut relations: Vec<Relation> = program
            .relations
            .iter()
            .map(|d| Relation::new(d.arity()))
            .collect();
        let plans = (0..program.strata.len())
            .map(|s| StratumPlan::new(&program, s, false, &mut relations))
            .collect();
        Evaluator {
            program,
            relations,
            plans,
            instances_matched: 0,
            work: Work::default(),
            out: Vec::new(),
            load: Vec::new(),
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
        let mut load = std::mem::take(&mut self.load);
        load.resize_with(self.relations.len(), Default::default);
        for (rel, tuple) in edb {
            work.probe(1);
            load[rel].0.extend_from_slice(tuple);
            load[rel].1 += 1;
        }
        for (rel, (flat, rows)) in load.iter_mut().enumerate() {
            if *rows > 0 {
                self.relations[rel].insert_flat(flat, *rows);
            }
            flat.clear();
            *rows = 0;
        }
        self.load = load;
        self.instances_matched = 0;
        let mut versions: Vec<Versions> = self.relations.iter().map(Versions::complete).collect();
        let mut out = std::mem::take(&mut self.out);
        let program = self.program.clone();
        for (s, stratum) in program.strata.iter().enumerate() {
            if let Some(k) = stratum.aggregate {
                let def = &program.aggregates[k];
                let out = aggregate_rows(def, &self.relations[def.input], &work);
                let rel = &mut self.relations[def.rel];
                for row in out.chunks_exact(def.group + 1) {
                    work.probe(1);
                    rel.insert(row);
                }
                versions[def.rel] = Versions::complete(rel);
                continue;
            }
            for &f in &stratum.facts {
                let fact = &program.facts[f];
                self.relations[fact.rel].insert(&fact.tuple);
            }
            self.instances_matched += evaluate_rules(
                &program,
                s,
                &self.plans[s],
                &mut self.relations,
                &mut versions,
                &work,
                &mut out,
                |_| {},
            );
        }
        self.work = work.total();
        out.clear();
        self.out = out;
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

/// The rows of aggregate relation `def` over the live rows of its input, flat (group
/// columns, then the value), groups in order: the input's rows sorted by their group, each
/// group folded. One row touched per input row.
pub(crate) fn aggregate_rows(
    def: &crate::program::AggregateDef,
    input: &Relation,
    work: &WorkCounter,
) -> Vec<Value> {
    let mut rows: Vec<&[Value]> = input.rows(input.all()).collect();
    work.touch(rows.len() as u64);
    rows.sort_unstable_by(|a, b| a[..def.group].cmp(&b[..def.group]));
    let mut out = Vec::new();
    for group in rows.chunk_by(|a, b| a[..def.group] == b[..def.group]) {
        let value = def.fold(group.iter().copied()).expect("a group has rows");
        out.extend_from_slice(&group[0][..def.group]);
        out.push(value);
    }
    out
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
