//! Files: `.facts` directories, update streams, and `.csv` model outputs (SPEC §2).
//!
//! Readers report malformed input as a [`Diagnostic`] naming file, line and column; writers
//! write to a temporary file in the target directory and rename it, so an interrupted run
//! never leaves a half-written result in place of a good one.

mod facts;
mod output;
mod updates;

pub use facts::{parse_value, read_facts_dir};
pub use output::{format_tuple_raw, sorted_for_output, write_atomic, write_outputs};
pub use updates::{parse_updates, read_updates};

use crate::diagnostic::Diagnostic;

/// Why input could not be read.
#[derive(Debug, thiserror::Error)]
pub enum InputError {
    /// Malformed content, located.
    #[error("{}", .0.render())]
    Syntax(#[from] Diagnostic),
    /// The file system refused.
    #[error("{path}: {source}")]
    Io {
        /// The path involved.
        path: String,
        /// The OS error.
        source: std::io::Error,
    },
}

impl InputError {
    pub(crate) fn io(path: &std::path::Path, source: std::io::Error) -> Self {
        InputError::Io {
            path: path.display().to_string(),
            source,
        }
    }
}
