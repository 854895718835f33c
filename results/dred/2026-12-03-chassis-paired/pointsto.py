#!/usr/bin/env python3
"""Points-to pairs of the chassis refactoring (issue 38): smallvec's rust-mir facts,
andersen.dl, ten assignments deleted and put back (10 batches), dred / bf / recompute side by
side, run by the build before (`pointsto-before-N.csv.gz`) and after alternately, three pairs.
Prints per run the median, worst and deterministic work (probes + rows) of each engine's
batches."""
import csv, os, statistics, sys
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(os.path.dirname(HERE)))  # results/
from report_times import open_report  # noqa: E402

WORK = ("overdelete_probes", "overdelete_touched", "rederive_probes", "rederive_touched",
        "insert_probes", "insert_touched")
for i in (1, 2, 3):
    for side in ("before", "after"):
        per = {}
        for r in csv.DictReader(open_report(f"{HERE}/pointsto-{side}-{i}.csv.gz")):
            if r["batch"] == "0":
                continue
            work = sum(int(r[c] or 0) for c in WORK if c in r)
            per.setdefault(r["engine"], []).append((int(r["time_ns"]), work))
        cells = "  ".join(
            f"{e} {statistics.median(t for t, _ in v) / 1e6:.1f} ms (worst "
            f"{max(t for t, _ in v) / 1e6:.1f}, work {sum(w for _, w in v)})"
            for e, v in sorted(per.items()))
        print(f"run {i} {side:6} {cells}")
