#!/bin/bash
# Peak memory of `dred` and `dd` at the nine points of results/dred's memory table, two ways:
#   alone.csv.gz  every point and engine in a fresh process, REPS times;
#   sweep.csv.gz  each engine over all nine points in one process, as 2026-12-02-memory ran.
# Each row carries peak_rss_kb (resident set) and peak_heap_kb (bytes in live heap blocks).
# usage: [OUT=DIR] [REPS=N] run.sh [BIN]   (from the repository root; ~4-6 min; writes in DIR,
# this folder by default; REPS=2 by default)
set -euo pipefail
B=${1:-target/release/dredbench}; SCRIPT=$(dirname "$0"); HERE=${OUT:-$SCRIPT}; REPS=${REPS:-2}
P=datasets/programs; R='gen:rmat?n=4096&m=16384&seed=1&dag=1'
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
ARGS=(--kinds delete --revert --sizes 1000 --seeds 1 --batches 20 --workers 1)
for rep in $(seq 1 "$REPS"); do
  for d in go-bp wordnet "$R"; do for p in tc_linear reach reach_root; do for e in dred dd; do
    $B sweep --datasets "$d" --programs "$P/$p.dl" --engines $e "${ARGS[@]}" \
      --report "$T/alone-$rep-$e-${d%%\?*}-$p.csv" >/dev/null
  done; done; done
done
for e in dred dd; do
  $B sweep --datasets go-bp,wordnet,"$R" --programs $P/tc_linear.dl,$P/reach.dl,$P/reach_root.dl \
    --engines $e "${ARGS[@]}" --report "$T/sweep-$e.csv" >/dev/null
done
python3 - "$T" "$HERE" <<'PY'
import csv, glob, gzip, os, sys
tmp, here = sys.argv[1], sys.argv[2]
for kind in ("alone", "sweep"):
    files = sorted(glob.glob(os.path.join(tmp, kind + "-*.csv")))
    with gzip.open(os.path.join(here, kind + ".csv.gz"), "wt", newline="") as out:
        w = None
        for f in files:
            for row in csv.DictReader(open(f)):
                if kind == "alone":
                    row["stream"] += "-rep" + os.path.basename(f).split("-")[1]
                if w is None:
                    w = csv.DictWriter(out, fieldnames=list(row))
                    w.writeheader()
                w.writerow(row)
PY
python3 "$SCRIPT/table.py" "$HERE" > "$HERE/TABLE.md"
