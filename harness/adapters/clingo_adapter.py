#!/usr/bin/env python3
"""clingo behind dredbench's engine protocol, version 1 (docs/engine-protocol.md).

An independent engine for `dredbench --engines ext:clingo`: the program (the Soufflé subset
of SPEC §2) is translated to ASP, and after every batch the whole model is recomputed by
grounding and solving with clingo (Potassco, `pip install clingo==5.8.3`); the answer is the
difference from the previous model. Positive rules, recursion, constants, `_`, comparisons,
facts in the program and stratified negation translate; aggregates, arithmetic and anything
else outside the subset are refused with `unsupported FEATURE`. clingo's integers are 32-bit,
so every number (an i64) travels as a term n(A, B, C) with value A*2^62 + B*2^31 + C, A in
[-2, 1] and B, C in [0, 2^31): clingo orders such terms argument by argument, which is the
numbers' order, so comparisons stay exact and every value round-trips.

Run by the harness, never by hand: requests on stdin, answers on stdout, diagnostics on
stderr.
"""

import re
import sys
import time

try:
    import clingo
except ImportError:  # answered through the protocol, so the harness names the cause
    clingo = None

PROTOCOL = "1"
LOW = 2**31


class Unsupported(Exception):
    """The program uses something this adapter does not translate."""


class Malformed(Exception):
    """A request or input file the adapter cannot read."""


# ---------------------------------------------------------------------------------------
# Reading the Soufflé subset

TOKEN = re.compile(
    r"""
    (?P<ws>\s+)
  | (?P<line_comment>//[^\n]*)
  | (?P<block_comment>/\*.*?\*/)
  | (?P<string>"(?:[^"\\\n]|\\.)*")
  | (?P<number>-?\d+)
  | (?P<directive>\.[A-Za-z_]+)
  | (?P<ident>[A-Za-z_][A-Za-z0-9_]*)
  | (?P<op>:-|!=|<=|>=|[()=<>,.!:;{}+*/%-])
  """,
    re.VERBOSE | re.DOTALL,
)

ESCAPES = {'"': '"', "\\": "\\", "n": "\n", "t": "\t"}


def tokens(text):
    pos = 0
    out = []
    while pos < len(text):
        m = TOKEN.match(text, pos)
        if not m:
            line = text.count("\n", 0, pos) + 1
            raise Unsupported(f"the program's text at line {line}: {text[pos:pos + 20]!r}")
        pos = m.end()
        kind = m.lastgroup
        if kind in ("ws", "line_comment", "block_comment"):
            continue
        value = m.group(kind)
        if kind == "string":
            body = value[1:-1]
            value = re.sub(r"\\(.)", lambda e: ESCAPES.get(e.group(1), e.group(1)), body)
        out.append((kind, value))
    out.append(("eof", ""))
    return out


class Program:
    """Declarations, rules and program facts, translated to ASP text."""

    def __init__(self, text):
        self.types = {}  # relation -> list of "symbol" | "number"
        self.inputs = []
        self.rules = []  # ASP rule texts
        self.toks = tokens(text)
        self.i = 0
        while self.peek()[0] != "eof":
            if self.peek()[0] == "directive":
                self.directive()
            else:
                self.clause()
        self.idb = [r for r in self.types if r not in self.inputs]

    # token helpers
    def peek(self, k=0):
        return self.toks[self.i + k]

    def take(self, kind=None, value=None):
        tok = self.toks[self.i]
        if (kind and tok[0] != kind) or (value is not None and tok[1] != value):
            want = value if value is not None else kind
            raise Unsupported(f"syntax this adapter does not read: expected {want}, got {tok[1]!r}")
        self.i += 1
        return tok

    def directive(self):
        _, d = self.take("directive")
        if d == ".decl":
            _, name = self.take("ident")
            self.take("op", "(")
            types = []
            while self.peek()[1] != ")":
                self.take("ident")
                self.take("op", ":")
                _, ty = self.take("ident")
                if ty not in ("symbol", "number"):
                    raise Unsupported(f"column type {ty}")
                types.append(ty)
                if self.peek()[1] == ",":
                    self.take("op", ",")
            self.take("op", ")")
            if self.peek()[0] == "ident":  # qualifiers such as eqrel, brie
                raise Unsupported(f"relation qualifier {self.peek()[1]}")
            self.types[name] = types
        elif d in (".input", ".output"):
            _, name = self.take("ident")
            if self.peek()[1] == "(":
                raise Unsupported(f"{d} with parameters")
            if d == ".input":
                self.inputs.append(name)
        else:
            raise Unsupported(f"directive {d}")

    def term(self, var_names):
        kind, value = self.take()
        if kind == "string":
            return asp_string(value)
        if kind == "number":
            return asp_number(int(value))
        if kind == "ident":
            if value == "_":
                return "_"
            if value in ("count", "sum", "min", "max") and self.peek()[1] in (":", "{"):
                raise Unsupported("aggregates")
            var_names.add(value)
            return "V" + value
        raise Unsupported(f"term {value!r}")

    def atom(self, var_names):
        _, name = self.take("ident")
        if name not in self.types:
            raise Unsupported(f"undeclared relation {name}")
        self.take("op", "(")
        args = []
        while self.peek()[1] != ")":
            args.append(self.term(var_names))
            if self.peek()[1] == ",":
                self.take("op", ",")
        self.take("op", ")")
        return pred(name) + (f"({','.join(args)})" if args else "")

    def literal(self, var_names):
        if self.peek()[1] == "!":
            self.take("op", "!")
            return "not " + self.atom(var_names)
        if self.peek()[0] == "ident" and self.peek(1)[1] == "(":
            return self.atom(var_names)
        left = self.term(var_names)
        kind, op = self.take()
        if op not in ("=", "!=", "<", "<=", ">", ">="):
            raise Unsupported(f"operator {op!r} (arithmetic or aggregates)")
        if self.peek()[0] == "ident" and self.peek()[1] in ("count", "sum", "min", "max"):
            raise Unsupported("aggregates")
        right = self.term(var_names)
        if self.peek()[1] in ("+", "-", "*", "/", "%"):
            raise Unsupported("arithmetic")
        return f"{left}{op}{right}"

    def clause(self):
        var_names = set()
        head = self.atom(var_names)
        if self.peek()[1] == ".":
            self.take("op", ".")
            self.rules.append(head + ".")
            return
        self.take("op", ":-")
        body = [self.literal(var_names)]
        while self.peek()[1] == ",":
            self.take("op", ",")
            body.append(self.literal(var_names))
        if self.peek()[1] == ";":
            raise Unsupported("disjunction")
        self.take("op", ".")
        self.rules.append(f"{head} :- {', '.join(body)}.")

    def asp(self):
        shows = [f"#show {pred(r)}/{len(self.types[r])}." for r in self.idb]
        return "\n".join(self.rules + shows) + "\n"


def pred(name):
    return "r_" + name


def asp_string(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def asp_number(n):
    if not -(2**63) <= n < 2**63:
        raise Malformed(f"the number {n} is not a signed 64-bit integer")
    a = n >> 62
    rest = n - (a << 62)
    return f"n({a},{rest >> 31},{rest & (LOW - 1)})"


def from_asp_number(sym):
    a, b, c = (x.number for x in sym.arguments)
    return (a << 62) + (b << 31) + c


# ---------------------------------------------------------------------------------------
# Facts and the model

def parse_values(program, rel, fields):
    types = program.types[rel]
    if not types:
        if fields in ([], ["()"]):
            return ()
        raise Malformed(f"{rel} has no columns, got {fields!r}")
    if len(fields) != len(types):
        raise Malformed(f"{rel} has {len(types)} column(s), got {len(fields)}")
    out = []
    for ty, f in zip(types, fields):
        if ty == "number":
            n = int(f)
            asp_number(n)
            out.append(n)
        else:
            out.append(f)
    return tuple(out)


def read_facts(program, directory):
    edb = {rel: set() for rel in program.inputs}
    for rel in program.inputs:
        try:
            with open(f"{directory}/{rel}.facts", encoding="utf-8") as f:
                for line in f:
                    line = line.rstrip("\n").rstrip("\r")
                    if line == "" and program.types[rel]:
                        continue
                    edb[rel].add(parse_values(program, rel, line.split("\t")))
        except FileNotFoundError:
            pass
    return edb


def fact_text(program, rel, values):
    args = [
        asp_number(v) if ty == "number" else asp_string(v)
        for ty, v in zip(program.types[rel], values)
    ]
    return pred(rel) + (f"({','.join(args)})" if args else "") + "."


def solve(program, edb):
    """The IDB of `program` on `edb`: a set of (relation, values)."""
    parts = [program.asp()]
    for rel, facts in edb.items():
        parts.extend(fact_text(program, rel, v) for v in facts)
    ctl = clingo.Control(["--warn=none"])
    ctl.add("base", [], "\n".join(parts))
    ctl.ground([("base", [])])
    model = set()
    by_pred = {pred(r): r for r in program.idb}
    with ctl.solve(yield_=True) as handle:
        found = False
        for m in handle:
            if found:
                raise Malformed("more than one answer set: the program is not stratified")
            found = True
            for sym in m.symbols(shown=True):
                rel = by_pred[sym.name]
                values = []
                for a in sym.arguments:
                    values.append(a.string if a.type == clingo.SymbolType.String else from_asp_number(a))
                model.add((rel, tuple(values)))
        if not found:
            raise Malformed("no answer set")
    return model


def line_of(sign, rel, values):
    return "\t".join([sign, rel] + [str(v) for v in values])


# ---------------------------------------------------------------------------------------
# The protocol

def main():
    out = sys.stdout
    inp = sys.stdin

    def answer(text):
        out.write(text)
        out.flush()

    hello = inp.readline().rstrip("\n").split(" ")
    if hello[:2] != ["protocol", PROTOCOL] or "changes" not in hello[2:]:
        answer(f"error expected `protocol {PROTOCOL} changes ...`, got {' '.join(hello)!r}\n")
        return 2
    if clingo is None:
        answer("protocol 1 changes name=clingo\n")
        inp.readline()
        inp.readline()
        answer("error the Python package clingo is not installed (pip install clingo==5.8.3)\n")
        return 2
    answer(f"protocol 1 changes name=clingo version={clingo.__version__}\n")
    program_line = inp.readline().rstrip("\n")
    facts_line = inp.readline().rstrip("\n")
    if not program_line.startswith("program ") or not facts_line.startswith("facts "):
        answer("error expected `program PATH` and `facts DIR` lines\n")
        return 2
    try:
        with open(program_line[len("program "):], encoding="utf-8") as f:
            program = Program(f.read())
        edb = read_facts(program, facts_line[len("facts "):])
        start = time.perf_counter_ns()
        model = solve(program, edb)
        ns = time.perf_counter_ns() - start
    except Unsupported as e:
        answer(f"unsupported {e}\n")
        return 0
    except (Malformed, ValueError, OSError, RuntimeError) as e:
        answer(f"error {' '.join(str(e).split())}\n")
        return 2
    answer("".join(line_of("+", r, v) + "\n" for r, v in sorted(model)) + f"ok time_ns={ns}\n")

    pending = []
    for raw in inp:
        line = raw.rstrip("\n").rstrip("\r")
        if line != "commit":
            pending.append(line)
            continue
        try:
            for line in pending:
                fields = line.split("\t")
                if len(fields) < 2 or fields[0] not in ("+", "-") or fields[1] not in edb:
                    raise Malformed(f"not an update of an input relation: {line!r}")
                values = parse_values(program, fields[1], fields[2:])
                (edb[fields[1]].add if fields[0] == "+" else edb[fields[1]].discard)(values)
            pending = []
            start = time.perf_counter_ns()
            new = solve(program, edb)
            ns = time.perf_counter_ns() - start
        except Unsupported as e:
            answer(f"unsupported {e}\n")
            return 0
        except (Malformed, ValueError, RuntimeError) as e:
            answer(f"error {' '.join(str(e).split())}\n")
            return 2
        lines = [line_of("-", r, v) for r, v in sorted(model - new)]
        lines += [line_of("+", r, v) for r, v in sorted(new - model)]
        model = new
        answer("".join(line + "\n" for line in lines) + f"ok time_ns={ns} model={len(model)}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
