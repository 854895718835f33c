//! `dredbench`: dispatches subcommands and maps outcomes to exit codes
//! (0 agree, 1 models differ or an engine failed, 2 bad input or usage).

use std::process::ExitCode;

use clap::{Parser, Subcommand};
use harness::{cmd, BadInput, Outcome};

/// Incremental Datalog maintenance bench: DRed engines beside recomputation,
/// differential-dataflow and a naive oracle, checked against each other batch by batch.
#[derive(Debug, Parser)]
#[command(name = "dredbench", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
    /// The engines file declaring the external engines `--engines ext:NAME` names
    /// (default: `engines.toml` in the current directory, else the repository's).
    #[arg(long, global = true)]
    engines_file: Option<std::path::PathBuf>,
    /// Defines a macro for the C preprocessor before every program is read, as Soufflé's
    /// `-M`: `NAME` (defined as 1), `NAME=VALUE` or `NAME(params)=BODY` (the value or body
    /// runs to the end of the argument); repeat it for several, or name several macros
    /// without values in one argument (`-M 'DEBUG TRACE' -M LIMIT=3`).
    #[arg(
        short = 'M',
        long = "macro",
        global = true,
        value_name = "NAME[=VALUE]"
    )]
    macros: Vec<String>,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Run engines on a program, facts and update stream; compare models after every batch.
    Run(cmd::run::RunArgs),
    /// Compare a report with a baseline: exit 1 on a mismatch, a changed deterministic
    /// figure, or a time ratio worse than the tolerance.
    Regress(cmd::regress::RegressArgs),
    /// Draw charts (SVG and PNG) from report CSVs.
    Plot(cmd::plot::PlotArgs),
    /// Run engines over datasets × programs × kinds × sizes × seeds; one report CSV.
    Sweep(cmd::sweep::SweepArgs),
    /// The main job: a fixed set of sweeps, with report, plots and summary in results/.
    Study(cmd::study::StudyArgs),
    /// Print the magic-set program generated for a query.
    Rewrite(cmd::rewrite::RewriteArgs),
    /// List, fetch, generate and import datasets.
    Datasets(cmd::datasets::DatasetsArgs),
    /// Generate a seeded update stream (deletions, insertions, targeted) from a dataset.
    Updates(cmd::updates::UpdatesArgs),
    /// Random programs, EDBs and streams through engines, checked against the oracle after
    /// every batch; a failing case is shrunk and written as files (exit 1).
    Fuzz(cmd::fuzz::FuzzArgs),
    /// Why each fact of one batch was over-deleted, rederived or inserted (dred, reference,
    /// bf): rule instances, rounds and the chain down to the update.
    Explain(cmd::explain::ExplainArgs),
    /// Write results/FINDINGS.md and its plots from a full study (`study --full`).
    Findings(cmd::findings::FindingsArgs),
    /// How fast `recompute` is against datafrog on this machine, on a graph dataset.
    Calibrate(cmd::calibrate::CalibrateArgs),
    /// Serve one built-in engine over the engine protocol on stdin and stdout (what
    /// `ext:dred` of the shipped engines.toml runs).
    Serve(cmd::serve::ServeArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    // The round guard stops an evaluation by a panic the runner turns into the engine's
    // failure with its own message; the default hook would print it a second time, as a
    // crash.
    let default_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if !info.payload().is::<dred_core::rounds::RoundLimitExceeded>() {
            default_hook(info);
        }
    }));
    harness::external::set_engines_file(cli.engines_file.clone());
    let macros: Vec<String> = cli
        .macros
        .iter()
        .flat_map(|m| {
            if m.contains('=') {
                vec![m.trim().to_string()]
            } else {
                m.split_whitespace().map(str::to_string).collect()
            }
        })
        .collect();
    if let Err(e) = dred_core::syntax::set_command_line_macros(&macros) {
        eprintln!("error: -M: {e}");
        return ExitCode::from(2);
    }
    let result = match &cli.command {
        Command::Run(args) => cmd::run::run(args),
        Command::Regress(args) => cmd::regress::run(args),
        Command::Plot(args) => cmd::plot::run(args),
        Command::Rewrite(args) => cmd::rewrite::run(args),
        Command::Sweep(args) => cmd::sweep::run(args),
        Command::Study(args) => cmd::study::run(args),
        Command::Datasets(args) => cmd::datasets::run(args),
        Command::Updates(args) => cmd::updates::run(args),
        Command::Fuzz(args) => cmd::fuzz::run(args),
        Command::Explain(args) => cmd::explain::run(args),
        Command::Findings(args) => cmd::findings::run(args),
        Command::Calibrate(args) => cmd::calibrate::run(args),
        Command::Serve(args) => cmd::serve::run(args),
    };
    match result {
        Ok(Outcome::Agree) => ExitCode::SUCCESS,
        Ok(Outcome::Mismatch | Outcome::EngineFailed) => ExitCode::from(1),
        Err(e) => {
            if let Some(BadInput::Located(rendered)) = e.downcast_ref::<BadInput>() {
                // Already rendered with its location and source line.
                eprint!("{rendered}");
            } else if e.downcast_ref::<BadInput>().is_some() {
                eprintln!("error: {e}");
            } else {
                eprintln!("error: {e:#}");
            }
            ExitCode::from(2)
        }
    }
}
