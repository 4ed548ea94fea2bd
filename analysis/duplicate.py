"""Duplicate deals: every deal played once per turn of the table, so that the luck of the hands
cancels out of a seat's edge (simcore/rng.py, "Duplicate deals").

Games ``DUPLICATE + k`` of a seed are deal ``k // N`` turned ``k % N`` seats: over a deal's N
games seat 1 holds every hand once, from its own seat.  A figure on them is a mean over deals,
each deal's N games one observation, so its interval is clustered by deal (the deals are
independent; the games of one deal are not): ``analysis.tournament.clustered_rate``.

Whether the design pays is measured, not assumed (``games_ratio``): the games the duplicate
design needs for the interval width that N independent games give, as a fraction of N.  Every
row of a duplicate run is, on its own, an ordinary game (a random deal, seat 1 holding one of
its hands), so one run gives both widths.  docs/duplicate-deals.md has the figures per game and
tier, and where the tools use the design.
"""
from __future__ import annotations

import numpy as np

from analysis import stats
from analysis.summary import SHARE_UNITS
from simcore.registry import DUPLICATE

__all__ = ["DUPLICATE", "MIN_DEALS", "deal_sums", "per_deal", "games_ratio", "seat_edge", "start_of", "whole_deals"]

MIN_DEALS = 100
"""The fewest deals a clustered interval is judged on: its normal approximation needs deals, not
games.  Simulated (a known edge, hands deciding most games): at 13 deals the 95% interval covered
91% of runs, at 64 deals of 5 players 93%, at 100 deals 95.5% (and 99.7% at the 99.4% level of an
eight-look tier); tests/analysis/test_skill_settle.py keeps the last."""


def start_of(game, duplicate: bool) -> int:
    """The first game index a run of ``game`` plays: DUPLICATE for duplicate deals (refused by
    the driver, in one line, for a game whose chance cannot turn), else 0."""
    return DUPLICATE if duplicate else 0


def whole_deals(games: int, players: int) -> int:
    """``games`` rounded up to whole deals (a multiple of ``players``)."""
    return -(-games // players) * players


def per_deal(shares: np.ndarray, players: int) -> np.ndarray:
    """float64[deals, players]: one seat's win shares, a row per whole deal (rows in game order from
    a deal's first turn; a k-way tie counts exactly 1/k, as the summary counts it)."""
    exact = np.round(np.asarray(shares, dtype=np.float64) * SHARE_UNITS) / SHARE_UNITS
    deals = exact.size // players
    return exact[:deals * players].reshape(deals, players)


def deal_sums(shares: np.ndarray, players: int) -> np.ndarray:
    """float64[deals]: one seat's win shares summed over each deal's ``players`` turns."""
    return per_deal(shares, players).sum(axis=1)


def seat_edge(shares: np.ndarray, players: int, confidence: float = stats.DEFAULT_CONFIDENCE):
    """A seat's edge over 1/N in pp and its interval clustered by deal at ``confidence``, from its
    shares in whole duplicate deals."""
    from analysis.tournament import clustered_rate

    fair = 1.0 / players
    rate = clustered_rate(deal_sums(shares, players), players, fair, confidence)
    low, high = rate["ci"]
    return 100 * (rate["rate"] - fair), [100 * (low - fair), 100 * (high - fair)]


def games_ratio(shares: np.ndarray, players: int) -> dict:
    """How many games the duplicate design needs for the width of N independent games' interval,
    as a fraction of N (below 1: it pays), with a 95% bootstrap interval over deals.  ``shares``:
    one seat's win shares in whole duplicate deals."""
    per_game = per_deal(shares, players)
    deals = per_game.shape[0]

    def ratio(rows: np.ndarray) -> float:
        # the variance of a deal's mean, against one game's: N games of independent deals give
        # var(game) / N, the same N games as N / players deals give players * var(deal mean) / N
        spread = rows.var(ddof=1)
        return float(players * rows.mean(axis=1).var(ddof=1) / spread) if spread > 0 else float("nan")

    value = ratio(per_game)
    rng = np.random.default_rng(0)
    draws = [ratio(per_game[rng.integers(0, deals, deals)]) for _ in range(400)]
    low, high = np.nanpercentile(draws, [2.5, 97.5])
    return {"ratio": value, "ci": [float(low), float(high)], "deals": deals, "games": deals * players}
