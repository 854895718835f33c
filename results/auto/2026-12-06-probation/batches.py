"""Per batch of one report: each fixed engine's time, auto's, its choice, abandonments and
predictions (µs), and DRed's over-deletion: how a stream's choices went.

    python3 results/auto/2026-12-06-probation/batches.py REPORT.csv.gz [DATASET_PREFIX [SIZE]]
"""
import collections
import csv
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
from report_times import open_report, time_ns  # noqa: E402


def main(path, prefix="", size=None):
    batches = collections.defaultdict(dict)
    for r in csv.DictReader(open_report(path)):
        if r["dataset"].startswith(prefix) and size in (None, r["size"]):
            batches[(r["dataset"], r["program"], r["stream"], int(r["batch"]))][r["engine"]] = r
    print("dataset program stream batch | D- A+ | dred bf recompute auto (µs) | chosen abandoned "
          "| predicted dred bf recompute (µs) | dred overdeleted rederived")
    for key in sorted(batches):
        e = batches[key]
        a = e.get("auto")
        if a is None:
            continue
        t = {x: (f"{time_ns(e[x]) / 1e3:.0f}" if x in e else "-")
             for x in ("dred", "bf", "recompute", "auto")}
        pred = [f"{int(a[c] or 0) / 1e3:.0f}"
                for c in ("predicted_dred_ns", "predicted_bf_ns", "predicted_recompute_ns")]
        d = e.get("dred", {})
        print(" ".join(map(str, key)), "|", a["eff_del"], a["eff_ins"], "|",
              " ".join(t.values()), "|", a["chosen"] or "-", a["abandoned"] or "-", "|",
              " ".join(pred), "|", d.get("overdeleted", "-"), d.get("rederived", "-"))


if __name__ == "__main__":
    main(*sys.argv[1:])
