"""A line-up of random seats plays a build of the play loop that compiles the random player alone
(simcore/builds.py): the same rows, logs and scenario answers as the stock play loop, whose
dispatch holds every built-in player."""
import dataclasses
import importlib
from pathlib import Path

import numpy as np
import pytest

from simcore.registry import get_game, game_names


@pytest.mark.parametrize("name", game_names())
def test_a_random_line_up_plays_the_random_build_and_its_rows_are_the_stock_loops(name):
    game = get_game(name)
    for players in (game.player_counts[0], game.player_counts[-1]):
        setup = game.setup(players, game.variant())
        lineup = game.lineup("random", players)
        stock = importlib.import_module(game.kernels_module)
        assert lineup.kernels is not stock and lineup.kernels.__name__.startswith("kernel_random_")
        assert game.lineup("random", players).kernels is lineup.kernels  # built once per process
        built = game.run_chunk(setup, lineup, 11, 40, 300)
        game.take_tallies()
        stocked = game.run_chunk(setup, dataclasses.replace(lineup, kernels=stock), 11, 40, 300)
        game.take_tallies()
        assert built.keys() == stocked.keys()
        for column in built:
            np.testing.assert_array_equal(built[column], stocked[column], err_msg=f"{name} {players}p {column}")
        logs = game.kernel_logs(setup, lineup, 11, range(3))
        assert logs == game.kernel_logs(setup, dataclasses.replace(lineup, kernels=stock), 11, range(3))


@pytest.mark.parametrize("name", game_names())
def test_a_random_line_up_with_a_card_withheld_has_the_stock_loops_rows(name):
    """``cards --cause`` withholds a card from random seats.  Chimera Tricks' random build leaves
    withholding out of its loop (RANDOM_ONLY), so ``run_chunk`` plays such rules on the stock loop
    (``Game.random_build_plays``); the other games' random builds withhold as the stock loop does.
    Either way the rows are the stock loop's, and they differ from the rows without withholding."""
    game = get_game(name)
    players = game.player_counts[-1]
    setup = game.setup(players, game.variant())
    names = game.card_names(setup)
    if names is None:
        pytest.skip(f"{name} deals no hands of cards")
    held = game.withheld_setup(setup, names[-1])
    assert game.random_build_plays(held) == (name != "chimera") and game.random_build_plays(setup)
    lineup = game.lineup("random", players)
    stock = dataclasses.replace(lineup, kernels=importlib.import_module(game.kernels_module))
    built = game.run_chunk(held, lineup, 5, 0, 300)
    stocked = game.run_chunk(held, stock, 5, 0, 300)
    plain = game.run_chunk(setup, lineup, 5, 0, 300)
    game.take_tallies()
    for column in built:
        np.testing.assert_array_equal(built[column], stocked[column], err_msg=f"{name} {column}")
    assert any(not np.array_equal(built[c], plain[c]) for c in built if c != "game"), name


def test_inside_stock_loops_random_seats_play_the_stock_loop_and_warm_compiles_it_alone(monkeypatch):
    """``balance book`` compiles every game's stock loop for its skill tiers, so inside
    ``stock_loops`` its random seats play that loop (the same rows, above) and the compile
    processes it starts (``simcore.warm``) compile no random build."""
    from simcore import warm
    from simcore.builds import random_builds_wanted, stock_loops

    game = get_game("triatri")
    stock = importlib.import_module(game.kernels_module)
    assert game.lineup("random", 3).kernels is not stock and len(warm.play_loops(game)) == 2
    with stock_loops():
        assert not random_builds_wanted()
        assert game.lineup("random", 3).kernels is stock
        assert [lineup.kernels for lineup in warm.play_loops(game)] == [stock]
        stock_only = warm._seconds("triatri")  # the stock loop alone (its kept measurement, simcore/measured.py)
        started = []
        monkeypatch.setattr(warm, "cold_games", lambda names: list(names))
        monkeypatch.setattr(warm.subprocess, "Popen", lambda args, **kw: started.append(args) or _Done())
        warm.warm_games(["triatri", "chimera"], announce=False, processes=2)
        assert all(args[3] == warm.STOCK_ONLY for args in started) and len(started) == 2
    assert random_builds_wanted() and game.lineup("random", 3).kernels is not stock
    assert warm._seconds("triatri") > stock_only  # and its random build besides


class _Done:
    """A compile process that has finished (``subprocess.Popen`` stand-in)."""

    returncode = 0

    def communicate(self):
        return "", ""


def test_any_other_line_up_plays_the_stock_loop():
    game = get_game("bird-weather")
    stock = importlib.import_module(game.kernels_module)
    assert game.lineup("random,random,random,greedy", 4).kernels is stock
    assert game.lineup("heuristic", 4).kernels is stock


@pytest.mark.parametrize("name", game_names())
def test_the_random_builds_decisions_call_the_random_player_alone(name):
    """What keeps the greedy, heuristic and search players out of the build's compile."""
    from simcore.builds import random_strategies

    stock = get_game(name).strategy_module()
    lean = random_strategies(stock)
    for decision in stock.PLUGIN_DECISIONS:
        assert lean.__dict__[f"choose_{decision}"].py_func.__code__.co_names == (f"random_{decision}",)
        assert getattr(lean, f"random_{decision}") is getattr(stock, f"random_{decision}")


PLUGINS = {"bird-weather": "examples/plugins/low_ones.py", "ten-tricks": "examples/plugins/ten-tricks-low-survivor.py"}


@pytest.mark.parametrize("name", sorted(PLUGINS))
def test_a_plug_in_among_random_seats_plays_a_build_without_the_other_players_and_the_same_rows(name):
    """A plug-in among random seats (docs/strategies.md's examples) plays a plug-in build whose
    dispatch knows only the random player and the plug-ins: the rows and logs of the full
    plug-in build, whose dispatch holds every built-in player too.  A plug-in beside any other
    built-in player plays the full build."""
    from pathlib import Path

    from simcore.plugins.dispatch import plugin_build
    from simcore.plugins.loading import load_plugin

    game = get_game(name)
    path = str(Path(__file__).resolve().parents[2] / PLUGINS[name])
    plugin = load_plugin(path)
    players = game.player_counts[0]
    names = [plugin.name] + ["random"] * (players - 1)
    lineup = game.lineup(",".join(names), players, [path])
    assert lineup.kernels.__name__.endswith("_random")
    stock = importlib.import_module(game.kernels_module)
    full = plugin_build(game.strategy_module(), stock, [plugin], game.plugin_decisions)
    assert not full.__name__.endswith("_random")
    setup = game.setup(players, game.variant())
    built = game.run_chunk(setup, lineup, 5, 10, 200)
    game.take_tallies()
    fully = game.run_chunk(setup, dataclasses.replace(lineup, kernels=full), 5, 10, 200)
    game.take_tallies()
    for column in built:
        np.testing.assert_array_equal(built[column], fully[column], err_msg=f"{name} {column}")
    assert game.kernel_logs(setup, lineup, 5, range(2)) == game.kernel_logs(
        setup, dataclasses.replace(lineup, kernels=full), 5, range(2))
    mixed = game.lineup(",".join([plugin.name, "greedy"] + ["random"] * (players - 2)), players, [path])
    assert mixed.kernels is full
    dispatch = lineup.kernels.__strategies__  # what keeps the greedy, heuristic and search players out
    for decision in dispatch.PLUGIN_DECISIONS:
        code = getattr(dispatch, f"choose_{decision}").py_func.__code__
        assert set(code.co_names) == {"RANDOM", f"random_{decision}", f"plugin_{decision}", "PLUGIN_BASE"}, decision


RANDOM_PLUGIN = '''
from strategies.bird_weather import random_facedown, random_pick, random_play

GAME = "bird-weather"
NAME = "{name}"


def choose_facedown(params, seat, hand, table, number, rules, streams):
    return random_facedown(params, seat, hand, table, number, rules, streams)


def choose_play(params, seat, hand, legal, seen, table, number, follow, rules, streams):
    return random_play(params, seat, hand, legal, seen, table, number, follow, rules, streams)


def choose_pick(params, seat, available, hand, seen, table, number, rules, streams):
    return random_pick(params, seat, available, hand, seen, table, number, rules, streams)
'''


def test_every_plug_in_of_a_game_plays_one_compiled_build_each_at_its_own_address(tmp_path):
    """Plug-ins are called at addresses read while the games play (simcore/plugins/), so every
    plug-in of a game, and every edit of one, plays the same compiled loop: here a plug-in that
    asks the random player for every decision plays exactly the random seat's games, beside the
    example plug-in in the same process, and an edited copy of it gets a row of its own."""
    game = get_game("bird-weather")
    players = 4
    setup = game.setup(players, game.variant())
    example = str(Path(__file__).resolve().parents[2] / PLUGINS["bird-weather"])
    first = tmp_path / "first.py"
    first.write_text(RANDOM_PLUGIN.format(name="as-random"))
    with_example = game.lineup("low-ones,random,random,random", players, [example])
    as_random = game.lineup("random,as-random,random,random", players, [first])
    assert as_random.kernels is with_example.kernels  # one build for both plug-ins
    edited = tmp_path / "edited.py"
    edited.write_text(RANDOM_PLUGIN.format(name="as-random") + "# an edit\n")
    again = game.lineup("random,as-random,random,random", players, [edited])
    assert again.kernels is as_random.kernels and again.ids[1] != as_random.ids[1]
    plain = game.lineup("random", players)
    rows = {}
    for label, lineup in {"plain": plain, "as-random": as_random, "edited": again, "example": with_example}.items():
        rows[label] = game.run_chunk(setup, lineup, 3, 0, 400)
        game.take_tallies()
    for label in ("as-random", "edited"):
        for column in rows["plain"]:
            np.testing.assert_array_equal(rows[label][column], rows["plain"][column], err_msg=f"{label} {column}")
    assert any(not np.array_equal(rows["example"][c], rows["plain"][c]) for c in rows["plain"])
