//! One module per `dredbench` subcommand, each exposing `run`.

pub mod datasets;
pub mod fuzz;
pub mod plot;
pub mod regress;
pub mod rewrite;
pub mod run;
pub mod study;
pub mod sweep;
pub mod updates;
