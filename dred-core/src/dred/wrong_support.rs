//! The `wrong-support` engine: a deliberately wrong negative control (SPEC §5).
//!
//! It replaces phases 1 and 2 of DRed by "repeatedly strip old conclusions that have no
//! supporting instance in the current set": starting from the old I ∪ J without D-, every
//! round removes each IDB fact none of whose old instances has its whole body in the current
//! set, until a round removes nothing; then it inserts A+ as the reference does.
//!
//! Pitfall — the point of it: a fact supported only through a cycle of facts supports itself.
//! On the seed graph, deleting edge(a, b) leaves path(a, b) "supported" by path(a, c),
//! path(c, b) and path(a, c) by path(a, b), path(b, c), so both stay although nothing proves
//! them any more. Its model then differs from every correct engine's, and the harness's check
//! is seen to fail. It is correct on programs without recursion, which is why a check that
//! only ran such programs would miss the error.

use std::sync::Arc;
use std::time::Instant;

use crate::dred::reference::instances::{FactId, FactTable, InstanceStore};
use crate::dred::reference::rederive::Survivors;
use crate::dred::reference::{nanos, Core};
use crate::engine::{Batch, BatchReport, Edb, Engine, EngineError, Model};
use crate::program::Program;

/// The wrong-support negative control. Positive programs only, like the reference.
#[derive(Debug)]
pub struct WrongSupport {
    core: Core,
}

impl WrongSupport {
    /// A wrong-support engine for `program`.
    pub fn new(program: Arc<Program>) -> Self {
        WrongSupport {
            core: Core::new(program, "wrong-support"),
        }
    }
}

impl Engine for WrongSupport {
    fn name(&self) -> &str {
        self.core.name
    }

    fn materialise(&mut self, edb: &Edb) -> Result<BatchReport, EngineError> {
        // Its stripping runs over the whole program at once, as for one level: negation and
        // aggregates (more than one level) are beyond it, not part of the flaw it shows.
        if self.core.program.num_levels() > 1 {
            return Err(EngineError::Unsupported {
                engine: self.core.name.into(),
                feature: "negation and aggregates (a negative control for positive programs)"
                    .into(),
            });
        }
        self.core.materialise(edb)
    }

    fn apply(&mut self, batch: &Batch) -> Result<BatchReport, EngineError> {
        self.core.check_batch(batch)?;
        let mut report = BatchReport {
            inserted: Some(0),
            insert_ns: Some(0),
            instances: Some(0),
            body_len: Some(0),
            ..BatchReport::default()
        };
        if batch.is_empty() {
            return Ok(report);
        }
        let core = &mut self.core;
        let facts = FactTable::new(&core.relations).map_err(|e| core.store_error(e))?;
        let store = InstanceStore::enumerate(&core.named, &core.enumeration_plans, &facts)
            .map_err(|e| core.store_error(e))?;
        report.instances = Some(store.len() as u64);
        report.body_len = Some(store.body_len() as u64);

        // The current set: the old I ∪ J without D-.
        let mut current = Survivors::all(&facts);
        for f in core.deletions(&facts, batch)?.0 {
            current.remove(f);
        }
        let program = &core.program;
        loop {
            // Strip every IDB fact h with no old instance h :- b1, …, bn whose bi all hold now.
            let unsupported: Vec<FactId> = current
                .iter()
                .filter(|&h| program.is_idb(facts.rel(h)))
                .filter(|&h| {
                    !store
                        .of_head(h)
                        .any(|i| store.body(i).iter().all(|&b| current.contains(b)))
                })
                .collect();
            if unsupported.is_empty() {
                break;
            }
            for h in unsupported {
                current.remove(h);
            }
        }

        let start = Instant::now();
        let next = core.rebuild(&facts, &current);
        drop(store);
        drop(facts);
        core.relations = next;
        core.insert_phase(0, batch.insertions.iter().cloned(), &mut report, start);
        report.insert_ns = Some(nanos(start));
        Ok(report)
    }

    fn model(&self) -> Model {
        self.core.model()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{Fact, RequestedBatch};
    use crate::{load_program, Oracle, Reference, SourceFile, Symbols};

    /// The seed graph and path program; deleting edge(a, b) leaves the b–c cycle vouching for
    /// path(a, b) and path(a, c).
    #[test]
    fn keeps_cyclically_supported_facts() {
        let mut symbols = Symbols::new();
        let program = Arc::new(
            load_program(
                &SourceFile::new(
                    "path.dl",
                    ".decl edge(x: symbol, y: symbol)\n.decl path(x: symbol, y: symbol)\n\
                     .input edge\npath(x, y) :- edge(x, y).\n\
                     path(x, z) :- path(x, y), path(y, z).\n",
                ),
                &mut symbols,
            )
            .expect("checks"),
        );
        let (edge, path) = (0, 1);
        let mut s = |x: &str, y: &str| vec![symbols.intern(x), symbols.intern(y)];
        let mut edb = Edb::empty(&program);
        for (x, y) in crate::seed::seed_edges() {
            edb.insert(Fact::new(edge, s(x, y)));
        }
        let (ab, ac, ad) = (s("a", "b"), s("a", "c"), s("a", "d"));
        let mut wrong = WrongSupport::new(program.clone());
        let mut right = Reference::new(program.clone());
        wrong.materialise(&edb).expect("materialises");
        right.materialise(&edb).expect("materialises");
        assert_eq!(wrong.model(), right.model(), "no batch yet: same model");

        let batch = Batch::normalise(
            &RequestedBatch {
                deletions: vec![Fact::new(edge, ab.clone())],
                insertions: vec![],
            },
            &edb,
        );
        edb.apply(&batch);
        let report = wrong.apply(&batch).expect("applies");
        right.apply(&batch).expect("applies");
        assert_eq!(report.instances, Some(55));
        let oracle = Oracle::least_model(&program, &edb);
        assert_eq!(right.model(), oracle);
        let extra = wrong.model().minus(&oracle);
        assert_eq!(extra.get(&path), Some(&vec![ab, ac]));
        assert!(oracle.minus(&wrong.model()).is_empty());
        assert!(wrong.model().contains(path, &ad));
    }
}
