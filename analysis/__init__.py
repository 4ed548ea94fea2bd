"""Analysis layer: results Parquet in, summaries, charts and reports out.

- ``stats``: interval estimates and tests (no SciPy)
- ``summary``: load a results file; the run's figures as lazy queries (LazyFrames in,
  LazyFrames out); the summary that collects them; text formatting
- ``charts``: PNG charts of a summary (matplotlib Figure, no pyplot)
- ``report``: Markdown + self-contained HTML report, written atomically

For notebooks the lazy queries are importable from here (docs/api.md)::

    from analysis import load, seat_shares
    frame, meta = load("runs/bw4.parquet")
    seat_shares(frame).collect()

They are looked up on first use (PEP 562), so ``import analysis`` and ``balance --help`` stay
free of Polars and matplotlib.
"""
from __future__ import annotations

import importlib

# name -> module that defines it
_EXPORTS = {name: "analysis.summary" for name in (
    "load", "summarize", "format_summary", "summary_json",
    "seat_shares", "first_player_advantage", "seat_balance", "seat_scores", "score_distribution",
    "event_rates", "wilson_bounds", "mean_bounds",
)}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str):
    if name in _EXPORTS:
        return getattr(importlib.import_module(_EXPORTS[name]), name)
    raise AttributeError(f"module 'analysis' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
