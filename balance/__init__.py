"""The ``balance`` command: ``balance.cli`` holds the Typer app and ``main``, the console
script's entry point; ``python -m balance`` runs it too.

Nothing is imported here, so ``balance --help`` stays free of the heavy packages (numba, polars,
matplotlib), which the commands import when they run."""
