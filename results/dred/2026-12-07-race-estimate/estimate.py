#!/usr/bin/env python3
"""What a *race* would buy `dred` (issue 37), estimated from a full study's counters, not
built: phase 1 pausing at work checkpoints c_k = 50,000 x 4^k units, and at each trying a
recomputation of the level under a budget of f x c_k units, kept if it finishes. The
estimate per batch, in `dred`'s own nanoseconds per unit of work on that batch:

- a batch that did not saturate pays every failed try below its phase 1's work W1:
  sum of f x c_k over c_k < W1;
- a saturated batch (its recomputation's work R is in the rederive columns) stops at the
  first checkpoint c with f x c >= R, below its W1, and pays the failed tries before it,
  then c of phase 1, R and phase 3; otherwise as above.

Prints, per f, the batches past 3 x `recompute` before and after, and the batches the tries
slow by more than a tenth. Usage: estimate.py REPORT.csv.gz
"""
import collections
import csv
import gzip
import sys


def num(x):
    try:
        return int(x)
    except (TypeError, ValueError):
        return 0


def main():
    rows = list(csv.DictReader(gzip.open(sys.argv[1], "rt")))
    by = collections.defaultdict(dict)
    for r in rows:
        if r["batch"] == "0" or r["error"]:
            continue
        by[(r["dataset"], r["program"], r["stream"], r["batch"])][r["engine"]] = r
    print("| f (try budget / checkpoint) | batches | dred past 3x recompute, as measured | estimated with tries | batches slowed > 10% by failed tries |")
    print("|---:|---:|---:|---:|---:|")
    for f in (1.0, 0.5, 0.25, 0.125):
        before = after = slowed = n = 0
        for e in by.values():
            d, rc = e.get("dred"), e.get("recompute")
            if not d or not rc or not d["time_ns"] or not rc["time_ns"]:
                continue
            w1 = num(d["overdelete_probes"]) + num(d["overdelete_touched"])
            w2 = num(d["rederive_probes"]) + num(d["rederive_touched"])
            w3 = num(d["insert_probes"]) + num(d["insert_touched"])
            total = w1 + w2 + w3
            if total == 0:
                continue
            n += 1
            t, trc = int(d["time_ns"]), int(rc["time_ns"])
            per_unit = t / total
            saturated = d["saturated"] not in ("", "0")
            c, tries, new = 50_000, 0.0, t
            if saturated:
                while c < w1 and f * c < w2:
                    tries += f * c
                    c *= 4
                new = (c + tries + w2 + w3) * per_unit if c < w1 else t + tries * per_unit
            else:
                while c < w1:
                    tries += f * c
                    c *= 4
                new = t + tries * per_unit
                slowed += tries > 0.1 * total
            before += t > 3 * trc
            after += new > 3 * trc
        print(f"| {f} | {n:,} | {before} | {after} | {slowed} |")


main()
