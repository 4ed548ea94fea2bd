"""A plug-in may not change the game it is measured on: the write check.

A plug-in's decisions are handed the game's live arrays.  Each dispatcher (``simcore.plugins.
dispatch``) has a checking mode, written here (``checked_source``, ``check_helpers``): it copies
every array argument before the call, compares after it, puts back a change and notes it in the
seat's extra columns of ``params`` (``CHECK_COLUMNS``).  ``check_writes`` plays a few games of
the run in that mode and refuses, in one line naming the file, the decision and the slot, a
plug-in that wrote anywhere but its own random stream and the scratch areas its game declares
(docs/strategies.md, "What a plug-in may write").
"""
from __future__ import annotations

from dataclasses import replace
from types import ModuleType

from simcore.digests import setup_digest
from simcore.errors import BalanceError
from simcore.plugins.table import loaded, plugin_row

# the extra columns of a seat's row of ``params`` in checking mode (after the N_PARAMS of the game)
CHECK_CALLS, CHECK_DECISION, CHECK_ARGUMENT, CHECK_INDEX, CHECK_NDIM, CHECK_WIDTH, CHECK_SCRATCH = range(7)
CHECK_COLUMNS = 7


def scratch_areas(strategies: ModuleType) -> dict[str, tuple]:
    """Where a game's strategies may write besides their own stream: the strategies module's
    ``PLUGIN_SCRATCH``, argument -> ``(first, end, cleared)``: slots first..end-1 of that argument
    may change during a call but must hold ``cleared`` (default 0) again when it returns, or be
    left as they were.  ``first`` and ``end`` are slot numbers or expressions over the decision's
    arguments and the module's constants, evaluated as the call starts (BIRD & WEATHER: the
    trick's slots not played yet, ``"T_PLAY + table[T_NPLAYED]"``)."""
    areas = {}
    for argument, area in getattr(strategies, "PLUGIN_SCRATCH", {}).items():
        first, end, *rest = area
        areas[argument] = (first, end, rest[0] if rest else 0)
    return areas


def checked_source(decision: str, d: int, args: str, names: list[str], n_params: int, scratch: dict) -> list[str]:
    """The checking dispatcher of one decision (see ``simcore.plugins.dispatch.build_dispatch``)."""
    watched = [(a, name) for a, name in enumerate(names) if name != "streams"]
    lines = [f"def checked_{decision}(k, {args}):"]
    for a, name in watched:
        first, end, cleared = scratch.get(name, (0, 0, 0))
        lines += [f"    s{a} = _snap({name})", f"    lo{a} = {first}", f"    hi{a} = {end}"]
    lines += [f"    answer = plain_{decision}(k, {args})",
              "    bad = -1", "    at = -1", "    nd = 0", "    wide = 0", "    kept = 0"]
    for a, name in watched:
        cleared = scratch.get(name, (0, 0, 0))[2]
        lines += [f"    j = _changed({name}, s{a}, lo{a}, hi{a}, {cleared})",
                  "    if j >= 0:",
                  f"        _put_back({name}, s{a})",
                  "        if bad < 0:",
                  f"            bad = {a}", "            at = j",
                  f"            nd = _ndim({name})", f"            wide = _width({name})",
                  f"            kept = 1 if lo{a} <= j < hi{a} else 0"]
    n = n_params
    lines += [f"    params[seat, {n + CHECK_CALLS}] += 1.0",
              f"    if bad >= 0 and params[seat, {n + CHECK_DECISION}] == 0.0:",
              f"        params[seat, {n + CHECK_DECISION}] = {d + 1}",
              f"        params[seat, {n + CHECK_ARGUMENT}] = bad",
              f"        params[seat, {n + CHECK_INDEX}] = at",
              f"        params[seat, {n + CHECK_NDIM}] = nd",
              f"        params[seat, {n + CHECK_WIDTH}] = wide",
              f"        params[seat, {n + CHECK_SCRATCH}] = kept",
              "    return answer"]
    return lines


_HELPERS: dict = {}


def check_helpers() -> dict:
    """The checking dispatchers' helpers, generic over argument types (Numba overloads): an array
    argument is copied, compared and put back; a number, passed by value, has nothing to check."""
    if _HELPERS:
        return _HELPERS
    from numba import types
    from numba.extending import overload

    def _snap(x): ...
    def _changed(x, before, lo, hi, cleared): ...
    def _put_back(x, before): ...
    def _ndim(x): ...
    def _width(x): ...

    def checked(x):
        return isinstance(x, types.Array) and x.mutable  # a read-only array cannot be written

    @overload(_snap)
    def _snap_impl(x):
        if checked(x):
            return lambda x: x.copy()
        return lambda x: 0

    @overload(_changed)
    def _changed_impl(x, before, lo, hi, cleared):
        if not checked(x):
            return lambda x, before, lo, hi, cleared: -1

        def impl(x, before, lo, hi, cleared):
            """The first flat index (C order) that differs from ``before``, -1 if none; in the
            scratch slots lo..hi-1, only a change to a value other than ``cleared``."""
            now = x.ravel()
            was = before.ravel()
            for i in range(now.size):
                a = now[i]
                b = was[i]
                if a != b and (a == a or b == b) and not (lo <= i < hi and a == cleared):  # NaN = NaN here
                    return i
            return -1
        return impl

    @overload(_put_back)
    def _put_back_impl(x, before):
        if not checked(x):
            return lambda x, before: None
        # element by element where the shape is known: ``x[...] = before`` compiles NumPy's
        # broadcasting and its shape-error message, 6 of a plug-in build's 50 s (BENCHMARKS.md)
        if x.ndim == 1:
            def impl(x, before):
                for i in range(x.shape[0]):
                    x[i] = before[i]
        elif x.ndim == 2:
            def impl(x, before):
                for i in range(x.shape[0]):
                    for j in range(x.shape[1]):
                        x[i, j] = before[i, j]
        else:
            def impl(x, before):
                x[...] = before
        return impl

    @overload(_ndim)
    def _ndim_impl(x):
        nd = x.ndim if isinstance(x, types.Array) else 0
        return lambda x: nd

    @overload(_width)
    def _width_impl(x):
        if isinstance(x, types.Array) and x.ndim >= 1:
            last = x.ndim - 1
            return lambda x: x.shape[last]
        return lambda x: 0

    _HELPERS.update(_snap=_snap, _changed=_changed, _put_back=_put_back, _ndim=_ndim, _width=_width)
    return _HELPERS


CHECK_GAMES = 256  # games the check plays at most ...
CHECK_SECONDS = 0.25  # ... and for about this long at most (a slow plug-in plays fewer)
CHECK_BATCH = 32

_CHECKED: dict[tuple, dict[str, int]] = {}


def check_writes(game, setup, lineup, seed: int = 0, logs: bool = False) -> dict[str, int]:
    """Refuse a plug-in that writes to the game's state: play a few games of run ``seed`` with
    every loaded plug-in seated (seat s plays plug-in s mod P) and the dispatchers in checking
    mode (``simcore.plugins.dispatch.build_dispatch``), and raise one ``BalanceError`` line naming the plug-in file, the
    decision, the argument and the slot it wrote.  Played in one thread, by the play loop the
    run compiles anyway (``run_chunk``; ``logs``: ``play_many_logged``, for a replay), so nothing
    more is compiled.  Once per process per plug-in build, player count and rules in force.
    Returns the decisions each plug-in (by path) was asked in the check games."""
    if not getattr(lineup.kernels, "__balance_plugin_build__", False):
        return {}
    strategies = game.strategy_module()
    # named as this line-up names them: the same file loaded by another path shares its row
    plugins = [replace(loaded(path), path=str(path)) for path in lineup.plugins]
    rows = [plugin_row(p, strategies) for p in plugins]
    key = (tuple(rows), lineup.kernels.__name__, game.name, setup.players, logs, setup_digest(setup))
    if key in _CHECKED:  # the decisions asked, by the plug-in's place in the line-up
        return {p.path: count for p, count in zip(plugins, _CHECKED[key])}
    import time

    import numpy as np

    n = strategies.N_PARAMS
    # its own tallies: the run's game object keeps its own (a rules-file game is made from its file)
    fresh = type(game)(game.path) if hasattr(game, "spec") else type(game)()
    players = setup.players
    calls = [0] * len(plugins)
    started = time.perf_counter()
    for first in range(0, len(plugins), players):
        group = list(range(first, min(first + players, len(plugins))))
        seats = [group[s % len(group)] for s in range(players)]
        params = np.zeros((lineup.params.shape[0], n + CHECK_COLUMNS), dtype=np.float64)
        for s, k in enumerate(seats):
            values = getattr(plugins[k].module, "PARAMS", ())
            params[s, :len(values)] = values
        check = replace(lineup, names=tuple(plugins[k].name for k in seats),
                                    ids=np.array([strategies.PLUGIN_BASE + rows[k] for k in seats], dtype=np.int64),
                                    params=params)
        played = 0
        while played < CHECK_GAMES:
            batch = min(CHECK_BATCH, CHECK_GAMES - played)
            broke = _play_checked(fresh, setup, check, seed, played, batch, logs)
            played += batch
            _refuse_writes(game, strategies, plugins, seats, params[:players, n:])
            if broke or time.perf_counter() - started > CHECK_SECONDS:
                break  # an illegal move: the run itself stops with its own line
        for s, k in enumerate(seats):
            calls[k] += int(params[s, n + CHECK_CALLS])
    _CHECKED[key] = calls
    return {p.path: count for p, count in zip(plugins, calls)}


def _play_checked(game, setup, lineup, seed: int, start: int, n: int, logs: bool) -> bool:
    """Games start..start+n-1 in one thread; True if a strategy broke the rules in one of them."""
    import numba

    threads = numba.get_num_threads()
    numba.set_num_threads(1)  # the seats' extra columns are written without atomics
    try:
        if logs:
            game.kernel_logs(setup, lineup, seed, range(start, start + n))
        else:
            game.run_chunk(setup, lineup, seed, start, n)
            game.take_tallies()
    except BalanceError:  # Game.check_status: an illegal move
        return True
    finally:
        numba.set_num_threads(threads)
    return False


def _refuse_writes(game, strategies, plugins, seats, extra) -> None:
    """Raise for the first seat whose checking columns (``extra``) note a write."""
    decisions = list(game.plugin_decisions.items())
    scratch = scratch_areas(strategies)
    for s, row in enumerate(extra):
        if row[CHECK_DECISION] == 0:
            continue
        decision, args = decisions[int(row[CHECK_DECISION]) - 1]
        argument = [a.strip() for a in args.split(",")][int(row[CHECK_ARGUMENT])]
        index, ndim, width = int(row[CHECK_INDEX]), int(row[CHECK_NDIM]), int(row[CHECK_WIDTH])
        slot = slot_name(game, argument, index, ndim, width)
        if row[CHECK_SCRATCH]:
            cleared = scratch[argument][2]
            what = (f"left {slot} {'non-zero' if cleared == 0 else f'other than {cleared}'} (scratch: it must "
                    f"be set back to {cleared} before the call returns)")
        else:
            what = f"wrote {slot} (a slot a strategy may only read)"
        raise BalanceError(f"plug-in {plugins[seats[s]].path}: choose_{decision} {what}; "
                           f"{allowed_writes(game, strategies)}")


def allowed_writes(game, strategies) -> str:
    """What a strategy of this game may write, in words."""
    text = "a strategy may write only its own random stream (streams)"
    for argument, (first, end, cleared) in scratch_areas(strategies).items():
        low = slot_name(game, argument, first, 1, 0) if isinstance(first, int) else f"{argument}[{first}]"
        high = slot_name(game, argument, end - 1, 1, 0) if isinstance(end, int) else f"{argument}[{end} - 1]"
        text += f" and, while it decides, {low} ... {high} (back to {cleared} before it returns)"
    return text


# the constants that name an argument's slots, in the game's rules module
SLOT_PREFIXES = {"table": "T_", "rules": "R_", "masks": "M_"}


def slot_name(game, argument: str, index: int, ndim: int, width: int) -> str:
    """``table[T_SCORE + 1]`` (the largest ``T_*`` constant of the game's rules module at or
    below the index), ``params[1, 0]`` for a matrix, ``odds[40]`` otherwise."""
    if ndim == 2 and width > 0:
        return f"{argument}[{index // width}, {index % width}]"
    prefix = SLOT_PREFIXES.get(argument)
    rules = getattr(game, "rules", None)
    if ndim == 1 and prefix and rules is not None:
        best = None
        for name, value in vars(rules).items():
            if (name.startswith(prefix) and isinstance(value, int) and not isinstance(value, bool)
                    and 0 <= value <= index and (best is None or value > best[1])):
                best = (name, value)
        if best is not None:
            name, value = best
            return f"{argument}[{name}]" if value == index else f"{argument}[{name} + {index - value}]"
    return f"{argument}[{index}]"
