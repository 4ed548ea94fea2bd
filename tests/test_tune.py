"""`balance tune`: tune spaces refused with one exact line; the racing rule keeps the best candidate;
the same seed gives the same tune; a stopped tune resumed gives the uninterrupted answer; a broken
example is tuned back within a stated budget of games."""
from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from analysis import tune as tuner
from analysis.tune_space import games_for_precision, load_space
from conftest import balance
from simcore.errors import BalanceError, RunInterrupted

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples" / "tune"
SHORT_HANDS = EXAMPLES / "bird-weather-short-hands.toml"
VOLATILE = ("seconds", "whatif_seconds")

SMALL_SPACE = f"""
game = "bird-weather"
players = 4
variant = "{SHORT_HANDS}"

[[change]]
key = "hand_size"
range = [2, 10]

[[change]]
key = "deals"
range = [1, 4]

[[target]]
figure = "first_seat_edge"
within = 2.0

[budget]
candidates = 8
rungs = [400, 1200]
keep = 2
finalists = 2
final_games = 4000
"""


def _space(tmp_path: Path, text: str, name: str = "space.toml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def _steady(document: dict) -> dict:
    return {k: v for k, v in document.items() if k not in VOLATILE}


# --------------------------------------------------------------------------------------------
# the space: every mistake is one exact line, exit code 2
# --------------------------------------------------------------------------------------------

BASE = f'game = "bird-weather"\nplayers = 4\nvariant = "{SHORT_HANDS}"\n'
CHANGE = '[[change]]\nkey = "hand_size"\nrange = [2, 10]\n'
TARGET = '[[target]]\nfigure = "first_seat_edge"\nwithin = 1.0\n'

REFUSED = {
    "unknown game": ('game = "chess"\nplayers = 4\n' + CHANGE + TARGET,
                     "unknown game 'chess' (known: bird-weather, chimera, sky-city, ten-tricks, triatri)"),
    "unknown key": (BASE + '[[change]]\nkey = "flavour"\nrange = [1, 2]\n' + TARGET,
                    "'flavour' is not a variant key of bird-weather (known: cards, deals, facedown, hand_size, "
                    "reversal, zero_win)"),
    "range the rules refuse": (BASE + '[[change]]\nkey = "hand_size"\nrange = [2, 11]\n' + TARGET,
                               "change 'hand_size': range [2, 11] holds 11, which the rules refuse: a deck of 40 "
                               "cards cannot deal 4 hands of 11"),
    "range of a switch": (BASE + '[[change]]\nkey = "reversal"\nrange = [0, 1]\n' + TARGET,
                          "change 'reversal': a bool setting has no range; give values = [...]"),
    "bad target figure": (BASE + CHANGE + '[[target]]\nfigure = "fun"\nwithin = 1.0\n',
                          "target figure 'fun' is not one of first_seat_edge, seat_shares, game_length, "
                          "card_strength, skill_gap"),
    "bad tier": (BASE + CHANGE + '[[target]]\nfigure = "first_seat_edge"\nwithin = 1.0\ntier = "expert"\n',
                 "target first_seat_edge: tier 'expert' is not a skill tier of bird-weather (tiers: random, "
                 "heuristic, search)"),
    "no band": (BASE + CHANGE + '[[target]]\nfigure = "first_seat_edge"\n',
                "target first_seat_edge: say where it must lie: within = X, band = [LOW, HIGH], at_least or at_most"),
    "unknown card": (BASE + CHANGE + '[[target]]\nfigure = "card_strength"\nwithin = 2.0\ncards = ["77"]\n',
                     "target card_strength: no card '77' in the rules tuned from (cards: 10 (sun, no bird), "
                     "11 (sun, sparrow), 12 (sun, white-eye), 13 (sun, wagtail), 14 (sun, kingfisher), 15 (sun, crow), "
                     "16 (sun, gull), 17 (sun, kite) ...)"),
    "rungs not growing": (BASE + CHANGE + TARGET + "[budget]\nrungs = [4000, 1000]\n",
                          "budget.rungs must grow: [4000, 1000]"),
    "no targets": (BASE + CHANGE, "give at least one [[target]] table: what the tuned rules must meet"),
    "unknown top key": ('flavour = "x"\n' + BASE + CHANGE + TARGET,
                        "unknown key 'flavour' (known: budget, change, description, game, name, players, target, "
                        "variant)"),
}


@pytest.mark.parametrize("case", sorted(REFUSED))
def test_a_bad_space_is_one_exact_line(tmp_path, case):
    text, message = REFUSED[case]
    path = _space(tmp_path, text)
    code, out, err = balance("tune", path, "--out", tmp_path / "out")
    assert code == 2 and out == ""
    assert err.strip() == f"balance: error: {path}: {message}"
    assert not (tmp_path / "out").exists()


def test_the_published_value_of_a_key_the_variant_does_not_set_is_found_by_building_the_rules(tmp_path):
    space = load_space(_space(tmp_path, BASE + '[[change]]\nkey = "deals"\nrange = [1, 4]\n' + TARGET))
    assert space.changes[0].original == 1  # the published single deal
    assert space.changes[0].distance(4) == 1.0 and space.changes[0].distance(2) == pytest.approx(1 / 3)


def test_precision_gives_the_games_of_a_fair_share_interval():
    # 1.96² · 0.25 · 0.75 / 0.005² = 28,812 -> 29,000 at 4 players, ±0.5 pp
    assert games_for_precision(0.5, 4) == 29_000


# --------------------------------------------------------------------------------------------
# racing: a candidate goes on only among the best 1/KEEP at its rung; the best always finishes
# --------------------------------------------------------------------------------------------

def test_promotion_rule():
    assert tuner.promoted(5.0, [5.0], 3)  # the first at a rung always goes on
    assert not tuner.promoted(5.0, [1.0, 5.0], 3)  # 1 of 2 goes on: the better one
    assert tuner.promoted(2.0, [1.0, 2.0, 3.0, 4.0], 3)  # 2 of 4
    assert not tuner.promoted(3.0, [1.0, 2.0, 3.0, 4.0], 3)


class ConstructedMeasurer:
    """A candidate's first-seat edge is |hand_size − 7| pp exactly, measured with an interval of
    ±20/√games pp: noise-free, so the best candidate is known (hand_size 7)."""

    def __init__(self, space):
        from simcore.game import get_game

        self.space, self.game, self.games_played = space, get_game("bird-weather"), 0

    def variant(self, settings):
        return self.game.variant(self.space.variant_path, settings)

    def measure(self, settings, games, seed):
        hand = settings.get("hand_size", 3)
        value, half = abs(hand - 7.0), 20 / math.sqrt(games)
        self.games_played += games
        target = self.space.targets[0]
        ci = [value - half, value + half]
        miss = target.miss(ci)
        return [{"value": value, "ci": ci, "miss": miss, "met": miss == 0.0}]


@pytest.mark.parametrize("order", [[2, 3, 4, 5, 6, 7], [7, 2, 3, 4, 5, 6, 8, 9, 10],
                                   [10, 2, 9, 3, 7, 8, 4, 6, 5]])
def test_racing_keeps_the_best_candidate_and_drops_only_worse_ones(tmp_path, order):
    space = load_space(_space(tmp_path, BASE + CHANGE + TARGET))
    measurer = ConstructedMeasurer(space)
    rungs = [100, 400, 1600]
    pools, records = [[] for _ in rungs], []
    for number, hand in enumerate(order, start=1):
        record = tuner.evaluate(number, {"hand_size": hand}, space, measurer, rungs, pools, records, 3, 1)
        records.append(record)
    by_hand = {order[r["number"] - 1]: r for r in records}
    assert by_hand[7]["status"] == "completed" and len(by_hand[7]["rungs"]) == 3
    for record in records:
        if record["status"] == "dropped":  # worse, at the rung it stopped, than a candidate that went on
            rung = len(record["rungs"]) - 1
            assert record["rungs"][rung]["score"] > by_hand[7]["rungs"][rung]["score"]
    if order == sorted(order, key=lambda hand: -abs(hand - 7)):
        # each candidate better than all before it: each is promoted (racing's worst case)
        assert all(r["status"] == "completed" for r in records)
    else:
        assert measurer.games_played < len(order) * rungs[-1]  # what every candidate at the last rung takes


# --------------------------------------------------------------------------------------------
# reproducible, resumable
# --------------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def small_tune(tmp_path_factory):
    folder = tmp_path_factory.mktemp("tune")
    space = _space(folder, SMALL_SPACE)
    return space, tuner.tune(space, seed=3, progress=False, report=False)


def test_the_same_seed_gives_the_same_tune(small_tune):
    space, first = small_tune
    again = tuner.tune(space, seed=3, progress=False, report=False)
    assert _steady(again) == _steady(first)
    other = tuner.tune(space, seed=4, progress=False, report=False)
    assert [r["settings"] for r in other["candidates"]] != [r["settings"] for r in first["candidates"]]


def test_a_stopped_tune_resumed_gives_the_uninterrupted_answer(small_tune, tmp_path, monkeypatch):
    space, uninterrupted = small_tune
    out = tmp_path / "out"
    real, calls = tuner.evaluate, []

    def stop_at_the_fourth(*args, **kwargs):
        calls.append(1)
        if len(calls) == 4:
            raise KeyboardInterrupt
        return real(*args, **kwargs)

    monkeypatch.setattr(tuner, "evaluate", stop_at_the_fourth)
    with pytest.raises(RunInterrupted):
        tuner.tune(space, seed=3, out=out, progress=False, report=False)
    journal = json.loads((out / tuner.JOURNAL).read_text())
    assert len(journal["candidates"]) == 3
    monkeypatch.setattr(tuner, "evaluate", real)
    resumed = tuner.tune(space, seed=3, out=out, resume=True, progress=False, report=False)
    assert _steady(resumed) == _steady(uninterrupted)
    # another seed is another tune: the journal is refused, with one line
    with pytest.raises(BalanceError, match=r"made with another seed \(3, now 5\)"):
        tuner.tune(space, seed=5, out=out, resume=True, progress=False, report=False)


# --------------------------------------------------------------------------------------------
# a broken example tuned back, within a stated budget
# --------------------------------------------------------------------------------------------

BUDGET_GAMES = 450_000  # racing + finalists of the short-hands example with 12 candidates, 40,000 fresh games


def test_the_short_hands_example_is_tuned_back_within_its_budget():
    """examples/tune/bird-weather-short-hands.space.toml: three-card hands give the first seat
    about +12 pp; the tuner finds rules whose first-seat edge lies within ±1 pp and every seat
    within ±2 pp, with their whole intervals, on fresh games."""
    document = tuner.tune(EXAMPLES / "bird-weather-short-hands.space.toml", seed=1, progress=False, candidates=12,
                          final_games=40_000, report=False)
    original = document["original"]["targets"]
    assert original[0]["value"] > 10 and not document["original"]["met"]
    winner = document["winner"]
    assert winner is not None and winner["settings"] and winner["stage"] == "final"
    for target, figure in zip(document["targets"], winner["targets"]):
        assert target["low"] <= figure["ci"][0] and figure["ci"][1] <= target["high"], (target, figure)
    played = document["games_played"]
    assert played["racing"] < played["full_evaluation"]
    assert played["racing"] + played["finals"] <= BUDGET_GAMES, played


def test_the_command_writes_its_pages_and_json(tmp_path):
    space = _space(tmp_path, SMALL_SPACE)
    out = tmp_path / "out"
    code, text, err = balance("tune", space, "--seed", "3", "--candidates", "4", "-n", "2000", "--out", out, "-q",
                              "--json")
    assert code == 0, err
    document = json.loads(text)
    assert document["budget"]["candidates"] == 4 and document["budget"]["final_games"] == 2000
    names = {p.name for p in out.iterdir()}
    assert {"tune.md", "tune.html", "tune.json", "summary.json", tuner.JOURNAL} <= names
    assert json.loads((out / "tune.json").read_text())["verdict"] == document["verdict"]
    assert (out / "tune.md").read_text().startswith("# Tune: Trick-Take BIRD & WEATHER")
    if document["winner"] is not None:
        assert (out / "winner.toml").is_file() and (out / "whatif" / "whatif.html").is_file()
    code, _, err = balance("tune", space, "--out", out, "-q")
    assert code == 2 and "the report folder exists" in err


def test_a_tune_on_a_dask_cluster_gives_the_same_answer(small_tune):
    """--cluster: every run of the tune plays its chunks on the cluster of the command (here two
    local worker processes); the candidates, figures and answer are those of one process."""
    from simcore.cluster import open_executor, use

    space, here = small_tune
    with open_executor("local:2") as executor, use(executor):
        there = tuner.tune(space, seed=3, progress=False, report=False)
    assert _steady(there) == _steady(here)
