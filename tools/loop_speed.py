"""Games/s of one game's compiled play loop alone, one thread, in this checkout: the figure to
compare side by side with another commit's (run it in both checkouts, in turns).

    python tools/loop_speed.py chimera 4 random 200000      # prints one JSON line

The engine is imported before Numba (as the CLI does), the loop compiled or loaded first, and the
best of five passes over the games (in chunks of 65,536) is kept.  Run it with ``PYTHONPATH`` set
to the checkout, so that a worktree measures its own sources."""
import argparse
import json
import time

import simcore.cache  # noqa: F401 (first: it sets NUMBA_CACHE_DIR before Numba reads it)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("game")
    parser.add_argument("players", type=int)
    parser.add_argument("lineup", help="one strategy for every seat, or one a seat, comma-separated")
    parser.add_argument("games", type=int)
    parser.add_argument("--passes", type=int, default=5)
    args = parser.parse_args()

    import numba

    from simcore.registry import get_game

    numba.set_num_threads(1)
    game = get_game(args.game)
    setup = game.setup(args.players, game.variant())
    lineup = game.lineup(args.lineup, args.players)
    game.run_chunk(setup, lineup, 0, 0, 64)
    game.take_tallies()
    best = float("inf")
    for _ in range(args.passes):
        started = time.perf_counter()
        for start in range(0, args.games, 65536):
            game.run_chunk(setup, lineup, 7, start, min(65536, args.games - start))
            game.take_tallies()
        best = min(best, time.perf_counter() - started)
    print(json.dumps({"game": args.game, "players": args.players, "lineup": args.lineup, "games": args.games,
                      "games_per_s": round(args.games / best)}))


if __name__ == "__main__":
    main()
