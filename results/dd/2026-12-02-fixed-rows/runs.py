#!/usr/bin/env python3
"""The ratios of the criterion runs beside this file (run-N.md, each printed by
results/dd/criterion_medians.py): per dataset, program and phase, compiled dd / hand-written
in each run and their median, and likewise dd-general (the engine's general rows, i.e. dd
before issue 23) / hand-written. Prints Markdown. Usage: runs.py [folder of run-N.md]."""
import glob
import os
import statistics

import sys

# The folder of run-N.md files: this script's, or the one given (`runs.py ../2026-12-02-final-runs`).
HERE = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
runs = []
for path in sorted(glob.glob(os.path.join(HERE, "run-*.md"))):
    rows = {}
    for line in open(path):
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 9 and cells[2] in ("materialise", "delete", "insert"):
            rows[tuple(cells[:3])] = (float(cells[7]), float(cells[8]))
    runs.append(rows)
print("| dataset | program | phase | dd / hand, per run | median | ≤ 1.2 | dd-general / hand, per run | median |")
print("|---|---|---|---|---:|---|---|---:|")
met = total = 0
for key in runs[0]:
    dd = [r[key][0] for r in runs]
    general = [r[key][1] for r in runs]
    m = statistics.median(dd)
    total += 1
    met += m <= 1.2
    print(f"| {' | '.join(key)} | {', '.join(f'{x:.2f}' for x in dd)} | {m:.2f} "
          f"| {'met' if m <= 1.2 else '**not met**'} | {', '.join(f'{x:.2f}' for x in general)} "
          f"| {statistics.median(general):.2f} |")
print(f"\n{met} of {total} met (median of the runs' ratios).")
