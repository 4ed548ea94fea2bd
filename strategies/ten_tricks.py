"""Players for 10 TRICKS LATER, compiled into the kernel's dispatch.

Two decisions, each one function of the strategy id, the parameter matrix (row = seat) and the
public state (T_* layout in simcore/games/ten_tricks/rules.py; ``hand`` is the deciding seat's own hand):

    choose_swap(...) -> the card to offer for infected 8 (asked only of a seat dealt no
                        infected, when the swap rule is on), or -1 for no offer
    choose_play(...) -> the card to play (one of ``legal``)

Built-ins:
    random     swap on a fair coin, offering a uniformly chosen card; plays uniformly over the
               legal cards
    greedy     takes every trick it can with its cheapest card that wins for now, otherwise sheds
               its lowest card; leads its highest card; always offers its lowest card for
               infected 8
    heuristic  plays the track: for each legal card it weighs winning (survivors onto the upper
               board, the attack on its own upper board, the track reset) against losing (the
               track rising toward a rescue or the +3 bonus, and the rescues it triggers), with a
               chance of winning estimated from the unseen cards; offers a low card for infected 8
               only when its hand has few low cards to feed the track with

Plug-ins get ids from PLUGIN_BASE up; simcore/plugins.py re-executes this file with
``plugin_*`` dispatchers that call the user's functions.
"""
import numpy as np

from simcore.bits import bit, kth_index, popcount
from simcore.games.ten_tricks.rules import (
    FIRST_INFECTED, INFECTED, R_BONUS, R_CAP, R_HAND, R_PLAYERS, T_DECK, T_PLAYED, T_PLAYS, T_SEEN,
    T_TRACK, T_TRICK, T_UPPER, card_rank, low_survivors, rescue, winning_position,
)
from simcore.jit import kernel
from simcore.rng import PLAY, below

RANDOM, GREEDY, HEURISTIC = 0, 1, 2
BUILTIN = {"random": RANDOM, "greedy": GREEDY, "heuristic": HEURISTIC}
PLUGIN_BASE = 16
N_PARAMS = 4  # parameter slots per seat (plug-ins may use them)

# heuristic tuning (parameter row defaults): upper = worth of a survivor on the upper board early
# in the round (it falls to 0 by the end: only the lower board scores); track = worth of one
# track step; bonus_odds = the chance of keeping a track at the cap for three more tricks;
# swap_low = offer for infected 8 only with at most this many cards numbered 1-3 in hand.
# Chosen by a small grid against three greedy and three random players (4p, 40,000 games each):
# the track step weight matters most (0.15 → 21% against greedy, 0.02 → 44%); swapping more
# often (swap_low 2) or never (-1) changed the share by less than 0.5 pp.
H_UPPER, H_TRACK, H_BONUS_ODDS, H_SWAP_LOW = 0, 1, 2, 3
HEURISTIC_DEFAULTS = (1.0, 0.02, 0.4, 0.0)


# --- shared helpers ------------------------------------------------------------

@kernel(globals(), inline="always")
def random_card(mask, streams):
    return kth_index(mask, below(streams, PLAY, popcount(mask)))


@kernel(globals(), inline="always")
def number(card):
    """The printed number (track moves and attacks use it, never the 1-as-9)."""
    return card - FIRST_INFECTED if card >= FIRST_INFECTED else (card & 7) + 1


@kernel(globals())
def lowest_number_card(mask):
    """The card of ``mask`` with the lowest printed number (lowest id on ties)."""
    best = -1
    m = mask
    while m:
        i = kth_index(m, 0)
        m &= m - np.uint64(1)
        if best < 0 or number(i) < number(best):
            best = i
    return best


@kernel(globals())
def trick_so_far(table):
    """(mask of the cards played to this trick, an infected card among them)."""
    trick = np.uint64(0)
    for i in range(table[T_PLAYED]):
        trick |= bit(table[T_PLAYS + i])
    return trick, (trick >> np.uint64(FIRST_INFECTED)) != 0


@kernel(globals())
def wins_for_now(table, card):
    """Would ``card`` win the trick if nobody played after it?  (Written into the play slot and
    taken back.)"""
    position = table[T_PLAYED]
    trick, infected = trick_so_far(table)
    trick |= bit(card)
    table[T_PLAYS + position] = card
    w = winning_position(table, T_PLAYS, position + 1, trick, infected or card >= FIRST_INFECTED)
    table[T_PLAYS + position] = -1
    return w == position


# --- random -----------------------------------------------------------------

@kernel(globals(), inline="always")
def random_swap(params, seat, hand, table, rules, masks, streams):
    if below(streams, PLAY, 2) == 1:
        return random_card(hand, streams)
    return -1


@kernel(globals(), inline="always")
def random_play(params, seat, hand, legal, table, rules, masks, streams):
    return random_card(legal, streams)


# --- greedy -----------------------------------------------------------------

@kernel(globals())
def greedy_play(legal, table):
    if table[T_PLAYED] == 0:
        best = -1
        m = legal
        while m:
            i = kth_index(m, 0)
            m &= m - np.uint64(1)
            if best < 0 or number(i) > number(best):
                best = i
        return best
    cheapest = -1
    m = legal
    while m:
        i = kth_index(m, 0)
        m &= m - np.uint64(1)
        if (cheapest < 0 or number(i) < number(cheapest)) and wins_for_now(table, i):
            cheapest = i
    if cheapest >= 0:
        return cheapest
    return lowest_number_card(legal)


# --- heuristic ----------------------------------------------------------------

@kernel(globals())
def win_chance(table, rules, masks, hand, card, trick, infected):
    """Chance that ``card``, winning for now, still wins once the others have played: each
    unseen card that would beat it is in a later player's hand with probability h/U."""
    n_players = rules[R_PLAYERS]
    position = table[T_PLAYED]
    later = n_players - 1 - position
    if later == 0:
        return 1.0
    unseen = np.uint64(table[T_DECK]) & ~np.uint64(table[T_SEEN]) & ~hand
    unseen_count = popcount(unseen)
    if unseen_count == 0:
        return 1.0
    r = card_rank(card, trick | bit(card))
    beaters = 0
    m = unseen
    while m:
        i = kth_index(m, 0)
        m &= m - np.uint64(1)
        if i >= FIRST_INFECTED:
            beaters += 1 if i - FIRST_INFECTED > r else 0
        elif infected or card >= FIRST_INFECTED:
            beaters += 1 if (i & 7) + 1 >= r else 0
        else:
            lead = table[T_PLAYS] if position > 0 else card
            beaters += 1 if (i >> 3) == (lead >> 3) and (i & 7) + 1 > r else 0
    held = later * (rules[R_HAND] - table[T_TRICK])
    q = min(1.0, held / unseen_count)
    return (1.0 - q) ** beaters


@kernel(globals(), inline="always")
def track_worth(params, seat, rules, track, tricks_left):
    """What a track position is worth: the +bonus (at the cap, if kept) or progress toward it."""
    if track == rules[R_CAP]:
        return rules[R_BONUS] * params[seat, H_BONUS_ODDS] ** (tricks_left / 3.0)
    return params[seat, H_TRACK] * track


@kernel(globals())
def heuristic_play(params, seat, hand, legal, table, rules, masks):
    n_players = rules[R_PLAYERS]
    position = table[T_PLAYED]
    tricks_left = rules[R_HAND] - table[T_TRICK] - 1
    upper_worth = params[seat, H_UPPER] * tricks_left / rules[R_HAND]
    upper = np.uint64(table[T_UPPER + seat])
    track = table[T_TRACK + seat]
    trick, infected = trick_so_far(table)
    level = 0
    for i in range(position):
        if table[T_PLAYS + i] >= FIRST_INFECTED:
            level += table[T_PLAYS + i] - FIRST_INFECTED
    # infected still to come: each later player may add about the average unseen infected
    unseen = np.uint64(table[T_DECK]) & ~np.uint64(table[T_SEEN]) & ~hand
    unseen_infected = popcount(unseen & masks[INFECTED])
    later = n_players - 1 - position
    infected_odds = min(1.0, later * unseen_infected / max(popcount(unseen), 1))
    now = track_worth(params, seat, rules, track, tricks_left)

    best, best_value = -1, -1e18
    m = legal
    while m:
        card = kth_index(m, 0)
        m &= m - np.uint64(1)
        is_infected = card >= FIRST_INFECTED
        # --- if this card wins the trick
        p = 0.0
        if wins_for_now(table, card):
            p = win_chance(table, rules, masks, hand, card, trick, infected)
        win_value = 0.0
        if p > 0.0:
            gained = (trick | bit(card)) & ~masks[INFECTED]
            attack = infected or is_infected
            lvl = level + (number(card) if is_infected else 0)
            if attack:
                lost = popcount(upper & low_survivors(lvl))
                win_value = -lost * (1.0 + upper_worth) + popcount(gained) * upper_worth \
                    + track_worth(params, seat, rules, 0, tricks_left) - now
            else:
                # an infected card may still come: the attack at its likely level
                risk = infected_odds * popcount(upper & low_survivors(4)) * (1.0 + upper_worth)
                moved, left = rescue(upper | gained, track)
                win_value = popcount(moved) * (1.0 - upper_worth) + popcount(gained) * upper_worth - risk \
                    + track_worth(params, seat, rules, left, tricks_left) - now
        # --- if it loses: the track rises by the printed number unless that passes the cap
        raised = track + number(card)
        if raised > rules[R_CAP]:
            raised = track
        moved, left = rescue(upper, raised)
        lose_value = popcount(moved) * (1.0 - upper_worth) + track_worth(params, seat, rules, left, tricks_left) - now
        value = p * win_value + (1.0 - p) * lose_value
        if value > best_value:
            best, best_value = card, value
    return best


@kernel(globals())
def heuristic_swap(params, seat, hand):
    """Infected 8 feeds the track by 8 when it loses and wins most tricks it is led into; give
    up the lowest card, but only when the hand has few low cards to raise the track with."""
    low = popcount(hand & low_survivors(3))
    if low <= params[seat, H_SWAP_LOW]:
        return lowest_number_card(hand)
    return -1


# --- plug-ins ---------------------------------------------------------------------

PLUGIN_DECISIONS = {
    "swap": "params, seat, hand, table, rules, masks, streams",
    "play": "params, seat, hand, legal, table, rules, masks, streams",
}

if "plugin_play" not in globals():  # stock build: no plug-ins, these are never reached

    @kernel(globals())
    def plugin_swap(k, params, seat, hand, table, rules, masks, streams):
        return random_swap(params, seat, hand, table, rules, masks, streams)

    @kernel(globals())
    def plugin_play(k, params, seat, hand, legal, table, rules, masks, streams):
        return random_card(legal, streams)


# --- dispatch ------------------------------------------------------------------------

@kernel(globals(), inline="always")
def choose_swap(strategy, params, seat, hand, table, rules, masks, streams):
    if strategy == RANDOM:
        return random_swap(params, seat, hand, table, rules, masks, streams)
    if strategy == GREEDY:
        return lowest_number_card(hand)
    if strategy == HEURISTIC:
        return heuristic_swap(params, seat, hand)
    return plugin_swap(strategy - PLUGIN_BASE, params, seat, hand, table, rules, masks, streams)


@kernel(globals(), inline="always")
def choose_play(strategy, params, seat, hand, legal, table, rules, masks, streams):
    if strategy == RANDOM:
        return random_card(legal, streams)
    if strategy == GREEDY:
        return greedy_play(legal, table)
    if strategy == HEURISTIC:
        return heuristic_play(params, seat, hand, legal, table, rules, masks)
    return plugin_play(strategy - PLUGIN_BASE, params, seat, hand, legal, table, rules, masks, streams)


def default_params(name: str, argument: str | None = None) -> tuple:
    """Parameter row of a built-in strategy."""
    if name == "heuristic":
        return HEURISTIC_DEFAULTS
    return (0.0,) * N_PARAMS
