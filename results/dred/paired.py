#!/usr/bin/env python3
"""Paired per-batch comparison of one engine between two builds of dredbench.

Usage: paired.py BEFORE.csv[,BEFORE2.csv...] AFTER.csv[,AFTER2.csv...] [--engine dred]

Each file is a `dredbench sweep` report of the same sweep (same datasets, programs, streams
and seeds) run by one build. Batches are paired by (dataset, program, kind, size, seed,
batch); when several runs of a build are given, each pair uses the median of that build's
runs. Printed per (dataset, program, size) and for deleting and inserting batches apart: the
median of the per-batch ratios after / before, the number of pairs, and the medians of the
two times. Batch 0 (materialisation) is reported on its own line.
"""

import csv
import statistics
import sys
from collections import defaultdict


def load(paths, engine):
    """(dataset, program, kind, size, seed, batch) -> list of (time_us, deleting) over runs."""
    runs = defaultdict(list)
    for path in paths.split(","):
        with open(path, newline="") as f:
            for row in csv.DictReader(f):
                if row["engine"] != engine or row["error"] or not row["time_us"]:
                    continue
                key = (row["dataset"], row["program"], row["kind"], row["size"],
                       row["seed"], int(row["batch"]))
                deleting = int(row["eff_del"] or 0) > 0
                runs[key].append((float(row["time_us"]), deleting))
    return runs


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    engine = "dred"
    if "--engine" in sys.argv:
        engine = sys.argv[sys.argv.index("--engine") + 1]
        args = [a for a in args if a != engine]
    if len(args) != 2:
        sys.exit(__doc__)
    before, after = load(args[0], engine), load(args[1], engine)
    groups = defaultdict(list)
    for key in sorted(before.keys() & after.keys()):
        b = statistics.median(t for t, _ in before[key])
        a = statistics.median(t for t, _ in after[key])
        deleting = before[key][0][1]
        change = "materialise" if key[5] == 0 else ("delete" if deleting else "insert")
        groups[(key[0], key[1], key[3], change)].append((b, a))
    print("| dataset | program | K | batches | pairs | after / before | before µs | after µs |")
    print("|---|---|---:|---|---:|---:|---:|---:|")
    for (dataset, program, size, change), pairs in sorted(groups.items()):
        ratios = [a / b for b, a in pairs if b > 0]
        if not ratios:
            continue
        print(f"| {dataset} | {program} | {size} | {change} | {len(pairs)} | "
              f"{statistics.median(ratios):.3f} | {statistics.median(b for b, _ in pairs):,.0f} | "
              f"{statistics.median(a for _, a in pairs):,.0f} |")


if __name__ == "__main__":
    main()
