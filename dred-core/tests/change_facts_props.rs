//! The set-based maintenance engines keep each batch's net change as facts
//! (`Engine::keep_change_facts`, what `dredbench serve` answers with): after every batch of
//! random programs and update streams (stratified negation and aggregates included), the
//! facts removed and added are exactly the difference of the models before and after, and
//! their numbers are the engine's `net_change`. Every deletion algorithm of the chassis is
//! exercised: DRed (saturating by default and always), B/F, recomputing the affected levels,
//! `auto` abandoning DRed, and the three rotated batch by batch.

use std::collections::BTreeSet;

use dred_core::auto::Choosing;
use dred_core::dred::production::overdelete::Saturation;
use dred_core::engine::{Batch, Fact};
use dred_core::maintain::recompute::RecomputeLevels;
use dred_core::per_batch::{Method, PerBatch};
use dred_core::testing::random_case_with;
use dred_core::{Auto, Bf, Dred, Engine, Model};
use proptest::prelude::*;

/// `a` minus `b`, as a set of facts.
fn difference(a: &Model, b: &Model) -> BTreeSet<Fact> {
    a.minus(b)
        .into_iter()
        .flat_map(|(rel, ts)| ts.into_iter().map(move |t| Fact::new(rel, t)))
        .collect()
}

/// The engines under test, fresh, for `program`.
fn engines(program: &std::sync::Arc<dred_core::Program>) -> Vec<Box<dyn Engine>> {
    let mut saturating = Dred::new(program.clone());
    saturating.set_saturation(Saturation::Always);
    let mut abandoning = Auto::new(program.clone());
    abandoning.set_choosing(Choosing::Abandoning(Method::Dred));
    vec![
        Box::new(Dred::new(program.clone())),
        Box::new(saturating),
        Box::new(Bf::new(program.clone())),
        Box::new(RecomputeLevels::new(program.clone())),
        Box::new(abandoning),
        Box::new(PerBatch::rotating(program.clone())),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn kept_change_is_the_models_difference(case in random_case_with(true, true)) {
        let loaded = case.load().expect("generated cases load");
        for mut engine in engines(&loaded.program) {
            prop_assert!(engine.keep_change_facts(true), "{} keeps its change", engine.name());
            let mut edb = loaded.edb.clone();
            engine.materialise(&edb).expect("materialises");
            let mut before = engine.model();
            for (k, requested) in loaded.batches.iter().enumerate() {
                let batch = Batch::normalise(requested, &edb);
                edb.apply(&batch);
                engine.apply(&batch).expect("applies");
                let after = engine.model();
                let change = engine.take_change_facts().expect("a kept change");
                let removed: BTreeSet<Fact> = change.removed.to_facts().into_iter().collect();
                let added: BTreeSet<Fact> = change.added.to_facts().into_iter().collect();
                let what = format!("{} batch {}", engine.name(), k + 1);
                prop_assert_eq!(removed.len(), change.removed.len(), "{} removes a fact twice", what);
                prop_assert_eq!(added.len(), change.added.len(), "{} adds a fact twice", what);
                prop_assert_eq!(&removed, &difference(&before, &after), "removed, {}", what);
                prop_assert_eq!(&added, &difference(&after, &before), "added, {}", what);
                let net = engine.net_change().expect("a net change");
                prop_assert_eq!((net.removed, net.added), (removed.len(), added.len()), "{}", what);
                prop_assert!(engine.take_change_facts().is_none(), "taken once, {}", what);
                before = after;
            }
        }
    }
}

/// Not kept unless asked: no change facts, and asking stops when told.
#[test]
fn change_is_kept_only_when_asked() {
    let mut symbols = dred_core::Symbols::new();
    let program = dred_core::load_program(
        &dred_core::SourceFile::new(
            "t.dl",
            ".decl e(x: number, y: number)\n.input e\n.decl p(x: number, y: number)\n\
             p(x, y) :- e(x, y).\np(x, z) :- p(x, y), e(y, z).\n",
        ),
        &mut symbols,
    )
    .expect("valid");
    let program = std::sync::Arc::new(program);
    let mut edb = dred_core::Edb::empty(&program);
    edb.insert(Fact::new(0, vec![1, 2]));
    let mut engine = Dred::new(program.clone());
    engine.materialise(&edb).expect("materialises");
    let batch = |f: Fact| {
        Batch::normalise(
            &dred_core::RequestedBatch {
                deletions: Vec::new(),
                insertions: vec![f],
            },
            &dred_core::Edb::empty(&program),
        )
    };
    engine
        .apply(&batch(Fact::new(0, vec![2, 3])))
        .expect("applies");
    assert!(engine.take_change_facts().is_none());
    assert!(engine.keep_change_facts(true));
    engine
        .apply(&batch(Fact::new(0, vec![3, 4])))
        .expect("applies");
    let change = engine.take_change_facts().expect("kept");
    assert!(change.removed.is_empty());
    assert_eq!(change.added.len(), 3, "p(3,4), p(2,4), p(1,4): {change:?}");
    engine.keep_change_facts(false);
    engine
        .apply(&batch(Fact::new(0, vec![4, 5])))
        .expect("applies");
    assert!(engine.take_change_facts().is_none());
}
