//! The seed's worked examples (SPEC §6) and boundaries, on the reference engine.

use std::collections::BTreeSet;
use std::sync::Arc;

use super::instances::{FactTable, InstanceStore};
use super::*;
use crate::engine::RequestedBatch;
use crate::seed::seed_edges;
use crate::{load_program, Oracle, SourceFile, Symbols};

const PATH: &str = "\
.decl edge(x: symbol, y: symbol)
.decl path(x: symbol, y: symbol)
.input edge
path(x, y) :- edge(x, y).
path(x, z) :- path(x, y), path(y, z).
";

const MAGIC: &str = "\
.decl edge(x: symbol, y: symbol)
.decl q(x: symbol, y: symbol)
.decl m(x: symbol)
.input edge
m(\"a\").
q(x, y) :- m(x), edge(x, y).
m(y)    :- m(x), q(x, y).
q(x, z) :- m(x), q(x, y), q(y, z).
";

/// A program with its symbols, and helpers to write facts by name.
struct Case {
    program: Arc<Program>,
    symbols: Symbols,
}

impl Case {
    fn new(src: &str) -> Self {
        let mut symbols = Symbols::new();
        let program = load_program(&SourceFile::new("t.dl", src), &mut symbols)
            .unwrap_or_else(|d| panic!("{}", d.render()));
        Case {
            program: Arc::new(program),
            symbols,
        }
    }

    fn rel(&self, name: &str) -> usize {
        self.program.relation_id(name).expect("declared")
    }

    /// A fact of symbols.
    fn fact(&mut self, rel: &str, args: &[&str]) -> Fact {
        let rel = self.rel(rel);
        Fact::new(rel, args.iter().map(|a| self.symbols.intern(a)).collect())
    }

    fn edges(&mut self, edges: &[(&str, &str)]) -> Edb {
        let mut edb = Edb::empty(&self.program);
        for (x, y) in edges {
            let f = self.fact("edge", &[x, y]);
            edb.insert(f);
        }
        edb
    }

    fn show(&self, f: &Fact) -> String {
        self.program.fact_to_string(&self.symbols, f.rel, &f.tuple)
    }

    /// The rounds of one phase, each as written facts.
    fn rounds(&self, report: &BatchReport, phase: Phase) -> Vec<Vec<String>> {
        report
            .rounds
            .iter()
            .filter(|r| r.phase == phase)
            .map(|r| r.facts.iter().map(|f| self.show(f)).collect())
            .collect()
    }

    /// Every fact of one relation of a model, written.
    fn facts_of(&self, model: &Model, rel: &str) -> BTreeSet<String> {
        let rel = self.rel(rel);
        model.relations[rel]
            .iter()
            .map(|t| self.program.fact_to_string(&self.symbols, rel, t))
            .collect()
    }
}

fn strs(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

/// Applies a requested batch to the reference (normalised against `edb`, which is updated)
/// and checks the model against the oracle.
fn step(
    case: &Case,
    engine: &mut Reference,
    edb: &mut Edb,
    requested: &RequestedBatch,
) -> BatchReport {
    let batch = Batch::normalise(requested, edb);
    edb.apply(&batch);
    let report = engine.apply(&batch).expect("applies");
    let expected = Oracle::least_model(&case.program, edb);
    assert_eq!(
        engine.model(),
        expected,
        "reference differs from the oracle"
    );
    report
}

#[test]
fn seed_path_example() {
    let mut case = Case::new(PATH);
    let mut edb = case.edges(&seed_edges());
    let mut engine = Reference::new(case.program.clone());
    engine.materialise(&edb).expect("materialises");
    let old = engine.model();
    assert_eq!(old.len(), 20);
    let a_row: Vec<String> = case
        .facts_of(&old, "path")
        .into_iter()
        .filter(|f| f.starts_with("path(\"a\""))
        .collect();
    assert_eq!(a_row.len(), 4, "a reaches b, c, d, e: {a_row:?}");

    // 55 old instances: 9 of the first rule, 46 of the second.
    let facts = FactTable::new(&engine.core.relations).expect("numbered");
    let store =
        InstanceStore::enumerate(&engine.core.named, &engine.core.enumeration_plans, &facts)
            .expect("closed");
    let per_rule = |r| {
        (0..store.len() as u32)
            .filter(|&i| store.rule(i) == Some(r))
            .count()
    };
    assert_eq!((store.len(), per_rule(0), per_rule(1)), (55, 9, 46));
    assert_eq!(store.body_len(), 9 + 2 * 46);

    let del = RequestedBatch {
        deletions: vec![case.fact("edge", &["a", "b"])],
        insertions: vec![],
    };
    let report = step(&case, &mut engine, &mut edb, &del);
    assert_eq!(
        case.rounds(&report, Phase::Overdelete),
        vec![
            strs(&["edge(\"a\", \"b\")"]),
            strs(&["path(\"a\", \"b\")"]),
            strs(&["path(\"a\", \"c\")", "path(\"a\", \"d\")"]),
        ]
    );
    assert_eq!(
        case.rounds(&report, Phase::Rederive),
        vec![strs(&["path(\"a\", \"d\")"]), vec![]]
    );
    assert!(case.rounds(&report, Phase::Insert).is_empty());
    assert_eq!(report.overdeleted, Some(3));
    assert_eq!(report.rederived, Some(1));
    assert_eq!(report.inserted, Some(0));
    assert_eq!(report.instances, Some(55));
    assert_eq!(report.body_len, Some(101));
    // The seed's count: 9 tests in round 1, 5 in round 2.
    assert_eq!(report.membership_tests, Some(14));
    let new = engine.model();
    assert_eq!(new.len(), 18);
    let a_row: Vec<String> = case
        .facts_of(&new, "path")
        .into_iter()
        .filter(|f| f.starts_with("path(\"a\""))
        .collect();
    assert_eq!(a_row, strs(&["path(\"a\", \"d\")", "path(\"a\", \"e\")"]));
    // The u, v, w component never enters a frontier.
    for round in &report.rounds {
        for f in &round.facts {
            let s = case.show(f);
            assert!(
                !["\"u\"", "\"v\"", "\"w\""].iter().any(|c| s.contains(c)),
                "{s} in a frontier"
            );
        }
    }
}

#[test]
fn seed_magic_example() {
    let mut case = Case::new(MAGIC);
    let mut edb = case.edges(&seed_edges());
    let mut engine = Reference::new(case.program.clone());
    engine.materialise(&edb).expect("materialises");
    let old = engine.model();
    assert_eq!(case.facts_of(&old, "q").len(), 11);
    assert_eq!(case.facts_of(&old, "m").len(), 5);

    let del = RequestedBatch {
        deletions: vec![case.fact("edge", &["a", "b"])],
        insertions: vec![],
    };
    let report = step(&case, &mut engine, &mut edb, &del);
    assert_eq!(report.instances, Some(37));
    assert_eq!(report.body_len, Some(6 * 2 + 11 * 2 + 19 * 3));
    let over: Vec<String> = case.rounds(&report, Phase::Overdelete)[1..].concat();
    assert_eq!(over.iter().filter(|f| f.starts_with("q(")).count(), 9);
    assert_eq!(over.iter().filter(|f| f.starts_with("m(")).count(), 3);
    assert_eq!(report.overdeleted, Some(12));
    // Demand is withdrawn too.
    for m in ["m(\"b\")", "m(\"c\")", "m(\"d\")"] {
        assert!(over.contains(&m.to_string()), "{m} over-deleted");
    }
    // Survivors: the old IDB without D.
    let survivors: BTreeSet<String> = case
        .facts_of(&old, "q")
        .into_iter()
        .chain(case.facts_of(&old, "m"))
        .filter(|f| !over.contains(f))
        .collect();
    assert_eq!(
        survivors,
        ["m(\"a\")", "m(\"e\")", "q(\"a\", \"e\")", "q(\"e\", \"d\")"]
            .map(String::from)
            .into()
    );
    // Rounds are sorted by relation (q is declared before m), then by tuple.
    assert_eq!(
        case.rounds(&report, Phase::Rederive),
        vec![strs(&["q(\"a\", \"d\")", "m(\"d\")"]), vec![]]
    );
    assert_eq!(report.rederived, Some(2));
    assert_eq!(report.membership_tests, Some(79));
    let new = engine.model();
    assert_eq!(new.len(), 6);
    let answers: Vec<String> = case
        .facts_of(&new, "q")
        .into_iter()
        .filter(|f| f.starts_with("q(\"a\""))
        .collect();
    assert_eq!(answers, strs(&["q(\"a\", \"d\")", "q(\"a\", \"e\")"]));
    assert!(case.facts_of(&new, "m").contains("m(\"d\")"));
}

#[test]
fn empty_batch_returns_the_old_model() {
    let mut case = Case::new(PATH);
    let edb = case.edges(&seed_edges());
    let mut engine = Reference::new(case.program.clone());
    engine.materialise(&edb).expect("materialises");
    let old = engine.model();
    let report = engine.apply(&Batch::default()).expect("applies");
    assert_eq!(engine.model(), old);
    assert_eq!(report, Core::unchanged());
}

#[test]
fn empty_program() {
    let case = Case::new("");
    let mut engine = Reference::new(case.program.clone());
    let report = engine
        .materialise(&Edb::empty(&case.program))
        .expect("runs");
    assert!(engine.model().is_empty());
    assert_eq!(report.inserted, None, "batch 0 has no DRed counters");
    assert!(report.rounds.is_empty());
    engine.apply(&Batch::default()).expect("applies");
    assert!(engine.model().is_empty());
}

#[test]
fn zero_arity_fact_without_constants() {
    let case = Case::new(".decl ready()\nready().\n");
    let mut engine = Reference::new(case.program.clone());
    engine
        .materialise(&Edb::empty(&case.program))
        .expect("runs");
    let model = engine.model();
    assert_eq!(model.len(), 1);
    assert!(model.contains(case.rel("ready"), &[]));
}

#[test]
fn program_fact_is_rederived_by_its_empty_body_instance() {
    let case =
        Case::new(".decl e(x: number)\n.decl ready()\n.input e\nready().\nready() :- e(x).\n");
    let mut edb = Edb::empty(&case.program);
    edb.insert(Fact::new(case.rel("e"), vec![1]));
    let mut engine = Reference::new(case.program.clone());
    engine.materialise(&edb).expect("runs");
    let del = RequestedBatch {
        deletions: vec![Fact::new(case.rel("e"), vec![1])],
        insertions: vec![],
    };
    let report = step(&case, &mut engine, &mut edb, &del);
    // ready() goes with e(1), and its program-fact instance brings it back.
    assert_eq!(report.overdeleted, Some(1));
    assert_eq!(
        case.rounds(&report, Phase::Rederive),
        vec![strs(&["ready()"])]
    );
    assert_eq!(report.instances, Some(2));
    assert!(engine.model().contains(case.rel("ready"), &[]));
}

#[test]
fn fresh_constants_join_new_proofs() {
    let mut case = Case::new(PATH);
    let mut edb = case.edges(&seed_edges());
    let mut engine = Reference::new(case.program.clone());
    engine.materialise(&edb).expect("materialises");
    let ins = RequestedBatch {
        deletions: vec![],
        insertions: vec![
            case.fact("edge", &["d", "fresh"]),
            case.fact("edge", &["fresh", "a"]),
        ],
    };
    let report = step(&case, &mut engine, &mut edb, &ins);
    let path = case.facts_of(&engine.model(), "path");
    for f in [
        "path(\"d\", \"fresh\")",
        "path(\"fresh\", \"a\")",
        "path(\"fresh\", \"fresh\")",
        "path(\"a\", \"a\")",
        "path(\"b\", \"fresh\")",
    ] {
        assert!(path.contains(f), "{f} derived");
    }
    assert_eq!(
        case.rounds(&report, Phase::Insert)[0],
        strs(&["edge(\"d\", \"fresh\")", "edge(\"fresh\", \"a\")"])
    );
    assert_eq!(report.overdeleted, Some(0));
    assert!(case.rounds(&report, Phase::Overdelete).is_empty());
}

#[test]
fn deleted_and_inserted_in_one_batch_is_no_change() {
    let mut case = Case::new(PATH);
    let mut edb = case.edges(&seed_edges());
    let mut engine = Reference::new(case.program.clone());
    engine.materialise(&edb).expect("materialises");
    let old = engine.model();
    let ab = case.fact("edge", &["a", "b"]);
    let both = RequestedBatch {
        deletions: vec![ab.clone()],
        insertions: vec![ab],
    };
    let report = step(&case, &mut engine, &mut edb, &both);
    assert_eq!(engine.model(), old);
    assert!(report.rounds.is_empty());
    assert_eq!(report.instances, Some(0));
}

#[test]
fn deleting_absent_and_inserting_present_facts_change_nothing() {
    let mut case = Case::new(PATH);
    let mut edb = case.edges(&seed_edges());
    let mut engine = Reference::new(case.program.clone());
    engine.materialise(&edb).expect("materialises");
    let old = engine.model();
    let absent = case.fact("edge", &["d", "a"]);
    let present = case.fact("edge", &["c", "d"]);
    for requested in [
        RequestedBatch {
            deletions: vec![absent.clone()],
            insertions: vec![],
        },
        RequestedBatch {
            deletions: vec![],
            insertions: vec![present.clone(), present.clone()],
        },
    ] {
        let report = step(&case, &mut engine, &mut edb, &requested);
        assert_eq!(engine.model(), old);
        assert!(report.rounds.is_empty());
    }
    // A batch not normalised against the engine's EDB is refused, not misapplied.
    for bad in [
        Batch {
            deletions: vec![absent],
            ..Batch::default()
        },
        Batch {
            insertions: vec![present],
            ..Batch::default()
        },
    ] {
        assert!(matches!(
            engine.apply(&bad),
            Err(EngineError::Misuse { .. })
        ));
    }
    assert_eq!(engine.model(), old);
}

#[test]
fn non_linear_rule_with_both_atoms_new() {
    let mut case = Case::new(PATH);
    let mut edb = case.edges(&[("p", "q")]);
    let mut engine = Reference::new(case.program.clone());
    engine.materialise(&edb).expect("materialises");
    let ins = RequestedBatch {
        deletions: vec![],
        insertions: vec![
            case.fact("edge", &["x", "y"]),
            case.fact("edge", &["y", "z"]),
        ],
    };
    let report = step(&case, &mut engine, &mut edb, &ins);
    // path(x, z) :- path(x, y), path(y, z) with both body facts from the latest delta.
    assert_eq!(
        case.rounds(&report, Phase::Insert),
        vec![
            strs(&["edge(\"x\", \"y\")", "edge(\"y\", \"z\")"]),
            strs(&["path(\"x\", \"y\")", "path(\"y\", \"z\")"]),
            strs(&["path(\"x\", \"z\")"]),
        ]
    );
    assert_eq!(report.inserted, Some(3));
}

#[test]
fn comparisons_and_wildcards() {
    let case = Case::new(
        ".decl e(x: number, y: number)\n.decl lt(x: number, y: number)\n.decl src(x: number)\n\
         .input e\nlt(x, y) :- e(x, y), x < y.\nlt(x, z) :- lt(x, y), lt(y, z).\n\
         src(x) :- e(x, _).\n",
    );
    let e = case.rel("e");
    let mut edb = Edb::empty(&case.program);
    for (x, y) in [(1, 2), (2, 3), (3, 1), (1, 3)] {
        edb.insert(Fact::new(e, vec![x, y]));
    }
    let mut engine = Reference::new(case.program.clone());
    engine.materialise(&edb).expect("materialises");
    assert_eq!(engine.model(), Oracle::least_model(&case.program, &edb));
    let del = RequestedBatch {
        deletions: vec![Fact::new(e, vec![1, 2])],
        insertions: vec![Fact::new(e, vec![0, 1])],
    };
    let report = step(&case, &mut engine, &mut edb, &del);
    // src(1) has two instances (e(1, 2) and e(1, 3)): over-deleted, then rederived.
    let src = case.rel("src");
    let rederived: Vec<&Fact> = report
        .rounds
        .iter()
        .filter(|r| r.phase == Phase::Rederive)
        .flat_map(|r| &r.facts)
        .collect();
    assert!(rederived.contains(&&Fact::new(src, vec![1])));
}

/// The seed's open question (QUESTION-188): under negation, deleting a base fact inserts a
/// derived fact. On the seed graph, `unreachable(y) :- node(y), !path("a", y).` sits one level
/// above `path`. Deleting edge(a, b) loses path(a, b) and path(a, c) at level 0, and level 1
/// receives those losses: no instance of it used them positively, so it over-deletes
/// nothing, and its insertion's round 1 is every instance the losses make true —
/// unreachable(b) and unreachable(c). Putting the edge back reverses it: the gains falsify
/// both instances (level 1's over-deletion round 1), neither has another proof (rederivation's
/// one round is empty), and nothing is inserted. `dred` reports the same rounds.
#[test]
fn deleting_a_base_fact_inserts_through_negation() {
    let src = format!(
        "{PATH}.decl node(x: symbol)\n.decl unreachable(x: symbol)\n.input node\n\
         unreachable(y) :- node(y), !path(\"a\", y).\n"
    );
    let mut case = Case::new(&src);
    let mut edb = case.edges(&seed_edges());
    for n in ["a", "b", "c", "d", "e", "u", "v", "w"] {
        let f = case.fact("node", &[n]);
        edb.insert(f);
    }
    let mut engine = Reference::new(case.program.clone());
    let mut dred = crate::dred::Dred::new(case.program.clone());
    engine.materialise(&edb).expect("materialises");
    dred.materialise(&edb).expect("materialises");
    let unreachable =
        |case: &Case, engine: &Reference| case.facts_of(&engine.model(), "unreachable");
    let before: BTreeSet<String> = ["a", "u", "v", "w"]
        .iter()
        .map(|n| format!("unreachable(\"{n}\")"))
        .collect();
    assert_eq!(unreachable(&case, &engine), before);

    let level1 = |report: &BatchReport, case: &Case, phase: Phase| -> Vec<Vec<String>> {
        report
            .rounds
            .iter()
            .filter(|r| r.stratum == 1 && r.phase == phase)
            .map(|r| r.facts.iter().map(|f| case.show(f)).collect())
            .collect()
    };
    let ab = case.fact("edge", &["a", "b"]);
    let delete = RequestedBatch {
        deletions: vec![ab.clone()],
        insertions: Vec::new(),
    };
    let report = step(&case, &mut engine, &mut edb.clone(), &delete);
    let batch = Batch::normalise(&delete, &edb);
    edb.apply(&batch);
    assert_eq!(dred.apply(&batch).expect("applies").rounds, report.rounds);
    assert!(level1(&report, &case, Phase::Overdelete).is_empty());
    assert!(level1(&report, &case, Phase::Rederive).is_empty());
    assert_eq!(
        level1(&report, &case, Phase::Insert),
        vec![strs(&["unreachable(\"b\")", "unreachable(\"c\")"])]
    );
    // Level 0's first frontier is D-, as in the seed; its rounds carry stratum 0.
    assert_eq!(
        case.rounds(&report, Phase::Overdelete)[0],
        strs(&["edge(\"a\", \"b\")"])
    );
    assert!(report.rounds.iter().all(|r| r.stratum <= 1));
    assert_eq!(report.inserted, Some(2));

    let insert = RequestedBatch {
        deletions: Vec::new(),
        insertions: vec![ab],
    };
    let report = step(&case, &mut engine, &mut edb.clone(), &insert);
    let batch = Batch::normalise(&insert, &edb);
    edb.apply(&batch);
    assert_eq!(dred.apply(&batch).expect("applies").rounds, report.rounds);
    assert_eq!(
        level1(&report, &case, Phase::Overdelete),
        vec![strs(&["unreachable(\"b\")", "unreachable(\"c\")"])]
    );
    assert_eq!(
        level1(&report, &case, Phase::Rederive),
        vec![Vec::<String>::new()]
    );
    assert!(level1(&report, &case, Phase::Insert).is_empty());
    assert_eq!(unreachable(&case, &engine), before);
    assert_eq!(dred.model(), engine.model());
}

#[test]
fn apply_before_materialise_is_misuse() {
    let case = Case::new(PATH);
    let mut engine = Reference::new(case.program.clone());
    assert!(matches!(
        engine.apply(&Batch::default()),
        Err(EngineError::Misuse { .. })
    ));
}
