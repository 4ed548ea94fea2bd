"""Players for any trick-taking game from a rules file, compiled into its play loop's dispatch.

Each decision is one function taking the strategy id, the parameter matrix (row = seat) and the
public state (the T_* layout in simcore/games/trick/rules.py); ``cards`` and ``masks`` describe
the deck (suit, rank and points of each card), ``rules`` the rules in force:

    choose_pass(...)  -> deck index of one card to pass (asked pass.cards times in a row)
    choose_bid(...)   -> the bid (a bit of ``legal``: bit b = bid b)
    choose_play(...)  -> deck index of the card to play (one of ``legal``)

Built-ins, which know nothing of a particular game but what the rules file says:
    random     uniform over the legal choices
    greedy     wins the trick in front of it with the cheapest card that wins it for now, else
               plays its lowest card; leads its highest; bids its high cards; passes its lowest
    heuristic  weighs what the trick is worth to it (points on the table, a trick's own score,
               the tricks its bid still needs): wins a trick worth having with the cheapest
               card that takes it (the highest when others are still to play), ducks one that
               is not under the highest card that still loses and, void, throws its costliest
               card to another seat; bids from its hand's strength (high ranks, trumps, length);
               passes the cards most likely to take costly tricks
"""
import numpy as np

from simcore.bits import bit, lowest_index
from simcore.games.trick.rules import (
    C_POINTS, C_RANK, C_SUIT, M_POINTS, M_SUIT, R_BIDDING, R_DECK, R_PER_TRICK,
    R_PLAYERS, T_BID, T_NPLAYED, T_PLAY, T_TRUMP, T_WON, trick_points, winner_of_trick,
)
from simcore.jit import kernel
from strategies.common import random_card, random_card_of_seat  # noqa: F401 (random_card_of_seat: the play loop's draw)

RANDOM, GREEDY, HEURISTIC = 0, 1, 2
BUILTIN = {"random": RANDOM, "greedy": GREEDY, "heuristic": HEURISTIC}
PLUGIN_BASE = 16
N_PARAMS = 4
PARAMETER: dict = {}
SKILL_TIERS = ("random", "heuristic")
# the skill ladder (`balance ladder`), each rung stronger than the one below in every example file:
# greedy, which takes every trick it can, is no rung: in a game of tricks worth avoiding (Hearts) it
# loses to random play (11.5% [10.6, 12.4] against random's field, 4 players, 4,000 games)
LADDER = ("random", "heuristic")

# a rules file's hooks (simcore/games/trick/game.py): the players judge tricks by the same rules
hooks = globals().get("__hooks__") or {}
winner_of_trick = hooks.get("trick_winner", winner_of_trick)
trick_points = hooks.get("trick_points", trick_points)

WANT = 100  # what a trick the bid still needs (or a trick past the bid) is worth, in points


def default_params(name: str, argument: str | None = None) -> tuple:
    return (0.0,) * N_PARAMS


def describe(name: str, argument: str | None = None) -> str:
    return name


# --- shared -----------------------------------------------------------------------------------

@kernel(globals(), inline="always")
def cheapest(mask, cards):
    """The lowest-ranked card of ``mask`` (the lowest deck index among equals)."""
    best = lowest_index(mask)
    m = mask & (mask - np.uint64(1))
    while m != 0:
        c = lowest_index(m)
        m &= m - np.uint64(1)
        if cards[C_RANK, c] < cards[C_RANK, best]:
            best = c
    return best


@kernel(globals(), inline="always")
def dearest(mask, cards):
    """The highest-ranked card of ``mask``."""
    best = lowest_index(mask)
    m = mask & (mask - np.uint64(1))
    while m != 0:
        c = lowest_index(m)
        m &= m - np.uint64(1)
        if cards[C_RANK, c] >= cards[C_RANK, best]:
            best = c
    return best


@kernel(globals(), inline="always")
def winners_of(legal, table, cards, masks, rules):
    """The cards of ``legal`` that would take the trick as it stands (all of them when leading)."""
    n = table[T_NPLAYED]
    if n == 0:
        return legal
    out = np.uint64(0)
    m = legal
    while m != 0:
        c = lowest_index(m)
        m &= m - np.uint64(1)
        if winner_of_trick(table, n, c, cards, masks, rules, table[T_TRUMP]) == n:
            out |= bit(c)
    return out


# --- greedy -----------------------------------------------------------------------------------

@kernel(globals(), inline="always")
def greedy_play(legal, table, cards, masks, rules):
    if table[T_NPLAYED] == 0:
        return dearest(legal, cards)
    winners = winners_of(legal, table, cards, masks, rules)
    if winners != 0:
        return cheapest(winners, cards)
    return cheapest(legal, cards)


@kernel(globals(), inline="always")
def count_high(hand, cards, rules):
    """Cards in the top quarter of the ranks: greedy's bid."""
    top = 0
    m = hand
    while m != 0:
        c = lowest_index(m)
        m &= m - np.uint64(1)
        top = max(top, cards[C_RANK, c])
    n = 0
    m = hand
    while m != 0:
        c = lowest_index(m)
        m &= m - np.uint64(1)
        n += 4 * cards[C_RANK, c] >= 3 * top and top > 0
    return n


@kernel(globals(), inline="always")
def nearest_bid(want, legal):
    """The legal bid closest to ``want`` (the lower one of two as close)."""
    best = lowest_index(legal)
    m = legal
    while m != 0:
        b = lowest_index(m)
        m &= m - np.uint64(1)
        if abs(b - want) < abs(best - want):
            best = b
    return best


# --- heuristic --------------------------------------------------------------------------------

@kernel(globals(), inline="always")
def trick_worth(seat, table, cards, masks, rules):
    """What taking the trick as it stands is worth to ``seat``: its score per trick, the points
    on the table, and (bidding) WANT for a trick its bid still needs, -WANT for one past it."""
    worth = rules[R_PER_TRICK] + trick_points(table, table[T_NPLAYED], cards, masks, rules)
    if rules[R_BIDDING] != 0 and table[T_BID + seat] >= 0:
        worth += WANT if table[T_WON + seat] < table[T_BID + seat] else -WANT
    return worth


@kernel(globals(), inline="always")
def costliest(mask, cards):
    """The card of ``mask`` that would cost its taker most (lowest points), the highest rank among equals."""
    best = lowest_index(mask)
    m = mask & (mask - np.uint64(1))
    while m != 0:
        c = lowest_index(m)
        m &= m - np.uint64(1)
        if (cards[C_POINTS, c] < cards[C_POINTS, best]
                or (cards[C_POINTS, c] == cards[C_POINTS, best] and cards[C_RANK, c] >= cards[C_RANK, best])):
            best = c
    return best


@kernel(globals(), refcounts=False)
def heuristic_play(seat, hand, legal, table, cards, masks, rules):
    n = table[T_NPLAYED]
    worth = trick_worth(seat, table, cards, masks, rules)
    if n == 0:
        # leading: a trick worth having is led with the highest card, one not worth it with the
        # lowest card that carries no points
        if worth > 0:
            return dearest(legal, cards)
        plain = legal & ~masks[M_POINTS]
        return cheapest(plain if plain != 0 else legal, cards)
    winners = winners_of(legal, table, cards, masks, rules)
    last = n == rules[R_PLAYERS] - 1
    lead_suit = cards[C_SUIT, table[T_PLAY]]
    follows = legal & masks[M_SUIT + lead_suit] != 0
    if worth > 0:
        if winners != 0:
            return cheapest(winners, cards) if last else dearest(winners, cards)
        return cheapest(legal, cards)  # cannot take it: keep the high cards
    losers = legal & ~winners
    if losers != 0:
        if follows:
            return dearest(losers, cards)  # the highest card that still loses
        return costliest(losers, cards)  # void: hand the winner the costliest card
    return dearest(winners, cards)  # must take it: with the highest, which is spent at least


@kernel(globals(), inline="always")
def hand_strength(hand, table, cards, masks, rules):
    """Tricks the hand may expect to take: each card's chance to stand as the best of its suit
    (its rank's share of the top, to the power of the other players), trumps counted higher."""
    n_players = rules[R_PLAYERS]
    trump = table[T_TRUMP]
    top = 0
    for c in range(rules[R_DECK]):
        top = max(top, cards[C_RANK, c])
    expected = 0.0
    m = hand
    while m != 0:
        c = lowest_index(m)
        m &= m - np.uint64(1)
        share = (cards[C_RANK, c] + 1) / (top + 1)
        if cards[C_SUIT, c] == trump:
            share = 0.5 + 0.5 * share
        expected += share ** (n_players - 1)
    return expected


@kernel(globals(), refcounts=False)
def heuristic_bid(hand, legal, table, cards, masks, rules):
    return nearest_bid(np.int64(hand_strength(hand, table, cards, masks, rules) + 0.5), legal)


@kernel(globals(), refcounts=False)
def heuristic_pass(hand, table, cards, masks, rules):
    """The card most likely to take a costly trick: high rank, points against its taker; in a
    game where tricks are worth having, the lowest card instead."""
    costly = rules[R_PER_TRICK] < 0
    for c in range(rules[R_DECK]):
        costly = costly or cards[C_POINTS, c] < 0
    if not costly:
        return cheapest(hand, cards)
    best = lowest_index(hand)
    best_key = -(1 << 30)
    m = hand
    while m != 0:
        c = lowest_index(m)
        m &= m - np.uint64(1)
        key = cards[C_RANK, c] - 4 * cards[C_POINTS, c]
        if key > best_key:
            best, best_key = c, key
    return best


# --- plug-in slots and the random player -------------------------------------------------------
PLUGIN_DECISIONS = {
    "pass": "params, seat, hand, table, cards, masks, rules, streams",
    "bid": "params, seat, hand, legal, table, cards, masks, rules, streams",
    "play": "params, seat, hand, legal, seen, table, cards, masks, rules, streams",
}
PLUGIN_SCRATCH: dict = {}


@kernel(globals(), refcounts=False)
def random_pass(params, seat, hand, table, cards, masks, rules, streams):
    return random_card(hand, streams)


@kernel(globals(), refcounts=False)
def random_bid(params, seat, hand, legal, table, cards, masks, rules, streams):
    return random_card(legal, streams)


@kernel(globals(), refcounts=False)
def random_play(params, seat, hand, legal, seen, table, cards, masks, rules, streams):
    return random_card(legal, streams)


if "plugin_play" not in globals():  # stock build: no plug-ins, these are never reached

    @kernel(globals(), refcounts=True)
    def plugin_pass(k, params, seat, hand, table, cards, masks, rules, streams):
        return random_card(hand, streams)

    @kernel(globals(), refcounts=True)
    def plugin_bid(k, params, seat, hand, legal, table, cards, masks, rules, streams):
        return random_card(legal, streams)

    @kernel(globals(), refcounts=True)
    def plugin_play(k, params, seat, hand, legal, seen, table, cards, masks, rules, streams):
        return random_card(legal, streams)


# --- dispatch -----------------------------------------------------------------------------------

@kernel(globals(), inline="always")
def choose_pass(strategy, params, seat, hand, table, cards, masks, rules, streams):
    if strategy == RANDOM:
        return random_card(hand, streams)
    if strategy == GREEDY:
        return cheapest(hand, cards)
    if strategy == HEURISTIC:
        return heuristic_pass(hand, table, cards, masks, rules)
    return plugin_pass(strategy - PLUGIN_BASE, params, seat, hand, table, cards, masks, rules, streams)


@kernel(globals(), inline="always")
def choose_bid(strategy, params, seat, hand, legal, table, cards, masks, rules, streams):
    if strategy == RANDOM:
        return random_card(legal, streams)
    if strategy == GREEDY:
        return nearest_bid(count_high(hand, cards, rules), legal)
    if strategy == HEURISTIC:
        return heuristic_bid(hand, legal, table, cards, masks, rules)
    return plugin_bid(strategy - PLUGIN_BASE, params, seat, hand, legal, table, cards, masks, rules, streams)


@kernel(globals(), inline="always")
def choose_play(strategy, params, seat, hand, legal, seen, table, cards, masks, rules, streams):
    if strategy == RANDOM:
        return random_card(legal, streams)
    if strategy == GREEDY:
        return greedy_play(legal, table, cards, masks, rules)
    if strategy == HEURISTIC:
        return heuristic_play(seat, hand, legal, table, cards, masks, rules)
    return plugin_play(strategy - PLUGIN_BASE, params, seat, hand, legal, seen, table, cards, masks, rules, streams)
