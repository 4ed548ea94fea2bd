"""The Python API for notebooks: ``simcore.run(...)`` returns the rows and the run's metadata,
``simcore.simulate(...)`` just the rows (a Polars DataFrame, or with ``to="pandas"`` a pandas one)."""
from __future__ import annotations

from pathlib import Path

import polars as pl

from simcore.driver import DEFAULT_CHUNK, RunResult, run_games
from simcore.errors import BalanceError
from simcore.registry import DUPLICATE, get_game

TABLES = ("polars", "pandas")  # what ``simulate(to=...)`` hands back


def run(game: str, players: int = 4, games: int = 100_000, seed: int = 1, strategies=None,
        variant: str | Path | dict | None = None, plugins=(), threads: int | None = None,
        chunk_size: int = DEFAULT_CHUNK, out: str | Path | None = None, force: bool = False, resume: bool = False,
        duplicate: bool = False, **options) -> RunResult:
    """Simulate ``games`` games: ``.frame`` holds one row per game (the rows ``balance simulate
    --out`` writes), ``.meta`` the run's metadata (seed, strategies, variant, events ...), the
    dictionary ``analysis.summarize`` and the other analysis functions take.  ``variant`` is a
    TOML path or a dict of variant settings; ``options`` are more variant settings, such as
    ``deals=3``.  An ``out`` that exists is refused unless ``force=True`` (replace it) or
    ``resume=True`` (finish an interrupted run).  Inside ``simcore.cluster.connect("local:2")``
    (or ``connect(scheduler="tcp://...")``) the games are played on that Dask cluster.

    ``duplicate=True`` plays duplicate deals (simcore/rng.py): ``games`` games from index
    DUPLICATE on, each deal once per turn of the table (game k: deal k // players, turned
    k % players seats), the rows the skill tiers of a report and ``whatif`` play; not for a game
    whose chance cannot turn (ALEA).  Their figures are judged by deal (analysis/duplicate.py):
    ``analysis.summarize``'s per-game intervals do not apply to them."""
    g = get_game(game)
    if isinstance(variant, dict):
        v = g.variant(overrides={**variant, **options})
    else:
        v = g.variant(variant, options or None)
    setup = g.setup(players, v)
    lineup = g.lineup(strategies, players, plugins)
    return run_games(g, setup, lineup, v, seed, games, chunk_size=chunk_size, threads=threads, out=out,
                     progress=False, keep_frame=True, force=force, resume=resume,
                     start=DUPLICATE if duplicate else 0)


def simulate(*args, to: str = "polars", **kwargs):
    """``run(...).frame``: the rows alone, a Polars DataFrame; ``to="pandas"`` hands them back as a
    pandas DataFrame instead (converted through pyarrow: the same columns in the same order, each
    with its NumPy dtype, e.g. ``score_0`` int16 and ``share_0`` float32)."""
    if to not in TABLES:
        raise BalanceError(f"to={to!r}: a table is handed back as {' or '.join(map(repr, TABLES))}")
    frame = run(*args, **kwargs).frame
    return to_pandas(frame) if to == "pandas" else frame


def to_pandas(table: pl.DataFrame | pl.LazyFrame):
    """A Polars table (a LazyFrame is collected first, e.g. ``to_pandas(seat_shares(frame))``) as a
    pandas DataFrame, column for column."""
    import pandas  # noqa: F401 (Polars converts into it; imported on request only, so `import simcore` stays light)

    if isinstance(table, pl.LazyFrame):
        table = table.collect()
    return table.to_pandas()
