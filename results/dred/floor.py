#!/usr/bin/env python3
"""One markdown row per report and dataset of `harness/examples/reach_root_floor`: over the
deleting batches, the median over-deleted facts, each caller's median time, and the medians of the
per-batch ratios (each batch against itself, as the example prints them).

    python3 results/dred/floor.py results/dred/2026-12-01-floor/floor-k1-n*.csv.gz
"""
import csv
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # results/
from report_times import open_report  # noqa: E402


def main(paths):
    cols = ["dred / dd", "floor / dd", "dred / floor", "recompute / dred",
            "recompute / floor", "floor_recompute / floor"]
    print("| report | dataset | batches | over-deleted | dred µs | dd µs | floor µs | "
          + " | ".join(cols) + " |")
    print("|---|---" + "|---:" * (5 + len(cols)) + "|")
    for path in paths:
        by_dataset = {}
        for r in csv.DictReader(open_report(path)):
            if r["deletes"] != "true":
                continue
            by_batch = by_dataset.setdefault(r["dataset"], {})
            b = by_batch.setdefault((r["seed"], r["batch"]), {})
            b[r["engine"]] = int(r["ns"]) / 1000
            if r["engine"] == "floor":
                b["overdeleted"] = int(r["overdeleted"])
        for dataset, by_batch in by_dataset.items():
            row(path, dataset, list(by_batch.values()), cols)


def row(path, dataset, batches, cols):
    """Prints the row of one dataset's batches (dicts of caller → µs)."""
    def med(key):
        return statistics.median(b[key] for b in batches)

    def ratio(a, b):
        xs = [x[a] / x[b] for x in batches if a in x and b in x]
        return f"{statistics.median(xs):.2f}" if xs else "–"

    ratios = [ratio(*c.split(" / ")) for c in cols]
    print(f"| {path.split('/')[-1]} | {dataset} | {len(batches)} | {med('overdeleted'):g} | "
          f"{med('dred'):.0f} | {med('dd'):.0f} | {med('floor'):.1f} | "
          + " | ".join(ratios) + " |")


if __name__ == "__main__":
    main(sys.argv[1:])
