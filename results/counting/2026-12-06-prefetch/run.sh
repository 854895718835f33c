#!/bin/sh
# Session 43 (issue 39): the non-recursive runs of ../nonrecursive.sh with counting's
# deletions by the rows the batch check found and the reads of the events ahead started
# early and an inserted fact coming back under its tombstone's row
# (b475874, 112b5cd), and the binary before them (3158b11) on the target's sizes (1 and 1,000
# facts) in before/, one after the other on one machine. Usage, from the repository root:
#   sh results/counting/2026-12-06-prefetch/run.sh BEFORE_BINARY AFTER_BINARY
# Then the tables (TABLE.md, before/TABLE.md) and the comparison (COMPARE.md):
#   python3 results/counting/nonrecursive_table.py results/counting/2026-12-06-prefetch/*.csv.gz \
#     > results/counting/2026-12-06-prefetch/TABLE.md      (likewise before/)
#   python3 results/counting/nonrecursive_compare.py results/counting/2026-12-06-prefetch/before \
#     results/counting/2026-12-06-prefetch > results/counting/2026-12-06-prefetch/COMPARE.md
#   (COMPARE.md was made by the compare.py of this folder, fe4db5f:results/counting/2026-12-06-prefetch/compare.py)
set -e
HERE=results/counting/2026-12-06-prefetch
mkdir -p $HERE/before
B=$2 OUT=$HERE sh results/counting/nonrecursive.sh
B=$1 OUT=$HERE/before SIZES="1 1000" sh results/counting/nonrecursive.sh
