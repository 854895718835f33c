#!/bin/sh
# Issue 43: recompute against datafrog on linear TC of the three graphs, five
# calibrations each (21 back-to-back pairs a calibration), two binaries alternating graph by
# graph (2026-12-05: 0370e0b, the one of ../2026-12-04-edbload/, and 9a904f6).
# Usage: run.sh BEFORE_BINARY AFTER_BINARY > run.txt (from the repository's root).
set -e
for d in go-bp wordnet 'gen:rmat?n=5000&m=20000&seed=1&dag=1'; do
    for b in "$1" "$2"; do
        echo "== $b"
        "$b" calibrate --dataset "$d" --repeat 5
    done
done
