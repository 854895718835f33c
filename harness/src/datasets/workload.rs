//! The shape of a workload that is not a graph closure — a program analysis over the facts
//! of a real crate — measured for the findings: how many relations, how its derived facts
//! spread over the program's strata, and how much of the model lies in its largest recursive
//! component, the part a deletion can make DRed over-delete and rederive.

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::inputs::read_inputs;

/// Measured properties of one program on one dataset; every field is exact (the program is
/// evaluated once from scratch).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct WorkloadShape {
    /// The dataset's name as the study names it (`rust-nll:memchr`).
    pub dataset: String,
    /// The program's file stem, as the report's `program` column.
    pub program: String,
    /// `.input` relations.
    pub input_relations: usize,
    /// Derived relations.
    pub derived_relations: usize,
    /// EDB facts read.
    pub edb_facts: usize,
    /// Derived (IDB) facts of the least model.
    pub idb_facts: usize,
    /// Strongly connected components of the dependency graph (strata) with a rule that reads
    /// its own component.
    pub recursive_components: usize,
    /// The recursive component holding the most derived facts: its relations, space-separated
    /// (empty for a program without recursion).
    pub largest_component: String,
    /// Derived facts of that component.
    pub component_facts: usize,
    /// `component_facts / idb_facts` (0 for an empty model).
    pub component_share: f64,
}

/// Evaluates `program` on the facts in `facts` and measures the workload.
pub fn measure(dataset: &str, program: &Path, facts: &Path) -> anyhow::Result<WorkloadShape> {
    let inputs = read_inputs(program, facts, None, None).map_err(|e| anyhow::anyhow!("{e}"))?;
    let p = inputs.program.clone();
    let mut eval = dred_core::Evaluator::new(p.clone());
    eval.evaluate(
        inputs
            .edb
            .relations
            .iter()
            .enumerate()
            .flat_map(|(rel, ts)| ts.iter().map(move |t| (rel, t.as_slice()))),
    );
    let size = |rel: usize| eval.relations()[rel].len();
    let derived: Vec<usize> = (0..p.relations.len()).filter(|&r| p.is_idb(r)).collect();
    let idb_facts: usize = derived.iter().map(|&r| size(r)).sum();
    let largest = p
        .strata
        .iter()
        .filter(|s| s.recursive)
        .map(|s| (s.relations.iter().map(|&r| size(r)).sum::<usize>(), s))
        .max_by_key(|(facts, _)| *facts);
    let (component_facts, largest_component) = match largest {
        Some((facts, s)) => {
            let mut names: Vec<&str> = s
                .relations
                .iter()
                .map(|&r| p.relations[r].name.as_str())
                .collect();
            names.sort_unstable();
            (facts, names.join(" "))
        }
        None => (0, String::new()),
    };
    Ok(WorkloadShape {
        dataset: dataset.to_string(),
        program: program
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default(),
        input_relations: p.relations.len() - derived.len(),
        derived_relations: derived.len(),
        edb_facts: inputs.edb.len(),
        idb_facts,
        recursive_components: p.strata.iter().filter(|s| s.recursive).count(),
        largest_component,
        component_facts,
        component_share: if idb_facts == 0 {
            0.0
        } else {
            component_facts as f64 / idb_facts as f64
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn repo(path: &str) -> std::path::PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(path)
    }

    /// The seed's linear closure: one recursive component (`path`) holds every derived fact.
    #[test]
    fn the_seed_closure_is_one_component_holding_the_whole_model() {
        let w = measure(
            "seed",
            &repo("datasets/programs/tc_linear.dl"),
            &repo("datasets/seed/facts"),
        )
        .expect("measures");
        assert_eq!(w.program, "tc_linear");
        assert_eq!(w.derived_relations, 1);
        assert_eq!(w.recursive_components, 1);
        assert_eq!(w.largest_component, "path");
        assert!(w.idb_facts > w.edb_facts, "{w:?}");
        assert_eq!(w.component_facts, w.idb_facts);
        assert_eq!(w.component_share, 1.0);
    }

    /// The shipped points-to fixture: several derived relations, and the largest recursive
    /// component is the points-to relations, not the whole model.
    #[test]
    fn the_points_to_fixture_names_its_largest_component() {
        let w = measure(
            "andersen-mini",
            &repo("datasets/programs/andersen.dl"),
            &repo("datasets/andersen-mini/facts"),
        )
        .expect("measures");
        assert!(w.derived_relations >= 2, "{w:?}");
        assert!(w.largest_component.contains("points_to"), "{w:?}");
        assert!(w.component_facts > 0 && w.component_facts <= w.idb_facts);
        assert!(w.component_share > 0.0 && w.component_share <= 1.0);
    }
}
