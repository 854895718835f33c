#!/bin/sh
# The rows of ../ where dred was slower than recomputing, rerun with saturation (commit
# 71b2722): smallvec and memchr, 10 assignments deleted, and memchr's one-function edits.
# Same streams (same seed); from the repository root, after a release build.
set -e
B=target/release/dredbench
P=datasets/programs/andersen.dl
OUT=results/analyses/2026-12-02-pointsto/after-saturation
for s in "smallvec delete assign 10" "memchr delete assign 10" "memchr function-edit - 1"; do
  set -- $s
  F=$($B datasets path rust-mir:$1)
  rel=""; [ "$3" != "-" ] && rel="--relation $3"
  name="$1-$2-$4"
  $B updates --dataset "$F" --program $P --kind $2 $rel --size $4 --batches 5 --revert \
    --seed 1 --out "/tmp/$name.updates" 2> /dev/null
  $B run --program $P --facts "$F" --updates "/tmp/$name.updates" \
    --engines dred,recompute,dd --report "$OUT/$name.csv" 2>&1 | grep agree
done
