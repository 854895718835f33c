//! The `dredbench` harness: runs several engines on one program, EDB and update stream,
//! checks after every batch that their models agree, and writes reports, traces and outputs.

#![deny(missing_docs)]

pub mod calibration;
pub mod cases;
pub mod charts;
pub mod cmd;
pub mod compare;
pub mod datasets;
pub mod engines;
pub mod external;
pub mod findings;
pub mod full_study;
pub mod inputs;
pub mod memory;
pub mod provenance;
pub mod regression;
pub mod report;
pub mod runner;
pub mod sched;
pub mod stats;
pub mod summary;
pub mod updates;

/// How a command ended, mapped to the process exit code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Everything agreed (exit 0).
    Agree,
    /// Engines' models differed (exit 1).
    Mismatch,
    /// An engine failed: an error or a panic on valid input (exit 1).
    EngineFailed,
}

/// Errors that mean bad input or usage (exit 2).
#[derive(Debug, thiserror::Error)]
pub enum BadInput {
    /// A located error in a program, facts or update file (already rendered).
    #[error("{0}")]
    Located(String),
    /// Anything else the user must fix.
    #[error("{0}")]
    Other(String),
}

/// The seed's `edge` facts (SPEC §6), as shipped in `datasets/seed/facts/edge.facts`, for unit
/// tests: the example has one copy.
#[cfg(test)]
pub(crate) fn seed_edges() -> Vec<(&'static str, &'static str)> {
    include_str!("../../datasets/seed/facts/edge.facts")
        .lines()
        .filter_map(|l| l.split_once('\t'))
        .collect()
}
