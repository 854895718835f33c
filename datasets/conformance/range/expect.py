"""Independent expected outputs of program.dl on facts/ (plain Python, no engine code):
python3 expect.py writes expected/*.csv. `rng` is Soufflé's meaning of `range` as its
documentation and interpreter give it (see program.dl's header)."""
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, ".."))
import expected_csv  # noqa: E402


def rows(name):
    with open(os.path.join(here, "facts", name + ".facts"), encoding="utf-8") as f:
        return [tuple(int(v) for v in l.split("\t")) for l in f if l.strip("\n")]


def rng(lo, hi, step=None):
    if step is None:
        step = 1 if lo <= hi else -1
    out, x = [], lo
    if step > 0:
        while x < hi:
            out.append(x)
            x += step
    elif step < 0:
        while x > hi:
            out.append(x)
            x += step
    elif lo != hi:
        out.append(lo)
    return out


def fmt(v):
    if isinstance(v, float):
        r = repr(v + 0.0)
        return r[:-2] if r.endswith(".0") else r
    return str(v)


bound, step = rows("bound"), rows("step")
reach, todo = {0}, [0]
while todo:
    x = todo.pop()
    if x < 12:
        for y in rng(x + 2, x + 4):
            if y not in reach:
                reach.add(y)
                todo.append(y)
out = {
    "up": [(lo, hi, x) for lo, hi in bound for x in rng(lo, hi)],
    "stepped": [(lo, hi, s, x) for lo, hi, s in step for x in rng(lo, hi, s)],
    "small": [(x,) for x in rng(0, 3)],
    "pairs": [(x, y) for lo, hi in bound if lo < hi for x in rng(lo, hi) for y in rng(x, hi)],
    "halves": [(0.0 + 0.5 * i,) for i in range(4)],
    "countdown": [(x,) for x in rng(5, 2)],
    "sizes": [(lo, hi, len(rng(lo, hi))) for lo, hi in bound],
    "reach": [(x,) for x in reach],
    "shifted": [(10 * x + 1,) for x in rng(1, 3)],
    "gaps": [(x,) for x in rng(0, 16) if x not in reach],
    "far": [(x,) for x in rng(9223372036854775804, 9223372036854775807, 2)]
    + [(x,) for x in rng(-9223372036854775807, -9223372036854775805)],
    "evens": [(x,) for x in rng(0, 9, 4)],
}
expected_csv.write(here, out, fmt)
