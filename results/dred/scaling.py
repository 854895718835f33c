#!/usr/bin/env python3
"""How single-fact deletions scale with the graph: one row per report of a
`dredbench sweep --kinds delete --revert --sizes 1` over one dataset and program, with the
engines `dred`, `dd` and `recompute` side by side.

usage: scaling.py REPORT.csv [REPORT.csv ...]

Per report, over the deleting (odd) batches of every seed: the model's size after
materialisation; the median of DRed's over-deleted set, also as a share of the model; the
median net change of the model; each engine's median time; the medians of the per-batch
ratios dred / dd and recompute / dred (each batch measured side by side); and, pooled over
the deletions, dred's time and work (probes plus rows touched) per over-deleted fact.
"""
import csv
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # results/
from report_times import micros, open_report, positive_micros, time_ns  # noqa: E402


def median(xs):
    return statistics.median(xs) if xs else None


def row_of(path):
    rows = list(csv.DictReader(open_report(path)))
    errors = [r for r in rows if r.get("error")]
    if errors:
        sys.exit(f"{path}: {len(errors)} rows with an error")
    datasets = {(r["dataset"], r["program"]) for r in rows}
    if len(datasets) != 1:
        sys.exit(f"{path}: one dataset and program per report, found {sorted(datasets)}")
    (dataset, program), = datasets
    by_engine = {}
    for r in rows:
        by_engine.setdefault(r["engine"], {})[(r["seed"], int(r["batch"]))] = r
    dred, dd, rc = (by_engine.get(e, {}) for e in ("dred", "dd", "recompute"))
    deletions = sorted(b for b in set(dred) & set(dd) & set(rc) if b[1] % 2 == 1)
    if not deletions:
        sys.exit(f"{path}: no deleting batch run by all three engines")
    model = int(next(r for b, r in dred.items() if b[1] == 0)["model_size"])
    t = lambda eng, b: micros(eng[b])
    # A divisor: a time of 0 counts as 1 µs (max(1, time_us) on old reports).
    d = lambda eng, b: positive_micros(eng[b])
    over = [int(dred[b]["overdeleted"]) for b in deletions]
    net = [int(dred[b]["model_removed"]) - int(dred[b]["model_added"]) for b in deletions]
    work_cols = ("overdelete_probes", "overdelete_touched", "rederive_probes",
                 "rederive_touched", "insert_probes", "insert_touched")
    work = sum(int(dred[b][c] or 0) for b in deletions for c in work_cols)
    dred_ns = sum(time_ns(dred[b]) for b in deletions)
    return {
        "dataset": dataset,
        "program": program,
        "model": model,
        "deletions": len(deletions),
        "over": median(over),
        "share": median(over) / model if model else 0.0,
        "net": median(net),
        "dred": median([t(dred, b) for b in deletions]),
        "dd": median([t(dd, b) for b in deletions]),
        "recompute": median([t(rc, b) for b in deletions]),
        "dred/dd": median([t(dred, b) / d(dd, b) for b in deletions]),
        "recompute/dred": median([t(rc, b) / d(dred, b) for b in deletions]),
        "ns/over": dred_ns / max(1, sum(over)),
        "work/over": work / max(1, sum(over)),
    }


def main(paths):
    if not paths:
        sys.exit(__doc__)
    print("| dataset | program | model | deletions | over-deleted | of the model | net removed "
          "| dred µs | dd µs | recompute µs | dred / dd | recompute / dred "
          "| dred ns per over-deleted fact | dred work per over-deleted fact |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for path in paths:
        r = row_of(path)
        print(f"| {r['dataset']} | {r['program']} | {r['model']:,} | {r['deletions']} "
              f"| {r['over']:,.0f} | {100 * r['share']:.1f}% | {r['net']:,.0f} "
              f"| {r['dred']:,.0f} | {r['dd']:,.0f} | {r['recompute']:,.0f} "
              f"| {r['dred/dd']:.2f} | {r['recompute/dred']:.1f}× "
              f"| {r['ns/over']:,.0f} | {r['work/over']:.1f} |")


if __name__ == "__main__":
    main(sys.argv[1:])
