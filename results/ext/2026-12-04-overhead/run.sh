#!/usr/bin/env bash
# The protocol's overhead: `dred` and `ext:dred` (the same engine behind `dredbench serve`,
# declared in the repository's engines.toml) side by side in one run, on GO MF (13,770 edges)
# with linear and non-linear transitive closure, random deletions and insertions of 1, 10 and
# 100 edges (21 batches each, each followed by its inverse with --revert: 42 batches a
# stream). Writes one report per stream here and prints the summary (overhead.py).
# Run from anywhere; builds nothing (cargo build --release -p harness --bin dredbench first).
set -euo pipefail
cd "$(dirname "$0")/../../.."
B=target/release/dredbench
HERE=${HERE:-results/ext/2026-12-04-overhead}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
for program in tc_linear tc_nonlinear; do
  for kind in delete insert; do
    for size in 1 10 100; do
      s="$kind-k$size"
      "$B" updates --dataset go-mf --kind "$kind" --size "$size" --batches 21 --revert \
          --seed 1 --out "$TMP/$s.updates" 2>/dev/null
      "$B" run --engines dred,ext:dred --program "datasets/programs/$program.dl" \
          --facts datasets/go-mf/facts --dataset go-mf --updates "$TMP/$s.updates" \
          --report "$HERE/$program-$s.csv"
    done
  done
done
python3 results/ext/overhead.py "$HERE"/*.csv | tee "$HERE/summary.md"
