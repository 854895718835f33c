#!/usr/bin/env python3
"""Summarises a TABLE.md written by `nonrecursive_table.py` (issue 39's target
table: counting / dred per report and direction): per change size and direction, the range of
the rows' median ratios and how many rows reach the target (median <= 0.5); then every
deleting row that misses it, with dred's work over counting's (the counters' medians): below
2, a 0.5x ratio would need counting to spend less per unit of work than dred.

    python3 results/counting/2026-12-05-column/summary.py results/counting/2026-12-05-column/TABLE.md
"""
import sys
from collections import defaultdict


def target_rows(path):
    for line in open(path):
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 15 and cells[4].isdigit() and cells[3] in ("delete", "insert"):
            yield cells


def main():
    cells = defaultdict(list)
    misses = []
    for c in target_rows(sys.argv[1]):
        size = int(c[6].replace(",", ""))
        ratio = float(c[9].split()[0])
        cells[(size, c[3])].append(ratio)
        dred_work, counting_work = (float(x.replace(",", "")) for x in c[14].split("/"))
        if c[3] == "delete" and ratio > 0.5:
            misses.append((c[0], c[1], c[2], ratio, dred_work / max(counting_work, 1.0)))
    total = sum(len(v) for v in cells.values())
    met = sum(r <= 0.5 for v in cells.values() for r in v)
    print(f"{met} of {total} rows at <= 0.5x by median.\n")
    print("| change | deleting batches | inserting batches |")
    print("|---:|---|---|")
    for size in sorted({s for s, _ in cells}):
        out = []
        for d in ("delete", "insert"):
            v = cells.get((size, d), [])
            out.append(f"{min(v):.2f}–{max(v):.2f} ({sum(r <= 0.5 for r in v)} of {len(v)} ≤ 0.5)" if v else "–")
        print(f"| {size:,} | {out[0]} | {out[1]} |")
    print("\nDeleting rows above 0.5x, with dred's work / counting's work:\n")
    print("| program | dataset | stream | counting / dred | work dred / counting |")
    print("|---|---|---|---:|---:|")
    for p, d, s, r, w in misses:
        print(f"| {p} | {d} | {s} | {r:.2f} | {w:.2f} |")


if __name__ == "__main__":
    main()
