"""Regret of `auto`: per deleting batch, auto's time over the best of dred, bf and recompute
measured beside it in the same run (same batch, same model), and the confusion of its choice.

    python3 results/auto/regret.py REPORT.csv.gz [REPORT ...]

Prints, per workload (dataset, program, change size): batches, median / p90 / worst regret,
the choices (`!` = abandoned); then the same over all batches, the share within 1.25x and 2x,
the geometric means of auto / best and of each fixed engine / best, the batches where auto
exceeds 2x recompute, and the confusion table (chosen against the best of the three).
Batches without deletions are left out (every engine does the same: insertion only).
Times are the time each call ran on a CPU (`time_ns` less `descheduled_ns` where the report
has it), as `dredbench findings` reads them. A recomputation scouted by an incremental
algorithm (the `scout` column) is a row of its own in the confusion table.
Then auto's own cost: on the batches where it ran DRed or B/F to the end, its time over
that engine's beside it, by the engine's time.
When the reports hold `dred@2` (the A/A instance), also the noise floor: on the batches where
`dred` was the best, `dred@2` over the best, a perfect chooser timed again."""
import collections
import csv
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from report_times import open_report, quantile, time_ns  # noqa: E402

FIXED = ("dred", "bf", "recompute")


def ran_ns(row):
    """The row's time less its wait for a CPU (`descheduled_ns`, empty in older reports);
    the wall time when the wait is longer (read outside the clock's window), as
    `ReportRow::scheduled_ns` does."""
    t = time_ns(row)
    waited = float(row.get("descheduled_ns") or 0)
    return max(1, t if waited > t else t - waited)


def scouted(auto):
    """`, dred scouted` for a recomputation a scout ran before, else empty."""
    scout = auto.get("scout")
    return f", {scout} scouted" if scout else ""


def geomean(xs):
    return math.exp(sum(map(math.log, xs)) / len(xs))


def main(paths):
    batches = collections.defaultdict(dict)
    for path in paths:
        for r in csv.DictReader(open_report(path)):
            if r["batch"] == "0" or r.get("error"):
                continue
            key = (path, r["dataset"], r["program"], r["kind"], r["size"], r["seed"],
                   r["stream"], r["batch"])
            batches[key][r["engine"]] = r
    per_workload = collections.defaultdict(list)
    for key, engines in sorted(batches.items()):
        if "auto" not in engines or not all(e in engines for e in FIXED):
            continue
        auto = engines["auto"]
        if int(auto["eff_del"]) == 0:
            continue
        t = {e: ran_ns(engines[e]) for e in FIXED + ("auto",)}
        best = min(FIXED, key=lambda e: t[e])
        if "dred@2" in engines:
            t["dred@2"] = ran_ns(engines["dred@2"])
        per_workload[(key[1][:24], key[2], key[4])].append(
            (t["auto"] / t[best], auto["chosen"] + scouted(auto), auto["abandoned"] not in ("", "0"),
             best, t))
    everything = [x for xs in per_workload.values() for x in xs]
    if not everything:
        sys.exit("no deleting batch with auto, dred, bf and recompute side by side")
    print("| dataset | program | size | batches | median | p90 | worst | chosen (! abandoned) |")
    print("|---|---|---:|---:|---:|---:|---:|---|")
    for (dataset, program, size), xs in per_workload.items():
        rs = [x[0] for x in xs]
        chosen = collections.Counter(x[1] + ("!" if x[2] else "") for x in xs)
        print(f"| {dataset} | {program} | {size} | {len(xs)} | {quantile(rs, 0.5):.2f} | "
              f"{quantile(rs, 0.9):.2f} | {max(rs):.2f} | "
              + ", ".join(f"{k} {v}" for k, v in sorted(chosen.items())) + " |")
    rs = [x[0] for x in everything]
    n = len(rs)
    print()
    print(f"all {n} deleting batches: auto / best median {quantile(rs, 0.5):.2f}, "
          f"p90 {quantile(rs, 0.9):.2f}, worst {max(rs):.2f}; "
          f"within 1.25x {100 * sum(r <= 1.25 for r in rs) / n:.1f}%, "
          f"within 2x {100 * sum(r <= 2 for r in rs) / n:.1f}%")
    print("geometric mean over best: auto {:.2f}, ".format(geomean(rs)) + ", ".join(
        f"{e} {geomean([x[4][e] / x[4][x[3]] for x in everything]):.2f}" for e in FIXED))
    over = [x for x in everything if x[4]["auto"] > 2 * x[4]["recompute"]]
    print(f"batches where auto > 2x recompute: {len(over)} of {n}")
    # auto's own cost: on the batches where it ran one incremental algorithm to the end (no
    # scout, no abandonment), its time over that algorithm's engine beside it.
    own = [(x[4]["auto"] / x[4][x[1]], x[4][x[1]]) for x in everything
           if x[1] in ("dred", "bf") and not x[2]]
    for low, high, name in ((0, 1e4, "under 10 us"), (1e4, 1e5, "10-100 us"),
                            (1e5, 1e6, "0.1-1 ms"), (1e6, math.inf, "1 ms or more")):
        xs = [r for r, t in own if low <= t < high]
        if xs:
            print(f"auto / the engine it ran, batches {name}: {len(xs)}, median "
                  f"{quantile(xs, 0.5):.2f}, geometric mean {geomean(xs):.2f}")
    floor = [x[4]["dred@2"] / x[4]["dred"] for x in everything
             if x[3] == "dred" and "dred@2" in x[4]]
    if floor:
        auto_there = [x[0] for x in everything if x[3] == "dred" and "dred@2" in x[4]]
        print(f"noise floor, the {len(floor)} batches where dred was best: dred@2 / best "
              f"within 1.25x {100 * sum(r <= 1.25 for r in floor) / len(floor):.1f}%, "
              f"geometric mean {geomean(floor):.2f}; auto there "
              f"{100 * sum(r <= 1.25 for r in auto_there) / len(auto_there):.1f}%, "
              f"{geomean(auto_there):.2f}")
    print()
    print("| chosen \\ best | " + " | ".join(FIXED) + " |")
    print("|---|" + "---:|" * len(FIXED))
    choices = list(FIXED) + [f"recompute, {s} scouted" for s in ("dred", "bf")]
    for chosen in choices:
        for abandoned in (False, True):
            row = [sum(1 for x in everything if x[1] == chosen and x[2] == abandoned
                       and x[3] == b) for b in FIXED]
            if sum(row):
                name = chosen + (" (abandoned)" if abandoned else "")
                print(f"| {name} | " + " | ".join(map(str, row)) + " |")


if __name__ == "__main__":
    main(sys.argv[1:])
