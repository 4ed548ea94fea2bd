"""A line-up: who sits where, and the compiled play loop that knows them.

``make_lineup`` reads ``heuristic,random,...`` (one name for every seat), checks each name and
its parameter against the game's players (``strategies/<game>.py``, found through the registry),
loads the plug-ins, and picks the play loop: the stock one, the random build for random seats
(simcore/builds.py) or a plug-in build (simcore/plugins/).
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass
from types import ModuleType

import numpy as np

from simcore.errors import BalanceError


@dataclass(frozen=True)
class Lineup:
    """Who sits where: strategy names, their kernel ids and parameter rows, and the
    compiled play-loop module that knows them (the stock one, or a plug-in build)."""

    names: tuple[str, ...]
    ids: np.ndarray  # int64[players]
    params: np.ndarray  # float64[MAX_PLAYERS, N_PARAMS]
    kernels: ModuleType
    plugins: tuple[str, ...] = ()  # plug-in file paths


def make_lineup(game, spec: str | list[str] | None, players: int, plugin_paths=()) -> Lineup:
    """``spec`` (``heuristic,random,...``; one name = every seat; None: the game's default
    player) as the Lineup of ``game`` (``Game.lineup``)."""
    from simcore.builds import random_build, random_builds_wanted
    from simcore.plugins.dispatch import plugin_build
    from simcore.plugins.loading import load_plugin
    from simcore.plugins.table import plugin_row

    strategies = game.strategy_module()
    plugins = []
    for path in plugin_paths:
        plugin = load_plugin(path)
        if plugin.game != game.name:
            raise BalanceError(f"plug-in {path} is for '{plugin.game}', not '{game.name}'")
        if plugin.name in strategies.BUILTIN or plugin.name in [p.name for p in plugins]:
            raise BalanceError(f"plug-in {path}: strategy name '{plugin.name}' is already taken")
        plugins.append(plugin)
    by_name = {plugin.name: plugin for plugin in plugins}

    if spec is None or spec == "":
        names = [game.default_strategy] * players
    else:
        names = [s.strip() for s in (spec.split(",") if isinstance(spec, str) else spec)]
        if len(names) == 1:
            names = names * players
    if len(names) != players:
        raise BalanceError(f"--strategies names {len(names)} seats but the game has {players} players")
    parameters = getattr(strategies, "PARAMETER", {})
    for n in names:
        base, _, argument = n.partition(":")
        if base not in strategies.BUILTIN and base not in by_name:
            choices = [*strategies.BUILTIN, *by_name]
            raise BalanceError(f"unknown strategy '{n}' for {game.name} (choose from: {', '.join(choices)})")
        if argument and base not in parameters:
            raise BalanceError(f"strategy '{base}' takes no parameter (got '{n}')")

    params = np.zeros((game.max_players, strategies.N_PARAMS), dtype=np.float64)
    for seat, n in enumerate(names):
        base, _, argument = n.partition(":")
        if base in strategies.BUILTIN:
            try:  # a strategy's parameter (`fixed:3`, `search:d=64:policy=heuristic`) is checked by its module
                params[seat] = strategies.default_params(base, argument or None)
            except ValueError:
                label = parameters[base][2] if isinstance(parameters[base], tuple) else parameters[base]
                raise BalanceError(f"strategy '{n}': the {label} after ':' must be a number") from None
        else:
            plugin = by_name[base]
            values = getattr(plugin.module, "PARAMS", ())
            if (not isinstance(values, (tuple, list)) or len(values) > strategies.N_PARAMS
                    or not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values)):
                raise BalanceError(f"plug-in {plugin.path}: PARAMS must be a tuple of at most "
                                   f"{strategies.N_PARAMS} numbers")
            params[seat, : len(values)] = values
    kernels = importlib.import_module(game.kernels_module)
    # a plug-in's id names its row of the address table (its functions compiled on first use)
    ids = dict(strategies.BUILTIN)
    ids.update({name: strategies.PLUGIN_BASE + plugin_row(plugin, strategies) for name, plugin in by_name.items()})
    seat_ids = np.array([ids[n.partition(":")[0]] for n in names], dtype=np.int64)
    if plugins:
        builtin = seat_ids < strategies.PLUGIN_BASE
        kernels = plugin_build(strategies, kernels, plugins, game.plugin_decisions,
                               random_seats=bool((seat_ids[builtin] == strategies.RANDOM).all()))
    elif (seat_ids == strategies.RANDOM).all() and random_builds_wanted():  # simcore/builds.py
        kernels = random_build(strategies, kernels)
    return Lineup(tuple(names), seat_ids, params, kernels, tuple(p.path for p in plugins))
