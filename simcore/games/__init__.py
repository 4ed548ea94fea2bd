"""One folder per game, each with the same files:

    rules.py      the public encoding (card/table/rule layouts, rule helpers, variant keys, setup)
    kernel.py     the compiled play loop that asks the strategies
    game.py       the Game the driver, CLI and tests see (registered in simcore.registry.GAMES)
    reference.py  the same rules as plain, readable Python: the oracle the kernel is tested against

plus the game's data (ALEA's trap deck and trap language).  See docs/architecture.md.
"""
from importlib import import_module


def encoding_alias(rules_module: str):
    """A package ``__getattr__`` that hands out names of the game's ``rules.py``.

    Plug-ins written before games had folders import the encoding from the package
    (``from simcore.games.bird_weather import T_PLAY``); this keeps them working without
    importing Numba for whoever only needs, say, the reference engine."""

    def __getattr__(name: str):
        if name.startswith("__"):
            raise AttributeError(name)
        return getattr(import_module(rules_module), name)

    return __getattr__
