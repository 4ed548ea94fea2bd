"""Compile several games' play loops at once, one process per game, before a command that needs
them all (``balance book``).

Numba compiles in the process that first calls a kernel and writes it to the disk cache when the
compile ends (simcore/cache.py: one cache folder per game).  A book on an empty cache used to
compile its five games one after another (about five minutes on a 2-core machine); compiling
them in as many processes as there are cores, each filling its own game's cache folder, lets
the book then load every play loop from disk.  A game whose play loop is already in the cache
(its marker, ``driver._compiled_marker``) is not started at all, so a warm cache costs nothing.

    python -m simcore.warm GAME [GAME ...]     (one process's share: compile these, in order)
"""
from __future__ import annotations

import os
import subprocess
import sys
import time

from simcore.driver import COMPILE_SECONDS, _compiled_marker, compile_kernels


def cold_games(names: list[str]) -> list[str]:
    """The games among ``names`` whose stock play loop this machine has not compiled yet."""
    from simcore.game import get_game

    cold = []
    for name in names:
        game = get_game(name)
        marker = _compiled_marker(game.lineup(None, game.player_counts[0]))
        if marker is None or not marker.exists():
            cold.append(name)
    return cold


def deal(names: list[str], processes: int) -> list[list[str]]:
    """``names`` dealt to at most ``processes`` shares, longest compile first to the least loaded."""
    shares: list[list[str]] = [[] for _ in range(max(1, min(processes, len(names))))]
    load = [0.0] * len(shares)
    for name in sorted(names, key=lambda n: -COMPILE_SECONDS.get(n, 60)):
        k = load.index(min(load))
        shares[k].append(name)
        load[k] += COMPILE_SECONDS.get(name, 60)
    return [share for share in shares if share]


def warm_games(names: list[str], announce: bool = True, processes: int | None = None) -> list[str]:
    """Compile the play loops of the ``names`` not in the cache yet, in parallel processes (one
    per core at most); returns the games compiled.  Nothing happens when at most one game is
    cold: the command compiles that one itself, as it always did.  A process that fails is
    reported and the command goes on (it compiles what is missing itself)."""
    cold = cold_games(names)
    if len(cold) < 2:
        return []
    shares = deal(cold, processes or os.cpu_count() or 1)
    if len(shares) < 2:
        return []
    longest = max(sum(COMPILE_SECONDS.get(n, 60) for n in share) for share in shares)
    if announce:
        print(f"compiling {len(cold)} games' kernels in {len(shares)} processes, first run only (about "
              f"{longest // 60 + 1} min on a 2-core machine): {', '.join(cold)}", file=sys.stderr, flush=True)
    started = time.perf_counter()
    procs = [subprocess.Popen([sys.executable, "-m", "simcore.warm", *share], stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, text=True) for share in shares]
    try:
        for proc in procs:
            _, err = proc.communicate()
            if proc.returncode != 0 and announce:
                last = (err or "").strip().splitlines()[-1:] or ["no output"]
                print(f"a compile process failed ({last[0]}); the run compiles what it needs", file=sys.stderr)
    except BaseException:
        for proc in procs:
            proc.kill()
        raise
    if announce:
        print(f"compiled {len(cold)} games' kernels in {time.perf_counter() - started:.0f} s", file=sys.stderr,
              flush=True)
    return cold


def _compile(name: str) -> None:
    """One game's stock play loop, compiled (and cached) as a run would compile it."""
    from simcore.game import get_game

    game = get_game(name)
    players = game.player_counts[0]
    setup = game.setup(players, game.variant())
    compile_kernels(game, setup, game.lineup(None, players), 1, announce=False)


if __name__ == "__main__":
    for game_name in sys.argv[1:]:
        _compile(game_name)
