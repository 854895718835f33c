#!/usr/bin/env bash
# Session 50 (issue 37): a deep level's least saturation floor divided as its floor is
# (6638ed5), with the spare row vectors bounded (b8710ac). `dred` beside `recompute` with the
# binary before (BEFORE) and after (AFTER), one right after the other per stream, on session
# 48's 22 streams (../2026-12-06-deep-compaction/run.sh, which this runs) and the two streams
# of the full study at 0be80c8 still past 3 x `recompute` on every batch: magic-sets
# reachability over the layered graph (100 hub edges) and over cliques (100 bridges). The
# floor's table.py (../2026-12-06-floor/table.py) pairs the two per batch.
#
#   OUT=DIR results/dred/2026-12-07-deep-least/run.sh BEFORE_BIN AFTER_BIN
here="$(cd "$(dirname "$0")" && pwd)"
P=datasets/programs
C='gen:cliques?count=6&size=20&density=60&seed=1'
OUT="${OUT:-$here}" EXTRA_CASES="gen:layered $P/magic_path_source.dl hub-delete 100 11 -
$C $P/magic_path_source.dl bridge-delete 100 11 -" \
    exec "$here/../2026-12-06-deep-compaction/run.sh" "$@"
