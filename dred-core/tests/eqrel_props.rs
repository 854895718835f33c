//! `eqrel` means the equivalence closure written plainly: a random case with the input
//! relation `e` and the derived relation `p` declared `eqrel` has, after every batch, the
//! models of the same case with `e`'s facts in an input relation of their own, `e` derived
//! from it, and the reflexive, symmetric and transitive rules of `e` and `p` written out —
//! the oracle on the plain text against the oracle, `dred` and `counting` on the `eqrel`
//! text (negation and aggregates included), compared on the relations both declare.

use std::collections::BTreeSet;

use dred_core::testing::{models_as_text, random_case_with, LoadedCase, RandomCase};
use dred_core::{Counting, Dred, Engine, Oracle};
use proptest::prelude::*;

/// The relations compared: the generator's own (not the plain program's `e_edb`, not the
/// relations the checker generates).
fn compared(name: &str) -> bool {
    !name.starts_with('@') && !name.starts_with('$') && name != "e_edb"
}

fn models(case: &LoadedCase, engine: &mut dyn Engine) -> Vec<BTreeSet<String>> {
    models_as_text(case, engine, |name, fact| compared(name).then_some(fact))
}

/// The closure rules of binary relation `r`, written plainly.
fn closure(r: &str) -> [String; 3] {
    [
        format!("{r}(y, x) :- {r}(x, y)."),
        format!("{r}(x, x) :- {r}(x, _)."),
        format!("{r}(x, z) :- {r}(x, y), {r}(y, z)."),
    ]
}

/// `case` with `e` and `p` declared `eqrel`.
fn with_eqrel(case: &RandomCase) -> RandomCase {
    let ty = case.ty.name();
    let mut header = case.header.clone();
    for r in ["e", "p"] {
        let decl = format!(".decl {r}(a0: {ty}, a1: {ty})");
        assert!(header.contains(&decl), "{header}");
        header = header.replace(&decl, &format!("{decl} eqrel"));
    }
    RandomCase {
        header,
        ..case.clone()
    }
}

/// `case` with the closure written plainly: `e`'s facts and updates in `e_edb`.
fn plain(case: &RandomCase) -> RandomCase {
    let ty = case.ty.name();
    let header = case.header.replace(".input e\n", ".input e_edb\n")
        + &format!(".decl e_edb(a0: {ty}, a1: {ty})\n");
    let mut rules = case.rules.clone();
    rules.push("e(x, y) :- e_edb(x, y).".into());
    rules.extend(closure("e"));
    rules.extend(closure("p"));
    let rename = |r: &String| {
        if r == "e" {
            "e_edb".to_string()
        } else {
            r.clone()
        }
    };
    let mut out = RandomCase {
        header,
        rules,
        ..case.clone()
    };
    for (r, _) in &mut out.edb {
        *r = rename(r);
    }
    for u in out.batches.iter_mut().flatten() {
        u.rel = rename(&u.rel);
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn eqrel_has_the_plain_closure_s_models(case in random_case_with(true, true)) {
        let plain_case = plain(&case).load().map_err(TestCaseError::fail)?;
        let eq_case = with_eqrel(&case);
        let eq = eq_case.load().map_err(TestCaseError::fail)?;
        let expected = models(&plain_case, &mut Oracle::new(plain_case.program.clone()));
        let engines: Vec<Box<dyn Engine>> = vec![
            Box::new(Oracle::new(eq.program.clone())),
            Box::new(Dred::new(eq.program.clone())),
            Box::new(Counting::new(eq.program.clone())),
        ];
        for mut engine in engines {
            let got = models(&eq, engine.as_mut());
            prop_assert_eq!(&got, &expected, "{} on:\n{}", engine.name(), eq_case.program());
        }
    }
}

/// The cases are not trivial: on a sample, the closure adds pairs (the `eqrel` model of `e`
/// or `p` is larger than its facts and rules alone give) in most cases (printed).
#[test]
fn eqrel_cases_are_not_trivial() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    const SAMPLE: usize = 200;
    let mut runner = TestRunner::deterministic();
    let strategy = random_case_with(true, true);
    let mut grown = 0;
    for _ in 0..SAMPLE {
        let case = strategy.new_tree(&mut runner).expect("case").current();
        let eq = with_eqrel(&case).load().expect("loads");
        let open = case.load().expect("loads");
        let size = |c: &LoadedCase, name: &str| {
            let rel = c.program.relation_id(name).expect("declared");
            let mut total = c.edb.relations.get(rel).map_or(0, |r| r.len());
            total += Oracle::least_model(&c.program, &c.edb).relations[rel].len();
            total
        };
        grown +=
            usize::from(size(&eq, "e") > size(&open, "e") || size(&eq, "p") > size(&open, "p"));
    }
    eprintln!("of {SAMPLE}: the closure adds pairs in {grown}");
    assert!(grown * 2 >= SAMPLE, "{grown}");
}
