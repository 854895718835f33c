#!/bin/sh
# Peak resident memory of counting against dd (issue 39's target: counting <= 1.0x dd) and
# dred, one engine per process (`peak_rss_kb` is then that engine's footprint), on the
# largest models of the program analyses and of the non-recursive views; one function edit
# (or 10 edges) and its inverse after materialisation. First run 2026-12-03 (the run folder's
# script until it was removed, d5a96ea:results/counting/2026-12-03-memory/run.sh).
#   HERE=results/counting/DATE-NAME sh results/counting/memory.sh
# HERE=DIR (required) names the run folder the reports and TABLE.md go to.
set -e
B=${B:-target/release/dredbench}
HERE=${HERE:?HERE=DIR names the run folder the reports go to}
# CASES="PROGRAM DATASET KIND -;..." replaces the cases below (a later run's choice).
CASES=${CASES:-"nll_liveness_init rust-nll:memchr function-edit -;\
polonius_naive rust-nll:memchr function-edit -;\
andersen rust-mir:memchr function-edit -;\
two_hop debian-deps delete -;\
tc_linear go-bp delete -"}
IFS=';'
for line in $CASES; do
  IFS=' '
  set -- $line
  P=datasets/programs/$1.dl
  F=$($B datasets path $2)
  size=1; [ "$3" = delete ] && size=10
  $B updates --dataset "$F" --program $P --kind $3 --size $size --batches 1 --revert --seed 1 \
    --out /tmp/mem-$1.updates 2> /dev/null
  for e in counting dd dred recompute; do
    $B run --program $P --facts "$F" --updates /tmp/mem-$1.updates --engines $e \
      --report "$HERE/$1-$(echo $2 | tr : -)-$e.csv" > /dev/null 2>&1
  done
done
python3 - "$HERE" <<'PY' > "$HERE/TABLE.md"
import csv, glob, os, sys
here = sys.argv[1]
rows = {}
for f in sorted(glob.glob(os.path.join(here, "*.csv"))):
    for r in csv.DictReader(open(f)):
        key = (r["program"].split("/")[-1].removesuffix(".dl"), r["dataset"].split("/")[-2] if r["dataset"].endswith("facts") else r["dataset"])
        rows.setdefault(key, {})[r["engine"]] = max(rows.get(key, {}).get(r["engine"], 0), int(r["peak_rss_kb"] or 0))
print("| program | dataset | counting MiB | dd MiB | dred MiB | recompute MiB | counting / dd |")
print("|---|---|---:|---:|---:|---:|---:|")
for (p, d), m in rows.items():
    mib = lambda e: f"{m.get(e, 0) / 1024:,.0f}"
    ratio = m["counting"] / m["dd"] if m.get("dd") else float("nan")
    print(f"| {p} | {d} | {mib('counting')} | {mib('dd')} | {mib('dred')} | {mib('recompute')} | {ratio:.2f} |")
PY
cat "$HERE/TABLE.md"
