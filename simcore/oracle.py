"""What every game's reference (``simcore/games/<game>/reference.py``, the plain-Python oracle its
kernel is tested against) shares that is not a rule: checking its arguments and its scenarios."""
from __future__ import annotations

from typing import Sequence

from simcore.errors import BalanceError


def seat_deciders(decider, players: int) -> list:
    """One decider per seat: a list or tuple of ``players`` of them as given, anything else for
    every seat."""
    if isinstance(decider, (list, tuple)):
        if len(decider) != players:
            raise ValueError(f"{len(decider)} deciders for {players} seats")
        return list(decider)
    return [decider] * players


def require_whole(name: str, value, low: int) -> None:
    """A rules setting that must be a whole number (not a bool) of at least ``low``."""
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        raise BalanceError(f"{name} must be a whole number >= {low}, got {value!r}")


def check_keys(error: type[Exception], where: str, spec, known: Sequence[str], required: Sequence[str],
               ignored: Sequence[str] = ()) -> None:
    """A scenario's object ``spec`` at ``where`` has only ``known`` (or ``ignored``) keys and every
    ``required`` one; otherwise ``error`` (the game's BadScenario) says which."""
    if not isinstance(spec, dict):
        raise error(f"{where}: must be an object, got {spec!r}")
    unknown = sorted(set(spec) - set(known) - set(ignored))
    if unknown:
        raise error(f"{where}: unknown key '{unknown[0]}' (known: {', '.join(known)})")
    for key in required:
        if key not in spec:
            raise error(f"{where}: missing '{key}'")
