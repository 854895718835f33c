#!/bin/sh
# Issue 43, before and after on one machine: recompute against datafrog on linear TC of the
# issue's three graphs by `calib_pairs.rs` (beside this script: `dredbench calibrate`'s
# measurement written against the library API, so that it builds in the tree before the
# issue's work too), five calibrations of each build, alternating graph by graph.
# BEFORE: calib_pairs built in a worktree of d852338^ (72aa6ab); AFTER: built in one of the
# commit under test. Each: copy calib_pairs.rs to dred-core/examples/ and
# `cargo build --release -p dred-core --example calib_pairs`.
# Usage (from the repository's root): run.sh BEFORE AFTER > run.txt
set -e
P=datasets/programs/tc_linear.dl
C=${CACHE:-$HOME/.cache/dredbench}
for d in go-bp/facts wordnet/facts generated/rmat-n5000-m20000-seed1-dag1/facts; do
    for i in 1 2 3 4 5; do
        echo "$d before-$i $("$1" "$P" "$C/$d")"
        echo "$d after-$i $("$2" "$P" "$C/$d")"
    done
done
