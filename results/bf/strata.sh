#!/usr/bin/env bash
# bf on the workloads with negation and aggregates of results/strata/ (issue 24's), beside
# dred, dd and recompute: GO terms (count, negation) under edge and part_of changes, Debian
# installability (negation) under dependency and conflict changes.
# usage: results/bf/strata.sh DREDBENCH OUT_DIR     (run from the repository's root)
set -euo pipefail
B=$1; O=$2; P=datasets/programs
E=dred,bf,dd,recompute
mkdir -p "$O"
"$B" datasets fetch go-bp >/dev/null
"$B" datasets fetch debian-deps >/dev/null
"$B" sweep --datasets go-bp --programs $P/go_terms.dl --kinds delete,insert --sizes 1,10 \
  --batches 11 --engines $E --report "$O/go-bp-edge.csv.gz"
"$B" sweep --datasets go-bp --programs $P/go_terms.dl --relation part_of --kinds delete,insert \
  --sizes 1,10 --batches 11 --engines $E --report "$O/go-bp-part_of.csv.gz"
"$B" sweep --datasets debian-deps --programs $P/installable.dl --kinds delete,insert \
  --sizes 1,10 --batches 11 --engines $E --report "$O/debian-edge.csv.gz"
"$B" sweep --datasets debian-deps --programs $P/installable.dl --relation conflicts \
  --kinds delete,insert --sizes 1,10 --batches 11 --engines $E --report "$O/debian-conflicts.csv.gz"
