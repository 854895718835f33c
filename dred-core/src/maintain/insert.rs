//! Phase 3 of `dred`: insert and propagate.
//!
//! Input: the relations after rederivation, the level, and what starts it: at level 0, A+;
//! at a level above, the net changes of the relations below it (`FromBelow`) — the facts
//! they gained, which seed positive atoms, and the facts they lost, which seed negated atoms.
//! Output: A+ added, and every fact of the level's relations derived by an instance with at
//! least one body fact new in this phase (the delta may sit in any positive body atom, EDB
//! atoms included, so both atoms of a non-linear rule can be new), over the updated
//! relations — new constants join freely. The level's strata run one after another in
//! dependency order, each semi-naively to its fixpoint from everything new so far; a stratum
//! whose new input outweighs what it reads in full is evaluated afresh instead, over every
//! row, its facts already present found and skipped (`evaluation_reads_less`). At level 0
//! round 1 is A+ itself; above, round 1 is the facts the seeds derive. Rounds are numbered
//! through the level, stratum after stratum.
//! Postcondition: the live rows of the level are the least model of the program on
//! I' = (I \ D-) ∪ A+ and the new relations below.
//!
//! A fact of A+ that is a tombstone (deleted earlier and not compacted away since) is revived
//! under its old row id rather than appended again: an update stream that deletes and later
//! restores facts then costs no new rows and no index maintenance for them. A revived row
//! lies outside the range of rows appended in round 1, so round 1 matches it through the
//! plans seeded with one fact (the other atoms over every visible row); the appended rows go
//! through the usual delta plans. The two cover every instance with at least one A+ fact.
//! Above level 0, the rows the levels below appended in this batch are round 1's delta, and
//! their revived rows and lost facts go through seeded plans the same way.

use super::plans::Plans;
use super::RowRef;
use crate::engine::{Fact, Phase, Round, Work};
use crate::exec::{Matcher, Versions, WorkCounter};
use crate::program::Program;
use crate::record::Recorder;
use crate::storage::{Insertion, Relation, RowId};
use crate::value::{Tuple, Value};

/// Where phase 3 records the first derivation of each fact it adds: the recorder, the
/// level and the round being formed.
pub(crate) struct Noting<'r> {
    rec: &'r mut Recorder,
    level: usize,
    round: usize,
}

/// Runs seeded `plan` on `seed` (or, without a seed, `plan` over the rows `versions` shows)
/// and inserts its heads (not visible before the next round); `buf` is scratch. With
/// `noting`, each head new to its relation is recorded with the first instance that gave it.
fn insert_instances(
    relations: &mut [Relation],
    versions: &[Versions],
    work: &WorkCounter,
    plan: &crate::plan::RulePlan,
    seed: Option<&[Value]>,
    buf: &mut Vec<Value>,
    noting: Option<&mut Noting<'_>>,
) {
    buf.clear();
    let mut n = 0;
    let matcher = Matcher {
        relations,
        versions,
        work,
    };
    let Some(noting) = noting else {
        match seed {
            Some(seed) => matcher.for_each_seeded(plan, seed, &mut |vars| {
                n += 1;
                buf.extend(plan.head.iter().map(|o| o.get(vars)));
            }),
            // The loop of one scanned and one walked atom where the plan has that shape
            // (the same instances, work counts and order as the interpreter's): the
            // recursive rule of linear recursion, two-atom base rules. In the interpreter,
            // `Matcher::step` was a sixth of `recompute-levels`' samples on GO BP's TC.
            None => n = crate::eval::scan_walk::run(relations, versions, work, plan, buf),
        }
        work.probe(n);
        relations[plan.head_rel].insert_flat(buf, n);
        return;
    };
    // The bindings beside the heads, so that the instance of each new head is known.
    let mut bindings: Vec<Value> = Vec::new();
    let mut emit = |vars: &[Value]| {
        n += 1;
        buf.extend(plan.head.iter().map(|o| o.get(vars)));
        bindings.extend_from_slice(vars);
    };
    match seed {
        Some(seed) => matcher.for_each_seeded(plan, seed, &mut emit),
        None => matcher.for_each(plan, &mut emit),
    }
    work.probe(n);
    let relation = &mut relations[plan.head_rel];
    let arity = relation.arity();
    for i in 0..n as usize {
        let head = &buf[i * arity..(i + 1) * arity];
        if relation.insert(head) {
            let vars = &bindings[i * plan.num_vars..(i + 1) * plan.num_vars];
            let (level, round) = (noting.level, noting.round);
            let rule = Some(plan.rule);
            noting
                .rec
                .note(level, Phase::Insert, round, plan.head_rel, head, rule, vars);
        }
    }
}

/// True when an atom of `plan` sees no row under `versions`: the plan then finds nothing.
///
/// Why: at materialisation every row of a relation is in the first delta and none is old,
/// so the delta plan of a later atom (`uninstallable(p) :- depends_all(p, q), conflicts(q,
/// r), depends_all(p, r)` with `depends_all(p, r)` as the delta) scanned the whole delta and
/// walked, for each row, the index group of an earlier atom whose old rows are empty: on
/// Debian installability that was most of `dred`'s materialisation.
fn sees_nothing(plan: &crate::plan::RulePlan, versions: &[Versions]) -> bool {
    plan.steps.iter().any(
        |s| matches!(s, crate::plan::Step::Atom(a) if versions[a.rel].range(a.version).is_empty()),
    )
}

/// Whether evaluating a group of rules (a stratum) afresh over every row reads fewer rows
/// than semi-naive insertion would in its first round: the rows of each rule's first atom,
/// and of the stratum's own relations (each derived again and followed once more), against
/// the new rows every delta plan scans and the `seeds` given one at a time (`versions` as
/// for that first round).
///
/// Why: when a batch adds most of what a stratum reads — facts re-inserted after a large
/// deletion, or a recursive stratum below that grew tenfold — insertion joins each new row of
/// each body atom with the rest, once per atom, where an evaluation joins the rows of one
/// atom only. On getopts' liveness analysis, re-inserting 1,000 control-flow edges brings
/// back 1.9 M facts; two nonrecursive rules read `path_maybe_uninit_on_exit`'s million new
/// rows and cost insertion 17 M probes and rows, against 6 M for evaluating their strata.
/// Rows read are a proxy for work (joins from a row cost about alike both ways); a stratum
/// that an insertion touches lightly, the usual case, reads orders of magnitude fewer new
/// rows than it holds, and keeps semi-naive insertion.
fn evaluation_reads_less(
    program: &Program,
    plans: &Plans,
    relations: &[Relation],
    versions: &[Versions],
    atom_rels: &[Vec<usize>],
    rules: &[usize],
    seeds: usize,
) -> bool {
    let mut new_rows = seeds;
    let mut all_rows = 0;
    let mut own = Vec::new();
    for &ri in rules {
        let rels = &atom_rels[ri];
        for (p, plan) in plans.semi_naive[ri].iter().enumerate() {
            let v = versions[rels[p]];
            if v.old_end < v.delta_end && !sees_nothing(plan, versions) {
                new_rows += (v.delta_end - v.old_end) as usize;
            }
        }
        if let Some(&first) = rels.first() {
            all_rows += relations[first].len();
        }
        own.push(program.rules[ri].head.rel);
    }
    own.sort_unstable();
    own.dedup();
    all_rows += own.iter().map(|&rel| relations[rel].len()).sum::<usize>();
    all_rows < new_rows
}

/// Round `round` of phase 3 at `level`, of `size` facts; with `trace_facts`, the facts
/// themselves (`facts`, then sorted; empty otherwise).
pub(crate) fn phase3_round(
    level: usize,
    round: usize,
    size: usize,
    facts: Vec<Fact>,
    trace_facts: bool,
) -> Round {
    if trace_facts {
        Round::with_facts(Phase::Insert, round, facts).in_stratum(level)
    } else {
        Round {
            stratum: level,
            phase: Phase::Insert,
            round,
            size,
            facts,
        }
    }
}

/// The result of phase 3.
#[derive(Debug, Default)]
pub struct Inserted {
    /// IDB facts new in this phase.
    pub inserted: usize,
    /// Round 1 is A+; round k+1 the facts first derived in round k.
    pub rounds: Vec<Round>,
    /// Work of the phase (joins, one probe per fact of A+ and per instance's head).
    pub work: Work,
}

/// What a level above 0 starts phase 3 from: the net changes of the relations below it.
#[derive(Clone, Debug, Default)]
pub(crate) struct FromBelow<'a> {
    /// Per relation, the first row id that counts as new in round 1 (for a relation below
    /// the level: the first row appended in this batch; for the level's own and those above:
    /// their end).
    pub(crate) delta_from: Vec<RowId>,
    /// Rows of relations below that this batch made live again without appending them
    /// (revived EDB facts): each seeds the positive atoms over its relation.
    pub(crate) revived: &'a [RowRef],
    /// Facts the relations below lost (tombstones, still readable): each seeds the negated
    /// atoms over its relation.
    pub(crate) removed: &'a [RowRef],
    /// The rules to run; `None`: every rule of the level. Materialisation runs one stratum
    /// at a time.
    pub(crate) rules: Option<&'a [usize]>,
}

/// Runs phase 3 of level 0 from A+, appending to `relations`.
pub(crate) fn insert(
    program: &Program,
    relations: &mut [Relation],
    plans: &Plans,
    additions: &[Fact],
    trace_facts: bool,
    rec: Option<&mut Recorder>,
) -> Inserted {
    // Nothing to add: no round, and none of the per-relation scratch below (a batch that
    // only deletes would otherwise pay for it, from cold caches, on every batch).
    if additions.is_empty() {
        return Inserted::default();
    }
    // Per relation, one batch: its indexes are maintained together.
    let mut by_rel: Vec<Vec<&Tuple>> = vec![Vec::new(); relations.len()];
    for f in additions {
        by_rel[f.rel].push(&f.tuple);
    }
    insert_rows(
        program,
        relations,
        plans,
        0,
        by_rel.iter().map(|rows| rows.iter().copied()),
        None,
        trace_facts,
        rec,
    )
}

/// Phase 3 of level `level`: [`insert`] of rows given as an iterator per relation
/// (`additions`, in relation order: A+, or program facts at materialisation), so that a
/// caller holding them elsewhere (the EDB, at materialisation) lends them instead of copying
/// them into facts or even listing them (a list of references was 8 bytes a row of the
/// peak); above level 0, also from the changes below (`below`). With `rec`, every fact added
/// is recorded with the first instance that derived it (the rows given, outright).
#[allow(clippy::too_many_arguments)]
pub(crate) fn insert_rows<'t, I>(
    program: &Program,
    relations: &mut [Relation],
    plans: &Plans,
    level: usize,
    additions: impl IntoIterator<Item = I>,
    below: Option<FromBelow<'_>>,
    trace_facts: bool,
    mut rec: Option<&mut Recorder>,
) -> Inserted
where
    I: Iterator<Item = &'t Tuple> + Clone,
{
    let start: Vec<RowId> = relations.iter().map(Relation::end).collect();
    let work = WorkCounter::default();
    // Round 1's facts are copied only for a trace: a copy allocates, and on 1,000-edge
    // insertions the copies were a seventh of the phase.
    let mut added: Vec<Fact> = Vec::new();
    let mut offered = 0;
    let mut first = 0;
    let mut revived: Vec<(usize, RowId)> = Vec::new();
    for (rel, rows) in additions.into_iter().enumerate() {
        if rows.clone().next().is_none() {
            continue;
        }
        // Only EDB facts are revived (level 0): an aggregate's new row above it is appended
        // even where a tombstone holds its values, so that the batch's new rows of a level
        // are the rows past the level's start.
        // (A program fact of a derived relation is appended too: a recomputation evaluates
        // the relation again after deleting it.)
        let revive = level == 0 && !program.is_idb(rel);
        relations[rel].insert_batch_with(rows, revive, |row, o| {
            offered += 1;
            match o {
                Insertion::Present => return,
                Insertion::Appended => {}
                Insertion::Revived(r) => {
                    // Only EDB facts are revived: A+ of a batch is EDB (an `.input` relation
                    // has no rules), and program facts go into empty relations.
                    debug_assert!(!program.is_idb(rel), "revived a derived fact");
                    revived.push((rel, r));
                }
            }
            first += 1;
            if trace_facts {
                added.push(Fact::new(rel, row.clone()));
            }
            if let Some(rec) = rec.as_deref_mut() {
                rec.note(level, Phase::Insert, 1, rel, row, None, &[]);
            }
        });
    }
    work.probe(offered);
    let mut out = Inserted::default();
    let mut negated: &[RowRef] = &[];
    let mut versions: Vec<Versions> = relations
        .iter()
        .zip(&start)
        .map(|(r, &s)| Versions {
            old_end: s,
            delta_end: r.end(),
        })
        .collect();
    let mut from_below = false;
    // The rules run in groups, each to its fixpoint before the next: the rules the caller
    // names as one group, or else the level's strata in dependency order. Why strata: a
    // rule of a later stratum run with the level's rules together fires in every round of
    // an earlier stratum's fixpoint, joining each round's few new rows against relations
    // still growing; run after it, it sees the earlier stratum complete, and can choose to
    // evaluate itself afresh when that reads fewer rows (`evaluation_reads_less`).
    let groups: Vec<(&[usize], bool)> = match below.as_ref().and_then(|b| b.rules) {
        Some(rules) => vec![(rules, false)],
        None => program
            .strata
            .iter()
            .filter(|s| s.level == level && !s.rules.is_empty())
            .map(|s| (s.rules.as_slice(), true))
            .collect(),
    };
    if let Some(below) = below {
        for (v, &from) in versions.iter_mut().zip(&below.delta_from) {
            from_below |= from < v.delta_end;
            v.old_end = v.old_end.min(from);
        }
        revived.extend_from_slice(below.revived);
        negated = below.removed;
        from_below |= !revived.is_empty() || !negated.is_empty();
    }
    if first == 0 && !from_below {
        out.work = work.total();
        return out;
    }
    // Where each group's first round starts: rows past these are new in this phase.
    let new_from: Vec<RowId> = versions.iter().map(|v| v.old_end).collect();
    // Above level 0 the rows added outright (an aggregate's new rows) belong to round 1 with
    // the facts the changes below derive: their round is pushed with the first derived one.
    let merge_first = from_below && level > 0;
    let mut first_round = Some((added, first));
    if first > 0 && !merge_first {
        let (added, _) = first_round.take().expect("not taken yet");
        out.rounds
            .push(phase3_round(level, 1, first, added, trace_facts));
    }
    let atom_rels = &plans.atom_rels;
    let mut buf: Vec<Value> = Vec::new();
    let mut seed: Vec<Value> = Vec::new();
    let mut in_group = vec![false; program.rules.len()];
    for (rules, may_evaluate) in groups {
        in_group.iter_mut().for_each(|x| *x = false);
        for &ri in rules {
            in_group[ri] = true;
        }
        for ((v, r), &from) in versions.iter_mut().zip(relations.iter()).zip(&new_from) {
            v.old_end = from;
            v.delta_end = r.end();
        }
        let in_group_plans =
            |plans: &[crate::plan::RulePlan]| plans.iter().any(|p| in_group[p.rule]);
        let group_seeds = negated
            .iter()
            .filter(|&&(rel, _)| in_group_plans(plans.negated(level, rel)))
            .count()
            + revived
                .iter()
                .filter(|&&(rel, _)| in_group_plans(plans.seeded(level, rel)))
                .count();
        // Evaluated afresh, the group's round 1 reads every row (only each rule's plan of
        // its first atom finds anything: the others' earlier atoms have no old rows), and no
        // seed is needed: the evaluation finds every instance, those of the seeds included.
        let evaluate = may_evaluate
            && evaluation_reads_less(
                program,
                plans,
                relations,
                &versions,
                atom_rels,
                rules,
                group_seeds,
            );
        if evaluate {
            versions.iter_mut().for_each(|v| v.old_end = 0);
        }
        let mut first_of_group = !evaluate;
        loop {
            crate::rounds::check(out.rounds.len() + 1, || {
                let rels = program.strata.iter().filter(|s| s.level == level);
                crate::rounds::names(program, rels.flat_map(|s| s.relations.iter().copied()))
            });
            let mut noting = rec.as_deref_mut().map(|rec| Noting {
                rec,
                level,
                round: out.rounds.len() + 1,
            });
            if std::mem::take(&mut first_of_group) {
                // In the group's first round: facts lost below, each as the seed of the
                // negated atoms of its relation; revived facts, each as the seed of every atom
                // of its relation. The rest of the body over the same rows as the delta
                // plans' (not this round's heads).
                let lost = negated
                    .iter()
                    .map(|&(rel, r)| (rel, r, plans.negated(level, rel)));
                let back = revived
                    .iter()
                    .map(|&(rel, r)| (rel, r, plans.seeded(level, rel)));
                for (rel, r, seeded) in lost.chain(back) {
                    seed.clear();
                    seed.extend_from_slice(relations[rel].row(r));
                    for plan in seeded.iter().filter(|p| in_group[p.rule]) {
                        let s = Some(seed.as_slice());
                        insert_instances(
                            relations,
                            &versions,
                            &work,
                            plan,
                            s,
                            &mut buf,
                            noting.as_mut(),
                        );
                    }
                }
            }
            for &ri in rules {
                for (p, plan) in plans.semi_naive[ri].iter().enumerate() {
                    let v = versions[atom_rels[ri][p]];
                    if v.old_end >= v.delta_end || sees_nothing(plan, &versions) {
                        continue;
                    }
                    // head :- old(b_1..b_{p-1}), delta(b_p), full(b_{p+1}..b_n)
                    insert_instances(
                        relations,
                        &versions,
                        &work,
                        plan,
                        None,
                        &mut buf,
                        noting.as_mut(),
                    );
                }
            }
            let mut facts = Vec::new();
            let mut size = 0;
            if merge_first {
                if let Some((added, n)) = first_round.take() {
                    facts = added;
                    size = n;
                }
            }
            for (rel, r) in relations.iter().enumerate() {
                let v = &mut versions[rel];
                v.old_end = v.delta_end;
                v.delta_end = r.end();
                // Rows appended in phase 3 are live: nothing is removed in this phase.
                size += (v.delta_end - v.old_end) as usize;
                if trace_facts {
                    facts.extend(
                        (v.old_end..v.delta_end).map(|row| Fact::new(rel, r.row(row).to_vec())),
                    );
                }
            }
            if size == 0 {
                break;
            }
            let round = out.rounds.len() + 1;
            out.rounds
                .push(phase3_round(level, round, size, facts, trace_facts));
        }
    }
    // A level without rules (an aggregate's alone) still has its round of rows added.
    if let Some((facts, size)) = first_round.filter(|&(_, n)| n > 0) {
        let round = out.rounds.len() + 1;
        out.rounds
            .push(phase3_round(level, round, size, facts, trace_facts));
    }
    out.inserted = relations
        .iter()
        .enumerate()
        .filter(|(rel, _)| program.is_idb(*rel))
        .map(|(rel, r)| (start[rel]..r.end()).filter(|&row| r.is_live(row)).count())
        .sum();
    out.work = work.total();
    out
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use crate::engine::{Batch, Edb, Engine, Fact, RequestedBatch};
    use crate::{load_program, Dred, SourceFile, Symbols};

    /// A liveness-style analysis: `uninit` spreads along a chain of `n` points from where
    /// each of `k` paths is moved, and a nonrecursive rule joins it with the sparse `init`.
    /// Cutting the chain's first edge removes nearly every `uninit` fact; putting it back
    /// brings them back. Insertion then reads `uninit`'s new rows through the rule's delta
    /// plan, one join per new row, where evaluating the rule's stratum afresh reads `init`'s
    /// few rows: the stratum is evaluated, and phase 3 costs about one evaluation of the
    /// model, not 2.7 as it did on getopts' liveness analysis.
    #[test]
    fn reinsertion_that_brings_back_most_of_a_stratum_costs_about_an_evaluation() {
        let source = "
.decl edge(p: symbol, q: symbol)
.decl moved(m: symbol, p: symbol)
.decl init(m: symbol, p: symbol)
.decl uninit(m: symbol, p: symbol)
.decl cond(m: symbol, q: symbol)
.input edge
.input moved
.input init
.output cond
uninit(m, p) :- moved(m, p).
uninit(m, q) :- uninit(m, p), edge(p, q).
cond(m, q) :- init(m, q), edge(p, q), uninit(m, p).
";
        let mut symbols = Symbols::new();
        let program = Arc::new(
            load_program(&SourceFile::new("live.dl", source), &mut symbols).expect("program"),
        );
        let rel = |name: &str| program.relation_id(name).expect(name);
        let (edge, moved, init) = (rel("edge"), rel("moved"), rel("init"));
        let (n, k) = (200, 20);
        let mut edb = Edb::empty(&program);
        let point = |i: usize, s: &mut Symbols| s.intern(&format!("p{i}"));
        for i in 0..n {
            let (a, b) = (point(i, &mut symbols), point(i + 1, &mut symbols));
            edb.insert(Fact::new(edge, vec![a, b]));
        }
        for m in 0..k {
            let path = symbols.intern(&format!("m{m}"));
            edb.insert(Fact::new(moved, vec![path, point(0, &mut symbols)]));
            for i in (0..n).step_by(10) {
                edb.insert(Fact::new(init, vec![path, point(i, &mut symbols)]));
            }
        }
        let cut = Fact::new(edge, vec![point(0, &mut symbols), point(1, &mut symbols)]);
        let mut dred = Dred::new(program.clone());
        let m = dred.materialise(&edb).expect("materialise");
        let evaluation = m.insert_work.expect("counted");
        let delete = Batch::normalise(
            &RequestedBatch {
                deletions: vec![cut.clone()],
                insertions: vec![],
            },
            &edb,
        );
        edb.apply(&delete);
        dred.apply(&delete).expect("delete");
        let reinsert = Batch::normalise(
            &RequestedBatch {
                deletions: vec![],
                insertions: vec![cut],
            },
            &edb,
        );
        edb.apply(&reinsert);
        let r = dred.apply(&reinsert).expect("re-insert");
        let back = r.inserted.expect("counted");
        assert!(back > n * k * 9 / 10, "re-inserted {back}");
        let mut oracle = crate::Oracle::new(program.clone());
        oracle.materialise(&edb).expect("oracle");
        assert_eq!(dred.model(), oracle.model());
        let work = r.insert_work.expect("counted");
        let (work, evaluation) = (
            work.probes + work.touched,
            evaluation.probes + evaluation.touched,
        );
        // 0.96 evaluations; through the rule's delta plans instead (the stratum not evaluated
        // afresh), 1.89.
        assert!(
            work * 10 < evaluation * 11,
            "phase 3 {work}, evaluation {evaluation}"
        );
    }
}
