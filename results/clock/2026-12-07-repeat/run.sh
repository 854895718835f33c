#!/usr/bin/env bash
# The A/A table of the quick study, each case run once (`--repeat 1`), once through the
# Williams design of its five engines (`--repeat 10`) and twice through it (the quick study's
# default since this run: 20 runs, a batch's time the median of its 20 calls). Three studies
# each, one after the other, nothing else running; ~7 min. Writes once-N.csv.gz,
# design10-N.csv.gz and design20-N.csv.gz (the dred and dred@2 rows only) and aa-table.md here.
# Usage (from anywhere, after a release build): results/clock/2026-12-07-repeat/run.sh
HERE=$(cd "$(dirname "$0")" && pwd)
cd "$HERE/../../.."
B=target/release/dredbench
tmp=$(mktemp -d)
for i in 1 2 3; do
    for runs in once:1 design10:10 design20:; do
        name=${runs%%:*} n=${runs#*:}
        "$B" study --quick --no-plots ${n:+--repeat $n} --out "$tmp/$name-$i" > /dev/null 2>&1
        python3 "$HERE/trim.py" "$tmp/$name-$i/report.csv.gz" "$HERE/$name-$i.csv.gz"
    done
done
rm -rf "$tmp"
cd "$HERE"
args=()
for name in once design10 design20; do
    for i in 1 2 3; do args+=("$name-$i=$name-$i.csv.gz"); done
done
python3 ../aa_table.py "${args[@]}" > aa-table.md
cat aa-table.md
