"""The address table: how one compiled play loop per game calls any plug-in.

A plug-in build's dispatchers do not call the plug-ins by name (Numba would compile the whole
play loop again for every plug-in, and again at every edit of one: 46 s on the 2-core machine).
They read the address of the plug-in's compiled decision from a table of this process and call
it there, with Numba's own calling convention.  The table is a C array the process registers
with LLVM under one symbol name, so the play loop's machine code, cached on disk, finds this
process's table when it is loaded.  A plug-in (by content) gets one row of it for the life of
the process, and its seats the strategy id ``PLUGIN_BASE + row``; its functions are compiled
on their own, for the argument types the game declares (``PLUGIN_TYPES`` of its strategies
module), and cached like any kernel.
"""
from __future__ import annotations

import threading
from pathlib import Path
from types import ModuleType

from simcore.errors import BalanceError, numba_reason
from simcore.plugins.loading import Plugin, decision_source, fresh_load, load_plugin, module_name

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


def address_intrinsics() -> dict:
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
        source = decision_source(fn, plugin.path, f"choose_{decision}")
        # cached by Numba beside the plug-in builds (NUMBA_CACHE_DIR), keyed on the file and its
        # time stamp; without reference counts unless the plug-in allocates (simcore/jit.py): with
        # them every call takes and gives back one on each array argument, a tenth of BIRD &
        # WEATHER's plug-in runs
        try:
            try:
                compiled = njit(signature, cache=True, _nrt=False)(source)
            except NumbaError:  # it allocates (Numba finds no np.zeros ... without them), or does not compile:
                # from a fresh load, since its own @njit helpers keep a failed compile for good
                again = fresh_load(plugin)
                source = decision_source(getattr(again, f"choose_{decision}"), plugin.path, f"choose_{decision}")
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


def loaded(path: str | Path) -> Plugin:
    """The plug-in of this file as this process first loaded it (the same module, so the same
    row of the address table), or a fresh load."""
    path = Path(path)
    if path.is_file():
        row = _ROW_OF.get(module_name(path))
        if row is not None:
            return _ROWS[row]
    return load_plugin(path)
