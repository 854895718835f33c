//! `dred-core`: a Soufflé-subset Datalog front end, semi-naive evaluation, DRed maintenance
//! engines and a naive oracle, behind one [`Engine`] interface.
//!
//! The pipeline:
//! 1. [`syntax::parse`] reads a program text into an AST;
//! 2. [`check::check`] resolves, type-checks and stratifies it into a [`Program`];
//! 3. [`io`] reads `.facts` into an [`Edb`] and update streams into [`RequestedBatch`]es;
//! 4. an engine ([`Recompute`], [`Oracle`], …) materialises the model and applies each
//!    [`Batch`] (normalised by [`Batch::normalise`]);
//! 5. [`Engine::model`] gives the IDB, which [`io::write_outputs`] writes as `.csv`.
//!
//! The logical layer (syntax, check, program) never depends on storage or evaluation.

#![deny(missing_docs)]

pub mod check;
pub mod diagnostic;
pub mod engine;
pub mod eval;
pub mod io;
pub mod magic;
pub mod oracle;
pub mod plan;
pub mod program;
pub mod storage;
pub mod syntax;
#[cfg(feature = "testing")]
pub mod testing;
pub mod value;

pub use check::{check, load_program};
pub use diagnostic::{Diagnostic, SourceFile, Span};
pub use engine::{
    Batch, BatchReport, Edb, Engine, EngineError, Fact, Model, Phase, RequestedBatch, Round,
};
pub use eval::{Evaluator, Recompute};
pub use oracle::Oracle;
pub use program::{Program, RelId};
pub use value::{Symbols, Tuple, Value};
