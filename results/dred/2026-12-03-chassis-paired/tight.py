#!/usr/bin/env python3
"""The tight pairs of the chassis refactoring (issue 38): GO MF, reach_root and tc_linear,
200 single-edge deletions each (reverted), dred, bf and recompute side by side, run by the
build before (`tight-before-N.csv.gz`) and after (`tight-after-N.csv.gz`) alternately, three
pairs. Prints each run's median per-batch time per program and engine, in microseconds."""
import csv, os, statistics, sys
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(os.path.dirname(HERE)))  # results/
from report_times import open_report  # noqa: E402

for i in (1, 2, 3):
    for side in ("before", "after"):
        per = {}
        for r in csv.DictReader(open_report(f"{HERE}/tight-{side}-{i}.csv.gz")):
            if r["batch"] == "0":
                continue
            key = (os.path.basename(r["program"]).removesuffix(".dl"), r["engine"])
            per.setdefault(key, []).append(int(r["time_ns"]))
        cells = " ".join(f"{p}/{e} {statistics.median(v) / 1000:.1f}"
                         for (p, e), v in sorted(per.items()))
        print(f"run {i} {side:6} {cells}")
