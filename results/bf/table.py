#!/usr/bin/env python3
"""The targets table of `bf` (issue 25) from `dredbench sweep` reports with the engines
`dred`, `bf`, `dd` and `recompute` side by side (`targets.sh`).

usage: table.py REPORT.csv [REPORT.csv ...]

One row per (dataset, program, change size, kind of batch): deleting batches are the odd ones
of a `--revert` sweep, re-inserting ones the even ones. Per row, over the batches of every
seed: the model's size; the medians of `bf`'s deleted set (`overdeleted` of `bf`), of `dred`'s
over-deleted set and of the net removal; `bf`'s median checks and backward instances; each
engine's median time; and the medians [p10, p90] of the per-batch ratios bf / dd,
recompute / bf and bf / dred (each batch measured side by side). The last column says which
target of the issue the row is for and whether the median meets it.
"""
import csv
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # results/
from report_times import micros, open_report, positive_micros  # noqa: E402

ENGINES = ("dred", "bf", "dd", "recompute")


def quantiles(xs):
    """Median, p10 and p90 (inclusive method; one value gives itself)."""
    xs = sorted(xs)
    if len(xs) == 1:
        return xs[0], xs[0], xs[0]
    q = statistics.quantiles(xs, n=10, method="inclusive")
    return statistics.median(xs), q[0], q[-1]


def fmt_ratio(xs):
    m, lo, hi = quantiles(xs)
    return f"{m:.2f} [{lo:.2f}, {hi:.2f}]"


def fmt_big(xs):
    m, lo, hi = quantiles(xs)
    return f"{m:,.0f} [{lo:,.0f}, {hi:,.0f}]"


def target(dataset, program, size, deleting, nodes):
    """(description, test on the medians) of the issue's target for a row, or None."""
    if dataset.startswith("gen:rmat") and program == "reach_root" and deleting:
        if size == 1 and nodes in (65536, 262144):
            return ("bf ≤ 0.5 × dd, ≥ 100 × recompute",
                    lambda r: r["bf/dd"] <= 0.5 and r["recompute/bf"] >= 100)
        if size == 1000 and nodes == 262144:
            return ("bf ≤ 1.0 × dd", lambda r: r["bf/dd"] <= 1.0)
    if dataset in ("go-bp", "wordnet") and size == 1:
        return ("bf ≤ 1.5 × dred", lambda r: r["bf/dred"] <= 1.5)
    return None


def nodes_of(dataset):
    for part in dataset.split("?")[-1].split("&"):
        if part.startswith("n="):
            return int(part[2:])
    return None


def rows_of(paths):
    by_case = {}
    for path in paths:
        for r in csv.DictReader(open_report(path)):
            if r.get("error"):
                sys.exit(f"{path}: a row with an error: {r['error']}")
            key = (r["dataset"], r["program"], int(r["size"]))
            by_case.setdefault(key, {}).setdefault(r["engine"], {})[
                (r["seed"], int(r["batch"]))] = r
    out = []
    order = lambda item: (item[0][0].split("?")[0], nodes_of(item[0][0]) or 0, item[0])
    for (dataset, program, size), engines in sorted(by_case.items(), key=order):
        missing = [e for e in ENGINES if e not in engines]
        if missing:
            sys.exit(f"{dataset} {program} {size}: no rows of {missing}")
        common = set.intersection(*(set(engines[e]) for e in ENGINES))
        model = int(next(r for b, r in engines["bf"].items() if b[1] == 0)["model_size"])
        for deleting in (True, False):
            batches = sorted(b for b in common if b[1] > 0 and (b[1] % 2 == 1) == deleting)
            if not batches:
                continue
            t = {e: [micros(engines[e][b]) for b in batches] for e in ENGINES}
            # Divisors: a time of 0 counts as 1 µs (max(1, time_us) on old reports).
            d = {e: [positive_micros(engines[e][b]) for b in batches] for e in ENGINES}
            field = lambda e, f: [int(engines[e][b][f] or 0) for b in batches]
            ratio = lambda a, b: [x / y for x, y in zip(t[a], d[b])]
            row = {
                "dataset": dataset, "program": program, "size": size,
                "kind": "delete" if deleting else "re-insert", "batches": len(batches),
                "model": model,
                "bf deleted": statistics.median(field("bf", "overdeleted")),
                "dred over-deleted": statistics.median(field("dred", "overdeleted")),
                "net removed": statistics.median(field("bf", "model_removed")),
                "checked": statistics.median(field("bf", "checked")),
                "backward": statistics.median(field("bf", "backward_instances")),
                "times": {e: quantiles(t[e]) for e in ENGINES},
                "ratios": {
                    "bf/dd": ratio("bf", "dd"),
                    "recompute/bf": ratio("recompute", "bf"),
                    "bf/dred": ratio("bf", "dred"),
                },
            }
            for k, xs in row["ratios"].items():
                row[k] = statistics.median(xs)
            goal = target(dataset, program, size, deleting, nodes_of(dataset))
            row["target"] = (f"{goal[0]}: **{'met' if goal[1](row) else 'not met'}**"
                             if goal else "–")
            out.append(row)
    return out


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    rows = rows_of(sys.argv[1:])
    print("| dataset | program | K | batches | model | bf deleted | dred over-deleted | net "
          "removed | bf checked | bf backward instances | dred µs | bf µs | dd µs | "
          "recompute µs | bf / dd | recompute / bf | bf / dred | target |")
    print("|" + "---|" * 18)
    for r in rows:
        times = " | ".join(f"{r['times'][e][0]:,.0f}" for e in ENGINES)
        ratios = " | ".join(fmt_ratio(r["ratios"][k])
                            for k in ("bf/dd", "recompute/bf", "bf/dred"))
        name = r["dataset"].split("&seed")[0]
        print(f"| {name} | {r['program']} | {r['size']:,} {r['kind']} | {r['batches']} | "
              f"{r['model']:,} | {r['bf deleted']:,.0f} | {r['dred over-deleted']:,.0f} | "
              f"{r['net removed']:,.0f} | {r['checked']:,.0f} | {r['backward']:,.0f} | "
              f"{times} | {ratios} | {r['target']} |")
    print()
    print("Times are medians over the row's batches; ratios are medians [p10, p90] of per-batch "
          "ratios. p10 / p90 of the times:")
    print()
    print("| dataset | program | K | " + " | ".join(f"{e} p10–p90 µs" for e in ENGINES) + " |")
    print("|" + "---|" * 7)
    for r in rows:
        spans = " | ".join(f"{r['times'][e][1]:,.0f}–{r['times'][e][2]:,.0f}" for e in ENGINES)
        print(f"| {r['dataset'].split('&seed')[0]} | {r['program']} | {r['size']:,} "
              f"{r['kind']} | {spans} |")


if __name__ == "__main__":
    main()
