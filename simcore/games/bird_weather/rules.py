"""Trick-Take BIRD & WEATHER: state encoding and rules (compiled).

Rules as implemented: docs/rules/bird-weather.md (rulebook sections cited as §).

Encoding
--------
The deck is sorted by card number and each card is known by its *deck index*
(0 = lowest number).  The default deck for N players is 10..10N+9, so index i
is card 10+i; a variant may use any set of up to 64 numbers from 10 to 99.

    number[i]   the printed number (tens = weather, ones = bird)
    follow[i]   uint64 mask of the cards that follow a lead of card i
                (same tens or same ones digit, §5-②)

A hand is a uint64 with bit i set when the player holds card i: legal plays,
"can follow?" and the random pick are a few mask operations.

``rules`` is an int64 vector of the variant (R_* slots).  ``table`` is the
public state a strategy may read (T_* slots), one int64 per field:

    T_DEAL, T_TRICK        which deal of the match, which trick of the deal
    T_LEADER               seat that led this trick
    T_NPLAYED              cards played so far in this trick
    T_PLAY + i             deck index of the i-th card of the trick (seat leader+i)
    T_SCORE + s            seat s's points in this deal so far
    T_TOTAL + s            seat s's points from earlier deals of the match
    T_FACEDOWN + s         what seat s's face-down card is, as the deciding seat may know it:
                           its own unused card's deck index; FACEDOWN_HIDDEN (-2) for another
                           seat's unused card (hidden in the real game); FACEDOWN_NONE (-1) once
                           taken, or with no face-down rule.  The play loop keeps the cards
                           themselves in an array of its own and shows each seat only its own.
    T_WON + s              tricks seat s has won this deal
    T_VOID + s             cards seat s has shown it does not hold (a mask, as int64): the
                           cards that follow a lead it did not follow (§5-②: it could not).
                           Public: every player at the table can work it out.
"""
import numpy as np

from simcore.bits import bit, ix
from simcore.jit import kernel

MAX_PLAYERS = 5
MIN_PLAYERS = 3
MAX_DECK = 64

# variant vector
R_PLAYERS, R_DECK, R_HAND, R_TRICKS, R_FACEDOWN, R_REVERSAL, R_ZERO_WIN, R_DEALS, R_LOW_TENS, R_HIGH_TENS = range(10)
R_WITHHELD = 10  # deck-index bitmask of cards no seat plays while another is legal (0: none; `cards --cause`)
N_RULES = 11

# public table
T_DEAL, T_TRICK, T_LEADER, T_NPLAYED = 0, 1, 2, 3
T_PLAY = 4
T_SCORE = T_PLAY + MAX_PLAYERS
T_TOTAL = T_SCORE + MAX_PLAYERS
T_FACEDOWN = T_TOTAL + MAX_PLAYERS
T_WON = T_FACEDOWN + MAX_PLAYERS
T_VOID = T_WON + MAX_PLAYERS
TABLE_WIDTH = T_VOID + MAX_PLAYERS
FACEDOWN_NONE = -1  # T_FACEDOWN + s: no unused face-down card
FACEDOWN_HIDDEN = -2  # T_FACEDOWN + s: another seat's unused face-down card, not shown

# how a trick was decided
NORMAL, REVERSAL, ZERO_WIN = 0, 1, 2
KIND_NAMES = ("normal", "reversal", "zero-win")

# per-game counters of the special rules
C_REVERSALS, C_ZERO_WINS, C_ZERO_POINTS, C_FACEDOWN_TAKEN, C_ZERO_SCORED = range(5)
COUNTER_NAMES = ("reversals", "zero_wins", "zero_point_tricks", "facedowns_taken", "zero_scored_tricks")
N_COUNTERS = 5

# one log row per trick
(L_DEAL, L_TRICK, L_LEADER) = range(3)
L_CARD = 3  # + play order, -1 past the player count
L_WINNER = L_CARD + MAX_PLAYERS
L_KIND = L_WINNER + 1
L_POINTS_CARD = L_KIND + 1  # deck index of the card whose ones digit set the points
L_PICK_SEAT = L_POINTS_CARD + 1  # whose face-down card was taken (-1: none)
L_PICK_CARD = L_PICK_SEAT + 1
L_POINTS = L_PICK_CARD + 1
LOG_WIDTH = L_POINTS + 1


@kernel(globals(), inline="always")
def legal_plays(hand, lead, follow):
    """Cards the player may play: anything when leading (lead < 0) or unable to
    follow; otherwise only cards sharing the lead card's tens or ones digit (§5-②)."""
    if lead < 0:
        return hand
    can_follow = hand & follow[lead]
    if can_follow != 0:
        return can_follow
    return hand


@kernel(globals(), inline="always")
def digits(no):
    """(tens, ones) of a card number without a division: for 0 <= no <= 1028, (no * 205) >> 11 is
    exactly no // 10, and card numbers are two-digit (make_setup).  A signed ``// 10`` compiles to
    a multiply and a sign correction, and the trick's resolution takes the digits of every card."""
    tens = (no * 205) >> 11
    return tens, no - 10 * tens


@kernel(globals(), inline="always")
def trick_points(table, number, rules, n_played):
    """Decide a trick from the cards in ``table``: (winner position in play order,
    NORMAL/REVERSAL/ZERO_WIN, position of the card that sets the points, the points before any
    face-down card is taken (§6-③: 0 points -> the winner takes one)).

    Only the lead and the cards that followed take part in winning (§5-②, §9);
    every card counts for the points.
    """
    lead_tens, lead_ones = digits(number[table[T_PLAY]])
    low_tens = rules[R_LOW_TENS]
    high_tens = rules[R_HIGH_TENS]

    # Branch-free: with random play every comparison here is a coin toss, and a mispredicted
    # branch costs more than the whole comparison.  Each running best is one integer
    # value * 8 + position (positions < 8), so min/max (compiled to conditional moves) keeps the
    # card and where it lies at once; ties go to the earliest position, as the rulebook reading
    # in the reference does: ``value * 8 + i`` for a minimum, ``value * 8 + 7 - i`` for a maximum.
    has_low = False
    has_high = False
    same_tens = True
    zero_pos = -1                 # the last card with ones digit 0
    best = -1                     # highest number taking part: number * 8 + 7 - i
    least = 1 << 20               # lowest number taking part: number * 8 + i
    low_ones = 1 << 20            # lowest ones digit of all: ones * 8 + i
    high_ones = -1                # highest ones digit of all: ones * 8 + 7 - i
    for i in range(n_played):
        no = number[ix(table[T_PLAY + i])]
        tens, ones = digits(no)
        same_tens = same_tens & (tens == lead_tens)
        zero_pos = max(zero_pos, i if ones == 0 else -1)
        low_ones = min(low_ones, ones * 8 + i)
        high_ones = max(high_ones, ones * 8 + 7 - i)
        takes_part = (i == 0) | (tens == lead_tens) | (ones == lead_ones)  # the lead or a follower
        has_low = has_low | (takes_part & (tens == low_tens))
        has_high = has_high | (takes_part & (tens == high_tens))
        best = max(best, no * 8 + 7 - i if takes_part else -1)
        least = min(least, no * 8 + i if takes_part else 1 << 20)

    # The points are the points card's ones digit, which its running best holds (ones * 8 + ...),
    # so no card is looked up again.
    # §6-②: all the same tens and a 0 among them: the 0 wins (points are then the 0, §6-③).
    if rules[R_ZERO_WIN] != 0 and same_tens and zero_pos >= 0:
        return zero_pos, ZERO_WIN, zero_pos, 0
    # §6-①/④: a tens-1 and a top-tens card among the lead and followers: lowest wins,
    # points are the highest ones digit of all cards played.
    if rules[R_REVERSAL] != 0 and has_low and has_high and low_tens < high_tens:
        return least & 7, REVERSAL, 7 - (high_ones & 7), high_ones >> 3
    return 7 - (best & 7), NORMAL, low_ones & 7, low_ones >> 3


@kernel(globals(), inline="always")
def resolve_trick(table, number, rules, n_played):
    """``trick_points`` without the points: (winner position in play order,
    NORMAL/REVERSAL/ZERO_WIN, position of the card that sets the points)."""
    win_pos, kind, points_pos, _ = trick_points(table, number, rules, n_played)
    return win_pos, kind, points_pos


@kernel(globals(), inline="always")
def match_shares(totals, n_players, shares_out):
    """Win shares of one game: a tie for the top splits one win equally."""
    best = totals[0]
    for s in range(1, n_players):
        if totals[s] > best:
            best = totals[s]
    tied = 0
    for s in range(n_players):
        if totals[s] == best:
            tied += 1
    for s in range(n_players):
        shares_out[s] = 1.0 / tied if totals[s] == best else 0.0


@kernel(globals(), inline="always")
def unseen_mask(deck_size, hand, seen, own_facedown):
    """Cards this player has not seen: not in hand, not played, not its own face-down."""
    everything = (bit(deck_size) - np.uint64(1)) if deck_size < 64 else ~np.uint64(0)
    m = everything & ~hand & ~seen
    if own_facedown >= 0:
        m &= ~bit(own_facedown)
    return m


# ---------------------------------------------------------------------------
# Variant parameters (plain Python, run once per simulation)

from dataclasses import dataclass  # noqa: E402

from simcore.errors import BalanceError  # noqa: E402

GAME = "bird-weather"
TITLE = "Trick-Take BIRD & WEATHER"
PLAYER_COUNTS = (3, 4, 5)

# the rulebook's names (§1): the tens digit is the weather, the ones digit the bird
WEATHER_NAMES = {1: "sun", 2: "wind", 3: "cloud", 4: "rain", 5: "snow"}  # 晴 風 曇 雨 雪
BIRD_NAMES = ("no bird", "sparrow", "white-eye", "wagtail", "kingfisher", "crow", "gull", "kite", "cormorant",
              "egret")  # 0 none, スズメ メジロ ハクセキレイ カワセミ ハシボソガラス ウミネコ トビ カワウ コサギ


def card_name(number: int) -> str:
    """A card as the rulebook names it: its number, weather and bird, e.g. ``35 (cloud, crow)``."""
    number = int(number)
    weather = WEATHER_NAMES.get(number // 10, f"weather {number // 10}")
    return f"{number} ({weather}, {BIRD_NAMES[number % 10]})"


VARIANT_KEYS = {
    "cards": (list, "card numbers in the deck (10..99, at most 64); default 10..10N+9"),
    "hand_size": (int, "cards dealt to each player (one goes face down); default 10"),
    "deals": (int, "deals in a match, the first leader rotating, scores summed; default 1"),
    "reversal": (bool, "the tens-1 + top-tens reversal (§6-①, §6-④); default true"),
    "zero_win": (bool, "all same tens: the 0 wins (§6-②); default true"),
    "facedown": (bool, "face-down card scored for a 0-point trick (§5-①, §6-③); default true"),
}


@dataclass(frozen=True)
class Setup:
    """Everything a kernel needs about the rules in force, as arrays."""

    players: int
    cards: tuple  # card numbers, ascending; deck index = position
    hand_size: int
    tricks: int
    deals: int
    reversal: bool
    zero_win: bool
    facedown: bool
    rules: np.ndarray  # int64[N_RULES]
    number: np.ndarray  # int64[deck]
    follow: np.ndarray  # uint64[deck]

    def card(self, index: int) -> int:
        return self.cards[index]

    def index_of(self, number: int) -> int:
        return self.cards.index(number)


def default_cards(players: int) -> list[int]:
    return list(range(10, 10 * players + 10))


def make_setup(players: int, settings: dict | None = None) -> Setup:
    """Check a variant's settings against the player count and build the arrays."""
    settings = dict(settings or {})
    if players not in PLAYER_COUNTS:
        raise BalanceError(f"{TITLE} is for 3 to 5 players, not {players}")
    cards = settings.get("cards", default_cards(players))
    if not all(isinstance(c, int) and not isinstance(c, bool) for c in cards):
        raise BalanceError("variant 'cards' must be a list of whole numbers")
    if len(set(cards)) != len(cards):
        dup = sorted({c for c in cards if cards.count(c) > 1})
        raise BalanceError(f"variant 'cards' lists {dup} more than once")
    bad = [c for c in cards if not 10 <= c <= 99]
    if bad:
        raise BalanceError(f"variant 'cards' must be two-digit numbers 10..99; got {bad[:5]}")
    if len(cards) > MAX_DECK:
        raise BalanceError(f"variant 'cards' has {len(cards)} cards; the engine holds at most {MAX_DECK}")
    cards = sorted(cards)
    facedown = bool(settings.get("facedown", True))
    hand_size = settings.get("hand_size", 10)
    min_hand = 2 if facedown else 1
    if hand_size < min_hand:
        raise BalanceError(f"variant 'hand_size' must be at least {min_hand}, not {hand_size}")
    if players * hand_size > len(cards):
        raise BalanceError(
            f"a deck of {len(cards)} cards cannot deal {players} hands of {hand_size}"
        )
    deals = settings.get("deals", 1)
    tricks = hand_size - 1 if facedown else hand_size
    if not 1 <= deals or deals * tricks > 255:
        raise BalanceError(f"variant 'deals' must be 1..{255 // tricks} (counters are 8-bit), not {deals}")
    tens = sorted({c // 10 for c in cards})
    reversal = bool(settings.get("reversal", True))
    zero_win = bool(settings.get("zero_win", True))

    rules = np.zeros(N_RULES, dtype=np.int64)
    rules[R_PLAYERS] = players
    rules[R_DECK] = len(cards)
    rules[R_HAND] = hand_size
    rules[R_TRICKS] = tricks
    rules[R_FACEDOWN] = facedown
    rules[R_REVERSAL] = reversal
    rules[R_ZERO_WIN] = zero_win
    rules[R_DEALS] = deals
    rules[R_LOW_TENS] = tens[0]
    rules[R_HIGH_TENS] = tens[-1]
    number = np.array(cards, dtype=np.int64)
    follow = np.zeros(len(cards), dtype=np.uint64)
    for i, a in enumerate(cards):
        m = 0
        for j, b in enumerate(cards):
            if a // 10 == b // 10 or a % 10 == b % 10:
                m |= 1 << j
        follow[i] = m
    return Setup(players, tuple(cards), hand_size, tricks, deals, reversal, zero_win, facedown, rules, number, follow)
