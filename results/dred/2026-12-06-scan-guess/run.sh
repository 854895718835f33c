#!/usr/bin/env bash
# Round 1's choice between checks and a scan (session 47: the unmeasured scan's guess here,
# the check weight in ../2026-12-06-check-weight/): `dred` beside `recompute` on the cases where
# that choice matters, with the binary before (BEFORE) and
# after (AFTER), one after the other; OUT=DIR names the output folder; table.py compares.
#   OUT=DIR bash results/dred/2026-12-06-scan-guess/run.sh BEFORE AFTER
set -uo pipefail   # not -e: a sweep with a case that cannot run (no SCC in go-cc) exits 1
cd "$(dirname "$0")/../../.."
OUT=${OUT:?OUT=DIR names the output folder}
P=datasets/programs; R='gen:rmat?n=4096&m=16384&seed=1&dag=1'
C='gen:cliques?count=6&size=20&density=60&seed=1'
for side in before after; do
  B=$([ $side = before ] && echo "$1" || echo "$2")
  mkdir -p "$OUT/$side"
  common=(--seeds 1 --batches 11 --revert --engines dred,recompute --workers 1)
  "$B" sweep --datasets go-bp,"$R",go-mf --programs $P/tc_linear.dl --kinds delete \
    --sizes 1,100,1000 "${common[@]}" --report "$OUT/$side/tc.csv.gz"
  "$B" sweep --datasets celegans,go-cc,"$C" --programs $P/tc_nonlinear.dl,$P/magic_path_source.dl \
    --kinds delete,scc-delete,mixed --sizes 10,100 "${common[@]}" --report "$OUT/$side/nl.csv.gz"
  "$B" sweep --datasets wordnet,debian-deps --programs $P/reach_root.dl --kinds delete,hub-delete \
    --sizes 10,1000 "${common[@]}" --report "$OUT/$side/misc.csv.gz"
  "$B" sweep --datasets wordnet,go-cc --programs $P/same_generation.dl --kinds delete,hub-delete \
    --sizes 10,1000 "${common[@]}" --report "$OUT/$side/sg.csv.gz"
done
python3 results/dred/2026-12-06-scan-guess/table.py "$OUT"/before/*.csv.gz -- "$OUT"/after/*.csv.gz
