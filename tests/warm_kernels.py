"""Compile the kernels the suite needs once, before the test processes split the work.

Numba writes a kernel to its disk cache only when its compile ends, so two test processes that
need a kernel nobody has compiled yet both compile it (about half a minute each for a game's play
loop).  ``tests/conftest.py`` runs this file first, in as many processes as there are test
workers, each compiling its share of ``JOBS``; the workers then load every kernel from the cache.
A kernel left out here is not wrong, only compiled by the first test that needs it.

    python tests/warm_kernels.py JOB [JOB ...]     (a job: GAME, or GAME+PLUGIN...@ENTRY,...)
"""
import itertools
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# the plug-in sets the tests load and the play-loop entry points the tests call with them: every
# set of a game shares the game's plug-in build (simcore/plugins/), so its first set compiles
# the build and the others only their plug-ins' own functions
RUN, SCENARIO, LOGS = "run_chunk", "play_scenario", "play_many_logged"
ALEA = "examples/plugins/alea_two_or_nothing.py"
CHEAP_WINNER = "examples/plugins/chimera-cheap-winner.py"
RULES_FILE = "examples/games/hearts.toml"  # every rules file plays on the one trick-taking loop
PLUGIN_SETS = {
    "bird-weather": [(["examples/plugins/low_ones.py"], (RUN, SCENARIO)), (["tests/fixtures/plugins/peek_facedown.py"], (SCENARIO,))],
    "chimera": [([CHEAP_WINNER], (RUN, SCENARIO)), ([CHEAP_WINNER, "tests/fixtures/plugins/peek_chimera.py"], (SCENARIO,))],
    "sky-city": [([ALEA], (RUN, SCENARIO)), ([ALEA, "tests/fixtures/plugins/peek_sky_city.py"], (SCENARIO,))],
    "ten-tricks": [(["tests/fixtures/plugins/peek_ten_tricks.py"], (SCENARIO,)),
                   (["examples/plugins/ten-tricks-low-survivor.py"], (RUN, LOGS))],
    "triatri": [(["tests/fixtures/plugins/peek_triatri.py"], (SCENARIO,))],
    RULES_FILE: [],
}
def _cost(game: str) -> float:
    """About how long a job and its plug-in sets take from an empty cache: the game's first
    command, its stock loop and its random build, as measured and kept in benchmarks/
    (simcore/measured.py; a game never measured counts as the mean of those that were), and each
    plug-in set's entry points as that stock loop again (a plug-in build compiles the game's loop
    anew with the plug-in in it: an upper bound, the build's own helpers come from the cache)."""
    from simcore.measured import first_compile
    from simcore.registry import game_names

    def measured(name: str, build: str) -> float:
        own = first_compile(name, build)
        if own is not None:
            return own
        known = [v for v in (first_compile(n, build) for n in game_names()) if v is not None]
        return sum(known) / len(known) if known else 1.0

    stock = measured(game, "stock")
    return stock + measured(game, "random") + sum(stock for _, entries in PLUGIN_SETS[game] for _ in entries)


def shares(workers: int) -> list[list[str]]:
    """The jobs dealt to ``workers`` processes so that the last one ends as early as the measured
    costs (``_cost``) allow (every way of dealing the five games is tried; they are few).  A game's
    plug-in builds go with the game: they reuse its stock kernels, which the same process has just
    compiled (another process compiling them at the same time would do it twice)."""
    games = sorted(PLUGIN_SETS, key=_cost, reverse=True)
    used = min(workers, len(games))  # more processes than games: the rest get nothing
    best, best_end = None, float("inf")
    for deal in itertools.product(range(used), repeat=len(games)):
        if deal[0] != 0:  # the workers are alike: the longest game goes to the first
            continue
        load = [0.0] * used
        for game, k in zip(games, deal):
            load[k] += _cost(game)
        if max(load) < best_end:
            best, best_end = deal, max(load)
    dealt = [[] for _ in range(workers)]
    for game, k in zip(games, best):
        dealt[k] += [game] + [f"{game}+{'+'.join(paths)}@{','.join(entries)}" for paths, entries in PLUGIN_SETS[game]]
    return dealt


def _scenario(name: str) -> dict:
    path = next(p for p in sorted((ROOT / "examples" / "scenarios").glob(f"{name}-*.json"))
                if "illegal" not in p.name)
    return json.loads(path.read_text())


def warm(job: str) -> None:
    """``GAME``: the stock play loop's entry points, each called once; ``GAME+PLUGIN...@ENTRY,...``:
    those entry points of the plug-ins' build, compiled for the signatures the stock ones got
    (so the game's job must have run in this process first)."""
    import dataclasses
    import importlib

    from simcore.registry import get_game
    from simcore.plugins.loading import load_plugin

    job, _, entries = job.partition("@")
    name, *plugins = job.split("+")
    game = get_game(name)
    players = 4
    setup = game.setup(players, game.variant())
    if not plugins:
        lineup = game.lineup("random", players)  # the random build (simcore/builds.py)
        stock = importlib.import_module(game.kernels_module)
        for each in (lineup, dataclasses.replace(lineup, kernels=stock)):
            game.run_chunk(setup, each, 1, 0, 64)
            game.kernel_logs(setup, each, 1, range(2))
        if name == RULES_FILE:  # its scripted deals (tests/fixtures/openspiel/) instead of scenarios
            sys.path.insert(0, str(ROOT / "tools"))
            import check_peers

            check_peers.check("hearts", ROOT / "tests" / "fixtures" / "openspiel" / "hearts-4.jsonl")
        else:
            game.scenario(_scenario(name), "warm-up")
        if game.card_names(setup) is not None:
            game.opening_hands(setup, 1, [0])
        return
    paths = [str(ROOT / p) for p in plugins]
    seats = [load_plugin(p).name for p in paths]
    build = game.lineup(",".join((seats + ["random"] * players)[:players]), players, paths).kernels
    stock = importlib.import_module(game.kernels_module)
    for entry in entries.split(","):
        for signature in getattr(stock, entry).signatures:
            getattr(build, entry).compile(signature)


if __name__ == "__main__":
    import time

    for job in sys.argv[1:]:
        started = time.perf_counter()
        warm(job)
        print(f"{job}: {time.perf_counter() - started:.1f} s", file=sys.stderr, flush=True)
