#!/bin/sh
# Session 54 (issue 39): the non-recursive runs of ../nonrecursive.sh at the target's sizes
# (1 and 1,000 facts), each case six times with the engines placed by a Williams design
# (`run --repeat 6`), with the binary before the session's changes (9639e5b) in before/ and
# the binary after them (fe4db5f, built before its commit: rows labelled c797cd253fde-dirty)
# here, one after the other on core 1 of an otherwise idle machine. Usage, from the
# repository root, after two release builds:
#   sh results/counting/2026-12-07-batch-costs/run.sh BEFORE_BINARY AFTER_BINARY
# Then the tables and the comparison:
#   python3 results/counting/nonrecursive_table.py results/counting/2026-12-07-batch-costs/*.csv.gz \
#     > results/counting/2026-12-07-batch-costs/TABLE.md          (likewise before/)
#   python3 results/counting/nonrecursive_compare.py results/counting/2026-12-07-batch-costs/before \
#     results/counting/2026-12-07-batch-costs > results/counting/2026-12-07-batch-costs/COMPARE.md
set -e
HERE=results/counting/2026-12-07-batch-costs
mkdir -p $HERE/before
B=$1 OUT=$HERE/before SIZES="1 1000" REPEAT=6 taskset -c 1 sh results/counting/nonrecursive.sh
B=$2 OUT=$HERE SIZES="1 1000" REPEAT=6 taskset -c 1 sh results/counting/nonrecursive.sh
# Then, after dred's change (ee9f394), the same into ee9f394/:
#   B=BINARY_OF_ee9f394 OUT=results/counting/2026-12-07-batch-costs/ee9f394 SIZES="1 1000" REPEAT=6 \
#     taskset -c 1 sh results/counting/nonrecursive.sh
