//! The production `dred` engine, the `reference` engine and the Backward/Forward engine `bf`
//! equal `recompute` and the naive `oracle` after every batch of random update streams on random programs from the shared
//! generator (`dred_core::testing`), positive and with stratified negation (maintained level
//! by level); and the generator reaches what it claims to.

use dred_core::dred::Dred;
use dred_core::testing::{
    assert_engines_agree, random_case, sample_shares, sample_shares_of, LoadedCase,
};
use dred_core::{Bf, Engine, Oracle, Recompute, Reference};
use proptest::prelude::*;

/// The engines every property here runs, the oracle first.
fn checked_engines(loaded: &LoadedCase) -> Vec<Box<dyn Engine>> {
    vec![
        Box::new(Oracle::new(loaded.program.clone())),
        Box::new(Recompute::new(loaded.program.clone())),
        Box::new(Dred::new(loaded.program.clone())),
        Box::new(Reference::new(loaded.program.clone())),
        Box::new(Bf::new(loaded.program.clone())),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 600, ..ProptestConfig::default() })]

    #[test]
    fn dred_and_reference_equal_recompute_and_oracle(case in random_case(false)) {
        let loaded = case.load().map_err(TestCaseError::fail)?;
        assert_engines_agree(&loaded, &mut checked_engines(&loaded));
    }

    #[test]
    fn dred_and_reference_equal_recompute_and_oracle_under_negation(
        case in prop_oneof![random_case(true), random_case(true).prop_map(|c| c.split_batches())]
    ) {
        let loaded = case.load().map_err(TestCaseError::fail)?;
        assert_engines_agree(&loaded, &mut checked_engines(&loaded));
    }
}

/// The generator must build what users write and the cases must make the engines work, or
/// the properties pass vacuously: on a fixed sample of 1,000 positive cases, floors on the
/// share of cases with each feature and with IDB changes, over-deletion and rederivation.
#[test]
fn generated_cases_are_not_trivial() {
    const SAMPLE: usize = 1000;
    let shares = sample_shares(false, SAMPLE, |loaded| {
        vec![
            Box::new(Oracle::new(loaded.program.clone())) as Box<dyn Engine>,
            Box::new(Dred::new(loaded.program.clone())),
        ]
    });
    eprintln!("{shares}");
    // Floors at about two thirds of what this sample gave when they were set: non-empty
    // model 86%, IDB changed 39%, over-deleted 36%, rederived 18%; recursive 82%, mutual
    // recursion 36%, repeated variable in an atom 92%, constant in a body 86%, in a head 65%,
    // zero-arity body atom 67%, ternary atom 94%, four body atoms 40%, comparison 60%, fresh
    // constant in updates 49%, empty batch 39%.
    let floors = [
        ("recursive", 550),
        ("mutual recursion", 240),
        ("repeated variable in an atom", 600),
        ("constant in a body", 570),
        ("constant in a head", 430),
        ("zero-arity body atom", 450),
        ("ternary atom", 600),
        ("four body atoms", 270),
        ("comparison", 400),
        ("fresh constant in updates", 330),
        ("empty batch", 260),
    ];
    for (name, floor) in floors {
        assert!(
            shares.feature(name) * 1000 >= floor * SAMPLE,
            "{name}: {} of {SAMPLE}\n{shares}",
            shares.feature(name)
        );
    }
    for (what, count, floor) in [
        ("non-empty model", shares.nonempty_model, 570),
        ("IDB changed", shares.idb_changed, 260),
        ("over-deleted", shares.overdeleted, 240),
        ("rederived", shares.rederived, 120),
    ] {
        assert!(
            count * 1000 >= floor * SAMPLE,
            "{what}: {count} of {SAMPLE}\n{shares}"
        );
    }
}
/// The negation property passes vacuously unless the cases reach the levels above 0 and the
/// cases DRed across strata adds: on a fixed sample of 500 cases with negation, half of them
/// with their batches split into deletions and insertions, floors on the share that
/// over-delete, rederive, over-delete from insertions alone and insert from deletions alone
/// above level 0.
#[test]
fn negation_cases_reach_the_upper_levels() {
    const SAMPLE: usize = 500;
    let cases = prop_oneof![
        random_case(true),
        random_case(true).prop_map(|c| c.split_batches())
    ];
    let shares = sample_shares_of(cases, SAMPLE, |loaded| {
        vec![
            Box::new(Oracle::new(loaded.program.clone())) as Box<dyn Engine>,
            Box::new(Dred::new(loaded.program.clone())),
        ]
    });
    eprintln!("{shares}");
    // Floors (per mille) at about two thirds of what this sample gave when they were set:
    // negation 87%, aggregate 67% (arithmetic inside one 12%, a correlated one 17%, a nested
    // one 7%, measured when those forms were added); above level 0 over-deleted 41%, rederived 17%,
    // over-deleted by insertions alone 8%, inserted by deletions alone 6%. Session 35: the
    // symbol half of the sample now draws string functors (in an aggregate in 26% of the
    // cases), whose filters left over-deletion by insertions alone at 4.8%; its floor is
    // two thirds of that.
    let floors = [
        ("negation", shares.feature("negation"), 580),
        ("aggregate", shares.feature("aggregate"), 440),
        (
            "arithmetic in an aggregate",
            shares.feature("arithmetic in an aggregate"),
            70,
        ),
        (
            "correlated aggregate",
            shares.feature("correlated aggregate"),
            100,
        ),
        ("nested aggregate", shares.feature("nested aggregate"), 45),
        (
            "string functors in an aggregate",
            shares.feature("string functors in an aggregate"),
            170,
        ),
        ("over-deleted above level 0", shares.upper[0], 270),
        ("rederived above level 0", shares.upper[1], 110),
        ("over-deleted by insertions alone", shares.upper[2], 32),
        ("inserted by deletions alone", shares.upper[3], 40),
    ];
    for (what, count, floor) in floors {
        assert!(
            count * 1000 >= floor * SAMPLE,
            "{what}: {count} of {SAMPLE}\n{shares}"
        );
    }
}

/// Larger graphs than the property test reaches (hundreds of rows: tombstones past the first
/// bitset word, compaction, revival), against `recompute`.
#[test]
fn dred_equals_recompute_on_larger_graphs() {
    use dred_core::{Batch, Edb, Fact, RequestedBatch, SourceFile, Symbols};
    use std::sync::Arc;
    let programs = [
        ".decl edge(x: number, y: number)\n.decl path(x: number, y: number)\n.input edge\n\
         path(x, y) :- edge(x, y).\npath(x, z) :- path(x, y), edge(y, z).\n",
        ".decl edge(x: number, y: number)\n.decl path(x: number, y: number)\n.input edge\n\
         path(x, y) :- edge(x, y).\npath(x, z) :- path(x, y), path(y, z).\n",
        ".decl edge(x: number, y: number)\n.decl reach(x: number)\n.input edge\n\
         reach(0).\nreach(y) :- reach(x), edge(x, y), x != y.\n",
    ];
    let mut state = 11u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    for src in programs {
        let program = Arc::new(
            dred_core::load_program(&SourceFile::new("p.dl", src), &mut Symbols::new())
                .expect("program"),
        );
        let edge = program.relation_id("edge").expect("edge");
        let mut edb = Edb::empty(&program);
        while edb.len() < 260 {
            edb.insert(Fact::new(
                edge,
                vec![(next() % 120) as i64, (next() % 120) as i64],
            ));
        }
        let mut dred = Dred::new(program.clone());
        let mut recompute = Recompute::new(program.clone());
        dred.materialise(&edb).expect("materialise");
        recompute.materialise(&edb).expect("materialise");
        for batch_no in 0..25 {
            let present: Vec<Fact> = edb.facts().collect();
            let mut req = RequestedBatch::default();
            for _ in 0..(1 + batch_no % 7) {
                req.deletions
                    .push(present[(next() % present.len() as u64) as usize].clone());
                req.insertions.push(Fact::new(
                    edge,
                    vec![(next() % 130) as i64, (next() % 130) as i64],
                ));
            }
            let batch = Batch::normalise(&req, &edb);
            edb.apply(&batch);
            dred.apply(&batch).expect("dred");
            recompute.apply(&batch).expect("recompute");
            assert_eq!(
                dred.model(),
                recompute.model(),
                "batch {batch_no} of\n{src}"
            );
        }
    }
}
