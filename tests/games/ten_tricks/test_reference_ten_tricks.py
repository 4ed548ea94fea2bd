"""The plain-Python 10 TRICKS LATER engine on its own: scripted scenarios with exact outcomes for
every rule, refusals of bad scripts and illegal cards, the DEAL/PLAY stream contract, and seeded
random games checked for invariants (and replayed as scenarios).

Seats, rounds and tricks are 0-based.  Rulebook headings (【②勝敗の判定】 ...) refer to
the rulebook (docs/rules/ten-tricks-later.md, Sources).  Most scenarios use a small
``hand_size`` so that a whole round fits in a few lines; the rules do not depend on it.
"""
import dataclasses

import pytest

from simcore.errors import BalanceError
from simcore.games.ten_tricks.reference import (
    COUNTER_KEYS,
    SWAP_CARD,
    BadScenario,
    IllegalMove,
    RandomDecider,
    Rules,
    ScriptedDecider,
    card_name,
    colour,
    deal_round,
    is_infected,
    legal_plays,
    number,
    parse_card,
    play_game,
    play_scenario,
    round_deck,
    round_scores,
    trick_winner,
)
from simcore.rng import DEAL, PLAY, PyStream, seat_play_streams


def ids(text: str) -> list[int]:
    """"red-3 infected-0" → [2, 32]."""
    return [parse_card(name) for name in text.split()]


def hands(*rows: str) -> list[list[str]]:
    return [row.split() for row in rows]


def tricks(*rows: str) -> list[list[str]]:
    return [row.split() for row in rows]


def counters(**nonzero):
    out = dict.fromkeys(COUNTER_KEYS, 0)
    out.update(nonzero)
    return out


def run(rules, *rounds, **top):
    return play_scenario(rules, dict(rounds=list(rounds), **top))


def refused(kind, rules, *rounds, **top) -> str:
    with pytest.raises(kind) as caught:
        run(rules, *rounds, **top)
    return str(caught.value)


ONE = Rules(players=4, hand_size=1)
TWO = Rules(players=4, hand_size=2)
THREE_CARDS = Rules(players=4, hand_size=3)


# ---------------------------------------------------------------------------
# Cards, rules, decks


def test_card_ids_and_names():
    assert [parse_card(n) for n in ("red-1", "red-8", "green-1", "yellow-5", "blue-8")] == [0, 7, 8, 20, 31]
    assert [parse_card(n) for n in ("infected-0", "infected-7", "infected-8")] == [32, 39, 40] and SWAP_CARD == 40
    assert [card_name(c) for c in (0, 12, 31, 32, 35, 40)] == \
        ["red-1", "green-5", "blue-8", "infected-0", "infected-3", "infected-8"]
    assert all(parse_card(card_name(c)) == c for c in range(41))
    assert parse_card(" Blue-3 ") == 26
    assert [colour(c) for c in (0, 9, 23, 31, 32, 40)] == [0, 1, 2, 3, -1, -1]
    assert [number(c) for c in (0, 7, 12, 32, 36, 40)] == [1, 8, 5, 0, 4, 8]
    assert [is_infected(c) for c in (31, 32)] == [False, True]
    for bad in ("red-0", "red-9", "purple-3", "infected-9", "red5", 5):
        with pytest.raises(BalanceError, match="is not a card"):
            parse_card(bad)


def test_rules_defaults_and_validation():
    three, four = Rules(players=3), Rules(players=4)
    assert (three.target, three.track_cap, three.track_bonus, three.hand_size, three.max_rounds) == (10, 8, 3, 10, 50)
    assert three.infected_values == (1, 2, 3, 4, 5, 6) and four.infected_values == tuple(range(8))
    assert Rules(players=3, colours_3=[3, 0, 1]).colours_3 == (0, 1, 3)
    for bad, message in [
        (dict(players=2), "10 TRICKS LATER is for 3-4 players, not 2"),
        (dict(players=4, target=0), "target must be a whole number >= 1, got 0"),
        (dict(players=4, track_cap=0), "track_cap must be a whole number >= 1, got 0"),
        (dict(players=4, track_bonus=-1), "track_bonus must be a whole number >= 0, got -1"),
        (dict(players=4, max_rounds=0), "max_rounds must be a whole number >= 1, got 0"),
        (dict(players=4, infected_4=(0, 8)), "infected_4 must be distinct infected values 0-7 (8 is the swap card), got (0, 8)"),
        (dict(players=3, infected_3=(1, 1)), "infected_3 must be distinct infected values 0-7 (8 is the swap card), got (1, 1)"),
        (dict(players=3, colours_3=(0, 1)), "colours_3 must be 3 distinct colours 0-3 (red, green, yellow, blue), got (0, 1)"),
        (dict(players=3, infected_3=(1, 2)), "3 hands of 10 need 30 cards but the deck has 26"),
        (dict(players=4, hand_size=11), "4 hands of 11 need 44 cards but the deck has 40"),
    ]:
        with pytest.raises(BalanceError) as caught:
            Rules(**bad)
        assert str(caught.value) == message


def test_the_two_decks():
    # 【ゲームの準備】①: 3 players: three colours + infected 1-6 = 30; 4 players: 32 + infected 0-7 = 40.
    assert round_deck(Rules(players=3), (0, 2, 3)) == list(range(8)) + list(range(16, 32)) + ids(
        "infected-1 infected-2 infected-3 infected-4 infected-5 infected-6")
    assert round_deck(Rules(players=4), (0, 1, 2, 3)) == list(range(40))


def fisher_yates(deck, rng):
    deck = list(deck)
    for i in range(len(deck) - 1, 0, -1):
        j = rng.below(i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    return deck


@pytest.mark.parametrize("players", [3, 4])
def test_deal_draws_the_removed_colour_then_shuffles(players):
    rules = Rules(players=players)
    for index in range(20):
        deal = PyStream(9, index, DEAL)
        removed, dealt = deal_round(rules, deal)
        check = PyStream(9, index, DEAL)
        colours = (0, 1, 2, 3)
        if players == 3:
            assert removed == check.below(4)
            colours = tuple(c for c in colours if c != removed)
        else:
            assert removed == -1
        deck = fisher_yates(round_deck(rules, colours), check)
        assert dealt == [sorted(deck[10 * s:10 * s + 10]) for s in range(players)]
        assert sorted(c for hand in dealt for c in hand) == round_deck(rules, colours)   # everything dealt
        assert SWAP_CARD not in deck
        assert deal.below(1 << 30) == check.below(1 << 30)                               # same position
    # fixed colours: no colour draw
    fixed = Rules(players=3, colours_3=(1, 2, 3))
    removed, dealt = deal_round(fixed, PyStream(9, 0, DEAL))
    assert removed == -1 and dealt[0] == sorted(fisher_yates(round_deck(fixed, (1, 2, 3)), PyStream(9, 0, DEAL))[:10])


# ---------------------------------------------------------------------------
# 【①カードのプレイ】: legal cards


def test_infected_may_not_be_led_until_unlocked_or_the_hand_is_all_infected():
    hand = ids("red-3 blue-5 infected-2 infected-4")
    assert legal_plays(TWO, hand, [], False) == ids("red-3 blue-5")
    assert legal_plays(TWO, hand, [], True) == sorted(hand)
    assert legal_plays(TWO, ids("infected-4 infected-2"), [], False) == ids("infected-2 infected-4")


def test_follow_rules():
    hand = ids("red-2 red-5 green-4 infected-3")
    assert legal_plays(TWO, hand, ids("red-7"), False) == ids("red-2 red-5")              # two or more: colour only
    one = ids("red-2 green-4 blue-1 infected-3 infected-6")
    assert legal_plays(TWO, one, ids("red-7 green-8"), True) == ids("red-2 infected-3 infected-6")  # exactly one
    assert legal_plays(TWO, ids("red-2 green-4"), ids("red-7"), False) == ids("red-2")     # one, no infected
    assert legal_plays(TWO, hand, ids("yellow-1"), False) == sorted(hand)                  # none: anything
    assert legal_plays(TWO, hand, ids("infected-0 red-8"), False) == sorted(hand)          # infected lead: anything


# ---------------------------------------------------------------------------
# 【②勝敗の判定】


def test_winner_without_infected_is_the_highest_of_the_lead_colour():
    assert trick_winner(ids("red-3 red-5 green-8 red-2")) == 1
    assert trick_winner(ids("blue-1 red-8 green-8 yellow-7")) == 0


def test_a_one_counts_nine_beside_the_eight_of_its_colour():
    assert trick_winner(ids("red-8 red-1 red-5 blue-1")) == 1
    assert trick_winner(ids("red-1 red-8 red-5")) == 0
    assert trick_winner(ids("red-5 red-1 blue-8")) == 0                  # another colour's 8: no
    assert trick_winner(ids("green-3 red-8 red-1 green-5")) == 3          # the 9 is not of the lead colour
    assert trick_winner(ids("red-2 red-8 red-1 infected-7")) == 2         # beats every infected


def test_winner_with_infected():
    assert trick_winner(ids("red-3 infected-5 blue-5 red-4")) == 2        # tie: the survivor wins
    assert trick_winner(ids("red-5 infected-5 blue-2 red-4")) == 0        # even an earlier survivor
    assert trick_winner(ids("red-3 infected-6 red-5 infected-2")) == 1    # unique highest infected
    assert trick_winner(ids("red-4 blue-6 infected-1 green-6")) == 3      # two survivors tie: the later
    assert trick_winner(ids("red-8 green-1 green-8 infected-8")) == 1     # 1-as-9 over the swap card
    assert trick_winner(ids("infected-2 green-8 red-8 blue-8")) == 3      # latest of three 8s


def test_a_plain_trick_end_to_end_with_the_track_bonus():
    record = run(ONE, dict(hands=hands("red-3", "red-5", "green-8", "red-2"),
                           tricks=tricks("red-3 red-5 green-8 red-2")))
    rnd = record.rounds[0]
    trick = rnd.tricks[0]
    assert (trick.leader, trick.winner, trick.infected, trick.level, trick.lost) == (0, 1, False, 0, [])
    assert trick.plays == [(0, 2), (1, 4), (2, 15), (3, 1)]
    assert trick.upper == [[], ids("red-2 red-3 red-5 green-8"), [], []]
    assert trick.tracks == [3, 0, 8, 2]                  # losers move by their card; the winner does not
    assert (rnd.round_scores, rnd.totals_after, rnd.tracks_end, rnd.lost_counts) == \
        ([0, 0, 3, 0], [0, 0, 3, 0], [3, 0, 8, 2], [0, 0, 0, 0])
    assert (rnd.removed_colour, rnd.swap_offers, rnd.swap, rnd.leader) == (-1, [], None, 0)
    assert (record.finished, record.winner, record.shares, record.upper_counts) == (False, -1, [0.0] * 4, [0, 4, 0, 0])
    assert record.counters == counters(rounds=1, tricks=1, bonus_taken=1)


def test_a_one_counted_as_nine_still_moves_the_track_by_one():
    record = run(ONE, dict(hands=hands("green-3", "red-8", "red-1", "green-5"),
                           tricks=tricks("green-3 red-8 red-1 green-5")))
    trick = record.rounds[0].tricks[0]
    assert trick.winner == 3 and trick.tracks == [3, 8, 1, 0]
    assert record.counters["one_as_nine"] == 1
    record = run(ONE, dict(hands=hands("red-8", "red-1", "red-5", "blue-1"), tricks=tricks("red-8 red-1 red-5 blue-1")))
    assert record.rounds[0].tricks[0].winner == 1 and record.rounds[0].tricks[0].tracks == [8, 0, 5, 1]


# ---------------------------------------------------------------------------
# 【③感染者の襲撃】, 【④生存者の救出】 and the round's score

ATTACK_HANDS = hands("red-8 blue-7", "red-2 infected-3", "red-4 green-2", "red-3 infected-0")


def test_attack_takes_the_winners_survivors_up_to_the_level_but_not_the_tricks_own():
    record = run(TWO, dict(hands=ATTACK_HANDS, tricks=tricks("red-8 red-2 red-4 red-3",
                                                             "blue-7 infected-3 green-2 infected-0")))
    first, second = record.rounds[0].tricks
    assert (first.winner, first.upper[0], first.tracks) == (0, ids("red-2 red-3 red-4 red-8"), [0, 2, 4, 3])
    assert (second.winner, second.infected, second.level, second.lost) == (0, True, 3, ids("red-2 red-3"))
    assert second.upper == [ids("red-4 red-8 green-2 blue-7"), [], [], []]   # green-2 <= 3 arrived after the attack
    assert second.tracks == [0, 5, 6, 3]                                     # an infected 0 adds nothing
    rnd = record.rounds[0]
    assert (rnd.round_scores, rnd.lost_counts, rnd.tracks_end) == ([0, 0, 0, 0], [2, 0, 0, 0], [0, 5, 6, 3])  # floor
    assert record.counters == counters(rounds=1, tricks=2, attacks=1, survivors_lost=2)


INFECTED_ZERO = dict(hands=hands("red-8 green-3 blue-8", "red-5 green-7 infected-0",
                                 "red-6 green-2 blue-2", "red-7 green-4 blue-3"),
                     tricks=tricks("red-8 red-5 red-6 red-7", "green-3 green-7 green-2 green-4",
                                   "infected-0 blue-2 blue-3 blue-8"))


def test_rescue_cap_and_an_attack_of_level_zero():
    record = run(THREE_CARDS, INFECTED_ZERO)
    t0, t1, t2 = record.rounds[0].tricks
    # trick 0: seat 1 may play its only red or its infected: it plays red-5
    assert (t0.winner, t0.tracks, t0.upper[0]) == (0, [0, 5, 6, 7], ids("red-5 red-6 red-7 red-8"))
    # trick 1: seat 1 wins, then rescues lowest first and again (2 then 3; 4 no longer fits);
    # seat 2 reaches exactly 8; seat 3 (7 + 4 > 8) does not move at all.
    assert t1.winner == 1 and t1.rescued == [[], ids("green-2 green-3"), [], []]
    assert t1.tracks == [3, 0, 8, 7] and t1.upper[1] == ids("green-4 green-7") and t1.lower[1] == ids("green-2 green-3")
    # trick 2: seat 1 holds only infected, so it may lead one; blue-8 wins; level 0 takes nothing
    # but the winner's track still drops to 0.
    assert (t2.leader, t2.winner, t2.infected, t2.level, t2.lost) == (1, 0, True, 0, [])
    assert t2.tracks == [0, 0, 8, 7] and len(t2.upper[0]) == 7
    rnd = record.rounds[0]
    assert (rnd.round_scores, rnd.tracks_end, rnd.lost_counts) == ([0, 2, 3, 0], [0, 0, 8, 7], [0, 0, 0, 0])
    assert record.upper_counts == [7, 2, 0, 0]
    assert record.counters == counters(rounds=1, tricks=3, attacks=1, survivors_rescued=2, bonus_taken=1,
                                       infected_leads=1)


UNLOCK_HANDS = hands("red-7 infected-4", "green-5 infected-2", "red-6 blue-1", "red-3 blue-2")


def test_an_infected_played_by_anyone_unlocks_infected_leads():
    record = run(TWO, dict(hands=UNLOCK_HANDS, tricks=tricks("red-7 infected-2 red-6 red-3",
                                                             "infected-4 green-5 blue-1 blue-2")))
    t0, t1 = record.rounds[0].tricks
    assert (t0.winner, t0.level, t0.tracks) == (0, 2, [0, 2, 6, 3])
    # seat 1 wins the infected lead with green-5; its track 2 drops to 0; seat 0 (+4) rescues red-3
    assert (t1.leader, t1.winner, t1.level) == (0, 1, 4)
    assert t1.rescued == [ids("red-3"), [], [], []] and t1.tracks == [1, 0, 7, 5]
    assert record.rounds[0].round_scores == [1, 0, 0, 0]
    assert record.counters == counters(rounds=1, tricks=2, attacks=2, survivors_rescued=1, infected_leads=1)


def test_rescue_takes_equal_numbers_lowest_id_first():
    # Seat 0 wins red-2 and blue-2 (no infected); later it loses with a 4 and rescues both 2s.
    record = run(TWO, dict(hands=hands("red-8 green-4", "red-2 green-8", "blue-2 yellow-1", "blue-3 yellow-2"),
                           tricks=tricks("red-8 red-2 blue-2 blue-3", "green-4 green-8 yellow-1 yellow-2")))
    t1 = record.rounds[0].tricks[1]
    assert t1.winner == 1 and t1.rescued[0] == ids("red-2 blue-2") and t1.tracks[0] == 0
    assert t1.upper[0] == ids("red-8 blue-3")


def test_round_score_parts():
    assert round_scores(TWO, [2, 0, 5, 1], [8, 8, 3, 0], [1, 4, 0, 2]) == [4, 0, 5, 0]
    assert round_scores(Rules(players=3, track_cap=6, track_bonus=5), [0, 0, 0], [6, 8, 5], [0, 0, 0]) == [5, 0, 0]


# ---------------------------------------------------------------------------
# Illegal cards


def test_leading_infected_too_early_is_refused():
    text = refused(IllegalMove, TWO, dict(hands=UNLOCK_HANDS, tricks=tricks("infected-4 green-5 red-6 red-3")))
    assert text == ("round 0, trick 0, seat 0: infected-4 may not be led: no infected card has been played "
                    "this round and seat 0 holds survivors")


def test_follow_refusals():
    rules = Rules(players=3, hand_size=3)
    deal = hands("red-7 green-1 green-2", "red-2 red-5 infected-3", "red-1 blue-4 infected-6")
    with pytest.raises(IllegalMove) as caught:
        run(rules, dict(hands=deal, tricks=tricks("red-7 infected-3 red-1")))
    assert str(caught.value) == "round 0, trick 0, seat 1: infected-3 does not follow red: seat 1 must play one of red-2, red-5"
    assert (caught.value.round, caught.value.trick, caught.value.seat, caught.value.card) == (0, 0, 1, 35)
    text = refused(IllegalMove, rules, dict(hands=deal, tricks=tricks("red-7 red-5 blue-4")))
    assert text == "round 0, trick 0, seat 2: blue-4 does not follow red: seat 2 must play red-1 or an infected card"
    # the exactly-one escape: the infected is allowed, and so is the red card itself
    for third in ("infected-6", "red-1"):
        record = run(rules, dict(hands=deal, tricks=tricks(f"red-7 red-5 {third}")))
        assert record.rounds[0].tricks[0].plays[2] == (2, parse_card(third))
    text = refused(IllegalMove, rules, dict(hands=deal, tricks=tricks("red-7 red-5 red-4")))
    assert text == "round 0, trick 0, seat 2: seat 2 does not hold red-4 (holds red-1, blue-4, infected-6)"


def test_scripted_decider_refusals():
    with pytest.raises(IllegalMove) as caught:
        play_game(ONE, 1, 0, ScriptedDecider([None] * 4, []))
    assert "round 0, trick 0, seat 0: no card given (script exhausted)" == str(caught.value)
    with pytest.raises(IllegalMove, match=r"round 0, swap, seat \d: no swap answer given \(script exhausted\)"):
        play_game(ONE, 1, 0, ScriptedDecider([], []))
    with pytest.raises(IllegalMove, match=r"round 0, swap, seat \d: seat \d does not hold infected-8"):
        play_game(ONE, 1, 0, ScriptedDecider([SWAP_CARD] * 4, []))
    with pytest.raises(IllegalMove, match="is not a card id 0-40"):
        play_game(ONE, 1, 0, ScriptedDecider([None] * 4, [41]))


# ---------------------------------------------------------------------------
# The swap (【ゲームの準備】②)


def test_a_single_swap_offer():
    deal = hands("red-8 blue-7", "red-2 infected-3", "red-4 green-2", "red-3 blue-1")
    record = run(TWO, dict(hands=deal, swap={"seat": 2, "give": "green-2"},
                           tricks=tricks("red-8 red-2 red-4 red-3", "blue-7 infected-3 infected-8 blue-1")))
    rnd = record.rounds[0]
    assert rnd.hands[2] == ids("red-4 green-2")                    # as dealt
    assert (rnd.swap_offers, rnd.swap) == ([2], (2, parse_card("green-2")))
    last = rnd.tricks[1]
    assert (last.winner, last.level) == (2, 11)                    # infected 8 ranks 8 and counts 8
    assert record.counters["swaps"] == 1
    # the card given up is out of the round: seat 2 cannot play it
    text = refused(IllegalMove, TWO, dict(hands=deal, swap={"seat": 2, "give": "green-2"},
                                          tricks=tricks("red-8 red-2 red-4 red-3", "blue-7 infected-3 green-2 blue-1")))
    assert text == "round 0, trick 1, seat 2: seat 2 does not hold green-2 (holds infected-8)"


def test_swap_refusals():
    deal = hands("red-8 blue-7", "red-2 infected-3", "red-4 green-2", "red-3 blue-1")
    for swap, rules, message in [
        ({"seat": 1, "give": "red-2"}, TWO, "round 0: swap: seat 1 holds an infected card and may not swap"),
        ({"seat": 0, "give": "red-2"}, TWO, "round 0: swap: seat 0 does not hold red-2"),
        ({"seat": 0, "give": "red-8"}, Rules(players=4, hand_size=2, swap=False),
         "round 0: a swap is given but the swap rule is off"),
        ({"seat": 4, "give": "red-8"}, TWO, "round 0: swap 'seat' must be a seat 0-3, got 4"),
        ({"seat": 0}, TWO, "round 0, swap: missing 'give'"),
    ]:
        assert refused(BadScenario, rules, dict(hands=deal, swap=swap)) == message


class OfferAll:
    """Every seat asked offers its highest card; plays the lowest legal card."""

    def __init__(self):
        self.asked = []

    def swap(self, view, seat, hand):
        self.asked.append(seat)
        return max(hand)

    def play(self, view, seat, hand, legal):
        return min(legal)


def test_several_offers_are_settled_by_one_deal_draw():
    # One infected in a 33-card deck: at least three seats hold none and all of them offer.
    rules = Rules(players=4, infected_4=(5,), hand_size=8, max_rounds=1)
    seen = set()
    for index in range(30):
        decider = OfferAll()
        record = play_game(rules, 3, index, decider)
        rnd = record.rounds[0]
        deal = PyStream(3, index, DEAL)
        fisher_yates(round_deck(rules, (0, 1, 2, 3)), deal)
        offering = [s for s in range(4) if not any(is_infected(c) for c in rnd.hands[s])]
        assert decider.asked == offering == rnd.swap_offers and len(offering) >= 3
        seat = offering[deal.below(len(offering))]
        assert rnd.swap == (seat, max(rnd.hands[seat]))
        seen.add(seat)
        assert sum(1 for t in rnd.tricks for s, c in t.plays if c == SWAP_CARD and s == seat) == 1
    assert len(seen) >= 3


def test_a_seat_holding_an_infected_is_not_asked():
    decider = OfferAll()
    record = play_game(Rules(players=4, max_rounds=1), 0, 0, decider)
    asked = [s for s in range(4) if not any(is_infected(c) for c in record.rounds[0].hands[s])]
    assert decider.asked == asked
    nobody = OfferAll()
    play_game(Rules(players=4, max_rounds=1, swap=False), 0, 0, nobody)
    assert nobody.asked == []


# ---------------------------------------------------------------------------
# Rounds, leaders, the end of the game

THREE_EIGHTS = dict(hands=hands("red-2", "green-8", "blue-8", "yellow-8"), tricks=tricks("red-2 green-8 blue-8 yellow-8"))
BONUS_TO_TWO = dict(hands=hands("red-3", "red-5", "green-8", "red-2"), tricks=tricks("red-3 red-5 green-8 red-2"))


def test_next_leader_is_the_lowest_round_scorer():
    round1 = dict(hands=hands("red-5", "red-3", "green-8", "red-2"), tricks=tricks("red-5 red-3 green-8 red-2"))
    record = run(ONE, THREE_EIGHTS, round1)
    assert record.rounds[0].round_scores == [0, 3, 3, 3]
    assert [r.leader for r in record.rounds] == [0, 0]
    text = refused(BadScenario, ONE, THREE_EIGHTS, dict(round1, leader=1))
    assert text == "round 1: 'leader' 1 is not allowed: the lowest round score was seat 0's"
    assert run(ONE, THREE_EIGHTS, dict(round1, leader=0)).rounds[1].leader == 0


def test_a_tie_for_the_lowest_round_score_needs_the_leader():
    round1 = dict(hands=hands("red-5", "red-3", "green-8", "red-2"), tricks=tricks("red-3 green-8 red-2 red-5"))
    text = refused(BadScenario, ONE, BONUS_TO_TWO, round1)
    assert text == "round 1: seats [0, 1, 3] tie for the lowest round score; give 'leader' (one of them)"
    text = refused(BadScenario, ONE, BONUS_TO_TWO, dict(round1, leader=2))
    assert text == "round 1: 'leader' 2 is not allowed: seats [0, 1, 3] tie for the lowest round score"
    record = run(ONE, BONUS_TO_TWO, dict(round1, leader=1))
    assert record.rounds[1].leader == 1 and record.rounds[1].tricks[0].plays[0] == (1, parse_card("red-3"))
    assert refused(BadScenario, ONE, dict(BONUS_TO_TWO, leader=2)) == \
        "round 0: 'leader' 2 is not allowed: round 0 is led by seat 0"


def test_rounds_until_a_total_reaches_ten():
    round1 = dict(hands=hands("red-5", "red-3", "green-8", "red-2"), leader=1, tricks=tricks("red-3 green-8 red-2 red-5"))
    record = run(ONE, BONUS_TO_TWO, round1, start_totals=[0, 0, 4, 0])
    assert [r.totals_after for r in record.rounds] == [[0, 0, 7, 0], [0, 0, 10, 0]]
    assert (record.finished, record.capped, record.winner, record.shares) == (True, False, 2, [0.0, 0.0, 1.0, 0.0])
    assert record.counters == counters(rounds=2, tricks=2, bonus_taken=2)
    assert refused(BadScenario, ONE, BONUS_TO_TWO, round1, round1, start_totals=[0, 0, 4, 0]) == \
        "round 2 is listed but the game already ended after round 1 (a total reached 10)"
    # only the last scripted round may stop early
    assert refused(BadScenario, TWO, dict(hands=ATTACK_HANDS, tricks=tricks("red-8 red-2 red-4 red-3")),
                   dict(hands=ATTACK_HANDS)) == "round 0 lists 1 of 2 tricks; only the last scripted round may stop early"


def test_a_tie_on_totals_goes_to_more_survivors_on_the_upper_board():
    record = run(THREE_CARDS, INFECTED_ZERO, start_totals=[0, 9, 8, 0])
    assert (record.totals, record.upper_counts) == ([0, 11, 11, 0], [7, 2, 0, 0])
    assert (record.winner, record.shares) == (1, [0.0, 1.0, 0.0, 0.0])


def test_a_tie_on_totals_and_upper_boards_is_shared():
    record = run(ONE, THREE_EIGHTS, start_totals=[0, 7, 7, 1])
    assert (record.totals, record.upper_counts) == ([0, 10, 10, 4], [4, 0, 0, 0])
    assert (record.winner, record.shares, record.finished) == (-1, [0.0, 0.5, 0.5, 0.0], True)


def test_the_round_cap():
    capped = Rules(players=4, hand_size=1, max_rounds=2)
    record = run(capped, THREE_EIGHTS, dict(THREE_EIGHTS, leader=0))
    assert (record.capped, record.finished, record.totals, record.winner) == (True, True, [0, 6, 6, 6], -1)
    assert record.shares == [0.0, 1 / 3, 1 / 3, 1 / 3]
    assert refused(BadScenario, capped, THREE_EIGHTS, THREE_EIGHTS, THREE_EIGHTS) == \
        "round 2 is listed but the game already ended after round 1 (max_rounds = 2 was hit)"
    # starting at round 1, one round hits the cap; reaching the target on it is not "capped"
    record = run(capped, dict(THREE_EIGHTS, leader=3, tricks=tricks("yellow-8 red-2 green-8 blue-8")), start_round=1)
    assert (record.rounds[0].round, record.rounds[0].leader, record.capped) == (1, 3, True)
    assert (record.totals, record.winner) == ([0, 3, 3, 0], -1)      # yellow-8 led and won; 1 and 2 share
    record = run(capped, dict(THREE_EIGHTS, leader=0), start_round=1, start_totals=[0, 7, 0, 0])
    assert (record.capped, record.winner) == (False, 1)
    random_game = play_game(Rules(players=3, target=100, max_rounds=3), 4, 4)
    assert (len(random_game.rounds), random_game.capped, random_game.finished) == (3, True, True)


def test_three_player_scenarios_take_the_colours_from_the_hands():
    rules = Rules(players=3, hand_size=2)
    record = run(rules, dict(hands=hands("red-1 green-2", "yellow-3 red-4", "infected-1 green-5")))
    assert record.rounds[0].removed_colour == 3
    record = run(rules, dict(hands=hands("red-1 green-2", "red-3 red-4", "infected-1 green-5")))
    assert record.rounds[0].removed_colour == -1                  # two colours seen: not known
    assert refused(BadScenario, rules, dict(hands=hands("red-1 green-2", "yellow-3 blue-4", "infected-1 green-5"))) == \
        "round 0: survivors of 4 colours; 3 players use 3 colours"
    assert refused(BadScenario, rules, dict(hands=hands("red-1 green-2", "yellow-3 red-4", "infected-7 green-5"))) == \
        "round 0: infected-7 is not dealt with 3 players (infected 1, 2, 3, 4, 5, 6)"
    fixed = Rules(players=3, hand_size=2, colours_3=(0, 1, 3))
    assert refused(BadScenario, fixed, dict(hands=hands("red-1 green-2", "yellow-3 red-4", "infected-1 green-5"))) == \
        "round 0: yellow is not used (colours_3: red, green, blue)"


@pytest.mark.parametrize("data, message", [
    (dict(rounds=[], start_totals=[0, 0, 10, 0]), "'start_totals' must be 4 whole numbers 0-9, got [0, 0, 10, 0]"),
    (dict(rounds=[], start_round=50), "'start_round' must be a round 0-49, got 50"),
    (dict(rounds={}), "'rounds' must be a list of rounds, got {}"),
    (dict(rounds=[], extra=1), "scenario: unknown key 'extra' (known: start_totals, start_round, rounds)"),
    (dict(rounds=[dict(hands=[["red-1"]] * 4)]), "round 0: cards given twice: red-1"),
    (dict(rounds=[dict(hands=[["red-1"], ["red-2"], ["red-3"]])]),
     "round 0: 'hands' must list 4 hands, got [['red-1'], ['red-2'], ['red-3']]"),
    (dict(rounds=[dict(hands=hands("red-1", "red-2", "red-3", "red-9"))]),
     "round 0, hand of seat 3: 'red-9' is not a card (red|green|yellow|blue-1..8 or infected-0..8)"),
    (dict(rounds=[dict(hands=hands("red-1", "red-2", "red-3", "infected-8"))]),
     "round 0: infected-8 is not dealt with 4 players (infected 0, 1, 2, 3, 4, 5, 6, 7)"),
    (dict(rounds=[dict(hands=hands("red-1", "red-2", "red-3", "red-4 red-5"))]),
     "round 0: hand of seat 3 must list 1 cards, got ['red-4', 'red-5']"),
    (dict(rounds=[dict(hands=hands("red-1", "red-2", "red-3", "red-4"), tricks=[["red-1"]])]),
     "round 0, trick 0: must list 4 cards in play order, got ['red-1']"),
    (dict(rounds=[dict(hands=hands("red-1", "red-2", "red-3", "red-4"), tricks=[["red-1"] * 4] * 2)]),
     "round 0: 'tricks' must be a list of at most 1 tricks, got [['red-1', 'red-1', 'red-1', 'red-1'], ['red-1', 'red-1', 'red-1', 'red-1']]"),
    (dict(rounds=[dict(tricks=[])]), "round 0: missing 'hands'"),
    (dict(rounds=[dict(hands=hands("red-1", "red-2", "red-3", "red-4"))], start_round=3),
     "round 3: 'leader' is needed for the first scripted round when start_round > 0"),
])
def test_bad_scenarios(data, message):
    with pytest.raises(BadScenario) as caught:
        play_scenario(ONE, dict(data, game="ten-tricks", players=4, name="x", description="y", expect={}))
    assert str(caught.value) == message


# ---------------------------------------------------------------------------
# Seeded random games: the stream contract, invariants, replay as a scenario


def check_streams(rules, record, seed, index):
    """Re-draw DEAL and every seat's PLAY in the documented order against the record."""
    n = rules.players
    deal, play = PyStream(seed, index, DEAL), seat_play_streams(seed, index, n)
    leader = 0
    for rnd in record.rounds:
        colours = (0, 1, 2, 3)
        if n == 3 and rules.colours_3 is None:
            assert rnd.removed_colour == deal.below(4)
            colours = tuple(c for c in colours if c != rnd.removed_colour)
        elif n == 3:
            colours = rules.colours_3
        deck = fisher_yates(round_deck(rules, colours), deal)
        held = [sorted(deck[rules.hand_size * s:rules.hand_size * (s + 1)]) for s in range(n)]
        assert rnd.hands == held
        offers = []
        for seat in range(n):
            if rules.swap and not any(is_infected(c) for c in held[seat]) and play[seat].below(2) == 1:
                offers.append((seat, held[seat][play[seat].below(len(held[seat]))]))
        assert rnd.swap_offers == [seat for seat, _ in offers]
        chosen = offers[deal.below(len(offers))] if len(offers) > 1 else (offers[0] if offers else None)
        assert rnd.swap == chosen
        if chosen:
            held[chosen[0]] = sorted([c for c in held[chosen[0]] if c != chosen[1]] + [SWAP_CARD])
        assert rnd.leader == leader
        unlocked = False
        for trick in rnd.tricks:
            assert trick.leader == leader
            played = []
            for k, (seat, card) in enumerate(trick.plays):
                assert seat == (leader + k) % n
                legal = legal_plays(rules, held[seat], played, unlocked)
                assert card == legal[play[seat].below(len(legal))]
                held[seat].remove(card)
                played.append(card)
                unlocked = unlocked or is_infected(card)
            leader = trick.winner
        if rnd is not record.rounds[-1]:
            low = min(rnd.round_scores)
            tied = [s for s in range(n) if rnd.round_scores[s] == low]
            leader = tied[deal.below(len(tied))] if len(tied) > 1 else tied[0]
    assert all(not hand for hand in held)


def independent_winner(cards):
    """【②勝敗の判定】 written again, differently: the best (rank, later-survivor) key."""
    eights = {c // 8 for c in cards if c < 32 and c % 8 == 7}
    rank = [9 if c < 32 and c % 8 == 0 and c // 8 in eights else (c - 32 if c >= 32 else c % 8 + 1) for c in cards]
    if all(c < 32 for c in cards):
        return max((p for p in range(len(cards)) if cards[p] // 8 == cards[0] // 8), key=lambda p: rank[p])
    return max(range(len(cards)), key=lambda p: (rank[p], cards[p] < 32, p if cards[p] < 32 else 0))


def check_round(rules, rnd):
    """Replay the boards and tracks trick by trick and check every invariant of the round."""
    n, cap = rules.players, rules.track_cap
    upper, lower, lost, tracks = [set() for _ in range(n)], [set() for _ in range(n)], [set() for _ in range(n)], [0] * n
    expect = counters(rounds=1, tricks=len(rnd.tricks), swaps=rnd.swap is not None)
    for trick in rnd.tricks:
        cards = [c for _, c in trick.plays]
        winner = trick.plays[independent_winner(cards)][0]
        assert trick.winner == winner
        bad = [c for c in cards if is_infected(c)]
        assert trick.infected == bool(bad) and trick.level == sum(number(c) for c in bad)
        if bad:
            taken = {c for c in upper[winner] if number(c) <= trick.level}
            assert set(trick.lost) == taken
            upper[winner] -= taken
            lost[winner] |= taken
            tracks[winner] = 0
            expect["attacks"] += 1
            expect["survivors_lost"] += len(taken)
        else:
            assert trick.lost == []
        upper[winner] |= {c for c in cards if not is_infected(c)}
        for seat, card in trick.plays:
            if seat != winner and tracks[seat] + number(card) <= cap:
                tracks[seat] += number(card)
        for seat in range(n):
            for card in trick.rescued[seat]:
                assert card in upper[seat] and number(card) <= tracks[seat]
                assert all(number(card) <= number(other) for other in upper[seat])
                tracks[seat] -= number(card)
                upper[seat].remove(card)
                lower[seat].add(card)
            assert not upper[seat] or min(number(c) for c in upper[seat]) > tracks[seat]   # nothing left to rescue
        expect["survivors_rescued"] += sum(len(r) for r in trick.rescued)
        expect["infected_leads"] += is_infected(cards[0])
        eights = {colour(c) for c in cards if not is_infected(c) and number(c) == 8}
        expect["one_as_nine"] += any(not is_infected(c) and number(c) == 1 and colour(c) in eights for c in cards)
        assert trick.tracks == tracks and all(0 <= t <= cap for t in tracks)
        assert trick.upper == [sorted(b) for b in upper] and trick.lower == [sorted(b) for b in lower]
    # card conservation: every card held after the swap was played once; every survivor played
    # is on exactly one upper board, lower board or lost pile.
    after_swap = [list(h) for h in rnd.hands]
    if rnd.swap:
        after_swap[rnd.swap[0]] = [c for c in after_swap[rnd.swap[0]] if c != rnd.swap[1]] + [SWAP_CARD]
    played = sorted(c for t in rnd.tricks for _, c in t.plays)
    assert played == sorted(c for h in after_swap for c in h)
    placed = [c for s in range(n) for c in (*upper[s], *lower[s], *lost[s])]
    assert sorted(placed) == [c for c in played if not is_infected(c)]
    assert rnd.lost_counts == [len(p) for p in lost] and rnd.tracks_end == tracks
    bonus = [rules.track_bonus if t == cap else 0 for t in tracks]
    assert rnd.round_scores == [max(0, len(lower[s]) + bonus[s] - len(lost[s])) for s in range(n)]
    expect["bonus_taken"] = sum(1 for t in tracks if t == cap)
    return expect, [len(b) for b in upper]


def scenario_of(record):
    rounds = []
    for k, rnd in enumerate(record.rounds):
        spec = dict(hands=[[card_name(c) for c in hand] for hand in rnd.hands],
                    tricks=[[card_name(c) for _, c in t.plays] for t in rnd.tricks])
        if rnd.swap:
            spec["swap"] = {"seat": rnd.swap[0], "give": card_name(rnd.swap[1])}
        if k > 0:
            spec["leader"] = rnd.leader
        rounds.append(spec)
    return {"game": "ten-tricks", "players": record.players, "rounds": rounds}


@pytest.mark.parametrize("rules", [Rules(players=3), Rules(players=4), Rules(players=3, colours_3=(0, 2, 3)),
                                   Rules(players=4, swap=False, target=6)], ids=["3p", "4p", "3p-fixed", "4p-noswap"])
def test_random_games_keep_every_invariant(rules):
    n = rules.players
    seen = counters()
    ties = capped = 0
    for index in range(120):
        record = play_game(rules, 2024, index)
        assert record == play_game(rules, 2024, index)                                 # deterministic
        check_streams(rules, record, 2024, index)
        totals, total_counters = [0] * n, counters()
        for number_now, rnd in enumerate(record.rounds):
            assert rnd.round == number_now and len(rnd.tricks) == rules.hand_size
            expect, upper_counts = check_round(rules, rnd)
            for key in COUNTER_KEYS:
                total_counters[key] += expect[key]
            totals = [t + s for t, s in zip(totals, rnd.round_scores)]
            assert rnd.totals_after == totals
            last = number_now == len(record.rounds) - 1
            assert (max(totals) >= rules.target or number_now + 1 == rules.max_rounds) == last
        assert record.totals == totals and record.upper_counts == upper_counts
        assert record.counters == total_counters
        assert record.finished and record.capped == (max(totals) < rules.target)
        assert abs(sum(record.shares) - 1.0) < 1e-12
        top = [s for s in range(n) if totals[s] == max(totals)]
        best = [s for s in top if upper_counts[s] == max(upper_counts[t] for t in top)]
        assert [s for s in range(n) if record.shares[s] > 0] == best
        assert record.winner == (best[0] if len(best) == 1 else -1)
        ties += len(top) > 1
        capped += record.capped
        for key in COUNTER_KEYS:
            seen[key] += record.counters[key]
        replay = play_scenario(rules, scenario_of(record))
        assert [dataclasses.replace(r, swap_offers=[]) for r in replay.rounds] == \
               [dataclasses.replace(r, swap_offers=[]) for r in record.rounds]
        assert (replay.totals, replay.upper_counts, replay.shares, replay.winner, replay.counters) == \
               (record.totals, record.upper_counts, record.shares, record.winner, record.counters)
    assert ties > 0 and capped == 0
    assert all(seen[key] > 0 for key in COUNTER_KEYS if key != "swaps" or rules.swap)


def test_random_decider_swap_and_play_draws():
    play, other = PyStream(5, 5, PLAY), PyStream(6, 6, PLAY)
    decider = RandomDecider([PyStream(5, 5, PLAY), PyStream(6, 6, PLAY)])   # seat 0's stream, seat 1's
    assert decider.play(None, 1, (0, 1, 2), (0, 1, 2)) == [0, 1, 2][other.below(3)]  # seat 1 draws from its own
    hand = tuple(ids("red-1 green-3 blue-8"))
    answers = [decider.swap(None, 0, hand) for _ in range(20)]
    expected = []
    for _ in range(20):
        expected.append(sorted(hand)[play.below(3)] if play.below(2) == 1 else None)
    assert answers == expected and None in answers and any(answers)
    assert decider.play(None, 0, hand, hand[:1]) == hand[0] and play.below(1) == 0       # a draw with one card
    assert decider.play(None, 0, hand, hand) == sorted(hand)[play.below(3)]


class Watcher(RandomDecider):
    """The random strategy, noting what the view shows at each play."""

    def __init__(self, rng):
        super().__init__(rng)
        self.seen = []

    def play(self, view, seat, hand, legal):
        self.seen.append((view.round, view.trick, view.leader, view.plays, view.tracks, view.upper,
                          view.lower, view.lost_counts, view.totals, view.unlocked, view.swap_seat))
        return super().play(view, seat, hand, legal)


def test_the_view_shows_the_public_table():
    rules = Rules(players=4)
    watcher = Watcher(seat_play_streams(8, 1, rules.players))
    record = play_game(rules, 8, 1, watcher)
    assert record == play_game(rules, 8, 1)                  # watching changes nothing
    k, totals = 0, [0] * 4
    for rnd in record.rounds:
        tracks, upper, lower, lost, unlocked = [0] * 4, [()] * 4, [()] * 4, [0] * 4, False
        for trick in rnd.tricks:
            for position in range(4):
                assert watcher.seen[k] == (rnd.round, trick.trick, trick.leader, tuple(trick.plays[:position]),
                                           tuple(tracks), tuple(upper), tuple(lower), tuple(lost), tuple(totals),
                                           unlocked, rnd.swap[0] if rnd.swap else None)
                unlocked = unlocked or is_infected(trick.plays[position][1])
                k += 1
            tracks, upper, lower = trick.tracks, [tuple(b) for b in trick.upper], [tuple(b) for b in trick.lower]
            lost[trick.winner] += len(trick.lost)
        totals = rnd.totals_after
    assert k == len(watcher.seen)


def test_the_scenario_example_in_the_docs_runs_as_written():
    import json
    import re
    from pathlib import Path

    text = (Path(__file__).resolve().parents[3] / "docs" / "rules" / "ten-tricks-later.md").read_text(encoding="utf-8")
    data = json.loads(re.search(r"```json\n(.*?)```", text, re.S).group(1))
    record = play_scenario(Rules(players=data["players"], **data["variant"]), data)
    assert record.rounds[0].tricks[0].winner == 1 and record.rounds[0].tricks[0].tracks[2] == 8
    assert (record.totals, record.winner, record.finished) == ([0, 0, 10, 0], 2, True)
