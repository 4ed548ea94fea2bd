"""Card cause (``balance cards --cause``, analysis/cause.py): the withheld-card mask of the play
loops (``Game.withheld_setup``, ``simcore.play.withhold``) and the paired statistic.

The mask must change nothing where nobody holds the card, must leave every ordinary run as it was,
and must bind: a strong card withheld costs its holder games.  The statistic is checked on frames
where the answer is known exactly, and the flags against BH and the threshold.
"""
from __future__ import annotations

import json
import math

import numpy as np
import pytest

from analysis import cause, stats
from analysis.verdict import judge
from conftest import balance
from simcore.driver import run_games
from simcore.errors import BalanceError
from simcore.registry import get_game
from simcore.play import withhold, withhold_slots

CARD_GAMES = ("bird-weather", "chimera", "ten-tricks", "triatri")


def test_withhold_keeps_a_legal_move():
    legal = np.uint64(0b1011)
    assert withhold(legal, np.uint64(0)) == legal                 # nothing withheld: unchanged
    assert withhold(legal, np.uint64(0b0010)) == np.uint64(0b1001)
    assert withhold(np.uint64(0b0010), np.uint64(0b0010)) == np.uint64(0b0010)  # the only move stays legal
    assert withhold_slots(np.uint64(0b10), np.uint64(0b11), np.uint64(0b01)) == (np.uint64(0b10), np.uint64(0b10))
    assert withhold_slots(np.uint64(0b01), np.uint64(0b01), np.uint64(0b01)) == (np.uint64(0b01), np.uint64(0b01))


@pytest.mark.parametrize("name", CARD_GAMES)
def test_withheld_setup_sets_only_the_cards_bits(name):
    game = get_game(name)
    setup = game.setup(game.player_counts[-1], game.variant())
    assert setup.rules[game.rules.R_WITHHELD] == 0  # ordinary runs withhold nothing
    bits = game.card_of_bit(setup)
    card = game.card_names(setup)[-1]
    withheld = game.withheld_setup(setup, card)
    mask = int(np.array([withheld.rules[game.rules.R_WITHHELD]]).view(np.uint64)[0])
    assert mask == sum(1 << b for b, n in enumerate(bits) if n == card)
    others = np.delete(np.arange(setup.rules.size), game.rules.R_WITHHELD)
    assert np.array_equal(withheld.rules[others], setup.rules[others])
    assert setup.rules[game.rules.R_WITHHELD] == 0  # the setup given is not changed
    with pytest.raises(BalanceError, match="no card 'joker'"):
        game.withheld_setup(setup, "joker")


# sha256 (16 hex digits) of the rows of games 0..999 of seed 3, 4 players, heuristic,random,greedy,random,
# written by the engine before the withheld-card mask existed (main at 7b6a865): an empty mask must
# leave every ordinary run as it was, to the bit
BEFORE_THE_MASK = {"bird-weather": "818ca829802143c5", "chimera": "3bc75c069a1f9c8d",
                   "ten-tricks": "72edabbc2a14c8ee", "triatri": "5d1f81ca0d274efb"}


def _digest(frame) -> str:
    import hashlib

    digest = hashlib.sha256()
    for column in frame.columns:
        digest.update(column.encode())
        digest.update(np.ascontiguousarray(frame[column].to_numpy()).tobytes())
    return digest.hexdigest()[:16]


@pytest.mark.parametrize("name", CARD_GAMES)
def test_ordinary_runs_are_bit_identical_to_the_engine_before_the_mask(name):
    game = get_game(name)
    variant = game.variant()
    setup = game.setup(4, variant)
    lineup = game.lineup("heuristic,random,greedy,random", 4)
    frame = run_games(game, setup, lineup, variant, 3, 1000, progress=False, keep_frame=True).frame
    assert _digest(frame) == BEFORE_THE_MASK[name]


def _shares(frame, players):
    return np.column_stack([frame[f"share_{s}"].to_numpy() for s in range(players)])


def test_withholding_changes_only_games_where_the_card_is_dealt():
    """BIRD & WEATHER, 3 players, hands of 8 from 30 cards: each card is left out of some deals;
    there the withheld run must be the as-dealt run to the bit, and elsewhere it must bind."""
    game = get_game("bird-weather")
    variant = game.variant(overrides={"hand_size": 8})
    setup = game.setup(3, variant)
    lineup = game.lineup("heuristic", 3)
    games = 600
    base = run_games(game, setup, lineup, variant, 5, games, progress=False, keep_frame=True).frame
    card = "10 (sun, no bird)"
    held = game.opening_hands(setup, 5, np.arange(games))[:, :, game.card_names(setup).index(card)].sum(axis=1)
    restricted = run_games(game, game.withheld_setup(setup, card), lineup, variant, 5, games, progress=False,
                           keep_frame=True).frame
    undealt = held == 0
    assert 0 < undealt.sum() < games
    assert restricted.filter(undealt).equals(base.filter(undealt))
    changed = (_shares(restricted, 3) != _shares(base, 3)).any(axis=1)
    assert changed[~undealt].any()


def test_paired_worth_exact():
    """Three games, two seats; the holder's differences are +1, -0.5 and (game 3) none."""
    base = np.array([[1.0, 0.0], [0.5, 0.5], [0.0, 1.0]])
    withheld = np.array([[0.0, 1.0], [1.0, 0.0], [0.0, 1.0]])
    held = np.array([[1, 0], [0, 1], [0, 0]], dtype=np.uint8)
    row = cause.paired_worth(base, withheld, held)
    # a = (+1, +0.5, 0), b = (1, 1, 0): worth = 1.5 / 2
    assert row["delta"] == pytest.approx(0.75)
    residual = np.array([1 - 0.75, 0.5 - 0.75, 0.0])
    se = math.sqrt(3 / 2 * (residual ** 2).sum()) / 2
    assert row["ci_low"] == pytest.approx(0.75 - stats.z_for() * se)
    assert row["p"] == pytest.approx(2 * stats.normal_cdf(-0.75 / se))
    assert row["games_held"] == 2 and row["games_changed"] == 2


def test_paired_worth_counts_every_holder_of_a_copy():
    base = np.array([[0.5, 0.5, 0.0], [1.0, 0.0, 0.0]])
    withheld = np.array([[0.0, 0.0, 1.0], [1.0, 0.0, 0.0]])
    held = np.array([[1, 2, 0], [1, 0, 0]], dtype=np.uint8)  # game 1: two holders
    row = cause.paired_worth(base, withheld, held)
    assert row["delta"] == pytest.approx((0.5 + 0.5 + 0.0) / 3)
    assert row["games_held"] == 3 and row["games_changed"] == 1


def test_a_strong_card_withheld_costs_its_holder():
    """BIRD & WEATHER's 10 (the deck's lowest card: it wins every reversal) is worth several points
    of win share when played; flags follow BH and the threshold."""
    doc = cause.card_cause("bird-weather", 4, 3000, seed=2, progress=False,
                           cards=["10 (sun, no bird)", "23 (wind, wagtail)"])
    ten = next(r for r in doc["cards"] if r["card"] == "10 (sun, no bird)")
    assert ten["ci_low"] > 0.01 and ten["games_held"] == 3000  # measured: +3.5 pp [+1.8, +5.2]
    for r in doc["cards"]:
        assert r["flagged"] == (r["q"] < 0.05 and judge(r["delta"], (r["ci_low"], r["ci_high"]), 0.02) == "beyond")
        assert r["q"] >= r["p"]
    assert "10 (sun, no bird) +3.5 pp" in doc["verdict"]["sentences"][0]  # named as the game names it
    assert [r["delta"] for r in doc["cards"]] == sorted((r["delta"] for r in doc["cards"]), reverse=True)


def test_cause_cli_json_and_page(tmp_path):
    out = tmp_path / "cause"
    code, text, err = balance("cards", "triatri", "-p", "3", "--cause", "-n", "300", "--card", "fire-5",
                              "--card", "fake", "--json", "--out", out, "-q")
    assert code == 0, err
    doc = json.loads(text)
    assert {r["card"] for r in doc["cards"]} == {"fire-5", "fake"}
    assert doc["thresholds"] == {"card_pp": 2.0}
    page = (out / "cause.md").read_text()
    assert page.index("Verdict") < page.index("card-cause.png") < page.index("| card |")
    assert (out / "cause.html").exists() and json.loads((out / "summary.json").read_text())["games"] == 300


@pytest.mark.parametrize("args, fragment", [
    (("cards", "sky-city", "--cause"), "deals no hands of cards, so it has no card cause"),
    (("cards", "bird-weather", "--cause", "--card", "joker", "-n", "10"), "has no card 'joker'"),
    (("cards", "bird-weather", "--card", "10 (sun, no bird)"), "--card needs --cause"),
    (("cards", "bird-weather", "--cause", "-n", "1"), "at least 2"),
    (("cards", "bird-weather", "--cause", "-s", "nobody"), "unknown strategy"),
])
def test_cause_errors_are_one_line(args, fragment):
    code, out, err = balance(*args)
    assert code == 2 and len(err.strip().splitlines()) == 1 and fragment in err, err
