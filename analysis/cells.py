"""How figures are written in tables and on the console: percentages, numbers and p-values with
their intervals, one convention for every page."""
from __future__ import annotations

import json
import math
from typing import Sequence

# --------------------------------------------------------------------------------------------
# formatting (shared by the console summary and the report)
# --------------------------------------------------------------------------------------------

def _decimals(value_pct: float) -> int:
    """2 decimals for ordinary percentages; enough for three significant digits when tiny."""
    if value_pct == 0 or abs(value_pct) >= 1:
        return 2
    return min(6, 2 - math.floor(math.log10(abs(value_pct))))


def fmt_pct_ci(value: float | None, interval: Sequence[float | None] | None) -> str:
    """A fraction as ``"31.23 [31.14, 31.32]"`` (percent; the interval in brackets)."""
    if value is None:
        return "n/a"
    places = _decimals(100 * value)
    text = f"{100 * value:.{places}f}"
    if interval and None not in interval:
        text += f" [{100 * interval[0]:.{places}f}, {100 * interval[1]:.{places}f}]"
    return text


def fmt_num_ci(value: float | None, interval: Sequence[float | None] | None, places: int = 2) -> str:
    """A number with its interval, ``places`` decimals or three significant digits if smaller."""
    if value is None:
        return "n/a"
    if 0 < abs(value) < 1:
        places = max(places, min(6, 2 - math.floor(math.log10(abs(value)))))
    text = f"{value:.{places}f}"
    if interval and None not in interval:
        text += f" [{interval[0]:.{places}f}, {interval[1]:.{places}f}]"
    return text


def fmt_pp(value: float, interval: Sequence[float], unit: str = " pp") -> str:
    """Percentage points with signs: ``"+1.23 pp [+0.98, +1.48]"`` (more decimals when tiny)."""
    scale = max(abs(value), abs(interval[0]), abs(interval[1]))
    places = 2 if scale == 0 or scale >= 1 else min(6, 2 - math.floor(math.log10(scale)))
    return f"{value:+.{places}f}{unit} [{interval[0]:+.{places}f}, {interval[1]:+.{places}f}]"


def fmt_p(p: float | None) -> str:
    """A p-value: 4 decimals, scientific below 1e-4, "< 1e-300" where it underflows."""
    if p is None:
        return "n/a"
    if p == 0:
        return "< 1e-300"
    if p < 1e-4:
        return f"{p:.1e}"
    return f"{p:.4f}"


def games_phrase(games: int) -> str:
    return f"{games:,} game" + ("" if games == 1 else "s")


def fmt_settings(settings: dict) -> str:
    return ", ".join(f"{k} = {json.dumps(v)}" for k, v in settings.items()) or "none (published rules)"


def strategies(meta: dict) -> list[str]:
    """One strategy name per seat ("?" where the metadata does not say)."""
    players = meta["players"]
    named = meta.get("strategies")
    if isinstance(named, str):
        named = [named] * players
    if not isinstance(named, list):
        named = []
    if len(named) == 1 and players > 1:
        named = named * players
    return [str(named[seat]) if seat < len(named) else "?" for seat in range(players)]


def seat_labels(meta: dict) -> list[str]:
    """Human seat names, numbered from 0 as in RULINGS.md: ``"seat 0 (heuristic)"``.

    Accepts the metadata or a summary (both carry ``players`` and ``strategies``).
    Seat 0 is column ``score_0``/``share_0``, the player who leads / starts first.
    """
    return [f"seat {seat} ({name})" for seat, name in enumerate(strategies(meta))]
