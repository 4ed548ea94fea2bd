"""A run without `--out` against the play loop alone, side by side (BENCHMARKS.md, "The games with
tables of their own"):

    python tools/reduce_side_by_side.py GAME PLAYERS GAMES

plays GAMES games of GAME (random seats) at 1 and 2 threads, best of 2, interleaved: the compiled
play loop alone (`simcore.bench_scale.loop_seconds`), then the same games reduced chunk by chunk to
the summary's totals as `balance simulate` without `--out` does (`_reduced_seconds` with
`analysis.summary.ChunkTotals`), and prints each pair with its ratio.  Run from a checkout (an
old commit in a `git worktree` gives the before figures)."""
import os
import sys

sys.path.insert(0, os.getcwd())
from analysis.summary import ChunkTotals  # noqa: E402
from simcore.bench_scale import loop_seconds, _reduced_seconds  # noqa: E402
from simcore.registry import get_game  # noqa: E402

name, players, games = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
game = get_game(name)
variant = game.variant()
setup = game.setup(players, variant)
lineup = game.lineup("random", players)
game.run_chunk(setup, lineup, 0, 0, 64)  # compiled (or loaded) before anything is timed
_reduced_seconds(game, setup, lineup, variant, 8192, 1, ChunkTotals)
for threads in (1, 2):
    loop, run = [], []
    for _ in range(2):
        loop.append(loop_seconds(game, setup, lineup, games, threads)[0])
        run.append(_reduced_seconds(game, setup, lineup, variant, games, threads, ChunkTotals)[0])
    print(f"{name} {games:,} games, {threads} thread(s): loop {min(loop):.2f} s, run without --out "
          f"{min(run):.2f} s, ratio {min(run) / min(loop):.2f}", flush=True)
