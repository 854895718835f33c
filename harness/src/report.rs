//! Report rows (SPEC §7) and trace lines, as serde types, and report CSVs read
//! ([`read_report`]) and written ([`write_report`]).
//!
//! The CSV columns are the fields of [`ReportRow`] in order: first the columns SPEC §7
//! requires, then provenance and the error column. Readers (`regress`, `plot`) go by header
//! name, so reports from older revisions with fewer provenance columns still load; their
//! times, in whole microseconds (`time_us`, `overdelete_us`, ...), are read into the
//! nanosecond fields.
//!
//! A report may be stored gzipped (a full study's is 12 MB as text, 1.4 MB gzipped). Writers
//! go by the name: a path ending in `.gz` is written gzipped. Readers ([`csv_reader`], and
//! through it every command that reads a report) go by the content: a file that starts with
//! gzip's magic bytes `1f 8b` is decompressed, whatever its name, so a report renamed by
//! hand still reads; no CSV starts with those bytes (`0x1f` is a control character).

use std::io::{Read, Seek};
use std::path::{Path, PathBuf};

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
    /// How many runs of the case the times are medians over (`--repeat`): each time column
    /// is then the median of that many calls on the batch, each run's engines built afresh
    /// and placed in orders of their own, and `position` is empty. Empty for a case run
    /// once and in reports of older revisions.
    #[serde(default)]
    pub repeats: Option<usize>,
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
    /// `auto`: the algorithm it chose (`dred`, `bf`, `recompute`); empty for other engines.
    #[serde(default)]
    pub chosen: Option<String>,
    /// `auto`: the incremental algorithm (`dred`, `bf`) that ran first, under a small share
    /// of the guard, where it chose `recompute` (a scout); empty when none did, for other
    /// engines and in reports of older revisions.
    #[serde(default)]
    pub scout: Option<String>,
    /// `auto`: how many algorithms passed their budget on the batch (0; 1: the choice, and B/F
    /// or recomputation finished the batch; 2: DRed, then B/F, then recomputation).
    #[serde(default)]
    pub abandoned: Option<usize>,
    /// `auto`: predicted nanoseconds of DRed's deletion for the batch.
    #[serde(default)]
    pub predicted_dred_ns: Option<u64>,
    /// `auto`: predicted nanoseconds of B/F's deletion.
    #[serde(default)]
    pub predicted_bf_ns: Option<u64>,
    /// `auto`: predicted nanoseconds of recomputing the affected strata.
    #[serde(default)]
    pub predicted_recompute_ns: Option<u64>,
    /// `counting`: derived facts whose derivation count (per round, in a recursive stratum)
    /// changed, facts that came or went included; empty for other engines and in reports of
    /// older revisions.
    #[serde(default)]
    pub counts_changed: Option<u64>,
    /// `counting`: facts of recursive strata holding before and after whose round (the first
    /// semi-naive round deriving them) moved.
    #[serde(default)]
    pub rounds_moved: Option<u64>,
    /// `counting`: rounds of recursive strata looked at (at materialisation: evaluated).
    #[serde(default)]
    pub rounds_replayed: Option<u64>,
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
    /// kB by which the peak of the bytes the process holds in live heap blocks has grown
    /// since the same moment, read after this batch
    /// ([`crate::memory::Footprint::peak_heap_growth_kb`]): the case's engines' structures
    /// and scratch at their worst moment, without what the allocator keeps beside them, so
    /// independent of the cases run before in the process. Empty in a case with an external
    /// engine (its memory is another process's) and in reports of older revisions.
    #[serde(default)]
    pub peak_heap_kb: Option<u64>,
    /// An external engine's own time for the batch, nanoseconds, as it reported it beside the
    /// harness's `time_ns` around the whole exchange; empty for the built-in engines and in
    /// reports of older revisions.
    #[serde(default)]
    pub engine_ns: Option<u64>,
    /// Nanoseconds the harness's thread waited for a CPU during the timed call (runnable,
    /// not running: another process had the core; [`crate::sched`]), included in
    /// `time_ns`. Empty where the kernel does not say and in reports of older revisions.
    #[serde(default)]
    pub descheduled_ns: Option<u64>,
    /// An external engine's other counters for the batch, `key=value` words separated by
    /// spaces; empty otherwise.
    #[serde(default)]
    pub counters: Option<String>,
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
    /// Set on the row of a batch that took the engine longer than the run's per-batch time
    /// limit (`--batch-time-limit`): the limit in nanoseconds. The row's figures are the
    /// batch's own; the engine was not run on the case's later batches.
    #[serde(default)]
    pub time_limit_ns: Option<u64>,
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

    /// The time the batch took while its thread had a CPU: `time_ns` less `descheduled_ns`
    /// (at least 1), what per-batch comparisons read, so that a batch that waited for a
    /// CPU is not taken for one that worked long. An engine of several workers keeps its
    /// wall time: its own threads may be what kept the timed one waiting. So does a row
    /// whose wait is longer than its time: the wait is read just outside the clock's
    /// readings, and a thread preempted between the two counts a wait the clock did not
    /// see (the full study at `8a22855`: `recompute` read 2.0 ms with 4.0 ms of wait, one
    /// scheduler tick, where subtracting it made `dred` 2,300,000 times slower).
    pub fn scheduled_ns(&self) -> u64 {
        let waited = if self.workers > 1 {
            0
        } else {
            self.descheduled_ns.unwrap_or(0)
        };
        if waited > self.time_ns {
            return self.time_ns.max(1);
        }
        (self.time_ns - waited).max(1)
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

/// The first two bytes of every gzip stream (RFC 1952).
const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];

/// The name of the report in a study's folder: `dredbench study` writes it, and
/// [`report_in`] finds it before a plain [`PLAIN_REPORT`].
pub const REPORT: &str = "report.csv.gz";

/// The name of the report in a study's folder written before reports were gzipped; still
/// read ([`report_in`]), never written by `dredbench study`.
pub const PLAIN_REPORT: &str = "report.csv";

/// The report of the study folder `dir`: `report.csv.gz` when it exists, else `report.csv`
/// (a folder of an older revision). When both exist the gzipped one is taken: a study
/// interrupted between writing it and removing the plain one leaves both, and the gzipped
/// one then holds every row of the other. Whether the file returned exists is the reader's
/// to find out, so that its error names the file.
pub fn report_in(dir: &Path) -> PathBuf {
    let gz = dir.join(REPORT);
    if gz.exists() {
        gz
    } else {
        dir.join(PLAIN_REPORT)
    }
}

/// Whether a report written to `path` is gzipped: its name ends in `.gz`.
pub fn is_gzip_name(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "gz")
}

/// A CSV reader of `path`, plain or gzipped: a file whose first two bytes are gzip's magic
/// number is decompressed (every member, as `gzip -d` does with concatenated files); any
/// other file is read as it is. The name does not matter. An error opening the file names
/// it, and the other spelling of the name (with or without `.gz`) when that one exists.
pub fn csv_reader(path: &Path) -> anyhow::Result<csv::Reader<Box<dyn Read>>> {
    let opened = std::fs::File::open(path);
    let mut file = opened.with_context(|| {
        let other = match path.to_str().and_then(|p| p.strip_suffix(".gz")) {
            Some(plain) => PathBuf::from(plain),
            None => {
                let mut p = path.as_os_str().to_owned();
                p.push(".gz");
                PathBuf::from(p)
            }
        };
        let hint = if other.exists() {
            format!(" ({} exists)", other.display())
        } else {
            String::new()
        };
        format!("reading {}{hint}", path.display())
    })?;
    // Read the magic bytes and go back, rather than peek into a buffer: a short first read
    // must not make a gzipped file look plain.
    let mut head = Vec::with_capacity(2);
    (&mut file)
        .take(2)
        .read_to_end(&mut head)
        .and_then(|_| file.rewind())
        .with_context(|| format!("reading {}", path.display()))?;
    let input: Box<dyn Read> = if head == GZIP_MAGIC {
        Box::new(flate2::read::MultiGzDecoder::new(std::io::BufReader::new(
            file,
        )))
    } else {
        Box::new(file)
    };
    Ok(csv::Reader::from_reader(input))
}

/// Reads a report CSV written by `run`, `sweep` or `study`, plain or gzipped
/// ([`csv_reader`]). A malformed row is an error naming the file and the row's line in the
/// (decompressed) text.
pub fn read_report(path: &Path) -> anyhow::Result<Vec<ReportRow>> {
    let mut rdr = csv_reader(path)?;
    let mut rows = Vec::new();
    for (i, r) in rdr.deserialize().enumerate() {
        let mut row: ReportRow =
            r.with_context(|| format!("{}:{}: malformed report row", path.display(), i + 2))?;
        row.upgrade_legacy_times();
        rows.push(row);
    }
    Ok(rows)
}

/// How hard a gzipped report is compressed. Plain reports ignore it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Effort {
    /// Fast (deflate level 1, about 1.4x the bytes of [`Effort::Best`]): for a report
    /// rewritten after every case of an hour-long study. On the full study's 63,000 rows
    /// (release build) it takes 0.1 s with the CSV itself, level 9 0.6 s: over the 664
    /// rewrites of a growing report, about half a minute against three.
    Fast,
    /// The smallest (deflate level 9): for the report a command leaves.
    Best,
}

/// Writes report rows as CSV, atomically (a temporary file renamed over `path`, so that a
/// reader or an interrupted writer never sees half a report); gzipped, as small as it gets,
/// when `path` ends in `.gz`.
pub fn write_report(path: &Path, rows: &[ReportRow]) -> anyhow::Result<()> {
    write_report_with(path, rows, Effort::Best)
}

/// [`write_report`] with the compression effort for a gzipped `path` chosen by the caller.
pub fn write_report_with(path: &Path, rows: &[ReportRow], effort: Effort) -> anyhow::Result<()> {
    let mut w = csv::Writer::from_writer(Vec::new());
    for row in rows {
        w.serialize(row)?;
    }
    let mut bytes = w.into_inner()?;
    if is_gzip_name(path) {
        let level = match effort {
            Effort::Fast => flate2::Compression::fast(),
            Effort::Best => flate2::Compression::best(),
        };
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), level);
        std::io::Write::write_all(&mut gz, &bytes)?;
        bytes = gz
            .finish()
            .with_context(|| format!("compressing {}", path.display()))?;
    }
    dred_core::io::write_atomic(path, &bytes)
        .map_err(|e| anyhow::anyhow!("writing {}: {e}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The time a row ran is its time less its wait for a CPU, except when the wait is
    /// longer than the time (read outside the clock's window: the wall time stands) or the
    /// engine has several workers.
    #[test]
    fn a_wait_longer_than_the_call_is_not_subtracted() {
        let row = |time_ns, descheduled_ns, workers| ReportRow {
            time_ns,
            descheduled_ns: Some(descheduled_ns),
            workers,
            ..ReportRow::default()
        };
        assert_eq!(row(5_727_499, 4_013_153, 1).scheduled_ns(), 1_714_346);
        assert_eq!(row(2_032_320, 4_019_702, 1).scheduled_ns(), 2_032_320);
        assert_eq!(row(5_727_499, 4_013_153, 2).scheduled_ns(), 5_727_499);
        assert_eq!(row(4_000, 4_000, 1).scheduled_ns(), 1);
    }

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

    /// A few rows with empty and filled optional figures, an error text with a comma and a
    /// quote, and a non-ASCII name: what a gzipped round trip could get wrong.
    fn sample_rows() -> Vec<ReportRow> {
        (0..50)
            .map(|i| ReportRow {
                dataset: "gen:layered?layers=6&width=40".into(),
                program: "tc_linear".into(),
                engine: if i % 2 == 0 { "dred" } else { "recompute" }.into(),
                workers: 1,
                batch: i,
                eff_del: i,
                overdeleted: (i % 3 == 0).then_some(i * 7),
                model_size: 1_000 + i,
                time_ns: 12_345 * i as u64,
                stream: "delete-k1-b11-s1 µ".into(),
                error: (i == 49).then(|| "mismatch: \"a\", b".to_string()),
                ..ReportRow::default()
            })
            .collect()
    }

    /// The same rows written plain, gzipped fast and gzipped small read back the same; a
    /// `.gz` name gets a gzip file and a `.csv` name a plain one.
    #[test]
    fn plain_and_gzipped_reports_read_the_same_rows() {
        let dir = tempfile::tempdir().expect("tempdir");
        let rows = sample_rows();
        let plain = dir.path().join("r.csv");
        let fast = dir.path().join("fast.csv.gz");
        let best = dir.path().join("best.csv.gz");
        write_report(&plain, &rows).expect("plain");
        write_report_with(&fast, &rows, Effort::Fast).expect("fast");
        write_report_with(&best, &rows, Effort::Best).expect("best");
        let head = |p: &Path| std::fs::read(p).expect("read")[..2].to_vec();
        assert_ne!(head(&plain), GZIP_MAGIC);
        assert_eq!(head(&fast), GZIP_MAGIC);
        assert_eq!(head(&best), GZIP_MAGIC);
        assert!(
            std::fs::metadata(&best).expect("best").len()
                < std::fs::metadata(&plain).expect("plain").len()
        );
        for p in [&plain, &fast, &best] {
            assert_eq!(read_report(p).expect("reads"), rows, "{}", p.display());
        }
        // The decompressed text is the plain file, byte for byte.
        let mut text = Vec::new();
        flate2::read::GzDecoder::new(std::fs::File::open(&best).expect("open"))
            .read_to_end(&mut text)
            .expect("gunzip");
        assert_eq!(text, std::fs::read(&plain).expect("plain"));
    }

    /// The content decides, not the name: a gzipped report named `.csv` and a plain one
    /// named `.gz` both read; so does `cat a.gz b.gz` (two gzip members), as `gzip -d` reads
    /// it; and an empty file is a report without rows.
    #[test]
    fn the_reader_goes_by_the_magic_bytes_and_reads_every_member() {
        let dir = tempfile::tempdir().expect("tempdir");
        let rows = sample_rows();
        let gz = dir.path().join("a.csv.gz");
        write_report(&gz, &rows).expect("gz");
        let misnamed = dir.path().join("gzipped.csv");
        std::fs::copy(&gz, &misnamed).expect("copy");
        assert_eq!(read_report(&misnamed).expect("reads"), rows);
        let plain_gz = dir.path().join("plain.csv.gz");
        write_report(&dir.path().join("p.csv"), &rows).expect("plain");
        std::fs::copy(dir.path().join("p.csv"), &plain_gz).expect("copy");
        assert_eq!(read_report(&plain_gz).expect("reads"), rows);

        // Header and first rows in one member, the rest in a second.
        let text = std::fs::read_to_string(dir.path().join("p.csv")).expect("text");
        let cut = text.match_indices('\n').nth(10).expect("rows").0 + 1;
        let member = |t: &str| {
            let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
            std::io::Write::write_all(&mut e, t.as_bytes()).expect("gzip");
            e.finish().expect("gzip")
        };
        let two = dir.path().join("two.csv.gz");
        std::fs::write(&two, [member(&text[..cut]), member(&text[cut..])].concat()).expect("write");
        assert_eq!(read_report(&two).expect("reads"), rows);

        let empty = dir.path().join("empty.csv");
        std::fs::write(&empty, "").expect("write");
        assert_eq!(read_report(&empty).expect("reads"), Vec::<ReportRow>::new());
    }

    /// A study folder's report is `report.csv.gz` when there is one, else `report.csv`; a
    /// missing report's error names the file and the other spelling that exists; a gzip
    /// file cut short is an error, not fewer rows.
    #[test]
    fn report_in_prefers_the_gzipped_report_and_errors_name_the_file() {
        let dir = tempfile::tempdir().expect("tempdir");
        let rows = sample_rows();
        assert_eq!(report_in(dir.path()), dir.path().join(PLAIN_REPORT));
        write_report(&dir.path().join(PLAIN_REPORT), &rows[..3]).expect("plain");
        assert_eq!(report_in(dir.path()), dir.path().join(PLAIN_REPORT));
        write_report(&dir.path().join(REPORT), &rows).expect("gz");
        assert_eq!(report_in(dir.path()), dir.path().join(REPORT));
        assert_eq!(read_report(&report_in(dir.path())).expect("reads"), rows);

        std::fs::remove_file(dir.path().join(PLAIN_REPORT)).expect("rm");
        let err = format!(
            "{:#}",
            read_report(&dir.path().join(PLAIN_REPORT)).expect_err("none")
        );
        assert!(
            err.contains("report.csv (") && err.contains("report.csv.gz exists"),
            "{err}"
        );
        let err = format!(
            "{:#}",
            read_report(&dir.path().join("x.csv.gz")).expect_err("none")
        );
        assert!(err.contains("x.csv.gz") && !err.contains("exists"), "{err}");

        let gz = std::fs::read(dir.path().join(REPORT)).expect("read");
        let cut = dir.path().join("cut.csv.gz");
        std::fs::write(&cut, &gz[..gz.len() / 2]).expect("write");
        assert!(
            read_report(&cut).is_err(),
            "a truncated report reads as an error"
        );
    }
}
