"""Exact totals: every sum an integer sum, so a figure has the same bits on every call
(used by the summary, the games' own tables, traps, the book, whatif and sweep)."""
from __future__ import annotations

from dataclasses import dataclass

import polars as pl

from analysis import stats
from analysis.cells import fmt_num_ci, fmt_pct_ci

# --------------------------------------------------------------------------------------------
# exact totals: the same bits on every call, whatever the thread count
# --------------------------------------------------------------------------------------------
# Polars' streaming engine adds a column up in pieces on several threads and combines the
# pieces in the order they finish.  Float addition is not associative, so a float total can
# change in its last bits from one call to the next.  Integer addition is: every total here is
# an integer sum, and floats appear only after aggregation, as arithmetic on a handful of
# scalars (the same inputs, the same operations, the same bits).
#
# Widths.  A sum Σx is Int64: the summed values are per-game figures (int16 scores, counters of
# one game) below 2**31 in magnitude, and a frame holds fewer than 2**32 rows, so |Σx| < 2**63.
# Sums of squares and products are Int128: x² may reach 2**62, so Int64 could overflow (and
# Polars wraps an overflowing integer sum silently); Int128 leaves a factor 2**33 to spare.

SHARE_UNITS = 840
"""A win share is 1/k for a k-way tie (k ≤ 5 seats here) and 0 or 1 otherwise.  840 = lcm(1..8),
so every share is a whole number of 840ths, which its float32 value rounds to unambiguously
(float32 is off by < 1e-7, an 840th is 1.2e-3)."""


def share_units(share: pl.Expr) -> pl.Expr:
    """A win-share column as whole 840ths (Int64), to be summed exactly."""
    return (share.cast(pl.Float64) * SHARE_UNITS).round().cast(pl.Int64)


def exact_wins(share: pl.Expr) -> pl.Expr:
    """The exact sum of a win-share column over the whole frame (a seat's wins, ties counted
    1/k): the shares as whole 840ths summed as integers, then one scalar division, correctly
    rounded (three 1/3 ties make exactly 1, where a float sum of float32 shares does not).

    For a ``group_by``, sum ``share_units`` and divide in Python instead: Polars divides a
    column by a constant by multiplying with its reciprocal, which can land a bit off (197
    wins of 197 games came out as 197.00000000000003, more wins than games)."""
    return share_units(share).sum() / SHARE_UNITS


def exact_sum(value: pl.Expr) -> pl.Expr:
    """Σx of an integer expression as an exact Int64 sum (bounds above)."""
    return value.cast(pl.Int64).sum()


def exact_product_sum(x: pl.Expr, y: pl.Expr | None = None) -> pl.Expr:
    """Σxy (Σx² without ``y``) of integer expressions as an exact Int128 sum."""
    x = x.cast(pl.Int64).cast(pl.Int128)
    y = x if y is None else y.cast(pl.Int64).cast(pl.Int128)
    return (x * y).sum()


def mean_sd_of_totals(count: pl.Expr, sum_x: pl.Expr, sum_xx: pl.Expr) -> tuple[pl.Expr, pl.Expr]:
    """Mean and sample standard deviation (ddof 1) of ``count`` values from their exact totals
    Σx and Σx², as expressions on those scalars: null mean without values, null sd with fewer
    than two.

    var = (Σx² − (Σx)²/n) / (n − 1), with the values first centred, in exact integers, on the
    whole number q = Σx // n:  Σ(x − q)² = Σx² − 2qΣx + q²n  and  r = Σx − qn (0 ≤ r < n), so
    (n − 1) var = Σ(x − q)² − r²/n.  The float step then sees two small numbers instead of two
    huge, nearly equal ones (a constant column gets sd 0 exactly, not rounding noise)."""
    n = count.cast(pl.Int128)
    s = sum_x.cast(pl.Int128)
    q = s // n
    r = (s - q * n).cast(pl.Float64)
    centred = (sum_xx.cast(pl.Int128) - 2 * q * s + q * q * n).cast(pl.Float64)
    mean = pl.when(n > 0).then(s.cast(pl.Float64) / n.cast(pl.Float64))
    variance = (centred - r * r / n.cast(pl.Float64)) / (n - 1).cast(pl.Float64)
    return mean, pl.when(n >= 2).then(variance.clip(lower_bound=0.0).sqrt())


def mean_sd(value: pl.Expr) -> tuple[pl.Expr, pl.Expr]:
    """Mean and sample standard deviation of an integer expression over the rows, from exact
    totals (``mean_sd_of_totals``): two aggregations for a ``select``."""
    value = value.cast(pl.Int64)
    return mean_sd_of_totals(value.count(), value.sum(), exact_product_sum(value))


def ratio_totals(key: str, x: pl.Expr, y: pl.Expr) -> list[pl.Expr]:
    """The exact totals ``stats.ratio_interval`` needs for Σx / Σy with the game as the sampling
    unit: ``<key>:x, <key>:y`` (Int64) and ``<key>:xx, <key>:yy, <key>:xy`` (Int128)."""
    return [exact_sum(x).alias(f"{key}:x"), exact_sum(y).alias(f"{key}:y"), exact_product_sum(x).alias(f"{key}:xx"),
            exact_product_sum(y).alias(f"{key}:yy"), exact_product_sum(x, y).alias(f"{key}:xy")]


def ratio_cell(row: dict, key: str, games: int, confidence: float, percent: bool = True) -> str:
    """Σx / Σy of ``ratio_totals(key, ...)`` formatted with its game-clustered interval ("—"
    without any y)."""
    x, y = row[f"{key}:x"], row[f"{key}:y"]
    if not y:
        return "—"
    interval = stats.ratio_interval(x, y, row[f"{key}:xx"], row[f"{key}:yy"], row[f"{key}:xy"], games, confidence)
    return fmt_pct_ci(x / y, interval) if percent else fmt_num_ci(x / y, interval)


# --------------------------------------------------------------------------------------------
# mergeable totals: the same figures from a run's rows or from its chunks' totals
# --------------------------------------------------------------------------------------------
# A figure here is arithmetic on exact totals (sums, minima, maxima, counts per key).  So the
# totals of a run are the merged totals of its chunks, and ``simulate`` without ``--out``
# reduces each chunk to its totals where it was played and never keeps a row (issue 36, item 4).
# A figure is computed from totals by aggregating them once more (``pl.col(x).sum()`` over one
# row is that row's value), so the same function reads the totals of a whole file and the
# merged totals of its chunks, and gives the same bits from both.

MERGE_MIN, MERGE_MAX = "min:", "max:"  # a total named so merges by its least / greatest value


@dataclass(frozen=True)
class Totals:
    """Totals of some rows: a frame of one row (``keys`` empty) or of one row per key, whose
    other columns add up when two sets of rows are merged (a column named ``min:...`` or
    ``max:...`` keeps the least or the greatest).  Every column is an integer."""

    frame: pl.DataFrame
    keys: tuple[str, ...] = ()

    def lazy(self) -> pl.LazyFrame:
        return self.frame.lazy()


def _merged_column(name: str) -> pl.Expr:
    column = pl.col(name)
    return column.min() if name.startswith(MERGE_MIN) else column.max() if name.startswith(MERGE_MAX) else column.sum()


def merge_totals(parts: list[dict[str, Totals]]) -> dict[str, Totals]:
    """The totals of the union of the rows behind each of ``parts`` (dicts of the same tables):
    integer sums, minima and maxima, so the result is exact whatever the order of the parts."""
    merged = {}
    for name, first in parts[0].items():
        frame = pl.concat([part[name].frame for part in parts], how="vertical")
        values = [_merged_column(c) for c in frame.columns if c not in first.keys]
        merged[name] = Totals(frame.group_by(first.keys).agg(values) if first.keys else frame.select(values),
                              first.keys)
    return merged


def collect_totals(plan: dict[str, tuple[tuple[str, ...], pl.LazyFrame]], streaming: bool = True) -> dict[str, Totals]:
    """Collect a plan of lazy totals (name -> (keys, query)) together: one scan of the rows."""
    names = list(plan)
    engine = "streaming" if streaming else "in-memory"
    frames = pl.collect_all([plan[name][1] for name in names], engine=engine)
    return {name: Totals(frame, plan[name][0]) for name, frame in zip(names, frames)}


def count(expr: pl.Expr | None = None) -> pl.Expr:
    """A row count (of the non-null values of ``expr``, of all rows without) as Int64, so
    that merged counts never wrap (Polars counts in UInt32)."""
    return (pl.len() if expr is None else expr.count()).cast(pl.Int64)


def moment_totals(name: str, value: pl.Expr) -> list[pl.Expr]:
    """The totals ``moments`` needs for the mean and SD of an integer expression: ``<name>:n``
    (values), ``<name>:x`` (Σx, Int64) and ``<name>:xx`` (Σx², Int128)."""
    value = value.cast(pl.Int64)
    return [count(value).alias(f"{name}:n"), value.sum().alias(f"{name}:x"),
            exact_product_sum(value).alias(f"{name}:xx")]


def moments(name: str) -> tuple[pl.Expr, pl.Expr]:
    """Mean and SD (ddof 1) from ``moment_totals(name, ...)``, aggregating the totals: the same
    bits as ``mean_sd`` over the rows."""
    return mean_sd_of_totals(pl.col(f"{name}:n").sum(), pl.col(f"{name}:x").sum(), pl.col(f"{name}:xx").sum())


# --------------------------------------------------------------------------------------------
# the same totals counted with NumPy: one chunk's columns where it was played
# --------------------------------------------------------------------------------------------
# ``simulate`` without ``--out`` reduces every chunk to its totals beside the play loop, which
# on all threads takes its CPU from the play.  Polars evaluates the Int128 products above at
# about 0.5 µs a row (Chimera Tricks' tables: 140 ms a 262,144-game chunk); NumPy's einsum
# adds int64 products of the int16 columns without copying them, several times faster.  The
# integers are the same, so everything downstream has the same bits; a total that int64 could
# overflow is not counted here (``Inexact``) and the chunk goes through Polars.

INT64_LIMIT = 2 ** 63


class Inexact(Exception):
    """A total NumPy's int64 arithmetic cannot hold for certain: count the chunk with Polars."""


class Counted:
    """A chunk's columns (name -> 1-D integer or float NumPy array, all of one length) and
    exact integer totals of them, by column name: ``total``, ``product``, and the NumPy twins
    of ``moment_totals``, ``ratio_totals`` and ``share_units`` (the same names and integers).
    A total asked for twice (a ratio's denominator) is counted once."""

    def __init__(self, columns: dict):
        self.columns = columns
        self.n = len(next(iter(columns.values())))
        self._known: dict = {}

    def __getitem__(self, name: str):
        return self.columns[name]

    def __contains__(self, name: str) -> bool:
        return name in self.columns

    def _once(self, key, count):
        if key not in self._known:
            self._known[key] = count()
        return self._known[key]

    def bound(self, name: str) -> int:
        """An upper bound of |x| over the chunk: the type's own for 8- and 16-bit integers
        (free), else the largest magnitude counted."""
        import numpy as np

        x = self.columns[name]
        if x.dtype.kind in "iu" and x.dtype.itemsize <= 2:
            info = np.iinfo(x.dtype)
            return max(-int(info.min), int(info.max))
        return self._once(("bound", name), lambda: max(-int(x.min()), int(x.max())) if len(x) else 0)

    def total(self, name: str) -> int:
        """Σx in int64, refused (``Inexact``) unless it cannot overflow."""
        import numpy as np

        if self.bound(name) * self.n >= INT64_LIMIT:
            raise Inexact
        return self._once(("sum", name), lambda: int(np.sum(self.columns[name], dtype=np.int64)))

    def product(self, x: str, y: str | None = None) -> int:
        """Σxy (Σx² without ``y``) in int64, refused (``Inexact``) unless it cannot overflow."""
        import numpy as np

        y = x if y is None else y
        if self.bound(x) * self.bound(y) * max(self.n, 1) >= INT64_LIMIT:
            raise Inexact
        return self._once(("product",) + tuple(sorted((x, y))),
                          lambda: int(np.einsum("i,i->", self.columns[x], self.columns[y], dtype=np.int64)))

    def passed(self, name: str) -> tuple[int, int, int, int, int]:
        """(Σx, Σx², min, max, count of x > 0) of a non-empty column of at most 16 bits, in one
        compiled pass (analysis/onepass.py); its Σx and Σx² become ``total``'s and ``product``'s."""
        def count():
            from analysis.onepass import one_pass

            counted = tuple(int(v) for v in one_pass(self.columns[name]))
            self._known.setdefault(("sum", name), counted[0])
            self._known.setdefault(("product", name, name), counted[1])
            return counted

        return self._once(("pass", name), count)

    def moments(self, name: str, x: str) -> dict:
        """``moment_totals(name, x)``'s three totals."""
        return {f"{name}:n": self.n, f"{name}:x": self.total(x), f"{name}:xx": self.product(x)}

    def ratio(self, key: str, x: str, y: str) -> dict:
        """``ratio_totals(key, x, y)``'s five totals."""
        return {f"{key}:x": self.total(x), f"{key}:y": self.total(y), f"{key}:xx": self.product(x),
                f"{key}:yy": self.product(y), f"{key}:xy": self.product(x, y)}

    def as_float(self, name: str):
        """The column as float64 (as Polars casts a float32 share before adding it up)."""
        import numpy as np

        return self._once(("float", name), lambda: self.columns[name].astype(np.float64))

    def share_units(self, name: str):
        """``share_units`` of a win-share column: whole 840ths, held as float64 (exact integers;
        rounded half to even as Polars' round(), though a share is never half an 840th off)."""
        import numpy as np

        def units():
            units = self.as_float(name) * SHARE_UNITS
            return np.rint(units, out=units)

        return self._once(("units", name), units)


def counted_frame(values: dict, schema) -> pl.DataFrame:
    """One row of totals counted with ``Counted``, typed as the Polars plan types them."""
    return pl.DataFrame([[values[name] for name in schema]], schema=schema, orient="row")


def counted_groups(columns: dict, schema) -> pl.DataFrame:
    """Totals per key (one NumPy array per column, a row per key), typed as the Polars plan's."""
    return pl.DataFrame({name: columns[name] for name in schema}).cast(dict(schema))
