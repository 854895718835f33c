//! The seed example (SPEC §6) for `bf`: what it checks, deletes and keeps.

use std::sync::Arc;

use super::Bf;
use crate::engine::{Batch, Edb, Engine, Fact, Phase, RequestedBatch};
use crate::seed::seed_setup as setup;
use crate::{load_program, Program, SourceFile, Symbols};

fn edge_batch(program: &Program, symbols: &mut Symbols, edb: &Edb, delete: bool) -> Batch {
    let edge = program.relation_id("edge").expect("edge");
    let ab = Fact::new(edge, vec![symbols.intern("a"), symbols.intern("b")]);
    let (deletions, insertions) = if delete {
        (vec![ab], vec![])
    } else {
        (vec![], vec![ab])
    };
    Batch::normalise(
        &RequestedBatch {
            deletions,
            insertions,
        },
        edb,
    )
}

fn show(program: &Program, symbols: &Symbols, f: &Fact) -> String {
    program.fact_to_string(symbols, f.rel, &f.tuple)
}

/// Deleting edge(a, b): `bf` checks path(a, b) first and finds no derivation: its instances
/// are path(a, b) ∘ path(b, b) and path(a, c) ∘ path(c, b); path(b, b), path(b, c), path(c, b)
/// and path(c, c) are proved (through the b–c cycle's edges), but path(a, b) cannot prove
/// itself and path(a, c)'s instances need path(a, b) or path(a, c). Round 2 deletes path(a, c)
/// without a new check (it is in C and not in P) and checks path(a, d), proved through
/// path(a, e) ∘ path(e, d) — the instance through e comes before the one through c in the
/// index, so path(c, d) is never checked. Nothing deleted comes back: `overdeleted` is DRed's
/// 3 less path(a, d).
#[test]
fn seed_deletes_path_ab_and_ac_and_keeps_ad() {
    let (program, mut symbols, mut edb) = setup(include_str!("../../../datasets/seed/path.dl"));
    let mut bf = Bf::new(program.clone());
    bf.materialise(&edb).expect("materialise");
    assert_eq!(bf.model().len(), 20);
    let batch = edge_batch(&program, &mut symbols, &edb, true);
    let report = bf.apply(&batch).expect("apply");
    let deleted: Vec<Vec<String>> = report
        .rounds
        .iter()
        .filter(|r| r.phase == Phase::Delete)
        .map(|r| {
            r.facts
                .iter()
                .map(|f| show(&program, &symbols, f))
                .collect()
        })
        .collect();
    assert_eq!(
        deleted,
        vec![
            vec!["edge(\"a\", \"b\")"],
            vec!["path(\"a\", \"b\")"],
            vec!["path(\"a\", \"c\")"],
        ]
    );
    let checks: Vec<(String, bool)> = bf
        .last_checks()
        .iter()
        .map(|(f, proved)| (show(&program, &symbols, f), *proved))
        .collect();
    let expected: Vec<(String, bool)> = [
        ("path(\"a\", \"b\")", false),
        ("path(\"b\", \"b\")", true),
        ("path(\"b\", \"c\")", true),
        ("path(\"c\", \"b\")", true),
        ("path(\"a\", \"c\")", false),
        ("path(\"c\", \"c\")", true),
        ("path(\"a\", \"d\")", true),
        ("path(\"a\", \"e\")", true),
        ("path(\"e\", \"d\")", true),
    ]
    .iter()
    .map(|&(f, p)| (f.to_string(), p))
    .collect();
    assert_eq!(checks, expected);
    assert_eq!(
        (
            report.overdeleted,
            report.rederived,
            report.inserted,
            report.checked,
            report.disproved,
        ),
        (Some(2), Some(0), Some(0), Some(9), Some(2))
    );
    assert!(report.rounds.iter().all(|r| r.phase != Phase::Rederive));
    assert_eq!(bf.model().len(), 18);
    assert_eq!(bf.net_change().map(|c| (c.removed, c.added)), Some((2, 0)));

    // Re-inserting the edge: nothing to check, path(a, b) and path(a, c) come back.
    edb.apply(&batch);
    let back = edge_batch(&program, &mut symbols, &edb, false);
    let report = bf.apply(&back).expect("apply");
    assert_eq!((report.overdeleted, report.inserted), (Some(0), Some(2)));
    assert_eq!(report.checked, Some(0));
    assert!(bf.last_checks().is_empty());
    assert_eq!(bf.model().len(), 20);
}

/// Found by `dredbench fuzz --seed 32 --negation`: above level 0, a fact the batch added below
/// (`g("fresh2")`) completes an instance through a deleted fact (`q("c5")`) whose head was not
/// in the old model. B/F's propagation reads the new relations below, so it meets such heads;
/// they are for phase 3, not a broken model.
#[test]
fn a_head_new_below_is_not_a_broken_model() {
    let src = ".decl e(a: symbol, b: symbol)\n.decl f(a: symbol, b: symbol)\n.decl g(a: symbol)\n\
               .decl h()\n.decl q(a: symbol)\n.input e\n.input f\n.input g\n.input h\n\
               q(x) :- f(z, x), h(), f(z, y), !g(\"c0\").\n\
               q(w) :- g(w), q(_), e(y, y).\n";
    let mut symbols = Symbols::new();
    let program =
        Arc::new(load_program(&SourceFile::new("p.dl", src), &mut symbols).expect("program"));
    let rel = |name: &str| program.relation_id(name).expect("relation");
    let mut edb = Edb::empty(&program);
    let c3 = symbols.intern("c3");
    let c5 = symbols.intern("c5");
    let fresh = symbols.intern("fresh2");
    edb.insert(Fact::new(rel("e"), vec![c3, c3]));
    edb.insert(Fact::new(rel("h"), vec![]));
    let batches = [
        RequestedBatch {
            deletions: vec![],
            insertions: vec![Fact::new(rel("f"), vec![c5, c5])],
        },
        RequestedBatch {
            deletions: vec![Fact::new(rel("f"), vec![c5, c5])],
            insertions: vec![Fact::new(rel("g"), vec![fresh])],
        },
    ];
    let mut bf = Bf::new(program.clone());
    let mut recompute = crate::Recompute::new(program.clone());
    bf.materialise(&edb).expect("materialise");
    recompute.materialise(&edb).expect("materialise");
    for requested in &batches {
        let batch = Batch::normalise(requested, &edb);
        edb.apply(&batch);
        bf.apply(&batch).expect("bf");
        recompute.apply(&batch).expect("recompute");
        assert_eq!(bf.model(), recompute.model());
    }
}

/// Under a guard, B/F's search for a round's candidates stops once it has found some and its
/// work has passed the budget: the round's facts are out of the model (as an abandoned
/// level's `deleted` must be), the candidates it found stay live, and the work is about one
/// deleted fact's search, not the round's. Left-linear TC over twenty chains of thirty
/// edges, the last edge of each deleted: the whole first round would find 20 × 30
/// candidates (every path into the edge's source).
#[test]
fn a_guard_stops_the_search_for_a_rounds_candidates() {
    use crate::maintain::{Deleted, Deletion, WorkBudget};
    let (program, mut symbols, _) = setup(
        ".decl edge(x: symbol, y: symbol)\n.decl path(x: symbol, y: symbol)\n.input edge\n\
         .output path\npath(x, y) :- edge(x, y).\npath(x, z) :- path(x, y), edge(y, z).\n",
    );
    let edge = program.relation_id("edge").expect("edge");
    let mut edb = Edb::empty(&program);
    let mut deletions = Vec::new();
    for chain in 0..20 {
        for i in 0..30 {
            let mut node = |k: usize| symbols.intern(&format!("c{chain}n{k}"));
            let f = Fact::new(edge, vec![node(i), node(i + 1)]);
            if i == 29 {
                deletions.push(f.clone());
            }
            edb.insert(f);
        }
    }
    let mut bf = Bf::new(program.clone());
    bf.materialise(&edb).expect("materialise");
    bf.store.budget = Some(WorkBudget {
        find: 10,
        total: 10,
        saturate: false,
        saturation_abandons: false,
        deadlines: None,
    });
    let level = bf
        .deletion
        .delete_level0(&mut bf.store, &deletions, Deleted::default())
        .expect("no error");
    assert!(level.deleted.abandoned, "not abandoned");
    let work = level.deleted.work.probes + level.deleted.work.touched;
    assert!(
        work < 200,
        "{work} units of work: the whole round was searched"
    );
    assert_eq!(level.deleted.deleted.len(), deletions.len(), "D- is out");
    for f in &deletions {
        assert!(bf.store.relations[f.rel].row_id(&f.tuple).is_none());
    }
}
