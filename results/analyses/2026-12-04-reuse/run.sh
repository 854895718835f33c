#!/usr/bin/env bash
# Issues 37 / 43: the chassis inserts heads with Relation::insert_flat and evaluates a
# recomputed relation in the memory of the one it replaced; recompute loads its EDB with
# insert_flat. Two binaries, each run once per workload with every engine side by side; the
# ratios are per batch within a run. Usage: run.sh BEFORE_BINARY AFTER_BINARY (release builds
# of `dredbench`: before = 7c99378, after = the commit RUN.md names). Writes
# {before,after}-{liveness,pointsto,tc}.csv here.
set -euo pipefail
cd "$(dirname "$0")/../../.."
HERE=results/analyses/2026-12-04-reuse
for v in before after; do
  B=$1; [ "$v" = after ] && B=$2
  "$B" sweep --datasets rust-nll:getopts --programs datasets/programs/nll_liveness_init.dl \
      --kinds delete --relation cfg_edge --sizes 100,1000 --seeds 1 --batches 5 --revert \
      --engines dred,bf,recompute,auto,recompute-levels --report "$HERE/$v-liveness.csv"
  "$B" sweep --datasets rust-mir:smallvec --programs datasets/programs/andersen.dl \
      --kinds delete --relation assign --sizes 10,100 --seeds 1 --batches 5 --revert \
      --engines dred,recompute,auto,recompute-levels --report "$HERE/$v-pointsto.csv"
  "$B" sweep --datasets go-mf --programs datasets/programs/tc_linear.dl \
      --kinds delete --sizes 1,100,1000 --seeds 1 --batches 5 --revert \
      --engines dred,recompute,auto,recompute-levels --report "$HERE/$v-tc.csv"
done
