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

_FREED_PAGES_KEPT = False


def keep_freed_pages() -> None:
    """Once per process, on glibc: keep freed memory mapped so the next chunk's outputs reuse it
    (``share_out`` asks first, so every game's chunks, on any executor, have it).

    By default glibc hands an array of more than 128 KiB (up to 32 MiB, as it adapts) back to the
    kernel when it is freed, and trims the heap's free top. Every chunk then gets fresh pages for
    its output arrays, and the play loop's threads fault each one in as they write their rows.
    Those faults do not run in parallel: at 2 threads a BIRD & WEATHER chunk of 262,144 games
    took 75-77 ms against the compiled loop's 58 ms, and its 1 -> 2 thread speed-up fell from the
    loop's 2.0x to 1.6-1.7x (docs/perf-notes/2026-11-29-chunks-side-by-side-each-thread.md). With the thresholds raised, chunks
    reuse the same pages (60.5 ms).
    Nothing else changes: same rows, and the peak memory is the same (freed pages are kept, up
    to 256 MiB, not added)."""
    global _FREED_PAGES_KEPT
    if _FREED_PAGES_KEPT:
        return
    _FREED_PAGES_KEPT = True
    import ctypes
    import platform

    if platform.system() != "Linux" or platform.libc_ver()[0] != "glibc":
        return
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return
    m_trim_threshold, m_mmap_threshold = -1, -3  # <malloc.h>
    mallopt(m_mmap_threshold, 32 << 20)  # glibc's largest (HEAP_MAX_SIZE / 2 on 64-bit)
    mallopt(m_trim_threshold, 256 << 20)


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

    keep_freed_pages()
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
