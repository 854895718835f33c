#!/usr/bin/env python3
"""Program-analysis sweeps (issue 36): per dataset, program, kind and size, and per direction
of a reverted stream (the odd batches delete, the even ones put back), the model, DRed's
over-deletion and the net removal (medians), and per engine the median time per batch with
p10 and p90 and the worst batch, and the median per-batch ratio recompute / engine. The A/A
column is `dred@2` / `dred` (median [p10, p90]); ⚠ outside [0.9, 1.1].

    python3 results/analyses/table.py REPORT.csv [REPORT.csv ...]
"""
import csv
import os
import statistics
import sys
from collections import defaultdict

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from report_times import open_report, rank, time_ns, us  # noqa: E402

ENGINES = ("dred", "bf", "dd", "recompute")


def main():
    cases = defaultdict(lambda: defaultdict(dict))
    for path in sys.argv[1:]:
        for r in csv.DictReader(open_report(path)):
            if r["batch"] == "0" or r.get("error"):
                continue
            b = int(r["batch"])
            direction = "delete" if b % 2 == 1 else "put back"
            # `run` reports leave kind and size empty: the stream's name stands for them.
            kind = r["kind"] or r.get("stream", "")
            key = (r["dataset"], r["program"], kind, r["size"], direction)
            cases[key][r["engine"]][b] = r
    print("| dataset | program | kind | K | batches | direction | model | dred over-deleted | net removed | "
          + " | ".join(f"{e} µs median [p10, p90] worst" for e in ENGINES)
          + " | recompute / dred | recompute / bf | recompute / dd | A/A dred@2 / dred |")
    print("|---|---|---|---:|---:|---|---:|---:|---:|" + "---:|" * (len(ENGINES) + 4))
    for key in sorted(cases):
        eng = cases[key]
        batches = sorted(eng["dred"])
        med = lambda xs: statistics.median(xs)
        cells = []
        for e in ENGINES:
            if e not in eng:
                cells.append("–")
                continue
            t = [time_ns(eng[e][b]) for b in batches]
            cells.append(f"{us(med(t))} [{us(rank(t, .1))}, {us(rank(t, .9))}] {us(max(t))}")
        ratios = []
        for e in ("dred", "bf", "dd"):
            if e not in eng:
                ratios.append("–")
                continue
            v = [time_ns(eng["recompute"][b]) / max(1, time_ns(eng[e][b])) for b in batches]
            worst = min(v)
            flag = f" ‼ worst {1 / worst:.1f}× recompute" if worst < 1 / 3 else ""
            ratios.append(f"{med(v):,.1f}×{flag}")
        aa = "–"
        if "dred@2" in eng:
            v = [time_ns(eng["dred@2"][b]) / max(1, time_ns(eng["dred"][b])) for b in batches]
            m = med(v)
            aa = f"{m:.2f} [{rank(v, .1):.2f}, {rank(v, .9):.2f}]" + ("" if 0.9 <= m <= 1.1 else " ⚠")
        d = [eng["dred"][b] for b in batches]
        over = med(int(r["overdeleted"] or 0) for r in d)
        removed = med(int(r["model_removed"]) for r in d)
        model = max(int(r["model_size"]) for r in d)
        print(f"| {key[0]} | {key[1]} | {key[2]} | {key[3]} | {len(batches)} | {key[4]} | {model:,} | {over:,.0f} | "
              f"{removed:,.0f} | " + " | ".join(cells) + " | " + " | ".join(ratios) + f" | {aa} |")


if __name__ == "__main__":
    main()
