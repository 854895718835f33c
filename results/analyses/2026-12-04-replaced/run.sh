#!/usr/bin/env bash
# Issue 37 / 40: recomputing a level into empty relations (`Replaced`) instead of deleting it
# row by row, and DRed's saturation going through it. Two binaries, `before` (0313443, the
# commit before) and `after` (75fc2f1), each run once per workload with every engine side by
# side; the ratios are per batch within a run. Usage: run.sh BEFORE_BINARY AFTER_BINARY
# (release builds of `dredbench` at those commits). Writes {before,after}-{liveness,pointsto,tc}.csv.gz here.
set -euo pipefail
cd "$(dirname "$0")/../../.."
HERE=${HERE:-results/analyses/2026-12-04-replaced}
for v in before after; do
  B=$1; [ "$v" = after ] && B=$2
  "$B" sweep --datasets rust-nll:getopts --programs datasets/programs/nll_liveness_init.dl \
      --kinds delete --relation cfg_edge --sizes 100,1000 --seeds 1 --batches 5 --revert \
      --engines dred,bf,recompute,auto,recompute-levels --report "$HERE/$v-liveness.csv.gz"
  "$B" sweep --datasets rust-mir:smallvec --programs datasets/programs/andersen.dl \
      --kinds delete --relation assign --sizes 10,100 --seeds 1 --batches 5 --revert \
      --engines dred,recompute,auto,recompute-levels --report "$HERE/$v-pointsto.csv.gz"
  "$B" sweep --datasets go-mf --programs datasets/programs/tc_linear.dl \
      --kinds delete --sizes 1,100,1000 --seeds 1 --batches 5 --revert \
      --engines dred,recompute,auto,recompute-levels --report "$HERE/$v-tc.csv.gz"
done
