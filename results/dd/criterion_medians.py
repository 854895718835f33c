#!/usr/bin/env python3
"""Tabulates the dd_vs_hand criterion benchmarks (dd-baseline/benches/handwritten.rs).

Reads target/criterion/<group>/<phase>_<engine>/<program>/new/sample.json (each sample: total
time over its iterations) and prints, per dataset, program and phase, the median time per
iteration with p10 and p90 over the samples, for every engine, then the ratios of medians
dd / hand and dd-general / hand (same run, side by side).

Usage: python3 results/dd/criterion_medians.py [criterion dir] > table.md
"""
import glob
import json
import os
import sys

ENGINES = ["dd", "dd-general", "hand", "hand-row"]
PHASES = ["materialise", "delete", "insert"]


def quantile(xs, q):
    xs = sorted(xs)
    pos = q * (len(xs) - 1)
    lo = int(pos)
    hi = min(lo + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (pos - lo)


def fmt(ns):
    if ns >= 1e9:
        return f"{ns / 1e9:.3g} s"
    if ns >= 1e6:
        return f"{ns / 1e6:.3g} ms"
    return f"{ns / 1e3:.3g} µs"


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    base = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "..", "..", "target", "criterion")
    per = {}
    for f in glob.glob(os.path.join(base, "dd_vs_hand_*", "*", "*", "new", "sample.json")):
        parts = f.split(os.sep)
        group, bench, program = parts[-5], parts[-4], parts[-3]
        phase, _, engine = bench.partition("_")
        s = json.load(open(f))
        per[(group[len("dd_vs_hand_"):], program, phase, engine)] = [
            t / n for t, n in zip(s["times"], s["iters"])
        ]
    if not per:
        sys.exit(f"no dd_vs_hand benchmarks under {base}")
    print("| dataset | program | phase | " + " | ".join(f"{e} median [p10–p90]" for e in ENGINES)
          + " | dd / hand | dd-general / hand |")
    print("|---|---|---|" + "---|" * len(ENGINES) + "---|---|")
    for dataset in sorted({k[0] for k in per}):
        for program in ["tc_linear", "reach"]:
            for phase in PHASES:
                cells, med = [], {}
                for e in ENGINES:
                    xs = per.get((dataset, program, phase, e))
                    if xs:
                        med[e] = quantile(xs, 0.5)
                        cells.append(f"{fmt(med[e])} [{fmt(quantile(xs, 0.1))}–{fmt(quantile(xs, 0.9))}]")
                    else:
                        cells.append("–")
                if "hand" not in med:
                    continue
                ratio = lambda e: f"{med[e] / med['hand']:.2f}" if e in med else "–"
                print(f"| {dataset} | {program} | {phase} | " + " | ".join(cells)
                      + f" | {ratio('dd')} | {ratio('dd-general')} |")


main()
