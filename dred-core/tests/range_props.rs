//! `range(from, to)` and `range(from, to, step)` mean Soufflé's ranges: on random `number`
//! EDBs and update streams of the shared generator, after every batch the oracle on a program
//! that says what a range holds by comparisons alone (a value of a domain of small integers
//! lies in the range: between the bounds on the step's side, at a multiple of the step from
//! `from`) gives the model that the oracle, `dred`, `bf`, `counting` and `recompute` give on
//! the program written with `range` — bounds from facts, two ranges of one rule the second
//! bounded by the first, a range in a recursion, a range inside a correlated count, as a
//! negated atom's argument. The models are compared as text, since each load interns its
//! own symbols.

use std::collections::BTreeSet;

use dred_core::testing::{
    models_as_text, number_header, random_number_case, LoadedCase, RandomCase,
};
use dred_core::{Bf, Counting, Dred, Engine, Oracle, Recompute};
use proptest::prelude::*;

/// The relations compared: those both programs define.
const COMPARED: [&str; 6] = ["up", "stepped", "pairs", "rec", "sizes", "outside"];

/// Bounds kept small: the generator's constants reach 9,000,000,000.
const SMALL: &str = "> -6";
const BELOW: &str = "< 9";

/// The rules written with `range`.
fn ranged() -> String {
    format!(
        "\
up(x, y, v) :- e(x, y), x {SMALL}, x {BELOW}, y {SMALL}, y {BELOW}, v = range(x, y).
stepped(x, y, s, v) :- k(x, y, s), x {SMALL}, x {BELOW}, y {SMALL}, y {BELOW}, v = range(x, y, s).
pairs(v, w) :- f(x, y), x {SMALL}, y {BELOW}, x < y, v = range(x, y), w = range(v, y).
rec(v) :- g(v), v {SMALL}, v {BELOW}.
rec(w) :- rec(v), e(v, d), d > 0, d < 4, w = range(v + 1, v + d), w {BELOW}.
sizes(x, n) :- g(x), x {SMALL}, x {BELOW}, n = count : {{ v = range(0, x) }}.
outside(x) :- g(x), x {SMALL}, x {BELOW}, !rec(range(x, x + 2)).
"
    )
}

/// The same relations said by comparisons over `dom`, the integers from -6 to 9.
fn plain() -> String {
    format!(
        "\
dom(-6).
dom(w) :- dom(v), w = v + 1, w < 10.
up(x, y, v) :- e(x, y), x {SMALL}, x {BELOW}, y {SMALL}, y {BELOW}, dom(v), x <= v, v < y.
up(x, y, v) :- e(x, y), x {SMALL}, x {BELOW}, y {SMALL}, y {BELOW}, dom(v), y < v, v <= x.
stepped(x, y, s, v) :- k(x, y, s), x {SMALL}, x {BELOW}, y {SMALL}, y {BELOW}, s > 0, dom(v), x <= v, v < y, (v - x) % s = 0.
stepped(x, y, s, v) :- k(x, y, s), x {SMALL}, x {BELOW}, y {SMALL}, y {BELOW}, s < 0, dom(v), y < v, v <= x, (x - v) % (0 - s) = 0.
stepped(x, y, 0, x) :- k(x, y, 0), x {SMALL}, x {BELOW}, y {SMALL}, y {BELOW}, x != y.
pairs(v, w) :- f(x, y), x {SMALL}, y {BELOW}, x < y, dom(v), x <= v, v < y, dom(w), v <= w, w < y.
rec(v) :- g(v), v {SMALL}, v {BELOW}.
rec(w) :- rec(v), e(v, d), d > 0, d < 4, dom(w), v < w, w < v + d, w {BELOW}.
sizes(x, n) :- g(x), x {SMALL}, x {BELOW}, n = count : {{ dom(v), 0 <= v, v < x }}, x >= 0.
sizes(x, n) :- g(x), x {SMALL}, x {BELOW}, n = count : {{ dom(v), x < v, v <= 0 }}, x < 0.
outside(x) :- g(x), x {SMALL}, x {BELOW}, !rec(x).
outside(x) :- g(x), x {SMALL}, x {BELOW}, !rec(x + 1).
"
    )
}

const OUTPUTS: [(&str, usize); 6] = [
    ("up", 3),
    ("stepped", 4),
    ("pairs", 2),
    ("rec", 1),
    ("sizes", 2),
    ("outside", 1),
];

/// `case` (its EDB and stream) with these rules.
fn with_rules(case: &RandomCase, rules: &str, dom: bool) -> RandomCase {
    let mut names = OUTPUTS.to_vec();
    if dom {
        names.push(("dom", 1));
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
    #![proptest_config(ProptestConfig { cases: 100, ..ProptestConfig::default() })]

    #[test]
    fn range_has_the_comparisons_models(case in random_number_case()) {
        let plain = with_rules(&case, &plain(), true).load().map_err(TestCaseError::fail)?;
        let ranged = with_rules(&case, &ranged(), false).load().map_err(TestCaseError::fail)?;
        let expected = models(&plain, &mut Oracle::new(plain.program.clone()));
        let engines: Vec<Box<dyn Engine>> = vec![
            Box::new(Oracle::new(ranged.program.clone())),
            Box::new(Dred::new(ranged.program.clone())),
            Box::new(Bf::new(ranged.program.clone())),
            Box::new(Counting::new(ranged.program.clone())),
            Box::new(Recompute::new(ranged.program.clone())),
        ];
        for mut engine in engines {
            let got = models(&ranged, engine.as_mut());
            prop_assert_eq!(&got, &expected, "{}", engine.name());
        }
    }
}

/// The cases are not trivial: on a fixed sample, the initial models have rows in each
/// compared relation in a third of the cases or more (printed), and the recursion through a
/// range goes past the facts it starts from in a quarter of them (session 39's sample: rows
/// in 58–86 of 100, recursion past its seeds in 39).
#[test]
fn range_cases_are_not_trivial() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    const SAMPLE: usize = 100;
    // Seeded: a floor checked on a different sample each run failed at the edge once (24
    // cases grown of 100 where two earlier samples read 26 and 34).
    let mut runner = TestRunner::deterministic();
    let strategy = random_number_case();
    let mut rows = [0usize; COMPARED.len()];
    let mut grown = 0;
    let mut values = 0;
    for _ in 0..SAMPLE {
        let case = strategy.new_tree(&mut runner).expect("case").current();
        let loaded = with_rules(&case, &ranged(), false).load().expect("loads");
        let facts = loaded.least_model_facts();
        for (i, name) in COMPARED.iter().enumerate() {
            rows[i] += usize::from(facts.iter().any(|f| f.starts_with(&format!("{name}("))));
        }
        let count = |p: &str| facts.iter().filter(|f| f.starts_with(p)).count();
        values += count("@range");
        let seeds: usize = case
            .edb
            .iter()
            .filter(|(rel, v)| rel == "g" && v[0].parse::<i64>().is_ok_and(|n| n > -6 && n < 9))
            .count();
        grown += usize::from(count("rec(") > seeds);
    }
    eprintln!(
        "of {SAMPLE}: rows in {COMPARED:?}: {rows:?}; recursion past its seeds in {grown}; \
         {values} facts of the generated range relations"
    );
    assert!(grown * 4 >= SAMPLE, "{grown}");
    for (name, n) in COMPARED.iter().zip(rows) {
        assert!(n * 3 >= SAMPLE, "{name}: rows in {n} of {SAMPLE}");
    }
}
