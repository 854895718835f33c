#!/usr/bin/env python3
"""`counting` on the program analyses (issue 39's target: single-fact deletions within 3× `dd`).

Reads `dredbench run` reports of reverted streams and classifies each batch after batch 0
by its effective change (`eff_del`/`eff_ins`): delete, insert, mixed (a function edit that
both removes and adds, or an edit's inverse). Per report and direction it prints one
markdown row: each engine's time per batch, median [p10, p90] and worst (µs), the medians
of the per-batch ratios counting / dd, counting / dred and the A/A pair dred@2 / dred with
p10/p90 (⚠ when the A/A median leaves [0.9, 1.1]; ✗ when counting / dd's median exceeds 3),
and counting's counters (medians): counts_changed, rounds_moved, rounds looked at.
Then materialisation (batch 0) per report. Percentiles are nearest-rank.

    python3 results/counting/analyses_table.py REPORT.csv[.gz] [...]
"""
import csv
import os
import statistics
import sys
from collections import defaultdict

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from report_times import direction, num, open_report, rank, time_ns, us  # noqa: E402

ENGINES = ("dred", "counting", "dd", "recompute")


def spread(v):
    return f"{statistics.median(v):.2f} [{rank(v, 0.1):.2f}, {rank(v, 0.9):.2f}]"


def main(paths):
    print("| report | dir | n | " + " | ".join(ENGINES)
          + " | counting/dd | counting/dred | dred@2/dred | counts changed / moved / rounds |")
    print("|---|---|---:|" + "---|" * (len(ENGINES) + 4))
    materialise = []
    for path in paths:
        with open_report(path) as f:
            rows = list(csv.DictReader(f))
        by = defaultdict(dict)
        for r in rows:
            by[int(r["batch"])][r["engine"]] = r
        name = os.path.basename(path).split(".csv")[0]
        materialise.append((name, {e: time_ns(r) for e, r in by[0].items()}))
        groups = defaultdict(list)
        for b, engines in sorted(by.items()):
            if b > 0:
                groups[direction(next(iter(engines.values())))].append(engines)
        for d, batches in sorted(groups.items()):
            cells = []
            for e in ENGINES:
                t = [(time_ns(x[e]), i + 1) for i, x in enumerate(batches) if e in x]
                if not t:
                    cells.append("–")
                    continue
                v = [a for a, _ in t]
                worst = max(t)
                cells.append(f"{us(statistics.median(v))} [{us(rank(v, 0.1))}, "
                             f"{us(rank(v, 0.9))}] {us(worst[0])}")

            def ratio(a, b):
                return [time_ns(x[a]) / time_ns(x[b]) for x in batches
                        if a in x and b in x and time_ns(x[b]) > 0]
            cd, cr, aa = ratio("counting", "dd"), ratio("counting", "dred"), ratio("dred@2", "dred")
            flag_dd = " ✗" if cd and statistics.median(cd) > 3 else ""
            flag_aa = " ⚠" if aa and not 0.9 <= statistics.median(aa) <= 1.1 else ""
            c = [x["counting"] for x in batches if "counting" in x]
            counters = " / ".join(f"{statistics.median([num(r, k) for r in c]):,.0f}"
                                  for k in ("counts_changed", "rounds_moved", "rounds_replayed"))
            print(f"| {name} | {d} | {len(batches)} | " + " | ".join(cells)
                  + f" | {spread(cd) if cd else '–'}{flag_dd} | {spread(cr) if cr else '–'}"
                  f" | {spread(aa) if aa else '–'}{flag_aa} | {counters} |")
    print()
    print("Materialisation (batch 0), ms:")
    print()
    print("| report | " + " | ".join(ENGINES) + " | counting/recompute |")
    print("|---|" + "---:|" * (len(ENGINES) + 1))
    for name, t in materialise:
        cells = [f"{t[e] / 1e6:,.0f}" if e in t else "–" for e in ENGINES]
        r = t["counting"] / t["recompute"] if "counting" in t and t.get("recompute") else 0
        print(f"| {name} | " + " | ".join(cells) + f" | {r:.1f} |")


if __name__ == "__main__":
    main(sys.argv[1:])
