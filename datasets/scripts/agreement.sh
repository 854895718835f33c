#!/bin/bash
# Checks that every dataset loads and that its linear transitive closure agrees between
# engines, initially and after a seeded update stream (mixed, 10 changes, 3 batches), with a
# release build. Usage:
#   datasets/scripts/agreement.sh ENGINES [DATASET...]
# e.g. datasets/scripts/agreement.sh recompute,dd,reference go-cc wordnet 'gen:er?n=1000&m=4000&seed=1'
# Prints one line per dataset: name, program, engines, exit code (0 agree, 1 mismatch,
# 2 bad input, 124 timeout), final IDB size, wall seconds, peak RSS in MiB. Fetched datasets
# must be installed first (`dredbench datasets fetch all`). PROGRAM overrides the program,
# TIMEOUT (seconds, default 1800) bounds each run.
set -u
cd "$(dirname "$0")/../.."
engines=$1
shift
program=${PROGRAM:-datasets/programs/tc_linear.dl}
bin=${DREDBENCH:-target/release/dredbench}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf 'dataset\tprogram\tengines\texit\tidb\tseconds\tpeak_mib\n'
for name in "$@"; do
    facts=$("$bin" datasets path "$name") || { printf '%s\t-\t-\tunresolved\n' "$name"; continue; }
    "$bin" updates --dataset "$name" --kind mixed --size 10 --batches 3 --seed 1 \
        --out "$tmp/stream.updates" 2>/dev/null
    start=$(date +%s.%N)
    /usr/bin/time -f '%M' -o "$tmp/rss" timeout "${TIMEOUT:-1800}" "$bin" run --program "$program" \
        --facts "$facts" --updates "$tmp/stream.updates" --engines "$engines" \
        --dataset "$name" >"$tmp/out" 2>"$tmp/err"
    code=$?
    end=$(date +%s.%N)
    idb=$(sed -n 's/.*final IDB has \([0-9]*\) fact.*/\1/p' "$tmp/err")
    rss=$(tail -1 "$tmp/rss" 2>/dev/null | awk '{printf "%d", $1 / 1024}')
    printf '%s\t%s\t%s\t%s\t%s\t%.1f\t%s\n' "$name" "$(basename "$program" .dl)" "$engines" \
        "$code" "${idb:--}" "$(awk "BEGIN { print $end - $start }")" "${rss:--}"
    if [ "$code" -ne 0 ]; then sed 's/^/    /' "$tmp/err" | head -20; fi
done
