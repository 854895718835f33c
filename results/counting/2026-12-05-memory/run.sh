#!/bin/sh
# Peak resident memory of 2026-12-05 (the count column): the script of 2026-12-03, its
# reports and TABLE.md written here.
#   B=/tmp/dredbench-col2 sh results/counting/2026-12-05-memory/run.sh
HERE=results/counting/2026-12-05-memory exec sh results/counting/2026-12-03-memory/run.sh
