#!/bin/sh
# The points-to runs of 2026-12-03 (session 22), after head-bound searches ordered per
# binding: rust-mir facts of smallvec and memchr, andersen.dl, ten assignments deleted and put
# back (5 deleting batches), one assignment and one function edited, dred / bf / recompute
# side by side in one run each.
# Usage (from the repository root, after a release build):
#   sh results/analyses/2026-12-03-adaptive/run.sh
set -e
B=target/release/dredbench
P=datasets/programs/andersen.dl
OUT=results/analyses/2026-12-03-adaptive
for c in smallvec memchr; do
  $B datasets fetch rust-mir:$c > /dev/null
  F=$($B datasets path rust-mir:$c)
  cp "$(dirname "$F")/PROVENANCE" "$OUT/PROVENANCE-$c"
  for s in "delete assign 10" "delete assign 1" "function-edit - 1"; do
    set -- $s
    rel=""; [ "$2" != "-" ] && rel="--relation $2"
    name="$c-$1-$3"
    $B updates --dataset "$F" --program $P --kind $1 $rel --size $3 --batches 5 --revert \
      --seed 1 --out "/tmp/$name.updates" 2> /dev/null
    timeout 1800 $B run --program $P --facts "$F" --updates "/tmp/$name.updates" \
      --engines dred,bf,recompute --report "$OUT/$name.csv" 2>&1 | grep agree || echo "$name: did not finish"
  done
done
