"""The Sky City of ALEA trap cards: the condition language, the default deck, the compiled judge
against the plain one, and the exact odds against fractions worked out by hand."""
from fractions import Fraction
from math import comb

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from simcore.games.sky_city import trap_language as traps
from simcore.errors import BalanceError
from simcore.games.sky_city.trap_odds import exact_odds, fires
from simcore.games.sky_city.trap_language import (CODE_WIDTH, Condition, count_patterns, exact_probability, fires_on_dice, load_deck,
                           parse_condition, tally)

DECK = load_deck()

# Conditions beyond the default deck, chosen to reach every branch of both judges.
EXTRA = [
    "count {6} == count {1}", "count {1,2} < count {5,6}", "count {3} != 0", "count {1} <= 1",
    "count {2,3} >= count {3,4}", "count {6} >= count {6}", "total < 10", "total == 7|11",
    "total != 12", "total <= 6", "total > 35", "pattern A", "pattern AB", "pattern ABC",
    "pattern ABCDEF", "pattern ABAB", "pattern AAABBC", "faces 1", "faces 5 5 5 5 5",
    "faces 1 2 2 3 3 3", "count {1,2,3,4,5,6} == 3|5|7", "count {4} < 2",
]
CONDITIONS = [t.condition for t in DECK.traps] + [parse_condition(text) for text in EXTRA]


def dice_of(counts) -> list[int]:
    return [face for face, c in zip(range(1, 7), counts) for _ in range(c)]


# --- the default deck -------------------------------------------------------------------------

def test_default_deck_is_the_22_of_the_rulings_five_of_them_real():
    assert len(DECK) == 22 and DECK.codes.shape == (22, CODE_WIDTH) and DECK.codes.dtype == np.int64
    real = {str(t.condition) for t in DECK.traps if not t.assumed}
    assert real == {"pattern AABB", "pattern AAABBB", "faces 1 1 1 1", "faces 1 2 3", "total >= 20"}
    assert {str(t.condition) for t in DECK.traps} == real | {
        "total >= 30", "total >= 40", "pattern AAAA", "pattern AAABB", "pattern AAAAA", "pattern AABBCC",
        "faces 1 2 3 4 5", "faces 4 5 6", "faces 6 6 6", "faces 2 2 5 5", "count {1,2} >= 5",
        "count {5,6} >= 5", "count {2,4,6} >= 6", "count {3} == 2|4", "count {1} == 3",
        "count {6} > count {1}", "faces 1 2 3 4 5 6"}
    assert len(set(DECK.names)) == 22
    assert all(t.players == (3, 4, 5) for t in DECK.traps)  # ASSUMED: every card at every count
    assert DECK.warnings == ()
    for players in (3, 4, 5):
        assert DECK.for_players(players).names == DECK.names
    for row, trap in enumerate(DECK.traps):
        assert np.array_equal(DECK.codes[row], trap.code)


# --- exact values by hand ---------------------------------------------------------------------

HAND = [
    # the one arrangement set {1,2,3} in 3! orders
    ("faces 1 2 3", 3, Fraction(6, 216)),
    # 4 dice holding 1,2,3: the fourth is 4/5/6 (3 faces x 4! orders = 72) or repeats one of
    # 1/2/3 (3 x 4!/2! = 36): 108
    ("faces 1 2 3", 4, Fraction(108, 1296)),
    ("faces 1 1 1 1", 4, Fraction(1, 1296)),  # only 1 1 1 1
    ("pattern AAAAA", 5, Fraction(6, 7776)),  # five of one face: 6 rolls
    ("total >= 30", 5, Fraction(1, 7776)),  # only 6 6 6 6 6
    ("count {6} > count {1}", 1, Fraction(1, 6)),  # the die is a 6
    # two faces C(6,2) = 15, arranged 4!/(2!2!) = 6 ways: 90
    ("pattern AABB", 4, Fraction(90, 1296)),
    # 5 dice: shape 2+2+1 (15 pairs of faces x 4 singles x 5!/(2!2!) = 1800) or 3+2
    # (6 x 5 ordered faces x 5!/(3!2!) = 300); 4+1 has no second pair: 2100
    ("pattern AABB", 5, Fraction(2100, 7776)),
    # 15 pairs of faces x 6!/(3!3!) = 20 arrangements: 300
    ("pattern AAABBB", 6, Fraction(300, 46656)),
    ("faces 1 2 3 4 5 6", 6, Fraction(720, 46656)),  # 6! orders
    # 4d6 >= 20 mirrors 4d6 <= 8 (s <-> 28 - s): sums 4..8 of four dice 1..6 are the compositions
    # C(s-1, 3) = 1 + 4 + 10 + 20 + 35 = 70
    ("total >= 20", 4, Fraction(70, 1296)),
    # exactly two 3s: C(4,2) x 5^2 = 150, exactly four: 1
    ("count {3} == 2|4", 4, Fraction(151, 1296)),
    # 6 6 (1), or one 6 with a 2/3/4/5 (2 positions x 4 = 8); 6 1 is a tie
    ("count {6} > count {1}", 2, Fraction(9, 36)),
    ("count {1,2} >= 5", 5, Fraction(32, 7776)),  # each die 1 or 2: 2^5
    # some face >= 4 times in 5: 6 faces x (C(5,4) x 5 others + 1 five-of-a-kind) = 156
    ("pattern AAAA", 5, Fraction(156, 7776)),
    ("faces 6 6 6", 4, Fraction(21, 1296)),  # exactly three 6s: C(4,3) x 5 = 20, four: 1
    ("count {1} == 3", 3, Fraction(1, 216)),
    ("count {1} == 3", 4, Fraction(20, 1296)),  # C(4,3) x 5 others; four 1s is not three
]


@pytest.mark.parametrize("text,n,expected", HAND)
def test_hand_worked_odds(text, n, expected):
    cond = parse_condition(text)
    assert exact_probability(cond, n) == expected
    assert exact_odds(cond.code, max_dice=n)[0, n] == pytest.approx(float(expected), rel=1e-15, abs=0)


def test_the_default_table_matches_exact_fractions():
    odds = exact_odds(DECK.codes)
    assert odds.shape == (22, 26) and odds.dtype == np.float64
    for row, trap in enumerate(DECK.traps):
        for n in range(9):
            assert odds[row, n] == pytest.approx(float(exact_probability(trap, n)), rel=1e-15, abs=1e-18), (trap.name, n)
    # a few full-size entries with closed forms
    assert odds[DECK.names.index("Total 40"), 25] > 0  # reachable once 7 dice are out
    assert odds[DECK.names.index("Total 40"), 6] == 0 and odds[DECK.names.index("Total 40"), 7] > 0
    more_sixes = odds[DECK.names.index("More 6s than 1s")]
    # by symmetry of 6s and 1s: P(more 6s) = (1 - P(tie)) / 2, tie = sum_k n!/(k!k!(n-2k)!) 4^(n-2k) / 6^n
    for n in (10, 25):
        tie = sum(Fraction(comb(n, k) * comb(n - k, k) * 4 ** (n - 2 * k), 6 ** n) for k in range(n // 2 + 1))
        assert more_sixes[n] == pytest.approx(float((1 - tie) / 2), rel=1e-15)
    low = odds[DECK.names.index("Five low")]  # count {1,2} >= 5 is binomial(n, 1/3) >= 5
    for n in (5, 12, 25):
        binomial = Fraction(sum(comb(n, k) * 2 ** (n - k) for k in range(5, n + 1)), 3 ** n)
        assert low[n] == pytest.approx(float(binomial), rel=1e-15)


def test_extra_conditions_match_exact_fractions():
    codes = np.array([c.code for c in CONDITIONS[22:]])
    odds = exact_odds(codes, max_dice=7)
    for row, cond in enumerate(CONDITIONS[22:]):
        for n in range(8):
            assert odds[row, n] == pytest.approx(float(exact_probability(cond, n)), rel=1e-15, abs=1e-18), (str(cond), n)


def test_odds_are_probabilities_and_complements_add_up():
    odds = exact_odds(DECK.codes)
    assert ((odds >= 0) & (odds <= 1 + 1e-12)).all()
    pairs = exact_odds(np.array([parse_condition(t).code for t in (
        "total >= 20", "total < 20", "count {3} == 2|4", "count {3} == 0|1|3", "count {3} >= 5",
        "count {6} > count {1}", "count {6} < count {1}", "count {6} == count {1}")]))
    np.testing.assert_allclose(pairs[0] + pairs[1], 1.0, rtol=0, atol=1e-12)
    np.testing.assert_allclose(pairs[2] + pairs[3] + pairs[4], 1.0, rtol=0, atol=1e-12)
    np.testing.assert_allclose(pairs[5] + pairs[6] + pairs[7], 1.0, rtol=0, atol=1e-12)
    np.testing.assert_allclose(pairs[5], pairs[6], rtol=0, atol=1e-14)  # 6s and 1s are symmetric


def test_monotone_conditions_never_get_less_likely_with_more_dice():
    """faces / pattern / total >= / count >= are upward closed: an extra die cannot un-fire them."""
    odds = exact_odds(DECK.codes)
    monotone = [row for row, t in enumerate(DECK.traps)
                if t.condition.kind in ("faces", "pattern") or (t.condition.op in (">=", ">") and t.condition.kind != "count-vs-count")]
    assert len(monotone) == 19
    assert (np.diff(odds[monotone], axis=1) >= -1e-12).all()


def test_zero_dice_fire_only_what_the_empty_table_satisfies():
    odds = exact_odds(np.array([c.code for c in CONDITIONS]), max_dice=0)
    expected = [1.0 if fires_on_dice(c, []) else 0.0 for c in CONDITIONS]
    assert odds[:, 0].tolist() == expected
    assert {str(c) for c, e in zip(CONDITIONS, expected) if e} == {
        "count {6} == count {1}", "total < 10", "total <= 6", "count {1} <= 1", "count {2,3} >= count {3,4}",
        "count {6} >= count {6}", "total != 12", "count {4} < 2"}


def test_the_full_default_table_to_25_dice_extends_the_default_one():
    # its speed (it enumerates every count pattern of up to 25 dice) is balance bench's business,
    # not a timed test's; here: the larger table agrees with the default one where both reach
    default, full = exact_odds(DECK.codes), exact_odds(DECK.codes, max_dice=25)
    assert full.shape == (len(DECK), 26) and np.all((full >= 0.0) & (full <= 1.0))
    assert np.array_equal(full[:, :default.shape[1]], default)


# --- the compiled judge against the plain one -------------------------------------------------

@pytest.mark.differential
def test_compiled_judge_agrees_with_the_plain_one_on_every_roll_of_up_to_8_dice():
    patterns = [p for n in range(9) for p in count_patterns(n)]
    assert len(patterns) == comb(14, 6)  # every count vector of 0..8 dice
    for counts in patterns:
        dice, counted = dice_of(counts), tally(dice_of(counts))
        for cond in CONDITIONS:
            assert fires(cond.code, counted) == fires_on_dice(cond, dice), (str(cond), dice)


def test_judges_read_dice_in_any_order_and_tally_counts_faces():
    assert tally([6, 1, 6, 3]).tolist() == [0, 1, 0, 1, 0, 0, 2]
    assert fires_on_dice("pattern AABB", [5, 2, 2, 5]) and fires_on_dice("faces 1 2 3", [3, 6, 2, 1])
    assert not fires_on_dice("pattern AABB", [5, 5, 5, 5])  # different letters need different faces
    assert fires_on_dice("pattern AAAA", [5, 5, 5, 5, 5, 2])  # counts are minimums
    assert fires_on_dice("count {6} > count {1}", [6]) and not fires_on_dice("count {6} > count {1}", [6, 1])
    with pytest.raises(ValueError):
        fires_on_dice("faces 1", [7])


FACE_SETS = st.lists(st.integers(1, 6), min_size=1, max_size=6, unique=True)
OPS = st.sampled_from([">=", ">", "<=", "<", "==", "!="])


@st.composite
def condition_texts(draw):
    kind = draw(st.sampled_from(["faces", "pattern", "total", "count", "count-vs-count"]))
    space = draw(st.sampled_from([" ", "  ", "\t"]))

    def braces(faces):
        return "{" + draw(st.sampled_from([",", ", "])).join(map(str, faces)) + "}"

    if kind == "faces":
        return "faces " + " ".join(map(str, draw(st.lists(st.integers(1, 6), min_size=1, max_size=8))))
    if kind == "pattern":
        return "pattern " + "".join(draw(st.lists(st.sampled_from("ABCDEF"), min_size=1, max_size=8)))
    op = draw(OPS)
    top = 50 if kind == "total" else 10
    values = draw(st.lists(st.integers(0, top), min_size=1, max_size=3 if op == "==" else 1, unique=True))
    rhs = "|".join(map(str, values))
    if kind == "total":
        return f"total{space}{op}{space}{rhs}"
    if kind == "count":
        return f"count {braces(draw(FACE_SETS))}{space}{op} {rhs}"
    return f"count {braces(draw(FACE_SETS))} {op}{space}count {braces(draw(FACE_SETS))}"


@settings(deadline=None, max_examples=400)
@given(condition_texts(), st.lists(st.integers(0, 9), min_size=6, max_size=6))
def test_random_conditions_agree_on_random_rolls(text, counts):
    cond = parse_condition(text)
    assert parse_condition(str(cond)) == cond  # canonical text parses back to the same condition
    assert fires(cond.code, tally(dice_of(counts))) == fires_on_dice(cond, dice_of(counts))


@settings(deadline=None, max_examples=300)
@given(condition_texts(), st.lists(st.integers(0, 60), min_size=6, max_size=6))
def test_packed_counts_judge_large_counts_too(text, counts):
    """``fires`` judges packed counts, a byte per face: up to 60 dice a face (the odds table's
    limit) no byte overflows into the next."""
    cond = parse_condition(text)
    assert fires(cond.code, tally(dice_of(counts))) == fires_on_dice(cond, dice_of(counts))


@settings(deadline=None, max_examples=60)
@given(condition_texts(), st.integers(0, 5))
def test_random_conditions_exact_odds_match_fractions(text, n):
    cond = parse_condition(text)
    assert exact_odds(cond.code, max_dice=n)[0, n] == pytest.approx(float(exact_probability(cond, n)), rel=1e-15, abs=1e-18)


# --- the language -----------------------------------------------------------------------------

def test_parsed_forms_and_codes():
    assert parse_condition("faces 2 2 5 5") == Condition("faces", faces=(2, 2, 5, 5))
    assert parse_condition("Pattern aabb") == Condition("pattern", letters="AABB")
    assert parse_condition("count{6,2, 4}>=6") == Condition("count", faces=(2, 4, 6), op=">=", values=(6,))
    assert parse_condition("count {3} == 2|4").values == (2, 4)
    assert str(parse_condition("count{6}>count{1}")) == "count {6} > count {1}"
    assert parse_condition("pattern AAABB").code[:7].tolist() == [traps.OP_PATTERN, 3, 2, 0, 0, 0, 0]
    code = parse_condition("count {6} > count {1}").code
    assert code[:10].tolist() == [traps.OP_LINEAR, -1, 0, 0, 0, 0, 1, traps.CMP_GT, 1, 0]


BAD_CONDITIONS = [
    ("faces 1 7", "column 9: expected a face 1-6 after 'faces', got '7'"),
    ("faces", "column 6: expected a face 1-6 after 'faces', got end of condition"),
    ("faces 1 x", "column 9: expected a face 1-6 or end of condition, got 'x'"),
    ("", "column 1: expected faces, pattern, total or count, got end of condition"),
    ("sum >= 20", "column 1: expected faces, pattern, total or count, got 'sum'"),
    ("__import__('os')", "column 1: unexpected character '_'"),
    ("pattern", "column 8: expected letters after 'pattern' (e.g. AABB), got end of condition"),
    ("pattern AA BB", "column 12: expected end of condition, got 'BB'"),
    ("pattern ABCDEFG", "column 15: a pattern has at most 6 different letters (a die has 6 faces), got 'G'"),
    ("total 20", "column 7: expected a comparison (>=, >, <=, <, ==, !=) after 'total', got '20'"),
    ("total = 20", "column 7: expected a comparison (>=, >, <=, <, ==, !=) after 'total', got '=' (write '==')"),
    ("total >= count {1}", "column 10: expected a number after '>=', got 'count'"),
    ("total >= 10000", "column 10: numbers go up to 9999, got '10000'"),
    ("total >= 20 20", "column 13: expected end of condition, got '20'"),
    ("count 3 >= 2", "column 7: expected '{' after 'count', got '3'"),
    ("count {} >= 2", "column 8: expected a face 1-6 in the set, got '}'"),
    ("count {1 2} >= 2", "column 10: expected ',' or '}' in the set, got '2'"),
    ("count {1,7} >= 2", "column 10: expected a face 1-6 in the set, got '7'"),
    ("count {2,2} >= 2", "column 10: face 2 is twice in the set"),
    ("count {3} >= 2|4", "column 15: alternatives with '|' need '==', not '>='"),
    ("count {3} == 2|", "column 16: expected a number after '|', got end of condition"),
    ("count {3} == 2|2", "column 16: 2 is already an alternative"),
    ("count {3} == 1|2|3|4|5|6|7|8", "column 27: at most 7 alternatives"),
    ("count {3} >= many", "column 14: expected a number or 'count {...}' after '>=', got 'many'"),
    ("count {6} > count 1", "column 19: expected '{' after 'count', got '1'"),
    ("faces 1 ; faces 2", "column 9: unexpected character ';'"),
]


@pytest.mark.parametrize("text,message", BAD_CONDITIONS)
def test_syntax_errors_name_the_column_and_what_was_expected(text, message):
    with pytest.raises(BalanceError) as err:
        parse_condition(text)
    assert str(err.value) == f"condition {text!r}: {message}"
    with pytest.raises(BalanceError) as err:
        parse_condition(text, where='traps.toml: trap 7 "Sevens"')
    assert str(err.value) == f'traps.toml: trap 7 "Sevens": {message}'


@pytest.mark.parametrize("text,warning", [
    ("total >= 151", "never fires with 1-25 dice"),
    ("faces " + " ".join(["6"] * 26), "never fires with 1-25 dice"),
    ("count {6} > count {6}", "never fires with 1-25 dice"),
    ("count {1} >= 0", "always fires with 1-25 dice"),
    ("total >= 1", "always fires with 1-25 dice"),
    ("pattern A", "always fires with 1-25 dice"),
    ("count {1,2,3,4,5,6} >= 1", "always fires with 1-25 dice"),
])
def test_conditions_that_cannot_go_either_way_are_flagged(text, warning):
    assert traps.condition_warnings(parse_condition(text)) == [warning]


def test_conditions_that_can_go_either_way_are_not_flagged():
    for cond in CONDITIONS:
        if str(cond) not in ("pattern A", "count {6} >= count {6}"):
            assert traps.condition_warnings(cond) == [], str(cond)
    assert traps.condition_warnings(parse_condition("total >= 150")) == []  # 25 sixes


# --- deck files ---------------------------------------------------------------------------------

def write(tmp_path, text, name="traps.toml"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_a_deck_file_with_player_tags(tmp_path):
    path = write(tmp_path, '''name = "mine"
[[trap]]
name = "Pairs"
when = "pattern AABB"
[[trap]]
name = "Big"
when = "total >= 150"
players = [5, 4]
assumed = true
note = "only with many dice"
''')
    deck = load_deck(path)
    assert deck.name == "mine" and deck.names == ["Pairs", "Big"]
    assert deck.traps[1].players == (4, 5) and deck.traps[1].assumed and not deck.traps[0].assumed
    assert deck.for_players(3).names == ["Pairs"] and deck.for_players(3).codes.shape == (1, CODE_WIDTH)
    assert deck.for_players(5).names == ["Pairs", "Big"]
    assert deck.warnings == ()
    assert load_deck(path, max_dice=20).warnings == (f'{path}: trap 2 "Big": never fires with 1-20 dice',)
    with pytest.raises(BalanceError, match="^The Sky City of ALEA is for 3-5 players, not 6$"):
        deck.for_players(6)
    only = load_deck(write(tmp_path, '[[trap]]\nname = "X"\nwhen = "faces 1"\nplayers = [4]\n', "one.toml"))
    with pytest.raises(BalanceError, match="no trap in this deck is used with 3 players$"):
        only.for_players(3)


TRAP = '[[trap]]\nname = "Pairs"\nwhen = "pattern AABB"\n'

BAD_DECKS = [
    ("[[trap]\nname = 1", "traps.toml: not valid TOML: "),
    ('name = "empty"\n', "traps.toml: no [[trap]] tables (a deck needs at least one trap)"),
    ('trap = "pattern AABB"\n', "traps.toml: 'trap' must be one or more [[trap]] tables"),
    ('colour = "red"\n' + TRAP, "traps.toml: unknown key 'colour' (known: description, name, trap)"),
    ('[[trap]]\nwhen = "pattern AABB"\n', "traps.toml: trap 1: missing 'name'"),
    ('[[trap]]\nname = ""\nwhen = "faces 1"\n', "traps.toml: trap 1: 'name' must be a non-empty one-line string"),
    (TRAP + '[[trap]]\nname = "Sevens"\n', 'traps.toml: trap 2 "Sevens": missing \'when\' (the condition, e.g. when = "pattern AABB")'),
    (TRAP + '[[trap]]\nname = "Sevens"\nwhen = 7\n', 'traps.toml: trap 2 "Sevens": \'when\' must be a string'),
    (TRAP + '[[trap]]\nname = "X"\nwhen = "faces 1"\ncolor = 1\n',
     'traps.toml: trap 2 "X": unknown key \'color\' (known: assumed, name, note, players, when)'),
    (TRAP + '[[trap]]\nname = "X"\nwhen = "faces 1"\nplayers = [2, 3]\n',
     'traps.toml: trap 2 "X": \'players\' must be a list of different player counts 3-5, got [2, 3]'),
    (TRAP + '[[trap]]\nname = "X"\nwhen = "faces 1"\nplayers = []\n',
     'traps.toml: trap 2 "X": \'players\' must be a list of different player counts 3-5, got []'),
    (TRAP + '[[trap]]\nname = "X"\nwhen = "faces 1"\nplayers = 4\n',
     'traps.toml: trap 2 "X": \'players\' must be a list of different player counts 3-5, got 4'),
    (TRAP + '[[trap]]\nname = "X"\nwhen = "faces 1"\nassumed = "yes"\n', 'traps.toml: trap 2 "X": \'assumed\' must be true or false'),
    (TRAP + '[[trap]]\nname = "pairs"\nwhen = "faces 1"\n', 'traps.toml: trap 2 "pairs": the name is already used by trap 1'),
]


@pytest.mark.parametrize("text,message", BAD_DECKS)
def test_bad_decks_are_refused_with_one_line(tmp_path, monkeypatch, text, message):
    monkeypatch.chdir(tmp_path)
    write(tmp_path, text)
    with pytest.raises(BalanceError) as err:
        load_deck("traps.toml")
    assert "\n" not in str(err.value)
    assert str(err.value).startswith(message) if message.endswith(": ") else str(err.value) == message


def test_a_syntax_error_in_a_deck_names_the_card_and_its_index(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    cards = "".join(f'[[trap]]\nname = "Card {i}"\nwhen = "faces {i}"\n' for i in range(1, 7))
    write(tmp_path, cards + '[[trap]]\nname = "Sevens"\nwhen = "faces 1 7"\n')
    with pytest.raises(BalanceError) as err:
        load_deck("traps.toml")
    assert str(err.value) == 'traps.toml: trap 7 "Sevens": column 9: expected a face 1-6 after \'faces\', got \'7\''


def test_missing_deck_file(tmp_path):
    with pytest.raises(BalanceError, match="^trap deck not found: "):
        load_deck(tmp_path / "nope.toml")


def test_exact_odds_refuses_bad_input():
    with pytest.raises(BalanceError, match="16 columns"):
        exact_odds(np.zeros((2, 5), np.int64))
    with pytest.raises(BalanceError, match="at most 60 dice, not 61"):
        exact_odds(DECK.codes, max_dice=61)
    assert exact_odds(DECK).shape == (22, 26)  # a Deck works too


def test_reading_a_deck_loads_no_numba():
    """The trap language is plain Python: a deck can be read and checked without the compiler."""
    import subprocess
    import sys

    code = ("import sys; from simcore.games.sky_city.trap_language import load_deck; "
            "deck = load_deck(); print(len(deck.traps), 'numba' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["22", "False"]
