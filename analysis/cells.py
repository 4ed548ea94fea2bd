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


def seat_name(seat: int) -> str:
    """How a page names a seat: ``seat 1`` … ``seat N``, seat 1 the player who leads or starts
    first.  (Column ``share_0`` and the JSON field ``seat: 0`` are that seat's index.)"""
    return f"seat {int(seat) + 1}"


def seat_list(seats) -> str:
    """``seat 1``, ``seats 2–4`` or ``seats 1, 3``: several seat indices as a page names them."""
    seats = sorted(int(s) for s in seats)
    if len(seats) == 1:
        return seat_name(seats[0])
    if seats == list(range(seats[0], seats[-1] + 1)) and len(seats) > 2:
        return f"seats {seats[0] + 1}–{seats[-1] + 1}"
    return "seats " + ", ".join(str(s + 1) for s in seats)


def strategy_label(game: str | None, name: str) -> str:
    """A strategy by name with the parameters it plays with (``search (d=24, p=1, ...)``,
    ``cautious (P=0.25)``), as the game's strategies module describes it; the bare name for a
    plug-in, an unknown game or a strategy without parameters."""
    from simcore.registry import get_game, known_game

    if not known_game(game):
        return str(name)
    try:
        return get_game(game).strategy_label(name)
    except Exception:  # noqa: BLE001 (a label must never stop a report)
        return str(name)


def strategy_labels(meta: dict) -> list[str]:
    """``strategy_label`` of every seat's strategy."""
    return [strategy_label(meta.get("game"), name) for name in strategies(meta)]


def symmetric(meta: dict) -> bool:
    """Every seat plays the same strategy: only then do seat differences measure seat order."""
    return len(set(strategies(meta))) == 1


def seat_labels(meta: dict) -> list[str]:
    """Human seat names, ``"seat 1 (heuristic)"`` … ``"seat N (...)"``; seat 1 (column
    ``score_0``/``share_0``) is the player who leads / starts first.  Accepts the metadata or a
    summary (both carry ``players`` and ``strategies``)."""
    return [f"{seat_name(seat)} ({name})" for seat, name in enumerate(strategy_labels(meta))]
