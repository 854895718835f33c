//! How much resident memory the engines of a case hold, read from Linux's `/proc`.
//!
//! A whole-process peak (`/usr/bin/time -f %M`) also counts what the harness holds: the
//! parsed dataset, its EDB and the update stream. For a program with a small model that share
//! is most of the process (20 of 30 MB for reachability on GO BP), so the engines' own
//! footprints cannot be compared that way. [`Footprint::start`] resets the kernel's
//! high-water mark of the resident set just before the engines are built
//! (`/proc/self/clear_refs`, value 5), after handing the allocator's free memory back to the
//! kernel, and remembers the resident set then; the growth of the high-water mark from there
//! is what the case's engines (and the harness's per-batch scratch) have added.

use std::path::Path;

/// The resident set when a case's engines were about to be built, with the process's
/// high-water mark reset to it.
#[derive(Clone, Copy, Debug)]
pub struct Footprint {
    base_kb: u64,
}

impl Footprint {
    /// Resets the process's peak resident set to the current one and remembers it. `None`
    /// where `/proc/self/clear_refs` or `/proc/self/status` cannot be used (not Linux, or a
    /// kernel without the reset): no figure rather than one that counts earlier peaks.
    pub fn start() -> Option<Self> {
        release_free_memory();
        std::fs::write("/proc/self/clear_refs", "5").ok()?;
        let status = std::fs::read_to_string("/proc/self/status").ok()?;
        let rss = status_kb(&status, "VmRSS")?;
        let hwm = status_kb(&status, "VmHWM")?;
        // After a reset the mark is the current resident set (give or take pages touched
        // between the two reads); a mark still far above it means the reset did nothing.
        (hwm <= rss + 1024).then_some(Footprint { base_kb: rss })
    }

    /// kB by which the process's peak resident set has grown since [`Footprint::start`].
    pub fn peak_growth_kb(&self) -> Option<u64> {
        let status = std::fs::read_to_string(Path::new("/proc/self/status")).ok()?;
        Some(status_kb(&status, "VmHWM")?.saturating_sub(self.base_kb))
    }
}

/// Hands the allocator's free memory back to the kernel. Without it, what the harness freed
/// before (parsing, earlier cases) stays resident, and the engines' first megabytes reuse it
/// without raising the resident set: measured, the footprints of one case moved by a quarter
/// with the harness's allocations before the start.
#[allow(unsafe_code)]
fn release_free_memory() {
    // SAFETY: `malloc_trim` takes a size and no pointer; it only walks glibc's own free lists,
    // under its arena locks, and returns their unused pages to the kernel. No memory in use
    // is touched, so it is sound at any point and from any thread.
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    unsafe {
        libc::malloc_trim(0);
    }
}

/// The value of a `Name:   1234 kB` line of `/proc/self/status`.
fn status_kb(status: &str, name: &str) -> Option<u64> {
    status.lines().find_map(|line| {
        let rest = line.strip_prefix(name)?.strip_prefix(':')?;
        rest.trim().strip_suffix("kB")?.trim().parse().ok()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_status_lines() {
        let status = "Name:\tdredbench\nVmHWM:\t  218212 kB\nVmRSS:\t   13516 kB\n";
        assert_eq!(status_kb(status, "VmHWM"), Some(218_212));
        assert_eq!(status_kb(status, "VmRSS"), Some(13_516));
        assert_eq!(status_kb(status, "VmSwap"), None);
        assert_eq!(status_kb("VmRSSX:\t1 kB\n", "VmRSS"), None);
    }

    /// Memory touched after the start shows in the growth; on a system without the reset
    /// there is no figure at all.
    #[test]
    fn growth_counts_memory_touched_after_the_start() {
        let Some(footprint) = Footprint::start() else {
            eprintln!("no /proc/self/clear_refs reset here: the footprint column stays empty");
            return;
        };
        let mut block = vec![0u8; 128 << 20];
        // Touch every page so that it is resident.
        for i in (0..block.len()).step_by(4096) {
            block[i] = 1;
        }
        std::hint::black_box(&block);
        let growth = footprint.peak_growth_kb().expect("status readable");
        // The other tests of this binary run in threads of the same process, and what they
        // free meanwhile was counted in the start's resident set: a 64 MiB block once grew
        // the mark by only 57 MiB (a CI run). A quarter of the block is left for that; a
        // growth that missed the block would be far below.
        assert!(growth >= 96 << 10, "128 MiB touched, growth {growth} kB");
        drop(block);
    }
}
