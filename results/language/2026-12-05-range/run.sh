#!/bin/sh
# What a range costs each engine: `v(x) :- b(lo, hi), x = range(lo, hi).` over one fact
# b(0, N), then one batch that replaces it by b(0, N/2) (deleting N/2 values): wall time and
# peak RSS of the whole `dredbench run` (parse, materialise, the batch), each engine alone.
# An engine past 120 s is stopped (`timeout`): its line reads about 120 seconds.
# Usage (from the repository's root): sh results/language/2026-12-05-range/run.sh > run.txt
set -e
B=${B:-target/release/dredbench}
T=$(mktemp -d)
printf '.decl b(lo: number, hi: number)\n.input b\n.decl v(x: number)\n.output v\nv(x) :- b(lo, hi), x = range(lo, hi).\n' > "$T/p.dl"
mkdir "$T/f"
echo "N engine seconds peak_KB"
for n in 1000 10000 100000; do
    printf '0\t%s\n' "$n" > "$T/f/b.facts"
    printf -- '-\tb\t0\t%s\n+\tb\t0\t%s\ncommit\n' "$n" $((n / 2)) > "$T/u.updates"
    for e in dred bf counting recompute auto dd; do
        /usr/bin/time -f "$n $e %e %M" timeout 120 "$B" run --program "$T/p.dl" \
            --facts "$T/f" --updates "$T/u.updates" --engines "$e" 2>&1 >/dev/null | tail -1
    done
done
rm -r "$T"
