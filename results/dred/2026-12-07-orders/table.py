#!/usr/bin/env python3
"""Per stream and engine (`dred`, `bf`), before and after: each deleting batch's time over
`recompute`'s beside it (median [p10, p90], worst), the sum of its times, and the sum of its
phase-2 probes (`dred`'s rederivation) or phase-1 probes (`bf`'s checks and deletion).

    python3 results/dred/2026-12-07-orders/table.py DIR   # reads DIR/before.csv.gz, DIR/after.csv.gz
"""
import collections
import csv
import gzip
import math
import os
import sys


def rank(v, q):
    v = sorted(v)
    return v[min(len(v), max(1, math.ceil(q * len(v)))) - 1]


def load(path):
    by = collections.defaultdict(dict)
    with gzip.open(path, "rt", newline="") as f:
        for r in csv.DictReader(f):
            if r["error"] or r["batch"] == "0" or r["eff_del"] == "0":
                continue
            by[(r["dataset"], r["program"].split("/")[-1], r["stream"])].setdefault(
                int(r["batch"]), {})[r["engine"]] = r
    return by


def figures(batches, engine):
    ratios, total, probes = [], 0, 0
    probe_col = "rederive_probes" if engine == "dred" else "overdelete_probes"
    for e in batches.values():
        t = int(e[engine]["time_ns"])
        ratios.append(t / int(e["recompute"]["time_ns"]))
        total += t
        probes += int(e[engine][probe_col] or 0)
    return (f"{rank(ratios, 0.5):.3f} [{rank(ratios, 0.1):.3f}, {rank(ratios, 0.9):.3f}] "
            f"{max(ratios):.3f}", total / 1e6, probes)


def main(d):
    before, after = load(os.path.join(d, "before.csv.gz")), load(os.path.join(d, "after.csv.gz"))
    print("Deleting batches: engine / `recompute` per batch, median [p10, p90] worst; the "
          "engine's summed time (ms); its summed probes (`dred`: phase 2; `bf`: phase 1).\n")
    print("| dataset | program | stream | engine | batches | before | ms | probes | after | ms | probes |")
    print("|---|---|---|---|---:|---|---:|---:|---|---:|---:|")
    for key in sorted(before):
        if key not in after:
            continue
        for engine in ("dred", "bf"):
            b, a = figures(before[key], engine), figures(after[key], engine)
            print(f"| {key[0][:24]} | {key[1]} | {key[2]} | {engine} | {len(before[key])} | "
                  f"{b[0]} | {b[1]:.2f} | {b[2]:,} | {a[0]} | {a[1]:.2f} | {a[2]:,} |")


if __name__ == "__main__":
    main(sys.argv[1])
