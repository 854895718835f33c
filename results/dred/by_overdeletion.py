#!/usr/bin/env python3
"""Deleting batches of `dredbench sweep` reports, grouped by how many facts `dred` over-deleted.

usage: by_overdeletion.py REPORT.csv[,REPORT.csv...] [--dataset D] [--program P]

For each (dataset, program), over the odd (deleting) batches of `--kinds delete --revert`
streams, every report and stream seed pooled:

1. per bin of over-deleted facts (0-9, 10-99, 100-999, 1,000 and more): the deletions, the
   median per-batch `dred / dd`, and how many of them are at most 0.5;
2. the work both `dred` and `recompute` count (probes plus rows touched, all phases): the
   medians of each per batch, of `recompute / dred` as work and as time, and of the time
   per unit of work of each (ns), per report.

A median of per-batch ratios over a stream mixing small and large over-deletions lies where
the two groups meet; the bins show each group on its own. The work ratio bounds the speed-up
over recomputation at equal cost per unit of work.
"""
import csv
import os
import signal
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # results/
from report_times import open_report, positive_ns, time_ns  # noqa: E402

BINS = [(0, 10), (10, 100), (100, 1000), (1000, None)]
WORK = ("overdelete_probes", "overdelete_touched", "rederive_probes", "rederive_touched",
        "insert_probes", "insert_touched")


def work(row):
    return sum(int(row[c] or 0) for c in WORK)


def deletions(path, dataset, program):
    """{(dataset, program): [{engine: row}]} of the deleting batches of one report."""
    cases = {}
    for r in csv.DictReader(open_report(path)):
        b = int(r["batch"])
        if b == 0 or b % 2 == 0:
            continue
        if (dataset and r["dataset"] != dataset) or (program and r["program"] != program):
            continue
        key = (r["dataset"], r["program"])
        cases.setdefault(key, {}).setdefault((r["seed"], b), {})[r["engine"]] = r
    return {k: list(v.values()) for k, v in cases.items()}


def main(argv):
    paths = argv[1].split(",")
    opt = {argv[i]: argv[i + 1] for i in range(2, len(argv) - 1, 2)}
    per_report = [deletions(p, opt.get("--dataset"), opt.get("--program")) for p in paths]
    keys = sorted({k for rep in per_report for k in rep})
    print("| dataset | program | over-deleted | deletions | median dred / dd | ≤ 0.5 |")
    print("|---|---|---|---:|---:|---:|")
    for key in keys:
        batches = [e for rep in per_report for e in rep.get(key, []) if "dred" in e and "dd" in e]
        for lo, hi in BINS:
            inside = [e for e in batches
                      if int(e["dred"]["overdeleted"]) >= lo
                      and (hi is None or int(e["dred"]["overdeleted"]) < hi)]
            if not inside:
                continue
            ratios = [time_ns(e["dred"]) / positive_ns(e["dd"]) for e in inside]
            label = f"{lo:,}–{hi - 1:,}" if hi else f"{lo:,} and more"
            print(f"| {key[0]} | {key[1]} | {label} | {len(inside)} "
                  f"| {statistics.median(ratios):.2f} | {sum(r <= 0.5 for r in ratios)} |")
    print()
    print("| dataset | program | report | recompute work | dred work | work ratio "
          "| time ratio | ns/unit recompute | ns/unit dred |")
    print("|---|---|---|---:|---:|---:|---:|---:|---:|")
    for key in keys:
        for path, rep in zip(paths, per_report):
            batches = [e for e in rep.get(key, []) if "dred" in e and "recompute" in e]
            if not batches:
                continue
            med = statistics.median
            wd = [work(e["dred"]) for e in batches]
            wr = [work(e["recompute"]) for e in batches]
            td = [time_ns(e["dred"]) for e in batches]
            tr = [time_ns(e["recompute"]) for e in batches]
            pd = [positive_ns(e["dred"]) for e in batches]
            print(f"| {key[0]} | {key[1]} | {path.split('/')[-1]} | {med(wr):,.0f} | {med(wd):,.0f} "
                  f"| {med(r / max(1, d) for r, d in zip(wr, wd)):.1f} "
                  f"| {med(r / d for r, d in zip(tr, pd)):.1f} "
                  f"| {med(t / w for t, w in zip(tr, wr) if w):.1f} "
                  f"| {med(t / w for t, w in zip(td, wd) if w):.1f} |")


if __name__ == "__main__":
    # Piped into `head`: stop quietly.
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv)
