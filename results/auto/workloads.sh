#!/usr/bin/env bash
# auto's regret workloads (issue 40): auto beside dred, bf, recompute and recompute-levels,
# side by side in each run, on GO MF and R-MAT, the collapse set and smallvec's points-to;
# regret.py tabulates the reports. The script of the first measurement (2026-12-03, the run
# folder's run.sh until it was removed: d5a96ea:results/auto/2026-12-03-first/run.sh);
# HERE=DIR (required) names the run folder the reports go to; E=ENGINES replaces the engines,
# REPEAT=N runs each case N times and reports each batch's median times (`--repeat`);
# PARTS=graphs,collapses,pointsto (the default) names the parts run.
set -euo pipefail
cd "$(dirname "$0")/../.."
HERE=${HERE:?HERE=DIR names the run folder the reports go to}
B=${B:-target/release/dredbench}
P=datasets/programs; R='gen:rmat?n=4096&m=16384&seed=1&dag=1'
E=${E:-dred,bf,recompute,recompute-levels,auto}
REPEAT=${REPEAT:-1}
PARTS=",${PARTS:-graphs,collapses,pointsto},"
if [[ $PARTS == *,graphs,* ]]; then
"$B" sweep --datasets go-mf,"$R" --programs $P/tc_linear.dl,$P/reach_root.dl --kinds delete \
  --revert --sizes 1,100,1000 --seeds 1 --batches 21 --engines $E --workers 1 \
  --repeat "$REPEAT" --report "$HERE/graphs.csv.gz"
fi
if [[ $PARTS == *,collapses,* ]]; then
# Where DRed collapses on a first deletion (the worst batches of the full study at 0da453f):
# an SCC's or a hub's edges on C. elegans and the cliques, tc_nonlinear and magic_path_source.
"$B" sweep --datasets celegans,'gen:cliques?count=6&size=20&density=60&seed=1' \
  --programs $P/tc_nonlinear.dl,$P/magic_path_source.dl --kinds scc-delete,hub-delete \
  --revert --sizes 1,10 --seeds 1 --batches 11 --engines $E --workers 1 \
  --repeat "$REPEAT" --report "$HERE/collapses.csv.gz"
fi
if [[ $PARTS == *,pointsto,* ]]; then
# A points-to analysis of a real crate's MIR: 10 assignments deleted, then put back.
F=$("$B" datasets path rust-mir:smallvec)
"$B" updates --dataset "$F" --program $P/andersen.dl --kind delete --relation assign \
  --size 10 --batches 21 --revert --seed 1 --out /tmp/auto-sv10.updates
"$B" run --program $P/andersen.dl --facts "$F" --updates /tmp/auto-sv10.updates \
  --engines $E --repeat "$REPEAT" --report "$HERE/pointsto-smallvec.csv.gz"
fi
python3 results/auto/regret.py "$HERE"/*.csv.gz
