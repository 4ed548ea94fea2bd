"""The Python API for notebooks: ``simcore.simulate(...)`` returns a Polars DataFrame."""
from __future__ import annotations

from pathlib import Path

import polars as pl

from simcore.driver import DEFAULT_CHUNK, run_games
from simcore.game import get_game


def simulate(game: str, players: int = 4, games: int = 100_000, seed: int = 1, strategies=None,
             variant: str | Path | dict | None = None, plugins=(), threads: int | None = None,
             chunk_size: int = DEFAULT_CHUNK, out: str | Path | None = None, **options) -> pl.DataFrame:
    """Simulate ``games`` games and return one row per game (the same rows ``balance simulate
    --out`` writes).  ``variant`` is a TOML path or a dict of variant settings; ``options`` are
    more variant settings, such as ``deals=3``.  The run's metadata (seed, strategies, variant, events) is kept in
    ``simcore.api.last_metadata``."""
    g = get_game(game)
    if isinstance(variant, dict):
        v = g.variant(overrides={**variant, **options})
    else:
        v = g.variant(variant, options or None)
    setup = g.setup(players, v)
    lineup = g.lineup(strategies, players, plugins)
    result = run_games(g, setup, lineup, v, seed, games, chunk_size=chunk_size, threads=threads, out=out,
                       progress=False, keep_frame=True)
    global last_metadata
    last_metadata = result.meta
    return result.frame


last_metadata: dict | None = None
