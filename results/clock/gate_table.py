#!/usr/bin/env python3
"""What the gate's runs (gate.sh) say about the cases the fixed 200 µs floor used to leave out.

    python3 results/clock/gate_table.py BASELINE.csv RUN_DIR [RUN_DIR ...]

Per run: the cases judged (A/A median of dred@2 / dred within [0.9, 1.1] in the baseline and
in the run), how many of them have `recompute` under 200 µs a batch (the old floor left those
out) and `dred` under 20 µs, and over those under the old floor the geometric mean of the
change of `dred`'s median ratio to `recompute` (run / baseline): what the gate sees of a
slowdown on microsecond batches.
"""
import csv
import gzip
import math
import os
import statistics
import sys
from collections import defaultdict

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from report_times import time_ns  # noqa: E402


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    t = defaultdict(lambda: defaultdict(dict))
    for r in csv.DictReader(opener(path, "rt")):
        if r["batch"] != "0":
            key = (r["dataset"], r["program"], r["kind"], r["size"])
            t[key][r["engine"]][int(r["batch"])] = time_ns(r)
    return t


def aa(engines):
    return statistics.median(engines["dred@2"][b] / engines["dred"][b] for b in engines["dred"])


def ratio(engines):
    return statistics.median(engines["dred"][b] / engines["recompute"][b] for b in engines["dred"])


def main():
    base = load(sys.argv[1])
    print("| run | judged | recompute < 200 µs | dred < 20 µs | dred change on those under 200 µs |")
    print("|---|---:|---:|---:|---:|")
    for run in sys.argv[2:]:
        path = os.path.join(run, "report.csv.gz")
        new = load(path if os.path.exists(path) else os.path.join(run, "report.csv"))
        judged = [k for k in base if k in new and 0.9 <= aa(base[k]) <= 1.1 and 0.9 <= aa(new[k]) <= 1.1]
        small = [k for k in judged if statistics.median(base[k]["recompute"].values()) < 200e3]
        tiny = [k for k in judged if statistics.median(base[k]["dred"].values()) < 20e3]
        change = math.exp(statistics.mean(math.log(ratio(new[k]) / ratio(base[k])) for k in small))
        print(f"| {os.path.basename(run.rstrip('/'))} | {len(judged)} | {len(small)} | {len(tiny)} | {change:.2f} |")


if __name__ == "__main__":
    main()
