"""Compile several games' play loops at once, one process per game, before a command that needs
them all (``balance book``).

Numba compiles in the process that first calls a kernel and writes it to the disk cache when the
compile ends (simcore/cache.py: one cache folder per game).  A book on an empty cache used to
compile its five games one after another (about five minutes on a 2-core machine); compiling
them in as many processes as there are cores, each filling its own game's cache folder, lets
the book then load every play loop from disk.  A game whose play loop is already in the cache
(its marker, ``driver._compiled_marker``) is not started at all, so a warm cache costs nothing.

    python -m simcore.warm [--stock-only] GAME [GAME ...]     (one process's share: compile these, in order;
                                                              --stock-only: the stock loops alone, ``stock_loops``)
"""
from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import time

from simcore.builds import random_builds_wanted, stock_loops
from simcore.driver import _compiled_marker, compile_kernels

STOCK_ONLY = "--stock-only"  # the compile processes' flag: inside ``simcore.builds.stock_loops``


def play_loops(game) -> list:
    """Line-ups for the play loops a command with several line-ups may need: random seats (the
    random build, simcore/builds.py; not inside ``stock_loops``) and the stock loop every other
    line-up plays."""
    import dataclasses
    import importlib

    random = game.lineup("random", game.player_counts[0])
    stock = dataclasses.replace(random, kernels=importlib.import_module(game.kernels_module))
    return [random, stock] if random_builds_wanted() else [stock]


def cold_games(names: list[str]) -> list[str]:
    """The games among ``names`` with a play loop this machine has not compiled yet."""
    from simcore.registry import get_game

    cold = []
    for name in names:
        markers = [_compiled_marker(lineup) for lineup in play_loops(get_game(name))]
        if any(marker is None or not marker.exists() for marker in markers):
            cold.append(name)
    return cold


def _seconds(name: str) -> float:
    """About how long a game's play loops (``play_loops``) take to compile from an empty cache: the
    newest kept measurements (simcore/measured.py), a game never measured counting as the mean of
    those that were (1 s each where none is kept: the games are then dealt evenly)."""
    from simcore.measured import first_compile
    from simcore.registry import game_names

    builds = ["stock", "random"] if random_builds_wanted() else ["stock"]
    total = 0.0
    for build in builds:
        own = first_compile(name, build)
        if own is None:
            known = [v for v in (first_compile(n, build) for n in game_names()) if v is not None]
            own = sum(known) / len(known) if known else 1.0
        total += own
    return total


def deal(names: list[str], processes: int) -> list[list[str]]:
    """``names`` dealt to at most ``processes`` shares, longest compile first to the least loaded."""
    shares: list[list[str]] = [[] for _ in range(max(1, min(processes, len(names))))]
    load = [0.0] * len(shares)
    for name in sorted(names, key=lambda n: -_seconds(n)):
        k = load.index(min(load))
        shares[k].append(name)
        load[k] += _seconds(name)
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
    longest = max(sum(_seconds(n) for n in share) for share in shares)
    if announce:
        print(f"compiling {len(cold)} games' kernels in {len(shares)} processes, once until their sources change (about "
              f"{longest // 60 + 1} min on a 2-core machine): {', '.join(cold)}", file=sys.stderr, flush=True)
    started = time.perf_counter()
    stock_only = [] if random_builds_wanted() else [STOCK_ONLY]
    procs = [subprocess.Popen([sys.executable, "-m", "simcore.warm", *stock_only, *share], stdout=subprocess.DEVNULL,
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
    """One game's play loops, compiled (and cached) as a run would compile them."""
    from simcore.registry import get_game

    game = get_game(name)
    setup = game.setup(game.player_counts[0], game.variant())
    for lineup in play_loops(game):
        compile_kernels(game, setup, lineup, 1, announce=False)


if __name__ == "__main__":
    names = [name for name in sys.argv[1:] if name != STOCK_ONLY]
    with stock_loops() if STOCK_ONLY in sys.argv[1:] else contextlib.nullcontext():
        for game_name in names:
            _compile(game_name)
