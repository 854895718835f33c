//! Property test of the reference DRed engine on random positive programs, EDBs and update
//! streams from the shared generator (`dred_core::testing`): after every batch its model equals `recompute`'s and the oracle's, and its
//! over-deleted, rederived and inserted sets are the ones the definitions give, computed here
//! independently by brute force:
//! - over-deleted (D ∩ J): the old facts with some old proof using a deleted fact — the least
//!   set A such that the head of every old successful instance with a body fact in D- ∪ A is
//!   in A (a naive fixpoint over instances enumerated by nested scans in this file);
//! - rederived: A ∩ L⁻, where L⁻ is the least model on I \ D-;
//! - inserted: J′ \ L⁻.

use std::collections::BTreeSet;

use dred_core::program::{Literal, Rule, Term};
use dred_core::syntax::ast::CmpOp;
use dred_core::testing::{random_case, LoadedCase};
use dred_core::{
    Batch, Edb, Engine, Fact, Model, Oracle, Phase, Program, Recompute, Reference, Tuple, Value,
};
use proptest::prelude::*;

/// Every ground instance of `rule` whose body holds in `db`: (head, positive body facts).
/// Plain nested scans in body order; assignments, then comparisons, when everything is bound.
fn instances(rule: &Rule, db: &[BTreeSet<Tuple>]) -> Vec<(Fact, Vec<Fact>)> {
    fn go(
        rule: &Rule,
        atoms: &[&dred_core::program::Atom],
        db: &[BTreeSet<Tuple>],
        binding: &mut Vec<Option<Value>>,
        body: &mut Vec<Fact>,
        out: &mut Vec<(Fact, Vec<Fact>)>,
    ) {
        let Some((atom, rest)) = atoms.split_first() else {
            let value = |t: &Term, b: &[Option<Value>]| match t {
                Term::Const(c) => *c,
                Term::Var(v) => b[*v].expect("bound"),
                Term::Wildcard => unreachable!("no wildcard in heads or comparisons"),
            };
            // Assignments first, in body order: each binds its variable or checks it.
            let mut binding = binding.clone();
            for lit in &rule.body {
                if let Literal::Assign { var, expr } = lit {
                    let Some(v) = expr.eval(&|x| binding[x].expect("bound")) else {
                        return;
                    };
                    if *binding[*var].get_or_insert(v) != v {
                        return;
                    }
                }
            }
            let binding = &binding;
            for lit in &rule.body {
                if let Literal::Compare { left, op, right } = lit {
                    let (l, r) = (value(left, binding), value(right, binding));
                    let holds = match op {
                        CmpOp::Eq => l == r,
                        CmpOp::Ne => l != r,
                        CmpOp::Lt => l < r,
                        CmpOp::Le => l <= r,
                        CmpOp::Gt => l > r,
                        CmpOp::Ge => l >= r,
                    };
                    if !holds {
                        return;
                    }
                }
            }
            let head: Tuple = rule.head.args.iter().map(|t| value(t, binding)).collect();
            out.push((Fact::new(rule.head.rel, head), body.clone()));
            return;
        };
        for tuple in &db[atom.rel] {
            let saved = binding.clone();
            let matches = atom.args.iter().zip(tuple).all(|(t, &v)| match *t {
                Term::Wildcard => true,
                Term::Const(c) => c == v,
                Term::Var(x) => match binding[x] {
                    Some(b) => b == v,
                    None => {
                        binding[x] = Some(v);
                        true
                    }
                },
            });
            if matches {
                body.push(Fact::new(atom.rel, tuple.clone()));
                go(rule, rest, db, binding, body, out);
                body.pop();
            }
            *binding = saved;
        }
    }
    let atoms: Vec<_> = rule.positive_atoms().collect();
    let mut out = Vec::new();
    go(
        rule,
        &atoms,
        db,
        &mut vec![None; rule.num_vars()],
        &mut Vec::new(),
        &mut out,
    );
    out
}

/// The old facts with a proof through a deleted fact: least A with head(i) ∈ A for every old
/// instance i with a body fact in D- ∪ A.
fn affected(program: &Program, edb: &Edb, model: &Model, deleted: &[Fact]) -> BTreeSet<Fact> {
    let mut db = edb.relations.clone();
    for (rel, ts) in model.relations.iter().enumerate() {
        db[rel].extend(ts.iter().cloned());
    }
    let all: Vec<(Fact, Vec<Fact>)> = program
        .rules
        .iter()
        .flat_map(|r| instances(r, &db))
        .collect();
    let deleted: BTreeSet<&Fact> = deleted.iter().collect();
    let mut affected = BTreeSet::new();
    loop {
        let mut grew = false;
        for (head, body) in &all {
            if !affected.contains(head)
                && body
                    .iter()
                    .any(|b| deleted.contains(b) || affected.contains(b))
            {
                affected.insert(head.clone());
                grew = true;
            }
        }
        if !grew {
            return affected;
        }
    }
}

fn model_facts(model: &Model) -> BTreeSet<Fact> {
    model
        .relations
        .iter()
        .enumerate()
        .flat_map(|(rel, ts)| ts.iter().map(move |t| Fact::new(rel, t.clone())))
        .collect()
}

fn phase_facts(report: &dred_core::BatchReport, phase: Phase) -> Vec<Fact> {
    report
        .rounds
        .iter()
        .filter(|r| r.phase == phase)
        .flat_map(|r| r.facts.iter().cloned())
        .collect()
}

fn show(set: &BTreeSet<Fact>) -> String {
    format!("{set:?}")
}

/// Runs one random case; every check named in the module docs, after every batch.
fn check_sets(case: &LoadedCase) -> Result<(), TestCaseError> {
    let program = case.program.clone();
    let text = &program.source.text;
    let mut edb = case.edb.clone();
    let mut reference = Reference::new(program.clone());
    let mut recompute = Recompute::new(program.clone());
    let mut oracle = Oracle::new(program.clone());
    reference.materialise(&edb).expect("materialises");
    recompute.materialise(&edb).expect("materialises");
    oracle.materialise(&edb).expect("materialises");
    prop_assert_eq!(reference.model(), oracle.model(), "initial model\n{}", text);

    for (n, requested) in case.batches.iter().enumerate() {
        let n = n + 1;
        let old_edb = edb.clone();
        let old_model = oracle.model();
        let batch = Batch::normalise(requested, &edb);
        edb.apply(&batch);
        let report = reference.apply(&batch).expect("applies");
        recompute.apply(&batch).expect("applies");
        oracle.apply(&batch).expect("applies");
        let model = reference.model();
        prop_assert_eq!(
            &model,
            &recompute.model(),
            "vs recompute, batch {}\n{}",
            n,
            text
        );
        prop_assert_eq!(&model, &oracle.model(), "vs oracle, batch {}\n{}", n, text);

        // Over-deleted: the IDB facts that entered D (round 1 is D- itself).
        let expected = affected(&program, &old_edb, &old_model, &batch.deletions);
        let over: BTreeSet<Fact> = phase_facts(&report, Phase::Overdelete)
            .into_iter()
            .filter(|f| program.is_idb(f.rel))
            .collect();
        prop_assert_eq!(
            show(&over),
            show(&expected),
            "over-deleted, batch {}\n{}",
            n,
            text
        );
        prop_assert_eq!(report.overdeleted, Some(expected.len()));
        let first_round = |phase: Phase| -> BTreeSet<Fact> {
            report
                .rounds
                .iter()
                .find(|r| r.phase == phase && r.round == 1)
                .map(|r| r.facts.iter().cloned().collect())
                .unwrap_or_default()
        };
        let d_minus: BTreeSet<Fact> = batch.deletions.iter().cloned().collect();
        prop_assert_eq!(
            first_round(Phase::Overdelete),
            d_minus,
            "overdelete round 1 is D-"
        );

        // Rederived: A ∩ L⁻, with L⁻ the least model without D- and before A+.
        let mut deleted_only = old_edb.clone();
        deleted_only.apply(&Batch {
            deletions: batch.deletions.clone(),
            ..Batch::default()
        });
        let l_minus = model_facts(&Oracle::least_model(&program, &deleted_only));
        let rederived: BTreeSet<Fact> = phase_facts(&report, Phase::Rederive).into_iter().collect();
        let expected_back: BTreeSet<Fact> = expected.intersection(&l_minus).cloned().collect();
        prop_assert_eq!(
            show(&rederived),
            show(&expected_back),
            "rederived, batch {}\n{}",
            n,
            text
        );
        prop_assert_eq!(report.rederived, Some(expected_back.len()));

        // Inserted: J' \ L⁻ (IDB facts only); round 1 of insert is A+.
        let new_facts = model_facts(&model);
        let expected_new: BTreeSet<Fact> = new_facts.difference(&l_minus).cloned().collect();
        let inserted: BTreeSet<Fact> = phase_facts(&report, Phase::Insert)
            .into_iter()
            .filter(|f| program.is_idb(f.rel))
            .collect();
        prop_assert_eq!(
            show(&inserted),
            show(&expected_new),
            "inserted, batch {}\n{}",
            n,
            text
        );
        prop_assert_eq!(report.inserted, Some(expected_new.len()));
        let a_plus: BTreeSet<Fact> = batch.insertions.iter().cloned().collect();
        prop_assert_eq!(first_round(Phase::Insert), a_plus, "insert round 1 is A+");
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn reference_agrees_and_overdeletes_exactly(case in random_case(false)) {
        let loaded = case.load().map_err(TestCaseError::fail)?;
        check_sets(&loaded)?;
    }
}
