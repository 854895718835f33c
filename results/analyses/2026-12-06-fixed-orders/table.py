"""Per-batch ratios to `recompute` (median [p10, p90] and the worst batch, nearest rank) of
the reports run.sh writes: liveness by run, deletions and re-insertions apart; points-to
over both sizes.

    python3 table.py DIR
"""
import csv
import gzip
import os
import sys


def quantile(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, round(q * (len(xs) - 1)))]


def batches(path):
    t = {}
    with gzip.open(path, "rt") as f:
        for r in csv.DictReader(f):
            if r["batch"] == "0" or r.get("error"):
                continue
            key = (r.get("size", ""), int(r["batch"]))
            t.setdefault(key, {})[r["engine"]] = int(r["time_ns"])
    return t


def cell(t, engine, keep):
    r = [x[engine] / x["recompute"] for k, x in t.items() if keep(k) and engine in x]
    if not r:
        return "–"
    return f"{quantile(r, .5):.2f} [{quantile(r, .1):.2f}, {quantile(r, .9):.2f}] {max(r):.2f}"


def main(d):
    print("| binary, run | batches | recompute-levels | dred | auto |")
    print("|---|---|---|---|---|")
    for i in (1, 2):
        for v in ("before", "after"):
            t = batches(os.path.join(d, f"{v}-{i}-liveness.csv.gz"))
            for kind, odd in (("deletions", 1), ("re-insertions", 0)):
                keep = lambda k, odd=odd: k[1] % 2 == odd
                print(f"| {v}, {i} | liveness {kind} | " + " | ".join(
                    cell(t, e, keep) for e in ("recompute-levels", "dred", "auto")) + " |")
    for v in ("before", "after"):
        t = batches(os.path.join(d, f"{v}-pointsto.csv.gz"))
        print(f"| {v} | points-to, all | " + " | ".join(
            cell(t, e, lambda k: True) for e in ("recompute-levels", "dred", "auto")) + " |")


if __name__ == "__main__":
    main(sys.argv[1])
