//! Unit tests of `counting`: one count per fact is unsound under recursion and counts per
//! round are not; a fact whose earliest derivation goes moves to a later round; the seed
//! example's batch with its counts; a non-recursive view's counts.

use std::collections::{BTreeMap, BTreeSet};

use super::Counting;
use crate::engine::{Batch, Edb, Engine, Fact, RequestedBatch};
use crate::seed::seed_setup as setup;
use crate::{load_program, Oracle, Program, SourceFile, Symbols};

/// Linear transitive closure.
const LINEAR_PATH: &str = ".decl edge(x: symbol, y: symbol)\n.decl path(x: symbol, y: symbol)\n\
    .input edge\n.output path\npath(x, y) :- edge(x, y).\npath(x, z) :- path(x, y), edge(y, z).\n";

/// Every counted fact as `fact [(round, count), ..]` (round 0 for a non-recursive stratum).
fn listing(program: &Program, symbols: &Symbols, engine: &Counting) -> Vec<String> {
    engine
        .derivation_counts()
        .iter()
        .map(|(rel, t, c)| format!("{} {c:?}", program.fact_to_string(symbols, *rel, t)))
        .collect()
}

/// A program and an EDB of `edge` facts.
fn with_edges(src: &str, edges: &[(&str, &str)]) -> (std::sync::Arc<Program>, Symbols, Edb) {
    let mut symbols = Symbols::new();
    let program = std::sync::Arc::new(
        load_program(&SourceFile::new("p.dl", src), &mut symbols).expect("program"),
    );
    let edge = program.relation_id("edge").expect("edge");
    let mut edb = Edb::empty(&program);
    for (a, b) in edges {
        edb.insert(Fact::new(edge, vec![symbols.intern(a), symbols.intern(b)]));
    }
    (program, symbols, edb)
}

/// Applies the batch of `deletions` and `insertions`, normalised against `edb` (which it
/// updates), and checks the counts against a fresh materialisation's and the model against
/// the oracle's.
fn apply_checked(
    counting: &mut Counting,
    program: &std::sync::Arc<Program>,
    edb: &mut Edb,
    deletions: Vec<Fact>,
    insertions: Vec<Fact>,
) {
    let batch = Batch::normalise(
        &RequestedBatch {
            deletions,
            insertions,
        },
        edb,
    );
    counting.apply(&batch).expect("apply");
    edb.apply(&batch);
    let mut fresh = Counting::new(program.clone());
    fresh.materialise(edb).expect("materialise");
    assert_eq!(counting.derivation_counts(), fresh.derivation_counts());
    assert_eq!(counting.model(), Oracle::least_model(program, edb));
}

/// The batch deleting `edge(a, b)`.
fn delete_edge(program: &Program, symbols: &mut Symbols, edb: &Edb, a: &str, b: &str) -> Batch {
    let edge = program.relation_id("edge").expect("edge");
    let f = Fact::new(edge, vec![symbols.intern(a), symbols.intern(b)]);
    Batch::normalise(
        &RequestedBatch {
            deletions: vec![f],
            insertions: vec![],
        },
        edb,
    )
}

/// One count per fact (GMS93) applied, wrongly, to linear transitive closure, by hand: each
/// `path` fact's count is the number of instances of its two rules over the database; deleting
/// an edge takes one from the heads of the instances it is in, and a fact whose count reaches
/// 0 leaves and does the same for the instances it is in, until no count reaches 0. Returns
/// the counts above 0 afterwards.
fn one_count_per_fact(
    edges: &[(&str, &str)],
    deleted: (&str, &str),
) -> BTreeMap<(String, String), u64> {
    let s = |v: &str| v.to_string();
    let mut edge: BTreeSet<(String, String)> = edges.iter().map(|&(a, b)| (s(a), s(b))).collect();
    let mut path = edge.clone();
    loop {
        let more: Vec<_> = path
            .iter()
            .flat_map(|(x, y)| {
                edge.iter()
                    .filter(move |(y2, _)| y2 == y)
                    .map(move |(_, z)| (x.clone(), z.clone()))
            })
            .collect();
        let before = path.len();
        path.extend(more);
        if path.len() == before {
            break;
        }
    }
    let mut count: BTreeMap<(String, String), u64> = BTreeMap::new();
    for e in &edge {
        *count.entry(e.clone()).or_default() += 1;
    }
    for (x, y) in &path {
        for (_, z) in edge.iter().filter(|(y2, _)| y2 == y) {
            *count.entry((x.clone(), z.clone())).or_default() += 1;
        }
    }
    // The deleted edge's instances: path(u, v) by the first rule, path(x, u) ∘ edge(u, v).
    let (u, v) = (s(deleted.0), s(deleted.1));
    let mut lost = vec![(u.clone(), v.clone())];
    lost.extend(
        path.iter()
            .filter(|(_, y)| *y == u)
            .map(|(x, _)| (x.clone(), v.clone())),
    );
    edge.remove(&(u, v));
    while let Some(head) = lost.pop() {
        let c = count.get_mut(&head).expect("a counted fact");
        *c -= 1;
        if *c == 0 {
            count.remove(&head);
            path.remove(&head);
            let (x, y) = head;
            lost.extend(
                edge.iter()
                    .filter(|(y2, _)| *y2 == y)
                    .map(|(_, z)| (x.clone(), z.clone())),
            );
        }
    }
    count
}

/// A 2-cycle a ⇄ b with support from outside, s → a. Deleting the support leaves path(s, a)
/// and path(s, b) without a derivation, but with one count per fact each keeps the other's
/// count above 0 (path(s, a) ← path(s, b) ∘ edge(b, a), path(s, b) ← path(s, a) ∘ edge(a,
/// b)), so neither leaves. Counted per round, path(s, a)'s derivations are of rounds 1 (the
/// support) and 3 (through the cycle, from path(s, b) of round 2): once round 1's goes, no
/// derivation is founded on an earlier round and both leave, as the oracle says.
#[test]
fn one_count_per_fact_is_unsound_under_recursion_and_counts_per_round_are_not() {
    let edges = [("s", "a"), ("a", "b"), ("b", "a")];
    let kept = one_count_per_fact(&edges, ("s", "a"));
    let s = |a: &str, b: &str| (a.to_string(), b.to_string());
    assert_eq!(kept.get(&s("s", "a")), Some(&1), "{kept:?}");
    assert_eq!(kept.get(&s("s", "b")), Some(&1), "{kept:?}");

    let (program, mut symbols, mut edb) = with_edges(LINEAR_PATH, &edges);
    let mut counting = Counting::new(program.clone());
    counting.materialise(&edb).expect("materialise");
    let path = program.relation_id("path").expect("path");
    let fact = |symbols: &mut Symbols, a: &str, b: &str| vec![symbols.intern(a), symbols.intern(b)];
    let sa = fact(&mut symbols, "s", "a");
    let sb = fact(&mut symbols, "s", "b");
    assert_eq!(counting.round_counts(path, &sa), Some(vec![(1, 1), (3, 1)]));
    assert_eq!(counting.round_counts(path, &sb), Some(vec![(2, 1)]));
    let batch = delete_edge(&program, &mut symbols, &edb, "s", "a");
    let report = counting.apply(&batch).expect("apply");
    edb.apply(&batch);
    assert_eq!(counting.round_counts(path, &sa), Some(vec![]));
    assert_eq!(counting.round_counts(path, &sb), Some(vec![]));
    assert_eq!(counting.model(), Oracle::least_model(&program, &edb));
    // The naive counts kept exactly the two facts the model lost.
    let naive: BTreeSet<(String, String)> = kept.into_keys().collect();
    let model: BTreeSet<(String, String)> = counting.model().relations[path]
        .iter()
        .map(|t| {
            s(
                &symbols.name(t[0]).expect("a"),
                &symbols.name(t[1]).expect("b"),
            )
        })
        .collect();
    let extra: Vec<_> = naive.difference(&model).cloned().collect();
    assert_eq!(extra, vec![s("s", "a"), s("s", "b")]);
    assert_eq!(report.overdeleted, Some(2));
    assert_eq!(
        report.counts_changed,
        Some(2),
        "path(s, a) and path(s, b) went"
    );
}

/// a → b → c with a shortcut a → c: path(a, c) is of round 1 (the shortcut) with a second
/// derivation of round 2 (path(a, b) ∘ edge(b, c)). Deleting the shortcut takes its earliest
/// derivation: it stays, moved to round 2.
#[test]
fn deleting_a_shortcut_moves_a_fact_to_a_later_round() {
    let (program, mut symbols, edb) =
        with_edges(LINEAR_PATH, &[("a", "b"), ("b", "c"), ("a", "c")]);
    let mut counting = Counting::new(program.clone());
    counting.materialise(&edb).expect("materialise");
    let path = program.relation_id("path").expect("path");
    let ac = vec![symbols.intern("a"), symbols.intern("c")];
    assert_eq!(counting.round_counts(path, &ac), Some(vec![(1, 1), (2, 1)]));
    let batch = delete_edge(&program, &mut symbols, &edb, "a", "c");
    let report = counting.apply(&batch).expect("apply");
    assert_eq!(counting.round_counts(path, &ac), Some(vec![(2, 1)]));
    assert_eq!(report.rounds_moved, Some(1));
    assert_eq!(report.counts_changed, Some(1));
    assert_eq!(report.overdeleted, Some(0));
    // Round 1: path(a, c) lost its count there and left; round 2, where it had another
    // derivation: it came back.
    assert_eq!(report.rounds_replayed, Some(2));
}

/// The seed example (SPEC §6), non-linear `path`: its 55 old instances as counts per round,
/// then deleting edge(a, b). path(a, b) and path(a, c) lose every derivation; path(a, d)
/// keeps its round-2 derivation through e (path(a, e) ∘ path(e, d)) and loses both of round
/// 3 (through b and through c) — DRed over-deletes and rederives it, counting keeps it with
/// a lower count. Nothing of the u, v, w component changes.
#[test]
fn seed_batch_counts() {
    let (program, mut symbols, mut edb) = setup(include_str!("../../../datasets/seed/path.dl"));
    let mut counting = Counting::new(program.clone());
    counting.materialise(&edb).expect("materialise");
    let before = listing(&program, &symbols, &counting);
    let a_row = [
        r#"path("a", "b") [(1, 1), (3, 2)]"#,
        r#"path("a", "c") [(2, 1), (3, 1)]"#,
        r#"path("a", "d") [(2, 1), (3, 2)]"#,
        r#"path("a", "e") [(1, 1)]"#,
    ];
    let rest = [
        r#"path("b", "b") [(2, 1), (3, 1)]"#,
        r#"path("b", "c") [(1, 1), (3, 2)]"#,
        r#"path("b", "d") [(2, 1), (3, 1)]"#,
        r#"path("c", "b") [(1, 1), (3, 2)]"#,
        r#"path("c", "c") [(2, 1), (3, 1)]"#,
        r#"path("c", "d") [(1, 1), (3, 2)]"#,
        r#"path("e", "d") [(1, 1)]"#,
        r#"path("u", "u") [(3, 2), (4, 1)]"#,
        r#"path("u", "v") [(1, 1), (3, 1), (4, 2)]"#,
        r#"path("u", "w") [(2, 1), (4, 2)]"#,
        r#"path("v", "u") [(2, 1), (4, 2)]"#,
        r#"path("v", "v") [(3, 2), (4, 1)]"#,
        r#"path("v", "w") [(1, 1), (3, 1), (4, 2)]"#,
        r#"path("w", "u") [(1, 1), (3, 1), (4, 2)]"#,
        r#"path("w", "v") [(2, 1), (4, 2)]"#,
        r#"path("w", "w") [(3, 2), (4, 1)]"#,
    ];
    let expected: Vec<&str> = a_row.iter().chain(&rest).copied().collect();
    assert_eq!(before, expected);
    let instances: u64 = counting
        .derivation_counts()
        .iter()
        .flat_map(|(_, _, c)| c.iter().map(|&(_, n)| n))
        .sum();
    assert_eq!(instances, 55, "SPEC §6: 55 old successful instances");

    let batch = delete_edge(&program, &mut symbols, &edb, "a", "b");
    let report = counting.apply(&batch).expect("apply");
    edb.apply(&batch);
    let after = listing(&program, &symbols, &counting);
    let expected: Vec<&str> = [r#"path("a", "d") [(2, 1)]"#, r#"path("a", "e") [(1, 1)]"#]
        .iter()
        .chain(&rest)
        .copied()
        .collect();
    assert_eq!(after, expected);
    assert_eq!(counting.model().len(), 18);
    assert_eq!(counting.model(), Oracle::least_model(&program, &edb));
    // path(a, b), path(a, c) went; path(a, d)'s counts changed, its round (2) did not.
    assert_eq!(report.overdeleted, Some(2));
    assert_eq!(report.inserted, Some(0));
    assert_eq!(report.counts_changed, Some(3));
    assert_eq!(report.rounds_moved, Some(0));
    // Rounds 1 to 3 are looked at: path(a, b) leaves at round 1, path(a, c) at round 2 (its
    // only derivation of round 2 used path(a, b)), and at round 3 neither has a derivation
    // left; path(a, d) keeps round 2. Nothing of the u, v, w component is looked at.
    assert_eq!(report.rounds_replayed, Some(3));
}

/// A non-recursive view over the seed's edges, two-hop paths: one count per fact, the
/// number of middle nodes. Deleting edge(a, b) takes hop2(a, c)'s only derivation (through
/// b) and no other; then inserting edge(a, c) derives hop2(a, b) (through c) and gives
/// hop2(a, d) a second derivation (through c beside e): its count changes, it stays.
#[test]
fn two_hop_view_counts() {
    let src = ".decl edge(x: symbol, y: symbol)\n.decl hop2(x: symbol, z: symbol)\n.input edge\n\
        .output hop2\nhop2(x, z) :- edge(x, y), edge(y, z).\n";
    let (program, mut symbols, mut edb) = setup(src);
    let mut counting = Counting::new(program.clone());
    counting.materialise(&edb).expect("materialise");
    let batch = delete_edge(&program, &mut symbols, &edb, "a", "b");
    let report = counting.apply(&batch).expect("apply");
    edb.apply(&batch);
    assert_eq!(report.overdeleted, Some(1));
    assert_eq!(report.counts_changed, Some(1));
    assert_eq!(report.rounds_replayed, Some(0), "no recursive stratum");
    let edge = program.relation_id("edge").expect("edge");
    let ac = Fact::new(edge, vec![symbols.intern("a"), symbols.intern("c")]);
    let batch = Batch::normalise(
        &RequestedBatch {
            deletions: vec![],
            insertions: vec![ac],
        },
        &edb,
    );
    let report = counting.apply(&batch).expect("apply");
    edb.apply(&batch);
    assert_eq!(
        listing(&program, &symbols, &counting),
        [
            r#"hop2("a", "b") [(0, 1)]"#,
            r#"hop2("a", "d") [(0, 2)]"#,
            r#"hop2("b", "b") [(0, 1)]"#,
            r#"hop2("b", "d") [(0, 1)]"#,
            r#"hop2("c", "c") [(0, 1)]"#,
            r#"hop2("u", "w") [(0, 1)]"#,
            r#"hop2("v", "u") [(0, 1)]"#,
            r#"hop2("w", "v") [(0, 1)]"#,
        ]
    );
    assert_eq!((report.inserted, report.counts_changed), (Some(1), Some(2)));
    assert_eq!(counting.model(), Oracle::least_model(&program, &edb));
}

/// Reachability from `start` along a chain a → b → c → d: reach(a) is of round 1, reach(b)
/// of 2, reach(c) of 3, reach(d) of 4. Deleting edge(c, d) reaches first the instance
/// reach(d) ← reach(c) ∘ edge(c, d), of round 4: rounds 1 to 3 are not looked at, round 4
/// alone is (reach(d) leaves, and no instance uses it). Putting edge(c, d) back looks at
/// round 4 alone (reach(d) comes back); inserting edge(d, e) at round 5 alone (reach(e)).
#[test]
fn a_change_late_in_the_rounds_looks_at_that_round_only() {
    let src = ".decl start(x: symbol)\n.decl edge(x: symbol, y: symbol)\n.decl reach(x: symbol)\n\
        .input start\n.input edge\n.output reach\n\
        reach(x) :- start(x).\nreach(y) :- reach(x), edge(x, y).\n";
    let (program, mut symbols, mut edb) = with_edges(src, &[("a", "b"), ("b", "c"), ("c", "d")]);
    let start = program.relation_id("start").expect("start");
    edb.insert(Fact::new(start, vec![symbols.intern("a")]));
    let mut counting = Counting::new(program.clone());
    counting.materialise(&edb).expect("materialise");
    let reach = program.relation_id("reach").expect("reach");
    let d = vec![symbols.intern("d")];
    assert_eq!(counting.round_counts(reach, &d), Some(vec![(4, 1)]));

    let batch = delete_edge(&program, &mut symbols, &edb, "c", "d");
    let report = counting.apply(&batch).expect("apply");
    edb.apply(&batch);
    assert_eq!(report.rounds_replayed, Some(1));
    assert_eq!(
        (report.overdeleted, report.counts_changed),
        (Some(1), Some(1))
    );
    assert_eq!(counting.model(), Oracle::least_model(&program, &edb));

    let edge = program.relation_id("edge").expect("edge");
    let cd = Fact::new(edge, vec![symbols.intern("c"), symbols.intern("d")]);
    let de = Fact::new(edge, vec![symbols.intern("d"), symbols.intern("e")]);
    for insertions in [vec![cd], vec![de]] {
        let batch = Batch::normalise(
            &RequestedBatch {
                deletions: vec![],
                insertions,
            },
            &edb,
        );
        let report = counting.apply(&batch).expect("apply");
        edb.apply(&batch);
        assert_eq!(report.rounds_replayed, Some(1), "{report:?}");
        assert_eq!(report.inserted, Some(1));
        assert_eq!(counting.model(), Oracle::least_model(&program, &edb));
    }
    let e = vec![symbols.intern("e")];
    assert_eq!(counting.round_counts(reach, &e), Some(vec![(5, 1)]));
}

/// The count column follows its relation through compaction (row ids change) and through
/// heads reached but not derived (tombstones of count 0): a star of 1,500 two-hop paths
/// `x_i → hub → y`, whose 1,500 incoming edges are deleted (the `hop2` rows all become
/// tombstones, more than the live ones and more than 1,024: the relation is compacted) and
/// put back in two halves. After every batch the counts equal a fresh materialisation's and
/// the model the oracle's; `hop2(x_i, y)` has one derivation, `hop2(hub, hub2)` two.
#[test]
fn count_column_survives_compaction() {
    let src = ".decl edge(x: symbol, y: symbol)\n.decl hop2(x: symbol, z: symbol)\n.input edge\n\
        .output hop2\nhop2(x, z) :- edge(x, y), edge(y, z).\n";
    let spokes: Vec<String> = (0..1500).map(|i| format!("x{i}")).collect();
    let mut edges: Vec<(&str, &str)> = spokes.iter().map(|x| (x.as_str(), "hub")).collect();
    edges.extend([("hub", "y"), ("y", "hub2"), ("hub", "z"), ("z", "hub2")]);
    let (program, mut symbols, mut edb) = with_edges(src, &edges);
    let edge = program.relation_id("edge").expect("edge");
    let hop2 = program.relation_id("hop2").expect("hop2");
    let mut counting = Counting::new(program.clone());
    counting.materialise(&edb).expect("materialise");
    let fact = |symbols: &mut Symbols, a: &str, b: &str| {
        Fact::new(edge, vec![symbols.intern(a), symbols.intern(b)])
    };
    let spoke_facts: Vec<Fact> = spokes
        .iter()
        .map(|x| fact(&mut symbols, x, "hub"))
        .collect();
    let batches = [
        (spoke_facts.clone(), vec![]),
        (vec![], spoke_facts[..750].to_vec()),
        (vec![], spoke_facts[750..].to_vec()),
    ];
    for (i, (deletions, insertions)) in batches.into_iter().enumerate() {
        apply_checked(&mut counting, &program, &mut edb, deletions, insertions);
        if i == 0 {
            // 3,000 tombstones against 1 live row: compacted, the column with it.
            assert_eq!(counting.relations[hop2].dead_count(), 0);
            assert_eq!(counting.relations[hop2].end(), 1);
        }
    }
    let x0y = [symbols.intern("x0"), symbols.intern("y")];
    assert_eq!(counting.count(hop2, &x0y), Some(1));
    let hub = [symbols.intern("hub"), symbols.intern("hub2")];
    assert_eq!(counting.count(hop2, &hub), Some(2));
}

/// Insertions stored together before their events (`insert_run`): facts of one batch that
/// join each other — a chain a → b → c → d and a loop e → e, all inserted at once — count
/// each instance once, as inserted one at a time would.
#[test]
fn insertions_of_one_batch_that_join_each_other() {
    let src = ".decl edge(x: symbol, y: symbol)\n.decl hop2(x: symbol, z: symbol)\n.input edge\n\
        .output hop2\nhop2(x, z) :- edge(x, y), edge(y, z).\n";
    let (program, mut symbols, edb) = with_edges(src, &[("d", "a")]);
    let edge = program.relation_id("edge").expect("edge");
    let mut counting = Counting::new(program.clone());
    counting.materialise(&edb).expect("materialise");
    let insertions = [("a", "b"), ("b", "c"), ("c", "d"), ("e", "e")]
        .map(|(a, b)| Fact::new(edge, vec![symbols.intern(a), symbols.intern(b)]))
        .to_vec();
    let batch = Batch::normalise(
        &RequestedBatch {
            deletions: vec![],
            insertions,
        },
        &edb,
    );
    counting.apply(&batch).expect("apply");
    // Sorted by name (the listing is by symbol number: "d" was interned first).
    let mut counts = listing(&program, &symbols, &counting);
    counts.sort();
    assert_eq!(
        counts,
        [
            r#"hop2("a", "c") [(0, 1)]"#,
            r#"hop2("b", "d") [(0, 1)]"#,
            r#"hop2("c", "a") [(0, 1)]"#,
            r#"hop2("d", "b") [(0, 1)]"#,
            r#"hop2("e", "e") [(0, 1)]"#,
        ]
    );
}

/// Deletions of one batch that join each other, more of them than the reads started ahead
/// (`Database::row_events`): a chain of 40 edges, a loop and a 2-cycle, all deleted at
/// once, then every other one put back. After each batch the counts equal a fresh
/// materialisation's and the model the oracle's.
#[test]
fn deletions_of_one_batch_that_join_each_other() {
    let src = ".decl edge(x: symbol, y: symbol)\n.decl hop2(x: symbol, z: symbol)\n.input edge\n\
        .output hop2\nhop2(x, z) :- edge(x, y), edge(y, z).\n";
    let names: Vec<String> = (0..=40).map(|i| format!("n{i}")).collect();
    let mut edges: Vec<(&str, &str)> = names.windows(2).map(|w| (&*w[0], &*w[1])).collect();
    edges.extend([("e", "e"), ("p", "q"), ("q", "p"), ("n3", "e"), ("e", "n7")]);
    let (program, mut symbols, mut edb) = with_edges(src, &edges);
    let edge = program.relation_id("edge").expect("edge");
    let mut counting = Counting::new(program.clone());
    counting.materialise(&edb).expect("materialise");
    let mut facts: Vec<Fact> = edges[..40]
        .iter()
        .chain(&edges[40..43])
        .map(|(a, b)| Fact::new(edge, vec![symbols.intern(a), symbols.intern(b)]))
        .collect();
    // Not in the order they join: the events see the chain cut at scattered places.
    facts.reverse();
    facts.swap(3, 30);
    let back: Vec<Fact> = facts.iter().step_by(2).cloned().collect();
    for (deletions, insertions) in [(facts.clone(), vec![]), (vec![], back)] {
        apply_checked(&mut counting, &program, &mut edb, deletions, insertions);
    }
    // Two edges left into and out of `e`: hop2(n3, n7) through it, once.
    let n3n7 = [symbols.intern("n3"), symbols.intern("n7")];
    let hop2 = program.relation_id("hop2").expect("hop2");
    assert_eq!(counting.count(hop2, &n3n7), Some(1));
}

/// Heads are looked up many at a time across events (`Database::settle_heads`): a batch
/// that deletes and inserts at once, so that the heads held together take both signs, more
/// of them than are held before a lookup; heads new to their relation found by several
/// events (stored once, their counts added); and a level above fed by the changes of the
/// level below. After each batch, and after the inverse batch, the counts equal a fresh
/// materialisation's and the model the oracle's.
#[test]
fn heads_held_across_events_of_both_signs() {
    let src = ".decl edge(x: symbol, y: symbol)\n.decl hop2(x: symbol, z: symbol)\n\
        .decl hop3(x: symbol, w: symbol)\n.input edge\n.output hop2\n.output hop3\n\
        hop2(x, z) :- edge(x, y), edge(y, z).\nhop3(x, w) :- hop2(x, z), edge(z, w).\n";
    let sources: Vec<String> = (0..10).map(|i| format!("s{i}")).collect();
    let targets: Vec<String> = (0..10).map(|i| format!("t{i}")).collect();
    let mut edges: Vec<(&str, &str)> = Vec::new();
    for s in &sources {
        edges.extend([(s.as_str(), "h0"), (s.as_str(), "h1")]);
    }
    for t in &targets {
        edges.extend([("h0", t.as_str()), ("h1", t.as_str())]);
    }
    edges.extend([("t0", "v"), ("u0", "v")]);
    let (program, mut symbols, mut edb) = with_edges(src, &edges);
    let edge = program.relation_id("edge").expect("edge");
    let mut counting = Counting::new(program.clone());
    counting.materialise(&edb).expect("materialise");
    let mut fact = |a: &str, b: &str| Fact::new(edge, vec![symbols.intern(a), symbols.intern(b)]);
    // Every source's edge to h0 goes (100 heads of hop2 lose one of their two
    // derivations); each source gains an edge to h2, which leads to t0..t9 (the same heads
    // gain one) and to u0, as h1 now does (heads new to hop2, each found twice).
    let deletions: Vec<Fact> = sources.iter().map(|s| fact(s, "h0")).collect();
    let mut insertions: Vec<Fact> = sources.iter().map(|s| fact(s, "h2")).collect();
    insertions.extend(targets.iter().map(|t| fact("h2", t)));
    insertions.extend([fact("h2", "u0"), fact("h1", "u0")]);
    apply_checked(
        &mut counting,
        &program,
        &mut edb,
        deletions.clone(),
        insertions.clone(),
    );
    let hop2 = program.relation_id("hop2").expect("hop2");
    let s0u0 = [symbols.intern("s0"), symbols.intern("u0")];
    assert_eq!(counting.count(hop2, &s0u0), Some(2));
    let s0t5 = [symbols.intern("s0"), symbols.intern("t5")];
    assert_eq!(counting.count(hop2, &s0t5), Some(2));
    apply_checked(&mut counting, &program, &mut edb, insertions, deletions);
    assert_eq!(counting.count(hop2, &s0u0), Some(0));
}

/// A batch not normalised against the EDB (a deleted fact absent after present ones, an
/// inserted one present, a fact of a derived relation) is refused with an error naming the
/// engine and the batch, before any of it is applied: the model and counts stay as they
/// were, and the next batch applies.
#[test]
fn unnormalised_batches_are_refused() {
    let src = ".decl edge(x: symbol, y: symbol)\n.decl hop2(x: symbol, z: symbol)\n.input edge\n\
        .output hop2\nhop2(x, z) :- edge(x, y), edge(y, z).\n";
    let edges: Vec<(String, String)> = (0..30).map(|i| (format!("a{i}"), "b".into())).collect();
    let mut edges: Vec<(&str, &str)> = edges.iter().map(|(a, b)| (&**a, &**b)).collect();
    edges.push(("b", "c"));
    let (program, mut symbols, edb) = with_edges(src, &edges);
    let edge = program.relation_id("edge").expect("edge");
    let hop2 = program.relation_id("hop2").expect("hop2");
    let mut counting = Counting::new(program.clone());
    counting.materialise(&edb).expect("materialise");
    let before = (counting.model(), counting.derivation_counts());
    let mut fact =
        |rel, a: &str, b: &str| Fact::new(rel, vec![symbols.intern(a), symbols.intern(b)]);
    let present: Vec<Fact> = edges[..20].iter().map(|(a, b)| fact(edge, a, b)).collect();
    let absent = fact(edge, "a0", "z");
    let derived = fact(hop2, "a0", "c");
    for batch in [
        Batch {
            deletions: present.iter().cloned().chain([absent]).collect(),
            ..Batch::default()
        },
        Batch {
            insertions: vec![present[0].clone()],
            ..Batch::default()
        },
        Batch {
            deletions: vec![derived],
            ..Batch::default()
        },
    ] {
        let err = counting.apply(&batch).expect_err("refused");
        let text = err.to_string();
        assert!(
            text.contains("counting") && text.contains("batch 1") && text.contains("normalised"),
            "{text}"
        );
        assert_eq!((counting.model(), counting.derivation_counts()), before);
    }
    let batch = Batch {
        deletions: present,
        ..Batch::default()
    };
    counting.apply(&batch).expect("apply");
    let mut edb = edb;
    edb.apply(&batch);
    assert_eq!(counting.model(), Oracle::least_model(&program, &edb));
}
