//! `dred-core`: a Soufflé-subset Datalog front end, semi-naive evaluation, DRed maintenance
//! engines and a naive oracle, behind one [`Engine`] interface.
//!
//! The pipeline:
//! 1. [`syntax::parse`] reads a program text into an AST;
//! 2. [`check::check`] resolves, type-checks and stratifies it into a [`Program`];
//! 3. [`io`] reads `.facts` into an [`Edb`] and update streams into [`RequestedBatch`]es;
//! 4. an engine ([`Recompute`], [`Reference`], [`Oracle`], …) materialises the model and
//!    applies each [`Batch`] (normalised by [`Batch::normalise`]);
//! 5. [`Engine::model`] gives the IDB, which [`io::write_outputs`] writes as `.csv`.
//!
//! The logical layer (syntax, check, program) never depends on storage or evaluation.
//!
//! The DRed engines live in [`dred`]. The [`Reference`] follows the seed step by step and
//! stores every old successful ground instance: each batch costs C₀ + O(M + G + B) for the
//! instance store and the over-delete queue, and O((d + 1)(G + B + 1)) for the rederive scans
//! (M old facts, G old instances, B their total body length, d over-deleted IDB facts) — in
//! proportion to the whole old model, not to the change, which is why it is a reference for
//! small inputs and not the engine to use on large ones (see [`dred::reference`]).

#![deny(missing_docs)]

pub mod arith;
pub mod auto;
pub mod bf;
pub mod check;
pub mod counting;
pub mod diagnostic;
pub mod dred;
pub mod engine;
pub mod eval;
pub mod exec;
pub mod explain;
pub mod io;
pub mod magic;
pub mod maintain;
pub mod oracle;
pub mod per_batch;
pub mod plan;
pub mod program;
pub mod record;
pub mod records;
pub mod rounds;
#[cfg(test)]
mod seed;
pub mod storage;
pub mod strings;
pub mod syntax;
#[cfg(feature = "testing")]
pub mod testing;
pub mod value;

pub use auto::Auto;
pub use bf::Bf;
pub use check::{check, load_program};
pub use counting::Counting;
pub use diagnostic::{Diagnostic, SourceFile, Span};
pub use dred::{Dred, Reference, WrongSupport};
pub use engine::{
    Batch, BatchReport, ChangeFacts, Edb, Engine, EngineError, Fact, FactList, Model, ModelDigest,
    NetChange, Phase, RequestedBatch, Round, Work,
};
pub use eval::{Evaluator, Recompute};
pub use oracle::Oracle;
pub use program::{Program, RelId};
pub use value::{Symbols, Tuple, Value};
