#!/usr/bin/env python3
"""Keeps of a study's report what the A/A table reads: the `dred` and `dred@2` rows, and the
columns that name a batch, its time and how it was taken.

    python3 trim.py report.csv.gz out.csv.gz
"""
import csv
import gzip
import sys

COLUMNS = ["dataset", "program", "kind", "size", "stream", "seed", "batch", "engine",
           "time_ns", "position", "repeats", "error", "git_rev"]

src, dst = sys.argv[1], sys.argv[2]
with gzip.open(src, "rt") as f, gzip.open(dst, "wt", newline="") as g:
    out = csv.DictWriter(g, COLUMNS, extrasaction="ignore")
    out.writeheader()
    for r in csv.DictReader(f):
        if r["engine"] in ("dred", "dred@2"):
            out.writerow(r)
