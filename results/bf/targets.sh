#!/usr/bin/env bash
# The measurements of issue 25's targets: `bf` beside `dred`, `dd` and `recompute`, side by
# side in one run per report (release build, one worker, nothing else running).
# usage: results/bf/targets.sh DREDBENCH OUT_DIR     (run from the repository's root)
set -euo pipefail
B=$1; O=$2; P=datasets/programs
E=dred,bf,dd,recompute
mkdir -p "$O"
"$B" datasets fetch go-bp >/dev/null
"$B" datasets fetch wordnet >/dev/null
# R-MAT reach_root single-edge deletions and their reverts, 3 seeds x 20 batches per size.
for n in 4096 16384 65536 262144; do
  "$B" sweep --datasets "gen:rmat?n=$n&m=$((4*n))&seed=1&dag=1" --programs $P/reach_root.dl \
    --kinds delete --revert --sizes 1 --seeds 1,2,3 --batches 20 --engines $E --workers 1 \
    --report "$O/reach_root-k1-n$n.csv.gz"
done
# 1,000-edge deletions and their reverts, 20 batches.
for n in 65536 262144; do
  "$B" sweep --datasets "gen:rmat?n=$n&m=$((4*n))&seed=1&dag=1" --programs $P/reach_root.dl \
    --kinds delete --revert --sizes 1000 --seeds 1 --batches 20 --engines $E --workers 1 \
    --report "$O/reach_root-k1000-n$n.csv.gz"
done
# The ontologies: single-fact deletions and their reverts.
"$B" sweep --datasets go-bp,wordnet --programs $P/tc_linear.dl,$P/reach.dl,$P/reach_root.dl \
  --kinds delete --revert --sizes 1 --seeds 1,2,3 --batches 20 --engines $E --workers 1 \
  --report "$O/ontologies-k1.csv.gz"
