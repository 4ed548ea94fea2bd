"""Trick-taking games from a rules file: state encoding and the rules every such game shares
(compiled).  The rules file (``rulesfile.py``, docs/rules-files.md) becomes data, never code: one
compiled play loop plays every rules file, so a new file or an edited one compiles nothing.

Encoding
--------
The cards in play at a player count are numbered by *deck index*, suit by suit in the file's
order, low rank first (copies side by side); a hand is a uint64 with bit i set for card i.

    cards[C_SUIT, i]     suit of card i (0 = the file's first suit)
    cards[C_RANK, i]     its rank's position in deck.ranks (higher beats lower)
    cards[C_POINTS, i]   its points when taken in a trick (scoring.card_points)
    masks[M_SUIT + k]    the cards of suit k
    masks[M_POINTS]      the cards with points (other than 0)
    masks[M_BREAKING]    cards that break the unbroken suit when played (play.breaking_cards)
    masks[M_ALWAYS_WINS] cards that take the trick whatever else is played (trick.always_wins)
    masks[M_REVERSING]   cards that make the lowest rank win the trick (trick.reverse_if_played)
    masks[M_RANK + r]    the cards of rank r (a hook's "follow the suit or the rank")

``rules`` is an int64 vector of the rules in force (R_* slots).  ``table`` is the public state a
strategy may read (T_* slots):

    T_ROUND, T_TRICK, T_LEADER, T_NPLAYED, T_DEALER
    T_TRUMP              trump suit of this round, -1 for none
    T_TRUMP_CARD         the turned-up card (public), -1 for none
    T_BROKEN             1 once the unbroken suit (play.unbroken_suit) is broken
    T_PASS_OFFSET        this round's pass: seat s gives to seat s + offset (0: no pass)
    T_PLAY + i           deck index of the i-th card of the trick
    T_BID + s            seat s's bid this round (-1: not yet, or no bidding)
    T_WON + s            tricks seat s has won this round
    T_POINTS + s         card points seat s has taken this round
    T_TOTAL + s          seat s's score from earlier rounds
    T_VOID + s           suits seat s has shown it holds none of (bit k = suit k): it did not follow
    T_RECORD + t * RECORD_WIDTH + K_*   trick t of this round once it is over (-1 before): its leader
                         (K_LEADER), winner (K_WINNER) and cards in play order (K_CARD + i).  Kept
                         only in a build with hooks (a hook may read the round so far; the
                         ``score_round`` hook scores it); the stock loop leaves it -1.
    T_SCRATCH + s        no state: where the heuristic asks what a round would score (strategies/trick.py)
    T_OUT                the seats sitting this round out (bit s = seat s: a lone maker's partner);
                         they play no card, and T_PLAY / K_CARD hold the cards of the seats in play
    T_KNOWN + s          the cards every seat knows seat s holds (a face-up card it took), a mask
    T_HELD + s           how many cards seat s holds now

A decision's effect (the ``decision_apply`` hook) moves cards only through simcore/games/trick/moves.py,
which keeps each seat's knowledge: ``hands[MAX_PLAYERS + s]`` holds the cards seat s knows are out of
play (its own discards), handed to its players with what they have seen and to no other seat's;
``hands[H_STOCK]`` the undealt cards face down (the stock), handed to a decision of chance as its hand.
"""
import numpy as np

from simcore.bits import bit, lowest_index
from simcore.jit import kernel

MAX_PLAYERS = 8
MAX_DECK = 64
MAX_SUITS = 16
MAX_PASS = 16
MAX_DIRECTIONS = 8

# card fields
C_SUIT, C_RANK, C_POINTS = range(3)
N_CARD_FIELDS = 3

# masks
M_SUIT = 0
M_POINTS = MAX_SUITS
M_BREAKING = MAX_SUITS + 1
M_ALWAYS_WINS = MAX_SUITS + 2  # trick.always_wins: the first of them played takes the trick
M_REVERSING = MAX_SUITS + 3  # trick.reverse_if_played: lowest wins instead of highest (or back)
M_RANK = MAX_SUITS + 4  # + r: the cards of rank r (the r-th of deck.ranks), for a hook's follow rule
MAX_RANK_MASKS = 64
N_MASKS = M_RANK + MAX_RANK_MASKS

# rules vector
(R_PLAYERS, R_DECK, R_HAND, R_SUITS, R_ROUNDS, R_LOWEST_WINS, R_RANDOM_DEALER, R_REVEALED, R_PASS_CARDS,
 R_PASS_RANDOM, R_PASS_N) = range(11)
R_PASS_OFFSET = 11  # + direction: the pass offsets in the file's order
(R_TRUMP_KIND, R_TRUMP_SUIT, R_BIDDING, R_LAST_BID, R_LEAD, R_FIRST_LEAD_CARD, R_FOLLOW, R_VOID_TRUMP,
 R_MUST_BEAT, R_UNBROKEN, R_FIRST_NO_POINTS, R_BASE, R_PER_TRICK, R_EXACT, R_OFF, R_MOON, R_LOWEST_RANK_WINS,
 R_FIRST_DEALER, R_TARGET_ON, R_TARGET, R_WITHHELD, R_NIL, R_TRUMP_CHOICES) = range(
    R_PASS_OFFSET + MAX_DIRECTIONS, R_PASS_OFFSET + MAX_DIRECTIONS + 23)
R_TEAMS = R_TRUMP_CHOICES + 1  # game.teams: how many teams (0: every seat plays for itself)
R_TEAM = R_TEAMS + 1  # + seat: the team of seat s (0 = the team of game.teams' first list)
R_ROUNDS_ALIKE = R_TEAM + MAX_PLAYERS  # 1 when every round has the same hand size and trump: no copy a round
MAX_DECISIONS = 4  # [[decision]] tables of a rules file
R_DECISIONS = R_ROUNDS_ALIKE + 1  # how many
R_DECISION_AT = R_DECISIONS + 1  # + d: when decision d arises (AT_*)
R_DECISION_WHO = R_DECISION_AT + MAX_DECISIONS  # + d: who makes it (WHO_*)
AT_BEFORE_PLAY, AT_AFTER_TRICK, AT_BEFORE_BIDDING, AT_AFTER_CARD = 1, 2, 3, 4
WHO_EACH, WHO_DEALER, WHO_LEADER, WHO_WINNER, WHO_CHANCE = 0, 1, 2, 3, 4
WHO_PLAYER = WHO_WINNER  # after a card, its player: handed where a trick's winner is
R_DECISION_CARDS = R_DECISION_WHO + MAX_DECISIONS  # + d: 1 when its options are the deck's cards
# the slots above hold for every round; the play loop gives each round a copy of them with R_HAND
# (that round's hand) and R_TRUMP_KIND (none in a round of trump.none_in_rounds) set from these:
# deal.upcard: 0 none, 1 the card after the deal turned face up, 2 + k card k set aside face up before the shuffle
R_UPCARD = R_DECISION_CARDS + MAX_DECISIONS
UPCARD_DEALT, UPCARD_SET_ASIDE = 1, 2
N_ROUND_RULES = R_UPCARD + 1
MAX_ROUNDS = 255
R_HANDS = N_ROUND_RULES  # + round: its hand size (deal.hand_size); R_HAND: the largest of them
R_NO_TRUMP = R_HANDS + MAX_ROUNDS  # + round: 1 where it has no trump
N_RULES = R_NO_TRUMP + MAX_ROUNDS

TRUMP_NONE, TRUMP_FIXED, TRUMP_TURNED_UP, TRUMP_BID_WINNER = 0, 1, 2, 3
LEAD_LEFT_OF_DEALER, LEAD_DEALER, LEAD_HOLDER, LEAD_BID_WINNER = 0, 1, 2, 3

# public table
T_ROUND, T_TRICK, T_LEADER, T_NPLAYED, T_DEALER, T_TRUMP, T_TRUMP_CARD, T_BROKEN, T_PASS_OFFSET = range(9)
T_PLAY = 9
T_BID = T_PLAY + MAX_PLAYERS
T_WON = T_BID + MAX_PLAYERS
T_POINTS = T_WON + MAX_PLAYERS
T_TOTAL = T_POINTS + MAX_PLAYERS
T_VOID = T_TOTAL + MAX_PLAYERS
T_RECORD = T_VOID + MAX_PLAYERS
MAX_TRICKS = MAX_DECK // 2  # two players at least, one deck of at most 64 cards
K_LEADER, K_WINNER, K_CARD = 0, 1, 2
RECORD_WIDTH = K_CARD + MAX_PLAYERS
T_SCRATCH = T_RECORD + MAX_TRICKS * RECORD_WIDTH  # + seat: room for a player's what-if round scores
# the designer's decisions ([[decision]]): what their decision_apply hook may set, all public
T_NEXT_LEADER = T_SCRATCH + MAX_PLAYERS  # the seat to lead the next trick (-1: as the rules say)
N_TABLE_COUNTERS = 8
T_COUNTER = T_NEXT_LEADER + 1  # + k: the round's own counters (0 at each round's start)
SEAT_COUNTERS = 4
T_SEAT_COUNTER = T_COUNTER + N_TABLE_COUNTERS  # + seat * SEAT_COUNTERS + k: each seat's, kept all game
T_OUT = T_SEAT_COUNTER + MAX_PLAYERS * SEAT_COUNTERS  # the seats sitting the round out (a mask)
T_KNOWN = T_OUT + 1  # + seat: the cards every seat knows it holds (a mask, as int64)
T_HELD = T_KNOWN + MAX_PLAYERS  # + seat: how many cards it holds
TABLE_WIDTH = T_HELD + MAX_PLAYERS
H_STOCK = 2 * MAX_PLAYERS  # hands[H_STOCK]: the undealt cards, face down
HANDS_WIDTH = H_STOCK + 1  # each seat's hand, the cards each knows are out of play (moves.py), the stock

# per-game counters of the rules' events
C_LEADS_WON, C_TRUMPED, C_REVERSED, C_MOONS, C_EXACT_BIDS, C_ROUNDS, C_TRICKS, C_BIDS, C_CAPPED = range(9)
# rounds, tricks and bids played: a game played to a target lasts a varying number of them, and
# the events' rates per trick, round or bid count them (metadata unit_columns); ``capped``: a game
# played to game.target that stopped after game.rounds rounds with no total at the target
COUNTER_NAMES = ("leads_won", "trumped_tricks", "reversed_tricks", "moons", "exact_bids", "rounds_played",
                 "tricks_played", "bids_made", "capped")
MAX_HOOK_EVENTS = 4  # the events a hooks module may declare (EVENTS), counted by its count_events hook
C_HOOK_EVENTS = 9  # + k: the k-th of them
N_COUNTERS = C_HOOK_EVENTS + MAX_HOOK_EVENTS

# one log row per trick
L_ROUND, L_TRICK, L_LEADER = range(3)
L_CARD = 3
L_WINNER = L_CARD + MAX_PLAYERS
L_POINTS = L_WINNER + 1
L_DECIDED = L_POINTS + 1  # + d: the choice made in after-trick (or the last in after-card) decision d (-1: none)
LOG_WIDTH = L_DECIDED + MAX_DECISIONS
# one row per round: what was dealt and decided before the first trick
I_DEALER, I_TRUMP_CARD, I_PASS_OFFSET, I_TRUMP = range(4)  # I_TRUMP: the suit the bid winner chose
I_BID = 4
I_PASSED = I_BID + MAX_PLAYERS  # + seat * MAX_PASS + k
I_CHOSEN = I_PASSED + MAX_PLAYERS * MAX_PASS  # + d * MAX_PLAYERS + seat: before-bidding/-play decision d (-1: not asked)
ROUND_WIDTH = I_CHOSEN + MAX_DECISIONS * MAX_PLAYERS

# a scripted decision's kind (scenarios and the OpenSpiel check give the decisions in this order:
# every seat's passes, seat 0 first; the bids in bidding order; the bid winner's trump (a suit
# index) under trump.kind = "bid-winner"; the cards in play order)
PASS, BID, PLAY = 0, 1, 2


@kernel(globals(), inline="always")
def card_at(table, i, n_played, candidate):
    """The i-th card of the trick: the table's, or ``candidate`` as if played next (i == n_played)."""
    return candidate if i == n_played else table[T_PLAY + i]


# a call, not inlined: the play loop asks it in two places (and must_beat in a third), and one
# compiled copy saves seconds of the first compile for a call per trick
@kernel(globals(), refcounts=False)
def winner_of_trick(table, n_played, candidate, cards, masks, rules, trump):
    """Position (in play order) of the card that wins the trick's first n_played cards, plus
    ``candidate`` after them when it is a card (>= 0): a strategy asks "would this card take it?"
    without writing to the table.

    The first card of trick.always_wins played wins outright; otherwise a trump beats every card
    of another suit, the led suit beats the rest, and within the winning suit the highest rank
    wins (the lowest with trick.winner = "lowest"; a card of trick.reverse_if_played in the trick
    turns that around); the earlier of two equal copies wins."""
    m = n_played + (1 if candidate >= 0 else 0)
    lowest = rules[R_LOWEST_RANK_WINS] != 0
    for i in range(m):
        c = card_at(table, i, n_played, candidate)
        if (masks[M_ALWAYS_WINS] >> np.uint64(c)) & np.uint64(1) != 0:
            return i
        if (masks[M_REVERSING] >> np.uint64(c)) & np.uint64(1) != 0:
            lowest = rules[R_LOWEST_RANK_WINS] == 0
    best = 0
    best_card = card_at(table, 0, n_played, candidate)
    for i in range(1, m):
        c = card_at(table, i, n_played, candidate)
        suit = cards[C_SUIT, c]
        best_suit = cards[C_SUIT, best_card]
        if suit == best_suit:
            better = cards[C_RANK, c] < cards[C_RANK, best_card] if lowest else cards[C_RANK, c] > cards[C_RANK, best_card]
        else:
            better = suit == trump
        if better:
            best = i
            best_card = c
    return best


@kernel(globals(), inline="always")
def legal_plays(hand, table, rules, cards, masks, first_trick):
    """The cards of ``hand`` the rules allow now (table[T_NPLAYED] cards of the trick played)."""
    n_played = table[T_NPLAYED]
    legal = hand
    if n_played == 0:
        lead_card = rules[R_FIRST_LEAD_CARD]
        if first_trick and lead_card >= 0 and (hand >> np.uint64(lead_card)) & np.uint64(1) != 0:
            return bit(lead_card)  # the holder of play.first_lead_card leads it
        unbroken = rules[R_UNBROKEN]
        if unbroken >= 0 and table[T_BROKEN] == 0:
            others = hand & ~masks[M_SUIT + unbroken]
            if others != 0:
                legal = others
    else:
        trump = table[T_TRUMP]
        if rules[R_FOLLOW] != 0:
            follows = hand & masks[M_SUIT + cards[C_SUIT, table[T_PLAY]]]
            if follows != 0:
                legal = follows
            elif rules[R_VOID_TRUMP] != 0 and trump >= 0 and hand & masks[M_SUIT + trump] != 0:
                legal = hand & masks[M_SUIT + trump]
        if rules[R_MUST_BEAT] != 0:
            winners = np.uint64(0)
            m = legal
            while m != 0:
                c = lowest_index(m)
                m &= m - np.uint64(1)
                if winner_of_trick(table, n_played, c, cards, masks, rules, trump) == n_played:
                    winners |= bit(c)
            if winners != 0:
                legal = winners
    if first_trick and rules[R_FIRST_NO_POINTS] != 0:
        plain = legal & ~masks[M_POINTS]
        if plain != 0:
            legal = plain
    return legal


@kernel(globals(), inline="always")
def trick_points(table, n_played, cards, masks, rules):
    """The points the trick's winner takes: the sum of the cards' points (scoring.card_points)."""
    points = 0
    for i in range(n_played):
        points += cards[C_POINTS, table[T_PLAY + i]]
    return points


@kernel(globals(), inline="always")
def legal_bids(rules, table, n_players, bids_made, hand_size):
    """Bids allowed now as a mask (bit b = bid b): 0..hand_size, and for the last bidder under
    bidding.last_bidder_may_not_make_total, not the bid that makes the bids add up to the tricks."""
    legal = (bit(hand_size + 1) - np.uint64(1)) if hand_size < 63 else ~np.uint64(0)
    if rules[R_LAST_BID] != 0 and bids_made == n_players - 1:
        total = 0
        for s in range(n_players):
            if table[T_BID + s] >= 0:
                total += table[T_BID + s]
        forbidden = hand_size - total
        if 0 <= forbidden <= hand_size:
            legal &= ~bit(forbidden)
    return legal


@kernel(globals(), inline="always")
def round_scores(table, rules, n_players, moon_seat, out, at):
    """Each seat's score for the round into ``out[at + s]``: base + per trick + card points + the bid's
    bonus or penalty (a bid of 0 under scoring.nil: + nil when no trick was taken, - nil else, in
    their place); a seat that took every card with points (``moon_seat`` >= 0, scoring.moon)
    scores none of them and every other seat scores them all."""
    moon_points = 0
    for s in range(n_players):
        moon_points += table[T_POINTS + s]
    for s in range(n_players):
        won = table[T_WON + s]
        points = table[T_POINTS + s]
        if moon_seat >= 0:
            points = 0 if s == moon_seat else moon_points
        score = rules[R_BASE] + rules[R_PER_TRICK] * won + points
        bid = table[T_BID + s]
        if rules[R_BIDDING] != 0 and bid >= 0:
            if bid == 0 and rules[R_NIL] != 0:
                score += rules[R_NIL] if won == 0 else -rules[R_NIL]
            elif bid == won:
                score += rules[R_EXACT]
            else:
                score -= rules[R_OFF] * abs(bid - won)
        out[at + s] = score


@kernel(globals(), inline="always")
def team_scores(rules, n_players, out, at):
    """game.teams: each seat's round score in ``out[at + s]`` becomes its team's, the partners'
    scores added up (a team scores, and wins, together)."""
    if rules[R_TEAMS] == 0:
        return
    # in place, no array made (the play loop is compiled without reference counts): each team's
    # lowest seat first gathers its partners' scores, then hands the sum back to them
    for s in range(n_players):
        first = team_leader(rules, s)
        if first != s:
            out[at + first] += out[at + s]
    for s in range(n_players):
        first = team_leader(rules, s)
        if first != s:
            out[at + s] = out[at + first]


@kernel(globals(), inline="always")
def team_leader(rules, seat):
    """The lowest seat of ``seat``'s team (``seat`` itself without teams)."""
    if rules[R_TEAMS] == 0:
        return seat
    for s in range(seat):
        if rules[R_TEAM + s] == rules[R_TEAM + seat]:
            return s
    return seat


@kernel(globals(), inline="always")
def partners_agree(rules, n_players, out, at):
    """Whether every team's seats hold one score (what a score_round hook must leave)."""
    if rules[R_TEAMS] == 0:
        return True
    for s in range(n_players):
        for t in range(s + 1, n_players):
            if rules[R_TEAM + s] == rules[R_TEAM + t] and out[at + s] != out[at + t]:
                return False
    return True


@kernel(globals(), inline="always")
def same_team(rules, a, b):
    """Whether seats ``a`` and ``b`` play for one team (a seat is its own team without teams)."""
    if rules[R_TEAMS] == 0:
        return a == b
    return rules[R_TEAM + a] == rules[R_TEAM + b]


@kernel(globals(), inline="always")
def rules_of_round(rules, r, out):
    """``out``: the rules in force in round ``r``, the game's with this round's hand size and trump."""
    for i in range(N_ROUND_RULES):
        out[i] = rules[i]
    out[R_HAND] = rules[R_HANDS + r]
    if rules[R_NO_TRUMP + r] != 0:
        out[R_TRUMP_KIND] = TRUMP_NONE


@kernel(globals(), inline="always")
def printed_suit(card, trump, cards):
    """Without a ``suit_of`` hook a card belongs to the suit printed on it."""
    return cards[C_SUIT, card]


@kernel(globals(), inline="always")
def dealt_as_keyed(round_index, totals, rules):
    """Without a ``hand_size`` hook each round deals its deal.hand_size (0: no change here)."""
    return 0


@kernel(globals(), inline="always")
def no_options(decision, seat, hand, table, rules, cards, masks):
    """Without decisions of the designer's, none is ever asked."""
    return np.uint64(0)


@kernel(globals(), inline="always")
def no_effect(decision, seat, choice, hands, table, rules, cards, masks):
    return


@kernel(globals(), inline="always")
def decision_seat(who, j, dealer, leader, winner, n_players):
    """The j-th seat asked a decision made by ``who`` (every seat from the dealer's left, or one),
    -1 past the last."""
    if who == WHO_EACH:
        if j >= n_players:
            return -1
        s = dealer + 1 + j
        return s % n_players
    if j > 0:
        return -1
    if who == WHO_DEALER:
        return dealer
    if who == WHO_LEADER:
        return leader
    return winner


@kernel(globals(), inline="always")
def players_in_trick(table, n_players):
    """How many cards a trick has: a card from every seat not sitting the round out (T_OUT)."""
    out = table[T_OUT]
    n = n_players
    while out != 0:
        n -= 1
        out &= out - 1
    return n


@kernel(globals(), inline="always")
def next_in_play(table, seat, n_players):
    """``seat``, or the first seat after it that does not sit the round out."""
    seat %= n_players
    for _ in range(n_players):
        if (table[T_OUT] >> seat) & 1 == 0:
            return seat
        seat = seat + 1 if seat + 1 < n_players else 0
    return seat


@kernel(globals(), inline="always")
def seat_in_trick(table, position, n_players):
    """The seat that plays the card at ``position`` of the trick on the table (0: its leader,
    T_LEADER), the seats sitting out skipped."""
    seat = table[T_LEADER] + position
    if table[T_OUT] == 0:
        return seat - n_players if seat >= n_players else seat
    seat = table[T_LEADER]
    for _ in range(position):
        seat = next_in_play(table, seat + 1, n_players)
    return seat


@kernel(globals(), inline="always")
def winner_leads(table, winner, cards, masks, rules):
    """Without a ``next_leader`` hook the trick's winner leads the next trick."""
    return winner


@kernel(globals(), inline="always")
def count_no_events(table, n_tricks, cards, masks, rules, events):
    """Without a ``count_events`` hook a round adds to no event of the designer's."""
    return


@kernel(globals(), inline="always")
def keep_scores(table, n_tricks, cards, masks, rules, scores):
    """Without a ``score_round`` hook the round's scores are the keys' own (``round_scores``)."""
    return


@kernel(globals(), inline="always")
def bid_winner(table, n_players, dealer):
    """The seat with the highest bid; between equal bids the first to bid it (from the dealer's left)."""
    best = (dealer + 1) % n_players
    for j in range(1, n_players):
        s = (dealer + 1 + j) % n_players
        if table[T_BID + s] > table[T_BID + best]:
            best = s
    return best


@kernel(globals(), inline="always")
def match_shares(totals, n_players, lowest_wins, shares_out):
    """Win shares of one game: the best total wins (the lowest with game.winner = "lowest"); a tie
    for the best splits one win equally."""
    best = totals[0]
    for s in range(1, n_players):
        if (totals[s] < best) if lowest_wins else (totals[s] > best):
            best = totals[s]
    tied = 0
    for s in range(n_players):
        if totals[s] == best:
            tied += 1
    for s in range(n_players):
        shares_out[s] = 1.0 / tied if totals[s] == best else 0.0


# ---------------------------------------------------------------------------
# The rules in force for one player count (plain Python, once per run)

from dataclasses import dataclass  # noqa: E402

GAME = "rules-file"  # the engine's name; each rules file is its own game (simcore/games/trick/game.py)
TITLE = "A trick-taking game from a rules file"
PLAYER_COUNTS = tuple(range(2, MAX_PLAYERS + 1))
VARIANT_KEYS: dict = {}  # a rules file's variants are its own dotted keys (rulesfile.valid_keys)


@dataclass(frozen=True)
class Setup:
    """Everything the kernel needs about the rules in force, as arrays, and the names to print."""

    players: int
    names: tuple  # card name per deck index
    suits: tuple  # suit names
    hand_size: int  # the largest hand of the game
    rounds: int
    tricks: int  # the most in a round
    rules: np.ndarray  # int64[N_RULES]
    cards: np.ndarray  # int64[N_CARD_FIELDS, deck]
    masks: np.ndarray  # uint64[N_MASKS]
    spec: object  # the checked rules file (rulesfile.Spec)
    hands: tuple = ()  # each round's hand size (deal.hand_size), as many as game.rounds
    events: tuple = ()  # the hooks module's EVENTS: (column, label, unit) each, read once here

    @property
    def deck(self) -> int:
        return len(self.names)

    def index_of(self, name: str) -> int:
        return self.names.index(name)


def pass_offset(direction: str, players: int) -> int:
    return {"none": 0, "left": 1, "right": players - 1, "across": players // 2}[direction]


def make_setup(spec, players: int) -> Setup:
    """The kernel arrays of a checked rules file (``rulesfile.read_rules``) at ``players`` players."""
    # imported here, not at the top: the rules file's schema and messages are no compiled code's
    # source (simcore/cache.py), so editing them recompiles nothing
    from simcore.games.trick.rulesfile import all_ranks, all_suits, deck_of, events_of, hand_sizes_of

    m = spec.model
    if players not in spec.player_counts:
        counts = ", ".join(map(str, spec.player_counts))
        raise spec.error(("game", "players"), f"{m.game.name} is played by {counts} players, not {players}")
    deck = deck_of(spec, players)
    names = tuple(name for _, _, name in deck)
    hands = hand_sizes_of(spec, players, len(deck))
    hand = max(hands)
    if "across" in m.passing.directions and m.passing.cards and players % 2:
        raise spec.error(("pass", "directions"), f"'across' has no seat opposite with {players} players")
    cards = np.zeros((N_CARD_FIELDS, len(deck)), dtype=np.int64)
    masks = np.zeros(N_MASKS, dtype=np.uint64)
    suit_names = all_suits(m)
    rank_names = all_ranks(m)
    points = dict(m.scoring.card_points)
    for i, (k, r, name) in enumerate(deck):
        cards[C_SUIT, i] = k
        cards[C_RANK, i] = r
        # the most specific key wins: the card, else its suit, else its rank
        value = points.get(name, points.get(suit_names[k], points.get(rank_names[r], 0)))
        cards[C_POINTS, i] = value
        masks[M_SUIT + k] |= np.uint64(1) << np.uint64(i)
        if r < MAX_RANK_MASKS:
            masks[M_RANK + r] |= np.uint64(1) << np.uint64(i)
        if value != 0:
            masks[M_POINTS] |= np.uint64(1) << np.uint64(i)
        for key, slot in ((m.play.breaking_cards, M_BREAKING), (m.trick.always_wins, M_ALWAYS_WINS),
                          (m.trick.reverse_if_played, M_REVERSING)):
            if name in key or rank_names[r] in key or suit_names[k] in key:
                masks[slot] |= np.uint64(1) << np.uint64(i)

    rules = np.zeros(N_RULES, dtype=np.int64)
    rules[R_PLAYERS] = players
    rules[R_DECK] = len(deck)
    rules[R_HAND] = hand
    rules[R_SUITS] = len(suit_names)
    rules[R_ROUNDS] = m.game.rounds
    rules[R_LOWEST_WINS] = m.game.winner == "lowest"
    rules[R_RANDOM_DEALER] = m.game.dealer == "random"
    rules[R_REVEALED] = m.deal.left_out == "revealed"
    rules[R_PASS_CARDS] = m.passing.cards
    rules[R_PASS_RANDOM] = m.passing.choice == "random"
    directions = m.passing.directions if m.passing.cards else ["none"]
    rules[R_PASS_N] = len(directions)
    for k, direction in enumerate(directions[:MAX_DIRECTIONS]):
        rules[R_PASS_OFFSET + k] = pass_offset(direction, players)
    rules[R_TRUMP_KIND] = {"none": TRUMP_NONE, "fixed": TRUMP_FIXED, "turned-up": TRUMP_TURNED_UP,
                           "bid-winner": TRUMP_BID_WINNER}[m.trump.kind]
    rules[R_TRUMP_CHOICES] = len(m.deck.suits)  # the bid winner names one of the file's suits
    rules[R_TRUMP_SUIT] = suit_names.index(m.trump.suit) if m.trump.kind == "fixed" else -1
    rules[R_BIDDING] = m.bidding.kind == "tricks"
    rules[R_LAST_BID] = m.bidding.last_bidder_may_not_make_total
    rules[R_LEAD] = {"left-of-dealer": LEAD_LEFT_OF_DEALER, "dealer": LEAD_DEALER, "holder": LEAD_HOLDER,
                     "bid-winner": LEAD_BID_WINNER}[m.play.lead]
    first = m.play.first_lead_card
    rules[R_FIRST_LEAD_CARD] = names.index(first) if first in names else -1
    rules[R_FOLLOW] = m.play.follow == "suit"
    rules[R_VOID_TRUMP] = m.play.when_void == "trump"
    rules[R_MUST_BEAT] = m.play.must_beat
    rules[R_UNBROKEN] = suit_names.index(m.play.unbroken_suit) if m.play.unbroken_suit else -1
    rules[R_FIRST_NO_POINTS] = m.play.first_trick_no_points
    rules[R_BASE] = m.scoring.base
    rules[R_PER_TRICK] = m.scoring.per_trick
    rules[R_EXACT] = m.scoring.exact_bid
    rules[R_OFF] = m.scoring.off_bid_per_trick
    rules[R_NIL] = m.scoring.nil
    rules[R_MOON] = m.scoring.moon
    rules[R_LOWEST_RANK_WINS] = m.trick.winner == "lowest"
    rules[R_FIRST_DEALER] = first_dealer(m.play.lead, players)
    rules[R_TARGET_ON] = m.game.target is not None
    rules[R_TARGET] = m.game.target or 0
    for r, size in enumerate(hands):
        rules[R_HANDS + r] = size
        rules[R_NO_TRUMP + r] = r + 1 in m.trump.none_in_rounds
    rules[R_ROUNDS_ALIKE] = len(set(hands)) == 1 and not m.trump.none_in_rounds
    rules[R_DECISIONS] = len(m.decision)
    for d, decision in enumerate(m.decision):
        rules[R_DECISION_AT + d] = {"before-play": AT_BEFORE_PLAY, "after-trick": AT_AFTER_TRICK,
                                    "before-bidding": AT_BEFORE_BIDDING, "after-card": AT_AFTER_CARD}[decision.at]
        rules[R_DECISION_WHO + d] = {"each": WHO_EACH, "dealer": WHO_DEALER, "leader": WHO_LEADER,
                                     "winner": WHO_WINNER, "player": WHO_PLAYER, "chance": WHO_CHANCE}[decision.who]
        rules[R_DECISION_CARDS + d] = decision.options == "cards"
    # (a turned-up trump is turned up in the rounds it has trump)
    upcard = m.deal.upcard
    rules[R_UPCARD] = UPCARD_SET_ASIDE + names.index(upcard) if isinstance(upcard, str) else UPCARD_DEALT if upcard else 0
    if m.game.teams is not None:
        rules[R_TEAMS] = len(m.game.teams)
        for k, team in enumerate(m.game.teams):
            for seat in team:
                rules[R_TEAM + seat - 1] = k
    bound = score_bound(rules, cards)
    if bound > SCORE_LIMIT:
        raise spec.error(("scoring",), f"scores could reach ±{bound:,} over {m.game.rounds} round(s); the engine "
                         f"keeps them within ±{SCORE_LIMIT:,} (fewer rounds or smaller points)")
    return Setup(players, names, tuple(suit_names), hand, m.game.rounds, hand, rules, cards, masks, spec, tuple(hands),
                 tuple(events_of(spec)))


SCORE_LIMIT = 32767  # scores are stored as int16


def first_dealer(lead: str, players: int) -> int:
    """The first dealer when game.dealer = "first-seat": the seat that makes seat 1 (seat 0) lead
    the first trick, so that seat 1 plays first as in every other game of the workbench: the last
    seat when the dealer's left leads, seat 1 itself when the dealer leads (with lead = "holder"
    the card decides, and the dealer is seat 1; with lead = "bid-winner" the bids decide, and seat
    1 bids first)."""
    return players - 1 if lead in ("left-of-dealer", "bid-winner") else 0


def score_bound(rules: np.ndarray, cards: np.ndarray) -> int:
    """The largest score magnitude the rules allow over a whole game (a seat taking every
    trick and every card's points, or, shooting the moon, everyone else's; the bid's bonus or
    penalty at its largest)."""
    hand = int(rules[R_HAND])
    points = int(np.abs(cards[C_POINTS]).sum())
    per_round = (abs(int(rules[R_BASE])) + abs(int(rules[R_PER_TRICK])) * hand + points
                 + max(abs(int(rules[R_EXACT])) + abs(int(rules[R_OFF])) * hand, abs(int(rules[R_NIL]))))
    if rules[R_TEAMS]:  # a team's score adds its seats'
        sizes = np.bincount(rules[R_TEAM:R_TEAM + int(rules[R_PLAYERS])])
        per_round *= int(sizes.max())
    return per_round * int(rules[R_ROUNDS])
