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
"""
from __future__ import annotations

import hashlib
import importlib.util
import os
import sys
from dataclasses import dataclass
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
    """
    from numba import njit

    injected = {}
    for decision, args in decisions.items():
        namespace = {"fallback": getattr(fallback_module, f"random_{decision}")}
        lines = [f"def plugin_{decision}(k, {args}):"]
        for k, plugin in enumerate(plugins):
            fn = getattr(plugin.module, f"choose_{decision}", None)
            target = "fallback" if fn is None else f"p{k}"
            if fn is not None:
                namespace[f"p{k}"] = _compiled(fn, plugin.path, f"choose_{decision}")
            lines.append(f"    if k == {k}:\n        return {target}({args})")
        lines.append(f"    return fallback({args})")
        exec("\n".join(lines), namespace)  # generated from our own argument lists only
        # with reference counts (Numba's _nrt), even behind a dispatch compiled without them: a
        # plug-in may allocate (simcore/jit.py)
        injected[f"plugin_{decision}"] = njit(_nrt=True)(namespace[f"plugin_{decision}"])
    return injected


_BUILDS: dict[str, ModuleType] = {}


def plugin_build(strategies: ModuleType, kernels: ModuleType, plugins: list[Plugin], decisions: dict) -> ModuleType:
    """The play loop of ``kernels`` with ``plugins`` wired into ``strategies``' dispatch: built
    once per process, compiled once per machine (see the module docstring)."""
    from simcore.cache import CACHE_ROOT, FINGERPRINT

    digest = hashlib.sha1(FINGERPRINT.encode())
    for plugin in plugins:
        digest.update(plugin.name.encode() + b"\0" + Path(plugin.path).read_bytes() + b"\0")
    key = digest.hexdigest()[:16]
    if key not in _BUILDS:
        folder = CACHE_ROOT / "plugin-builds" / key
        injected = build_dispatch(decisions, plugins, strategies)
        strategy_copy = module_copy(strategies, folder, f"strategies_{key}", injected)
        changed = reuse_stock(strategy_copy, strategies, set(injected))
        kernel_copy = module_copy(kernels, folder, f"kernel_{key}", {"__strategies__": strategy_copy})
        # the play loop's names bound to a strategy function the plug-ins reach (choose_play ...)
        bound = {name for name, value in vars(kernel_copy).items()
                 if any(value is getattr(strategy_copy, f, None) for f in changed)}
        reuse_stock(kernel_copy, kernels, bound | {"strategy", "__strategies__"})
        _BUILDS[key] = kernel_copy
    return _BUILDS[key]


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
