#!/usr/bin/env bash
# The protocol's overhead after `serve` got its own update parser and fact writer and
# `ext:dred` was declared `same_cpu` (session 42), against the binary before: the streams of
# ../2026-12-05-direct/run.sh (GO MF, linear and non-linear TC, 1/10/100 edges deleted and
# inserted, 21 batches each followed by its inverse), each run three ways, the order rotating
# from stream to stream:
#   before/  OLD (default: a build of deef51a) with its own engines file, the OS placing the child
#   free/    this build, the OS placing the child (the shipped engines file without `same_cpu`)
#   same/    this build with the shipped engines file (`ext:dred` on the harness's CPU)
# REPEATS=N runs it all N times (r1/, r2/, ...). Prints ../overhead.py's summaries into
# summary.md. Run from anywhere; builds nothing.
set -euo pipefail
cd "$(dirname "$0")/../../.."
B=$PWD/target/release/dredbench
OLD=${OLD:?OLD=path of the binary before (e.g. a build of deef51a)}
OLD_ENGINES=${OLD_ENGINES:?OLD_ENGINES=that revision engines.toml}
HERE=${HERE:-results/ext/2026-12-06-same-cpu}
REPEATS=${REPEATS:-3}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
grep -v '^same_cpu' engines.toml > "$TMP/free-engines.toml"
for r in $(seq 1 "$REPEATS"); do
  mkdir -p "$HERE/r$r/before" "$HERE/r$r/free" "$HERE/r$r/same"
done
i=0
for program in tc_linear tc_nonlinear; do
  for kind in delete insert; do
    for size in 1 10 100; do
      s="$kind-k$size"
      "$B" updates --dataset go-mf --kind "$kind" --size "$size" --batches 21 --revert \
          --seed 1 --out "$TMP/$s.updates" 2>/dev/null
      args=(--engines dred,ext:dred --program "datasets/programs/$program.dl"
            --facts datasets/go-mf/facts --dataset go-mf --updates "$TMP/$s.updates")
      for r in $(seq 1 "$REPEATS"); do
        ways=(before free same)
        for k in 0 1 2; do
          way=${ways[$(( (i + k) % 3 ))]}
          out="$HERE/r$r/$way/$program-$s.csv"
          case $way in
            before) "$OLD" run --engines-file "$OLD_ENGINES" "${args[@]}" --report "$out" ;;
            free) "$B" run --engines-file "$TMP/free-engines.toml" "${args[@]}" --report "$out" ;;
            same) "$B" run "${args[@]}" --report "$out" ;;
          esac >/dev/null
        done
        i=$((i + 1))
      done
    done
  done
done
gzip -f -9 "$HERE"/r*/*/*.csv
for r in $(seq 1 "$REPEATS"); do
  for way in before free same; do
    echo "## Run $r, $way"; echo
    python3 results/ext/overhead.py "$HERE/r$r/$way"/*.csv.gz; echo
  done
done | tee "$HERE/summary.md"
