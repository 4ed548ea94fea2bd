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
    search     Perfect Information Monte Carlo (strategies/search.py): every decision, the swap
               included, is tried in ``d`` deals of the cards the seat has not seen, consistent
               with what it has seen (its hand, the cards played, the voids and at-most-one
               colours the follow rule made the others show (T_VOID, T_SINGLE), infected 8 in the
               swapper's hand), each move finished to the end of the round by ``p`` playouts of
               the ``policy`` (heuristic by default) for every seat; budget
               ``search:d=10:p=1:policy=heuristic:margin=0.05`` (SEARCH_DEFAULTS)

Plug-ins get ids from PLUGIN_BASE up; simcore/plugins/dispatch.py re-executes this file with
``plugin_*`` dispatchers that call the user's functions.
"""
import numpy as np

from simcore.bits import bit, has, kth_index, lowest_index, popcount
from simcore.games.ten_tricks.rules import (
    FIRST_INFECTED, INFECTED, MAX_PLAYERS, R_BONUS, R_CAP, R_HAND, R_MAX_ROUNDS, R_PLAYERS, R_SWAP, R_TARGET,
    SWAP_CARD, T_DECK, T_LEADER, T_LOST, T_LOWER, T_PLAYED, T_PLAYS, T_ROUND, T_SEEN, T_SINGLE, T_SWAP_SEAT,
    T_TOTAL, T_TRACK, T_TRICK, T_UNLOCKED, T_UPPER, T_VOID, TABLE_WIDTH, card_rank, final_shares, lay_card,
    legal_mask, low_survivors, rescue, round_score, settle_trick, winning_position,
)
from simcore.jit import kernel
from simcore.rng import PLAY, below, mix64
from strategies.common import random_card, random_card_of_seat  # random_card_of_seat: the play loop's draw
from strategies.search import (  # the built-ins' ids, BUILTIN, PLUGIN_BASE, N_PARAMS, PARAMETER, SKILL_TIERS:
    # every card game's; describe_params: the budget as text (bench, reports)
    BUILTIN, DEAL_TRIES, GREEDY, HEURISTIC, N_PARAMS, PARAMETER, PLUGIN_BASE, POLICY_GREEDY, POLICY_HEURISTIC,
    P_DETERMINIZATIONS, P_MARGIN, P_PLAYOUTS, P_POLICY, RANDOM, SEARCH, SKILL_TIERS, below_local, best_move,
    card_game_players, deal_unseen, describe_params, search_setup, start_playout,
)

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
def number(card):
    """The printed number (track moves and attacks use it, never the 1-as-9)."""
    return card - FIRST_INFECTED if card >= FIRST_INFECTED else (card & 7) + 1


@kernel(globals(), refcounts=False)
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


@kernel(globals(), refcounts=False)
def trick_so_far(table):
    """(mask of the cards played to this trick, an infected card among them)."""
    trick = np.uint64(0)
    for i in range(table[T_PLAYED]):
        trick |= bit(table[T_PLAYS + i])
    return trick, (trick >> np.uint64(FIRST_INFECTED)) != 0


@kernel(globals(), refcounts=False)
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

@kernel(globals(), refcounts=False)
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

@kernel(globals(), refcounts=False)
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


@kernel(globals(), refcounts=False)
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


@kernel(globals(), refcounts=False)
def heuristic_swap(params, seat, hand):
    """Infected 8 feeds the track by 8 when it loses and wins most tricks it is led into; give
    up the lowest card, but only when the hand has few low cards to raise the track with."""
    low = popcount(hand & low_survivors(3))
    if low <= params[seat, H_SWAP_LOW]:
        return lowest_number_card(hand)
    return -1


# --- search (PIMC) ------------------------------------------------------------------------------
# A search seat's parameter row is its budget (strategies/search.py): determinizations,
# playouts per move, the playout policy (random, greedy or heuristic for every seat of the
# playout) and the weight of the points margin beside the win share in a playout's value.
#
# A playout finishes the ROUND, not the game, and then scores it (``round_value``): every hand
# is re-dealt at the next round, so nothing this decision can change carries over except the
# totals (and who leads next), and playing more rounds would only add the noise of deals no one
# has seen yet (at about as many times the work as there are rounds left).  When the round ends
# the game (a total reaches the target, or the round cap), the value is the searching seat's
# win share of the final standing; otherwise its share of the lead of the totals.  Both add
# ``margin`` x its points lead over the best other seat / the target.
#
# Defaults: heuristic playouts beat random ones by far at the same speed (4 players, one search
# against three heuristic, 4,000 games: random d=24 33.9 %, random d=48 37.2 %, heuristic d=8
# 45.1 %, d=10 49.3 %, d=12 50.1 %; fair 25 %); d=10 keeps one search among heuristic players
# at about 340 games/s on 2 cores at 4 players (docs/strategies.md has the measurements).
SEARCH_DEFAULTS = (10.0, 1.0, float(POLICY_HEURISTIC), 0.05)  # d=10:p=1:policy=heuristic:margin=0.05
NO_OFFER_SLOT = 63  # search_swap's totals: the slot of "no offer" (cards are 0..40)


@kernel(globals(), inline="always")
def playout_play(policy, hp, seat, hand, legal, table, rules, masks, rng):
    """A card for ``seat`` inside a playout: every seat plays the playout policy."""
    if legal & (legal - np.uint64(1)) == 0:
        return lowest_index(legal)
    if policy == POLICY_HEURISTIC:
        return heuristic_play(hp, seat, hand, legal, table, rules, masks)
    if policy == POLICY_GREEDY:
        return greedy_play(legal, table)
    return kth_index(legal, below_local(rng, popcount(legal)))


@kernel(globals(), inline="always")
def playout_swap(policy, hp, seat, hand, rng):
    """Another seat's offer for infected 8 (-1: none) as the playout policy makes it."""
    if policy == POLICY_HEURISTIC:
        return heuristic_swap(hp, seat, hand)
    if policy == POLICY_GREEDY:
        return lowest_number_card(hand)
    if below_local(rng, 2) == 1:
        return kth_index(hand, below_local(rng, popcount(hand)))
    return -1


@kernel(globals(), inline="always")
def round_value(table, rules, me, margin, shares):
    """The round in ``table`` is over: add its scores to the totals and return seat ``me``'s value
    (see the comment above SEARCH_DEFAULTS)."""
    n_players = rules[R_PLAYERS]
    best = -1
    for s in range(n_players):
        table[T_TOTAL + s] += round_score(table[T_LOWER + s], table[T_TRACK + s], table[T_LOST + s], rules)
        best = max(best, table[T_TOTAL + s])
    mine = table[T_TOTAL + me]
    best_other = -1 << 40
    tied = 1
    for s in range(n_players):
        if s != me:
            best_other = max(best_other, table[T_TOTAL + s])
            if table[T_TOTAL + s] == mine:
                tied += 1
    if best >= rules[R_TARGET] or table[T_ROUND] + 1 >= rules[R_MAX_ROUNDS]:
        final_shares(table, n_players, shares)  # the game is over: its real winner
        share = shares[me]
    else:
        share = 0.0 if best_other > mine else 1.0 / tied
    return share + margin * (mine - best_other) / rules[R_TARGET]


@kernel(globals(), refcounts=False)
def playout(table, hands, first, rules, masks, policy, hp, rng, me, margin, moved, shares):
    """Finish the round from play position ``first`` of the trick in ``table`` (T_TRICK led by
    T_LEADER, its first ``first`` cards in T_PLAYS) in a deal where every hand is known (a
    determinization), every seat playing ``policy``; the rule steps are rules.py's own
    (legal_mask, lay_card, settle_trick, round_score, final_shares).  Returns ``round_value``."""
    n_players = rules[R_PLAYERS]
    leader = table[T_LEADER]
    trick = table[T_TRICK]
    cards = np.uint64(0)
    any_infected = False
    lead = table[T_PLAYS] if first > 0 else -1
    for i in range(first):
        cards |= bit(table[T_PLAYS + i])
        any_infected = any_infected or table[T_PLAYS + i] >= FIRST_INFECTED
    while True:
        for i in range(first, n_players):
            seat = leader + i
            if seat >= n_players:
                seat -= n_players
            legal = legal_mask(hands[seat], lead, table[T_UNLOCKED], masks)
            card = playout_play(policy, hp, seat, hands[seat], legal, table, rules, masks, rng)
            hands[seat] &= ~bit(card)
            lay_card(table, i, card)
            cards |= bit(card)
            if i == 0:
                lead = card
            if card >= FIRST_INFECTED:
                any_infected = True
        winner, level, lost = settle_trick(table, leader, n_players, cards, any_infected, rules, moved)
        trick += 1
        if trick >= rules[R_HAND]:
            break
        leader = winner  # the winner leads the next trick
        first = 0
        lead = -1
        cards = np.uint64(0)
        any_infected = False
        table[T_TRICK] = trick
        table[T_LEADER] = leader
        table[T_PLAYED] = 0
        for i in range(n_players):
            table[T_PLAYS + i] = -1
    return round_value(table, rules, me, margin, shares)


@kernel(globals(), inline="always")
def others_unknown(seat, hand, table, rules, in_trick, need, voids, single):
    """What the other seats hold, as ``seat`` knows it: fills ``need[s]`` (how many unknown cards
    seat s holds: the trick and the play position tell), ``voids[s]`` (T_VOID: cards it has
    shown it lacks) and ``single[s]`` (T_SINGLE: colours it holds at most one of).  Returns the
    pool of unseen cards (this round's deck less the cards played and the seat's own hand: the
    card a swapper gave up is somewhere in it, unseen) and the seat that still holds infected 8
    (the swapper, until it plays it; -1: none, or the searching seat itself)."""
    n_players = rules[R_PLAYERS]
    seen = np.uint64(table[T_SEEN])
    pool = np.uint64(table[T_DECK]) & ~seen & ~hand
    holder = table[T_SWAP_SEAT]
    if holder == seat or has(seen, SWAP_CARD):
        holder = -1
    left = rules[R_HAND] - table[T_TRICK]
    for s in range(n_players):
        need[s] = 0
        voids[s] = np.uint64(0)
        single[s] = np.uint64(0)
        if s != seat:
            position = s - table[T_LEADER]
            if position < 0:
                position += n_players
            need[s] = left - 1 if position < in_trick else left
            if s == holder:
                need[s] -= 1  # infected 8 is one of its cards
            voids[s] = np.uint64(table[T_VOID + s])
            single[s] = np.uint64(table[T_SINGLE + s]) & ~voids[s]
    return pool, holder


@kernel(globals(), refcounts=False)
def deal_consistent(pool, need, voids, single, n_players, hands, rng, masks):
    """``deal_unseen`` (never a card of a seat's voids), redealt up to DEAL_TRIES times until no
    seat holds two cards of a colour it has shown it holds at most one of; then the last deal
    stands (the rare position where the sequential deal keeps missing)."""
    for attempt in range(DEAL_TRIES):
        deal_unseen(pool, need, voids, n_players, hands, rng)
        fits = True
        for s in range(n_players):
            if single[s] != 0:
                for c in range(4):
                    if popcount(hands[s] & single[s] & masks[c]) > 1:
                        fits = False
        if fits:
            return


@kernel(globals(), inline="always")
def playout_buffers(n_players):
    """A search's playout arrays: its copies of the hands and the table, the scratch ``playout``
    works in (``moved``, ``shares``), a playout's own draws, and the totals per move."""
    return (np.empty(n_players, dtype=np.uint64), np.empty(TABLE_WIDTH, dtype=np.int64),
            np.empty(MAX_PLAYERS, dtype=np.int64), np.empty(MAX_PLAYERS, dtype=np.float64),
            np.empty(1, dtype=np.uint64), np.zeros(64, dtype=np.float64))


@kernel(globals(), refcounts=True)
def search_play(params, seat, hand, legal, table, rules, masks, streams):
    """PIMC for 【①カードのプレイ】: every legal card, in ``d`` deals of the unseen cards consistent
    with what the seat has seen (voids and at-most-one colours shown, infected 8 with the
    swapper), each finished ``p`` times to the end of the round by the playout policy."""
    if legal & (legal - np.uint64(1)) == 0:
        return lowest_index(legal)  # one legal card: nothing to weigh (and no draw)
    n_players = rules[R_PLAYERS]
    n = table[T_PLAYED]
    policy, margin, rng, hp = search_setup(params, seat, streams, MAX_PLAYERS, HEURISTIC_DEFAULTS)
    need = np.empty(n_players, dtype=np.int64)
    voids = np.empty(n_players, dtype=np.uint64)
    single = np.empty(n_players, dtype=np.uint64)
    pool, holder = others_unknown(seat, hand, table, rules, n, need, voids, single)
    deal_hands = np.zeros(n_players, dtype=np.uint64)
    hands, ptable, moved, shares, rng_p, totals = playout_buffers(n_players)
    for _ in range(np.int64(params[seat, P_DETERMINIZATIONS])):
        deal_consistent(pool, need, voids, single, n_players, deal_hands, rng, masks)
        deal_hands[seat] = hand
        if holder >= 0:
            deal_hands[holder] |= bit(SWAP_CARD)
        for p in range(np.int64(params[seat, P_PLAYOUTS])):
            playout_seed = rng[0] + np.uint64(p + 1)  # every card meets the same playout draws
            m = legal
            while m != 0:
                c = lowest_index(m)
                m &= m - np.uint64(1)
                start_playout(table, ptable, deal_hands, hands, n_players)
                hands[seat] &= ~bit(c)
                lay_card(ptable, n, c)
                rng_p[0] = mix64(playout_seed)
                totals[c] += playout(ptable, hands, n + 1, rules, masks, policy, hp, rng_p, seat, margin, moved,
                                     shares)
        rng[0] = mix64(rng[0])  # the next deal draws on from here
    return best_move(totals, legal)


@kernel(globals(), refcounts=True)
def search_swap(params, seat, hand, table, rules, masks, streams):
    """PIMC for the swap (【ゲームの準備】②): no offer, or each card of the hand offered for
    infected 8, each played through the whole round in ``d`` deals of the other hands.  In each
    deal the other seats dealt no infected offer as the playout policy would, and one offer is
    drawn among several as the rules do (the same draw for every option)."""
    n_players = rules[R_PLAYERS]
    policy, margin, rng, hp = search_setup(params, seat, streams, MAX_PLAYERS, HEURISTIC_DEFAULTS)
    need = np.zeros(n_players, dtype=np.int64)
    voids = np.zeros(n_players, dtype=np.uint64)
    for s in range(n_players):
        if s != seat:
            need[s] = rules[R_HAND]
    pool = np.uint64(table[T_DECK]) & ~hand
    options = hand | bit(NO_OFFER_SLOT)
    deal_hands = np.zeros(n_players, dtype=np.uint64)
    offers = np.full(n_players, -1, dtype=np.int64)
    hands, ptable, moved, shares, rng_p, totals = playout_buffers(n_players)
    for _ in range(np.int64(params[seat, P_DETERMINIZATIONS])):
        deal_unseen(pool, need, voids, n_players, deal_hands, rng)
        deal_hands[seat] = hand
        others = 0
        for s in range(n_players):
            offers[s] = -1
            if s != seat and deal_hands[s] & masks[INFECTED] == 0 and rules[R_SWAP] != 0:
                offers[s] = playout_swap(policy, hp, s, deal_hands[s], rng)
                if offers[s] >= 0:
                    others |= 1 << s
        for p in range(np.int64(params[seat, P_PLAYOUTS])):
            playout_seed = rng[0] + np.uint64(p + 1)
            m = options
            while m != 0:
                o = lowest_index(m)
                m &= m - np.uint64(1)
                start_playout(table, ptable, deal_hands, hands, n_players)
                rng_p[0] = mix64(playout_seed)
                draw = below_local(rng_p, 12)  # one draw whatever the options: 12 splits evenly 1..4 ways
                offering = others if o == NO_OFFER_SLOT else others | (1 << seat)
                k = popcount(np.uint64(offering))
                if k > 0:
                    swapper = kth_index(np.uint64(offering), draw % k)
                    give = o if swapper == seat else offers[swapper]
                    hands[swapper] = (hands[swapper] & ~bit(give)) | bit(SWAP_CARD)
                    ptable[T_SWAP_SEAT] = swapper
                # int64, not a literal: one compiled playout (a literal argument compiles a version of its own)
                totals[o] += playout(ptable, hands, np.int64(0), rules, masks, policy, hp, rng_p, seat, margin, moved,
                                     shares)
        rng[0] = mix64(rng[0])
    best = best_move(totals, options)
    return -1 if best == NO_OFFER_SLOT else best


# --- plug-ins ---------------------------------------------------------------------

PLUGIN_DECISIONS = {
    "swap": "params, seat, hand, table, rules, masks, streams",
    "play": "params, seat, hand, legal, table, rules, masks, streams",
}
# the types the play loop passes them, in Numba's notation: a plug-in's functions are compiled
# for these alone, apart from the loop (simcore/plugins/table.py, plugin_row)
PLUGIN_TYPES = {
    "swap": "float64[:, ::1], int64, uint64, int64[::1], int64[::1], uint64[::1], uint64[::1]",
    "play": "float64[:, ::1], int64, uint64, uint64, int64[::1], int64[::1], uint64[::1], uint64[::1]",
}

if "plugin_play" not in globals():  # stock build: no plug-ins, these are never reached

    @kernel(globals(), refcounts=True)
    def plugin_swap(k, params, seat, hand, table, rules, masks, streams):
        return random_swap(params, seat, hand, table, rules, masks, streams)

    @kernel(globals(), refcounts=True)
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
    if strategy == SEARCH:
        return search_swap(params, seat, hand, table, rules, masks, streams)
    return plugin_swap(strategy - PLUGIN_BASE, params, seat, hand, table, rules, masks, streams)


@kernel(globals(), inline="always")
def choose_play(strategy, params, seat, hand, legal, table, rules, masks, streams):
    if strategy == RANDOM:
        return random_card(legal, streams)
    if strategy == GREEDY:
        return greedy_play(legal, table)
    if strategy == HEURISTIC:
        return heuristic_play(params, seat, hand, legal, table, rules, masks)
    if strategy == SEARCH:
        return search_play(params, seat, hand, legal, table, rules, masks, streams)
    return plugin_play(strategy - PLUGIN_BASE, params, seat, hand, legal, table, rules, masks, streams)


# the skill ladder (`balance ladder`), weakest first: each rung must beat a field of the one below;
# PARAMETER and SKILL_TIERS (skill vs luck) are every card game's (strategies/search.py)
LADDER = ("random", "greedy", "heuristic", "search", "search:d=40")
describe, default_params = card_game_players(SEARCH_DEFAULTS, HEURISTIC_DEFAULTS, N_PARAMS)
