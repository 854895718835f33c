#!/usr/bin/env bash
# auto's regret on its workloads (../workloads.sh) with the A/A instance dred@2 beside the
# engines (session 49, issue 40 with issue 35's repeated runs): every part run once, then the
# graph part (GO MF and R-MAT, TC and reach_root, 1 to 1,000 edges) run six times, a Williams
# design of the six engines (every engine at every place and after every other once per
# batch), each batch's time the median of its six calls. One after the other, nothing else
# running: ~11 min, then ~18 min. Writes regret-once.md, regret-once-graphs.md and
# regret-repeat6-graphs.md here; the reports go to OUT (default a temporary folder) and are
# not kept.
# Usage (from anywhere, after a release build): results/auto/2026-12-07-repeat/run.sh
DIR=$(cd "$(dirname "$0")" && pwd)
OUT=${OUT:-$(mktemp -d)}
export E=dred,bf,recompute,recompute-levels,auto,dred@2
mkdir -p "$OUT/once" "$OUT/repeat6"
HERE="$OUT/once" REPEAT=1 bash "$DIR/../workloads.sh" > "$DIR/regret-once.md"
python3 "$DIR/../regret.py" "$OUT/once/graphs.csv.gz" > "$DIR/regret-once-graphs.md"
HERE="$OUT/repeat6" REPEAT=6 PARTS=graphs bash "$DIR/../workloads.sh" > "$DIR/regret-repeat6-graphs.md"
