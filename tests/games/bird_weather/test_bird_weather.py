"""BIRD & WEATHER: the compiled kernel against the plain-Python reference, game for game,
and the rulebook's examples through both engines."""
import numpy as np
import pytest

from simcore.errors import BalanceError
from simcore.games.bird_weather import rules as bw

# sized by the coverage rule of tests/conftest.py; the binding one: zero wins, 1,906 / 3,824 games
# needed at 4 / 5 players (reversals, 1,406 at 3)
DIFFERENTIAL_GAMES = 4_000


def _first_difference(kernel: dict, reference: dict) -> str:
    for key in ("deals", "tricks", "scores", "shares", "counters"):
        if kernel[key] != reference[key]:
            if key == "tricks":
                for a, b in zip(kernel["tricks"], reference["tricks"]):
                    if a != b:
                        return f"trick differs:\n kernel    {a}\n reference {b}"
            return f"{key}: kernel {kernel[key]} reference {reference[key]}"
    return ""


@pytest.mark.differential
@pytest.mark.parametrize("players", [3, 4, 5])
def test_kernel_matches_reference_on_random_games(bird_weather, players):
    """Same draws, independent rules: identical deals, trick winners, points, picks, scores."""
    game = bird_weather
    setup = game.setup(players, game.variant())
    lineup = game.lineup("random", players)
    seed = 20260 + players
    logs = game.kernel_logs(setup, lineup, seed, range(DIFFERENTIAL_GAMES))
    for index, log in enumerate(logs):
        reference = game.reference_log(setup, seed, index)
        assert log == reference, f"game {index}: {_first_difference(log, reference)}"
    # the games really exercised the special rules
    totals = {k: sum(log["counters"][k] for log in logs) for k in logs[0]["counters"]}
    assert totals["reversals"] > 1000 and totals["zero_wins"] > 1000 and totals["facedowns_taken"] > 1000


@pytest.mark.differential
@pytest.mark.parametrize("players,lineup", [(3, "heuristic,greedy,random"), (4, "heuristic"),
                                            (5, "greedy,heuristic,random,heuristic,greedy")])
def test_reference_accepts_and_scores_strategy_decisions(bird_weather, players, lineup):
    """Every decision of the compiled strategies is legal for the oracle and scores the same."""
    game = bird_weather
    setup = game.setup(players, game.variant())
    chosen = game.lineup(lineup, players)
    logs = game.kernel_logs(setup, chosen, 99, range(3000))
    for index, log in enumerate(logs):
        reference = game.reference_log(setup, 99, index, decisions_from=log)
        assert log == reference, f"game {index}: {_first_difference(log, reference)}"


VARIANTS = [
    {"reversal": False},
    {"zero_win": False},
    {"facedown": False},
    {"deals": 3},
    {"hand_size": 8},
    {"cards": [c for c in range(10, 60) if c % 10 != 5]},  # 45 cards, no 5s
    {"cards": list(range(20, 60)), "reversal": True},  # tens 2..5: reversal on 2 and 5
]


@pytest.mark.differential
@pytest.mark.parametrize("settings", VARIANTS, ids=lambda s: ",".join(s))
def test_kernel_matches_reference_under_variants(bird_weather, settings):
    game = bird_weather
    variant = game.variant(overrides=settings)
    setup = game.setup(4, variant)
    logs = game.kernel_logs(setup, game.lineup("random", 4), 5, range(2000))
    for index, log in enumerate(logs):
        reference = game.reference_log(setup, 5, index)
        assert log == reference, f"game {index}: {_first_difference(log, reference)}"
    counters = {k: sum(log["counters"][k] for log in logs) for k in logs[0]["counters"]}
    if settings.get("reversal") is False:
        assert counters["reversals"] == 0
    if settings.get("zero_win") is False:
        assert counters["zero_wins"] == 0
    if settings.get("facedown") is False:
        assert counters["facedowns_taken"] == 0 and all(len(log["tricks"]) == 10 for log in logs)
    if "deals" in settings:
        assert all(len(log["tricks"]) == 27 and [d["leader"] for d in log["deals"]] == [0, 1, 2] for log in logs)


def test_run_chunk_rows_equal_logged_games(bird_weather):
    """The bulk runner and the logged path are the same game: scores, shares, counters."""
    game = bird_weather
    setup = game.setup(4, game.variant())
    lineup = game.lineup("heuristic,random,greedy,random", 4)
    columns = game.run_chunk(setup, lineup, 3, 100, 500)
    logs = game.kernel_logs(setup, lineup, 3, range(100, 600))
    for row, log in enumerate(logs):
        assert [int(columns[f"score_{s}"][row]) for s in range(4)] == log["scores"]
        assert [float(columns[f"share_{s}"][row]) for s in range(4)] == pytest.approx(log["shares"])
        assert {k: int(columns[k][row]) for k in log["counters"]} == log["counters"]
        opening = [sorted(log["deals"][0]["hands"][s]) for s in range(4)]
        masks = [int(columns[f"hand_{s}"][row]) for s in range(4)]
        assert [[setup.cards[i] for i in range(40) if m >> i & 1] for m in masks] == opening


# ---------------------------------------------------------------------------
# Rulebook examples (§5-② 例1..§6-③ 例7), 4 players, through both engines.
# Seats play in order from the leader (seat 0); one trick each.

def _trick(game, cards, facedown=None, picks=(), hands=None):
    data = {"game": "bird-weather", "players": 4, "hands": hands or [[c] for c in cards], "plays": cards,
            "facedown": facedown, "picks": list(picks)}
    return game.scenario(data, "rulebook example")


def test_digits_are_the_tens_and_ones_of_every_card_number():
    """The trick's resolution takes a card's digits as (no * 205) >> 11 and the rest
    (rules.digits), exact for 0..1028; make_setup lets only two-digit numbers in."""
    for no in range(1029):
        assert bw.digits(no) == (no // 10, no % 10), no
    for cards in ([10, 11, 100], [9, 10, 11]):
        with pytest.raises(BalanceError, match="two-digit"):
            bw.make_setup(3, {"cards": cards + list(range(20, 40))})


def test_example_1_follow_options(bird_weather):
    """例1: on a 35 lead, 30-34, 36-39, 15, 25, 45 follow; a player holding 15 must play it."""
    from simcore.games.bird_weather.reference import follows

    followers = [c for c in range(10, 50) if c != 35 and follows(35, c)]
    assert followers == [15, 25, 30, 31, 32, 33, 34, 36, 37, 38, 39, 45]
    hands = [[35, 11], [15, 42], [12, 43], [13, 44]]
    with pytest.raises(BalanceError, match="does not follow"):
        _trick(bird_weather, [35, 42, 12, 13], hands=hands)
    log = _trick(bird_weather, [35, 15, 12, 13, 11, 42, 43, 44], hands=hands)
    assert log["tricks"][0]["followed"] == [True, True, False, False]


@pytest.mark.parametrize("cards,winner,points,kind", [
    ([35, 37, 25, 31], 1, 1, "normal"),  # 例2: 37 wins, 31 sets 1 point
    ([26, 29, 36, 41], 2, 1, "normal"),  # 例3: 41 did not follow: 36 wins, but 41 sets 1 point
    ([13, 30, 43, 11], 3, 3, "reversal"),  # 例4: tens 1 and 4: 11 wins, highest ones digit 3 scores
])
def test_examples_2_to_4(bird_weather, cards, winner, points, kind):
    trick = _trick(bird_weather, cards)["tricks"][0]
    assert (trick["winner"], trick["points"], trick["kind"]) == (winner, points, kind)


def test_example_5_zero_win(bird_weather):
    """例5: 15, 19, 12, 10 all tens 1: the 10 wins; its 0 sends the winner to a face-down card."""
    log = _trick(bird_weather, [15, 19, 12, 10], facedown=[27, 38, 44, 16], picks=[0])
    trick = log["tricks"][0]
    assert (trick["winner"], trick["kind"], trick["points_card"]) == (3, "zero-win", 10)
    assert (trick["pick_seat"], trick["pick_card"], trick["points"]) == (0, 27, 7)


def test_example_6_mixed_tens_is_normal(bird_weather):
    """例6: 22, 20, 25, 32 all followed but tens differ: the highest, 32, wins."""
    trick = _trick(bird_weather, [22, 20, 25, 32], facedown=[18, 34, 47, 11], picks=[2])["tricks"][0]
    assert (trick["winner"], trick["kind"], trick["points_card"], trick["points"]) == (3, "normal", 20, 7)


def test_example_7_facedown_card_scores(bird_weather):
    """例7: 35, 34, 45, 20 (20 did not follow): 45 wins; the 0 of 20 → face-down 15 → 5 points."""
    log = _trick(bird_weather, [35, 34, 45, 20], facedown=[13, 15, 27, 48], picks=[1])
    trick = log["tricks"][0]
    assert trick["followed"] == [True, True, True, False]
    assert (trick["winner"], trick["pick_card"], trick["points"]) == (2, 15, 5)
    assert log["scores"] == [0, 0, 5, 0]


def test_scripted_illegal_pick_is_refused(bird_weather):
    with pytest.raises(BalanceError, match="pick"):
        _trick(bird_weather, [35, 34, 45, 20], facedown=[13, None, 27, 48], picks=[1])


def test_same_seed_same_game_any_lineup_same_deal(bird_weather):
    game = bird_weather
    setup = game.setup(4, game.variant())
    a = game.kernel_logs(setup, game.lineup("random", 4), 11, [7])[0]
    b = game.kernel_logs(setup, game.lineup("heuristic", 4), 11, [7])[0]
    assert a["deals"][0]["hands"] == b["deals"][0]["hands"]  # common random numbers
    assert a == game.kernel_logs(setup, game.lineup("random", 4), 11, [7])[0]


def test_heuristic_beats_random_clearly(bird_weather):
    game = bird_weather
    setup = game.setup(4, game.variant())
    cols = game.run_chunk(setup, game.lineup("heuristic,random,random,random", 4), 1, 0, 100_000)
    share = float(np.mean(cols["share_0"]))
    assert share > 0.35  # a fair share is 0.25; measured 0.413 over 1,000,000 games
