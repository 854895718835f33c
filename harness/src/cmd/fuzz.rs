//! `dredbench fuzz`: random programs, EDBs and update streams through engines side by side,
//! every model compared with the naive `oracle`'s after every batch — for anyone who adds or
//! changes an engine.
//!
//! Cases come from `dred_core::testing::random_case`, the generator every engine's property
//! test uses (arities 0 to 3, mutual recursion, repeated variables, constants, zero-arity
//! relations, comparisons, fresh constants in updates, re-insertions, empty batches, and with
//! `--negation` stratified negation; every other case narrowed to relations of arity at most 2,
//! which `dd` runs on narrower records), seeded so that a run is reproducible. The first case
//! that fails — a model that differs from the oracle's, an engine's error or its panic — is
//! shrunk by delta debugging (rules, program facts, EDB facts, updates and batches dropped
//! while the same engine still fails the same way), written as `p.dl`, `facts/` and
//! `u.updates`, and the command that reproduces it is printed; the exit code is then 1.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::Context as _;
use clap::Args;
use dd_baseline::Cluster;
use dred_core::testing::{
    check_case, random_case, shrink, Failure, FailureKind, Features, LoadedCase, NonTriviality,
    RandomCase,
};
use dred_core::Engine;
use indicatif::{ProgressBar, ProgressStyle};
use proptest::strategy::{Strategy, ValueTree};
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};

use crate::engines::{EngineKind, EngineSpec};
use crate::{BadInput, Outcome};

/// Arguments of `dredbench fuzz`.
#[derive(Debug, Clone, Args)]
pub struct FuzzArgs {
    /// Number of cases to run.
    #[arg(long, required_unless_present = "time_limit")]
    pub cases: Option<u64>,
    /// Run cases for this many seconds instead of a number of cases.
    #[arg(long, conflicts_with = "cases")]
    pub time_limit: Option<f64>,
    /// Seed of the case generator: the same seed gives the same cases.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Engines checked against the oracle, comma-separated (the oracle always runs first,
    /// as the independent answer). Engines that do not support a case's program
    /// (`wrong-support` with negation or aggregates; `ext:NAME` with a feature the engines
    /// file does not list for it) sit that case out.
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "recompute,dred,reference,bf,dd,recompute-levels,rotate,auto,counting"
    )]
    pub engines: Vec<EngineSpec>,
    /// Generate programs with stratified negation.
    #[arg(long)]
    pub negation: bool,
    /// Worker threads for `dd`.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..=64))]
    pub workers: u64,
    /// Where a failing case is written (a directory per failure).
    #[arg(long, default_value = "fuzz-failures")]
    pub out: PathBuf,
}

/// The engines of one case: the oracle, then every requested engine that supports the
/// program.
fn engines_for(
    kinds: &[EngineSpec],
    loaded: &LoadedCase,
    workers: usize,
) -> (Vec<EngineSpec>, Vec<Box<dyn Engine>>) {
    let cluster = Cluster::single();
    let mut chosen = vec![EngineSpec::of(EngineKind::Oracle)];
    for &k in kinds {
        if !chosen.contains(&k) && k.supports(&loaded.program) {
            chosen.push(k);
        }
    }
    let symbols = std::sync::Arc::new(loaded.symbols.clone());
    let engines = chosen
        .iter()
        .map(|k| k.build(loaded.program.clone(), &symbols, workers, &cluster))
        .collect();
    (chosen, engines)
}

/// Runs the case; `Err` with the first failure. A case the generator built wrong (refused
/// by the checker) is a failure too, of the generator.
fn run_case(
    case: &RandomCase,
    kinds: &[EngineSpec],
    workers: usize,
) -> Result<(dred_core::testing::Observed, Features, bool), Failure> {
    let loaded = case.load().map_err(|message| Failure {
        batch: 0,
        engine: "generator".into(),
        kind: FailureKind::Error,
        message,
    })?;
    let (chosen, mut engines) = engines_for(kinds, &loaded, workers);
    let observed = check_case(&loaded, &mut engines)?;
    let dred_ran = chosen.iter().any(|k| {
        matches!(
            k.kind,
            EngineKind::Dred | EngineKind::Reference | EngineKind::Bf | EngineKind::Rotate
        )
    });
    Ok((observed, Features::of(case, &loaded), dred_ran))
}

/// A generator of cases from `seed`, reproducible across runs and machines.
fn runner(seed: u64) -> TestRunner {
    let mut bytes = [0u8; 32];
    bytes[..8].copy_from_slice(&seed.to_le_bytes());
    bytes[8..16].copy_from_slice(b"dredfuzz");
    TestRunner::new_with_rng(
        Config::default(),
        TestRng::from_seed(RngAlgorithm::ChaCha, &bytes),
    )
}

/// Writes the shrunk case and what failed under `dir`; returns the command that reproduces
/// it.
fn write_failure(
    dir: &Path,
    case: &RandomCase,
    failure: &Failure,
    original: &RandomCase,
) -> anyhow::Result<String> {
    case.write_to(dir)
        .with_context(|| format!("writing the failing case to {}", dir.display()))?;
    let engines = if failure.engine == "oracle" || failure.engine == "generator" {
        "oracle".to_string()
    } else {
        format!("oracle,{}", failure.engine)
    };
    let command = format!(
        "dredbench run --program {0}/p.dl --facts {0}/facts --updates {0}/u.updates --engines {engines}",
        dir.display()
    );
    let text = format!(
        "{failure}\n\nreproduce with:\n  {command}\n\nshrunk from {} rules, {} EDB facts, {} updates \
         in {} batches to {} rules, {} EDB facts, {} updates in {} batches\n",
        original.rules.len(),
        original.edb.len(),
        original.batches.iter().map(Vec::len).sum::<usize>(),
        original.batches.len(),
        case.rules.len(),
        case.edb.len(),
        case.batches.iter().map(Vec::len).sum::<usize>(),
        case.batches.len(),
    );
    dred_core::io::write_atomic(&dir.join("failure.txt"), text.as_bytes())
        .with_context(|| format!("writing {}", dir.join("failure.txt").display()))?;
    Ok(command)
}

/// Where and why the last panic happened, as the panic hook saw it (the payload alone, which
/// `check_case` reports, has no location).
static LAST_PANIC: std::sync::Mutex<Option<String>> = std::sync::Mutex::new(None);

/// Runs the command: `Agree` (exit 0) when every case agreed, `Mismatch` (exit 1) at the
/// first failing case, written shrunk under `--out`.
pub fn run(args: &FuzzArgs) -> anyhow::Result<Outcome> {
    // Panics of engines are caught and reported as failures; the default hook would print
    // each one (shrinking provokes many) over the progress bar. This one keeps the last
    // panic's location for the report instead, and one that escapes the checks (a bug of
    // fuzz itself) is reported with it rather than lost.
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|info| {
        if let Ok(mut last) = LAST_PANIC.lock() {
            *last = Some(info.to_string());
        }
    }));
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| fuzz(args)));
    std::panic::set_hook(hook);
    match result {
        Ok(outcome) => outcome,
        Err(_) => Err(anyhow::anyhow!(
            "dredbench fuzz itself panicked: {}",
            last_panic().unwrap_or_default()
        )),
    }
}

/// The last panic the hook saw, with its location.
fn last_panic() -> Option<String> {
    LAST_PANIC.lock().ok().and_then(|l| l.clone())
}

fn fuzz(args: &FuzzArgs) -> anyhow::Result<Outcome> {
    if args.engines.is_empty() {
        return Err(BadInput::Other("--engines names no engine".into()).into());
    }
    crate::external::check_specs(&args.engines)?;
    if let Some(t) = args.time_limit {
        if !(t > 0.0 && t.is_finite()) {
            return Err(
                BadInput::Other(format!("--time-limit {t}: a positive number of seconds")).into(),
            );
        }
    }
    let workers = args.workers as usize;
    let strategy = random_case(args.negation);
    let mut gen = runner(args.seed);
    let deadline = args.time_limit.map(Duration::from_secs_f64);
    let progress = match args.cases {
        Some(n) => ProgressBar::new(n),
        None => ProgressBar::new_spinner(),
    };
    progress.set_style(
        ProgressStyle::with_template(if args.cases.is_some() {
            "{spinner} [{elapsed_precise}] {bar:30} {pos}/{len} cases, ~{eta} left  {msg}"
        } else {
            "{spinner} [{elapsed_precise}] {pos} cases  {msg}"
        })
        .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let started = Instant::now();
    let mut shares = NonTriviality::default();
    let mut done = 0u64;
    let mut failed = None;
    let mut refused = 0u64;
    loop {
        if args.cases.is_some_and(|n| done >= n) || deadline.is_some_and(|d| started.elapsed() >= d)
        {
            break;
        }
        let case = strategy
            .new_tree(&mut gen)
            .map_err(|e| anyhow::anyhow!("generating case {done}: {e}"))?
            .current();
        // Every other case over binary relations only: `dd` runs those on two-word rows.
        let case = if done % 2 == 1 { case.narrowed() } else { case };
        match run_case(&case, &args.engines, workers) {
            Ok((observed, features, dred_ran)) => shares.add(&features, &observed, dred_ran),
            // An external engine's `unsupported` answer: the case is beyond it, not failed.
            Err(failure) if failure.kind == FailureKind::Unsupported => refused += 1,
            Err(failure) => {
                failed = Some((case, failure));
                break;
            }
        }
        done += 1;
        progress.inc(1);
    }
    let elapsed = started.elapsed();
    let Some((case, failure)) = failed else {
        progress.finish_and_clear();
        eprintln!(
            "{done} cases, 0 disagreements ({:.1} s, seed {}, engines oracle,{}{})",
            elapsed.as_secs_f64(),
            args.seed,
            names(&args.engines),
            if args.negation { ", with negation" } else { "" }
        );
        if refused > 0 {
            eprintln!("{refused} of them refused by an engine as unsupported (skipped)");
        }
        eprintln!("{shares}");
        return Ok(Outcome::Agree);
    };
    progress.set_message(format!("case {done} failed; shrinking"));
    let same = |c: &RandomCase| {
        run_case(c, &args.engines, workers)
            .err()
            .is_some_and(|f| f.engine == failure.engine && f.kind == failure.kind)
    };
    let small = shrink(&case, same);
    // The shrunk case's own failure (its batch and facts), for the record.
    let mut small_failure = run_case(&small, &args.engines, workers)
        .err()
        .unwrap_or_else(|| failure.clone());
    if small_failure.kind == FailureKind::Panic {
        if let Some(at) = last_panic() {
            small_failure.message = format!("{}\n({at})", small_failure.message);
        }
    }
    progress.finish_and_clear();
    let dir = args.out.join(format!("seed{}-case{done}", args.seed));
    let command = write_failure(&dir, &small, &small_failure, &case)?;
    eprintln!(
        "case {done} of seed {} failed after {:.1} s: {}",
        args.seed,
        elapsed.as_secs_f64(),
        first_line(&failure.to_string())
    );
    eprintln!(
        "shrunk to {} rule(s), {} EDB fact(s), {} update(s) in {} batch(es): {}",
        small.rules.len(),
        small.edb.len(),
        small.batches.iter().map(Vec::len).sum::<usize>(),
        small.batches.len(),
        first_line(&small_failure.to_string())
    );
    for rule in &small.rules {
        eprintln!("  {rule}");
    }
    eprintln!("written to {}; reproduce with:\n  {command}", dir.display());
    Ok(Outcome::Mismatch)
}

fn names(kinds: &[EngineSpec]) -> String {
    let v: Vec<String> = kinds
        .iter()
        .filter(|k| k.kind != EngineKind::Oracle)
        .map(|k| k.name())
        .collect();
    v.join(",")
}

fn first_line(s: &str) -> &str {
    s.lines().next().unwrap_or_default()
}
