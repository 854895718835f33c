"""Independent expected outputs of program.dl on facts/ (plain Python, no engine code):
python3 expect.py writes expected/*.csv."""
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, ".."))
import expected_csv  # noqa: E402


def rows(name):
    with open(os.path.join(here, "facts", name + ".facts"), encoding="utf-8") as f:
        return [l.rstrip("\n").split("\t") for l in f if l.strip("\n")]


a = {int(r[0]) for r in rows("a")}
w = {(int(r[0]), r[1]) for r in rows("w")}
out = {
    "total": [(len(a),)],
    "below_count": [(n + 1,) for n in a if n < len(a)],
    "next_below": [
        (n, 1 + max(x for x in a if x < n)) for n in a if n > 1 and any(x < n for x in a)
    ],
    "nested": [],
    "weight": [
        (k, sum(x for x, k2 in w if k2 == k) * 10 + sum(1 for _, k2 in w if k2 == k))
        for _, k in w
    ],
    "functor_min": [(x,) for x in a if x == min(x, 3)],
}
big = [y for y in a if y > 1]
if a and big:
    low = [x + 1 for x in a if x < min(big)]
    if low:
        out["nested"] = [(sum(low),)]
expected_csv.write(here, out)
