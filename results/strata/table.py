#!/usr/bin/env python3
"""Tabulates the DRed-across-strata workload reports (sweep CSVs) of a run folder.

usage: python3 results/strata/table.py results/strata/2026-12-02-workloads

Per dataset, program, kind (`delete:part_of` names the relation changed; a reverted stream's
odd batches, which change, and even batches, which undo, apart) and change size:
the IDB size, and per engine the median time per batch with the minimum and maximum (fewer
than 20 batches), `dred`'s median over-deleted, rederived and inserted facts, the median net
change of the IDB, and the median of the per-batch ratios recompute / engine. Batch 0
(materialisation) is listed apart: its time per engine.
"""
import csv
import glob
import os
import statistics
import sys
from collections import defaultdict

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # results/
from report_times import micros, open_report, positive_micros  # noqa: E402


def fmt_us(us):
    if us >= 1e6:
        return f"{us / 1e6:.2f} s"
    if us >= 1e3:
        return f"{us / 1e3:.1f} ms"
    return f"{us:.0f} µs"


def main(folder):
    rows = []
    paths = glob.glob(os.path.join(folder, "*.csv")) + glob.glob(os.path.join(folder, "*.csv.gz"))
    for path in sorted(paths):
        rows.extend(csv.DictReader(open_report(path)))
    cases = defaultdict(lambda: defaultdict(dict))
    for r in rows:
        kind = r["kind"]
        b = int(r["batch"])
        if r["stream"].endswith("-revert"):
            # Reverted streams: odd batches change, even batches undo (see METHODOLOGY).
            if b == 0:
                continue
            kind += ", reverted: odd batches" if b % 2 else ", reverted: even batches (undo)"
        key = (r["dataset"], r["program"], kind, int(r["size"]))
        cases[key][r["engine"]][b] = r
    engines = ["dred", "bf", "dd", "recompute"]
    print("| dataset | program | kind | k | IDB | engine | time median [min–max] | recompute / engine (median of batches) | over-deleted | rederived | inserted | net change |")
    print("|---|---|---|---:|---:|---|---|---:|---:|---:|---:|---:|")
    materialise = {}
    for key in sorted(cases):
        by_engine = cases[key]
        rec = by_engine.get("recompute", {})
        for e in engines:
            batches = {b: r for b, r in by_engine.get(e, {}).items() if b > 0 and not r["error"]}
            if not batches:
                continue
            if 0 in by_engine.get(e, {}):
                materialise.setdefault(key[:2], {}).setdefault(e, []).append(
                    micros(by_engine[e][0]))
            times = [micros(r) for r in batches.values()]
            ratios = [micros(rec[b]) / positive_micros(r)
                      for b, r in batches.items() if b in rec]
            med = lambda col: (statistics.median(int(r[col]) for r in batches.values())
                               if all(r[col] for r in batches.values()) else None)
            net = statistics.median(int(r["model_removed"]) + int(r["model_added"])
                                    for r in batches.values())
            idb = list(batches.values())[-1]["model_size"]
            cells = [
                *key[:3], str(key[3]), idb, e,
                f"{fmt_us(statistics.median(times))} [{fmt_us(min(times))}–{fmt_us(max(times))}]",
                f"{statistics.median(ratios):.1f}" if ratios else "",
                *(f"{m:g}" if (m := med(c)) is not None else "" for c in ("overdeleted", "rederived", "inserted")),
                f"{net:g}",
            ]
            print("| " + " | ".join(cells) + " |")
    print()
    print("| dataset | program | engine | materialisation, median over the cases [min–max] |")
    print("|---|---|---|---|")
    for (dataset, program), by_engine in sorted(materialise.items()):
        for e in engines:
            if e in by_engine:
                t = by_engine[e]
                print(f"| {dataset} | {program} | {e} | {fmt_us(statistics.median(t))} [{fmt_us(min(t))}–{fmt_us(max(t))}] |")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__)))
