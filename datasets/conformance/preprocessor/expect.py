"""Independent expected outputs of program.dl on facts/ (plain Python, no engine code):
python3 expect.py writes expected/*.csv. The program as the preprocessor leaves it: LIMIT is
3 in the rules before `#undef LIMIT` and a variable in the last one; WITH_EXTRA is defined,
so `cyclic` and `big` are declared and `missing.dl` is never read. `#x` makes the argument
`x` the string "x", `reach ## _named` the name reach_named; a call's arguments may run over
lines."""
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, ".."))
import expected_csv  # noqa: E402

with open(os.path.join(here, "facts", "edge.facts"), encoding="utf-8") as f:
    edge = {tuple(int(v) for v in l.split("\t")) for l in f if l.strip()}

reach = set(edge)
while True:
    new = {(x, z) for x, y in reach for y2, z in edge if y == y2 and z < 3 * 10}
    if new <= reach:
        break
    reach |= new
out = {
    "reach": list(reach),
    "cyclic": [(x,) for x, y in reach if x == y],
    "big": [(x,) for x, _ in reach if x > 3],
    # After `#undef LIMIT`, `LIMIT` is a variable: every edge's source.
    "label": [("LIMIT EDGE", x) for x, _ in edge],
    # `NAMED(reach, x)` reads `reach_named("x", x)`.
    "reach_named": [("x", x) for x, _ in edge if x < 3],
    "tagged": [("a, (b)", y) for _, y in edge],
    # `EDGE(x, // ...\n y)` over two lines reads `edge(x, y)`.
    "spread": [(x, y) for x, y in edge if x < 2],
}
expected_csv.write(here, out)
