#!/usr/bin/env python3
"""`dred` / `recompute` per batch (side by side in each binary's run), before and after,
per case: median [p10, p90] and worst, batches past 3x, batches saturated. Every batch after
materialisation counts (a reverted stream's inverse batches included).

    python3 results/dred/2026-12-06-deep-compaction/table.py DIR   # reads DIR/before.csv.gz, DIR/after.csv.gz
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


def cases(path):
    by = collections.defaultdict(dict)
    with gzip.open(path, "rt", newline="") as f:
        for r in csv.DictReader(f):
            if r["error"] or r["batch"] == "0":
                continue
            by[(r["dataset"], r["program"], r["stream"], int(r["batch"]))][r["engine"]] = r
    out = collections.defaultdict(list)
    for (d, p, s, b), e in sorted(by.items()):
        if "dred" in e and "recompute" in e:
            ratio = int(e["dred"]["time_ns"]) / max(1, int(e["recompute"]["time_ns"]))
            sat = e["dred"]["saturated"] not in ("", "0")
            out[(d, p, s)].append((ratio, sat, int(e["dred"]["time_ns"]), int(e["recompute"]["time_ns"])))
    return out


def cell(v):
    r = [x[0] for x in v]
    worst = max(v)
    return (
        f"{rank(r, .5):.2f} [{rank(r, .1):.2f}, {rank(r, .9):.2f}] {worst[0]:.2f} "
        f"({worst[2] / 1e6:.1f} / {worst[3] / 1e6:.1f} ms)",
        sum(x > 3 for x in r),
        sum(x[1] for x in v),
    )


def main():
    d = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    before, after = cases(os.path.join(d, "before.csv.gz")), cases(os.path.join(d, "after.csv.gz"))
    print("`dred` / `recompute` per batch: median [p10, p90] worst (its `dred` / `recompute` times); "
          "batches past 3x; batches saturated.\n")
    print("| dataset | program | stream | batches | before | > 3x | sat. | after | > 3x | sat. |")
    print("|---|---|---|---:|---|---:|---:|---|---:|---:|")
    tot = [0, 0, 0, 0]
    for k in before:
        if k not in after:
            continue
        b, a = cell(before[k]), cell(after[k])
        tot[0] += b[1]; tot[1] += a[1]; tot[2] += b[2]; tot[3] += a[2]
        name = os.path.basename(k[1]).removesuffix(".dl")
        print(f"| {k[0]} | {name} | {k[2]} | {len(before[k])} | {b[0]} | {b[1]} | {b[2]} | {a[0]} | {a[1]} | {a[2]} |")
    print(f"\nBatches past 3x: {tot[0]} before, {tot[1]} after; saturated: {tot[2]} before, {tot[3]} after.")


if __name__ == "__main__":
    main()
