//! The exchange with a child over its stdin and stdout, done in the calling thread.
//!
//! A request is written and its answer read with non-blocking pipes and `poll`, so that an
//! exchange wakes two threads (the child on its input, the harness on the answer) and no
//! more: handing the request to a writer thread and the answer back from a reader thread
//! added two wake-ups per exchange, each a cross-core wake on a virtual machine (tens of µs
//! when the core was idle). Writing and reading are interleaved, so a child that answers
//! before it has read the whole request cannot deadlock the exchange, and the deadline holds
//! whether the child hangs reading or writing.

use std::io::{ErrorKind, Read, Write};
use std::process::{ChildStdin, ChildStdout};
use std::time::Instant;

use rustix::event::{PollFd, PollFlags, Timespec};

/// The size asked for the child's output pipe (Linux; elsewhere the default stays): an
/// answer of many facts is then written with fewer waits for the harness to drain it.
const PIPE_SIZE: usize = 1 << 20;

/// How one exchange ended, when it did not end with a complete answer.
#[derive(Debug)]
pub enum Broken {
    /// The child closed its output (or its input) before ending an answer.
    Closed,
    /// The deadline passed.
    TimedOut,
    /// Reading or writing failed, or the answer is not UTF-8.
    Unreadable(String),
}

/// One answer: the fact lines (each ended by `\n`, the engine's `#` comments dropped), then
/// the line that ends the answer (without its line end).
#[derive(Debug, PartialEq, Eq)]
pub struct Answer {
    pub facts: String,
    pub last: String,
}

/// The child's pipes, made non-blocking.
#[derive(Debug)]
pub struct Pipes {
    /// `None` once closed (the child's signal to exit).
    stdin: Option<ChildStdin>,
    stdout: ChildStdout,
    answer: Assembler,
}

impl Pipes {
    /// Takes over the child's pipes.
    pub fn new(stdin: ChildStdin, stdout: ChildStdout) -> std::io::Result<Self> {
        for fd in [
            rustix::fd::AsFd::as_fd(&stdin),
            rustix::fd::AsFd::as_fd(&stdout),
        ] {
            let flags = rustix::fs::fcntl_getfl(fd)?;
            rustix::fs::fcntl_setfl(fd, flags | rustix::fs::OFlags::NONBLOCK)?;
        }
        #[cfg(any(target_os = "linux", target_os = "android"))]
        {
            // A smaller pipe only costs waits; a refusal (e.g. above the system's limit) is
            // not an error.
            let _ = rustix::pipe::fcntl_setpipe_size(&stdout, PIPE_SIZE);
        }
        Ok(Pipes {
            stdin: Some(stdin),
            stdout,
            answer: Assembler::default(),
        })
    }

    /// Closes the child's input.
    pub fn close_input(&mut self) {
        self.stdin = None;
    }

    /// Gives back an answer's buffer (its `facts`, once read) for the next answers: an answer
    /// of many facts then lands in memory already mapped, not in fresh pages.
    pub fn recycle(&mut self, mut buffer: Vec<u8>) {
        buffer.clear();
        if buffer.capacity() > self.answer.spare.capacity() {
            self.answer.spare = buffer;
        }
    }

    /// Writes `request` and reads until one answer is complete, or `deadline` passes.
    pub fn exchange(&mut self, request: &[u8], deadline: Instant) -> Result<Answer, Broken> {
        let mut written = 0;
        loop {
            if written < request.len() {
                let Some(stdin) = self.stdin.as_mut() else {
                    return Err(Broken::Closed);
                };
                match stdin.write(&request[written..]) {
                    Ok(n) => written += n,
                    Err(e) if e.kind() == ErrorKind::WouldBlock => {}
                    Err(e) if e.kind() == ErrorKind::Interrupted => continue,
                    Err(e) if e.kind() == ErrorKind::BrokenPipe => return Err(Broken::Closed),
                    Err(e) => return Err(Broken::Unreadable(e.to_string())),
                }
            }
            if let Some(answer) = self.answer.next_answer() {
                return answer;
            }
            // Everything available is read before the next wait (into the answer's buffer,
            // which keeps what is read when the pipe runs dry): an answer arrives in as few
            // wake-ups as the pipe allows.
            match self.stdout.read_to_end(&mut self.answer.bytes) {
                Ok(_) => {
                    return match self.answer.next_answer() {
                        Some(answer) => answer,
                        None => Err(Broken::Closed),
                    }
                }
                Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::Interrupted) => {}
                Err(e) => return Err(Broken::Unreadable(e.to_string())),
            }
            if let Some(answer) = self.answer.next_answer() {
                return answer;
            }
            let now = Instant::now();
            if now >= deadline {
                return Err(Broken::TimedOut);
            }
            let left = deadline - now;
            let timeout = Timespec {
                tv_sec: left.as_secs().try_into().unwrap_or(i64::MAX),
                tv_nsec: left.subsec_nanos().into(),
            };
            let mut fds = vec![PollFd::new(&self.stdout, PollFlags::IN)];
            if written < request.len() {
                if let Some(stdin) = self.stdin.as_ref() {
                    fds.push(PollFd::new(stdin, PollFlags::OUT));
                }
            }
            match rustix::event::poll(&mut fds, Some(&timeout)) {
                Ok(_) | Err(rustix::io::Errno::INTR) => {}
                Err(e) => return Err(Broken::Unreadable(e.to_string())),
            }
        }
    }
}

/// Assembles bytes into answers: lines up to one that ends an answer (`ok`, `error`,
/// `unsupported` or `protocol` first); `#` lines are the engine's comments and are dropped.
/// Bytes after an answer's last line stay for the next answer.
#[derive(Debug, Default)]
struct Assembler {
    /// The current answer's lines so far; complete lines end before `scanned`.
    bytes: Vec<u8>,
    /// Where the first line not yet looked at starts.
    scanned: usize,
    /// An empty buffer with room, for the answer after this one ([`Pipes::recycle`]).
    spare: Vec<u8>,
}

impl Assembler {
    /// Adds `more`; returns the answer they complete, if any (at most one: a second answer
    /// in `more` waits for the next call).
    #[cfg(test)]
    fn push(&mut self, more: &[u8]) -> Option<Result<Answer, Broken>> {
        self.bytes.extend_from_slice(more);
        self.next_answer()
    }

    fn next_answer(&mut self) -> Option<Result<Answer, Broken>> {
        // Newlines found with `memchr` (vectorised): an answer of 10,000 facts is ~400 KB,
        // and a byte-at-a-time search cost ~1 ns a byte here.
        while let Some(len) = memchr::memchr(b'\n', &self.bytes[self.scanned..]) {
            let start = self.scanned;
            let end = start + len + 1;
            // A fact line (`+` or `-` first) is the common case: kept without a look further.
            if matches!(self.bytes[start], b'+' | b'-') {
                self.scanned = end;
                continue;
            }
            let line = &self.bytes[start..end - 1];
            let line = line.strip_suffix(b"\r").unwrap_or(line);
            if line.starts_with(b"#") {
                self.bytes.drain(start..end);
                continue;
            }
            let first_word = line.split(|&b| b == b' ').next().unwrap_or_default();
            if !matches!(first_word, b"ok" | b"error" | b"unsupported" | b"protocol") {
                self.scanned = end;
                continue;
            }
            let last = String::from_utf8_lossy(line).into_owned();
            let mut next = std::mem::take(&mut self.spare);
            next.extend_from_slice(&self.bytes[end..]);
            self.bytes.truncate(start);
            let facts = std::mem::replace(&mut self.bytes, next);
            self.scanned = 0;
            return Some(match String::from_utf8(facts) {
                Ok(facts) => Ok(Answer { facts, last }),
                Err(e) => Err(Broken::Unreadable(format!("not UTF-8: {e}"))),
            });
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answers(chunks: &[&[u8]]) -> Vec<Answer> {
        let mut a = Assembler::default();
        let mut out = Vec::new();
        for chunk in chunks {
            let mut next = a.push(chunk);
            while let Some(answer) = next {
                out.push(answer.expect("readable"));
                next = a.next_answer();
            }
        }
        out
    }

    #[test]
    fn answers_are_cut_at_their_last_line_wherever_the_reads_split_them() {
        let text = b"+\tp\ta\n# a comment\n-\tp\tb\nok time_ns=5\nprotocol 1 changes\n+\tq\n";
        let whole = answers(&[text]);
        assert_eq!(
            whole,
            vec![
                Answer {
                    facts: "+\tp\ta\n-\tp\tb\n".into(),
                    last: "ok time_ns=5".into()
                },
                Answer {
                    facts: String::new(),
                    last: "protocol 1 changes".into()
                },
            ]
        );
        for cut in 1..text.len() {
            assert_eq!(
                answers(&[&text[..cut], &text[cut..]]),
                whole,
                "cut at {cut}"
            );
        }
        let bytes: Vec<&[u8]> = text.chunks(1).collect();
        assert_eq!(answers(&bytes), whole);
    }

    #[test]
    fn other_lines_stay_in_the_answer_and_crlf_ends_the_last_line() {
        let got = answers(&[b"garbage\nerror no\r\n"]);
        assert_eq!(
            got,
            vec![Answer {
                facts: "garbage\n".into(),
                last: "error no".into()
            }]
        );
    }

    #[test]
    fn an_answer_not_in_utf8_is_unreadable() {
        let mut a = Assembler::default();
        assert!(matches!(
            a.push(b"+\tp\t\xff\nok\n"),
            Some(Err(Broken::Unreadable(_)))
        ));
    }
}
