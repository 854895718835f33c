#!/usr/bin/env python3
"""What the engine that ran just before does to a timed call: for an A/A pair (`dred@2`,
`dred`), each instance's time on a batch over the geometric mean of the pair's two times on
that batch, grouped by the engine that ran right before it (`FIRST`: the batch's first call,
after the harness's own work between batches) and by its place. The pair does the same work
on every batch (its counters are equal), so a group whose median leaves 1 is an effect of the
context the call inherits (caches, TLB, branch predictors), not of the engine.

    python3 results/clock/predecessor.py report.csv[.gz] [--pair dred@2/dred]

Prints a Markdown table: group, calls, p10, median, p90 (nearest rank).
"""
import collections
import csv
import gzip
import math
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from report_times import time_ns  # noqa: E402


def rank(v, q):
    return v[min(len(v), max(1, math.ceil(q * len(v)))) - 1]


def main():
    args = sys.argv[1:]
    pair = ("dred@2", "dred")
    if "--pair" in args:
        i = args.index("--pair")
        pair = tuple(args[i + 1].split("/"))
        del args[i : i + 2]
    if len(args) != 1:
        sys.exit(__doc__)
    path = args[0]
    opener = gzip.open if path.endswith(".gz") else open
    batches = collections.defaultdict(dict)
    with opener(path, "rt", newline="") as f:
        for r in csv.DictReader(f):
            if r.get("error") or not r.get("position") or r["batch"] == "0":
                continue
            key = (r["dataset"], r["program"], r.get("stream", ""), r["batch"])
            batches[key][r["engine"]] = r
    after = collections.defaultdict(list)
    place = collections.defaultdict(list)
    for calls in batches.values():
        if not all(e in calls for e in pair):
            continue
        times = {e: time_ns(calls[e]) for e in pair}
        if any(t is None or t <= 0 for t in times.values()):
            continue
        mean = math.sqrt(times[pair[0]] * times[pair[1]])
        by_place = {int(r["position"]): e for e, r in calls.items()}
        for e in pair:
            p = int(calls[e]["position"])
            after[by_place.get(p - 1, "FIRST")].append(times[e] / mean)
            place[p].append(times[e] / mean)
    print(f"| call | calls | p10 | median | p90 |  ({pair[0]} and {pair[1]}, time over the pair's geometric mean)")
    print("|---|---:|---:|---:|---:|")
    for label, groups in (("after", after), ("place", place)):
        for g in sorted(groups, key=str):
            v = sorted(groups[g])
            print(
                f"| {label} {g} | {len(v)} | {rank(v, 0.1):.2f} | {rank(v, 0.5):.2f} | {rank(v, 0.9):.2f} |"
            )


if __name__ == "__main__":
    main()
