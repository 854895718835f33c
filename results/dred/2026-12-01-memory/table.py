#!/usr/bin/env python3
"""Peak memory of dred against dd, before and after dd dropped its copy of the model
(issue 23): the largest peak_rss_kb of each engine's sweep per dataset and program.
Reads the CSVs beside this file; prints a Markdown table."""
import csv
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))  # results/
from report_times import open_report  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))


def peaks(name):
    out = {}
    for r in csv.DictReader(open_report(os.path.join(HERE, name))):
        if r["peak_rss_kb"]:
            key = (r["dataset"].split("?")[0], r["program"])
            out[key] = max(out.get(key, 0), int(r["peak_rss_kb"]))
    return out


dred = peaks("dred.csv.gz")
dd_new = peaks("dd.csv.gz")
dd_old = peaks("dd-model-copy.csv.gz")
print("| dataset | program | `dred` KB | `dd` KB, no copy | `dd` KB, with its copy | `dred / dd` (no copy) |")
print("|---|---|---:|---:|---:|---:|")
for key in sorted(dred):
    d, n, o = dred[key], dd_new.get(key), dd_old.get(key)
    print(f"| {key[0]} | {key[1]} | {d:,} | {n:,} | {o:,} | {d / n:.2f} |")
