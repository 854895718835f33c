#!/bin/bash
# Paired `dred` runs of two binaries on the nine points of results/dred (K = 1: seeds 1-3,
# K = 1,000: seed 1; 20 deletions each reverted), in both orders: A then B twice (ab-*),
# then B then A twice (ba-*), because the binary run second read up to 25% faster.
# usage: [OUT=DIR] run.sh A B   (from the repository root; ~4-8 min) -> DIR/paired.csv.gz
# (each batch's time by order, run, binary), DIR/TABLE.md; DIR is this folder by default
set -euo pipefail
SCRIPT=$(dirname "$0"); HERE=${OUT:-$SCRIPT}; A=$1; B=$2; T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
P=datasets/programs; R='gen:rmat?n=4096&m=16384&seed=1&dag=1'
sweep() { # BIN SIZE SEEDS OUT
  "$1" sweep --datasets go-bp,wordnet,"$R" --programs $P/tc_linear.dl,$P/reach.dl,$P/reach_root.dl \
    --kinds delete --revert --sizes "$2" --seeds "$3" --batches 20 --engines dred --workers 1 \
    --report "$4" >/dev/null 2>&1
}
for order in ab ba; do for i in 1 2; do for v in ${order:0:1} ${order:1:1}; do
  BIN=$A; [ $v = b ] && BIN=$B
  sweep "$BIN" 1 1,2,3 "$T/$order-$i-$v-k1.csv"
  sweep "$BIN" 1000 1 "$T/$order-$i-$v-k1000.csv"
done; done; done
python3 - "$T" "$HERE/paired.csv.gz" <<'PY'
import csv, glob, gzip, os, sys
with gzip.open(sys.argv[2], "wt", newline="") as out:
    w = csv.writer(out)
    w.writerow(["order", "run", "binary", "k", "dataset", "program", "seed", "batch", "time_ns"])
    for f in sorted(glob.glob(os.path.join(sys.argv[1], "*.csv"))):
        order, run, v, k = os.path.basename(f)[:-4].split("-")
        for r in csv.DictReader(open(f)):
            w.writerow([order, run, v, k[1:], r["dataset"].split("?")[0], r["program"],
                        r["seed"], r["batch"], r["time_ns"]])
PY
python3 "$SCRIPT/table.py" "$HERE" > "$HERE/TABLE.md"
