#!/bin/sh
# The program analyses after the column of counts per round (session 35): the script of
# 2026-12-03 (../../analyses.sh), reports written here; TABLE.md by ../../analyses_table.py.
#   sh results/counting/2026-12-05-rounds/analyses/run.sh
HERE=results/counting/2026-12-05-rounds/analyses sh results/counting/analyses.sh
python3 results/counting/analyses_table.py results/counting/2026-12-05-rounds/analyses/*.csv \
  > results/counting/2026-12-05-rounds/analyses/TABLE.md
