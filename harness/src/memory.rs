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
//!
//! The resident set also holds what the allocator keeps: freed blocks it has not returned,
//! the holes between blocks still in use. How much depends on the process's history, so a
//! case's figure moved with the cases run before it in the same sweep (`dd` on WordNet's
//! reachability: 7.2 MB after the closure's case, 12.2 MB in a fresh process). The
//! harness's allocator ([`CountingAllocator`]) therefore also counts the bytes the process
//! holds in live blocks, and [`Footprint::peak_heap_growth_kb`] is the growth of their peak:
//! what the engines' structures and scratch asked for, whatever the allocator made of it.

use std::alloc::{GlobalAlloc, Layout, System};
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

/// Bytes in live heap blocks of the whole process (every thread), as requested.
static LIVE: AtomicUsize = AtomicUsize::new(0);
/// The most [`LIVE`] has been since [`Footprint::start`] (or the process's start).
static PEAK: AtomicUsize = AtomicUsize::new(0);
/// Blocks handed out (`alloc`, `alloc_zeroed`) since the process's start.
static BLOCKS: AtomicUsize = AtomicUsize::new(0);

/// The system allocator, counting the bytes of live blocks and their peak. It is the
/// allocator of every binary linking the harness (`dredbench`, its tests and examples).
/// A block grown or shrunk in place or moved (`realloc`) counts its new size from then on:
/// the moment both copies exist is the allocator's own business, as its free lists are.
#[derive(Debug)]
pub struct CountingAllocator;

#[inline]
fn grew(bytes: usize) {
    let now = LIVE.fetch_add(bytes, Relaxed) + bytes;
    // The peak changes rarely: a read first keeps the common case to one atomic add.
    if now > PEAK.load(Relaxed) {
        PEAK.fetch_max(now, Relaxed);
    }
}

#[inline]
fn shrank(bytes: usize) {
    LIVE.fetch_sub(bytes, Relaxed);
}

// SAFETY: every call is forwarded unchanged to `System`, which upholds `GlobalAlloc`'s
// contract; the counters are only updated with the sizes of blocks `System` handed out
// (never for a null result), and they are never used to allocate or free anything.
#[allow(unsafe_code)]
unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let block = System.alloc(layout);
        if !block.is_null() {
            BLOCKS.fetch_add(1, Relaxed);
            grew(layout.size());
        }
        block
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let block = System.alloc_zeroed(layout);
        if !block.is_null() {
            BLOCKS.fetch_add(1, Relaxed);
            grew(layout.size());
        }
        block
    }

    unsafe fn dealloc(&self, block: *mut u8, layout: Layout) {
        System.dealloc(block, layout);
        shrank(layout.size());
    }

    unsafe fn realloc(&self, block: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let moved = System.realloc(block, layout, new_size);
        if !moved.is_null() {
            if new_size >= layout.size() {
                grew(new_size - layout.size());
            } else {
                shrank(layout.size() - new_size);
            }
        }
        moved
    }
}

#[global_allocator]
static ALLOCATOR: CountingAllocator = CountingAllocator;

/// Bytes the process holds in live heap blocks now.
pub fn live_heap_bytes() -> usize {
    LIVE.load(Relaxed)
}

/// Heap blocks handed out since the process started, by every thread (a `realloc` is not
/// counted). The difference across a call is what it allocated, on one thread.
pub fn blocks_allocated() -> usize {
    BLOCKS.load(Relaxed)
}

/// The resident set when a case's engines were about to be built, with the process's
/// high-water mark reset to it.
#[derive(Clone, Copy, Debug)]
pub struct Footprint {
    /// The resident set at the start, where its high-water mark was reset to; `None`
    /// without the reset.
    base_kb: Option<u64>,
    /// Live heap bytes at the start, where the heap's peak was reset to.
    base_heap: usize,
}

impl Footprint {
    /// Resets the process's peak resident set to the current one and remembers it, and the
    /// peak of the live heap bytes to the live bytes. Where `/proc/self/clear_refs` or
    /// `/proc/self/status` cannot be used (not Linux, or a kernel without the reset) there
    /// is no resident-set figure rather than one that counts earlier peaks; the heap's is
    /// kept everywhere.
    pub fn start() -> Self {
        release_free_memory();
        let base_heap = LIVE.load(Relaxed);
        PEAK.store(base_heap, Relaxed);
        Footprint {
            base_kb: reset_resident_peak(),
            base_heap,
        }
    }

    /// kB by which the process's peak resident set has grown since [`Footprint::start`].
    pub fn peak_growth_kb(&self) -> Option<u64> {
        let status = std::fs::read_to_string(Path::new("/proc/self/status")).ok()?;
        Some(status_kb(&status, "VmHWM")?.saturating_sub(self.base_kb?))
    }

    /// kB by which the peak of the bytes in live heap blocks has grown since
    /// [`Footprint::start`]: what the case's engines (and the harness's per-batch scratch)
    /// asked the allocator for at their worst moment, independent of how much of it the
    /// allocator keeps resident, and so of the cases run before in the process.
    pub fn peak_heap_growth_kb(&self) -> u64 {
        (PEAK.load(Relaxed).saturating_sub(self.base_heap) / 1024) as u64
    }
}

/// Resets the process's high-water mark of its resident set to the current resident set
/// and returns that, in kB; `None` where it cannot.
fn reset_resident_peak() -> Option<u64> {
    std::fs::write("/proc/self/clear_refs", "5").ok()?;
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let rss = status_kb(&status, "VmRSS")?;
    let hwm = status_kb(&status, "VmHWM")?;
    // After a reset the mark is the current resident set (give or take pages touched
    // between the two reads); a mark still far above it means the reset did nothing.
    (hwm <= rss + 1024).then_some(rss)
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
    /// The figures are process-wide and [`Footprint::start`] resets them: the tests that
    /// read them take turns.
    static TURN: std::sync::Mutex<()> = std::sync::Mutex::new(());

    #[test]
    fn heap_growth_counts_blocks_held_since_the_start_whether_touched_or_not() {
        let _turn = TURN.lock().unwrap_or_else(|e| e.into_inner());
        let footprint = Footprint::start();
        // Never written, so never resident: the resident set would not see it.
        let block: Vec<u8> = Vec::with_capacity(64 << 20);
        std::hint::black_box(&block);
        drop(block);
        let growth = footprint.peak_heap_growth_kb();
        // Other tests of this binary allocate and free meanwhile; a growth that missed the
        // block would be far below.
        assert!(growth >= 48 << 10, "64 MiB held, heap growth {growth} kB");
        let again = Footprint::start();
        assert!(
            again.peak_heap_growth_kb() < 48 << 10,
            "a start forgets the peak before it: {} kB",
            again.peak_heap_growth_kb()
        );
    }

    #[test]
    fn growth_counts_memory_touched_after_the_start() {
        let _turn = TURN.lock().unwrap_or_else(|e| e.into_inner());
        let footprint = Footprint::start();
        if footprint.base_kb.is_none() {
            eprintln!("no /proc/self/clear_refs reset here: the footprint column stays empty");
            return;
        }
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
