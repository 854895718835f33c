#!/usr/bin/env bash
# auto's own cost on batches of microseconds (session 53, issue 40), binary after binary:
# single- and ten-edge deletions (each followed by its inverse) on the four graphs whose
# batches take microseconds, reachability and the magic-set path program, with the study's
# engines beside auto (counting among them, so that auto meets the caches the study
# leaves it) and the A/A instance dred@2. Each argument is LABEL=PATH/TO/DREDBENCH;
# writes regret-LABEL-RUN.md here (../regret.py: its "auto / the engine it ran" lines are
# auto's own cost; RUN, default 1, numbers repeated runs), reports to OUT/LABEL (OUT
# default a temporary folder), not kept.
# Usage: for r in 1 2 3; do RUN=$r results/auto/2026-12-07-overhead/run.sh \
#          714bb93=/work/runs/dredbench-714bb93 55bd255=/work/runs/dredbench-55bd255; done
set -euo pipefail
DIR=$(cd "$(dirname "$0")" && pwd)
cd "$DIR/../../.."
OUT=${OUT:-$(mktemp -d)}
RUN=${RUN:-1}
P=datasets/programs
for arg in "$@"; do
  label=${arg%%=*}
  B=${arg#*=}
  mkdir -p "$OUT/$label"
  "$B" sweep --datasets debian-deps,wordnet,go-bp,go-cc \
    --programs $P/reach.dl,$P/magic_path_source.dl --kinds delete --revert --sizes 1,10 \
    --seeds 1 --batches 21 --engines dred,bf,recompute,auto,counting,dred@2 --workers 1 \
    --report "$OUT/$label/overhead.csv.gz"
  python3 results/auto/regret.py "$OUT/$label"/*.csv.gz > "$DIR/regret-$label-$RUN.md"
done
echo "reports in $OUT"
