//! Report rows (SPEC §7) and trace lines, as serde types, and report CSVs read
//! ([`read_report`]) and written ([`write_report`]).
//!
//! The CSV columns are the fields of [`ReportRow`] in order: first the columns SPEC §7
//! requires, then provenance and the error column. Readers (`regress`, `plot`) go by header
//! name, so reports from older revisions with fewer provenance columns still load; their
//! times, in whole microseconds (`time_us`, `overdelete_us`, ...), are read into the
//! nanosecond fields.

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
    /// Wall time of the engine's work on the batch, nanoseconds (read from `time_us` × 1,000
    /// in reports of older revisions).
    #[serde(default)]
    pub time_ns: u64,
    /// Phase 1 time, nanoseconds.
    #[serde(default)]
    pub overdelete_ns: Option<u64>,
    /// Phase 2 time, nanoseconds.
    #[serde(default)]
    pub rederive_ns: Option<u64>,
    /// Phase 3 time, nanoseconds.
    #[serde(default)]
    pub insert_ns: Option<u64>,
    /// The engine's place (from 1) in the order in which the engines processed this batch
    /// ([`crate::runner::EngineOrder`]); empty in reports of older revisions.
    #[serde(default)]
    pub position: Option<usize>,
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
    /// `dred`: 1 when phase 1 passed its work budget and over-deleted level 0 wholesale
    /// (rederivation then recomputed the level), else 0; empty for other engines and in
    /// reports of older revisions.
    #[serde(default)]
    pub saturated: Option<usize>,
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
    /// `time_us` of reports written before times were taken in nanoseconds; read only:
    /// [`read_report`] moves it (× 1,000) into `time_ns`, and it is never written.
    #[serde(default, skip_serializing, rename = "time_us")]
    pub legacy_time_us: Option<u64>,
    /// `overdelete_us` of older reports; moved into `overdelete_ns` likewise.
    #[serde(default, skip_serializing, rename = "overdelete_us")]
    pub legacy_overdelete_us: Option<u64>,
    /// `rederive_us` of older reports; moved into `rederive_ns` likewise.
    #[serde(default, skip_serializing, rename = "rederive_us")]
    pub legacy_rederive_us: Option<u64>,
    /// `insert_us` of older reports; moved into `insert_ns` likewise.
    #[serde(default, skip_serializing, rename = "insert_us")]
    pub legacy_insert_us: Option<u64>,
}

impl ReportRow {
    /// Moves the microsecond columns of an older report into the nanosecond fields (a
    /// nanosecond field already filled is kept).
    fn upgrade_legacy_times(&mut self) {
        let ns = |us: Option<u64>| us.map(|v| v.saturating_mul(1_000));
        if let Some(us) = self.legacy_time_us.take() {
            if self.time_ns == 0 {
                self.time_ns = us.saturating_mul(1_000);
            }
        }
        let overdelete = ns(self.legacy_overdelete_us.take());
        self.overdelete_ns = self.overdelete_ns.or(overdelete);
        let rederive = ns(self.legacy_rederive_us.take());
        self.rederive_ns = self.rederive_ns.or(rederive);
        let insert = ns(self.legacy_insert_us.take());
        self.insert_ns = self.insert_ns.or(insert);
    }

    /// Wall time in microseconds, fractional: what tables print.
    pub fn time_us(&self) -> f64 {
        self.time_ns as f64 / 1_000.0
    }
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
        let mut row: ReportRow =
            r.with_context(|| format!("{}:{}: malformed report row", path.display(), i + 2))?;
        row.upgrade_legacy_times();
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Reports of older revisions carry whole microseconds in `time_us` and the `_us` phase
    /// columns, and no `position`: they read into the nanosecond fields, and a report written
    /// now has only the nanosecond columns.
    #[test]
    fn an_older_report_in_microseconds_reads_into_nanoseconds() {
        let dir = tempfile::tempdir().expect("tempdir");
        let old = dir.path().join("old.csv");
        std::fs::write(
            &old,
            "dataset,program,engine,workers,batch,req_del,req_ins,eff_del,eff_ins,overdeleted,\
             rederived,inserted,model_removed,model_added,model_size,time_us,overdelete_us,\
             rederive_us,insert_us\n\
             seed,path,dred,1,1,1,0,1,0,6,4,0,2,0,16,42,10,,7\n",
        )
        .expect("write");
        let rows = read_report(&old).expect("reads");
        assert_eq!(rows.len(), 1);
        let r = &rows[0];
        assert_eq!(
            (r.time_ns, r.overdelete_ns, r.rederive_ns, r.insert_ns),
            (42_000, Some(10_000), None, Some(7_000))
        );
        assert_eq!(r.position, None);
        assert_eq!(r.legacy_time_us, None, "moved, not kept");
        assert_eq!(r.time_us(), 42.0);
        let new = dir.path().join("new.csv");
        write_report(&new, &rows).expect("writes");
        let text = std::fs::read_to_string(&new).expect("read back");
        let header = text.lines().next().expect("header");
        assert!(
            header.contains("time_ns") && header.contains("position"),
            "{header}"
        );
        assert!(!header.contains("_us"), "{header}");
        assert_eq!(read_report(&new).expect("reads"), rows);
    }
}
