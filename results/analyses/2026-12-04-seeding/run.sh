#!/usr/bin/env bash
# Issue 37: DRed's phase 1 checks its budget while it seeds a level from the changes below,
# and a deep level's work floor is a twentieth of the default's. Two binaries, each run once
# per workload with every engine side by side; the ratios are per batch within a run.
# Usage: run.sh BEFORE_BINARY AFTER_BINARY (release builds of `dredbench`: before =
# bbf6e03, after = the commit RUN.md names). Writes {before,after}-{liveness,pointsto,tc}.csv.gz
# here. The workloads and engines of ../2026-12-04-replaced/run.sh, written here.
set -euo pipefail
HERE=results/analyses/2026-12-04-seeding exec "$(dirname "$0")/../2026-12-04-replaced/run.sh" "$@"
