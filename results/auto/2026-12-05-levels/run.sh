#!/bin/sh
# Recomputation on the chassis (`recompute-levels`, and `auto` when it recomputes) against
# the `recompute` engine: linear TC of GO BP, 21 deletions of 1,000 edges (no reverts), each
# binary three times, alternating; medians of the batches, and of the per-batch ratios with
# p10/p90 (nearest rank) and the worst batch.
# Usage (from the repository root): sh results/auto/2026-12-05-levels/run.sh BEFORE AFTER
set -e
F=$("$1" datasets path go-bp)
P=datasets/programs/tc_linear.dl
T=$(mktemp -d)
"$1" updates --dataset "$F" --program $P --kind delete --size 1000 --batches 21 --seed 1 \
    --out "$T/u.updates" 2> /dev/null
for i in 1 2 3; do
    for b in "$1" "$2"; do
        "$b" run --program $P --facts "$F" --dataset go-bp --updates "$T/u.updates" \
            --engines recompute,recompute-levels,dred,auto --report "$T/r.csv" > /dev/null 2>&1
        python3 - "$b" "$T/r.csv" <<'PY'
import collections, csv, statistics as st, sys
t = collections.defaultdict(list)
for r in csv.DictReader(open(sys.argv[2])):
    if r["batch"] != "0":
        t[r["engine"]].append(int(r["time_ns"]) / 1e6)
def ratio(e):
    r = sorted(a / b for a, b in zip(t[e], t["recompute"]))
    q = lambda f: r[min(len(r) - 1, int(f * len(r)))]
    return f"{st.median(r):.2f} [p10 {q(0.1):.2f}, p90 {q(0.9):.2f}, worst {r[-1]:.2f}]"
print(sys.argv[1], " ".join(f"{e}={st.median(v):.1f}ms" for e, v in t.items()),
      f"recompute-levels/recompute={ratio('recompute-levels')} auto/recompute={ratio('auto')}")
PY
    done
done
rm -r "$T"
