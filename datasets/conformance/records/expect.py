"""Independent expected outputs of program.dl on facts/ (plain Python, no engine code):
python3 expect.py writes expected/*.csv. A record is a Python tuple, `nil` is None; both
are written as the engines write records (`[1, a]`, a symbol field in double quotes when it
holds `,`, `[`, `]` or `"`, is empty or is `nil`), and a column of records sorts by that
text."""
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, ".."))
import expected_csv  # noqa: E402


class Rec(str):
    """A record column's value, held as the text the engines write (sorted by it)."""


def text(v, kinds):
    """The text of the record `v` whose fields have the kinds `kinds` ('n' number,
    's' symbol, or a nested tuple of kinds; 'self' a field of the same record type)."""
    if v is None:
        return "nil"
    out = []
    for field, kind in zip(v, kinds):
        if kind == "n":
            out.append(str(field))
        elif kind == "s":
            quote = field == "" or field == "nil" or any(c in field for c in ',[]"')
            quote = quote or field.strip() != field
            out.append('"%s"' % field.replace("\\", "\\\\").replace('"', '\\"') if quote else field)
        elif kind == "self":
            out.append(text(field, kinds))
        else:
            out.append(text(field, kind))
    return "[" + ", ".join(out) + "]"


PAIR = ("n", "s")
WRAP = (PAIR, "s")
PATH = ("s", "self")


def read_pair(s):
    """`[n, s]` with s bare or quoted, as the facts write pairs."""
    inner = s.strip()[1:-1]
    n, sym = inner.split(",", 1)
    sym = sym.strip()
    if sym.startswith('"'):
        sym = sym[1:-1]
    return (int(n), sym)


def rows(name):
    with open(os.path.join(here, "facts", name + ".facts"), encoding="utf-8") as f:
        return [l.rstrip("\n").split("\t") for l in f if l.strip("\n")]


pair = {read_pair(r[0]) for r in rows("pair")}
edge = {(r[0], r[1]) for r in rows("edge")}
bound = {int(r[0]) for r in rows("bound")}

out = {}
out["first"] = [(n,) for n, _ in pair]
out["swapped"] = [(s, n) for n, s in pair]
ones = {(1, s) for n, s in pair if n == 1}
out["ones"] = [(Rec(text(p, PAIR)),) for p in ones]
wrapped = {((n, s), "w") for n, s in pair if n > 0} | {((0, "zero"), "fact")}
out["wrapped"] = [(Rec(text(w, WRAP)),) for w in wrapped]
out["unwrapped"] = [(n, s, t) for (n, s), t in wrapped]
out["mirror"] = [(n,) for n, s in pair if s == str(n)]

# Paths from "a": (newest node, rest) lists, at most max(bound) edges; nil has length 0.
path = set()
if bound:
    path.add((None, 0))
path |= {((y, None), 1) for x, y in edge if x == "a"}
while True:
    new = {
        ((z, p), n + 1)
        for p, n in path
        if p is not None
        for y2, z in edge
        if y2 == p[0]
        for b in bound
        if n < b
    }
    if new <= path:
        break
    path |= new
out["path"] = [(Rec(text(p, PATH)), n) for p, n in path]
out["ends"] = [(p[0], n) for p, n in path if p is not None]
out["before"] = [(p[1][0], p[0]) for p, _ in path if p is not None and p[1] is not None]
out["empty"] = [(n,) for p, n in path if p is None]

out["other"] = [
    (Rec(text(p, PAIR)), Rec(text(q, PAIR))) for p in pair for q in pair if p != q and p in ones
]
out["unwrapped_pair"] = [(Rec(text(p, PAIR)),) for p in pair if (p, "w") not in wrapped]
out["count_by"] = [
    (s, sum(1 for p, _ in path if p is not None and p[1] is not None and p[1][0] == s))
    for s, _ in edge
]
out["longest"] = [(max(n for _, n in path),)] if path else []

out["by_equality"] = [(n, s) for n, s in pair]
out["inner_tag"] = [(s, t) for (_, s), t in wrapped]
out["second_hop"] = [(p[1][0],) for p, n in path if n == 2 and p[1][1] is None]
out["one_hop"] = [(p[0],) for p, _ in path if p is not None and p[1] is None]
out["no_pair_of"] = [(b,) for b in bound if not any(n == b for n, _ in pair)]

expected_csv.write(here, out)
