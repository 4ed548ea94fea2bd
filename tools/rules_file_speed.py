"""A rules file against a hand-written kernel of the same game, side by side (issue 37, item 2):
examples/games/bird-weather.toml (three hooks) and the built-in BIRD & WEATHER with its variant
facedown = false, 4 random players, 262,144 games a repeat, the two interleaved in every repeat
(these machines drift), games/s of each and the paired ratio (min / median / max of 9).

    python tools/rules_file_speed.py [THREADS]     (default 1)
"""
import statistics
import sys
import time

import numba

sys.path.insert(0, str(__import__('pathlib').Path(__file__).resolve().parent.parent))

from simcore.game import get_game

numba.set_num_threads(int(sys.argv[1]) if len(sys.argv) > 1 else 1)
players = 4
bw = get_game("bird-weather")
bw_setup = bw.setup(players, bw.variant(overrides={"facedown": False}))
bw_lineup = bw.lineup("random", players)
rf = get_game("examples/games/bird-weather.toml")
rf_setup = rf.setup(players, rf.variant())
rf_lineup = rf.lineup("random", players)
n = 1 << 18
for g, s, l in ((bw, bw_setup, bw_lineup), (rf, rf_setup, rf_lineup)):
    g.run_chunk(s, l, 1, 0, 1000)  # compiled
ratios, rates = [], {"built-in": [], "rules file": []}
for rep in range(9):
    t = {}
    for name, (g, s, l) in (("built-in", (bw, bw_setup, bw_lineup)), ("rules file", (rf, rf_setup, rf_lineup))):
        start = time.perf_counter()
        g.run_chunk(s, l, 1, rep * n, n)
        t[name] = time.perf_counter() - start
        rates[name].append(n / t[name])
    ratios.append(t["built-in"] / t["rules file"])
for name, r in rates.items():
    print(f"{name:10}: {min(r):,.0f} / {statistics.median(r):,.0f} / {max(r):,.0f} games/s (min/median/max of 9)")
print(f"rules file / built-in: {min(ratios):.2f} / {statistics.median(ratios):.2f} / {max(ratios):.2f} (paired per repeat)")
