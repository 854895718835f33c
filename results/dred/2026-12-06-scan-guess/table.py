"""Before/after table of `dred` for the unmeasured scan's guess (session 47): per case, the
deleting batches' `dred` / `recompute` (median, p10, p90, worst batch, both measured in the
same run) and phase 2's work (probes plus rows touched, summed; deterministic), for the
reports of the binary before and after.

    python3 results/dred/2026-12-06-scan-guess/table.py BEFORE.csv.gz... -- AFTER.csv.gz...
"""
import collections
import csv
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
from report_times import open_report, quantile, time_ns  # noqa: E402


def load(paths):
    batches = collections.defaultdict(dict)
    for path in paths:
        for r in csv.DictReader(open_report(path)):
            if r["batch"] == "0" or r.get("error"):
                continue
            case = (r["dataset"][:24], r["program"], r["kind"], r["size"])
            batches[(case, r["stream"], r["batch"])][r["engine"]] = r
    cases = collections.defaultdict(lambda: ([], 0))
    for (case, _, _), e in batches.items():
        if "dred" not in e or "recompute" not in e or int(e["dred"]["eff_del"] or 0) == 0:
            continue
        d = e["dred"]
        ratios, work = cases[case]
        ratios.append(time_ns(d) / max(1, time_ns(e["recompute"])))
        work += int(d["rederive_probes"] or 0) + int(d["rederive_touched"] or 0)
        cases[case] = (ratios, work)
    return cases


def main(args):
    split = args.index("--")
    before, after = load(args[:split]), load(args[split + 1:])
    print("| dataset | program | kind | size | batches | dred / recompute before: median [p10, p90] worst "
          "| after | phase 2 work before → after |")
    print("|---|---|---|---:|---:|---|---|---|")
    changed = 0
    for case in sorted(before):
        if case not in after:
            continue
        (rb, wb), (ra, wa) = before[case], after[case]
        fmt = lambda rs: (f"{quantile(rs, .5):.2f} [{quantile(rs, .1):.2f}, {quantile(rs, .9):.2f}] "
                          f"{max(rs):.2f}")
        mark = "" if wb == wa else " ←"
        changed += wb != wa
        print(f"| {' | '.join(case)} | {len(rb)} | {fmt(rb)} | {fmt(ra)} | {wb:,} → {wa:,}{mark} |")
    print(f"\n{changed} of {len(before)} cases changed phase 2's work (←).")


if __name__ == "__main__":
    main(sys.argv[1:])
