#!/usr/bin/env python3
"""Per-batch time ratios of the liveness runs in this folder, side by side within each run:
median, p10, p90 and the worst batch, deletions (odd batches) and re-insertions (even ones)
apart. Usage: python3 table.py before.csv.gz saturation.csv.gz after.csv.gz > table.md"""
import collections
import csv
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))  # results/
from report_times import open_report  # noqa: E402


def quantile(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(p * (len(values) - 1) + 0.5))]


def work(row, phase):
    return sum(int(row[f"{phase}_{k}"] or 0) for k in ("probes", "touched"))


print("| run | batches | ratio | median | p10 | p90 | worst (stream, batch) |")
print("|---|---|---|---:|---:|---:|---|")
for path in sys.argv[1:]:
    times = collections.defaultdict(dict)
    for row in csv.DictReader(open_report(path)):
        if row["batch"] == "0" or not row["time_ns"]:
            continue
        times[(row["stream"], int(row["batch"]))][row["engine"]] = int(row["time_ns"])
    for kind, odd in (("deletions", 1), ("re-insertions", 0)):
        for a, b in (("dred", "recompute"), ("bf", "recompute"), ("bf", "dred"), ("auto", "recompute")):
            pairs = [(t[a] / t[b], k) for k, t in times.items() if k[1] % 2 == odd and a in t and b in t]
            if not pairs:
                continue
            r = [p for p, _ in pairs]
            worst, (stream, batch) = max(pairs)
            size = stream.split("-")[1]
            print(f"| {path.removesuffix('.gz').removesuffix('.csv')} | {kind} | {a} / {b} | {statistics.median(r):.2f} | "
                  f"{quantile(r, .1):.2f} | {quantile(r, .9):.2f} | {worst:.2f} ({size}, {batch}) |")
print()
print("Work (probes plus rows touched, millions) of the first batch of each size, per phase:")
print()
print("| run | stream | engine | time ms | over-deletion | rederivation | insertion | saturated levels |")
print("|---|---|---|---:|---:|---:|---:|---:|")
for path in sys.argv[1:]:
    for row in csv.DictReader(open_report(path)):
        if row["batch"] in ("1", "2") and row["engine"] in ("dred", "bf", "recompute"):
            size = row["stream"].split("-")[1]
            print(f"| {path.removesuffix('.gz').removesuffix('.csv')} | {size} b{row['batch']} | {row['engine']} | "
                  f"{int(row['time_ns']) / 1e6:.0f} | {work(row, 'overdelete') / 1e6:.1f} | "
                  f"{work(row, 'rederive') / 1e6:.1f} | {work(row, 'insert') / 1e6:.1f} | {row['saturated'] or '–'} |")
