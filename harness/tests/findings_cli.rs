//! End-to-end test of `dredbench findings`: from a small reverted sweep's report and a
//! `datasets.csv`, the document with its tables and values filled, the plots, `cases.csv`; an
//! unknown placeholder is an error (exit 2) and writes nothing.

mod common;
use common::{dredbench_in_cache, stderr};

#[test]
fn findings_fill_a_template_from_a_report() {
    let tmp = tempfile::tempdir().expect("tmp");
    let study = tmp.path().join("study");
    std::fs::create_dir_all(&study).expect("dir");
    let cache = tmp.path().join("cache");
    let report = study.join("report.csv");
    let dataset = "gen:layered?layers=4&width=8&fanout=2&seed=1";
    let o = dredbench_in_cache(
        &cache,
        &[
            "sweep",
            "--datasets",
            dataset,
            "--programs",
            "datasets/programs/tc_linear.dl,datasets/programs/reach.dl",
            "--kinds",
            "delete,insert",
            "--sizes",
            "1,4",
            "--batches",
            "3",
            "--revert",
            "--engines",
            "dred,bf,recompute",
            "--report",
            report.to_str().expect("utf-8"),
        ],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    std::fs::write(
        study.join("datasets.csv"),
        format!(
            "dataset,nodes,edges,largest_scc,cyclic_share,depth,max_in,max_out,mean_degree\n\
             \"{dataset}\",32,48,1,0.0,3,2,2,1.5\n"
        ),
    )
    .expect("datasets.csv");
    let template = study.join("T.md");
    std::fs::write(
        &template,
        "{{value:cases}} cases, k=1 median {{value:od_k1_median}}.\n\n{{table:overdeletion}}\n\
         {{table:crossover}}\n{{figure:overdeletion_generated}}\n",
    )
    .expect("template");
    let out = tmp.path().join("FINDINGS.md");
    let args = |t: &std::path::Path| {
        vec![
            "findings".to_string(),
            "--study".into(),
            study.to_string_lossy().into_owned(),
            "--template".into(),
            t.to_string_lossy().into_owned(),
            "--out".into(),
            out.to_string_lossy().into_owned(),
        ]
    };
    let run = |a: Vec<String>| {
        let a: Vec<&str> = a.iter().map(String::as_str).collect();
        dredbench_in_cache(&cache, &a)
    };
    let o = run(args(&template));
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let doc = std::fs::read_to_string(&out).expect("FINDINGS.md");
    // Two programs × two kinds × two sizes.
    assert!(doc.starts_with("8 cases, k=1 median "), "{doc}");
    assert!(doc.contains("| layered | tc_linear |"), "{doc}");
    assert!(doc.contains("| layered | reach |"), "{doc}");
    assert!(
        doc.contains("![overdeletion_generated](study/plots/overdeletion_generated.png)"),
        "{doc}"
    );
    for f in [
        "overdeletion_generated.png",
        "overdeletion_generated.svg",
        "time_vs_overdeletion.png",
    ] {
        assert!(study.join("plots").join(f).exists(), "{f}");
    }
    let cases = std::fs::read_to_string(study.join("cases.csv")).expect("cases.csv");
    assert_eq!(cases.lines().count(), 1 + 8, "{cases}");
    // An unknown placeholder: exit 2, the document left as it was.
    let bad = study.join("bad.md");
    std::fs::write(&bad, "{{value:no_such_figure}}").expect("bad");
    let o = run(args(&bad));
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("unknown value `no_such_figure`"),
        "{}",
        stderr(&o)
    );
    assert_eq!(std::fs::read_to_string(&out).expect("kept"), doc);
}
