#!/usr/bin/env python3
"""counting / dred in two runs of `../nonrecursive.sh` (a binary before a change and one
after it), per stream and direction present in both: the median of the per-batch ratios
(side by side in one run) with p10 and p90, each engine's median time per batch in each run,
and how many rows meet the target (≤ 0.5) in each. Times across the two runs come from
different runs of a shared machine; only the ratios are side by side.

    python3 results/counting/nonrecursive_compare.py BEFORE_FOLDER AFTER_FOLDER > COMPARE.md
"""
import glob
import os
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
from nonrecursive_table import load, order, ratios  # noqa: E402
from report_times import direction, rank, time_ns, us  # noqa: E402


def by_row(folder):
    """{(order, direction): (ratios, dred median ns, counting median ns)}"""
    cases = load(sorted(glob.glob(os.path.join(folder, "*.csv.gz"))))
    out = {}
    for stream, c in cases.items():
        rows = c["rows"]
        for d in ("delete", "insert"):
            bs = [b for b in sorted(rows["dred"]) if b > 0 and direction(rows["dred"][b]) == d
                  and b in rows["counting"]]
            if bs:
                med = lambda e: statistics.median(time_ns(rows[e][b]) for b in bs)
                out[(order(stream, c["meta"]), d)] = (
                    ratios(rows["counting"], rows["dred"], bs), med("dred"), med("counting"))
    return out


def fmt(v):
    return f"{statistics.median(v):.2f} [{rank(v, .1):.2f}, {rank(v, .9):.2f}]"


def main():
    before, after = by_row(sys.argv[1]), by_row(sys.argv[2])
    keys = sorted(k for k in before if k in after)
    print("counting / dred, median [p10, p90] of per-batch ratios (target ≤ 0.5); median µs "
          "per batch of each engine in each run.\n")
    print("| program | dataset | stream | direction | before | after | dred µs before / after "
          "| counting µs before / after |")
    print("|---|---|---|---|---:|---:|---:|---:|")
    met = {(w, d): 0 for w in ("before", "after") for d in ("delete", "insert")}
    for k in keys:
        (program, dataset, rel, kind, size), d = k
        (b, bd, bc), (a, ad, ac) = before[k], after[k]
        met[("before", d)] += statistics.median(b) <= 0.5
        met[("after", d)] += statistics.median(a) <= 0.5
        print(f"| {program} | {dataset} | {(rel + ' ') if rel else ''}{kind} {size} | {d} | "
              f"{fmt(b)} | {fmt(a)} | {us(bd)} / {us(ad)} | {us(bc)} / {us(ac)} |")
    for d in ("delete", "insert"):
        n = sum(1 for k in keys if k[1] == d)
        print(f"\nRows of {d} batches meeting the target: before {met[('before', d)]} of {n}, "
              f"after {met[('after', d)]} of {n}.")
    for d in ("delete", "insert"):
        ks = [k for k in keys if k[1] == d]
        counting = statistics.median(after[k][2] / before[k][2] for k in ks)
        dred = statistics.median(after[k][1] / before[k][1] for k in ks)
        print(f"\n{d} rows, median over the rows of after / before: counting {counting:.2f}, "
              f"dred {dred:.2f}.")


if __name__ == "__main__":
    main()
