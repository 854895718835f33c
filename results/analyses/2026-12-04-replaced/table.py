#!/usr/bin/env python3
"""Per-batch time ratios against `recompute` of the runs in this folder, side by side within
each run: median, p10, p90 (by rank) and the worst batch, per workload, binary, engine and
what the batch does (its effective change: delete, insert or mixed). Then the phases of the
liveness analysis's first 1,000-edge deletion. Usage: python3 table.py > table.md (from
this folder)."""
import collections
import os
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../.."))
from report_times import direction, num, open_report, rank, time_ns  # noqa: E402

import csv  # noqa: E402

ENGINES = ("dred", "bf", "auto", "recompute-levels")

print("| workload | binary | batches | engine / recompute | n | median | p10 | p90 | worst (stream, batch) |")
print("|---|---|---|---|---:|---:|---:|---:|---|")
for workload in ("liveness", "pointsto", "tc"):
    for binary in ("before", "after"):
        rows = list(csv.DictReader(open_report(f"{binary}-{workload}.csv.gz")))
        batches = collections.defaultdict(dict)
        for row in rows:
            if row["batch"] != "0" and not row["error"]:
                batches[(row["stream"], int(row["batch"]))][row["engine"]] = row
        for kind in ("delete", "insert", "mixed"):
            for engine in ENGINES:
                pairs = [
                    (time_ns(b[engine]) / time_ns(b["recompute"]), key)
                    for key, b in batches.items()
                    if engine in b and "recompute" in b and direction(b["recompute"]) == kind
                ]
                if not pairs:
                    continue
                r = [p for p, _ in pairs]
                worst, (stream, batch) = max(pairs)
                print(f"| {workload} | {binary} | {kind} | {engine} | {len(r)} | {statistics.median(r):.2f} | "
                      f"{rank(r, .1):.2f} | {rank(r, .9):.2f} | {worst:.2f} ({stream.split('-')[1]}, {batch}) |")

print()
print("Liveness, first batch deleting 1,000 edges: ms per phase (deletion, restoration, insertion)")
print("and counters.")
print()
print("| binary | engine | time | deletion | restoration | insertion | saturated | overdeleted | rederived | removed |")
print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
for binary in ("before", "after"):
    for row in csv.DictReader(open_report(f"{binary}-liveness.csv.gz")):
        if "k1000" in row["stream"] and row["batch"] == "1" and row["engine"] in ("dred", "recompute", "recompute-levels"):
            ms = lambda c: f"{(time_ns(row, c) or 0) / 1e6:.0f}"  # noqa: E731
            print(f"| {binary} | {row['engine']} | {ms('time')} | {ms('overdelete')} | {ms('rederive')} | "
                  f"{ms('insert')} | {row['saturated']} | {num(row, 'overdeleted'):,} | {num(row, 'rederived'):,} | "
                  f"{num(row, 'model_removed'):,} |")
