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
    search     Perfect Information Monte Carlo (strategies/search.py): every decision is
               tried in many deals of the unseen cards consistent with what the seat has
               seen (its own face-down card, the voids shown), each finished by playouts

Plug-ins get ids from PLUGIN_BASE up; simcore/plugins/dispatch.py re-executes this file
with ``plugin_*`` dispatchers that call the user's functions.
"""
import numpy as np

from simcore.bits import bit, kth_index, kth_set_bit, lowest_index, popcount
from simcore.games.bird_weather.rules import (
    FACEDOWN_HIDDEN, FACEDOWN_NONE, MAX_PLAYERS, R_DECK, R_FACEDOWN, R_HAND, R_PLAYERS, R_TRICKS, REVERSAL, T_DEAL,
    T_FACEDOWN, T_LEADER, T_NPLAYED, T_PLAY, T_SCORE, T_TOTAL, T_TRICK, T_VOID, T_WON, TABLE_WIDTH, digits,
    legal_plays, resolve_trick, trick_points, unseen_mask,
)
from simcore.jit import kernel
from simcore.rng import mix64
from strategies.common import random_card, random_card_of_seat  # random_card_of_seat: the play loop's draw
from strategies.search import (  # the built-ins' ids, BUILTIN, PLUGIN_BASE, N_PARAMS, PARAMETER, SKILL_TIERS:
    # every card game's; describe_params: the budget as text (bench, reports)
    BUILTIN, GREEDY, HEURISTIC, N_PARAMS, PARAMETER, PLUGIN_BASE, POLICY_GREEDY, POLICY_HEURISTIC, POLICY_RANDOM,
    P_DETERMINIZATIONS, P_MARGIN, P_PLAYOUTS, P_POLICY, RANDOM, SEARCH, SKILL_TIERS, below_local, best_move,
    card_game_players, deal_unseen, describe_params, search_setup, step_below,
)

# heuristic tuning (parameter row defaults), set by hand: starve = weight of points handed to
# another winner, risk = chance a beatable winning card holds, keep = cost of spending a high card
H_STARVE, H_RISK, H_KEEP = 0, 1, 2
HEURISTIC_DEFAULTS = (0.6, 0.35, 0.08, 0.0)


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


@kernel(globals(), refcounts=False)
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


# --- search (PIMC) ------------------------------------------------------------------------------
# A search seat's parameter row is its budget (strategies/search.py): determinizations,
# playouts per move, the playout policy (random, greedy or heuristic for every seat) and the
# weight of the points margin beside the win share in a playout's value.
SEARCH_DEFAULTS = (24.0, 1.0, 0.0, 0.05)


@kernel(globals(), inline="always")
def playout_play(policy, hp, seat, hand, legal, seen, table, number, follow, rules, rng):
    """A card for ``seat`` inside a playout: every seat plays the playout policy."""
    if policy == POLICY_HEURISTIC:
        return heuristic_play(hp, seat, hand, legal, seen, table, number, follow, rules)
    if policy == POLICY_GREEDY:
        return greedy_play(hand, legal, table, number, rules)
    return kth_set_bit(legal, below_local(rng, popcount(legal)))


@kernel(globals(), inline="always")
def playout_pick(policy, hp, seat, available, hand, seen, table, number, rules, rng):
    if policy == POLICY_HEURISTIC:
        return heuristic_pick(seat, available, hand, seen, table, number, rules)
    if policy == POLICY_GREEDY:
        return seat if (available >> np.uint64(seat)) & np.uint64(1) != 0 else lowest_card(available)
    return kth_set_bit(available, below_local(rng, popcount(available)))


@kernel(globals(), inline="always")
def take_points(table, facedown, seen, winner, pick_seat, points, number):
    """Score the trick for ``winner``; ``pick_seat`` >= 0: it takes that seat's face-down card
    (§6-③) and scores its ones digit instead.  Returns the cards seen afterwards."""
    if pick_seat >= 0:
        card = facedown[pick_seat]
        facedown[pick_seat] = FACEDOWN_NONE
        table[T_FACEDOWN + pick_seat] = FACEDOWN_NONE
        seen |= bit(card)
        points = digits(number[card])[1]
    table[T_SCORE + winner] += points
    table[T_WON + winner] += 1
    return seen


@kernel(globals(), refcounts=False)
def playout(table, hands, facedown, seen, leader, first, trick, rules, number, follow, policy, hp, rng, me, margin):
    """Finish the deal from play position ``first`` of trick ``trick`` (led by ``leader``) with
    every seat playing ``policy``, in a deal where ``hands``/``facedown`` are known (a
    determinization; the table shows every face-down card, as each seat would know its own).
    Returns seat ``me``'s value: its win share of the match standing at the end of the deal
    plus ``margin`` x its points lead over the best other seat / 10."""
    n_players = rules[R_PLAYERS]
    while trick < rules[R_TRICKS]:
        table[T_TRICK] = trick
        table[T_LEADER] = leader
        lead = table[T_PLAY] if first > 0 else -1
        for i in range(first, n_players):
            seat = leader + i - n_players if leader + i >= n_players else leader + i
            table[T_NPLAYED] = i
            legal = legal_plays(hands[seat], lead, follow)
            card = playout_play(policy, hp, seat, hands[seat], legal, seen, table, number, follow, rules, rng)
            hands[seat] &= ~bit(card)
            seen |= bit(card)
            table[T_PLAY + i] = card
            if i == 0:
                lead = card
        table[T_NPLAYED] = n_players
        win_pos, kind, points_pos, points = trick_points(table, number, rules, n_players)
        winner = leader + win_pos - n_players if leader + win_pos >= n_players else leader + win_pos
        pick_seat = -1
        if points == 0 and rules[R_FACEDOWN] != 0:
            available = np.uint64(0)
            for s in range(n_players):
                if facedown[s] >= 0:
                    available |= bit(s)
            if available != 0:
                pick_seat = playout_pick(policy, hp, winner, available, hands[winner], seen, table, number, rules, rng)
        seen = take_points(table, facedown, seen, winner, pick_seat, points, number)
        leader = winner
        first = 0
        trick += 1
    return standing_value(table, n_players, me, margin)


@kernel(globals(), refcounts=False)
def random_playout(table, hands, facedown, leader, first, trick, rules, number, follow, state, me, margin):
    """``playout`` with the random policy, as lean as the play loop: the same draws (``state``
    is the generator ``playout`` holds in its one-slot array), the same cards, the same value
    (tests/players/test_search.py holds the two side by side).  A random seat reads nothing, so only
    what decides the deal is kept up to date: the cards of the trick (``table``'s T_PLAY slots,
    which ``trick_points`` reads), the face-down cards and T_SCORE; not the cards seen, the
    voids, the tricks won or the play position.

    Why it is 4-5x faster per card than ``playout``: its card loop hands no array to a function
    across a branch or a call, so Numba's reference-count pruning leaves no NRT_incref/decref
    in it; ``playout``'s policy dispatch (an inlined function holding a call) kept six of each,
    atomic operations behind calls, per card (``inspect_asm``).  For the same reason the
    searches call it directly, with the policy tested at the call: a helper holding both calls
    would take and give back a reference to each array it is handed, every playout.  The
    generator lives in a register and the seat and winner wrap around without a division."""
    n_players = rules[R_PLAYERS]
    available = np.uint64(0)  # seats whose face-down card is still there to take (§6-③)
    if rules[R_FACEDOWN] != 0:
        for s in range(n_players):
            if facedown[s] >= 0:
                available |= bit(s)
    lead = table[T_PLAY] if first > 0 else -1
    while trick < rules[R_TRICKS]:
        seat = leader + first - n_players if leader + first >= n_players else leader + first
        for i in range(first, n_players):
            legal = legal_plays(hands[seat], lead, follow)
            k, state = step_below(state, popcount(legal))
            card = kth_set_bit(legal, k)
            hands[seat] &= ~bit(card)
            table[T_PLAY + i] = card
            lead = card if i == 0 else lead
            seat = 0 if seat == n_players - 1 else seat + 1
        win_pos, kind, points_pos, points = trick_points(table, number, rules, n_players)
        winner = leader + win_pos - n_players if leader + win_pos >= n_players else leader + win_pos
        if points == 0 and available != 0:
            k, state = step_below(state, popcount(available))
            pick_seat = kth_set_bit(available, k)
            available &= ~bit(pick_seat)
            points = digits(number[facedown[pick_seat]])[1]
            facedown[pick_seat] = FACEDOWN_NONE
        table[T_SCORE + winner] += points
        leader = winner
        first = 0
        lead = -1
        trick += 1
    return standing_value(table, n_players, me, margin)


@kernel(globals(), inline="always")
def standing_value(table, n_players, me, margin):
    mine = table[T_TOTAL + me] + table[T_SCORE + me]
    best_other = -1 << 40
    tied = 1
    for s in range(n_players):
        if s != me:
            total = table[T_TOTAL + s] + table[T_SCORE + s]
            if total > best_other:
                best_other = total
            if total == mine:
                tied += 1
    share = 0.0 if best_other > mine else 1.0 / tied
    return share + margin * (mine - best_other) / 10.0


@kernel(globals(), inline="always")
def others_unknown(seat, table, rules, in_trick):
    """What the other seats hold, as ``seat`` knows it: how many cards each holds (the play
    position of this trick tells who has played) and the cards each has shown it lacks."""
    n_players = rules[R_PLAYERS]
    need = np.zeros(n_players, dtype=np.int64)
    voids = np.zeros(n_players, dtype=np.uint64)
    left = rules[R_TRICKS] - table[T_TRICK]
    for s in range(n_players):
        if s != seat:
            played = (s - table[T_LEADER]) % n_players < in_trick
            need[s] = left - 1 if played else left
            voids[s] = np.uint64(table[T_VOID + s])
    return need, voids


@kernel(globals(), inline="always")
def deal_facedowns(seat, table, rules, rest, facedown, rng):
    """The face-down cards as one determinization has them: the seat's own as it knows it, a
    card of ``rest`` for each other seat whose card is unused (hidden), none once taken."""
    for s in range(rules[R_PLAYERS]):
        if s == seat:
            facedown[s] = table[T_FACEDOWN + s]
        elif table[T_FACEDOWN + s] == FACEDOWN_HIDDEN:
            c = kth_set_bit(rest, below_local(rng, popcount(rest)))
            rest &= ~bit(c)
            facedown[s] = c
        else:
            facedown[s] = FACEDOWN_NONE
    return rest


@kernel(globals(), inline="always")
def start_playout(base, table, deal_hands, hands, deal_facedown, facedown, n_players):
    """Reset a playout's table, hands and face-down cards to the determinization's."""
    for k in range(TABLE_WIDTH):  # not ``table[:] = base``: its overlap check calls out of the loop
        table[k] = base[k]
    for s in range(n_players):
        hands[s] = deal_hands[s]
        facedown[s] = deal_facedown[s]
        table[T_FACEDOWN + s] = deal_facedown[s]


@kernel(globals(), inline="always")
def search_start(params, seat, hand, seen, table, rules, streams, in_trick):
    """What a search during the tricks starts from: the seat's playout policy and margin, the
    decision's own random numbers, the playouts' parameter rows, what the others hold as ``seat``
    knows it (``in_trick``: the play position, others_unknown) and the cards it has not seen."""
    policy, margin, rng, hp = search_setup(params, seat, streams, MAX_PLAYERS, HEURISTIC_DEFAULTS)
    need, voids = others_unknown(seat, table, rules, in_trick)
    pool = unseen_mask(rules[R_DECK], hand, seen, table[T_FACEDOWN + seat])
    return policy, margin, rng, hp, need, voids, pool


@kernel(globals(), inline="always")
def search_buffers(n_players):
    """A search's arrays: the dealt hands and face-down cards, a playout's copies of them and of
    the table, the totals per card, and a playout's own draws."""
    return (np.zeros(n_players, dtype=np.uint64), np.empty(n_players, dtype=np.int64),
            np.empty(n_players, dtype=np.uint64), np.empty(n_players, dtype=np.int64),
            np.empty(TABLE_WIDTH, dtype=np.int64), np.zeros(64, dtype=np.float64), np.empty(1, dtype=np.uint64))


@kernel(globals(), inline="always")
def deal_consistent(pool, need, voids, n_players, seat, hand, table, rules, deal_hands, deal_facedown, rng):
    """One deal of the cards ``seat`` has not seen, consistent with what it has seen, and of the
    face-down cards it does not know."""
    rest = deal_unseen(pool, need, voids, n_players, deal_hands, rng)
    deal_hands[seat] = hand
    deal_facedowns(seat, table, rules, rest, deal_facedown, rng)


@kernel(globals(), refcounts=True)
def search_play(params, seat, hand, legal, seen, table, number, follow, rules, streams):
    """PIMC for §5-②: every legal card, in ``d`` deals of the unseen cards that respect the
    voids the others have shown, each finished ``p`` times by the playout policy."""
    if legal & (legal - np.uint64(1)) == 0:
        return lowest_index(legal)  # one legal card: nothing to weigh
    n_players = rules[R_PLAYERS]
    n = table[T_NPLAYED]
    policy, margin, rng, hp, need, voids, pool = search_start(params, seat, hand, seen, table, rules, streams, n)
    deal_hands, deal_facedown, hands, facedown, ptable, totals, rng_p = search_buffers(n_players)
    for _ in range(np.int64(params[seat, P_DETERMINIZATIONS])):
        deal_consistent(pool, need, voids, n_players, seat, hand, table, rules, deal_hands, deal_facedown, rng)
        for p in range(np.int64(params[seat, P_PLAYOUTS])):
            playout_seed = rng[0] + np.uint64(p + 1)  # every card meets the same playout draws
            m = legal
            while m != 0:
                c = lowest_index(m)
                m &= m - np.uint64(1)
                start_playout(table, ptable, deal_hands, hands, deal_facedown, facedown, n_players)
                hands[seat] &= ~bit(c)
                ptable[T_PLAY + n] = c
                if policy == POLICY_RANDOM:  # called here, not through a helper: see random_playout
                    # every position and trick as int64 here and below: one compiled playout of each kind
                    # (a literal argument, such as the 0 of a first card, compiles a version of its own)
                    totals[c] += random_playout(ptable, hands, facedown, table[T_LEADER], n + 1, table[T_TRICK], rules,
                                                number, follow, mix64(playout_seed), seat, margin)
                else:
                    rng_p[0] = mix64(playout_seed)
                    totals[c] += playout(ptable, hands, facedown, seen | bit(c), table[T_LEADER], n + 1,
                                         table[T_TRICK], rules, number, follow, policy, hp, rng_p, seat, margin)
        rng[0] = mix64(rng[0])  # the next deal draws on from here
    return best_move(totals, legal)


@kernel(globals(), inline="always")
def follow_masks(number, rules):
    """``follow`` as Setup builds it (the pick and face-down decisions are not handed it)."""
    n = rules[R_DECK]
    follow = np.zeros(n, dtype=np.uint64)
    for i in range(n):
        for j in range(n):
            if number[i] // 10 == number[j] // 10 or number[i] % 10 == number[j] % 10:
                follow[i] |= bit(j)
    return follow


@kernel(globals(), refcounts=True)
def search_pick(params, seat, available, hand, seen, table, number, rules, streams):
    """PIMC for §6-③: whose face-down card to take after a 0-point trick (``seat`` won it),
    each choice finished in ``d`` deals of the unseen cards."""
    if available & (available - np.uint64(1)) == 0:
        return lowest_index(available)
    follow = follow_masks(number, rules)
    n_players = rules[R_PLAYERS]
    policy, margin, rng, hp, need, voids, pool = search_start(params, seat, hand, seen, table, rules, streams,
                                                              n_players)
    deal_hands, deal_facedown, hands, facedown, ptable, totals, rng_p = search_buffers(n_players)
    for _ in range(np.int64(params[seat, P_DETERMINIZATIONS])):
        deal_consistent(pool, need, voids, n_players, seat, hand, table, rules, deal_hands, deal_facedown, rng)
        for p in range(np.int64(params[seat, P_PLAYOUTS])):
            playout_seed = rng[0] + np.uint64(p + 1)
            m = available
            while m != 0:
                s = lowest_index(m)
                m &= m - np.uint64(1)
                start_playout(table, ptable, deal_hands, hands, deal_facedown, facedown, n_players)
                after = take_points(ptable, facedown, seen, seat, s, 0, number)
                if policy == POLICY_RANDOM:
                    totals[s] += random_playout(ptable, hands, facedown, seat, np.int64(0), table[T_TRICK] + 1, rules,
                                                number, follow, mix64(playout_seed), seat, margin)
                else:
                    rng_p[0] = mix64(playout_seed)
                    totals[s] += playout(ptable, hands, facedown, after, seat, np.int64(0), table[T_TRICK] + 1, rules,
                                         number, follow, policy, hp, rng_p, seat, margin)
        rng[0] = mix64(rng[0])
    return best_move(totals, available)


@kernel(globals(), refcounts=True)
def search_facedown(params, seat, hand, table, number, rules, streams):
    """PIMC for §5-①: which card to lay face down, each choice played through the whole deal
    in ``d`` deals of the other seats' hands (their face-down cards chosen by the policy)."""
    follow = follow_masks(number, rules)
    n_players = rules[R_PLAYERS]
    policy, margin, rng, hp = search_setup(params, seat, streams, MAX_PLAYERS, HEURISTIC_DEFAULTS)
    need = np.zeros(n_players, dtype=np.int64)
    voids = np.zeros(n_players, dtype=np.uint64)
    for s in range(n_players):
        if s != seat:
            need[s] = rules[R_HAND]
    everything = ~np.uint64(0) if rules[R_DECK] == 64 else (np.uint64(1) << np.uint64(rules[R_DECK])) - np.uint64(1)
    pool = everything & ~hand
    deal_hands, deal_facedown, hands, facedown, ptable, totals, rng_p = search_buffers(n_players)
    base = np.empty(TABLE_WIDTH, dtype=np.int64)
    base[:] = table
    for s in range(n_players):
        base[T_SCORE + s] = 0
        base[T_WON + s] = 0
        base[T_VOID + s] = 0
    for _ in range(np.int64(params[seat, P_DETERMINIZATIONS])):
        deal_unseen(pool, need, voids, n_players, deal_hands, rng)
        for s in range(n_players):  # the others lay down their cards as the policy would
            if s != seat:
                if policy == POLICY_HEURISTIC:
                    c = heuristic_facedown(deal_hands[s], number, rules)
                elif policy == POLICY_GREEDY:
                    c = lowest_card(deal_hands[s])
                else:
                    c = kth_set_bit(deal_hands[s], below_local(rng, popcount(deal_hands[s])))
                deal_hands[s] &= ~bit(c)
                deal_facedown[s] = c
        for p in range(np.int64(params[seat, P_PLAYOUTS])):
            playout_seed = rng[0] + np.uint64(p + 1)
            m = hand
            while m != 0:
                c = lowest_index(m)
                m &= m - np.uint64(1)
                deal_hands[seat] = hand & ~bit(c)
                deal_facedown[seat] = c
                start_playout(base, ptable, deal_hands, hands, deal_facedown, facedown, n_players)
                if policy == POLICY_RANDOM:
                    totals[c] += random_playout(ptable, hands, facedown, table[T_DEAL] % n_players, np.int64(0),
                                                np.int64(0), rules, number,
                                                follow, mix64(playout_seed), seat, margin)
                else:
                    rng_p[0] = mix64(playout_seed)
                    totals[c] += playout(ptable, hands, facedown, np.uint64(0), table[T_DEAL] % n_players, np.int64(0),
                                         np.int64(0), rules,
                                         number, follow, policy, hp, rng_p, seat, margin)
        rng[0] = mix64(rng[0])
    return best_move(totals, hand)


# --- plug-in slots -------------------------------------------------------------
# The argument lists a plug-in's functions take (simcore/plugins/dispatch.py generates the
# dispatch from these); a decision a plug-in leaves out is made by random_<decision>.
PLUGIN_DECISIONS = {
    "facedown": "params, seat, hand, table, number, rules, streams",
    "play": "params, seat, hand, legal, seen, table, number, follow, rules, streams",
    "pick": "params, seat, available, hand, seen, table, number, rules, streams",
}
# the types the play loop passes them, in Numba's notation: a plug-in's functions are compiled
# for these alone, apart from the loop (simcore/plugins/table.py, plugin_row)
PLUGIN_TYPES = {
    "facedown": "float64[:, ::1], int64, uint64, int64[::1], int64[::1], int64[::1], uint64[::1]",
    "play": "float64[:, ::1], int64, uint64, uint64, uint64, int64[::1], int64[::1], uint64[::1], int64[::1], uint64[::1]",
    "pick": "float64[:, ::1], int64, uint64, uint64, uint64, int64[::1], int64[::1], int64[::1], uint64[::1]",
}
# where a strategy may write besides its own stream: the slots of this trick not played yet, to try
# a card there and call resolve_trick, setting each back to -1 before it returns (greedy does;
# simcore/plugins/writes.py checks every plug-in for it before a run; docs/strategies.md)
PLUGIN_SCRATCH = {"table": ("T_PLAY + table[T_NPLAYED]", T_PLAY + MAX_PLAYERS, -1)}


@kernel(globals(), refcounts=False)
def random_facedown(params, seat, hand, table, number, rules, streams):
    return random_card(hand, streams)


@kernel(globals(), refcounts=False)
def random_play(params, seat, hand, legal, seen, table, number, follow, rules, streams):
    return random_card(legal, streams)


@kernel(globals(), refcounts=False)
def random_pick(params, seat, available, hand, seen, table, number, rules, streams):
    return random_card(available, streams)


if "plugin_play" not in globals():  # stock build: no plug-ins, these are never reached

    @kernel(globals(), refcounts=True)
    def plugin_facedown(k, params, seat, hand, table, number, rules, streams):
        return random_card(hand, streams)

    @kernel(globals(), refcounts=True)
    def plugin_play(k, params, seat, hand, legal, seen, table, number, follow, rules, streams):
        return random_card(legal, streams)

    @kernel(globals(), refcounts=True)
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
    if strategy == SEARCH:
        return search_facedown(params, seat, hand, table, number, rules, streams)
    return plugin_facedown(strategy - PLUGIN_BASE, params, seat, hand, table, number, rules, streams)


@kernel(globals(), inline="always")
def choose_play(strategy, params, seat, hand, legal, seen, table, number, follow, rules, streams):
    if strategy == RANDOM:
        return random_card(legal, streams)
    if strategy == GREEDY:
        return greedy_play(hand, legal, table, number, rules)
    if strategy == HEURISTIC:
        return heuristic_play(params, seat, hand, legal, seen, table, number, follow, rules)
    if strategy == SEARCH:
        return search_play(params, seat, hand, legal, seen, table, number, follow, rules, streams)
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
    if strategy == SEARCH:
        return search_pick(params, seat, available, hand, seen, table, number, rules, streams)
    return plugin_pick(strategy - PLUGIN_BASE, params, seat, available, hand, seen, table, number, rules, streams)


# the skill ladder (`balance ladder`), weakest first: each rung must beat a field of the one below;
# PARAMETER and SKILL_TIERS (skill vs luck) are every card game's (strategies/search.py)
LADDER = ("random", "greedy", "heuristic", "search", "search:d=96")
describe, default_params = card_game_players(SEARCH_DEFAULTS, HEURISTIC_DEFAULTS, N_PARAMS)
