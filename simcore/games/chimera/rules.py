"""Chimera Tricks: state encoding and rules (compiled).

Rules as implemented: docs/rules/chimera-tricks.md (the rulebook and the page's Project rulings);
the plain-Python oracle is simcore/games/chimera/reference.py and the two share the card numbering and
the order of random draws documented there.  The deck and the grimoire values are ASSUMED
(docs/rules/chimera-tricks.md, Project rulings): every run that uses them says so (``Setup.assumed``).

Encoding
--------
Familiars are the reference's ids 0..39: suit s (0 S, 1 C, 2 H, 3 D) and rank r (1..9) is
``s*10 + r - 1``, the 0/10 card of suit s is ``s*10 + 9``.  Hands, sheets and the cards seen are
uint64 bitmasks of ids, so each suit is 10 consecutive bits (``masks[M_SUIT + s]``).  Grimoires
are ids 0..G-1 (G <= 64): a seat's grimoires taken this round are one uint64 mask.

A move is one int: ``card * 2 + slot`` — so ascending move codes are the reference's ascending
(card, slot) order.  A sheet is held as its two top cards and their ranks (the rank fixed when
the card was placed; -1 = empty slot) plus the mask of every card on it (covered ones too).

``table`` is the public state a strategy may read (T_* slots), one int64 each (masks as int64):

    T_ROUND, T_TRICK          round and trick (0-based) being played
    T_LEADER                  who led this trick
    T_PLAYED                  how many seats have played to this trick
    T_LEAD                    the lead suit (-1 until the leader has played)
    T_GRIMOIRE, T_NEXT        the grimoire played for now and the one visible next (-1 on the last)
    T_CRYSTALS_LEFT           the supply
    T_SEEN                    mask of the familiars played this round
    T_PLAYS + i               move code played i-th in this trick (-1 not yet)
    T_TOP + 2*s + slot        seat s's top card in that slot (-1: empty)
    T_TOP_RANK + 2*s + slot   its rank, fixed when placed (0: empty)
    T_SUITS + s, T_RANK + s   seat s's field: suit mask (bit per suit) and rank (0, 0 if empty)
    T_SHEET + s               mask of every card on seat s's sheet
    T_PILE + s                familiars seat s has won this round (a count: they are face down)
    T_CRYSTALS + s            crystals seat s took this round
    T_TAKEN + s               mask of the grimoire ids seat s took this round
    T_VALUE + s               sum of the values of those grimoires (before crystals)
    T_TOTAL + s               seat s's total before this round
    T_VOID + s                suits seat s has shown it lacks this round (bit per suit): a
                              follower whose field does not hold the lead suit after its play
                              had no card of that suit (with one, some slot always follows:
                              「◆フォローの補足」), and every seat saw the field.
    T_HELD + s                from round 1 on, the familiars seat s held at the round's start:
                              exactly the cards seat s-1 played, face up onto its own sheet, in
                              the previous round (「ラウンドの終了」: the hands pass clockwise),
                              so every seat can know them (C9); 0 in round 0 (the deal is hidden).
                              Its hand now is T_HELD + s without T_SEEN.
    T_IN_PLAY                 from round 1 on, the mask of the grimoire ids in play (every one
                              was won face up in round 0, so the boxed ones are known too); 0 in
                              round 0
    T_SCRATCH ...             SCRATCH_WIDTH slots a strategy may use freely during its call
"""
import numba
import numpy as np

from simcore.bits import HAS_PDEP, bit, ix, leading_zeros, pdep, pick, popcount, trailing_zeros
from simcore.errors import BalanceError
from simcore.jit import kernel

GAME = "chimera"
TITLE = "Chimera Tricks"
MAX_PLAYERS = 4
PLAYER_COUNTS = (3, 4)
SUIT_NAMES = ("S", "C", "H", "D")
N_IDS = 40
MAX_TRICKS = 13            # 40 familiars // 3 players
MAX_GRIMOIRES = 64
# ASSUMED (docs/rules/chimera-tricks.md, Project rulings): the printed values are unknown
DEFAULT_GRIMOIRES = (5, 4, 3, 3, 2, 2, 1, 1, -1, -2, -3, -4)
DEFAULT_CRYSTAL_RANKS = (1, 2)
DEFAULT_ZERO_TEN = (0, 10)
SCORE_LIMIT = 20_000       # |scores| a results file holds (int16 columns, squares in uint32)
RANK_BINS = 21             # winning field ranks 0..19 one by one, then 20 and more

PLAIN_RANKS = np.uint64(0x1FF)
ZERO_TENS = np.uint64((1 << 9) | (1 << 19) | (1 << 29) | (1 << 39))

# rules array
(R_PLAYERS, R_TRICKS, R_ROUNDS, R_CRYSTALS, R_WINNER_LEADS, R_GRIMOIRES, R_DECK_SIZE, R_ZERO, R_TEN,
 R_NEGATIVES) = range(10)
R_VALUES = 10                            # grimoire values by id
R_NEG = R_VALUES + MAX_GRIMOIRES         # ids of the negative grimoires, most negative first
R_DECK = R_NEG + MAX_GRIMOIRES           # the familiar ids of the deck, ascending
R_PLACED = R_DECK + N_IDS                # + 2 * card + stacked: a card's rank into an empty slot / stacked
R_WITHHELD = R_PLACED + 2 * N_IDS     # familiar-id bitmask no seat plays while another move is legal (0: none; `cards --cause`)
N_RULES = R_WITHHELD + 1

# masks array (uint64)
M_DECK, M_CRYSTAL, M_ZERO_TEN = 0, 1, 2
M_SUIT = 3                               # + suit: the ten ids of that suit
N_MASKS = M_SUIT + 4

# table
(T_ROUND, T_TRICK, T_LEADER, T_PLAYED, T_LEAD, T_GRIMOIRE, T_NEXT, T_CRYSTALS_LEFT, T_SEEN) = range(9)
T_PLAYS = 9
T_TOP = T_PLAYS + MAX_PLAYERS            # + 2 * seat + slot: the top card (-1: empty)
T_TOP_RANK = T_TOP + 2 * MAX_PLAYERS     # + 2 * seat + slot: its rank (0: empty)
T_SUITS = T_TOP_RANK + 2 * MAX_PLAYERS
T_RANK = T_SUITS + MAX_PLAYERS
T_SHEET = T_RANK + MAX_PLAYERS
T_PILE = T_SHEET + MAX_PLAYERS
T_CRYSTALS = T_PILE + MAX_PLAYERS
T_TAKEN = T_CRYSTALS + MAX_PLAYERS
T_VALUE = T_TAKEN + MAX_PLAYERS          # sum of the values taken this round (before crystals)
T_TOTAL = T_VALUE + MAX_PLAYERS
T_VOID = T_TOTAL + MAX_PLAYERS           # suits seat s has shown it lacks this round (bit per suit)
T_HELD = T_VOID + MAX_PLAYERS            # round >= 1: seat s's hand at the round's start (public; 0 in round 0)
T_IN_PLAY = T_HELD + MAX_PLAYERS         # round >= 1: the grimoire ids in play (public; 0 in round 0)
T_SCRATCH = T_IN_PLAY + 1                # working memory a strategy may use during its call
SCRATCH_WIDTH = 512
TABLE_WIDTH = T_SCRATCH + SCRATCH_WIDTH

# per-game counters: the reference's COUNTER_KEYS first, then the figures' own tallies
(C_ROUNDS, C_TRICKS, C_LEADER_WINS, C_STACKED, C_ZEROS, C_TENS, C_CANNOT_FOLLOW, C_SUM_WINS, C_CHIMERA_WINS,
 C_CRYSTALS_TAKEN, C_CRYSTALS_MISSED, C_CONVERSIONS, C_PASSED, C_DELIBERATE,
 C_PLAYS, C_FOLLOWER_PLAYS, C_SEAT_ROUNDS, C_CONVERSION_POINTS, C_HAND_SQ, C_PASSED_NOT_LAST,
 C_LOSSES_NOT_LAST, C_LOSS_THEN_WON) = range(22)
C_RANK = 22                              # + min(rank, 20): tricks won by a field of that rank
N_COUNTERS = C_RANK + RANK_BINS
N_REFERENCE_COUNTERS = 14
COUNTER_NAMES = ("rounds", "tricks", "leader_wins", "stacked_plays", "zeros", "tens", "cannot_follow", "sum_wins",
                 "chimera_wins", "crystals_taken", "crystals_missed", "conversions", "passed_wins",
                 "deliberate_losses",
                 "plays", "follower_plays", "seat_rounds", "conversion_points", "hand_score_sq", "passed_not_last",
                 "losses_not_last", "loss_then_won") + tuple(
    f"won_at_{r}" for r in range(RANK_BINS - 1)) + (f"won_at_{RANK_BINS - 1}_up",)

# per-seat game tallies (run_chunk)
S_VALUE, S_GRIMOIRES, S_CRYSTALS = 0, MAX_PLAYERS, 2 * MAX_PLAYERS   # + seat
N_SEAT_TALLIES = 3 * MAX_PLAYERS

# one log row per trick
(L_ROUND, L_TRICK, L_LEADER, L_LEAD, L_WINNER, L_GRIMOIRE, L_CRYSTAL, L_LEFT, L_NEXT) = range(9)
L_MOVES = 9                              # move code at position i (play order)
L_SUITS = L_MOVES + MAX_PLAYERS          # per seat: field suit mask after every play
L_RANKS = L_SUITS + MAX_PLAYERS          # per seat: field rank
L_LEGAL = L_RANKS + MAX_PLAYERS          # + 2 * position + slot: the cards that could go into that slot
LOG_WIDTH = L_LEGAL + 2 * MAX_PLAYERS

# one log row per round
G_ROUND, G_LEADER, G_DONE = 0, 1, 2      # G_DONE: 1 once the round was scored
G_HANDS = 3                              # per seat, at the round's start (mask)
G_CRYSTALS = G_HANDS + MAX_PLAYERS
G_CONVERSIONS = G_CRYSTALS + MAX_PLAYERS
G_SCORES = G_CONVERSIONS + MAX_PLAYERS
G_TOTALS = G_SCORES + MAX_PLAYERS
G_ORDER = G_TOTALS + MAX_PLAYERS         # the grimoire pile: trick t is played for G_ORDER + t
ROUND_LOG_WIDTH = G_ORDER + MAX_TRICKS

# game-level log
I_BOXED_FAMILIARS, I_BOXED_GRIMOIRES = 0, 1   # masks
I_DEAL = 2                               # per seat, the dealt hand (mask)
I_HAND_SCORES = I_DEAL + MAX_PLAYERS
I_HELD = I_HAND_SCORES + MAX_PLAYERS     # grimoires taken over the game
I_CRYSTALS_HELD = I_HELD + MAX_PLAYERS
I_TOTALS = I_CRYSTALS_HELD + MAX_PLAYERS
INFO_WIDTH = I_TOTALS + MAX_PLAYERS


# ---------------------------------------------------------------------------
# Rules as small compiled helpers (shared by the play loop and the strategies)

@kernel(globals(), inline="always")
def suit_of(card):
    """card // 10 for the ids 0..39 and -1 for an empty slot (-1), without a signed division."""
    return (card * 205) >> 11


@kernel(globals(), inline="always")
def all_if(flag):
    """A uint64 of ones if ``flag`` else zero (branch-free selection of masks)."""
    return np.uint64(0) - np.uint64(flag)


@kernel(globals(), inline="always")
def legal_masks(hand, top0, top1, lead, masks):
    """「◆使い魔カードの出し方」 and 「◆フォローの補足」: (cards allowed into slot 0, into slot
    1, whether some move follows).  ``lead`` -1: the leader (any card).

    A slot is open unless the other one holds the only card.  A card put into slot k leaves
    the other slot's top beside it, so if that top has the lead suit ("free" slot) any card
    keeps following there; elsewhere only a lead-suit card follows.  A follower must end on a
    following field if any card and slot can (so a following field keeps following); if none
    can, any card into any open slot.  Written without data-dependent branches (random play
    makes every case equally likely)."""
    empty0 = top0 < 0
    empty1 = top1 < 0
    open0 = all_if(empty0 | (not empty1))
    open1 = all_if(empty1 | (not empty0))
    if lead < 0:
        return hand & open0, hand & open1, True
    same = hand & masks[ix(M_SUIT + lead)]
    follow0 = open0 & (same | (hand & all_if(suit_of(top1) == lead)))
    follow1 = open1 & (same | (hand & all_if(suit_of(top0) == lead)))
    can = (follow0 | follow1) != np.uint64(0)
    keep = all_if(can)
    return (follow0 & keep) | (open0 & hand & ~keep), (follow1 & keep) | (open1 & hand & ~keep), can


@kernel(globals(), inline="always")
def move_count(m0, m1):
    return popcount(m0) + popcount(m1)


# --- the k-th legal move (the random strategy's draw) ---------------------------------------
# Moves are ascending (card, slot), so the k-th move is the k-th set bit of the "move mask" with
# bit 2*card + slot.  With BMI2 (x86: PDEP) that is a handful of instructions; elsewhere a
# branch-free binary search on the number of moves among the lower cards.

EVEN_BITS = np.uint64(0x5555555555555555)
ODD_BITS = np.uint64(0xAAAAAAAAAAAAAAAA)
LOW_32 = np.uint64(0xFFFFFFFF)


if numba.config.DISABLE_JIT:  # plain Python (debugging): no LLVM intrinsics

    def top_rank(plain):
        """The highest plain rank (bit r-1 = rank r) in a 9-bit mask, -1 if empty."""
        return np.int64(int(plain).bit_length() - (plain == 0))

else:

    @kernel(globals(), inline="always")
    def top_rank(plain):
        """The highest plain rank (bit r-1 = rank r) in a 9-bit mask, -1 if empty."""
        return np.int64(np.uint64(64) - leading_zeros(plain)) - np.int64(plain == np.uint64(0))


@kernel(globals(), inline="always")
def _kth_move_pdep(m0, m1, k):
    low = pdep(m0 & LOW_32, EVEN_BITS) | pdep(m1 & LOW_32, ODD_BITS)      # cards 0..31: bit 2c + slot
    high = pdep(m0 >> np.uint64(32), EVEN_BITS) | pdep(m1 >> np.uint64(32), ODD_BITS)   # cards 32..39
    k = np.uint64(k)
    below_high = np.uint64(popcount(low))
    in_high = k >= below_high
    word = high if in_high else low
    k = k - below_high if in_high else k
    base = np.uint64(64) if in_high else np.uint64(0)
    return np.int64(base + trailing_zeros(pdep(np.uint64(1) << k, word)))


@kernel(globals(), inline="always")
def _halve(m0, m1, k, card, width, low):
    count = np.uint64(popcount(m0 & low) + popcount(m1 & low))
    higher = np.uint64(k >= count)
    shift = higher * width
    return m0 >> shift, m1 >> shift, k - higher * count, card + shift


@kernel(globals(), inline="always")
def _kth_move_search(m0, m1, k):
    k = np.uint64(k)
    card = np.uint64(0)
    m0, m1, k, card = _halve(m0, m1, k, card, np.uint64(32), np.uint64(0xFFFFFFFF))
    m0, m1, k, card = _halve(m0, m1, k, card, np.uint64(16), np.uint64(0xFFFF))
    m0, m1, k, card = _halve(m0, m1, k, card, np.uint64(8), np.uint64(0xFF))
    m0, m1, k, card = _halve(m0, m1, k, card, np.uint64(4), np.uint64(0xF))
    m0, m1, k, card = _halve(m0, m1, k, card, np.uint64(2), np.uint64(0x3))
    m0, m1, k, card = _halve(m0, m1, k, card, np.uint64(1), np.uint64(0x1))
    # k is now 0 or 1 among this card's moves: slot 0 first if allowed
    return np.int64(card * np.uint64(2) + (k | (np.uint64(1) - (m0 & np.uint64(1)))))


kth_move = _kth_move_pdep if HAS_PDEP else _kth_move_search
kth_move.__doc__ = "The k-th legal move (0-based) in ascending (card, slot) order, as card * 2 + slot."


@kernel(globals(), inline="always")
def field_of(top0, rank0, top1, rank1):
    """「◆キメラ」: (suit mask, rank) of the top cards (an empty slot: card -1, rank 0): one card →
    its suit and rank; one suit → the sum; two suits → both and the larger rank; none → (0, 0)."""
    s0 = suit_of(top0)
    s1 = suit_of(top1)
    suits = (np.int64(top0 >= 0) << (s0 & 3)) | (np.int64(top1 >= 0) << (s1 & 3))
    same = np.int64((s0 == s1) & (top0 >= 0))
    return suits, max(rank0, rank1) + same * min(rank0, rank1)


@kernel(globals(), inline="always")
def max_rank(cards, zero_ten_rank):
    """The highest rank among ``cards`` as placed (the 0/10 card at ``zero_ten_rank``), -1 if none."""
    plain = cards & ~ZERO_TENS
    folded = (plain | (plain >> np.uint64(10)) | (plain >> np.uint64(20)) | (plain >> np.uint64(30))) & PLAIN_RANKS
    zero_ten = np.int64((cards & ZERO_TENS) != np.uint64(0))
    return max(top_rank(folded), zero_ten * (zero_ten_rank + 1) - 1)


@kernel(globals(), inline="always")
def suit_high(cards, lead, zero_ten_rank):
    """The highest rank among ``cards`` of suit ``lead`` as placed, -1 if none (one shift, no fold)."""
    ten = (cards >> np.uint64(10 * lead)) & np.uint64(0x3FF)
    zero_ten = np.int64(ten >> np.uint64(9))
    return max(top_rank(ten & PLAIN_RANKS), zero_ten * (zero_ten_rank + 1) - 1)


@kernel(globals(), inline="always")
def slot_best(high, rest_high, other_top, other_rank, lead):
    """The highest rank of a following field left by putting a card into a slot whose
    neighbour is ``other_top`` (-1: empty, rank 0): ``high`` is the best lead-suit card that may
    go there, ``rest_high`` the best other card (-1: none).  A lead card makes a sum beside a
    lead top, else the larger rank; another suit follows only beside a lead top."""
    keeps = suit_of(other_top) == lead
    lead_part = pick(high >= 0, pick(keeps, other_rank + high, max(other_rank, high)), -1)
    rest_part = pick(keeps & (rest_high >= 0), max(other_rank, rest_high), -1)
    return max(lead_part, rest_part)


@kernel(globals(), inline="always")
def best_following_rank(top0, rank0, top1, rank1, m0, m1, lead, rules, masks):
    """The highest rank of a field holding ``lead`` that one of the moves (``m0``/``m1``: cards
    into slot 0/1) would leave on this sheet, or -1 if none follows.  (Where another suit may
    follow — beside a lead top — the slot takes every card, so one rest mask serves both.)"""
    zero_ten_rank = pick((top0 >= 0) & (top1 >= 0), rules[R_TEN], rules[R_ZERO])
    rest_high = max_rank((m0 | m1) & ~masks[ix(M_SUIT + lead)], zero_ten_rank)
    into_0 = slot_best(suit_high(m0, lead, zero_ten_rank), pick(m0 != np.uint64(0), rest_high, -1), top1, rank1,
                       lead)
    into_1 = slot_best(suit_high(m1, lead, zero_ten_rank), pick(m1 != np.uint64(0), rest_high, -1), top0, rank0,
                       lead)
    return max(into_0, into_1)


@kernel(globals(), inline="always")
def placed_rank(card, top0, top1, rules):
    """「◆特殊な使い魔カード」: a card's rank when placed now (the 0/10 card: 0 into an empty
    slot, 10 stacked, or the variant's ranks)."""
    return rules[ix(R_PLACED + 2 * card + np.int64((top0 >= 0) & (top1 >= 0)))]


@kernel(globals(), inline="always")
def field_after(top0, rank0, top1, rank1, card, slot, rules):
    """(suit mask, rank) of the field after placing ``card`` into ``slot``."""
    rank = placed_rank(card, top0, top1, rules)
    if slot == 0:
        return field_of(card, rank, top1, rank1)
    return field_of(top0, rank0, card, rank)


@kernel(globals(), inline="always")
def next_seat(seat, n_players):
    """The seat after ``seat`` clockwise, without a branch (where the wrap falls depends on the
    leader, so a branch there would be mispredicted)."""
    seat += 1
    return seat - n_players * np.int64(seat == n_players)


@kernel(globals(), inline="always")
def place_card(table, seat, card, slot, stacked, rules):
    """「◆使い魔カードの出し方」: ``card`` onto ``slot`` of ``seat``'s sheet (``stacked``: both
    slots held a card, so it goes on top), at the rank it takes now; the seat's field follows."""
    at = T_TOP + 2 * seat
    rank_at = T_TOP_RANK + 2 * seat
    table[ix(at + slot)] = card
    table[ix(rank_at + slot)] = rules[ix(R_PLACED + 2 * card + stacked)]
    suits, field_rank = field_of(table[ix(at)], table[ix(rank_at)], table[ix(at + 1)], table[ix(rank_at + 1)])
    table[ix(T_SUITS + seat)] = suits
    table[ix(T_RANK + seat)] = field_rank


@kernel(globals(), inline="always")
def trick_winner(table, leader, lead, n_players, following, at):
    """「トリックの流れ」2, every seat having played: (the winner's position in play order, its
    field's rank).  The highest field holding ``lead`` wins, a tie going to the later player;
    ``following[at + position]`` gets each position's rank if its field holds ``lead``, else -1."""
    best = -1
    w = 0
    seat = leader
    for position in range(n_players):
        rank = table[ix(T_RANK + seat)]
        holds = (table[ix(T_SUITS + seat)] >> lead) & 1
        following[ix(at + position)] = holds * (rank + 1) - 1      # -1: cannot win
        take = holds & np.int64(rank >= best)
        best += take * (rank - best)
        w += take * (position - w)
        seat = next_seat(seat, n_players)
    return w, best


@kernel(globals(), inline="always")
def award_trick(table, winner, grimoire, rules, masks):
    """「トリックの流れ」3-4: the winner takes ``grimoire`` and, if one of its top cards carries a
    crystal mark, one crystal while the supply lasts.  Returns (crystal taken, crystal owed,
    the grimoire's value).  The sheet is left as it was (``clear_sheet``)."""
    top0 = table[ix(T_TOP + 2 * winner)]
    top1 = table[ix(T_TOP + 2 * winner + 1)]
    tops = (bit(top0 & 63) & all_if(top0 >= 0)) | (bit(top1 & 63) & all_if(top1 >= 0))
    marked = np.int64((tops & masks[M_CRYSTAL]) != np.uint64(0))
    crystal = marked & np.int64(table[T_CRYSTALS_LEFT] > 0)
    table[T_CRYSTALS_LEFT] -= crystal
    table[ix(T_CRYSTALS + winner)] += crystal
    value = rules[ix(R_VALUES + grimoire)]
    table[ix(T_TAKEN + winner)] |= np.int64(bit(grimoire))
    table[ix(T_VALUE + winner)] += value
    return crystal, marked, value


@kernel(globals(), inline="always")
def clear_sheet(table, seat):
    """The trick winner's whole sheet goes to its face-down pile: both slots empty."""
    at = T_TOP + 2 * seat
    rank_at = T_TOP_RANK + 2 * seat
    table[ix(at)] = -1
    table[ix(at + 1)] = -1
    table[ix(rank_at)] = 0
    table[ix(rank_at + 1)] = 0
    table[ix(T_SUITS + seat)] = 0
    table[ix(T_RANK + seat)] = 0


@kernel(globals(), inline="always")
def round_score(taken, value, crystals, rules):
    """「クリスタルの効果」: (score, conversions, points gained): each crystal turns one negative
    grimoire positive, the most negative first (docs/rules/chimera-tricks.md, Project rulings);
    spare crystals do nothing."""
    turned = 0
    gained = 0
    for k in range(rules[R_NEGATIVES]):
        # without branches: a `break` here kept a reference count taken and given back on
        # ``rules`` at every seat's score, and whether a seat holds a grimoire is a coin toss
        g = rules[ix(R_NEG + k)]
        turns = np.int64(turned < crystals) & np.int64((taken >> np.uint64(g)) & np.uint64(1))
        turned += turns
        gained -= turns * 2 * rules[ix(R_VALUES + g)]
    return value + gained, turned, gained


# ---------------------------------------------------------------------------
# Variant parameters (plain Python)

from dataclasses import dataclass  # noqa: E402

VARIANT_KEYS = {
    "suits": (int, "suits in the deck: the first 1-4 of S, C, H, D; default 4"),
    "ranks": (int, "ranks 1..ranks in every suit (1-9); default 9 (ASSUMED deck, docs/rules/chimera-tricks.md, "
                   "Project rulings)"),
    "zero_ten": ((list, bool), "the 0/10 card's rank in an empty slot and stacked, [0, 10] by default; "
                               "false: no 0/10 cards"),
    "crystal_ranks": (list, "printed ranks carrying a crystal mark, 0 = the 0/10 card; default [1, 2] "
                            "(ASSUMED, docs/rules/chimera-tricks.md, Project rulings)"),
    "grimoires": (list, "grimoire values, 1-64 whole numbers -99..99; default [5, 4, 3, 3, 2, 2, 1, 1, -1, -2, -3, -4] "
                        "(ASSUMED, docs/rules/chimera-tricks.md, Project rulings)"),
    "crystals": (int, "the crystal supply (0-1000); default 8; the rulebook's crystal shortage is 4"),
    "rounds": (int, "rounds in a game (1-100); default one per player; the rulebook's short game is 1"),
    "winner_leads": (bool, "true: the trick winner leads the next trick (ASSUMED, C4); false: the seat after "
                           "the leader; default true"),
}


def _whole(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def card_name(card: int) -> str:
    card = int(card)
    return f"{SUIT_NAMES[card // 10]}-{'0/10' if card % 10 == 9 else card % 10 + 1}"


def move_name(move: int) -> str:
    return f"{card_name(int(move) >> 1)}@{int(move) & 1}"


def suits_name(mask: int) -> str:
    return "+".join(SUIT_NAMES[s] for s in range(4) if (int(mask) >> s) & 1) or "empty"


@dataclass(frozen=True)
class Setup:
    players: int
    suits: int
    ranks: int
    zero_ten: tuple | None
    crystal_ranks: tuple
    grimoires: tuple
    crystals: int
    rounds: int
    winner_leads: bool
    deck: tuple                 # familiar ids, ascending
    tricks: int                 # T: tricks per round = hand size = grimoires in play
    assumed: tuple              # notes: which game data in force is ASSUMED (Project rulings)
    rules: np.ndarray
    masks: np.ndarray

    @property
    def boxed_familiars(self) -> int:
        return len(self.deck) - self.players * self.tricks

    @property
    def boxed_grimoires(self) -> int:
        return len(self.grimoires) - self.tricks

    card_name = staticmethod(card_name)


def assumed_notes(ranks: int, zero_ten, crystal_ranks: tuple, grimoires: tuple) -> tuple:
    """What of the game data in force is ASSUMED (docs/rules/chimera-tricks.md, Project rulings: the
    printed values are unknown)."""
    notes = []
    deck = ranks == 9 and zero_ten == DEFAULT_ZERO_TEN
    marks = tuple(crystal_ranks) == DEFAULT_CRYSTAL_RANKS
    if deck and marks:
        notes.append("Chimera Tricks deck ASSUMED (docs/rules/chimera-tricks.md, Project rulings; the printed card "
                     "faces are unknown): ranks 1-9 and a 0/10 card in every suit, crystal marks on ranks 1 and 2")
    elif deck:
        notes.append("Chimera Tricks deck ASSUMED (docs/rules/chimera-tricks.md, Project rulings; the printed card "
                     "faces are unknown): ranks 1-9 and a 0/10 card in every suit")
    elif marks:
        notes.append("Chimera Tricks crystal marks ASSUMED (docs/rules/chimera-tricks.md, Project rulings; the "
                     "printed card faces are unknown): ranks 1 and 2 of every suit")
    if tuple(grimoires) == DEFAULT_GRIMOIRES:
        notes.append("Chimera Tricks grimoire values ASSUMED (docs/rules/chimera-tricks.md, Project rulings; the "
                     "printed values are unknown): +5 +4 +3 +3 +2 +2 +1 +1 -1 -2 -3 -4")
    return tuple(notes)


DEFAULT_ASSUMED = assumed_notes(9, DEFAULT_ZERO_TEN, DEFAULT_CRYSTAL_RANKS, DEFAULT_GRIMOIRES)


def make_setup(players: int, settings: dict | None = None) -> Setup:
    settings = dict(settings or {})
    if players not in PLAYER_COUNTS:
        raise BalanceError(f"{TITLE} is for 3 or 4 players, not {players}")
    values = {}
    for key, low, high, default in (("suits", 1, 4, 4), ("ranks", 1, 9, 9), ("crystals", 0, 1000, 8),
                                    ("rounds", 1, 100, players)):
        value = settings.get(key, default)
        if not _whole(value) or not low <= value <= high:
            raise BalanceError(f"variant '{key}' must be a whole number {low}-{high}, not {value!r}")
        values[key] = value
    zero_ten = settings.get("zero_ten", list(DEFAULT_ZERO_TEN))
    if zero_ten is False:
        zero_ten = None
    elif (not isinstance(zero_ten, (list, tuple)) or len(zero_ten) != 2
          or not all(_whole(v) and 0 <= v <= 99 for v in zero_ten)):
        raise BalanceError(f"variant 'zero_ten' must be two ranks 0-99 (empty slot, stacked) or false, "
                           f"not {zero_ten!r}")
    else:
        zero_ten = tuple(zero_ten)
    crystal_ranks = settings.get("crystal_ranks", list(DEFAULT_CRYSTAL_RANKS))
    lowest = 0 if zero_ten is not None else 1
    if (not isinstance(crystal_ranks, (list, tuple)) or len(set(crystal_ranks)) != len(crystal_ranks)
            or not all(_whole(v) and lowest <= v <= values["ranks"] for v in crystal_ranks)):
        raise BalanceError(f"variant 'crystal_ranks' must list distinct printed ranks {lowest}-{values['ranks']}"
                           f"{' (0 = the 0/10 card)' if lowest == 0 else ''}, not {crystal_ranks!r}")
    crystal_ranks = tuple(sorted(crystal_ranks))
    grimoires = settings.get("grimoires", list(DEFAULT_GRIMOIRES))
    if (not isinstance(grimoires, (list, tuple)) or not 1 <= len(grimoires) <= MAX_GRIMOIRES
            or not all(_whole(v) and -99 <= v <= 99 for v in grimoires)):
        raise BalanceError(f"variant 'grimoires' must list 1-{MAX_GRIMOIRES} whole values -99..99, not {grimoires!r}")
    grimoires = tuple(grimoires)
    winner_leads = settings.get("winner_leads", True)
    if not isinstance(winner_leads, bool):
        raise BalanceError(f"variant 'winner_leads' must be true or false, not {winner_leads!r}")

    faces = list(range(1, values["ranks"] + 1)) + ([0] if zero_ten is not None else [])
    deck = tuple(sorted(s * 10 + (9 if f == 0 else f - 1) for s in range(values["suits"]) for f in faces))
    tricks = min(len(grimoires), len(deck) // players)
    if tricks < 1:
        raise BalanceError(f"{players} players need at least {players} familiars, the deck has {len(deck)}")
    reach = values["rounds"] * sum(abs(v) for v in grimoires)
    if reach > SCORE_LIMIT:
        raise BalanceError(f"scores of this variant could reach ±{reach} ({values['rounds']} rounds of grimoires "
                           f"worth {sum(abs(v) for v in grimoires)} in all); at most ±{SCORE_LIMIT} fit the results")

    rules = np.zeros(N_RULES, dtype=np.int64)
    rules[R_PLAYERS] = players
    rules[R_TRICKS] = tricks
    rules[R_ROUNDS] = values["rounds"]
    rules[R_CRYSTALS] = values["crystals"]
    rules[R_WINNER_LEADS] = 1 if winner_leads else 0
    rules[R_GRIMOIRES] = len(grimoires)
    rules[R_DECK_SIZE] = len(deck)
    rules[R_ZERO], rules[R_TEN] = zero_ten if zero_ten is not None else (0, 0)
    for g, v in enumerate(grimoires):
        rules[R_VALUES + g] = v
    negatives = sorted((v, g) for g, v in enumerate(grimoires) if v < 0)
    rules[R_NEGATIVES] = len(negatives)
    for k, (_, g) in enumerate(negatives):
        rules[R_NEG + k] = g
    for i, card in enumerate(deck):
        rules[R_DECK + i] = card
    for card in range(N_IDS):
        plain = card % 10 + 1
        rules[R_PLACED + 2 * card] = rules[R_ZERO] if card % 10 == 9 else plain
        rules[R_PLACED + 2 * card + 1] = rules[R_TEN] if card % 10 == 9 else plain
    masks = np.zeros(N_MASKS, dtype=np.uint64)
    masks[M_DECK] = np.uint64(sum(1 << c for c in deck))
    masks[M_CRYSTAL] = np.uint64(sum(1 << c for c in deck if (0 if c % 10 == 9 else c % 10 + 1) in crystal_ranks))
    masks[M_ZERO_TEN] = np.uint64(sum(1 << c for c in deck if c % 10 == 9))
    for s in range(4):
        masks[M_SUIT + s] = np.uint64(0x3FF << (10 * s))
    notes = assumed_notes(values["ranks"], zero_ten, crystal_ranks, grimoires)
    return Setup(players, values["suits"], values["ranks"], zero_ten, crystal_ranks, grimoires, values["crystals"],
                 values["rounds"], winner_leads, deck, tricks, notes, rules, masks)
