#!/bin/sh
# Session 51 (issue 39): the non-recursive runs of ../nonrecursive.sh at the target's sizes
# (1 and 1,000 facts), each case run six times with the engines placed by a Williams design
# (`run --repeat 6`, the calibrated clock's way of taking out what the engine run before
# leaves in the caches), each batch's time the median of its six. Binary of 3a425fa.
# Usage, from the repository root:
#   sh results/counting/2026-12-07-repeat/run.sh BINARY
# Then the table:
#   python3 results/counting/nonrecursive_table.py results/counting/2026-12-07-repeat/*.csv.gz \
#     > results/counting/2026-12-07-repeat/TABLE.md
set -e
B=$1 OUT=results/counting/2026-12-07-repeat SIZES="1 1000" REPEAT=6 sh results/counting/nonrecursive.sh
