#!/usr/bin/env bash
# The same sweeps as targets.sh with `bf` run first in each batch (`bf,dred,dd,recompute`):
# the engine that runs first after `recompute` finds the cache cold, and on batches of a few
# µs that alone moves a ratio by 2x (the re-insertions, the same code in `bf` and `dred`,
# read 0.44 with bf second and 2.0 with bf first). balanced.py pairs the two runs batch by
# batch.
# usage: results/bf/targets-bf-first.sh DREDBENCH OUT_DIR     (run from the repository's root)
set -euo pipefail
B=$1; O=$2; P=datasets/programs
E=bf,dred,dd,recompute
mkdir -p "$O"
for n in 65536 262144; do
  "$B" sweep --datasets "gen:rmat?n=$n&m=$((4*n))&seed=1&dag=1" --programs $P/reach_root.dl \
    --kinds delete --revert --sizes 1 --seeds 1,2,3 --batches 20 --engines $E --workers 1 \
    --report "$O/reach_root-k1-n$n-bf-first.csv.gz"
done
"$B" sweep --datasets "gen:rmat?n=262144&m=1048576&seed=1&dag=1" --programs $P/reach_root.dl \
  --kinds delete --revert --sizes 1000 --seeds 1 --batches 20 --engines $E --workers 1 \
  --report "$O/reach_root-k1000-n262144-bf-first.csv.gz"
"$B" sweep --datasets go-bp,wordnet --programs $P/tc_linear.dl,$P/reach.dl,$P/reach_root.dl \
  --kinds delete --revert --sizes 1 --seeds 1,2,3 --batches 20 --engines $E --workers 1 \
  --report "$O/ontologies-k1-bf-first.csv.gz"
