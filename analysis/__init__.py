"""Analysis layer: results Parquet in, summaries, charts and reports out.

- ``stats``: interval estimates and tests (no SciPy)
- ``summary``: load a results file, summarize it in one lazy query, format it as text
- ``charts``: PNG charts of a summary (matplotlib Figure, no pyplot)
- ``report``: Markdown + self-contained HTML report, written atomically

Nothing is imported here so that ``balance --help`` stays free of Polars and matplotlib.
"""
