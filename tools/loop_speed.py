"""The play loop alone, random seats, from this checkout (BENCHMARKS.md, "Another 2-core machine"):

    python tools/loop_speed.py GAME PLAYERS GAMES [--stock]

prints the checkout's folder and the best of 3 timings, in seconds, of GAMES games of the compiled
play loop (`simcore.bench_scale.loop_seconds`, nothing kept) at 1 and at 2 threads.  Run it from an old
commit's `git worktree` and from this one in turn, with the same `BALANCE_CACHE_DIR`, to compare
them side by side.  With `--stock`: one thread, the random build (simcore/builds.py) against the
stock loop playing the same random seats (what `balance book` plays inside `stock_loops`),
interleaved."""
import dataclasses
import importlib
import os
import sys

sys.path.insert(0, os.getcwd())
from simcore.bench_scale import loop_seconds  # noqa: E402
from simcore.registry import get_game  # noqa: E402

name, players, games = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
game = get_game(name)
setup = game.setup(players, game.variant())
lineup = game.lineup("random", players)
if "--stock" in sys.argv[4:]:
    stock = dataclasses.replace(lineup, kernels=importlib.import_module(game.kernels_module))
    timings = {"random build": [], "stock loop": []}
    for each in (lineup, stock):
        game.run_chunk(setup, each, 0, 0, 64)  # compiled (or loaded) before anything is timed
    for _ in range(3):
        for label, each in zip(timings, (lineup, stock)):
            timings[label].append(loop_seconds(game, setup, each, games, 1)[0])
    print(name, {label: round(min(values), 3) for label, values in timings.items()})
else:
    game.run_chunk(setup, lineup, 0, 0, 64)
    print(os.getcwd(), name, [round(min(loop_seconds(game, setup, lineup, games, threads)[0] for _ in range(3)), 3)
                              for threads in (1, 2)])
