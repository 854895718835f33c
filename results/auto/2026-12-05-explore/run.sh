#!/usr/bin/env bash
# auto's first tries (issue 40): B/F first while nothing is measured, then DRed tried with a
# phase 1 bounded by EXPLORE times B/F's prediction. The workloads of 2026-12-04-kinds
# (graphs, the collapse set, smallvec's points-to, getopts' liveness), side by side.
set -euo pipefail
cd "$(dirname "$0")/../../.."
HERE=${HERE:-results/auto/2026-12-05-explore} B=${B:-target/release/dredbench} \
  bash results/auto/2026-12-04-kinds/run.sh
