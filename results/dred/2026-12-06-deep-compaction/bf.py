#!/usr/bin/env python3
"""`bf` beside `dred` and `recompute` on the deleting batches of the reports given: times,
`bf` / `dred`, and B/F's counters (facts checked and disproved, backward instances, work)
beside DRed's over-deletion and whether it saturated.

    python3 results/dred/2026-12-06-deep-compaction/bf.py results/dred/2026-12-06-deep-compaction/bf-*.csv
"""
import collections
import csv
import sys

print("| dataset | batch | `dred` ms | `bf` ms | `recompute` ms | `bf` / `dred` | B/F checked | disproved | backward instances | B/F work | DRed over-deleted (saturated) |")
print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
for path in sys.argv[1:]:
    by = collections.defaultdict(dict)
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            if not r["error"]:
                by[int(r["batch"])][r["engine"]] = r
    for b, e in sorted(by.items()):
        if b == 0 or not all(k in e for k in ("dred", "bf", "recompute")):
            continue
        d, f, rc = e["dred"], e["bf"], e["recompute"]
        if int(d["eff_del"] or 0) == 0:
            continue
        ms = lambda r: int(r["time_ns"]) / 1e6
        work = sum(int(f[k] or 0) for k in ("overdelete_probes", "overdelete_touched", "rederive_probes", "rederive_touched"))
        sat = "yes" if d["saturated"] not in ("", "0") else "no"
        print(f"| {d['dataset'].split('/')[-1]} | {b} | {ms(d):.1f} | {ms(f):.1f} | {ms(rc):.1f} | {ms(f) / ms(d):.2f} | {f['checked']} | {f['disproved']} | {f['backward_instances']} | {work:,} | {d['overdeleted']} ({sat}) |")
