"""The `balance` command from a checkout: ``python cli.py ARGS`` is ``balance ARGS``.

The command itself lives in the package, ``balance/cli.py`` (installed as the console script
``balance`` and runnable as ``python -m balance``); this file is not installed."""
from balance.cli import app, main  # noqa: F401

if __name__ == "__main__":
    main()
