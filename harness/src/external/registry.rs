//! The engines file (`engines.toml`): which external engines exist, how each is started, how
//! its version is asked, and which features of the language it supports.
//!
//! ```toml
//! [engine.clingo]
//! command = ["{python}", "harness/adapters/clingo_adapter.py"]
//! version = ["{python}", "-c", "import clingo; print(clingo.__version__)"]
//! supports = ["negation"]
//! timeout_s = 120
//! ```
//!
//! Commands are argument vectors, never shell lines, so that a path with spaces needs no
//! quoting. They run in the engines file's directory (so a relative path in a command means
//! a path beside the file). Two placeholders are expanded in every argument: `{dredbench}`,
//! the running `dredbench` binary (so that `ext:dred` is this build's `dred`), and
//! `{python}`, `$DREDBENCH_PYTHON` or else `python3`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use dred_core::Program;
use serde::Deserialize;

/// The seconds an engine may take to answer one exchange when its declaration sets none:
/// long enough for a slow recomputing engine on a shipped graph, short enough that a hung
/// child ends a CI run.
pub const DEFAULT_TIMEOUT_S: f64 = 300.0;

/// A feature of the language a program may use and an engine may lack.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Feature {
    /// Stratified negation `!rel(...)`.
    Negation,
    /// Stratified aggregates (`count`, `sum`, `min`, `max`).
    Aggregates,
    /// Arithmetic expressions and equalities that bind a variable (`y = x + 1`).
    Arithmetic,
    /// String functors and constraints (`cat`, `strlen`, `substr`, `to_number`,
    /// `to_string`, `ord`, `contains`, `match`); a program using them uses arithmetic too.
    Strings,
    /// `unsigned` and `float` columns (values on the wire as `dredbench` writes them:
    /// decimal digits, and floats as the shortest decimal that reads back the same).
    #[serde(rename = "numeric-types")]
    NumericTypes,
    /// Record and ADT columns (`.type Pair = [a: number, b: symbol]`); values on the wire as
    /// `dredbench` writes them in files (`[1, a]`, `$Add($Num(1), $Var(x))`, `nil`), read
    /// back into the run's record table.
    Records,
}

impl Feature {
    /// The name used in the engines file and in messages.
    pub fn name(self) -> &'static str {
        match self {
            Feature::Negation => "negation",
            Feature::Aggregates => "aggregates",
            Feature::Arithmetic => "arithmetic",
            Feature::Strings => "strings",
            Feature::NumericTypes => "numeric-types",
            Feature::Records => "records",
        }
    }

    /// The features `program` uses, of those an engine may lack.
    pub fn used_by(program: &Program) -> Vec<Feature> {
        let mut v = Vec::new();
        // The checker writes `count` and `sum` with a negation of the generated `@aggK`
        // (the empty group); only a negation of a declared relation is the program's own.
        let negates_declared = program.rules.iter().any(|r| {
            r.body.iter().any(|l| {
                matches!(l, dred_core::program::Literal::Negative(a)
                    if !program.relations[a.rel].name.starts_with('@'))
            })
        });
        if negates_declared {
            v.push(Feature::Negation);
        }
        if !program.aggregates.is_empty() {
            v.push(Feature::Aggregates);
        }
        if program.has_arithmetic() {
            v.push(Feature::Arithmetic);
        }
        if program.has_string_functors() {
            v.push(Feature::Strings);
        }
        if program.has_numeric_types() {
            v.push(Feature::NumericTypes);
        }
        if program.has_records() {
            v.push(Feature::Records);
        }
        v
    }
}

/// One engine as the engines file declares it.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EngineDecl {
    /// The command that starts the engine, as an argument vector; it speaks the protocol
    /// on its stdin and stdout.
    pub command: Vec<String>,
    /// A command printing the engine's version on its first line (for provenance).
    #[serde(default)]
    pub version: Option<Vec<String>>,
    /// Features beyond positive rules, constants and comparisons that the engine supports;
    /// a program using another is refused before the engine is started.
    #[serde(default)]
    pub supports: Vec<Feature>,
    /// Seconds the engine may take to answer one exchange (start, materialisation, batch)
    /// before it is killed and the batch reported as its failure.
    #[serde(default)]
    pub timeout_s: Option<f64>,
    /// Extra environment variables of the engine's process.
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    /// The engine is single-threaded: run it on the CPU of the harness's thread that talks
    /// to it (see `external::same_cpu`), as a built-in engine runs.
    #[serde(default)]
    pub same_cpu: bool,
    /// One line on what the engine is (shown by error messages listing engines).
    #[serde(default)]
    pub description: Option<String>,
    /// The directory commands run in: the engines file's (filled in when read).
    #[serde(skip)]
    pub dir: PathBuf,
}

impl EngineDecl {
    /// The first feature `program` uses that the engine does not declare, if any.
    pub fn missing_feature(&self, program: &Program) -> Option<Feature> {
        Feature::used_by(program)
            .into_iter()
            .find(|f| !self.supports.contains(f))
    }

    /// The timeout of one exchange.
    pub fn timeout(&self) -> Duration {
        Duration::from_secs_f64(self.timeout_s.unwrap_or(DEFAULT_TIMEOUT_S))
    }

    /// The start command with its placeholders expanded.
    pub fn start_command(&self) -> Vec<String> {
        self.command.iter().map(|a| expand(a)).collect()
    }

    /// The version command with its placeholders expanded, if declared.
    pub fn version_command(&self) -> Option<Vec<String>> {
        self.version
            .as_ref()
            .map(|v| v.iter().map(|a| expand(a)).collect())
    }

    /// The first line the version command prints, or why there is none.
    pub fn version_line(&self) -> Result<String, String> {
        let Some(cmd) = self.version_command() else {
            return Err("no version command declared".into());
        };
        let (program, args) = cmd.split_first().ok_or("an empty version command")?;
        let out = std::process::Command::new(program)
            .args(args)
            .current_dir(&self.dir)
            .envs(&self.env)
            .stdin(std::process::Stdio::null())
            .output()
            .map_err(|e| format!("`{program}`: {e}"))?;
        if !out.status.success() {
            return Err(format!(
                "`{}` exited with {}: {}",
                cmd.join(" "),
                out.status,
                String::from_utf8_lossy(&out.stderr).trim()
            ));
        }
        Ok(String::from_utf8_lossy(&out.stdout)
            .lines()
            .next()
            .unwrap_or_default()
            .trim()
            .to_string())
    }
}

/// Expands `{dredbench}` and `{python}` in one argument.
fn expand(arg: &str) -> String {
    let mut s = arg.to_string();
    if s.contains("{dredbench}") {
        let exe = std::env::current_exe()
            .map(|p| p.display().to_string())
            .unwrap_or_else(|_| "dredbench".into());
        s = s.replace("{dredbench}", &exe);
    }
    if s.contains("{python}") {
        let python = std::env::var("DREDBENCH_PYTHON").unwrap_or_else(|_| "python3".into());
        s = s.replace("{python}", &python);
    }
    s
}

/// The contents of an engines file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct EnginesFile {
    /// The format's version; only 1 exists.
    #[serde(default)]
    format: Option<u32>,
    /// The engines by name.
    #[serde(default)]
    engine: BTreeMap<String, EngineDecl>,
}

/// The engines of one engines file, by name.
#[derive(Clone, Debug, Default)]
pub struct Registry {
    /// Where the engines were read from.
    pub path: PathBuf,
    /// The engines by name.
    pub engines: BTreeMap<String, EngineDecl>,
}

impl Registry {
    /// Reads and checks an engines file. An error names the file and, for a syntax or type
    /// error, the line and column (the `toml` crate's message).
    pub fn read(path: &Path) -> Result<Registry, String> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("engines file {}: {e}", path.display()))?;
        Registry::parse(path, &text)
    }

    /// Parses the text of an engines file read from `path` (commands run in its directory).
    pub fn parse(path: &Path, text: &str) -> Result<Registry, String> {
        let file: EnginesFile =
            toml::from_str(text).map_err(|e| format!("engines file {}: {e}", path.display()))?;
        if let Some(v) = file.format.filter(|&v| v != 1) {
            return Err(format!(
                "engines file {}: format {v} is not known (this dredbench reads format 1)",
                path.display()
            ));
        }
        let dir = path
            .parent()
            .filter(|d| !d.as_os_str().is_empty())
            .map(Path::to_path_buf)
            .unwrap_or_else(|| PathBuf::from("."));
        let dir = dir.canonicalize().unwrap_or(dir);
        let mut engines = file.engine;
        for (name, decl) in &mut engines {
            super::check_name(name)
                .map_err(|e| format!("engines file {}: [engine.{name}]: {e}", path.display()))?;
            if decl.command.first().is_none_or(|c| c.trim().is_empty()) {
                return Err(format!(
                    "engines file {}: [engine.{name}]: `command` must name a program",
                    path.display()
                ));
            }
            if let Some(t) = decl.timeout_s {
                if !(t > 0.0 && t.is_finite()) {
                    return Err(format!(
                        "engines file {}: [engine.{name}]: `timeout_s` must be a positive \
                         number of seconds, not {t}",
                        path.display()
                    ));
                }
            }
            decl.dir = dir.clone();
        }
        Ok(Registry {
            path: path.to_path_buf(),
            engines,
        })
    }

    /// The declaration of `name`, or an error listing the declared engines.
    pub fn get(&self, name: &str) -> Result<&EngineDecl, String> {
        self.engines.get(name).ok_or_else(|| {
            let names: Vec<&str> = self.engines.keys().map(String::as_str).collect();
            format!(
                "`ext:{name}` is not declared in the engines file {} (it declares: {})",
                self.path.display(),
                if names.is_empty() {
                    "none".to_string()
                } else {
                    names.join(", ")
                }
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_declaration_reads_with_its_defaults() {
        let r = Registry::parse(
            Path::new("engines.toml"),
            "format = 1\n[engine.x]\ncommand = [\"{dredbench}\", \"serve\"]\nsupports = [\"negation\"]\n",
        )
        .expect("parses");
        let x = r.get("x").expect("declared");
        assert_eq!(x.supports, vec![Feature::Negation]);
        assert_eq!(x.timeout(), Duration::from_secs(300));
        assert!(
            !x.same_cpu,
            "an engine is placed by the OS unless it says otherwise"
        );
        assert!(
            !x.start_command()[0].contains('{'),
            "{:?}",
            x.start_command()
        );
        let err = r.get("y").expect_err("not declared");
        assert!(err.contains("it declares: x"), "{err}");
    }

    #[test]
    fn a_bad_engines_file_is_refused_with_file_and_line() {
        let cases = [
            ("[engine.x]\ncommand = \"not a list\"\n", "line 2"),
            (
                "[engine.x]\ncommand = [\"a\"]\nsupports = [\"magic\"]\n",
                "line 3",
            ),
            ("[engine.x]\ncommand = [\"a\"]\ncomand = 1\n", "line 3"),
            ("[engine.x]\ncommand = []\n", "must name a program"),
            (
                "[engine.x]\ncommand = [\"a\"]\ntimeout_s = -1\n",
                "positive",
            ),
            ("[engine.\"a b\"]\ncommand = [\"a\"]\n", "a b"),
            (
                "[engine.x]\ncommand = [\"a\"]\nsame_cpu = \"yes\"\n",
                "line 3",
            ),
            ("format = 2\n", "format 2"),
        ];
        for (text, expected) in cases {
            let err = Registry::parse(Path::new("dir/engines.toml"), text).expect_err(text);
            assert!(err.contains("dir/engines.toml"), "{text}: {err}");
            assert!(err.contains(expected), "{text}: {err}");
        }
    }
}
