#!/usr/bin/env bash
# auto after session 31 (issue 40): the workloads of 2026-12-03-first (../workloads.sh: graphs,
# the collapse set, smallvec's points-to) plus getopts' liveness analysis, whose revert streams
# alternate deletions and insertions; auto beside dred, bf, recompute and recompute-levels,
# side by side in each run. ../regret.py tabulates the reports.
set -euo pipefail
cd "$(dirname "$0")/../../.."
HERE=${HERE:-results/auto/2026-12-04-kinds}
B=${B:-target/release/dredbench}
mkdir -p "$HERE"
"$B" datasets fetch celegans rust-nll:getopts rust-mir:smallvec >/dev/null
HERE=$HERE B=$B bash results/auto/workloads.sh
"$B" sweep --datasets rust-nll:getopts --programs datasets/programs/nll_liveness_init.dl \
  --kinds delete --relation cfg_edge --revert --sizes 100,1000 --seeds 1 --batches 5 \
  --engines dred,bf,recompute,recompute-levels,auto --workers 1 --batch-time-limit 20 \
  --report "$HERE/liveness-getopts.csv.gz"
python3 results/auto/regret.py "$HERE"/*.csv.gz
