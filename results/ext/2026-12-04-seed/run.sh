#!/usr/bin/env bash
# Both shipped adapters on the worked example of SPEC §6 (datasets/seed): `ext:clingo`
# (clingo 5.8.3 recomputing every batch) and `ext:dred` (dredbench serve) beside `dred` and
# the oracle, whole models compared after every batch; then the magic-set form of the query
# path("a", y). Needs clingo for $DREDBENCH_PYTHON or python3 (pip install clingo==5.8.3)
# and the release build.
set -euo pipefail
cd "$(dirname "$0")/../../.."
B=target/release/dredbench
HERE=results/ext/2026-12-04-seed
"$B" run --program datasets/seed/path.dl --facts datasets/seed/facts \
    --updates datasets/seed/delete-ab.updates --engines dred,oracle,ext:dred,ext:clingo \
    --check full --order listed --report "$HERE/report.csv" 2>&1 | tee "$HERE/run.txt"
"$B" run --program datasets/seed/path.dl --facts datasets/seed/facts \
    --updates datasets/seed/delete-ab.updates --query 'path("a", y)' \
    --engines dred,ext:dred,ext:clingo --check full --order listed \
    --report "$HERE/query-report.csv" 2>&1 | tee -a "$HERE/run.txt"
