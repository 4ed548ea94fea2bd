"""Compile the kernels the suite needs once, before the test processes split the work.

Numba writes a kernel to its disk cache only when its compile ends, so two test processes that
need a kernel nobody has compiled yet both compile it (about half a minute each for a game's play
loop).  ``tests/conftest.py`` runs this file first, in as many processes as there are test
workers, each compiling its share of ``JOBS``; the workers then load every kernel from the cache.
A kernel left out here is not wrong, only compiled by the first test that needs it.

    python tests/warm_kernels.py JOB [JOB ...]     (a job: a game's name, or GAME+plug-ins)
"""
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# the plug-in sets the tests load, one build each (simcore/plugins.py)
PLUGIN_SETS = {
    "bird-weather": [["examples/plugins/low_ones.py"], ["tests/peek_facedown.py"]],
    "chimera": [["examples/plugins/chimera-cheap-winner.py"],
                ["examples/plugins/chimera-cheap-winner.py", "tests/peek_chimera.py"]],
    "sky-city": [["examples/plugins/alea_two_or_nothing.py"],
                 ["examples/plugins/alea_two_or_nothing.py", "tests/peek_sky_city.py"]],
    "ten-tricks": [["tests/peek_ten_tricks.py"], ["examples/plugins/ten-tricks-low-survivor.py"]],
    "triatri": [["tests/peek_triatri.py"]],
}
# seconds to compile a game's stock kernels, and one plug-in build, from an empty cache (rough)
COST = {"chimera": 60, "ten-tricks": 50, "triatri": 40, "bird-weather": 40, "sky-city": 25}
PLUGIN_COST = 15


def shares(workers: int) -> list[list[str]]:
    """The jobs dealt to ``workers`` processes, longest game first to the least loaded one.  A
    game's plug-in builds go with the game: they reuse its stock kernels, which the same process
    has just compiled (another process compiling them at the same time would do it twice)."""
    dealt = [[] for _ in range(workers)]
    load = [0] * workers
    for game in sorted(COST, key=lambda g: -(COST[g] + PLUGIN_COST * len(PLUGIN_SETS[g]))):
        k = load.index(min(load))
        dealt[k] += [game] + [f"{game}+{'+'.join(paths)}" for paths in PLUGIN_SETS[game]]
        load[k] += COST[game] + PLUGIN_COST * len(PLUGIN_SETS[game])
    return dealt


def _scenario(name: str) -> dict:
    path = next(p for p in sorted((ROOT / "examples" / "scenarios").glob(f"{name}-*.json"))
                if "illegal" not in p.name)
    return json.loads(path.read_text())


def warm(job: str) -> None:
    from simcore.game import get_game
    from simcore.plugins import load_plugin

    name, *plugins = job.split("+")
    game = get_game(name)
    players = 4
    setup = game.setup(players, game.variant())
    paths = [str(ROOT / p) for p in plugins]
    seats = [load_plugin(p).name for p in paths]
    spec = ",".join((seats + ["random"] * players)[:players])
    lineup = game.lineup(spec, players, paths)
    game.run_chunk(setup, lineup, 1, 0, 64)
    game.scenario(_scenario(name), "warm-up", spec, paths)
    if not plugins:
        game.kernel_logs(setup, lineup, 1, range(2))
        if game.card_names(setup) is not None:
            game.opening_hands(setup, 1, [0])


if __name__ == "__main__":
    import time

    for job in sys.argv[1:]:
        started = time.perf_counter()
        warm(job)
        print(f"{job}: {time.perf_counter() - started:.1f} s", file=sys.stderr, flush=True)
