#!/bin/sh
# The program analyses of 2026-12-05 (the count column): the script of 2026-12-03, its
# reports written here. Run as `CRATES="getopts smallvec"` then `CRATES=memchr` (see RUN.md):
#   B=/tmp/dredbench-col2 CRATES="getopts smallvec" sh results/counting/2026-12-05-analyses/run.sh
HERE=results/counting/2026-12-05-analyses exec sh results/counting/2026-12-03-analyses/run.sh
