"""Players for Chimera Tricks, compiled into the kernel's dispatch.

One decision, a function of the strategy id, the parameter matrix (row = seat) and the public
state (T_* layout in simcore/games/chimera/rules.py; ``hand`` is the deciding seat's own hand):

    choose_play(...) -> the move ``card * 2 + slot``; ``m0`` / ``m1`` are the cards that may go
                        into slot 0 / slot 1 (the legal moves are every card of ``m0`` with slot 0
                        and every card of ``m1`` with slot 1, ascending (card, slot))

Built-ins:
    random     uniform over the legal (card, slot) moves: ``moves[below(PLAY, len(moves))]``,
               draw for draw the reference's RandomDecider
    greedy     when the face-up grimoire is positive, plays for the highest field that wins for
               now (the cheaper card on ties); otherwise loses with its lowest card (or, if every
               move wins for now, leaves the lowest field)
    heuristic  weighs every legal move by its chance of winning (the unseen cards that would let
               each later seat beat the field, given their sheets) times what the grimoire is worth
               to it now — the exact change of its round score, so a crystal card on top that
               rescues a negative grimoire counts in full — against what the sheet left behind is
               worth for the next, already visible, grimoire (both top suits and the sums the hand
               can still make: chimeras built on purpose); a card won with is spent
    search     Perfect Information Monte Carlo (strategies/search.py): every legal move is tried
               in ``d`` deals of what the seat has not seen, consistent with everything it has
               seen (the cards played, the suits each seat showed it lacks, the hands passed on
               between rounds, the two face-up grimoires), each deal finished to the end of the
               round ``p`` times by a playout policy (random, greedy or heuristic for every seat);
               the best total is played.  Budget: ``search:d=24:p=1:policy=random:margin=0.5``

Plug-ins get ids from PLUGIN_BASE up; simcore/plugins/dispatch.py re-executes this file with a
``plugin_play`` dispatcher that calls the user's ``choose_play`` (same arguments as
``random_play``).
"""
import numpy as np

from simcore.bits import bit, has, kth_index, lowest_index, popcount
from simcore.games.chimera.rules import (
    M_CRYSTAL, M_DECK, M_SUIT, MAX_PLAYERS, R_GRIMOIRES, R_PLACED, R_PLAYERS, R_TEN, R_TRICKS, R_VALUES, R_WINNER_LEADS,
    R_ZERO, ZERO_TENS,
    SCRATCH_WIDTH, T_CRYSTALS, T_CRYSTALS_LEFT, T_GRIMOIRE, T_HELD, T_IN_PLAY, T_LEAD, T_LEADER, T_NEXT, T_PLAYED,
    T_PLAYS, T_RANK, T_ROUND, T_SCRATCH, T_SEEN, T_SUITS, T_TAKEN, T_TOP, T_TOP_RANK, T_TOTAL, T_TRICK, T_VALUE,
    T_VOID, award_trick, best_following_rank, clear_sheet, field_after, kth_move, legal_masks, move_count,
    next_seat, place_card, placed_rank, round_score, suit_of, trick_winner,
)
from simcore.jit import kernel
from simcore.rng import PLAY, below, mix64
from strategies.search import (  # the built-ins' ids, BUILTIN, PLUGIN_BASE, N_PARAMS, PARAMETER, SKILL_TIERS:
    # every card game's; describe_params: the budget as text (bench, reports)
    BUILTIN, GREEDY, HEURISTIC, N_PARAMS, PARAMETER, PLUGIN_BASE, POLICY_HEURISTIC, POLICY_RANDOM, P_DETERMINIZATIONS,
    P_MARGIN, P_PLAYOUTS, P_POLICY, RANDOM, SEARCH, SKILL_TIERS, below_local, card_game_players, deal_unseen,
    describe_params, search_setup,
)

# heuristic tuning (parameter row defaults): next = weight of the sheet left on the table, as its
# chance to win the next trick times the next (visible) grimoire when that is positive (a
# negative one is simply not won); crystal = worth of a crystal that rescues nothing yet (a
# negative may still come); card = cost per rank of a card spent on a win; lead = the chance a
# trick winner, leading the next one from an empty sheet, wins that one too.
# Chosen by a small grid against greedy players (40,000 games each, +-0.5 pp): at 4 players
# myopic play (0, 1, 0.15, 0) wins 55.9%, next 0.1-0.3 with lead 0.05-0.1 58.4-59.2%, next 1.0
# 55.5%; card 0.1 / 0.2: 56.8% / 57.6%; crystal 0.5-2: no difference. At 3 players 67.7% -> 70.2%.
H_NEXT, H_CRYSTAL, H_CARD, H_LEAD = 0, 1, 2, 3
HEURISTIC_DEFAULTS = (0.15, 1.0, 0.15, 0.05)
RANK_CAP = 40           # ranks at or above this are one bin in the heuristic's counts
BINS = RANK_CAP + 1
ONE_PER_SUIT = np.uint64(1 | 1 << 10 | 1 << 20 | 1 << 30)   # rank 1 of every suit (shift for rank r)


# --- shared helpers ------------------------------------------------------------

@kernel(globals(), inline="always")
def best_so_far(table, lead, n_players):
    """The highest field rank holding ``lead`` among the seats that played to this trick."""
    best = -1
    seat = table[T_LEADER]
    for _ in range(table[T_PLAYED]):
        if (table[T_SUITS + seat] >> lead) & 1:
            best = max(best, table[T_RANK + seat])
        seat += 1
        if seat == n_players:
            seat = 0
    return best


# --- random -----------------------------------------------------------------

@kernel(globals(), inline="always")
def random_play(params, seat, hand, m0, m1, table, rules, masks, streams):
    return kth_move(m0, m1, below(streams, PLAY, move_count(m0, m1)))


# --- greedy -----------------------------------------------------------------

@kernel(globals(), refcounts=False)
def greedy_play(seat, m0, m1, table, rules):
    n_players = rules[R_PLAYERS]
    lead = table[T_LEAD]
    want = rules[R_VALUES + table[T_GRIMOIRE]] > 0
    top0, rank0 = table[T_TOP + 2 * seat], table[T_TOP_RANK + 2 * seat]
    top1, rank1 = table[T_TOP + 2 * seat + 1], table[T_TOP_RANK + 2 * seat + 1]
    beat = best_so_far(table, lead, n_players) if lead >= 0 else -1
    chosen = -1
    chosen_value = -1e18
    both = m0 | m1
    while both:
        card = lowest_index(both)
        both &= both - np.uint64(1)
        cost = placed_rank(card, top0, top1, rules)
        for slot in range(2):
            if not has(m1 if slot else m0, card):
                continue
            suits, rank = field_after(top0, rank0, top1, rank1, card, slot, rules)
            suit = lead if lead >= 0 else suit_of(card)
            wins = (suits >> suit) & 1 and rank >= beat
            if want:
                value = 1000.0 + 10.0 * rank - cost if wins else -cost
            else:
                value = -1000.0 - 10.0 * rank - cost if wins else -cost
            if value > chosen_value:
                chosen, chosen_value = card * 2 + slot, value
    return chosen


# --- heuristic ----------------------------------------------------------------

@kernel(globals(), refcounts=False)
def threat_counts(table, rules, masks, seat, unseen, lead, base):
    """For each later seat (i = 1, 2, ... after ``seat``) and rank r, how many unseen cards would
    give that seat a field holding ``lead`` of rank >= r (capped at RANK_CAP), written to the
    scratch area at ``base + (i - 1) * BINS + r``.  Per card: beside a lead-suit top a lead card
    makes a sum and any other card the larger rank; beside anything else only a lead card
    follows, with the larger rank."""
    n_players = rules[R_PLAYERS]
    later = n_players - 1 - table[T_PLAYED]
    for i in range(1, later + 1):
        other = seat + i
        if other >= n_players:
            other -= n_players
        row = base + (i - 1) * BINS
        for r in range(BINS):
            table[row + r] = 0
        top0, rank0 = table[T_TOP + 2 * other], table[T_TOP_RANK + 2 * other]
        top1, rank1 = table[T_TOP + 2 * other + 1], table[T_TOP_RANK + 2 * other + 1]
        stacked = np.int64((top0 >= 0) & (top1 >= 0))
        # the open slots' neighbours: slot 0 keeps top1 beside it, slot 1 keeps top0
        keep_rank = -1           # best neighbour rank with the lead suit (-1: no such open slot)
        plain_rank = -1          # best neighbour rank without it (0 for an empty neighbour)
        if not (top0 >= 0 and top1 < 0):          # slot 0 open
            if suit_of(top1) == lead:
                keep_rank = max(keep_rank, rank1)
            else:
                plain_rank = max(plain_rank, rank1)
        if not (top1 >= 0 and top0 < 0):          # slot 1 open
            if suit_of(top0) == lead:
                keep_rank = max(keep_rank, rank0)
            else:
                plain_rank = max(plain_rank, rank0)
        if keep_rank >= 0:
            # the other suits' cards follow at the larger rank: counted a rank at a time (one
            # popcount each, the 0/10 cards at the rank they would take), not card by card
            others = unseen & ~masks[M_SUIT + lead]
            for rank in range(1, 10):
                of_rank = others & (ONE_PER_SUIT << np.uint64(rank - 1))
                table[row + min(max(keep_rank, rank), RANK_CAP)] += popcount(of_rank)
            zero_ten_rank = rules[R_TEN] if stacked else rules[R_ZERO]
            table[row + min(max(keep_rank, zero_ten_rank), RANK_CAP)] += popcount(others & ZERO_TENS)
        cards = unseen & masks[M_SUIT + lead]
        while cards:  # the lead suit's cards, one by one
            card = lowest_index(cards)
            cards &= cards - np.uint64(1)
            rank = rules[R_PLACED + 2 * card + stacked]
            best = -1
            if keep_rank >= 0:
                best = keep_rank + rank
            if plain_rank >= 0:
                best = max(best, max(plain_rank, rank))
            if best >= 0:
                table[row + min(best, RANK_CAP)] += 1
        for r in range(RANK_CAP - 1, -1, -1):    # suffix sums: cards reaching at least r
            table[row + r] += table[row + r + 1]


@kernel(globals(), refcounts=False)
def sheet_outlook(top0, rank0, top1, rank1, rest, rules, masks, n_suits):
    """The chance that this sheet, left on the table, wins the next trick as a follower: for
    each lead suit (equally likely), the best following field the rest of the hand can make on
    it (a sum beside a lead top: a chimera built on purpose covers two suits), against a
    winning rank of about 8-12."""
    chance = 0.0
    for lead in range(n_suits):
        m0, m1, can = legal_masks(rest, top0, top1, lead, masks)
        best = best_following_rank(top0, rank0, top1, rank1, m0, m1, lead, rules, masks)
        chance += min(max((best - 7.0) / 6.0, 0.0), 1.0)
    return chance / n_suits


@kernel(globals(), refcounts=False)
def heuristic_play(params, seat, hand, m0, m1, table, rules, masks):
    n_players = rules[R_PLAYERS]
    lead = table[T_LEAD]
    top0, rank0 = table[T_TOP + 2 * seat], table[T_TOP_RANK + 2 * seat]
    top1, rank1 = table[T_TOP + 2 * seat + 1], table[T_TOP_RANK + 2 * seat + 1]
    grimoire = table[T_GRIMOIRE]
    after = table[T_NEXT]
    # what the face-up grimoire is worth to this seat now: the exact change of its round score
    taken = np.uint64(table[T_TAKEN + seat])
    value = table[T_VALUE + seat]
    crystals = table[T_CRYSTALS + seat]
    v = rules[R_VALUES + grimoire]
    now = round_score(taken, value, crystals, rules)[0]
    gain = round_score(taken | bit(grimoire), value + v, crystals, rules)[0] - now
    gain_crystal = gain
    if table[T_CRYSTALS_LEFT] > 0:
        gain_crystal = round_score(taken | bit(grimoire), value + v, crystals + 1, rules)[0] - now
        if gain_crystal == gain:
            gain_crystal += params[seat, H_CRYSTAL]     # a spare crystal: a negative may still come
    v_next = max(rules[R_VALUES + after], 0) if after >= 0 else 0   # a negative next: just don't win it
    unseen = masks[M_DECK] & ~np.uint64(table[T_SEEN]) & ~hand
    n_unseen = popcount(unseen)
    later = n_players - 1 - table[T_PLAYED]
    held = rules[R_TRICKS] - table[T_TRICK]             # cards in each later seat's hand
    share = min(1.0, held / n_unseen) if n_unseen > 0 else 0.0
    beat = best_so_far(table, lead, n_players) if lead >= 0 else -1
    # the threats: per lead suit in question (the leader's own card decides it)
    filled = 0  # scratch blocks of threat counts filled: bit s = the block at T_SCRATCH + s*3*BINS
    if lead >= 0:
        if (m0 | m1) & masks[M_SUIT + lead] or suit_of(top0) == lead or suit_of(top1) == lead:
            threat_counts(table, rules, masks, seat, unseen, lead, T_SCRATCH)   # (else nothing can follow)
            filled = 1
    else:
        for s in range(4):
            if (m0 | m1) & masks[M_SUIT + s]:
                threat_counts(table, rules, masks, seat, unseen, s, T_SCRATCH + s * 3 * BINS)
                filled |= 1 << s

    n_suits = 0
    for s in range(4):
        if masks[M_DECK] & masks[M_SUIT + s]:
            n_suits += 1
    chosen = -1
    chosen_value = -1e18
    both = m0 | m1
    while both:
        card = lowest_index(both)
        both &= both - np.uint64(1)
        rest = hand & ~bit(card)
        cost = params[seat, H_CARD] * placed_rank(card, top0, top1, rules)
        suit = lead if lead >= 0 else suit_of(card)
        base = T_SCRATCH if lead >= 0 else T_SCRATCH + suit * 3 * BINS
        for slot in range(2):
            if not has(m1 if slot else m0, card):
                continue
            suits, rank = field_after(top0, rank0, top1, rank1, card, slot, rules)
            p = 0.0
            if (suits >> suit) & 1 and rank >= beat:
                p = 1.0
                for i in range(later):
                    k = table[base + i * BINS + min(rank, RANK_CAP)]
                    p *= (1.0 - share) ** k
            new0, new_rank0, new1, new_rank1 = top0, rank0, top1, rank1
            r = placed_rank(card, top0, top1, rules)
            if slot == 0:
                new0, new_rank0 = card, r
            else:
                new1, new_rank1 = card, r
            tops = bit(card)
            other = new1 if slot == 0 else new0
            if other >= 0:
                tops |= bit(other)
            win = gain_crystal if tops & masks[M_CRYSTAL] else gain
            keep = 0.0
            lead_next = params[seat, H_LEAD] * v_next
            if v_next > 0 and p < 1.0:      # only a sheet that may stay is worth an outlook
                keep = params[seat, H_NEXT] * v_next * sheet_outlook(new0, new_rank0, new1, new_rank1, rest, rules,
                                                                     masks, n_suits)
            total = p * (win - cost + lead_next) + (1.0 - p) * keep
            if total > chosen_value:
                chosen, chosen_value = card * 2 + slot, total
    # the threat counts were built from the cards this seat has not seen, i.e. they describe its
    # own hand: leave nothing of them in the table for the next seat to read
    for s in range(4):
        if (filled >> s) & 1:
            for i in range(later * BINS):
                table[T_SCRATCH + s * 3 * BINS + i] = 0
    return chosen


# --- search (PIMC) ------------------------------------------------------------------------------
# A search seat's parameter row is its budget (strategies/search.py): determinizations, playouts
# per move, the playout policy (random, greedy or heuristic for every seat) and the weight of the
# points margin beside the win share in a playout's value.  Chosen by measurement (one search
# against heuristic players, seats rotated, 4,000 games each, random playouts): with d=24 the
# margin at a scale of 10 points, 0.05 / 0.2 / 0.5 / 1, won 39.9 / 41.3 / 43.6 / 44.4 % at 4
# players and 49.9 / 50.8 / 54.2 / 54.7 % at 3; at a scale of 5, margin 0.5 (the default, the
# same weight as 1 at 10) 44.6 / 54.5 % (6,000 games) and margin 1 44.1 / 55.7 %: a plateau.
# Weighting the margin by the rounds still to come, or taking the lead over the others' mean
# instead of the best other, did no better; greedy playouts did worse (34.7 %, 4 players, margin
# 0.05, 2,000 games).  d=16 / 48 won 37.5 % (margin 0.05) / 49.2 % at 4 players; d=24 keeps one
# search among heuristic players at about 420 games per CPU-second at 3 and 4 players.
SEARCH_DEFAULTS = (24.0, 1.0, 0.0, 0.5)
MARGIN_SCALE = 5.0      # points of lead that count as much as a whole win at margin = 1
MAX_MOVES = 32          # legal (card, slot) moves of one play: at most 2 x 13 cards


@kernel(globals(), refcounts=False)
def policy_move(policy, hp, seat, hand, m0, m1, table, rules, masks):
    """A move for ``seat`` inside a playout whose policy is heuristic or greedy (random is drawn
    in the playout's loop itself: a call there costs the loop reference counting on its arrays)."""
    if policy == POLICY_HEURISTIC:
        return heuristic_play(hp, seat, hand, m0, m1, table, rules, masks)
    return greedy_play(seat, m0, m1, table, rules)


@kernel(globals(), inline="always")
def standing_value(table, rules, me, margin):
    """Seat ``me``'s value of the standing once the round is scored: its win share (a tie for
    the top shares it) plus ``margin`` x its points lead over the best other seat / MARGIN_SCALE."""
    n_players = rules[R_PLAYERS]
    mine = 0
    best_other = -(1 << 40)
    tied = 0
    for s in range(n_players):
        total = table[T_TOTAL + s] + round_score(np.uint64(table[T_TAKEN + s]), table[T_VALUE + s],
                                                 table[T_CRYSTALS + s], rules)[0]
        if s == me:
            mine = total
        elif total > best_other:
            best_other = total
            tied = 1
        elif total == best_other:
            tied += 1
    share = 0.0
    if mine > best_other:
        share = 1.0
    elif mine == best_other:
        share = 1.0 / (tied + 1)
    return share + margin * (mine - best_other) / MARGIN_SCALE


@kernel(globals(), refcounts=False)
def playout(table, hands, order, first_move, rules, masks, policy, hp, rng, me, margin, following):
    """Finish the round in ``table`` (a private copy of the public table), where every hand is
    known (``hands``: a determinization) and trick t is played for ``order[t]``: ``first_move``
    for the seat to play now, then every seat plays ``policy``.  Returns seat ``me``'s
    ``standing_value`` once the round is scored.

    The playout stops at the end of the round, not of the game: nothing played in a round changes
    a later one (the hands passed on are the hands dealt, crystals and grimoires go back, and the
    built-in policies do not read the totals), so every move of a decision would meet the same
    later rounds; finishing them would cost up to N times as much and add only their noise.  In the
    last round the standing is the final one.  The playout keeps what the policies read (sheets,
    fields, the cards seen, grimoires taken, crystals, the trick's plays); not T_SHEET, T_PILE or
    T_VOID."""
    n_players = rules[R_PLAYERS]
    n_tricks = rules[R_TRICKS]
    trick = table[T_TRICK]
    leader = table[T_LEADER]
    position = table[T_PLAYED]
    lead = table[T_LEAD]
    move = first_move
    seat = leader + position
    if seat >= n_players:
        seat -= n_players
    while True:
        while position < n_players:
            hand = hands[seat]
            top0 = table[T_TOP + 2 * seat]
            top1 = table[T_TOP + 2 * seat + 1]
            if move < 0:
                m0, m1, can = legal_masks(hand, top0, top1, lead, masks)
                if policy == POLICY_RANDOM:
                    move = kth_move(m0, m1, below_local(rng, move_count(m0, m1)))
                else:
                    move = policy_move(policy, hp, seat, hand, m0, m1, table, rules, masks)
            card = move >> 1
            place_card(table, seat, card, move & 1, np.int64((top0 >= 0) & (top1 >= 0)), rules)
            hands[seat] = hand & ~bit(card)
            table[T_SEEN] |= np.int64(bit(card))
            table[T_PLAYS + position] = move
            if position == 0:
                lead = suit_of(card)
                table[T_LEAD] = lead
            position += 1
            table[T_PLAYED] = position
            move = -1
            seat = next_seat(seat, n_players)
        w, best = trick_winner(table, leader, lead, n_players, following, 0)
        winner = leader + w
        if winner >= n_players:
            winner -= n_players
        award_trick(table, winner, table[T_GRIMOIRE], rules, masks)
        clear_sheet(table, winner)
        trick += 1
        if trick == n_tricks:
            break
        leader = winner if rules[R_WINNER_LEADS] != 0 else next_seat(leader, n_players)
        table[T_TRICK] = trick
        table[T_LEADER] = leader
        table[T_PLAYED] = 0
        table[T_LEAD] = -1
        table[T_GRIMOIRE] = order[trick]
        table[T_NEXT] = order[trick + 1] if trick + 1 < n_tricks else -1
        for i in range(n_players):
            table[T_PLAYS + i] = -1
        position = 0
        lead = -1
        seat = leader
    return standing_value(table, rules, me, margin)


@kernel(globals(), inline="always")
def void_cards(table, seat, masks):
    """The familiars ``seat`` has shown it does not hold this round (T_VOID: suits)."""
    suits = table[T_VOID + seat]
    out = np.uint64(0)
    for s in range(4):
        if (suits >> s) & 1:
            out |= masks[M_SUIT + s]
    return out


@kernel(globals(), refcounts=False)
def deal_pile(table, rules, order, rng):
    """The grimoire pile of this round as one determinization has it: ``order[trick]`` and
    ``order[trick + 1]`` are the two face-up ones; the later tricks' are drawn in random order from
    the grimoires the seat has not seen: in round 0 any grimoire not taken or face up (at 4 players
    some of them are boxed: they are simply the ones left over), from round 1 on the ones in play
    (T_IN_PLAY) not taken or face up."""
    n_tricks = rules[R_TRICKS]
    trick = table[T_TRICK]
    order[trick] = table[T_GRIMOIRE]
    if trick + 1 < n_tricks:
        order[trick + 1] = table[T_NEXT]
    if trick + 2 >= n_tricks:
        return
    g = rules[R_GRIMOIRES]
    if table[T_ROUND] > 0:
        unseen = np.uint64(table[T_IN_PLAY])
    elif g == 64:
        unseen = ~np.uint64(0)
    else:
        unseen = bit(g) - np.uint64(1)
    for s in range(rules[R_PLAYERS]):
        unseen &= ~np.uint64(table[T_TAKEN + s])
    unseen &= ~bit(table[T_GRIMOIRE]) & ~bit(table[T_NEXT])
    for t in range(trick + 2, n_tricks):
        k = kth_index(unseen, below_local(rng, popcount(unseen)))
        order[t] = k
        unseen &= ~bit(k)


@kernel(globals(), refcounts=True)
def search_play(params, seat, hand, m0, m1, table, rules, masks, streams):
    """PIMC for one play: every legal move (on an empty sheet the two slots are mirror images, so
    slot 0 only), in ``d`` determinizations of what this seat has not seen, each finished ``p``
    times by the playout policy; every move meets the same deals and the same playout draws.

    What a determinization knows, all of it public or the seat's own: its hand; the cards played
    this round (T_SEEN) and so how many cards each seat still holds; in round 0 the suits each seat
    has shown it lacks (T_VOID), the rest of the unseen familiars (the familiars boxed at 3 players
    among them) dealt at random; from round 1 on every hand exactly (T_HELD: the cards a seat
    received are the ones its neighbour played face up last round); the grimoire at stake and the
    next one, the rest of the pile drawn by ``deal_pile``."""
    n_players = rules[R_PLAYERS]
    top0 = table[T_TOP + 2 * seat]
    top1 = table[T_TOP + 2 * seat + 1]
    moves = np.empty(MAX_MOVES, dtype=np.int64)
    n_moves = 0
    both = m0 | m1
    while both:
        card = lowest_index(both)
        both &= both - np.uint64(1)
        if has(m0, card):
            moves[n_moves] = 2 * card
            n_moves += 1
        if has(m1, card) and (top0 >= 0 or top1 >= 0 or not has(m0, card)):
            moves[n_moves] = 2 * card + 1
            n_moves += 1
    if n_moves == 1:
        return moves[0]  # nothing to weigh
    policy, margin, rng, hp = search_setup(params, seat, streams, MAX_PLAYERS, HEURISTIC_DEFAULTS)
    seen = np.uint64(table[T_SEEN])
    known = table[T_ROUND] > 0
    left = rules[R_TRICKS] - table[T_TRICK]
    need = np.zeros(n_players, dtype=np.int64)
    voids = np.zeros(n_players, dtype=np.uint64)
    deal_hands = np.zeros(n_players, dtype=np.uint64)
    for s in range(n_players):
        if s != seat:
            if known:
                deal_hands[s] = np.uint64(table[T_HELD + s]) & ~seen
            else:
                played = (s - table[T_LEADER]) % n_players < table[T_PLAYED]
                need[s] = left - 1 if played else left
                voids[s] = void_cards(table, s, masks)
    pool = masks[M_DECK] & ~seen & ~hand
    hands = np.empty(n_players, dtype=np.uint64)
    order = np.empty(rules[R_TRICKS], dtype=np.int64)
    following = np.empty(MAX_PLAYERS, dtype=np.int64)
    ptable = np.zeros(table.shape[0], dtype=np.int64)   # the scratch area stays 0 (the heuristic clears it)
    totals = np.zeros(MAX_MOVES, dtype=np.float64)
    rng_p = np.empty(1, dtype=np.uint64)
    for _ in range(np.int64(params[seat, P_DETERMINIZATIONS])):
        if not known:
            deal_unseen(pool, need, voids, n_players, deal_hands, rng)
        deal_hands[seat] = hand
        deal_pile(table, rules, order, rng)
        for p in range(np.int64(params[seat, P_PLAYOUTS])):
            playout_seed = rng[0] + np.uint64(p + 1)  # every move meets the same playout draws
            for k in range(n_moves):
                ptable[:T_SCRATCH] = table[:T_SCRATCH]
                for s in range(n_players):
                    hands[s] = deal_hands[s]
                rng_p[0] = mix64(playout_seed)
                totals[k] += playout(ptable, hands, order, moves[k], rules, masks, policy, hp, rng_p, seat, margin,
                                     following)
        rng[0] = mix64(rng[0])  # the next deal draws on from here
    best = 0
    for k in range(1, n_moves):  # ties: the first move in ascending (card, slot) order
        if totals[k] > totals[best]:
            best = k
    return moves[best]


# --- plug-ins ---------------------------------------------------------------------

PLUGIN_DECISIONS = {
    "play": "params, seat, hand, m0, m1, table, rules, masks, streams",
}
# the types the play loop passes them, in Numba's notation: a plug-in's functions are compiled
# for these alone, apart from the loop (simcore/plugins/table.py, plugin_row)
PLUGIN_TYPES = {
    "play": "float64[:, ::1], int64, uint64, uint64, uint64, int64[::1], int64[::1], uint64[::1], uint64[::1]",
}
# where a strategy may write besides its own stream: argument -> (first, end, cleared), slots it may
# use freely during its call and must set back to `cleared` before it returns (simcore/plugins/writes.py
# checks every plug-in for it before a run; docs/strategies.md)
PLUGIN_SCRATCH = {"table": (T_SCRATCH, T_SCRATCH + SCRATCH_WIDTH, 0)}

if "plugin_play" not in globals():  # stock build: no plug-ins, this is never reached

    @kernel(globals(), refcounts=True)
    def plugin_play(k, params, seat, hand, m0, m1, table, rules, masks, streams):
        return random_play(params, seat, hand, m0, m1, table, rules, masks, streams)


# --- dispatch ------------------------------------------------------------------------

@kernel(globals(), refcounts=False)
def skilled_play(strategy, params, seat, hand, m0, m1, table, rules, masks, streams):
    """Every strategy but random, behind one call (keeps the play loop small)."""
    if strategy == GREEDY:
        return greedy_play(seat, m0, m1, table, rules)
    if strategy == HEURISTIC:
        return heuristic_play(params, seat, hand, m0, m1, table, rules, masks)
    if strategy == SEARCH:
        return search_play(params, seat, hand, m0, m1, table, rules, masks, streams)
    return plugin_play(strategy - PLUGIN_BASE, params, seat, hand, m0, m1, table, rules, masks, streams)


@kernel(globals(), inline="always")
def choose_play(strategy, params, seat, hand, m0, m1, table, rules, masks, streams):
    if strategy == RANDOM:
        return random_play(params, seat, hand, m0, m1, table, rules, masks, streams)
    return skilled_play(strategy, params, seat, hand, m0, m1, table, rules, masks, streams)


# the skill ladder (`balance ladder`), weakest first: each rung must beat a field of the one below;
# PARAMETER and SKILL_TIERS (skill vs luck) are every card game's (strategies/search.py)
LADDER = ("random", "greedy", "heuristic", "search", "search:d=96")
describe, default_params = card_game_players(SEARCH_DEFAULTS, HEURISTIC_DEFAULTS, N_PARAMS)


assert 3 * 4 * BINS <= SCRATCH_WIDTH
