//! Comparing two engines' models and describing the difference with example facts.

use dred_core::{Model, Program, Symbols};

/// At most this many example facts are named per side and relation.
const EXAMPLES: usize = 10;

/// A readable account of how `a` (engine `name_a`) differs from `b`, or `None` when equal:
/// per relation, the facts present on one side only (set differences first).
pub fn describe_difference(
    program: &Program,
    symbols: &Symbols,
    name_a: &str,
    a: &Model,
    name_b: &str,
    b: &Model,
) -> Option<String> {
    if a == b {
        return None;
    }
    let mut out = String::new();
    for (only, here, there) in [(a.minus(b), name_a, name_b), (b.minus(a), name_b, name_a)] {
        for (rel, tuples) in only {
            out.push_str(&format!(
                "  relation `{}`: {} fact(s) in {here}, not in {there}:",
                program.relations[rel].name,
                tuples.len()
            ));
            for t in tuples.iter().take(EXAMPLES) {
                out.push_str(&format!(" {}", program.fact_to_string(symbols, rel, t)));
            }
            if tuples.len() > EXAMPLES {
                out.push_str(" …");
            }
            out.push('\n');
        }
    }
    Some(out)
}
