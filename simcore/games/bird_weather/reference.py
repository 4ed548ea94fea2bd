"""Trick-Take BIRD & WEATHER: the rules as plain, readable Python (the oracle).

Written from the rulebook (docs/rules/bird-weather.md, Sources) and the project rulings
(docs/rules/bird-weather.md, Project rulings), independently of the compiled kernel;
``docs/rules/bird-weather.md`` is the English account of what is implemented here.  Section marks
(§4, §5-①, §6-③ ...) refer to the rulebook.

A card is its number.  The tens digit is the *weather*, the ones digit the *bird*.  Seats are
numbered 0..N-1 in clockwise order; seat 0 leads the first trick of the first deal.  Every index
(deal, trick, play step, pick step) is 0-based.

Randomness comes only from explicit streams (``simcore.rng``): the game's DEAL stream
(``deal_rng = PyStream(seed, index, DEAL)``) shuffles, and each seat's own PLAY stream
(``play_rng[s]``, ``seat_play_streams(seed, index, players)[s]``) feeds the ``random`` strategy at
seat s; a seat's stream is drawn from only by that seat's decisions.  The order of draws is part
of the contract with the compiled engine:

* each deal: ``deck = sorted(cards)``; Fisher–Yates from the top index down with
  ``deal_rng.below(i + 1)``; seat s gets ``deck[s*hand_size:(s+1)*hand_size]``;
* face-down choices (if that rule is on), seats 0..N-1 in seat order:
  ``sorted(hand)[play_rng[s].below(len(hand))]``;
* each play by seat s: ``sorted(legal)[play_rng[s].below(len(legal))]`` (a draw even when only one
  card is legal);
* each zero-points pick by the trick's winner w: ``seats[play_rng[w].below(len(seats))]`` over the
  seats whose face-down card is still unused, ascending.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol, Sequence

from simcore.errors import BalanceError
from simcore.oracle import seat_deciders
from simcore.rng import PyStream, deal_stream, py_deal_and_rotation, rotate_list, seat_play_streams

COUNTER_KEYS = ("reversals", "zero_wins", "zero_point_tricks", "facedowns_taken", "zero_scored_tricks")

NORMAL = "normal"
REVERSAL = "reversal"
ZERO_WIN = "zero-win"


def weather(card: int) -> int:
    """Tens digit (§1)."""
    return card // 10


def bird(card: int) -> int:
    """Ones digit (§1); it is what a trick scores (§6-③ as corrected by the typo fix in docs/rules/bird-weather.md, Project rulings)."""
    return card % 10


def follows(lead_card: int, card: int) -> bool:
    """§5-②: same weather or same bird as the lead card."""
    return weather(card) == weather(lead_card) or bird(card) == bird(lead_card)


# ---------------------------------------------------------------------------
# Rules, records, errors


@dataclass(frozen=True)
class Rules:
    """One variant, as plain values (validated upstream).  ``cards`` is kept sorted ascending."""

    players: int
    cards: tuple[int, ...]
    hand_size: int = 10
    deals: int = 1
    reversal: bool = True
    zero_win: bool = True
    facedown: bool = True
    # §6-①: the reversal needs the deck's lowest and highest weather (1 and N for the printed deck).
    lowest_weather: int = field(init=False, repr=False, compare=False)
    highest_weather: int = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        deck = tuple(sorted(self.cards))
        object.__setattr__(self, "cards", deck)
        object.__setattr__(self, "lowest_weather", weather(deck[0]))
        object.__setattr__(self, "highest_weather", weather(deck[-1]))

    @classmethod
    def default(cls, players: int) -> "Rules":
        """§4-①: cards 10..(10N+9), ten each."""
        return cls(players=players, cards=tuple(range(10, 10 * players + 10)))

    @property
    def tricks(self) -> int:
        """§7: one trick per card left after the face-down card (9 with the printed rules)."""
        return self.hand_size - 1 if self.facedown else self.hand_size


@dataclass
class Trick:
    deal: int
    trick: int                 # 0-based within the deal
    leader: int                # seat
    cards: list[int]           # play order, starting with the leader
    followed: list[bool]       # per card in play order; the lead card counts as followed
    winner: int                # seat
    kind: str                  # "normal" | "reversal" | "zero-win"
    points_card: int           # the played card whose bird set the points (first in play order on a tie)
    pick_seat: int | None      # zero-points rule: whose face-down card was taken
    pick_card: int | None      # ... and which card it was
    points: int


@dataclass
class GameRecord:
    players: int
    hands: list[list[list[int]]]          # per deal, per seat: dealt hand incl. the face-down card, ascending
    facedown: list[list[int | None]]      # per deal, per seat
    tricks: list[Trick]
    scores: list[int]
    shares: list[float]
    counters: dict[str, int]


class IllegalPlay(BalanceError):
    """A decision the rules forbid.  ``step`` is the 0-based index of the decision among the
    game's decisions of the same ``kind`` ("play", "pick" or "facedown"), which is the index into
    a ScriptedDecider's ``plays`` / ``picks`` when one script drives every seat from the start."""

    def __init__(self, kind: str, step: int, message: str):
        super().__init__(message)
        self.kind = kind
        self.step = step


class BadPosition(BalanceError):
    """A scenario position that cannot arise from the deck (wrong seat count, duplicate cards ...)."""


def new_counters() -> dict[str, int]:
    return dict.fromkeys(COUNTER_KEYS, 0)


def shares_of(scores: Sequence[int]) -> list[float]:
    """§7 and docs/rules/README.md, Common conventions: highest total wins; a tie for the top splits
    one win equally."""
    top = max(scores)
    tied = sum(1 for score in scores if score == top)
    return [1.0 / tied if score == top else 0.0 for score in scores]


# ---------------------------------------------------------------------------
# What a strategy sees, and the two built-in deciders


class TableView:
    """The public table as seen by ``seat`` at the moment of a decision (read-only).

    Every attribute is computed from the live deal when read, so read it during the call; keep a
    copy if you need it later.
    """

    __slots__ = ("_table", "seat")

    def __init__(self, table: "_DealTable", seat: int):
        self._table = table
        self.seat = seat

    @property
    def deal(self) -> int:
        return self._table.deal

    @property
    def leader(self) -> int:
        """Seat that led the current trick."""
        return self._table.leader

    @property
    def trick_cards(self) -> tuple[int, ...]:
        """Cards played so far in the current trick, leader first."""
        return tuple(self._table.trick_cards)

    @property
    def tricks_played(self) -> int:
        return self._table.tricks_played

    @property
    def scores(self) -> tuple[int, ...]:
        """Points per seat in this deal so far."""
        return tuple(self._table.scores)

    @property
    def cards_seen(self) -> tuple[int, ...]:
        """Every card shown face up this deal (played cards and taken face-down cards), ascending."""
        return tuple(sorted(self._table.cards_seen))

    @property
    def own_facedown(self) -> int | None:
        return self._table.facedown[self.seat]

    @property
    def facedowns_left(self) -> tuple[int, ...]:
        """Seats whose face-down card is still unused, ascending."""
        return self._table.facedowns_left()


class Decider(Protocol):
    def facedown(self, seat: int, hand: tuple[int, ...]) -> int: ...

    def play(self, seat: int, hand: tuple[int, ...], legal: tuple[int, ...], view: TableView) -> int: ...

    def pick(self, seat: int, seats_available: tuple[int, ...], view: TableView) -> int: ...


class RandomDecider:
    """Uniform among the legal choices: seat s draws from ``play_rng[s]`` (its own PLAY stream)
    in the documented order."""

    def __init__(self, play_rng: Sequence[PyStream]):
        self.rng = play_rng

    def facedown(self, seat, hand):
        hand = sorted(hand)
        return hand[self.rng[seat].below(len(hand))]

    def play(self, seat, hand, legal, view):
        legal = sorted(legal)
        return legal[self.rng[seat].below(len(legal))]

    def pick(self, seat, seats_available, view):
        seats = sorted(seats_available)
        return seats[self.rng[seat].below(len(seats))]


class ScriptedDecider:
    """Plays ``plays`` in order (across tricks and seats), then asks ``fallback``; same for
    ``picks``.  Face-down choices always go to ``fallback``.  Nothing is checked here: the engine
    checks every decision, and a missing one (script exhausted, no fallback) is returned as None."""

    def __init__(self, plays: Sequence[int], picks: Sequence[int] = (), fallback: Decider | None = None):
        self.plays = list(plays)
        self.picks = list(picks)
        self.fallback = fallback
        self.plays_used = 0
        self.picks_used = 0

    def facedown(self, seat, hand):
        return None if self.fallback is None else self.fallback.facedown(seat, hand)

    def play(self, seat, hand, legal, view):
        if self.plays_used < len(self.plays):
            self.plays_used += 1
            return self.plays[self.plays_used - 1]
        return None if self.fallback is None else self.fallback.play(seat, hand, legal, view)

    def pick(self, seat, seats_available, view):
        if self.picks_used < len(self.picks):
            self.picks_used += 1
            return self.picks[self.picks_used - 1]
        return None if self.fallback is None else self.fallback.pick(seat, seats_available, view)


# ---------------------------------------------------------------------------
# Judging one trick (§5-②, §6-①..④): a pure function of the cards


def judge_trick(rules: Rules, cards: Sequence[int]) -> tuple[list[bool], int, str, int]:
    """Return (followed, winning position, kind, points position); positions are in play order.

    §5-②: only the lead card and the cards that followed it can win; the highest number wins.
    §6-②: every card of one weather and a bird 0 among them → that 0 card wins ("zero-win").
          It is checked first; it cannot meet the reversal, which needs two weathers.
    §6-①: the lead + followed cards hold the deck's lowest and highest weather → the lowest
          number among them wins ("reversal").
    Points: lowest bird among ALL cards played; under a reversal the highest (§6-④).
    """
    lead_card = cards[0]
    followed = [follows(lead_card, card) for card in cards]
    contenders = [pos for pos in range(len(cards)) if followed[pos]]

    if rules.zero_win and len({weather(card) for card in cards}) == 1 and any(bird(c) == 0 for c in cards):
        kind = ZERO_WIN
        winner_pos = next(pos for pos, card in enumerate(cards) if bird(card) == 0)
    else:
        contender_weathers = {weather(cards[pos]) for pos in contenders}
        if (
            rules.reversal
            and rules.lowest_weather < rules.highest_weather
            and rules.lowest_weather in contender_weathers
            and rules.highest_weather in contender_weathers
        ):
            kind = REVERSAL
            winner_pos = min(contenders, key=lambda pos: cards[pos])
        else:
            kind = NORMAL
            winner_pos = max(contenders, key=lambda pos: cards[pos])

    birds = [bird(card) for card in cards]
    points_bird = max(birds) if kind == REVERSAL else min(birds)
    points_pos = birds.index(points_bird)        # several alike: the first in play order
    return followed, winner_pos, kind, points_pos


# ---------------------------------------------------------------------------
# Playing a deal


@dataclass
class _Steps:
    """Decisions made so far in the game, by kind (for IllegalPlay.step)."""

    plays: int = 0
    picks: int = 0
    facedowns: int = 0


class _DealTable:
    """The live state of one deal."""

    def __init__(self, hands, facedown, leader, deal):
        self.hands = [sorted(hand) for hand in hands]
        self.facedown = list(facedown)
        self.facedown_used = [card is None for card in self.facedown]
        self.scores = [0] * len(self.hands)
        self.leader = leader
        self.deal = deal
        self.tricks_played = 0
        self.trick_cards: list[int] = []
        self.cards_seen: list[int] = []

    def facedowns_left(self) -> tuple[int, ...]:
        return tuple(seat for seat, used in enumerate(self.facedown_used) if not used)


def _where(rules: Rules, table: _DealTable, seat: int) -> str:
    deal = f"deal {table.deal}, " if rules.deals > 1 or table.deal > 0 else ""
    return f"{deal}trick {table.tricks_played}, seat {seat}"


def _choose_play(rules, table, seat, decider, steps) -> int:
    hand = table.hands[seat]
    if table.trick_cards:
        lead_card = table.trick_cards[0]
        legal = [card for card in hand if follows(lead_card, card)] or hand    # §5-② must follow
    else:
        legal = hand                                                            # the leader plays anything
    card = decider.play(seat, tuple(hand), tuple(legal), TableView(table, seat))

    where = f"play {steps.plays} ({_where(rules, table, seat)})"
    if card is None:
        raise IllegalPlay("play", steps.plays, f"{where}: no card was given (script exhausted, no fallback)")
    if card not in hand:
        raise IllegalPlay("play", steps.plays, f"{where}: seat {seat} does not hold {card}")
    if card not in legal:
        held = ", ".join(str(c) for c in legal)
        raise IllegalPlay(
            "play", steps.plays,
            f"{where}: {card} does not follow the lead {table.trick_cards[0]} although seat {seat} holds {held}",
        )
    steps.plays += 1
    hand.remove(card)
    return card


def _choose_pick(rules, table, seat, decider, steps) -> int:
    available = table.facedowns_left()
    chosen = decider.pick(seat, available, TableView(table, seat))
    where = f"pick {steps.picks} ({_where(rules, table, seat)})"
    if chosen is None:
        raise IllegalPlay("pick", steps.picks, f"{where}: no seat was given (script exhausted, no fallback)")
    if chosen not in available:
        why = "is not a seat" if chosen not in range(len(table.hands)) else "has no unused face-down card"
        raise IllegalPlay("pick", steps.picks, f"{where}: seat {chosen} {why} (unused: {list(available)})")
    steps.picks += 1
    return chosen


def play_deal(
    rules: Rules,
    hands: Sequence[Sequence[int]],
    facedown: Sequence[int | None],
    leader: int,
    decider: Decider | Sequence[Decider],
    deal: int = 0,
    *,
    steps: _Steps | None = None,
) -> tuple[list[Trick], list[int], dict[str, int]]:
    """Play every trick of one deal from ``hands`` (face-down cards already removed).

    ``facedown`` holds each seat's face-down card or None; ``decider`` is one decider for every
    seat or one per seat.  Returns (tricks, points per seat, counters).
    """
    deciders = seat_deciders(decider, rules.players)
    steps = steps if steps is not None else _Steps()
    table = _DealTable(hands, facedown if rules.facedown else [None] * rules.players, leader, deal)
    counters = new_counters()
    tricks: list[Trick] = []

    for trick_index in range(len(table.hands[0])):
        table.tricks_played = trick_index
        table.trick_cards = []
        seats = [(table.leader + k) % rules.players for k in range(rules.players)]   # clockwise
        for seat in seats:
            card = _choose_play(rules, table, seat, deciders[seat], steps)
            table.trick_cards.append(card)
            table.cards_seen.append(card)

        cards = list(table.trick_cards)
        followed, winner_pos, kind, points_pos = judge_trick(rules, cards)
        winner = seats[winner_pos]
        points_card = cards[points_pos]
        counters["reversals"] += kind == REVERSAL
        counters["zero_wins"] += kind == ZERO_WIN

        pick_seat = pick_card = None
        points = bird(points_card)
        if points == 0:
            # §6-③: the winner takes one unused face-down card (any seat's) and scores its bird.
            counters["zero_point_tricks"] += 1
            if table.facedowns_left():
                pick_seat = _choose_pick(rules, table, winner, deciders[winner], steps)
                pick_card = table.facedown[pick_seat]
                table.facedown_used[pick_seat] = True
                table.cards_seen.append(pick_card)
                counters["facedowns_taken"] += 1
                points = bird(pick_card)
            if points == 0:
                counters["zero_scored_tricks"] += 1

        table.scores[winner] += points
        tricks.append(Trick(deal, trick_index, table.leader, cards, followed, winner, kind,
                            points_card, pick_seat, pick_card, points))
        table.leader = winner                     # §2: the winner leads the next trick
    return tricks, table.scores, counters


# ---------------------------------------------------------------------------
# Whole games


def deal_hands(rules: Rules, deal_rng: PyStream) -> list[list[int]]:
    """§4-②: shuffle the sorted deck (Fisher–Yates, top down) and give each seat a slice."""
    deck = list(rules.cards)
    for i in range(len(deck) - 1, 0, -1):
        j = deal_rng.below(i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    size = rules.hand_size
    return [sorted(deck[seat * size:(seat + 1) * size]) for seat in range(rules.players)]


def _choose_facedown(rules, deal, hand, seat, decider, steps) -> int:
    card = decider.facedown(seat, tuple(hand))
    where = f"face-down {steps.facedowns} (deal {deal}, seat {seat})"
    if card is None:
        raise IllegalPlay("facedown", steps.facedowns, f"{where}: no card was given (no fallback)")
    if card not in hand:
        raise IllegalPlay("facedown", steps.facedowns, f"{where}: seat {seat} does not hold {card}")
    steps.facedowns += 1
    return card


def play_game(rules: Rules, seed: int, index: int, deciders: Sequence[Decider] | None = None) -> GameRecord:
    """Game ``index`` of a run with ``seed``: ``rules.deals`` deals (§8), deal d led by seat d mod N.

    Without ``deciders`` every seat plays at random, each from its own PLAY stream.
    """
    deal_rng, rotation = deal_stream(seed, index, rules.players), py_deal_and_rotation(index, rules.players)[1]
    if deciders is None:
        deciders = [RandomDecider(seat_play_streams(seed, index, rules.players))] * rules.players
    deciders = seat_deciders(deciders, rules.players)
    steps = _Steps()
    record = GameRecord(rules.players, [], [], [], [0] * rules.players, [], new_counters())

    for deal in range(rules.deals):
        dealt = rotate_list(deal_hands(rules, deal_rng), rotation)  # a duplicate deal's turn (simcore/rng.py)
        hands = [list(hand) for hand in dealt]
        facedown: list[int | None] = [None] * rules.players
        if rules.facedown:
            # §5-①: everyone first lays one card face down (seat order; the choices are secret).
            for seat in range(rules.players):
                card = _choose_facedown(rules, deal, hands[seat], seat, deciders[seat], steps)
                hands[seat].remove(card)
                facedown[seat] = card
        tricks, scores, counters = play_deal(
            rules, hands, facedown, deal % rules.players, deciders, deal, steps=steps
        )
        record.hands.append(dealt)
        record.facedown.append(facedown)
        record.tricks.extend(tricks)
        record.scores = [total + points for total, points in zip(record.scores, scores)]
        for key in COUNTER_KEYS:
            record.counters[key] += counters[key]

    record.shares = shares_of(record.scores)
    return record


def _check_position(rules: Rules, hands, facedown) -> None:
    if len(hands) != rules.players or len(facedown) != rules.players:
        raise BadPosition(f"{len(hands)} hands and {len(facedown)} face-down slots for {rules.players} players")
    if len({len(hand) for hand in hands}) != 1:
        raise BadPosition(f"hands must all be the same length, got {[len(hand) for hand in hands]}")
    if not rules.facedown and any(card is not None for card in facedown):
        raise BadPosition("face-down cards given but the face-down rule is off")
    in_play = [card for hand in hands for card in hand] + [card for card in facedown if card is not None]
    deck = set(rules.cards)
    strangers = sorted(card for card in in_play if card not in deck)
    if strangers:
        raise BadPosition(f"cards not in the deck: {strangers}")
    repeated = sorted({card for card in in_play if in_play.count(card) > 1})
    if repeated:
        raise BadPosition(f"cards given twice: {repeated}")


def play_scenario(
    rules: Rules,
    hands: Sequence[Sequence[int]],
    facedown: Sequence[int | None] | None,
    leader: int,
    plays: Sequence[int],
    picks: Sequence[int] = (),
    fallback: Decider | None = None,
) -> GameRecord:
    """One deal from a given position: ``len(hands[0])`` tricks, scripted ``plays`` (in play order,
    across tricks) and ``picks`` first, then ``fallback``.  Every decision is checked."""
    facedown = [None] * rules.players if facedown is None else list(facedown)
    _check_position(rules, hands, facedown)
    decider = ScriptedDecider(plays, picks, fallback)
    tricks, scores, counters = play_deal(rules, hands, facedown, leader, decider)
    dealt = [sorted(list(hand) + ([card] if card is not None else [])) for hand, card in zip(hands, facedown)]
    return GameRecord(rules.players, [dealt], [facedown], tricks, list(scores), shares_of(scores), counters)
