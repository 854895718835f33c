"""The protocol's overhead from `dredbench run --engines dred,ext:dred` reports: per batch
(materialisation excluded), the ratio of `ext:dred`'s time (the harness's wall time around
the exchange) to `dred`'s time on the same batch in the same run; its median, p10 and p90
and the worst batch, over batches where `dred` took at least 1 ms and over those below.
Also the engine's own time (`engine_ns`, what `dredbench serve` measured around `apply`)
over `dred`'s, which is what tracing the rounds' facts costs inside the engine. Where the
served engine's answers carry `serve`'s own figures (`read_ns`, `format_ns`, `serve_ns`,
since 2026-12-05), the ratio on batches of at least 1 ms is split into its parts, each as a
fraction of `dred`'s time: the engine, reading the batch (parsing its lines and checking it
against the EDB), formatting the answer, the rest of `serve`'s work (taking the change,
freeing), and the exchange outside `serve` (writing and reading the pipes, waking up).

    python3 results/ext/overhead.py REPORT.csv [REPORT.csv ...]
"""
import csv
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from report_times import open_report  # noqa: E402


def quantile(xs, q):
    """Nearest-rank quantile of a sorted list."""
    return xs[min(len(xs) - 1, max(0, round(q * (len(xs) - 1))))]


def batches(path):
    rows = {}
    with open_report(path) as f:
        for r in csv.DictReader(f):
            if r["batch"] == "0" or r.get("error"):
                continue
            rows.setdefault((r["program"] + "/" + r["stream"], int(r["batch"])), {})[r["engine"]] = r
    for (stream, batch), by_engine in sorted(rows.items()):
        if "dred" in by_engine and "ext:dred" in by_engine:
            d, e = by_engine["dred"], by_engine["ext:dred"]
            served = {k: int(v) for k, v in re.findall(r"(\w+_ns)=(\d+)", e.get("counters") or "")}
            yield stream, batch, int(d["time_ns"]), int(e["time_ns"]), int(
                e["engine_ns"] or 0
            ), int(d["model_removed"]) + int(d["model_added"]), served


def summary(label, items):
    if not items:
        return f"| {label} | 0 | | | | |"
    ratios = sorted(e / d for _, _, d, e, _, _, _ in items)
    own = sorted(o / d for _, _, d, _, o, _, _ in items)
    worst = max(items, key=lambda i: i[3] / i[2])
    dred = sorted(i[2] for i in items)
    return (
        f"| {label} | {len(items)} | {quantile(dred, 0.5) / 1e6:.3f} | "
        f"{quantile(ratios, 0.5):.3f} [{quantile(ratios, 0.1):.3f}–{quantile(ratios, 0.9):.3f}] | "
        f"{worst[3] / worst[2]:.3f} ({worst[0]} batch {worst[1]}: {worst[2] / 1e6:.3f} ms → "
        f"{worst[3] / 1e6:.3f} ms, {worst[5]} facts changed) | "
        f"{quantile(own, 0.5):.3f} [{quantile(own, 0.1):.3f}–{quantile(own, 0.9):.3f}] |"
    )


def main(paths):
    items = [b for p in paths for b in batches(p)]
    big = [i for i in items if i[2] >= 1_000_000]
    small = [i for i in items if i[2] < 1_000_000]
    print("| batches | n | dred median (ms) | ext:dred / dred, median [p10–p90] | worst batch "
          "| engine_ns / dred, median [p10–p90] |")
    print("|---|---|---|---|---|---|")
    print(summary("dred ≥ 1 ms", big))
    print(summary("dred < 1 ms", small))
    print(summary("all", items))
    # Where the extra time goes: a fixed cost per exchange and a cost per fact shipped.
    # Least squares of (ext:dred - dred) against the facts changed; and the part outside the
    # served engine's own time (ext:dred - engine_ns), which is the protocol proper.
    def fit(ys):
        xs = [i[5] for i in items]
        n = len(xs)
        mx, my = sum(xs) / n, sum(ys) / n
        sxx = sum((x - mx) ** 2 for x in xs)
        b = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx if sxx else 0.0
        return my - b * mx, b
    extra = fit([i[3] - i[2] for i in items])
    outside = fit([i[3] - i[4] for i in items])
    small = sorted(i[3] - i[4] for i in items if i[5] <= 10)
    print()
    print(f"ext:dred - dred ≈ {extra[0] / 1e3:.0f} µs + {extra[1]:.0f} ns × facts changed "
          f"(least squares over {len(items)} batches)")
    print(f"ext:dred - engine_ns ≈ {outside[0] / 1e3:.0f} µs + {outside[1]:.0f} ns × facts "
          f"changed; on batches changing at most 10 facts, median "
          f"{quantile(small, 0.5) / 1e3:.0f} µs [p10 {quantile(small, 0.1) / 1e3:.0f}, "
          f"p90 {quantile(small, 0.9) / 1e3:.0f}]" if small else "")
    parts(big)


def parts(big):
    """The ratio's parts on batches of at least 1 ms, from `serve`'s figures."""
    split = [i for i in big if "serve_ns" in i[6] and "read_ns" in i[6]]
    if not split:
        return
    def row(label, f):
        xs = sorted(f(i) / i[2] for i in split)
        return (f"| {label} | {quantile(xs, 0.5):.3f} | {quantile(xs, 0.1):.3f} | "
                f"{quantile(xs, 0.9):.3f} |")
    print()
    print(f"Parts of `ext:dred`'s time over `dred`'s, batches with `dred` ≥ 1 ms ({len(split)}):")
    print()
    print("| part | median | p10 | p90 |")
    print("|---|---|---|---|")
    print(row("whole exchange (`time_ns`)", lambda i: i[3]))
    print(row("the engine (`engine_ns`)", lambda i: i[4]))
    print(row("reading the batch (`read_ns`)", lambda i: i[6]["read_ns"]))
    print(row("formatting the answer (`format_ns`)", lambda i: i[6].get("format_ns", 0)))
    print(row("rest of `serve` (change taken, freed)", lambda i: i[6]["serve_ns"] - i[4]
              - i[6]["read_ns"] - i[6].get("format_ns", 0)))
    print(row("outside `serve` (pipes, wake-ups)", lambda i: i[3] - i[6]["serve_ns"]))


if __name__ == "__main__":
    main(sys.argv[1:])
