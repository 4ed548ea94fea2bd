"""TriATri: state encoding and rules (compiled).

Rules as implemented: docs/rules/triatri.md (the rulebook and the project's rulings); the plain-Python
oracle is simcore/games/triatri/reference.py and the two share the card numbering and the order of
random draws documented there.

Encoding
--------
Cards are ids 0..D-1: colour c (0 fire, 1 water, 2 wood), number n -> ``c*K + (n - low)`` with
K = high - low + 1 numbers per colour; the fakes are ``3K .. 3K+fakes-1``.  A hand is a uint64
bitmask of ids.  ``cards[id] = (colour, number)`` with colour -1 and number 0 for a fake;
``masks[c]`` is the bitmask of colour c's cards and ``masks[FAKE]`` that of the fakes.

A gem option is ``c`` (a supply gem of colour c) or ``3 + c`` (one of the start player's own).

``table`` is the public state a strategy may read (T_* slots), one int64 each:

    T_ROUND, T_TRICK       round and trick (0-based) being played
    T_START                the start player of this trick
    T_GEM                  the option chosen for this trick (-1 before the choice)
    T_PLAYED               how many seats have played to this trick
    T_SEEN                 bitmask of the cards out this round (bids and plays) - public
    T_SUPPLY + c           gems of colour c left in the supply
    T_GEMS + 3*s + c       gems of colour c held by seat s
    T_ORDER + i            the seat playing i-th in this trick
    T_HELD + s             card seat s holds in this trick (HELD_COLOURLESS, or NOT_PLAYED)
    T_VALUE + s            its value (doubling included)
    T_BID + s              seat s's bid card this round
    T_VOID + s             cards seat s has shown it does not hold this round (a mask, as int64):
                           every card of a colour it did not follow with a numbered card (it
                           must follow unless it holds none of the colour; a fake proves
                           nothing, it may always be played).  Public: everyone at the table
                           can work it out.  Cleared at each deal.
"""
import numpy as np

from simcore.bits import pick
from simcore.errors import BalanceError
from simcore.jit import kernel

MAX_PLAYERS = 4
PLAYER_COUNTS = (2, 3, 4)
HAND_SIZE = 6
COLOURS = 3
FAKE = 3  # masks[FAKE]: the fakes
COLOUR_NAMES = ("fire", "water", "wood")
MAX_DECK = 63

NOT_PLAYED = -2
HELD_COLOURLESS = -1  # a fake that led, or a seat whose card a fake took

(R_PLAYERS, R_LOW, R_HIGH, R_K, R_FAKES, R_DECK, R_GEMS, R_ROUNDS, R_SET_POINTS, R_PAIR_POINTS, R_DOUBLE,
 R_TWO_FACTOR, R_INSTANT_SETS) = range(13)
R_WITHHELD = 13  # deck-index bitmask no seat plays to a trick while another card is legal (0: none; `cards --cause`)
R_LATEST_WINS_THREE_WAY = 14  # 1: three or four tied in exactly two colours -> the latest (variant; T5)
N_RULES = 15

T_ROUND, T_TRICK, T_START, T_GEM, T_PLAYED, T_SEEN = range(6)
T_SUPPLY = 6
T_GEMS = T_SUPPLY + COLOURS
T_ORDER = T_GEMS + COLOURS * MAX_PLAYERS
T_HELD = T_ORDER + MAX_PLAYERS
T_VALUE = T_HELD + MAX_PLAYERS
T_BID = T_VALUE + MAX_PLAYERS
T_VOID = T_BID + MAX_PLAYERS
TABLE_WIDTH = T_VOID + MAX_PLAYERS

# how the game ended
END_ROUNDS, END_SUPPLY, END_INSTANT = 0, 1, 2
GOES_ON = -1  # game_end: the game goes on after this trick
END_NAMES = ("rounds", "supply", "instant-win")

# per-game counters
(C_ROUNDS, C_TRICKS, C_REDEALS, C_FAKES, C_SWAPS, C_FAKE_WINS, C_OWN_OFFERS, C_DOUBLED, C_END) = range(9)
COUNTER_NAMES = ("rounds", "tricks", "redeals", "fakes_played", "fake_swaps", "fake_wins", "own_gem_offers",
                 "doubled", "end")
N_COUNTERS = 9

# one log row per trick
L_ROUND, L_TRICK, L_START, L_GEM, L_WINNER = range(5)
L_PLAYS = 5                             # card played at position i (play order)
L_HELD = L_PLAYS + MAX_PLAYERS          # per seat at the trick's end (HELD_COLOURLESS for colourless)
L_VALUE = L_HELD + MAX_PLAYERS
L_VICTIM = L_VALUE + MAX_PLAYERS        # per position: the seat a fake swapped with, else -1
L_DOUBLED = L_VICTIM + MAX_PLAYERS      # per seat: its played card was doubled
LOG_WIDTH = L_DOUBLED + MAX_PLAYERS

# one log row per deal attempt: round, the hands dealt and the bids
D_ROUND, D_START = 0, 1                 # D_START: the start player, -1 for a redeal
D_HANDS = 2
D_BIDS = D_HANDS + MAX_PLAYERS
DEAL_LOG_WIDTH = D_BIDS + MAX_PLAYERS


@kernel(globals(), inline="always")
def beats(a, b):
    """Colour a has the advantage over colour b (water > fire, wood > water, fire > wood)."""
    # written without % : an integer division in the innermost loop costs more than the rest
    return b >= 0 and (a == b + 1 or (a == 0 and b == 2))


@kernel(globals(), inline="always")
def held_colour(table, cards, seat):
    card = table[T_HELD + seat]
    return cards[card, 0] if card >= 0 else -1


@kernel(globals(), inline="always")
def trick_leader(table, rules, cards, n_played):
    """The seat that would win the trick among the first ``n_played`` to play.

    Highest value; ties: exactly two colours present (all coloured) -> the advantaged colour,
    latest of it; otherwise the latest to play among the tied (docs/rules/triatri.md).  Three or
    four tied in exactly two colours (the rulebook is silent, T5): the advantaged colour's latest,
    or under the variant ``latest_wins_three_way_ties`` the latest of them all."""
    best = -1
    for i in range(n_played):
        best = max(best, table[T_VALUE + table[T_ORDER + i]])
    seen = 0  # colour bits present among the tied; bit 3: a colourless holding
    count = 0
    for i in range(n_played):
        s = table[T_ORDER + i]
        if table[T_VALUE + s] == best:
            c = held_colour(table, cards, s)
            seen |= (1 << c) if c >= 0 else 8
            count += 1
    if count >= 3 and rules[R_LATEST_WINS_THREE_WAY] != 0:
        seen = 8  # as if no advantage applied: the latest tied holding
    winning_colour = -1
    if seen == 3:  # fire and water: water
        winning_colour = 1
    elif seen == 6:  # water and wood: wood
        winning_colour = 2
    elif seen == 5:  # fire and wood: fire
        winning_colour = 0
    winner = -1
    for i in range(n_played):
        s = table[T_ORDER + i]
        if table[T_VALUE + s] == best and (winning_colour < 0 or held_colour(table, cards, s) == winning_colour):
            winner = s
    return winner


# --- the play loop's own bookkeeping ---------------------------------------------------------
# The play loop does not search the table for the leader (trick_leader) after every card: it
# keeps the leader up to date as each card lands, in three integers, and reaches the same seat.
#   best   the highest value held in the trick so far (-1 before the first card)
#   tied   the classes of the holdings tied at ``best``: bit c for colour c, bit CLASS_COLOURLESS
#          for a colourless holding (value 0, so never tied with a numbered card: low >= 1); from
#          bit TIED_COUNT_SHIFT up, how many holdings are tied (the variant
#          latest_wins_three_way_ties gives three or more to the latest, T5)
#   lasts  byte c (c = 0..3): the latest seat among the tied whose holding has class c; byte
#          LATEST_TIED: the latest tied seat of any class.  Each byte is ``seat | class << 4``.
# The leader is the latest holding of the advantaged colour when exactly two colours tie (tied =
# 3, 6 or 5) and otherwise the latest tied holding: LEAD_BYTE holds, per value of ``tied``, the
# byte of ``lasts`` to read (four bits each).  A fake played after the first card takes the
# leader's card and value and is the latest to play, so it lands exactly like that card played
# again by the fake's seat; the leader's seat, now colourless at 0, can no longer be tied
# (unless best is 0, when it was colourless and tied already).
CLASS_COLOURLESS = 3
LATEST_TIED = 4
TIED_COUNT_SHIFT = 4
TIED_CLASSES = (1 << TIED_COUNT_SHIFT) - 1
LEAD_BYTE = np.uint64(sum((1 if t == 3 else 2 if t == 6 else 0 if t == 5 else LATEST_TIED) << (4 * t)
                          for t in range(16)))
# bit c*4 + p: colour c has the advantage over a holding of class p (water > fire, wood > water,
# fire > wood; nothing beats a colourless holding, and a fake beats nothing)
BEATS = np.uint64((1 << (1 * 4 + 0)) | (1 << (2 * 4 + 1)) | (1 << (0 * 4 + 2)))


@kernel(globals(), inline="always")
def lead_entry(tied, lasts, latest_of_three):
    """``seat | class << 4`` of the trick's leader (see the comment above); ``latest_of_three``:
    rules[R_LATEST_WINS_THREE_WAY], three or more tied go to the latest of them."""
    byte = (LEAD_BYTE >> np.uint64(4 * (tied & TIED_CLASSES))) & np.uint64(15)
    if latest_of_three != 0 and (tied >> TIED_COUNT_SHIFT) >= 3:
        byte = np.uint64(LATEST_TIED)
    return np.int64((lasts >> (np.uint64(8) * byte)) & np.uint64(0xFF))


@kernel(globals(), inline="always")
def land(best, tied, lasts, seat, cls, value):
    """The leader bookkeeping after ``seat`` comes to hold a card of class ``cls`` and value
    ``value`` as the latest to play (a numbered card, a leading fake, or a fake's swap)."""
    # written as selects, not branches: whether a random card beats the best is a coin toss the
    # CPU's branch predictor would get wrong about half the time
    entry = np.uint64(seat | (cls << 4))
    keep = ~((np.uint64(0xFF) << np.uint64(8 * cls)) | (np.uint64(0xFF) << np.uint64(8 * LATEST_TIED)))
    landed = (lasts & keep) | (entry << np.uint64(8 * cls)) | (entry << np.uint64(8 * LATEST_TIED))
    tied = ((0 if value > best else tied) | ((1 << cls) if value >= best else 0)) \
        + ((1 << TIED_COUNT_SHIFT) if value >= best else 0)
    lasts = landed if value >= best else lasts
    return max(best, value), tied, lasts


# Per-card facts for the play loop, one int64 per card id (card_facts): bits 0-1 the class
# (colour, CLASS_COLOURLESS for a fake), bits 2-23 the number (0 for a fake), bits 24+ the value
# when its colour beats the previous holding (number x two_factor for a 2, x double_factor else).
# One load instead of two table lookups and a multiplication per card played.
FACT_NUMBER_SHIFT, FACT_DOUBLED_SHIFT = 2, 24
FACT_NUMBER_MASK = (1 << (FACT_DOUBLED_SHIFT - FACT_NUMBER_SHIFT)) - 1


@kernel(globals())
def card_facts(rules, cards):
    facts = np.empty(rules[R_DECK], dtype=np.int64)
    for card in range(rules[R_DECK]):
        colour, n = cards[card, 0], cards[card, 1]
        doubled = n * (rules[R_TWO_FACTOR] if n == 2 else rules[R_DOUBLE])
        cls = colour if colour >= 0 else CLASS_COLOURLESS
        facts[card] = cls | (n << FACT_NUMBER_SHIFT) | (doubled << FACT_DOUBLED_SHIFT)
    return facts


@kernel(globals(), inline="always")
def fact_number(fact):
    return (fact >> FACT_NUMBER_SHIFT) & FACT_NUMBER_MASK


@kernel(globals(), inline="always")
def played_value(fact, previous):
    """The value of a numbered card (its facts) played after a holding of class ``previous``
    (CLASS_COLOURLESS for the first card): value_if_played, as a select rather than a branch."""
    beats_previous = (BEATS >> np.uint64(4 * (fact & 3) + previous)) & np.uint64(1)
    return fact >> FACT_DOUBLED_SHIFT if beats_previous else fact_number(fact)


@kernel(globals(), inline="always")
def value_if_played(table, rules, cards, card, position):
    """The value ``card`` would get played at ``position`` now (numbered cards only)."""
    n = cards[card, 1]
    if position > 0:
        before = table[T_ORDER + position - 1]
        if beats(cards[card, 0], held_colour(table, cards, before)):
            return n * (rules[R_TWO_FACTOR] if n == 2 else rules[R_DOUBLE])
    return n


@kernel(globals(), inline="always")
def place_card(table, rules, cards, seat, card, position):
    """Seat plays ``card`` as the ``position``-th card; returns (doubled, swap victim or -1)."""
    table[T_ORDER + position] = seat
    if cards[card, 0] < 0:  # a fake
        if position == 0:
            table[T_HELD + seat] = HELD_COLOURLESS
            table[T_VALUE + seat] = 0
            return False, -1
        victim = trick_leader(table, rules, cards, position)
        table[T_HELD + seat] = table[T_HELD + victim]
        table[T_VALUE + seat] = table[T_VALUE + victim]
        table[T_HELD + victim] = HELD_COLOURLESS
        table[T_VALUE + victim] = 0
        return False, victim
    value = value_if_played(table, rules, cards, card, position)
    table[T_HELD + seat] = card
    table[T_VALUE + seat] = value
    return value != cards[card, 1], -1


@kernel(globals(), inline="always")
def resolve_bid(table, rules, cards):
    """The round's start player from the bids in T_BID, or -1 for a redeal."""
    n_players = rules[R_PLAYERS]
    best = 0
    for s in range(n_players):
        best = max(best, cards[table[T_BID + s], 1])
    if best == 0:  # every bid a fake
        return -1
    tied = 0
    first = -1
    second = -1
    for s in range(n_players):
        if cards[table[T_BID + s], 1] == best:
            tied += 1
            if first < 0:
                first = s
            else:
                second = s
    if tied == 1:
        return first
    if tied == 2:
        return first if beats(cards[table[T_BID + first], 0], cards[table[T_BID + second], 0]) else second
    if n_players == 4:  # three tied: the player with the other number
        for s in range(n_players):
            if cards[table[T_BID + s], 1] != best:
                return s
    return -1  # three tied at three players


@kernel(globals(), inline="always")
def gem_score(table, rules, seat):
    """Sets +set_points, then two-colour pairs +pair_points, leftovers worth the supply."""
    g0 = table[T_GEMS + 3 * seat]
    g1 = table[T_GEMS + 3 * seat + 1]
    g2 = table[T_GEMS + 3 * seat + 2]
    return score_of(g0, g1, g2, table[T_SUPPLY], table[T_SUPPLY + 1], table[T_SUPPLY + 2], rules)


@kernel(globals(), inline="always")
def score_of(g0, g1, g2, s0, s1, s2, rules):
    sets = min(g0, min(g1, g2))
    g0 -= sets
    g1 -= sets
    g2 -= sets
    # at most two colours are left; a pair takes one of each
    pairs = min(g0, g1) + min(g1, g2) + min(g0, g2)
    if g0 > 0 and g1 > 0:
        g0 -= pairs
        g1 -= pairs
    elif g1 > 0 and g2 > 0:
        g1 -= pairs
        g2 -= pairs
    elif g0 > 0 and g2 > 0:
        g0 -= pairs
        g2 -= pairs
    return sets * rules[R_SET_POINTS] + pairs * rules[R_PAIR_POINTS] + g0 * s0 + g1 * s1 + g2 * s2


# --- the steps of a trick, shared by the play loop (kernel.py) and the search's playouts ------

@kernel(globals(), inline="always")
def gem_options(table, start):
    """宝石を選ぶ: the options open to ``start`` (bit c: a supply gem of colour c, bit 3 + c: one
    of its own gems of colour c)."""
    options = 0
    for c in range(3):
        if table[T_SUPPLY + c] > 0:
            options |= 1 << c
        if table[T_GEMS + 3 * start + c] > 0:
            options |= 1 << (3 + c)
    return options


@kernel(globals(), inline="always")
def legal_cards(hand, suit, fakes):
    """カードを出す: a seat holding the gem's colour (``suit``) plays one of it or a fake; else
    anything."""
    follow = hand & suit
    return (follow | (hand & fakes)) if follow else hand


@kernel(globals(), inline="always")
def swap_untied(victim, best):
    """What to take off ``tied`` after ``land`` when a fake swapped with ``victim``: land counted
    the taken holding as one more tied at ``best``, but the victim lost it, so with ``best`` above
    0 the count of tied holdings is unchanged (at 0 the victim's colourless 0 still ties)."""
    return np.int64((victim >= 0) & (best > 0)) << TIED_COUNT_SHIFT


@kernel(globals(), inline="always")
def lay_card(table, fact, seat, card, position, best, tied, lasts, previous, write, latest_of_three):
    """``seat`` plays ``card`` (its ``card_facts`` entry ``fact``) as the ``position``-th card,
    the previous seat holding class ``previous``; ``write``: also update the seat's (and a swap
    victim's) T_HELD and T_VALUE.  Returns what the seat now holds, (class, value), to ``land``
    on the leader bookkeeping (best, tied, lasts), the swap victim (-1 if none) and whether the
    card was doubled.  (``land`` is left to the caller: the play loop is measurably faster so.)
    ``latest_of_three``: rules[R_LATEST_WINS_THREE_WAY] (lead_entry)."""
    cls = fact & 3
    # a fake after the first card takes the leader's card and value
    swaps = (cls == CLASS_COLOURLESS) & (position > 0)
    lead = lead_entry(tied, lasts, latest_of_three)
    played = played_value(fact, previous)  # a leading fake: class colourless, value 0
    value = pick(swaps, best, played)
    victim = pick(swaps, lead & 15, -1)
    doubled = (not swaps) & (played != fact_number(fact))
    if write:
        if swaps:
            table[T_HELD + seat] = table[T_HELD + victim]
            table[T_VALUE + seat] = best
            table[T_HELD + victim] = HELD_COLOURLESS
            table[T_VALUE + victim] = 0
        else:
            table[T_HELD + seat] = card if cls != CLASS_COLOURLESS else HELD_COLOURLESS
            table[T_VALUE + seat] = value
    return pick(swaps, lead >> 4, cls), value, victim, doubled


@kernel(globals(), inline="always")
def trick_state(table, facts, n_played):
    """The leader bookkeeping (best, tied, lasts) and the previous holding's class of a trick
    the table shows ``n_played`` cards of, as ``lay_card`` would have left them: every seat's
    current holding landed in play order (a fake's seat holds what it took and played after its
    victim, now colourless at 0), which leads to the same seat as ``trick_leader``."""
    best, tied, lasts = -1, 0, np.uint64(0)
    previous = CLASS_COLOURLESS
    for i in range(n_played):
        seat = table[T_ORDER + i]
        card = table[T_HELD + seat]
        previous = facts[card] & 3 if card >= 0 else CLASS_COLOURLESS
        best, tied, lasts = land(best, tied, lasts, seat, previous, table[T_VALUE + seat])
    return best, tied, lasts, previous


@kernel(globals(), inline="always")
def take_gem(table, option, start, winner):
    """勝者が宝石を獲得する: the winner takes the trick's gem (a supply gem, or one of ``start``'s own:
    nothing moves when the start player wins its own gem back)."""
    colour = option - 3 if option >= 3 else option
    table[T_SUPPLY + colour if option < 3 else T_GEMS + 3 * start + colour] -= 1
    table[T_GEMS + 3 * winner + colour] += 1


@kernel(globals(), inline="always")
def game_end(table, rules, option, winner):
    """ゲームの終了条件, checked after each trick's gem is taken: END_INSTANT (the winner holds
    ``instant_win_sets`` of every colour), END_SUPPLY (the gem came from the supply and its colour
    ran out) or GOES_ON."""
    sets = rules[R_INSTANT_SETS]
    if sets > 0 and table[T_GEMS + 3 * winner] >= sets and table[T_GEMS + 3 * winner + 1] >= sets \
            and table[T_GEMS + 3 * winner + 2] >= sets:
        return END_INSTANT
    if option < 3 and table[T_SUPPLY + option] == 0:
        return END_SUPPLY
    return GOES_ON


@kernel(globals(), inline="always")
def final_standing(table, rules, instant, scores, shares):
    """Scores for everyone; shares: the instant winner, else best score, then most gems, then split."""
    n_players = rules[R_PLAYERS]
    for s in range(n_players):
        scores[s] = gem_score(table, rules, s)
        shares[s] = 0.0
    if instant >= 0:
        shares[instant] = 1.0
        return
    best_score = scores[0]
    for s in range(n_players):
        best_score = max(best_score, scores[s])
    best_gems = -1
    for s in range(n_players):
        if scores[s] == best_score:
            best_gems = max(best_gems, table[T_GEMS + 3 * s] + table[T_GEMS + 3 * s + 1] + table[T_GEMS + 3 * s + 2])
    tied = 0
    for s in range(n_players):
        if scores[s] == best_score and \
                table[T_GEMS + 3 * s] + table[T_GEMS + 3 * s + 1] + table[T_GEMS + 3 * s + 2] == best_gems:
            tied += 1
    for s in range(n_players):
        if scores[s] == best_score and \
                table[T_GEMS + 3 * s] + table[T_GEMS + 3 * s + 1] + table[T_GEMS + 3 * s + 2] == best_gems:
            shares[s] = 1.0 / tied


# ---------------------------------------------------------------------------
# Variant parameters (plain Python)

from dataclasses import dataclass  # noqa: E402

GAME = "triatri"
TITLE = "TriATri"

DEFAULT_HIGH = {2: 6, 3: 7, 4: 8}
DEFAULT_FAKES = {2: 2, 3: 1, 4: 3}

VARIANT_KEYS = {
    "low": (int, "lowest number on the coloured cards; default 2"),
    "high": (int, "highest number at every player count (default 6 at 2 players, 7 at 3, 8 at 4)"),
    "high_2": (int, "highest number at 2 players only"),
    "high_3": (int, "highest number at 3 players only"),
    "high_4": (int, "highest number at 4 players only"),
    "fakes": (int, "fake cards at every player count (default 2 at 2 players, 1 at 3, 3 at 4)"),
    "fakes_2": (int, "fake cards at 2 players only"),
    "fakes_3": (int, "fake cards at 3 players only"),
    "fakes_4": (int, "fake cards at 4 players only"),
    "gems_per_colour": (int, "gems of each colour in the supply at the start; default 6"),
    "rounds": (int, "rounds in a game; default 3"),
    "set_points": (int, "points per fire+water+wood set; default 1"),
    "pair_points": (int, "points per pair of two different colours; default -2"),
    "double_factor": (int, "multiplier of a card whose colour beats the previous card; default 2"),
    "two_factor": (int, "multiplier of a 2 whose colour beats the previous card; default 4"),
    "instant_win_sets": (int, "holding this many gems of every colour wins at once (0 = off); default 2"),
    "latest_wins_three_way_ties": (bool, "three or four tied for a trick in exactly two colours: true, the latest "
                                         "to play wins; default false, the advantaged colour's latest (the "
                                         "project's ruling T5: the rulebook is silent)"),
}


@dataclass(frozen=True)
class Setup:
    players: int
    low: int
    high: int
    fakes: int
    gems_per_colour: int
    rounds: int
    set_points: int
    pair_points: int
    double_factor: int
    two_factor: int
    instant_win_sets: int
    latest_wins_three_way_ties: bool
    rules: np.ndarray
    cards: np.ndarray  # int64[D, 2]: colour (-1 fake), number (0 fake)
    masks: np.ndarray  # uint64[4]: colour masks and the fakes

    @property
    def deck_size(self) -> int:
        return 3 * (self.high - self.low + 1) + self.fakes

    def card_name(self, card: int) -> str:
        colour, number = self.cards[card]
        return "fake" if colour < 0 else f"{COLOUR_NAMES[colour]}-{number}"


def make_setup(players: int, settings: dict | None = None) -> Setup:
    settings = dict(settings or {})
    if players not in PLAYER_COUNTS:
        raise BalanceError(f"{TITLE} is for 2 to 4 players, not {players}")
    low = settings.get("low", 2)
    high = settings.get(f"high_{players}", settings.get("high", DEFAULT_HIGH[players]))
    fakes = settings.get(f"fakes_{players}", settings.get("fakes", DEFAULT_FAKES[players]))
    if low < 1:
        raise BalanceError(f"variant 'low' must be at least 1 (a fake bids 0), not {low}")
    if high < low:
        raise BalanceError(f"variant 'high' ({high}) is below 'low' ({low}) at {players} players")
    if fakes < 0:
        raise BalanceError(f"variant 'fakes' must be 0 or more, not {fakes}")
    deck = 3 * (high - low + 1) + fakes
    if deck < HAND_SIZE * players:
        raise BalanceError(f"the deck has {deck} cards at {players} players but {HAND_SIZE * players} are dealt "
                           f"(raise 'high' or 'fakes')")
    if deck > MAX_DECK:
        raise BalanceError(f"the deck has {deck} cards; at most {MAX_DECK} are supported")
    if high > 1000:
        raise BalanceError(f"variant 'high' must be at most 1000, not {high}")
    gems = settings.get("gems_per_colour", 6)
    if not 1 <= gems <= 1000:
        raise BalanceError(f"variant 'gems_per_colour' must be 1..1000, not {gems}")
    rounds = settings.get("rounds", 3)
    if not 1 <= rounds <= 100:
        raise BalanceError(f"variant 'rounds' must be 1..100, not {rounds}")
    set_points = settings.get("set_points", 1)
    pair_points = settings.get("pair_points", -2)
    if abs(set_points) > 100 or abs(pair_points) > 100:
        raise BalanceError("variant 'set_points' and 'pair_points' must be within -100..100")
    double = settings.get("double_factor", 2)
    two = settings.get("two_factor", 4)
    if not 1 <= double <= 100 or not 1 <= two <= 100:
        raise BalanceError("variant 'double_factor' and 'two_factor' must be 1..100")
    instant = settings.get("instant_win_sets", 2)
    if not 0 <= instant <= gems:
        raise BalanceError(f"variant 'instant_win_sets' must be 0..gems_per_colour ({gems}), not {instant}")

    k = high - low + 1
    cards = np.zeros((deck, 2), dtype=np.int64)
    masks = np.zeros(4, dtype=np.uint64)
    for card in range(deck):
        if card < 3 * k:
            cards[card] = (card // k, low + card % k)
            masks[card // k] |= np.uint64(1) << np.uint64(card)
        else:
            cards[card] = (-1, 0)
            masks[FAKE] |= np.uint64(1) << np.uint64(card)
    rules = np.zeros(N_RULES, dtype=np.int64)
    rules[R_PLAYERS] = players
    rules[R_LOW] = low
    rules[R_HIGH] = high
    rules[R_K] = k
    rules[R_FAKES] = fakes
    rules[R_DECK] = deck
    rules[R_GEMS] = gems
    rules[R_ROUNDS] = rounds
    rules[R_SET_POINTS] = set_points
    rules[R_PAIR_POINTS] = pair_points
    rules[R_DOUBLE] = double
    rules[R_TWO_FACTOR] = two
    rules[R_INSTANT_SETS] = instant
    latest_of_three = bool(settings.get("latest_wins_three_way_ties", False))
    rules[R_LATEST_WINS_THREE_WAY] = int(latest_of_three)
    return Setup(players, low, high, fakes, gems, rounds, set_points, pair_points, double, two, instant,
                 latest_of_three, rules, cards, masks)
