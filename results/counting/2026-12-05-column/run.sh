#!/bin/sh
# The non-recursive runs of 2026-12-05 (the count column): the script of 2026-12-03
# (../nonrecursive.sh), its reports written here. Usage, from the repository root after a release build:
#   B=/tmp/dredbench-col2 sh results/counting/2026-12-05-column/run.sh
#   python3 results/counting/nonrecursive_table.py \
#     results/counting/2026-12-05-column/*.csv.gz > results/counting/2026-12-05-column/TABLE.md
#   python3 results/counting/2026-12-05-column/summary.py results/counting/2026-12-05-column/TABLE.md
OUT=results/counting/2026-12-05-column exec sh results/counting/nonrecursive.sh
