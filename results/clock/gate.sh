#!/usr/bin/env bash
# The gate's calibration (issue 35): CI's regress, three unchanged quick studies and three with
# `dred` made 1.5x slower by the test-only switch, each against the committed baseline.
# Usage: results/clock/gate.sh OUT_DIR   (from the repository root, after a release build)
set -uo pipefail
OUT=${1:?output directory}
B=target/release/dredbench
mkdir -p "$OUT"
regress() {
    "$B" regress --baseline results/baseline/report.csv.gz --report "$1/report.csv.gz" \
        --tolerance 1.0 --aggregate-tolerance 0.25
}
for i in 1 2 3; do
    "$B" study --quick --no-plots --out "$OUT/unchanged-$i" 2>/dev/null
    regress "$OUT/unchanged-$i" > "$OUT/unchanged-$i/regress.txt" 2>&1
    echo "unchanged $i: exit $?" | tee -a "$OUT/verdicts.txt"
    DREDBENCH_PLANTED_SLOWDOWN=dred:1.5 "$B" study --quick --no-plots --out "$OUT/planted-$i" 2>/dev/null
    regress "$OUT/planted-$i" > "$OUT/planted-$i/regress.txt" 2>&1
    echo "planted 1.5x dred $i: exit $?" | tee -a "$OUT/verdicts.txt"
done
# The reports are the record: the study writes them gzipped (a tenth of the space).
