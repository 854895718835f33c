//! Compacting a relation whose tombstones outnumber its live rows, as `Store::compact` does
//! after a batch: 140,000 rows of two columns over 9,000 symbols with an index on each
//! column (the shape of `path` on GO MF's TC), every other row removed. Each iteration
//! compacts a fresh relation, built outside the timed part.
//!
//! Session 48: 8.2 ms before (a sort of each index's key values to size its array, a vector
//! per live row), 3.4 ms after (criterion's medians, one after the other on this machine); in
//! `dredbench` on GO MF's TC with 1,000 edges deleted, 6.8–7.5 ms before, 2.8–4.0 ms after.

use criterion::{criterion_group, criterion_main, BatchSize, Criterion};
use dred_core::storage::Relation;

fn splitmix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

fn bench(c: &mut Criterion) {
    const ROWS: usize = 140_000;
    let mut state = 1u64;
    let flat: Vec<i64> = (0..2 * ROWS)
        .map(|_| (splitmix(&mut state) % 9_000) as i64)
        .collect();
    // Built as the engine builds it, by insertion (a clone's allocations are laid out
    // otherwise, and compacting one measured 5.7 against 2.9 ms).
    let half_dead = || {
        let mut r = Relation::new(2);
        r.ensure_index(&[0]);
        r.ensure_index(&[1]);
        r.insert_flat(&flat, ROWS as u64);
        for row in (0..r.end()).step_by(2) {
            r.remove_id(row);
        }
        r
    };
    let live = half_dead().len();
    c.bench_function("compact_half_dead_two_indexes", |b| {
        b.iter_batched_ref(
            half_dead,
            |r| {
                assert!(r.compact());
                assert_eq!(r.len(), live);
            },
            BatchSize::LargeInput,
        )
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
