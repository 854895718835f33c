"""Independent expected outputs of program.dl on facts/ (plain Python, no engine code):
python3 expect.py writes expected/*.csv."""
import os

here = os.path.dirname(os.path.abspath(__file__))
def rows(name):
    with open(os.path.join(here, "facts", name + ".facts")) as f:
        return [l.rstrip("\n").split("\t") for l in f if l.strip()]

item = {(i, int(p)) for i, p in rows("item")}
limit = {(w, int(n)) for w, n in rows("limit")}
tag = {(i, t) for i, t in rows("tag")}
out = {}
out["total_plus"] = [(sum(p + 1 for _, p in item),)]
out["cheap_doubles"] = [(sum(1 for _, p in item if p * 2 < 10),)]
def div(a, b):  # truncation towards zero
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q
out["max_scaled"] = [(max(div(p * 3, 2) for _, p in item),)] if item else []
mins = [-p for i, p in item if i != "d"]
out["min_shifted"] = [(min(mins),)] if mins else []
out["affordable"] = [(w, sum(1 for _, p in item if p <= n)) for w, n in limit]
out["spend"] = [(w, sum(p for _, p in item if p <= n)) for w, n in limit]
out["cheapest_over"] = [(w, min(p for _, p in item if p > n)) for w, n in limit
                        if any(p > n for _, p in item)]
out["within_ten"] = [(w, sum(1 for _, p in item if p < n + 10)) for w, n in limit]
out["rank"] = sorted({(i, sum(1 for _, q in item if q < p)) for i, p in item})
ids = {i for i, _ in item}
out["others"] = [(i, sum(1 for j, _ in item if j != i and (j, "old") not in tag)) for i in ids]
out["gap"] = sorted({(i, min(q - p for _, q in item if q > p)) for i, p in item
                     if any(q > p for _, q in item)})
ntags = {i: sum(1 for j, _ in tag if j == i) for i in ids}
out["popular"] = [(sum(1 for i in ids if ntags[i] >= 2),)]
out["tag_total"] = [(sum(ntags.values()),)]

os.makedirs(os.path.join(here, "expected"), exist_ok=True)
for name, rs in out.items():
    key = lambda r: tuple((0, v, "") if isinstance(v, int) else (1, 0, v) for v in r)
    with open(os.path.join(here, "expected", name + ".csv"), "w") as f:
        for r in sorted(set(rs), key=key):
            f.write("\t".join(str(v) for v in r) + "\n")
