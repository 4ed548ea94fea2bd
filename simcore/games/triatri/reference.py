"""TriATri: the rules as plain, readable Python (the oracle).

Written from the rulebook (docs/rules/triatri.md, Sources; its Japanese headings are cited, e.g.
「スタートプレイヤーを決める」, 「カードを出す」, 「ゲームの終了条件」, 「得点計算」) and the project
rulings (docs/rules/triatri.md, Project rulings), independently of the compiled kernel.
``docs/rules/triatri.md`` is the English account of what is implemented here, with every
assumption listed as T1, T2, ...

Seats are numbered 0..N-1; every index (round, deal attempt, trick) is 0-based.

Cards.  K = high - low + 1 numbers per colour.  Colours: 0 fire (red), 1 water (blue), 2 wood
(green); colour a beats colour b iff a == (b + 1) % 3 (water > fire, wood > water, fire > wood).
The card (colour c, number n) has id c*K + (n - low); the fakes are ids 3K .. 3K+fakes-1; the
deck is every id 0..D-1 with D = 3K + fakes.  A gem option is a code: c (0..2) = a supply gem of
colour c, 3 + c = one of the start player's own gems of colour c.

Randomness comes only from explicit streams (``simcore.rng``): the game's own DEAL stream
``deal = PyStream(seed, index, DEAL)`` and one PLAY stream per seat, ``play[s] =
seat_play_streams(seed, index, N)[s]``, drawn from only by seat s's decisions.  The order of draws
is part of the contract with the compiled engine:

* DEAL, every deal attempt (each round, and again after every redeal; ONE stream for the whole
  game): ``order = list(range(D))``; for i = D-1 down to 1: ``j = deal.below(i + 1)``, swap
  ``order[i]``, ``order[j]``; seat s gets ``order[6s : 6s+6]`` (shown sorted); the rest are unused.
* PLAY (the ``random`` strategy; seat s draws from its own ``play[s]``), in the order the
  decisions are asked: per deal attempt the bid of each seat s = 0..N-1,
  ``hand[play[s].below(len(hand))]`` over the sorted hand; then per trick the start player p's
  gem, ``options[play[p].below(len(options))]`` over the ascending option codes; then the plays
  in play order (start, start+1, ... mod N), seat s's ``legal[play[s].below(len(legal))]`` over
  the ascending legal cards.  A draw is made even when there is only one choice.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, Sequence

from simcore.errors import BalanceError
from simcore.oracle import check_keys, seat_deciders
from simcore.rng import PyStream, deal_stream, py_deal_and_rotation, rotate_list, seat_play_streams

FIRE, WATER, WOOD = 0, 1, 2
COLOUR_NAMES = ("fire", "water", "wood")
FAKE = "fake"
NO_COLOUR = -1                       # a fake, or a colourless 0 holding

INSTANT_WIN = "instant-win"
SUPPLY = "supply"
ROUNDS = "rounds"

COUNTER_KEYS = (
    "rounds",           # rounds begun (one cut short by an ending included)
    "tricks",           # tricks played
    "redeals",          # deal attempts thrown back by the start-player bid
    "fakes_played",     # fakes played into tricks (bids not counted)
    "fake_swaps",       # fakes played after the first card (each swaps)
    "fake_wins",        # tricks won by a seat whose own played card was a fake
    "own_gem_offers",   # tricks played for one of the start player's own gems
    "doubled",          # numbered cards doubled (or x4 for a 2) when played
)


def beats(a: int, b: int) -> bool:
    """「カードを出す」: fire < water < wood < fire.  Nothing beats, or is beaten by, no colour (-1)."""
    return a != NO_COLOUR and b != NO_COLOUR and a == (b + 1) % 3


# ---------------------------------------------------------------------------
# Rules and cards


@dataclass(frozen=True)
class Rules:
    """One variant, as plain values (validated upstream).  ``high`` and ``fakes`` None mean the
    rulebook's table for ``players`` (「準備」: 2p 2-6 + 2 fakes, 3p 2-7 + 1, 4p 2-8 + 3); they are
    resolved here, so ``rules.high`` and ``rules.fakes`` are always numbers."""

    players: int
    low: int = 2
    high: int | None = None
    fakes: int | None = None
    gems_per_colour: int = 6
    rounds: int = 3
    hand_size: int = 6
    set_points: int = 1
    pair_points: int = -2
    double_factor: int = 2
    two_factor: int = 4
    instant_win_sets: int = 2
    latest_wins_three_way_ties: bool = False   # variant: three or four tied in two colours -> the latest (T5)

    def __post_init__(self):
        if self.players not in (2, 3, 4):
            raise BalanceError(f"TriATri is for 2-4 players, not {self.players}")
        if self.high is None:
            object.__setattr__(self, "high", {2: 6, 3: 7, 4: 8}[self.players])
        if self.fakes is None:
            object.__setattr__(self, "fakes", {2: 2, 3: 1, 4: 3}[self.players])
        # Sanity only (the variant loader checks the rest): a bid of value 0 must mean a fake.
        if not 1 <= self.low <= self.high or self.fakes < 0 or self.hand_size < 2:
            raise BalanceError(f"TriATri rules out of range: low {self.low}, high {self.high}, "
                               f"fakes {self.fakes}, hand_size {self.hand_size}")
        if self.deck_size < self.players * self.hand_size:
            raise BalanceError(f"a deck of {self.deck_size} cards cannot deal {self.players} hands of {self.hand_size}")

    @property
    def numbers(self) -> int:
        """K: numbers per colour."""
        return self.high - self.low + 1

    @property
    def first_fake(self) -> int:
        return 3 * self.numbers

    @property
    def deck_size(self) -> int:
        return 3 * self.numbers + self.fakes

    @property
    def tricks(self) -> int:
        """Tricks per round: one card of the hand goes to the start-player bid."""
        return self.hand_size - 1


def is_fake(rules: Rules, card: int) -> bool:
    return card >= rules.first_fake


def colour(rules: Rules, card: int) -> int:
    """0 fire, 1 water, 2 wood; -1 for a fake."""
    return NO_COLOUR if is_fake(rules, card) else card // rules.numbers


def number(rules: Rules, card: int) -> int:
    """The printed number; 0 for a fake (「スタートプレイヤーを決める」 and a fake led are 0)."""
    return 0 if is_fake(rules, card) else rules.low + card % rules.numbers


def card_of(rules: Rules, card_colour: int, card_number: int) -> int:
    return card_colour * rules.numbers + (card_number - rules.low)


def card_name(rules: Rules, card: int) -> str:
    """"fire-5", "water-2", "wood-8" or "fake"."""
    if isinstance(card, bool) or not isinstance(card, int) or card not in range(rules.deck_size):
        return repr(card)
    return FAKE if is_fake(rules, card) else f"{COLOUR_NAMES[colour(rules, card)]}-{number(rules, card)}"


def parse_card(rules: Rules, text: str, fake: int = 0) -> int:
    """Card id of a name written by ``card_name`` (case and spaces ignored).  "fake" is the fake
    with index ``fake`` (id 3K + fake): fakes are interchangeable, a scenario numbers them."""
    if not isinstance(text, str):
        raise BadScenario(f"{text!r} is not a card name (e.g. 'fire-5', 'fake')")
    name = text.strip().lower()
    if name == FAKE:
        if fake not in range(rules.fakes):
            raise BadScenario(f"more fakes than the {rules.fakes} in the deck")
        return rules.first_fake + fake
    word, _, digits = name.partition("-")
    if word not in COLOUR_NAMES or not digits.isdigit():
        raise BadScenario(f"{text!r} is not a card name (e.g. 'fire-5', 'water-2', 'wood-8', 'fake')")
    if not rules.low <= int(digits) <= rules.high:
        raise BadScenario(f"{text!r} is not in the deck (numbers {rules.low}-{rules.high} with {rules.players} players)")
    return card_of(rules, COLOUR_NAMES.index(word), int(digits))


def gem_name(code: int) -> str:
    """Option code → "supply fire" / "own wood"."""
    return f"{'own' if code >= 3 else 'supply'} {COLOUR_NAMES[code % 3]}"


def parse_gem(text: str) -> int:
    if isinstance(text, str):
        words = text.lower().split()
        if len(words) == 2 and words[0] in ("supply", "own") and words[1] in COLOUR_NAMES:
            return COLOUR_NAMES.index(words[1]) + (3 if words[0] == "own" else 0)
    raise BadScenario(f"{text!r} is not a gem option (e.g. 'supply fire', 'own water')")


def _names(rules: Rules, cards) -> str:
    return ", ".join(card_name(rules, card) for card in cards) or "nothing"


# ---------------------------------------------------------------------------
# Records and errors


@dataclass
class TrickRecord:
    round: int
    trick: int                                # 0-based within the round
    start: int                                # start player (chose the gem, played first)
    gem: int                                  # option code: c = supply colour c, 3 + c = own colour c
    plays: list[tuple[int, int]]              # (seat, card) in play order
    held: list[tuple[int | None, int]]        # per seat at trick end: (card, value); (None, 0) colourless
    winner: int
    swaps: list[tuple[int, int]]              # (fake seat, victim seat) in play order
    doubled: list[bool]                       # per seat: its own numbered card was doubled when played


@dataclass
class RoundRecord:
    round: int
    deals: list[list[list[int]]]              # per deal attempt, per seat: the dealt hand, ascending
    bids: list[list[int]]                     # per deal attempt, per seat: the bid card
    start: int                                # winner of the last (accepted) bid
    tricks: list[TrickRecord]


@dataclass
class GameRecord:
    players: int
    rounds: list[RoundRecord]
    gems: list[list[int]]                     # per seat [fire, water, wood]
    supply: list[int]                         # [fire, water, wood] left in the supply
    scores: list[int]
    shares: list[float]
    winner: int                               # -1 if shared (or the game is unfinished)
    end: str                                  # "instant-win" | "supply" | "rounds" | "" (unfinished)
    instant_winner: int                       # -1 unless end == "instant-win"
    counters: dict[str, int]
    finished: bool = True


class IllegalMove(BalanceError):
    """A decision the rules forbid (or a script that ran out).  ``kind`` is "bid", "gem" or
    "play"; ``round``, ``trick`` (-1 for a bid) and ``seat`` say where."""

    def __init__(self, kind: str, round: int, trick: int, seat: int, message: str):
        super().__init__(message)
        self.kind, self.round, self.trick, self.seat = kind, round, trick, seat


class BadScenario(BalanceError):
    """A scripted scenario that cannot be played as given (see ``play_scenario``)."""


def new_counters() -> dict[str, int]:
    return dict.fromkeys(COUNTER_KEYS, 0)


# ---------------------------------------------------------------------------
# Scoring (「得点計算」)


def score_gems(rules: Rules, gems: Sequence[int], supply: Sequence[int]) -> int:
    """Sets of all three colours first, then pairs of two different colours, then each gem left
    scores how many of its colour remain in the supply (「上のセットから順に計算し、各セットは重複しません」)."""
    sets = min(gems)
    rest = [count - sets for count in gems]           # at most two colours are left non-zero
    pairs = sorted(rest)[1]                           # the smaller of the two largest
    leftovers = [count - pairs if count > 0 else 0 for count in rest]
    return (sets * rules.set_points + pairs * rules.pair_points
            + sum(count * supply[c] for c, count in enumerate(leftovers)))


def shares_of(rules: Rules, scores: Sequence[int], gems: Sequence[Sequence[int]]) -> list[float]:
    """Highest score; a tie → more gems in total (「持っている宝石の数が多いプレイヤー」); still tied →
    shared equally (docs/rules/triatri.md, Project rulings)."""
    best = max((score, sum(held)) for score, held in zip(scores, gems))
    top = [(score, sum(held)) == best for score, held in zip(scores, gems)]
    return [1.0 / sum(top) if is_top else 0.0 for is_top in top]


# ---------------------------------------------------------------------------
# Pure pieces of the rules


def deal_hands(rules: Rules, deal_rng: PyStream) -> list[list[int]]:
    """「準備」: shuffle the whole deck (Fisher-Yates, top down) and give each seat 6; the rest is unused."""
    order = list(range(rules.deck_size))
    for i in range(len(order) - 1, 0, -1):
        j = deal_rng.below(i + 1)
        order[i], order[j] = order[j], order[i]
    size = rules.hand_size
    return [sorted(order[seat * size:(seat + 1) * size]) for seat in range(rules.players)]


def start_player(rules: Rules, bids: Sequence[int]) -> int:
    """「スタートプレイヤーを決める」: the seat that starts, or -1 for a redeal.

    Highest number (fake = 0); two tied → the one whose colour beats the other's (two tied
    numbered cards always differ in colour); three tied → at 4 players the fourth seat, at 3
    players a redeal; every bid a fake (the top is 0) → a redeal."""
    values = [number(rules, card) for card in bids]
    top = max(values)
    tied = [seat for seat, value in enumerate(values) if value == top]
    if top == 0:
        return -1
    if len(tied) == 1:
        return tied[0]
    if len(tied) == 2:
        a, b = tied
        return a if beats(colour(rules, bids[a]), colour(rules, bids[b])) else b
    if len(tied) == 3 and rules.players == 4:
        return next(seat for seat in range(4) if seat not in tied)
    return -1


def legal_cards(rules: Rules, hand: Sequence[int], gem_colour: int) -> list[int]:
    """「カードを出す」: must follow the gem's colour if possible; a fake may always be played."""
    if any(colour(rules, card) == gem_colour for card in hand):
        return sorted(card for card in hand if colour(rules, card) in (gem_colour, NO_COLOUR))
    return sorted(hand)


def gem_options(supply: Sequence[int], own_gems: Sequence[int]) -> list[int]:
    """「宝石を選ぶ」: any colour still in the supply, or any colour the start player holds."""
    return [c for c in range(3) if supply[c] > 0] + [3 + c for c in range(3) if own_gems[c] > 0]


def _held_colour(rules: Rules, holding) -> int:
    card = holding[0]
    return NO_COLOUR if card is None else colour(rules, card)


def trick_winner(rules: Rules, order: Sequence[int], held: Sequence) -> int:
    """「勝者が宝石を獲得する」: the seat with the highest held value among ``order`` (seats in play
    order; ``held[seat]`` = (card or None, value)).  Tied: two colours, all tied holdings coloured
    → the colour that beats the other, its latest player (T5 when three or more tie); otherwise
    (one colour, three colours, a colourless 0 among them) → the latest to play (T6).  Under the
    variant ``latest_wins_three_way_ties`` three or more tied go to the latest to play as well."""
    top = max(held[seat][1] for seat in order)
    tied = [seat for seat in order if held[seat][1] == top]
    colours = {_held_colour(rules, held[seat]) for seat in tied}
    if rules.latest_wins_three_way_ties and len(tied) >= 3:
        return tied[-1]
    if len(tied) > 1 and NO_COLOUR not in colours and len(colours) == 2:
        a, b = colours
        strong = a if beats(a, b) else b
        tied = [seat for seat in tied if _held_colour(rules, held[seat]) == strong]
    return tied[-1]


def value_when_played(rules: Rules, card: int, before) -> tuple[int, bool]:
    """A numbered card's value and whether it was doubled: x double_factor (x two_factor for a
    printed 2) when its colour beats the colour of ``before``, the holding of the seat that played
    just before it (None for the first card).  A colourless holding is never beaten."""
    value = number(rules, card)
    if before is None or not beats(colour(rules, card), _held_colour(rules, before)):
        return value, False
    return value * (rules.two_factor if value == 2 else rules.double_factor), True


def fake_victim(rules: Rules, order: Sequence[int], held: Sequence) -> int:
    """「偽カード」 played after the first card: it swaps with the highest value already in the trick
    (doublings included); several equal → the one that would win now (T4)."""
    return trick_winner(rules, order, held)


# ---------------------------------------------------------------------------
# What a strategy sees, and the two built-in deciders


@dataclass(frozen=True)
class TableView:
    """The table as seen by ``seat`` at a decision: public facts plus the seat's own hand.  A
    snapshot: other seats' bids are hidden while bidding (they are revealed at once)."""

    rules: Rules
    seat: int
    round: int
    deal: int                                  # deal attempt within the round
    trick: int                                 # -1 while bidding
    start: int                                 # this trick's start player; -1 while bidding
    gem: int                                   # this trick's option code; -1 before it is chosen
    supply: tuple[int, ...]
    gems: tuple[tuple[int, ...], ...]          # per seat [fire, water, wood]
    hand: tuple[int, ...]                      # the asking seat's own hand, ascending
    bids: tuple[int, ...]                      # this round's revealed bids; () while bidding
    plays: tuple[tuple[int, int], ...]         # (seat, card) so far in this trick
    held: tuple                                # per seat: (card or None, value), or None if not played yet

    @property
    def players(self) -> int:
        return self.rules.players


class Decider(Protocol):
    def bid(self, view: TableView, seat: int, hand: list[int]) -> int: ...

    def gem(self, view: TableView, seat: int, options: list[int]) -> int: ...

    def play(self, view: TableView, seat: int, legal: list[int]) -> int: ...


class RandomDecider:
    """Uniform among the allowed choices, seat s drawing from ``play_rngs[s]`` (one draw per
    decision)."""

    def __init__(self, play_rngs: Sequence[PyStream]):
        self.rng = play_rngs

    def bid(self, view, seat, hand):
        return hand[self.rng[seat].below(len(hand))]

    def gem(self, view, seat, options):
        return options[self.rng[seat].below(len(options))]

    def play(self, view, seat, legal):
        return legal[self.rng[seat].below(len(legal))]


def _bid_where(view: TableView, seat: int) -> str:
    return f"round {view.round}, deal {view.deal}, seat {seat}"


def _trick_where(view: TableView, seat: int) -> str:
    return f"round {view.round}, trick {view.trick}, seat {seat}"


def check_bid(view: TableView, seat: int, card) -> int:
    if card not in view.hand:
        raise IllegalMove("bid", view.round, -1, seat, f"{_bid_where(view, seat)}: bid "
                          f"{card_name(view.rules, card)} is not in the hand ({_names(view.rules, view.hand)})")
    return card


def check_gem(view: TableView, seat: int, options: Sequence[int], code) -> int:
    if code not in options:
        shown = gem_name(code) if isinstance(code, int) and code in range(6) else repr(code)
        raise IllegalMove("gem", view.round, view.trick, seat, f"{_trick_where(view, seat)}: gem '{shown}' "
                          f"is not allowed (options: {', '.join(gem_name(o) for o in options)})")
    return code


def check_play(view: TableView, seat: int, legal: Sequence[int], card) -> int:
    rules = view.rules
    if card not in view.hand:
        raise IllegalMove("play", view.round, view.trick, seat, f"{_trick_where(view, seat)}: "
                          f"{card_name(rules, card)} is not in the hand ({_names(rules, view.hand)})")
    if card not in legal:
        follow = view.gem % 3
        must = [c for c in view.hand if colour(rules, c) == follow]
        raise IllegalMove("play", view.round, view.trick, seat, f"{_trick_where(view, seat)}: "
                          f"{card_name(rules, card)} does not follow {COLOUR_NAMES[follow]} although the "
                          f"hand holds {_names(rules, must)}")
    return card


class ScriptedDecider:
    """Three flat scripts used in the order of asking: ``bids`` (every deal attempt, seats in
    order), ``gems`` (one per trick) and ``cards`` (play order across tricks).  Entries are ids /
    option codes, or names ("water-4", "fake", "supply fire"); "fake" is the lowest-id fake in
    the seat's hand at that moment (fakes are interchangeable).  A decision that is not allowed,
    or a script that has run out, raises IllegalMove."""

    def __init__(self, bids: Sequence = (), gems: Sequence = (), cards: Sequence = ()):
        self.bids, self.gems, self.cards = list(bids), list(gems), list(cards)
        self.used = {"bid": 0, "gem": 0, "play": 0}

    def _next(self, kind, script, view, seat, where):
        if self.used[kind] >= len(script):
            what = {"bid": "bid", "gem": "gem", "play": "card"}[kind]
            raise IllegalMove(kind, view.round, view.trick, seat,
                              f"{where}: the script has no {what} left ({len(script)} given)")
        self.used[kind] += 1
        return script[self.used[kind] - 1]

    @staticmethod
    def _card(view, entry, where):
        if not isinstance(entry, str):
            return entry
        if entry.strip().lower() == FAKE:
            fakes = [card for card in view.hand if is_fake(view.rules, card)]
            return fakes[0] if fakes else view.rules.first_fake   # not held: refused by the check
        try:
            return parse_card(view.rules, entry)
        except BadScenario as exc:
            raise BadScenario(f"{where}: {exc}") from None

    def bid(self, view, seat, hand):
        where = _bid_where(view, seat)
        return check_bid(view, seat, self._card(view, self._next("bid", self.bids, view, seat, where), where))

    def gem(self, view, seat, options):
        where = _trick_where(view, seat)
        entry = self._next("gem", self.gems, view, seat, where)
        if isinstance(entry, str):
            try:
                entry = parse_gem(entry)
            except BadScenario as exc:
                raise BadScenario(f"{where}: {exc}") from None
        return check_gem(view, seat, options, entry)

    def play(self, view, seat, legal):
        where = _trick_where(view, seat)
        return check_play(view, seat, legal, self._card(view, self._next("play", self.cards, view, seat, where), where))


# ---------------------------------------------------------------------------
# A game, round by round and trick by trick


class _Game:
    """The live state: gems, supply, hands of the current round, who starts the next trick."""

    def __init__(self, rules: Rules, gems: Sequence[Sequence[int]], first_round: int, deciders):
        self.rules = rules
        self.deciders = deciders
        self.gems = [list(held) for held in gems]
        self.supply = [rules.gems_per_colour - sum(held[c] for held in gems) for c in range(3)]
        self.next_round = first_round
        self.rounds: list[RoundRecord] = []
        self.counters = new_counters()
        self.end = ""
        self.instant_winner = -1
        self.hands: list[list[int]] = []
        self.leader = -1

    @property
    def over(self) -> bool:
        return self.end != ""

    def _view(self, seat, trick=-1, start=-1, gem=-1, bids=(), plays=(), held=None) -> TableView:
        rnd = self.rounds[-1]
        return TableView(self.rules, seat, rnd.round, len(rnd.deals) - 1, trick, start, gem,
                         tuple(self.supply), tuple(tuple(g) for g in self.gems), tuple(self.hands[seat]),
                         tuple(bids), tuple(plays),
                         tuple(held) if held is not None else (None,) * self.rules.players)

    def begin_round(self, deal) -> RoundRecord:
        """Deal and bid until a start player is found; ``deal(attempt)`` gives the hands."""
        rules = self.rules
        record = RoundRecord(self.next_round, [], [], -1, [])
        self.rounds.append(record)
        self.counters["rounds"] += 1
        while True:
            attempt = len(record.deals)
            self.hands = [sorted(hand) for hand in deal(attempt)]
            record.deals.append([list(hand) for hand in self.hands])
            bids = []
            for seat in range(rules.players):
                view = self._view(seat)
                bids.append(check_bid(view, seat, self.deciders[seat].bid(view, seat, list(self.hands[seat]))))
            record.bids.append(bids)
            start = start_player(rules, bids)
            if start >= 0:
                break
            self.counters["redeals"] += 1          # 「全てのカードを戻して、配りなおす」
        for seat, card in enumerate(bids):
            self.hands[seat].remove(card)           # the bid card is out for the round
        record.start = self.leader = start
        self.next_round += 1
        return record

    def play_trick(self) -> TrickRecord:
        rules, n = self.rules, self.rules.players
        rnd = self.rounds[-1]
        number_in_round, start = len(rnd.tricks), self.leader
        bids = rnd.bids[-1]

        # 「宝石を選ぶ」
        options = gem_options(self.supply, self.gems[start])
        if not options:
            raise BadScenario(f"round {rnd.round}, trick {number_in_round}: seat {start} has no gem to offer "
                              "(the supply is empty and it holds none)")
        view = self._view(start, trick=number_in_round, start=start, bids=bids)
        gem = check_gem(view, start, options, self.deciders[start].gem(view, start, list(options)))
        gem_colour = gem % 3

        # 「カードを出す」
        order = [(start + k) % n for k in range(n)]
        held: list = [None] * n
        plays: list[tuple[int, int]] = []
        swaps: list[tuple[int, int]] = []
        doubled = [False] * n
        for position, seat in enumerate(order):
            legal = legal_cards(rules, self.hands[seat], gem_colour)
            view = self._view(seat, trick=number_in_round, start=start, gem=gem, bids=bids, plays=plays, held=held)
            card = check_play(view, seat, legal, self.deciders[seat].play(view, seat, list(legal)))
            self.hands[seat].remove(card)
            plays.append((seat, card))
            earlier = order[:position]
            if not is_fake(rules, card):
                before = held[earlier[-1]] if earlier else None
                value, doubled[seat] = value_when_played(rules, card, before)
                held[seat] = (card, value)
                self.counters["doubled"] += doubled[seat]
                continue
            self.counters["fakes_played"] += 1
            if not earlier:
                held[seat] = (None, 0)              # a fake led is a colourless 0
                continue
            victim = fake_victim(rules, earlier, held)
            held[seat], held[victim] = held[victim], (None, 0)
            swaps.append((seat, victim))
            self.counters["fake_swaps"] += 1

        # 「勝者が宝石を獲得する」
        winner = trick_winner(rules, order, held)
        if gem < 3:
            self.supply[gem_colour] -= 1
        else:
            self.gems[start][gem_colour] -= 1      # the start player's own gem; back to itself if it wins
        self.gems[winner][gem_colour] += 1

        self.counters["tricks"] += 1
        self.counters["own_gem_offers"] += gem >= 3
        self.counters["fake_wins"] += is_fake(rules, dict(plays)[winner])
        record = TrickRecord(rnd.round, number_in_round, start, gem, plays, list(held), winner, swaps, doubled)
        rnd.tricks.append(record)
        self.leader = winner

        # 「ゲームの終了条件」.  Only the winner gained a gem, and no start position is already an
        # instant win (play_scenario refuses it), so only the winner can have just reached it.
        needed = rules.instant_win_sets
        if needed > 0 and min(self.gems[winner]) >= needed:
            self.end, self.instant_winner = INSTANT_WIN, winner
        elif gem < 3 and self.supply[gem_colour] == 0:
            self.end = SUPPLY                       # the trick is complete, so the game ends now
        return record

    def play_round(self, deal) -> None:
        self.begin_round(deal)
        while not self.over and len(self.rounds[-1].tricks) < self.rules.tricks:
            self.play_trick()
        if not self.over and self.next_round >= self.rules.rounds:
            self.end = ROUNDS

    def record(self) -> GameRecord:
        """Scores for everyone, also after an instant win (「2位以下の順位は通常の得点計算により決定する」)."""
        n = self.rules.players
        scores = [score_gems(self.rules, held, self.supply) for held in self.gems]
        if not self.over:
            shares = [0.0] * n
        elif self.end == INSTANT_WIN:
            shares = [1.0 if seat == self.instant_winner else 0.0 for seat in range(n)]
        else:
            shares = shares_of(self.rules, scores, self.gems)
        winner = shares.index(1.0) if 1.0 in shares else -1
        return GameRecord(n, self.rounds, [list(g) for g in self.gems], list(self.supply), scores, shares,
                          winner, self.end, self.instant_winner, self.counters, finished=self.over)


def play_game(rules: Rules, seed: int, index: int, decider=None) -> GameRecord:
    """Game ``index`` of a run with ``seed``.  ``decider``: one for every seat or one per seat;
    None → every seat plays at random, each from its own PLAY stream."""
    deal_rng, rotation = deal_stream(seed, index, rules.players), py_deal_and_rotation(index, rules.players)[1]
    if decider is None:
        decider = RandomDecider(seat_play_streams(seed, index, rules.players))
    game = _Game(rules, [[0, 0, 0]] * rules.players, 0, seat_deciders(decider, rules.players))
    while not game.over:  # a duplicate deal turns every deal of the game alike (simcore/rng.py)
        game.play_round(lambda attempt: rotate_list(deal_hands(rules, deal_rng), rotation))
    return game.record()


# ---------------------------------------------------------------------------
# Scripted scenarios (docs/rules/triatri.md, "Scenario files")

CALLER_KEYS = ("game", "players", "variant", "name", "description", "expect")
SCENARIO_KEYS = ("start_round", "start_gems", "rounds")
ROUND_KEYS = ("deals", "tricks")
DEAL_KEYS = ("hands", "bids")
TRICK_KEYS = ("gem", "cards")


def _name_list(rules: Rules, where: str, key: str, value, length: int) -> list[str]:
    """A list of ``length`` card names, each one a card of this deck ("fake" resolved later)."""
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise BadScenario(f"{where}: '{key}' must be a list of card names, got {value!r}")
    for name in value:
        try:
            parse_card(rules, name)
        except BadScenario as exc:
            raise BadScenario(f"{where}: {exc}") from None
    if len(value) != length:
        raise BadScenario(f"{where}: '{key}' must give {length} cards, got {len(value)}")
    return value


def _parse_hands(rules: Rules, where: str, hands) -> list[list[int]]:
    """Hands by name; the k-th "fake" of the deal (seat 0's hand first) is fake id 3K + k."""
    n, size = rules.players, rules.hand_size
    if not isinstance(hands, list) or len(hands) != n:
        raise BadScenario(f"{where}: 'hands' must give one hand per seat ({n})")
    parsed, fakes = [], 0
    for seat, hand in enumerate(hands):
        if not isinstance(hand, list) or len(hand) != size or not all(isinstance(v, str) for v in hand):
            raise BadScenario(f"{where}, seat {seat}: a hand must be a list of {size} card names, got {hand!r}")
        cards = []
        for name in hand:
            try:
                cards.append(parse_card(rules, name, fakes))
            except BadScenario as exc:
                raise BadScenario(f"{where}, seat {seat}: {exc}") from None
            fakes += is_fake(rules, cards[-1])
        parsed.append(cards)
    dealt = [card for hand in parsed for card in hand if not is_fake(rules, card)]
    twice = sorted({card for card in dealt if dealt.count(card) > 1})
    if twice:
        raise BadScenario(f"{where}: {_names(rules, twice)} dealt twice")
    return parsed


def _start_gems(rules: Rules, given) -> list[list[int]]:
    n = rules.players
    if given is None:
        return [[0, 0, 0] for _ in range(n)]
    if (not isinstance(given, list) or len(given) != n or not all(
            isinstance(row, list) and len(row) == 3
            and all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in row) for row in given)):
        raise BadScenario(f"'start_gems' must be {n} lists of 3 whole numbers >= 0 [fire, water, wood], got {given!r}")
    for c in range(3):
        if sum(row[c] for row in given) > rules.gems_per_colour:
            raise BadScenario(f"'start_gems' hand out {sum(row[c] for row in given)} {COLOUR_NAMES[c]} gems "
                              f"but there are only {rules.gems_per_colour}")
    for seat, row in enumerate(given):
        if rules.instant_win_sets > 0 and min(row) >= rules.instant_win_sets:
            raise BadScenario(f"'start_gems': seat {seat} already holds {rules.instant_win_sets} of every colour "
                              "(the game would be over)")
    return [list(row) for row in given]


def play_scenario(rules: Rules, data: dict) -> GameRecord:
    """Play scripted rounds (format in docs/rules/triatri.md).  Every decision is checked
    (IllegalMove); anything else wrong raises BadScenario with one line.  ``finished`` is True
    only if the game ended within the script."""
    check_keys(BadScenario, "scenario", data, SCENARIO_KEYS, ("rounds",), CALLER_KEYS)
    first = data.get("start_round", 0)
    if isinstance(first, bool) or not isinstance(first, int) or first not in range(rules.rounds):
        raise BadScenario(f"'start_round' must be a round 0-{rules.rounds - 1}, got {first!r}")
    gems = _start_gems(rules, data.get("start_gems"))
    rounds = data["rounds"]
    if not isinstance(rounds, list):
        raise BadScenario(f"'rounds' must be a list of rounds, got {rounds!r}")

    # Check the whole script's shape first, then play it through one scripted decider.
    n = rules.players
    scripts = {"bids": [], "gems": [], "cards": []}
    parsed_rounds = []
    for k, spec in enumerate(rounds):
        where = f"round {first + k}"
        check_keys(BadScenario, where, spec, ROUND_KEYS, ("deals",))
        deals, tricks = spec["deals"], spec.get("tricks", [])
        if not isinstance(deals, list) or not deals:
            raise BadScenario(f"{where}: 'deals' must be a non-empty list of deals")
        if not isinstance(tricks, list):
            raise BadScenario(f"{where}: 'tricks' must be a list of tricks")
        if len(tricks) > rules.tricks:
            raise BadScenario(f"{where}: {len(tricks)} tricks listed but a round has {rules.tricks}")
        hands = []
        for d, deal in enumerate(deals):
            deal_where = f"{where}, deal {d}"
            check_keys(BadScenario, deal_where, deal, DEAL_KEYS, DEAL_KEYS)
            hands.append(_parse_hands(rules, deal_where, deal["hands"]))
            scripts["bids"] += _name_list(rules, deal_where, "bids", deal["bids"], n)
        for t, trick in enumerate(tricks):
            trick_where = f"{where}, trick {t}"
            check_keys(BadScenario, trick_where, trick, TRICK_KEYS, TRICK_KEYS)
            try:
                scripts["gems"].append(parse_gem(trick["gem"]))
            except BadScenario as exc:
                raise BadScenario(f"{trick_where}: {exc}") from None
            scripts["cards"] += _name_list(rules, trick_where, "cards", trick["cards"], n)
        parsed_rounds.append((hands, len(tricks)))

    script = ScriptedDecider(scripts["bids"], scripts["gems"], scripts["cards"])
    game = _Game(rules, gems, first, [script] * n)
    for k, (hands, trick_count) in enumerate(parsed_rounds):
        number_now = first + k
        if game.over:
            raise BadScenario(f"round {number_now} is listed but the game already ended ({game.end})")
        if k > 0 and len(game.rounds[-1].tricks) < rules.tricks:
            raise BadScenario(f"round {number_now - 1} lists {len(game.rounds[-1].tricks)} of {rules.tricks} "
                              "tricks; only the last scripted round may stop early")

        def deal(attempt, hands=hands, number_now=number_now):
            if attempt >= len(hands):
                raise BadScenario(f"round {number_now}, deal {attempt - 1} ends in a redeal but no further deal is listed")
            return hands[attempt]

        record = game.begin_round(deal)
        if len(record.deals) < len(hands):
            raise BadScenario(f"round {number_now}, deal {len(record.deals) - 1} decides the start player "
                              f"(seat {record.start}) but {len(hands)} deals are listed")
        for t in range(trick_count):
            if game.over:
                raise BadScenario(f"round {number_now}, trick {t} is listed but the game already ended ({game.end})")
            game.play_trick()
        if not game.over and trick_count == rules.tricks and game.next_round >= rules.rounds:
            game.end = ROUNDS
    return game.record()
