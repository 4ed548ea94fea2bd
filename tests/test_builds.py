"""A line-up of random seats plays a build of the play loop that compiles the random player alone
(simcore/builds.py): the same rows, logs and scenario answers as the stock play loop, whose
dispatch holds every built-in player."""
import dataclasses
import importlib

import numpy as np
import pytest

from simcore.game import get_game, game_names


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
