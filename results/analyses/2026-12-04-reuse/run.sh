#!/usr/bin/env bash
# Issues 37 / 43: the chassis inserts heads with Relation::insert_flat and evaluates a
# recomputed relation in the memory of the one it replaced; recompute loads its EDB with
# insert_flat. Two binaries, each run once per workload with every engine side by side; the
# ratios are per batch within a run. Usage: run.sh BEFORE_BINARY AFTER_BINARY (release builds
# of `dredbench`: before = 7c99378, after = the commit RUN.md names). Writes
# {before,after}-{liveness,pointsto,tc}.csv.gz here.
# The workloads and engines of ../2026-12-04-replaced/run.sh, written here.
set -euo pipefail
HERE=results/analyses/2026-12-04-reuse exec "$(dirname "$0")/../2026-12-04-replaced/run.sh" "$@"
