"""10 TRICKS LATER's own balance tables (``balance report``, ``summarize``): exact totals of a run's
rows (``totals``), so that pooled shards and merged chunks give the same answer as one file, and
the tables from them (``figures``); analysis/figures/__init__.py says how the two meet."""
import polars as pl

from analysis import stats
from analysis.cells import fmt_num_ci, fmt_p, fmt_pct_ci
from analysis.exact import SHARE_UNITS, count, exact_sum, moment_totals, moments, ratio_cell, ratio_totals, share_units

PAIRS = {"attacks/rounds": ("attacks", "rounds"), "lost/attacks": ("survivors_lost", "attacks"),
         "taken/rounds": ("survivors_taken", "rounds"), "rescued/taken": ("survivors_rescued", "survivors_taken"),
         "lost/taken": ("survivors_lost", "survivors_taken"), "left/taken": ("left", "survivors_taken")}


def totals(frame, meta: dict) -> dict:
    needed = ("rounds", "attacks", "survivors_lost", "survivors_taken", "survivors_rescued", "swap_points",
              "stayed")
    if any(c not in frame.collect_schema() for c in needed):
        return {}
    # every per-game figure is an integer, so every total is an exact integer sum: the same
    # bits on every call whatever the threads (analysis.summary, "exact totals")
    col = lambda c: pl.col(c).cast(pl.Int64)  # noqa: E731
    base = frame.with_columns(left=col("survivors_taken") - col("survivors_rescued") - col("survivors_lost"))
    exprs = [count().alias("games"), *moment_totals("rounds", pl.col("rounds"))]
    for key, (x, y) in PAIRS.items():
        exprs += ratio_totals(key, pl.col(x), pl.col(y))
    for c in ("swaps", "swap_points", "swap_points_sq", "stayed", "stayed_points", "stayed_points_sq"):
        exprs.append(exact_sum(pl.col(c)).alias(c))
    # seat 0's wins per game length in exact 840ths, divided in Python (analysis.summary.exact_wins)
    length = frame.group_by("rounds").agg(count().alias("n"), share_units(pl.col("share_0")).sum().alias("seat0"))
    return {"flow": ((), base.select(exprs)), "length": (("rounds",), length)}


def figures(totals: dict, meta: dict, confidence: float) -> list[dict]:
    flow = totals["flow"].lazy()
    rounds_mean, rounds_sd = moments("rounds")
    sums = [pl.col(c).sum() for c in flow.collect_schema() if not c.startswith("rounds:")]
    row = flow.select(*sums, rounds_mean.alias("rounds_mean"), rounds_sd.alias("rounds_sd")).collect().row(0, named=True)
    games = int(row["games"])

    def ratio(key, percent=False):
        return ratio_cell(row, key, games, confidence, percent)

    rounds = fmt_num_ci(row["rounds_mean"], stats.mean_interval(row["rounds_mean"], row["rounds_sd"] or 0.0,
                                                               games, confidence))
    flow = {"title": "Rounds, attacks and survivors",
            "note": (f"Ratios of totals over {games:,} games, with intervals that treat each game as one "
                     "sample (the rounds and tricks of a game are not independent). A survivor taken goes "
                     "to the winner's upper board; it is rescued to the lower board (+1), lost to an attack "
                     "(-1) or left on the upper board when the round ends (0)."),
            "headers": ["figure", "value [95% CI]"],
            "rows": [["rounds per game", rounds],
                     ["attacks per round", ratio("attacks/rounds")],
                     ["survivors lost per attack", ratio("lost/attacks")],
                     ["survivors taken per round", ratio("taken/rounds")],
                     ["taken survivors rescued %", ratio("rescued/taken", True)],
                     ["taken survivors lost %", ratio("lost/taken", True)],
                     ["taken survivors left on the upper board %", ratio("left/taken", True)]]}

    swaps, stayed = row["swaps"], row["stayed"]
    swap_rows = []
    means = []
    for label, n, total, squares in (("took infected 8", swaps, row["swap_points"], row["swap_points_sq"]),
                                     ("dealt no infected, did not swap", stayed, row["stayed_points"],
                                      row["stayed_points_sq"])):
        mean = total / n if n else float("nan")
        var = (squares - n * mean * mean) / (n - 1) if n > 1 else float("nan")
        means.append((mean, var, n))
        swap_rows.append([label, f"{int(n):,}", fmt_num_ci(mean, stats.mean_interval(mean, var ** 0.5 if n > 1
                                                                                 else float("nan"), int(n),
                                                                                 confidence))])
    (m1, v1, n1), (m2, v2, n2) = means
    diff, interval, p = stats.welch_test(m1, v1, n1, m2, v2, n2, confidence)
    swap_rows.append(["difference", "", fmt_num_ci(diff, interval) + f"  (p {fmt_p(p)})"])
    swap = {"title": "Does the swap pay?",
            "note": ("Round score of the seat that took infected 8 against the other seats that were dealt "
                     "no infected and so could have swapped, in the same rounds; Welch test, one round "
                     "score per seat-round (rounds of one game are treated as independent)."),
            "headers": ["seat-rounds", "count", "mean round score [95% CI]"],
            "rows": swap_rows}

    length = (totals["length"].lazy().group_by("rounds").agg(pl.col("n").sum(), pl.col("seat0").sum())
              .sort("rounds").collect())
    length_rows = [[str(r["rounds"]), f"{r['n']:,}",
                    fmt_pct_ci(r["n"] / games, stats.wilson_interval(r["n"], games, confidence)),
                    fmt_pct_ci(r["seat0"] / SHARE_UNITS / r["n"],
                               stats.wilson_interval(r["seat0"] / SHARE_UNITS, r["n"], confidence))]
                   for r in length.iter_rows(named=True)]
    lengths = {"title": "Game length",
               "note": f"Rounds played until a total reached the target (or the round cap), {games:,} games.",
               "headers": ["rounds", "games", "share % [95% CI]", "seat 1 win share % [95% CI]"],
               "rows": length_rows}
    return [flow, swap, lengths]
