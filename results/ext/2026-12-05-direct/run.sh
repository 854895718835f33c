#!/usr/bin/env bash
# The protocol's overhead after the exchange moved into the calling thread (session 33):
# the streams of session 27's run (d5a96ea:results/ext/2026-12-04-overhead/run.sh: GO MF,
# linear and non-linear TC, 1/10/100 edges deleted and inserted, 21 batches each followed by
# its inverse), each run twice in a row: free (the OS places the child) into free/, and with
# the harness and its child on one CPU (`taskset -c 1`) into pinned/. Prints both summaries
# (../overhead.py) into summary.md.
# Run from anywhere; builds nothing (cargo build --release -p harness --bin dredbench first).
set -euo pipefail
cd "$(dirname "$0")/../../.."
B=target/release/dredbench
HERE=${HERE:-results/ext/2026-12-05-direct}
CPU=${CPU:-1}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
mkdir -p "$HERE/free" "$HERE/pinned"
for program in tc_linear tc_nonlinear; do
  for kind in delete insert; do
    for size in 1 10 100; do
      s="$kind-k$size"
      "$B" updates --dataset go-mf --kind "$kind" --size "$size" --batches 21 --revert \
          --seed 1 --out "$TMP/$s.updates" 2>/dev/null
      args=(run --engines dred,ext:dred --program "datasets/programs/$program.dl"
            --facts datasets/go-mf/facts --dataset go-mf --updates "$TMP/$s.updates")
      "$B" "${args[@]}" --report "$HERE/free/$program-$s.csv" >/dev/null
      taskset -c "$CPU" "$B" "${args[@]}" --report "$HERE/pinned/$program-$s.csv" >/dev/null
    done
  done
done
gzip -f -9 "$HERE"/free/*.csv "$HERE"/pinned/*.csv
{
  echo "## Free (the OS places the child)"; echo
  python3 results/ext/overhead.py "$HERE"/free/*.csv.gz; echo
  echo "## Pinned (harness and child on CPU $CPU)"; echo
  python3 results/ext/overhead.py "$HERE"/pinned/*.csv.gz; echo
  echo "## Before (binary of df524e3: reader and writer threads; free)"; echo
  python3 results/ext/overhead.py "$HERE"/before/*.csv.gz
} | tee "$HERE/summary.md"
