"""The plain-Python BIRD & WEATHER engine on its own: the rulebook's examples, hand-made
positions with exact outcomes, refusals of illegal decisions, and whole random games.

Seat and trick numbers are 0-based; "§" marks refer to the rulebook sections.
"""
import pytest

from simcore.errors import BalanceError
from simcore.games.bird_weather.reference import (
    COUNTER_KEYS,
    BadPosition,
    IllegalPlay,
    RandomDecider,
    Rules,
    ScriptedDecider,
    deal_hands,
    follows,
    play_game,
    play_scenario,
    shares_of,
)
from simcore.rng import DEAL, PLAY, PyStream, seat_play_streams

FOUR = Rules.default(4)


def one_trick(rules, cards, leader=0, facedown=None, picks=()):
    """Each seat holds exactly the card it plays; ``cards`` are in play order from ``leader``."""
    n = rules.players
    hands = [None] * n
    for k, card in enumerate(cards):
        hands[(leader + k) % n] = [card]
    record = play_scenario(rules, hands, facedown, leader, list(cards), list(picks), None)
    assert len(record.tricks) == 1
    return record, record.tricks[0]


def counters(**nonzero):
    out = dict.fromkeys(COUNTER_KEYS, 0)
    out.update(nonzero)
    return out


# ---------------------------------------------------------------------------
# The rulebook's examples (all 4 players)


def test_example_1_what_follows_a_35():
    followers = [card for card in FOUR.cards if card != 35 and follows(35, card)]
    assert followers == [15, 25, 30, 31, 32, 33, 34, 36, 37, 38, 39, 45]


def test_example_1_must_follow_is_enforced():
    # Seat 1 holds 15 (follows 35 by its bird) and 41 (does not): only 15 may be played.
    hands = [[35, 12], [15, 41], [22, 46], [13, 27]]
    with pytest.raises(IllegalPlay) as refused:
        play_scenario(FOUR, hands, None, 0, [35, 41], [], None)
    assert refused.value.step == 1
    assert refused.value.kind == "play"
    assert str(refused.value) == "play 1 (trick 0, seat 1): 41 does not follow the lead 35 although seat 1 holds 15"


def test_example_2_highest_follower_wins_lowest_bird_scores():
    record, trick = one_trick(FOUR, [35, 37, 25, 31])
    assert trick.followed == [True, True, True, True]
    assert (trick.winner, trick.kind, trick.points_card, trick.points) == (1, "normal", 31, 1)
    assert record.scores == [0, 1, 0, 0]
    assert record.shares == [0.0, 1.0, 0.0, 0.0]
    assert record.counters == counters()


def test_example_3_non_follower_cannot_win_but_sets_the_points():
    record, trick = one_trick(FOUR, [26, 29, 36, 41])
    assert trick.followed == [True, True, True, False]
    assert (trick.winner, trick.kind, trick.points_card, trick.points) == (2, "normal", 41, 1)
    assert record.scores == [0, 0, 1, 0]


def test_example_3_with_real_hands_the_41_is_legal_only_without_a_follower():
    hands = [[26, 12], [29, 33], [36, 44], [41, 13]]          # seat 3: no weather 2, no bird 6
    record = play_scenario(FOUR, hands, None, 0, [26, 29, 36, 41, 44, 13, 12, 33], [], None)
    first = record.tricks[0]
    assert (first.winner, first.points) == (2, 1)
    second = record.tricks[1]                                   # seat 2 leads 44; 12, 33, 13 cannot follow
    assert second.leader == 2
    assert second.cards == [44, 13, 12, 33]
    assert second.followed == [True, False, False, False]
    assert (second.winner, second.points_card, second.points) == (2, 12, 2)
    assert record.scores == [0, 0, 3, 0]


def test_example_4_reversal():
    record, trick = one_trick(FOUR, [13, 30, 43, 11])
    assert trick.followed == [True, False, True, True]          # 30 shares neither digit with 13
    assert trick.kind == "reversal"
    assert trick.winner == 3                                     # the lowest follower, 11
    # Highest bird among all cards is 3, held by 13 and 43: the first in play order is recorded.
    assert (trick.points_card, trick.points) == (13, 3)
    assert record.scores == [0, 0, 0, 3]
    assert record.counters == counters(reversals=1)


def test_example_5_zero_win_then_zero_points():
    record, trick = one_trick(FOUR, [15, 19, 12, 10], facedown=[44, 27, 38, 16], picks=[2])
    assert trick.kind == "zero-win"
    assert trick.winner == 3
    assert trick.points_card == 10
    assert (trick.pick_seat, trick.pick_card, trick.points) == (2, 38, 8)
    assert record.scores == [0, 0, 0, 8]
    assert record.counters == counters(zero_wins=1, zero_point_tricks=1, facedowns_taken=1)


def test_example_6_two_weathers_is_a_normal_trick():
    record, trick = one_trick(FOUR, [22, 20, 25, 32], facedown=[44, 27, 38, 16], picks=[3])
    assert trick.followed == [True, True, True, True]
    assert trick.kind == "normal"
    assert trick.winner == 3                                     # 32
    # The rulebook stops at the winner; by §6-③ the 20 is the points card, so a face-down card is taken.
    assert (trick.points_card, trick.pick_seat, trick.pick_card, trick.points) == (20, 3, 16, 6)
    assert record.scores == [0, 0, 0, 6]


def test_example_7_zero_points_from_a_non_follower():
    record, trick = one_trick(FOUR, [35, 34, 45, 20], facedown=[15, 27, 38, 16], picks=[0])
    assert trick.followed == [True, True, True, False]
    assert (trick.winner, trick.kind, trick.points_card) == (2, "normal", 20)
    assert (trick.pick_seat, trick.pick_card, trick.points) == (0, 15, 5)
    assert record.scores == [0, 0, 5, 0]
    assert record.counters == counters(zero_point_tricks=1, facedowns_taken=1)


# ---------------------------------------------------------------------------
# Hand-made positions


def test_reversal_at_three_players_uses_weather_3():
    rules = Rules.default(3)
    record, trick = one_trick(rules, [31, 11, 39])
    assert (trick.kind, trick.winner, trick.points_card, trick.points) == ("reversal", 1, 39, 9)
    assert record.counters["reversals"] == 1


def test_weathers_1_and_3_do_not_reverse_at_four_players():
    record, trick = one_trick(FOUR, [31, 11, 39, 21])
    assert trick.followed == [True, True, True, True]
    assert (trick.kind, trick.winner, trick.points_card, trick.points) == ("normal", 2, 31, 1)


def test_reversal_at_five_players_uses_weather_5():
    rules = Rules.default(5)
    record, trick = one_trick(rules, [55, 15, 52, 25, 40], leader=2)
    assert trick.leader == 2
    assert trick.followed == [True, True, True, True, False]
    assert trick.kind == "reversal"
    assert trick.winner == 3                                     # 15, played by seat 2+1
    assert (trick.points_card, trick.points) == (55, 5)          # birds 5,5,2,5,0: first 5 is the lead
    assert record.scores == [0, 0, 0, 5, 0]


def test_weathers_1_and_4_do_not_reverse_at_five_players():
    record, trick = one_trick(Rules.default(5), [41, 11, 49, 44, 21])
    assert (trick.kind, trick.winner, trick.points_card, trick.points) == ("normal", 2, 41, 1)


def test_a_non_follower_cannot_trigger_the_reversal():
    record, trick = one_trick(FOUR, [12, 15, 41, 19])
    assert trick.followed == [True, True, False, True]
    assert (trick.kind, trick.winner, trick.points_card, trick.points) == ("normal", 3, 41, 1)


def test_a_non_follower_sets_the_reversal_points():
    record, trick = one_trick(FOUR, [13, 43, 11, 29])
    assert trick.followed == [True, True, True, False]
    assert (trick.kind, trick.winner, trick.points_card, trick.points) == ("reversal", 2, 29, 9)


def test_reversal_with_highest_bird_0_takes_a_face_down_card():
    record, trick = one_trick(FOUR, [10, 20, 30, 40], facedown=[17, 28, 39, 46], picks=[1])
    assert (trick.kind, trick.winner, trick.points_card) == ("reversal", 0, 10)
    assert (trick.pick_seat, trick.pick_card, trick.points) == (1, 28, 8)
    assert record.counters == counters(reversals=1, zero_point_tricks=1, facedowns_taken=1)


def test_zero_win_at_three_players():
    record, trick = one_trick(Rules.default(3), [23, 20, 29], facedown=[11, 34, 17], picks=[1])
    assert (trick.kind, trick.winner, trick.points_card) == ("zero-win", 1, 20)
    assert (trick.pick_seat, trick.pick_card, trick.points) == (1, 34, 4)          # own face-down card
    assert record.scores == [0, 4, 0]


def test_zero_points_with_a_face_down_0_scores_nothing():
    record, trick = one_trick(FOUR, [26, 21, 20, 28], facedown=[13, 40, 35, 17], picks=[1])
    assert (trick.kind, trick.winner) == ("zero-win", 2)
    assert (trick.pick_seat, trick.pick_card, trick.points) == (1, 40, 0)
    assert record.scores == [0, 0, 0, 0]
    assert record.shares == [0.25, 0.25, 0.25, 0.25]
    assert record.counters == counters(zero_wins=1, zero_point_tricks=1, facedowns_taken=1, zero_scored_tricks=1)


def test_no_face_down_card_left_scores_nothing():
    # Only seat 1 has a face-down card; two zero-point tricks: the first takes it, the second gets 0.
    hands = [[35, 26], [34, 21], [45, 29], [30, 28]]
    # trick 0: 35 34 45 30 -> 45 wins (seat 2), points card 30 (bird 0) -> picks seat 1's 47
    # trick 1: seat 2 leads 29; 28 26 21 all follow weather 2 -> normal, 29 wins, bird 1 -> 1 point
    record = play_scenario(FOUR, hands, [None, 47, None, None], 0, [35, 34, 45, 30, 29, 28, 26, 21], [1], None)
    assert [t.points for t in record.tricks] == [7, 1]
    assert record.scores == [0, 0, 8, 0]

    hands = [[35, 26], [34, 21], [45, 29], [30, 20]]
    # trick 1 now: 29, 20, 26, 21 -> all weather 2 with a 0 -> zero-win by seat 3, nothing left to take
    record = play_scenario(FOUR, hands, [None, 47, None, None], 0, [35, 34, 45, 30, 29, 20, 26, 21], [1], None)
    last = record.tricks[1]
    assert (last.kind, last.winner, last.points_card, last.pick_seat, last.pick_card, last.points) == (
        "zero-win", 3, 20, None, None, 0)
    assert record.scores == [0, 0, 7, 0]
    assert record.counters == counters(zero_wins=1, zero_point_tricks=2, facedowns_taken=1, zero_scored_tricks=1)


def test_face_down_rule_off_zero_points_score_nothing():
    rules = Rules(players=4, cards=FOUR.cards, facedown=False)
    assert rules.tricks == 10
    record, trick = one_trick(rules, [35, 34, 45, 20])
    assert (trick.winner, trick.points_card, trick.pick_seat, trick.points) == (2, 20, None, 0)
    assert record.counters == counters(zero_point_tricks=1, zero_scored_tricks=1)


def test_switches_off():
    no_reversal = Rules(players=4, cards=FOUR.cards, reversal=False)
    record, trick = one_trick(no_reversal, [13, 30, 43, 11], facedown=[15, 27, 38, 16], picks=[3])
    # Normal trick: 43 wins; lowest bird among all is the non-follower 30's 0.
    assert (trick.kind, trick.winner, trick.points_card, trick.pick_card, trick.points) == ("normal", 2, 30, 16, 6)

    no_zero_win = Rules(players=4, cards=FOUR.cards, zero_win=False)
    record, trick = one_trick(no_zero_win, [15, 19, 12, 10], facedown=[44, 27, 38, 16], picks=[2])
    assert (trick.kind, trick.winner, trick.points_card, trick.pick_card, trick.points) == ("normal", 1, 10, 38, 8)


def test_custom_deck_reverses_on_its_own_lowest_and_highest_weather():
    rules = Rules(players=3, cards=tuple(range(20, 40)) + tuple(range(50, 60)), hand_size=3)
    assert (rules.lowest_weather, rules.highest_weather, rules.tricks) == (2, 5, 2)
    record, trick = one_trick(rules, [25, 55, 21])
    assert (trick.kind, trick.winner, trick.points_card, trick.points) == ("reversal", 2, 25, 5)


def test_single_weather_deck_never_reverses_but_zero_wins():
    rules = Rules(players=3, cards=tuple(range(10, 20)), hand_size=3)
    record, trick = one_trick(rules, [15, 12, 19])
    assert (trick.kind, trick.winner, trick.points) == ("normal", 2, 2)
    record, trick = one_trick(rules, [15, 10, 19], facedown=[11, 13, 14], picks=[2])
    assert (trick.kind, trick.winner, trick.pick_card, trick.points) == ("zero-win", 1, 14, 4)


def test_winner_leads_next_and_play_goes_clockwise():
    hands = [[12, 31], [14, 33], [48, 32], [16, 24]]
    # trick 0 led by seat 3: 16 12 14 48 -> 48 cannot follow (seat 2 holds no weather 1, bird 6), 16 wins
    # trick 1 led by seat 3: 24 31 33 32 -> nobody follows 24; 24 wins with bird 1 from 31
    record = play_scenario(FOUR, hands, None, 3, [16, 12, 14, 48, 24, 31, 33, 32], [], None)
    assert [t.leader for t in record.tricks] == [3, 3]
    assert record.tricks[0].cards == [16, 12, 14, 48]
    assert record.tricks[0].followed == [True, True, True, False]
    assert (record.tricks[0].winner, record.tricks[0].points) == (3, 2)
    assert record.tricks[1].followed == [True, False, False, False]
    assert (record.tricks[1].winner, record.tricks[1].points) == (3, 1)
    assert record.scores == [0, 0, 0, 3]
    assert record.hands == [[[12, 31], [14, 33], [32, 48], [16, 24]]]


# ---------------------------------------------------------------------------
# Refusals


def test_refuses_a_card_not_held():
    hands = [[35, 12], [15, 41], [22, 46], [13, 27]]
    with pytest.raises(IllegalPlay) as refused:
        play_scenario(FOUR, hands, None, 0, [35, 15, 55], [], None)
    assert (refused.value.kind, refused.value.step) == ("play", 2)
    assert str(refused.value) == "play 2 (trick 0, seat 2): seat 2 does not hold 55"
    assert isinstance(refused.value, BalanceError)


def test_refusal_step_counts_across_tricks():
    hands = [[26, 12], [29, 33], [36, 44], [41, 13]]
    # trick 1 is led by seat 2 with 44; seat 3 holds only 13 then, seat 0 holds 12, seat 1 holds 33.
    with pytest.raises(IllegalPlay) as refused:
        play_scenario(FOUR, hands, None, 0, [26, 29, 36, 41, 44, 41], [], None)
    assert refused.value.step == 5
    assert str(refused.value) == "play 5 (trick 1, seat 3): seat 3 does not hold 41"


def test_refuses_not_following_and_names_every_follower_held():
    hands = [[26, 12, 17], [29, 33, 18], [36, 44, 19], [27, 16, 41]]
    with pytest.raises(IllegalPlay) as refused:
        play_scenario(FOUR, hands, None, 0, [26, 29, 36, 41], [], None)
    assert str(refused.value) == (
        "play 3 (trick 0, seat 3): 41 does not follow the lead 26 although seat 3 holds 16, 27")


def test_a_missing_play_is_refused():
    with pytest.raises(IllegalPlay) as refused:
        play_scenario(FOUR, [[35], [37], [25], [31]], None, 0, [35, 37], [], None)
    assert refused.value.step == 2
    assert "no card was given" in str(refused.value)


def test_a_fallback_finishes_the_deal():
    rng = seat_play_streams(3, 0, 4)
    record = play_scenario(FOUR, [[35, 11], [37, 12], [25, 13], [31, 14]], None, 0, [35], [], RandomDecider(rng))
    assert record.tricks[0].cards[0] == 35
    assert len(record.tricks) == 2


def test_refuses_picking_a_used_or_missing_face_down_card():
    facedown = [15, None, 38, 16]
    with pytest.raises(IllegalPlay) as refused:
        one_trick(FOUR, [35, 34, 45, 20], facedown=facedown, picks=[1])
    assert (refused.value.kind, refused.value.step) == ("pick", 0)
    assert str(refused.value) == "pick 0 (trick 0, seat 2): seat 1 has no unused face-down card (unused: [0, 2, 3])"

    hands = [[35, 25], [34, 23], [45, 29], [20, 30]]
    # trick 0: 35 34 45 30 -> seat 2 wins on 45, points card 30, takes seat 0's face-down 15;
    # trick 1: 29 20 25 23 -> zero-win by seat 3, which may not take seat 0's card again.
    with pytest.raises(IllegalPlay) as refused:
        play_scenario(FOUR, hands, facedown, 0, [35, 34, 45, 30, 29, 20, 25, 23], [0, 0], None)
    assert (refused.value.kind, refused.value.step) == ("pick", 1)
    assert str(refused.value) == "pick 1 (trick 1, seat 3): seat 0 has no unused face-down card (unused: [2, 3])"

    with pytest.raises(IllegalPlay) as refused:
        one_trick(FOUR, [35, 34, 45, 20], facedown=facedown, picks=[7])
    assert "seat 7 is not a seat" in str(refused.value)


def test_refuses_bad_positions():
    with pytest.raises(BadPosition):
        play_scenario(FOUR, [[35], [37], [25]], None, 0, [], [], None)
    with pytest.raises(BadPosition):
        play_scenario(FOUR, [[35], [37], [25], [31, 32]], None, 0, [], [], None)
    with pytest.raises(BadPosition):
        play_scenario(FOUR, [[35], [37], [25], [55]], None, 0, [], [], None)
    with pytest.raises(BadPosition):
        play_scenario(FOUR, [[35], [37], [25], [31]], [31, None, None, None], 0, [], [], None)


def test_refuses_a_missing_face_down_choice():
    with pytest.raises(IllegalPlay) as refused:
        play_game(FOUR, 1, 0, [ScriptedDecider([], [], None)] * 4)
    assert (refused.value.kind, refused.value.step) == ("facedown", 0)


# ---------------------------------------------------------------------------
# Whole games from the random streams


def test_deal_follows_the_documented_shuffle():
    rng = PyStream(11, 5, DEAL)
    deck = list(range(10, 50))
    for i in range(len(deck) - 1, 0, -1):
        j = rng.below(i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    assert deal_hands(FOUR, PyStream(11, 5, DEAL)) == [sorted(deck[s * 10:(s + 1) * 10]) for s in range(4)]


@pytest.mark.parametrize("players", [3, 4, 5])
def test_random_games_keep_the_books(players):
    rules = Rules.default(players)
    for index in range(300):
        record = play_game(rules, 2024, index)
        dealt = sorted(card for hand in record.hands[0] for card in hand)
        assert dealt == list(rules.cards)
        assert len(record.tricks) == 9
        played = [card for trick in record.tricks for card in trick.cards]
        facedown = record.facedown[0]
        assert sorted(played + facedown) == dealt                # every card played or laid face down
        assert sum(t.points for t in record.tricks) == sum(record.scores)
        assert sum(record.shares) == pytest.approx(1.0)
        assert set(record.counters) == set(COUNTER_KEYS)
        taken = [t.pick_seat for t in record.tricks if t.pick_seat is not None]
        assert len(taken) == len(set(taken)) == record.counters["facedowns_taken"]
        for trick in record.tricks:
            winner_card = trick.cards[(trick.winner - trick.leader) % players]
            assert trick.followed[(trick.winner - trick.leader) % players]
            assert 0 <= trick.points <= 9
            if trick.kind == "normal":
                assert winner_card == max(c for c, f in zip(trick.cards, trick.followed) if f)


def test_random_game_is_reproducible_and_uses_the_play_streams_only():
    first = play_game(FOUR, 99, 17)
    assert play_game(FOUR, 99, 17) == first
    assert play_game(FOUR, 99, 18) != first
    rng = seat_play_streams(99, 17, 4)           # seat s draws from its own stream
    wrapped = ScriptedDecider([], [], RandomDecider(rng))
    assert play_game(FOUR, 99, 17, [wrapped] * 4) == first
    shared = PyStream(99, 17, PLAY)              # the old contract: one stream for every seat
    assert play_game(FOUR, 99, 17, [RandomDecider([shared] * 4)] * 4) != first


def test_match_of_several_deals_rotates_the_first_leader():
    rules = Rules(players=3, cards=Rules.default(3).cards, deals=3)
    record = play_game(rules, 5, 0)
    assert len(record.hands) == len(record.facedown) == 3
    assert [t.leader for t in record.tricks if t.trick == 0] == [0, 1, 2]
    assert [t.deal for t in record.tricks] == [d for d in range(3) for _ in range(9)]
    assert sum(t.points for t in record.tricks) == sum(record.scores)
    assert record.hands[0] != record.hands[1]


def test_shares_split_a_tie():
    assert shares_of([5, 5, 1]) == [0.5, 0.5, 0.0]
    assert shares_of([3, 3, 3]) == [1 / 3, 1 / 3, 1 / 3]
    assert shares_of([0, 9, 2, 1, 1]) == [0.0, 1.0, 0.0, 0.0, 0.0]
