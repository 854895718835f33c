//! The model every algorithm maintains ([`Store`]) and what the chassis does with it outside
//! any algorithm: checking a batch, removing D, phase 3 of level 0, evaluating a stratum from
//! scratch, counting what came back, compacting.

use std::collections::HashSet;
use std::sync::Arc;

use super::plans::Plans;
use super::{insert, Deleted, RowRef};
use crate::engine::{Batch, EngineError, Fact, Phase, Round, Work};
use crate::exec::Versions;
use crate::program::{Program, RelId};
use crate::record::Recorder;
use crate::storage::{prefetch, Relation, RowId};
use crate::value::Tuple;

/// The model every algorithm maintains, and what it is maintained with: the relations and
/// their indexes, the plans, the program facts, and the recording. Cloning copies the model.
#[derive(Clone, Debug)]
pub struct Store {
    pub(crate) program: Arc<Program>,
    pub(crate) relations: Vec<Relation>,
    pub(crate) plans: Plans,
    /// Program facts, which hold through their empty-body instance.
    pub(crate) program_facts: HashSet<(RelId, Tuple)>,
    pub(crate) materialised: bool,
    pub(crate) trace_facts: bool,
    /// The first derivation of each fact of the last batch's rounds, when recording.
    pub(crate) recorder: Option<Recorder>,
    /// Batches applied since materialisation (errors name the batch).
    pub(crate) batches: usize,
    /// The engine's name in reports and errors.
    pub(crate) engine: &'static str,
    /// Per level, the work (probes plus rows touched) of evaluating it from scratch, measured
    /// at materialisation (level 0's includes loading the EDB); an algorithm that evaluates a
    /// level again may update its entry.
    pub(crate) evaluation_work: Vec<u64>,
    /// Per stratum, the nanoseconds and work of its last evaluation from scratch (at
    /// materialisation, or when [`recompute`](super::recompute) evaluated it again): what
    /// recomputing it is predicted to cost (`auto` reads it).
    pub(crate) stratum_cost: Vec<(u64, u64)>,
    /// Per stratum, the number of [`Store::evaluations`] its last evaluation made: an engine
    /// that noted the count before a call knows which strata the call evaluated.
    pub(crate) stratum_evaluated: Vec<u64>,
    /// Evaluations of a stratum from scratch since the store was made.
    pub(crate) evaluations: u64,
    /// The work past which the running deletion call stops and marks its
    /// [`Deleted::abandoned`](super::Deleted::abandoned); `None`: no budget. Set by an engine
    /// that guards its choice of algorithm (`auto`), for one call at a time.
    pub(crate) budget: Option<super::WorkBudget>,
    /// |A+| of the running batch (known before its deletion runs).
    pub(crate) batch_insertions: usize,
    /// Per relation, the old relation the last recomputation replaced
    /// ([`super::Replaced`]), once its batch has counted it: its memory is where the next
    /// recomputation evaluates the relation ([`Relation::emptied_reusing`]), as `recompute`
    /// evaluates into the relations of its previous evaluation.
    pub(crate) spare: Vec<Option<Relation>>,
}

impl Store {
    /// An empty model of `program` with the plans' indexes, for the engine `engine`.
    pub(crate) fn new(program: Arc<Program>, engine: &'static str) -> Self {
        let mut relations: Vec<Relation> = program
            .relations
            .iter()
            .map(|d| Relation::new(d.arity()))
            .collect();
        let plans = Plans::new(&program, &mut relations);
        // The EDB's rows are found by value only by updates and by atoms bound whole: through
        // their index groups, without a set table (a third of an edge relation's memory).
        for (rel, relation) in relations.iter_mut().enumerate() {
            if !program.is_idb(rel) {
                relation.find_by_indexes();
            }
        }
        let program_facts = program
            .facts
            .iter()
            .map(|f| (f.rel, f.tuple.clone()))
            .collect();
        let strata = program.strata.len();
        Store {
            program,
            relations,
            plans,
            program_facts,
            materialised: false,
            trace_facts: true,
            recorder: None,
            batches: 0,
            engine,
            evaluation_work: Vec::new(),
            stratum_cost: vec![(0, 0); strata],
            stratum_evaluated: vec![0; strata],
            evaluations: 0,
            budget: None,
            batch_insertions: 0,
            spare: Vec::new(),
        }
    }

    /// Keeps the old relations of `replaced` as the spares of their relations (see
    /// [`Store::spare`]), once the batch no longer reads them.
    pub(crate) fn keep_spares(&mut self, replaced: Vec<super::Replaced>) {
        self.spare.resize_with(self.relations.len(), || None);
        for x in replaced {
            self.spare[x.rel] = Some(x.old);
        }
    }

    /// An empty relation to evaluate `rel` into: its spare's memory if it has one.
    pub(crate) fn emptied(&mut self, rel: RelId) -> Relation {
        let spare = self.spare.get_mut(rel).and_then(Option::take);
        self.relations[rel].emptied_reusing(spare)
    }

    /// The fact a row reference names.
    pub(crate) fn fact(&self, (rel, r): RowRef) -> Fact {
        Fact::new(rel, self.relations[rel].row(r).to_vec())
    }

    /// A trace round of `rows` (their facts copied only while facts are traced).
    pub(crate) fn round(&self, level: usize, phase: Phase, round: usize, rows: &[RowRef]) -> Round {
        if self.trace_facts {
            Round::with_facts(phase, round, rows.iter().map(|&rr| self.fact(rr)).collect())
                .in_stratum(level)
        } else {
            Round {
                stratum: level,
                phase,
                round,
                size: rows.len(),
                facts: Vec::new(),
            }
        }
    }

    /// The trace rounds of a phase's frontiers, numbered from 1.
    pub(crate) fn rounds(
        &self,
        level: usize,
        phase: Phase,
        frontiers: &[Vec<RowRef>],
    ) -> Vec<Round> {
        frontiers
            .iter()
            .enumerate()
            .map(|(i, rows)| self.round(level, phase, i + 1, rows))
            .collect()
    }

    /// The broken invariant `invariant` of the running batch, as an error.
    pub(crate) fn invariant(&self, invariant: String) -> EngineError {
        EngineError::Invariant {
            engine: self.engine.into(),
            batch: self.batches,
            invariant,
        }
    }

    /// Why a deletion that reached a fact of `rel` not in the model must stop.
    pub(crate) fn not_closed_message(&self, rel: RelId) -> String {
        format!(
            "a deletion reached a fact of `{}` that is not in the old model: the old model \
             is not closed under the rules (an earlier batch left it wrong) or D- is not in it",
            self.program.relations[rel].name
        )
    }

    /// D leaves the model by row id; survivors are what stays live.
    pub(crate) fn remove_deleted(&mut self, deleted: &mut Deleted) {
        for &(rel, r) in &deleted.deleted {
            self.relations[rel].remove_id(r);
        }
        deleted.work.touched += deleted.deleted.len() as u64;
    }

    /// Phase 3 of level 0: adds `insertions` (the A+ of a normalised batch) and what follows
    /// from them.
    pub(crate) fn insert(&mut self, insertions: &[Fact]) -> insert::Inserted {
        assert!(
            self.materialised,
            "{}: insert before materialise",
            self.engine
        );
        if !insertions.is_empty() {
            self.build_insertion_indexes();
        }
        insert::insert(
            &self.program,
            &mut self.relations,
            &self.plans,
            insertions,
            self.trace_facts,
            self.recorder.as_mut(),
        )
    }

    /// Of the deleted IDB rows of a batch, those gone from the model and those derived
    /// again as new rows (by phase 3, or by a restoration that appends).
    pub(super) fn gone_and_back(&self, deleted_idb: &[RowRef]) -> (usize, usize) {
        let (mut gone, mut back) = (0, 0);
        super::levels::live_copies_of_dead(&self.relations, deleted_idb, |_, copy| match copy {
            Some(_) => back += 1,
            None => gone += 1,
        });
        (gone, back)
    }

    /// Facts in the derived relations.
    pub(super) fn idb_len(&self) -> usize {
        self.idb_len_where(|_| true)
    }

    /// The live facts of the derived relations of DRed level `level`.
    pub(crate) fn level_idb_len(&self, level: usize) -> usize {
        self.idb_len_where(|rel| self.program.level_of(rel) == level)
    }

    /// The live facts of the derived relations that `keep` accepts.
    fn idb_len_where(&self, keep: impl Fn(RelId) -> bool) -> usize {
        self.relations
            .iter()
            .enumerate()
            .filter(|&(rel, _)| self.program.is_idb(rel) && keep(rel))
            .map(|(_, r)| r.len())
            .sum()
    }

    /// Checks that `batch` is normalised against this EDB, as [`Batch::normalise`] makes it:
    /// every fact of an input relation with the relation's arity, D- present, A+ absent.
    /// Deletion relies on it (a deleted fact is a row of the model).
    pub(super) fn check_batch(&self, batch: &Batch) -> Result<(), EngineError> {
        let misuse = |what: &str, f: &Fact| EngineError::Misuse {
            engine: self.engine.into(),
            message: format!(
                "batch {}: {what} {}{:?}: the batch is not normalised against this EDB",
                self.batches + 1,
                self.program
                    .relations
                    .get(f.rel)
                    .map_or("?", |d| d.name.as_str()),
                f.tuple
            ),
        };
        for (facts, present, what) in [
            (&batch.deletions, true, "deleted fact is absent:"),
            (&batch.insertions, false, "inserted fact is present:"),
        ] {
            let fits = |f: &Fact| {
                self.program
                    .relations
                    .get(f.rel)
                    .is_some_and(|d| d.input && d.arity() == f.tuple.len())
            };
            for (i, f) in facts.iter().enumerate() {
                prefetch_lookups(&self.relations, facts, i);
                if !fits(f) {
                    return Err(misuse("not a fact of an input relation:", f));
                }
                if self.relations[f.rel].contains(&f.tuple) != present {
                    return Err(misuse(what, f));
                }
            }
        }
        Ok(())
    }

    /// Brings every index a recomputation deferred up to date
    /// ([`Relation::build_deferred`]): before any phase that reads indexes other than an
    /// evaluation from scratch.
    pub(crate) fn build_deferred_indexes(&mut self) {
        for r in &mut self.relations {
            r.build_deferred();
        }
    }

    /// Brings the deferred indexes phase 3 reads up to date ([`Plans::insertion_reads`]).
    pub(crate) fn build_insertion_indexes(&mut self) {
        for &(rel, ix) in &self.plans.insertion_reads {
            self.relations[rel].build_deferred_index(ix);
        }
    }

    /// Compacts relations whose tombstones outnumber their live rows (row ids change, so no
    /// row reference of the batch may be used afterwards).
    pub(crate) fn compact(&mut self) {
        for r in &mut self.relations {
            if r.dead_count() > 1024 && r.dead_count() > r.len() {
                r.compact();
            }
        }
    }

    /// Evaluates stratum `s` from the relations below it, its own relations empty of live
    /// rows (at materialisation, or when [`recompute`](super::recompute) has deleted them),
    /// with its program facts and, for an aggregate relation, its rows, through its plans of
    /// evaluation from scratch ([`Plans::evaluation`], `recompute`'s); returns what it added,
    /// as phase 3 reports it (round 1 the program facts, the aggregate's rows and the base
    /// rules' heads, then one round per round of the recursive rules), and the work of
    /// folding the aggregate. Strata are evaluated one at a time, not a level's rules
    /// together: a rule of a later stratum would otherwise fire in every round of an earlier
    /// one's fixpoint (Debian installability: 345 million probes against 20 million).
    pub(crate) fn evaluate_stratum(&mut self, s: usize) -> (insert::Inserted, Work) {
        let start = std::time::Instant::now();
        // What the evaluation reads must be indexed: a recomputation defers the indexes of
        // the relations it empties, this stratum's own among them (empty, they are built at
        // once and kept up to date as it evaluates).
        // The fixed orders where the per-row orders would first build a larger deferred
        // index (see `Plans::evaluation_fixed`).
        let to_build = |relations: &[Relation], reads: &[(RelId, crate::storage::IndexId)]| {
            reads
                .iter()
                .map(|&(rel, ix)| relations[rel].deferred_rows(ix))
                .sum::<usize>()
        };
        let (plan, reads) = match &self.plans.evaluation_fixed[s] {
            Some((fixed, reads))
                if to_build(&self.relations, reads)
                    < to_build(&self.relations, &self.plans.evaluation_reads[s]) =>
            {
                (fixed, reads)
            }
            _ => (&self.plans.evaluation[s], &self.plans.evaluation_reads[s]),
        };
        for &(rel, ix) in reads {
            self.relations[rel].build_deferred_index(ix);
        }
        let program = self.program.clone();
        let stratum = &program.strata[s];
        let work = crate::exec::WorkCounter::default();
        let begin: Vec<RowId> = stratum
            .relations
            .iter()
            .map(|&rel| self.relations[rel].end())
            .collect();
        for &f in &stratum.facts {
            let fact = &program.facts[f];
            work.probe(1);
            self.relations[fact.rel].insert(&fact.tuple);
        }
        let mut folding = Work::default();
        if let Some(k) = stratum.aggregate {
            let def = &program.aggregates[k];
            let counter = crate::exec::WorkCounter::default();
            let flat = crate::eval::aggregate_rows(def, &self.relations[def.input], &counter);
            folding = counter.total();
            let n = flat.len() / (def.group + 1);
            work.probe(n as u64);
            self.relations[def.rel].insert_flat(&flat, n as u64);
        }
        let mut versions: Vec<Versions> = self.relations.iter().map(Versions::complete).collect();
        let mut rounds: Vec<Round> = Vec::new();
        let mut seen = begin.clone();
        let trace_facts = self.trace_facts;
        let mut out = Vec::new();
        crate::eval::evaluate_rules(
            &program,
            s,
            plan,
            &mut self.relations,
            &mut versions,
            &work,
            &mut out,
            |relations| {
                let mut size = 0;
                let mut facts = Vec::new();
                for (&rel, from) in stratum.relations.iter().zip(seen.iter_mut()) {
                    let r = &relations[rel];
                    let end = r.end();
                    // Rows appended by an evaluation are live: it removes nothing.
                    size += (end - *from) as usize;
                    if trace_facts {
                        facts.extend((*from..end).map(|row| Fact::new(rel, r.row(row).to_vec())));
                    }
                    *from = end;
                }
                if size > 0 {
                    rounds.push(insert::phase3_round(
                        stratum.level,
                        rounds.len() + 1,
                        size,
                        facts,
                        trace_facts,
                    ));
                }
            },
        );
        let inserted = stratum
            .relations
            .iter()
            .zip(&begin)
            .filter(|&(&rel, _)| program.is_idb(rel))
            .map(|(&rel, &from)| (self.relations[rel].end() - from) as usize)
            .sum();
        let inserted = insert::Inserted {
            inserted,
            rounds,
            work: work.total(),
        };
        let total = inserted.work.probes + inserted.work.touched + folding.probes + folding.touched;
        self.stratum_cost[s] = (start.elapsed().as_nanos() as u64, total);
        self.evaluations += 1;
        self.stratum_evaluated[s] = self.evaluations;
        (inserted, folding)
    }
}

/// Starts the lookups (by value, in their relations) of the facts a few places after
/// `facts[i]`, in four stages: the fact's values (each fact's tuple is an allocation of its
/// own), then the slot of the set table (or the entry of the group a relation that finds
/// rows through its indexes reads), then that group's ids, then the row compared first;
/// each stage [`LOOKUP_STAGE`] facts nearer than the one before. A caller looking up
/// `facts` in order calls it with each `i` before looking up `facts[i]`, so that the cache
/// misses of several facts are in flight at once. Changes no result; a fact that names no
/// relation of its arity is skipped.
///
/// Why the values first: without that stage, hashing each fact for its slot waited for its
/// values, one fact after another — a seventh of `counting`'s 1,000-edge deletions from
/// two-hop paths over WordNet when every call starts cold (perf, `apply_loop` with `SCRUB`).
pub(crate) fn prefetch_lookups(relations: &[Relation], facts: &[Fact], i: usize) {
    let hint = |j: usize, stage: usize| {
        let Some(f) = facts.get(j) else { return };
        if stage == 4 {
            if let Some(v) = f.tuple.first() {
                prefetch(v);
            }
            return;
        }
        let Some(r) = relations.get(f.rel).filter(|r| r.arity() == f.tuple.len()) else {
            return;
        };
        match stage {
            3 => r.prefetch_row(r.lookup_hash(&f.tuple), &f.tuple),
            2 => r.prefetch_row_group(&f.tuple),
            _ => {
                r.first_candidate(r.lookup_hash(&f.tuple), &f.tuple);
            }
        }
    };
    let stages = 1..=4;
    if i == 0 {
        for stage in stages.clone() {
            (0..(stage * LOOKUP_STAGE).min(facts.len())).for_each(|j| hint(j, stage));
        }
    }
    for stage in stages {
        hint(i + stage * LOOKUP_STAGE, stage);
    }
}

/// See [`prefetch_lookups`].
const LOOKUP_STAGE: usize = 8;
