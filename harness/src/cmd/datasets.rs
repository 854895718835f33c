//! `dredbench datasets`: list what is available and installed, fetch real graphs from Debian
//! packages into the cache, generate graphs, import SNAP edge lists, and print the facts
//! directory of any dataset name (see [`crate::datasets`] for the names).

use std::path::PathBuf;

use clap::{Args, Subcommand};

use crate::datasets::{self, DatasetError, GenKind, GenSpec, Locations, Written};
use crate::{BadInput, Outcome};

/// Arguments of `dredbench datasets`.
#[derive(Debug, Clone, Args)]
pub struct DatasetsArgs {
    /// What to do.
    #[command(subcommand)]
    pub action: DatasetsAction,
    /// Cache directory for fetched, generated and imported datasets (default:
    /// `$DREDBENCH_CACHE`, else `$XDG_CACHE_HOME/dredbench`, else `~/.cache/dredbench`).
    #[arg(long, global = true)]
    pub cache: Option<PathBuf>,
}

/// The `datasets` subcommands.
#[derive(Debug, Clone, Subcommand)]
pub enum DatasetsAction {
    /// Show every dataset (shipped, fetchable: installed or not), generator and program.
    List,
    /// Install datasets from Debian packages into the cache (`apt-get download`, `dpkg-deb
    /// -x`, converted to `.facts`; nothing is installed system-wide). `all` fetches every
    /// dataset that is not shipped. `rust-nll:CRATE[@VERSION]` compiles a crate of the local
    /// cargo registry with `rustc -Znll-facts` and installs its borrow-check facts;
    /// `rust-mir:CRATE[@VERSION]` reads the crate's MIR (`-Zunpretty=mir`) into the facts of
    /// a points-to analysis.
    Fetch {
        /// Catalogue names (`go-bp`, `wordnet`, `debian-deps`, `celegans`; `go-cc` and
        /// `go-mf` regenerate the shipped copies), `rust-nll:CRATE[@VERSION]`,
        /// `rust-mir:CRATE[@VERSION]`, or `all`.
        #[arg(required = true)]
        names: Vec<String>,
        /// Write the dataset directory here instead of `<cache>/<name>` (one name only).
        #[arg(long)]
        out: Option<PathBuf>,
    },
    /// Generate a graph, deterministic by seed, as a dataset directory
    /// (`OUT/facts/edge.facts`, `OUT/facts/source.facts`, `OUT/facts/root.facts`,
    /// `OUT/PROVENANCE`).
    Generate {
        /// The graph family.
        #[arg(value_enum)]
        kind: GenKind,
        /// Node count (key `n`; for grid, cliques and layered a budget the shape is derived
        /// from).
        #[arg(long)]
        nodes: Option<u64>,
        /// Edge count (key `m`; er and rmat only).
        #[arg(long)]
        edges: Option<u64>,
        /// Seed (key `seed`; kinds that draw at random).
        #[arg(long)]
        seed: Option<u64>,
        /// Any other key of the kind, as KEY=VALUE (repeatable), e.g. `--param size=40`.
        #[arg(long = "param", value_name = "KEY=VALUE")]
        params: Vec<String>,
        /// The dataset directory to write (replaced if it exists).
        #[arg(long)]
        out: PathBuf,
    },
    /// Convert a SNAP-style edge list (two whitespace-separated node names per line, `#`
    /// comments) into a dataset directory.
    Import {
        /// The edge list.
        file: PathBuf,
        /// The dataset directory to write (replaced if it exists).
        #[arg(long)]
        out: PathBuf,
    },
    /// Print the facts directory of a dataset name (generating or importing it into the cache
    /// on first use; never fetching), for `dredbench run --facts "$(…)"`.
    Path {
        /// A catalogue name, `gen:KIND?key=value&…`, `snap:PATH` or a directory.
        name: String,
    },
}

fn bad(e: DatasetError) -> anyhow::Error {
    match e {
        DatasetError::Invalid(rendered) => BadInput::Located(rendered).into(),
        other => BadInput::Other(other.to_string()).into(),
    }
}

fn report(w: &Written) {
    eprintln!(
        "{} nodes, {} edges, source {}, root {}; edge.facts sha256 {}",
        w.nodes,
        w.edges,
        w.source.as_deref().unwrap_or("(none)"),
        w.root.as_deref().unwrap_or("(none)"),
        w.edges_sha256
    );
    println!("{}", w.facts.display());
}

/// Runs the command.
pub fn run(args: &DatasetsArgs) -> anyhow::Result<Outcome> {
    let loc = Locations::with_cache(args.cache.as_deref());
    match &args.action {
        DatasetsAction::List => {
            list(&loc)?;
        }
        DatasetsAction::Fetch { names, out } => {
            let names: Vec<String> = if names.iter().any(|n| n == "all") {
                datasets::CATALOGUE
                    .iter()
                    .filter(|e| e.shipped.is_none() && e.fetcher.is_some())
                    .map(|e| e.name.to_string())
                    .collect()
            } else {
                names.clone()
            };
            if out.is_some() && names.len() != 1 {
                return Err(BadInput::Other("--out takes exactly one dataset name".into()).into());
            }
            for name in &names {
                eprintln!("fetching {name}");
                let t = std::time::Instant::now();
                let compiled = if datasets::nll::is_nll_name(name) {
                    Some(datasets::nll::fetch(name, &loc, out.as_deref()))
                } else if datasets::mir::is_mir_name(name) {
                    Some(datasets::mir::fetch(name, &loc, out.as_deref()))
                } else {
                    None
                };
                if let Some(w) = compiled {
                    let w = w.map_err(bad)?;
                    eprintln!("  done in {:.1} s", t.elapsed().as_secs_f64());
                    eprintln!(
                        "{}: {} functions, {} facts; dataset hash {}",
                        w.name, w.functions, w.total_facts, w.dataset_hash
                    );
                    println!("{}", w.facts.display());
                    continue;
                }
                let w = datasets::fetch(name, &loc, out.as_deref()).map_err(bad)?;
                eprintln!("  done in {:.1} s", t.elapsed().as_secs_f64());
                report(&w);
            }
        }
        DatasetsAction::Generate {
            kind,
            nodes,
            edges,
            seed,
            params,
            out,
        } => {
            let mut pairs: Vec<(String, u64)> = Vec::new();
            for (k, v) in [("n", nodes), ("m", edges), ("seed", seed)] {
                if let Some(v) = v {
                    pairs.push((k.to_string(), *v));
                }
            }
            for p in params {
                let (k, v) = p
                    .split_once('=')
                    .ok_or_else(|| BadInput::Other(format!("--param `{p}` is not KEY=VALUE")))?;
                let v: u64 = v.parse().map_err(|_| {
                    BadInput::Other(format!("--param `{p}`: not a non-negative integer"))
                })?;
                pairs.push((k.to_string(), v));
            }
            let spec = GenSpec::from_pairs(*kind, &pairs).map_err(BadInput::Other)?;
            eprintln!("generating {}", spec.canonical());
            let w = datasets::generate_into(&spec, out).map_err(bad)?;
            report(&w);
        }
        DatasetsAction::Import { file, out } => {
            let w = datasets::import_snap(file, out).map_err(bad)?;
            report(&w);
        }
        DatasetsAction::Path { name } => {
            let dir = datasets::resolve_in(name, &loc).map_err(bad)?;
            println!("{}", dir.display());
        }
    }
    Ok(Outcome::Agree)
}

fn list(loc: &Locations) -> anyhow::Result<Outcome> {
    println!(
        "Datasets (shipped: {}; cache: {})",
        loc.shipped.display(),
        loc.cache.display()
    );
    println!(
        "{:<12} {:<14} {:>8}  {:<22} DESCRIPTION",
        "NAME", "STATUS", "EDGES", "LICENCE"
    );
    for e in datasets::CATALOGUE {
        let st = datasets::status(e, loc);
        let (status, edges) = match (&st.facts, e.shipped) {
            (Some(_), Some(_)) => ("shipped", st.edges.map(|n| n.to_string())),
            (Some(_), None) => ("installed", st.edges.map(|n| n.to_string())),
            (None, _) => ("not installed", Some(format!("~{}", e.approx_edges))),
        };
        println!(
            "{:<12} {:<14} {:>8}  {:<22} {}",
            e.name,
            status,
            edges.unwrap_or_default(),
            e.licence,
            e.description
        );
    }
    println!("  install with: dredbench datasets fetch NAME (or `all`)");
    println!();
    let home = datasets::registry::cargo_home();
    println!(
        "Borrow-check facts of Rust crates (rust-nll:CRATE[@VERSION]; compiled from {} by rustc \
         -Znll-facts: {} crates there)",
        home.join("registry").join("src").display(),
        datasets::registry::registry_crate_count(&home)
    );
    print_installed(&datasets::nll::installed(loc));
    println!(
        "  install with: dredbench datasets fetch rust-nll:CRATE[@VERSION] \
         (e.g. rust-nll:regex-syntax@0.8.x)"
    );
    println!();
    println!(
        "Points-to facts of Rust crates (rust-mir:CRATE[@VERSION]; read from rustc -Zunpretty=mir \
         of the same crates, for datasets/programs/andersen.dl)"
    );
    print_installed(&datasets::mir::installed(loc));
    println!(
        "  install with: dredbench datasets fetch rust-mir:CRATE[@VERSION] \
         (e.g. rust-mir:regex-syntax@0.8.x)"
    );
    println!();
    println!(
        "Generators (name a graph as gen:KIND?key=value&…; generated into the cache on first use)"
    );
    for kind in GenKind::ALL {
        let spec = GenSpec::defaults(kind);
        println!(
            "{:<8} {:<52} {}",
            kind.name(),
            spec.canonical(),
            kind.summary()
        );
    }
    println!();
    println!("Also: snap:PATH (a SNAP-style edge list) or any directory of .facts files.");
    let programs = loc.shipped.join("programs");
    if let Ok(entries) = std::fs::read_dir(&programs) {
        let mut names: Vec<String> = entries
            .filter_map(Result::ok)
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".dl"))
            .collect();
        names.sort();
        println!("Programs in {}: {}", programs.display(), names.join(", "));
    }
    Ok(Outcome::Agree)
}

/// Prints installed registry-compiled datasets, one line each.
fn print_installed(installed: &[datasets::registry::Installed]) {
    for i in installed {
        let p = &i.provenance;
        println!(
            "{:<34} {:<10} {:>6} functions {:>9} facts  {}",
            i.name,
            "installed",
            p.get("functions").unwrap_or("?"),
            p.get("facts").unwrap_or("?"),
            p.get("rustc_version")
                .and_then(|v| v.split(';').next())
                .unwrap_or("")
        );
    }
    if installed.is_empty() {
        println!("  (none installed)");
    }
}
