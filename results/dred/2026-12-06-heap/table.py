#!/usr/bin/env python3
"""Peak memory of `dred` against `dd` (issue 38, item 4) from run.sh's reports: per point, the
largest peak over the stream of each engine, in a fresh process per point (`alone`, the
range over repetitions) and in one process per engine over all points (`sweep`); resident
set (peak_rss_kb) and live heap blocks (peak_heap_kb). Prints Markdown.

usage: table.py [DIR]   (DIR holds alone.csv.gz and sweep.csv.gz; this folder by default)"""
import csv
import gzip
import os
import sys

HERE = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))


def peaks(name):
    """(dataset, program, engine, repetition) -> (largest peak_rss_kb, largest peak_heap_kb)."""
    out = {}
    for r in csv.DictReader(gzip.open(os.path.join(HERE, name), "rt")):
        rep = r["stream"].rsplit("-rep", 1)[1] if "-rep" in r["stream"] else "1"
        key = (r["dataset"].split("?")[0], r["program"], r["engine"], rep)
        rss, heap = out.get(key, (0, 0))
        out[key] = (max(rss, int(r["peak_rss_kb"])), max(heap, int(r["peak_heap_kb"])))
    return out


def span(values, digits=0):
    lo, hi = min(values), max(values)
    f = (lambda v: f"{v:,.{digits}f}")
    return f(lo) if f(lo) == f(hi) else f"{f(lo)}–{f(hi)}"


alone, sweep = peaks("alone.csv.gz"), peaks("sweep.csv.gz")
points = sorted({k[:2] for k in alone})
reps = sorted({k[3] for k in alone})
print("| dataset | program | `dred` RSS KB | `dd` RSS KB | **RSS `dred / dd`** | `dred` heap KB | `dd` heap KB "
      "| **heap `dred / dd`** | RSS `dred / dd` in one sweep (`dred`, `dd` KB) |")
print("|---|---|---:|---:|---:|---:|---:|---:|---:|")
met_rss = met_heap = 0
for d, p in points:
    get = lambda e, i: [alone[(d, p, e, r)][i] for r in reps]
    rss = [a / b for a, b in zip(get("dred", 0), get("dd", 0))]
    heap = [a / b for a, b in zip(get("dred", 1), get("dd", 1))]
    met_rss += max(rss) <= 0.5
    met_heap += max(heap) <= 0.5
    s_dred, s_dd = sweep[(d, p, "dred", "1")][0], sweep[(d, p, "dd", "1")][0]
    print(f"| {d} | {p} | {span(get('dred', 0))} | {span(get('dd', 0))} | {span(rss, 2)} "
          f"| {span(get('dred', 1))} | {span(get('dd', 1))} | {span(heap, 2)} "
          f"| {s_dred / s_dd:.2f} ({s_dred:,}, {s_dd:,}) |")
same = sum(sweep[(d, p, e, "1")][1] == alone[(d, p, e, r)][1]
           for d, p in points for e in ("dred", "dd") for r in reps)
print(f"\nThe heap's peak in the one-process sweep equals the fresh process's in {same} of "
      f"{len(points) * 2 * len(reps)} (point, engine, repetition) pairs; the resident set's "
      f"differs by up to {max(abs(sweep[(d, p, e, '1')][0] / alone[(d, p, e, r)][0] - 1) for d, p in points for e in ('dred', 'dd') for r in reps):.0%}.")
print(f"\nTarget `dred` ≤ 0.5 × `dd` (every repetition): resident set, fresh processes, "
      f"{met_rss} of {len(points)} points; heap, {met_heap} of {len(points)}. "
      f"{len(reps)} repetitions per point.")
