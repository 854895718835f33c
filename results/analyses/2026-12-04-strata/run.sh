#!/usr/bin/env bash
# Issue 37: phase 3 runs a level's strata one after another, and evaluates a stratum afresh
# when its new input outweighs what it reads in full. Two binaries, each run once per
# workload with every engine side by side; the ratios are per batch within a run. Usage:
# run.sh BEFORE_BINARY AFTER_BINARY (release builds of `dredbench`: before = 0370e0b, the
# engine of 092b5c5; after = the commit RUN.md names). Writes
# {before,after}-{liveness,pointsto,tc}.csv.gz here.
# The workloads and engines of ../2026-12-04-replaced/run.sh, written here.
set -euo pipefail
HERE=results/analyses/2026-12-04-strata exec "$(dirname "$0")/../2026-12-04-replaced/run.sh" "$@"
