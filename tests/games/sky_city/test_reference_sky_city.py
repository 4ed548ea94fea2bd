"""The plain-Python Sky City of ALEA engine on its own: scripted rounds with exact outcomes for
every rule (declarations and dice given explicitly), refusals of bad scripts and declarations,
the DEAL/PLAY stream contract, and whole seeded random games checked for invariants.

Seat and round numbers are 0-based.  Rulebook headings ("How to throw dice", "Getting out of the
trap", ...) refer to the English half of the rulebook (docs/rules/sky-city-of-alea.md, Sources); see
docs/rules/sky-city-of-alea.md.
"""
import dataclasses

import pytest

from simcore.errors import BalanceError
from simcore.games.sky_city.reference import (
    COUNTER_KEYS,
    BadScenario,
    GameRecord,
    IllegalMove,
    RandomDecider,
    Rules,
    ScriptedDecider,
    face_counts,
    judge,
    judgements,
    play_game,
    play_scenario,
)
from simcore.rng import DEAL, PyStream, seat_play_streams
from simcore.games.sky_city.trap_language import Deck, Trap, load_deck

DECK = load_deck()
THREE, FOUR, FIVE = (Rules(players=n, deck=DECK) for n in (3, 4, 5))
TRAP = {trap.name: index for index, trap in enumerate(DECK.traps)}


def counters(**nonzero):
    out = dict.fromkeys(COUNTER_KEYS, 0)
    out.update(nonzero)
    return out


def one_round(rules, trap, declare, dice=(), start_scores=None, final=False, **extra):
    record = play_scenario(rules, [dict(trap=trap, declare=list(declare), dice=list(dice), **extra)],
                           start_scores, final)
    assert len(record.rounds) == 1
    return record, record.rounds[0]


def actions(rnd):
    """The round's rolls in order, shortened to ("roll", group, seats) / ("escape", seat)."""
    return [("roll", r["group"], r["seats"]) if r["kind"] == "roll" else ("escape", r["seat"])
            for r in rnd.rolls]


ALL_ZERO_DECIDER = ScriptedDecider([], fallback=type("Zero", (), {"declare": lambda self, seat, view: 0})())


# ---------------------------------------------------------------------------
# Rules and the judge


def test_default_targets_and_validation():
    assert (THREE.target, FOUR.target, FIVE.target) == (12, 10, 10)
    assert Rules(players=3, deck=DECK, target=7).target == 7
    assert FOUR.usable == tuple(range(22)) and FOUR.traps == DECK.traps
    assert Rules.default(5).dice_per_player == 5
    for bad, message in [
        (dict(players=2), "The Sky City of ALEA is for 3-5 players, not 2"),
        (dict(players=6), "The Sky City of ALEA is for 3-5 players, not 6"),
        (dict(players=4, target=0), "target must be a whole number >= 1, got 0"),
        (dict(players=4, max_rounds=0), "max_rounds must be a whole number >= 1, got 0"),
        (dict(players=4, dice_per_player=0), "dice_per_player must be a whole number >= 1, got 0"),
        (dict(players=4, final_multiplier=0), "final_multiplier must be a whole number >= 1, got 0"),
        (dict(players=4, zero_bonus=-1), "zero_bonus must be a whole number >= 0, got -1"),
    ]:
        with pytest.raises(BalanceError) as refused:
            Rules(deck=DECK, **bad)
        assert str(refused.value) == message
    with pytest.raises(BalanceError, match="no trap in this deck is used with 3 players"):
        Rules(players=3, deck=(Trap("Only4", "total >= 20", players=(4,)),))
    with pytest.raises(BalanceError, match="non-empty sequence of Trap"):
        Rules(players=3, deck=())


def test_judge_wraps_the_plain_evaluator():
    two_pairs = DECK.traps[TRAP["Two pairs"]]
    assert judge(two_pairs, [1, 1, 2, 2]) and judge(two_pairs, (3, 1, 3, 1, 6))
    assert not judge(two_pairs, [5, 5, 5, 5])           # different letters = different faces
    assert judge(DECK.traps[TRAP["More 6s than 1s"]], [6])
    assert face_counts([1, 6, 6, 3]) == [1, 0, 1, 0, 0, 2]


# ---------------------------------------------------------------------------
# "How to throw dice": ascending groups, ties together, judged on all dice


def test_groups_roll_in_ascending_declared_count():
    record, rnd = one_round(FOUR, "Five of a kind", [3, 1, 2, 0], [2, 3, 4, 5, 6, 1])
    assert actions(rnd) == [("roll", 1, [1]), ("roll", 2, [2]), ("roll", 3, [0])]
    assert [r["dice"] for r in rnd.rolls] == [[2], [3, 4], [5, 6, 1]]
    assert [r["table_counts"] for r in rnd.rolls] == [[0, 1, 0, 0, 0, 0], [0, 1, 1, 1, 0, 0], [1, 1, 1, 1, 1, 1]]
    assert [r["fired"] for r in rnd.rolls] == [False, False, False]
    assert [r["fresh"] for r in rnd.rolls] == [True, False, False]
    assert (rnd.points, rnd.totals, rnd.ended_by, rnd.final) == ([3, 1, 2, 0], [3, 1, 2, 0], "all-cleared", False)
    assert (rnd.trap, rnd.trap_index, rnd.declared) == ("Five of a kind", TRAP["Five of a kind"], [3, 1, 2, 0])
    assert record.counters == counters(rounds=1)
    # the scripted rounds ran out before the game ended
    assert (record.finished, record.winner, record.capped, record.scores) == (False, None, False, [3, 1, 2, 0])


def test_equal_counts_roll_together_seat_by_seat_and_are_judged_once():
    trap = "Exactly three 1s"          # count {1} == 3
    record, rnd = one_round(FOUR, trap, [2, 1, 2, 1], [1, 4, 1, 1, 1, 5])
    assert actions(rnd) == [("roll", 1, [1, 3]), ("roll", 2, [0, 2])]
    assert [r["dice"] for r in rnd.rolls] == [[1, 4], [1, 1, 1, 5]]       # seat 1 then 3; seat 0 then 2
    # After seat 0 alone there were exactly three 1s, but the group is judged only as a whole: four.
    assert judge(DECK.traps[TRAP[trap]], [1, 4, 1, 1])
    assert rnd.rolls[1]["table_counts"] == [4, 0, 0, 1, 1, 0] and not rnd.rolls[1]["fired"]
    assert (rnd.points, rnd.ended_by) == ([2, 1, 2, 1], "all-cleared")


def test_a_later_group_is_judged_on_all_dice_of_the_round():
    # Seat 1's own dice hold two 1s; with seat 0's two 1s still on the table the trap fires.
    record, rnd = one_round(THREE, "Four 1s", [2, 3, 0], [1, 1, 1, 1, 3, 2, 3, 4, 5, 6])
    assert not judge(DECK.traps[TRAP["Four 1s"]], [1, 1, 3])
    assert actions(rnd) == [("roll", 2, [0]), ("roll", 3, [1]), ("escape", 1)]
    assert rnd.rolls[1]["table_counts"] == [4, 0, 1, 0, 0, 0]
    assert (rnd.rolls[1]["fired"], rnd.rolls[1]["fresh"]) == (True, False)
    escape = rnd.rolls[2]
    assert escape == {"kind": "escape", "seat": 1, "tied": [1], "dice": [2, 3, 4, 5, 6],
                      "table_counts": [0, 1, 1, 1, 1, 1], "fired": False, "fresh": True}
    assert (rnd.points, rnd.ended_by) == ([2, 3, 0], "all-cleared")
    assert record.counters == counters(rounds=1, later_triggers=1, escapes=1, escapes_succeeded=1)


# ---------------------------------------------------------------------------
# The first group's trigger and "Declaring 0"


def test_first_group_trigger_ends_the_round_and_pays_the_zero_bonus():
    record, rnd = one_round(FOUR, "More 6s than 1s", [0, 2, 3, 0], [6, 2], start_scores=[1, 2, 3, 4])
    assert actions(rnd) == [("roll", 2, [1])]                  # seat 2 never rolls, no escape
    assert (rnd.rolls[0]["fired"], rnd.rolls[0]["fresh"]) == (True, True)
    assert (rnd.points, rnd.totals, rnd.ended_by) == ([3, 0, 0, 3], [4, 2, 3, 7], "first-roll")
    assert record.counters == counters(rounds=1, first_roll_triggers=1, zero_bonuses=2)


def test_first_group_of_tied_players_triggering_has_no_escape_either():
    record, rnd = one_round(THREE, "More 6s than 1s", [1, 1, 0], [6, 6])
    assert actions(rnd) == [("roll", 1, [0, 1])]
    assert (rnd.points, rnd.ended_by) == ([0, 0, 3], "first-roll")
    # nobody declared 0: nobody scores
    record, rnd = one_round(THREE, "More 6s than 1s", [2, 2, 2], [1, 6, 6, 3, 2, 2])
    assert (rnd.points, rnd.ended_by, record.counters["zero_bonuses"]) == ([0, 0, 0], "first-roll", 0)
    # the bonus is a variant value
    _, rnd = one_round(Rules(players=3, deck=DECK, zero_bonus=5), "More 6s than 1s", [0, 1, 0], [6])
    assert rnd.points == [5, 0, 5]


def test_zero_declarers_score_nothing_when_the_round_ends_otherwise():
    _, rnd = one_round(THREE, "Total 40", [0, 1, 2], [1, 2, 3])          # all cleared
    assert rnd.points == [0, 1, 2]


def test_everyone_declaring_zero_scores_nothing():
    record, rnd = one_round(FOUR, "Two pairs", [0, 0, 0, 0], [], start_scores=[1, 0, 0, 0])
    assert (rnd.rolls, rnd.points, rnd.totals, rnd.ended_by) == ([], [0, 0, 0, 0], [1, 0, 0, 0], "all-zero")
    assert record.counters == counters(rounds=1, all_zero_rounds=1)
    with pytest.raises(BadScenario) as refused:
        one_round(FOUR, "Two pairs", [0, 0, 0, 0], [3])
    assert str(refused.value) == "round 0: too many dice: 0 were rolled but 1 were given"


# ---------------------------------------------------------------------------
# "Getting out of the trap"

ESCAPE_DICE = [1, 6, 6, 2, 6, 3, 4, 1, 1, 2, 3, 4, 5, 6, 1, 2, 3, 4, 5, 1, 6]


def test_escapers_go_lowest_score_first():
    # Seat 0 clears with a 1; seats 1 and 2 roll 6 6 2 / 6 3 4 → three 6s against one 1: fired.
    # Seat 2 (0 points) rerolls all 7 dice before seat 1 (2 points); both reroll clean.
    record, rnd = one_round(FOUR, "More 6s than 1s", [1, 3, 3, 0], ESCAPE_DICE, start_scores=[5, 2, 0, 7])
    assert actions(rnd) == [("roll", 1, [0]), ("roll", 3, [1, 2]), ("escape", 2), ("escape", 1)]
    assert [r["tied"] for r in rnd.rolls[2:]] == [[2], [1]]
    assert [r["dice"] for r in rnd.rolls[2:]] == [[1, 1, 2, 3, 4, 5, 6], [1, 2, 3, 4, 5, 1, 6]]
    assert (rnd.points, rnd.totals, rnd.ended_by, rnd.tiebreak) == ([1, 3, 3, 0], [6, 5, 3, 7], "all-cleared", [])
    assert record.counters == counters(rounds=1, later_triggers=1, escapes=2, escapes_succeeded=2)


@pytest.mark.parametrize("draw, order", [(0, [1, 2]), (1, [2, 1])])
def test_tied_escapers_are_ordered_by_a_draw(draw, order):
    _, rnd = one_round(FOUR, "More 6s than 1s", [1, 3, 3, 0], ESCAPE_DICE, start_scores=[0, 4, 4, 0],
                       tiebreak=[draw])
    assert [r["seat"] for r in rnd.rolls if r["kind"] == "escape"] == order
    assert [r["tied"] for r in rnd.rolls[2:]] == [[1, 2], [order[1]]]
    assert rnd.tiebreak == [draw]


def test_three_tied_escapers_draw_twice_then_the_last_goes_without_a_draw():
    dice = [2, 6, 6, 2, 2, 3, 3] + [1, 1, 2, 3, 4, 5, 6] * 3
    _, rnd = one_round(FOUR, "More 6s than 1s", [2, 2, 2, 1], dice, start_scores=[3, 3, 3, 0],
                       tiebreak=[2, 0])
    assert actions(rnd) == [("roll", 1, [3]), ("roll", 2, [0, 1, 2]), ("escape", 2), ("escape", 0), ("escape", 1)]
    assert [r["tied"] for r in rnd.rolls[2:]] == [[0, 1, 2], [0, 1], [1]]
    assert (rnd.points, rnd.ended_by) == ([2, 2, 2, 1], "all-cleared")


def test_tiebreak_refusals():
    def run(tiebreak):
        one_round(FOUR, "More 6s than 1s", [1, 3, 3, 0], ESCAPE_DICE, start_scores=[0, 4, 4, 0], tiebreak=tiebreak)

    for tiebreak, message in [
        ([], "round 0: seats [1, 2] tie for the next escape but no 'tiebreak' index is left (0 given)"),
        ([2], "round 0: tiebreak 0 is 2, not an index 0-1 into the tied seats [1, 2]"),
        ([0, 0], "round 0: too many tiebreak indices: 1 used but 2 given"),
        ("0", "round 0: 'tiebreak' must be a list of whole numbers, got '0'"),
    ]:
        with pytest.raises(BadScenario) as refused:
            run(tiebreak)
        assert str(refused.value) == message


FAIL_DECLARE = [1, 2, 2, 4, 0]          # five players; trap "Three 6s"
FAIL_START = [0, 3, 1, 0, 0]
FAIL_OPENING = [6, 6, 2, 6, 3]          # seat 0: 6 (clear); seats 1, 2: 6 2 / 6 3 → three 6s


def test_every_triggered_player_rerolls_then_a_failure_ends_the_round_before_later_groups():
    # "Each player who triggered the trap has one chance to get out of the trap": seat 2 (lower
    # score) fails, seat 1 still rerolls and clears (2 points); then the round ends, so seat 3
    # (declared 4) never rolls and nobody is paid the 0-bonus
    record, rnd = one_round(FIVE, "Three 6s", FAIL_DECLARE, FAIL_OPENING + [6, 6, 6, 1, 2] + [1, 2, 3, 4, 5],
                            FAIL_START)
    assert actions(rnd) == [("roll", 1, [0]), ("roll", 2, [1, 2]), ("escape", 2), ("escape", 1)]
    assert [r["fired"] for r in rnd.rolls[2:]] == [True, False]
    assert (rnd.points, rnd.ended_by) == ([1, 2, 0, 0, 0], "failed-escape")
    assert record.counters == counters(rounds=1, later_triggers=1, escapes=2, escapes_succeeded=1)


def test_an_escape_failing_after_one_succeeded_keeps_the_first_escapers_points():
    record, rnd = one_round(FIVE, "Three 6s", FAIL_DECLARE,
                            FAIL_OPENING + [1, 2, 3, 4, 5] + [6, 6, 6, 1, 1], FAIL_START)
    assert actions(rnd) == [("roll", 1, [0]), ("roll", 2, [1, 2]), ("escape", 2), ("escape", 1)]
    assert (rnd.points, rnd.ended_by) == ([1, 0, 2, 0, 0], "failed-escape")
    assert record.counters == counters(rounds=1, later_triggers=1, escapes=2, escapes_succeeded=1)


def test_both_escapers_failing_end_the_round_with_no_escape_points():
    record, rnd = one_round(FIVE, "Three 6s", FAIL_DECLARE,
                            FAIL_OPENING + [6, 6, 6, 1, 2] + [6, 6, 6, 3, 3], FAIL_START)
    assert actions(rnd) == [("roll", 1, [0]), ("roll", 2, [1, 2]), ("escape", 2), ("escape", 1)]
    assert (rnd.points, rnd.ended_by) == ([1, 0, 0, 0, 0], "failed-escape")
    assert record.counters == counters(rounds=1, later_triggers=1, escapes=2)


FIRST_FAILURE = dataclasses.replace(FIVE, first_failure_ends_escapes=True)


def test_variant_first_failure_ends_the_round_before_later_escapers_and_groups():
    record, rnd = one_round(FIRST_FAILURE, "Three 6s", FAIL_DECLARE, FAIL_OPENING + [6, 6, 6, 1, 2], FAIL_START)
    assert actions(rnd) == [("roll", 1, [0]), ("roll", 2, [1, 2]), ("escape", 2)]     # seat 1, seat 3: nothing
    assert rnd.rolls[-1]["fired"]
    assert (rnd.points, rnd.ended_by) == ([1, 0, 0, 0, 0], "failed-escape")          # no 0-bonus here
    assert record.counters == counters(rounds=1, later_triggers=1, escapes=1)
    # the dice the default reading would roll next are one reroll too many here
    with pytest.raises(BadScenario, match="too many dice"):
        one_round(FIRST_FAILURE, "Three 6s", FAIL_DECLARE, FAIL_OPENING + [6, 6, 6, 1, 2] + [1, 2, 3, 4, 5],
                  FAIL_START)


def test_variant_first_failure_after_one_succeeded_keeps_the_first_escapers_points():
    record, rnd = one_round(FIRST_FAILURE, "Three 6s", FAIL_DECLARE,
                            FAIL_OPENING + [1, 2, 3, 4, 5] + [6, 6, 6, 1, 1], FAIL_START)
    assert (rnd.points, rnd.ended_by) == ([1, 0, 2, 0, 0], "failed-escape")
    assert record.counters == counters(rounds=1, later_triggers=1, escapes=2, escapes_succeeded=1)


def test_when_all_escape_the_last_reroll_stays_on_the_table_and_the_round_goes_on():
    # seat 2 rerolls 6 6 1 2 3 (two 6s: clear), seat 1 rerolls 1 2 3 4 5; seat 3 then adds 6 6 4 4
    # to seat 1's reroll → two 6s: clear.  On seat 2's reroll the same four dice would fire.
    dice = FAIL_OPENING + [6, 6, 1, 2, 3] + [1, 2, 3, 4, 5] + [6, 6, 4, 4]
    record, rnd = one_round(FIVE, "Three 6s", FAIL_DECLARE, dice, FAIL_START)
    assert actions(rnd) == [("roll", 1, [0]), ("roll", 2, [1, 2]), ("escape", 2), ("escape", 1), ("roll", 4, [3])]
    assert judge(DECK.traps[TRAP["Three 6s"]], [6, 6, 1, 2, 3, 6, 6, 4, 4])
    last = rnd.rolls[-1]
    assert last == {"kind": "roll", "group": 4, "seats": [3], "dice": [6, 6, 4, 4],
                    "table_counts": [1, 1, 1, 3, 1, 2], "fired": False, "fresh": False}
    assert (rnd.points, rnd.ended_by) == ([1, 2, 2, 4, 0], "all-cleared")
    assert record.counters == counters(rounds=1, later_triggers=1, escapes=2, escapes_succeeded=2)


def test_a_group_after_escapes_can_trigger_again():
    dice = FAIL_OPENING + [6, 6, 1, 2, 3] + [1, 2, 3, 4, 5] + [6, 6, 6, 4] + [1] * 9
    _, rnd = one_round(FIVE, "Three 6s", FAIL_DECLARE, dice, FAIL_START)
    assert actions(rnd)[-2:] == [("roll", 4, [3]), ("escape", 3)]
    assert rnd.rolls[-1]["dice"] == [1] * 9 and not rnd.rolls[-1]["fired"]
    assert rnd.points == [1, 2, 2, 4, 0]


def test_too_few_dice_are_refused_with_who_needed_the_die():
    with pytest.raises(BadScenario) as refused:
        one_round(FIVE, "Three 6s", FAIL_DECLARE, FAIL_OPENING + [6, 6], FAIL_START)
    assert str(refused.value) == "round 0: too few dice: escape of seat 2 needs die 7 but only 7 were given"
    with pytest.raises(BadScenario) as refused:
        one_round(FOUR, "Total 40", [1, 2, 0, 0], [1, 2])
    assert str(refused.value) == "round 0: too few dice: seat 1 (group 2) needs die 2 but only 2 were given"


# ---------------------------------------------------------------------------
# "Last round" and "Ending the game"


def test_reaching_10_makes_the_next_round_final_with_everything_doubled():
    rounds = [dict(trap="Total 40", declare=[2, 0, 0, 0], dice=[1, 1]),
              dict(trap="More 6s than 1s", declare=[0, 1, 3, 0], dice=[6])]
    record = play_scenario(FOUR, rounds, start_scores=[8, 0, 0, 0])
    assert [r.final for r in record.rounds] == [False, True]
    assert record.rounds[1].points == [6, 0, 0, 6]                 # the 0-bonus doubled
    assert (record.scores, record.winner, record.shares) == ([16, 0, 0, 6], 0, [1.0, 0.0, 0.0, 0.0])
    assert (record.finished, record.capped, record.rolloff, record.final_round) == (True, False, False, 1)
    assert record.counters == counters(rounds=2, first_roll_triggers=1, zero_bonuses=2, final_rounds=1)


def test_nine_points_is_not_enough():
    rounds = [dict(trap="Total 40", declare=[2, 0, 0, 0], dice=[1, 1]),
              dict(trap="Total 40", declare=[1, 1, 1, 1], dice=[2, 3, 4, 5])]
    record = play_scenario(FOUR, rounds, start_scores=[7, 0, 0, 0])
    assert [r.final for r in record.rounds] == [False, False]
    assert (record.scores, record.finished) == ([10, 1, 1, 1], False)


def test_final_round_doubles_declared_counts_and_escapes():
    rounds = [dict(trap="Four 1s", declare=[1, 2, 0, 3], dice=[1, 1, 1, 2, 3, 1] + [2] * 6)]
    record = play_scenario(FOUR, rounds, start_scores=[1, 2, 3, 4], final=True)
    rnd = record.rounds[0]
    assert actions(rnd) == [("roll", 1, [0]), ("roll", 2, [1]), ("roll", 3, [3]), ("escape", 3)]
    assert (rnd.final, rnd.points, record.scores) == (True, [2, 4, 0, 6], [3, 6, 3, 10])
    assert (record.winner, record.final_round) == (3, 0)
    triple = Rules(players=4, deck=DECK, final_multiplier=3)
    record = play_scenario(triple, [dict(trap="More 6s than 1s", declare=[0, 1, 0, 0], dice=[6], rolloff=1)],
                           final=True)
    assert (record.scores, record.winner, record.rolloff) == ([9, 0, 9, 9], 2, True)


def test_three_players_need_12():
    rounds = [dict(trap="Total 40", declare=[1, 0, 0], dice=[1]),
              dict(trap="Total 40", declare=[1, 0, 0], dice=[1]),
              dict(trap="More 6s than 1s", declare=[0, 0, 1], dice=[6])]
    record = play_scenario(THREE, rounds, start_scores=[10, 0, 0])
    assert [r.totals for r in record.rounds] == [[11, 0, 0], [12, 0, 0], [18, 6, 0]]
    assert [r.final for r in record.rounds] == [False, False, True]
    assert (record.winner, record.final_round, record.finished) == (0, 2, True)
    # a target set by the variant
    record = play_scenario(Rules(players=3, deck=DECK, target=11), rounds[:2], start_scores=[10, 0, 0])
    assert [r.final for r in record.rounds] == [False, True]


def test_rounds_after_the_final_round_are_refused():
    rounds = [dict(trap="Total 40", declare=[1, 0, 0, 0], dice=[1])] * 2
    with pytest.raises(BadScenario) as refused:
        play_scenario(FOUR, rounds, final=True)
    assert str(refused.value) == "round 1: the game already ended after round 0 (its final round); 1 round(s) too many"


def test_a_tie_for_the_top_is_settled_by_a_rolloff():
    rounds = [dict(trap="Two pairs", declare=[0, 0, 0, 0], rolloff=2)]
    record = play_scenario(FOUR, rounds, start_scores=[10, 10, 4, 10], final=True)
    assert (record.winner, record.rolloff, record.shares) == (3, True, [0.0, 0.0, 0.0, 1.0])
    for rolloff, message in [
        (None, "round 0: the game ends with seats [0, 1, 3] tied for the top but this round gives no 'rolloff' index"),
        (3, "round 0: rolloff is 3, not an index 0-2 into the tied seats [0, 1, 3]"),
    ]:
        with pytest.raises(BadScenario) as refused:
            play_scenario(FOUR, [dict(trap="Two pairs", declare=[0, 0, 0, 0], rolloff=rolloff)],
                          start_scores=[10, 10, 4, 10], final=True)
        assert str(refused.value) == message
    with pytest.raises(BadScenario) as refused:          # no tie
        play_scenario(FOUR, rounds, start_scores=[10, 9, 4, 10 - 1], final=True)
    assert str(refused.value) == "round 0: a 'rolloff' index was given but no roll-off happens after this round"
    with pytest.raises(BadScenario):                     # the game does not end after this round
        play_scenario(FOUR, rounds, start_scores=[0, 0, 0, 0])


def test_rolloff_in_a_random_game_is_one_deal_draw_after_the_last_round():
    rules = Rules(players=4, deck=DECK, max_rounds=3)
    record = play_game(rules, 11, 5, ALL_ZERO_DECIDER)
    deal = PyStream(11, 5, DEAL)
    for i in range(21, 0, -1):
        deal.below(i + 1)
    assert record.scores == [0, 0, 0, 0] and record.rolloff and record.capped
    assert record.winner == deal.below(4)
    assert record.shares == [1.0 if seat == record.winner else 0.0 for seat in range(4)]


# ---------------------------------------------------------------------------
# The round cap


def test_round_cap_ends_the_game():
    rules = Rules(players=4, deck=DECK, max_rounds=2)
    rounds = [dict(trap="Total 40", declare=[1, 2, 0, 0], dice=[1, 1, 1])] * 2
    record = play_scenario(rules, rounds)
    assert (record.capped, record.finished, record.scores, record.winner, record.rolloff) == (True, True, [2, 4, 0, 0], 1, False)
    assert record.final_round is None and record.counters["final_rounds"] == 0
    with pytest.raises(BadScenario) as refused:
        play_scenario(rules, rounds * 2)
    assert str(refused.value) == "round 2: the game already ended after round 1 (max_rounds = 2); 2 round(s) too many"


def test_round_cap_beats_a_pending_final_round_but_not_a_final_round_played():
    one = Rules(players=4, deck=DECK, max_rounds=1)
    record = play_scenario(one, [dict(trap="Total 40", declare=[1, 0, 0, 0], dice=[1])], start_scores=[9, 0, 0, 0])
    assert (record.capped, record.final_round, record.winner) == (True, None, 0)
    two = Rules(players=4, deck=DECK, max_rounds=2)
    rounds = [dict(trap="Total 40", declare=[1, 0, 0, 0], dice=[1])] * 2
    record = play_scenario(two, rounds, start_scores=[9, 0, 0, 0])
    assert (record.capped, record.final_round, record.scores) == (False, 1, [12, 0, 0, 0])


def test_round_cap_in_a_random_game():
    record = play_game(Rules(players=5, deck=DECK, max_rounds=5), 3, 0, ALL_ZERO_DECIDER)
    assert (len(record.rounds), record.capped, record.counters["all_zero_rounds"]) == (5, True, 5)


# ---------------------------------------------------------------------------
# The trap deck


def fisher_yates(n, rng):
    order = list(range(n))
    for i in range(n - 1, 0, -1):
        j = rng.below(i + 1)
        order[i], order[j] = order[j], order[i]
    return order


def test_deck_is_shuffled_at_start_and_reshuffled_after_22_rounds():
    rules = Rules(players=4, deck=DECK, max_rounds=50)
    record = play_game(rules, 2024, 7, ALL_ZERO_DECIDER)       # nobody rolls: only shuffles draw
    deal = PyStream(2024, 7, DEAL)
    expected = fisher_yates(22, deal) + fisher_yates(22, deal) + fisher_yates(22, deal)[:6]
    assert [r.trap_index for r in record.rounds] == expected
    assert [r.trap for r in record.rounds] == [DECK.traps[i].name for i in expected]
    assert sorted(expected[:22]) == sorted(expected[22:44]) == list(range(22))
    assert [r.round for r in record.rounds if r.reshuffled] == [0, 22, 44]
    assert record.winner == [0, 1, 2, 3][deal.below(4)]        # the roll-off comes after


def test_only_the_cards_tagged_for_the_player_count_are_used_and_indexed_in_the_full_deck():
    traps = (Trap("A", "total >= 100", players=(4, 5)), Trap("B", "total >= 100", players=(3,)),
             Trap("C", "total >= 100"), Trap("D", "total >= 100", players=(4,)), Trap("E", "total >= 100", players=(5,)))
    for deck in (Deck(traps), traps):
        rules = Rules(players=4, deck=deck, max_rounds=7)
        assert rules.usable == (0, 2, 3)
        record = play_game(rules, 9, 1, ALL_ZERO_DECIDER)
        deal = PyStream(9, 1, DEAL)
        positions = fisher_yates(3, deal) + fisher_yates(3, deal) + fisher_yates(3, deal)[:1]
        assert [r.trap_index for r in record.rounds] == [(0, 2, 3)[p] for p in positions]
        with pytest.raises(BadScenario) as refused:
            play_scenario(rules, [dict(trap="B", declare=[0, 0, 0, 0])])
        assert str(refused.value) == "round 0: trap 'B' is not used with 4 players"


# ---------------------------------------------------------------------------
# Refusals of bad declarations and bad scripts


@pytest.mark.parametrize("value, shown", [(6, "6"), (-1, "-1"), ("3", "'3'"), (True, "True"), (2.0, "2.0")])
def test_illegal_declarations(value, shown):
    rounds = [dict(trap="Total 40", declare=[0, 0, 0, 0]), dict(trap="Total 40", declare=[0, 0, value, 0])]
    with pytest.raises(IllegalMove) as refused:
        play_scenario(FOUR, rounds)
    assert (refused.value.step, refused.value.round, refused.value.seat) == (6, 1, 2)
    assert str(refused.value) == f"declaration 6 (round 1, seat 2): {shown} is not a number of dice 0-5"


def test_dice_per_player_bounds_the_declaration():
    rules = Rules(players=3, deck=DECK, dice_per_player=3)
    _, rnd = one_round(rules, "Total 40", [3, 0, 0], [1, 1, 1])
    assert rnd.points == [3, 0, 0]
    with pytest.raises(IllegalMove, match=r"declaration 1 \(round 0, seat 1\): 4 is not a number of dice 0-3"):
        one_round(rules, "Total 40", [0, 4, 0])


def test_a_script_that_runs_out_without_fallback_is_refused():
    with pytest.raises(IllegalMove) as refused:
        play_game(FOUR, 1, 1, ScriptedDecider([[0, 0, 0, 0]]))
    assert refused.value.step == 4
    assert str(refused.value) == "declaration 4 (round 1, seat 0): no declaration was given (script exhausted, no fallback)"


def test_scripted_decider_falls_back():
    play = seat_play_streams(1, 2, 4)
    record = play_game(FOUR, 1, 2, ScriptedDecider([[5, 5, 5, 5]], fallback=RandomDecider(seat_play_streams(1, 2, 4))))
    assert record.rounds[0].declared == [5, 5, 5, 5]
    assert record.rounds[1].declared == [play[s].below(6) for s in range(4)]


@pytest.mark.parametrize("spec, message", [
    (dict(trap="Nope", declare=[0, 0, 0, 0]), "round 0: no trap named 'Nope' in the deck"),
    (dict(trap=22, declare=[0, 0, 0, 0]), "round 0: trap index 22 is not in the deck (0-21)"),
    (dict(trap=True, declare=[0, 0, 0, 0]), "round 0: trap must be a name or an index, got True"),
    (dict(declare=[0, 0, 0, 0]), "round 0: missing 'trap'"),
    (dict(trap=0), "round 0: missing 'declare'"),
    (dict(trap=0, declare=[0, 0, 0]), "round 0: 'declare' must give one declaration per seat (4), got [0, 0, 0]"),
    (dict(trap=0, declare=[1, 0, 0, 0], dice=[7]), "round 0: die 0 is 7, not a face 1-6"),
    (dict(trap=0, declare=[1, 0, 0, 0], dice=[1, 2], extra=1), "round 0: unknown key 'extra' (known: trap, declare, dice, tiebreak, rolloff)"),
    (dict(trap=0, declare=[1, 0, 0, 0], dice="1"), "round 0: 'dice' must be a list of whole numbers, got '1'"),
    (dict(trap=0, declare=[1, 0, 0, 0], dice=[1], rolloff="x"), "round 0: 'rolloff' must be a whole number, got 'x'"),
])
def test_bad_scenario_rounds(spec, message):
    with pytest.raises(BadScenario) as refused:
        play_scenario(FOUR, [spec])
    assert str(refused.value) == message


def test_trap_by_index_or_any_case_name():
    _, by_index = one_round(FOUR, TRAP["Total 20"], [1, 0, 0, 0], [6])
    _, by_name = one_round(FOUR, "tOTAL 20", [1, 0, 0, 0], [6])
    assert by_index == by_name and by_name.trap == "Total 20"


def test_bad_start_scores():
    for scores in ([0, 0, 0], [0, 0, 0, -1], [0, 0, 0, 1.5]):
        with pytest.raises(BadScenario, match="start_scores must be 4 whole numbers >= 0"):
            play_scenario(FOUR, [], start_scores=scores)
    assert play_scenario(FOUR, []).finished is False


# ---------------------------------------------------------------------------
# Seeded random games: invariants, determinism, replay as a scenario, the stream contract


def scenario_of(record: GameRecord):
    """Turn a played game back into scripted rounds."""
    rounds = []
    for rnd in record.rounds:
        rounds.append(dict(trap=rnd.trap_index, declare=rnd.declared,
                           dice=[d for roll in rnd.rolls for d in roll["dice"]], tiebreak=rnd.tiebreak))
    if record.rolloff:
        tied = [s for s, score in enumerate(record.scores) if score == max(record.scores)]
        rounds[-1]["rolloff"] = tied.index(record.winner)
    return rounds


def expected_counters(record):
    out = counters()
    for rnd in record.rounds:
        group_rolls = [r for r in rnd.rolls if r["kind"] == "roll"]
        escapes = [r for r in rnd.rolls if r["kind"] == "escape"]
        out["rounds"] += 1
        out["all_zero_rounds"] += rnd.ended_by == "all-zero"
        out["first_roll_triggers"] += rnd.ended_by == "first-roll"
        out["zero_bonuses"] += rnd.declared.count(0) if rnd.ended_by == "first-roll" else 0
        out["later_triggers"] += sum(r["fired"] for r in group_rolls[1:])
        out["escapes"] += len(escapes)
        out["escapes_succeeded"] += sum(not r["fired"] for r in escapes)
        out["final_rounds"] += rnd.final
    return out


def check_round(rules, rnd, before):
    n, mult = rules.players, (rules.final_multiplier if rnd.final else 1)
    trap = rules.traps[rnd.trap_index]
    assert all(0 <= d <= rules.dice_per_player for d in rnd.declared)
    groups = sorted({d for d in rnd.declared if d})
    group_rolls = [r for r in rnd.rolls if r["kind"] == "roll"]
    assert [r["group"] for r in group_rolls] == groups[:len(group_rolls)]        # ascending, no skips
    table = []
    scored = [0] * n
    for k, roll in enumerate(rnd.rolls):
        if roll["kind"] == "roll":
            assert roll["seats"] == [s for s in range(n) if rnd.declared[s] == roll["group"]]
            assert len(roll["dice"]) == roll["group"] * len(roll["seats"])
            table = table + roll["dice"]
            assert roll["fresh"] == (k == 0)
        else:
            assert len(roll["dice"]) == len(table) and roll["fresh"]
            assert roll["seat"] in roll["tied"]
            table = list(roll["dice"])
        assert roll["table_counts"] == face_counts(table)
        assert roll["fired"] == judge(trap, table)
    for seat in range(n):
        d = rnd.declared[seat]
        if d == 0:
            assert rnd.points[seat] == (rules.zero_bonus * mult if rnd.ended_by == "first-roll" else 0)
        else:
            assert rnd.points[seat] in (0, d * mult)
    assert rnd.totals == [b + p for b, p in zip(before, rnd.points)]
    if rnd.ended_by == "all-zero":
        assert rnd.rolls == [] and not any(rnd.declared)
    elif rnd.ended_by == "first-roll":
        assert len(rnd.rolls) == 1 and rnd.rolls[0]["fired"]
    elif rnd.ended_by == "failed-escape":
        # the round ends with the escapes of the last group that rolled: every one of its
        # players rerolled (the rulebook), or, under first_failure_ends_escapes, up to the
        # first failure, which is then the last roll of the round
        last_group = group_rolls[-1]
        escapes = rnd.rolls[rnd.rolls.index(last_group) + 1:]
        assert last_group["fired"] and all(r["kind"] == "escape" for r in escapes)
        assert sum(r["fired"] for r in escapes) >= 1
        if rules.first_failure_ends_escapes:
            assert escapes[-1]["fired"] and sum(r["fired"] for r in escapes) == 1
        else:
            assert sorted(r["seat"] for r in escapes) == last_group["seats"]
            assert all(rnd.points[r["seat"]] == (0 if r["fired"] else rnd.declared[r["seat"]] * mult)
                       for r in escapes)
    else:
        assert rnd.ended_by == "all-cleared" and len(group_rolls) == len(groups) and not rnd.rolls[-1]["fired"]
        assert all(rnd.points[s] == rnd.declared[s] * mult for s in range(n) if rnd.declared[s])


def check_deal_stream(rules, record, seed, index):
    """Re-draw the DEAL stream in the documented order against what the record shows."""
    deal = PyStream(seed, index, DEAL)
    usable = rules.usable
    order, pos = [], 0
    for rnd in record.rounds:
        if pos == len(order):
            order, pos = fisher_yates(len(usable), deal), 0
        assert rnd.trap_index == usable[order[pos]]
        pos += 1
        for roll in rnd.rolls:
            if roll["kind"] == "escape" and len(roll["tied"]) > 1:
                assert roll["tied"][deal.below(len(roll["tied"]))] == roll["seat"]
            assert roll["dice"] == [1 + deal.below(6) for _ in roll["dice"]]
    top = max(record.scores)
    tied = [s for s in range(rules.players) if record.scores[s] == top]
    assert record.winner == (tied[deal.below(len(tied))] if len(tied) > 1 else tied[0])


@pytest.mark.parametrize("first_failure", [False, True], ids=["rulebook", "first-failure-ends"])
@pytest.mark.parametrize("players", [3, 4, 5])
def test_random_games_keep_every_invariant(players, first_failure):
    rules = Rules(players=players, deck=DECK, first_failure_ends_escapes=first_failure)
    seen_endings, seen_ties, seen_tiebreaks = set(), 0, 0
    for index in range(150):
        record = play_game(rules, 77, index)
        assert record == play_game(rules, 77, index)                     # deterministic
        assert record.finished and not record.capped and 1 <= len(record.rounds) <= rules.max_rounds
        before = [0] * players
        play = seat_play_streams(77, index, players)
        for number, rnd in enumerate(record.rounds):
            assert rnd.round == number
            assert rnd.declared == [play[s].below(6) for s in range(players)]   # the random strategy
            check_round(rules, rnd, before)
            before = rnd.totals
            reached = max(rnd.totals) >= rules.target
            last = number == len(record.rounds) - 1
            assert rnd.final == last                                          # only the last round is final
            assert reached == (number >= len(record.rounds) - 2)             # target first reached just before
            seen_endings.add(rnd.ended_by)
            seen_tiebreaks += len(rnd.tiebreak)
        assert record.scores == before
        assert record.final_round == len(record.rounds) - 1
        assert record.counters == expected_counters(record)
        assert sum(record.shares) == 1.0 and record.shares[record.winner] == 1.0
        assert record.scores[record.winner] == max(record.scores)
        assert record.rolloff == (record.scores.count(max(record.scores)) > 1)
        seen_ties += record.rolloff
        check_deal_stream(rules, record, 77, index)
        replay = play_scenario(rules, scenario_of(record))
        assert replay.rounds == [dataclasses.replace(r, reshuffled=False) for r in record.rounds]
        assert (replay.scores, replay.winner, replay.shares, replay.counters, replay.final_round) == \
               (record.scores, record.winner, record.shares, record.counters, record.final_round)
    # (everyone declaring 0 at random is rare with 5 players: 6**-5 per round)
    assert seen_endings >= {"all-cleared", "first-roll", "failed-escape"}
    assert seen_endings <= {"all-zero", "all-cleared", "first-roll", "failed-escape"}
    assert seen_ties > 0 and seen_tiebreaks > 0


def test_fresh_judgements_fire_at_the_exact_odds():
    from simcore.games.sky_city.trap_odds import exact_odds

    odds = exact_odds(DECK.codes)
    expected = variance = 0.0
    observed = total = 0
    for players in (3, 4, 5):
        rules = Rules(players=players, deck=DECK)
        for index in range(400):
            for trap_index, n_dice, fresh, fired in judgements(play_game(rules, 5, index)):
                if fresh:
                    p = odds[trap_index, n_dice]
                    expected += p
                    variance += p * (1 - p)
                    observed += fired
                    total += 1
    assert total > 5000
    assert abs(observed - expected) < 4 * variance ** 0.5
