//! External engines on platforms without Unix pipes and `poll`: refused at start.

use std::process::{ChildStdin, ChildStdout};
use std::time::Instant;

/// How one exchange ended, when it did not end with a complete answer.
#[derive(Debug)]
#[allow(dead_code)] // the same variants as on Unix, where all are built
pub enum Broken {
    /// The child closed its output (or its input) before ending an answer.
    Closed,
    /// The deadline passed.
    TimedOut,
    /// Reading or writing failed.
    Unreadable(String),
}

/// One answer: its fact lines, then its last line.
#[derive(Debug)]
pub struct Answer {
    pub facts: String,
    pub last: String,
}

/// Never built here.
#[derive(Debug)]
pub struct Pipes;

impl Pipes {
    /// Always an error: the exchange needs non-blocking pipes and `poll`.
    pub fn new(_stdin: ChildStdin, _stdout: ChildStdout) -> std::io::Result<Self> {
        Err(std::io::Error::new(
            std::io::ErrorKind::Unsupported,
            "external engines need Unix pipes and poll",
        ))
    }

    /// Nothing to close.
    pub fn close_input(&mut self) {}

    /// Nothing to keep.
    pub fn recycle(&mut self, _buffer: Vec<u8>) {}

    /// Unreachable: no `Pipes` is ever built.
    pub fn exchange(&mut self, _request: &[u8], _deadline: Instant) -> Result<Answer, Broken> {
        Err(Broken::Closed)
    }
}
