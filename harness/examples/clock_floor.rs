//! The clock's floor: what an A/A ratio reads on this machine when the two sides are not
//! engines but one fixed, deterministic piece of work, timed as `dredbench` times a batch
//! (`Instant` around one call, in a shuffled order among other work that sweeps the caches as
//! `recompute` does). If the per-batch spread of this ratio is as wide as that of
//! `dred@2 / dred`, the spread is the machine's and the harness's, not the engines'.
//!
//! ```sh
//! cargo run --release -p harness --example clock_floor -- [--flush] [BATCHES] [WORK_KIB[/STEPS] ...]
//! ```
//!
//! For each working-set size (KiB; default 4, 64, 1024: batches of about 1, 20 and 300 µs),
//! two separate buffers of that size (sides A and B) are each walked by the same
//! pseudo-random chain of reads and writes; a third side, C, writes through 64 MiB (the
//! sweep of a `recompute`). Per batch the three run in a random order (a seeded permutation,
//! as `--order shuffle`), and the ratio B / A is recorded. Prints, per size, the median time
//! of A and the median, p10 and p90 (nearest rank) of B / A.
//!
//! `--flush` (first) sweeps the 64 MiB before each timed side too, so that every timed call
//! starts as cold as every other, whatever the order.
//!
//! `KIB/STEPS` walks only `STEPS` steps a batch, from a start drawn per batch (the same for
//! A and B): a batch then reads lines it has not read lately, as an engine's batch over a
//! model larger than the core's private cache does. Without it every batch walks the whole
//! buffer twice, which keeps a buffer of up to the L2's size resident.

use std::hint::black_box;

use harness::datasets::rng::SplitMix64;
use std::time::Instant;

/// A buffer of `kib` KiB walked by a fixed chain of dependent reads and writes (one step per
/// 64-byte line, the next index drawn from the value read, so the work cannot be skipped).
struct Work {
    buf: Vec<u64>,
    /// Steps a batch; `None`: as many as the buffer has cache lines, twice, from index 0.
    steps: Option<usize>,
}

impl Work {
    fn new(kib: usize, steps: Option<usize>) -> Self {
        let n = (kib * 1024 / 8).max(8);
        let buf = (0..n as u64)
            .map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15))
            .collect();
        Work { buf, steps }
    }

    /// Walks the buffer from `start`: `steps` steps, or as many as it has cache lines, twice.
    fn run(&mut self, start: u64) -> u64 {
        let n = self.buf.len();
        let (mut i, steps) = match self.steps {
            Some(steps) => (start as usize % n, steps),
            None => (0, 2 * (n / 8)),
        };
        let mut acc = 0u64;
        for _ in 0..steps {
            let v = self.buf[i];
            acc = acc.wrapping_add(v);
            self.buf[i] = v.rotate_left(7) ^ acc;
            i = (v as usize ^ (acc as usize >> 3)) % n;
        }
        acc
    }
}

/// Writes one word of every cache line of `sweep`, as a `recompute` between two timed calls
/// would.
fn sweep_through(sweep: &mut [u64]) {
    for x in sweep.iter_mut().step_by(8) {
        *x = x.wrapping_add(1);
    }
    black_box(&sweep);
}

fn rank(v: &[f64], q: f64) -> f64 {
    let k = ((q * v.len() as f64).ceil() as usize).clamp(1, v.len());
    v[k - 1]
}

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let flush = args.first().is_some_and(|a| a == "--flush");
    if flush {
        args.remove(0);
    }
    let batches: usize = args.first().and_then(|a| a.parse().ok()).unwrap_or(200);
    let sizes: Vec<(usize, Option<usize>)> = if args.len() > 1 {
        args[1..]
            .iter()
            .filter_map(|a| match a.split_once('/') {
                Some((kib, steps)) => Some((kib.parse().ok()?, Some(steps.parse().ok()?))),
                None => Some((a.parse().ok()?, None)),
            })
            .collect()
    } else {
        vec![(4, None), (64, None), (1024, None)]
    };
    println!("| working set | batches | A µs (median) | B / A median | p10 | p90 |");
    println!("|---:|---:|---:|---:|---:|---:|");
    for (kib, steps) in sizes {
        let (mut a, mut b) = (Work::new(kib, steps), Work::new(kib, steps));
        let mut sweep = vec![0u64; 64 * 1024 * 1024 / 8];
        let mut rng = SplitMix64::new(0x5EED_u64 ^ kib as u64);
        let mut times_a = Vec::with_capacity(batches);
        let mut ratios = Vec::with_capacity(batches);
        for _ in 0..batches {
            let from = rng.next_u64();
            let mut order = [0usize, 1, 2];
            for i in (1..order.len()).rev() {
                let j = (rng.next_u64() % (i as u64 + 1)) as usize;
                order.swap(i, j);
            }
            let mut t = [0u64; 2];
            for side in order {
                match side {
                    0 | 1 => {
                        let w = if side == 0 { &mut a } else { &mut b };
                        if flush {
                            sweep_through(&mut sweep);
                        }
                        let start = Instant::now();
                        black_box(w.run(from));
                        t[side] = start.elapsed().as_nanos() as u64;
                    }
                    _ => sweep_through(&mut sweep),
                }
            }
            times_a.push(t[0] as f64 / 1e3);
            ratios.push(t[1].max(1) as f64 / t[0].max(1) as f64);
        }
        times_a.sort_by(f64::total_cmp);
        ratios.sort_by(f64::total_cmp);
        let label = match steps {
            Some(steps) => format!("{kib} KiB, {steps} steps"),
            None => format!("{kib} KiB"),
        };
        println!(
            "| {label} | {batches} | {:.1} | {:.2} | {:.2} | {:.2} |",
            rank(&times_a, 0.5),
            rank(&ratios, 0.5),
            rank(&ratios, 0.1),
            rank(&ratios, 0.9)
        );
    }
}
