"""10 TRICKS LATER: the rules as plain, readable Python (the oracle).

Written from the rulebook (docs/rules/ten-tricks-later.md, Sources; its Japanese headings are cited,
e.g. 【ゲームの準備】, 【①カードのプレイ】, 【②勝敗の判定】, 【③感染者の襲撃】, 【④生存者の救出】,
【ラウンドの終了】, 【ゲームの細則】) and the project rulings (docs/rules/ten-tricks-later.md, Project rulings),
independently of the compiled kernel.  ``docs/rules/ten-tricks-later.md`` is the English account
of what is implemented here, with every assumption listed as L1, L2, ...

Seats are numbered 0..N-1 clockwise; every index (round, trick) is 0-based.

Cards.  A survivor of colour c (0 red, 1 green, 2 yellow, 3 blue) and number n (1..8) has id
c*8 + (n-1) (0..31); the infected of number v (0..8) has id 32 + v (32..40).  Infected 8 (id 40)
is the swap card and is never dealt.  Ascending ids put the survivors first, colour by colour and
low to high, then the infected low to high: every "sorted" list below is in this order.

Randomness comes only from explicit streams (``simcore.rng``).  The order of draws is part of the
contract with the compiled engine (``deal`` = PyStream(seed, index, DEAL), the game's own;
``play[s]`` = ``seat_play_streams(seed, index, N)[s]``, seat s's own PLAY stream, drawn from only
by seat s's decisions; all run on across the rounds of one game):

1. DEAL, at the start of EVERY round, only at 3 players with ``colours_3`` None:
   ``removed = deal.below(4)``; the round uses the other three colours.
2. DEAL, every round: ``deck`` = ascending ids of the survivors 1..8 of the round's colours and
   the infected of this player count's values; for i = len(deck)-1 down to 1:
   ``j = deal.below(i + 1)``, swap ``deck[i]``, ``deck[j]``; seat s gets
   ``deck[hand_size*s : hand_size*(s+1)]``; the rest (if any) is out of the round.
3. PLAY (the random strategy), if the swap rule is on: seats s = 0..N-1 in order, only those
   whose hand holds no infected: ``offer = play[s].below(2) == 1``; if offering,
   ``card = sorted(hand)[play[s].below(len(hand))]``.
4. DEAL, if k >= 2 seats offered: the swapping seat is ``offering_ascending[deal.below(k)]``
   (k == 1: that seat, no draw).
5. PLAY, every play by seat s, in play order (leader, leader+1, ... mod N, trick after trick):
   ``legal[play[s].below(len(legal))]`` over the ascending legal cards, a draw even when only one
   card is legal.
6. DEAL, after a round is scored and the game goes on: if k >= 2 seats share the lowest round
   score, the next first leader is ``tied_ascending[deal.below(k)]`` (k == 1: no draw).  Round 0
   is led by seat 0.
End-of-game ties are shared, never drawn.

Decision order (every decider call, in the order made): per round, the swap offers of the seats
holding no infected, seats ascending (``decider.swap(view, seat, hand)``); then every play in
play order (``decider.play(view, seat, hand, legal)``).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, Sequence

from simcore.errors import BalanceError
from simcore.oracle import check_keys, require_whole, seat_deciders
from simcore.rng import PyStream, deal_stream, py_deal_and_rotation, rotate_list, seat_play_streams

PLAYERS = (3, 4)
COLOUR_NAMES = ("red", "green", "yellow", "blue")
RED, GREEN, YELLOW, BLUE = 0, 1, 2, 3
FIRST_INFECTED = 32                  # id of infected 0
SWAP_CARD = 40                       # infected 8: never dealt, only taken by the swap
NO_COLOUR = -1                       # colour() of an infected card; removed_colour when none was drawn

COUNTER_KEYS = (
    "rounds",             # rounds begun (a scenario's last round may stop early)
    "tricks",             # tricks played
    "attacks",            # tricks with an infected card (each attacks its winner)
    "survivors_lost",     # survivors an attack took from an upper board
    "survivors_rescued",  # survivors moved to a lower board
    "bonus_taken",        # players whose track was at track_cap at a round end
    "swaps",              # swaps done (at most one per round)
    "infected_leads",     # tricks led with an infected card
    "one_as_nine",        # tricks in which a survivor 1 ranked 9 (its 8 was in the trick)
)


# ---------------------------------------------------------------------------
# Cards


def is_infected(card: int) -> bool:
    return card >= FIRST_INFECTED


def colour(card: int) -> int:
    """0..3 for a survivor, -1 for an infected card (purple has no lead colour)."""
    return NO_COLOUR if is_infected(card) else card // 8


def number(card: int) -> int:
    """The printed number: 1..8 for a survivor, 0..8 for an infected card."""
    return card - FIRST_INFECTED if is_infected(card) else card % 8 + 1


def survivor(colour_index: int, value: int) -> int:
    return colour_index * 8 + value - 1


def infected(value: int) -> int:
    return FIRST_INFECTED + value


def card_name(card: int) -> str:
    if is_infected(card):
        return f"infected-{number(card)}"
    return f"{COLOUR_NAMES[colour(card)]}-{number(card)}"


def parse_card(name: str) -> int:
    """"red-5" → 4, "infected-3" → 35 (case and surrounding spaces ignored)."""
    if isinstance(name, str):
        kind, dash, value = name.strip().lower().partition("-")
        if dash and value.isdigit():
            if kind == "infected" and 0 <= int(value) <= 8:
                return infected(int(value))
            if kind in COLOUR_NAMES and 1 <= int(value) <= 8:
                return survivor(COLOUR_NAMES.index(kind), int(value))
    raise BalanceError(f"{name!r} is not a card (red|green|yellow|blue-1..8 or infected-0..8)")


def names(cards) -> str:
    return ", ".join(card_name(card) for card in cards)


# ---------------------------------------------------------------------------
# Rules, records, errors


@dataclass(frozen=True)
class Rules:
    """One variant, as plain values.  【ゲームの準備】①: 3 players use three colours and infected
    1-6, 4 players all four colours and infected 0-7; infected 8 is the swap card (②)."""

    players: int
    target: int = 10
    track_cap: int = 8
    track_bonus: int = 3
    infected_3: tuple = (1, 2, 3, 4, 5, 6)
    infected_4: tuple = (0, 1, 2, 3, 4, 5, 6, 7)
    colours_3: tuple | None = None
    swap: bool = True
    hand_size: int = 10
    max_rounds: int = 50

    def __post_init__(self):
        if isinstance(self.players, bool) or self.players not in PLAYERS:
            raise BalanceError(f"10 TRICKS LATER is for 3-4 players, not {self.players!r}")
        for key, low in (("target", 1), ("track_cap", 1), ("track_bonus", 0), ("hand_size", 1),
                         ("max_rounds", 1)):
            require_whole(key, getattr(self, key), low)
        for key in ("infected_3", "infected_4"):
            values = getattr(self, key)
            if (not isinstance(values, (tuple, list)) or len(set(values)) != len(values)
                    or not all(isinstance(v, int) and not isinstance(v, bool) and 0 <= v <= 7 for v in values)):
                raise BalanceError(f"{key} must be distinct infected values 0-7 (8 is the swap card), got {values!r}")
            object.__setattr__(self, key, tuple(sorted(values)))
        if self.colours_3 is not None:
            given = self.colours_3
            if (not isinstance(given, (tuple, list)) or len(set(given)) != 3
                    or not all(isinstance(c, int) and not isinstance(c, bool) and 0 <= c <= 3 for c in given)):
                raise BalanceError(f"colours_3 must be 3 distinct colours 0-3 (red, green, yellow, blue), got {given!r}")
            object.__setattr__(self, "colours_3", tuple(sorted(given)))
        if not isinstance(self.swap, bool):
            raise BalanceError(f"swap must be true or false, got {self.swap!r}")
        deck_size = 8 * (3 if self.players == 3 else 4) + len(self.infected_values)
        if self.players * self.hand_size > deck_size:
            raise BalanceError(f"{self.players} hands of {self.hand_size} need {self.players * self.hand_size} "
                               f"cards but the deck has {deck_size}")

    @property
    def infected_values(self) -> tuple[int, ...]:
        """Values of the infected cards dealt at this player count (ascending)."""
        return self.infected_3 if self.players == 3 else self.infected_4


def round_deck(rules: Rules, colours: Sequence[int]) -> list[int]:
    """【ゲームの準備】①: ascending ids of the survivors of ``colours`` and the dealt infected."""
    return sorted([survivor(c, v) for c in colours for v in range(1, 9)]
                  + [infected(v) for v in rules.infected_values])


@dataclass
class TrickRecord:
    round: int
    trick: int                       # 0-based within the round
    leader: int
    plays: list[tuple[int, int]]     # (seat, card) in play order
    winner: int
    infected: bool                   # an infected card was played (the winner was attacked)
    level: int                       # attack level (0 without an attack)
    lost: list[int]                  # survivors the winner lost to the attack, ascending
    rescued: list[list[int]]         # per seat: survivors moved to the lower board, in order moved
    tracks: list[int]                # per seat, after the trick
    upper: list[list[int]]           # per seat, ascending, after the trick
    lower: list[list[int]]           # per seat, ascending, after the trick


@dataclass
class RoundRecord:
    round: int
    removed_colour: int              # colour drawn out at 3 players; -1 at 4 players or fixed colours
    hands: list[list[int]]           # per seat, ascending, as dealt (before the swap)
    swap_offers: list[int]           # seats that offered a swap, ascending
    swap: tuple[int, int] | None     # (seat, card given up) or None
    leader: int                      # first leader of the round
    tricks: list[TrickRecord]
    round_scores: list[int]          # [] for a scenario round that stopped early (so are the next two)
    totals_after: list[int]
    tracks_end: list[int]
    lost_counts: list[int]


@dataclass
class GameRecord:
    players: int
    rounds: list[RoundRecord]
    totals: list[int]
    upper_counts: list[int]          # survivors on each upper board at the end of the last round
    shares: list[float]
    winner: int                      # -1 if shared (or not finished)
    capped: bool                     # ended because max_rounds rounds were played
    counters: dict[str, int]
    finished: bool = True            # False: a scenario whose script ended before the game


class IllegalMove(BalanceError):
    """A decision the rules forbid, or a missing one.  ``trick`` is None for a swap offer."""

    def __init__(self, round: int, trick: int | None, seat: int, card, message: str):
        super().__init__(message)
        self.round, self.trick, self.seat, self.card = round, trick, seat, card


class BadScenario(BalanceError):
    """A scripted scenario that cannot be played as given (one line saying where and why)."""


def new_counters() -> dict[str, int]:
    return dict.fromkeys(COUNTER_KEYS, 0)


# ---------------------------------------------------------------------------
# 【①カードのプレイ】 and 【②勝敗の判定】: pure functions of the cards


def legal_plays(rules: Rules, hand: Sequence[int], trick_cards: Sequence[int], unlocked: bool) -> list[int]:
    """The cards of ``hand`` that may be played now, ascending.  ``trick_cards``: this trick so
    far, lead first; ``unlocked``: an infected card has been played this round.

    Lead (※リードの制限): no infected lead until one was played this round or the hand is all
    infected.  After a survivor lead: the lead colour if held twice or more; held exactly once,
    that card or any infected (and 【ゲームの細則】①: the card itself stays allowed); not held,
    anything.  After an infected lead: anything.
    """
    hand = sorted(hand)
    if not trick_cards:
        if unlocked or all(is_infected(card) for card in hand):
            return hand
        return [card for card in hand if not is_infected(card)]
    lead_colour = colour(trick_cards[0])
    if lead_colour == NO_COLOUR:
        return hand
    same = [card for card in hand if colour(card) == lead_colour]
    if len(same) >= 2:
        return same
    if len(same) == 1:
        return sorted(same + [card for card in hand if is_infected(card)])
    return hand


def ranks(cards: Sequence[int]) -> list[int]:
    """【②勝敗の判定】: the printed number, except that a survivor 1 ranks 9 when the 8 of its
    colour is in the same trick (for the winner only: 【ゲームの細則】②;
    docs/rules/ten-tricks-later.md, Project rulings)."""
    eights = {colour(card) for card in cards if not is_infected(card) and number(card) == 8}
    return [9 if not is_infected(card) and number(card) == 1 and colour(card) in eights else number(card)
            for card in cards]


def trick_winner(cards: Sequence[int]) -> int:
    """Position (in play order) of the card that wins the trick (【②勝敗の判定】).

    No infected: the highest rank of the lead colour.  Any infected: the highest rank among all
    cards; on a tie the survivor played latest wins (an infected card never wins a tie against a
    survivor); a unique highest infected card wins (infected values are all different).
    """
    rank = ranks(cards)
    if not any(is_infected(card) for card in cards):
        lead_colour = colour(cards[0])
        return max((pos for pos, card in enumerate(cards) if colour(card) == lead_colour), key=rank.__getitem__)
    top = max(rank)
    tied = [pos for pos in range(len(cards)) if rank[pos] == top]
    survivors = [pos for pos in tied if not is_infected(cards[pos])]
    return survivors[-1] if survivors else tied[0]


# ---------------------------------------------------------------------------
# What a strategy sees, and the two built-in deciders


class _Table:
    """The live state of one round."""

    def __init__(self, round: int, hands: Sequence[Sequence[int]], totals: Sequence[int]):
        n = len(hands)
        self.round = round
        self.hands = [sorted(hand) for hand in hands]
        self.totals = list(totals)
        self.upper: list[list[int]] = [[] for _ in range(n)]
        self.lower: list[list[int]] = [[] for _ in range(n)]
        self.lost: list[list[int]] = [[] for _ in range(n)]
        self.tracks = [0] * n
        self.trick: int | None = None      # None while swaps are offered
        self.leader: int | None = None
        self.plays: list[tuple[int, int]] = []
        self.unlocked = False              # an infected card has been played this round
        self.swap_seat: int | None = None


class TableView:
    """The public table at the moment of a decision (read-only; read it during the call).  The
    card given up by a swap is face down (【ゲームの準備】②), so only the swapping seat is shown."""

    __slots__ = ("_table",)

    def __init__(self, table: _Table):
        self._table = table

    players = property(lambda self: len(self._table.hands))
    round = property(lambda self: self._table.round)
    trick = property(lambda self: self._table.trick, doc="0-based; None while swaps are offered")
    leader = property(lambda self: self._table.leader, doc="leader of the current trick")
    plays = property(lambda self: tuple(self._table.plays), doc="(seat, card) so far this trick")
    upper = property(lambda self: tuple(tuple(sorted(b)) for b in self._table.upper))
    lower = property(lambda self: tuple(tuple(sorted(b)) for b in self._table.lower))
    tracks = property(lambda self: tuple(self._table.tracks))
    lost_counts = property(lambda self: tuple(len(pile) for pile in self._table.lost))
    totals = property(lambda self: tuple(self._table.totals), doc="totals before this round")
    unlocked = property(lambda self: self._table.unlocked, doc="an infected card was played this round")
    swap_seat = property(lambda self: self._table.swap_seat, doc="the seat that took infected 8, or None")


class Decider(Protocol):
    def swap(self, view: TableView, seat: int, hand: tuple[int, ...]) -> int | None: ...

    def play(self, view: TableView, seat: int, hand: tuple[int, ...], legal: tuple[int, ...]) -> int: ...


class RandomDecider:
    """Uniform choices, seat s drawing from ``play_streams[s]`` in the documented order (module
    docstring, 3 and 5)."""

    def __init__(self, play_streams: Sequence[PyStream]):
        self.rng = play_streams

    def swap(self, view, seat, hand):
        rng = self.rng[seat]
        if rng.below(2) != 1:
            return None
        hand = sorted(hand)
        return hand[rng.below(len(hand))]

    def play(self, view, seat, hand, legal):
        legal = sorted(legal)
        return legal[self.rng[seat].below(len(legal))]


def _refusal(view: TableView, seat: int, hand, legal, card) -> IllegalMove | None:
    """None if ``card`` may be played now; else the IllegalMove saying why."""
    where = f"round {view.round}, trick {view.trick}, seat {seat}"
    if card is None:
        return IllegalMove(view.round, view.trick, seat, card, f"{where}: no card given (script exhausted)")
    if isinstance(card, bool) or not isinstance(card, int) or not 0 <= card <= SWAP_CARD:
        return IllegalMove(view.round, view.trick, seat, card, f"{where}: {card!r} is not a card id 0-40")
    if card in legal:
        return None
    name = card_name(card)
    if card not in hand:
        why = f"seat {seat} does not hold {name} (holds {names(sorted(hand))})"
    elif not view.plays:
        why = f"{name} may not be led: no infected card has been played this round and seat {seat} holds survivors"
    else:
        lead = view.plays[0][1]
        same = [c for c in hand if colour(c) == colour(lead)]
        must = f"{names(same)} or an infected card" if len(same) == 1 else f"one of {names(same)}"
        why = f"{name} does not follow {COLOUR_NAMES[colour(lead)]}: seat {seat} must play {must}"
    return IllegalMove(view.round, view.trick, seat, card, f"{where}: {why}")


def _swap_refusal(view: TableView, seat: int, hand, card) -> IllegalMove | None:
    if card is None or (isinstance(card, int) and not isinstance(card, bool) and card in hand):
        return None
    shown = card_name(card) if isinstance(card, int) and not isinstance(card, bool) and 0 <= card <= SWAP_CARD else repr(card)
    return IllegalMove(view.round, None, seat, card, f"round {view.round}, swap, seat {seat}: seat {seat} "
                       f"does not hold {shown} (holds {names(sorted(hand))})")


class ScriptedDecider:
    """``swaps``: one answer (card id or None) per swap question, in the order asked; ``plays``:
    card ids in play order.  Raises IllegalMove when a scripted card is not allowed or when the
    script runs out."""

    def __init__(self, swaps: Sequence[int | None] = (), plays: Sequence[int] = ()):
        self.swaps, self.plays = list(swaps), list(plays)
        self.swaps_used = self.plays_used = 0

    def swap(self, view, seat, hand):
        if self.swaps_used >= len(self.swaps):
            raise IllegalMove(view.round, None, seat, None,
                              f"round {view.round}, swap, seat {seat}: no swap answer given (script exhausted)")
        card = self.swaps[self.swaps_used]
        self.swaps_used += 1
        refused = _swap_refusal(view, seat, hand, card)
        if refused:
            raise refused
        return card

    def play(self, view, seat, hand, legal):
        card = self.plays[self.plays_used] if self.plays_used < len(self.plays) else None
        refused = _refusal(view, seat, hand, legal, card)
        if refused:
            raise refused
        self.plays_used += 1
        return card


# ---------------------------------------------------------------------------
# One round


def _offer_swaps(rules: Rules, table: _Table, deciders, pick_swapper) -> tuple[list[int], tuple[int, int] | None]:
    """【ゲームの準備】②: seats holding no infected may offer a card for infected 8; one of several
    is chosen at random (docs/rules/ten-tricks-later.md, Project rulings).  The card given is set
    aside for the round.  Offers are asked seat by seat on the hands as dealt (L2)."""
    if not rules.swap:
        return [], None
    offers = []
    for seat, hand in enumerate(table.hands):
        if any(is_infected(card) for card in hand):
            continue
        card = deciders[seat].swap(TableView(table), seat, tuple(hand))
        refused = _swap_refusal(TableView(table), seat, hand, card)
        if refused:
            raise refused
        if card is not None:
            offers.append((seat, card))
    if not offers:
        return [], None
    chosen = offers[pick_swapper(len(offers))] if len(offers) > 1 else offers[0]
    seat, card = chosen
    table.hands[seat].remove(card)
    table.hands[seat] = sorted(table.hands[seat] + [SWAP_CARD])
    table.swap_seat = seat
    return [s for s, _ in offers], chosen


def _play_trick(rules: Rules, table: _Table, deciders, counters) -> TrickRecord:
    n = len(table.hands)
    table.plays = []
    for k in range(n):                                     # clockwise from the leader
        seat = (table.leader + k) % n
        hand = table.hands[seat]
        legal = legal_plays(rules, hand, [c for _, c in table.plays], table.unlocked)
        card = deciders[seat].play(TableView(table), seat, tuple(hand), tuple(legal))
        refused = _refusal(TableView(table), seat, hand, legal, card)
        if refused:
            raise refused
        hand.remove(card)
        table.plays.append((seat, card))
        table.unlocked = table.unlocked or is_infected(card)     # for the rest of the round (L4)

    cards = [card for _, card in table.plays]
    winner = table.plays[trick_winner(cards)][0]
    infected_cards = [card for card in cards if is_infected(card)]
    counters["tricks"] += 1
    counters["infected_leads"] += is_infected(cards[0])
    counters["one_as_nine"] += ranks(cards) != [number(card) for card in cards]

    # 【③感染者の襲撃】 before the trick's survivors reach the winner (【ゲームの細則】③).
    level, lost = 0, []
    if infected_cards:
        level = sum(number(card) for card in infected_cards)
        lost = [card for card in table.upper[winner] if number(card) <= level]
        table.upper[winner] = [card for card in table.upper[winner] if number(card) > level]
        table.lost[winner] += lost
        table.tracks[winner] = 0                           # ⑤ even when nothing was lost
        counters["attacks"] += 1
        counters["survivors_lost"] += len(lost)

    # 【④生存者の救出】 (order: L12): the winner takes the survivors; losers move their track by the
    # printed number (infected too, 【ゲームの細則】④) unless it would pass the cap (no partial
    # move, L13); then everyone rescues, lowest number first, equal numbers lowest id first (L5).
    table.upper[winner] += [card for card in cards if not is_infected(card)]
    for seat, card in table.plays:
        if seat != winner and table.tracks[seat] + number(card) <= rules.track_cap:
            table.tracks[seat] += number(card)
    rescued: list[list[int]] = [[] for _ in range(n)]
    for seat in range(n):
        while table.upper[seat]:
            lowest = min(table.upper[seat], key=lambda card: (number(card), card))
            if number(lowest) > table.tracks[seat]:
                break
            table.tracks[seat] -= number(lowest)
            table.upper[seat].remove(lowest)
            table.lower[seat].append(lowest)
            rescued[seat].append(lowest)
    counters["survivors_rescued"] += sum(len(moved) for moved in rescued)

    return TrickRecord(table.round, table.trick, table.leader, list(table.plays), winner, bool(infected_cards),
                       level, sorted(lost), rescued, list(table.tracks),
                       [sorted(b) for b in table.upper], [sorted(b) for b in table.lower])


def round_scores(rules: Rules, lower_counts, tracks, lost_counts) -> list[int]:
    """【ラウンドの終了】: +1 per lower-board survivor, +track_bonus at the track's maximum, -1 per
    lost survivor; never below 0."""
    return [max(0, lower + (rules.track_bonus if track == rules.track_cap else 0) - lost)
            for lower, track, lost in zip(lower_counts, tracks, lost_counts)]


class _Game:
    def __init__(self, rules: Rules, deciders, totals: Sequence[int], first_round: int):
        self.rules = rules
        self.deciders = deciders
        self.totals = list(totals)
        self.next_round = first_round
        self.rounds: list[RoundRecord] = []
        self.upper_counts = [0] * rules.players
        self.counters = new_counters()
        self.over = False
        self.capped = False
        self.last_scores: list[int] = []

    def play_round(self, hands, removed_colour: int, leader: int, pick_swapper, tricks: int | None = None) -> RoundRecord:
        """Deal ``hands``, offer swaps, play ``tricks`` tricks (all by default) and, if all were
        played, score the round and decide whether the game is over."""
        rules = self.rules
        table = _Table(self.next_round, hands, self.totals)   # fresh boards, piles and tracks (L6)
        self.counters["rounds"] += 1
        offers, swap = _offer_swaps(rules, table, self.deciders, pick_swapper)
        self.counters["swaps"] += swap is not None
        record = RoundRecord(table.round, removed_colour, [sorted(h) for h in hands], offers, swap, leader,
                             [], [], [], [], [])
        self.rounds.append(record)
        table.leader = leader
        count = rules.hand_size if tricks is None else tricks
        for trick in range(count):
            table.trick = trick
            record.tricks.append(_play_trick(rules, table, self.deciders, self.counters))
            table.leader = record.tricks[-1].winner        # the winner leads the next trick
        self.upper_counts = [len(board) for board in table.upper]   # the end tie-break (L7)
        if count < rules.hand_size:
            return record

        lost_counts = [len(pile) for pile in table.lost]
        scores = round_scores(rules, [len(b) for b in table.lower], table.tracks, lost_counts)
        self.counters["bonus_taken"] += sum(track == rules.track_cap for track in table.tracks)
        self.totals = [total + score for total, score in zip(self.totals, scores)]
        record.round_scores, record.totals_after = scores, list(self.totals)
        record.tracks_end, record.lost_counts = list(table.tracks), lost_counts
        self.last_scores = scores
        self.next_round += 1
        if max(self.totals) >= rules.target:               # 累計が10点に到達
            self.over = True
        elif self.next_round >= rules.max_rounds:          # the round cap (not in the rulebook)
            self.over = self.capped = True
        return record

    def lowest_scorers(self) -> list[int]:
        """Seats with the lowest round score of the round just played, ascending."""
        low = min(self.last_scores)
        return [seat for seat, score in enumerate(self.last_scores) if score == low]

    def record(self) -> GameRecord:
        """Highest total; tie → more survivors on the upper board; still tied → shared."""
        n = self.rules.players
        if not self.over:
            return GameRecord(n, self.rounds, self.totals, self.upper_counts, [0.0] * n, -1, False,
                              self.counters, finished=False)
        top = max(self.totals)
        tied = [seat for seat in range(n) if self.totals[seat] == top]
        most = max(self.upper_counts[seat] for seat in tied)
        tied = [seat for seat in tied if self.upper_counts[seat] == most]
        shares = [1.0 / len(tied) if seat in tied else 0.0 for seat in range(n)]
        return GameRecord(n, self.rounds, self.totals, self.upper_counts, shares,
                          tied[0] if len(tied) == 1 else -1, self.capped, self.counters)


def deal_round(rules: Rules, deal: PyStream) -> tuple[int, list[list[int]]]:
    """Module docstring, 1-2: (removed colour or -1, hands ascending)."""
    if rules.players == 4:
        removed, colours = NO_COLOUR, (RED, GREEN, YELLOW, BLUE)
    elif rules.colours_3 is not None:
        removed, colours = NO_COLOUR, rules.colours_3
    else:
        removed = deal.below(4)                            # anew every round (L1)
        colours = tuple(c for c in range(4) if c != removed)
    deck = round_deck(rules, colours)
    for i in range(len(deck) - 1, 0, -1):
        j = deal.below(i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    size = rules.hand_size
    return removed, [sorted(deck[size * seat:size * (seat + 1)]) for seat in range(rules.players)]


def play_game(rules: Rules, seed: int, index: int, decider=None) -> GameRecord:
    """Game ``index`` of a run with ``seed``.  ``decider``: one for every seat or one per seat;
    None → the random strategy, every seat from its own PLAY stream."""
    deal, rotation = deal_stream(seed, index, rules.players), py_deal_and_rotation(index, rules.players)[1]
    if decider is None:
        decider = RandomDecider(seat_play_streams(seed, index, rules.players))
    game = _Game(rules, seat_deciders(decider, rules.players), [0] * rules.players, 0)
    leader = 0                           # seat 0 leads round 0 (docs/rules/README.md, Common conventions)
    while True:
        removed, hands = deal_round(rules, deal)
        hands = rotate_list(hands, rotation)  # a duplicate deal's turn of the table (simcore/rng.py)
        game.play_round(hands, removed, leader, deal.below)
        if game.over:
            return game.record()
        tied = game.lowest_scorers()                       # 最も得点が低かったプレイヤー (L16)
        leader = tied[deal.below(len(tied))] if len(tied) > 1 else tied[0]


# ---------------------------------------------------------------------------
# Scripted scenarios (format: docs/rules/ten-tricks-later.md, "Scenarios")

CALLER_KEYS = ("game", "players", "variant", "name", "description", "expect")
SCENARIO_KEYS = ("start_totals", "start_round", "rounds")
ROUND_KEYS = ("hands", "swap", "leader", "tricks")


def _card(where: str, name) -> int:
    try:
        return parse_card(name)
    except BalanceError as exc:
        raise BadScenario(f"{where}: {exc}") from None


def _seat(rules: Rules, where: str, value) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value not in range(rules.players):
        raise BadScenario(f"{where} must be a seat 0-{rules.players - 1}, got {value!r}")
    return value


def _parse_hands(rules: Rules, where: str, given) -> tuple[int, list[list[int]]]:
    """(removed colour or -1, hands): hand_size distinct cards each, from one round's deck."""
    n = rules.players
    if not isinstance(given, list) or len(given) != n:
        raise BadScenario(f"{where}: 'hands' must list {n} hands, got {given!r}")
    hands = []
    for seat, hand in enumerate(given):
        if not isinstance(hand, list) or len(hand) != rules.hand_size:
            raise BadScenario(f"{where}: hand of seat {seat} must list {rules.hand_size} cards, got {hand!r}")
        hands.append([_card(f"{where}, hand of seat {seat}", name) for name in hand])
    cards = [card for hand in hands for card in hand]
    repeated = sorted({card for card in cards if cards.count(card) > 1})
    if repeated:
        raise BadScenario(f"{where}: cards given twice: {names(repeated)}")
    strangers = [card for card in cards if is_infected(card) and number(card) not in rules.infected_values]
    if strangers:
        values = ", ".join(str(v) for v in rules.infected_values)
        raise BadScenario(f"{where}: {card_name(strangers[0])} is not dealt with {n} players (infected {values})")
    used = sorted({colour(card) for card in cards if not is_infected(card)})
    removed = NO_COLOUR
    if n == 3 and rules.colours_3 is not None:
        odd = [c for c in used if c not in rules.colours_3]
        if odd:
            allowed = ", ".join(COLOUR_NAMES[c] for c in rules.colours_3)
            raise BadScenario(f"{where}: {COLOUR_NAMES[odd[0]]} is not used (colours_3: {allowed})")
    elif n == 3:
        if len(used) > 3:
            raise BadScenario(f"{where}: survivors of 4 colours; 3 players use 3 colours")
        if len(used) == 3:
            removed = next(c for c in range(4) if c not in used)
    return removed, [sorted(hand) for hand in hands]


def play_scenario(rules: Rules, data: dict) -> GameRecord:
    """Play scripted rounds (format: docs/rules/ten-tricks-later.md, "Scenarios").  Every card is
    checked (IllegalMove); anything else wrong raises BadScenario with one line.  No chance is
    drawn: hands, the swap and tied leaders are given."""
    n = rules.players
    check_keys(BadScenario, "scenario", data, SCENARIO_KEYS, ("rounds",), CALLER_KEYS)
    totals = data.get("start_totals", [0] * n)
    if (not isinstance(totals, list) or len(totals) != n
            or not all(isinstance(t, int) and not isinstance(t, bool) and 0 <= t < rules.target for t in totals)):
        raise BadScenario(f"'start_totals' must be {n} whole numbers 0-{rules.target - 1}, got {totals!r}")
    first = data.get("start_round", 0)
    if isinstance(first, bool) or not isinstance(first, int) or first not in range(rules.max_rounds):
        raise BadScenario(f"'start_round' must be a round 0-{rules.max_rounds - 1}, got {first!r}")
    rounds = data["rounds"]
    if not isinstance(rounds, list):
        raise BadScenario(f"'rounds' must be a list of rounds, got {rounds!r}")

    # Check the script's shape, then play it through one scripted decider.
    swaps: list[int | None] = []
    plays: list[int] = []
    parsed = []
    for k, spec in enumerate(rounds):
        where = f"round {first + k}"
        check_keys(BadScenario, where, spec, ROUND_KEYS, ("hands",))
        removed, hands = _parse_hands(rules, where, spec["hands"])
        swap = spec.get("swap")
        if swap is not None:
            check_keys(BadScenario, f"{where}, swap", swap, ("seat", "give"), ("seat", "give"))
            seat = _seat(rules, f"{where}: swap 'seat'", swap["seat"])
            give = _card(f"{where}, swap", swap["give"])
            if not rules.swap:
                raise BadScenario(f"{where}: a swap is given but the swap rule is off")
            if give not in hands[seat]:
                raise BadScenario(f"{where}: swap: seat {seat} does not hold {card_name(give)}")
            if any(is_infected(card) for card in hands[seat]):
                raise BadScenario(f"{where}: swap: seat {seat} holds an infected card and may not swap")
            swap = (seat, give)
        if rules.swap:                                     # every seat asked answers; only the swapper offers
            swaps += [swap[1] if swap and swap[0] == seat else None
                      for seat in range(n) if not any(is_infected(card) for card in hands[seat])]
        leader = spec.get("leader")
        if leader is not None:
            leader = _seat(rules, f"{where}: 'leader'", leader)
        elif k == 0 and first > 0:
            raise BadScenario(f"{where}: 'leader' is needed for the first scripted round when start_round > 0")
        tricks = spec.get("tricks", [])
        if not isinstance(tricks, list) or len(tricks) > rules.hand_size:
            raise BadScenario(f"{where}: 'tricks' must be a list of at most {rules.hand_size} tricks, got {tricks!r}")
        for t, trick in enumerate(tricks):
            if not isinstance(trick, list) or len(trick) != n:
                raise BadScenario(f"{where}, trick {t}: must list {n} cards in play order, got {trick!r}")
            plays += [_card(f"{where}, trick {t}", name) for name in trick]
        parsed.append((removed, hands, leader, len(tricks)))

    def no_draw(k):                                        # a scenario's swap has a single offer
        raise AssertionError("a scenario never draws a swapper")

    game = _Game(rules, [ScriptedDecider(swaps, plays)] * n, totals, first)
    for k, (removed, hands, given_leader, trick_count) in enumerate(parsed):
        number_now = first + k
        if game.over:
            why = f"max_rounds = {rules.max_rounds} was hit" if game.capped else f"a total reached {rules.target}"
            raise BadScenario(f"round {number_now} is listed but the game already ended after round {number_now - 1} ({why})")
        if k > 0 and parsed[k - 1][3] < rules.hand_size:
            raise BadScenario(f"round {number_now - 1} lists {parsed[k - 1][3]} of {rules.hand_size} tricks; "
                              "only the last scripted round may stop early")
        if k == 0 and first > 0:
            leader = given_leader
        else:
            tied = [0] if k == 0 else game.lowest_scorers()
            if given_leader is None and len(tied) > 1:
                raise BadScenario(f"round {number_now}: seats {tied} tie for the lowest round score; "
                                  "give 'leader' (one of them)")
            if given_leader is not None and given_leader not in tied:
                why = ("round 0 is led by seat 0" if k == 0 and first == 0
                       else f"the lowest round score was seat {tied[0]}'s" if len(tied) == 1
                       else f"seats {tied} tie for the lowest round score")
                raise BadScenario(f"round {number_now}: 'leader' {given_leader} is not allowed: {why}")
            leader = tied[0] if given_leader is None else given_leader
        game.play_round(hands, removed, leader, no_draw, trick_count)
    return game.record()
