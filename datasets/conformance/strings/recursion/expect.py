"""Independent expected outputs of program.dl on facts/ (plain Python, no engine code):
python3 expect.py writes expected/*.csv. Each recursive relation is computed to its fixpoint
by iterating its rule naively; lengths in bytes of UTF-8 (the data is ASCII)."""
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", ".."))
import expected_csv  # noqa: E402


def rows(name):
    with open(os.path.join(here, "facts", name + ".facts"), encoding="utf-8") as f:
        return [l.rstrip("\n").split("\t") for l in f if l.strip("\n")]


def fixpoint(start, step):
    facts = set(start)
    while True:
        new = step(facts) - facts
        if not new:
            return facts
        facts |= new


seed = {s for (s,) in rows("seed")}
e = {(x, y) for x, y in rows("e")}

out = {}
out["grow"] = [(s,) for s in fixpoint(seed, lambda g: {s + "a" for s in g if len(s) < 4})]
out["prefix"] = list(fixpoint({(s, s) for s in seed},
                              lambda p: {(s, q[:-1]) for s, q in p if len(q) > 0}))
out["counter"] = [(c,) for c in fixpoint({"0"}, lambda c: {str(int(s) + 1) for s in c if int(s) < 7})]
walk = fixpoint({(x, x) for x in seed},
                lambda w: {(y, p + ">" + y) for x, p in w for a, y in e if a == x and len(p) < 9})
out["walk"] = list(walk)
reached = {x for x, _ in walk}
out["unreached"] = [(y,) for _, y in e if y not in reached]

expected_csv.write(here, out)
