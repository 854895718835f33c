"""The layered hub deletions of run.sh, before and after: the first deletion's `dred` and
`auto` time against `recompute`'s, and over the deleting batches (odd batches) the median
[p10, p90] and worst of each ratio (nearest rank), phase 1's time of `dred`'s first one.

    python3 layered.py DIR
"""
import csv
import gzip
import os
import sys


def quantile(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, round(q * (len(xs) - 1)))]


def main(folder):
    print("| binary | first deletion: dred ms, phase 1 ms | dred / recompute | auto / recompute |"
          " deletions: dred / recompute | auto / recompute |")
    print("|---|---|---:|---:|---|---|")
    for v in ("before", "after"):
        by = {}
        with gzip.open(os.path.join(folder, f"{v}-layered.csv.gz"), "rt") as f:
            for r in csv.DictReader(f):
                by.setdefault(int(r["batch"]), {})[r["engine"]] = r
        t = lambda b, e: int(by[b][e]["time_ns"])
        dels = [b for b in by if b % 2 == 1]
        cells = []
        for e in ("dred", "auto"):
            x = [t(b, e) / t(b, "recompute") for b in dels]
            cells.append(f"{quantile(x, .5):.1f} [{quantile(x, .1):.1f}, {quantile(x, .9):.1f}] {max(x):.1f}")
        first = by[1]
        print(f"| {v} | {t(1, 'dred') / 1e6:.1f}, {int(first['dred']['overdelete_ns']) / 1e6:.1f} | "
              f"{t(1, 'dred') / t(1, 'recompute'):.1f} | {t(1, 'auto') / t(1, 'recompute'):.1f} | "
              f"{cells[0]} | {cells[1]} |")


if __name__ == "__main__":
    main(sys.argv[1])
