#!/usr/bin/env python3
"""Paired timings of the chassis refactoring of issue 38: the same sweep run alternately by the
build before it (`before-N.csv.gz`, 72aa6ab) and after it (`after-N.csv.gz`), three pairs.
`recompute` (eval.rs, untouched by the refactoring) runs beside `dred` and `bf` in every run:
per case the ratio after / before of `dred / recompute` and of `bf / recompute` measured side
by side within each run (the machine's drift cancels), with geometric means; also the raw
after / before medians of each engine."""
import csv, math, os, statistics, sys
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(os.path.dirname(HERE)))  # results/
from report_times import open_report  # noqa: E402

RUNS = (1, 2, 3)


def medians(path, engine):
    per = {}
    for r in csv.DictReader(open_report(path)):
        if int(r["batch"]) == 0 or r["engine"] != engine:
            continue
        key = (r["dataset"].split("?")[0], os.path.basename(r["program"]), r["size"])
        per.setdefault(key, []).append(int(r["time_ns"]))
    return {k: statistics.median(v) for k, v in per.items()}


def geomean(xs):
    return math.exp(sum(map(math.log, xs)) / len(xs))


for engine in ("dred", "bf", "recompute"):
    ratios = {}
    for i in RUNS:
        old = medians(f"{HERE}/before-{i}.csv.gz", engine)
        new = medians(f"{HERE}/after-{i}.csv.gz", engine)
        for k in old:
            ratios.setdefault(k, []).append(new[k] / max(old[k], 1))
    every = [x for v in ratios.values() for x in v]
    print(f"{engine}: after/before median per-batch time, runs {RUNS}")
    for k, v in sorted(ratios.items()):
        print("  ", k, " ".join(f"{x:.2f}" for x in v))
    print(f"   geomean over {len(every)} pairs: {geomean(every):.3f}")
for engine in ("dred", "bf"):
    every = []
    print(f"{engine} / recompute within each run (side by side), after over before:")
    for i in RUNS:
        od, orc = (medians(f"{HERE}/before-{i}.csv.gz", e) for e in (engine, "recompute"))
        nd, nrc = (medians(f"{HERE}/after-{i}.csv.gz", e) for e in (engine, "recompute"))
        rs = [(nd[k] / nrc[k]) / (od[k] / orc[k]) for k in sorted(od)]
        every += rs
        print(f"   run {i}: " + " ".join(f"{x:.2f}" for x in rs))
    print(f"   geomean over {len(every)}: {geomean(every):.3f}")
