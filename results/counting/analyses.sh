#!/bin/sh
# Counting beside dred, dd and recompute on the program analyses of real crates (issue 39,
# item 4): the borrow check and the liveness/initialisation analysis over rustc's facts
# (rust-nll:CRATE), the points-to analysis over MIR facts (rust-mir:CRATE); single
# statements and one-function edits, deleted and put back (`--revert`), 5 batches each way.
# `dred@2` is the A/A pair. First run 2026-12-03 (the run folder's script until it was removed,
# d5a96ea:results/counting/2026-12-03-analyses/run.sh). Usage, from the repository root after a
# release build:
#   HERE=results/counting/DATE-NAME sh results/counting/analyses.sh
# HERE=DIR (required) names the run folder the reports go to; CRATES="getopts smallvec" a subset.
# Then the table: python3 results/counting/analyses_table.py $HERE/*.csv > $HERE/TABLE.md
set -e
B=${B:-target/release/dredbench}
HERE=${HERE:?HERE=DIR names the run folder the reports go to}
CRATES=${CRATES:-getopts smallvec memchr}
E=dred,dred@2,counting,dd,recompute
for c in $CRATES; do
  $B datasets fetch rust-nll:$c > /dev/null
  $B datasets fetch rust-mir:$c > /dev/null
  NLL=$($B datasets path rust-nll:$c)
  MIR=$($B datasets path rust-mir:$c)
  for line in \
    "polonius_naive $NLL function-edit - 1" \
    "polonius_naive $NLL delete cfg_edge 1" \
    "nll_liveness_init $NLL function-edit - 1" \
    "nll_liveness_init $NLL delete cfg_edge 1" \
    "andersen $MIR delete assign 1" \
    "andersen $MIR delete assign 10" \
    "andersen $MIR function-edit - 1"; do
    set -- $line
    P=datasets/programs/$1.dl
    rel=""; [ "$4" != "-" ] && rel="--relation $4"
    name="$c-$1-$3-$5"
    $B updates --dataset "$2" --program $P --kind $3 $rel --size $5 --batches 5 --revert \
      --seed 1 --out "/tmp/$name.updates" 2> /dev/null
    timeout 1800 $B run --program $P --facts "$2" --updates "/tmp/$name.updates" \
      --engines $E --report "$HERE/$name.csv" 2>&1 | grep agree || echo "$name: did not finish"
  done
done
