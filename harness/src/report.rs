//! Report rows (SPEC §7) and trace lines, as serde types, and report CSVs read
//! ([`read_report`]) and written ([`write_report`]).
//!
//! The CSV columns are the fields of [`ReportRow`] in order: first the columns SPEC §7
//! requires, then provenance and the error column. Readers (`regress`, `plot`) go by header
//! name, so reports from older revisions with fewer provenance columns still load.

use std::path::Path;

use anyhow::Context;
use serde::{Deserialize, Serialize};

/// One CSV row: one engine, one batch (batch 0 is the initial materialisation). Figures an
/// engine does not produce are empty.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct ReportRow {
    /// Name of the facts directory.
    pub dataset: String,
    /// File stem of the program.
    pub program: String,
    /// Engine name.
    pub engine: String,
    /// Worker threads used by the engine.
    pub workers: usize,
    /// Batch number; 0 is the initial materialisation.
    pub batch: usize,
    /// |D0| requested.
    pub req_del: usize,
    /// |A0| requested.
    pub req_ins: usize,
    /// |D-| after normalisation.
    pub eff_del: usize,
    /// |A+| after normalisation.
    pub eff_ins: usize,
    /// IDB facts over-deleted (D ∩ J).
    pub overdeleted: Option<usize>,
    /// IDB facts rederived in phase 2.
    pub rederived: Option<usize>,
    /// IDB facts newly derived in phase 3.
    pub inserted: Option<usize>,
    /// IDB facts gone, net.
    pub model_removed: usize,
    /// IDB facts new, net.
    pub model_added: usize,
    /// IDB size after the batch.
    pub model_size: usize,
    /// Wall time of the engine's work on the batch, microseconds.
    pub time_us: u64,
    /// Phase 1 time, microseconds.
    pub overdelete_us: Option<u64>,
    /// Phase 2 time, microseconds.
    pub rederive_us: Option<u64>,
    /// Phase 3 time, microseconds.
    pub insert_us: Option<u64>,
    /// G: old successful instances enumerated.
    pub instances: Option<u64>,
    /// B: total body length of those instances.
    pub body_len: Option<u64>,
    /// Body-membership tests in phase 2.
    pub membership_tests: Option<u64>,
    /// `bf`: derived facts whose derivability was checked.
    #[serde(default)]
    pub checked: Option<u64>,
    /// `bf`: derived facts a check found without a derivation (= `overdeleted` for `bf`).
    #[serde(default)]
    pub disproved: Option<u64>,
    /// `bf`: rule instances considered backwards, head bound to a checked fact.
    #[serde(default)]
    pub backward_instances: Option<u64>,
    /// Phase 1 hash probes into stored relations (index lookups, membership tests, inserts).
    #[serde(default)]
    pub overdelete_probes: Option<u64>,
    /// Phase 1 stored rows visited by joins, removed or revived.
    #[serde(default)]
    pub overdelete_touched: Option<u64>,
    /// Phase 2 hash probes.
    #[serde(default)]
    pub rederive_probes: Option<u64>,
    /// Phase 2 rows touched.
    #[serde(default)]
    pub rederive_touched: Option<u64>,
    /// Phase 3 hash probes; for `recompute`, those of the whole evaluation.
    #[serde(default)]
    pub insert_probes: Option<u64>,
    /// Phase 3 rows touched; for `recompute`, those of the whole evaluation.
    #[serde(default)]
    pub insert_touched: Option<u64>,
    /// kB by which the process's peak resident set has grown since just before the case's
    /// engines were built, read after this batch ([`crate::memory::Footprint`]; Linux,
    /// empty elsewhere). With one engine in the case, that engine's footprint so far (and
    /// the harness's per-batch scratch); with several, their joint one.
    #[serde(default)]
    pub peak_rss_kb: Option<u64>,
    /// Git revision of the code that produced the row (`unknown` outside a checkout).
    #[serde(default)]
    pub git_rev: String,
    /// SHA-256 (first 16 hex digits) of the dataset's `.facts` files, names and contents.
    #[serde(default)]
    pub dataset_hash: String,
    /// Name of the update stream (file stem, or the generator's description in sweeps).
    #[serde(default)]
    pub stream: String,
    /// Kind of change in a sweep (`delete`, `insert`, `mixed`, ...); empty for `run`.
    #[serde(default)]
    pub kind: String,
    /// Requested change size per batch in a sweep; empty for `run`.
    #[serde(default)]
    pub size: Option<usize>,
    /// Seed of the generated stream; empty for `run`.
    #[serde(default)]
    pub seed: Option<u64>,
    /// Set when the case failed: a model mismatch (`mismatch: ...`) or an engine error. A
    /// failed case is a row, so a sweep goes on.
    #[serde(default)]
    pub error: Option<String>,
}

/// One trace line: one round of one phase of one engine on one batch.
#[derive(Clone, Debug, Serialize)]
pub struct TraceLine {
    /// Engine name.
    pub engine: String,
    /// Batch number.
    pub batch: usize,
    /// The DRed level (stratum of the coarsest stratification) the round maintains: 0 for
    /// every round of a program without negation.
    pub stratum: usize,
    /// `overdelete`, `rederive` or `insert`.
    pub phase: &'static str,
    /// From 1.
    pub round: usize,
    /// Number of facts in the round.
    pub size: usize,
    /// The facts as `rel("a", 1)`, with `--trace-facts`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub facts: Option<Vec<String>>,
}

/// Reads a report CSV written by `run` or `sweep`.
pub fn read_report(path: &Path) -> anyhow::Result<Vec<ReportRow>> {
    let mut rdr =
        csv::Reader::from_path(path).with_context(|| format!("reading {}", path.display()))?;
    let mut rows = Vec::new();
    for (i, r) in rdr.deserialize().enumerate() {
        let row: ReportRow =
            r.with_context(|| format!("{}:{}: malformed report row", path.display(), i + 2))?;
        rows.push(row);
    }
    Ok(rows)
}

/// Writes report rows as CSV, atomically.
pub fn write_report(path: &Path, rows: &[ReportRow]) -> anyhow::Result<()> {
    let mut w = csv::Writer::from_writer(Vec::new());
    for row in rows {
        w.serialize(row)?;
    }
    let bytes = w.into_inner()?;
    dred_core::io::write_atomic(path, &bytes)
        .map_err(|e| anyhow::anyhow!("writing {}: {e}", path.display()))
}
