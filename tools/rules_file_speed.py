"""A rules file against a hand-written kernel of the same game, side by side (issue 37, item 2):
random players, 262,144 games a repeat, the two interleaved in every repeat (these machines
drift), the rate of each and the paired ratio (min / median / max of 9).

    python tools/rules_file_speed.py [THREADS] [GAME]     (default 1 thread, bird-weather)

GAME is one of the seed games a rules file plays:
    bird-weather  examples/games/bird-weather.toml (three hooks) against BIRD & WEATHER with its
                  variant facedown = false, 4 players; games/s (both play 10 tricks a game)
    ten-tricks    examples/games/ten-tricks-later.toml (three hooks, score_round among them, and the
                  infected-8 swap as three decisions) against 10 TRICKS LATER as published, 4
                  players; tricks/s, because the two whole games differ in length (a later round's
                  leader, the round cap: the rules file's header)
"""
import statistics
import sys
import time
from pathlib import Path

import numba

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from simcore.registry import get_game  # noqa: E402

PAIRS = {  # built-in game, its variant, the rules file, the rows' trick count of each (None: a constant)
    "bird-weather": ("bird-weather", {"facedown": False}, "examples/games/bird-weather.toml", None, None),
    "ten-tricks": ("ten-tricks", {}, "examples/games/ten-tricks-later.toml", "tricks", "tricks_played"),
}

numba.set_num_threads(int(sys.argv[1]) if len(sys.argv) > 1 else 1)
name, overrides, path, built_tricks, file_tricks = PAIRS[sys.argv[2] if len(sys.argv) > 2 else "bird-weather"]
players = 4
sides = {}
for label, game_name, variant, tricks in (("built-in", name, overrides, built_tricks),
                                          ("rules file", path, {}, file_tricks)):
    game = get_game(game_name)
    setup = game.setup(players, game.variant(overrides=variant))
    lineup = game.lineup("random", players)
    game.run_chunk(setup, lineup, 1, 0, 1000)  # compiled
    sides[label] = (game, setup, lineup, tricks)
unit = "tricks" if built_tricks else "games"
n = 1 << 18
ratios, rates = [], {label: [] for label in sides}
for rep in range(9):
    rate = {}
    for label, (game, setup, lineup, tricks) in sides.items():
        start = time.perf_counter()
        rows = game.run_chunk(setup, lineup, 1, rep * n, n)
        seconds = time.perf_counter() - start
        rate[label] = (int(rows[tricks].astype("int64").sum()) if tricks else n) / seconds
        rates[label].append(rate[label])
    ratios.append(rate["rules file"] / rate["built-in"])
for label, r in rates.items():
    print(f"{label:10}: {min(r):,.0f} / {statistics.median(r):,.0f} / {max(r):,.0f} {unit}/s (min/median/max of 9)")
print(f"rules file / built-in: {min(ratios):.2f} / {statistics.median(ratios):.2f} / {max(ratios):.2f} "
      "(paired per repeat)")
