"""Players for TriATri, compiled into the kernel's dispatch.

Three decisions, each one function of the strategy id, the parameter matrix (row = seat) and the
public state (T_* layout in simcore/games/triatri/rules.py; ``hand`` is the deciding seat's own hand):

    choose_bid(...)  -> the card to reveal in the start-player bid (from ``hand``)
    choose_gem(...)  -> the gem option to play for: c = a supply gem of colour c, 3 + c = one of
                        the start player's own gems of colour c (one of ``options``, a bitmask)
    choose_play(...) -> the card to play (one of ``legal``)

Built-ins:
    random     uniform over the hand (bid), the allowed options and the legal cards
    greedy     bids its highest number; plays for the supply colour of its highest card; takes
               every trick it can with the cheapest card that leads for now, otherwise plays its
               lowest number (a fake only to take a trick); leads its highest card
    heuristic  values each gem by what it does to its own score (sets, -2 pairs, what leftovers
               are worth, the instant win, ending the game while ahead or behind); plays for
               the option with the best expected change, including offering its own gem to
               get rid of a -2 pair; wins only tricks worth winning, cheaply when it plays last;
               keeps its fakes for a late seat and a valuable trick; bids its lowest number

Plug-ins get ids from PLUGIN_BASE up; simcore/plugins.py re-executes this file with
``plugin_*`` dispatchers that call the user's functions.
"""
import numpy as np

from simcore.bits import HAS_PDEP, bit, kth_index, pdep, popcount, trailing_zeros
from simcore.games.triatri.rules import (
    FAKE, HELD_COLOURLESS, R_INSTANT_SETS, R_PLAYERS, T_GEM, T_GEMS, T_HELD, T_ORDER, T_PLAYED, T_SEEN,
    T_START, T_SUPPLY, T_VALUE, draw_below, place_card, score_of, trick_leader,
)
from simcore.jit import kernel
from simcore.rng import PLAY

RANDOM, GREEDY, HEURISTIC = 0, 1, 2
BUILTIN = {"random": RANDOM, "greedy": GREEDY, "heuristic": HEURISTIC}
PLUGIN_BASE = 16
N_PARAMS = 4  # parameter slots per seat (plug-ins may use them)

# heuristic tuning (parameter row defaults), set by hand: fake_at = the smallest trick value a
# fake is spent on; ahead = how much ending the game is worth per point of lead
H_FAKE_AT, H_AHEAD = 0, 1
HEURISTIC_DEFAULTS = (6.0, 1.0, 0.0, 0.0)
INSTANT_WIN_VALUE = 50.0


# --- shared helpers ------------------------------------------------------------

if HAS_PDEP:
    @kernel(globals(), inline="always")
    def kth_card(mask, k):
        """The k-th lowest set bit of ``mask`` (0-based): PDEP deposits bit k at the k-th set bit
        and TZCNT reads its index, without kth_index's loop of k steps (a random k makes that
        loop's exit a branch the CPU cannot predict)."""
        return np.int64(trailing_zeros(pdep(np.uint64(1) << np.uint64(k), mask)))
else:
    kth_card = kth_index


@kernel(globals(), inline="always")
def random_pick(state, mask):
    """The random strategy's draw on a PLAY state held in a local: (new state, a uniform pick
    among the set bits of ``mask``).  The all-random play loop calls it directly."""
    state, k = draw_below(state, popcount(mask))
    return state, kth_card(mask, k)


@kernel(globals(), inline="always")
def random_card(mask, streams):
    state, card = random_pick(streams[PLAY], mask)
    streams[PLAY] = state
    return card


@kernel(globals(), inline="always")
def random_option(options, streams):
    return random_card(np.uint64(options), streams)


@kernel(globals(), inline="always")
def numbered(mask, masks):
    return mask & ~masks[FAKE]


@kernel(globals())
def extreme_card(mask, cards, highest):
    """The numbered card of ``mask`` with the highest (or lowest) number; -1 if none."""
    best = -1
    m = mask
    while m:
        i = kth_index(m, 0)
        m &= m - np.uint64(1)
        if cards[i, 0] < 0:
            continue
        if best < 0 or (cards[i, 1] > cards[best, 1] if highest else cards[i, 1] < cards[best, 1]):
            best = i
    return best


@kernel(globals())
def leads_if_played(table, rules, cards, seat, card):
    """Would ``seat`` lead the trick for now after playing ``card``?  (Placed and taken back.)"""
    position = table[T_PLAYED]
    # place_card changes this position's order slot and the held card and value of the seat (and
    # of a fake's victim): keep all four seats' (MAX_PLAYERS) in locals, not in an array
    # allocated per call (this runs for every card the greedy and heuristic players consider)
    h0, h1, h2, h3 = table[T_HELD], table[T_HELD + 1], table[T_HELD + 2], table[T_HELD + 3]
    v0, v1, v2, v3 = table[T_VALUE], table[T_VALUE + 1], table[T_VALUE + 2], table[T_VALUE + 3]
    order = table[T_ORDER + position]
    place_card(table, rules, cards, seat, card, position)
    leader = trick_leader(table, cards, position + 1)
    table[T_HELD], table[T_HELD + 1], table[T_HELD + 2], table[T_HELD + 3] = h0, h1, h2, h3
    table[T_VALUE], table[T_VALUE + 1], table[T_VALUE + 2], table[T_VALUE + 3] = v0, v1, v2, v3
    table[T_ORDER + position] = order
    return leader == seat


@kernel(globals())
def cheapest_leading(table, rules, cards, masks, seat, legal):
    """The lowest-numbered card of ``legal`` that leads the trick for now (-1 if none)."""
    best = -1
    m = numbered(legal, masks)
    while m:
        i = kth_index(m, 0)
        m &= m - np.uint64(1)
        if (best < 0 or cards[i, 1] < cards[best, 1]) and leads_if_played(table, rules, cards, seat, i):
            best = i
    return best


@kernel(globals(), inline="always")
def gem_option_colour(option):
    return option - 3 if option >= 3 else option


# --- random -----------------------------------------------------------------

@kernel(globals())
def random_bid(params, seat, hand, table, rules, cards, masks, streams):
    return random_card(hand, streams)


@kernel(globals())
def random_gem(params, seat, options, hand, table, rules, cards, masks, streams):
    return random_option(options, streams)


@kernel(globals())
def random_play(params, seat, hand, legal, table, rules, cards, masks, streams):
    return random_card(legal, streams)


# --- greedy -----------------------------------------------------------------

@kernel(globals())
def greedy_bid(hand, cards):
    best = extreme_card(hand, cards, True)
    return best if best >= 0 else kth_index(hand, 0)


@kernel(globals())
def greedy_gem(options, hand, cards, masks):
    best, best_number = -1, -1
    for c in range(3):
        if (options >> c) & 1:
            top = extreme_card(hand & masks[c], cards, True)
            number = cards[top, 1] if top >= 0 else 0
            if number > best_number:
                best, best_number = c, number
    if best >= 0:
        return best
    return kth_index(np.uint64(options), 0)


@kernel(globals())
def greedy_play(seat, legal, table, rules, cards, masks):
    if table[T_PLAYED] == 0:
        top = extreme_card(legal, cards, True)
        return top if top >= 0 else kth_index(legal, 0)
    card = cheapest_leading(table, rules, cards, masks, seat, legal)
    if card >= 0:
        return card
    fakes = legal & masks[FAKE]
    if fakes:
        return kth_index(fakes, 0)
    low = extreme_card(legal, cards, False)
    return low if low >= 0 else kth_index(legal, 0)


# --- heuristic ----------------------------------------------------------------

@kernel(globals())
def gem_change(table, rules, seat, colour, delta, from_supply):
    """What gaining (delta +1) or losing (-1) one gem of ``colour`` does to ``seat``'s score,
    with the supply as it would then be; an instant win is worth INSTANT_WIN_VALUE."""
    # the seat's gems g0..g2 and the supply s0..s2 as locals (no arrays allocated per call)
    g0, g1, g2 = table[T_GEMS + 3 * seat], table[T_GEMS + 3 * seat + 1], table[T_GEMS + 3 * seat + 2]
    s0, s1, s2 = table[T_SUPPLY], table[T_SUPPLY + 1], table[T_SUPPLY + 2]
    before = score_of(g0, g1, g2, s0, s1, s2, rules)
    supply_delta = delta if from_supply else 0
    if colour == 0:
        g0 += delta
        s0 -= supply_delta
    elif colour == 1:
        g1 += delta
        s1 -= supply_delta
    else:
        g2 += delta
        s2 -= supply_delta
    after = score_of(g0, g1, g2, s0, s1, s2, rules)
    sets = rules[R_INSTANT_SETS]
    if delta > 0 and sets > 0 and g0 >= sets and g1 >= sets and g2 >= sets:
        return INSTANT_WIN_VALUE
    change = float(after - before)
    left = s0 if colour == 0 else s1 if colour == 1 else s2
    if from_supply and delta > 0 and left == 0:
        # taking the last supply gem ends the game: worth it when ahead, a disaster when behind
        mine = after
        best_other = -1 << 30
        for other in range(rules[R_PLAYERS]):
            if other != seat:
                o = score_of(table[T_GEMS + 3 * other], table[T_GEMS + 3 * other + 1],
                             table[T_GEMS + 3 * other + 2], s0, s1, s2, rules)
                best_other = max(best_other, o)
        change += 10.0 if mine > best_other else -10.0
    return change


@kernel(globals())
def trick_worth(table, rules, seat, option):
    """(value of winning, value of losing) this trick's gem for ``seat``."""
    colour = gem_option_colour(option)
    start = table[T_START]
    if option < 3:
        return gem_change(table, rules, seat, colour, 1, True), 0.0
    if seat == start:  # my own gem: winning keeps it, losing hands it over
        return 0.0, gem_change(table, rules, seat, colour, -1, False)
    return gem_change(table, rules, seat, colour, 1, False), 0.0


@kernel(globals())
def win_chance(table, rules, cards, masks, hand, colour):
    """Rough chance of taking a trick in ``colour`` led with my highest card of it: every
    unseen higher card of the colour, or fake, sits with an opponent with probability q."""
    mine = hand & masks[colour]
    if not mine:
        return 0.05
    # a colour's ids ascend with the number (simcore/games/triatri/rules.py), so my highest card of it
    # is its highest bit and the higher cards of the colour are the bits above that one
    top = kth_card(mine, popcount(mine) - 1)
    unseen = ~(hand | np.uint64(table[T_SEEN]))
    m = unseen & (masks[0] | masks[1] | masks[2] | masks[FAKE])
    total_unseen = popcount(m)
    higher = masks[colour] & ~((bit(top) << np.uint64(1)) - np.uint64(1))
    threats = popcount(m & (masks[FAKE] | higher))
    # cards still in the opponents' hands: everything they were dealt minus what they played
    others = rules[R_PLAYERS] - 1
    dealt_unseen = popcount(hand) * others
    q = min(1.0, dealt_unseen / max(total_unseen, 1))
    return (1.0 - q) ** threats


@kernel(globals())
def heuristic_gem(params, seat, options, hand, table, rules, cards, masks):
    best, best_value = -1, -1e9
    for option in range(6):
        if (options >> option) & 1 == 0:
            continue
        colour = gem_option_colour(option)
        win, lose = trick_worth(table, rules, seat, option)
        p = win_chance(table, rules, cards, masks, hand, colour)
        value = p * win + (1.0 - p) * lose
        if value > best_value:
            best, best_value = option, value
    return best


@kernel(globals())
def heuristic_play(params, seat, hand, legal, table, rules, cards, masks):
    option = table[T_GEM]
    win, lose = trick_worth(table, rules, seat, option)
    want = win > lose
    position = table[T_PLAYED]
    last = position == rules[R_PLAYERS] - 1
    fakes = legal & masks[FAKE]
    if position == 0:
        top = extreme_card(legal, cards, True) if want else extreme_card(legal, cards, False)
        return top if top >= 0 else kth_index(legal, 0)
    if want:
        if last:
            card = cheapest_leading(table, rules, cards, masks, seat, legal)
        else:
            card = extreme_card(legal, cards, True)
            if card >= 0 and not leads_if_played(table, rules, cards, seat, card):
                card = -1
        if card >= 0:
            return card
        leader = trick_leader(table, cards, position)
        if fakes and (last or table[T_VALUE + leader] >= params[seat, H_FAKE_AT]) \
                and table[T_HELD + leader] != HELD_COLOURLESS:
            return kth_index(fakes, 0)
    # not worth winning (or cannot): the lowest number that does not lead, else the lowest
    best = -1
    m = numbered(legal, masks)
    while m:
        i = kth_index(m, 0)
        m &= m - np.uint64(1)
        if (best < 0 or cards[i, 1] < cards[best, 1]) and not leads_if_played(table, rules, cards, seat, i):
            best = i
    if best >= 0:
        return best
    low = extreme_card(legal, cards, False)
    return low if low >= 0 else kth_index(legal, 0)


@kernel(globals())
def heuristic_bid(hand, cards):
    low = extreme_card(hand, cards, False)
    return low if low >= 0 else kth_index(hand, 0)


# --- plug-ins ---------------------------------------------------------------------

PLUGIN_DECISIONS = {
    "bid": "params, seat, hand, table, rules, cards, masks, streams",
    "gem": "params, seat, options, hand, table, rules, cards, masks, streams",
    "play": "params, seat, hand, legal, table, rules, cards, masks, streams",
}

if "plugin_play" not in globals():  # stock build: no plug-ins, these are never reached

    @kernel(globals())
    def plugin_bid(k, params, seat, hand, table, rules, cards, masks, streams):
        return random_card(hand, streams)

    @kernel(globals())
    def plugin_gem(k, params, seat, options, hand, table, rules, cards, masks, streams):
        return random_option(options, streams)

    @kernel(globals())
    def plugin_play(k, params, seat, hand, legal, table, rules, cards, masks, streams):
        return random_card(legal, streams)


# --- dispatch ------------------------------------------------------------------------

@kernel(globals(), inline="always")
def choose_bid(strategy, params, seat, hand, table, rules, cards, masks, streams):
    if strategy == RANDOM:
        return random_card(hand, streams)
    if strategy == GREEDY:
        return greedy_bid(hand, cards)
    if strategy == HEURISTIC:
        return heuristic_bid(hand, cards)
    return plugin_bid(strategy - PLUGIN_BASE, params, seat, hand, table, rules, cards, masks, streams)


@kernel(globals(), inline="always")
def choose_gem(strategy, params, seat, options, hand, table, rules, cards, masks, streams):
    if strategy == RANDOM:
        return random_option(options, streams)
    if strategy == GREEDY:
        return greedy_gem(options, hand, cards, masks)
    if strategy == HEURISTIC:
        return heuristic_gem(params, seat, options, hand, table, rules, cards, masks)
    return plugin_gem(strategy - PLUGIN_BASE, params, seat, options, hand, table, rules, cards, masks, streams)


@kernel(globals(), inline="always")
def choose_play(strategy, params, seat, hand, legal, table, rules, cards, masks, streams):
    if strategy == RANDOM:
        return random_card(legal, streams)
    if strategy == GREEDY:
        return greedy_play(seat, legal, table, rules, cards, masks)
    if strategy == HEURISTIC:
        return heuristic_play(params, seat, hand, legal, table, rules, cards, masks)
    return plugin_play(strategy - PLUGIN_BASE, params, seat, hand, legal, table, rules, cards, masks, streams)


def default_params(name: str, argument: str | None = None) -> tuple:
    """Parameter row of a built-in strategy."""
    if name == "heuristic":
        return HEURISTIC_DEFAULTS
    return (0.0,) * N_PARAMS
