#!/usr/bin/env bash
# Session 42: a recursive stratum recomputed on the chassis runs `recompute`'s fixed orders
# when its per-row orders would first build a larger deferred index (Plans::evaluation_fixed).
# getopts' liveness analysis, 5 deletions of 1,000 cfg_edge facts each followed by its
# revert, recompute / recompute-levels / dred / auto side by side; and smallvec's points-to
# (10 and 100 assignments, 5 batches each with reverts). BEFORE and AFTER binaries, two
# alternating runs each. Usage: run.sh BEFORE AFTER (from anywhere; builds nothing).
# Writes {before,after}-{1,2}-liveness.csv.gz and {before,after}-pointsto.csv.gz here (or in
# the folder OUT names, as ../2026-12-06-round-facts/run.sh does), and TABLE.md (table.py).
set -euo pipefail
SCRIPT=$(cd "$(dirname "$0")" && pwd)
HERE=${OUT:-$SCRIPT}
cd "$SCRIPT/../../.."
F=$("$2" datasets path rust-nll:getopts)
P=datasets/programs/nll_liveness_init.dl
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
"$2" updates --dataset "$F" --program $P --kind delete --relation cfg_edge --size 1000 \
    --batches 5 --revert --seed 1 --out "$T/u.updates" 2>/dev/null
for i in 1 2; do
  for v in before after; do
    B=$1; [ $v = after ] && B=$2
    "$B" run --engines recompute,recompute-levels,dred,auto --program $P --facts "$F" \
        --dataset getopts --updates "$T/u.updates" --report "$T/$v-$i-liveness.csv" >/dev/null 2>&1
    gzip -9 -c "$T/$v-$i-liveness.csv" > "$HERE/$v-$i-liveness.csv.gz"
  done
done
for v in before after; do
  B=$1; [ $v = after ] && B=$2
  "$B" sweep --datasets rust-mir:smallvec --programs datasets/programs/andersen.dl \
      --kinds delete --relation assign --sizes 10,100 --seeds 1 --batches 5 --revert \
      --engines recompute,recompute-levels,auto --report "$HERE/$v-pointsto.csv.gz" >/dev/null 2>&1
done
python3 "$SCRIPT/table.py" "$HERE" | tee "$HERE/TABLE.md"
