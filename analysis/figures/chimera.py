"""Chimera Tricks's own balance tables (``balance report``, ``summarize``): exact totals of a run's
rows (``totals``), so that pooled shards and merged chunks give the same answer as one file, and
the tables from them (``figures``); analysis/figures/__init__.py says how the two meet."""
import math

import polars as pl

from analysis import stats
from analysis.cells import fmt_num_ci, fmt_p, fmt_pp, seat_labels
from analysis.exact import Counted, count, moment_totals, moments, ratio_cell, ratio_totals
from simcore.games.chimera import rules as cm


def totals(frame, meta: dict) -> dict:
    p = meta["players"]
    needed = ["tricks", "hand_score_sq", "passed_not_last", "won_at_0", "conversion_points"]
    needed += [f"value_{s}" for s in range(p)]
    schema = frame.collect_schema()
    if any(c not in schema for c in needed):
        return {}
    # every per-game figure below is an integer, so every total is an exact integer sum: the same
    # bits on every call whatever the threads (analysis.summary, "exact totals")
    col = lambda c: pl.col(c).cast(pl.Int64)  # noqa: E731
    total = sum(col(f"score_{s}") for s in range(p))
    # p² times the variance over the seats within one game, of the players' totals and of the
    # hands' scores (which add up to the same total)
    spread = {"players_var": p * sum(col(f"score_{s}") * col(f"score_{s}") for s in range(p)) - total * total,
              "hands_var": p * col("hand_score_sq") - total * total}
    rank_columns = _rank_columns()
    base = frame.with_columns(
        players_var=spread["players_var"], hands_var=spread["hands_var"],
        crystal_wins=col("crystals_taken") + col("crystals_missed"),
        single_wins=col("tricks") - col("sum_wins") - col("chimera_wins"),
        **{f"won_up_to_{k}": pl.sum_horizontal([col(c) for c in rank_columns[:k + 1]])
           for k in range(len(rank_columns))},
        **{f"conversion_gain_{s}": col(f"score_{s}") - col(f"value_{s}") for s in range(p)})
    exprs = [count().alias("games")]
    for key, (x, y) in _pairs(rank_columns).items():
        exprs += ratio_totals(key, pl.col(x), pl.col(y))
    for c in _means(p):
        exprs += moment_totals(c, pl.col(c))
    # A game's spread (SD over the seats) is sqrt(p² variance) / p, not an integer, and a float
    # sum of those would depend on the order the threads add them in.  p² variance is a small
    # integer (about 1,500 distinct values in 40,000 four-player games), so count the games at
    # each value (exact), then add the roots up in Python with math.fsum, which is correctly
    # rounded whatever the order of the terms.
    plan = {"totals": ((), base.select(exprs))}
    for variance in SPREADS.values():
        plan[variance] = ((variance,), base.group_by(variance).agg(count().alias("games")))
    return plan


SPREADS = {"players_sd": "players_var", "hands_sd": "hands_var"}


def counted(chunk: Counted, meta: dict) -> dict | None:
    """``totals`` of one chunk counted with NumPy: the same integers, keyed the same way
    (``analysis.figures.game_counted`` types them as the Polars plan does)."""
    import numpy as np

    p = meta["players"]
    rank_columns = _rank_columns()
    if any(c not in chunk for c in ["tricks", "hand_score_sq", *rank_columns] + [f"value_{s}" for s in range(p)]):
        return None
    wide = lambda c: chunk[c].astype(np.int64)  # noqa: E731
    narrow = lambda c: chunk[c].astype(np.int32)  # noqa: E731  (a game's counts: half the traffic)
    scores = [wide(f"score_{s}") for s in range(p)]
    total = sum(scores)
    columns = dict(chunk.columns)
    columns.update(players_var=p * sum(score * score for score in scores) - total * total,
                   hands_var=p * wide("hand_score_sq") - total * total,
                   crystal_wins=narrow("crystals_taken") + chunk["crystals_missed"],
                   single_wins=narrow("tricks") - chunk["sum_wins"] - chunk["chimera_wins"],
                   **{f"conversion_gain_{s}": narrow(f"score_{s}") - chunk[f"value_{s}"] for s in range(p)})
    up_to = np.zeros(chunk.n, dtype=np.int32)
    for k, c in enumerate(rank_columns):
        up_to = up_to + chunk[c]
        columns[f"won_up_to_{k}"] = up_to
    chunk = Counted(columns)
    values = {"games": chunk.n}
    for key, (x, y) in _pairs(rank_columns).items():
        values.update(chunk.ratio(key, x, y))
    for c in _means(p):
        values.update(chunk.moments(c, c))
    tables = {"totals": values}
    for variance in SPREADS.values():
        values_of = chunk[variance]
        low, high = (int(values_of.min()), int(values_of.max())) if chunk.n else (0, -1)
        if high - low < 4 * chunk.n + 65536:  # p² variances are small integers: a count per value
            games = np.bincount(values_of - low)
            seen = np.flatnonzero(games)
            tables[variance] = {variance: seen + low, "games": games[seen]}
        else:
            seen, games = np.unique(values_of, return_counts=True)
            tables[variance] = {variance: seen, "games": games}
    return tables


def _rank_columns() -> list[str]:
    return [c for c in cm.COUNTER_NAMES if c.startswith("won_at_")]


def _pairs(rank_columns: list[str]) -> dict[str, tuple[str, str]]:
    pairs = {"spread": ("players_var", "hands_var"),
             "crystal_wins/tricks": ("crystal_wins", "tricks"),
             "missed/crystal_wins": ("crystals_missed", "crystal_wins"),
             "conversions/crystals": ("conversions", "crystals_taken"),
             "passed/follower": ("passed_wins", "follower_plays"),
             "deliberate/passed": ("deliberate_losses", "passed_not_last"),
             "other/losses": ("loss_then_won", "losses_not_last"),
             "single/tricks": ("single_wins", "tricks"),
             "sum/tricks": ("sum_wins", "tricks"),
             "chimera/tricks": ("chimera_wins", "tricks")}
    pairs.update({f"{c}/tricks": (c, "tricks") for c in rank_columns})
    # the cumulative share (won at rank k or lower) is a ratio of totals like the others, so
    # it gets the same game-clustered interval
    pairs.update({f"up_to_{k}/tricks": (f"won_up_to_{k}", "tricks") for k in range(len(rank_columns))})
    return pairs


def _means(p: int) -> list[str]:
    means = ["crystals_taken", "conversion_points"]
    for s in range(p):
        means += [f"grimoires_{s}", f"value_{s}", f"crystals_{s}", f"conversion_gain_{s}", f"score_{s}"]
    return means


def figures(totals: dict, meta: dict, confidence: float) -> list[dict]:
    p = meta["players"]
    rank_columns = _rank_columns()
    sums = [pl.col(c).sum() for key in _pairs(rank_columns)
            for c in (f"{key}:x", f"{key}:y", f"{key}:xx", f"{key}:yy", f"{key}:xy")]
    for c in _means(p):
        m, sd = moments(c)
        sums += [m.alias(f"{c}:mean"), sd.alias(f"{c}:sd")]
    row = totals["totals"].lazy().select(pl.col("games").sum(), *sums).collect().row(0, named=True)
    games = int(row["games"])
    for name, variance in SPREADS.items():
        counts = totals[variance].lazy().group_by(variance).agg(pl.col("games").sum()).collect()
        weights = counts["games"].to_list()
        values = [math.sqrt(max(v, 0)) / p for v in counts[variance].to_list()]
        centre = math.fsum(w * v for w, v in zip(weights, values)) / games if games else None
        squares = math.fsum(w * (v - centre) ** 2 for w, v in zip(weights, values)) if games >= 2 else None
        row[f"{name}:mean"] = centre
        row[f"{name}:sd"] = math.sqrt(squares / (games - 1)) if games >= 2 else None

    def mean(c):
        m, sd = row[f"{c}:mean"], row[f"{c}:sd"]
        return fmt_num_ci(m, stats.mean_interval(m, sd if sd is not None else float("nan"), games, confidence))

    def ratio(key, percent=True):
        return ratio_cell(row, key, games, confidence, percent)

    rounds = meta.get("rounds_per_game")
    deal = {"title": "Does passing the hands even out the deal?",
            "note": (f"Within each of {games:,} games: the spread (standard deviation over the {p} seats) of "
                     "the players' totals against the spread of the dealt hands' scores (a hand's score = the "
                     "round scores of the seats that played it; the reference's hand_scores). With a round "
                     "per player every seat plays every hand once, so a lucky deal lifts a hand, not a "
                     "player: a small variance ratio means passing evens the deal out; 100% means it does "
                     "not" + (f" (this variant plays {rounds} round(s), {p} would pass every hand round)"
                              if isinstance(rounds, int) and rounds < p else "") + ". Intervals treat each "
                     "game as one sample."),
            "headers": ["figure", "value [95% CI]"],
            "rows": [["spread of player totals (SD within a game)", mean("players_sd")],
                     ["spread of hand scores (SD within a game)", mean("hands_sd")],
                     ["player / hand variance ratio %", ratio("spread")]]}

    labels = seat_labels(meta)
    seats = {"title": "Grimoire value captured by seat",
             "note": ("Per game, with normal intervals: grimoires taken, the sum of their printed values, "
                      "the crystals taken and what crystals added at scoring (score − printed values), then "
                      "the final score."),
             "headers": ["seat", "grimoires [95% CI]", "value taken [95% CI]", "crystals [95% CI]",
                         "crystal gain [95% CI]", "score [95% CI]"],
             "rows": [[labels[s], mean(f"grimoires_{s}"), mean(f"value_{s}"), mean(f"crystals_{s}"),
                       mean(f"conversion_gain_{s}"), mean(f"score_{s}")] for s in range(p)]}

    crystals = {"title": "Crystals",
                "note": ("A trick won with a crystal card among the winning field's top cards earns one "
                         "crystal while the supply lasts; at scoring each crystal turns one negative grimoire "
                         "positive, the most negative first. Ratios of totals, each game one sample."),
                "headers": ["figure", "value [95% CI]"],
                "rows": [["crystals taken per game", mean("crystals_taken")],
                         ["tricks won with a crystal card on top %", ratio("crystal_wins/tricks")],
                         ["of those, supply empty (no crystal) %", ratio("missed/crystal_wins")],
                         ["crystals that turned a negative grimoire %", ratio("conversions/crystals")],
                         ["points gained by conversions per game", mean("conversion_points")]]}

    rank_rows = [["single card", ratio("single/tricks"), ""], ["one-suit pair (sum)", ratio("sum/tricks"), ""],
                 ["chimera (two suits)", ratio("chimera/tricks"), ""]]
    top = max((k for k, c in enumerate(rank_columns) if row[f"{c}/tricks:x"]), default=-1)
    for k, c in enumerate(rank_columns[:top + 1]):
        label = f"rank {k}" if k < cm.RANK_BINS - 1 else f"rank {k} or more"
        rank_rows.append([label, ratio(f"{c}/tricks"), ratio(f"up_to_{k}/tricks")])
    ranks = {"title": "Winning fields",
             "note": ("Share of tricks won by each kind of field and by each field rank (a one-suit pair "
                      "adds its ranks, a chimera takes the larger; the 0/10 card is 0 in an empty slot and "
                      "10 stacked), with the cumulative share (that rank or lower). Ratios of totals over "
                      f"{games:,} games, each game one sample."),
             "headers": ["winning field", "share of tricks % [95% CI]", "cumulative % [95% CI]"],
             "rows": rank_rows}

    def proportion(key):
        return row[f"{key}:x"], row[f"{key}:y"]

    x1, n1 = proportion("deliberate/passed")
    x2, n2 = proportion("other/losses")
    diff = "—"
    if n1 and n2:
        d = x1 / n1 - x2 / n2
        low, high = stats.difference_interval(x1, n1, x2, n2, confidence)
        test = stats.two_proportion_z_test(x1, n1, x2, n2)
        diff = fmt_pp(100 * d, (100 * low, 100 * high)) + f"  (p {fmt_p(test.p_value)})"
    deliberate = {"title": "Losing on purpose",
                  "note": ("C11: a passed win is a follower that lost although one of its legal moves would "
                           "have won (every other play as it was); a deliberate loss is winning the next "
                           "trick of the round after one. Compared with the other seats that lost a trick "
                           "(not its last) without passing up a win: the difference's interval (Newcombe) and "
                           "p-value (pooled two-proportion z-test) treat those tricks as independent, which "
                           "tricks of one game are not, so both are approximate."),
                  "headers": ["figure", "value [95% CI]"],
                  "rows": [["follower plays that passed up a win %", ratio("passed/follower")],
                           ["after a passed win: won the next trick %", ratio("deliberate/passed")],
                           ["after another loss: won the next trick %", ratio("other/losses")],
                           ["difference", diff]]}
    return [deal, seats, crystals, ranks, deliberate]
