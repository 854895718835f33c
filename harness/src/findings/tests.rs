use super::*;
use crate::datasets::workload::WorkloadShape;

fn row(engine: &str, stream: &str, batch: usize, time: u64) -> ReportRow {
    ReportRow {
        dataset: "g".into(),
        program: "tc".into(),
        engine: engine.into(),
        batch,
        stream: stream.into(),
        kind: "delete".into(),
        size: Some(1),
        time_ns: time * 1000,
        git_rev: "abc".into(),
        ..ReportRow::default()
    }
}

#[test]
fn forward_batches_are_the_odd_ones_of_a_reverted_stream() {
    assert!(!forward("delete-k1-b5-s1-revert", 0));
    assert!(forward("delete-k1-b5-s1-revert", 1));
    assert!(!forward("delete-k1-b5-s1-revert", 2));
    assert!(forward("delete-k1-b5-s1", 2));
}

#[test]
fn crossover_interpolates_log_log_between_the_sizes_around_it() {
    assert_eq!(crossover(&[]), None);
    assert_eq!(
        crossover(&[(1, 0.5), (10, 0.2)]),
        Some(Crossover::AtOrBelow(1))
    );
    assert_eq!(
        crossover(&[(1, 50.0), (10, 2.0)]),
        Some(Crossover::Above(10))
    );
    // 10× at 1 and 0.1× at 100: the log–log line crosses 1 half way, at 10.
    match crossover(&[(1, 30.0), (1, 10.0), (100, 0.1)]) {
        Some(Crossover::At(x)) => assert!((x - 10.0).abs() < 1e-9, "{x}"),
        other => panic!("{other:?}"),
    }
    assert_eq!(Crossover::At(3456.0).render(), "≈ 3,500");
    assert_eq!(Crossover::Above(10000).render(), "> 10,000");
}

#[test]
fn spearman_of_monotone_reversed_and_tied_pairs() {
    let up: Vec<(f64, f64)> = (0..6).map(|i| (i as f64, (i * i) as f64)).collect();
    assert!((spearman(&up).expect("rho") - 1.0).abs() < 1e-12);
    let down: Vec<(f64, f64)> = (0..6).map(|i| (i as f64, -(i as f64))).collect();
    assert!((spearman(&down).expect("rho") + 1.0).abs() < 1e-12);
    // Ties get average ranks: x ranks 1.5 1.5 3, y ranks 1 2 3 → ρ = 0.866.
    let tied = [(1.0, 1.0), (1.0, 2.0), (2.0, 3.0)];
    assert!((spearman(&tied).expect("rho") - 0.75f64.sqrt()).abs() < 1e-9);
    assert_eq!(spearman(&[(1.0, 1.0), (1.0, 2.0), (1.0, 3.0)]), None);
    assert_eq!(spearman(&[(1.0, 1.0), (2.0, 2.0)]), None);
}

#[test]
fn case_figures_use_forward_batches_only() {
    let s = "delete-k1-b2-s1-revert";
    let mut rows = Vec::new();
    for (batch, over, removed, dred_t, rec_t) in [
        (0, 0, 0, 900, 1000),
        (1, 12, 3, 10, 1000),
        (2, 0, 0, 5, 1000),
        (3, 0, 0, 20, 400),
    ] {
        let mut d = row("dred", s, batch, dred_t);
        d.overdeleted = Some(over);
        d.rederived = Some(over - removed);
        d.inserted = Some(0);
        d.model_removed = removed;
        rows.push(d);
        let mut r = row(RECOMPUTE, s, batch, rec_t);
        r.model_size = 50;
        rows.push(r);
    }
    let f = Findings::of(&rows, Vec::new());
    assert_eq!(f.cases.len(), 1);
    let c = &f.cases[0];
    assert_eq!((c.batches, c.model_size), (2, 50));
    // Batch 1: 12 over-deleted for 3 removed; batch 3: nothing over-deleted.
    let od = c.overdeletion.expect("od");
    assert_eq!((od.lo, od.hi), (0.0, 4.0));
    let amp = c.amplification.expect("amp");
    assert_eq!(amp.hi, (12.0 + 9.0) / 3.0);
    // Speedups 100 and 20.
    let sp = c.speedup["dred"];
    assert_eq!((sp.lo, sp.hi, sp.median), (20.0, 100.0, 60.0));
    assert!(!c.speedup.contains_key(RECOMPUTE));
}

/// A batch on which `dred` saturated counts the level's whole old content as over-deleted:
/// it is counted apart and left out of the over-deletion figures and of ρ, not averaged in.
#[test]
fn saturated_batches_are_left_out_of_the_overdeletion_figures() {
    let s = "delete-k1-b3-s1";
    let mut rows = Vec::new();
    for (batch, over, removed, saturated) in [(1, 6, 3, 0), (2, 5000, 10, 1), (3, 4, 4, 0)] {
        let mut d = row("dred", s, batch, 10 * batch as u64);
        d.overdeleted = Some(over);
        d.rederived = Some(over - removed);
        d.inserted = Some(0);
        d.model_removed = removed;
        d.saturated = Some(saturated);
        rows.push(d);
        rows.push(row(RECOMPUTE, s, batch, 100));
    }
    let f = Findings::of(&rows, Vec::new());
    let c = &f.cases[0];
    assert_eq!((c.batches, c.saturated), (3, 1));
    let od = c.overdeletion.expect("od");
    assert_eq!((od.lo, od.hi), (1.0, 2.0), "5000 / 10 left out");
    assert_eq!(c.overdeleted.expect("overdeleted").hi, 6.0);
    let (n, _) = time_follows_overdeletion(&rows)["dred"];
    assert_eq!(n, 2, "the saturated batch is not one of ρ's pairs");
    let v = values(&f, &rows, &[]);
    assert_eq!(
        (
            v["saturated_batches"].as_str(),
            v["saturated_cases"].as_str()
        ),
        ("1", "1")
    );
}

#[test]
fn a_case_with_an_error_is_counted_apart() {
    let mut bad = row("dred", "delete-k1-b1-s1", 1, 10);
    bad.error = Some("model mismatch\nmore".into());
    let f = Findings::of(&[row("dred", "delete-k1-b1-s1", 0, 1), bad], Vec::new());
    assert!(f.cases.is_empty());
    assert_eq!(f.failed[0].3, "model mismatch");
}

#[test]
fn render_fills_placeholders_and_refuses_unknown_ones() {
    let f = Findings::default();
    let mut values = BTreeMap::new();
    values.insert("cases".to_string(), "12".to_string());
    let figures: BTreeSet<String> = ["overdeletion_real".to_string()].into();
    let out = render(
        "n = {{value:cases}}; {{figure:overdeletion_real}}",
        &f,
        &values,
        &figures,
        "findings/plots",
    )
    .expect("render");
    assert_eq!(
        out,
        "n = 12; ![overdeletion_real](findings/plots/overdeletion_real.png)"
    );
    for bad in [
        "{{value:nope}}",
        "{{table:nope}}",
        "{{figure:nope}}",
        "{{what:x}}",
        "{{x}}",
        "{{value:cases",
    ] {
        assert!(render(bad, &f, &values, &figures, "p").is_err(), "{bad}");
    }
    assert!(render("{{table:overdeletion}}", &f, &values, &figures, "p")
        .expect("table")
        .starts_with("| dataset | program |"));
}

#[test]
fn numbers_read_as_a_reader_expects() {
    assert_eq!(thousands(1234567.0), "1,234,567");
    assert_eq!(thousands(3.44), "3.4");
    assert_eq!(thousands(0.0213), "0.021");
    assert_eq!(thousands(7.0), "7");
    assert_eq!(round_sig(3456.0, 2), 3500.0);
    assert_eq!(
        short_dataset("gen:rmat?n=262144&m=1048576&seed=1&dag=1"),
        "R-MAT 262,144"
    );
    assert_eq!(short_dataset("gen:layered"), "layered");
    assert_eq!(short_dataset("go-bp"), "go-bp");
}

/// A random-deletion case of `dataset` and `size` whose one forward batch over-deletes `over`
/// for `removed`, with `dred` at `dred_t` µs and `recompute` at `rec_t`.
fn case_rows(
    dataset: &str,
    size: usize,
    over: usize,
    removed: usize,
    dred_t: u64,
    rec_t: u64,
) -> Vec<ReportRow> {
    let stream = format!("delete-k{size}-b1-s1");
    let mut d = row("dred", &stream, 1, dred_t);
    d.dataset = dataset.into();
    d.size = Some(size);
    d.overdeleted = Some(over);
    d.rederived = Some(over.saturating_sub(removed));
    d.inserted = Some(0);
    d.model_removed = removed;
    let mut r = row(RECOMPUTE, &stream, 1, rec_t);
    r.dataset = dataset.into();
    r.size = Some(size);
    vec![d, r]
}

#[test]
fn values_summarise_the_cases() {
    let mut rows = Vec::new();
    // A DAG: over-deletes 3 for 1 at k = 1, 10× faster; at k = 100 recomputing is 10× faster.
    rows.extend(case_rows("dag", 1, 3, 1, 10, 100));
    rows.extend(case_rows("dag", 100, 300, 100, 1000, 100));
    // A cyclic graph: over-deletes 400 for nothing at k = 1, and recomputing is as fast.
    rows.extend(case_rows("cyc", 1, 400, 0, 100, 100));
    rows.extend(case_rows("cyc", 100, 400, 0, 100, 100));
    let shape = |name: &str, cyclic: f64| Shape {
        dataset: name.into(),
        cyclic_share: cyclic,
        ..Shape::default()
    };
    let f = Findings::of(&rows, vec![shape("dag", 0.0), shape("cyc", 1.0)]);
    let v = values(&f, &rows, &[]);
    assert_eq!(v["od_k1_cases"], "2");
    assert_eq!(v["od_k1_median"], "200");
    assert_eq!(v["od_k1_max"], "400");
    assert_eq!(v["od_k1_cyclic_median"], "400");
    assert_eq!(v["od_k1_acyclic_median"], "3");
    assert_eq!(v["od_k1_above10"], "1");
    assert_eq!(v["cross_dred_pairs"], "2");
    assert_eq!(v["cross_dred_at1"], "1");
    assert_eq!(v["cross_dred_at1_list"], "cyc `tc`");
    // 10× at 1 and 0.1× at 100: the crossover is at 10.
    assert_eq!(v["cross_dred_between"], "1");
    assert_eq!(v["cross_dred_median"], "10");
    assert_eq!(v["cases"], "4");
    // Time follows over-deletion on these batches for dred, not for recompute (constant).
    assert_eq!(v["rho_batches"], "4");
    assert!(
        v["rho_time_dred"].starts_with('+'),
        "{}",
        v["rho_time_dred"]
    );
}

/// A case with `dred@2` beside `dred` gets its A/A check over every batch; a pair reading
/// 1.3 makes the case unreliable, and the time-ratio tables mark its cells with ⚠ while the
/// over-deletion table does not.
#[test]
fn the_aa_pair_gives_each_case_its_check_and_flags_unreliable_ratios() {
    let stream = "delete-k1-b3-s1-revert";
    let mut rows = Vec::new();
    for (size, bias) in [(1usize, 1.0), (10, 1.3)] {
        for batch in 0..=6 {
            for (engine, t) in [
                ("recompute", 100),
                ("dred", 10),
                ("bf", 5),
                ("dred@2", (10.0 * bias) as u64),
            ] {
                rows.push(ReportRow {
                    size: Some(size),
                    stream: stream.replace("k1", &format!("k{size}")),
                    overdeleted: engine.starts_with("dred").then_some(2),
                    rederived: engine.starts_with("dred").then_some(1),
                    inserted: engine.starts_with("dred").then_some(0),
                    model_removed: 1,
                    ..row(engine, stream, batch, t)
                });
            }
        }
    }
    let f = Findings::of(&rows, Vec::new());
    let reliable = f.case("g", "tc", "delete", 1).expect("k1");
    let aa = reliable.aa.expect("a pair");
    assert_eq!(
        (aa.median, aa.n),
        (1.0, 6),
        "every batch after materialisation"
    );
    assert!(!reliable.unreliable());
    let biased = f.case("g", "tc", "delete", 10).expect("k10");
    assert!(biased.unreliable(), "{:?}", biased.aa);
    let bf = table(&f, "bf").expect("bf table");
    let line = bf.lines().nth(2).expect("a row");
    assert_eq!(line, "| g | tc | 0.50 | 0.50 ⚠ |", "{bf}");
    let over = table(&f, "overdeletion").expect("table");
    assert!(!over.contains('⚠'), "{over}");
    let aa_table = table(&f, "aa").expect("aa table");
    assert!(aa_table.contains("1.00 [1.00–1.00]"), "{aa_table}");
    assert!(aa_table.contains("1.30 [1.30–1.30] ⚠"), "{aa_table}");
    let v = values(&f, &rows, &[]);
    assert_eq!(v["aa_cases"], "2");
    assert_eq!(v["aa_unreliable"], "1");
    assert_eq!(v["aa_lt20_within10"], "1");
}

/// A batch whose time was its thread's wait for a CPU (`descheduled_ns`) is no collapse:
/// the worst ratio reads the time the thread ran.
#[test]
fn a_batch_that_waited_for_a_cpu_is_no_collapse() {
    let s = "delete-k1-b3-s1-revert";
    let mut rows = Vec::new();
    for (batch, dred_t, waited) in [(1, 10, 0), (2, 10, 0), (3, 4_400, 4_390), (4, 10, 0)] {
        let mut d = row("dred", s, batch, dred_t);
        d.workers = 1;
        d.descheduled_ns = Some(waited * 1000);
        rows.push(d);
        rows.push(row(RECOMPUTE, s, batch, 1000));
    }
    let f = Findings::of(&rows, Vec::new());
    let w = f.cases[0].worst["dred"];
    assert_eq!((w.ratio, w.collapsed), (0.01, 0), "{w:?}");
    rows[4].descheduled_ns = Some(0);
    let f = Findings::of(&rows, Vec::new());
    assert_eq!(
        f.cases[0].worst["dred"].collapsed, 1,
        "4.4 ms of work is one"
    );
}

/// A batch slower than recomputing by more than the collapse factor is found whatever the
/// median says, inverse batches of a reverted stream included: the worst ratio, the batches
/// past the factor, the table's line and the count of cases.
#[test]
fn a_collapse_is_flagged_though_the_median_is_fast() {
    let s = "delete-k1-b3-s1-revert";
    let mut rows = Vec::new();
    // dred: 100× faster on the forward batches, 5× slower on the inverse batch 4.
    for (batch, dred_t, rec_t) in [
        (0, 9, 10),
        (1, 10, 1000),
        (2, 10, 1000),
        (3, 10, 1000),
        (4, 500, 100),
    ] {
        rows.push(row("dred", s, batch, dred_t));
        rows.push(row("bf", s, batch, dred_t.min(50)));
        rows.push(row(RECOMPUTE, s, batch, rec_t));
    }
    let f = Findings::of(&rows, Vec::new());
    let c = &f.cases[0];
    assert_eq!(c.speedup["dred"].median, 100.0, "forward batches only");
    let w = c.worst["dred"];
    assert_eq!((w.ratio, w.collapsed, w.batches), (5.0, 1, 4));
    assert_eq!(c.worst["bf"].collapsed, 0, "bf's worst is 0.5×");
    let shown = table(&f, "collapses").expect("table");
    assert!(shown.contains("| dred | ‼ 5× | 1 of 4 | 100× |"), "{shown}");
    assert!(!shown.contains("| bf |"), "{shown}");
    let v = values(&f, &rows, &[]);
    assert_eq!(
        (
            v["collapse_dred_cases"].as_str(),
            v["collapse_dred_of"].as_str()
        ),
        ("1", "1")
    );
    assert_eq!(v["collapse_bf_cases"], "0");
    assert_eq!(v["collapse_dred_worst"], "5×");
    // No collapse: one line.
    let fast: Vec<ReportRow> = rows.iter().filter(|r| r.batch < 4).cloned().collect();
    let none = table(&Findings::of(&fast, Vec::new()), "collapses").expect("table");
    assert!(none.starts_with("No engine took more than 3×"), "{none}");
}

/// The program analyses' section: only the cases of a measured workload are in it (a graph
/// case of the same report is not), with their over-deletion, speedups, worst batch past the
/// collapse factor, crossover and shape; without workloads every table says there is none.
#[test]
fn the_analyses_section_covers_the_measured_workloads_only() {
    let analysis = |size: usize, over: usize, removed: usize, dred_t: u64, rec_t: u64| {
        let mut rows = case_rows("rust-nll:krate", size, over, removed, dred_t, rec_t);
        for r in &mut rows {
            r.program = "polonius_naive".into();
            r.kind = "delete:cfg_edge".into();
        }
        rows
    };
    let mut rows = Vec::new();
    // One statement: 20× faster; a thousand: recomputing 4× faster (crossover between).
    rows.extend(analysis(1, 30, 10, 50, 1000));
    rows.extend(analysis(1000, 9000, 3000, 4000, 1000));
    // A graph case beside them, which the section leaves out.
    rows.extend(case_rows("go-cc", 1, 3, 1, 10, 100));
    let workload = WorkloadShape {
        dataset: "rust-nll:krate".into(),
        program: "polonius_naive".into(),
        input_relations: 3,
        derived_relations: 5,
        edb_facts: 100,
        idb_facts: 400,
        recursive_components: 2,
        largest_component: "subset subset_closure".into(),
        component_facts: 300,
        component_share: 0.75,
    };
    let none = Findings::of(&rows, Vec::new());
    for name in [
        "analysis_shapes",
        "analysis_overdeletion",
        "analysis_speedups",
        "analysis_crossover",
    ] {
        assert!(
            table(&none, name)
                .expect("known")
                .starts_with("No program analysis"),
            "{name}"
        );
    }
    let mut f = Findings::of(&rows, Vec::new());
    f.workloads = vec![workload];
    let shapes = table(&f, "analysis_shapes").expect("known");
    assert!(
        shapes.contains("| `subset`, `subset_closure` | 300 | 75% |"),
        "{shapes}"
    );
    let over = table(&f, "analysis_overdeletion").expect("known");
    assert!(
        over.contains("| rust-nll:krate | polonius_naive | delete:cfg_edge | 3 (30) | 3 (9,000) |"),
        "{over}"
    );
    assert!(!over.contains("go-cc"), "{over}");
    let speed = table(&f, "analysis_speedups").expect("known");
    assert!(speed.contains("| 1 | 1 | 20× [20–20] | 20× |"), "{speed}");
    assert!(speed.contains("0.25× [0.25–0.25] | ‼ 0.25×"), "{speed}");
    let cross = table(&f, "analysis_crossover").expect("known");
    assert!(
        cross.contains("| delete:cfg_edge | 1–1,000 | ≈ "),
        "{cross}"
    );
    let v = values(&f, &rows, &[]);
    assert_eq!(v["analyses_cases"], "2");
    assert_eq!(v["analyses_crates"], "1");
    assert_eq!(v["analyses_dred_k1_median"], "20×");
    assert_eq!(v["analyses_dred_collapsed"], "1");
    assert_eq!(v["analyses_dred_of"], "2");
    assert_eq!(v["analyses_dred_worst"], "4×");
    assert_eq!(v["analyses_counting_k1_median"], "—");
}

/// A batch past the per-batch limit stays in its case (its time counts) and is listed apart.
#[test]
fn a_batch_over_the_time_limit_is_listed_and_its_case_kept() {
    let mut slow = row("dred", "delete-k1-b1-s1", 1, 400_000_000);
    slow.time_limit_ns = Some(300_000_000_000);
    slow.time_ns = 400_000_000_000;
    let rows = [row("dred", "delete-k1-b1-s1", 0, 1), slow];
    let f = Findings::of(&rows, Vec::new());
    assert_eq!(f.cases.len(), 1, "the case is kept");
    assert!(f.failed.is_empty());
    assert_eq!(f.over_limit.len(), 1);
    assert!(
        f.over_limit[0].contains("batch 1 (400 s > 300 s)"),
        "{:?}",
        f.over_limit
    );
    let v = values(&f, &rows, &[]);
    assert_eq!(v["over_limit"], "1");
    assert!(
        v["over_limit_list"].starts_with(": `dred` on "),
        "{}",
        v["over_limit_list"]
    );
}
