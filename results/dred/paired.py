#!/usr/bin/env python3
"""Paired per-batch comparison of one engine between two builds of dredbench.

Usage: paired.py BEFORE.csv[,BEFORE2.csv...] AFTER.csv[,AFTER2.csv...] [--engine dred]
                 [--column time_us] [--by-run] [--against dd]

Each file is a `dredbench sweep` report of the same sweep (same datasets, programs, streams
and seeds) run by one build. Batches are paired by (dataset, program, kind, size, seed,
batch); when several runs of a build are given, each pair uses the median of that build's
runs. Printed per (dataset, program, size) and for deleting and inserting batches apart: the
median of the per-batch ratios after / before, the number of pairs, and the medians of the
two times. Batch 0 (materialisation) is reported on its own line.

--column: the time compared: time (the default), overdelete, rederive or insert, read from
the report's `<column>_ns`, or `<column>_us` in reports written before times were taken in
nanoseconds (old and new reports mix). A suffix `_us` or `_ns` picks the unit printed, µs
without one: `time_us` (the default) and `time` print µs, `time_ns` ns.
--by-run: the k-th run of one build is paired with the k-th of the other (the runs having
alternated, each pair shares the machine's load), and the median is over every (run, batch)
pair rather than over batches of medians.
--against ENGINE: the ratio compared is the engine's time over ENGINE's in the same batch of
the same run (side by side), after / before: load that slows both engines cancels.
"""

import csv
import os
import statistics
import sys
from collections import defaultdict

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # results/
from report_times import open_report, time_ns  # noqa: E402

# Nanoseconds per unit of the figure printed, by the suffix of --column.
UNITS = {"_us": ("µs", 1000), "_ns": ("ns", 1)}


def split_column(column):
    """--column -> (the column without its unit, (unit printed, ns per unit))."""
    for suffix, unit in UNITS.items():
        if column.endswith(suffix):
            return column[: -len(suffix)], unit
    return column, UNITS["_us"]


def load(paths, engine, column="time_us", against=None):
    """(run, dataset, program, kind, size, seed, batch) -> (figure, deleting), where run is
    the file's position in `paths`, and figure the engine's `column` (in the unit its suffix
    names, µs without one), or its ratio to `against`'s in the same batch."""
    name, (_, per_unit) = split_column(column)
    runs = {}
    for run, path in enumerate(paths.split(",")):
        times = defaultdict(dict)
        with open_report(path) as f:
            for row in csv.DictReader(f):
                t = None if row["error"] else time_ns(row, name)
                if t is None:
                    continue
                key = (run, row["dataset"], row["program"], row["kind"], row["size"],
                       row["seed"], int(row["batch"]))
                deleting = int(row["eff_del"] or 0) > 0
                times[key][row["engine"]] = (t / per_unit, deleting)
        for key, by_engine in times.items():
            if engine not in by_engine:
                continue
            t, deleting = by_engine[engine]
            if against is not None:
                other = by_engine.get(against)
                if other is None or other[0] <= 0 or t <= 0:
                    continue
                t = t / other[0]
            runs[key] = (t, deleting)
    return runs


def pairs_of(before, after, by_run):
    """(dataset, program, size, change) -> [(before, after)]: by run, or medians over runs."""
    def merged(runs):
        out = defaultdict(list)
        for key, value in runs.items():
            out[key if by_run else key[1:]].append(value)
        return out
    b_all, a_all = merged(before), merged(after)
    groups = defaultdict(list)
    for key in sorted(b_all.keys() & a_all.keys()):
        b = statistics.median(t for t, _ in b_all[key])
        a = statistics.median(t for t, _ in a_all[key])
        deleting = b_all[key][0][1]
        change = "materialise" if key[-1] == 0 else ("delete" if deleting else "insert")
        k = key[1:] if by_run else key
        groups[(k[0], k[1], k[3], change)].append((b, a))
    return groups


def main():
    argv = sys.argv[1:]
    options = {"--engine": "dred", "--column": "time_us", "--against": None}
    args = []
    by_run = False
    i = 0
    while i < len(argv):
        if argv[i] in options and i + 1 < len(argv):
            options[argv[i]] = argv[i + 1]
            i += 2
        elif argv[i] == "--by-run":
            by_run = True
            i += 1
        elif argv[i].startswith("--"):
            sys.exit(__doc__)
        else:
            args.append(argv[i])
            i += 1
    if len(args) != 2:
        sys.exit(__doc__)
    engine, column, against = options["--engine"], options["--column"], options["--against"]
    before = load(args[0], engine, column, against)
    after = load(args[1], engine, column, against)
    groups = pairs_of(before, after, by_run)
    unit = f"/ {against}" if against else split_column(column)[1][0]
    print(f"| dataset | program | K | batches | pairs | after / before | before {unit} | "
          f"after {unit} |")
    print("|---|---|---:|---|---:|---:|---:|---:|")
    for (dataset, program, size, change), pairs in sorted(groups.items()):
        ratios = [a / b for b, a in pairs if b > 0]
        if not ratios:
            continue
        fmt = ".3f" if against else ",.0f"
        print(f"| {dataset} | {program} | {size} | {change} | {len(pairs)} | "
              f"{statistics.median(ratios):.3f} | {statistics.median(b for b, _ in pairs):{fmt}} | "
              f"{statistics.median(a for _, a in pairs):{fmt}} |")


if __name__ == "__main__":
    main()
