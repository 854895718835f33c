//! Tests of the join executor: each fused path of [`Matcher`] finds the same instances, in
//! the same order, with the same work counts as the step-by-step interpreter.

use super::*;
use crate::plan::{plan_rule, plan_rule_with, PlanOptions};
use crate::program::Term;
use crate::{load_program, SourceFile, Symbols};

/// A walked atom with a variable repeated inside it (`t(y, 1, y)`) checks each row
/// against that row's own first value, not the binding left by the row before
/// (issue 22, case 1: `walk_tests` checked before binding, so `recompute` lost
/// `p(3)`, and `dred` kept facts whose only proof had gone).
#[test]
fn walk_tests_checks_a_repeated_variable_against_its_own_row() {
    let src = ".decl t(a: number, b: number, c: number)\n.decl q(a: number)\n\
               .decl p(a: number)\n.input t\n.input q\n\
               p(y) :- t(y, 1, y), q(y).\n";
    let mut symbols = Symbols::new();
    let program = load_program(&SourceFile::new("p.dl", src), &mut symbols).expect("program");
    let (t, q) = (
        program.relation_id("t").expect("t"),
        program.relation_id("q").expect("q"),
    );
    let mut relations: Vec<Relation> = program
        .relations
        .iter()
        .map(|r| Relation::new(r.arity()))
        .collect();
    // Row 1 alone matches; row 0 leaves y = 2 behind, which row 1's check must not see,
    // and row 2 (y = 3, last column 4) must not pass on row 1's binding.
    relations[t].insert(&[2, 1, 5]);
    relations[t].insert(&[3, 1, 3]);
    relations[t].insert(&[4, 1, 3]);
    for v in [2, 3, 4, 5] {
        relations[q].insert(&[v]);
    }
    let plan = plan_rule(
        &program,
        0,
        &[Version::Full, Version::Full],
        None,
        &mut relations,
    );
    assert!(
        matches!(&plan.steps[..], [Step::Atom(w), Step::Atom(m)]
            if w.index.is_some() && !w.checks.is_empty() && m.membership
                && !w.next_membership.is_empty()),
        "the plan walks t on its constant and tests q: {plan:?}"
    );
    let versions: Vec<Versions> = relations.iter().map(Versions::complete).collect();
    let work = WorkCounter::default();
    let matcher = Matcher {
        relations: &relations,
        versions: &versions,
        work: &work,
    };
    let mut heads = Vec::new();
    matcher.run(&plan, &mut heads);
    assert_eq!(heads, vec![3]);
}

/// The fused walk of an index group and its membership tests ([`Matcher::walk_tests`])
/// finds the same instances, in the same order, with the same work counts as the step
/// by step loop — on groups long enough for every prefetch stage, with tombstones in the
/// walked relation, and on searches that fail after walking a whole group.
#[test]
fn walk_tests_equals_step_by_step() {
    let src = ".decl edge(x: symbol, y: symbol)\n.decl path(x: symbol, y: symbol)\n\
               .input edge\npath(x, y) :- edge(x, y).\n\
               path(x, z) :- path(x, y), edge(y, z).\n";
    let mut symbols = Symbols::new();
    let program = load_program(&SourceFile::new("p.dl", src), &mut symbols).expect("program");
    let (edge, path) = (
        program.relation_id("edge").expect("edge"),
        program.relation_id("path").expect("path"),
    );
    let mut relations: Vec<Relation> = program
        .relations
        .iter()
        .map(|r| Relation::new(r.arity()))
        .collect();
    // Node 0 is a hub with 40 parents; x reaches every third parent only.
    let x: Value = 1000;
    for y in 1..=40 {
        relations[edge].insert(&[y, 0]);
        if y % 3 == 0 {
            relations[path].insert(&[x, y]);
        }
    }
    relations[edge].remove(&[7, 0]);
    let rule = program
        .rules
        .iter()
        .position(|r| r.positive_atoms().count() == 2)
        .expect("the recursive rule");
    let prebound: Vec<usize> = program.rules[rule].head_vars().collect();
    let edge_atom = program.rules[rule]
        .positive_atoms()
        .position(|a| a.rel == edge)
        .expect("edge atom");
    let options = PlanOptions {
        seeded: false,
        prebound: prebound.clone(),
    };
    let full = [Version::Full, Version::Full];
    let fused = plan_rule_with(
        &program,
        rule,
        &full,
        Some(edge_atom),
        &options,
        &mut relations,
    );
    let Step::Atom(walk) = &fused.steps[0] else {
        panic!("the plan starts with the edge atom")
    };
    assert!(!walk.next_membership.is_empty(), "linked to path's test");
    assert!(fused.starts_with_walk_test, "exists starts at the walk");
    let mut plain = fused.clone();
    plain.starts_with_walk_test = false;
    if let Step::Atom(walk) = &mut plain.steps[0] {
        walk.next_membership.clear();
    }
    // Fused, but started through `step` rather than at the walk.
    let mut stepped = fused.clone();
    stepped.starts_with_walk_test = false;
    let versions: Vec<Versions> = relations.iter().map(Versions::complete).collect();
    // (x, z) bound: z = 0 walks the hub's 40 parents; x = 2000 reaches none of them.
    for (px, pz) in [(x, 0), (2000, 0), (x, 5)] {
        let mut runs = Vec::new();
        for plan in [&fused, &plain, &stepped] {
            let work = WorkCounter::default();
            let matcher = Matcher {
                relations: &relations,
                versions: &versions,
                work: &work,
            };
            let mut vars = vec![0; plan.num_vars];
            vars[prebound[0]] = px;
            vars[prebound[1]] = pz;
            let mut seen = Vec::new();
            matcher.step(plan, 0, None, &mut vars.clone(), &mut |v| {
                seen.push(v.to_vec());
                true
            });
            let found = matcher.exists(plan, &mut vars);
            runs.push((seen, found, work.total()));
        }
        assert_eq!(runs[0], runs[1], "binding ({px}, {pz})");
        assert_eq!(runs[0], runs[2], "binding ({px}, {pz}), through step");
    }
    // Every third parent but the tombstone is a proof.
    assert_eq!(relations[edge].dead_count(), 1);
}

/// A seeded plan of the seed and one walked atom ([`RulePlan::seeded_walk`]) finds the
/// same instances, in the same order, with the same work counts through its own loop as
/// through [`Matcher::step`]: from either atom of a linear rule, with a constant and a
/// repeated variable checked, tombstones in the walked relation, and versions that hide
/// rows at both ends of a group. Each instance found is also checked on its own: its atoms
/// ground to the seed row and to live rows (the two paths share the walked atom's checks).
#[test]
fn seeded_walk_equals_step_by_step() {
    let src = ".decl edge(x: symbol, y: symbol)\n.decl path(x: symbol, y: symbol)\n\
               .decl tri(x: symbol, y: symbol, z: symbol)\n.decl twice(x: symbol)\n\
               .decl from_a(x: symbol)\n.decl both(x: symbol)\n.input edge\n.input tri\n\
               path(x, z) :- path(x, y), edge(y, z).\n\
               twice(y) :- path(x, x), edge(x, y).\n\
               from_a(z) :- path(\"a\", y), edge(y, z).\n\
               both(x) :- path(x, w), tri(w, y, y).\n";
    let mut symbols = Symbols::new();
    let program = load_program(&SourceFile::new("p.dl", src), &mut symbols).expect("program");
    let (edge, path) = (
        program.relation_id("edge").expect("edge"),
        program.relation_id("path").expect("path"),
    );
    let a = symbols.intern("a");
    let mut relations: Vec<Relation> = program
        .relations
        .iter()
        .map(|r| Relation::new(r.arity()))
        .collect();
    // Node 1 has 12 successors, itself among them; path rows from `a` and from 5.
    for z in [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12] {
        relations[edge].insert(&[1, z]);
        relations[path].insert(&[5, z]);
        relations[path].insert(&[a, z]);
    }
    relations[path].insert(&[1, 1]);
    let tri = program.relation_id("tri").expect("tri");
    for w in 1..=12 {
        relations[tri].insert(&[w, 7, 7]);
        relations[tri].insert(&[w, 8, 9]);
    }
    relations[edge].remove(&[1, 4]);
    relations[path].remove(&[5, 3]);
    let seeded = PlanOptions {
        seeded: true,
        prebound: Vec::new(),
    };
    let full = [Version::Full, Version::Full];
    let complete: Vec<Versions> = relations.iter().map(Versions::complete).collect();
    // Old rows end before the group's last edges; delta rows start after its first.
    let mut narrow = complete.clone();
    narrow[edge] = Versions {
        old_end: 8,
        delta_end: relations[edge].end(),
    };
    narrow[path] = Versions {
        old_end: 20,
        delta_end: relations[path].end(),
    };
    let (mut plans, mut checked) = (0, 0);
    for rule in 0..program.rules.len() {
        for first in 0..2 {
            for versions_of_walk in [Version::Full, Version::Old, Version::Delta] {
                let mut fast =
                    plan_rule_with(&program, rule, &full, Some(first), &seeded, &mut relations);
                if !fast.seeded_walk {
                    continue; // the other atom is a membership test
                }
                plans += 1;
                if let Step::Atom(walk) = &mut fast.steps[1] {
                    walk.version = versions_of_walk;
                }
                let mut slow = fast.clone();
                slow.seeded_walk = false;
                let seed_rel = match &fast.steps[0] {
                    Step::Atom(s) => s.rel,
                    _ => unreachable!(),
                };
                for versions in [&complete, &narrow] {
                    for r in 0..relations[seed_rel].end() {
                        let row = relations[seed_rel].row(r).to_vec();
                        let mut runs = Vec::new();
                        for plan in [&fast, &slow] {
                            let work = WorkCounter::default();
                            let matcher = Matcher {
                                relations: &relations,
                                versions,
                                work: &work,
                            };
                            let mut seen = Vec::new();
                            matcher.for_each_seeded(plan, &row, &mut |v| seen.push(v.to_vec()));
                            runs.push((seen, work.total()));
                        }
                        assert_eq!(runs[0], runs[1], "rule {rule} at {first}, seed {row:?}");
                        // Each instance is one, independently of either path: the seed
                        // atom grounds to the seed row, every other atom to a live row.
                        for vars in &runs[0].0 {
                            let atoms = program.rules[rule].positive_atoms().enumerate();
                            for (i, atom) in atoms {
                                let ground: Vec<Value> = atom
                                    .args
                                    .iter()
                                    .map(|t| match *t {
                                        Term::Var(v) => vars[v],
                                        Term::Const(c) => c,
                                        Term::Wildcard => unreachable!("no `_` here"),
                                    })
                                    .collect();
                                if i == first {
                                    assert_eq!(ground, row, "rule {rule}: seed atom");
                                } else {
                                    assert!(
                                        relations[atom.rel].contains(&ground),
                                        "rule {rule} at {first}: {ground:?} is no live row"
                                    );
                                }
                            }
                        }
                        checked += usize::from(!runs[0].0.is_empty());
                    }
                }
            }
        }
    }
    // Both seeds of `path` and `both`, the `path` seeds of `twice` and `from_a`, in
    // three versions each.
    assert_eq!(plans, 6 * 3);
    assert!(checked > 20, "instances were found: {checked}");
}
