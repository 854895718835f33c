"""Independent expected outputs of program.dl on facts/ (plain Python, union-find, no
engine code): python3 expect.py writes expected/*.csv."""
import os

here = os.path.dirname(os.path.abspath(__file__))
def rows(name):
    with open(os.path.join(here, "facts", name + ".facts")) as f:
        return [tuple(l.rstrip("\n").split("\t")) for l in f if l.strip()]

def closure(pairs):
    parent = {}
    def find(x):
        parent.setdefault(x, x)
        while parent[x] != x:
            x = parent[x]
        return x
    for x, y in pairs:
        parent[find(x)] = find(y)
    classes = {}
    for x in list(parent):
        classes.setdefault(find(x), set()).add(x)
    return {(x, y) for c in classes.values() for x in c for y in c}

same = closure(rows("same"))
alias = closure(rows("link") + [("solo", "solo")])
out = {
    "same": same,
    "alias": alias,
    "class_size": {(x, sum(1 for a, _ in same if a == x)) for x, _ in same},
    "both": {(x, y) for x, y in same & alias if x != y},
}
os.makedirs(os.path.join(here, "expected"), exist_ok=True)
for name, rs in out.items():
    key = lambda r: tuple((0, v, "") if isinstance(v, int) else (1, 0, v) for v in r)
    with open(os.path.join(here, "expected", name + ".csv"), "w") as f:
        for r in sorted(rs, key=key):
            f.write("\t".join(str(v) for v in r) + "\n")
