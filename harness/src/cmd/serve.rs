//! `dredbench serve --engine NAME`: one built-in engine behind the engine protocol, on stdin
//! and stdout (`docs/engine-protocol.md`); what the shipped `engines.toml` declares as
//! `ext:dred`, so that a run of `dred` beside `ext:dred` measures the protocol's cost.

use clap::Args;

use crate::engines::EngineKind;
use crate::Outcome;

/// Arguments of `dredbench serve`.
#[derive(Debug, Clone, Args)]
pub struct ServeArgs {
    /// The built-in engine to serve.
    #[arg(long, value_enum, default_value_t = EngineKind::Dred)]
    pub engine: EngineKind,
    /// Decline the option `symbols=ids`: symbols travel as text (to measure what numbers
    /// save, or to test an engines file's text path with a built-in engine).
    #[arg(long)]
    pub symbols_as_text: bool,
}

/// Serves until stdin ends; an error (a malformed request, the engine's failure) has been
/// answered on stdout already and ends the process with exit code 2.
pub fn run(args: &ServeArgs) -> anyhow::Result<Outcome> {
    let stdin = std::io::stdin().lock();
    let stdout = std::io::BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
    crate::external::serve::serve_with(args.engine, !args.symbols_as_text, stdin, stdout)?;
    Ok(Outcome::Agree)
}
