//! A global program analysis from real Rust code: the facts of a field-insensitive,
//! inclusion-based (Andersen-style) points-to analysis, read from rustc's MIR of one crate
//! of the local cargo registry (`dredbench datasets fetch rust-mir:CRATE[@VERSION]`), for
//! `datasets/programs/andersen.dl`.
//!
//! # How a crate is compiled
//!
//! As for `rust-nll:` ([`super::registry`]): the crate's library, in a scratch package,
//! with `RUSTC_BOOTSTRAP=1 … cargo rustc … -- -Zunpretty=mir -o <scratch>/crate.mir`: the
//! optimised MIR of every body, printed as text (rustc 1.95's format). The text is a
//! human-readable dump, not a stable interface; the extractor reads what rustc 1.95 prints
//! and fails with the MIR line when a call it must read is not in that form.
//!
//! # What is kept
//!
//! Every *function* body (`fn …`; closures included): its locals are variables `F::_N`
//! (`F` the body's prefix, below), and a local whose address is taken is also the object
//! it names, so one relation `points_to` covers variables and memory. Places are read
//! **field-insensitively**: `(P.f: T)`, `(P as Variant)`, `P[i]` and subslices are `P`;
//! only dereferences count, and `**p` goes through synthetic variables `F::_N*`,
//! `F::_N**` (each with a `load` from the previous). Per statement `D = R`:
//!
//! | right-hand side | facts |
//! |---|---|
//! | `&P`, `&mut P`, `&raw const/mut P` | `address_of(D, P)` if neither side dereferences, else the address's variable flows into `D` (`&(*p)` is the value of `p`) |
//! | `copy P`, `move P`, anywhere in `R` (casts, aggregates, `Offset`, `CopyForDeref`) | `assign(D, P)` (or `load` through the synthetic variables) |
//! | `{closure@SPAN} { … }` | its captures as above, and `address_of(D, C::code)` for the closure body `C` of that span |
//! | `f as fn(…) (PointerCoercion(ReifyFnPointer))` | `address_of(D, f::code)` for the functions `f` names |
//! | a destination `(*p)` | `store(p, ·)` instead of `assign` |
//!
//! A statement whose destination local has a scalar type (`bool`, `char`, integers,
//! floats, `()`, `!`) is dropped: it cannot hold a pointer.
//!
//! **Calls** (`D = callee(args) -> …`, site `F::bbN`): `call_in(site, F)`,
//! `actual(site, i, arg)` for each argument read from a place (constants and scalars give
//! none), `call_result(site, D)` unless `D` is scalar. Parameters are `formal(F, i, F::_{i+1})`
//! and the return place `fn_return(F, F::_0)`; a closure's arguments arrive as one tuple
//! (position 1) spread over all its parameters after the environment (position 0). The
//! callee is resolved **by name**, since textual MIR names impls by their source span, not
//! by their type:
//! - `Type::m` or `<Type as Trait>::m`: the crate's functions named `m`, with as many
//!   parameters, whose `self` parameter has base type `Type` (for associated functions
//!   without `self`, whose return type, `Result`/`Option`/`Box` unwrapped, is `Type`);
//! - `<T as Trait>::m` on a type parameter or `dyn Trait`: every method named `m` of that
//!   arity in the crate (a name-based class-hierarchy analysis); `Fn*::call*` on a type
//!   parameter: a dynamic call through the first argument (`call_dynamic`);
//! - a free function `m`: the crate's free functions named `m` of that arity;
//! - `<{closure@SPAN} as Fn…>::call…`: the closure body of that span;
//! - a local (`move _4(…)`): `call_dynamic(site, _4)`.
//!
//! Resolved calls give `call_static(site, G)`. **Unresolved calls** (functions outside the
//! crate, or names that match nothing) are modelled conservatively, as a points-to
//! analysis models a library it does not analyse: a non-scalar result is a fresh object
//! `address_of(D, site.new)` and may point to whatever any argument points to
//! (`assign(D, arg)`); the library may store every other argument through an argument of
//! type `&mut`/`*mut` (`store`); and it may call back any closure or function object an
//! argument points to (`call_external(site, arg)`, the program binds every actual to every
//! formal of such a callback).
//!
//! `entry(F)`: the non-closure functions no call of the crate resolves to.
//! `fn_object(F::code, F)` for every body.
//!
//! # What is dropped
//!
//! Constants, statics, promoted constants and allocations (a `const` operand carries no
//! pointer here, and statics are not objects); the compile-time copy of `const fn` bodies
//! (`// MIR FOR CTFE`); statements to scalar locals; `drop`, `assert`, `switchInt`,
//! storage markers and other statements without a data flow; field, variant and index
//! precision; generic instantiation (one body per generic function); calls through trait
//! objects are not narrowed by type. `PROVENANCE` counts what was dropped by kind.
//!
//! # What is installed
//!
//! `<cache>/rust-mir/<crate>-<version>/` (or `--out DIR`): `facts/<relation>.facts` for
//! every relation of [`extract::RELATIONS`] (tab-separated, values `F::…`), `FUNCTIONS`
//! (prefix, rustc's name with the registry path shortened to the crate, facts attributed
//! to it) and `PROVENANCE`; the MIR text itself is not kept (its command, in `PROVENANCE`,
//! reproduces it). Values are prefixed by their function so that
//! `--kind function-edit` deletes and re-inserts one function's statements.

pub mod extract;

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use super::load::Provenance;
use super::registry::{
    self, cargo_home, crate_file_sha256, fetch_err, find_in_registry, CrateSpec, CrateWritten,
    Installed,
};
use super::{DatasetError, Locations};

/// The name prefix of these datasets: `rust-mir:CRATE[@VERSION]`.
pub const SCHEME: &str = "rust-mir:";
const CACHE_DIR: &str = "rust-mir";
const MARKER: &str = "address_of.facts";

/// Whether a dataset name is of this form (`rust-mir:…`).
pub fn is_mir_name(name: &str) -> bool {
    name.starts_with(SCHEME)
}

/// Every installed `rust-mir` dataset in the cache, by name.
pub fn installed(loc: &Locations) -> Vec<Installed> {
    registry::installed_under(loc, CACHE_DIR, SCHEME, MARKER)
}

/// The facts directory of an installed `rust-mir:CRATE[@VERSION]`. Never compiles anything.
pub fn resolve_installed(name: &str, loc: &Locations) -> Result<PathBuf, DatasetError> {
    registry::resolve_installed_under(name, loc, CACHE_DIR, SCHEME, MARKER)
}

/// Writes extracted facts as a facts directory (one `<relation>.facts` per relation, rows
/// sorted, tab-separated).
pub fn write_facts(facts: &extract::Facts, dir: &Path) -> Result<(), DatasetError> {
    std::fs::create_dir_all(dir).map_err(|e| DatasetError::io(dir, e))?;
    for (rel, rows) in &facts.relations {
        let path = dir.join(format!("{rel}.facts"));
        let file = std::fs::File::create(&path).map_err(|e| DatasetError::io(&path, e))?;
        let mut w = std::io::BufWriter::new(file);
        for row in rows {
            writeln!(w, "{}", row.join("\t")).map_err(|e| DatasetError::io(&path, e))?;
        }
        w.flush().map_err(|e| DatasetError::io(&path, e))?;
    }
    Ok(())
}

/// Fetches `rust-mir:CRATE[@VERSION]`: compiles the crate from the local registry with
/// `-Zunpretty=mir`, extracts the points-to facts and installs them into `dest` (default
/// `<cache>/rust-mir/<crate>-<version>`), replacing what is there. Progress on stderr.
pub fn fetch(
    name: &str,
    loc: &Locations,
    dest: Option<&Path>,
) -> Result<CrateWritten, DatasetError> {
    let spec = CrateSpec::parse(name, SCHEME)?;
    let home = cargo_home();
    let krate = find_in_registry(&spec, &home)?;
    eprintln!(
        "  {} {} from {}",
        krate.krate,
        krate.version,
        krate.dir.display()
    );
    let dest = dest.map_or_else(
        || {
            loc.cache
                .join(CACHE_DIR)
                .join(format!("{}-{}", krate.krate, krate.version))
        },
        Path::to_path_buf,
    );
    let label = format!("{}-{}", krate.krate, krate.version);
    registry::with_scratch(&dest, &label, |work| {
        let mir = work.join("crate.mir");
        let flags = [
            "-Zunpretty=mir".to_string(),
            "-o".to_string(),
            mir.display().to_string(),
        ];
        let compiled = registry::compile_crate(&krate, work, &flags, "-Zunpretty=mir")?;
        let text = std::fs::read_to_string(&mir).map_err(|e| {
            fetch_err(format!(
                "compiling {} {} succeeded but rustc wrote no MIR to {} ({e})",
                krate.krate,
                krate.version,
                mir.display()
            ))
        })?;
        eprintln!(
            "  extracting points-to facts from {} lines of MIR",
            text.lines().count()
        );
        let facts =
            extract::extract(&text).map_err(|e| fetch_err(format!("{}: {e}", mir.display())))?;
        if facts.functions.is_empty() {
            return Err(fetch_err(format!(
                "the MIR of {} {} holds no function body",
                krate.krate, krate.version
            )));
        }
        let write =
            |p: PathBuf, text: &str| std::fs::write(&p, text).map_err(|e| DatasetError::io(&p, e));
        registry::install_renamed(&dest, |tmp| {
            let facts_dir = tmp.join("facts");
            write_facts(&facts, &facts_dir)?;
            let mut functions = String::new();
            for f in &facts.functions {
                let _ = writeln!(functions, "{}\t{}\t{}", f.prefix, f.name, f.facts);
            }
            write(tmp.join("FUNCTIONS"), &functions)?;
            let hash = crate::provenance::dataset_hash(&facts_dir)
                .map_err(|e| DatasetError::io(&facts_dir, e))?;
            let name = format!("{SCHEME}{}@{}", krate.krate, krate.version);
            let relations: BTreeMap<String, usize> = facts
                .relations
                .iter()
                .map(|(r, rows)| (r.to_string(), rows.len()))
                .collect();
            let mut prov = Provenance::default();
            prov.add("name", &name)
                .add("crate", &krate.krate)
                .add("crate_version", &krate.version)
                .add("features", "default")
                .add("registry_source", krate.dir.display())
                .add(
                    "crate_file_sha256",
                    crate_file_sha256(&krate, &home)
                        .unwrap_or_else(|| "(no .crate in the registry cache)".into()),
                )
                .add("source_tree_sha256", &compiled.source_sha256)
                .add("rustc_version", registry::one_line(&compiled.rustc_version))
                .add("cargo_version", compiled.cargo_version.trim())
                .add("command", &compiled.command)
                .add(
                    "extraction",
                    "field-insensitive Andersen facts from -Zunpretty=mir; calls resolved by \
                     name; library calls modelled (see dredbench's harness/src/datasets/mir)",
                )
                .add("mir_lines", text.lines().count())
                .add("functions", facts.functions.len())
                .add("facts", facts.total());
            for (rel, n) in &relations {
                prov.add(&format!("{rel}_facts"), n);
            }
            for (what, n) in &facts.dropped {
                prov.add(&format!("dropped_{}", what.replace(' ', "_")), n);
            }
            prov.add("dataset_hash", &hash)
                .add("fetched_at_unix", registry::now_unix())
                .add("tool", concat!("dredbench ", env!("CARGO_PKG_VERSION")));
            write(tmp.join("PROVENANCE"), &prov.render())?;
            Ok(CrateWritten {
                dir: dest.clone(),
                facts: dest.join("facts"),
                name,
                functions: facts.functions.len(),
                total_facts: facts.total(),
                relations,
                dataset_hash: hash,
            })
        })
    })
}
