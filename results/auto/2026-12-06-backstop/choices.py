#!/usr/bin/env python3
"""Per batch of the liveness runs in a folder (ARG, default this one): `auto`'s choice, `!` per
abandonment, and its time over `recompute`'s, for each binary and run. Prints one line per run."""
import csv
import glob
import gzip
import os
import sys

here = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
for f in sorted(glob.glob(os.path.join(here, "*-liveness.csv.gz"))):
    by = {}
    for r in csv.DictReader(gzip.open(f, "rt")):
        by.setdefault(int(r["batch"]), {})[r["engine"]] = r
    cells = []
    for b in sorted(by):
        if b == 0:
            continue
        a, rc = by[b]["auto"], int(by[b]["recompute"]["time_ns"])
        cells.append(f"{b}: {a['chosen']}{'!' * int(a['abandoned'] or 0)} "
                     f"{int(a['time_ns']) / rc:.2f}")
    print(f"- {os.path.basename(f)[:-len('-liveness.csv.gz')]}: " + " · ".join(cells))
