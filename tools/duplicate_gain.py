"""What duplicate deals buy: per game, player count and skill tier, the games the duplicate design
needs for the first seat's interval width of independent deals (analysis.duplicate.games_ratio),
with a 95% bootstrap interval over deals.  The figures of docs/duplicate-deals.md::

    python tools/duplicate_gain.py --games 20000 --search-games 2000 --out docs/duplicate-deals.json
    python tools/duplicate_gain.py --game bird-weather --players 4 --tier search --games 8000

Every seat plays the tier; the run is games DUPLICATE..DUPLICATE+N-1 of ``--seed`` (N rounded up
to whole deals).  Search tiers play ``--search-games``.

Two more designs, measured the same way (the same games both ways, one observation a deal):

    python tools/duplicate_gain.py --rung heuristic:random --game bird-weather --players 4 --games 8000
    python tools/duplicate_gain.py --whatif examples/variants/bird-weather-no-reversal.toml \
        --tier heuristic --game bird-weather --players 4 --games 40000

``--tournament A,B``: a tournament's design (every seating of the strategies that mixes them, on
the same deals: analysis/tournament.py), A's mean share per seat it holds, one observation a
deal, ``--games`` games in all both ways.  ``--rung HERO:FIELD``: a ladder rung (the hero once in each seat on the same deals,
analysis/ladder.py), on ``--games / players`` independent deals against ``--games / players**2``
duplicate deals.  ``--whatif VARIANT``: the change in seat 1's share from the published rules to
the variant on the same deals, ``--games`` games an arm, independent against duplicate.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path.cwd()))

DEFAULT_CASES = [  # (game, players): every card game, at the count its docs lead with
    ("bird-weather", 4), ("bird-weather", 3), ("bird-weather", 5), ("chimera", 4), ("ten-tricks", 4),
    ("triatri", 3), ("examples/games/hearts.toml", 4), ("examples/games/spades.toml", 4),
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--game", action="append", help="only this game (repeatable; with --players)")
    parser.add_argument("--players", type=int, action="append")
    parser.add_argument("--tier", action="append", help="only these tiers (default: the game's skill tiers)")
    parser.add_argument("--games", type=int, default=40_000)
    parser.add_argument("--search-games", type=int, default=4_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", help="JSON file of the figures")
    parser.add_argument("--rung", help="HERO:FIELD: measure a ladder rung instead (module docstring)")
    parser.add_argument("--whatif", help="a variant file: measure the paired what-if change instead")
    parser.add_argument("--tournament", help="A,B: measure a tournament's design instead (module docstring)")
    args = parser.parse_args()
    if args.rung or args.whatif or args.tournament:
        paired(args)
        return

    from analysis.duplicate import DUPLICATE, games_ratio, seat_edge, whole_deals
    from analysis.skill import search_cost, tiers_of
    from simcore.driver import run_games
    from simcore.registry import get_game

    cases = list(zip(args.game, args.players)) if args.game else DEFAULT_CASES
    rows = []
    for name, players in cases:
        game = get_game(name)
        variant = game.variant()
        setup = game.setup(players, variant)
        for tier in args.tier or tiers_of(game):
            budget = args.games
            if tier.startswith("search"):
                budget = max(players, round(args.search_games / search_cost(game, tier)))
            games = whole_deals(budget, players)
            started = time.perf_counter()
            frame = run_games(game, setup, game.lineup([tier] * players, players), variant, args.seed, games,
                              progress=False, start=DUPLICATE).frame
            shares = frame["share_0"].to_numpy()
            ratio = games_ratio(shares, players)
            edge, interval = seat_edge(shares, players)
            row = {"game": name, "players": players, "tier": tier, **ratio, "edge_pp": edge, "ci_pp": interval,
                   "seconds": round(time.perf_counter() - started, 1)}
            rows.append(row)
            print(f"{name} {players}p {tier}: duplicate needs {ratio['ratio']:.2f} [{ratio['ci'][0]:.2f}, "
                  f"{ratio['ci'][1]:.2f}] of the games ({ratio['games']:,} games, {ratio['deals']:,} deals); "
                  f"edge {edge:+.2f} pp [{interval[0]:+.2f}, {interval[1]:+.2f}] ({row['seconds']} s)", flush=True)
    if args.out:
        from simcore.outputs import write_atomic
        from simcore.version import __version__

        doc = {"what": "duplicate-deal games ratio (tools/duplicate_gain.py)", "version": __version__,
               "seed": args.seed, "date": time.strftime("%Y-%m-%d"), "rows": rows}
        write_atomic(Path(args.out), (json.dumps(doc, indent=1) + "\n").encode())


def paired(args) -> None:
    """The rung or what-if measurement of the module docstring, printed."""
    import numpy as np

    from analysis.duplicate import DUPLICATE, per_deal
    from simcore.driver import run_games
    from simcore.registry import get_game

    name, players = args.game[0], args.players[0]
    game = get_game(name)

    def shares(variant, names, start, n, seat):
        setup = game.setup(players, variant)
        frame = run_games(game, setup, game.lineup(names, players), variant, args.seed, n, progress=False,
                          start=start).frame
        return per_deal(frame[f"share_{seat}"].to_numpy(), 1).ravel()  # exact shares, game by game

    if args.tournament:
        import itertools

        names = args.tournament.split(",")
        hero = names[0]
        seatings = [list(s) for s in itertools.product(names, repeat=players) if hero in s and len(set(s)) > 1]
        deals = args.games // (players * len(seatings))  # duplicate deals; players times as many independent

        def tournament(start: int, n: int) -> np.ndarray:
            # the hero's mean share per seat it holds, over every seating with the hero and another player
            total = np.zeros(n)
            for seating in seatings:
                seats = [s for s, name in enumerate(seating) if name == hero]
                total += sum(shares(game.variant(), seating, start, n, s) for s in seats) / len(seats)
            return total / len(seatings)

        independent = tournament(0, deals * players)
        duplicate = tournament(DUPLICATE, deals * players).reshape(deals, players).mean(axis=1)
        what = f"tournament {args.tournament} ({len(seatings)} mixed seatings): {hero}'s share"
    elif args.rung:
        hero, field = args.rung.split(":")
        deals = args.games // players ** 2  # duplicate deals; players times as many independent ones

        def rung(start: int, n: int) -> np.ndarray:
            names = [[hero if k == s else field for k in range(players)] for s in range(players)]
            return sum(shares(game.variant(), names[s], start, n, s) for s in range(players)) / players

        independent = rung(0, deals * players)  # one observation a deal: its players seatings
        duplicate = rung(DUPLICATE, deals * players).reshape(deals, players).mean(axis=1)
        what = f"rung {hero} among {field}: the hero's share"
    else:
        tier = (args.tier or ["random"])[0]
        base, other = game.variant(), game.variant(args.whatif)
        n = -(-args.games // players) * players  # whole deals
        independent = shares(other, tier, 0, n, 0) - shares(base, tier, 0, n, 0)
        duplicate = (shares(other, tier, DUPLICATE, n, 0)
                     - shares(base, tier, DUPLICATE, n, 0)).reshape(-1, players).mean(axis=1)
        what = f"whatif {Path(args.whatif).name} among {tier}: the change in seat 1's share"

    def ratio(dup: np.ndarray, ind: np.ndarray) -> float:
        return (dup.var(ddof=1) / dup.size) / (ind.var(ddof=1) / ind.size)

    rng = np.random.default_rng(0)  # a 95% bootstrap interval: deals and games resampled apart
    draws = [ratio(duplicate[rng.integers(0, duplicate.size, duplicate.size)],
                   independent[rng.integers(0, independent.size, independent.size)]) for _ in range(400)]
    low, high = np.percentile(draws, [2.5, 97.5])
    print(f"{name} {players}p {what}: {100 * independent.mean():.2f} (independent), {100 * duplicate.mean():.2f} "
          f"(duplicate); duplicate deals need {ratio(duplicate, independent):.2f} [{low:.2f}, {high:.2f}] of the "
          "games (the same games both ways)")


if __name__ == "__main__":
    main()
