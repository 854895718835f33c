#!/usr/bin/env python3
"""The table of RUN.md from run.txt: per graph and build, the median of the five
calibrations (recompute / datafrog) and their range.
usage: python3 results/clock/2026-12-05-before/table.py [run.txt]"""
import collections
import os
import sys

path = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "run.txt")
runs = collections.defaultdict(list)
for line in open(path, encoding="utf-8"):
    facts, tag, ratio = line.split()[:3]
    graph = "R-MAT 5,000" if facts.startswith("generated") else facts.split("/")[0]
    runs[(graph, tag.split("-")[0])].append(float(ratio))
print("| graph | before (`72aa6ab`) | after (`68b12e3`) |")
print("|---|---|---|")
for graph in ["go-bp", "wordnet", "R-MAT 5,000"]:
    cells = []
    for build in ["before", "after"]:
        v = sorted(runs[(graph, build)])
        cells.append(f"{v[len(v) // 2]:.2f} ({v[0]:.2f}–{v[-1]:.2f})")
    print(f"| {graph} | {cells[0]} | {cells[1]} |")
