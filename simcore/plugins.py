"""User strategies from a file (``--plugin my_strategy.py``), compiled into the kernel.

A plug-in file names its game and strategy and defines compiled decision
functions with the signatures of the built-ins (docs/strategies.md)::

    GAME = "bird-weather"
    NAME = "lowball"

    @njit
    def choose_play(params, seat, hand, legal, seen, table, number, follow, rules, streams): ...

Numba resolves the functions a kernel calls when it compiles, and its disk
cache knows a function only by its source file, not by what it calls, so a
plug-in build executes copies of the game's strategy and play-loop files whose
``plugin_*`` dispatchers call the user's functions.  The copies are written to
a folder of the compile cache named by a hash of the engine sources and of the
plug-in files' contents (``plugin_build``): Numba caches them there like any
other kernel, so only the first process to use a plug-in compiles it; an
edited plug-in gets a new folder.  The stock modules and their cache are
untouched.  Cost measured in BENCHMARKS.md.

A plug-in is handed the game's live arrays, so before a run ``check_writes``
plays a few games with the dispatchers in checking mode and refuses, in one
line, a plug-in that writes anywhere but its own random stream and a declared
scratch area (``build_dispatch``; docs/strategies.md, "What a plug-in may write").
"""
from __future__ import annotations

import hashlib
import importlib.util
import os
import sys
from dataclasses import dataclass, replace
from pathlib import Path
from types import ModuleType

from simcore.errors import BalanceError


_LOADED: list[str] = []


def loaded_plugins() -> list[str]:
    """Paths of the plug-ins this process has loaded (named when one fails to compile)."""
    return list(_LOADED)


@dataclass(frozen=True)
class Plugin:
    name: str
    game: str
    path: str
    module: ModuleType


def load_plugin(path: str | Path) -> Plugin:
    path = Path(path)
    if not path.is_file():
        raise BalanceError(f"plug-in file not found: {path}")
    # named by its contents, not its place: a Dask worker loads the same source from another path,
    # and the compiled code Numba caches refers to the plug-in's module by this name
    digest = hashlib.sha1(path.read_bytes()).hexdigest()[:10]
    name = f"balance_plugin_{path.stem}_{digest}"
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise BalanceError(f"plug-in {path} is not a Python file")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except Exception as exc:  # the user's file: report it on one line
        raise BalanceError(f"plug-in {path} failed to load: {type(exc).__name__}: {exc}") from None
    for attr in ("GAME", "NAME"):
        if not isinstance(getattr(module, attr, None), str):
            raise BalanceError(f"plug-in {path} must define {attr} = \"...\" (a string)")
    _LOADED.append(str(path))
    return Plugin(name=module.NAME, game=module.GAME, path=str(path), module=module)


def _compiled(fn, path: str, decision: str):
    from numba import njit
    from numba.core.registry import CPUDispatcher

    if isinstance(fn, CPUDispatcher):
        return fn
    if not callable(fn):
        raise BalanceError(f"plug-in {path}: {decision} must be a function")
    return njit(fn)


def build_dispatch(decisions: dict[str, str], plugins: list[Plugin], fallback_module: ModuleType) -> dict:
    """Make ``plugin_<decision>(k, *args)`` dispatchers over the plug-ins' functions.

    ``decisions`` maps a decision name (``play``) to its argument list
    (``"params, seat, hand, ..."``).  A plug-in that leaves a decision out gets
    the built-in random choice for it (``fallback_module.random_<decision>``).

    Each dispatcher also has a checking mode, on when its ``params`` has more columns than the
    strategies' ``N_PARAMS`` (``check_writes`` passes such a matrix; a run never does, and the
    shape is not part of Numba's type, so nothing compiles twice).  In it the dispatcher copies
    every array argument before the call and compares after it: a change anywhere but the seat's
    own random stream (``streams``) and the scratch areas the strategies module declares
    (``PLUGIN_SCRATCH``, see ``scratch_areas``) is put back and noted in the seat's extra columns
    (``CHECK_COLUMNS``).  Off, it costs one comparison per plug-in decision.
    """
    from numba import njit

    helpers = _check_helpers()
    n_params = getattr(fallback_module, "N_PARAMS", None)
    scratch = scratch_areas(fallback_module)
    injected = {}
    for d, (decision, args) in enumerate(decisions.items()):
        names = [a.strip() for a in args.split(",")]
        # a scratch area's bounds may be expressions over the game's constants (T_PLAY ...)
        namespace = {name: value for name, value in vars(fallback_module).items() if not name.startswith("__")}
        namespace.update(fallback=getattr(fallback_module, f"random_{decision}"), **helpers)
        branches = []
        for k, plugin in enumerate(plugins):
            fn = getattr(plugin.module, f"choose_{decision}", None)
            target = "fallback" if fn is None else f"p{k}"
            if fn is not None:
                namespace[f"p{k}"] = _compiled(fn, plugin.path, f"choose_{decision}")
            branches.append(f"    if k == {k}:\n        return {target}({args})")
        branches.append(f"    return fallback({args})")
        checks = n_params is not None and "params" in names and "seat" in names
        lines = [f"def plain_{decision}(k, {args}):", *branches]
        if checks:
            lines += _checked_source(decision, d, args, names, n_params, scratch)
        lines.append(f"def plugin_{decision}(k, {args}):")
        if checks:
            lines.append(f"    if params.shape[1] > {n_params}:\n        return checked_{decision}(k, {args})")
        lines += branches
        exec("\n".join(lines), namespace)  # generated from our own argument lists only
        # with reference counts (Numba's _nrt), even behind a dispatch compiled without them: a
        # plug-in may allocate (simcore/jit.py), and the check copies the arguments
        for name in ("plain", "checked"):
            if f"{name}_{decision}" in namespace:
                namespace[f"{name}_{decision}"] = njit(_nrt=True)(namespace[f"{name}_{decision}"])
        injected[f"plugin_{decision}"] = njit(_nrt=True)(namespace[f"plugin_{decision}"])
    return injected


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


def _checked_source(decision: str, d: int, args: str, names: list[str], n_params: int, scratch: dict) -> list[str]:
    """The checking dispatcher of one decision (see ``build_dispatch``)."""
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


def _check_helpers() -> dict:
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


_BUILDS: dict[str, ModuleType] = {}


def plugin_build(strategies: ModuleType, kernels: ModuleType, plugins: list[Plugin], decisions: dict,
                 random_seats: bool = False) -> ModuleType:
    """The play loop of ``kernels`` with ``plugins`` wired into ``strategies``' dispatch: built
    once per process, compiled once per machine (see the module docstring).

    ``random_seats`` (every seat that is not a plug-in is random, as in docs/strategies.md's
    examples): the dispatch knows only the plug-ins and the random player, so no heuristic or
    search code is linked into the loop and compiled again at each edit of a plug-in (the
    random build's idea, simcore/builds.py; BENCHMARKS.md, "The first command").  The same
    branches the full dispatch takes for those seats, so the same rows (tests/test_builds.py)."""
    from simcore.cache import CACHE_ROOT, FINGERPRINT

    digest = hashlib.sha1(FINGERPRINT.encode())
    for plugin in plugins:
        digest.update(plugin.name.encode() + b"\0" + Path(plugin.path).read_bytes() + b"\0")
    key = digest.hexdigest()[:16]
    built = f"{key}-random" if random_seats else key
    if built not in _BUILDS:
        folder = CACHE_ROOT / "plugin-builds" / key
        injected = build_dispatch(decisions, plugins, strategies)
        if random_seats:
            dispatch = _random_or_plugin(strategies, injected)
            kernel_copy = module_copy(kernels, folder, f"kernel_{key}_random", {"__strategies__": dispatch})
            decisions_reached = {f"choose_{decision}" for decision in strategies.PLUGIN_DECISIONS}
        else:
            dispatch = module_copy(strategies, folder, f"strategies_{key}", injected)
            decisions_reached = reuse_stock(dispatch, strategies, set(injected))
            kernel_copy = module_copy(kernels, folder, f"kernel_{key}", {"__strategies__": dispatch})
        # the play loop's names bound to a strategy function the plug-ins reach (choose_play ...)
        bound = {name for name, value in vars(kernel_copy).items()
                 if any(value is getattr(dispatch, f, None) for f in decisions_reached)}
        reuse_stock(kernel_copy, kernels, bound | {"strategy", "__strategies__"})
        kernel_copy.__balance_plugins__ = tuple(plugins)  # what check_writes seats
        _BUILDS[built] = kernel_copy
    return _BUILDS[built]


def _random_or_plugin(strategies: ModuleType, injected: dict) -> ModuleType:
    """The stock strategies module's names, its decisions made by the random player (a seat of
    id RANDOM) or by the plug-ins' dispatchers (every other seat, as in the stock dispatch)."""
    from numba import njit

    dispatch = ModuleType(f"{strategies.__name__}_random_or_plugin")
    dispatch.__dict__.update({name: value for name, value in vars(strategies).items() if not name.startswith("__")})
    dispatch.__dict__.update(injected)
    for decision, args in strategies.PLUGIN_DECISIONS.items():
        namespace = {f"random_{decision}": getattr(strategies, f"random_{decision}"),
                     f"plugin_{decision}": injected[f"plugin_{decision}"],
                     "RANDOM": strategies.RANDOM, "PLUGIN_BASE": strategies.PLUGIN_BASE}
        # generated from the game's own argument list (PLUGIN_DECISIONS), as the dispatchers are
        exec(f"def choose_{decision}(strategy, {args}):\n"
             f"    if strategy == RANDOM:\n        return random_{decision}({args})\n"
             f"    return plugin_{decision}(strategy - PLUGIN_BASE, {args})", namespace)
        setattr(dispatch, f"choose_{decision}", njit(inline="always")(namespace[f"choose_{decision}"]))
    return dispatch


def _names_used(code) -> set[str]:
    """The global and attribute names a function's code (and the code nested in it) refers to."""
    names = set(code.co_names)
    for const in code.co_consts:
        if hasattr(const, "co_names"):
            names |= _names_used(const)
    return names


def reuse_stock(copy: ModuleType, stock: ModuleType, reaches: set[str]) -> set[str]:
    """In a plug-in build's ``copy`` of ``stock``, put back the stock compiled function for every
    function that cannot reach a name in ``reaches`` (the plug-in dispatchers), directly or
    through other functions of the copy: the same source, so the same machine code, but already
    in the compile cache.  Only the functions on a path to a plug-in are compiled for the build
    (the heuristics and the search are not compiled again).  Returns the names kept as copies."""
    from numba.core.dispatcher import Dispatcher

    own = {name: fn for name, fn in vars(copy).items()
           if isinstance(fn, Dispatcher) and getattr(fn.py_func, "__module__", None) == copy.__name__}
    used = {name: _names_used(fn.py_func.__code__) for name, fn in own.items()}
    kept = set(reaches)
    grown = True
    while grown:
        grown = False
        for name, names in used.items():
            if name not in kept and names & kept:
                kept.add(name)
                grown = True
    for name in own:
        if name not in kept and isinstance(getattr(stock, name, None), Dispatcher):
            setattr(copy, name, getattr(stock, name))
    return kept & set(own)


def module_copy(module: ModuleType, folder: Path, name: str, injected: dict) -> ModuleType:
    """Execute a copy of ``module``'s file, kept as ``folder/<name>.py``, as a new module with
    ``injected`` globals set first.  The file is written once (atomically): its unchanged time
    stamp is what lets Numba's cache find the compiled copy again."""
    path = folder / f"{name}.py"
    source = Path(module.__file__).read_bytes()
    if not path.is_file() or path.read_bytes() != source:
        folder.mkdir(parents=True, exist_ok=True)
        staged = folder / f".{name}.{os.getpid()}.tmp"
        staged.write_bytes(source)
        os.replace(staged, path)
    spec = importlib.util.spec_from_file_location(name, path)
    copy = importlib.util.module_from_spec(spec)
    copy.__dict__.update(injected)
    sys.modules[name] = copy
    spec.loader.exec_module(copy)
    return copy


# --------------------------------------------------------------------------------------------
# a plug-in may not change the game it is measured on
# --------------------------------------------------------------------------------------------

CHECK_GAMES = 256  # games the check plays at most ...
CHECK_SECONDS = 0.25  # ... and for about this long at most (a slow plug-in plays fewer)
CHECK_BATCH = 32

_CHECKED: dict[tuple, dict[str, int]] = {}


def check_writes(game, setup, lineup, seed: int = 0, logs: bool = False) -> dict[str, int]:
    """Refuse a plug-in that writes to the game's state: play a few games of run ``seed`` with
    every loaded plug-in seated (seat s plays plug-in s mod P) and the dispatchers in checking
    mode (``build_dispatch``), and raise one ``BalanceError`` line naming the plug-in file, the
    decision, the argument and the slot it wrote.  Played in one thread, by the play loop the
    run compiles anyway (``run_chunk``; ``logs``: ``play_many_logged``, for a replay), so nothing
    more is compiled.  Once per process per plug-in build, player count and rules in force.
    Returns the decisions each plug-in (by path) was asked in the check games."""
    built = getattr(lineup.kernels, "__balance_plugins__", ())
    if not built:
        return {}
    # the build is shared by every load of the same plug-in files (plugin_build keys it by their
    # contents), so it may carry the paths of an earlier load: name the files as this line-up did
    paths = list(getattr(lineup, "plugins", ())) or [p.path for p in built]
    plugins = [replace(p, path=str(path)) for p, path in zip(built, paths)]
    key = (lineup.kernels.__name__, game.name, setup.players, logs, _rules_digest(setup))
    if key in _CHECKED:  # the decisions asked, by the plug-in's place in the build
        return {p.path: count for p, count in zip(plugins, _CHECKED[key])}
    import time

    import numpy as np

    strategies = game.strategy_module()
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
                                    ids=np.array([strategies.PLUGIN_BASE + k for k in seats], dtype=np.int64),
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


def _rules_digest(setup) -> str:
    """A hash of the rules in force (every array and plain value of the setup)."""
    import numpy as np

    digest = hashlib.sha1()
    for name, value in sorted(vars(setup).items()):
        if isinstance(value, np.ndarray):
            digest.update(f"{name}:{value.dtype}:{value.shape}:".encode() + np.ascontiguousarray(value).tobytes())
        elif value is None or isinstance(value, (bool, int, float, str, tuple, list)):
            digest.update(f"{name}={value!r};".encode())
    return digest.hexdigest()
