"""One conformance suite for every registered game, and for High Card, the sixth game that lives
only in tests/ (docs/architecture.md, "Adding a game"): random and built-in play to the end with no
illegal move at every player count, the compiled kernel equal to the plain-Python reference game
for game, the same rows for any thread count and chunk size, the events schema, replays equal to
the rows, shipped scenarios (and High Card's round trip) through ``balance play``, bad variants
and strategies refused.  A game gets all of it by being registered, and a rules-file game by being listed here."""
import json
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from conftest import TEST_GAME, balance

from simcore.driver import run_games
from simcore.errors import BalanceError
from simcore.registry import DUPLICATE, GAMES, game_names, get_game

ROOT = Path(__file__).resolve().parents[2]
# games described in rules files (docs/rules-files.md) are games like any other: named by their path
RULES_FILES = ["examples/games/hearts.toml", "examples/games/oh-hell.toml", "examples/games/spades.toml"]
ALL = game_names() + [TEST_GAME[0]] + RULES_FILES


@pytest.fixture
def game(request, monkeypatch):
    """The game named by the test's ``name`` parameter (High Card registered for the test)."""
    name = request.node.callspec.params["name"]
    if name == TEST_GAME[0]:
        monkeypatch.setitem(GAMES, name, TEST_GAME[1:])
    return get_game(name)


def _lineups(game, players):
    names = list(game.builtin_strategies())
    yield "random"
    yield ",".join(names[k % len(names)] for k in range(players))  # every built-in seated


@pytest.mark.parametrize("name", ALL)
def test_every_player_count_and_strategy_plays_to_the_end(name, game):
    for players in game.player_counts:
        setup = game.setup(players, game.variant())
        for spec in _lineups(game, players):
            result = run_games(game, setup, game.lineup(spec, players), game.variant(), 11, 3000, progress=False)
            frame = result.frame  # run_games raises if any game ended on an illegal move
            assert frame.height == 3000 and frame["game"].to_list() == list(range(3000))
            shares = frame.select(pl.sum_horizontal(f"share_{s}" for s in range(players))).to_series()
            assert (shares - 1.0).abs().max() < 1e-5, (name, players, spec)
            for s in range(players):
                assert frame[f"score_{s}"].dtype == pl.Int16 and frame[f"share_{s}"].dtype == pl.Float32
                assert frame[f"score_{s}"].min() >= game.min_score
            assert result.meta["game"] == name and result.meta["players"] == players


@pytest.mark.parametrize("name", ALL)
def test_events_schema(name, game):
    """Every event the metadata names is an unsigned integer count column of the rows, counted
    per a unit the summary knows; nothing else is called an event."""
    for players in game.player_counts:
        setup = game.setup(players, game.variant())
        result = run_games(game, setup, game.lineup("random", players), game.variant(), 3, 500, progress=False)
        columns, events = result.frame.schema, result.meta["events"]
        assert events and len({e["column"] for e in events}) == len(events)
        for event in events:
            assert set(event) == {"column", "label", "per"} and event["label"]
            assert columns[event["column"]] in (pl.UInt8, pl.UInt16, pl.UInt32), (players, event)
            assert result.frame[event["column"]].min() >= 0


@pytest.mark.parametrize("name", ALL)
def test_kernel_equals_reference_game_for_game(name, game):
    """Random play by the compiled kernel and by the plain-Python reference, from the same seed:
    the same final scores and win shares in every game, at every player count."""
    for players in game.player_counts:
        setup = game.setup(players, game.variant())
        frame = run_games(game, setup, game.lineup("random", players), game.variant(), 21, 60,
                          progress=False).frame
        for index in range(60):
            scores, shares = game.reference_result(setup, 21, index)
            assert scores == [frame[f"score_{s}"][index] for s in range(players)], (name, players, index)
            assert shares == pytest.approx([frame[f"share_{s}"][index] for s in range(players)], abs=1e-6)


@pytest.mark.parametrize("name", ALL)
def test_same_rows_for_any_thread_count_and_chunk_size_and_replays_match(name, game):
    import numba

    for players in game.player_counts:
        setup = game.setup(players, game.variant())
        lineup = game.lineup(game.strong_strategy, players)
        runs = [run_games(game, setup, lineup, game.variant(), 5, 2000, chunk_size=chunk, threads=threads,
                          progress=False).frame
                for threads, chunk in ((1, 700), (numba.config.NUMBA_NUM_THREADS, 2000), (1, 2000))]
        assert runs[0].equals(runs[1]) and runs[1].equals(runs[2]), (name, players)
        for index in (0, 1234, 1999):
            log = game.replay(setup, lineup, 5, index)
            assert log["scores"] == [runs[0][f"score_{s}"][index] for s in range(players)]


@pytest.mark.parametrize("name", ALL)
def test_duplicate_deals_turn_the_hands_round_the_table(name, game):
    """Game DUPLICATE + k at N seats is deal k // N turned k % N seats (simcore/rng.py): rotation 0
    is the ordinary game of its deal, row for row; every rotation deals the same hands, seat s's
    moved to seat s + r; the kernel equals the reference there too (the seats' PLAY streams move
    with the hands).  A game whose chance cannot turn (ALEA) refuses, in one line."""
    if not game.duplicate_deals:
        setup = game.setup(game.player_counts[0], game.variant())
        with pytest.raises(BalanceError, match="cannot play duplicate deals: .*dice"):
            run_games(game, setup, game.lineup("random", setup.players), game.variant(), 21, 6, start=DUPLICATE,
                      progress=False)
        return
    deals = 15
    for players in game.player_counts:
        setup = game.setup(players, game.variant())
        lineup = game.lineup("random", players)
        turned = run_games(game, setup, lineup, game.variant(), 21, deals * players, start=DUPLICATE,
                           progress=False).frame
        plain = run_games(game, setup, lineup, game.variant(), 21, deals, progress=False).frame
        assert turned["game"].to_list() == [DUPLICATE + k for k in range(deals * players)]
        assert turned.drop("game").gather_every(players).equals(plain.drop("game")), (name, players)
        for k in range(deals * players):
            scores, shares = game.reference_result(setup, 21, DUPLICATE + k)
            assert scores == [turned[f"score_{s}"][k] for s in range(players)], (name, players, k)
            assert shares == pytest.approx([turned[f"share_{s}"][k] for s in range(players)], abs=1e-6)
        indices = np.arange(deals * players, dtype=np.int64) + DUPLICATE
        hands = game.opening_masks(setup, 21, indices)
        first = game.opening_masks(setup, 21, np.arange(deals, dtype=np.int64))
        for k in range(deals * players):
            deal, rotation = divmod(k, players)
            assert [hands[k, (s + rotation) % players] for s in range(players)] == list(first[deal]), (name, k)
        assert len({tuple(h) for h in hands.tolist()}) > deals  # the turns do move the hands


def _scenario_files(name):
    return sorted((ROOT / "examples" / "scenarios").glob(f"{name}-*.json"))


@pytest.mark.parametrize("name", game_names())
def test_shipped_scenarios_play_through_both_engines(name):
    """Each shipped scenario of the game plays through ``balance play`` and meets its "expect"
    block; a scenario named *illegal* is refused with one line and exit 2."""
    files = _scenario_files(name)
    assert files, f"{name} ships no scenario"
    for path in files:
        code, out, err = balance("play", path)
        if "illegal" in path.name:
            assert code == 2 and len(err.strip().splitlines()) == 1, (path.name, err)
        else:
            assert code == 0 and "EXPECTATION FAILED" not in out, (path.name, out, err)


def test_high_card_scenario_round_trip(high_card_registered, tmp_path):
    """A game the kernel played, written as a scenario, plays back to the same tricks and scores."""
    game = get_game(high_card_registered)
    setup = game.setup(3, game.variant())
    log = game.replay(setup, game.lineup("highest,random,random", 3), 9, 42)
    plays = [t["cards"][(t["leader"] + i) % 3] for t in log["tricks"] for i in range(3)]
    scenario = {"game": "high-card", "players": 3, "hands": log["hands"], "plays": plays,
                "expect": {"scores": log["scores"], "winners": [t["winner"] for t in log["tricks"]]}}
    path = tmp_path / "round-trip.json"
    path.write_text(json.dumps(scenario))
    code, out, err = balance("play", path)
    assert code == 0 and "EXPECTATION FAILED" not in out, (out, err)
    path.write_text(json.dumps({**scenario, "plays": [99] + plays[1:]}))
    code, out, err = balance("play", path)
    assert code == 2 and "cannot play 99" in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("name", ALL)
def test_bad_input_is_refused(name, game, tmp_path):
    with pytest.raises(BalanceError, match="players"):
        game.setup(max(game.player_counts) + 1, game.variant())
    with pytest.raises(BalanceError, match="unknown strategy"):
        game.lineup("no-such-player", game.player_counts[0])
    with pytest.raises(BalanceError, match="unknown key"):
        game.variant(overrides={"no_such_rule": 1})
    assert np.all([isinstance(text, str) for _, text in game.variant_keys.values()])
    variant = tmp_path / "bad.toml"
    variant.write_text(f"game = \"{name}\"\nno_such_rule = 1\n")
    out = tmp_path / "never.parquet"
    code, _, err = balance("simulate", name, "-n", 10, "-q", "--variant", variant, "--out", out)
    assert code == 2 and len(err.strip().splitlines()) == 1 and "no_such_rule" in err and not out.exists()
