"""Chimera Tricks: the rules as plain, readable Python (the oracle).

Written from the rulebook (docs/rules/chimera-tricks.md, Sources; its Japanese headings are cited, e.g.
「ゲームの準備」, 「トリックの流れ」, 「◆使い魔カードの出し方」, 「◆キメラ」, 「◆特殊な使い魔カード」,
「◆フォローの補足」, 「ラウンドの終了」, 「ゲームの終了と勝敗」, 「選択ルール」) and the project rulings
(docs/rules/chimera-tricks.md, Project rulings), independently of the compiled kernel.
``docs/rules/chimera-tricks.md`` is the English account of what is implemented here, with every
assumption listed as C1, C2, ...  The deck and grimoire values are ASSUMED (same rulings): the
printed ones are unknown.

Seats are numbered 0..N-1 clockwise; every index (round, trick, hand, slot) is 0-based.

Cards.  A familiar of suit s (0 S, 1 C, 2 H, 3 D) and rank r (1..9) has id s*10 + (r-1); the
0/10 card of suit s has id s*10 + 9.  Ids 0..39, ascending = "sorted" everywhere below.  A
variant with fewer suits or ranks only leaves ids out (the id of a card never changes).
Grimoires have ids 0..G-1 in the order of ``Rules.grimoires`` (by default the values
+5 +4 +3 +3 +2 +2 +1 +1 -1 -2 -3 -4).  A sheet (合成シート) has two slots, 0 and 1; each slot holds
a stack of (card, value) bottom to top, the value fixed when the card is placed.  A move is
(card, slot).

Randomness comes only from explicit streams (``simcore.rng``).  The order of draws is part of
the contract with the compiled engine (``deal`` = PyStream(seed, index, DEAL), the game's own;
``play[s]`` = ``seat_play_streams(seed, index, N)[s]``, seat s's own PLAY stream; all run on
across the rounds of one game).  Every shuffle is
Fisher-Yates on an ascending list: for i = len-1 down to 1: ``j = deal.below(i + 1)``, swap
items i and j.

1. DEAL, once per game: shuffle the ascending familiar ids of the deck (D cards, 40 by default);
   seat s gets ``deck[T*s : T*(s+1)]`` (T = tricks per round); the boxed familiars are the rest,
   ``deck[N*T:]`` (4 at 3 players, none at 4).
2. DEAL, once per game, only if G > T (4 players by default: 2 boxed): shuffle the ascending
   grimoire ids 0..G-1; the boxed grimoires are the last G-T, ``pile[T:]``; the grimoires in play
   are the first T, taken ascending for step 3.  G == T: no draw, every grimoire is in play.
3. DEAL, at the start of every round (round 0 right after steps 1-2, later rounds right after
   the previous round is scored): shuffle the ascending ids of the T grimoires in play; trick t
   of the round is played for ``order[t]`` (order[0] is the card laid face up beside the pile,
   order[t+1] is visible on top of the face-up pile while trick t is played).
4. PLAY (the random strategy; each seat from its own stream), every play by seat s in play
   order (leader, leader+1, ... mod N, trick after trick, round after round):
   ``moves[play[s].below(len(moves))]`` over the legal moves in ascending (card, slot) order, a
   draw even when only one move is legal.  A seat's stream is drawn from only by its own plays.
Nothing else is drawn: the first leader (seat 0), the next leaders, the hand passing and the
scoring are fixed, and end-of-game ties are shared.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, Sequence

from simcore.errors import BalanceError
from simcore.oracle import check_keys, seat_deciders
from simcore.rng import PyStream, deal_stream, py_deal_and_rotation, rotate_list, seat_play_streams

PLAYERS = (3, 4)
SUIT_NAMES = ("S", "C", "H", "D")
SUIT_SYMBOLS = ("♠♤", "♣♧", "♡♥", "♢♦")    # also read by parse_card
SUIT_SIZE = 10                       # ids per suit: ranks 1..9, then the 0/10 card
ZERO_TEN = 9                         # position of the 0/10 card within its suit (card % 10)
ZERO_TEN_NAME = "0/10"
CARD_IDS = 40
# ASSUMED (docs/rules/chimera-tricks.md, Project rulings): the printed values are unknown
DEFAULT_GRIMOIRES = (5, 4, 3, 3, 2, 2, 1, 1, -1, -2, -3, -4)
NO_GRIMOIRE = -1                     # next_grimoire on the last trick of a round

COUNTER_KEYS = (
    "rounds",             # rounds begun (a scenario's last round may stop early)
    "tricks",             # tricks played
    "leader_wins",        # tricks won by their leader
    "stacked_plays",      # cards put on top of another card (the sheet already held two)
    "zeros",              # 0/10 cards placed into an empty slot (rank 0)
    "tens",               # 0/10 cards stacked (rank 10)
    "cannot_follow",      # follower plays with no move that ends on a following field
    "sum_wins",           # tricks won by a two-card field of one suit (rank = sum)
    "chimera_wins",       # tricks won by a two-card field of two suits (rank = the larger)
    "crystals_taken",     # crystals taken from the supply
    "crystals_missed",    # winning fields with a crystal card when the supply was empty
    "conversions",        # negative grimoires turned positive by a crystal at scoring
    "passed_wins",        # a follower lost although one of its legal moves would have won (C11)
    "deliberate_losses",  # a passed win followed by winning the next trick of the round (C11)
)


# ---------------------------------------------------------------------------
# Cards


def suit(card: int) -> int:
    return card // SUIT_SIZE


def is_zero_ten(card: int) -> bool:
    return card % SUIT_SIZE == ZERO_TEN


def face(card: int) -> int:
    """The printed rank 1..9; 0 for the 0/10 card (its rank depends on where it is placed)."""
    return 0 if is_zero_ten(card) else card % SUIT_SIZE + 1


def card_of(card_suit: int, card_face: int) -> int:
    """``face`` 1..9, or 0 for the 0/10 card."""
    return card_suit * SUIT_SIZE + (ZERO_TEN if card_face == 0 else card_face - 1)


def card_name(card: int) -> str:
    return f"{SUIT_NAMES[suit(card)]}-{ZERO_TEN_NAME if is_zero_ten(card) else face(card)}"


def parse_card(name) -> int:
    """"S-7" → 6, "h-0/10" → 29, "♠-3" → 2 (case, the suit symbols and surrounding spaces accepted)."""
    if isinstance(name, str):
        head, dash, tail = name.strip().upper().partition("-")
        which = [s for s in range(4) if head == SUIT_NAMES[s] or (len(head) == 1 and head in SUIT_SYMBOLS[s])]
        if dash and which:
            if tail == ZERO_TEN_NAME:
                return card_of(which[0], 0)
            if tail.isdigit() and len(tail) == 1 and tail != "0":
                return card_of(which[0], int(tail))
    raise BalanceError(f"{name!r} is not a card (S|C|H|D-1..9 or S|C|H|D-0/10)")


def names(cards) -> str:
    return ", ".join(card_name(card) for card in cards)


def move_name(move) -> str:
    card, slot = move
    return f"{card_name(card)}@{slot}"


def parse_move(text) -> tuple[int, int]:
    """"S-7@1" → (6, 1)."""
    if isinstance(text, str):
        card, at, slot = text.strip().rpartition("@")
        if at and slot.strip() in ("0", "1"):
            return parse_card(card), int(slot)
    raise BalanceError(f"{text!r} is not a move (card@slot, e.g. S-7@0)")


def suits_name(suits: Sequence[int]) -> str:
    return "+".join(SUIT_NAMES[s] for s in suits) or "nothing"


# ---------------------------------------------------------------------------
# Rules, records, errors


def _whole(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


@dataclass(frozen=True)
class Rules:
    """One variant, as plain values.  Defaults: the ASSUMED deck and grimoires of
    docs/rules/chimera-tricks.md, Project rulings.

    「ゲームの準備」: the tricks per round T = min(G, D // N) (G grimoires, D familiars); the
    familiars left over (D - N*T) and the grimoires left over (G - T) are boxed for the whole
    game: 4 familiars at 3 players, 2 grimoires at 4 players by default (C2)."""

    players: int
    suits: int = 4                        # S, C, H, D: the first ``suits`` of them
    ranks: int = 9                        # ranks 1..ranks in every suit
    zero_ten: tuple | None = (0, 10)      # (rank in an empty slot, rank stacked); None: no 0/10 cards
    crystal_ranks: tuple = (1, 2)         # printed ranks with a crystal mark; 0 = the 0/10 card
    grimoires: tuple = DEFAULT_GRIMOIRES  # grimoire values, ids 0..G-1 in this order
    crystals: int = 8                     # the supply (「選択ルール」 クリスタル枯渇！: 4)
    rounds: int | None = None             # None: one round per player (短期決戦: 1)
    winner_leads: bool = True             # False: the seat after the leader leads next (C4)

    def __post_init__(self):
        if not _whole(self.players) or self.players not in PLAYERS:
            raise BalanceError(f"Chimera Tricks is for 3-4 players, not {self.players!r}")
        for key, low, high in (("suits", 1, 4), ("ranks", 1, 9), ("crystals", 0, 1000)):
            value = getattr(self, key)
            if not _whole(value) or not low <= value <= high:
                raise BalanceError(f"{key} must be a whole number {low}-{high}, got {value!r}")
        if self.zero_ten is not None:
            given = self.zero_ten
            if (not isinstance(given, (tuple, list)) or len(given) != 2
                    or not all(_whole(v) and 0 <= v <= 99 for v in given)):
                raise BalanceError(f"zero_ten must be two ranks 0-99 (empty slot, stacked) or null, got {given!r}")
            object.__setattr__(self, "zero_ten", tuple(given))
        given = self.crystal_ranks
        lowest = 0 if self.zero_ten is not None else 1
        if (not isinstance(given, (tuple, list)) or len(set(given)) != len(given)
                or not all(_whole(v) and lowest <= v <= self.ranks for v in given)):
            raise BalanceError(f"crystal_ranks must be distinct printed ranks {lowest}-{self.ranks}"
                               f"{' (0 = the 0/10 card)' if lowest == 0 else ''}, got {given!r}")
        object.__setattr__(self, "crystal_ranks", tuple(sorted(given)))
        given = self.grimoires
        if (not isinstance(given, (tuple, list)) or not 1 <= len(given) <= 64
                or not all(_whole(v) and -99 <= v <= 99 for v in given)):
            raise BalanceError(f"grimoires must list 1-64 whole values -99..99, got {given!r}")
        object.__setattr__(self, "grimoires", tuple(given))
        if self.rounds is None:
            object.__setattr__(self, "rounds", self.players)
        if not _whole(self.rounds) or not 1 <= self.rounds <= 100:
            raise BalanceError(f"rounds must be a whole number 1-100, got {self.rounds!r}")
        if not isinstance(self.winner_leads, bool):
            raise BalanceError(f"winner_leads must be true or false, got {self.winner_leads!r}")
        if self.tricks < 1:
            raise BalanceError(f"{self.players} players need at least {self.players} familiars, the deck has {len(self.deck)}")

    @property
    def deck(self) -> tuple[int, ...]:
        """Ascending ids of the familiars of this variant."""
        faces = list(range(1, self.ranks + 1)) + ([0] if self.zero_ten is not None else [])
        return tuple(sorted(card_of(s, f) for s in range(self.suits) for f in faces))

    @property
    def tricks(self) -> int:
        """T: tricks per round = cards per hand = grimoires in play."""
        return min(len(self.grimoires), len(self.deck) // self.players)

    @property
    def boxed_familiars(self) -> int:
        return len(self.deck) - self.players * self.tricks

    @property
    def boxed_grimoires(self) -> int:
        return len(self.grimoires) - self.tricks

    def is_crystal(self, card: int) -> bool:
        """「◆特殊な使い魔カード」 クリスタル付き (ASSUMED ranks: docs/rules/chimera-tricks.md,
        Project rulings)."""
        return face(card) in self.crystal_ranks

    def placed_rank(self, card: int, stacked: bool) -> int:
        """「◆特殊な使い魔カード」 0/10: rank 0 into an empty slot, 10 on top of a card."""
        if is_zero_ten(card):
            return self.zero_ten[1] if stacked else self.zero_ten[0]
        return face(card)


@dataclass
class TrickRecord:
    round: int
    trick: int                            # 0-based within the round
    leader: int
    lead_suit: int
    plays: list[tuple[int, int, int]]    # (seat, card, slot) in play order
    fields: list[tuple[tuple[int, ...], int]]   # per seat, after every play: (suits ascending, rank)
    winner: int
    grimoire: int                         # id taken by the winner
    grimoire_value: int
    crystal: bool                         # the winner took a crystal
    crystals_left: int                    # supply after the trick
    next_grimoire: int                    # id visible on the pile during the trick, -1 on the last


@dataclass
class RoundRecord:
    round: int
    leader: int                           # first leader of the round
    hands: list[list[int]]                # per seat, ascending, as held at the start of the round
    hand_ids: list[int]                   # per seat: which dealt hand (seat it was dealt to in round 0)
    grimoires: list[int]                  # the grimoire pile: trick t is played for grimoires[t]
    tricks: list[TrickRecord]
    taken: list[list[int]]                # per seat, grimoire ids in the order taken
    crystals: list[int]                   # per seat, crystals taken this round
    conversions: list[int]                # per seat, negative grimoires turned positive ([] if unscored)
    round_scores: list[int]               # [] for a scenario round that stopped early
    totals_after: list[int]               # [] likewise


@dataclass
class GameRecord:
    players: int
    hands: list[list[int]]                # the deal: per seat, ascending (hand id = this seat)
    boxed_familiars: list[int]            # ascending
    boxed_grimoires: list[int]            # ascending ids
    rounds: list[RoundRecord]
    totals: list[int]                     # per seat, over the scored rounds
    hand_scores: list[int]                # per dealt hand, summed over the seats that played it
    grimoires_held: list[int]             # per seat, grimoires taken over the game
    crystals_held: list[int]              # per seat, crystals taken over the game
    shares: list[float]
    winner: int                           # -1 if shared (or not finished)
    counters: dict[str, int]
    finished: bool = True                 # False: a scenario whose script ended before the game


class IllegalMove(BalanceError):
    """A move the rules forbid, or a missing one."""

    def __init__(self, round: int, trick: int, seat: int, move, message: str):
        super().__init__(message)
        self.round, self.trick, self.seat, self.move = round, trick, seat, move


class BadScenario(BalanceError):
    """A scripted scenario that cannot be played as given (one line saying where and why)."""


def new_counters() -> dict[str, int]:
    return dict.fromkeys(COUNTER_KEYS, 0)


# ---------------------------------------------------------------------------
# 「◆使い魔カードの出し方」, 「◆キメラ」, 「◆フォローの補足」, 「2 勝敗判定」: pure functions
# A sheet is [stack0, stack1], each a list of (card, rank) bottom to top.


def open_slots(sheet) -> tuple[int, ...]:
    """No card → either slot; one card → the empty slot only; two or more → stack on either."""
    filled = [slot for slot in (0, 1) if sheet[slot]]
    if len(filled) == 1:
        return (1 - filled[0],)
    return (0, 1)


def place(rules: Rules, sheet, move):
    """The sheet after ``move`` (a new sheet; ``sheet`` is not changed)."""
    card, slot = move
    stacked = bool(sheet[0]) and bool(sheet[1])
    after = [list(sheet[0]), list(sheet[1])]
    after[slot].append((card, rules.placed_rank(card, stacked)))
    return after


def field(sheet) -> tuple[tuple[int, ...], int]:
    """(suits ascending, rank) of the top cards: one card → its suit and rank; two of one suit →
    that suit and the sum; two suits → both, and the larger rank.  An empty sheet → ((), 0)."""
    tops = [stack[-1] for stack in sheet if stack]
    if not tops:
        return (), 0
    if len(tops) == 1:
        return (suit(tops[0][0]),), tops[0][1]
    (a, rank_a), (b, rank_b) = tops
    if suit(a) == suit(b):
        return (suit(a),), rank_a + rank_b
    return tuple(sorted((suit(a), suit(b)))), max(rank_a, rank_b)


def follows(sheet, lead_suit: int) -> bool:
    return lead_suit in field(sheet)[0]


def legal_moves(rules: Rules, hand: Sequence[int], sheet, lead_suit: int | None) -> list[tuple[int, int]]:
    """Every allowed (card, slot), ascending.  ``lead_suit`` None: the leader (any card).

    A follower must end with a field containing the lead suit if any card and slot of theirs can
    (this also makes a field that already follows keep following: it always can); if none can,
    any card in any open slot (「◆フォローの補足」, docs/rules/chimera-tricks.md, Project rulings)."""
    moves = [(card, slot) for card in sorted(hand) for slot in open_slots(sheet)]
    if lead_suit is None:
        return moves
    following = [move for move in moves if follows(place(rules, sheet, move), lead_suit)]
    return following or moves


def trick_winner(fields: Sequence[tuple[tuple[int, ...], int]], lead_suit: int) -> int:
    """Position (in play order) of the winning field: the highest rank among the fields holding
    the lead suit; a tie goes to the later player (同値後勝ち)."""
    best = -1
    for pos, (suits, rank) in enumerate(fields):
        if lead_suit in suits and (best < 0 or rank >= fields[best][1]):
            best = pos
    return best


def round_score(values: Sequence[int], crystals: int) -> tuple[int, int]:
    """「クリスタルの効果」: (score, conversions).  Each crystal turns one negative grimoire
    positive, the most negative first (docs/rules/chimera-tricks.md, Project rulings); spare
    crystals do nothing."""
    negatives = sorted(v for v in values if v < 0)
    turned = negatives[:crystals]
    return sum(values) - 2 * sum(turned), len(turned)


def _would_win(candidate, pos: int, fields, lead_suit: int) -> bool:
    """Would ``candidate`` at play position ``pos`` win against the other ``fields``?"""
    suits, rank = candidate
    if lead_suit not in suits:
        return False
    for other, (other_suits, other_rank) in enumerate(fields):
        if other != pos and lead_suit in other_suits:
            if other_rank > rank or (other_rank == rank and other > pos):
                return False
    return True


# ---------------------------------------------------------------------------
# What a strategy sees, and the two built-in deciders


class _Table:
    """The live state of one round."""

    def __init__(self, rules: Rules, round: int, hands, hand_ids, order, totals):
        n = rules.players
        self.rules = rules
        self.round = round
        self.hands = [sorted(hand) for hand in hands]
        self.hand_ids = list(hand_ids)
        self.order = list(order)                   # trick t is played for order[t]
        self.totals = list(totals)
        self.sheets = [[[], []] for _ in range(n)]
        self.piles: list[list[int]] = [[] for _ in range(n)]     # familiars won, face down
        self.taken: list[list[int]] = [[] for _ in range(n)]
        self.crystals = [0] * n
        self.crystals_left = rules.crystals        # all crystals are back at every round start
        self.trick = 0
        self.leader = 0
        self.turn = 0
        self.lead_suit: int | None = None
        self.plays: list[tuple[int, int, int]] = []


class TableView:
    """The public table at the moment of a decision (read-only; read it during the call).  Every
    card on a sheet was played face up, so whole stacks are shown; grimoires taken are face down
    but were seen when taken, so they are shown too (C9).  Other hands are hidden."""

    __slots__ = ("_table",)

    def __init__(self, table: _Table):
        self._table = table

    players = property(lambda self: len(self._table.hands))
    round = property(lambda self: self._table.round)
    trick = property(lambda self: self._table.trick)
    leader = property(lambda self: self._table.leader, doc="leader of the current trick")
    turn = property(lambda self: self._table.turn, doc="the seat deciding now")
    lead_suit = property(lambda self: self._table.lead_suit, doc="None until the leader has played")
    plays = property(lambda self: tuple(self._table.plays), doc="(seat, card, slot) so far this trick")
    sheets = property(lambda self: tuple(tuple(tuple(stack) for stack in sheet) for sheet in self._table.sheets),
                      doc="per seat, (slot 0, slot 1), each (card, rank) bottom to top")
    fields = property(lambda self: tuple(field(sheet) for sheet in self._table.sheets))
    grimoire = property(lambda self: self._table.order[self._table.trick], doc="id played for now")
    next_grimoire = property(lambda self: self._table.order[self._table.trick + 1]
                             if self._table.trick + 1 < len(self._table.order) else NO_GRIMOIRE)
    grimoire_values = property(lambda self: self._table.rules.grimoires)
    taken = property(lambda self: tuple(tuple(t) for t in self._table.taken))
    piles = property(lambda self: tuple(len(p) for p in self._table.piles), doc="familiars won, per seat")
    crystals = property(lambda self: tuple(self._table.crystals), doc="crystals held this round")
    crystals_left = property(lambda self: self._table.crystals_left)
    totals = property(lambda self: tuple(self._table.totals), doc="totals before this round")


class Decider(Protocol):
    def play(self, view: TableView, seat: int, hand: tuple[int, ...],
             moves: tuple[tuple[int, int], ...]) -> tuple[int, int]: ...


class RandomDecider:
    """Uniform over the legal moves: seat s draws from ``play_streams[s]`` (module docstring,
    step 4)."""

    def __init__(self, play_streams: Sequence[PyStream]):
        self.rng = play_streams

    def play(self, view, seat, hand, moves):
        moves = sorted(moves)
        return moves[self.rng[seat].below(len(moves))]


def _as_move(move):
    """``move`` as a (card, slot) tuple, or None if it is not one."""
    if (isinstance(move, (tuple, list)) and len(move) == 2 and all(_whole(v) for v in move)
            and 0 <= move[0] < CARD_IDS and move[1] in (0, 1)):
        return tuple(move)
    return None


def _refusal(rules: Rules, view: TableView, seat: int, hand, sheet, moves, move) -> IllegalMove | None:
    """None if ``move`` may be played now; else the IllegalMove saying why."""
    checked = _as_move(move)
    if checked is not None and checked in moves:
        return None
    where = f"round {view.round}, trick {view.trick}, seat {seat}"
    allowed = f"; allowed: {', '.join(move_name(m) for m in moves)}"
    if move is None:
        return IllegalMove(view.round, view.trick, seat, move, f"{where}: no move given (script exhausted)")
    if checked is None:
        return IllegalMove(view.round, view.trick, seat, move,
                           f"{where}: {move!r} is not a move (card id 0-{CARD_IDS - 1}, slot 0|1){allowed}")
    card, slot = checked
    name, lead = move_name(checked), view.lead_suit
    if card not in hand:
        why = f"seat {seat} does not hold {card_name(card)} (holds {names(sorted(hand))})"
    elif slot not in open_slots(sheet):
        why = f"{name}: slot {slot} holds the only card, the second card goes into slot {1 - slot}"
    elif follows(sheet, lead):
        why = (f"{name} leaves the field without {SUIT_NAMES[lead]}: "
               f"a field that follows {SUIT_NAMES[lead]} must keep following")
    else:
        why = f"{name} does not follow {SUIT_NAMES[lead]}: the field must end with {SUIT_NAMES[lead]}"
    return IllegalMove(view.round, view.trick, seat, checked, f"{where}: {why}{allowed}")


class ScriptedDecider:
    """``moves``: (card, slot) in play order, for every seat.  The engine checks each answer, so a
    move that is not allowed, or the end of the script (None), raises IllegalMove there."""

    def __init__(self, moves: Sequence[tuple[int, int]] = ()):
        self.moves = list(moves)
        self.used = 0

    def play(self, view, seat, hand, moves):
        if self.used >= len(self.moves):
            return None
        self.used += 1
        return self.moves[self.used - 1]


# ---------------------------------------------------------------------------
# 「トリックの流れ」: one trick


def _play_trick(rules: Rules, table: _Table, deciders, counters, passed_before: set) -> tuple[TrickRecord, set]:
    """Plays one trick; returns its record and the seats that passed up a win in it (C11)."""
    n = rules.players
    table.plays, table.lead_suit = [], None
    had: dict[int, tuple] = {}                             # seat → (sheet before, legal moves)
    for k in range(n):                                     # 1: clockwise from the leader
        seat = (table.leader + k) % n
        table.turn = seat
        hand, sheet = table.hands[seat], table.sheets[seat]
        moves = legal_moves(rules, hand, sheet, table.lead_suit)
        if table.lead_suit is not None and not follows(place(rules, sheet, moves[0]), table.lead_suit):
            counters["cannot_follow"] += 1                 # no move follows: any move was allowed
        view = TableView(table)
        move = deciders[seat].play(view, seat, tuple(hand), tuple(moves))
        refused = _refusal(rules, view, seat, hand, sheet, moves, move)
        if refused:
            raise refused
        card, slot = move = tuple(move)
        stacked = bool(sheet[0]) and bool(sheet[1])
        counters["stacked_plays"] += stacked
        if is_zero_ten(card):
            counters["tens" if stacked else "zeros"] += 1
        had[seat] = ([list(sheet[0]), list(sheet[1])], moves)
        hand.remove(card)
        sheet[slot].append((card, rules.placed_rank(card, stacked)))
        table.plays.append((seat, card, slot))
        if k == 0:
            table.lead_suit = suit(card)                   # the suit of the card just led

    lead = table.lead_suit
    fields = [field(sheet) for sheet in table.sheets]
    in_order = [fields[seat] for seat, _, _ in table.plays]
    winner = table.plays[trick_winner(in_order, lead)][0]
    counters["tricks"] += 1
    counters["leader_wins"] += winner == table.leader
    tops = [stack[-1][0] for stack in table.sheets[winner] if stack]
    if len(tops) == 2:
        counters["sum_wins" if suit(tops[0]) == suit(tops[1]) else "chimera_wins"] += 1

    # Passed wins (C11): a follower that lost although one of its legal moves would have won,
    # every other play unchanged; a deliberate loss when that seat wins the next trick.
    passed = set()
    for pos, (seat, _, _) in enumerate(table.plays):
        if pos > 0 and seat != winner:
            before, moves = had[seat]
            if any(_would_win(field(place(rules, before, m)), pos, in_order, lead) for m in moves):
                passed.add(seat)
    counters["passed_wins"] += len(passed)
    counters["deliberate_losses"] += winner in passed_before

    # 「◆特殊な使い魔カード」 クリスタル付き: one crystal per trick if a top card carries the mark
    # and the supply has one (クリスタル枯渇！; for the normal supply too: docs/rules/chimera-tricks.md,
    # Project rulings).
    crystal = False
    if any(rules.is_crystal(card) for card in tops):
        if table.crystals_left > 0:
            crystal = True
            table.crystals_left -= 1
            table.crystals[winner] += 1
            counters["crystals_taken"] += 1
        else:
            counters["crystals_missed"] += 1

    # 2: the winner's whole sheet goes to their face-down pile; losers' sheets stay.
    # 3-4: the winner takes the grimoire beside the pile; the next one is turned face up.
    table.piles[winner] += [card for stack in table.sheets[winner] for card, _ in stack]
    table.sheets[winner] = [[], []]
    grimoire = table.order[table.trick]
    table.taken[winner].append(grimoire)
    nxt = table.order[table.trick + 1] if table.trick + 1 < len(table.order) else NO_GRIMOIRE
    record = TrickRecord(table.round, table.trick, table.leader, lead, list(table.plays), fields, winner,
                         grimoire, rules.grimoires[grimoire], crystal, table.crystals_left, nxt)
    return record, passed


# ---------------------------------------------------------------------------
# Rounds and the game


class _Game:
    def __init__(self, rules: Rules, deciders, hands, boxed_familiars, boxed_grimoires):
        n = rules.players
        self.rules = rules
        self.deciders = deciders
        self.dealt = [sorted(hand) for hand in hands]
        self.boxed_familiars = sorted(boxed_familiars)
        self.boxed_grimoires = sorted(boxed_grimoires)
        self.hands = [list(hand) for hand in self.dealt]   # the hands of the next round
        self.hand_ids = list(range(n))
        self.leader = 0      # seat 0 leads first (docs/rules/README.md, Common conventions)
        self.totals = [0] * n
        self.hand_scores = [0] * n
        self.grimoires_held = [0] * n
        self.crystals_held = [0] * n
        self.rounds: list[RoundRecord] = []
        self.counters = new_counters()

    def play_round(self, order: Sequence[int], tricks: int | None = None) -> RoundRecord:
        """Play ``tricks`` tricks (all by default) for the grimoire pile ``order``; if all were
        played, score the round and pass the familiars on."""
        rules, n = self.rules, self.rules.players
        table = _Table(rules, len(self.rounds), self.hands, self.hand_ids, order, self.totals)
        record = RoundRecord(table.round, self.leader, [sorted(h) for h in self.hands], list(self.hand_ids),
                             list(order), [], table.taken, table.crystals, [], [], [])
        self.rounds.append(record)
        self.counters["rounds"] += 1
        table.leader = self.leader
        passed: set = set()
        count = rules.tricks if tricks is None else tricks
        for trick in range(count):
            table.trick = trick
            trick_record, passed = _play_trick(rules, table, self.deciders, self.counters, passed)
            record.tricks.append(trick_record)
            # the winner leads the next trick (C4); variant: the seat after the leader
            table.leader = trick_record.winner if rules.winner_leads else (table.leader + 1) % n
        for seat in range(n):
            self.grimoires_held[seat] += len(table.taken[seat])
            self.crystals_held[seat] += table.crystals[seat]
        if count < rules.tricks:
            return record

        # 「ラウンドの終了」 ◆得点計算
        for seat in range(n):
            values = [rules.grimoires[g] for g in table.taken[seat]]
            score, turned = round_score(values, table.crystals[seat])
            record.round_scores.append(score)
            record.conversions.append(turned)
            self.counters["conversions"] += turned
            self.totals[seat] += score
            self.hand_scores[self.hand_ids[seat]] += score
        record.totals_after = list(self.totals)

        # ◆次のラウンドの準備: every seat passes all its familiars of the round (pile + sheet)
        # to the next seat clockwise; the seat receiving the first leader's hand leads.
        for seat in range(n):
            familiars = table.piles[seat] + [card for stack in table.sheets[seat] for card, _ in stack]
            self.hands[(seat + 1) % n] = sorted(familiars)
        self.hand_ids = [self.hand_ids[(seat - 1) % n] for seat in range(n)]
        self.leader = (self.leader + 1) % n
        return record

    def record(self) -> GameRecord:
        """「ゲームの終了と勝敗」: the highest total wins; a tie shares the win."""
        n = self.rules.players
        finished = len(self.rounds) == self.rules.rounds and bool(self.rounds[-1].round_scores)
        shares, winner = [0.0] * n, -1
        if finished:
            top = max(self.totals)
            tied = [seat for seat in range(n) if self.totals[seat] == top]
            shares = [1.0 / len(tied) if seat in tied else 0.0 for seat in range(n)]
            winner = tied[0] if len(tied) == 1 else -1
        return GameRecord(n, self.dealt, self.boxed_familiars, self.boxed_grimoires, self.rounds,
                          list(self.totals), list(self.hand_scores), list(self.grimoires_held),
                          list(self.crystals_held), shares, winner, self.counters, finished)


def shuffle(items: Sequence[int], deal: PyStream) -> list[int]:
    """Fisher-Yates on ``items`` (given ascending): i = len-1 down to 1, j = deal.below(i + 1)."""
    items = list(items)
    for i in range(len(items) - 1, 0, -1):
        j = deal.below(i + 1)
        items[i], items[j] = items[j], items[i]
    return items


def deal_familiars(rules: Rules, deal: PyStream) -> tuple[list[list[int]], list[int]]:
    """Module docstring, step 1: (hands ascending, boxed familiars ascending)."""
    deck, t, n = shuffle(rules.deck, deal), rules.tricks, rules.players
    return [sorted(deck[t * seat:t * (seat + 1)]) for seat in range(n)], sorted(deck[n * t:])


def box_grimoires(rules: Rules, deal: PyStream) -> tuple[list[int], list[int]]:
    """Module docstring, step 2: (grimoires in play ascending, boxed ascending); no draw if none
    is boxed."""
    ids = list(range(len(rules.grimoires)))
    if rules.boxed_grimoires == 0:
        return ids, []
    pile = shuffle(ids, deal)
    return sorted(pile[:rules.tricks]), sorted(pile[rules.tricks:])


def play_game(rules: Rules, seed: int, index: int, decider=None) -> GameRecord:
    """Game ``index`` of a run with ``seed``.  ``decider``: one for every seat or one per seat;
    None → the random strategy, every seat from its own PLAY stream."""
    deal = deal_stream(seed, index, rules.players)
    if decider is None:
        decider = RandomDecider(seat_play_streams(seed, index, rules.players))
    hands, boxed_familiars = deal_familiars(rules, deal)
    hands = rotate_list(hands, py_deal_and_rotation(index, rules.players)[1])  # a duplicate deal's turn
    in_play, boxed = box_grimoires(rules, deal)
    game = _Game(rules, seat_deciders(decider, rules.players), hands, boxed_familiars, boxed)
    for _ in range(rules.rounds):
        game.play_round(shuffle(in_play, deal))            # step 3, every round
    return game.record()


# ---------------------------------------------------------------------------
# Scripted scenarios (format: docs/rules/chimera-tricks.md, "Scenarios")

CALLER_KEYS = ("game", "players", "variant", "name", "description", "expect")
SCENARIO_KEYS = ("hands", "boxed_grimoires", "rounds")
ROUND_KEYS = ("grimoires", "tricks")


def _parse_hands(rules: Rules, given) -> list[list[int]]:
    n, t = rules.players, rules.tricks
    if not isinstance(given, list) or len(given) != n:
        raise BadScenario(f"'hands' must list {n} hands, got {given!r}")
    hands = []
    for seat, hand in enumerate(given):
        if not isinstance(hand, list) or len(hand) != t:
            raise BadScenario(f"hand of seat {seat} must list {t} cards, got {hand!r}")
        try:
            hands.append([parse_card(name) for name in hand])
        except BalanceError as exc:
            raise BadScenario(f"hand of seat {seat}: {exc}") from None
        strangers = [card for card in hands[-1] if card not in rules.deck]
        if strangers:
            raise BadScenario(f"hand of seat {seat}: {card_name(strangers[0])} is not in this variant's deck")
    cards = [card for hand in hands for card in hand]
    repeated = sorted({card for card in cards if cards.count(card) > 1})
    if repeated:
        raise BadScenario(f"cards given twice: {names(repeated)}")
    return [sorted(hand) for hand in hands]


def _parse_grimoires(rules: Rules, where: str, given, count: int) -> list[int]:
    g = len(rules.grimoires)
    if (not isinstance(given, list) or len(given) != count or len(set(given)) != count
            or not all(_whole(v) and 0 <= v < g for v in given)):
        raise BadScenario(f"{where} must list {count} distinct grimoire ids 0-{g - 1}, got {given!r}")
    return list(given)


def play_scenario(rules: Rules, data: dict) -> GameRecord:
    """Play a scripted game (format: docs/rules/chimera-tricks.md, "Scenarios").  Every move is
    checked (IllegalMove); anything else wrong raises BadScenario with one line.  No chance is
    drawn: the hands, the boxed grimoires and every round's grimoire pile are given."""
    n, t = rules.players, rules.tricks
    check_keys(BadScenario, "scenario", data, SCENARIO_KEYS, ("hands", "rounds"), CALLER_KEYS)
    hands = _parse_hands(rules, data["hands"])
    boxed = data.get("boxed_grimoires", [])
    if rules.boxed_grimoires and "boxed_grimoires" not in data:
        raise BadScenario(f"'boxed_grimoires' is needed: {rules.boxed_grimoires} of the "
                          f"{len(rules.grimoires)} grimoires are boxed with {n} players")
    boxed = _parse_grimoires(rules, "'boxed_grimoires'", boxed, rules.boxed_grimoires)
    in_play = [g for g in range(len(rules.grimoires)) if g not in boxed]
    rounds = data["rounds"]
    if not isinstance(rounds, list):
        raise BadScenario(f"'rounds' must be a list of rounds, got {rounds!r}")
    if len(rounds) > rules.rounds:
        raise BadScenario(f"{len(rounds)} rounds are listed but the game has {rules.rounds}")

    moves: list[tuple[int, int]] = []
    parsed = []
    for k, spec in enumerate(rounds):
        where = f"round {k}"
        check_keys(BadScenario, where, spec, ROUND_KEYS, ())
        order = in_play
        if "grimoires" in spec:
            order = _parse_grimoires(rules, f"{where}: 'grimoires'", spec["grimoires"], t)
            if sorted(order) != in_play:
                raise BadScenario(f"{where}: 'grimoires' must be the {t} grimoires in play "
                                  f"({', '.join(map(str, in_play))}) in some order, got {order!r}")
        tricks = spec.get("tricks", [])
        if not isinstance(tricks, list) or len(tricks) > t:
            raise BadScenario(f"{where}: 'tricks' must be a list of at most {t} tricks, got {tricks!r}")
        if k > 0 and parsed[-1][1] < t:
            raise BadScenario(f"round {k - 1} lists {parsed[-1][1]} of {t} tricks; "
                              "only the last scripted round may stop early")
        for j, trick in enumerate(tricks):
            if not isinstance(trick, list) or len(trick) != n:
                raise BadScenario(f"{where}, trick {j}: must list {n} moves in play order, got {trick!r}")
            try:
                moves += [parse_move(text) for text in trick]
            except BalanceError as exc:
                raise BadScenario(f"{where}, trick {j}: {exc}") from None
        parsed.append((order, len(tricks)))

    boxed_familiars = [card for card in rules.deck if all(card not in hand for hand in hands)]
    game = _Game(rules, [ScriptedDecider(moves)] * n, hands, boxed_familiars, boxed)
    for order, count in parsed:
        game.play_round(order, count)
    return game.record()
