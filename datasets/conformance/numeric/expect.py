"""Independent expected outputs of program.dl on facts/ (plain Python, no engine code):
python3 expect.py writes expected/*.csv. Python's float is the same IEEE double as the
engines' `float`; unsigned arithmetic is taken modulo 2**64 here by hand. Floats are
written as the engines write them: the shortest decimal that reads back the same, without
a fraction when it is whole, with an exponent outside [1e-5, 1e16)."""
import math
import os
import re
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, ".."))
import expected_csv  # noqa: E402
U = 2**64


def rows(name):
    with open(os.path.join(here, "facts", name + ".facts"), encoding="utf-8") as f:
        return [l.rstrip("\n").split("\t") for l in f if l.strip("\n")]


class F(float):
    """A float column's value (prints as the engines print floats)."""


def fmt(v):
    if isinstance(v, F):
        f = float(v)
        if math.isnan(f):
            return "NaN"
        if math.isinf(f):
            return "inf" if f > 0 else "-inf"
        if f != 0 and not (1e-5 <= abs(f) < 1e16):
            # The fewest significant digits that read back the same.
            for digits in range(1, 18):
                m, e = ("%.*e" % (digits - 1, f)).split("e")
                if float(m + "e" + e) == f:
                    break
            return "%se%d" % (m, int(e))
        r = repr(f + 0.0)
        return r[:-2] if r.endswith(".0") else r
    return str(v)


def strtod(s):
    m = re.match(r"[ \t\n\v\f\r]*([+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)", s)
    return F(float(m.group(1))) if m else None


def strtoull(s):
    m = re.match(r"[ \t\n\v\f\r]*([0-9]+)", s)
    if not m or int(m.group(1)) >= U:
        return None
    return int(m.group(1))


def trunc_sat(f, lo, hi):
    if math.isnan(f):
        return 0
    if math.isinf(f):
        return hi if f > 0 else lo
    return max(lo, min(hi, int(f)))


def fsum(values):
    s = 0.0
    for v in sorted(values):
        s += v
    return F(s)


def fdiv(a, b):
    if b == 0:
        if a == 0 or math.isnan(a):
            return F(math.nan)
        return F(math.copysign(math.inf, a) * math.copysign(1, b))
    return F(a / b)


def fpow(a, b):
    try:
        return F(math.pow(a, b))
    except OverflowError:
        return F(math.inf)


item = {(int(i), F(float(w)), int(n)) for i, w, n in rows("item")}
edge = {(int(a), int(b), F(float(c))) for a, b, c in rows("edge")}
text = {s for (s,) in rows("text")}

out = {}
out["scaled"] = [(i, F(w * 2 + 0.5), F(-fpow(w, 2.0)), F(max(w, 1.0, -2.5))) for i, w, _ in item]
out["ids"] = [(i, (i + 1) % U, i // 2, (i & 6) | 1, i >> 60) for i, _, _ in item]
out["wrapped"] = [(i, (i - 1) % U) for i, _, _ in item if i < 2]
out["inverse"] = [(i, fdiv(1.0, w - 1.5)) for i, w, _ in item]
out["converted"] = [
    (i, trunc_sat(w, -(2**63), 2**63 - 1), F(float(i) / 4), fmt(w), str(i)) for i, w, _ in item
]
out["back"] = [(n, n % U, F(float(n) / 2)) for _, _, n in item]
out["as_float"] = [(s, strtod(s)) for s in text if strtod(s) is not None]
out["as_unsigned"] = [(s, strtoull(s)) for s in text if strtoull(s) is not None]
out["heavy"] = [(i,) for i, w, _ in item if w >= 1.5 and i != 3]
out["big"] = [(i,) for i, _, _ in item if i > 2**63 - 1]
if item:
    out["total"] = [
        (
            fsum(w for _, w, _ in item),
            F(min(w for _, w, _ in item)),
            max(i for i, _, _ in item),
            sum(i for i, _, _ in item) % U,
            len(item),
        )
    ]
out["out_cost"] = [(a, fsum(c for (x, _, c) in edge if x == a)) for a in {a for a, _, _ in edge}]
dist = {(1, F(0.0))}
while True:
    new = {(b, F(d + c)) for (a, d) in dist for (x, b, c) in edge if x == a and d + c < 10}
    if new <= dist:
        break
    dist |= new
out["dist"] = list(dist)
reached = {b for b, _ in dist}
out["unreached"] = [(i,) for i, _, _ in item if i not in reached]
out["consts"] = [(7, F(2.5)), (6, F(0.25)), (U - 1, F(-1.5e-3)), (U - 2, F(16.0))]


expected_csv.write(here, out, fmt)
