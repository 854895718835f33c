//! One module per `dredbench` subcommand, each exposing `run`.

pub mod run;
