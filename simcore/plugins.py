"""User strategies from a file (``--plugin my_strategy.py``), compiled into the kernel.

A plug-in file names its game and strategy and defines compiled decision
functions with the signatures of the built-ins (docs/strategies.md)::

    GAME = "bird-weather"
    NAME = "lowball"

    @njit
    def choose_play(params, seat, hand, legal, seen, table, number, follow, rules, streams): ...

A play loop that called the user's functions by name would be compiled again
for every plug-in and at every edit of one, since Numba links a callee's code
into its caller.  Instead each game has one plug-in build: copies of its
strategy and play-loop files whose ``plugin_*`` dispatchers call a plug-in's
decision at an address read from a table of this process (``build_dispatch``,
``plugin_row``).  The copies are written to a folder of the compile cache named
by a hash of the engine sources (``plugin_build``), so Numba caches the build
like any other kernel: it is compiled once per machine, whatever the plug-ins.
A plug-in's own functions are compiled alone, for the argument types the game
declares (``PLUGIN_TYPES``), and cached too; an edit compiles only them.  The
stock modules and their cache are untouched.  Cost measured in BENCHMARKS.md.

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
import threading
from dataclasses import dataclass, replace
from pathlib import Path
from types import ModuleType

from simcore.errors import BalanceError, numba_reason


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


def _module_name(path: Path) -> str:
    """A plug-in's module name: named by its contents, not its place (a Dask worker loads the same
    source from another path, and the compiled code Numba caches refers to the module by name)."""
    return f"balance_plugin_{path.stem}_{hashlib.sha1(path.read_bytes()).hexdigest()[:10]}"


def _loaded(path: str | Path) -> Plugin:
    """The plug-in of this file as this process first loaded it (the same module, so the same
    row of the address table), or a fresh load."""
    path = Path(path)
    if path.is_file():
        row = _ROW_OF.get(_module_name(path))
        if row is not None:
            return _ROWS[row]
    return load_plugin(path)


def load_plugin(path: str | Path) -> Plugin:
    path = Path(path)
    if not path.is_file():
        raise BalanceError(f"plug-in file not found: {path}")
    name = _module_name(path)
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
    from numba.core.registry import CPUDispatcher

    if isinstance(fn, CPUDispatcher):
        return fn.py_func
    if not callable(fn):
        raise BalanceError(f"plug-in {path}: {decision} must be a function")
    return fn


# --------------------------------------------------------------------------------------------
# the address table: how one compiled play loop per game calls any plug-in
# --------------------------------------------------------------------------------------------
#
# A plug-in build's dispatchers do not call the plug-ins by name (Numba would compile the whole
# play loop again for every plug-in, and again at every edit of one: 46 s on the 2-core machine).
# They read the address of the plug-in's compiled decision from a table of this process and call
# it there, with Numba's own calling convention.  The table is a C array the process registers
# with LLVM under one symbol name, so the play loop's machine code, cached on disk, finds this
# process's table when it is loaded.  A plug-in (by content) gets one row of it for the life of
# the process, and its seats the strategy id ``PLUGIN_BASE + row``; its functions are compiled
# on their own, for the argument types the game declares (``PLUGIN_TYPES`` of its strategies
# module), and cached like any kernel.

ROW_WIDTH = 8  # decisions a game may offer plug-ins
MAX_ROWS = 4096  # plug-ins (by content) one process may load
TABLE_SYMBOL = "balance_plugin_rows"

_TABLE = None
_ROW_OF: dict[str, int] = {}  # plug-in module name (its contents' hash) -> its row of the table
_ROWS: dict[int, Plugin] = {}  # row -> the plug-in as first loaded
_KEEP: list = []  # the compiled decisions the table points to, kept alive for the process


def _address_table():
    """This process's table of plug-in addresses (zeroed; 0 = the plug-in leaves that decision
    to the random player), registered with LLVM before any play loop that reads it is loaded."""
    global _TABLE
    if _TABLE is None:
        import ctypes

        from llvmlite import binding as llvm

        _TABLE = (ctypes.c_int64 * (ROW_WIDTH * MAX_ROWS))()
        llvm.add_symbol(TABLE_SYMBOL, ctypes.addressof(_TABLE))
    return _TABLE


_INTRINSICS: dict = {}


def _address_intrinsics() -> dict:
    """``plugin_address(i)``: entry i of the table; ``address_caller(declared)``: an intrinsic that
    calls the address it is given as a compiled function of the ``declared`` argument types."""
    if _INTRINSICS:
        return _INTRINSICS
    from llvmlite import ir
    from numba import types
    from numba.core import cgutils
    from numba.core.errors import TypingError
    from numba.extending import intrinsic

    _address_table()

    @intrinsic
    def plugin_address(typingctx, index):
        def codegen(context, builder, signature, args):
            table = builder.module.globals.get(TABLE_SYMBOL)
            if table is None:  # declared here, defined by this process (_address_table)
                table = ir.GlobalVariable(builder.module, ir.ArrayType(ir.IntType(64), ROW_WIDTH * MAX_ROWS),
                                          TABLE_SYMBOL)
                table.linkage = "external"
            at = builder.gep(table, [ir.Constant(ir.IntType(32), 0), args[0]])
            return builder.load(at)
        return types.int64(types.intp), codegen

    def address_caller(decision: str, declared: tuple):
        @intrinsic
        def call_at(typingctx, address, *args):
            given = tuple(args[0].types if len(args) == 1 and isinstance(args[0], types.StarArgTuple) else args)
            if not _passes(given, declared):
                raise TypingError(f"choose_{decision}: the play loop passes ({', '.join(map(str, given))}) "
                                  f"but the game's PLUGIN_TYPES declares ({', '.join(map(str, declared))})")

            def codegen(context, builder, signature, llargs):
                values = cgutils.unpack_tuple(builder, llargs[1])
                # a number converted as Numba converts any argument; an array, of the declared
                # type (_passes), as it is
                values = [context.cast(builder, v, g, d) if isinstance(d, types.Number) else v
                          for v, g, d in zip(values, given, declared)]
                callee = context.call_conv.get_function_type(types.int64, declared)
                callee = builder.inttoptr(llargs[0], callee.as_pointer())
                status, answer = context.call_conv.call_function(builder, callee, types.int64, declared, values)
                with cgutils.if_unlikely(builder, status.is_error):
                    context.call_conv.return_status_propagate(builder, status)
                return answer
            return types.int64(address, types.StarArgTuple(given)), codegen
        return call_at

    _INTRINSICS.update(plugin_address=plugin_address, address_caller=address_caller)
    return _INTRINSICS


def _passes(given: tuple, declared: tuple) -> bool:
    """Whether arguments of the ``given`` types can be handed to a function compiled for the
    ``declared`` ones: the same types, or an integer where another integer type is declared
    (converted)."""
    from numba import types

    if len(given) != len(declared):
        return False
    for g, d in zip(given, declared):
        if g == d:
            continue
        if isinstance(g, types.Integer) and isinstance(d, types.Integer):
            continue  # a mask or a seat passed as another integer type (a call from Python)
        return False
    return True


def declared_types(strategies: ModuleType) -> dict[str, tuple]:
    """The argument types of each decision a plug-in may make (``PLUGIN_TYPES`` of the game's
    strategies module, Numba's signature notation), as Numba types."""
    import numba
    from numba import types

    if not isinstance(getattr(strategies, "PLUGIN_TYPES", None), dict):
        raise BalanceError(f"{strategies.__name__} declares no PLUGIN_TYPES: its game takes no plug-ins")
    names = {name: getattr(types, name) for name in dir(types) if not name.startswith("_")}
    declared = {}
    for decision in strategies.PLUGIN_DECISIONS:
        text = strategies.PLUGIN_TYPES[decision]
        value = eval(f"({text},)", {"__builtins__": {}, "numba": numba, **names})  # the game's own constant
        declared[decision] = tuple(value)
    return declared


def plugin_row(plugin: Plugin, strategies: ModuleType) -> int:
    """The plug-in's row of the address table, its decisions compiled (cached on disk, keyed on the
    file's contents) and their addresses written there on first use in this process."""
    with _ROW_LOCK:  # line-ups made on several threads (the API) take rows one at a time
        return _plugin_row(plugin, strategies)


_ROW_LOCK = threading.Lock()


def _plugin_row(plugin: Plugin, strategies: ModuleType) -> int:
    if plugin.module.__name__ in _ROW_OF:
        return _ROW_OF[plugin.module.__name__]
    from numba import njit, types
    from numba.core.errors import NumbaError
    from numba.experimental.function_type import _get_jit_address

    table = _address_table()
    row = len(_ROW_OF)
    if row >= MAX_ROWS:
        raise BalanceError(f"one process can load at most {MAX_ROWS} different plug-ins")
    for d, (decision, argument_types) in enumerate(declared_types(strategies).items()):
        fn = getattr(plugin.module, f"choose_{decision}", None)
        if fn is None:
            continue  # the random player's choice (the dispatcher's fallback)
        signature = types.int64(*argument_types)
        source = _compiled(fn, plugin.path, f"choose_{decision}")
        # cached by Numba beside the plug-in builds (NUMBA_CACHE_DIR), keyed on the file and its
        # time stamp; without reference counts unless the plug-in allocates (simcore/jit.py): with
        # them every call takes and gives back one on each array argument, a tenth of BIRD &
        # WEATHER's plug-in runs
        try:
            try:
                compiled = njit(signature, cache=True, _nrt=False)(source)
            except NumbaError:  # it allocates (Numba finds no np.zeros ... without them), or does not compile:
                # from a fresh load, since its own @njit helpers keep a failed compile for good
                again = _fresh_load(plugin)
                source = _compiled(getattr(again, f"choose_{decision}"), plugin.path, f"choose_{decision}")
                compiled = njit(signature, cache=True, _nrt=True)(source)
        except NumbaError as exc:
            raise BalanceError(f"plug-in {plugin.path}: choose_{decision} does not compile with Numba for the "
                               f"game's arguments ({strategies.PLUGIN_TYPES[decision]}) and an integer answer: "
                               f"{numba_reason(exc)}") from None
        _KEEP.append(compiled)
        table[row * ROW_WIDTH + d] = _get_jit_address(compiled, signature)
    _ROW_OF[plugin.module.__name__] = row
    _ROWS[row] = plugin
    return row


def _fresh_load(plugin: Plugin) -> ModuleType:
    """The plug-in's file executed again (new compiled helpers), under the same module name: the
    compiled code Numba caches names its module, and every process that loads the plug-in has
    that one."""
    spec = importlib.util.spec_from_file_location(plugin.module.__name__, plugin.module.__file__)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


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

    helpers = _check_helpers()
    intrinsics = _address_intrinsics()
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
            lines += _checked_source(decision, d, args, names, n_params, scratch)
        lines.append(f"def plugin_{decision}(k, {args}):")
        if checks:
            lines.append(f"    if params.shape[1] > {n_params}:\n        return checked_{decision}(k, {args})")
        lines.append(f"    return plain_{decision}(k, {args})")
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
    """The play loop of ``kernels`` with the plug-in dispatchers wired into ``strategies``:
    built once per process and compiled once per machine for every plug-in of the game
    (``build_dispatch``); ``plugins`` get their rows of the address table (``plugin_row``).

    ``random_seats`` (every seat that is not a plug-in is random, as in docs/strategies.md's
    examples): the dispatch knows only the plug-ins and the random player, so no heuristic or
    search code is linked into the loop (the random build's idea, simcore/builds.py;
    BENCHMARKS.md, "The first command").  The same branches the full dispatch takes for those
    seats, so the same rows (tests/test_builds.py)."""
    from simcore.cache import CACHE_ROOT, FINGERPRINT

    for plugin in plugins:
        plugin_row(plugin, strategies)
    key = hashlib.sha1(f"{FINGERPRINT}:{strategies.__name__}:{kernels.__name__}".encode()).hexdigest()[:16]
    built = f"{key}-random" if random_seats else key
    if built not in _BUILDS:
        folder = CACHE_ROOT / "plugin-builds" / key
        injected = build_dispatch(decisions, strategies)
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
        kernel_copy.__balance_plugin_build__ = True
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
    if not getattr(lineup.kernels, "__balance_plugin_build__", False):
        return {}
    strategies = game.strategy_module()
    # named as this line-up names them: the same file loaded by another path shares its row
    plugins = [replace(_loaded(path), path=str(path)) for path in lineup.plugins]
    rows = [plugin_row(p, strategies) for p in plugins]
    key = (tuple(rows), lineup.kernels.__name__, game.name, setup.players, logs, _rules_digest(setup))
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
