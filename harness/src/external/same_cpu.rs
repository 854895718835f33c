//! Running a single-threaded external engine on the CPU of the harness's thread that talks to
//! it (`same_cpu = true` in the engines file).
//!
//! Why: a built-in engine runs in the harness's thread, so its work finds the caches that
//! thread warmed, and each exchange with an external engine is a hand-over between two
//! threads that never run at once. Placed by the OS, the child often runs on another CPU,
//! whose caches are cold after each wait: `ext:dred` measured 1.27–1.31× `dred` per batch
//! placed freely and 1.19–1.24× with both on one CPU (`results/ext/2026-12-05-direct/`),
//! with `engine_ns` spreading from [0.86, 1.41] to [0.72, 1.59] of `dred`'s time. For a
//! multi-threaded engine one CPU would be wrong, so it is the engine's declaration.
//!
//! How: the calling thread is pinned to the CPU it is on, and the child, started from it,
//! inherits the mask. The thread keeps the pin while any such engine it started lives; the
//! last one ending restores the mask the thread had before.

use std::sync::Mutex;

use rustix::thread::{sched_getaffinity, sched_getcpu, sched_setaffinity, CpuSet, Pid};

/// Per pinned thread: how many live engines hold its pin, and the mask it had before.
static PINS: Mutex<Vec<(Pid, usize, CpuSet)>> = Mutex::new(Vec::new());

/// Holds the calling thread on one CPU while it lives (see the module).
#[derive(Debug)]
pub struct SameCpu {
    thread: Pid,
}

impl SameCpu {
    /// Pins the calling thread to the CPU it runs on (or keeps the pin it has from another
    /// engine): start the child while this lives, from this thread.
    pub fn pin_here() -> std::io::Result<SameCpu> {
        let thread = rustix::thread::gettid();
        let mut pins = PINS.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(pin) = pins.iter_mut().find(|(t, _, _)| *t == thread) {
            pin.1 += 1;
            return Ok(SameCpu { thread });
        }
        let before = sched_getaffinity(None)?;
        let mut here = CpuSet::new();
        here.set(sched_getcpu());
        sched_setaffinity(None, &here)?;
        pins.push((thread, 1, before));
        Ok(SameCpu { thread })
    }
}

impl Drop for SameCpu {
    fn drop(&mut self) {
        let mut pins = PINS.lock().unwrap_or_else(|e| e.into_inner());
        let Some(i) = pins.iter().position(|(t, _, _)| *t == self.thread) else {
            return;
        };
        pins[i].1 -= 1;
        if pins[i].1 == 0 {
            let (thread, _, before) = pins.swap_remove(i);
            // The thread may have ended; nothing is left to restore then.
            let _ = sched_setaffinity(Some(thread), &before);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Pinning holds the thread on one CPU, nested pins keep it, and the last one ending
    /// restores the mask the thread had.
    #[test]
    fn the_pin_holds_while_an_engine_lives_and_the_mask_comes_back() {
        std::thread::spawn(|| {
            let before = sched_getaffinity(None).expect("mask");
            let first = SameCpu::pin_here().expect("pins");
            let pinned = sched_getaffinity(None).expect("mask");
            assert_eq!(pinned.count(), 1);
            let second = SameCpu::pin_here().expect("pins again");
            drop(first);
            assert_eq!(sched_getaffinity(None).expect("mask"), pinned);
            drop(second);
            assert_eq!(sched_getaffinity(None).expect("mask"), before);
        })
        .join()
        .expect("the test thread");
    }
}
