#!/bin/sh
# Regenerates the shipped Gene Ontology datasets datasets/go-cc and datasets/go-mf from
# Debian's r-bioc-go.db (GO.sqlite), exactly as `dredbench datasets fetch go-bp` makes the
# biological-process graph: `apt-get download` and `dpkg-deb -x` into a scratch directory
# (nothing installed system-wide), GO.sqlite read by dredbench's own reader
# (harness/src/datasets/sqlite.rs), every row of go_<ontology>_parents written as
# child<TAB>parent, sorted. Needs apt lists (`apt-get update`) and the network to the Debian
# archive. Compare `edge_facts_sha256` in the new PROVENANCE files with the committed ones:
# the same package version gives the same bytes.
set -eu
cd "$(dirname "$0")/../.."
for name in go-cc go-mf; do
    cargo run --release -p harness --bin dredbench -- datasets fetch "$name" --out "datasets/$name"
done
