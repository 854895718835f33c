#!/usr/bin/env bash
# auto's first tries bounded (issue 40): an algorithm untried on a kind of batch may spend a
# tenth of the predicted recomputation at level 0 (DRed's phase 1, B/F measured, twice B/F's
# prediction); B/F first while nothing is measured. The workloads of 2026-12-04-kinds
# (graphs, the collapse set, smallvec's points-to, getopts' liveness), side by side.
set -euo pipefail
cd "$(dirname "$0")/../../.."
HERE=${HERE:-results/auto/2026-12-05-first-try} B=${B:-target/release/dredbench} \
  bash results/auto/2026-12-04-kinds/run.sh
