"""The play loop alone, random seats, from this checkout (BENCHMARKS.md, "Another 2-core machine"):

    python tools/loop_speed.py GAME PLAYERS GAMES

prints the checkout's folder and the best of 3 timings, in seconds, of GAMES games of the compiled
play loop (`simcore.bench._loop_seconds`, nothing kept) at 1 and at 2 threads.  Run it from an old
commit's `git worktree` and from this one in turn, with the same `BALANCE_CACHE_DIR`, to compare
them side by side."""
import os
import sys

sys.path.insert(0, os.getcwd())
from simcore.bench import _loop_seconds  # noqa: E402
from simcore.game import get_game  # noqa: E402

name, players, games = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
game = get_game(name)
setup = game.setup(players, game.variant())
lineup = game.lineup("random", players)
game.run_chunk(setup, lineup, 0, 0, 64)  # compiled (or loaded) before anything is timed
print(os.getcwd(), name, [round(min(_loop_seconds(game, setup, lineup, games, threads)[0] for _ in range(3)), 3)
                          for threads in (1, 2)])
