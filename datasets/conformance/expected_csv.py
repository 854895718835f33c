"""What the conformance cases' expect.py scripts share: writing expected/NAME.csv as
`dredbench run --out` writes an output relation, a row per line, values tab-separated,
duplicates dropped, rows sorted column by column (numbers by value, symbols by text)."""
import os


def write(here, out, fmt=str):
    """Writes each relation of `out` (name -> rows) to `here`/expected/NAME.csv; `fmt`
    writes one value."""
    os.makedirs(os.path.join(here, "expected"), exist_ok=True)

    def key(row):
        return tuple((0, v, "") if isinstance(v, (int, float)) else (1, 0, v) for v in row)

    for name, rows in out.items():
        with open(os.path.join(here, "expected", name + ".csv"), "w", encoding="utf-8") as f:
            for r in sorted(set(rows), key=key):
                f.write("\t".join(fmt(v) for v in r) + "\n")
