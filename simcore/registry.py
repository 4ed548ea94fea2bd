"""The registry: every game the engine knows, by name, and where its players are.

A game is a folder ``simcore/games/<game>/`` with a ``Game`` subclass in its ``game.py`` and a
players module ``strategies/<game>.py``; one ``register`` line below makes it known to every
command and test (docs/architecture.md, "Adding a game").  The engine reaches a game's players
only through here (``strategies_of``), so no engine module imports ``strategies/``.  A rules file
is a game of its own, named by its path, played by one engine (``RULES_FILE_ENGINE``).

Compiled code imports this module (a play loop finds its players with ``strategies_of``), so it
holds nothing else: editing the rest of the engine keeps the compiled kernels (simcore/cache.py).
"""
from __future__ import annotations

import importlib
from types import ModuleType

from simcore.errors import BalanceError

GAMES: dict[str, tuple[str, str]] = {}
"""The registry: game name -> (its Game class as "module:Class", its strategies module).  The
engine finds a game's players only through here (``strategies_of``)."""


def register(name: str, game_class: str, strategies: str) -> None:
    """Make a game known to every command and test (docs/architecture.md, "Adding a game")."""
    GAMES[name] = (game_class, strategies)


register("bird-weather", "simcore.games.bird_weather.game:BirdWeather", "strategies.bird_weather")
register("chimera", "simcore.games.chimera.game:Chimera", "strategies.chimera")
register("sky-city", "simcore.games.sky_city.game:SkyCity", "strategies.sky_city")
register("ten-tricks", "simcore.games.ten_tricks.game:TenTricks", "strategies.ten_tricks")
register("triatri", "simcore.games.triatri.game:TriATri", "strategies.triatri")


RULES_FILE_ENGINE = ("simcore.games.trick", "strategies.trick")
"""The engine of every game described in a rules file (``balance simulate my-game.toml``): its
folder and its players.  A rules file is a game of its own, named by its path, not a registry entry."""


def is_rules_file(name: str) -> bool:
    """Whether a game name is a rules file's path (``my-game.toml``) rather than a registered game."""
    return str(name).lower().endswith(".toml")


def known_game(name) -> bool:
    """A registered game's name, or a rules file's path (whether the file is readable is checked
    when the game is made: ``get_game``)."""
    return isinstance(name, str) and (name in GAMES or is_rules_file(name))


def strategies_of(kernel_module: str) -> ModuleType:
    """The strategies module of the game whose folder holds ``kernel_module`` (a kernel.py's
    ``__name__``): how a play loop finds the decisions it compiles in."""
    package = kernel_module.rpartition(".")[0]
    if package == RULES_FILE_ENGINE[0]:
        return importlib.import_module(RULES_FILE_ENGINE[1])
    for game_class, strategies in GAMES.values():
        if game_class.partition(":")[0].rpartition(".")[0] == package:
            return importlib.import_module(strategies)
    raise LookupError(f"no registered game lives in {package}")


MAX_SEED = 2**63 - 1  # seeds and game indices are int64 in the kernels
DUPLICATE = 1 << 62  # game indices from here on are duplicate deals (simcore/rng.py); defined here, numba-free


def check_seed(seed, what: str = "--seed") -> int:
    if not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed <= MAX_SEED:
        raise BalanceError(f"{what} must be a whole number from 0 to 2**63-1, not {seed!r}")
    return seed


def game_names() -> list[str]:
    return list(GAMES)


def get_game(name: str):
    """The ``Game`` of a registered name or of a rules file's path; an unknown name is one line."""
    if is_rules_file(name):  # a trick-taking game described in a rules file (docs/rules-files.md)
        return importlib.import_module(f"{RULES_FILE_ENGINE[0]}.game").RulesFileGame(name)
    if name not in GAMES:
        raise BalanceError(f"unknown game '{name}' (choose from: {', '.join(GAMES)})")
    module_name, cls = GAMES[name][0].split(":")
    return getattr(importlib.import_module(module_name), cls)()
