#!/usr/bin/env bash
# Issue 37: DRed's phase 1 saturates once it has over-deleted a tenth of the level's facts,
# and at a tenth of an evaluation's work on a level whose last saturation removed a quarter
# of it or more. Two binaries, each run once per workload with every engine side by side;
# the ratios are per batch within a run. Usage: run.sh BEFORE_BINARY AFTER_BINARY (release
# builds of `dredbench`: before = 7a7d876, after = the commit RUN.md names). Writes
# {before,after}-{liveness,pointsto,tc}.csv.gz here.
# The workloads and engines of ../2026-12-04-replaced/run.sh, written here.
set -euo pipefail
HERE=results/analyses/2026-12-04-saturation exec "$(dirname "$0")/../2026-12-04-replaced/run.sh" "$@"
