#!/usr/bin/env bash
# The protocol's overhead with symbols as numbers (option `symbols=ids`, session 42): the
# streams of ../2026-12-05-direct/run.sh (GO MF, linear and non-linear TC, 1/10/100 edges
# deleted and inserted, 21 batches each followed by its inverse), each run three ways, the
# order rotating from stream to stream:
#   before/  OLD (default: a build of deef51a) with its own engines file, the OS placing the child
#   text/    this build, `ext:dred` on the harness's CPU, symbols as text (`serve --symbols-as-text`)
#   ids/     this build with the shipped engines file (on the harness's CPU, symbols as numbers)
# REPEATS=N runs it all N times (r1/, r2/, ...). Prints ../overhead.py's summaries into
# summary.md. Run from anywhere; builds nothing.
set -euo pipefail
cd "$(dirname "$0")/../../.."
B=$PWD/target/release/dredbench
OLD=${OLD:?OLD=path of the binary before (e.g. a build of deef51a)}
OLD_ENGINES=${OLD_ENGINES:?OLD_ENGINES=that revision engines.toml}
HERE=${HERE:-results/ext/2026-12-06-ids}
REPEATS=${REPEATS:-3}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
sed 's/"serve", "--engine", "dred"\]/"serve", "--engine", "dred", "--symbols-as-text"]/' \
    engines.toml > "$TMP/text-engines.toml"
grep -q -- --symbols-as-text "$TMP/text-engines.toml"
for r in $(seq 1 "$REPEATS"); do
  mkdir -p "$HERE/r$r/before" "$HERE/r$r/text" "$HERE/r$r/ids"
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
        ways=(before text ids)
        for k in 0 1 2; do
          way=${ways[$(( (i + k) % 3 ))]}
          out="$HERE/r$r/$way/$program-$s.csv"
          case $way in
            before) "$OLD" run --engines-file "$OLD_ENGINES" "${args[@]}" --report "$out" ;;
            text) "$B" run --engines-file "$TMP/text-engines.toml" "${args[@]}" --report "$out" ;;
            ids) "$B" run "${args[@]}" --report "$out" ;;
          esac >/dev/null
        done
        i=$((i + 1))
      done
    done
  done
done
gzip -f -9 "$HERE"/r*/*/*.csv
for r in $(seq 1 "$REPEATS"); do
  for way in before text ids; do
    echo "## Run $r, $way"; echo
    python3 results/ext/overhead.py "$HERE/r$r/$way"/*.csv.gz; echo
  done
done | tee "$HERE/summary.md"
