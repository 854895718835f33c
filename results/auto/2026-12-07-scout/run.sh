#!/usr/bin/env bash
# auto's scout, its rates measured over enough work and its cold first runs (session 52,
# issue 40), binary after binary: the regret workloads (../workloads.sh, with the A/A
# instance dred@2), then the two streams of the full study at 0986e7c whose batches were
# auto's worst (memchr's points-to analysis, one assignment deleted: 45,000x the best;
# go-bp's same-generation program, one hub edge deleted: 725x). Each argument is
# LABEL=PATH/TO/DREDBENCH; writes regret-LABEL.md and worst-LABEL.md here, reports to
# OUT/LABEL (OUT default a temporary folder), not kept.
# Usage: results/auto/2026-12-07-scout/run.sh e43347c=/work/runs/dredbench-e43347c \
#          03fdc64=/work/runs/dredbench-03fdc64 ...
set -euo pipefail
DIR=$(cd "$(dirname "$0")" && pwd)
cd "$DIR/../../.."
OUT=${OUT:-$(mktemp -d)}
export E=dred,bf,recompute,recompute-levels,auto,dred@2
P=datasets/programs
for arg in "$@"; do
  label=${arg%%=*}
  B=${arg#*=}
  mkdir -p "$OUT/$label/regret" "$OUT/$label/worst"
  HERE="$OUT/$label/regret" B=$B REPEAT=1 bash results/auto/workloads.sh > "$DIR/regret-$label.md"
  "$B" sweep --datasets rust-mir:memchr --programs $P/andersen.dl --relation assign \
    --kinds delete --revert --sizes 1,10 --seeds 1 --batches 5 \
    --engines dred,bf,recompute,auto --workers 1 --report "$OUT/$label/worst/memchr.csv.gz"
  "$B" sweep --datasets go-bp --programs $P/same_generation.dl --kinds hub-delete \
    --revert --sizes 1,10 --seeds 1 --batches 5 \
    --engines dred,bf,recompute,auto --workers 1 --report "$OUT/$label/worst/go-bp.csv.gz"
  python3 results/auto/regret.py "$OUT/$label/worst"/*.csv.gz > "$DIR/worst-$label.md"
done
echo "reports in $OUT"
