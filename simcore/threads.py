"""A chunk's games shared out among threads: the one way every game's play loop runs in parallel.

Each game's compiled ``run_chunk`` is one thread's serial loop, compiled ``nogil`` (no Numba
``parallel=True``, whose loop passes over a whole inlined game made first compiles slow).  It
plays games ``first..last-1`` of a chunk into the same rows of the chunk's output arrays, so the
threads here each play a contiguous share into rows of their own.  Every game depends only on
(seed, game index), so the rows are those of one thread whatever the thread count.

An output that is a tally over the chunk's games rather than a row a game (Sky City's trap
tallies) is given to each thread but the first as a zeroed copy of its own, and the copies are
added after: whole numbers, so the totals are the same for any thread count.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

MIN_GAMES_A_THREAD = 256  # a smaller share is not worth a thread's start
_POOL = []


def _players():
    """The threads that play a chunk's shares (as many as Numba may use), made once a process."""
    if not _POOL:
        import numba
        from concurrent.futures import ThreadPoolExecutor

        _POOL.append(ThreadPoolExecutor(numba.config.NUMBA_NUM_THREADS, thread_name_prefix="balance-play"))
    return _POOL[0]


def share_out(run: Callable, n: int, outputs: Sequence[np.ndarray], tallies: Sequence[int] = ()) -> None:
    """``run(first, last, outputs)`` for shares of games 0..n-1 on as many threads as Numba may
    use here (``numba.set_num_threads``: ``--threads``, this thread's own setting), the calling
    thread playing the first share.  ``tallies``: the positions in ``outputs`` that are summed
    over the games, not written one row a game."""
    import numba

    threads = max(1, min(numba.get_num_threads(), n // MIN_GAMES_A_THREAD))
    if threads == 1:
        run(0, n, tuple(outputs))
        return
    bounds = [n * k // threads for k in range(threads + 1)]
    own = [tuple(np.zeros_like(o) if i in tallies and k else o for i, o in enumerate(outputs))
           for k in range(threads)]
    futures = [_players().submit(run, bounds[k], bounds[k + 1], own[k]) for k in range(1, threads)]
    try:
        run(bounds[0], bounds[1], own[0])
    finally:
        for future in futures:
            future.result()
    for i in tallies:
        for k in range(1, threads):
            np.add(outputs[i], own[k][i], out=outputs[i])
