//! Tests of [`Relation`]: set semantics, tombstones and their revival, batches of insertions
//! against insertions one by one, the dense map and dense indexes turning on and off, each
//! checked against [`Relation::check_invariants`].

use super::*;

#[test]
fn set_semantics_and_indexes() {
    let mut r = Relation::new(2);
    let by_first = r.ensure_index(&[0]);
    assert!(r.insert(&[1, 2]));
    assert!(r.insert(&[1, 3]));
    assert!(!r.insert(&[1, 2]));
    assert!(r.insert(&[2, 3]));
    let by_second = r.ensure_index(&[1]);
    assert_eq!(r.lookup(by_first, &[1]), &[0, 1]);
    assert_eq!(r.lookup(by_second, &[3]), &[1, 2]);
    assert_eq!(r.lookup(by_second, &[9]), &[] as &[RowId]);
    assert!(r.contains(&[2, 3]) && !r.contains(&[3, 2]));
    r.check_invariants();
    r.clear();
    assert!(r.is_empty() && r.lookup(by_first, &[1]).is_empty());
    r.check_invariants();
}

#[test]
fn zero_arity() {
    let mut r = Relation::new(0);
    let ix = r.ensure_index(&[]);
    assert!(!r.contains(&[]));
    assert!(r.insert(&[]));
    assert!(!r.insert(&[]));
    assert!(r.contains(&[]));
    assert_eq!(r.lookup(ix, &[]), &[0]);
    r.check_invariants();
}

#[test]
#[should_panic(expected = "is not live")]
fn remove_id_of_a_tombstone_panics() {
    let mut r = Relation::new(1);
    r.insert(&[7]);
    r.remove_id(0);
    r.remove_id(0);
}

#[test]
fn remove_revive_reinsert_compact() {
    let mut r = Relation::new(2);
    let ix = r.ensure_index(&[0]);
    for i in 0..10 {
        r.insert(&[i % 3, i]);
    }
    assert_eq!(r.remove(&[1, 4]), Some(4));
    assert_eq!(r.remove(&[1, 4]), None);
    assert!(!r.contains(&[1, 4]) && r.len() == 9 && r.end() == 10);
    r.check_invariants();
    // The index still lists the tombstone; readers skip it.
    assert!(r.lookup(ix, &[1]).contains(&4) && !r.is_live(4));
    r.revive(4);
    assert!(r.contains(&[1, 4]) && r.len() == 10);
    r.remove(&[1, 4]);
    // Inserting the same values appends a new row.
    assert!(r.insert(&[1, 4]));
    assert_eq!(r.row_id(&[1, 4]), Some(10));
    r.remove_id(0);
    assert!(!r.contains(&[0, 0]) && r.find_row(&[0, 0]) == Some(0));
    r.check_invariants();
    assert!(r.compact());
    assert_eq!((r.len(), r.end(), r.dead_count()), (9, 9, 0));
    assert!(r.contains(&[1, 4]) && !r.contains(&[0, 0]));
    assert_eq!(r.lookup(ix, &[1]).len(), 3);
    r.check_invariants();

    // Rows appended after a tombstone, far past the bitset's end.
    for i in 100..300 {
        r.insert(&[i, i]);
    }
    r.remove(&[100, 100]);
    for i in 300..500 {
        r.insert(&[i, i]);
    }
    assert!(r.is_live(r.end() - 1) && r.contains(&[499, 499]));
    r.check_invariants();

    let mut z = Relation::new(0);
    z.insert(&[]);
    assert_eq!(z.remove(&[]), Some(0));
    assert!(!z.contains(&[]));
    assert!(z.insert(&[]));
    assert_eq!(z.row_id(&[]), Some(1));
    z.check_invariants();
}

/// A batch insert returns and stores what one-by-one inserts do: the same flags, row ids,
/// groups (ascending) and superseded tombstones, duplicates within the batch included —
/// for a batch smaller than the relation, and for bulk loads (sized at once) into it and
/// into an empty relation.
#[test]
fn insert_batch_equals_inserts_in_order() {
    let small: Vec<[Value; 2]> = (150..400)
        .map(|i| [i % 17, i % 260])
        .chain([[5, 5], [5, 5]])
        .collect();
    let bulk: Vec<[Value; 2]> = (0..5000)
        .map(|i| [i % 17, i % 3100])
        .chain([[5, 5], [5, 5]])
        .collect();
    for (rows, prefilled) in [(&small, true), (&bulk, true), (&bulk, false)] {
        insert_batch_case(rows, prefilled);
    }
}

fn insert_batch_case(rows: &[[Value; 2]], prefilled: bool) {
    let build = || {
        let mut r = Relation::new(2);
        r.ensure_index(&[0]);
        r.ensure_index(&[1, 0]);
        r.ensure_index(&[]);
        if prefilled {
            for i in 0..200 {
                r.insert(&[i % 13, i]);
            }
            r.remove(&[5, 5]);
        }
        r
    };
    let refs: Vec<&[Value]> = rows.iter().map(|r| &r[..]).collect();
    let mut one_by_one = build();
    let expected: Vec<bool> = refs.iter().map(|r| one_by_one.insert(r)).collect();
    let mut batched = build();
    let got: Vec<bool> = batched
        .insert_batch(&refs, false)
        .into_iter()
        .map(Insertion::is_new)
        .collect();
    assert_eq!(got, expected);
    batched.check_invariants();
    assert_eq!(
        (batched.len(), batched.end()),
        (one_by_one.len(), one_by_one.end())
    );
    for r in 0..batched.end() {
        assert_eq!(batched.row(r), one_by_one.row(r));
        assert_eq!(batched.is_live(r), one_by_one.is_live(r));
    }
    for key in 0..17 {
        assert_eq!(batched.lookup(0, &[key]), one_by_one.lookup(0, &[key]));
    }
    assert_eq!(batched.lookup(2, &[]), one_by_one.lookup(2, &[]));
    // An iterator whose size hint says nothing (a filter: lower bound 0) is never taken
    // for a bulk load, and inserts the same rows with the same ids.
    let mut filtered = build();
    let mut got = Vec::new();
    filtered.insert_batch_with(refs.iter().filter(|_| true), false, |_, o| {
        got.push(o.is_new())
    });
    assert_eq!(got, expected);
    filtered.check_invariants();
    for r in 0..filtered.end() {
        assert_eq!(filtered.row(r), one_by_one.row(r));
    }
    for key in 0..17 {
        assert_eq!(filtered.lookup(0, &[key]), one_by_one.lookup(0, &[key]));
    }
}

/// With `revive`, tombstones come back under their old ids (first copy in the batch
/// only), new values are appended, and the live rows are those of one-by-one inserts.
#[test]
fn insert_batch_revives_tombstones() {
    for indexed in [true, false] {
        let mut r = Relation::new(2);
        if indexed {
            r.ensure_index(&[1]);
        }
        for i in 0..100 {
            r.insert(&[i, i % 7]);
        }
        let gone: Vec<RowId> = [3, 50, 99]
            .iter()
            .map(|&i| r.remove(&[i, i % 7]).expect("present"))
            .collect();
        let end = r.end();
        let rows = [[50, 1], [3, 3], [200, 4], [3, 3], [10, 3]];
        let refs: Vec<&[Value]> = rows.iter().map(|r| &r[..]).collect();
        let got = r.insert_batch(&refs, true);
        assert_eq!(
            got,
            vec![
                Insertion::Revived(gone[1]),
                Insertion::Revived(gone[0]),
                Insertion::Appended,
                Insertion::Present,
                Insertion::Present,
            ]
        );
        r.check_invariants();
        assert_eq!((r.end(), r.len()), (end + 1, 100));
        assert!(r.contains(&[50, 1]) && r.contains(&[3, 3]) && !r.contains(&[99, 1]));
        if indexed {
            assert!(r.lookup(0, &[1]).contains(&gone[1]));
            assert_eq!(r.lookup(0, &[4]).last(), Some(&end));
        }
    }
}

/// A one-column relation answers by its dense map while values fit, and by its set table
/// once one does not (a large or a negative value): the same answers as a model of
/// newest-row-per-value, through insertions, tombstones, superseding copies, revival,
/// compaction and clearing.
#[test]
fn unary_relation_with_and_without_the_dense_map() {
    for breaker in [None, Some(1i64 << 40), Some(-3), Some(1 << 21)] {
        let mut rel = Relation::new(1);
        let mut newest: std::collections::HashMap<Value, RowId> = Default::default();
        let mut live: std::collections::HashSet<Value> = Default::default();
        let check = |rel: &Relation,
                     newest: &std::collections::HashMap<Value, RowId>,
                     live: &std::collections::HashSet<Value>| {
            rel.check_invariants();
            for v in -5..300 {
                // The hint takes any value (negative, beyond the map, absent).
                rel.prefetch_row(rel.lookup_hash(&[v]), &[v]);
                assert_eq!(rel.find_row(&[v]), newest.get(&v).copied(), "value {v}");
                assert_eq!(rel.contains(&[v]), live.contains(&v), "value {v}");
            }
            assert_eq!(rel.len(), live.len());
        };
        for v in (0..200).step_by(3) {
            let r = rel.end();
            assert!(rel.insert(&[v]));
            newest.insert(v, r);
            live.insert(v);
            assert!(!rel.insert(&[v]), "present");
        }
        check(&rel, &newest, &live);
        assert!(rel.dense.is_some());
        for v in (0..200).step_by(6) {
            assert!(rel.remove(&[v]).is_some());
            live.remove(&v);
        }
        check(&rel, &newest, &live);
        if let Some(b) = breaker {
            let r = rel.end();
            assert!(rel.insert(&[b]));
            newest.insert(b, r);
            live.insert(b);
            assert!(rel.dense.is_none(), "{b} turns the map off");
            assert_eq!(rel.find_row(&[b]), Some(r));
        }
        // Tombstones superseded by a new copy, and revived in place.
        for v in (0..100).step_by(6) {
            let r = rel.end();
            assert!(rel.insert(&[v]));
            newest.insert(v, r);
            live.insert(v);
        }
        let back: Vec<Vec<Value>> = (102..200).step_by(6).map(|v| vec![v]).collect();
        let refs: Vec<&[Value]> = back.iter().map(|v| &v[..]).collect();
        for (row, outcome) in refs.iter().zip(rel.insert_batch(&refs, true)) {
            assert_eq!(outcome, Insertion::Revived(newest[&row[0]]));
            live.insert(row[0]);
        }
        let fresh: Vec<Vec<Value>> = (250..260).map(|v| vec![v]).collect();
        let refs: Vec<&[Value]> = fresh.iter().map(|v| &v[..]).collect();
        for (row, outcome) in refs.iter().zip(rel.insert_batch(&refs, false)) {
            assert_eq!(outcome, Insertion::Appended);
            live.insert(row[0]);
        }
        // The newest copy of each value, from the rows themselves.
        newest = (0..rel.end()).map(|r| (rel.row(r)[0], r)).collect();
        check(&rel, &newest, &live);
        assert!(rel.compact() || rel.dead_count() == 0);
        newest = (0..rel.end()).map(|r| (rel.row(r)[0], r)).collect();
        check(&rel, &newest, &live);
        assert_eq!(
            rel.dense.is_some(),
            breaker.is_none(),
            "compaction rebuilds"
        );
        rel.clear();
        assert!(rel.dense.is_some(), "an empty relation starts with the map");
        check(&rel, &Default::default(), &Default::default());
    }
}

/// One-column indexes against a model of their groups while they are dense, turned
/// hashed by a negative or a far value, and dense again once the values fill in; row by
/// row and in bulk loads; through pool compactions, compaction and clearing.
#[test]
fn one_column_index_dense_hashed_and_back() {
    struct Case {
        rel: Relation,
        groups: std::collections::BTreeMap<Value, Vec<RowId>>,
    }
    impl Case {
        fn insert(&mut self, rows: &[[Value; 2]], bulk: bool) {
            let refs: Vec<&[Value]> = rows.iter().map(|r| &r[..]).collect();
            let before = self.rel.end();
            if bulk {
                self.rel.insert_batch(&refs, false);
            } else {
                for row in &refs {
                    self.rel.insert(row);
                }
            }
            for r in before..self.rel.end() {
                let v = self.rel.row(r)[0];
                self.groups.entry(v).or_default().push(r);
            }
        }
        fn check(&self, probe: impl Iterator<Item = Value>) {
            self.rel.check_invariants();
            for (v, rows) in &self.groups {
                assert_eq!(self.rel.lookup(0, &[*v]), &rows[..], "group of {v}");
            }
            for v in probe {
                let want = self.groups.get(&v).map_or(&[][..], |g| &g[..]);
                // The hints take any value (negative, beyond the array, no group).
                self.rel.prefetch_group(0, &[v]);
                assert_eq!(self.rel.lookup(0, &[v]), want, "value {v}");
            }
        }
        fn dense(&self) -> bool {
            self.rel.indexes[0].dense.is_some()
        }
    }
    let new_case = || {
        let mut rel = Relation::new(2);
        rel.ensure_index(&[0]);
        rel.ensure_index(&[1]);
        Case {
            rel,
            groups: Default::default(),
        }
    };
    for bulk in [false, true] {
        // Groups of 20 rows grown round-robin: middling groups move in the pool and
        // compact it, inside the dense array.
        let mut c = new_case();
        let rows: Vec<[Value; 2]> = (0..60_000).map(|i| [i % 3000, i]).collect();
        for chunk in rows.chunks(if bulk { 20_000 } else { 60_000 }) {
            c.insert(chunk, bulk);
        }
        assert!(c.dense(), "small values stay dense");
        c.check(-3..3100);

        // A negative value turns it hashed for good; a far one too, until the values
        // in between are filled in.
        for (breaker, back) in [(-7, false), (100_000, true), (1 << 40, false)] {
            let mut c = new_case();
            c.insert(&[[1, 1], [2, 2], [breaker, 3], [2, 4]], bulk);
            assert!(!c.dense(), "{breaker} turns the index hashed");
            c.check([-7, 0, 1, 2, 3, 100_000, 1 << 40].into_iter());
            let fill: Vec<[Value; 2]> = (0..110_000).map(|i| [i, i % 5]).collect();
            for chunk in fill.chunks(7_000) {
                c.insert(chunk, bulk);
            }
            assert_eq!(c.dense(), back, "dense again after {breaker}: {back}");
            c.check((-10..10).chain(109_990..110_010).chain([100_000, 1 << 40]));
            // Compaction and clearing start dense again, and turn hashed the same way.
            c.rel.remove(&[2, 2]);
            c.rel.compact();
            c.groups.clear();
            for r in 0..c.rel.end() {
                c.groups.entry(c.rel.row(r)[0]).or_default().push(r);
            }
            assert_eq!(c.dense(), breaker != 1 << 40 && breaker >= 0);
            c.check(-10..10);
            c.rel.clear();
            c.groups.clear();
            assert!(c.dense(), "an empty index starts dense");
            c.check(-3..3);
            c.insert(&[[4, 1], [breaker, 2]], bulk);
            // The array is kept through clearing, and covers 100,000 still.
            assert_eq!(c.dense(), back);
            c.check([-7, 4, 100_000].into_iter());
        }
    }
}

#[test]
fn many_rows_keep_invariants() {
    let mut r = Relation::new(3);
    r.ensure_index(&[2, 0]);
    for i in 0..5000i64 {
        r.insert(&[i % 17, i % 5, i % 13]);
    }
    assert_eq!(r.len(), 17 * 5 * 13);
    r.check_invariants();
}

/// Compaction of a relation large enough for bulk index building leaves exactly what
/// inserting its live rows one by one into an empty relation with the same index does: the
/// same rows under the same ids, the same index groups.
#[test]
fn compaction_equals_inserting_the_live_rows_one_by_one() {
    let mut rel = Relation::new(2);
    let by_second = rel.ensure_index(&[1]);
    for i in 0..6_000i64 {
        assert!(rel.insert(&[i, i % 97]));
    }
    for i in (0..6_000i64).filter(|i| i % 3 != 0) {
        assert!(rel.remove(&[i, i % 97]).is_some());
    }
    let live: Vec<Vec<Value>> = (0..rel.end())
        .filter(|&r| rel.is_live(r))
        .map(|r| rel.row(r).to_vec())
        .collect();
    assert!(rel.compact());
    rel.check_invariants();
    let mut one_by_one = Relation::new(2);
    let index = one_by_one.ensure_index(&[1]);
    for row in &live {
        assert!(one_by_one.insert(row));
    }
    assert_eq!(rel.end(), one_by_one.end());
    assert_eq!(rel.dead_count(), 0);
    for r in 0..rel.end() {
        assert_eq!(rel.row(r), one_by_one.row(r), "row {r}");
    }
    for key in 0..97i64 {
        assert_eq!(
            rel.lookup(by_second, &[key]),
            one_by_one.lookup(index, &[key])
        );
    }
}

#[test]
fn make_live_keeps_a_row_id_through_tombstones() {
    for arity in [0, 1, 2] {
        let mut r = Relation::new(arity);
        let ix = r.ensure_index(&[]);
        let row: Vec<Value> = (0..arity as Value).map(|v| v + 7).collect();
        let id = r.make_live(&row);
        assert_eq!(r.make_live(&row), id, "a live row is left as it is");
        r.remove_id(id);
        assert!(!r.contains(&row));
        assert_eq!(r.make_live(&row), id, "a tombstone comes back under its id");
        assert!(r.is_live(id) && r.contains(&row));
        assert_eq!((r.end(), r.dead_count()), (1, 0), "no copy appended");
        assert_eq!(r.lookup(ix, &[]), &[id]);
        if arity > 0 {
            let other: Vec<Value> = vec![1; arity];
            assert_eq!(r.make_live(&other), id + 1, "new values are appended");
            assert_eq!(r.find_row(&other), Some(id + 1));
        }
        r.check_invariants();
    }
}

#[test]
fn heap_bytes_counts_each_structure() {
    let mut rel = Relation::new(2);
    assert_eq!(rel.heap_bytes().total(), 0);
    let by_target = rel.ensure_index(&[1]);
    for i in 0..1_000 {
        rel.insert(&[i, 1_000_000 + i % 7]);
    }
    let bytes = rel.heap_bytes();
    assert!(bytes.rows >= 1_000 * 2 * 8, "{bytes:?}");
    assert!(bytes.set >= 1_000 * 8, "{bytes:?}");
    assert_eq!(bytes.indexes.len(), 1);
    assert_eq!(bytes.indexes[0].0, vec![1]);
    // Seven groups of about 143 rows: each group's ids, 4 bytes a row, outside the table.
    assert!(bytes.indexes[0].1 >= 1_000 * 4, "{bytes:?}");
    assert_eq!(
        bytes.total(),
        bytes.rows + bytes.set + bytes.tombstones + bytes.index_bytes()
    );
    assert_eq!(rel.lookup(by_target, &[1_000_003]).len(), 143);
    rel.remove(&[0, 1_000_000]);
    assert!(rel.heap_bytes().tombstones >= 8);
}

/// A deferred index is left as it is while rows come (one by one, revived, in a batch, flat),
/// refuses lookups, and once built equals an index kept up to date all along.
#[test]
fn deferred_indexes_built_later_equal_indexes_kept_up_to_date() {
    // Keys that keep one index dense and send the other's groups to the hashed table.
    let rows: Vec<[Value; 2]> = (0..3000).map(|i| [i % 37, -(i % 101) - 5]).collect();
    for prefilled in [0, 10, 2000] {
        let mut kept = Relation::new(2);
        let mut deferred = Relation::new(2);
        for r in [&mut kept, &mut deferred] {
            r.ensure_index(&[0]);
            r.ensure_index(&[1, 0]);
            for row in &rows[..prefilled] {
                r.insert(row);
            }
        }
        deferred.defer_index(0);
        deferred.defer_index(1);
        assert!(deferred.is_deferred(0) && deferred.is_deferred(1));
        deferred.check_invariants();
        for r in [&mut kept, &mut deferred] {
            let rest = &rows[prefilled..];
            let (one, more) = rest.split_at(rest.len() / 3);
            for row in one {
                r.insert(row);
            }
            r.remove(&rows[prefilled.max(1) - 1]);
            r.make_live(&rows[prefilled.max(1) - 1]);
            let batch: Vec<&[Value]> = more.iter().map(|x| &x[..]).collect();
            r.insert_batch(&batch, true);
        }
        deferred.check_invariants();
        deferred.build_deferred();
        assert!(!deferred.is_deferred(0) && !deferred.is_deferred(1));
        deferred.check_invariants();
        for row in &rows {
            assert_eq!(kept.lookup(0, &row[..1]), deferred.lookup(0, &row[..1]));
            let key = [row[1], row[0]];
            assert_eq!(kept.lookup(1, &key), deferred.lookup(1, &key));
        }
    }
}

#[test]
#[should_panic(expected = "lookup of a deferred index")]
fn lookup_of_a_deferred_index_panics() {
    let mut r = Relation::new(2);
    let ix = r.ensure_index(&[0]);
    r.insert(&[1, 2]);
    r.defer_index(ix);
    r.lookup(ix, &[1]);
}

/// Clearing or compacting a relation leaves its indexes up to date, deferred or not.
#[test]
fn clear_and_compact_end_a_deferral() {
    let mut r = Relation::new(2);
    let ix = r.ensure_index(&[1]);
    r.defer_index(ix);
    for i in 0..3000 {
        r.insert(&[i, i % 7]);
    }
    for i in 0..2000 {
        r.remove(&[i, i % 7]);
    }
    assert!(r.compact());
    assert!(!r.is_deferred(ix));
    assert_eq!(r.lookup(ix, &[3]).len(), 1000 / 7 + 1);
    r.check_invariants();
    r.defer_index(ix);
    r.clear();
    assert!(!r.is_deferred(ix));
    r.insert(&[1, 3]);
    assert_eq!(r.lookup(ix, &[3]), &[0]);
}

/// The same random operations on a relation that finds rows through its indexes and on one
/// with the set table: every outcome, row id and row equal, the invariants held, the set
/// table empty while the indexes serve.
#[test]
fn finding_rows_through_the_indexes_equals_the_set_table() {
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move |n: u64| {
        seed = seed.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = seed;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        (z ^ (z >> 31)) % n
    };
    for (arity, keys) in [
        (2, vec![vec![0], vec![1]]),
        (3, vec![vec![2, 0]]),
        (2, vec![vec![1, 0]]),
    ] {
        let (mut by_set, mut by_ix) = (Relation::new(arity), Relation::new(arity));
        for cols in &keys {
            by_set.ensure_index(cols);
            by_ix.ensure_index(cols);
        }
        assert!(by_ix.find_by_indexes());
        // Values below 600: groups of a few rows (in the smallest index), none past LONG_GROUP.
        let row = |next: &mut dyn FnMut(u64) -> u64| -> Vec<Value> {
            (0..arity).map(|_| next(600) as Value).collect()
        };
        if keys == [vec![0], vec![1]] {
            // A bulk load into the empty relations first (duplicates among it), of 4 rows
            // for every 3 first values: their groups fit their entries.
            let load: Vec<Vec<Value>> = (0..2_000)
                .map(|i| vec![i % 1_500, next(600) as Value])
                .collect();
            let refs: Vec<&[Value]> = load.iter().map(Vec::as_slice).collect();
            assert_eq!(
                by_set.insert_batch(&refs, false),
                by_ix.insert_batch(&refs, false)
            );
            assert!(by_ix.by_indexes && by_ix.heap_bytes().set == 0);
            by_ix.check_invariants();
        }
        for step in 0..3_000 {
            // Half the time the values of a row stored (live or not).
            let values = match by_set.end() {
                end if end > 0 && next(2) == 0 => by_set.row(next(end as u64) as RowId).to_vec(),
                _ => row(&mut next),
            };
            match next(7) {
                0 | 1 => assert_eq!(by_set.insert(&values), by_ix.insert(&values)),
                2 => assert_eq!(by_set.remove(&values), by_ix.remove(&values)),
                3 => assert_eq!(by_set.make_live(&values), by_ix.make_live(&values)),
                4 => {
                    let rows: Vec<Vec<Value>> = (0..next(6)).map(|_| row(&mut next)).collect();
                    let revive = next(2) == 0;
                    let refs: Vec<&[Value]> = rows.iter().map(Vec::as_slice).collect();
                    assert_eq!(
                        by_set.insert_batch(&refs, revive),
                        by_ix.insert_batch(&refs, revive)
                    );
                }
                5 => {
                    let flat: Vec<Value> = (0..next(5) as usize * arity)
                        .map(|_| next(600) as Value)
                        .collect();
                    let n = (flat.len() / arity) as u64;
                    assert_eq!(by_set.insert_flat(&flat, n), by_ix.insert_flat(&flat, n));
                }
                _ if step % 50 == 0 => assert_eq!(by_set.compact(), by_ix.compact()),
                _ => assert_eq!(by_set.find_row(&values), by_ix.find_row(&values)),
            }
            assert_eq!(by_set.end(), by_ix.end(), "step {step}");
            assert_eq!(by_set.row_id(&values), by_ix.row_id(&values));
        }
        for r in 0..by_set.end() {
            assert_eq!(by_set.row(r), by_ix.row(r));
            assert_eq!(by_set.is_live(r), by_ix.is_live(r));
        }
        by_set.check_invariants();
        by_ix.check_invariants();
        assert!(by_ix.by_indexes, "no group was long");
        assert_eq!(by_ix.heap_bytes().set, 0);
        assert!(by_set.heap_bytes().set > 0);
    }
}

/// An update that scans a group longer than `LONG_GROUP` brings the set table back, and so
/// does deferring the last index kept; rows stay findable throughout.
#[test]
fn finding_through_long_groups_brings_the_set_table_back() {
    let mut hub = Relation::new(2);
    hub.ensure_index(&[0]);
    assert!(hub.find_by_indexes());
    for i in 0..LONG_GROUP as Value {
        assert!(hub.insert(&[7, i]));
    }
    assert!(hub.by_indexes && hub.contains(&[7, 3]));
    assert!(hub.insert(&[7, 100]), "a scan of the whole group");
    assert!(hub.by_indexes, "the group was not longer than LONG_GROUP");
    assert!(!hub.insert(&[7, 100]));
    assert!(!hub.by_indexes, "a scan past LONG_GROUP");
    assert!(hub.heap_bytes().set > 0 && hub.contains(&[7, 100]) && hub.contains(&[7, 0]));
    hub.check_invariants();

    let mut deferred = Relation::new(2);
    let ix = deferred.ensure_index(&[1]);
    assert!(deferred.find_by_indexes());
    for i in 0..10 {
        deferred.insert(&[i, i + 1]);
    }
    deferred.remove(&[3, 4]);
    deferred.insert(&[3, 4]);
    deferred.defer_index(ix);
    assert!(!deferred.by_indexes, "no index is kept");
    assert_eq!(deferred.find_row(&[3, 4]), Some(10), "the newest copy");
    deferred.check_invariants();
    assert!(!Relation::new(1).find_by_indexes() && !Relation::new(2).find_by_indexes());
}

/// A bulk load into an empty relation keeps the set table when the groups of its rows would
/// not fit their entries (2 rows for every distinct value of each key), and drops it when
/// they would; either way the rows are found.
#[test]
fn a_bulk_load_keeps_the_set_table_where_groups_are_crowded() {
    for (per_key, kept) in [(2, true), (1, false)] {
        let mut rel = Relation::new(2);
        rel.ensure_index(&[0]);
        assert!(rel.find_by_indexes());
        let rows: Vec<Vec<Value>> = (0..3_000).map(|i| vec![i / per_key, i]).collect();
        let refs: Vec<&[Value]> = rows.iter().map(Vec::as_slice).collect();
        assert!(rel.insert_batch(&refs, false).iter().all(|o| o.is_new()));
        assert_eq!(rel.heap_bytes().set > 0, kept, "{per_key} rows a key");
        assert_eq!(rel.by_indexes, !kept);
        assert!(refs.iter().all(|r| rel.contains(r)) && !rel.contains(&[0, 5_000]));
        rel.check_invariants();
    }
}

/// [`dense_span`] decides as sorting the values and counting the distinct ones did: on
/// values below, across and beyond the bounds, with and without groups already held, with
/// many and few repeats, and with a negative value.
#[test]
fn dense_span_decides_as_counting_distinct_values_by_sorting() {
    let by_sorting = |values: &[Value], groups: usize| {
        let mut sorted = values.to_vec();
        sorted.sort_unstable();
        sorted.dedup();
        let bound = DenseGroups::bound(groups + sorted.len());
        match (sorted.first(), sorted.last()) {
            (Some(&lo), Some(&hi)) if lo >= 0 && (hi as usize) < bound => Some(DenseSpan::Fits(hi)),
            (Some(_), _) => Some(DenseSpan::Beyond),
            _ => None,
        }
    };
    let free = DenseGroups::bound(0) as Value;
    let mut state = 7u64;
    let mut next = |m: u64| {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (state >> 33) % m
    };
    let (mut fits, mut beyond, mut counted) = (0, 0, 0);
    for case in 0..600 {
        let n = next(3000) as usize;
        let groups = [0, 100, 9000, 40_000][case % 4];
        // Spans around the free bound and twice the rows, where the distinct count decides.
        let window = (DenseGroups::bound(groups) + n) as Value;
        let span = [free / 2, window, free * 2, (2 * (groups + n)) as Value + 50][case / 4 % 4];
        let repeats = 1 + next(4);
        let mut values: Vec<Value> = (0..n)
            .map(|_| (next(span as u64 / repeats + 1) * repeats) as Value)
            .collect();
        if case % 97 == 0 && !values.is_empty() {
            values[0] = -1;
        }
        let top = values.iter().copied().max().unwrap_or(0) as usize;
        counted +=
            usize::from(top >= DenseGroups::bound(groups) && top < DenseGroups::bound(groups + n));
        let got = dense_span(values.iter().copied(), groups);
        assert_eq!(got, by_sorting(&values, groups), "case {case}");
        match got {
            Some(DenseSpan::Fits(_)) => fits += 1,
            Some(DenseSpan::Beyond) => beyond += 1,
            None => {}
        }
    }
    // Every branch taken, the bitmap's among them.
    assert!(
        fits > 50 && beyond > 50 && counted > 50,
        "{fits} {beyond} {counted}"
    );
}
