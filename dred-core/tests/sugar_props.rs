//! Soufflé's sugar means what the front end rewrites it into: a random case written with
//! declared types, disjunctive bodies and rules of several heads ([`RandomCase::sugared`])
//! has, after every batch, the model of the same case written plainly — the oracle on the
//! plain text against the oracle, `dred` and `counting` on the sugared text (negation and
//! aggregates included). About half the sugared cases are also wrapped into components
//! ([`RandomCase::componentised`]: a parameterised base component declaring the relations, a
//! derived one with the rules, instantiated once), their relations then read without the
//! instance's prefix. The models are compared as text, since each load interns its own
//! symbols.

use std::collections::BTreeSet;

use dred_core::testing::{
    models_as_text, random_case_with, LoadedCase, RandomCase, COMPONENT_PREFIX,
};
use dred_core::{Counting, Dred, Engine, Oracle};
use proptest::prelude::*;

/// The model after materialisation and after every batch, as `rel(values)` lines, the
/// component instance's prefix dropped from relation names.
fn models(case: &LoadedCase, engine: &mut dyn Engine) -> Vec<BTreeSet<String>> {
    // The relations the checker adds for aggregates are numbered in rule order, which the
    // sugar changes: only the program's own relations are compared.
    models_as_text(case, engine, |name, fact| {
        (!name.starts_with('@')).then(|| match fact.strip_prefix(COMPONENT_PREFIX) {
            Some(unqualified) => unqualified.to_string(),
            None => fact,
        })
    })
}

/// The case written with sugar, and for about half the cases (those with an odd number of
/// rules) wrapped into components too.
fn sugared(case: &RandomCase) -> RandomCase {
    if case.rules.len() % 2 == 1 {
        case.sugared().componentised()
    } else {
        case.sugared()
    }
}

fn load(case: &RandomCase) -> Result<LoadedCase, TestCaseError> {
    case.load().map_err(TestCaseError::fail)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn the_sugared_case_has_the_plain_case_s_models(case in random_case_with(true, true)) {
        let plain = load(&case)?;
        let sugared_case = sugared(&case);
        let sugared = load(&sugared_case)?;
        let expected = models(&plain, &mut Oracle::new(plain.program.clone()));
        let engines: Vec<Box<dyn Engine>> = vec![
            Box::new(Oracle::new(sugared.program.clone())),
            Box::new(Dred::new(sugared.program.clone())),
            Box::new(Counting::new(sugared.program.clone())),
        ];
        for mut engine in engines {
            let got = models(&sugared, engine.as_mut());
            prop_assert_eq!(
                &got,
                &expected,
                "{} on the sugared program:\n{}",
                engine.name(),
                sugared_case.program()
            );
        }
    }
}

/// The sugar is really drawn: on a sample, at least 30% of the sugared cases have a
/// disjunction (measured when set: 127 of 300) and half a rule with several heads, and every
/// one declares its columns' types; about half are wrapped into components (measured: 143
/// of 300).
#[test]
fn generated_sugar_is_not_trivial() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    const SAMPLE: usize = 300;
    let mut runner = TestRunner::deterministic();
    let strategy = random_case_with(true, true);
    let (mut disjunction, mut several_heads, mut typed, mut components) = (0, 0, 0, 0);
    for _ in 0..SAMPLE {
        let case = strategy.new_tree(&mut runner).expect("case").current();
        let text = sugared(&case).program();
        components += usize::from(text.contains(".init case = Case<"));
        disjunction += usize::from(text.contains(" ; "));
        several_heads += usize::from(
            text.lines()
                .any(|l| l.split(" :- ").next().is_some_and(|h| h.contains("), "))),
        );
        typed += usize::from(text.contains(": Either") && text.contains(".type Base <: "));
    }
    eprintln!(
        "of {SAMPLE}: disjunction {disjunction}, several heads {several_heads}, typed {typed}, \
         components {components}"
    );
    assert!(components * 10 >= 3 * SAMPLE, "components in {components}");
    assert!(
        disjunction * 10 >= 3 * SAMPLE,
        "disjunction in {disjunction}"
    );
    assert!(
        several_heads * 2 >= SAMPLE,
        "several heads in {several_heads}"
    );
    assert_eq!(typed, SAMPLE);
}
