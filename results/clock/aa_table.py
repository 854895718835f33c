#!/usr/bin/env python3
"""The A/A table: per case, the ratio of a second instance's time to the first's on the same
batch (`dred@2` / `dred`), median [p10, p90] by nearest rank, for one or more reports side by
side (e.g. the same study run with `--order rotate` and `--order shuffle`).

    python3 results/clock/aa_table.py LABEL=report.csv[.gz] [LABEL=report.csv ...] [--pair dred@2/dred]

A case is marked ⚠ when its median leaves [0.9, 1.1] (the study flags its ratios as
unreliable). The last lines check the issue's targets per report: cases whose first instance
takes >= 20 µs a batch (median): median within [0.95, 1.05] and p10/p90 within [0.8, 1.25];
cases below: median within [0.9, 1.1].
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


def rank(v, q):
    return v[min(len(v), max(1, math.ceil(q * len(v)))) - 1]


def aa(path, second, first):
    times = defaultdict(dict)
    opener = gzip.open if path.endswith(".gz") else open
    for r in csv.DictReader(opener(path, "rt")):
        if int(r["batch"]) == 0 or r.get("error"):
            continue
        key = (r["dataset"], r["program"], r["kind"], r["size"])
        # Batches of several seeds (streams) pool into one case.
        times[key].setdefault(r["engine"], {})[(r["stream"], r.get("seed"), int(r["batch"]))] = time_ns(r)
    out = {}
    for key, engines in times.items():
        if second not in engines or first not in engines:
            continue
        a, b = engines[second], engines[first]
        ratios = sorted(max(a[k], 1) / max(b[k], 1) for k in a if k in b)
        out[key] = (statistics.median(ratios), rank(ratios, 0.1), rank(ratios, 0.9),
                    len(ratios), statistics.median(b.values()) / 1e3)
    return out


def main():
    args = sys.argv[1:]
    pair = "dred@2/dred"
    if "--pair" in args:
        i = args.index("--pair")
        pair = args[i + 1]
        del args[i:i + 2]
    second, first = pair.split("/")
    runs = [(a.split("=", 1)[0], aa(a.split("=", 1)[1], second, first)) for a in args]
    keys = sorted(set().union(*(r.keys() for _, r in runs)))
    head = "| dataset | program | change | k | batches | " + first + " µs | " + " | ".join(
        f"{label}: {pair} median [p10, p90]" for label, _ in runs) + " |"
    print(head)
    print("|" + "---|" * (6 + len(runs)))
    for k in keys:
        cells = []
        n, t = "", ""
        for _, r in runs:
            if k not in r:
                cells.append("–")
                continue
            m, lo, hi, n, t = r[k]
            flag = "" if 0.9 <= m <= 1.1 else " ⚠"
            cells.append(f"{m:.2f} [{lo:.2f}, {hi:.2f}]{flag}")
        print(f"| {k[0]} | {k[1]} | {k[2]} | {k[3]} | {n} | {t:.1f} | " + " | ".join(cells) + " |")
    print()
    for label, r in runs:
        big = [v for v in r.values() if v[4] >= 20]
        small = [v for v in r.values() if v[4] < 20]
        big_ok = sum(1 for m, lo, hi, _, _ in big if 0.95 <= m <= 1.05 and lo >= 0.8 and hi <= 1.25)
        big_med = sum(1 for m, *_ in big if 0.95 <= m <= 1.05)
        small_ok = sum(1 for m, *_ in small if 0.9 <= m <= 1.1)
        meds = sorted(v[0] for v in r.values())
        print(f"{label}: {len(r)} cases, A/A medians {meds[0]:.2f}–{meds[-1]:.2f}; "
              f">= 20 µs: {big_med}/{len(big)} medians in [0.95, 1.05], "
              f"{big_ok}/{len(big)} also p10/p90 in [0.8, 1.25]; "
              f"< 20 µs: {small_ok}/{len(small)} medians in [0.9, 1.1]")


if __name__ == "__main__":
    main()
