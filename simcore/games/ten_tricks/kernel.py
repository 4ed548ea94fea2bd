"""10 TRICKS LATER: the round loop that asks the strategies (compiled).

The game's side of the one contract (simcore/play.py): its scratch ``State``, ``play_game`` on it
(rounds played by ``play_rounds``), what a chunk's row and a logged game keep, a scripted
position (``balance play``) and the first deal; the entry points are the shared ones.  Chance
comes from the DEAL stream (``state.streams``) in the order documented in
simcore/games/ten_tricks/reference.py; the strategy at seat s is handed ``seat_streams[s]``, its
own PLAY stream (simcore/rng.py), never the game's ``streams``.
"""

from collections import namedtuple

import numpy as np

from simcore.bits import bit, has, kth_index, popcount
from simcore.games.ten_tricks.rules import (
    C_ATTACKS, C_BONUS, C_CAPPED, C_COMEBACK, C_CONTEST, C_INFECTED_LEADS, C_LOST, C_ONE_AS_NINE, C_RESCUED,
    C_ROUNDS, C_SEAT_ROUNDS, C_STAYED, C_STAYED_POINTS, C_STAYED_SQUARES, C_SWAP_POINTS, C_SWAP_SQUARES, C_SWAPS,
    C_TAKEN, C_TRICKS, FIRST_INFECTED, G_HANDS, G_LEADER, G_LOST, G_OFFERS, G_REMOVED, G_ROUND, G_SCORES,
    G_SWAP_CARD, G_SWAP_SEAT, G_TOTALS, G_TRACKS, INFECTED, L_LEADER, L_LEVEL, L_LOST, L_LOWER, L_PLAYS,
    L_RESCUED, L_ROUND, L_TRACKS, L_TRICK, L_UPPER, L_WINNER, LOG_WIDTH, MAX_PLAYERS, N_COUNTERS, R_CAP,
    R_COLOURS_3, R_HAND, R_INFECTED, R_MAX_ROUNDS, R_PLAYERS, R_SWAP, R_TARGET, ROUND_LOG_WIDTH, SAME_NUMBER,
    SURVIVORS, SWAP_CARD, T_DECK, T_LEADER, T_LOST, T_LOWER, T_PLAYED, T_PLAYS, T_ROUND, T_SEEN, T_SINGLE,
    T_SWAP_SEAT, T_TOTAL, T_TRACK, T_TRICK, T_UNLOCKED, T_UPPER, T_VOID, TABLE_WIDTH, final_shares, lay_card,
    legal_mask, round_score, settle_trick, show_voids, R_WITHHELD,
)
from simcore.registry import strategies_of
from simcore.replays import UNWRITTEN  # a log cell not written
from simcore.jit import kernel
from simcore.play import FINISHED, STRATEGY_BROKE_RULES, UNFINISHED, SCRIPT_CURSOR, entry_points, scripted, withhold
from simcore.rng import DEAL, N_STREAMS, below, rotate_seats, seed_game, seed_seats, seed_streams, shuffle

strategy = globals().get("__strategies__") or strategies_of(__name__)  # the registry's players
choose_swap = strategy.choose_swap
choose_play = strategy.choose_play
RANDOM = strategy.RANDOM
random_card_of_seat = strategy.random_card_of_seat  # random's pick, drawn in place from seat_streams[seat]

NO_OFFER = -2    # a scripted swap answer: this seat does not offer
# slots of the per-thread ``work`` array (no allocation per game)
W_DEAL_CURSOR = SCRIPT_CURSOR + 1  # slot 0: the script cursor (simcore/play.py)
W_OFFER = 2                           # per seat: the card offered for infected 8
W_FIRST = W_OFFER + MAX_PLAYERS       # per seat: the total after round 1 (the comeback figure)
W_MOVED = W_FIRST + MAX_PLAYERS       # per seat: the survivors rescued in the last trick (mask)
WORK_WIDTH = W_MOVED + MAX_PLAYERS
NO_SCRIPT = np.empty(0, dtype=np.int64)  # a run's games: no scripted decisions or leaders
NO_DEALS = np.empty((0, MAX_PLAYERS), dtype=np.int64)  # ... nor deals

# One game's scratch arrays, made once a thread (``new_state``) and played on game after game;
# ``log`` (a row a trick) and ``round_log`` (a row a round) have rows only in a state made for logs.
State = namedtuple("State", "streams seat_streams table hands order counters shares work log round_log")


@kernel(globals())
def new_state(given, logged):
    """A fresh state for the rules in force ``given`` (``logged``: with room for the longest game's log)."""
    rules = given[0]
    rounds = rules[R_MAX_ROUNDS] if logged else 0
    return State(np.empty(N_STREAMS, dtype=np.uint64), np.empty((rules[R_PLAYERS], N_STREAMS), dtype=np.uint64),
                 np.zeros(TABLE_WIDTH, dtype=np.int64), np.zeros(MAX_PLAYERS, dtype=np.uint64),
                 np.empty(48, dtype=np.int64),  # room for the 41 card ids
                 np.zeros(N_COUNTERS, dtype=np.int64), np.zeros(MAX_PLAYERS, dtype=np.float64),
                 np.zeros(WORK_WIDTH, dtype=np.int64),
                 np.full((rounds * rules[R_HAND], LOG_WIDTH), UNWRITTEN, dtype=np.int64),
                 np.full((rounds, ROUND_LOG_WIDTH), UNWRITTEN, dtype=np.int64))


@kernel(globals(), refcounts=False)
def deal(state, rules, deal_script):
    """``hand_size`` cards each: the next scripted deal, or this round's deck (at 3 players
    without fixed colours one colour is drawn out first) shuffled by Fisher-Yates from DEAL,
    seat s getting positions hand*s..hand*s+hand-1.  Returns the colour drawn out, or -1."""
    hands, streams, order, work, table = state.hands, state.streams, state.order, state.work, state.table
    n_players = rules[R_PLAYERS]
    size = rules[R_HAND]
    removed = -1
    colours = 15
    scripted_deal = work[W_DEAL_CURSOR] < deal_script.shape[0]
    if scripted_deal:
        used = 0
        for s in range(n_players):
            hands[s] = np.uint64(deal_script[work[W_DEAL_CURSOR], s])
            for c in range(4):
                if (hands[s] >> np.uint64(8 * c)) & np.uint64(0xFF):
                    used |= 1 << c
        work[W_DEAL_CURSOR] += 1
        if n_players == 3 and rules[R_COLOURS_3] == 0 and popcount(np.uint64(used)) == 3:
            removed = kth_index(np.uint64(15 & ~used), 0)
    if n_players == 3:
        if rules[R_COLOURS_3] != 0:
            colours = rules[R_COLOURS_3]
        elif scripted_deal:
            colours = 15 if removed < 0 else 15 & ~(1 << removed)
        else:
            removed = below(streams, DEAL, 4)  # anew every round (L1)
            colours = 15 & ~(1 << removed)
    deck = np.uint64(rules[R_INFECTED])
    n = 0
    for c in range(4):
        if (colours >> c) & 1:
            for k in range(8):
                order[n] = 8 * c + k
                n += 1
            deck |= np.uint64(0xFF) << np.uint64(8 * c)
    table[T_DECK] = np.int64(deck)  # what a strategy may count on being in play this round
    if scripted_deal:
        return removed
    m = np.uint64(rules[R_INFECTED])
    while m:
        order[n] = kth_index(m, 0)
        m &= m - np.uint64(1)
        n += 1
    shuffle(order, 0, n, streams, DEAL)
    for s in range(n_players):
        hand = np.uint64(0)
        for k in range(size):
            hand |= bit(order[s * size + k])
        hands[s] = hand
    rotate_seats(hands, n_players, streams)  # a duplicate deal's turn of the table (simcore/rng.py)
    return removed


@kernel(globals(), refcounts=False)
def offer_swaps(state, given, lineup, script):
    """【ゲームの準備】②: seats dealt no infected may offer a card for infected 8; one offer is
    taken (drawn from DEAL among several).  Returns (offers mask, eligible mask, swap seat or -1,
    card given up), or offers = -1 when a strategy broke the rules."""
    rules, masks = given
    strategies, params = lineup
    streams, seat_streams, table, hands, counters, work = state.streams, state.seat_streams, state.table, \
        state.hands, state.counters, state.work
    n_players = rules[R_PLAYERS]
    offers = 0
    eligible = 0
    if rules[R_SWAP] == 0:
        return 0, 0, -1, -1
    for s in range(n_players):
        if hands[s] & masks[INFECTED]:
            continue
        eligible |= 1 << s
        card = scripted(script, work)
        if card == -1:
            card = choose_swap(strategies[s], params, s, hands[s], table, rules, masks, seat_streams[s])
        elif card == NO_OFFER:
            card = -1
        if card == -1:
            continue
        if card < 0 or card >= FIRST_INFECTED or not has(hands[s], card):
            return -1, 0, -1, -1
        offers |= 1 << s
        work[W_OFFER + s] = card
    k = popcount(np.uint64(offers))
    if k == 0:
        return offers, eligible, -1, -1
    seat = kth_index(np.uint64(offers), below(streams, DEAL, k) if k > 1 else 0)
    card = work[W_OFFER + seat]
    hands[seat] = (hands[seat] & ~bit(card)) | bit(SWAP_CARD)
    counters[C_SWAPS] += 1
    return offers, eligible, seat, card


@kernel(globals(), refcounts=False)
def play_rounds(state, given, lineup, scripts, first_round, limits):
    """Rounds from ``first_round`` until the game ends; returns the status.

    Scenarios pass ``scripts`` = (deals, every decision in the order asked, the leaders that settle
    ties) and stop after ``limits`` = (rounds, tricks) (UNFINISHED); a run's games pass none and
    draw everything from the streams."""
    rules, masks = given
    strategies, params = lineup
    deal_script, script, leader_script = scripts
    round_limit, trick_limit = limits
    streams, seat_streams, table, hands, counters, work = state.streams, state.seat_streams, state.table, \
        state.hands, state.counters, state.work
    log, round_log = state.log, state.round_log
    n_players = rules[R_PLAYERS]
    size = rules[R_HAND]
    cap = rules[R_CAP]
    work[SCRIPT_CURSOR] = 0
    work[W_DEAL_CURSOR] = 0
    tricks_done = 0
    moved = work[W_MOVED:W_MOVED + MAX_PLAYERS]  # settle_trick's rescued masks
    leader = 0  # seat 0 leads round 0 (docs/rules/README.md, Common conventions)
    # Every seat random and nothing scripted: no strategy reads what a play shows (T_VOID,
    # T_SINGLE), so ``show_voids`` is left out; the same draws, the same cards.
    lean = script.shape[0] == 0
    for s in range(n_players):
        lean = lean and strategies[s] == RANDOM
    if first_round > 0:
        leader = leader_script[0]
    for rnd in range(first_round, rules[R_MAX_ROUNDS]):
        k_round = rnd - first_round
        if k_round >= round_limit:
            return UNFINISHED
        # 【ゲームの準備】③④ every round: empty boards and piles, tracks at 0, infected locked
        table[T_ROUND] = rnd
        table[T_UNLOCKED] = 0
        table[T_SEEN] = 0
        table[T_SWAP_SEAT] = -1
        table[T_LEADER] = leader  # the swap offers may know who leads first
        table[T_TRICK] = 0
        table[T_PLAYED] = 0
        for s in range(n_players):
            table[T_UPPER + s] = 0
            table[T_LOWER + s] = 0
            table[T_TRACK + s] = 0
            table[T_LOST + s] = 0
            table[T_VOID + s] = 0
            table[T_SINGLE + s] = 0
        counters[C_ROUNDS] += 1
        removed = deal(state, rules, deal_script)
        if k_round < round_log.shape[0]:
            round_log[k_round, G_ROUND] = rnd
            round_log[k_round, G_REMOVED] = removed
            round_log[k_round, G_LEADER] = leader
            for s in range(n_players):
                round_log[k_round, G_HANDS + s] = np.int64(hands[s])
        offers, eligible, swap_seat, swap_card = offer_swaps(state, given, lineup, script)
        if offers < 0:
            return STRATEGY_BROKE_RULES
        table[T_SWAP_SEAT] = swap_seat
        if swap_seat >= 0:  # it was dealt no infected: it holds none but infected 8
            table[T_VOID + swap_seat] = np.int64(masks[INFECTED] & ~bit(SWAP_CARD))
        if k_round < round_log.shape[0]:
            round_log[k_round, G_OFFERS] = offers
            round_log[k_round, G_SWAP_SEAT] = swap_seat
            round_log[k_round, G_SWAP_CARD] = swap_card

        for trick in range(size):
            if tricks_done == trick_limit:
                return UNFINISHED
            table[T_TRICK] = trick
            table[T_LEADER] = leader
            table[T_PLAYED] = 0
            row = tricks_done if tricks_done < log.shape[0] else -1
            cards = np.uint64(0)
            any_infected = False
            lead = -1
            # ①カードのプレイ: the leader, then clockwise
            for position in range(n_players):
                seat = leader + position
                if seat >= n_players:
                    seat -= n_players
                hand = hands[seat]
                legal = withhold(legal_mask(hand, lead, table[T_UNLOCKED], masks), np.uint64(rules[R_WITHHELD]))
                card = scripted(script, work)
                if card < 0:
                    if strategies[seat] == RANDOM:
                        card = random_card_of_seat(legal, seat_streams, seat)
                    else:
                        card = choose_play(strategies[seat], params, seat, hand, legal, table, rules, masks,
                                           seat_streams[seat])
                if card < 0 or card > SWAP_CARD or not has(legal, card):
                    return STRATEGY_BROKE_RULES
                if not lean:
                    show_voids(table, seat, position, card, lead, masks)  # what the play shows (public)
                lay_card(table, position, card)
                hands[seat] = hand & ~bit(card)
                cards |= bit(card)
                if position == 0:
                    lead = card
                if card >= FIRST_INFECTED:
                    any_infected = True
                if row >= 0:
                    log[row, L_PLAYS + position] = card
            if lead >= FIRST_INFECTED:
                counters[C_INFECTED_LEADS] += 1
            if (cards & (cards >> np.uint64(7))) & SAME_NUMBER:  # a 1 with its colour's 8: ranked 9
                counters[C_ONE_AS_NINE] += 1
            # ②勝敗の判定 ③感染者の襲撃 ④生存者の救出: the winner, the attack on its upper board, the survivors taken, tracks, rescues
            winner, level, lost = settle_trick(table, leader, n_players, cards, any_infected, rules, moved)
            if any_infected:
                counters[C_ATTACKS] += 1
                counters[C_LOST] += popcount(lost)
            counters[C_TAKEN] += popcount(cards & SURVIVORS)
            for s in range(n_players):
                counters[C_RESCUED] += popcount(np.uint64(moved[s]))
                if row >= 0:
                    log[row, L_RESCUED + s] = moved[s]
            counters[C_TRICKS] += 1
            if row >= 0:
                log[row, L_ROUND] = rnd
                log[row, L_TRICK] = trick
                log[row, L_LEADER] = leader
                log[row, L_WINNER] = winner
                log[row, L_LEVEL] = level
                log[row, L_LOST] = np.int64(lost)
                for s in range(n_players):
                    log[row, L_TRACKS + s] = table[T_TRACK + s]
                    log[row, L_UPPER + s] = table[T_UPPER + s]
                    log[row, L_LOWER + s] = table[T_LOWER + s]
            tricks_done += 1
            leader = winner  # the winner leads the next trick
            for position in range(n_players):
                table[T_PLAYS + position] = -1

        # 【ラウンドの終了】
        lowest = 1 << 30
        for s in range(n_players):
            points = round_score(table[T_LOWER + s], table[T_TRACK + s], table[T_LOST + s], rules)
            if table[T_TRACK + s] == cap:
                counters[C_BONUS] += 1
            table[T_TOTAL + s] += points
            lowest = min(lowest, points)
            # does the swap pay?  the swapper's round score against the other seats dealt no infected
            if s == swap_seat:
                counters[C_SWAP_POINTS] += points
                counters[C_SWAP_SQUARES] += points * points
            elif (eligible >> s) & 1:
                counters[C_STAYED] += 1
                counters[C_STAYED_POINTS] += points
                counters[C_STAYED_SQUARES] += points * points
            work[W_OFFER + s] = points  # this round's score (the offers are done with)
            if k_round < round_log.shape[0]:
                round_log[k_round, G_SCORES + s] = points
                round_log[k_round, G_TOTALS + s] = table[T_TOTAL + s]
                round_log[k_round, G_TRACKS + s] = table[T_TRACK + s]
                round_log[k_round, G_LOST + s] = table[T_LOST + s]
        counters[C_SEAT_ROUNDS] += n_players
        best = 0
        for s in range(n_players):
            best = max(best, table[T_TOTAL + s])
        if best >= rules[R_TARGET]:  # 累計が10点に到達
            return FINISHED
        if rnd + 1 >= rules[R_MAX_ROUNDS]:
            counters[C_CAPPED] = 1  # the round cap (not in the rulebook)
            return FINISHED
        if rnd == 0:  # who is behind after round 1 (the comeback figure)
            behind = False
            for s in range(n_players):
                work[W_FIRST + s] = table[T_TOTAL + s]
                behind = behind or table[T_TOTAL + s] < best
            counters[C_CONTEST] = 1 if behind else 0
        # next leader: the lowest round score; ties at random (or as the scenario says)
        tied = 0
        for s in range(n_players):
            if work[W_OFFER + s] == lowest:
                tied |= 1 << s
        k = popcount(np.uint64(tied))
        if k == 1:
            leader = kth_index(np.uint64(tied), 0)
        elif k_round + 1 < leader_script.shape[0] and leader_script[k_round + 1] >= 0:
            leader = leader_script[k_round + 1]
            if (tied >> leader) & 1 == 0:
                return STRATEGY_BROKE_RULES
        else:
            leader = kth_index(np.uint64(tied), below(streams, DEAL, k))
    return FINISHED  # first_round was already past the round cap


@kernel(globals(), refcounts=False)
def final_standing(state, rules):
    """Highest total; tie -> more survivors on the upper board (end of the last round); still
    tied -> shared.  Also settles the comeback figure (a seat behind after round 1 won)."""
    table, counters, work, shares = state.table, state.counters, state.work, state.shares
    n_players = rules[R_PLAYERS]
    final_shares(table, n_players, shares)
    first_best = 0
    for s in range(n_players):
        first_best = max(first_best, work[W_FIRST + s])
    counters[C_COMEBACK] = 0
    for s in range(n_players):
        if shares[s] > 0.0:
            if counters[C_CONTEST] and work[W_FIRST + s] < first_best:
                counters[C_COMEBACK] = 1


@kernel(globals(), refcounts=False)
def play_game(state, run, index, given, lineup):
    """Game ``index`` of ``run`` = (seed, keys); returns its status (FINISHED or
    STRATEGY_BROKE_RULES)."""
    seed_game(state.streams, state.seat_streams, run[0], run[1], index)
    for c in range(N_COUNTERS):
        state.counters[c] = 0
    for s in range(MAX_PLAYERS):
        state.table[T_TOTAL + s] = 0
        state.table[T_PLAYS + s] = -1
    status = play_rounds(state, given, lineup, (NO_DEALS, NO_SCRIPT, NO_SCRIPT), np.int64(0),
                         (np.int64(1 << 30), np.int64(-1)))
    # int64, not literals: one play_rounds for this and play_position (a literal argument
    # compiles a version of its own)
    final_standing(state, given[0])
    return status


@kernel(globals(), inline="always")
def keep_row(state, given, outputs, g):
    """A played game's column ``g`` of a chunk (the outputs are column-major: each row is a
    Parquet column): totals, shares, counters."""
    scores_out, shares_out, counters_out = outputs[0], outputs[1], outputs[2]
    for s in range(given[0][R_PLAYERS]):
        scores_out[s, g] = state.table[T_TOTAL + s]
        shares_out[s, g] = state.shares[s]
    for c in range(N_COUNTERS):
        counters_out[c, g] = state.counters[c]


@kernel(globals())
def keep_log(state, given, buffers, k):
    """A logged game into row ``k`` of the buffers (``Game.log_buffers``; ``uppers[k, s]`` is seat
    s's upper-board count at the end, the tie-break), and the state's logs cleared for the next."""
    logs, round_logs, scores, shares, counters, uppers = buffers[0], buffers[1], buffers[2], buffers[3], \
        buffers[4], buffers[5]
    logs[k, :, :] = state.log
    round_logs[k, :, :] = state.round_log
    shares[k, :] = state.shares
    counters[k, :] = state.counters
    for s in range(given[0][R_PLAYERS]):
        scores[k, s] = state.table[T_TOTAL + s]
        uppers[k, s] = popcount(np.uint64(state.table[T_UPPER + s]))
    state.log[:, :] = UNWRITTEN
    state.round_log[:, :] = UNWRITTEN


@kernel(globals())
def play_position(state, run, position, given, lineup, scripts):
    """Scripted deals, swaps, cards and tie-settling leaders (``scripts``) from ``position`` =
    (start totals, first round, rounds, tricks): ``balance play``; returns the status.  Chance the
    scripts leave open comes from game 0 of ``run``, and a strategy asked draws from its seat's
    PLAY stream of that game."""
    rules = given[0]
    start_totals, first_round, round_limit, trick_limit = position
    seed_streams(state.streams, run[0], 0, rules[R_PLAYERS])
    seed_seats(state.seat_streams, run[1], 0)
    for s in range(MAX_PLAYERS):
        state.table[T_PLAYS + s] = -1
    for s in range(rules[R_PLAYERS]):
        state.table[T_TOTAL + s] = start_totals[s]
    status = play_rounds(state, given, lineup, scripts, first_round, (round_limit, trick_limit))
    final_standing(state, rules)
    return status


@kernel(globals(), inline="always")
def deal_first(state, run, index, given):
    """Round 1's hands of game ``index`` (before the swap for infected 8), dealt by the play loop's
    own ``deal``: it is the first draw of the DEAL stream."""
    rules = given[0]
    seed_streams(state.streams, run[0], index, rules[R_PLAYERS])
    state.work[W_DEAL_CURSOR] = 0
    deal(state, rules, NO_DEALS)


# the entry points, written once for every game (simcore/play.py)
run_chunk, play_many_logged, play_scenario, deal_openings = entry_points(globals())
