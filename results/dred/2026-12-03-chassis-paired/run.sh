#!/usr/bin/env bash
# Paired runs of the chassis refactoring (issue 38): BEFORE and AFTER are dredbench binaries
# built at 72aa6ab and at the refactoring; three alternating pairs of the same sweep.
set -euo pipefail
cd "$(dirname "$0")/../../.."
HERE=results/dred/2026-12-03-chassis-paired
P=datasets/programs; R='gen:rmat?n=4096&m=16384&seed=1&dag=1'
for i in 1 2 3; do
  for side in before after; do
    B=$([ $side = before ] && echo "$BEFORE" || echo "$AFTER")
    "$B" sweep --datasets go-mf,"$R" --programs $P/tc_linear.dl,$P/reach_root.dl --kinds delete \
      --revert --sizes 1,100 --seeds 1 --batches 21 --engines dred,bf,recompute --workers 1 \
      --report "$HERE/$side-$i.csv.gz"
  done
done
python3 $HERE/paired.py
