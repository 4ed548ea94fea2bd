"""The game's plug-in dispatchers and the play loop built around them.

``build_dispatch`` writes the game's ``plugin_<decision>(k, *args)``: the decision of the plug-in
in row ``k`` of the address table (``simcore.plugins.table``), called at its address, with a
checking mode (``simcore.plugins.writes``).  ``plugin_build`` copies the game's strategies and
play-loop files with those dispatchers wired in (``simcore.codegen``), once per process, and
Numba compiles the copy once per machine for every plug-in of the game.
"""
from __future__ import annotations

import hashlib
from types import ModuleType

from simcore.codegen import bound_to, generated, module_copy, random_dispatch, reuse_stock
from simcore.errors import BalanceError
from simcore.plugins.loading import Plugin
from simcore.plugins.table import ROW_WIDTH, address_intrinsics, declared_types, plugin_row
from simcore.plugins.writes import check_helpers, checked_source, scratch_areas

def build_dispatch(decisions: dict[str, str], fallback_module: ModuleType) -> dict:
    """Make the game's ``plugin_<decision>(k, *args)`` dispatchers: the decision of the plug-in in
    row ``k`` of the address table (``plugin_row``), called at its address.  ``decisions`` maps a
    decision name (``play``) to its argument list (``"params, seat, hand, ..."``).  A plug-in that
    leaves a decision out gets the built-in random choice for it
    (``fallback_module.random_<decision>``).  The same dispatchers serve every plug-in, so the
    play loop around them is compiled once per game and machine.

    Each dispatcher also has a checking mode, on when its ``params`` has more columns than the
    strategies' ``N_PARAMS`` (``check_writes`` passes such a matrix; a run never does, and the
    shape is not part of Numba's type, so nothing compiles twice).  In it the dispatcher copies
    every array argument before the call and compares after it: a change anywhere but the seat's
    own random stream (``streams``) and the scratch areas the strategies module declares
    (``PLUGIN_SCRATCH``, see ``scratch_areas``) is put back and noted in the seat's extra columns
    (``CHECK_COLUMNS``).  Off, it costs one comparison per plug-in decision.
    """
    from numba import njit

    helpers = check_helpers()
    intrinsics = address_intrinsics()
    declared = declared_types(fallback_module)
    n_params = getattr(fallback_module, "N_PARAMS", None)
    scratch = scratch_areas(fallback_module)
    if len(decisions) > ROW_WIDTH:
        raise BalanceError(f"a game may offer plug-ins at most {ROW_WIDTH} decisions")
    injected = {}
    for d, (decision, args) in enumerate(decisions.items()):
        names = [a.strip() for a in args.split(",")]
        # a scratch area's bounds may be expressions over the game's constants (T_PLAY ...)
        namespace = {name: value for name, value in vars(fallback_module).items() if not name.startswith("__")}
        namespace.update(fallback=getattr(fallback_module, f"random_{decision}"), **helpers,
                         plugin_address=intrinsics["plugin_address"],
                         call_at=intrinsics["address_caller"](decision, declared[decision]))
        checks = n_params is not None and "params" in names and "seat" in names
        lines = [f"def plain_{decision}(k, {args}):",
                 f"    address = plugin_address(k * {ROW_WIDTH} + {d})",
                 "    if address == 0:",
                 f"        return fallback({args})",
                 f"    return call_at(address, {args})"]
        if checks:
            lines += checked_source(decision, d, args, names, n_params, scratch)
        lines.append(f"def plugin_{decision}(k, {args}):")
        if checks:
            lines.append(f"    if params.shape[1] > {n_params}:\n        return checked_{decision}(k, {args})")
        lines.append(f"    return plain_{decision}(k, {args})")
        generated("\n".join(lines), namespace)
        # with reference counts (Numba's _nrt), even behind a dispatch compiled without them: a
        # plug-in may allocate (simcore/jit.py), and the check copies the arguments
        for name in ("plain", "checked"):
            if f"{name}_{decision}" in namespace:
                namespace[f"{name}_{decision}"] = njit(_nrt=True)(namespace[f"{name}_{decision}"])
        injected[f"plugin_{decision}"] = njit(_nrt=True)(namespace[f"plugin_{decision}"])
    return injected


_BUILDS: dict[str, ModuleType] = {}


def plugin_build(strategies: ModuleType, kernels: ModuleType, plugins: list[Plugin], decisions: dict,
                 random_seats: bool = False) -> ModuleType:
    """The play loop of ``kernels`` with the plug-in dispatchers wired into ``strategies``:
    built once per process and compiled once per machine for every plug-in of the game
    (``build_dispatch``); ``plugins`` get their rows of the address table (``plugin_row``).

    ``random_seats`` (every seat that is not a plug-in is random, as in docs/strategies.md's
    examples): the dispatch knows only the plug-ins and the random player, so no heuristic or
    search code is linked into the loop (the random build's idea, simcore/builds.py;
    BENCHMARKS.md, "The first command").  The same branches the full dispatch takes for those
    seats, so the same rows (tests/engine/test_builds.py)."""
    from simcore.cache import CACHE_ROOT, FINGERPRINT

    for plugin in plugins:
        plugin_row(plugin, strategies)
    key = hashlib.sha1(f"{FINGERPRINT}:{strategies.__name__}:{kernels.__name__}".encode()).hexdigest()[:16]
    built = f"{key}-random" if random_seats else key
    if built not in _BUILDS:
        folder = CACHE_ROOT / "plugin-builds" / key
        injected = build_dispatch(decisions, strategies)
        if random_seats:
            # the random player's decisions for a seat of id RANDOM, the plug-ins' for any other
            dispatch = random_dispatch(strategies, f"{strategies.__name__}_random_or_plugin", injected)
            kernel_copy = module_copy(kernels, folder, f"kernel_{key}_random", {"__strategies__": dispatch})
            decisions_reached = {f"choose_{decision}" for decision in strategies.PLUGIN_DECISIONS}
        else:
            dispatch = module_copy(strategies, folder, f"strategies_{key}", injected)
            decisions_reached = reuse_stock(dispatch, strategies, set(injected))
            kernel_copy = module_copy(kernels, folder, f"kernel_{key}", {"__strategies__": dispatch})
        # the play loop's names bound to a strategy function the plug-ins reach (choose_play ...)
        bound = bound_to(kernel_copy, [getattr(dispatch, f, None) for f in decisions_reached])
        reuse_stock(kernel_copy, kernels, bound | {"strategy", "__strategies__"})
        kernel_copy.__balance_plugin_build__ = True
        _BUILDS[built] = kernel_copy
    return _BUILDS[built]
