#!/usr/bin/env python3
"""Median batch time of `dred` per binary over its three runs: deletions (odd batches) and
re-insertions apart. Usage (from this folder): python3 median.py"""
import csv
import statistics

for binary in ("old", "new"):
    times = {1: [], 0: []}
    for run in (1, 2, 3):
        for row in csv.DictReader(open(f"{binary}-{run}.csv")):
            batch = int(row["batch"])
            if batch > 0:
                times[batch % 2].append(int(row["time_ns"]) / 1e6)
    d, i = times[1], times[0]
    print(f"{binary}: deletions median {statistics.median(d):.0f} ms (n={len(d)}, "
          f"{min(d):.0f}-{max(d):.0f}), re-insertions median {statistics.median(i):.0f} ms")
