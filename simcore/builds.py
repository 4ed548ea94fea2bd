"""A play loop that compiles only the player a line-up of random seats uses.

The game's stock kernel module compiles every built-in player into its play loop: the dispatch
(``choose_play`` and the game's other decisions) names the greedy, heuristic and search players,
so Numba types and compiles all of them the first time the loop runs, even for four random
seats.  A newcomer's first command (``balance simulate GAME``) seats random players and would
wait for code it never runs: on the 2-core machine BIRD & WEATHER's stock play loop took 134 s
to compile from an empty cache, its random build 41 s (BENCHMARKS.md, "The first command").

``random_build`` is a copy of the game's kernel module (``simcore.codegen.module_copy``, as a
plug-in build is) whose strategies module is the stock one with each ``choose_<decision>``
replaced by the random player's own ``random_<decision>``: the branch the stock dispatch takes
for a random seat, so the rows are the same bit for bit (tests/engine/test_builds.py).  It is kept, with
its compiled code, in a folder of the compile cache named by the game's group fingerprint
(``simcore/cache.py``), so only the first process on a machine compiles it and editing another
game leaves it compiled; the play-loop functions that cannot reach a decision (``deal_openings`` ...)
stay the stock ones (``simcore.codegen.reuse_stock``).  ``Game.lineup`` picks it for a line-up of
random seats without plug-ins; any other line-up gets the stock module.

The random strategies module also says ``RANDOM_ONLY = True``.  A play loop with a branch of its
own for all-random seats (TriATri, Chimera Tricks) tests that constant first, and Numba prunes
the other branch before it inlines ``play_game`` into the play loop: half the compile.  Where
the all-random branch leaves a rule out (Chimera's withheld card), ``Game.random_build_plays``
sends those rules to the stock loop."""
from __future__ import annotations

import contextlib
from pathlib import Path
from types import ModuleType

_BUILDS: dict[str, ModuleType] = {}
_STOCK_ONLY = [False]  # inside ``stock_loops()``


@contextlib.contextmanager
def stock_loops():
    """Within the block a line-up of random seats plays the stock loop, as every other line-up
    does (the same rows: tests/engine/test_builds.py).  For a command that compiles every game's stock
    loop anyway (``balance book`` with its skill tiers), where a random build would be one more
    compile of each game for nothing: on a fresh clone that is most of a minute of ``make demo``."""
    before = _STOCK_ONLY[0]
    _STOCK_ONLY[0] = True
    try:
        yield
    finally:
        _STOCK_ONLY[0] = before


def random_builds_wanted() -> bool:
    """Whether ``Game.lineup`` gives a line-up of random seats the random build (outside
    ``stock_loops``)."""
    return not _STOCK_ONLY[0]


def random_strategies(strategies: ModuleType) -> ModuleType:
    """The stock strategies module's names, its decisions made by the random player alone."""
    from simcore.codegen import random_dispatch

    lean = random_dispatch(strategies, f"{strategies.__name__}_random")
    lean.RANDOM_ONLY = True  # the play loop's branch for other players is not compiled (kernels' RANDOM_ONLY)
    return lean


def random_build(strategies: ModuleType, kernels: ModuleType) -> ModuleType:
    """The play loop of ``kernels`` with random players only: built once per process, compiled
    once per machine and engine (see the module docstring)."""
    from simcore.cache import BUILDS_ROOT, group_fingerprint, source_group
    from simcore.codegen import bound_to, module_copy, reuse_stock

    group = source_group(Path(kernels.__file__))  # the game's folder name: bird_weather ...
    key = f"{group}-{group_fingerprint(group)}"
    if key not in _BUILDS:
        lean = random_strategies(strategies)
        folder = BUILDS_ROOT / key
        copy = module_copy(kernels, folder, f"kernel_random_{key.replace('-', '_')}", {"__strategies__": lean})
        decisions = {f"choose_{decision}" for decision in strategies.PLUGIN_DECISIONS}
        # the play loop's names bound to a replaced decision (choose_play ...)
        bound = bound_to(copy, [getattr(lean, d) for d in decisions])
        reuse_stock(copy, kernels, bound | {"strategy", "__strategies__"})
        copy.__balance_cache__ = folder / "__pycache__"  # where its compiled code is kept
        copy.__balance_random__ = True  # the first run's progress line says the random build's compile time
        _BUILDS[key] = copy
    return _BUILDS[key]
