"""Each game's own balance tables, one module per game named after its folder in simcore/games/
(a game with no tables of its own has no module here)."""
from importlib import import_module
from importlib.util import find_spec


def game_figures(frame, meta: dict, confidence: float) -> list[dict]:
    """``[{"title", "note", "headers", "rows"}]`` with formatted cells for the run's game."""
    module = f"{__name__}.{meta['game'].replace('-', '_')}"
    if find_spec(module) is None:
        return []
    return import_module(module).figures(frame, meta, confidence)
