"""The one place kernels get their Numba decorator: ``@kernel(globals())`` is njit with the
on-disk cache: one folder per game and one for the common helpers, each keyed on the sources its
compiled code depends on (``simcore.cache.group_cache_dir``), so editing one game recompiles that
game alone.  Plug-in builds are copies of a game's files in a folder of their own
(``simcore/plugins.py``), cached in ``NUMBA_CACHE_DIR`` (set in ``simcore/cache.py``).

It also sets the one LLVM code-generation option the kernels want (before anything compiles:
every kernel module imports this one).  LLVM's x86 "cmov conversion" turns a select inside a loop
back into a branch when it guesses the branch predictable.  In the play loops it rarely is: which
card a random seat plays, which seat leads, whether a field follows.  With the pass off, Chimera's
random games run 1.12x and its heuristic's 1.24x as fast, 10 TRICKS LATER's random 1.04x; BIRD &
WEATHER, ALEA and TriATri are unchanged (BENCHMARKS.md, 2026-11-27).  It changes the machine code
only, never a result."""
import platform

from llvmlite import binding as llvm
from numba import njit

from simcore.cache import install_group_locator

if platform.machine().lower() in ("x86_64", "amd64"):
    llvm.set_option("balance", "-x86-cmov-converter=false")


def _known_source(function, hashes: set) -> str | None:
    """``function``'s source if it is the one read here (its SHA-1 in ``hashes``), else None."""
    import hashlib
    import inspect

    try:
        source = inspect.getsource(function)
    except (OSError, TypeError):
        return None
    return source if hashlib.sha1(source.encode()).hexdigest() in hashes else None


# Numba's copy propagation (numba.core.ir_utils.copy_propagate, run by the parallel loop's passes)
# deep-copies its table of copies at every round of its fixed point: a dict of label -> set of
# (name, name) pairs of strings, for which a copy of each set is the same thing.  On a play loop
# with its callees inlined that deep copy was a quarter of the first compile (TriATri's from an
# empty cache: 21.5 s -> 16.8 s; BENCHMARKS.md, 2026-11-29).  Numba's own function runs, with
# only that copy made plainly; on a Numba whose function is not the one read here nothing changes.
COPY_PROPAGATE_SOURCES = {"1a90423ce674489b91d5160d7de74135ce4a9f62"}  # numba 0.68.1


class _SetTableCopy:
    @staticmethod
    def deepcopy(table: dict) -> dict:
        return {label: set(copies) for label, copies in table.items()}


def _plain_copy_propagate() -> bool:
    import types

    from numba.core import ir_utils
    from numba.parfors import parfor

    original = ir_utils.copy_propagate
    if _known_source(original, COPY_PROPAGATE_SOURCES) is None or parfor.copy_propagate is not original:
        return False
    plain = types.FunctionType(original.__code__, {**vars(ir_utils), "copy": _SetTableCopy}, original.__name__,
                               original.__defaults__, original.__closure__)
    plain.__doc__ = original.__doc__
    ir_utils.copy_propagate = parfor.copy_propagate = plain
    return True


PLAIN_COPY_PROPAGATE = _plain_copy_propagate()


# Numba's IR inliner (``InlineWorker.inline_ir``, for every ``inline="always"`` call) copies the
# callee's blocks one deep copy each, so each block gets its own copy of the function's whole
# scope: work that grows with blocks x variables, twice per inlined call.  With one memo for all
# the blocks they share one copied scope, as the blocks they copy share one (first compile from
# an empty cache: Chimera's 23.9 s -> 15.4 s, ALEA's 22.4 s -> 15.2 s; BENCHMARKS.md, 2026-11-29).
# Numba's function with that one line changed, only on the Numba whose source was read here.
INLINE_IR_SOURCES = {"10d32b87fa025ae2c322724ae6ceca139a0a25ef"}  # numba 0.68.1
_PER_BLOCK_COPY = """        for block_label, block in the_ir.blocks.items():
            new_block = copy.deepcopy(the_ir.blocks[block_label])"""
_ONE_MEMO_COPY = """        memo = {}
        for block_label, block in the_ir.blocks.items():
            new_block = copy.deepcopy(the_ir.blocks[block_label], memo)"""


def _one_memo_inline() -> bool:
    import inspect
    import textwrap

    from numba.core import inline_closurecall

    original = inline_closurecall.InlineWorker.inline_ir
    source = _known_source(original, INLINE_IR_SOURCES)
    if source is None or textwrap.dedent(source).count(_PER_BLOCK_COPY) != 1:
        return False
    namespace = dict(vars(inline_closurecall))
    changed = textwrap.dedent(source).replace(_PER_BLOCK_COPY, _ONE_MEMO_COPY)
    exec(compile(changed, inspect.getsourcefile(original), "exec"), namespace)
    namespace["inline_ir"].__qualname__ = original.__qualname__
    inline_closurecall.InlineWorker.inline_ir = namespace["inline_ir"]
    return True


ONE_MEMO_INLINE = _one_memo_inline()

# each game's compiled code in a cache folder of its own, keyed on what it depends on
install_group_locator()


def kernel(namespace: dict, refcounts: bool | None = None, **options):
    """``@kernel(globals())``: njit, cached on disk.

    ``refcounts=False`` compiles the function without Numba's reference counting (NRT, its
    ``_nrt`` flag).  Numba otherwise takes a reference on every array argument when a compiled
    function starts and gives it back when it returns, two atomic instructions each: a greedy
    Chimera decision spent more time on them than on choosing (BENCHMARKS.md, 2026-11-27).  Such
    a function must not allocate (Numba refuses to compile ``np.empty`` in it).  A function
    called from it takes its setting unless it names its own, so a callee that allocates (a
    search player, a plug-in) says ``refcounts=True``."""
    if refcounts is not None:
        options["_nrt"] = refcounts
    return njit(**{"cache": True, **options})
