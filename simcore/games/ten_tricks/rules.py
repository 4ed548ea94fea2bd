"""10 TRICKS LATER: state encoding and rules (compiled).

Rules as implemented: docs/rules/ten-tricks-later.md (the rulebook and the page's Project rulings);
the plain-Python oracle is simcore/games/ten_tricks/reference.py and the two share the card numbering
and the order of random draws documented there.

Encoding
--------
Cards are ids 0..40: a survivor of colour c (0 red, 1 green, 2 yellow, 3 blue) and number n is
``c*8 + n - 1``, the infected of number v is ``32 + v`` (infected 8, id 40, is the swap card).
Hands, boards and the cards seen are uint64 bitmasks of ids.  Because each colour is one byte of
the mask, "every survivor numbered n" is ``SAME_NUMBER << (n - 1)`` and "every survivor numbered
at most v" is ``low_survivors(v)``: the attack and the rescue need no loop over colours.

``table`` is the public state a strategy may read (T_* slots), one int64 each (masks as int64):

    T_ROUND, T_TRICK       round and trick (0-based) being played
    T_LEADER               who led this trick (during the swap offers: the round's first leader;
                           T_TRICK is 0 and T_PLAYED 0 then)
    T_PLAYED               how many seats have played to this trick
    T_UNLOCKED             1 once an infected card has been played this round (infected may lead)
    T_SWAP_SEAT            the seat that took infected 8 this round, or -1
    T_SEEN                 mask of the cards played this round
    T_DECK                 mask of the cards in this round's deck (at 3 players: the colours used)
    T_PLAYS + i            card played i-th in this trick (-1 not yet)
    T_UPPER + s            seat s's upper board (mask; face up)
    T_LOWER + s            seat s's lower board (mask; face up)
    T_TRACK + s            seat s's track
    T_LOST + s             survivors seat s has lost this round (face down: a count)
    T_TOTAL + s            seat s's total before this round
    T_VOID + s             cards seat s has shown it does not hold this round (a mask, as
                           int64).  Public: every player can work it out from the plays and the
                           swap (``show_voids``): after a survivor lead, a survivor of another
                           colour shows no card of the lead colour; an infected led before any
                           was played shows a hand of infected only (no survivors); the seat
                           that took infected 8 was dealt no infected (it holds none but the 8);
                           a seat that had shown at most one card of a colour and then plays
                           one holds no more of it.
    T_SINGLE + s           survivors of a colour of which seat s has shown it holds AT MOST ONE
                           (the colour's 8 cards as a mask, as int64): it played an infected
                           card after a lead of that colour (with two it would have had to
                           follow).  Cleared for a colour once it moves to T_VOID.
"""
import numpy as np

from simcore.bits import bit, has, lowest_index, popcount
from simcore.errors import BalanceError
from simcore.jit import kernel

GAME = "ten-tricks"
TITLE = "10 TRICKS LATER"
MAX_PLAYERS = 4
PLAYER_COUNTS = (3, 4)
COLOUR_NAMES = ("red", "green", "yellow", "blue")
FIRST_INFECTED = 32
SWAP_CARD = 40
N_CARDS = 41
INFECTED = 4  # masks[INFECTED]: every infected card (ids 32..40)
SAME_NUMBER = np.uint64(0x01010101)  # bit n-1 of each colour byte: the four survivors numbered n
SURVIVORS = np.uint64(0xFFFFFFFF)  # every survivor (ids 0..31)

(R_PLAYERS, R_TARGET, R_CAP, R_BONUS, R_SWAP, R_HAND, R_MAX_ROUNDS, R_COLOURS_3, R_INFECTED) = range(9)
R_WITHHELD = 9  # card-id bitmask no seat plays while another card is legal (0: none; `cards --cause`)
N_RULES = 10

T_ROUND, T_TRICK, T_LEADER, T_PLAYED, T_UNLOCKED, T_SWAP_SEAT, T_SEEN, T_DECK = range(8)
T_PLAYS = 8
T_UPPER = T_PLAYS + MAX_PLAYERS
T_LOWER = T_UPPER + MAX_PLAYERS
T_TRACK = T_LOWER + MAX_PLAYERS
T_LOST = T_TRACK + MAX_PLAYERS
T_TOTAL = T_LOST + MAX_PLAYERS
T_VOID = T_TOTAL + MAX_PLAYERS
T_SINGLE = T_VOID + MAX_PLAYERS
TABLE_WIDTH = T_SINGLE + MAX_PLAYERS

# per-game counters: the reference's COUNTER_KEYS first, then the figures' own tallies
(C_ROUNDS, C_TRICKS, C_ATTACKS, C_LOST, C_RESCUED, C_BONUS, C_SWAPS, C_INFECTED_LEADS, C_ONE_AS_NINE,
 C_TAKEN, C_CAPPED, C_SEAT_ROUNDS, C_SWAP_POINTS, C_SWAP_SQUARES, C_STAYED, C_STAYED_POINTS, C_STAYED_SQUARES,
 C_CONTEST, C_COMEBACK) = range(19)
COUNTER_NAMES = ("rounds", "tricks", "attacks", "survivors_lost", "survivors_rescued", "bonus_taken", "swaps",
                 "infected_leads", "one_as_nine",
                 "survivors_taken", "capped", "seat_rounds", "swap_points", "swap_points_sq", "stayed",
                 "stayed_points", "stayed_points_sq", "behind_after_1", "comeback")
N_COUNTERS = 19
N_REFERENCE_COUNTERS = 9  # the first nine are the reference engine's COUNTER_KEYS

# one log row per trick
L_ROUND, L_TRICK, L_LEADER, L_WINNER, L_LEVEL, L_LOST = range(6)  # L_LEVEL -1: no infected
L_PLAYS = 6                              # card at position i (play order)
L_RESCUED = L_PLAYS + MAX_PLAYERS        # per seat: mask moved to the lower board
L_TRACKS = L_RESCUED + MAX_PLAYERS
L_UPPER = L_TRACKS + MAX_PLAYERS
L_LOWER = L_UPPER + MAX_PLAYERS
LOG_WIDTH = L_LOWER + MAX_PLAYERS

# one log row per round
G_ROUND, G_REMOVED, G_OFFERS, G_SWAP_SEAT, G_SWAP_CARD, G_LEADER = range(6)  # G_OFFERS: mask of seats
G_HANDS = 6                              # per seat, as dealt (mask)
G_SCORES = G_HANDS + MAX_PLAYERS         # round scores (-9: the round was not finished)
G_TOTALS = G_SCORES + MAX_PLAYERS
G_TRACKS = G_TOTALS + MAX_PLAYERS
G_LOST = G_TRACKS + MAX_PLAYERS
ROUND_LOG_WIDTH = G_LOST + MAX_PLAYERS


@kernel(globals(), inline="always")
def low_survivors(value):
    """Mask of every survivor numbered at most ``value`` (all colours)."""
    v = min(max(value, 0), 8)
    return np.uint64((1 << v) - 1) * SAME_NUMBER


@kernel(globals(), inline="always")
def legal_mask(hand, lead, unlocked, masks):
    """【①カードのプレイ】: the cards of ``hand`` that may be played (``lead`` = -1 to lead).

    Lead: no infected until one was played this round or the hand holds only infected.  After a
    survivor lead: the lead colour if held twice or more; held once, that card or any infected;
    not held, anything.  After an infected lead: anything."""
    infected = hand & masks[INFECTED]
    if lead < 0:
        if unlocked or infected == hand:
            return hand
        return hand & ~masks[INFECTED]
    if lead >= FIRST_INFECTED:
        return hand
    same = hand & masks[lead >> 3]
    if same == 0:
        return hand
    if same & (same - np.uint64(1)):  # two or more
        return same
    return same | infected


@kernel(globals(), inline="always")
def card_rank(card, trick):
    """【②勝敗の判定】: the printed number, but a survivor 1 is 9 with its colour's 8 in the trick.
    Branch-free (selects): under random play each test is a coin toss, and a mispredicted branch
    costs more than the rank."""
    number = (card & 7) + 1
    nine = ((card & 7) == 0) & has(trick, card + 7)
    survivor_rank = 9 if nine else number
    return card - FIRST_INFECTED if card >= FIRST_INFECTED else survivor_rank


@kernel(globals(), inline="always")
def winning_position(plays, first, n, trick, any_infected):
    """Position (0..n-1 in play order) of the winning card among ``plays[first : first+n]``.

    No infected: the highest rank of the lead colour.  Any infected: the highest rank of all; a
    tie goes to the survivor played latest (an infected card never wins a tie).

    Each card is one key, rank * 16 + 8 * (survivor) + position, and the winner holds the
    largest (max compiles to a conditional move): a survivor beats an infected card of its rank
    and a later survivor an earlier one; two infected cards never tie (their values differ), nor
    do two cards of one colour (a 1 ranked 9 sits beside its colour's 8)."""
    best = -1
    if any_infected:
        for i in range(n):
            card = plays[first + i]
            best = max(best, card_rank(card, trick) * 16 + (8 if card < FIRST_INFECTED else 0) + i)
    else:
        lead_colour = plays[first] >> 3
        for i in range(n):
            card = plays[first + i]
            best = max(best, card_rank(card, trick) * 16 + i if card >> 3 == lead_colour else -1)
    return best & 7


@kernel(globals(), inline="always")
def rescue(upper, track):
    """【④生存者の救出】: move the lowest-numbered upper survivors while their number fits the
    track (equal numbers lowest id first); returns (moved mask, track left).

    One step per survivor moved: ``fits`` is every unmoved upper survivor numbered at most the
    track left, the lowest number among them is the lowest set bit of its colour bytes folded
    together, and its lowest id is the lowest bit of that number's survivors.  Most tricks move
    nobody, and that is one test."""
    moved = np.uint64(0)
    fits = upper & low_survivors(track)
    while fits:
        folded = (fits | (fits >> np.uint64(8)) | (fits >> np.uint64(16)) | (fits >> np.uint64(24))) & np.uint64(0xFF)
        low = folded & (~folded + np.uint64(1))  # bit n-1 of the lowest number n
        same = fits & (low * SAME_NUMBER)
        moved |= same & (~same + np.uint64(1))  # the lowest id of that number
        track -= lowest_index(low) + 1
        fits = upper & ~moved & low_survivors(track)
    return moved, track


@kernel(globals(), inline="always")
def round_score(lower, track, lost, rules):
    """【ラウンドの終了】: +1 per lower-board survivor, +bonus at the cap, -1 per lost; floor 0."""
    points = popcount(np.uint64(lower)) - lost
    if track == rules[R_CAP]:
        points += rules[R_BONUS]
    return max(points, 0)


@kernel(globals(), inline="always")
def show_voids(table, seat, position, card, lead, masks):
    """What ``seat`` shows about its hand by playing ``card`` at ``position`` of the trick
    (``lead`` = the card led, -1 when leading), written into T_VOID / T_SINGLE.  Call it before
    ``lay_card`` (it reads T_UNLOCKED as it was when the seat chose).  Only what the follow and
    lead rules of ``legal_mask`` make certain: nothing after an infected lead."""
    void = np.uint64(table[T_VOID + seat])
    single = np.uint64(table[T_SINGLE + seat])
    if position == 0:
        if card >= FIRST_INFECTED and table[T_UNLOCKED] == 0:
            void |= SURVIVORS  # an infected led while locked: the hand held only infected
    elif lead < FIRST_INFECTED:
        colour = masks[lead >> 3]
        if card >= FIRST_INFECTED:
            single |= colour  # with two or more of the lead colour it would have had to follow
        elif card >> 3 != lead >> 3:
            void |= colour  # another colour: it held none of the lead colour
    if card < FIRST_INFECTED and has(single, card):
        void |= masks[card >> 3]  # it held at most one of this colour, and this was it
    table[T_VOID + seat] = np.int64(void)
    table[T_SINGLE + seat] = np.int64(single & ~void)


@kernel(globals(), inline="always")
def lay_card(table, position, card):
    """【①カードのプレイ】: ``card`` is played at ``position`` of this trick: the public table
    shows it (T_PLAYS, T_PLAYED, T_SEEN) and an infected card unlocks infected leads."""
    table[T_PLAYS + position] = card
    table[T_PLAYED] = position + 1
    table[T_SEEN] |= np.int64(bit(card))
    if card >= FIRST_INFECTED:
        table[T_UNLOCKED] = 1


@kernel(globals(), inline="always")
def settle_trick(table, leader, n_players, cards, any_infected, rules, moved_out):
    """A full trick in ``table[T_PLAYS : T_PLAYS + n_players]`` (``cards`` = their mask), led
    by ``leader``: 【②勝敗の判定】 the winner, 【③感染者の襲撃】 the attack on the winner's upper
    board (and its track reset), 【④生存者の救出】 the winner takes the survivors, the losers'
    tracks rise unless past the cap, every seat rescues.  Writes the boards, tracks and lost
    counts into ``table`` and each seat's rescued mask into ``moved_out[s]``; returns (winner,
    attack level or -1 without infected, mask of the survivors the winner lost)."""
    cap = rules[R_CAP]
    w = winning_position(table, T_PLAYS, n_players, cards, any_infected)
    winner = leader + w
    if winner >= n_players:
        winner -= n_players
    level = -1
    lost = np.uint64(0)
    if any_infected:
        level = 0
        for position in range(n_players):
            if table[T_PLAYS + position] >= FIRST_INFECTED:
                level += table[T_PLAYS + position] - FIRST_INFECTED
        upper = np.uint64(table[T_UPPER + winner])
        lost = upper & low_survivors(level)
        table[T_UPPER + winner] = np.int64(upper & ~lost)
        table[T_LOST + winner] += popcount(lost)
        table[T_TRACK + winner] = 0
    table[T_UPPER + winner] |= np.int64(cards & SURVIVORS)
    for position in range(n_players):  # branch-free: the track is written back unchanged when it stays
        seat = leader + position
        if seat >= n_players:
            seat -= n_players
        card = table[T_PLAYS + position]
        track = table[T_TRACK + seat]
        raised = track + (card - FIRST_INFECTED if card >= FIRST_INFECTED else (card & 7) + 1)
        table[T_TRACK + seat] = raised if (seat != winner) & (raised <= cap) else track
    for s in range(n_players):
        moved, left = rescue(np.uint64(table[T_UPPER + s]), table[T_TRACK + s])
        moved_out[s] = np.int64(moved)
        if moved:
            table[T_UPPER + s] &= ~np.int64(moved)
            table[T_LOWER + s] |= np.int64(moved)
            table[T_TRACK + s] = left
    return winner, level, lost


@kernel(globals(), inline="always")
def final_shares(table, n_players, shares):
    """The winner of a finished game (totals in T_TOTAL): the highest total; tie -> more
    survivors on the upper board (end of the last round); still tied -> shared equally."""
    best = -1
    for s in range(n_players):
        best = max(best, table[T_TOTAL + s])
    most = -1
    for s in range(n_players):
        if table[T_TOTAL + s] == best:
            most = max(most, popcount(np.uint64(table[T_UPPER + s])))
    tied = 0
    for s in range(n_players):
        shares[s] = 0.0
        if table[T_TOTAL + s] == best and popcount(np.uint64(table[T_UPPER + s])) == most:
            tied += 1
    for s in range(n_players):
        if table[T_TOTAL + s] == best and popcount(np.uint64(table[T_UPPER + s])) == most:
            shares[s] = 1.0 / tied


# ---------------------------------------------------------------------------
# Variant parameters (plain Python)

from dataclasses import dataclass  # noqa: E402

VARIANT_KEYS = {
    "target": (int, "a total at least this at a round end ends the game; default 10"),
    "track_cap": (int, "the track's maximum (a loser's card that would pass it does not move the track); default 8"),
    "track_bonus": (int, "round points for a track exactly at the cap; default 3"),
    "infected_3": (list, "infected values dealt at 3 players (distinct, 0-7); default [1, 2, 3, 4, 5, 6]"),
    "infected_4": (list, "infected values dealt at 4 players (distinct, 0-7); default [0, 1, ..., 7]"),
    "colours_3": (list, "the three survivor colours used at 3 players for the whole game "
                        "(0 red, 1 green, 2 yellow, 3 blue, or names); default: one left out at random each round"),
    "swap": (bool, "the optional swap for infected 8 when dealt no infected; default true"),
    "hand_size": (int, "cards dealt to each player = tricks per round; default 10"),
    "max_rounds": (int, "round cap (not in the rulebook: games that hit it are counted); default 50"),
}


@dataclass(frozen=True)
class Setup:
    players: int
    target: int
    track_cap: int
    track_bonus: int
    infected_3: tuple
    infected_4: tuple
    colours_3: tuple | None
    swap: bool
    hand_size: int
    max_rounds: int
    rules: np.ndarray
    masks: np.ndarray  # uint64[5]: the four colours and every infected card

    @property
    def infected_values(self) -> tuple:
        return self.infected_3 if self.players == 3 else self.infected_4

    @staticmethod
    def card_name(card: int) -> str:
        card = int(card)
        if card >= FIRST_INFECTED:
            return f"infected-{card - FIRST_INFECTED}"
        return f"{COLOUR_NAMES[card // 8]}-{card % 8 + 1}"


def _values(key: str, values) -> tuple:
    if (not isinstance(values, list) or len(set(values)) != len(values)
            or not all(isinstance(v, int) and not isinstance(v, bool) and 0 <= v <= 7 for v in values)):
        raise BalanceError(f"variant '{key}' must list distinct infected values 0-7 (8 is the swap card), "
                           f"not {values!r}")
    return tuple(sorted(values))


def _colours(values) -> tuple:
    out = []
    for v in values:
        if isinstance(v, str) and v.strip().lower() in COLOUR_NAMES:
            out.append(COLOUR_NAMES.index(v.strip().lower()))
        elif isinstance(v, int) and not isinstance(v, bool) and 0 <= v <= 3:
            out.append(v)
        else:
            out = []
            break
    if len(out) != 3 or len(set(out)) != 3:
        raise BalanceError(f"variant 'colours_3' must name 3 distinct colours (0-3 or red, green, yellow, blue), "
                           f"not {values!r}")
    return tuple(sorted(out))


def make_setup(players: int, settings: dict | None = None) -> Setup:
    settings = dict(settings or {})
    if players not in PLAYER_COUNTS:
        raise BalanceError(f"{TITLE} is for 3 or 4 players, not {players}")
    bounds = {"target": (1, 1000, 10), "track_cap": (1, 60, 8), "track_bonus": (0, 100, 3),
              "hand_size": (1, 13, 10), "max_rounds": (1, 1000, 50)}
    values = {}
    for key, (low, high, default) in bounds.items():
        value = settings.get(key, default)
        if not low <= value <= high:
            raise BalanceError(f"variant '{key}' must be {low}..{high}, not {value}")
        values[key] = value
    infected_3 = _values("infected_3", settings.get("infected_3", [1, 2, 3, 4, 5, 6]))
    infected_4 = _values("infected_4", settings.get("infected_4", list(range(8))))
    colours_3 = _colours(settings["colours_3"]) if "colours_3" in settings else None
    swap = settings.get("swap", True)
    infected = infected_3 if players == 3 else infected_4
    deck = 8 * (3 if players == 3 else 4) + len(infected)
    if players * values["hand_size"] > deck:
        raise BalanceError(f"{players} hands of {values['hand_size']} need {players * values['hand_size']} cards "
                           f"but the deck has {deck} (lower 'hand_size' or deal more infected)")

    masks = np.zeros(5, dtype=np.uint64)
    for c in range(4):
        masks[c] = np.uint64(0xFF) << np.uint64(8 * c)
    masks[INFECTED] = np.uint64(0x1FF) << np.uint64(FIRST_INFECTED)
    rules = np.zeros(N_RULES, dtype=np.int64)
    rules[R_PLAYERS] = players
    rules[R_TARGET] = values["target"]
    rules[R_CAP] = values["track_cap"]
    rules[R_BONUS] = values["track_bonus"]
    rules[R_SWAP] = 1 if swap else 0
    rules[R_HAND] = values["hand_size"]
    rules[R_MAX_ROUNDS] = values["max_rounds"]
    rules[R_COLOURS_3] = sum(1 << c for c in colours_3) if colours_3 else 0
    rules[R_INFECTED] = sum(1 << (FIRST_INFECTED + v) for v in infected)
    return Setup(players, values["target"], values["track_cap"], values["track_bonus"], infected_3, infected_4,
                 colours_3, swap, values["hand_size"], values["max_rounds"], rules, masks)
