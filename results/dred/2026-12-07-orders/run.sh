#!/usr/bin/env bash
# Session 50 (issue 37): each other order of a head-bound check tried once before the
# budget decides its next try (0fe5453). `dred` and `bf` beside `recompute`, with the binary
# before (BEFORE, 6638ed5) and after (AFTER), one right after the other per stream, on
# single-edge streams where checks decide: WordNet's nonlinear TC (the full study's streams
# where a batch's tries of the dear order cost 5-6 ms), and TC and reach_root on GO MF,
# GO BP, WordNet and R-MAT (where the order other than the plan's is the cheaper one, so
# learning it later would show). table.py pairs them.
#
#   OUT=DIR results/dred/2026-12-07-orders/run.sh BEFORE_BIN AFTER_BIN
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cd "$here/../../.."
OUT="${OUT:-$here}"
before="$1"
after="$2"
mkdir -p "$OUT"
P=datasets/programs
R='gen:rmat?n=4096&m=16384&seed=1&dag=1'
cases=(
    "wordnet $P/tc_nonlinear.dl delete 1 11"
    "wordnet $P/tc_nonlinear.dl hub-delete 1 11"
    "wordnet $P/tc_linear.dl delete 1 21"
    "go-mf $P/tc_linear.dl delete 1 21"
    "go-bp $P/tc_linear.dl delete 1 21"
    "$R $P/tc_linear.dl delete 1 21"
    "$R $P/reach_root.dl delete 1 21"
    "go-mf $P/reach_root.dl delete 1 21"
)
rm -f "$OUT/before.csv" "$OUT/after.csv" "$OUT/before.csv.gz" "$OUT/after.csv.gz"
for c in "${cases[@]}"; do
    read -r dataset program kind size batches <<< "$c"
    for label in before after; do
        bin="$before"
        [ "$label" = after ] && bin="$after"
        "$bin" sweep --datasets "$dataset" --programs "$program" --kinds "$kind" --sizes "$size" \
            --seeds 1 --batches "$batches" --revert --engines dred,bf,recompute \
            --workers 1 --report "$OUT/tmp.csv" > /dev/null
        if [ -f "$OUT/$label.csv" ]; then tail -n +2 "$OUT/tmp.csv" >> "$OUT/$label.csv";
        else cp "$OUT/tmp.csv" "$OUT/$label.csv"; fi
    done
done
rm -f "$OUT/tmp.csv"
gzip -9 "$OUT/before.csv" "$OUT/after.csv"
python3 "$here/table.py" "$OUT" > "$OUT/TABLE.md"
