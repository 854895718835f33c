#!/bin/sh
# The program analyses after the column of counts per round (session 35): the script of
# 2026-12-03, reports written here; TABLE.md by its table.py.
#   sh results/counting/2026-12-05-rounds/analyses/run.sh
HERE=results/counting/2026-12-05-rounds/analyses sh results/counting/2026-12-03-analyses/run.sh
python3 results/counting/2026-12-03-analyses/table.py results/counting/2026-12-05-rounds/analyses/*.csv \
  > results/counting/2026-12-05-rounds/analyses/TABLE.md
