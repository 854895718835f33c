#!/usr/bin/env bash
# The A/A spread against the context a timed call inherits (issue 35): the clock's floor on
# working sets past the private L2, plain and with a flush before every timed call, then the
# quick study's A/A pair by the engine that ran before each call, as shipped and (with
# ISOLATE=1) `--isolate`: every timed call preceded by a 64 MiB write sweep and a fixed
# sort-and-hash scrub. (The committed tables were taken before `--isolate` existed, with
# `isolate.patch` on 0ada049 and its env knobs DREDBENCH_SWEEP_MIB=64 DREDBENCH_SCRUB=1,
# which do the same.) Writes tables only; reports go to a temporary directory (120 KB each).
#
#   OUT=DIR [BIN=target/release/dredbench] [ISOLATE=1] results/clock/2026-12-06-context/run.sh
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
OUT="${OUT:-$here}"
BIN="${BIN:-target/release/dredbench}"
FLOOR="${FLOOR:-target/release/examples/clock_floor}"
RUNS="${RUNS:-3}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$OUT"
sizes=(300 64 1024 4096/300 16384/300 32768/300 262144/300)
for i in $(seq "$RUNS"); do
    "$FLOOR" "${sizes[@]}" > "$OUT/floor-$i.md"
    "$FLOOR" --flush "${sizes[@]}" > "$OUT/floor-flush-$i.md"
done
aa=()
for i in $(seq "$RUNS"); do
    "$BIN" study --quick --no-plots --out "$tmp/shipped-$i" > /dev/null
    python3 "$here/../predecessor.py" "$tmp/shipped-$i/report.csv.gz" > "$OUT/after-shipped-$i.md"
    aa+=("shipped-$i=$tmp/shipped-$i/report.csv.gz")
    if [ -n "${ISOLATE:-}" ]; then
        "$BIN" study --quick --isolate --no-plots --out "$tmp/isolated-$i" > /dev/null
        python3 "$here/../predecessor.py" "$tmp/isolated-$i/report.csv.gz" > "$OUT/after-isolated-$i.md"
        aa+=("isolated-$i=$tmp/isolated-$i/report.csv.gz")
    fi
done
python3 "$here/../aa_table.py" "${aa[@]}" > "$OUT/aa-table.md"
