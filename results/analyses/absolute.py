#!/usr/bin/env python3
"""Median batch time in ms per workload, what the batch does, engine and binary, from the
{before,after}-{liveness,pointsto,tc}.csv.gz reports of the current folder, a run of
2026-12-04-replaced/run.sh (absolute times; the two binaries ran minutes apart on a shared
machine, so a ratio near 1 is noise). Usage, from the run's folder:
python3 ../absolute.py > absolute.md"""
import collections
import csv
import os
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))  # results/
from report_times import open_report  # noqa: E402

print("Median batch time (ms); the binaries ran one after the other on a shared machine.\n")
print("| workload | batches | engine | before | after | after / before |")
print("|---|---|---|---:|---:|---:|")
for w in ("liveness", "pointsto", "tc"):
    med = {}
    for b in ("before", "after"):
        times = collections.defaultdict(list)
        for r in csv.DictReader(open_report(f"{b}-{w}.csv.gz")):
            if r["batch"] == "0" or r["error"]:
                continue
            kind = "delete" if int(r["eff_ins"] or 0) == 0 else "insert"
            times[(kind, r["engine"])].append(int(r["time_ns"]) / 1e6)
        med[b] = {k: statistics.median(v) for k, v in times.items()}
    for k in sorted(med["after"]):
        a, b = med["after"][k], med["before"][k]
        print(f"| {w} | {k[0]} | {k[1]} | {b:.1f} | {a:.1f} | {a / b:.2f} |")
