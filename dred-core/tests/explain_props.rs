//! `explain` on random programs and update streams: for `dred`, `reference` and `bf`, every
//! fact of every round of every batch gets an explanation, and every explanation passes
//! [`BatchExplanation::verify`] (the instance's head is the fact, its body facts match the
//! rule under one binding and stand where it says, in the round stated, and its trigger puts
//! it in its round) — positive programs and programs with negation and aggregates. Every
//! engine is explained twice: from the derivations it recorded while running each batch, and
//! by the search after the batch.

use dred_core::explain::{BatchExplanation, BatchStates};
use dred_core::record::Derivation;
use dred_core::testing::random_case;
use dred_core::{Batch, Bf, Dred, Engine, Reference};
use proptest::prelude::*;

/// An engine under test, recording its derivations or not.
enum Under {
    Dred(Dred),
    Reference(Reference),
    Bf(Bf),
}

impl Under {
    fn engine(&mut self) -> &mut dyn Engine {
        match self {
            Under::Dred(e) => e,
            Under::Reference(e) => e,
            Under::Bf(e) => e,
        }
    }

    fn recorded(&self) -> Option<Vec<Derivation>> {
        match self {
            Under::Dred(e) => e.last_derivations().map(<[Derivation]>::to_vec),
            Under::Reference(e) => e.last_derivations().map(<[Derivation]>::to_vec),
            Under::Bf(e) => e.last_derivations().map(<[Derivation]>::to_vec),
        }
    }
}

/// What the explanations of a case contained, for the non-triviality floors.
#[derive(Default, Debug, Clone, Copy)]
struct Seen {
    /// An over-deleted fact whose chain has three steps or more.
    long_chain: bool,
    /// A rederived fact explained by an instance.
    rederived: bool,
    /// An inserted fact of round 2 or later.
    inserted: bool,
    /// A trigger from a level below (lost or gained).
    from_below: bool,
}

fn explain_every_batch(
    case: &dred_core::testing::RandomCase,
) -> Result<(usize, Seen), TestCaseError> {
    use dred_core::explain::{Place, Source};
    use dred_core::Phase;
    let mut seen = Seen::default();
    let loaded = case.load().map_err(TestCaseError::fail)?;
    let program = loaded.program.clone();
    let mut explained = 0;
    // Explanations follow DRed's own frontiers: no saturation (recording turns it off, and
    // the run it is compared with must match).
    let plain_dred = || {
        let mut e = Dred::new(program.clone());
        e.set_saturation(dred_core::dred::production::overdelete::Saturation::Never);
        e
    };
    let recording_dred = {
        let mut e = plain_dred();
        e.set_recording(true);
        e
    };
    let recording_bf = {
        let mut e = Bf::new(program.clone());
        e.set_recording(true);
        e
    };
    let recording_reference = {
        let mut e = Reference::new(program.clone());
        e.set_recording(true);
        e
    };
    let engines = vec![
        Under::Dred(recording_dred),
        Under::Dred(plain_dred()),
        Under::Reference(recording_reference),
        Under::Reference(Reference::new(program.clone())),
        Under::Bf(recording_bf),
        Under::Bf(Bf::new(program.clone())),
    ];
    // Per engine, its model after every batch: recording must not change what is computed.
    let mut models: Vec<Vec<dred_core::Model>> = Vec::new();
    for mut under in engines {
        let mut edb = loaded.edb.clone();
        let mut after = Vec::new();
        under
            .engine()
            .materialise(&edb)
            .map_err(|e| TestCaseError::fail(e.to_string()))?;
        for (i, requested) in loaded.batches.iter().enumerate() {
            let engine = under.engine();
            let batch = Batch::normalise(requested, &edb);
            let old_model = engine.model();
            let report = engine
                .apply(&batch)
                .map_err(|e| TestCaseError::fail(e.to_string()))?;
            let new_model = engine.model();
            after.push(new_model.clone());
            let name = engine.name().to_string();
            let recorded = under.recorded();
            let name = if recorded.is_some() {
                format!("{name} (recorded)")
            } else {
                name
            };
            let x = BatchExplanation::of(&BatchStates {
                program: &program,
                old_edb: &edb,
                batch: &batch,
                old_model: &old_model,
                new_model: &new_model,
                rounds: &report.rounds,
                recorded: recorded.as_deref(),
            })
            .map_err(|e| {
                TestCaseError::fail(format!("{name} batch {}: {e}\n{}", i + 1, case.program()))
            })?;
            x.verify(&program, &batch).map_err(|e| {
                TestCaseError::fail(format!("{name} batch {}: {e}\n{}", i + 1, case.program()))
            })?;
            // A recording engine records one derivation per fact of each round, no more.
            if let Some(recorded) = &recorded {
                let facts: usize = report.rounds.iter().map(|r| r.facts.len()).sum();
                prop_assert_eq!(recorded.len(), facts, "{}", name);
            }
            for (f, es) in &x.entries {
                for e in es {
                    let Source::Instance(inst) = &e.source else {
                        continue;
                    };
                    match e.phase {
                        Phase::Overdelete | Phase::Delete => {
                            seen.long_chain |= x.chain(f, e).len() >= 3;
                        }
                        Phase::Rederive => seen.rederived = true,
                        Phase::Insert => seen.inserted |= e.round >= 2,
                    }
                    seen.from_below |= inst
                        .trigger
                        .as_ref()
                        .is_some_and(|t| matches!(t.place, Place::LostBelow | Place::GainedBelow));
                }
            }
            let facts: usize = report.rounds.iter().map(|r| r.facts.len()).sum();
            prop_assert_eq!(x.entries.values().map(Vec::len).sum::<usize>(), facts);
            explained += facts;
            edb.apply(&batch);
        }
        models.push(after);
    }
    // Engines 0 and 1 are `dred` with and without recording, 2 and 3 the reference, 4 and 5
    // `bf`.
    prop_assert!(models[0] == models[1], "recording changed dred's models");
    prop_assert!(
        models[2] == models[3],
        "recording changed the reference's models"
    );
    prop_assert!(models[4] == models[5], "recording changed bf's models");
    Ok((explained, seen))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn every_fact_of_every_round_is_explained_and_verified(
        case in prop_oneof![random_case(false), random_case(true), random_case(true).prop_map(|c| c.split_batches())]
    ) {
        explain_every_batch(&case)?;
    }
}

/// The property is not vacuous: on a fixed sample of cases with negation and aggregates, the
/// share of cases whose explanations include a chain of three steps or more, a rederivation
/// by an instance, an insertion of round 2 or later, and a trigger from a level below.
#[test]
fn explanations_are_not_trivial() {
    use proptest::strategy::ValueTree;
    const SAMPLE: usize = 300;
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    let strategy = prop_oneof![random_case(false), random_case(true)];
    let (mut chain, mut rederived, mut inserted, mut below) = (0, 0, 0, 0);
    for _ in 0..SAMPLE {
        let case = strategy.new_tree(&mut runner).expect("a case").current();
        let (_, seen) = explain_every_batch(&case).expect("explained");
        chain += usize::from(seen.long_chain);
        rederived += usize::from(seen.rederived);
        inserted += usize::from(seen.inserted);
        below += usize::from(seen.from_below);
    }
    eprintln!(
        "of {SAMPLE} cases: chain of 3+ steps {chain}, rederived by an instance {rederived}, \
         inserted in round 2+ {inserted}, triggered from below {below}"
    );
    // Floors (per mille) at about two thirds of what this sample gave when they were set:
    // 37, 53, 89 and 51 cases of 300. Session 35: the symbol half of the sample now draws
    // string functors, whose filters left chains of 3+ steps in 23 cases; that floor is two
    // thirds of it.
    for (what, n, floor) in [
        ("chain of 3+ steps", chain, 51),
        ("rederived by an instance", rederived, 120),
        ("inserted in round 2+", inserted, 200),
        ("triggered from below", below, 110),
    ] {
        assert!(n * 1000 >= floor * SAMPLE, "{what}: {n} of {SAMPLE}");
    }
}

/// A fact B/F deletes above level 0 is recorded with an instance that held before the batch,
/// even when the batch also gains a fact below that completes another instance reaching it
/// first: here `u(c0)`'s forward step through `p(c3, c3)` may not use `f(c3, c3)`, inserted
/// in the same batch (found by `every_fact_of_every_round_is_explained_and_verified`).
#[test]
fn bf_records_deletions_by_instances_that_held_before() {
    use dred_core::testing::{RandomCase, Update};
    let fact = |rel: &str, values: &[&str]| {
        (
            rel.to_string(),
            values.iter().map(|v| v.to_string()).collect(),
        )
    };
    let update = |insert: bool, rel: &str, values: &[&str]| Update {
        insert,
        rel: rel.to_string(),
        values: values.iter().map(|v| v.to_string()).collect(),
    };
    let case = RandomCase {
        ty: dred_core::testing::ColumnType::Symbol,
        header: [
            ".decl e(a0: symbol, a1: symbol)",
            ".decl f(a0: symbol, a1: symbol)",
            ".decl g(a0: symbol)",
            ".decl k(a0: symbol, a1: symbol, a2: symbol)",
            ".decl p(a0: symbol, a1: symbol)",
            ".decl q(a0: symbol)",
            ".decl u(a0: symbol)",
            ".input e",
            ".input f",
            ".input g",
            ".input k",
            ".output p",
            ".output q",
            ".output u",
            "",
        ]
        .join("\n"),
        rules: [
            r#"u(x) :- k(x, y, _), !f(_, "c3")."#,
            "q(x) :- e(x, x).",
            "p(x, x) :- u(x).",
            "u(y) :- p(z, x), f(z, z), e(x, y).",
        ]
        .map(String::from)
        .to_vec(),
        edb: vec![
            fact("k", &["c2", "c0", "c0"]),
            fact("f", &["c2", "c3"]),
            fact("e", &["c2", "c0"]),
            fact("g", &["c0"]),
            fact("e", &["c0", "c0"]),
            fact("f", &["c2", "c2"]),
            fact("k", &["c3", "c0", "c0"]),
            fact("e", &["c3", "c0"]),
        ],
        batches: vec![
            vec![update(false, "f", &["c2", "c3"])],
            vec![
                update(true, "f", &["c3", "c3"]),
                update(true, "f", &["c2", "c2"]),
            ],
        ],
    };
    explain_every_batch(&case).expect("every fact explained and verified");
}
