#!/usr/bin/env python3
"""Targets table of issue 6 from a `dredbench sweep --kinds delete --revert` report.

Odd batches delete K facts from the dataset; even batches re-insert exactly those K facts.
Medians per (dataset, program, K, operation) over the batches of that operation, each engine
measured side by side on the same batches in one run.

usage: table.py TARGETS.csv[,TARGETS.csv...] [ADVERSARIAL.csv]

Several target reports (e.g. one per change size) are pooled; batches of different stream
seeds are pooled too, so a point's median is over every batch of every seed.
"""
import csv
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # results/
from report_times import micros, open_report, positive_ns, time_ns  # noqa: E402


def med(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def spread(xs, unit=""):
    """median [p10–p90] (from 20 values on; [min–max] below), ‼ when p90/p10 > 10."""
    xs = sorted(x for x in xs if x is not None)
    if not xs:
        return "–"
    if len(xs) >= 20:
        q = statistics.quantiles(xs, n=10, method="inclusive")
        lo, hi = q[0], q[-1]
    else:
        lo, hi = xs[0], xs[-1]
    flag = " ‼" if lo > 0 and hi / lo > 10 else ""
    return f"{fmt(statistics.median(xs), unit)} [{fmt(lo, unit)}–{fmt(hi, unit)}]{flag}"


def num(v):
    return int(v) if v not in ("", None) else None


def fmt(v, unit=""):
    if v is None:
        return "–"
    if isinstance(v, float) and v < 10:
        return f"{v:.2f}{unit}"
    return f"{v:,.0f}{unit}"


def targets(paths):
    rows = [r for path in paths.split(",") for r in csv.DictReader(open_report(path))]
    errors = [r for r in rows if r.get("error")]
    cases = {}
    for r in rows:
        b = int(r["batch"])
        if b == 0:
            continue
        op = "delete" if b % 2 == 1 else "insert"
        key = (r["dataset"], r["program"], int(r["size"]), op)
        cases.setdefault(key, {}).setdefault(r["engine"], {})[(r["seed"], b)] = r
    print("| dataset | program | K | change | batches | dred µs | dd µs | recompute µs "
          "| dred / dd, per batch: median [p10–p90] | recompute / dred, likewise "
          "| over-deleted | net removed | dred probes |")
    print("|---|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for key in sorted(cases):
        e = cases[key]
        dred, dd, rc = e.get("dred", {}), e.get("dd", {}), e.get("recompute", {})
        batches = sorted(set(dred) & set(dd) & set(rc))
        t = lambda eng: med([micros(eng[b]) for b in batches])
        # Ratios are medians of per-batch ratios: each batch measured side by side.
        r_dd = [time_ns(dred[b]) / positive_ns(dd[b]) for b in batches]
        r_rc = [time_ns(rc[b]) / positive_ns(dred[b]) for b in batches]
        over = med([num(dred[b]["overdeleted"]) for b in batches])
        removed = med([int(dred[b]["model_removed"]) for b in batches])
        probes = med([sum(num(dred[b][c]) or 0 for c in
                          ("overdelete_probes", "rederive_probes", "insert_probes"))
                      for b in batches])
        ds, prog, k, op = key
        seeds = len({seed for seed, _ in batches})
        print(f"| {ds} | {prog} | {k} | {op} | {len(batches)} ({seeds} seed{'s' if seeds > 1 else ''}) | {fmt(t(dred))} | {fmt(t(dd))} "
              f"| {fmt(t(rc))} | {spread(r_dd)} | {spread(r_rc, '×')} | {fmt(over)} | {fmt(removed)} "
              f"| {fmt(probes)} |")
    print(f"\n{len(rows)} rows, {len(errors)} with an error.")


def adversarial(path):
    rows = list(csv.DictReader(open_report(path)))
    cases = {}
    for r in rows:
        if int(r["batch"]) == 0:
            continue
        key = (r["dataset"], r["program"], r["kind"], int(r["size"]))
        cases.setdefault(key, {}).setdefault(r["engine"], []).append(r)
    print("| dataset | program | kind | K | dred µs | dd µs | recompute µs | over-deleted "
          "| rederived | net removed | model | phase 1 µs | phase 2 µs |")
    print("|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for key in sorted(cases):
        e = cases[key]
        d = e.get("dred", [])
        t = lambda eng: med([micros(r) for r in e.get(eng, [])])
        ds, prog, kind, k = key
        print(f"| {ds} | {prog} | {kind} | {k} | {fmt(t('dred'))} | {fmt(t('dd'))} "
              f"| {fmt(t('recompute'))} | {fmt(med([num(r['overdeleted']) for r in d]))} "
              f"| {fmt(med([num(r['rederived']) for r in d]))} "
              f"| {fmt(med([int(r['model_removed']) for r in d]))} "
              f"| {fmt(med([int(r['model_size']) for r in d]))} "
              f"| {fmt(med([micros(r, 'overdelete') for r in d]))} "
              f"| {fmt(med([micros(r, 'rederive') for r in d]))} |")
    print(f"\n{len(rows)} rows, {sum(1 for r in rows if r.get('error'))} with an error.")


if __name__ == "__main__":
    targets(sys.argv[1])
    if len(sys.argv) > 2:
        print()
        adversarial(sys.argv[2])
