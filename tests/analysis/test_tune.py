"""`balance tune`: tune spaces refused with one exact line; candidates listed by size (steps), the
smallest first; the racing rule keeps the best candidate and rules out only on an interval wholly
outside a target; the same seed gives the same tune; a stopped tune resumed gives the
uninterrupted answer; the broken examples are tuned back to their smallest repair, every smaller
change ruled out, and a space too large for its budget says so."""
from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from analysis import tune as tuner
from analysis import tune_levels as levels
from analysis.tune_space import games_for_precision, load_space
from conftest import balance
from simcore.errors import BalanceError, RunInterrupted

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "tune"
SHORT_HANDS = EXAMPLES / "bird-weather-short-hands.toml"
CARD_99 = EXAMPLES / "bird-weather-card-99.toml"
PUBLISHED_DECK = list(range(10, 50))  # BIRD & WEATHER's forty cards, 10..49
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
                     "unknown game 'chess' (known: bird-weather, chimera, sky-city, ten-tricks, triatri, "
                     "or a rules file's path)"),
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
# the size of a change, and the candidates listed by size
# --------------------------------------------------------------------------------------------

def test_the_size_of_a_change_is_its_steps():
    """One step per key changed however far it moves; in a deck one per swap (one card out, one
    in), and one per card added or removed without a partner."""
    cards = load_space(EXAMPLES / "bird-weather-card-99.space.toml").changes[0]
    deck = list(cards.original)
    assert levels.key_steps(cards, deck) == 0
    assert levels.key_steps(cards, [c for c in deck if c != 99] + [49]) == 1        # −99 +49: a swap
    assert levels.key_steps(cards, deck + [49]) == 1                                # +49 alone
    assert levels.key_steps(cards, [c for c in deck if c != 47] + [49, 50, 59]) == 3  # −47 +49 +50 +59
    assert levels.key_steps(cards, [c for c in deck if c not in (47, 99)] + [49]) == 2  # −47 −99 +49
    space = load_space(EXAMPLES / "bird-weather-short-hands.space.toml")
    assert levels.steps_of({"hand_size": 3, "deals": 1}, space) == 0
    assert levels.steps_of({"hand_size": 10, "deals": 1}, space) == 1
    assert levels.steps_of({"hand_size": 4, "deals": 1}, space) == 1
    assert levels.steps_of({"hand_size": 6, "deals": 3}, space) == 2


@pytest.mark.parametrize("example", ["bird-weather-card-99", "bird-weather-short-hands", "triatri-scarce-gems"])
def test_candidates_are_listed_by_size_smallest_first(example):
    """Every candidate of the space once, in sizes that never decrease (the rules tuned from, then
    every one-key change and one-card swap, then the larger ones), each size by distance."""
    space = load_space(EXAMPLES / f"{example}.space.toml")
    counts = levels.level_counts(space)
    listing = [(size, params) for size in range(len(counts)) for params in levels.level_candidates(space, size)]
    sizes = [levels.steps_of(params, space) for _, params in listing]
    assert sizes == [size for size, _ in listing] == sorted(sizes)
    assert sizes[0] == 0 and tuner.settings_of(listing[0][1], space)[0] == {}
    keys = [tuner._key(params) for _, params in listing]
    assert len(set(keys)) == len(keys)
    for size in range(len(counts)):
        distances = [round(tuner.settings_of(p, space)[2], 12) for s, p in listing if s == size]
        assert len(distances) == counts[size] and distances == sorted(distances)
    if example == "bird-weather-card-99":
        assert counts == [1, 15, 33, 15] and len(keys) == 2 ** 6  # every subset of the six cards
        one_step = [tuner.settings_of(p, space)[0]["cards"] for s, p in listing if s == 1]
        assert PUBLISHED_DECK in one_step  # −99 +49 is a one-step change
    if example == "bird-weather-short-hands":
        assert counts == [1, 8 + 3, 8 * 3]  # hand_size 2..10 and deals 1..4, one or both moved


def test_a_decimal_range_without_a_step_has_infinitely_many_candidates_and_is_sampled(tmp_path):
    space = load_space(_space(tmp_path, BASE + '[[change]]\nkey = "hand_size"\nrange = [2, 10]\n' + TARGET))
    assert levels.level_counts(space) == [1, 8]
    from dataclasses import replace

    from analysis.tune_space import Change
    decimal = Change("x", "float", 1.0, 0.0, 2.0)
    assert levels.key_counts(decimal) == [1, math.inf]
    assert levels.key_counts(replace(decimal, step=0.25)) == [1, 8]  # 0, 0.25, ..., 2 but 1
    mixed = replace(space, changes=space.changes + (decimal,))
    assert levels.level_counts(mixed) == [1, math.inf, math.inf]
    assert levels.level_candidates(mixed, 1) is None  # never listed: the tuner samples it
    assert len(levels.level_candidates(space, 1)) == 8


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
        from simcore.registry import get_game

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
@pytest.mark.parametrize("exhaustive", [False, True])
def test_racing_keeps_the_best_candidate_and_drops_only_worse_ones(tmp_path, order, exhaustive):
    """A candidate is ruled out only when its interval lies wholly outside the target; in a sampled
    size it is also dropped for being worse than one that went on; in a size tried whole, never."""
    space = load_space(_space(tmp_path, BASE + CHANGE + TARGET))
    measurer = ConstructedMeasurer(space)
    rungs = [100, 400, 1600]
    pools, records = [[] for _ in rungs], []
    for number, hand in enumerate(order, start=1):
        record = tuner.evaluate(number, {"hand_size": hand}, space, measurer, rungs, pools, records, 3, 1,
                                exhaustive=exhaustive)
        records.append(record)
    by_hand = {order[r["number"] - 1]: r for r in records}
    assert by_hand[7]["status"] == "completed" and len(by_hand[7]["rungs"]) == 3
    for record in records:
        last = record["rungs"][-1]
        low, high = last["targets"][0]["ci"]
        if record["status"] == "excluded":  # its whole interval outside ±1 pp
            assert low > 1.0 and last["ruled_out"] == [0]
        else:
            assert low <= 1.0 and last["ruled_out"] == []
        if record["status"] == "dropped":  # worse, at the rung it stopped, than a candidate that went on
            assert not exhaustive
            rung = len(record["rungs"]) - 1
            assert record["rungs"][rung]["score"] > by_hand[7]["rungs"][rung]["score"]
    assert by_hand[2]["status"] == "excluded" and len(by_hand[2]["rungs"]) == 1  # [3, 7] at 100 games
    if exhaustive:  # each goes on until its interval (±20/√games around |hand − 7|) leaves ±1 pp
        assert {h for h, r in by_hand.items() if r["status"] == "completed"} == {6, 7, 8} & set(order)
        assert all(len(by_hand[h]["rungs"]) == 2 for h in (4, 10) if h in by_hand)
    if exhaustive or order == sorted(order, key=lambda hand: -abs(hand - 7)):
        # tried whole, or each candidate better than all before it (racing's worst case): none dropped
        assert all(r["status"] in ("completed", "excluded") for r in records)
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
# the broken examples tuned back to their smallest repair, within a stated budget
# --------------------------------------------------------------------------------------------

BUDGET_GAMES = 560_000  # racing + fresh games of the short-hands example with 12 candidates, 40,000 fresh games


def _inside(document: dict, row: dict) -> bool:
    return all(t["low"] <= f["ci"][0] and f["ci"][1] <= t["high"] for t, f in zip(document["targets"], row["targets"]))


def test_the_short_hands_example_is_tuned_back_within_its_budget():
    """examples/tune/bird-weather-short-hands.space.toml: three-card hands give the first seat
    about +12 pp; with 12 candidates every one-step change is tried (8 hand sizes, 3 deal counts),
    and six-card hands are the one-step change of smallest distance whose every interval lies
    inside its target on fresh games."""
    document = tuner.tune(EXAMPLES / "bird-weather-short-hands.space.toml", seed=1, progress=False, candidates=12,
                          final_games=40_000, report=False)
    original = document["original"]["targets"]
    assert original[0]["value"] > 10 and not document["original"]["met"]
    winner = document["winner"]
    assert winner["settings"] == {"hand_size": 6} and winner["size"] == 1 and winner["stage"] == "final"
    assert _inside(document, winner)
    sizes = document["search"]["levels"]
    assert [(s["size"], s["mode"], s["tried"]) for s in sizes] == [(0, "exhaustive", 1), (1, "exhaustive", 11)]
    assert sizes[0]["settled"]
    played = document["games_played"]
    assert played["racing"] < played["full_evaluation"]
    assert played["racing"] + played["finals"] <= BUDGET_GAMES, played


@pytest.fixture(scope="module")
def card_99():
    return tuner.tune(EXAMPLES / "bird-weather-card-99.space.toml", seed=1, progress=False, report=False)


def test_the_card_99_example_finds_the_one_swap_repair_and_rules_out_every_smaller_change(card_99):
    """examples/tune/bird-weather-card-99.space.toml: the deck where 99 replaced 49.  Every
    one-step change (a card added, removed, or one swapped) is tried before any larger one, and the
    answer is −99 +49, the published deck: the one swap whose intervals lie inside both targets on
    fresh games.  The rules tuned from are ruled out, and so is every one-step change that moves
    the deck less (a card added alone): an interval wholly outside a target in racing, or not
    inside both on fresh games; removing a card alone is refused (39 cards cannot deal 4 hands of
    10)."""
    document = card_99
    winner = document["winner"]
    assert winner["settings"] == {"cards": PUBLISHED_DECK} and winner["size"] == 1
    assert winner["stage"] == "final" and _inside(document, winner)
    zero, one = document["search"]["levels"]
    assert (zero["size"], zero["mode"], zero["settled"]) == (0, "exhaustive", True)
    assert (one["size"], one["mode"], one["tried"], one["refused"]) == (1, "exhaustive", 12, 3)
    rows = {row["number"]: row for row in document["candidates"]}
    assert rows[1]["settings"] == {} and rows[1]["status"] == "excluded"  # 48 far outside ±10 pp
    for row in rows.values():
        if row["size"] == 1 and row["distance"] < winner["distance"]:  # a card added or removed alone
            assert row["status"] in ("excluded", "refused") or (row["stage"] == "final" and not row["met"]), row
    first, ruled, figures = document["verdict"]["sentences"]
    assert first.startswith("The smallest change found that meets all 2 targets is cards −99 +49 "
                            "(candidate 8, size 1): all 12 one-step changes were tried")
    assert ruled.startswith("Ruled out, every smaller change: the rules tuned from (every card's strength (random) "
                            "48 (rain, cormorant) +13.")
    assert figures.startswith("On 30,000 games of fresh play, every interval inside its target")


def test_the_same_listing_and_seed_give_the_same_tune_of_an_example(card_99):
    again = tuner.tune(EXAMPLES / "bird-weather-card-99.space.toml", seed=1, progress=False, report=False)
    assert _steady(again) == _steady(card_99)


TINY = f"""
game = "bird-weather"
players = 4
variant = "{SHORT_HANDS}"

[[change]]
key = "hand_size"
range = [3, 4]

[[change]]
key = "deals"
range = [1, 2]

[[target]]
figure = "first_seat_edge"
within = 0.01                # no interval of a few thousand games lies inside ±0.01 pp

[budget]
rungs = [400, 1200]
keep = 2
finalists = 2
final_games = 2000
"""


@pytest.mark.parametrize("candidates, stopped, says", [
    (4, "space", "Ruled out, every change the space allows: the rules tuned from (first-seat edge (random) +"),
    (3, "budget", "Ruled out, every change of size 1 or less: the rules tuned from ("),
    (2, "sampled", "The budget of 2 candidates could not measure every smaller change: ruled out, the rules "
                   "tuned from ("),
])
def test_what_could_not_be_ruled_out_is_said(tmp_path, candidates, stopped, says):
    """A space of 1 + 2 + 1 candidates (sizes 0, 1, 2) whose target nothing meets: with 4
    candidates every change is ruled out; with 3 the sizes 0 and 1 are, and the budget is spent
    before size 2; with 2 the two one-step changes do not fit, one is sampled, and the verdict
    says that not every smaller change could be measured."""
    space = _space(tmp_path, TINY)
    document = tuner.tune(space, seed=1, progress=False, candidates=candidates, report=False)
    assert document["winner"] is None and document["search"]["stopped"] == stopped
    assert document["search"]["sizes"] == [1, 2, 1]
    modes = [(level["size"], level["mode"], level["tried"]) for level in document["search"]["levels"]]
    assert modes == {"space": [(0, "exhaustive", 1), (1, "exhaustive", 2), (2, "exhaustive", 1)],
                     "budget": [(0, "exhaustive", 1), (1, "exhaustive", 2)],
                     "sampled": [(0, "exhaustive", 1), (1, "sampled", 1)]}[stopped]
    first, searched = document["verdict"]["sentences"][:2]
    assert first == "No change tried meets its target."
    assert searched.startswith(says), searched
    if stopped == "sampled":
        assert "of the 2 one-step changes only 1 was tried" in searched and "larger changes were not tried" in searched
    text = tuner.format_text(document)
    assert searched in text


def test_a_winner_in_a_sampled_size_says_the_size_was_not_tried_whole(tmp_path):
    """Five one-step changes (two hand sizes, the reversal, two deal counts) and a budget of 4: the
    rules tuned from are ruled out, three one-step changes are sampled, and the answer is of size 1
    (nothing smaller meets the target) but the verdict says a one-step change that moves the rules
    less may not have been tried."""
    text = TINY.replace('range = [3, 4]', 'range = [3, 5]').replace('key = "deals"\nrange = [1, 2]',
                                                                  'key = "deals"\nvalues = [1, 2, 3]')
    text = text.replace("within = 0.01 ", "within = 3.0  ").replace("[budget]", '[[change]]\nkey = "reversal"\n'
                                                                              "values = [true, false]\n\n[budget]")
    document = tuner.tune(_space(tmp_path, text), seed=1, progress=False, candidates=4, report=False)
    zero, one = document["search"]["levels"]
    assert (zero["mode"], zero["settled"], one["mode"], one["count"], one["tried"]) == ("exhaustive", True, "sampled",
                                                                                     5, 3)
    winner = document["winner"]
    assert winner is not None and winner["size"] == 1 and _inside(document, winner)
    searched = document["verdict"]["sentences"][1]
    assert searched.startswith("Ruled out, every smaller change: the rules tuned from (first-seat edge (random) +")
    assert searched.endswith("but the 5 one-step changes are too many for the budget of 4 candidates: 3 were tried, "
                             "proposed by the TPE sampler, so one that moves the rules less may exist."), searched


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
