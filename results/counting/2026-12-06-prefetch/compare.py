#!/usr/bin/env python3
"""counting / dred before (before/, binary of 3158b11) and after (this folder, 112b5cd), per
stream and direction present in both: the median of the per-batch ratios (side by side in
one run) with p10 and p90, and how many rows meet the target (≤ 0.5) in each.

    python3 results/counting/2026-12-06-prefetch/compare.py > results/counting/2026-12-06-prefetch/COMPARE.md
"""
import glob
import os
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
sys.path.insert(0, os.path.join(HERE, "..", ".."))
from nonrecursive_table import load, order, ratios  # noqa: E402
from report_times import direction, rank  # noqa: E402


def by_row(folder):
    cases = load(sorted(glob.glob(os.path.join(folder, "*.csv.gz"))))
    out = {}
    for stream, c in cases.items():
        rows = c["rows"]
        for d in ("delete", "insert"):
            bs = [b for b in sorted(rows["dred"]) if b > 0 and direction(rows["dred"][b]) == d
                  and b in rows["counting"]]
            if bs:
                out[(order(stream, c["meta"]), d)] = ratios(rows["counting"], rows["dred"], bs)
    return out


def fmt(v):
    return f"{statistics.median(v):.2f} [{rank(v, .1):.2f}, {rank(v, .9):.2f}]"


before, after = by_row(os.path.join(HERE, "before")), by_row(HERE)
keys = sorted(k for k in before if k in after)
print("counting / dred, median [p10, p90] of per-batch ratios; target ≤ 0.5.\n")
print("| program | dataset | stream | direction | before | after |")
print("|---|---|---|---|---:|---:|")
met = {("before", d): 0 for d in ("delete", "insert")} | {("after", d): 0 for d in ("delete", "insert")}
for k in keys:
    (program, dataset, rel, kind, size), d = k
    b, a = before[k], after[k]
    met[("before", d)] += statistics.median(b) <= 0.5
    met[("after", d)] += statistics.median(a) <= 0.5
    print(f"| {program} | {dataset} | {(rel + ' ') if rel else ''}{kind} {size} | {d} | {fmt(b)} | {fmt(a)} |")
for d in ("delete", "insert"):
    n = sum(1 for k in keys if k[1] == d)
    print(f"\nRows of {d} batches meeting the target: before {met[('before', d)]} of {n}, "
          f"after {met[('after', d)]} of {n}.")
all_b = [statistics.median(before[k]) for k in keys]
all_a = [statistics.median(after[k]) for k in keys]
print(f"\nMedian over the rows of the rows' medians: before {statistics.median(all_b):.2f}, "
      f"after {statistics.median(all_a):.2f}.")
