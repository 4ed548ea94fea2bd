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
    search     Perfect Information Monte Carlo (strategies/search.py) at all three decisions:
               each bid card, gem option or legal card is tried in ``d`` deals of the cards the
               seat has not seen, consistent with what it has seen (its hand, the cards out this
               round: revealed bids and plays, the colours each seat has shown it lacks by not
               following: T_VOID), each finished to the end of the game ``p`` times with every
               seat playing the policy (random, greedy or heuristic); the best total is played.
               ``search:d=24:p=1:policy=random:margin=0.05`` (the defaults, SEARCH_DEFAULTS)

Plug-ins get ids from PLUGIN_BASE up; simcore/plugins/dispatch.py re-executes this file with
``plugin_*`` dispatchers that call the user's functions.
"""
import numpy as np

from simcore.bits import HAS_PDEP, bit, kth_index, lowest_index, pdep, popcount, trailing_zeros
from simcore.games.triatri.rules import (
    CLASS_COLOURLESS, END_INSTANT, FAKE, GOES_ON, HAND_SIZE, HELD_COLOURLESS, MAX_PLAYERS, NOT_PLAYED, R_DECK,
    R_INSTANT_SETS, R_LATEST_WINS_THREE_WAY, R_PLAYERS, R_ROUNDS, T_BID, T_GEM, T_GEMS, T_HELD, T_ORDER, T_PLAYED,
    T_ROUND, T_SEEN, T_START,
    T_SUPPLY, T_TRICK, T_VALUE, T_VOID, TABLE_WIDTH, card_facts, final_standing, game_end, gem_options,
    land, lay_card, lead_entry, legal_cards, place_card, resolve_bid, score_of, swap_untied, take_gem, trick_leader,
    trick_state,
)
from simcore.jit import kernel
from simcore.rng import PLAY, mix64, step_below
from strategies.search import (  # the built-ins' ids, BUILTIN, PLUGIN_BASE, N_PARAMS, PARAMETER, SKILL_TIERS:
    # every card game's; describe_params: the budget as text (bench, reports)
    BUILTIN, GREEDY, HEURISTIC, N_PARAMS, PARAMETER, PLUGIN_BASE, POLICY_GREEDY, POLICY_HEURISTIC, P_DETERMINIZATIONS,
    P_MARGIN, P_PLAYOUTS, P_POLICY, RANDOM, SEARCH, SKILL_TIERS, below_local, best_move, card_game_players,
    deal_unseen, describe_params, random_subset, search_setup, start_playout,
)

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
    k, state = step_below(state, popcount(mask))
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


@kernel(globals(), refcounts=False)
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


@kernel(globals(), refcounts=False)
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
    leader = trick_leader(table, rules, cards, position + 1)
    table[T_HELD], table[T_HELD + 1], table[T_HELD + 2], table[T_HELD + 3] = h0, h1, h2, h3
    table[T_VALUE], table[T_VALUE + 1], table[T_VALUE + 2], table[T_VALUE + 3] = v0, v1, v2, v3
    table[T_ORDER + position] = order
    return leader == seat


@kernel(globals(), refcounts=False)
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

@kernel(globals(), refcounts=False)
def random_bid(params, seat, hand, table, rules, cards, masks, streams):
    return random_card(hand, streams)


@kernel(globals(), refcounts=False)
def random_gem(params, seat, options, hand, table, rules, cards, masks, streams):
    return random_option(options, streams)


@kernel(globals(), refcounts=False)
def random_play(params, seat, hand, legal, table, rules, cards, masks, streams):
    return random_card(legal, streams)


# --- greedy -----------------------------------------------------------------

@kernel(globals(), refcounts=False)
def greedy_bid(hand, cards):
    best = extreme_card(hand, cards, True)
    return best if best >= 0 else kth_index(hand, 0)


@kernel(globals(), refcounts=False)
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


@kernel(globals(), refcounts=False)
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

@kernel(globals(), refcounts=False)
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


@kernel(globals(), refcounts=False)
def trick_worth(table, rules, seat, option):
    """(value of winning, value of losing) this trick's gem for ``seat``."""
    colour = gem_option_colour(option)
    start = table[T_START]
    if option < 3:
        return gem_change(table, rules, seat, colour, 1, True), 0.0
    if seat == start:  # my own gem: winning keeps it, losing hands it over
        return 0.0, gem_change(table, rules, seat, colour, -1, False)
    return gem_change(table, rules, seat, colour, 1, False), 0.0


@kernel(globals(), refcounts=False)
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


@kernel(globals(), refcounts=False)
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


@kernel(globals(), refcounts=False)
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
        leader = trick_leader(table, rules, cards, position)
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


@kernel(globals(), refcounts=False)
def heuristic_bid(hand, cards):
    low = extreme_card(hand, cards, False)
    return low if low >= 0 else kth_index(hand, 0)


# --- search (PIMC) ------------------------------------------------------------------------------
# A search seat's parameter row is its budget (strategies/search.py): determinizations, playouts
# per move and determinization, the playout policy (random, greedy or heuristic for every seat)
# and the weight of the points margin beside the win share in a playout's value.
#
# A playout finishes the GAME, not just the round: gems are kept from round to round and what a
# gem is worth depends on the supply at the very end (leftovers score the gems of their colour
# still in the supply; an emptied supply colour or an instant win ends the game at once), so the
# standing at the end of a round is a poor guess of the final one.  The later rounds are dealt
# afresh from the whole deck with the decision's own random numbers and bid by the policy.
SEARCH_DEFAULTS = (24.0, 1.0, 0.0, 0.05)
SCORE_SCALE = 5.0  # points of lead worth ``margin`` of a win in a playout's value


@kernel(globals(), inline="always")
def playout_bid(policy, hand, cards, rng):
    if policy == POLICY_HEURISTIC:
        return heuristic_bid(hand, cards)
    if policy == POLICY_GREEDY:
        return greedy_bid(hand, cards)
    return kth_card(hand, below_local(rng, popcount(hand)))


@kernel(globals(), inline="always")
def playout_gem(policy, hp, seat, options, hand, table, rules, cards, masks, rng):
    if policy == POLICY_HEURISTIC:
        return heuristic_gem(hp, seat, options, hand, table, rules, cards, masks)
    if policy == POLICY_GREEDY:
        return greedy_gem(options, hand, cards, masks)
    return kth_card(np.uint64(options), below_local(rng, popcount(np.uint64(options))))


@kernel(globals(), inline="always")
def playout_card(policy, hp, seat, hand, legal, table, rules, cards, masks, rng):
    if policy == POLICY_HEURISTIC:
        return heuristic_play(hp, seat, hand, legal, table, rules, cards, masks)
    if policy == POLICY_GREEDY:
        return greedy_play(seat, legal, table, rules, cards, masks)
    return kth_card(legal, below_local(rng, popcount(legal)))


@kernel(globals(), inline="always")
def deck_mask(rules):
    return (np.uint64(1) << np.uint64(rules[R_DECK])) - np.uint64(1)  # R_DECK <= MAX_DECK = 63


@kernel(globals(), inline="always")
def playout_deal(hands, rules, rng):
    """A round of a playout after the decision's own: six cards each from the whole deck."""
    rest = deck_mask(rules)
    for s in range(rules[R_PLAYERS]):
        hands[s] = random_subset(rest, HAND_SIZE, rng)
        rest &= ~hands[s]


@kernel(globals(), refcounts=False)
def playout_bids(table, hands, rules, cards, policy, rng, fixed_seat, fixed_card):
    """The start-player bid of a playout: ``fixed_seat`` bids ``fixed_card`` (-1: none), everyone
    else as the policy would; a redeal deals the whole deck afresh and everyone bids by the
    policy.  Takes the bids out of the hands; returns (start player, the cards out: the bids)."""
    n_players = rules[R_PLAYERS]
    while True:
        for s in range(n_players):
            table[T_BID + s] = fixed_card if s == fixed_seat else playout_bid(policy, hands[s], cards, rng)
        start = resolve_bid(table, rules, cards)
        if start >= 0:
            break
        playout_deal(hands, rules, rng)
        fixed_seat = -1
    seen = np.uint64(0)
    for s in range(n_players):
        hands[s] &= ~bit(table[T_BID + s])
        seen |= bit(table[T_BID + s])
    return start, seen


@kernel(globals(), refcounts=False)
def playout(table, hands, seen, trick, start, option, first, forced, rules, cards, masks, facts, policy, hp, rng,
            me, margin, scores, shares):
    """Finish the game from trick ``trick`` of the round in ``table``, started by ``start``, played
    for ``option`` (-1: the start player chooses it by the policy), ``first`` cards already in
    ``table``; the card at position ``first`` is ``forced`` (-1: the policy's).  ``hands`` is a
    determinization (every hand known) and ``seen`` the cards out this round.  Every seat plays
    the policy; the rules are those of the play loop (simcore/games/triatri/rules.py: gem_options,
    legal_cards, lay_card, take_gem, game_end, resolve_bid, final_standing).  Returns seat
    ``me``'s value: its win share of the final standing plus ``margin`` x its points lead over
    the best other seat / SCORE_SCALE."""
    n_players = rules[R_PLAYERS]
    fakes = masks[FAKE]
    rnd = table[T_ROUND]
    instant = -1
    ended = False
    while True:
        while trick < HAND_SIZE - 1:
            table[T_TRICK] = trick
            table[T_START] = start
            if first == 0:
                table[T_PLAYED] = 0
                table[T_SEEN] = np.int64(seen)
                for s in range(n_players):
                    table[T_HELD + s] = NOT_PLAYED
                    table[T_VALUE + s] = 0
                best, tied, lasts, previous = -1, 0, np.uint64(0), CLASS_COLOURLESS
            else:
                best, tied, lasts, previous = trick_state(table, facts, first)
            if option < 0:
                table[T_GEM] = -1
                option = playout_gem(policy, hp, start, gem_options(table, start), hands[start], table, rules, cards,
                                     masks, rng)
            table[T_GEM] = option
            suit = masks[option - 3 if option >= 3 else option]
            for position in range(first, n_players):
                seat = start + position
                if seat >= n_players:
                    seat -= n_players
                hand = hands[seat]
                if forced >= 0:
                    card = forced
                    forced = -1
                else:
                    card = playout_card(policy, hp, seat, hand, legal_cards(hand, suit, fakes), table, rules, cards,
                                        masks, rng)
                table[T_ORDER + position] = seat
                cls, value, victim, doubled = lay_card(table, facts[card], seat, card, position, best, tied, lasts,
                                                       previous, True, rules[R_LATEST_WINS_THREE_WAY])
                best, tied, lasts = land(best, tied, lasts, seat, cls, value)
                tied -= swap_untied(victim, best)
                previous = cls
                hands[seat] = hand & ~bit(card)
                seen |= bit(card)
                table[T_PLAYED] = position + 1
                table[T_SEEN] = np.int64(seen)
            winner = lead_entry(tied, lasts, rules[R_LATEST_WINS_THREE_WAY]) & 15
            take_gem(table, option, start, winner)
            end = game_end(table, rules, option, winner)
            start = winner
            first = 0
            option = -1
            trick += 1
            if end != GOES_ON:
                instant = winner if end == END_INSTANT else -1
                ended = True
                break
        rnd += 1
        if ended or rnd >= rules[R_ROUNDS]:
            break
        table[T_ROUND] = rnd
        playout_deal(hands, rules, rng)
        # int64, not literals: one compiled playout_bids (a literal argument compiles a version of its own)
        start, seen = playout_bids(table, hands, rules, cards, policy, rng, np.int64(-1), np.int64(-1))
        trick = 0
    final_standing(table, rules, instant, scores, shares)
    best_other = -1 << 40
    for s in range(n_players):
        if s != me:
            best_other = max(best_other, scores[s])
    return shares[me] + margin * (scores[me] - best_other) / SCORE_SCALE


@kernel(globals(), inline="always")
def one_fake(moves, masks):
    """``moves`` with its fakes but the lowest taken out: fakes are interchangeable (docs/rules)."""
    fakes = moves & masks[FAKE]
    return (moves & ~fakes) | (fakes & (~fakes + np.uint64(1)))


@kernel(globals(), inline="always")
def others_unknown(seat, table, rules, in_trick):
    """What the other seats hold, as ``seat`` knows it during a trick: how many cards each still
    holds (one went to the bid, one to each trick so far, one to this trick if it has played:
    ``in_trick`` seats have) and the cards each has shown it lacks (T_VOID)."""
    n_players = rules[R_PLAYERS]
    need = np.zeros(n_players, dtype=np.int64)
    voids = np.zeros(n_players, dtype=np.uint64)
    start = table[T_START]
    for s in range(n_players):
        if s != seat:
            position = s - start if s >= start else s - start + n_players
            need[s] = HAND_SIZE - 1 - table[T_TRICK] - (1 if position < in_trick else 0)
            voids[s] = np.uint64(table[T_VOID + s])
    return need, voids


@kernel(globals(), refcounts=True)
def search_decision(kind, params, seat, moves, hand, table, rules, cards, masks, streams):
    """PIMC for one decision: ``kind`` 0 the bid (``moves`` = the hand), 1 the gem (the options),
    2 the card (the legal cards).  ``d`` deals of the cards the seat has not seen, consistent
    with what it has seen; in each, every move finished ``p`` times by the playout policy on the
    same playout draws; the move with the best total."""
    n_players = rules[R_PLAYERS]
    policy, margin, rng, hp = search_setup(params, seat, streams, MAX_PLAYERS, HEURISTIC_DEFAULTS)
    facts = card_facts(rules, cards)
    if kind == 0:
        # bidding: it knows only its hand (the others' bids are not revealed until all have bid)
        need = np.zeros(n_players, dtype=np.int64)
        voids = np.zeros(n_players, dtype=np.uint64)
        for s in range(n_players):
            if s != seat:
                need[s] = HAND_SIZE
        pool = deck_mask(rules) & ~hand
        n_played = 0
    else:
        # during a trick: its hand, the cards out (the revealed bids, the cards played) and the
        # voids the others have shown; the unused cards are among the unseen
        n_played = table[T_PLAYED] if kind == 2 else 0
        need, voids = others_unknown(seat, table, rules, n_played)
        pool = deck_mask(rules) & ~hand & ~np.uint64(table[T_SEEN])
    deal_hands = np.zeros(n_players, dtype=np.uint64)
    hands = np.empty(n_players, dtype=np.uint64)
    ptable = np.empty(TABLE_WIDTH, dtype=np.int64)
    scores = np.zeros(MAX_PLAYERS, dtype=np.int64)
    shares = np.zeros(MAX_PLAYERS, dtype=np.float64)
    totals = np.zeros(64, dtype=np.float64)
    rng_p = np.empty(1, dtype=np.uint64)
    seen = np.uint64(table[T_SEEN])
    for _ in range(np.int64(params[seat, P_DETERMINIZATIONS])):
        deal_unseen(pool, need, voids, n_players, deal_hands, rng)
        deal_hands[seat] = hand
        for p in range(np.int64(params[seat, P_PLAYOUTS])):
            playout_seed = rng[0] + np.uint64(p + 1)  # every move meets the same playout draws
            m = moves
            while m != 0:
                move = lowest_index(m)
                m &= m - np.uint64(1)
                start_playout(table, ptable, deal_hands, hands, n_players)
                rng_p[0] = mix64(playout_seed)
                if kind == 0:
                    start, out = playout_bids(ptable, hands, rules, cards, policy, rng_p, seat, move)
                    # int64, not literals, here and below: one compiled playout for the three kinds of
                    # decision (a literal argument compiles a version of its own)
                    value = playout(ptable, hands, out, np.int64(0), start, np.int64(-1), np.int64(0), np.int64(-1),
                                    rules, cards, masks, facts, policy, hp, rng_p, seat, margin, scores, shares)
                elif kind == 1:
                    value = playout(ptable, hands, seen, table[T_TRICK], seat, move, np.int64(0), np.int64(-1), rules,
                                    cards, masks, facts, policy, hp, rng_p, seat, margin, scores, shares)
                else:
                    value = playout(ptable, hands, seen, table[T_TRICK], table[T_START], table[T_GEM], n_played,
                                    move, rules, cards, masks, facts, policy, hp, rng_p, seat, margin, scores, shares)
                totals[move] += value
        rng[0] = mix64(rng[0])  # the next deal draws on from here
    return best_move(totals, moves)


@kernel(globals(), refcounts=True)
def search_bid(params, seat, hand, table, rules, cards, masks, streams):
    moves = one_fake(hand, masks)
    if moves & (moves - np.uint64(1)) == 0:
        return lowest_index(moves)  # nothing to weigh
    return search_decision(0, params, seat, moves, hand, table, rules, cards, masks, streams)


@kernel(globals(), refcounts=True)
def search_gem(params, seat, options, hand, table, rules, cards, masks, streams):
    moves = np.uint64(options)
    if moves & (moves - np.uint64(1)) == 0:
        return lowest_index(moves)
    return search_decision(1, params, seat, moves, hand, table, rules, cards, masks, streams)


@kernel(globals(), refcounts=True)
def search_play(params, seat, hand, legal, table, rules, cards, masks, streams):
    moves = one_fake(legal, masks)
    if moves & (moves - np.uint64(1)) == 0:
        return lowest_index(moves)
    return search_decision(2, params, seat, moves, hand, table, rules, cards, masks, streams)


# --- plug-ins ---------------------------------------------------------------------

PLUGIN_DECISIONS = {
    "bid": "params, seat, hand, table, rules, cards, masks, streams",
    "gem": "params, seat, options, hand, table, rules, cards, masks, streams",
    "play": "params, seat, hand, legal, table, rules, cards, masks, streams",
}
# the types the play loop passes them, in Numba's notation: a plug-in's functions are compiled
# for these alone, apart from the loop (simcore/plugins/table.py, plugin_row)
PLUGIN_TYPES = {
    "bid": "float64[:, ::1], int64, uint64, int64[::1], int64[::1], int64[:, ::1], uint64[::1], uint64[::1]",
    "gem": "float64[:, ::1], int64, int64, uint64, int64[::1], int64[::1], int64[:, ::1], uint64[::1], uint64[::1]",
    "play": "float64[:, ::1], int64, uint64, uint64, int64[::1], int64[::1], int64[:, ::1], uint64[::1], uint64[::1]",
}

if "plugin_play" not in globals():  # stock build: no plug-ins, these are never reached

    @kernel(globals(), refcounts=True)
    def plugin_bid(k, params, seat, hand, table, rules, cards, masks, streams):
        return random_card(hand, streams)

    @kernel(globals(), refcounts=True)
    def plugin_gem(k, params, seat, options, hand, table, rules, cards, masks, streams):
        return random_option(options, streams)

    @kernel(globals(), refcounts=True)
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
    if strategy == SEARCH:
        return search_bid(params, seat, hand, table, rules, cards, masks, streams)
    return plugin_bid(strategy - PLUGIN_BASE, params, seat, hand, table, rules, cards, masks, streams)


@kernel(globals(), inline="always")
def choose_gem(strategy, params, seat, options, hand, table, rules, cards, masks, streams):
    if strategy == RANDOM:
        return random_option(options, streams)
    if strategy == GREEDY:
        return greedy_gem(options, hand, cards, masks)
    if strategy == HEURISTIC:
        return heuristic_gem(params, seat, options, hand, table, rules, cards, masks)
    if strategy == SEARCH:
        return search_gem(params, seat, options, hand, table, rules, cards, masks, streams)
    return plugin_gem(strategy - PLUGIN_BASE, params, seat, options, hand, table, rules, cards, masks, streams)


@kernel(globals(), inline="always")
def choose_play(strategy, params, seat, hand, legal, table, rules, cards, masks, streams):
    if strategy == RANDOM:
        return random_card(legal, streams)
    if strategy == GREEDY:
        return greedy_play(seat, legal, table, rules, cards, masks)
    if strategy == HEURISTIC:
        return heuristic_play(params, seat, hand, legal, table, rules, cards, masks)
    if strategy == SEARCH:
        return search_play(params, seat, hand, legal, table, rules, cards, masks, streams)
    return plugin_play(strategy - PLUGIN_BASE, params, seat, hand, legal, table, rules, cards, masks, streams)


# the skill ladder (`balance ladder`), weakest first: each rung must beat a field of the one below;
# PARAMETER and SKILL_TIERS (skill vs luck) are every card game's (strategies/search.py)
LADDER = ("random", "greedy", "heuristic", "search", "search:d=96")
describe, default_params = card_game_players(SEARCH_DEFAULTS, HEURISTIC_DEFAULTS, N_PARAMS)
