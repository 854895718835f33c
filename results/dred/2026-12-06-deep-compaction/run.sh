#!/usr/bin/env bash
# Session 48 (issue 37): compaction without a sort per index; a saturation that had reached
# a tenth of its level marks the level deep; the facts of phase 1's saturation counted past a
# tenth of a small level's evaluation. `dred` beside `recompute` on the streams of
# ../2026-12-06-floor/ (the full study's streams past 3 x `recompute` on small levels), on
# three program-analysis streams where saturation decides (points-to on memchr and smallvec,
# liveness on getopts) and on five controls on larger levels, with the binary before
# (BEFORE) and after (AFTER), one right after the other per stream; the floor's table.py
# (../2026-12-06-floor/table.py) pairs the two per batch.
#
#   OUT=DIR [EXTRA_CASES=LINES] results/dred/2026-12-06-deep-compaction/run.sh BEFORE_BIN AFTER_BIN
set -uo pipefail   # not -e: go-cc has no cycle for scc kinds (none used here, but keep sweeps going)
here="$(cd "$(dirname "$0")" && pwd)"
cd "$here/../../.."
OUT="${OUT:-$here}"
before="$1"
after="$2"
mkdir -p "$OUT"
P=datasets/programs
C='gen:cliques?count=6&size=20&density=60&seed=1'
R='gen:rmat?n=4096&m=16384&seed=1&dag=1'
cases=(
    "go-cc $P/tc_linear.dl insert 100 11 -"
    "go-cc $P/tc_linear.dl mixed 100 11 -"
    "go-cc $P/tc_linear.dl delete 1000 11 -"
    "go-cc $P/tc_nonlinear.dl delete 1000 11 -"
    "go-cc $P/same_generation.dl delete 1000 11 -"
    "go-mf $P/tc_linear.dl delete 1000 21 -"
    "$C $P/tc_linear.dl delete 100 11 -"
    "$C $P/tc_nonlinear.dl delete 100 11 -"
    "$C $P/magic_path_source.dl delete 100 11 -"
    "gen:layered $P/tc_linear.dl delete 100 11 -"
    "gen:layered $P/tc_linear.dl insert 10 11 -"
    "celegans $P/tc_linear.dl delete 1000 11 -"
    "go-cc $P/reach.dl delete 10 11 -"
    "go-mf $P/reach.dl delete 100 11 -"
    "rust-mir:memchr $P/andersen.dl delete 10 5 assign"
    "rust-mir:smallvec $P/andersen.dl delete 10 5 assign"
    "rust-nll:getopts $P/nll_liveness_init.dl delete 1000 5 cfg_edge"
    # Controls: the 1,000-edge deletions of results/dred's targets, where DRed beats
    # recomputing on large levels (a floor of facts lowered there too, past 2 x 10^6 units).
    "go-bp $P/tc_linear.dl delete 1000 11 -"
    "wordnet $P/tc_linear.dl delete 1000 11 -"
    "$R $P/tc_linear.dl delete 1000 11 -"
    "$R $P/reach_root.dl delete 1000 11 -"
    "wordnet $P/reach_root.dl delete 1000 11 -"
)
# More cases, one per line in the same form, from a later run's script (EXTRA_CASES).
while IFS= read -r extra; do
    [ -n "$extra" ] && cases+=("$extra")
done <<< "${EXTRA_CASES:-}"
rm -f "$OUT/before.csv" "$OUT/after.csv" "$OUT/before.csv.gz" "$OUT/after.csv.gz"
for c in "${cases[@]}"; do
    read -r dataset program kind size batches relation <<< "$c"
    rel=()
    [ "$relation" != - ] && rel=(--relation "$relation")
    for label in before after; do
        bin="$before"
        [ "$label" = after ] && bin="$after"
        "$bin" sweep --datasets "$dataset" --programs "$program" --kinds "$kind" --sizes "$size" \
            "${rel[@]}" --seeds 1 --batches "$batches" --revert --engines dred,recompute \
            --workers 1 --report "$OUT/tmp.csv" > /dev/null
        if [ -f "$OUT/$label.csv" ]; then tail -n +2 "$OUT/tmp.csv" >> "$OUT/$label.csv";
        else cp "$OUT/tmp.csv" "$OUT/$label.csv"; fi
    done
done
rm -f "$OUT/tmp.csv"
gzip -9 "$OUT/before.csv" "$OUT/after.csv"
python3 "$here/../2026-12-06-floor/table.py" "$OUT" > "$OUT/TABLE.md"
