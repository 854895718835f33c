//! One module per `dredbench` subcommand, each exposing its arguments and `run`.
//!
//! Each is a leaf: it parses its arguments and calls the library (inputs, cases, runner,
//! report, charts, summary, …); no subcommand calls another.

pub mod calibrate;
pub mod datasets;
pub mod explain;
pub mod findings;
pub mod fuzz;
pub mod plot;
pub mod regress;
pub mod rewrite;
pub mod run;
pub mod serve;
pub mod study;
pub mod sweep;
pub mod updates;
