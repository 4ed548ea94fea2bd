"""Each game's own balance tables, one module per game named after its folder in simcore/games/
(a game with no tables of its own has no module here).

A module has two functions, so that its tables come from a run's rows and from its chunks'
merged totals alike (``analysis.exact``, "mergeable totals"): ``totals(frame, meta)``, the lazy
totals its tables need as ``{name: (keys, query)}`` (``{}`` where the rows lack its columns),
and ``figures(totals, meta, confidence)``, the tables from those totals collected or merged.
A module whose totals cost the play loop measurable time in a run without ``--out`` has a
third, ``counted(chunk, meta)``: the same totals of one chunk (``analysis.exact.Counted``)
counted with NumPy, as ``{name: {column: value}}`` (a NumPy array per column for a table with
keys), None where the chunk lacks its columns.  tests/analysis/test_reproducible_summaries.py holds the
two to the same integers.
"""
from importlib import import_module
from importlib.util import find_spec

from analysis.exact import Counted, Inexact, Totals, collect_totals, counted_frame, counted_groups

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


def game_schemas(empty, meta: dict) -> dict:
    """``{name: (keys, schema)}`` of ``game_totals`` over ``empty`` (a frame of a chunk's column
    types and no rows): how ``game_counted`` types its totals."""
    return {name: (keys, query.collect_schema()) for name, (keys, query) in game_totals(empty, meta).items()}


def game_counted(chunk: Counted, meta: dict, schemas: dict) -> dict | None:
    """The totals of ``game_totals`` for one chunk's columns (``Counted``), counted
    with NumPy by the module's ``counted`` where it has one: the same integers, typed by
    ``schemas`` (``game_schemas``) as Polars types them, for ``analysis.summary.ChunkTotals``.
    None where the module has no ``counted`` or a total could overflow int64: then Polars
    evaluates ``game_totals``."""
    module = _module(meta)
    if module is None or not hasattr(module, "counted") or not schemas:
        return None
    try:
        tables = module.counted(chunk, meta)
    except Inexact:
        return None
    if tables is None:
        return None
    return {name: Totals(counted_groups(tables[name[len(PREFIX):]], schema) if keys
                         else counted_frame(tables[name[len(PREFIX):]], schema), keys)
            for name, (keys, schema) in schemas.items()}


def game_figures_of(totals: dict, meta: dict, confidence: float) -> list[dict]:
    """``[{"title", "note", "headers", "rows"}]`` with formatted cells, from the totals of
    ``game_totals`` (collected, or merged from a run's chunks)."""
    mine = {name[len(PREFIX):]: table for name, table in totals.items() if name.startswith(PREFIX)}
    module = _module(meta)
    return module.figures(mine, meta, confidence) if module is not None and mine else []


def game_figures(frame, meta: dict, confidence: float) -> list[dict]:
    """The run's game's tables from its rows."""
    return game_figures_of(collect_totals(game_totals(frame, meta)), meta, confidence)
