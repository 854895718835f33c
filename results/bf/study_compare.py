#!/usr/bin/env python3
"""`bf` against `dred` over the cases of a study report (`dredbench study`), side by side.

usage: study_compare.py results/study/report.csv.gz [N]

Per case (dataset, program, kind, change size), over the batches after materialisation: the
median of the per-batch ratios bf / dred of times, each engine's median time, DRed's median
over-deleted and rederived facts, bf's median deleted facts, checks and backward instances,
and the median net removal. Prints the N cases (default 6) where bf gains most and the N where
it loses most, and how many cases fall on either side of 1.
"""
import csv
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # results/
from report_times import micros, open_report, positive_ns, time_ns  # noqa: E402


def main(path, n):
    by = {}
    for r in csv.DictReader(open_report(path)):
        if r["batch"] == "0" or r["error"]:
            continue
        key = (r["dataset"].split("&seed")[0], r["program"], r["kind"], int(r["size"] or 0))
        by.setdefault(key, {}).setdefault(r["engine"], {})[int(r["batch"])] = r
    rows = []
    for key, e in by.items():
        if "bf" not in e or "dred" not in e:
            continue
        common = sorted(set(e["bf"]) & set(e["dred"]))
        med = lambda eng, col: statistics.median(int(e[eng][b][col] or 0) for b in common)
        med_us = lambda eng: statistics.median(micros(e[eng][b]) or 0 for b in common)
        rows.append((
            statistics.median(time_ns(e["bf"][b]) / positive_ns(e["dred"][b]) for b in common),
            key, med_us("bf"), med_us("dred"), med("dred", "overdeleted"),
            med("dred", "rederived"), med("bf", "overdeleted"), med("bf", "checked"),
            med("bf", "backward_instances"), med("bf", "model_removed"),
        ))
    rows.sort(key=lambda r: r[0])
    below = sum(1 for r in rows if r[0] < 1)
    print(f"{len(rows)} cases: bf / dred below 1 in {below}, at or above 1 in {len(rows) - below}.")
    print()
    print("| dataset | program | kind | k | bf / dred | bf µs | dred µs | dred over-deleted | "
          "dred rederived | bf deleted | bf checked | bf backward instances | net removed |")
    print("|" + "---|" * 13)
    shown = rows[:n] + [None] + rows[-n:] if len(rows) > 2 * n else rows
    for r in shown:
        if r is None:
            print("| … |" + " |" * 12)
            continue
        (ratio, (ds, prog, kind, k), tb, td, od, rd, bd, ck, bi, rm) = r
        print(f"| {ds} | {prog} | {kind} | {k} | {ratio:.2f} | {tb:,.0f} | {td:,.0f} | {od:,.0f} | "
              f"{rd:,.0f} | {bd:,.0f} | {ck:,.0f} | {bi:,.0f} | {rm:,.0f} |")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 6)
