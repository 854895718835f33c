//! Helpers shared by the dd-baseline integration tests: loading programs, running the dd engine
//! beside the oracle batch by batch, and describing a difference before asserting.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::sync::Arc;

use dd_baseline::{DdConfig, DdEngine};
use dred_core::{
    io, load_program, Batch, Edb, Engine, Fact, Model, ModelDigest, Oracle, Program,
    RequestedBatch, SourceFile, Symbols,
};

/// The workspace's `datasets/` directory.
pub fn datasets() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../datasets")
}

/// A checked program from text.
pub fn program(text: &str, symbols: &mut Symbols) -> Arc<Program> {
    let src = SourceFile::new("test.dl", text);
    match load_program(&src, symbols) {
        Ok(p) => Arc::new(p),
        Err(d) => panic!("test program does not check:\n{}\n{text}", d.render()),
    }
}

/// A program, its facts and its update stream read from files.
pub struct Loaded {
    pub program: Arc<Program>,
    pub symbols: Symbols,
    pub edb: Edb,
    pub batches: Vec<RequestedBatch>,
}

/// Reads a program file, a facts directory and an optional update stream.
pub fn load_files(program: &Path, facts: &Path, updates: Option<&Path>) -> Loaded {
    let mut symbols = Symbols::new();
    let text = std::fs::read_to_string(program).expect("program file");
    let program = self::program(&text, &mut symbols);
    let edb = io::read_facts_dir(facts, &program, &mut symbols).expect("facts");
    let batches = updates
        .map(|u| io::read_updates(u, &program, &mut symbols).expect("updates"))
        .unwrap_or_default();
    Loaded {
        program,
        symbols,
        edb,
        batches,
    }
}

/// A dd engine with `workers` threads in one process.
pub fn dd(program: &Arc<Program>, workers: usize) -> DdEngine {
    dd_with(program, DdConfig::threads(workers))
}

/// A dd engine with `config`.
pub fn dd_with(program: &Arc<Program>, config: DdConfig) -> DdEngine {
    DdEngine::start(program.clone(), config).expect("timely starts")
}

/// Both set differences, one line per fact (empty when equal).
pub fn difference(program: &Program, symbols: &Symbols, dd: &Model, oracle: &Model) -> String {
    let mut out = String::new();
    for (label, only) in [
        ("in dd, not oracle", dd.minus(oracle)),
        ("in oracle, not dd", oracle.minus(dd)),
    ] {
        for (rel, tuples) in only {
            for t in tuples {
                out.push_str(&format!(
                    "  {label}: {}\n",
                    program.fact_to_string(symbols, rel, &t)
                ));
            }
        }
    }
    out
}

/// Runs dd (with `workers` threads) and the oracle on the same stream, comparing the whole
/// model after materialisation and after every batch. Returns the final model.
pub fn check_against_oracle(
    program: &Arc<Program>,
    symbols: &Symbols,
    edb: &Edb,
    batches: &[RequestedBatch],
    workers: usize,
) -> Model {
    check_with_config(program, symbols, edb, batches, DdConfig::threads(workers))
}

/// [`check_against_oracle`] with dd configured by `config`.
pub fn check_with_config(
    program: &Arc<Program>,
    symbols: &Symbols,
    edb: &Edb,
    batches: &[RequestedBatch],
    config: DdConfig,
) -> Model {
    let mut edb = edb.clone();
    let mut dd = dd_with(program, config);
    let mut oracle = Oracle::new(program.clone());
    dd.materialise(&edb).expect("dd materialises");
    oracle.materialise(&edb).expect("oracle materialises");
    let mut before = oracle.model();
    assert_same(program, symbols, &dd.model(), &before, 0);
    for (i, requested) in batches.iter().enumerate() {
        let batch = Batch::normalise(requested, &edb);
        edb.apply(&batch);
        dd.apply(&batch).expect("dd applies");
        oracle.apply(&batch).expect("oracle applies");
        let after = oracle.model();
        assert_same(program, symbols, &dd.model(), &after, i + 1);
        // What the harness relies on instead of copying models after every batch.
        assert_eq!(
            dd.digest(),
            ModelDigest::of_model(&after),
            "digest, batch {}",
            i + 1
        );
        assert_eq!(
            dd.net_change(),
            Some(before.change_to(&after)),
            "net change, batch {}",
            i + 1
        );
        before = after;
    }
    dd.model()
}

/// Asserts equal models, printing both differences first.
pub fn assert_same(program: &Program, symbols: &Symbols, dd: &Model, oracle: &Model, batch: usize) {
    if dd != oracle {
        panic!(
            "dd and oracle differ after batch {batch}:\n{}",
            difference(program, symbols, dd, oracle)
        );
    }
}

/// A requested batch of insertions.
pub fn inserting(facts: impl IntoIterator<Item = Fact>) -> RequestedBatch {
    RequestedBatch {
        deletions: Vec::new(),
        insertions: facts.into_iter().collect(),
    }
}

/// A requested batch of deletions.
pub fn deleting(facts: impl IntoIterator<Item = Fact>) -> RequestedBatch {
    RequestedBatch {
        deletions: facts.into_iter().collect(),
        insertions: Vec::new(),
    }
}
