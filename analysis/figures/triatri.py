"""TriATri's own balance tables (``balance report``, ``summarize``): exact totals of a run's rows
(``totals``), so that pooled shards and merged chunks give the same answer as one file, and the
tables from them (``figures``); analysis/figures/__init__.py says how the two meet."""
import polars as pl

from analysis import stats
from analysis.cells import fmt_num_ci, fmt_pct_ci
from analysis.exact import SHARE_UNITS, moment_totals, moments, share_units


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
