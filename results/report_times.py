"""Times of `dredbench` report rows (csv.DictReader rows), old reports and new alike.

Reports written since times are taken in nanoseconds have `time_ns`, `overdelete_ns`,
`rederive_ns` and `insert_ns`; older ones have the same columns in whole microseconds
(`time_us`, ...). `column` names the figure without its unit: "time", "overdelete",
"rederive" or "insert". An empty cell (a phase the engine does not have) is None.

The scripts under results/ import this module after putting results/ on sys.path:

    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    from report_times import micros, open_report, time_ns  # noqa: E402

Reports are stored plain (`.csv`) or gzipped (`.csv.gz`); `open_report` opens either. The
helpers at the end (`rank`, `us`, `num`, `direction`) are what the tables' scripts share.
"""
import gzip
import math


def open_report(path):
    """The report at `path` as text for csv.DictReader, plain or gzipped: a file whose first
    two bytes are gzip's magic number (1f 8b) is decompressed whatever its name, as
    `dredbench` reads reports; any other file is read as it is."""
    with open(path, "rb") as f:
        magic = f.read(2)
    if magic == b"\x1f\x8b":
        return gzip.open(path, "rt", newline="")
    return open(path, newline="")


def _cell(row, column):
    """(text of the cell, nanoseconds per unit of the cell)."""
    ns = row.get(f"{column}_ns")
    if ns not in (None, ""):
        return ns, 1
    if f"{column}_us" in row:
        return row[f"{column}_us"], 1000
    if f"{column}_ns" in row:
        return ns, 1
    raise KeyError(f"the report has neither {column}_ns nor {column}_us")


def _number(text):
    try:
        return int(text)
    except ValueError:
        return float(text)


def _in_micros(ns):
    """ns / 1000: an int when it is a whole number of µs (always so in old reports), so that
    a table that formats ints and floats apart prints old reports as it always did."""
    if ns is None:
        return None
    return ns // 1000 if isinstance(ns, int) and ns % 1000 == 0 else ns / 1000


def time_ns(row, column="time"):
    """The row's `column` time in nanoseconds (`<column>_ns`, else `<column>_us` × 1,000),
    None when the cell is empty."""
    text, scale = _cell(row, column)
    return None if text in (None, "") else _number(text) * scale


def micros(row, column="time"):
    """The row's `column` time in microseconds (fractional in new reports), None when
    empty."""
    return _in_micros(time_ns(row, column))


def positive_ns(row, column="time"):
    """time_ns as a divisor: a reading of 0 counts as 1 µs. Old reports read 0 µs for a batch
    under a microsecond, and the scripts divided by max(1, time_us); a time in nanoseconds is
    never 0 in practice, so every real reading is used as it is (no floor at 1 µs, which
    would bias the ratios of sub-microsecond batches)."""
    t = time_ns(row, column)
    return None if t is None else (t or 1000)


def positive_micros(row, column="time"):
    """positive_ns in microseconds: max(1, time_us) on old reports, as the scripts had it."""
    return _in_micros(positive_ns(row, column))


def rank(v, q):
    """The q-quantile of v by rank (the ceil(q n)-th smallest, at least the first)."""
    v = sorted(v)
    return v[min(len(v), max(1, math.ceil(q * len(v)))) - 1]


def us(ns):
    """Nanoseconds as microseconds for a table: whole from 10 µs on, else one decimal."""
    return f"{ns / 1e3:,.0f}" if ns >= 1e4 else f"{ns / 1e3:.1f}"


def num(r, col):
    """An integer cell of a report row; an empty one reads 0."""
    v = r.get(col, "")
    return int(v) if v not in ("", None) else 0


def direction(r):
    """What a batch's effective change does: "delete", "insert", "mixed" or "empty"."""
    d, i = num(r, "eff_del"), num(r, "eff_ins")
    return "mixed" if d and i else "delete" if d else "insert" if i else "empty"


def quantile(xs, q):
    """The q-quantile of xs as one of its values (the element at ⌊q·n⌋ of the sorted list, the
    last for q = 1): a batch's own figure, never an interpolation."""
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]
