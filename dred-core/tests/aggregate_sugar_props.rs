//! Aggregates with arithmetic inside their braces or target, correlated aggregates (a
//! variable from outside used inside the braces in a comparison only), nested aggregates and
//! aggregates written as terms (in a head, inside arithmetic, in a comparison)
//! mean what the same programs say written plainly, each computed value and each context in
//! a rule of its own: on random `number` EDBs and update streams of the shared generator,
//! after every batch the oracle on the plain text gives the model that the oracle, `dred`,
//! `bf` and `counting` give on the sugared text, compared on the relations both programs
//! declare for the user. The models are compared as text, since each load interns its own
//! symbols.

use std::collections::BTreeSet;

use dred_core::testing::{
    models_as_text, number_header, random_number_case, LoadedCase, RandomCase,
};
use dred_core::{Bf, Counting, Dred, Engine, Oracle};
use proptest::prelude::*;

/// The relations compared: those both programs of every pair define.
const COMPARED: [&str; 7] = ["plus", "below", "nested", "small", "gap", "within", "terms"];

/// Rules written with the new aggregate forms.
const SUGARED: &str = "\
plus(x, v) :- g(x), v = sum y + 1 : { e(x, y) }.
below(x, n) :- g(x), n = count : { e(y, _), y < x }.
nested(n) :- n = count : { g(x), k = count : { e(x, _) }, k > 1 }.
small(n) :- n = count : { e(x, y), d = x * y, d < 3 }.
gap(x, m) :- f(x, y), m = min z - y : { e(_, z), z > y }.
within(x, s) :- g(x), k = x + 2, s = sum y : { f(y, _), y <= k, !g(y) }.
terms(x, 1 + count : { e(x, _) }) :- g(x), x < max y : { f(y, _) }.
";

/// The same rules written plainly: each value computed in a rule of its own, each context a
/// relation of the bindings the outer rule gives.
const PLAIN: &str = "\
succ_e(x, y, w) :- e(x, y), w = y + 1.
plus(x, v) :- g(x), v = sum w : { succ_e(x, _, w) }.
below_in(x, y, z) :- g(x), e(y, z), y < x.
below(x, n) :- g(x), n = count : { below_in(x, _, _) }.
degree(x, k) :- g(x), k = count : { e(x, _) }.
nested(n) :- n = count : { degree(_, k), k > 1 }.
product(x, y, d) :- e(x, y), d = x * y.
small(n) :- n = count : { product(_, _, d), d < 3 }.
gap_in(y, z, w) :- f(_, y), e(_, z), z > y, w = z - y.
gap_of(y, m) :- f(_, y), m = min w : { gap_in(y, _, w) }.
gap(x, m) :- f(x, y), gap_of(y, m).
within_ctx(x, k) :- g(x), k = x + 2.
within_in(x, y, z) :- within_ctx(x, k), f(y, z), y <= k, !g(y).
within(x, s) :- g(x), s = sum y : { within_in(x, y, _) }.
terms(x, c) :- g(x), k = count : { e(x, _) }, c = 1 + k, m = max y : { f(y, _) }, x < m.
";

const OUTPUTS: [(&str, usize); 7] = [
    ("plus", 2),
    ("below", 2),
    ("nested", 1),
    ("small", 1),
    ("gap", 2),
    ("within", 2),
    ("terms", 2),
];

const AUXILIARY: [(&str, usize); 8] = [
    ("succ_e", 3),
    ("below_in", 3),
    ("degree", 2),
    ("product", 3),
    ("gap_in", 3),
    ("gap_of", 2),
    ("within_ctx", 2),
    ("within_in", 3),
];

/// `case` (its EDB and stream) with these rules.
fn with_rules(case: &RandomCase, rules: &str, aux: bool) -> RandomCase {
    let mut names = OUTPUTS.to_vec();
    if aux {
        names.extend(AUXILIARY);
    }
    RandomCase {
        header: number_header(&names),
        rules: rules.lines().map(str::to_string).collect(),
        ..case.clone()
    }
}

/// The compared relations after materialisation and after every batch.
fn models(case: &LoadedCase, engine: &mut dyn Engine) -> Vec<BTreeSet<String>> {
    models_as_text(case, engine, |name, fact| {
        COMPARED.contains(&name).then_some(fact)
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 120, ..ProptestConfig::default() })]

    #[test]
    fn aggregate_sugar_has_the_plain_program_s_models(case in random_number_case()) {
        let plain = with_rules(&case, PLAIN, true).load().map_err(TestCaseError::fail)?;
        let sugared = with_rules(&case, SUGARED, false).load().map_err(TestCaseError::fail)?;
        let expected = models(&plain, &mut Oracle::new(plain.program.clone()));
        let engines: Vec<Box<dyn Engine>> = vec![
            Box::new(Oracle::new(sugared.program.clone())),
            Box::new(Dred::new(sugared.program.clone())),
            Box::new(Bf::new(sugared.program.clone())),
            Box::new(Counting::new(sugared.program.clone())),
        ];
        for mut engine in engines {
            let got = models(&sugared, engine.as_mut());
            prop_assert_eq!(&got, &expected, "{}", engine.name());
        }
    }
}

/// The cases are not trivial: on a sample, most initial models have rows in most compared
/// relations (printed), and a correlated count is above 0 somewhere in a quarter of them.
#[test]
fn aggregate_sugar_cases_are_not_trivial() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    const SAMPLE: usize = 100;
    let mut runner = TestRunner::deterministic();
    let strategy = random_number_case();
    let mut rows = [0usize; COMPARED.len()];
    let mut positive_below = 0;
    for _ in 0..SAMPLE {
        let case = strategy.new_tree(&mut runner).expect("case").current();
        let loaded = with_rules(&case, SUGARED, false).load().expect("loads");
        let facts = loaded.least_model_facts();
        for (i, name) in COMPARED.iter().enumerate() {
            rows[i] += usize::from(facts.iter().any(|f| f.starts_with(&format!("{name}("))));
        }
        positive_below += usize::from(
            facts
                .iter()
                .any(|f| f.starts_with("below(") && !f.ends_with(", 0)")),
        );
    }
    eprintln!("of {SAMPLE}: rows in {COMPARED:?}: {rows:?}; a positive correlated count in {positive_below}");
    assert!(positive_below * 4 >= SAMPLE, "{positive_below}");
    for (name, n) in COMPARED.iter().zip(rows) {
        assert!(n * 3 >= SAMPLE, "{name}: rows in {n} of {SAMPLE}");
    }
}
