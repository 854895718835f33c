"""Independent expected outputs of program.dl on facts/ (plain Python, no engine code):
python3 expect.py writes expected/*.csv. Soufflé's string functors as its C++ computes
them: lengths and positions in bytes of UTF-8, substr as std::string::substr (out of range:
""), to_number as strtoll in base 10 (no digits, or beyond 64 bits: no value), match as a
whole-string match (an invalid pattern matches nothing)."""
import os
import sys
import re

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", ".."))
import expected_csv  # noqa: E402


def rows(name):
    with open(os.path.join(here, "facts", name + ".facts"), encoding="utf-8") as f:
        return [l.rstrip("\n").split("\t") for l in f if l.strip("\n")]


def strlen(s):
    return len(s.encode("utf-8"))


def substr(s, i, n):
    b = s.encode("utf-8")
    if i < 0 or i > len(b):
        return ""
    end = len(b) if n < 0 else min(len(b), i + n)
    return b[i:end].decode("utf-8", errors="replace")


def to_number(s):
    m = re.match(r"[ \t\n\v\f\r]*([+-]?[0-9]+)", s)
    if not m:
        return None
    v = int(m.group(1))
    return v if -(2**63) <= v < 2**63 else None


def matches(p, s):
    try:
        return re.fullmatch(p, s) is not None
    except re.error:
        return False


word = {w for (w,) in rows("word")}
pair = {(a, b) for a, b in rows("pair")}
num = {s for (s,) in rows("num")}
cut = {(s, int(i), int(n)) for s, i, n in rows("cut")}
pattern = {p for (p,) in rows("pattern")}

out = {}
out["joined"] = [(a, b, a + "-" + b) for a, b in pair]
out["plus"] = [(a + b + "!",) for a, b in pair]
out["len"] = [(w, strlen(w)) for w in word]
out["longer"] = [(w, strlen(w + "!") * 2 + 1) for w in word if strlen(w) > 3]
out["piece"] = [(s, i, n, substr(s, i, n)) for s, i, n in cut]
number = [(s, to_number(s)) for s in num if to_number(s) is not None]
out["number"] = number
out["decimal"] = [(n, str(n * 10 - 1)) for _, n in number]
out["has"] = [(a, b) for a, b in pair if a in b]
out["lacks"] = [(a, b) for a, b in pair if a not in b]
out["starts_c"] = [(w,) for w in word if matches("c.*", w)]
out["not_digits"] = [(w,) for w in word if not matches("[0-9]+", w)]
out["matches"] = [(p, w) for p in pattern for w in word if matches(p, w)]
out["unmatched"] = [(p, w) for p in pattern for w in word if not matches(p, w)]
out["shout"] = [(w, w + "!") for w in word]
out["doubled"] = [(a,) for a, b in pair if b == a + a]
out["same_len"] = [(a, b) for a, b in pair if strlen(a) == strlen(b)]
out["commute"] = [(a, b) for a, b in pair if a + b == b + a]
out["plural"] = [(w,) for w in word if w + "s" in word]
out["singular"] = [(w,) for w in word if w + "s" not in word]
out["distinct"] = [(a, b) for a, b in pair if a != b]
out["fact"] = [("abcd", strlen("héllo"), substr("Hello_", 2, 3)), ("-42", to_number(" 17x"), "xy")]
out["total_len"] = [(sum(strlen(w) for w in word),)]
out["count_c"] = [(sum(1 for w in word if "c" in w),)]
out["longest"] = [(max(strlen(w + w) for w in word) + 1,)]

expected_csv.write(here, out)
