"""TriATri's own balance tables (``balance report``, ``summarize``): exact totals of a run's rows
(``totals``), so that pooled shards and merged chunks give the same answer as one file, and the
tables from them (``figures``); analysis/figures/__init__.py says how the two meet."""
import polars as pl

from analysis import stats
from analysis.cells import fmt_num_ci, fmt_pct_ci
from analysis.exact import SHARE_UNITS, Counted, Inexact, moment_totals, moments, share_units


def totals(frame, meta: dict) -> dict:
    players = meta["players"]
    if any(f"gems_{s}" not in frame.collect_schema() for s in range(players)):
        return {}
    seats = pl.concat([frame.select(pl.col(f"gems_{s}").cast(pl.Int64).alias("gems"),
                                    pl.col(f"score_{s}").cast(pl.Int64).alias("score"),
                                    pl.col(f"share_{s}").alias("share"))
                       for s in range(players)])
    colour = [(pl.col("gems") // (1 << (10 * c))) % 1024 for c in range(3)]
    high = pl.max_horizontal(colour)
    low = pl.min_horizontal(colour)
    # exact integer totals per pattern: the same bits on every call whatever the threads
    # (analysis.summary, "exact totals"); wins stay in 840ths until Python divides them
    patterns = (seats.with_columns(high=high, low=low, mid=pl.sum_horizontal(colour) - high - low)
                .group_by("high", "mid", "low")
                .agg(*moment_totals("score", pl.col("score")), share_units(pl.col("share")).sum().alias("wins")))
    return {"patterns": (("high", "mid", "low"), patterns)}


def counted(chunk: Counted, meta: dict) -> dict | None:
    """``totals`` of one chunk counted with NumPy: the same integers per pattern.  Each seat's
    gems (three 10-bit colour counts) and score become one small key, counted with bincount;
    sorting the colours into a pattern and the score sums happen on that small table."""
    import numpy as np

    players = meta["players"]
    if any(f"gems_{s}" not in chunk for s in range(players)):
        return None
    gems = [chunk[f"gems_{s}"] for s in range(players)]  # unsigned, as the play loop writes them
    if any(g.dtype.kind != "u" for g in gems):
        raise Inexact  # a signed column's colours are Polars' to read
    scores = [chunk[f"score_{s}"] for s in range(players)]
    # every colour count is at most the OR of its field over the chunk: K bounds them all
    fields = [int(np.bitwise_or.reduce(g)) if len(g) else 0 for g in gems]
    size = 1 + max((f >> (10 * c)) & 1023 for f in fields for c in range(3))
    low_score = min(int(score.min(initial=0)) for score in scores)
    spread = max(int(score.max(initial=0)) for score in scores) - low_score + 1
    largest = max(-low_score, low_score + spread - 1)
    if size ** 3 * spread > 1 << 22 or largest * largest * players * chunk.n >= 1 << 53:
        raise Inexact  # not a small table, or float64 sums that could round: Polars counts the chunk
    counts = np.zeros(size ** 3 * spread, dtype=np.int64)
    wins = np.zeros(size ** 3)  # float64 sums of whole 840ths: exact below 2**53
    for seat, (g, score) in enumerate(zip(gems, scores)):
        code = ((g & 1023) * size + ((g >> 10) & 1023)) * size + ((g >> 20) & 1023)  # as Polars' % 1024
        counts += np.bincount(code * spread + (score.astype(np.int64) - low_score), minlength=len(counts))
        wins += np.bincount(code, weights=chunk.share_units(f"share_{seat}"), minlength=len(wins))
    table = counts.reshape(size ** 3, spread)
    points = np.arange(low_score, low_score + spread, dtype=np.int64)
    colours = np.stack(np.unravel_index(np.arange(size ** 3), (size,) * 3))
    high, low = colours.max(axis=0), colours.min(axis=0)
    pattern = (high * size + colours.sum(axis=0) - high - low) * size + low
    sums = {"score:n": table.sum(axis=1), "score:x": table @ points, "score:xx": table @ (points * points),
            "wins": wins.astype(np.int64)}
    sums = {name: np.bincount(pattern, weights=values, minlength=size ** 3) for name, values in sums.items()}
    seen = np.flatnonzero(sums["score:n"])
    return {"patterns": {"high": seen // (size * size), "mid": seen // size % size, "low": seen % size,
                         **{name: values[seen].astype(np.int64) for name, values in sums.items()}}}


def figures(totals: dict, meta: dict, confidence: float) -> list[dict]:
    score_mean, score_sd = moments("score")
    table = (totals["patterns"].lazy().group_by("high", "mid", "low")
             .agg(pl.col("score:n").sum().alias("n"), score_mean.alias("mean"), score_sd.alias("sd"),
                  pl.col("wins").sum())
             .sort(["n", "high", "mid", "low"], descending=True)
             .collect())
    total = int(table["n"].sum())
    rows = []
    for r in table.head(15).iter_rows(named=True):
        n = int(r["n"])
        wins = r["wins"] / SHARE_UNITS
        sets = r["low"]
        pairs = r["mid"] - r["low"]
        left = r["high"] - r["mid"]
        shape = f"{sets} set{'s' * (sets != 1)}, {pairs} pair{'s' * (pairs != 1)}, {left} left over"
        rows.append([f"{r['high']}-{r['mid']}-{r['low']}", shape, f"{n:,}",
                     fmt_pct_ci(n / total, stats.wilson_interval(n, total, confidence)),
                     fmt_num_ci(r["mean"], stats.mean_interval(r["mean"], r["sd"] or 0.0, n, confidence)),
                     fmt_pct_ci(wins / n, stats.wilson_interval(wins, n, confidence))])
    note = ("Each player's gems at the end, largest colour count first (3-2-1 = three of one colour, two "
            "of another, one of the third); score = sets, two-colour pairs and leftovers worth the supply. "
            f"{total:,} player-games")
    if len(table) > 15:
        note += f"; the {len(table) - 15} rarest of {len(table)} patterns are not shown"
    return [{"title": "Average score by final gem pattern", "note": note + ".",
             "headers": ["gems", "scoring", "player-games", "share % [95% CI]", "mean score [95% CI]",
                         "win share % [95% CI]"],
             "rows": rows}]
