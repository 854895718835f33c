#!/usr/bin/env python3
"""The targets of `bf` (issue 25) from pairs of runs with the engines in opposite orders.

usage: balanced.py FIRST.csv SECOND.csv [FIRST.csv SECOND.csv ...]

Each pair is the same sweep run twice: `targets.sh` (engines `dred,bf,dd,recompute`) and
`targets-bf-first.sh` (`bf,dred,dd,recompute`). The streams are seeded, so batch b of seed s
is the same change in both. The engine that runs first after `recompute` finds the cache cold:
on batches of a few µs that alone moves a ratio by up to 2x, so a ratio measured in one order
is biased. Per batch, the *balanced* ratio is the geometric mean of the two runs' ratios on
that batch, which cancels the order's factor; the table gives its median [p10, p90] over the
row's batches beside the median of each order, and the verdict on the balanced median (and
whether the target also holds in each order alone).
"""
import csv
import math
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # results/
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from report_times import open_report, positive_ns  # noqa: E402
from table import ENGINES, fmt_ratio, nodes_of, quantiles, target  # noqa: E402

RATIOS = (("bf/dd", "bf", "dd"), ("recompute/bf", "recompute", "bf"), ("bf/dred", "bf", "dred"))


def load(path):
    out = {}
    for r in csv.DictReader(open_report(path)):
        if r.get("error"):
            sys.exit(f"{path}: a row with an error: {r['error']}")
        key = (r["dataset"], r["program"], int(r["size"]))
        out.setdefault(key, {}).setdefault(r["engine"], {})[(r["seed"], int(r["batch"]))] = r
    return out


def main():
    paths = sys.argv[1:]
    if not paths or len(paths) % 2:
        sys.exit(__doc__)
    rows = []
    for first, second in zip(paths[::2], paths[1::2]):
        a, b = load(first), load(second)
        for case in sorted(set(a) & set(b), key=lambda k: (k[0].split("?")[0], nodes_of(k[0]) or 0, k)):
            ea, eb = a[case], b[case]
            if any(e not in ea or e not in eb for e in ENGINES):
                sys.exit(f"{case}: both runs need every engine of {ENGINES}")
            common = set.intersection(*(set(ea[e]) & set(eb[e]) for e in ENGINES))
            for deleting in (True, False):
                batches = sorted(x for x in common if x[1] > 0 and (x[1] % 2 == 1) == deleting)
                if not batches:
                    continue
                t = lambda run, e, x: positive_ns(run[e][x])
                row = {"case": case, "kind": "delete" if deleting else "re-insert",
                       "batches": len(batches)}
                for name, num, den in RATIOS:
                    ra = [t(ea, num, x) / t(ea, den, x) for x in batches]
                    rb = [t(eb, num, x) / t(eb, den, x) for x in batches]
                    row[name] = {
                        "first": ra, "second": rb,
                        "balanced": [math.sqrt(p * q) for p, q in zip(ra, rb)],
                    }
                rows.append(row)
    print("| dataset | program | K | batches | bf / dd (dred first; bf first; balanced) | "
          "recompute / bf (balanced) | bf / dred (dred first; bf first; balanced) | target |")
    print("|" + "---|" * 8)
    for row in rows:
        dataset, program, size = row["case"]
        deleting = row["kind"] == "delete"
        med = {k: {o: statistics.median(v) for o, v in row[k].items()} for k, _, _ in RATIOS}
        goal = target(dataset, program, size, deleting, nodes_of(dataset))
        verdict = "–"
        if goal:
            balanced = {k: med[k]["balanced"] for k in med}
            each = all(goal[1]({k: med[k][o] for k in med}) for o in ("first", "second"))
            verdict = (f"{goal[0]}: **{'met' if goal[1](balanced) else 'not met'}**"
                       f" ({'also' if each else 'not'} in each order alone)")
        cell = lambda k: (f"{med[k]['first']:.2f}; {med[k]['second']:.2f}; "
                          f"{fmt_ratio(row[k]['balanced'])}")
        print(f"| {dataset.split('&seed')[0]} | {program} | {size:,} {row['kind']} | "
              f"{row['batches']} | {cell('bf/dd')} | {fmt_ratio(row['recompute/bf']['balanced'])}"
              f" | {cell('bf/dred')} | {verdict} |")


if __name__ == "__main__":
    main()
