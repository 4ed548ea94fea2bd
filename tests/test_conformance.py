"""One conformance suite for every registered game: random and built-in play to the end, results
in bounds, dtypes as declared, reproducible, replays equal rows, bad input refused.  A new game
gets all of it by being registered in simcore.game.GAMES."""
import numpy as np
import polars as pl
import pytest

from simcore.driver import run_games
from simcore.errors import BalanceError
from simcore.game import game_names, get_game

GAMES = game_names()


def _lineups(game, players):
    names = [n for n in game.builtin_strategies()]
    yield "random"
    yield ",".join(names[k % len(names)] for k in range(players))  # every built-in seated


@pytest.mark.parametrize("name", GAMES)
def test_every_player_count_and_strategy_plays_to_the_end(name):
    game = get_game(name)
    for players in game.player_counts:
        setup = game.setup(players, game.variant())
        for spec in _lineups(game, players):
            result = run_games(game, setup, game.lineup(spec, players), game.variant(), 11, 3000, progress=False)
            frame = result.frame
            assert frame.height == 3000 and frame["game"].to_list() == list(range(3000))
            shares = frame.select(pl.sum_horizontal(f"share_{s}" for s in range(players))).to_series()
            assert (shares - 1.0).abs().max() < 1e-5, (name, players, spec)
            for s in range(players):
                assert frame[f"score_{s}"].dtype == pl.Int16 and frame[f"share_{s}"].dtype == pl.Float32
                assert frame[f"score_{s}"].min() >= game.min_score
            for event in result.meta["events"]:
                assert frame[event["column"]].min() >= 0
            assert result.meta["game"] == name and result.meta["players"] == players


@pytest.mark.parametrize("name", GAMES)
def test_same_seed_same_rows_and_replay_matches(name):
    game = get_game(name)
    players = game.player_counts[-1]
    setup = game.setup(players, game.variant())
    lineup = game.lineup(game.strong_strategy, players)
    a = run_games(game, setup, lineup, game.variant(), 5, 2000, chunk_size=700, progress=False).frame
    b = run_games(game, setup, lineup, game.variant(), 5, 2000, chunk_size=2000, progress=False).frame
    assert a.equals(b)
    for index in (0, 1234, 1999):
        log = game.replay(setup, lineup, 5, index)
        assert log["scores"] == [a[f"score_{s}"][index] for s in range(players)]


@pytest.mark.parametrize("name", GAMES)
def test_bad_input_is_refused(name):
    game = get_game(name)
    with pytest.raises(BalanceError, match="players"):
        game.setup(max(game.player_counts) + 1, game.variant())
    with pytest.raises(BalanceError, match="unknown strategy"):
        game.lineup("no-such-player", game.player_counts[0])
    with pytest.raises(BalanceError, match="unknown key"):
        game.variant(overrides={"no_such_rule": 1})
    assert np.all([isinstance(text, str) for _, text in game.variant_keys.values()])
