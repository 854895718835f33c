//! Property test of the reference DRed engine on random positive programs, EDBs and update
//! streams: after every batch its model equals `recompute`'s and the oracle's, and its
//! over-deleted, rederived and inserted sets are the ones the definitions give, computed here
//! independently by brute force:
//! - over-deleted (D ∩ J): the old facts with some old proof using a deleted fact — the least
//!   set A such that the head of every old successful instance with a body fact in D- ∪ A is
//!   in A (a naive fixpoint over instances enumerated by nested scans in this file);
//! - rederived: A ∩ L⁻, where L⁻ is the least model on I \ D-;
//! - inserted: J′ \ L⁻.

use std::collections::BTreeSet;
use std::sync::Arc;

use dred_core::program::{Literal, Rule, Term};
use dred_core::syntax::ast::CmpOp;
use dred_core::{
    load_program, Batch, Edb, Engine, Fact, Model, Oracle, Phase, Program, Recompute, Reference,
    RequestedBatch, SourceFile, Symbols, Tuple, Value,
};
use proptest::prelude::*;

/// (name, arity, input) of the fixed schema every random program uses.
const SCHEMA: &[(&str, usize, bool)] = &[
    ("e", 2, true),
    ("f", 1, true),
    ("p", 2, false),
    ("q", 1, false),
    ("r", 0, false),
];
const IDB: &[usize] = &[2, 3, 4];
const VARS: &[&str] = &["x", "y", "z", "w"];

/// A random rule, as raw codes interpreted by [`render_rule`].
#[derive(Clone, Debug)]
struct RuleSpec {
    /// Index into [`IDB`].
    head: usize,
    /// One code per head column: picks a body variable, or a constant when there is none.
    head_args: Vec<u8>,
    /// (relation index into [`SCHEMA`], argument codes: 0–3 a variable, 4–6 a constant 0–2,
    /// 7 a wildcard).
    body: Vec<(usize, Vec<u8>)>,
    /// A comparison between two body variables: (operator, left, right) codes.
    compare: Option<(u8, u8, u8)>,
}

fn rule_spec() -> impl Strategy<Value = RuleSpec> {
    // Mostly variables, so that atoms join; EDB and recursive relations most often.
    let code = prop_oneof![7 => 0u8..4, 2 => 4u8..7, 1 => Just(7u8)];
    let rel = prop_oneof![
        3 => Just(0usize),
        1 => Just(1usize),
        3 => Just(2usize),
        2 => Just(3usize),
        1 => Just(4usize),
    ];
    let atom = (rel, prop::collection::vec(code, 2));
    (
        0..IDB.len(),
        prop::collection::vec(any::<u8>(), 2),
        prop::collection::vec(atom, 1..=3),
        prop::option::weighted(0.3, (0u8..3, any::<u8>(), any::<u8>())),
    )
        .prop_map(|(head, head_args, body, compare)| RuleSpec {
            head,
            head_args,
            body,
            compare,
        })
}

fn render_rule(spec: &RuleSpec) -> String {
    let mut body_vars: Vec<&str> = Vec::new();
    let mut atoms = Vec::new();
    for (rel, codes) in &spec.body {
        let (name, arity, _) = SCHEMA[*rel];
        let args: Vec<String> = codes[..arity]
            .iter()
            .map(|&c| match c {
                0..=3 => {
                    let v = VARS[c as usize];
                    if !body_vars.contains(&v) {
                        body_vars.push(v);
                    }
                    v.to_string()
                }
                4..=6 => (c - 4).to_string(),
                _ => "_".to_string(),
            })
            .collect();
        atoms.push(format!("{name}({})", args.join(", ")));
    }
    if let (Some((op, l, r)), false) = (spec.compare, body_vars.is_empty()) {
        let op = ["<", "!=", "<="][op as usize % 3];
        let l = body_vars[l as usize % body_vars.len()];
        let r = body_vars[r as usize % body_vars.len()];
        atoms.push(format!("{l} {op} {r}"));
    }
    let (name, arity, _) = SCHEMA[IDB[spec.head]];
    let head: Vec<String> = spec.head_args[..arity]
        .iter()
        .map(|&c| {
            if body_vars.is_empty() {
                (c % 3).to_string()
            } else {
                body_vars[c as usize % body_vars.len()].to_string()
            }
        })
        .collect();
    format!("{name}({}) :- {}.\n", head.join(", "), atoms.join(", "))
}

/// Program text: the schema, 1–5 random rules and 0–2 program facts.
fn program_text() -> impl Strategy<Value = String> {
    (
        prop::collection::vec(rule_spec(), 1..=5),
        prop::collection::vec((0..IDB.len(), 0i64..3, 0i64..3), 0..=2),
    )
        .prop_map(|(rules, facts)| {
            let mut text = String::new();
            for (name, arity, input) in SCHEMA {
                let cols: Vec<String> = (0..*arity).map(|i| format!("c{i}: number")).collect();
                text.push_str(&format!(".decl {name}({})\n", cols.join(", ")));
                if *input {
                    text.push_str(&format!(".input {name}\n"));
                }
            }
            for r in &rules {
                text.push_str(&render_rule(r));
            }
            for (rel, a, b) in facts {
                let (name, arity, _) = SCHEMA[IDB[rel]];
                let args: Vec<String> = [a, b][..arity].iter().map(i64::to_string).collect();
                text.push_str(&format!("{name}({}).\n", args.join(", ")));
            }
            text
        })
}

/// An EDB fact: relation 0 (`e`) or 1 (`f`), values below `max`.
fn edb_fact(max: i64) -> impl Strategy<Value = Fact> {
    (
        prop_oneof![3 => Just(0usize), 1 => Just(1usize)],
        0..max,
        0..max,
    )
        .prop_map(|(rel, a, b)| {
            let tuple = if rel == 0 { vec![a, b] } else { vec![a] };
            Fact::new(rel, tuple)
        })
}

/// A requested deletion: mostly a present fact (picked by index when the batch is applied),
/// sometimes any fact (possibly absent).
#[derive(Clone, Debug)]
enum Deletion {
    Present(usize),
    Any(Fact),
}

/// A batch as generated: deletions to resolve against the EDB, and insertions (value 4 never
/// occurs in the initial EDB: a fresh constant).
#[derive(Clone, Debug)]
struct BatchSpec {
    deletions: Vec<Deletion>,
    insertions: Vec<Fact>,
}

impl BatchSpec {
    fn resolve(&self, edb: &Edb) -> RequestedBatch {
        let present: Vec<Fact> = edb.facts().collect();
        let deletions = self
            .deletions
            .iter()
            .filter_map(|d| match d {
                Deletion::Present(i) if !present.is_empty() => {
                    Some(present[i % present.len()].clone())
                }
                Deletion::Present(_) => None,
                Deletion::Any(f) => Some(f.clone()),
            })
            .collect();
        RequestedBatch {
            deletions,
            insertions: self.insertions.clone(),
        }
    }
}

fn batch_spec() -> impl Strategy<Value = BatchSpec> {
    let deletion = prop_oneof![
        4 => any::<usize>().prop_map(Deletion::Present),
        1 => edb_fact(5).prop_map(Deletion::Any),
    ];
    (
        prop::collection::vec(deletion, 0..=3),
        prop::collection::vec(edb_fact(5), 0..=3),
    )
        .prop_map(|(deletions, insertions)| BatchSpec {
            deletions,
            insertions,
        })
}

/// Every ground instance of `rule` whose body holds in `db`: (head, positive body facts).
/// Plain nested scans in body order; comparisons tested when everything is bound.
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
fn check_case(
    text: &str,
    initial: BTreeSet<Fact>,
    batches: &[BatchSpec],
) -> Result<(), TestCaseError> {
    let mut symbols = Symbols::new();
    let program = load_program(&SourceFile::new("random.dl", text), &mut symbols)
        .unwrap_or_else(|d| panic!("generated program must check:\n{text}\n{}", d.render()));
    let program = Arc::new(program);
    let mut edb = Edb::empty(&program);
    for f in initial {
        edb.insert(f);
    }
    let mut reference = Reference::new(program.clone());
    let mut recompute = Recompute::new(program.clone());
    let mut oracle = Oracle::new(program.clone());
    reference.materialise(&edb).expect("materialises");
    recompute.materialise(&edb).expect("materialises");
    oracle.materialise(&edb).expect("materialises");
    prop_assert_eq!(reference.model(), oracle.model(), "initial model\n{}", text);

    for (n, spec) in batches.iter().enumerate() {
        let n = n + 1;
        let old_edb = edb.clone();
        let old_model = oracle.model();
        let batch = Batch::normalise(&spec.resolve(&edb), &edb);
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
    fn reference_agrees_and_overdeletes_exactly(
        text in program_text(),
        initial in prop::collection::btree_set(edb_fact(4), 0..16),
        batches in prop::collection::vec(batch_spec(), 1..=4),
    ) {
        check_case(&text, initial, &batches)?;
    }
}
