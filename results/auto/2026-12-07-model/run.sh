#!/usr/bin/env bash
# auto's regret before and after session 50's changes to its model (the predicted
# recomputation scaled by what auto's recomputations cost, an abandoned run counted as at
# least the guard, B/F on DRed's leftover not held against it; spare row vectors bounded):
# the regret workloads (../workloads.sh) once with each binary, one after the other, with
# the A/A instance dred@2 beside the engines; then the graph part six times (a Williams
# design) with the new binary, to set beside session 49's six runs of the old
# (../2026-12-07-repeat/regret-repeat6-graphs.md). Writes regret-{before,after}.md,
# regret-after-repeat6-graphs.md here; reports to OUT (default a temporary folder), not kept.
# Usage: B_BEFORE=path/to/dredbench-0be80c8 B_AFTER=target/release/dredbench \
#        results/auto/2026-12-07-model/run.sh
DIR=$(cd "$(dirname "$0")" && pwd)
OUT=${OUT:-$(mktemp -d)}
export E=dred,bf,recompute,recompute-levels,auto,dred@2
mkdir -p "$OUT/before" "$OUT/after" "$OUT/after6"
HERE="$OUT/before" B=${B_BEFORE:?} REPEAT=1 bash "$DIR/../workloads.sh" > "$DIR/regret-before.md"
HERE="$OUT/after" B=${B_AFTER:?} REPEAT=1 bash "$DIR/../workloads.sh" > "$DIR/regret-after.md"
HERE="$OUT/after6" B=$B_AFTER REPEAT=6 PARTS=graphs bash "$DIR/../workloads.sh" \
  > "$DIR/regret-after-repeat6-graphs.md"
echo "reports in $OUT"
