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

/// Every instance of `plan` with the head bound to `head` (sorted bindings) and its work.
fn bound_instances(
    matcher: &Matcher,
    program: &crate::program::Program,
    plan: &RulePlan,
    head: &[Value],
) -> Option<Vec<Vec<Value>>> {
    let mut vars = vec![0; plan.num_vars];
    if !crate::maintain::plans::bind_head(&program.rules[plan.rule].head.args, head, &mut vars) {
        return None;
    }
    let mut seen = Vec::new();
    matcher.for_each_bound(plan, &mut vars.clone(), &mut |v| {
        seen.push(v.to_vec());
        true
    });
    let found = matcher.exists(plan, &mut vars);
    assert_eq!(found, !seen.is_empty(), "exists agrees with the instances");
    seen.sort();
    Some(seen)
}

/// A head-bound search ordered per binding ([`crate::plan::plan_rule_adaptive`]) finds
/// exactly the instances of the planner's fixed order, as many times, for every head over the
/// values used — rules of two and three atoms with constants, a repeated variable, a
/// wildcard, a comparison and a negation, over relations with tombstones.
#[test]
fn adaptive_search_finds_the_instances_of_a_fixed_order() {
    let src = ".decl e(x: number, y: number)\n.decl f(x: number, y: number, z: number)\n\
               .decl n(x: number)\n.decl p(x: number, y: number)\n.decl q(x: number)\n\
               .decl s(x: number, y: number)\n.input e\n.input f\n.input n\n\
               p(x, z) :- e(x, y), e(y, z).\n\
               p(r, o) :- f(a, b, _), e(a, r), e(b, o).\n\
               p(x, z) :- e(x, y), f(y, z, y), !n(z), x != z.\n\
               q(x) :- e(x, y), e(y, 3), f(x, y, _).\n\
               s(x, y) :- e(x, y), e(y, x), e(x, x).\n";
    let mut symbols = Symbols::new();
    let program = load_program(&SourceFile::new("p.dl", src), &mut symbols).expect("program");
    let id = |name: &str| program.relation_id(name).expect(name);
    let (e, f, n) = (id("e"), id("f"), id("n"));
    let mut relations: Vec<Relation> = program
        .relations
        .iter()
        .map(|r| Relation::new(r.arity()))
        .collect();
    // A deterministic pseudo-random EDB over 0..8, with some rows removed again.
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        (x % 8) as Value
    };
    for _ in 0..40 {
        let (a, b) = (next(), next());
        relations[e].insert(&[a, b]);
        let c = next();
        relations[f].insert(&[a, b, c]);
    }
    for _ in 0..3 {
        let v = next();
        relations[n].insert(&[v]);
    }
    for _ in 0..8 {
        let (a, b) = (next(), next());
        relations[e].remove(&[a, b]);
    }
    let mut compared = 0;
    for rule in 0..program.rules.len() {
        let options = PlanOptions {
            seeded: false,
            prebound: program.rules[rule].head_vars().collect(),
        };
        let atoms = program.rules[rule].positive_atoms().count();
        let fixed = plan_rule_with(
            &program,
            rule,
            &vec![Version::Full; atoms],
            None,
            &options,
            &mut relations,
        );
        let adaptive = crate::plan::plan_rule_adaptive(
            &program,
            &program.rules[rule],
            rule,
            &options,
            &mut relations,
        )
        .expect("rules of 2 and 3 atoms are planned so");
        let versions: Vec<Versions> = relations.iter().map(Versions::complete).collect();
        let work = WorkCounter::default();
        let matcher = Matcher {
            relations: &relations,
            versions: &versions,
            work: &work,
        };
        let arity = program.relations[program.rules[rule].head.rel].arity();
        let heads: Vec<Vec<Value>> = if arity == 1 {
            (0..8).map(|a| vec![a]).collect()
        } else {
            (0..8)
                .flat_map(|a| (0..8).map(move |b| vec![a, b]))
                .collect()
        };
        let mut found = 0;
        for head in heads {
            let want = bound_instances(&matcher, &program, &fixed, &head);
            let got = bound_instances(&matcher, &program, &adaptive, &head);
            assert_eq!(got, want, "rule {rule}, head {head:?}");
            // Bindings are compared as multisets: two rows differing only under a wildcard
            // are two instances with one binding.
            found += got.map_or(0, |g| g.len());
        }
        assert!(found > 0, "rule {rule} has instances to compare");
        compared += found;
    }
    assert!(compared > 50, "{compared} instances compared");
}

/// The cross product a fixed order made on the store rule of a points-to analysis
/// (`points_to(r, o) :- store(p, q), points_to(p, r), points_to(q, o)` with r and o bound:
/// the planner walked every pointer to r, and for each every pointer to o, testing `store`
/// last) is gone when the order is chosen per binding: the search walks `store(p, ·)` after
/// `p`. Counters, not times: 200 pointers to each of r and o and one store cost the fixed
/// order over 40,000 probes and rows, and the adaptive search under 2,000.
#[test]
fn adaptive_search_avoids_the_cross_product_of_a_store_rule() {
    // pt is recursive, as points_to is: the planner prefers it to the EDB's store.
    let src = ".decl store(p: number, q: number)\n.decl pt(p: number, o: number)\n\
               .decl addr(p: number, o: number)\n.input store\n.input addr\n\
               pt(r, o) :- store(p, q), pt(p, r), pt(q, o).\n\
               pt(p, o) :- addr(p, o).\n";
    let mut symbols = Symbols::new();
    let program = load_program(&SourceFile::new("p.dl", src), &mut symbols).expect("program");
    let (store, pt) = (
        program.relation_id("store").expect("store"),
        program.relation_id("pt").expect("pt"),
    );
    let mut relations: Vec<Relation> = program
        .relations
        .iter()
        .map(|r| Relation::new(r.arity()))
        .collect();
    let (r, o) = (1_000_000, 1_000_001);
    for v in 0..200 {
        relations[pt].insert(&[v, r]);
        relations[pt].insert(&[1000 + v, o]);
    }
    relations[store].insert(&[7, 1007]);
    let options = PlanOptions {
        seeded: false,
        prebound: program.rules[0].head_vars().collect(),
    };
    let full = [Version::Full; 3];
    let fixed = plan_rule_with(&program, 0, &full, None, &options, &mut relations);
    let adaptive =
        crate::plan::plan_rule_adaptive(&program, &program.rules[0], 0, &options, &mut relations)
            .expect("three atoms");
    let versions: Vec<Versions> = relations.iter().map(Versions::complete).collect();
    let mut costs = Vec::new();
    for plan in [&fixed, &adaptive] {
        let work = WorkCounter::default();
        let matcher = Matcher {
            relations: &relations,
            versions: &versions,
            work: &work,
        };
        let got = bound_instances(&matcher, &program, plan, &[r, o]).expect("binds");
        assert_eq!(got.len(), 1, "one instance: store(7, 1007)");
        let w = work.total();
        costs.push(w.probes + w.touched);
    }
    assert!(
        costs[0] > 40_000,
        "the fixed order's cross product: {costs:?}"
    );
    assert!(costs[1] < 2_000, "the adaptive search: {costs:?}");
}
