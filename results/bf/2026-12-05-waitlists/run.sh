#!/bin/sh
# B/F on the full study's worst case: magic_path_source over gen:layered, the first batch of
# hub-delete k=100 (the source's 100 out-edges deleted: 199,742 of 199,743 facts lose their
# support). `bf` alone, one batch, each binary twice, alternating.
# Usage (from the repository root): sh results/bf/2026-12-05-waitlists/run.sh BEFORE AFTER
set -e
F=$("$1" datasets path gen:layered)
P=datasets/programs/magic_path_source.dl
T=$(mktemp -d)
"$1" updates --dataset "$F" --program $P --kind hub-delete --size 100 --batches 11 --revert \
    --seed 1 --out "$T/all.updates" 2> /dev/null
awk '/^commit/{print; exit} {print}' "$T/all.updates" > "$T/one.updates"
echo "binary batch_ms backward_instances checked disproved peak_rss_kb"
for i in 1 2; do
    for b in "$1" "$2"; do
        "$b" run --program $P --facts "$F" --dataset gen:layered --updates "$T/one.updates" \
            --engines bf --report "$T/r.csv" > /dev/null 2>&1
        python3 - "$b" "$T/r.csv" <<'PY'
import csv, sys
r = [x for x in csv.DictReader(open(sys.argv[2])) if x["batch"] == "1"][0]
print(sys.argv[1], int(r["time_ns"]) // 10**6, r["backward_instances"], r["checked"], r["disproved"], r["peak_rss_kb"])
PY
    done
done
rm -r "$T"
