#!/usr/bin/env bash
# Session 43: phase 1's tenth-of-the-level rule counts the heads of the round it follows
# (overdelete.rs). BEFORE and AFTER binaries: the liveness and points-to runs of
# ../2026-12-06-fixed-orders/run.sh (its table.py makes TABLE.md here), then the full
# study's worst `dred` collapse, magic_path_source over gen:layered with 100 edges of a hub
# deleted (11 batches, each reverted; dred, recompute, auto), layered.py making LAYERED.md.
# Usage: run.sh BEFORE AFTER (from anywhere; builds nothing).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=$HERE bash "$HERE/../2026-12-06-fixed-orders/run.sh" "$1" "$2"
cd "$HERE/../../.."
for v in before after; do
  B=$1; [ $v = after ] && B=$2
  "$B" sweep --datasets gen:layered --programs datasets/programs/magic_path_source.dl \
      --kinds hub-delete --sizes 100 --seeds 1 --batches 11 --revert \
      --engines dred,recompute,auto --workers 1 --report "$HERE/$v-layered.csv.gz" >/dev/null 2>&1
done
python3 "$HERE/layered.py" "$HERE" | tee "$HERE/LAYERED.md"
