#!/bin/sh
# The non-recursive runs of issue 39 (its target: on non-recursive programs `counting`
# at most 0.5x `dred` by median; first run 2026-12-03, the run folder's script until it was
# removed, d5a96ea:results/counting/2026-12-03-nonrecursive/run.sh): two_hop.dl on five real graphs and go_joins.dl on GO BP,
# deletions and insertions of 1, 10, 100 and 1,000 facts, 11 batches each followed by its
# inverse (--revert, seed 1), engines dred, dred@2 (the A/A check), counting, bf, dd and
# recompute side by side in one run per case. A run over 10 minutes is cut and named.
# Usage (from the repository root, after a release build; B overrides the binary; OUT, the
# run folder the reports go to, is required; REPEAT=N runs each case N times, engines placed
# by a Williams design, and reports each batch's median over the runs, `run --repeat`):
#   OUT=results/counting/DATE-NAME sh results/counting/nonrecursive.sh
#   B=/tmp/dredbench-counting OUT=... sh results/counting/nonrecursive.sh
# Then the table: python3 results/counting/nonrecursive_table.py \
#   $OUT/*.csv.gz > $OUT/TABLE.md
set -e
B=${B:-target/release/dredbench}
OUT=${OUT:?OUT=DIR names the run folder the reports go to}
ENGINES=dred,dred@2,counting,bf,dd,recompute
SIZES=${SIZES:-1 10 100 1000}
REPEAT_ARGS=${REPEAT:+--repeat $REPEAT}

facts() { # the facts directory of a dataset name, fetched on first use
  $B datasets path "$1" 2> /dev/null || { $B datasets fetch "$1" > /dev/null && $B datasets path "$1"; }
}

# case PROGRAM DATASET RELATION KIND SIZE
case_() {
  p=$1; d=$2; rel=$3; kind=$4; s=$5
  P=datasets/programs/$p.dl
  F=$(facts "$d")
  if [ "$rel" = edge ]; then name="$p-$d-$kind-$s"; else name="$p-$d-$rel-$kind-$s"; fi
  $B updates --dataset "$F" --program $P --relation "$rel" --kind "$kind" --size "$s" \
    --batches 11 --revert --seed 1 --out "/tmp/$name.updates" 2> /dev/null
  if timeout 600 $B run --program $P --facts "$F" --dataset "$d" --updates "/tmp/$name.updates" \
    --engines $ENGINES $REPEAT_ARGS --report "$OUT/$name.csv.gz" > "/tmp/$name.out" 2>&1; then
    echo "$name: $(head -1 "/tmp/$name.out")"
  else
    echo "$name: exit $? (over 10 minutes if 124):"; cat "/tmp/$name.out"
  fi
}

for s in $SIZES; do
  for kind in delete insert; do
    for d in go-bp wordnet celegans debian-deps go-mf; do
      case_ two_hop $d edge $kind $s
    done
    case_ go_joins go-bp edge $kind $s
    case_ go_joins go-bp part_of $kind $s
  done
done
