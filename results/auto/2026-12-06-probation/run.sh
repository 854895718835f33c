#!/usr/bin/env bash
# Probation instead of sitting out, and idle forgetting (session 47, issue 40): the regret
# workloads (../workloads.sh) and two streams where the old model failed, with the binary
# before (BEFORE) and after (AFTER), one after the other; OUT=DIR names the output folder.
#   OUT=DIR bash results/auto/2026-12-06-probation/run.sh BEFORE AFTER
set -euo pipefail
cd "$(dirname "$0")/../../.."
OUT=${OUT:?OUT=DIR names the output folder}
P=datasets/programs; E=dred,bf,recompute,recompute-levels,auto
for side in before after; do
  B=$([ $side = before ] && echo "$1" || echo "$2")
  mkdir -p "$OUT/$side"
  HERE="$OUT/$side" B="$B" bash results/auto/workloads.sh > "$OUT/$side/regret.md"
  # A choice between DRed and B/F locked in after one abandoned DRed (full study at 3a1a8fa).
  "$B" sweep --datasets go-cc --programs $P/tc_nonlinear.dl --kinds mixed --sizes 10,100 \
    --seeds 1 --batches 11 --revert --engines $E --workers 1 --report "$OUT/$side/lockin.csv.gz"
  # DRed sat out two batches it finishes in µs (memchr's points-to, one assignment deleted).
  F=$("$B" datasets path rust-mir:memchr)
  "$B" updates --dataset "$F" --program $P/andersen.dl --kind delete --relation assign \
    --size 1 --batches 5 --revert --seed 1 --out /tmp/probation-memchr.updates
  "$B" run --program $P/andersen.dl --facts "$F" --updates /tmp/probation-memchr.updates \
    --engines $E --report "$OUT/$side/memchr.csv.gz"
  python3 results/auto/regret.py "$OUT/$side"/*.csv.gz > "$OUT/$side/regret-all.md"
done
