#!/usr/bin/env python3
"""Pools the runs at the final engine code: run-4.md of ../2026-12-02-fixed-rows (at d77de62)
and run-1..3.md beside this file (at 1428832; between the two commits `dd` changed only in code
these programs do not run: the comparison helper's home and the aggregate stratum). Prints,
per dataset, program and phase, compiled dd / hand-written in each run and their median.
Markdown."""
import os
import statistics

HERE = os.path.dirname(os.path.abspath(__file__))
paths = [os.path.join(HERE, "..", "2026-12-02-fixed-rows", "run-4.md")] + [
    os.path.join(HERE, f"run-{n}.md") for n in (1, 2, 3)
]
runs = []
for path in paths:
    rows = {}
    for line in open(path):
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 9 and cells[2] in ("materialise", "delete", "insert"):
            rows[tuple(cells[:3])] = float(cells[7])
    runs.append(rows)
print("| dataset | program | phase | dd / hand: run 4 (d77de62), runs 5–7 (1428832) | median | ≤ 1.2 |")
print("|---|---|---|---|---:|---|")
met = total = 0
for key in runs[0]:
    dd = [r[key] for r in runs]
    m = statistics.median(dd)
    total += 1
    met += m <= 1.2
    print(f"| {' | '.join(key)} | {', '.join(f'{x:.2f}' for x in dd)} | {m:.2f} "
          f"| {'met' if m <= 1.2 else '**not met**'} |")
print(f"\n{met} of {total} met (median of the four runs at the final code).")
