#!/usr/bin/env bash
# auto's regret on its workloads (../workloads.sh) with the A/A instance dred@2 beside the
# engines, each case run once and then six times (a Williams design of the six engines: every
# engine at every place and after every other once per batch), each batch's time the median
# of its calls (session 49, issue 40 with issue 35's repeated runs). One after the other,
# nothing else running. Writes regret-once.md and regret-repeat6.md here; the reports go to
# OUT (default a temporary folder) and are not kept.
# Usage (from anywhere, after a release build): results/auto/2026-12-07-repeat/run.sh
DIR=$(cd "$(dirname "$0")" && pwd)
OUT=${OUT:-$(mktemp -d)}
export E=dred,bf,recompute,recompute-levels,auto,dred@2
mkdir -p "$OUT/once" "$OUT/repeat6"
HERE="$OUT/once" REPEAT=1 bash "$DIR/../workloads.sh" > "$DIR/regret-once.md"
HERE="$OUT/repeat6" REPEAT=6 bash "$DIR/../workloads.sh" > "$DIR/regret-repeat6.md"
