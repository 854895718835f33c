//! Random programs, EDBs and update streams for property tests (feature `testing`).
//!
//! A [`RandomCase`] is generated as program *text* so that every property test also runs
//! the parser and the checker. All columns are `number` over a small domain, which makes
//! joins, repeated variables and constants collide often; update streams use a slightly larger
//! domain so that insertions bring constants the EDB never had. Strategies shrink toward fewer
//! rules, shorter bodies and smaller batches.
//!
//! For the magic-set rewrite, [`random_query`] draws queries over the derived relations and
//! [`LoadedCase::magic`] turns a case and a query into a [`MagicCase`]: the generated program,
//! the case's stream in its relation ids, and the answers the full program gives after every
//! batch, which any engine running the generated program must reproduce.

use std::sync::Arc;

use proptest::prelude::*;

use crate::check::load_program;
use crate::diagnostic::SourceFile;
use crate::engine::{Batch, Edb, Engine, Fact, Model, ModelDigest, RequestedBatch};
use crate::magic::{parse_query, rewrite, MagicProgram, Query};
use crate::oracle::Oracle;
use crate::program::Program;
use crate::value::{Symbols, Tuple};

/// Input relations: name and arity.
pub const EDB: &[(&str, usize)] = &[("e", 2), ("f", 1)];
/// Derived relations: name and arity (one of arity 0).
pub const IDB: &[(&str, usize)] = &[("p", 2), ("q", 1), ("r", 2), ("z", 0)];

/// One generated test case.
#[derive(Clone, Debug)]
pub struct RandomCase {
    /// The program text (Soufflé subset).
    pub program: String,
    /// Initial EDB facts: relation name and values.
    pub edb: Vec<(String, Vec<i64>)>,
    /// Batches of updates: `true` for insertion, relation name, values.
    pub batches: Vec<Vec<(bool, String, Vec<i64>)>>,
}

/// A case loaded through the real parser and checker.
#[derive(Debug)]
pub struct LoadedCase {
    /// The checked program.
    pub program: Arc<Program>,
    /// Symbols (none are used by generated programs, but engines expect the table).
    pub symbols: Symbols,
    /// The initial EDB.
    pub edb: Edb,
    /// Requested batches, not yet normalised.
    pub batches: Vec<RequestedBatch>,
}

impl RandomCase {
    /// Parses and checks the case. `None` when the checker rejects the program (a random
    /// program with negation may not be stratifiable).
    pub fn load(&self) -> Option<LoadedCase> {
        let mut symbols = Symbols::new();
        let program = match load_program(
            &SourceFile::new("random.dl", self.program.as_str()),
            &mut symbols,
        ) {
            Ok(p) => Arc::new(p),
            Err(e) if e.message.contains("not stratifiable") => return None,
            Err(e) => panic!("generated program rejected: {e}\n{}", self.program),
        };
        let fact = |rel: &str, vals: &[i64]| {
            Fact::new(
                program.relation_id(rel).expect("generated relation"),
                vals.to_vec(),
            )
        };
        let mut edb = Edb::empty(&program);
        for (rel, vals) in &self.edb {
            edb.insert(fact(rel, vals));
        }
        let batches = self
            .batches
            .iter()
            .map(|b| {
                let mut rb = RequestedBatch::default();
                for (ins, rel, vals) in b {
                    if *ins {
                        rb.insertions.push(fact(rel, vals));
                    } else {
                        rb.deletions.push(fact(rel, vals));
                    }
                }
                rb
            })
            .collect();
        Some(LoadedCase {
            program: program.clone(),
            symbols,
            edb,
            batches,
        })
    }
}

impl LoadedCase {
    /// Rewrites the case for `query` (text such as `p(1, x)`, as [`random_query`] draws) by
    /// magic sets: the EDB and the batches (normalised in turn against the evolving EDB) are
    /// carried over to the generated program's relation ids, and the naive [`Oracle`] runs the
    /// *full* program on the same stream to give the expected answers. Panics when the query
    /// does not parse or the rewrite fails: generated queries always fit generated programs.
    pub fn magic(&self, query: &str) -> MagicCase {
        let mut symbols = self.symbols.clone();
        let query = parse_query(query, &self.program, &mut symbols)
            .unwrap_or_else(|d| panic!("query `{query}` rejected: {}", d.message));
        let magic = rewrite(&self.program, &query, &mut symbols).unwrap_or_else(|d| {
            panic!(
                "rewrite failed: {}\n{}",
                d.message, self.program.source.text
            )
        });
        let generated = Arc::new(magic.program.clone());
        let translate = |f: &Fact| {
            let name = &self.program.relations[f.rel].name;
            Fact::new(
                generated
                    .relation_id(name)
                    .expect("the rewrite keeps every input relation"),
                f.tuple.clone(),
            )
        };
        let mut edb = Edb::empty(&generated);
        for f in self.edb.facts() {
            edb.insert(translate(&f));
        }
        let mut full = Oracle::new(self.program.clone());
        let mut full_edb = self.edb.clone();
        full.materialise(&full_edb)
            .expect("the oracle materialises");
        let mut expected = vec![full_answers(&full, &query)];
        let mut batches = Vec::new();
        for requested in &self.batches {
            let batch = Batch::normalise(requested, &full_edb);
            full_edb.apply(&batch);
            full.apply(&batch).expect("the oracle applies");
            expected.push(full_answers(&full, &query));
            batches.push(Batch {
                deletions: batch.deletions.iter().map(translate).collect(),
                insertions: batch.insertions.iter().map(translate).collect(),
                ..batch
            });
        }
        MagicCase {
            magic,
            program: generated,
            full: self.program.clone(),
            edb,
            batches,
            expected,
        }
    }
}

/// The tuples of the queried relation that match the query, sorted.
fn full_answers(full: &Oracle, query: &Query) -> Vec<Tuple> {
    full.model().relations[query.rel]
        .iter()
        .filter(|t| query.matches(t))
        .cloned()
        .collect()
}

/// A generated case rewritten for a query (see [`LoadedCase::magic`]).
#[derive(Debug)]
pub struct MagicCase {
    /// The rewrite: generated text, program, answer relation, query.
    pub magic: MagicProgram,
    /// The generated program, shared as engines take it.
    pub program: Arc<Program>,
    /// The full program the case was generated as.
    pub full: Arc<Program>,
    /// The initial EDB, in the generated program's relation ids.
    pub edb: Edb,
    /// The normalised batches, in the generated program's relation ids.
    pub batches: Vec<Batch>,
    /// The full program's tuples matching the query: after materialisation (index 0) and
    /// after each batch (index i), sorted.
    pub expected: Vec<Vec<Tuple>>,
}

impl MagicCase {
    /// Runs `engine`, built on [`MagicCase::program`], through the case and panics, naming the
    /// engine, the batch, the query and both programs, at the first batch whose answers differ
    /// from the full program's. Returns the number of batches applied.
    pub fn assert_answers(&self, engine: &mut dyn Engine) -> usize {
        let check = |engine: &dyn Engine, batch: usize| {
            let got = self.magic.answers(&engine.model());
            assert!(
                got == self.expected[batch],
                "engine {} after batch {batch} for query {}: answers {got:?}, full program {:?}\n\
                 full program:\n{}\ngenerated program:\n{}",
                engine.name(),
                self.magic.query.text,
                self.expected[batch],
                self.full.source.text,
                self.magic.text
            );
        };
        engine.materialise(&self.edb).expect("materialise");
        check(engine, 0);
        for (i, batch) in self.batches.iter().enumerate() {
            engine.apply(batch).expect("apply");
            check(engine, i + 1);
        }
        self.batches.len()
    }
}

/// Runs every engine through the case and panics, naming batch, engines and differing facts,
/// at the first disagreement with the first engine. Returns the number of batches checked.
pub fn assert_engines_agree(case: &LoadedCase, engines: &mut [Box<dyn Engine>]) -> usize {
    let mut edb = case.edb.clone();
    for e in engines.iter_mut() {
        e.materialise(&edb).expect("materialise");
    }
    // Besides equal models: each engine's digest is that of its model, and a reported net
    // change is the difference from the model before the batch.
    let check = |engines: &[Box<dyn Engine>], before: &[Model], batch: usize| -> Vec<Model> {
        let models: Vec<Model> = engines.iter().map(|e| e.model()).collect();
        let first = &models[0];
        for (e, m) in engines.iter().zip(&models) {
            if m != first {
                panic!(
                    "after batch {batch}: in {} not {}: {:?}; in {} not {}: {:?}\nprogram:\n{}",
                    engines[0].name(),
                    e.name(),
                    first.minus(m),
                    e.name(),
                    engines[0].name(),
                    m.minus(first),
                    case.program.source.text
                );
            }
            assert_eq!(
                e.digest(),
                ModelDigest::of_model(m),
                "{}: digest after batch {batch}",
                e.name()
            );
        }
        for (e, old) in engines.iter().zip(before) {
            if let Some(change) = e.net_change() {
                assert_eq!(
                    change,
                    old.change_to(first),
                    "{}: net change of batch {batch}\nprogram:\n{}",
                    e.name(),
                    case.program.source.text
                );
            }
        }
        models
    };
    let empty = vec![Model::empty(&case.program); engines.len()];
    let mut models = check(engines, &empty, 0);
    for (i, requested) in case.batches.iter().enumerate() {
        let batch = Batch::normalise(requested, &edb);
        edb.apply(&batch);
        for e in engines.iter_mut() {
            e.apply(&batch).expect("apply");
        }
        models = check(engines, &models, i + 1);
    }
    case.batches.len()
}

/// Random queries over the derived relations of [`random_case`] programs, as text: each
/// argument is a constant in `0..4` (bound), a variable `a` or `b` (free; a repeated name asks
/// for equal values) or `_`, so every binding pattern occurs, the zero-arity `z()` included.
pub fn random_query() -> impl Strategy<Value = String> {
    prop::sample::select(IDB.to_vec()).prop_flat_map(|(name, arity)| {
        prop::collection::vec(
            prop_oneof![
                2 => (0i64..4).prop_map(|c| c.to_string()),
                2 => prop::sample::select(&["a", "b"][..]).prop_map(str::to_string),
                1 => Just("_".to_string()),
            ],
            arity,
        )
        .prop_map(move |args| format!("{name}({})", args.join(", ")))
    })
}

fn term(vars: &'static [&'static str]) -> impl Strategy<Value = String> {
    prop_oneof![
        8 => prop::sample::select(vars).prop_map(str::to_string),
        1 => (0i64..4).prop_map(|c| c.to_string()),
        1 => Just("_".to_string()),
    ]
}

fn atom(rels: Vec<(&'static str, usize)>) -> impl Strategy<Value = (String, Vec<String>)> {
    prop::sample::select(rels).prop_flat_map(|(name, arity)| {
        prop::collection::vec(term(&["x", "y", "z"]), arity)
            .prop_map(move |args| (name.to_string(), args))
    })
}

fn rule(negation: bool) -> impl Strategy<Value = String> {
    let all: Vec<(&str, usize)> = EDB.iter().chain(IDB).copied().collect();
    let idb: Vec<(&str, usize)> = IDB.to_vec();
    (
        prop::sample::select(idb),
        prop::collection::vec(atom(all.clone()), 1..=3),
        prop::option::weighted(
            0.3,
            (
                prop::sample::select(&["!=", "<", "=", ">="][..]),
                any::<prop::sample::Index>(),
                any::<prop::sample::Index>(),
            ),
        ),
        prop::option::weighted(if negation { 0.4 } else { 0.001 }, atom(all))
            .prop_map(move |a| a.filter(|_| negation)),
        prop::collection::vec((any::<prop::sample::Index>(), 0i64..4, any::<bool>()), 2),
    )
        .prop_map(|((head, arity), body, cmp, neg, head_picks)| {
            let mut bound: Vec<String> = Vec::new();
            for (_, args) in &body {
                for a in args {
                    if a.starts_with(|c: char| c.is_ascii_alphabetic()) && !bound.contains(a) {
                        bound.push(a.clone());
                    }
                }
            }
            let head_args: Vec<String> = head_picks
                .iter()
                .take(arity)
                .map(|(ix, c, use_const)| {
                    if bound.is_empty() || *use_const && bound.len() < 2 {
                        c.to_string()
                    } else {
                        ix.get(&bound).clone()
                    }
                })
                .collect();
            let mut lits: Vec<String> = body
                .iter()
                .map(|(r, args)| format!("{r}({})", args.join(", ")))
                .collect();
            if let (Some((op, l, r)), false) = (cmp, bound.is_empty()) {
                lits.push(format!("{} {op} {}", l.get(&bound), r.get(&bound)));
            }
            if let Some((r, args)) = neg {
                // Variables of a negated atom must be bound: replace unbound ones by `_`.
                let args: Vec<String> = args
                    .into_iter()
                    .map(|a| {
                        if a.starts_with(|c: char| c.is_ascii_alphabetic()) && !bound.contains(&a) {
                            "_".to_string()
                        } else {
                            a
                        }
                    })
                    .collect();
                lits.push(format!("!{r}({})", args.join(", ")));
            }
            format!("{head}({}) :- {}.", head_args.join(", "), lits.join(", "))
        })
}

/// Rule shapes that make recursion and large models likely, mixed into the random rules.
const TEMPLATES: &[&str] = &[
    "p(x, y) :- e(x, y).",
    "p(x, z) :- p(x, y), p(y, z).",
    "p(x, z) :- p(x, y), e(y, z).",
    "r(x, y) :- p(y, x), q(x).",
    "q(y) :- q(x), e(x, y).",
    "q(x) :- f(x).",
    "r(x, y) :- r(y, x), e(x, _).",
    "z() :- p(x, x).",
];

fn any_rule(negation: bool) -> impl Strategy<Value = String> {
    prop_oneof![
        1 => rule(negation),
        1 => prop::sample::select(TEMPLATES).prop_map(str::to_string),
    ]
}

fn program_text(rules: Vec<String>, facts: Vec<(usize, i64, i64)>) -> String {
    let mut s = String::new();
    for (name, arity) in EDB.iter().chain(IDB) {
        let cols: Vec<String> = (0..*arity).map(|i| format!("c{i}: number")).collect();
        s.push_str(&format!(".decl {name}({})\n", cols.join(", ")));
    }
    for (name, _) in EDB {
        s.push_str(&format!(".input {name}\n"));
    }
    for (name, _) in IDB {
        s.push_str(&format!(".output {name}\n"));
    }
    for (rel, a, b) in facts {
        let (name, arity) = IDB[rel % IDB.len()];
        let vals: Vec<String> = [a, b].iter().take(arity).map(i64::to_string).collect();
        s.push_str(&format!("{name}({}).\n", vals.join(", ")));
    }
    for r in rules {
        s.push_str(&r);
        s.push('\n');
    }
    s
}

fn edb_fact(domain: i64) -> impl Strategy<Value = (String, Vec<i64>)> {
    prop::sample::select(EDB.to_vec()).prop_flat_map(move |(name, arity)| {
        prop::collection::vec(0..domain, arity).prop_map(move |v| (name.to_string(), v))
    })
}

/// Random cases: up to 6 rules over 2 input and 4 derived relations, up to 2 program
/// facts, up to 24 EDB facts over values 0..4, and up to 4 batches of up to 5 updates over
/// values 0..6. `negation` allows one negated atom per rule.
pub fn random_case(negation: bool) -> impl Strategy<Value = RandomCase> {
    (
        prop::collection::vec(any_rule(negation), 1..=6),
        prop::collection::vec((0usize..4, 0i64..4, 0i64..4), 0..=2),
        prop::collection::vec(edb_fact(4), 0..=24),
        prop::collection::vec(
            // Deletions over the EDB's domain, so that most name present facts; insertions
            // over a wider one, so that some bring new constants.
            prop::collection::vec(
                prop_oneof![
                    edb_fact(4).prop_map(|f| (false, f)),
                    edb_fact(6).prop_map(|f| (true, f)),
                ],
                0..=5,
            ),
            1..=4,
        ),
    )
        .prop_map(|(rules, facts, edb, batches)| RandomCase {
            program: program_text(rules, facts),
            edb,
            batches: batches
                .into_iter()
                .map(|b| b.into_iter().map(|(ins, (r, v))| (ins, r, v)).collect())
                .collect(),
        })
}
