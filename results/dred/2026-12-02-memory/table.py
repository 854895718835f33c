#!/usr/bin/env python3
"""Peak memory of dred against dd once dd runs on fixed-width rows of 32-bit codes (issue 23):
the largest peak_rss_kb of each engine's sweep per dataset and program. `dred` is unchanged
since the run of 2026-12-01-memory, whose dred.csv.gz this reads; dd.csv.gz here is the new dd,
and 2026-12-01-memory/dd.csv.gz the dd before (general rows, no copy of its model). Prints Markdown."""
import csv
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))  # results/
from report_times import open_report  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
BEFORE = os.path.join(HERE, "..", "2026-12-01-memory")


def peaks(path):
    out = {}
    for r in csv.DictReader(open_report(path)):
        if r["peak_rss_kb"]:
            key = (r["dataset"].split("?")[0], r["program"])
            out[key] = max(out.get(key, 0), int(r["peak_rss_kb"]))
    return out


dred = peaks(os.path.join(BEFORE, "dred.csv.gz"))
dd_before = peaks(os.path.join(BEFORE, "dd.csv.gz"))
dd_now = peaks(os.path.join(HERE, "dd.csv.gz"))
print("| dataset | program | `dred` KB | `dd` KB, fixed-width rows | `dd` KB, general rows (before) "
      "| `dred / dd` now | before | target ≤ 0.5 |")
print("|---|---|---:|---:|---:|---:|---:|---|")
met = 0
for key in sorted(dred):
    d, n, b = dred[key], dd_now[key], dd_before[key]
    ok = d / n <= 0.5
    met += ok
    print(f"| {key[0]} | {key[1]} | {d:,} | {n:,} | {b:,} | {d / n:.2f} | {d / b:.2f} "
          f"| {'met' if ok else '**not met**'} |")
print(f"\n{met} of {len(dred)} points meet the target.")
