#!/usr/bin/env bash
# DRed's saturation floor on small levels (issue 37): `dred` against `recompute` on the
# full study's streams where `dred` passed 3 x `recompute` on a level cheaper to evaluate than
# two million work units, with two binaries (before: the 10^6 floor everywhere; after: half
# the evaluation, at least 5 x 10^4). Each binary's sweep runs `dred,recompute` side by side;
# table.py pairs the two per batch.
#
#   OUT=DIR results/dred/2026-12-06-floor/run.sh BEFORE_BIN AFTER_BIN
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
OUT="${OUT:-$here}"
before="$1"
after="$2"
mkdir -p "$OUT"
P=datasets/programs
cases=(
    "go-cc $P/tc_linear.dl insert 100"
    "go-cc $P/tc_linear.dl mixed 100"
    "go-cc $P/tc_linear.dl delete 1000"
    "go-cc $P/tc_nonlinear.dl delete 1000"
    "go-cc $P/same_generation.dl delete 1000"
    "go-mf $P/tc_linear.dl delete 1000"
    "gen:cliques?count=6&size=20&density=60&seed=1 $P/tc_linear.dl delete 100"
    "gen:cliques?count=6&size=20&density=60&seed=1 $P/tc_nonlinear.dl delete 100"
    "gen:cliques?count=6&size=20&density=60&seed=1 $P/magic_path_source.dl delete 100"
    "gen:layered $P/tc_linear.dl delete 100"
    "gen:layered $P/tc_linear.dl insert 10"
    "celegans $P/tc_linear.dl delete 1000"
    "go-cc $P/reach.dl delete 10"
    "go-mf $P/reach.dl delete 100"
)
rm -f "$OUT/before.csv" "$OUT/after.csv" "$OUT/before.csv.gz" "$OUT/after.csv.gz"
# Case by case, the two binaries one after the other, so that a change in the machine's load
# falls on both.
for c in "${cases[@]}"; do
    read -r dataset program kind size <<< "$c"
    for label in before after; do
        bin="$before"
        [ "$label" = after ] && bin="$after"
        "$bin" sweep --datasets "$dataset" --programs "$program" --kinds "$kind" --sizes "$size" \
            --seeds 1 --batches 11 --revert --engines dred,recompute \
            --report "$OUT/tmp.csv" > /dev/null
        if [ -f "$OUT/$label.csv" ]; then tail -n +2 "$OUT/tmp.csv" >> "$OUT/$label.csv";
        else cp "$OUT/tmp.csv" "$OUT/$label.csv"; fi
    done
done
rm -f "$OUT/tmp.csv"
gzip -9 "$OUT/before.csv" "$OUT/after.csv"
python3 "$here/table.py" "$OUT" > "$OUT/TABLE.md"
