"""The Sky City of ALEA: compiled kernel against the plain-Python reference, game for game;
simulated trap trigger rates against the exact odds; strategies against each other."""
import numpy as np
import pytest

from simcore.driver import run_games
from simcore.game import get_game
from simcore.games.sky_city.game import reference_log

DIFFERENTIAL_GAMES = 20_000
SHARED_COUNTERS = ("rounds", "first_roll_triggers", "escapes", "escapes_succeeded", "zero_bonuses", "all_zero_rounds")


@pytest.fixture(scope="module")
def sky_city():
    return get_game("sky-city")


def _compare(kernel: dict, reference: dict, index: int) -> None:
    for a, b in zip(kernel["rounds"], reference["rounds"]):
        assert a == b, f"game {index}, round {a['round']}:\n kernel    {a}\n reference {b}"
    assert len(kernel["rounds"]) == len(reference["rounds"]), f"game {index}: round count"
    assert kernel["scores"] == reference["scores"] and kernel["winner"] == reference["winner"], f"game {index}"
    assert {k: kernel["counters"][k] for k in SHARED_COUNTERS} == {k: reference["counters"][k] for k in SHARED_COUNTERS}
    assert bool(kernel["counters"]["capped"]) == reference["capped"]
    assert bool(kernel["counters"]["rolloff"]) == reference["rolloff"]


@pytest.mark.parametrize("players", [3, 4, 5])
def test_kernel_matches_reference_on_random_games(sky_city, players):
    setup = sky_city.setup(players, sky_city.variant())
    logs = sky_city.kernel_logs(setup, sky_city.lineup("random", players), 500 + players, range(DIFFERENTIAL_GAMES))
    for index, log in enumerate(logs):
        _compare(log, reference_log(setup, 500 + players, index), index)
    counted = {k: sum(log["counters"][k] for log in logs) for k in SHARED_COUNTERS}
    assert counted["escapes"] > 1000 and counted["first_roll_triggers"] > 1000 and counted["zero_bonuses"] > 100


@pytest.mark.parametrize("players,lineup", [(3, "expected-value,cautious,fixed:3"),
                                            (5, "cautious:0.1,expected-value,random,fixed:5,fixed:0")])
def test_reference_replays_strategy_declarations(sky_city, players, lineup):
    setup = sky_city.setup(players, sky_city.variant())
    logs = sky_city.kernel_logs(setup, sky_city.lineup(lineup, players), 77, range(2000))
    for index, log in enumerate(logs):
        _compare(log, reference_log(setup, 77, index, decisions_from=log), index)


@pytest.mark.parametrize("settings", [{"dice_per_player": 3}, {"target": 6, "final_multiplier": 3},
                                      {"zero_bonus": 5, "max_rounds": 4}])
def test_kernel_matches_reference_under_variants(sky_city, settings):
    setup = sky_city.setup(4, sky_city.variant(overrides=settings))
    logs = sky_city.kernel_logs(setup, sky_city.lineup("random", 4), 9, range(2000))
    for index, log in enumerate(logs):
        _compare(log, reference_log(setup, 9, index), index)
    if "max_rounds" in settings:
        assert any(log["counters"]["capped"] for log in logs)


def test_simulated_trigger_rates_agree_with_exact_odds(sky_city):
    """Fresh dice (a round's first roll, every escape reroll) fire at the exact odds: every
    (trap, dice) cell with enough judgements passes an exact two-sided binomial test at 0.001 (a
    Wilson interval is too narrow near 0 and 1 and raises false alarms there)."""
    from analysis.traps import check_cells

    setup = sky_city.setup(4, sky_city.variant())
    run = run_games(sky_city, setup, sky_city.lineup("random", 4), sky_city.variant(), 3, 200_000, progress=False)
    tallies = run.meta["trap_tallies"]
    judged, fired, exact = (np.array(tallies[k]) for k in ("judged", "fired", "exact"))
    cells, outside, failing = check_cells(judged, fired, exact, range(len(judged)))
    assert cells > 300
    assert outside <= max(1, cells // 500), failing  # 0.1% of cells may fail by chance


def test_expected_value_beats_random_and_fixed(sky_city):
    setup = sky_city.setup(4, sky_city.variant())
    for others in ("random", "fixed:2", "fixed:3"):
        columns = sky_city.run_chunk(setup, sky_city.lineup(f"expected-value,{others},{others},{others}", 4), 1, 0, 40_000)
        assert float(np.mean(columns["share_0"])) > 0.40, others  # a fair share is 0.25


def test_same_seed_same_game(sky_city):
    setup = sky_city.setup(4, sky_city.variant())
    lineup = sky_city.lineup("cautious,expected-value,random,fixed:1", 4)
    assert sky_city.kernel_logs(setup, lineup, 5, [3, 4]) == sky_city.kernel_logs(setup, lineup, 5, [3, 4])
