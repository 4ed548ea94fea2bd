"""Players for Trick-Take BIRD & WEATHER, compiled into the kernel's dispatch.

Each decision is one function taking the strategy id, the parameter matrix
(row = seat) and the public state (see the T_* layout in simcore/games/bird_weather/rules.py):

    choose_facedown(...) -> deck index of the card to put face down (§5-①)
    choose_play(...)     -> deck index of the card to play (one of ``legal``)
    choose_pick(...)     -> seat whose unused face-down card to take (§6-③)

Built-ins:
    random     uniform over the legal plays; a uniformly chosen face-down card and pick
    greedy     takes the trick in front of it when it can, with the cheapest card
               that wins it for now; otherwise plays its lowest card; leads its
               highest; puts its lowest card face down; takes its own face-down card
    heuristic  public information only: cards seen, the points at stake, its own
               face-down card; wins tricks worth winning with the cheapest safe card,
               starves the winner with a low ones digit when it cannot follow or win

Plug-ins get ids from PLUGIN_BASE up; simcore/plugins.py re-executes this file
with ``plugin_*`` dispatchers that call the user's functions.
"""
import numpy as np

from simcore.bits import bit, kth_index, popcount
from simcore.games.bird_weather.rules import (
    FACEDOWN_NONE, R_DECK, R_FACEDOWN, R_PLAYERS, REVERSAL, T_FACEDOWN, T_NPLAYED, T_PLAY, resolve_trick, unseen_mask,
)
from simcore.jit import kernel
from simcore.rng import PLAY, below

RANDOM, GREEDY, HEURISTIC = 0, 1, 2
BUILTIN = {"random": RANDOM, "greedy": GREEDY, "heuristic": HEURISTIC}
PLUGIN_BASE = 16
N_PARAMS = 4  # parameter slots per seat (plug-ins may use them)

# heuristic tuning (parameter row defaults), set by hand: starve = weight of points handed to
# another winner, risk = chance a beatable winning card holds, keep = cost of spending a high card
H_STARVE, H_RISK, H_KEEP = 0, 1, 2
HEURISTIC_DEFAULTS = (0.6, 0.35, 0.08, 0.0)


# --- random -----------------------------------------------------------------

@kernel(globals(), inline="always")
def random_card(mask, streams):
    return kth_index(mask, below(streams, PLAY, popcount(mask)))


# --- greedy -----------------------------------------------------------------

@kernel(globals(), inline="always")
def highest_card(mask):
    i = 63
    while (mask >> np.uint64(i)) & np.uint64(1) == 0:
        i -= 1
    return i


@kernel(globals(), inline="always")
def lowest_card(mask):
    return kth_index(mask, 0)


@kernel(globals(), inline="always")
def greedy_play(hand, legal, table, number, rules):
    n = table[T_NPLAYED]
    if n == 0:
        return highest_card(legal)
    m = legal
    while m != 0:  # ascending: the first card that wins is the cheapest
        c = kth_index(m, 0)
        m &= m - np.uint64(1)
        table[T_PLAY + n] = c
        win_pos, kind, points_pos = resolve_trick(table, number, rules, n + 1)
        if win_pos == n:
            table[T_PLAY + n] = -1
            return c
    table[T_PLAY + n] = -1
    return lowest_card(legal)


# --- heuristic --------------------------------------------------------------

@kernel(globals(), inline="always")
def expected_blind_points(hand, seen, table, number, rules, seat):
    """Mean ones digit of the cards this seat has not seen: what a blind face-down pick is worth."""
    unseen = unseen_mask(rules[R_DECK], hand, seen, table[T_FACEDOWN + seat])
    n = popcount(unseen)
    if n == 0:
        return 0.0
    total = 0
    m = unseen
    while m != 0:
        i = kth_index(m, 0)
        total += number[i] % 10
        m &= m - np.uint64(1)
    return total / n


@kernel(globals(), inline="always")
def zero_trick_value(hand, seen, table, number, rules, seat):
    """What winning a 0-point trick is worth: the best face-down card one could take."""
    if rules[R_FACEDOWN] == 0:
        return 0.0
    own = table[T_FACEDOWN + seat]
    others = False
    for s in range(rules[R_PLAYERS]):
        if s != seat and table[T_FACEDOWN + s] != FACEDOWN_NONE:  # hidden, but still there
            others = True
    blind = expected_blind_points(hand, seen, table, number, rules, seat) if others else 0.0
    if own >= 0 and number[own] % 10 > blind:
        return float(number[own] % 10)
    return blind


@kernel(globals(), inline="always")
def can_be_beaten(card, lead, unseen, follow, table, number, rules, n_after):
    """Could a card not yet seen, played by someone after us, take the trick from ``card``?"""
    if n_after == 0:
        return False
    higher = ~((bit(card) << np.uint64(1)) - np.uint64(1))
    return (unseen & follow[lead] & higher) != 0


@kernel(globals())
def heuristic_play(params, seat, hand, legal, seen, table, number, follow, rules):
    n_players = rules[R_PLAYERS]
    n = table[T_NPLAYED]
    unseen = unseen_mask(rules[R_DECK], hand, seen, table[T_FACEDOWN + seat])
    zero_value = -1.0  # worked out only when a 0-point trick is in view (it scans the unseen cards)
    starve, risk, keep = params[seat, H_STARVE], params[seat, H_RISK], params[seat, H_KEEP]
    deck = rules[R_DECK]
    best = -1
    best_value = -1e18
    if n > 0 and (hand & follow[table[T_PLAY]]) == 0:
        # Cannot follow: no card can win, so each card only changes the points the
        # winner gets (§5-② note): the lowest ones digit, or the highest under reversal.
        win_pos, kind, points_pos = resolve_trick(table, number, rules, n)
        prefix = number[table[T_PLAY + points_pos]] % 10
        m = legal
        while m != 0:
            c = kth_index(m, 0)
            m &= m - np.uint64(1)
            ones = number[c] % 10
            points = float(max(prefix, ones) if kind == REVERSAL else min(prefix, ones))
            if points == 0.0:
                if zero_value < 0.0:
                    zero_value = zero_trick_value(hand, seen, table, number, rules, seat)
                points = zero_value
            value = -starve * points - keep * (c / deck) * 2.0
            if value > best_value:
                best_value = value
                best = c
        return best
    m = legal
    while m != 0:
        c = kth_index(m, 0)
        m &= m - np.uint64(1)
        table[T_PLAY + n] = c
        win_pos, kind, points_pos = resolve_trick(table, number, rules, n + 1)
        points = float(number[table[T_PLAY + points_pos]] % 10)
        if points == 0.0:
            if zero_value < 0.0:
                zero_value = zero_trick_value(hand, seen, table, number, rules, seat)
            points = zero_value
        lead = table[T_PLAY]
        strength = c / deck  # spending a high card now costs winning chances later
        if win_pos == n:
            # leading caps the points at our ones digit; followers may lower them further
            after = n_players - 1 - n
            value = points
            if can_be_beaten(c, lead, unseen, follow, table, number, rules, after):
                value = points * risk - (1.0 - risk) * points * starve
            value -= keep * strength * 10.0
        else:
            # someone else takes these points: give them as little as possible
            value = -starve * points - keep * strength * 2.0
        if value > best_value:
            best_value = value
            best = c
    table[T_PLAY + n] = -1
    return best


@kernel(globals(), inline="always")
def heuristic_facedown(hand, number, rules):
    """Hide a high ones digit (a sure score for a 0-point trick) that is weak in play (low tens)."""
    best = -1
    best_value = -1e18
    m = hand
    while m != 0:
        c = kth_index(m, 0)
        m &= m - np.uint64(1)
        value = (number[c] % 10) - 3.0 * c / rules[R_DECK]
        if value > best_value:
            best_value = value
            best = c
    return best


@kernel(globals(), inline="always")
def heuristic_pick(seat, available, hand, seen, table, number, rules):
    own = table[T_FACEDOWN + seat]
    blind = expected_blind_points(hand, seen, table, number, rules, seat)
    if own >= 0 and (number[own] % 10 >= blind or available == bit(seat)):
        return seat
    for s in range(rules[R_PLAYERS]):
        if s != seat and (available >> np.uint64(s)) & np.uint64(1) != 0:
            return s
    return seat


# --- plug-in slots -------------------------------------------------------------
# The argument lists a plug-in's functions take (simcore/plugins.py generates the
# dispatch from these); a decision a plug-in leaves out is made by random_<decision>.
PLUGIN_DECISIONS = {
    "facedown": "params, seat, hand, table, number, rules, streams",
    "play": "params, seat, hand, legal, seen, table, number, follow, rules, streams",
    "pick": "params, seat, available, hand, seen, table, number, rules, streams",
}


@kernel(globals())
def random_facedown(params, seat, hand, table, number, rules, streams):
    return random_card(hand, streams)


@kernel(globals())
def random_play(params, seat, hand, legal, seen, table, number, follow, rules, streams):
    return random_card(legal, streams)


@kernel(globals())
def random_pick(params, seat, available, hand, seen, table, number, rules, streams):
    return random_card(available, streams)


if "plugin_play" not in globals():  # stock build: no plug-ins, these are never reached

    @kernel(globals())
    def plugin_facedown(k, params, seat, hand, table, number, rules, streams):
        return random_card(hand, streams)

    @kernel(globals())
    def plugin_play(k, params, seat, hand, legal, seen, table, number, follow, rules, streams):
        return random_card(legal, streams)

    @kernel(globals())
    def plugin_pick(k, params, seat, available, hand, seen, table, number, rules, streams):
        return random_card(available, streams)


# --- dispatch ----------------------------------------------------------------

@kernel(globals(), inline="always")
def choose_facedown(strategy, params, seat, hand, table, number, rules, streams):
    if strategy == RANDOM:
        return random_card(hand, streams)
    if strategy == GREEDY:
        return lowest_card(hand)
    if strategy == HEURISTIC:
        return heuristic_facedown(hand, number, rules)
    return plugin_facedown(strategy - PLUGIN_BASE, params, seat, hand, table, number, rules, streams)


@kernel(globals(), inline="always")
def choose_play(strategy, params, seat, hand, legal, seen, table, number, follow, rules, streams):
    if strategy == RANDOM:
        return random_card(legal, streams)
    if strategy == GREEDY:
        return greedy_play(hand, legal, table, number, rules)
    if strategy == HEURISTIC:
        return heuristic_play(params, seat, hand, legal, seen, table, number, follow, rules)
    return plugin_play(strategy - PLUGIN_BASE, params, seat, hand, legal, seen, table, number, follow, rules, streams)


@kernel(globals(), inline="always")
def choose_pick(strategy, params, seat, available, hand, seen, table, number, rules, streams):
    """``available`` is a mask of seats whose face-down card is unused (bit s = seat s)."""
    if strategy == RANDOM:
        return random_card(available, streams)
    if strategy == GREEDY:
        if (available >> np.uint64(seat)) & np.uint64(1) != 0:
            return seat
        return lowest_card(available)
    if strategy == HEURISTIC:
        return heuristic_pick(seat, available, hand, seen, table, number, rules)
    return plugin_pick(strategy - PLUGIN_BASE, params, seat, available, hand, seen, table, number, rules, streams)


def default_params(name: str) -> tuple:
    return HEURISTIC_DEFAULTS if name == "heuristic" else (0.0,) * N_PARAMS
