"""Where `auto`'s regret goes: each deleting batch's auto / best-of-(dred, bf, recompute)
put in one class, and each class's share of the sum of log regret, its batches, median,
worst and batches past 1.25x; then `auto` against `dred` where it chose DRed, beside the
A/A pair `dred@2`, by the batch's time. The classes, first match wins: a stream's first
deleting batch; a batch where an algorithm was abandoned; recomputation chosen while an
incremental algorithm was predicted cheaper (it sat out, before session 47); the best
chosen; otherwise "chosen vs best".

    python3 results/auto/where.py results/findings/report.csv.gz
"""
import collections
import csv
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from report_times import open_report, quantile, time_ns  # noqa: E402

FIXED = ("dred", "bf", "recompute")


def main(path):
    batches = collections.defaultdict(dict)
    for r in csv.DictReader(open_report(path)):
        if r["batch"] != "0" and not r.get("error"):
            key = (r["dataset"], r["program"], r["kind"], r["size"], r["seed"], r["stream"])
            batches[key + (int(r["batch"]),)][r["engine"]] = r
    first, seen = set(), set()
    for key in sorted(batches):
        auto = batches[key].get("auto")
        if auto and int(auto["eff_del"]) > 0 and key[:6] not in seen:
            seen.add(key[:6])
            first.add(key)
    classes = collections.defaultdict(list)
    overhead = collections.defaultdict(lambda: ([], []))
    for key, e in batches.items():
        auto = e.get("auto")
        if not auto or not all(x in e for x in FIXED) or int(auto["eff_del"]) == 0:
            continue
        t = {x: max(1, time_ns(e[x])) for x in FIXED + ("auto",)}
        best = min(FIXED, key=lambda x: t[x])
        predicted = [float(auto[f"predicted_{m}_ns"] or 0) for m in FIXED]
        chosen = auto["chosen"]
        if key in first:
            c = "a stream's first deletion"
        elif int(auto["abandoned"] or 0) > 0:
            c = "abandoned"
        elif chosen == "recompute" and min(predicted[:2]) < predicted[2]:
            c = "sat out"
        elif chosen == best:
            c = "best chosen"
        else:
            c = f"{chosen} where {best} was best"
        classes[c].append(t["auto"] / t[best])
        if chosen == "dred" and auto["abandoned"] == "0":
            scale = next(s for s, top in (("< 20 µs", 2e4), ("< 200 µs", 2e5), ("< 1 ms", 1e6),
                                          (">= 1 ms", math.inf)) if t["dred"] < top)
            overhead[scale][0].append(t["auto"] / t["dred"])
            if "dred@2" in e:
                overhead[scale][1].append(max(1, time_ns(e["dred@2"])) / t["dred"])
    total = sum(math.log(r) for rs in classes.values() for r in rs)
    print("| class | share of log regret | batches | median | worst | past 1.25x |")
    print("|---|---:|---:|---:|---:|---:|")
    for c, rs in sorted(classes.items(), key=lambda kv: -sum(map(math.log, kv[1]))):
        print(f"| {c} | {100 * sum(map(math.log, rs)) / total:.0f}% | {len(rs)} | "
              f"{quantile(rs, .5):.2f} | {max(rs):.1f} | {sum(r > 1.25 for r in rs)} |")
    print()
    print("| dred's time | auto / dred where auto chose DRed: batches, median [p10, p90] "
          "| dred@2 / dred: batches, median [p10, p90] |")
    print("|---|---|---|")
    for scale, (a, aa) in sorted(overhead.items()):
        fmt = lambda xs: (f"{len(xs)}, {quantile(xs, .5):.2f} [{quantile(xs, .1):.2f}, "
                          f"{quantile(xs, .9):.2f}]" if xs else "–")
        print(f"| {scale} | {fmt(a)} | {fmt(aa)} |")


if __name__ == "__main__":
    main(sys.argv[1])
