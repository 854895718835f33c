"""Independent expected outputs of program.dl on facts/ (plain Python, no engine code):
python3 expect.py writes expected/*.csv. An ADT value is a Python tuple (branch, fields...),
a record a list; both are written as the engines write them (`$Add($Num(1), $Var(x))`, a
nullary branch as `$Red`, records as `[a, b]`), and a column of them sorts by that text."""
import os
import re
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, ".."))
import expected_csv  # noqa: E402


class Text(str):
    """A value written as the engines write it (sorted as text)."""


def parse(s):
    """An ADT value or record from its text, and the rest of the text."""
    s = s.lstrip()
    if s.startswith("["):
        items, s = [], s[1:]
        while True:
            v, s = parse(s)
            items.append(v)
            s = s.lstrip()
            if s.startswith("]"):
                return items, s[1:]
            s = s[1:]  # ','
    if s.startswith("$"):
        m = re.match(r"\$(\w+)", s)
        name, s = m.group(1), s[m.end():]
        fields = []
        if s.startswith("("):
            s = s[1:]
            if s.startswith(")"):
                return (name,), s[1:]
            while True:
                v, s = parse(s)
                fields.append(v)
                s = s.lstrip()
                if s.startswith(")"):
                    s = s[1:]
                    break
                s = s[1:]  # ','
        return (name, *fields), s
    m = re.match(r"-?\d+(?=[,)\]])", s)
    if m:
        return int(m.group(0)), s[m.end():]
    m = re.match(r"[^,)\]]*", s)
    return m.group(0).strip(), s[m.end():]


def text(v):
    if isinstance(v, tuple):
        if len(v) == 1:
            return "$" + v[0]
        return "$%s(%s)" % (v[0], ", ".join(text(f) for f in v[1:]))
    if isinstance(v, list):
        return "[%s]" % ", ".join(text(f) for f in v)
    return str(v)


def rows(name):
    with open(os.path.join(here, "facts", name + ".facts"), encoding="utf-8") as f:
        return [l.rstrip("\n").split("\t") for l in f if l.strip("\n")]


expr = {parse(r[0])[0] for r in rows("expr")}
env = {r[0]: int(r[1]) for r in rows("env")}
paint = [parse(r[0])[0] for r in rows("paint")]

sub = set()
todo = list(expr)
while todo:
    e = todo.pop()
    if e in sub:
        continue
    sub.add(e)
    if e[0] in ("Add", "Mul"):
        todo += [e[1], e[2]]


def evaluate(e):
    if e[0] == "Num":
        return e[1]
    if e[0] == "Var":
        return env.get(e[1])
    a, b = evaluate(e[1]), evaluate(e[2])
    if a is None or b is None:
        return None
    return a + b if e[0] == "Add" else a * b


value = {e: evaluate(e) for e in sub if evaluate(e) is not None}
T = lambda v: Text(text(v))  # noqa: E731
out = {
    "sub": [(T(e),) for e in sub],
    "value": [(T(e), n) for e, n in value.items()],
    "const_left": [(e[1][1], T(e[2])) for e in sub if e[0] == "Add" and e[1][0] == "Num"],
    "scaled": [(e[1][1], T(e[2])) for e in sub if e[0] == "Mul" and e[1][0] == "Var"],
    "unbound": [(T(e),) for e in expr if e not in value],
    "doubled": [(T(("Mul", ("Num", 2), e)),) for e in expr]
    + [(T(("Add", ("Var", "z"), ("Num", 0))),)],
    "red": [(T(e),) for e, c in paint if c == ("Red",)],
    "not_red": [(T(e), T(c)) for e, c in paint if c != ("Red",)],
    "green_value": [(value[e],) for e, c in paint if c == ("Green",) and e in value],
    "vars": [(sum(1 for e in sub if e[0] == "Var"),)],
    "largest": [(max(value.values()),)] if value else [],
    "operands": [(T(e[1]), T(e[2])) for e in sub if e[0] == "Add"],
    "not_left": [(T(e),) for e in sub if not any(f[0] == "Add" and f[1] == e for f in sub)],
    "painted_var": [(e[1], T(c)) for e, c in paint if e[0] == "Var" and c != ("Red",)],
}
expected_csv.write(here, out)
