"""Each game's own balance tables, one module per game named after its folder in simcore/games/
(a game with no tables of its own has no module here).

A module has two functions, so that its tables come from a run's rows and from its chunks'
merged totals alike (``analysis.exact``, "mergeable totals"): ``totals(frame, meta)``, the lazy
totals its tables need as ``{name: (keys, query)}`` (``{}`` where the rows lack its columns),
and ``figures(totals, meta, confidence)``, the tables from those totals collected or merged.
"""
from importlib import import_module
from importlib.util import find_spec

from analysis.exact import collect_totals

PREFIX = "figures:"  # the game's tables' totals among the summary's (analysis.summary.summary_plan)


def _module(meta: dict):
    if meta["game"].lower().endswith(".toml"):  # a rules-file game: its events are its tables
        return None
    module = f"{__name__}.{meta['game'].replace('-', '_')}"
    return import_module(module) if find_spec(module) is not None else None


def has_figures(meta: dict) -> bool:
    """Whether the run's game has tables of its own."""
    return _module(meta) is not None


def game_totals(frame, meta: dict) -> dict:
    """The lazy totals of the run's game's tables, named ``figures:<name>``."""
    module = _module(meta)
    plan = module.totals(frame, meta) if module is not None else {}
    return {PREFIX + name: query for name, query in plan.items()}


def game_figures_of(totals: dict, meta: dict, confidence: float) -> list[dict]:
    """``[{"title", "note", "headers", "rows"}]`` with formatted cells, from the totals of
    ``game_totals`` (collected, or merged from a run's chunks)."""
    mine = {name[len(PREFIX):]: table for name, table in totals.items() if name.startswith(PREFIX)}
    module = _module(meta)
    return module.figures(mine, meta, confidence) if module is not None and mine else []


def game_figures(frame, meta: dict, confidence: float) -> list[dict]:
    """The run's game's tables from its rows."""
    return game_figures_of(collect_totals(game_totals(frame, meta)), meta, confidence)
