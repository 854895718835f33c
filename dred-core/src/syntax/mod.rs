//! The Soufflé subset as text: tokens, parsing, and the untyped abstract syntax tree.
//!
//! Nothing here knows which relations exist; [`check`](mod@crate::check) turns an [`ast::Program`] into a
//! checked [`crate::Program`].

pub mod ast;
mod components;
mod include;
mod lexer;
mod parser;
mod preprocess;

pub use parser::parse;
pub use preprocess::set_command_line_macros;
