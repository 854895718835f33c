#!/bin/sh
# recompute against datafrog on linear TC of issue 43's three graphs, five calibrations each
# (21 back-to-back pairs a calibration), release binary, nothing else running.
set -e
for d in go-bp wordnet 'gen:rmat?n=5000&m=20000&seed=1&dag=1'; do
    target/release/dredbench calibrate --dataset "$d" --repeat 5
done
