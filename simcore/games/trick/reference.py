"""Trick-taking games from a rules file in plain, readable Python: the oracle the compiled loop
(kernel.py) is tested against, game for game, and the engine the OpenSpiel check replays first.

It reads the rules file's own words (suit names, card names, the ``play`` and ``scoring`` keys)
rather than the kernel's arrays, and keeps hands as sets of cards.  Its random players draw from
the same streams as the compiled ones (simcore/rng.py), so a random game is the same game here
and there.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from simcore.errors import BalanceError
from simcore.games.trick.rules import SCORE_LIMIT
from simcore.rng import DEAL, PyStream, deal_stream, py_deal_and_rotation, rotate_list, seat_play_streams


@dataclass(frozen=True)
class Card:
    index: int  # deck index: the order of the deck before shuffling
    name: str
    suit: str
    rank: int  # higher beats lower within a suit (unless the lowest wins)
    points: int
    rank_name: str = ""

    def named(self, names) -> bool:
        """Whether a list of the rules file names this card: by itself, its rank or its suit."""
        return self.name in names or self.rank_name in names or self.suit in names


@dataclass
class Rules:
    players: int
    deck: list[Card]
    hand_size: int
    rounds: int
    lowest_wins: bool
    random_dealer: bool
    revealed: bool
    pass_cards: int
    pass_random: bool
    pass_directions: list[str]
    trump_kind: str
    trump_suit: str | None
    bidding: bool
    last_bid_rule: bool
    lead: str
    first_lead_card: str | None
    follow_suit: bool
    void_trump: bool
    must_beat: bool
    unbroken_suit: str | None
    breaking_cards: list[str]
    first_trick_no_points: bool
    base: int
    per_trick: int
    exact_bid: int
    off_bid_per_trick: int
    moon: bool
    nil: int = 0
    trump_choices: list[str] = field(default_factory=list)  # the suits a bid winner may name trump
    lowest_rank_wins: bool = False
    target: int | None = None
    reverse_if_played: list[str] = field(default_factory=list)
    always_wins: list[str] = field(default_factory=list)
    withheld: set[int] = field(default_factory=set)
    suits: list[str] = field(default_factory=list)
    teams: list[list[int]] = field(default_factory=list)  # game.teams, seats from 0
    hand_sizes: list[int] = field(default_factory=list)  # each round's (deal.hand_size); hand_size: this round's
    no_trump_rounds: set[int] = field(default_factory=set)  # trump.none_in_rounds, rounds from 0
    game_trump_kind: str = "none"  # trump.kind; trump_kind: this round's (none in a round without)
    event_columns: list[str] = field(default_factory=list)  # the hooks module's EVENTS
    decisions: list = field(default_factory=list)  # [[decision]]: (name, at, who, options) each
    upcard: bool | str = False  # deal.upcard: a card turned face up after the deal, or one set aside before it
    hooks: dict = field(default_factory=dict)  # the rules file's hooks, run as plain Python here
    arrays: tuple = ()  # (rules, cards, masks) of the setup: what a hook is handed

    @classmethod
    def from_setup(cls, setup) -> "Rules":
        """The rules of ``setup``, as in its first round (``for_round`` gives any other's)."""
        return cls._of_setup(setup).for_round(0)

    @classmethod
    def _of_setup(cls, setup) -> "Rules":
        from simcore.games.trick.rules import R_WITHHELD
        from simcore.games.trick.rulesfile import all_ranks, all_suits, deck_of, hooks_of

        m = setup.spec.model
        points = m.scoring.card_points
        deck = []
        suits, ranks = all_suits(m), all_ranks(m)
        for i, (k, r, name) in enumerate(deck_of(setup.spec, setup.players)):
            value = points[name] if name in points else points.get(suits[k], points.get(ranks[r], 0))
            deck.append(Card(i, name, suits[k], r, value, ranks[r]))
        withheld_mask = int(setup.rules[R_WITHHELD]) & ((1 << 64) - 1)
        return cls(
            players=setup.players, deck=deck, hand_size=setup.hand_size, rounds=m.game.rounds,
            lowest_wins=m.game.winner == "lowest", random_dealer=m.game.dealer == "random",
            revealed=m.deal.left_out == "revealed", pass_cards=m.passing.cards, pass_random=m.passing.choice == "random",
            pass_directions=list(m.passing.directions), trump_kind=m.trump.kind, trump_suit=m.trump.suit,
            bidding=m.bidding.kind == "tricks", last_bid_rule=m.bidding.last_bidder_may_not_make_total,
            lead=m.play.lead, first_lead_card=m.play.first_lead_card, follow_suit=m.play.follow == "suit",
            void_trump=m.play.when_void == "trump", must_beat=m.play.must_beat, unbroken_suit=m.play.unbroken_suit,
            breaking_cards=list(m.play.breaking_cards), first_trick_no_points=m.play.first_trick_no_points,
            base=m.scoring.base, per_trick=m.scoring.per_trick, exact_bid=m.scoring.exact_bid,
            off_bid_per_trick=m.scoring.off_bid_per_trick, moon=m.scoring.moon,
            nil=m.scoring.nil, trump_choices=list(m.deck.suits),
            lowest_rank_wins=m.trick.winner == "lowest", target=m.game.target, reverse_if_played=list(m.trick.reverse_if_played),
            always_wins=list(m.trick.always_wins),
            withheld={i for i in range(len(deck)) if withheld_mask >> i & 1}, suits=suits,
            teams=[[seat - 1 for seat in team] for team in (m.game.teams or [])],
            hand_sizes=list(setup.hands), no_trump_rounds={r - 1 for r in m.trump.none_in_rounds},
            game_trump_kind=m.trump.kind, event_columns=[column for column, _, _ in setup.events],
            decisions=[(d.name, d.at, d.who, d.n_options(len(deck))) for d in m.decision], upcard=m.deal.upcard,
            hooks=hooks_of(setup.spec) if m.hooks is not None else {}, arrays=(setup.rules, setup.cards, setup.masks))

    def for_round(self, r: int) -> "Rules":
        """The rules of round ``r``: its hand size, and no trump in a round of trump.none_in_rounds."""
        import dataclasses

        kind = "none" if r in self.no_trump_rounds else self.game_trump_kind
        return dataclasses.replace(self, hand_size=self.hand_sizes[r], trump_kind=kind)

    def team_of(self, seat: int) -> list[int]:
        """The seats of ``seat``'s team (itself alone without teams)."""
        return next((team for team in self.teams if seat in team), [seat])

    def pass_to(self, direction: str, seat: int) -> int:
        n = self.players
        return (seat + {"none": 0, "left": 1, "right": n - 1, "across": n // 2}[direction]) % n


@dataclass
class Trick:
    round: int
    trick: int
    leader: int
    cards: list[str]
    winner: int
    points: int


@dataclass
class Record:
    players: int
    rounds: list[dict] = field(default_factory=list)
    tricks: list[Trick] = field(default_factory=list)
    scores: list[int] = field(default_factory=list)
    shares: list[float] = field(default_factory=list)
    counters: dict = field(default_factory=dict)

    def as_log(self, game: str) -> dict:
        return {"game": game, "players": self.players, "rounds": self.rounds,
                "tricks": [t.__dict__.copy() for t in self.tricks], "scores": self.scores, "shares": self.shares,
                "counters": self.counters}


class RandomDecider:
    """Every decision uniform over the legal choices, from the deciding seat's own PLAY stream
    (the k-th of the choices in deck order, k drawn below their number: the compiled draw)."""

    def __init__(self, streams):
        self.streams = streams

    def _pick(self, seat, options):
        options = sorted(options)
        return options[self.streams[seat].below(len(options))]

    def pass_card(self, seat, hand, view):
        return self._pick(seat, hand)

    def bid(self, seat, hand, legal, view):
        return self._pick(seat, legal)

    def trump(self, seat, hand, legal, view):
        return self._pick(seat, legal)

    def play(self, seat, hand, legal, view):
        return self._pick(seat, legal)

    def decide(self, seat, decision, hand, legal, view):
        return self._pick(seat, legal)


class Scripted:
    """Decisions from a list (passes, bids, cards, in the order the game asks), checked by the
    rules; when it runs out, ``then`` decides."""

    def __init__(self, script, then=None):
        self.script = list(script)
        self.step = 0
        self.then = then

    def _next(self, legal, what, seat, call):
        if self.step < len(self.script):
            choice = self.script[self.step]
            if choice not in legal:
                raise BalanceError(f"scripted step {self.step}: seat {seat} may not {what} {choice!r} "
                                   f"(legal: {sorted(legal)})")
            self.step += 1
            return choice
        if self.then is None:
            raise BalanceError(f"the script ends at step {self.step}, before the round does")
        return call()

    def pass_card(self, seat, hand, view):
        return self._next(hand, "pass", seat, lambda: self.then.pass_card(seat, hand, view))

    def bid(self, seat, hand, legal, view):
        return self._next(legal, "bid", seat, lambda: self.then.bid(seat, hand, legal, view))

    def trump(self, seat, hand, legal, view):
        return self._next(legal, "name trump", seat, lambda: self.then.trump(seat, hand, legal, view))

    def play(self, seat, hand, legal, view):
        return self._next(legal, "play", seat, lambda: self.then.play(seat, hand, legal, view))

    def decide(self, seat, decision, hand, legal, view):
        return self._next(legal, f"choose in decision {decision}", seat,
                          lambda: self.then.decide(seat, decision, hand, legal, view))

    def has_next(self) -> bool:
        """Whether the script still has a decision (a decision of chance takes it from the script)."""
        return self.step < len(self.script)


class Round:
    """One round of play: the pass, the bids, the tricks and the scores, written as a rulebook says them."""

    def __init__(self, rules: Rules, hands: list[set[int]], dealer: int, trump_card: int | None, direction: str,
                 decider, round_index: int = 0, totals=None, seat_counters=None, stream=None):
        self.rules = rules
        self.hands = [set(h) for h in hands]
        self.dealer = dealer
        self.trump_card = trump_card
        self.upcard_dealt = trump_card  # as the log shows it (a decision may exchange the upcard)
        self.direction = direction
        self.decider = decider
        # the deal's draws, for a decision of chance (who = "chance"); a scripted round's, game 0 of run 0's
        self.stream = stream if stream is not None else PyStream(0, 0, DEAL)
        self.round = round_index
        self.totals = list(totals or [0] * rules.players)
        if rules.trump_kind == "turned-up":
            self.trump = rules.deck[trump_card].suit
        elif rules.trump_kind == "fixed":
            self.trump = rules.trump_suit
        else:
            self.trump = None
        self.broken = False
        self.bids = [None] * rules.players
        self.passes = []
        self.won = [0] * rules.players
        self.taken = [set() for _ in range(rules.players)]
        self.points = [0] * rules.players  # the points of the tricks each seat took
        self.tricks: list[Trick] = []
        self.record: list[tuple[int, int, list[int]]] = []  # (leader, winner, cards) of each trick over
        self.trumped = 0
        self.reversed = 0  # tricks a reversing card was played to
        # the designer's decisions ([[decision]]): their counters and what each seat chose
        from simcore.games.trick import rules as tr

        self.counters = [0] * tr.N_TABLE_COUNTERS  # the round's
        self.seat_counters = seat_counters if seat_counters is not None else [0] * (tr.MAX_PLAYERS * tr.SEAT_COUNTERS)
        self.next_leader = -1
        self.chosen = {name: [None] * rules.players for name, at, _, _ in rules.decisions
                       if at in ("before-bidding", "before-play")}
        # per trick: {decision: choice} of the decisions after its cards (the last one) and after it
        self.trick_choices: list[dict] = []
        # where a decision's card moves (simcore/games/trick/moves.py) leave what each seat knows
        self.out: set[int] = set()  # the seats sitting the round out
        self.known = [set() for _ in range(rules.players)]  # the cards all know each seat holds
        self.put_out = [set() for _ in range(rules.players)]  # the cards each seat put out of play
        # the undealt cards, face down (a card is drawn from them)
        self.stock = set(range(len(rules.deck))) - set().union(*self.hands) - {trump_card}

    def card(self, i) -> Card:
        return self.rules.deck[i]

    # --- before the first trick
    def do_pass(self):
        r = self.rules
        if r.pass_cards == 0 or self.direction == "none":
            return
        chosen = []
        for seat in range(r.players):
            rest = set(self.hands[seat])
            mine = []
            for _ in range(r.pass_cards):
                c = self.decider.pass_card(seat, frozenset(rest), self)
                rest.discard(c)
                mine.append(c)
            chosen.append(mine)
        for seat in range(r.players):
            self.hands[seat] -= set(chosen[seat])
        for seat in range(r.players):
            self.hands[r.pass_to(self.direction, seat)] |= set(chosen[seat])
        self.passes = [[self.card(c).name for c in mine] for mine in chosen]

    def do_bids(self):
        r = self.rules
        if not r.bidding:
            return
        for j in range(r.players):
            seat = (self.dealer + 1 + j) % r.players
            legal = set(range(r.hand_size + 1))
            if r.last_bid_rule and j == r.players - 1:
                legal.discard(r.hand_size - sum(b for b in self.bids if b is not None))
            if "legal_bids" in r.hooks:  # the designer's bids (partners' limit ...), in place of the keys'
                rules = r.arrays[0]
                mask = int(r.hooks["legal_bids"](rules, self.table([]), r.players, j, r.hand_size))
                legal = {b for b in range(64) if mask >> b & 1}
                if not legal:
                    raise BalanceError(f"hook legal_bids gave no bid for seat {seat + 1} (bid {j + 1} of the round)")
            self.bids[seat] = self.decider.bid(seat, frozenset(self.hands[seat]), frozenset(legal), self)
        if r.trump_kind == "bid-winner":  # the highest bid names trump (the first to bid it, between equals)
            seat = self.bid_winner()
            choices = frozenset(range(len(r.trump_choices)))
            self.trump = r.trump_choices[self.decider.trump(seat, frozenset(self.hands[seat]), choices, self)]

    def bid_winner(self) -> int:
        order = [(self.dealer + 1 + j) % self.rules.players for j in range(self.rules.players)]
        return max(order, key=lambda s: (self.bids[s], -order.index(s)))

    def first_leader(self) -> int:
        r = self.rules
        if r.lead == "holder":
            for seat, hand in enumerate(self.hands):
                if any(self.card(c).name == r.first_lead_card for c in hand):
                    return seat
        if r.lead == "dealer":
            return self.dealer
        if r.lead == "bid-winner":
            return self.bid_winner()
        return (self.dealer + 1) % r.players

    # --- the tricks
    def table(self, played: list[int], first_trick: bool = False):
        """The public table as the play loop shows it to a hook (simcore/games/trick/rules.py)."""
        import numpy as np

        from simcore.games.trick import rules as tr

        t = np.full(tr.TABLE_WIDTH, -1, dtype=np.int64)
        t[tr.T_ROUND], t[tr.T_NPLAYED], t[tr.T_DEALER] = self.round, len(played), self.dealer
        t[tr.T_TRUMP] = self.rules.suits.index(self.trump) if self.trump is not None else -1
        t[tr.T_TRUMP_CARD] = -1 if self.trump_card is None else self.trump_card
        t[tr.T_BROKEN] = int(self.broken)
        if getattr(self, "at", None) is not None:
            t[tr.T_TRICK], t[tr.T_LEADER] = self.at
        t[tr.T_NEXT_LEADER] = self.next_leader
        t[tr.T_OUT] = sum(1 << s for s in self.out)
        for s in range(self.rules.players):
            t[tr.T_KNOWN + s] = np.uint64(sum(1 << c for c in self.known[s])).astype(np.int64)
            t[tr.T_HELD + s] = len(self.hands[s])
        t[tr.T_COUNTER:tr.T_COUNTER + tr.N_TABLE_COUNTERS] = self.counters
        t[tr.T_SEAT_COUNTER:tr.T_SEAT_COUNTER + len(self.seat_counters)] = self.seat_counters
        for i, c in enumerate(played):
            t[tr.T_PLAY + i] = c
        for s in range(self.rules.players):
            t[tr.T_BID + s] = -1 if self.bids[s] is None else self.bids[s]
            t[tr.T_WON + s] = self.won[s]
            t[tr.T_POINTS + s] = self.points[s]
            t[tr.T_TOTAL + s] = self.totals[s]
        for k, (leader, winner, cards) in enumerate(self.record):
            at = tr.T_RECORD + k * tr.RECORD_WIDTH
            t[at + tr.K_LEADER], t[at + tr.K_WINNER] = leader, winner
            t[at + tr.K_CARD:at + tr.K_CARD + len(cards)] = cards
        return t

    def winner_of(self, cards: list[int]) -> int:
        if "trick_winner" in self.rules.hooks:
            rules, deck, masks = self.rules.arrays
            trump = self.rules.suits.index(self.trump) if self.trump is not None else -1
            return int(self.rules.hooks["trick_winner"](self.table(cards), len(cards), -1, deck, masks, rules, trump))
        return self.rule_winner(cards)

    def rule_winner(self, cards: list[int]) -> int:
        """Position of the winning card: the first card that always wins, if one was played; else
        the highest trump if any was played, else the highest card of the suit led ("highest" is
        "lowest" when the rules say so, and the other way round once a reversing card is in the
        trick); between equal copies the first played."""
        r = self.rules
        for i, c in enumerate(cards):
            if self.card(c).named(r.always_wins):
                return i
        lowest = r.lowest_rank_wins
        if any(self.card(c).named(r.reverse_if_played) for c in cards):
            lowest = not lowest
        led = self.card(cards[0]).suit
        trumps = [i for i, c in enumerate(cards) if self.trump is not None and self.card(c).suit == self.trump]
        contenders = trumps or [i for i, c in enumerate(cards) if self.card(c).suit == led]
        ranks = [self.card(cards[i]).rank for i in contenders]
        best_rank = min(ranks) if lowest else max(ranks)
        return contenders[ranks.index(best_rank)]

    def legal(self, seat: int, played: list[int], first_trick: bool) -> set[int]:
        r = self.rules
        hand = self.hands[seat]
        if "legal" in r.hooks:
            rules, deck, masks = r.arrays
            held = sum(1 << c for c in hand)
            mask = int(self.asked("legal", np.uint64(held), self.table(played), rules, deck, masks, first_trick))
            legal = {c for c in range(len(r.deck)) if mask >> c & 1}
            if not legal or not legal <= hand:
                raise BalanceError(f"hook legal gave {sorted(legal)} for the hand {sorted(hand)}")
            return (legal - r.withheld) or legal
        legal = set(hand)
        if not played:
            lead = [c for c in hand if self.card(c).name == r.first_lead_card]
            if first_trick and lead:
                return set(lead[:1])
            if r.unbroken_suit is not None and not self.broken:
                others = {c for c in hand if self.card(c).suit != r.unbroken_suit}
                legal = others or legal
        else:
            if r.follow_suit:
                led = self.card(played[0]).suit
                follows = {c for c in hand if self.card(c).suit == led}
                trumps = {c for c in hand if self.card(c).suit == self.trump}
                if follows:
                    legal = follows
                elif r.void_trump and trumps:
                    legal = trumps
            if r.must_beat:
                beating = {c for c in legal if self.winner_of(played + [c]) == len(played)}
                legal = beating or legal
        if first_trick and r.first_trick_no_points:
            legal = {c for c in legal if self.card(c).points == 0} or legal
        if r.withheld:
            legal = (legal - r.withheld) or legal
        return legal

    def decide(self, at: str, leader: int, winner: int, played: list[int]) -> int:
        """The designer's decisions arising ``at`` ("before-bidding", "before-play", "after-card",
        "after-trick"; after a card ``winner`` is its player): each seat asked in turn whose
        decision_options hook offers it any option chooses, and decision_apply carries the choice
        out on the table (its trump, next leader and counters read back); returns who leads next
        (``leader`` unless a decision said otherwise; after a card the next leader waits for the
        trick's end)."""
        r = self.rules
        rules, deck, masks = r.arrays
        choices = self.trick_choices[-1] if at in ("after-card", "after-trick") else {}
        for d, (name, when, who, _) in enumerate(r.decisions):
            if when != at:
                continue
            if who == "chance":
                self.draw(d, name, at, played, choices)
                continue
            if who == "each":
                seats = [(self.dealer + 1 + j) % r.players for j in range(r.players)]
            else:
                seats = [{"dealer": self.dealer, "leader": leader, "winner": winner, "player": winner}[who]]
            if at == "after-trick":
                choices[name] = None
            for seat in seats:
                if seat in self.out:
                    continue  # sitting the round out
                held = 0
                for c in self.hands[seat]:
                    held |= 1 << c
                mask = int(self.asked("decision_options", d, seat, np.uint64(held), self.table(played), rules, deck,
                                      masks))
                legal = {k for k in range(64) if mask >> k & 1}
                if not legal:
                    continue
                if max(legal) >= r.decisions[d][3]:
                    raise BalanceError(f"hook decision_options gave option {max(legal)} of decision '{name}', "
                                       f"which has {r.decisions[d][3]}")
                choice = self.decider.decide(seat, d, frozenset(self.hands[seat]), frozenset(legal), self)
                table = self.table(played)
                hands = self.hands_array()
                r.hooks["decision_apply"](d, seat, choice, hands, table, rules, deck, masks)
                self.read_back(table, hands)
                if at in ("before-bidding", "before-play"):
                    self.chosen[name][seat] = choice
                else:
                    choices[name] = choice
        if at == "after-card":
            return leader
        if self.next_leader >= 0:
            if self.next_leader >= r.players:
                raise BalanceError(f"hook decision_apply named seat {self.next_leader} to lead: no such seat")
            leader, self.next_leader = self.next_leader, -1
        return self.in_play(leader)

    def draw(self, d: int, name: str, at: str, played: list[int], choices: dict) -> None:
        """A decision of chance: one of the options the hook offers, drawn from the deal's stream
        (none drawn when it offers one); a script gives it like any other choice."""
        r = self.rules
        rules, deck, masks = r.arrays
        stock = np.uint64(sum(1 << c for c in self.stock))  # a decision of chance is handed the stock
        mask = int(self.asked("decision_options", d, -1, stock, self.table(played), rules, deck, masks))
        legal = sorted(k for k in range(64) if mask >> k & 1)
        if not legal:
            return
        if getattr(self.decider, "has_next", lambda: False)():
            choice = self.decider.decide(-1, d, frozenset(), frozenset(legal), self)
        elif len(legal) == 1:
            choice = legal[0]
        else:
            choice = legal[self.stream.below(len(legal))]
        table = self.table(played)
        hands = self.hands_array()
        r.hooks["decision_apply"](d, -1, choice, hands, table, rules, deck, masks)
        self.read_back(table, hands)
        if at in ("before-bidding", "before-play"):
            self.chosen[name][0] = choice  # kept as the first seat's, as the play loop keeps it
        else:
            choices[name] = choice

    def suit_of(self, c: int) -> str:
        """The suit card ``c`` follows and wins as: the ``suit_of`` hook's (a bower belongs to
        trump), else the printed one."""
        r = self.rules
        if "suit_of" not in r.hooks:
            return self.card(c).suit
        trump = r.suits.index(self.trump) if self.trump is not None else -1
        return r.suits[int(r.hooks["suit_of"](c, trump, r.arrays[1]))]

    def asked(self, hook: str, *args):
        """A hook that answers a question (``decision_options``, ``legal``): it may read the table,
        not change it (only decision_apply carries a choice out); a change is one line naming it."""
        table = next(a for a in args if isinstance(a, np.ndarray) and a.dtype == np.int64 and a.ndim == 1)
        before = table.copy()
        answer = self.rules.hooks[hook](*args)
        changed = np.flatnonzero(table != before)
        if changed.size:
            raise BalanceError(f"hook {hook} changed table[{int(changed[0])}]: only decision_apply may change the "
                               "table (a question's hook reads it)")
        return answer

    def in_play(self, seat: int) -> int:
        """``seat``, or the first seat after it that does not sit the round out."""
        while seat in self.out:
            seat = (seat + 1) % self.rules.players
        return seat

    def hands_array(self):
        """The cards where a decision_apply hook is handed them: each hand, then what each seat put out of play."""
        from simcore.games.trick import rules as tr

        hands = np.zeros(tr.HANDS_WIDTH, dtype=np.uint64)
        for s in range(self.rules.players):
            hands[s] = np.uint64(sum(1 << c for c in self.hands[s]))
            hands[tr.MAX_PLAYERS + s] = np.uint64(sum(1 << c for c in self.put_out[s]))
        hands[tr.H_STOCK] = np.uint64(sum(1 << c for c in self.stock))
        return hands

    def read_back(self, table, hands) -> None:
        """What a decision_apply hook wrote on the table: the trump, the next leader, the counters;
        and where it moved cards (moves.py): the hands, the upcard, what each seat knows, who sits out."""
        from simcore.games.trick import rules as tr

        n = len(self.rules.deck)
        for s in range(self.rules.players):
            self.hands[s] = {c for c in range(n) if int(hands[s]) >> c & 1}
            self.put_out[s] = {c for c in range(n) if int(hands[tr.MAX_PLAYERS + s]) >> c & 1}
            known = int(np.int64(table[tr.T_KNOWN + s]).astype(np.uint64))
            self.known[s] = {c for c in range(n) if known >> c & 1}
        self.out = {s for s in range(self.rules.players) if int(table[tr.T_OUT]) >> s & 1}
        self.stock = {c for c in range(n) if int(hands[tr.H_STOCK]) >> c & 1}
        up = int(table[tr.T_TRUMP_CARD])
        self.trump_card = up if up >= 0 else None

        trump = int(table[tr.T_TRUMP])
        self.trump = self.rules.suits[trump] if trump >= 0 else None
        self.next_leader = int(table[tr.T_NEXT_LEADER])
        self.counters = [int(x) for x in table[tr.T_COUNTER:tr.T_COUNTER + tr.N_TABLE_COUNTERS]]
        self.seat_counters[:] = [int(x) for x in table[tr.T_SEAT_COUNTER:tr.T_SEAT_COUNTER + len(self.seat_counters)]]

    def play_tricks(self):
        r = self.rules
        leader = self.first_leader()
        if r.decisions:
            self.at = (0, leader)
            leader = self.decide("before-play", leader, -1, [])
            self.trump_called = self.trump  # what the log shows as the round's trump
        phases = {at for _, at, _, _ in r.decisions}
        for t in range(r.hand_size):
            played = []
            seats = []  # who played each card (a seat sitting out plays none)
            self.at = (t, leader)  # what the play loop's table says of the trick: T_TRICK, T_LEADER
            self.trick_choices.append({})
            for i in range(r.players):
                seat = (leader + i) % r.players
                if seat in self.out:
                    continue
                legal = self.legal(seat, played, t == 0)
                c = self.decider.play(seat, frozenset(self.hands[seat]), frozenset(legal), self)
                self.hands[seat].discard(c)
                self.known[seat].discard(c)
                played.append(c)
                seats.append(seat)
                card = self.card(c)
                if r.unbroken_suit is not None and (card.suit == r.unbroken_suit or card.named(r.breaking_cards)):
                    self.broken = True
                if "after-card" in phases:  # a card's power: its player decides
                    self.decide("after-card", leader, seat, played)
            position = self.winner_of(played)
            winner = seats[position]
            if "trick_points" in r.hooks:
                rules, deck, masks = r.arrays
                points = int(r.hooks["trick_points"](self.table(played), len(played), deck, masks, rules))
            else:
                points = sum(self.card(c).points for c in played)
            if self.trump is not None and self.suit_of(played[0]) != self.trump and \
                    self.suit_of(played[position]) == self.trump:
                self.trumped += 1
            self.reversed += any(self.card(c).named(r.reverse_if_played) for c in played)
            self.won[winner] += 1
            self.taken[winner] |= set(played)
            self.points[winner] += points
            by_seat = [None] * r.players  # the log's cards: by seat from the leader, None for one sitting out
            for seat, c in zip(seats, played):
                by_seat[(seat - leader) % r.players] = self.card(c).name
            names = by_seat if self.out else [self.card(c).name for c in played]
            self.tricks.append(Trick(self.round, t, leader, names, winner, points))
            self.record.append((leader, winner, list(played)))
            if "next_leader" in r.hooks:  # the designer says who leads next (the winner otherwise)
                rules, deck, masks = r.arrays
                leader = int(r.hooks["next_leader"](self.table(played), winner, deck, masks, rules))
                if not 0 <= leader < r.players:
                    raise BalanceError(f"hook next_leader gave seat {leader}: no such seat ({r.players} players)")
            else:
                leader = winner
            leader = self.in_play(leader)
            if r.decisions and t + 1 < r.hand_size:
                leader = self.decide("after-trick", leader, winner, played)
            elif self.next_leader >= 0:  # named after a card of the last trick: nothing follows
                self.next_leader = -1

    def scores(self) -> tuple[list[int], int, int]:
        """(each seat's score for the round, 1 if a seat shot the moon, the exact bids)."""
        r = self.rules
        card_points = list(self.points)
        moons = 0
        if r.moon:
            point_cards = {c for taken in self.taken for c in taken if self.card(c).points != 0}
            for seat, taken in enumerate(self.taken):
                if point_cards and point_cards <= taken:
                    total = sum(card_points)
                    card_points = [0 if s == seat else total for s in range(r.players)]
                    moons = 1
                    break
        out = []
        exact = 0
        for s in range(r.players):
            score = r.base + r.per_trick * self.won[s] + card_points[s]
            if r.bidding:
                if self.bids[s] == self.won[s]:
                    exact += 1
                if self.bids[s] == 0 and r.nil:  # a nil bid: all or nothing, in place of the bid's score
                    score += r.nil if self.won[s] == 0 else -r.nil
                elif self.bids[s] == self.won[s]:
                    score += r.exact_bid
                else:
                    score -= r.off_bid_per_trick * abs(self.bids[s] - self.won[s])
            out.append(score)
        if r.teams:  # a team scores together: its seats' scores added up, for each of them
            out = [sum(out[t] for t in team) for team in (r.team_of(s) for s in range(r.players))]
        if "score_round" in r.hooks:  # the designer's scoring, handed the keys' scores and the round's tricks
            rules, deck, masks = r.arrays
            scores = np.array(out, dtype=np.int64)
            r.hooks["score_round"](self.table([]), r.hand_size, deck, masks, rules, scores)
            out = [int(x) for x in scores]
            limit = SCORE_LIMIT // r.rounds
            if r.teams and any(out[s] != out[t] for s in range(r.players) for t in r.team_of(s)):
                raise BalanceError(f"hook score_round gave {out}: partners must be left one score")
            if any(abs(x) > limit for x in out):
                raise BalanceError(f"hook score_round gave {out}: a round's score is at most ±{limit:,}")
        return out, moons, exact

    def play(self):
        self.do_pass()
        if any(at == "before-bidding" for _, at, _, _ in self.rules.decisions):
            self.at = (0, self.in_play((self.dealer + 1) % self.rules.players))
            self.decide("before-bidding", self.at[1], -1, [])
        self.do_bids()
        self.play_tricks()
        out = self.scores()
        self.events = [0] * len(self.rules.event_columns)
        if "count_events" in self.rules.hooks:  # the designer's events, from the round's record
            rules, deck, masks = self.rules.arrays
            counts = np.zeros(len(self.rules.event_columns), dtype=np.int64)
            self.rules.hooks["count_events"](self.table([]), self.rules.hand_size, deck, masks, rules, counts)
            self.events = [int(x) for x in counts]
        return out

    def summary(self, dealt: list[set[int]]) -> dict:
        extra = {"decisions": self.chosen} if self.rules.decisions else {}
        return {**extra, "round": self.round, "dealer": self.dealer,
                "hands": [[self.card(c).name for c in sorted(h)] for h in dealt],
                "trump_card": self.card(self.upcard_dealt).name if self.upcard_dealt is not None else None,
                "trump": (self.trump if self.rules.trump_kind == "bid-winner"
                          else getattr(self, "trump_called", None) if self.rules.decisions else None),
                "pass_offset": (self.rules.pass_to(self.direction, 0) if self.rules.pass_cards else 0),
                "passes": self.passes, "bids": list(self.bids) if self.rules.bidding else []}


def shares_of(totals: list[int], lowest_wins: bool) -> list[float]:
    best = min(totals) if lowest_wins else max(totals)
    tied = totals.count(best)
    return [1.0 / tied if t == best else 0.0 for t in totals]


def deal(rules: Rules, stream: PyStream) -> tuple[list[set[int]], int | None]:
    """Shuffle (Fisher–Yates from the top) and deal hand_size cards to each seat in turn of the
    shuffled order; the next card is turned up for a turned-up trump."""
    order = list(range(len(rules.deck)))
    aside = None
    if isinstance(rules.upcard, str):  # a card set aside face up before the shuffle: the last place is its
        aside = next(c.index for c in rules.deck if c.name == rules.upcard)
        order[aside], order[-1] = order[-1], order[aside]
        order.pop()
    for i in range(len(order) - 1, 0, -1):
        j = stream.below(i + 1)
        order[i], order[j] = order[j], order[i]
    h = rules.hand_size
    hands = [set(order[s * h:(s + 1) * h]) for s in range(rules.players)]
    trump_card = None
    if rules.trump_kind == "turned-up" or rules.upcard:
        trump_card = aside if aside is not None else order[rules.players * h]
    return hands, trump_card


def play_game(rules: Rules, seed: int, index: int, decider=None) -> Record:
    """Game ``index`` of run ``seed``: random players (the seats' own streams) unless ``decider``."""
    stream, rotation = deal_stream(seed, index, rules.players), py_deal_and_rotation(index, rules.players)[1]
    decider = decider or RandomDecider(seat_play_streams(seed, index, rules.players))
    record = Record(rules.players)
    totals = [0] * rules.players
    counters = {"leads_won": 0, "trumped_tricks": 0, "reversed_tricks": 0, "moons": 0, "exact_bids": 0,
                "rounds_played": 0, "tricks_played": 0, "bids_made": 0, "capped": 0,
                **{column: 0 for column in rules.event_columns}}
    # the first dealer: drawn, or the seat that makes seat 1 (seat 0) lead the first trick
    if rules.random_dealer:
        dealer = stream.below(rules.players)
    else:
        dealer = rules.players - 1 if rules.lead in ("left-of-dealer", "bid-winner") else 0
    game_rules = rules
    from simcore.games.trick.rules import MAX_PLAYERS, SEAT_COUNTERS

    seat_counters = [0] * (MAX_PLAYERS * SEAT_COUNTERS)  # the designer's, kept through the game
    for r in range(game_rules.rounds):
        rules = dealt_by_hook(game_rules.for_round(r), r, totals)
        hands, trump_card = deal(rules, stream)
        hands = rotate_list(hands, rotation)  # a duplicate deal's turn of the table (simcore/rng.py)
        direction = "none"
        if rules.pass_cards:
            directions = rules.pass_directions
            direction = directions[stream.below(len(directions))] if rules.pass_random else directions[r % len(directions)]
        rnd = Round(rules, hands, dealer, trump_card, direction, decider, r, totals, seat_counters, stream)
        scores, moons, exact = rnd.play()
        record.rounds.append(rnd.summary(hands))
        if rules.decisions:  # each trick's choices after its cards and after it, as the play loop logs them
            for trick, choices in zip(rnd.tricks, rnd.trick_choices + [{}] * len(rnd.tricks)):
                trick.decisions = {name: choices.get(name) for name, at, _, _ in rules.decisions
                                   if at in ("after-card", "after-trick")}
        record.tricks += rnd.tricks
        totals = [a + b for a, b in zip(totals, scores)]
        counters["moons"] += moons
        counters["exact_bids"] += exact
        counters["trumped_tricks"] += rnd.trumped
        counters["leads_won"] += sum(t.winner == t.leader for t in rnd.tricks)
        counters["reversed_tricks"] += rnd.reversed
        counters["rounds_played"] += 1
        counters["tricks_played"] += len(rnd.tricks)
        counters["bids_made"] += rules.players if rules.bidding else 0
        for column, count in zip(rules.event_columns, rnd.events):  # the hooks module's EVENTS
            counters[column] = counters.get(column, 0) + count
        if rules.target is not None and max(totals) >= rules.target:
            break  # a total reached game.target: the game ends after this round
        if rules.target is not None and r == rules.rounds - 1:
            counters["capped"] = 1  # the most rounds the game may last, and no total at the target
        dealer = (dealer + 1) % rules.players
    record.scores = totals
    record.shares = shares_of(totals, rules.lowest_wins)
    record.counters = counters
    return record


def dealt_by_hook(rules: Rules, r: int, totals: list[int]) -> Rules:
    """The rules of round ``r`` with the hand a ``hand_size`` hook deals (at most the round's
    deal.hand_size), the scores so far in ``totals``; as they are without the hook."""
    if "hand_size" not in rules.hooks:
        return rules
    import dataclasses

    from simcore.games.trick import rules as tr

    arrays = rules.arrays[0]
    round_rules = np.zeros_like(arrays)
    tr.rules_of_round.py_func(arrays, r, round_rules)
    scores = np.zeros(tr.MAX_PLAYERS, dtype=np.int64)
    scores[:len(totals)] = totals
    size = int(rules.hooks["hand_size"](r, scores, round_rules))
    if not 1 <= size <= rules.hand_size:
        raise BalanceError(f"hook hand_size gave {size} cards for round {r + 1}: from 1 to that round's "
                           f"deal.hand_size, {rules.hand_size}")
    return dataclasses.replace(rules, hand_size=size)


def play_round(rules: Rules, hands: list[set[int]], dealer: int, trump_card: int | None, direction: str,
               script, then=None) -> tuple[Round, list[int]]:
    """One round from a given deal with scripted decisions (deck indices for cards, numbers for
    bids): the round and its scores.  A decision the rules refuse raises BalanceError."""
    rules = dealt_by_hook(rules, 0, [0] * rules.players)
    rnd = Round(rules, hands, dealer, trump_card, direction, Scripted(script, then))
    scores, _, _ = rnd.play()
    return rnd, scores
