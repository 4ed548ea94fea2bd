"""The code the engine writes while it runs, all of it here.

Three kinds of build play a game with other players compiled in than its stock play loop: a
plug-in build (``simcore.plugins.dispatch``), the random build (``simcore.builds``) and a rules
file's hooked build (``simcore/games/trick/game.py``).  Each is a *copy* of the game's kernel
and strategies files (``module_copy``), executed with a few globals put in first
(``__strategies__``, ``__hooks__``), so that Numba compiles and caches the copy like any kernel
without the stock modules or their cache being touched.  Only the copy's functions that reach a
replaced name are compiled again; the others are the stock compiled functions
(``reuse_stock``).

The functions put in are written from the game's own argument lists (its strategies module's
``PLUGIN_DECISIONS``), never from a user's text: ``generated`` executes such source and
``choose_dispatch`` writes a build's ``choose_<decision>``.
"""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType


def generated(source: str, namespace: dict) -> dict:
    """Execute ``source``, function definitions the engine wrote from a game's own argument
    lists, in ``namespace``; returns the namespace with the functions defined."""
    exec(source, namespace)
    return namespace


def choose_dispatch(strategies: ModuleType, decision: str, plugin=None):
    """A build's ``choose_<decision>(strategy, *args)``, inlined like the stock dispatch it
    replaces: the random player's choice (``random_<decision>`` of ``strategies``) for every seat,
    or, given ``plugin`` (a plug-in dispatcher ``plugin_<decision>(k, *args)``), for a seat of id
    RANDOM, and the plug-in of row ``strategy - PLUGIN_BASE`` for any other seat."""
    from numba import njit

    args = strategies.PLUGIN_DECISIONS[decision]
    namespace = {f"random_{decision}": getattr(strategies, f"random_{decision}")}
    if plugin is None:
        source = f"def choose_{decision}(strategy, {args}):\n    return random_{decision}({args})"
    else:
        namespace.update({f"plugin_{decision}": plugin, "RANDOM": strategies.RANDOM,
                          "PLUGIN_BASE": strategies.PLUGIN_BASE})
        source = (f"def choose_{decision}(strategy, {args}):\n"
                  f"    if strategy == RANDOM:\n        return random_{decision}({args})\n"
                  f"    return plugin_{decision}(strategy - PLUGIN_BASE, {args})")
    return njit(inline="always")(generated(source, namespace)[f"choose_{decision}"])


def random_dispatch(strategies: ModuleType, name: str, plugins: dict | None = None) -> ModuleType:
    """A module of the stock strategies module's names whose decisions the random player makes
    (``choose_dispatch``), or, given the plug-in dispatchers (``plugin_<decision>`` by name), the
    random player for a seat of id RANDOM and the plug-ins for every other seat."""
    module = ModuleType(name)
    module.__dict__.update({key: value for key, value in vars(strategies).items() if not key.startswith("__")})
    module.__dict__.update(plugins or {})
    for decision in strategies.PLUGIN_DECISIONS:
        plugin = plugins[f"plugin_{decision}"] if plugins else None
        setattr(module, f"choose_{decision}", choose_dispatch(strategies, decision, plugin))
    return module


def module_copy(module: ModuleType, folder: Path, name: str, injected: dict) -> ModuleType:
    """Execute a copy of ``module``'s file, kept as ``folder/<name>.py``, as a new module with
    ``injected`` globals set first.  The file is written once (atomically): its unchanged time
    stamp is what lets Numba's cache find the compiled copy again."""
    from simcore.outputs import write_atomic

    path = folder / f"{name}.py"
    source = Path(module.__file__).read_bytes()
    if not path.is_file() or path.read_bytes() != source:
        folder.mkdir(parents=True, exist_ok=True)
        write_atomic(path, source)
    spec = importlib.util.spec_from_file_location(name, path)
    copy = importlib.util.module_from_spec(spec)
    copy.__dict__.update(injected)
    sys.modules[name] = copy
    spec.loader.exec_module(copy)
    return copy


def _names_used(code) -> set[str]:
    """The global and attribute names a function's code (and the code nested in it) refers to."""
    names = set(code.co_names)
    for const in code.co_consts:
        if hasattr(const, "co_names"):
            names |= _names_used(const)
    return names


def reuse_stock(copy: ModuleType, stock: ModuleType, reaches: set[str]) -> set[str]:
    """In a build's ``copy`` of ``stock``, put back the stock compiled function for every
    function that cannot reach a name in ``reaches`` (the replaced dispatch), directly or
    through other functions of the copy: the same source, so the same machine code, but already
    in the compile cache.  Only the functions on a path to a replaced name are compiled for the
    build (the heuristics and the search are not compiled again).  Returns the names kept as
    copies."""
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


def bound_to(copy: ModuleType, functions) -> set[str]:
    """The names of ``copy``'s globals bound to one of ``functions`` (a play loop's
    ``choose_play = __strategies__.choose_play`` ...): what ``reuse_stock`` must keep."""
    return {name for name, value in vars(copy).items() if any(value is f for f in functions)}
