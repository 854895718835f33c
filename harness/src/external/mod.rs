//! External engines: programs outside the harness, declared in an engines file
//! ([`mod@registry`]) and spoken to over the line protocol of `docs/engine-protocol.md`
//! ([`wire`]). [`ExternalEngine`] is the harness's side, an [`Engine`] like the built-in
//! ones, so that the runner times, compares and reports it the same way; [`serve`] is the
//! engine's side for the built-in engines (`dredbench serve --engine dred`, declared as
//! `ext:dred`), which measures what the protocol costs.
//!
//! The engines file is a process-wide setting, like the environment: `main` names it once
//! ([`set_engines_file`]) and every command reads the same file, so that the engine lists of
//! `run`, `sweep`, `study` and `fuzz` need no extra argument threaded through them.

pub mod client;
mod held;
#[cfg(unix)]
mod pipes;
// Elsewhere an external engine fails at its start, saying why.
#[cfg(not(unix))]
#[path = "pipes_unsupported.rs"]
mod pipes;
pub mod registry;
#[cfg(target_os = "linux")]
mod same_cpu;
pub mod serve;
pub mod wire;

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

use dred_core::{Batch, BatchReport, Edb, Engine, EngineError, Model};

pub use client::ExternalEngine;
pub use registry::{EngineDecl, Feature, Registry};

use crate::engines::EngineSpec;
use crate::BadInput;

#[cfg(target_os = "linux")]
use same_cpu::SameCpu;

/// Elsewhere an engine declared `same_cpu` fails at its start, saying why.
#[cfg(not(target_os = "linux"))]
#[derive(Debug)]
struct SameCpu;

#[cfg(not(target_os = "linux"))]
impl SameCpu {
    fn pin_here() -> std::io::Result<SameCpu> {
        Err(std::io::Error::new(
            std::io::ErrorKind::Unsupported,
            "`same_cpu` is built on Linux only",
        ))
    }
}

/// The engines file named by `--engines-file`, set once by `main` before a command runs.
static ENGINES_FILE: Mutex<Option<PathBuf>> = Mutex::new(None);

/// The engines file once read (or why it could not be).
static REGISTRY: OnceLock<Result<Registry, String>> = OnceLock::new();

/// Names the engines file every command reads (`--engines-file`); without it, `engines.toml`
/// in the current directory, else the one of the repository `dredbench` was built from.
/// Must be called before the first external engine is resolved; later calls change nothing.
pub fn set_engines_file(path: Option<PathBuf>) {
    if let Ok(mut f) = ENGINES_FILE.lock() {
        *f = path;
    }
}

/// The engines file in use: `--engines-file`, else `./engines.toml`, else the repository's.
pub fn engines_file() -> PathBuf {
    if let Some(p) = ENGINES_FILE.lock().ok().and_then(|f| f.clone()) {
        return p;
    }
    let here = PathBuf::from("engines.toml");
    if here.is_file() {
        return here;
    }
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../engines.toml")
}

/// The engines file, read once per process.
pub fn registry() -> Result<&'static Registry, String> {
    REGISTRY
        .get_or_init(|| Registry::read(&engines_file()))
        .as_ref()
        .map_err(Clone::clone)
}

/// The declaration of the external engine `name`, if the engines file reads and declares it.
pub fn declared(name: &str) -> Option<&'static EngineDecl> {
    registry().ok()?.engines.get(name)
}

/// Checks that every external engine among `specs` is declared in the engines file, so that
/// a misspelt name or a broken file is the user's error (exit 2) before anything runs.
pub fn check_specs(specs: &[EngineSpec]) -> Result<(), BadInput> {
    for spec in specs {
        if let Some(name) = spec.external {
            let registry = registry().map_err(BadInput::Other)?;
            registry.get(name).map_err(BadInput::Other)?;
        }
    }
    Ok(())
}

/// Whether `name` may name an external engine: letters, digits, `_`, `-` and `.`, so that
/// `ext:NAME@2` and report columns stay unambiguous.
pub fn check_name(name: &str) -> Result<(), String> {
    if name.is_empty() {
        return Err("an external engine needs a name after `ext:`".into());
    }
    match name
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.')))
    {
        Some(c) => Err(format!(
            "`{name}`: an engine name holds letters, digits, `_`, `-` and `.` only, not {c:?}"
        )),
        None => Ok(()),
    }
}

/// The name as a `&'static str`, each distinct name leaked once per process (a handful of
/// short strings), so that [`EngineSpec`] stays `Copy`.
pub fn intern_name(name: &str) -> &'static str {
    static NAMES: Mutex<Option<HashSet<&'static str>>> = Mutex::new(None);
    let Ok(mut names) = NAMES.lock() else {
        return Box::leak(name.to_string().into_boxed_str());
    };
    let names = names.get_or_insert_with(HashSet::new);
    if let Some(&n) = names.get(name) {
        return n;
    }
    let leaked: &'static str = Box::leak(name.to_string().into_boxed_str());
    names.insert(leaked);
    leaked
}

/// What `EngineKind::External` builds when asked without a name: an engine that refuses to
/// run. Only [`EngineSpec::build`] knows which external engine is meant.
#[derive(Debug)]
pub struct Unnamed;

impl Engine for Unnamed {
    fn name(&self) -> &str {
        "ext"
    }

    fn materialise(&mut self, _edb: &Edb) -> Result<BatchReport, EngineError> {
        Err(self.refusal())
    }

    fn apply(&mut self, _batch: &Batch) -> Result<BatchReport, EngineError> {
        Err(self.refusal())
    }

    fn model(&self) -> Model {
        Model::default()
    }
}

impl Unnamed {
    fn refusal(&self) -> EngineError {
        EngineError::Misuse {
            engine: "ext".into(),
            message: "an external engine is built from its `ext:NAME` spec".into(),
        }
    }
}
