#!/usr/bin/env python3
"""B / A per batch from run.sh's paired runs: for each batch the fastest of each binary's two
runs in one order, their ratio; per point and kind of batch the median, p10, p90 and worst of
those ratios in each order, and their geometric mean over the two orders (which cancels a
bias towards the binary run second). Prints Markdown.

usage: table.py [DIR]   (DIR holds paired.csv.gz; this folder by default)"""
import csv
import gzip
import math
import os
import sys
import statistics

HERE = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))


def ratios(order):
    times = {}
    for r in csv.DictReader(gzip.open(os.path.join(HERE, "paired.csv.gz"), "rt")):
        b = int(r["batch"])
        if r["order"] != order or b == 0:
            continue
        kind = "deletions" if b % 2 else "re-insertions"
        key = ("k" + r["k"], r["dataset"], r["program"], kind, r["seed"], b)
        times.setdefault(key, {}).setdefault(r["binary"], []).append(int(r["time_ns"]))
    out = {}
    for key, t in times.items():
        out.setdefault(key[:4], []).append(min(t["b"]) / min(t["a"]))
    return out


def q(v, p):
    v = sorted(v)
    return v[min(len(v) - 1, int(p * len(v)))]


ab, ba = ratios("ab"), ratios("ba")
print("| K | dataset | program | batches | B / A, A first: median [p10, p90] worst "
      "| B first | geometric mean of the medians |")
print("|---|---|---|---|---|---|---:|")
means = []
for key in sorted(ab):
    x, y = ab[key], ba[key]
    m = math.sqrt(statistics.median(x) * statistics.median(y))
    means.append(m)
    f = lambda v: f"{statistics.median(v):.2f} [{q(v, .1):.2f}, {q(v, .9):.2f}] {max(v):.2f}"
    print(f"| {key[0][1:]} | {key[1]} | {key[2]} | {key[3]} | {f(x)} | {f(y)} | {m:.2f} |")
print(f"\n{len(means)} rows: geometric means of the medians {min(means):.2f}–{max(means):.2f}, "
      f"{sum(m > 1.05 for m in means)} above 1.05, {sum(m < 0.95 for m in means)} below 0.95.")
