//! How long the calling thread waited for a CPU: Linux's per-thread scheduler statistics
//! (`/proc/thread-self/schedstat`: time on a CPU, time waiting on a run queue, time slices,
//! in nanoseconds since the thread started).
//!
//! Why: on a machine shared with other work (two cores, a study on one and a build on the
//! other), a timed call is sometimes descheduled for a whole time slice. The full study of
//! session 51 read five batches of `dred` at 12–21 × `recompute` on layered graphs, each
//! 4.1–4.4 ms above its stream's other batches: one scheduler tick. The harness reads the
//! wait before and after each timed call (outside the timing) and reports the difference
//! (`descheduled_ns`), so that a reader, and the collapse checks, can tell a batch that
//! worked long from one that waited.

/// The calling thread's total wait on a run queue so far, nanoseconds; `None` where the
/// kernel does not say (not Linux, or scheduler statistics not kept).
pub fn runqueue_wait_ns() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    parse_wait(&text)
}

/// The wait field of a `schedstat` line (its second number).
fn parse_wait(text: &str) -> Option<u64> {
    let mut fields = text.split_whitespace();
    fields.next()?.parse::<u64>().ok()?;
    fields.next()?.parse().ok()
}

/// The thread's wait on a run queue since `before` (a [`runqueue_wait_ns`] reading), if
/// both readings exist.
pub fn descheduled_since(before: Option<u64>) -> Option<u64> {
    Some(runqueue_wait_ns()?.saturating_sub(before?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_wait_is_the_second_field() {
        assert_eq!(parse_wait("330117720 14983780 50\n"), Some(14_983_780));
        assert_eq!(parse_wait("1 2"), Some(2));
        assert_eq!(parse_wait("330117720\n"), None);
        assert_eq!(parse_wait("x 2 3"), None);
        assert_eq!(parse_wait(""), None);
    }

    /// On Linux the wait is read and never runs backwards; a thread that shares a core
    /// with a busy one waits (the figure is not stuck at 0).
    #[test]
    #[cfg(target_os = "linux")]
    fn a_thread_sharing_its_core_is_seen_waiting() {
        let Some(before) = runqueue_wait_ns() else {
            return; // scheduler statistics not kept by this kernel
        };
        // More busy threads than cores: each waits for a CPU part of the time.
        let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let busy: Vec<_> = (0..cores)
            .map(|_| {
                let stop = stop.clone();
                std::thread::spawn(move || {
                    while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                        std::hint::spin_loop();
                    }
                })
            })
            .collect();
        let start = std::time::Instant::now();
        let mut x = 0u64;
        while start.elapsed() < std::time::Duration::from_millis(300) {
            x = std::hint::black_box(x.wrapping_add(1));
        }
        let waited = descheduled_since(Some(before)).expect("read before, so read after");
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
        for b in busy {
            b.join().expect("a busy thread ends");
        }
        assert!(
            waited > 0,
            "300 ms beside {cores} busy threads without a wait"
        );
    }
}
