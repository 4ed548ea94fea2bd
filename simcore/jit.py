"""The one place kernels get their Numba decorator: ``@kernel(globals())`` is njit with the
on-disk cache: one folder per game and one for the common helpers, each keyed on the sources its
compiled code depends on (``simcore.cache.group_cache_dir``), so editing one game recompiles that
game alone.  Plug-in builds are copies of a game's files in a folder of their own
(``simcore/plugins/``), cached in ``NUMBA_CACHE_DIR`` (set in ``simcore/cache.py``).

Nothing here changes Numba: the compiler runs as it ships.  First compiles are short because of
the loops' shape (one thread's serial loop per game, no ``parallel=True``: simcore/threads.py),
not because of anything done to the compiler (BENCHMARKS.md, "One loop shape").

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
