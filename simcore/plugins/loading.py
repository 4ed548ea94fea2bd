"""A plug-in file loaded as a module: named by its contents, checked for ``GAME`` and ``NAME``."""
from __future__ import annotations

import hashlib
import importlib.util
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


def module_name(path: Path) -> str:
    """A plug-in's module name: named by its contents, not its place (a Dask worker loads the same
    source from another path, and the compiled code Numba caches refers to the module by name)."""
    return f"balance_plugin_{path.stem}_{hashlib.sha1(path.read_bytes()).hexdigest()[:10]}"


def load_plugin(path: str | Path) -> Plugin:
    path = Path(path)
    if not path.is_file():
        raise BalanceError(f"plug-in file not found: {path}")
    name = module_name(path)
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


def fresh_load(plugin: Plugin) -> ModuleType:
    """The plug-in's file executed again (new compiled helpers), under the same module name: the
    compiled code Numba caches names its module, and every process that loads the plug-in has
    that one."""
    spec = importlib.util.spec_from_file_location(plugin.module.__name__, plugin.module.__file__)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def decision_source(fn, path: str, decision: str):
    """The Python function of a plug-in's decision (a Numba dispatcher's own), to compile for
    the game's declared argument types."""
    from numba.core.registry import CPUDispatcher

    if isinstance(fn, CPUDispatcher):
        return fn.py_func
    if not callable(fn):
        raise BalanceError(f"plug-in {path}: {decision} must be a function")
    return fn
