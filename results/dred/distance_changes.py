#!/usr/bin/env python3
"""What a single-edge deletion changes for `reach_root.dl`, counted outside every engine.

For each deletion of a `dredbench updates` stream, from the dataset's `edge.facts` and
`root.facts` alone (no engine code):

- over-deleted: what DRed must over-delete. Deleting edge(a, b) with reach(b) in the old
  model kills the old proof of reach(a) and, through it, of every reach(x) with a path
  x →* a: the ancestors of a, a included. (0 when reach(b) does not hold.)
- distance changed: nodes whose distance to the root (over edge x → y, reach(x) :- edge(x, y),
  reach(y)) changes. differential-dataflow's iteration holds reach at every round i (the
  nodes within distance i), so these nodes are all its recursive collection must change.
- round pairs: the (node, round) memberships that change: |new distance − old distance| per
  such node, a node that is no longer reached counting the rounds up to the last one.
- net removed: reach facts really gone.

With `--report REPORT.csv DATASET`, each deletion's over-deleted and net-removed counts are
compared with the `dred` rows of `reach_root` on DATASET (as the report names it) in a
`dredbench sweep --kinds delete --revert --sizes 1` report of the same streams (rows with one
effective deletion, in seed and batch order): an independent check of the engine.

usage: distance_changes.py FACTS_DIR UPDATES.txt[,UPDATES.txt...] [--report REPORT.csv DATASET]
"""
import collections
import csv
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # results/
from report_times import open_report  # noqa: E402


def distances(edges, root):
    """Distance of every node that reaches `root`, and the in-edges by head."""
    into = collections.defaultdict(list)
    for x, y in edges:
        into[y].append(x)
    dist = {root: 0}
    queue = collections.deque([root])
    while queue:
        y = queue.popleft()
        for x in into[y]:
            if x not in dist:
                dist[x] = dist[y] + 1
                queue.append(x)
    return dist, into


def ancestors(a, into):
    seen, todo = {a}, [a]
    while todo:
        y = todo.pop()
        for x in into[y]:
            if x not in seen:
                seen.add(x)
                todo.append(x)
    return seen


def main():
    args = sys.argv[1:]
    report = None
    if "--report" in args:
        i = args.index("--report")
        report, dataset = args[i + 1], args[i + 2]
        del args[i : i + 3]
    facts, streams = args[0], args[1].split(",")
    edges = {tuple(l.split()) for l in open(f"{facts}/edge.facts") if l.strip()}
    root = open(f"{facts}/root.facts").read().split()[0]
    before, into = distances(edges, root)
    last = max(before.values()) + 1
    rows = []
    for stream in streams:
        for line in open(stream):
            if not line.startswith("-"):
                continue
            _, rel, a, b = line.split()
            assert rel == "edge", line
            after, _ = distances(edges - {(a, b)}, root)
            changed = [x for x in before if after.get(x) != before[x]]
            pairs = sum(min(after.get(x, last), last) - before[x] for x in changed)
            over = len(ancestors(a, into)) if b in before else 0
            rows.append((over, len(changed), pairs, len(before) - len(after)))
    names = ("over-deleted", "distance changed", "round pairs", "net removed")
    print(f"{len(rows)} deletions")
    for i, name in enumerate(names):
        col = [r[i] for r in rows]
        print(f"{name}: median {statistics.median(col)}, sum {sum(col)}, max {max(col)}")
    if report:
        dred = [
            r
            for r in csv.DictReader(open_report(report))
            if r["engine"] == "dred"
            and r["program"] == "reach_root"
            and r["dataset"] == dataset
            and r["batch"] != "0"
            and r["eff_del"] == "1"
        ]
        dred.sort(key=lambda r: (int(r["seed"]), int(r["batch"])))
        same = len(dred) == len(rows) and all(
            int(r["overdeleted"] or 0) == mine[0] and int(r["model_removed"]) == mine[3]
            for r, mine in zip(dred, rows)
        )
        print(f"report {report}: {len(dred)} deletions; over-deleted and net removed "
              f"{'agree on every one' if same else 'DISAGREE'}")
        sys.exit(0 if same else 1)


if __name__ == "__main__":
    main()
