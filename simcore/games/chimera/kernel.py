"""Chimera Tricks: the round loop that asks the strategies (compiled).

The game's side of the one contract (simcore/play.py): its scratch ``State``, ``play_game`` on it
(its rounds played by ``play_rounds``, or by its all-random build ``play_rounds_random``, compiled
into it), what a chunk's row and a logged game keep, a scripted position (``balance play``) and
the first deal; the entry points are the shared ones.  Chance comes from the DEAL
stream in the order documented in simcore/games/chimera/reference.py (deck shuffle, then the boxed
grimoires when some are boxed, then every round's pile); the strategy at seat s is handed
``seat_streams[s]``, its own PLAY stream (simcore/rng.py), never the game's ``streams``.  Nothing
is allocated per game: every scratch value lives in the per-thread state's arrays.
"""

from collections import namedtuple

import numpy as np

from simcore.bits import bit, has, ix, pick, popcount
from simcore.games.chimera.rules import (
    C_CANNOT_FOLLOW, C_CHIMERA_WINS, C_CONVERSION_POINTS, C_CONVERSIONS, C_CRYSTALS_MISSED, C_CRYSTALS_TAKEN,
    C_DELIBERATE, C_FOLLOWER_PLAYS, C_HAND_SQ, C_LEADER_WINS, C_LOSS_THEN_WON, C_LOSSES_NOT_LAST, C_PASSED,
    C_PASSED_NOT_LAST, C_PLAYS, C_RANK, C_ROUNDS, C_SEAT_ROUNDS, C_STACKED, C_SUM_WINS, C_TENS, C_TRICKS,
    C_ZEROS, G_CONVERSIONS, G_CRYSTALS, G_DONE, G_HANDS, G_LEADER, G_ORDER, G_ROUND, G_SCORES, G_TOTALS,
    I_BOXED_FAMILIARS, I_BOXED_GRIMOIRES, I_CRYSTALS_HELD, I_DEAL, I_HAND_SCORES, I_HELD, I_TOTALS, INFO_WIDTH,
    L_CRYSTAL, L_GRIMOIRE, L_LEAD, L_LEADER, L_LEFT, L_LEGAL, L_MOVES, L_NEXT, L_RANKS, L_ROUND, L_SUITS,
    L_TRICK, L_WINNER, LOG_WIDTH, MAX_GRIMOIRES, MAX_PLAYERS, N_COUNTERS, N_IDS, N_SEAT_TALLIES,
    R_CRYSTALS, R_DECK, R_DECK_SIZE, R_GRIMOIRES, R_PLAYERS, R_ROUNDS, R_TRICKS, R_WITHHELD,
    R_WINNER_LEADS, RANK_BINS, ROUND_LOG_WIDTH, S_CRYSTALS, S_GRIMOIRES, S_VALUE, T_CRYSTALS, T_CRYSTALS_LEFT,
    T_GRIMOIRE, T_LEAD, T_LEADER, T_NEXT, T_PILE, T_PLAYED, T_PLAYS, T_RANK, T_ROUND, T_SEEN, T_SHEET, T_SUITS,
    T_HELD, T_IN_PLAY, T_TAKEN, T_TOP, T_TOP_RANK, T_TOTAL, T_TRICK, T_VALUE, T_VOID, TABLE_WIDTH, ZERO_TENS,
    award_trick, best_following_rank, clear_sheet, kth_move, legal_masks, move_count, next_seat, place_card,
    round_score,
    suit_of, trick_winner,
)
from simcore.registry import strategies_of
from simcore.jit import kernel
from simcore.play import (FINISHED, STRATEGY_BROKE_RULES, UNFINISHED, SCRIPT_CURSOR, entry_points, scripted,
                          withhold_slots)
from simcore.replays import UNWRITTEN  # a log cell not written
from simcore.rng import DEAL, N_STREAMS, PLAY, rotate_seats, seed_game, seed_seats, seed_streams, shuffle, step_below

strategy = globals().get("__strategies__") or strategies_of(__name__)  # the registry's players
choose_play = strategy.choose_play
RANDOM = strategy.RANDOM
RANDOM_ONLY = getattr(strategy, "RANDOM_ONLY", False)  # the random build (simcore/builds.py): see play_game

# slots of the per-thread ``work`` array
# slot SCRIPT_CURSOR (0) is the scenario script's cursor (simcore/play.py)
W_DECK = SCRIPT_CURSOR + 1                                # the deck shuffle
W_INPLAY = W_DECK + N_IDS                 # grimoire ids in play, ascending
W_ORDER = W_INPLAY + MAX_GRIMOIRES        # this round's pile (and the grimoire box shuffle)
W_START = W_ORDER + MAX_GRIMOIRES         # per seat: the hand at the round's start (mask)
W_HAND_SCORES = W_START + MAX_PLAYERS     # per dealt hand
W_COVERED = W_HAND_SCORES + MAX_PLAYERS   # + 2 * position: the top card (and rank) the play covered
W_PLAYED_SLOT = W_COVERED + 2 * MAX_PLAYERS  # per position: the slot played into
W_LEGAL = W_PLAYED_SLOT + MAX_PLAYERS     # + 2 * position + slot: the cards that could go there
W_FOLLOWING = W_LEGAL + 2 * MAX_PLAYERS   # per position: its final field's rank if it holds the lead suit, else -1
W_LATER = W_FOLLOWING + MAX_PLAYERS       # per position: the highest of those after it
WORK_WIDTH = W_LATER + MAX_PLAYERS
NO_SCRIPT = np.empty(0, dtype=np.int64)  # a run's games: no scripted moves ...
NO_ORDERS = np.empty((0, 1), dtype=np.int64)  # ... nor piles

# One game's scratch arrays, made once a thread (``new_state``) and played on game after game;
# ``log`` (a row a trick) and ``round_log`` (a row a round) have rows only in a state made for logs.
State = namedtuple("State", "streams seat_streams table hands work counters seats shares info log round_log")


@kernel(globals())
def new_state(given, logged):
    """A fresh state for the rules in force ``given`` (``logged``: with room for a whole game's log)."""
    rules = given[0]
    rounds = rules[R_ROUNDS] if logged else 0
    return State(np.empty(N_STREAMS, dtype=np.uint64), np.empty((rules[R_PLAYERS], N_STREAMS), dtype=np.uint64),
                 np.zeros(TABLE_WIDTH, dtype=np.int64), np.zeros(MAX_PLAYERS, dtype=np.uint64),
                 np.zeros(WORK_WIDTH, dtype=np.int64), np.zeros(N_COUNTERS, dtype=np.int64),
                 np.zeros(N_SEAT_TALLIES, dtype=np.int64), np.zeros(MAX_PLAYERS, dtype=np.float64),
                 np.zeros(INFO_WIDTH, dtype=np.int64),
                 np.full((rounds * rules[R_TRICKS], LOG_WIDTH), UNWRITTEN, dtype=np.int64),
                 np.full((rounds, ROUND_LOG_WIDTH), UNWRITTEN, dtype=np.int64))


@kernel(globals(), inline="always")
def deal(state, rules):
    """Draw steps 1-2: shuffle the deck (seat s gets positions T*s..T*s+T-1, the rest is boxed);
    if more grimoires than tricks, shuffle the grimoire ids and box the last G-T.  The ids in
    play go to ``work[W_INPLAY:]`` ascending."""
    streams, hands, work, info = state.streams, state.hands, state.work, state.info
    n_players = rules[R_PLAYERS]
    t = rules[R_TRICKS]
    d = rules[R_DECK_SIZE]
    for i in range(d):
        work[W_DECK + i] = rules[R_DECK + i]
    shuffle(work, W_DECK, d, streams, DEAL)
    for s in range(n_players):
        hand = np.uint64(0)
        for k in range(t):
            hand |= bit(work[W_DECK + t * s + k])
        hands[s] = hand
    rotate_seats(hands, n_players, streams)  # a duplicate deal's turn of the table (simcore/rng.py)
    for s in range(n_players):
        info[I_DEAL + s] = np.int64(hands[s])
    boxed = np.uint64(0)
    for i in range(n_players * t, d):
        boxed |= bit(work[W_DECK + i])
    info[I_BOXED_FAMILIARS] = np.int64(boxed)
    g = rules[R_GRIMOIRES]
    in_play = np.uint64(0)
    if g > t:
        for i in range(g):
            work[W_ORDER + i] = i
        shuffle(work, W_ORDER, g, streams, DEAL)
        for i in range(t):
            in_play |= bit(work[W_ORDER + i])
    else:
        for i in range(g):
            in_play |= bit(i)
    k = 0
    boxed = np.uint64(0)
    for i in range(g):
        if has(in_play, i):
            work[W_INPLAY + k] = i
            k += 1
        else:
            boxed |= bit(i)
    info[I_BOXED_GRIMOIRES] = np.int64(boxed)


@kernel(globals(), inline="always")
def flush(counters, n_players, tricks, per_play, per_trick, passes, crystals_taken, crystals_missed):
    """Unpack play_rounds' register tallies (16-bit fields) into the game's counters."""
    field = 0xFFFF
    counters[C_TRICKS] += tricks
    counters[C_PLAYS] += n_players * tricks
    counters[C_FOLLOWER_PLAYS] += (n_players - 1) * tricks
    counters[C_STACKED] += per_play & field
    counters[C_ZEROS] += ((per_play >> 16) & field) - ((per_play >> 32) & field)
    counters[C_TENS] += (per_play >> 32) & field
    counters[C_CANNOT_FOLLOW] += (per_play >> 48) & field
    counters[C_LEADER_WINS] += per_trick & field
    counters[C_SUM_WINS] += (per_trick >> 16) & field
    counters[C_CHIMERA_WINS] += (per_trick >> 32) & field
    counters[C_DELIBERATE] += (per_trick >> 48) & field
    counters[C_PASSED] += passes & field
    counters[C_LOSS_THEN_WON] += (passes >> 16) & field
    counters[C_PASSED_NOT_LAST] += (passes >> 32) & field
    counters[C_LOSSES_NOT_LAST] += (n_players - 1) * ((passes >> 48) & field) - ((passes >> 32) & field)
    counters[C_CRYSTALS_TAKEN] += crystals_taken
    counters[C_CRYSTALS_MISSED] += crystals_missed


def _play_rounds(state, given, lineup, scripts, limits, random_only):
    """Every round of the game; returns the status.  Scenarios pass ``scripts`` = (every move, the
    piles: one row per round) and stop after ``limits`` = (rounds, tricks) (UNFINISHED); a run's
    games pass none and draw the piles from DEAL.  ``random_only`` (a compile-time constant):
    every seat plays random and no familiar is withheld, so the loop is compiled without the other
    strategies' calls (a quarter faster) and without the withholding."""
    rules, masks = given
    strategies, params = lineup
    script, orders = scripts
    round_limit, trick_limit = limits
    streams, seat_streams, table, hands, work = state.streams, state.seat_streams, state.table, state.hands, state.work
    counters, seats, log, round_log = state.counters, state.seats, state.log, state.round_log
    n_players = rules[R_PLAYERS]
    n_tricks = rules[R_TRICKS]
    winner_leads = rules[R_WINNER_LEADS] != 0
    work[SCRIPT_CURSOR] = 0
    tricks_done = 0
    per_play = 0           # packed tallies, flushed into ``counters`` when the game stops
    per_trick = 0
    passes = 0
    crystals_taken = 0
    crystals_missed = 0
    for rnd in range(rules[R_ROUNDS]):
        if rnd >= round_limit:
            flush(counters, n_players, tricks_done, per_play, per_trick, passes, crystals_taken,
                  crystals_missed)
            return UNFINISHED
        # the pile: a fresh shuffle of the ascending ids in play (or the scripted order)
        if rnd < orders.shape[0]:
            for i in range(n_tricks):
                work[ix(W_ORDER + i)] = orders[rnd, i]
        else:
            for i in range(n_tricks):
                work[ix(W_ORDER + i)] = work[ix(W_INPLAY + i)]
            shuffle(work, W_ORDER, n_tricks, streams, DEAL)
        table[T_ROUND] = rnd
        table[T_SEEN] = 0
        table[T_CRYSTALS_LEFT] = rules[R_CRYSTALS]   # every crystal is back at each round start
        # from round 1 on the hands and the grimoires in play are public (T_HELD, T_IN_PLAY)
        in_play = 0
        if rnd > 0:
            for i in range(n_tricks):
                in_play |= np.int64(1) << work[ix(W_INPLAY + i)]
        table[T_IN_PLAY] = in_play
        for s in range(n_players):
            table[ix(T_VOID + s)] = 0
            table[ix(T_HELD + s)] = np.int64(hands[ix(s)]) if rnd > 0 else 0
            work[ix(W_START + s)] = np.int64(hands[ix(s)])
            table[ix(T_TOP + 2 * s)] = -1
            table[ix(T_TOP + 2 * s + 1)] = -1
            table[ix(T_TOP_RANK + 2 * s)] = 0
            table[ix(T_TOP_RANK + 2 * s + 1)] = 0
            table[ix(T_SUITS + s)] = 0
            table[ix(T_RANK + s)] = 0
            table[ix(T_SHEET + s)] = 0
            table[ix(T_PILE + s)] = 0
            table[ix(T_CRYSTALS + s)] = 0
            table[ix(T_TAKEN + s)] = 0
            table[ix(T_VALUE + s)] = 0
        counters[C_ROUNDS] += 1
        leader = rnd % n_players   # the seat receiving the previous first leader's hand leads
        logged_round = rnd < round_log.shape[0]
        if logged_round:
            round_log[rnd, G_ROUND] = rnd
            round_log[rnd, G_LEADER] = leader
            round_log[rnd, G_DONE] = 0
            for s in range(n_players):
                round_log[rnd, G_HANDS + s] = np.int64(hands[ix(s)])
                round_log[rnd, G_CRYSTALS + s] = 0
            for i in range(n_tricks):
                round_log[rnd, G_ORDER + i] = work[ix(W_ORDER + i)]
        passed_before = 0
        previous_winner = -1
        for trick in range(n_tricks):
            if tricks_done == trick_limit:
                flush(counters, n_players, tricks_done, per_play, per_trick, passes, crystals_taken,
                      crystals_missed)
                return UNFINISHED
            grimoire = work[ix(W_ORDER + trick)]
            next_grimoire = work[ix(W_ORDER + trick + 1)] if trick + 1 < n_tricks else -1
            if not random_only:        # what a strategy sees (random play reads none of it)
                table[T_TRICK] = trick
                table[T_LEADER] = leader
                table[T_PLAYED] = 0
                table[T_LEAD] = -1
                table[T_GRIMOIRE] = grimoire
                table[T_NEXT] = next_grimoire
            lead = -1
            # 1: the leader, then clockwise; every card onto the player's own sheet
            seat = leader
            for position in range(n_players):
                hand = hands[ix(seat)]
                at = T_TOP + 2 * seat              # the seat's two top cards ...
                rank_at = T_TOP_RANK + 2 * seat    # ... and their ranks
                top0 = table[ix(at)]
                top1 = table[ix(at + 1)]
                m0, m1, can_follow = legal_masks(hand, top0, top1, lead, masks)
                if not random_only:  # the random-only build withholds nothing (play_game)
                    m0, m1 = withhold_slots(m0, m1, np.uint64(rules[R_WITHHELD]))
                if not random_only and not can_follow:     # its field will show it lacks the lead suit
                    table[ix(T_VOID + seat)] |= np.int64(1) << lead
                # the legal masks, for the passed-win test after the trick (C11) and the log
                work[ix(W_LEGAL + 2 * position)] = np.int64(m0)
                work[ix(W_LEGAL + 2 * position + 1)] = np.int64(m1)
                if random_only:  # random's draw, in place (no view of the seat's row); legal by construction
                    drawn, seat_streams[ix(seat), PLAY] = step_below(seat_streams[ix(seat), PLAY], move_count(m0, m1))
                    move = kth_move(m0, m1, drawn)
                else:
                    move = scripted(script, work)
                    if move < 0:
                        move = choose_play(strategies[ix(seat)], params, seat, hand, m0, m1, table, rules, masks,
                                           seat_streams[seat])
                    if move < 0 or move >= 2 * N_IDS or not has(m1 if move & 1 else m0, move >> 1):
                        flush(counters, n_players, tricks_done, per_play, per_trick, passes, crystals_taken,
                              crystals_missed)
                        return STRATEGY_BROKE_RULES
                card = move >> 1
                slot = move & 1
                work[ix(W_PLAYED_SLOT + position)] = slot
                stacked = np.int64((top0 >= 0) & (top1 >= 0))
                zero_ten = np.int64((ZERO_TENS >> np.uint64(card)) & np.uint64(1))
                # four 16-bit tallies in one register: stacked, 0/10 placed, 0/10 stacked, cannot follow
                per_play += stacked | (zero_ten << 16) | ((zero_ten & stacked) << 32) | (
                    (1 - np.int64(can_follow)) << 48)
                work[ix(W_COVERED + 2 * position)] = table[ix(at + slot)]        # what the card covers (C11)
                work[ix(W_COVERED + 2 * position + 1)] = table[ix(rank_at + slot)]
                place_card(table, seat, card, slot, stacked, rules)
                hands[ix(seat)] = hand & ~bit(card)
                table[ix(T_PLAYS + position)] = move
                if not random_only:
                    table[ix(T_SHEET + seat)] |= np.int64(bit(card))
                    table[T_SEEN] |= np.int64(bit(card))
                    table[T_PLAYED] = position + 1
                if position == 0:
                    lead = suit_of(card)       # the suit of the card just led
                    if not random_only:
                        table[T_LEAD] = lead
                seat = next_seat(seat, n_players)
            # 2: the highest field holding the lead suit; a tie goes to the later player
            w, best = trick_winner(table, leader, lead, n_players, work, W_FOLLOWING)
            winner = leader + w
            if winner >= n_players:
                winner -= n_players
            at = T_TOP + 2 * winner
            top0 = table[ix(at)]
            top1 = table[ix(at + 1)]
            pair = np.int64((top0 >= 0) & (top1 >= 0))
            one_suit = np.int64(suit_of(top0) == suit_of(top1))
            counters[C_RANK + min(best, RANK_BINS - 1)] += 1
            # passed wins (C11): a losing follower one of whose legal moves would have beaten
            # every other final field (ties: the later position)
            later = -1
            for position in range(n_players - 1, -1, -1):
                work[ix(W_LATER + position)] = later
                later = max(later, work[ix(W_FOLLOWING + position)])
            passed = 0
            earlier = work[W_FOLLOWING]
            seat = leader
            for position in range(1, n_players):
                seat = next_seat(seat, n_players)
                # the sheet before this seat's play: its card taken back off the slot it went to
                sheet = T_TOP + 2 * seat
                sheet_ranks = T_TOP_RANK + 2 * seat
                into_0 = work[ix(W_PLAYED_SLOT + position)] == 0
                covered = W_COVERED + 2 * position
                before_top0 = pick(into_0, work[ix(covered)], table[ix(sheet)])
                before_rank0 = pick(into_0, work[ix(covered + 1)], table[ix(sheet_ranks)])
                before_top1 = pick(into_0, table[ix(sheet + 1)], work[ix(covered)])
                before_rank1 = pick(into_0, table[ix(sheet_ranks + 1)], work[ix(covered + 1)])
                candidate = best_following_rank(before_top0, before_rank0, before_top1, before_rank1,
                                                np.uint64(work[ix(W_LEGAL + 2 * position)]),
                                                np.uint64(work[ix(W_LEGAL + 2 * position + 1)]), lead, rules, masks)
                wins = (candidate >= earlier) & (candidate > work[ix(W_LATER + position)]) & (seat != winner)
                passed |= np.int64(wins) << seat
                earlier = max(earlier, work[ix(W_FOLLOWING + position)])
            passed_count = popcount(np.uint64(passed))
            deliberate = (passed_before >> winner) & 1
            not_last = np.int64(trick + 1 < n_tricks)
            per_trick += (np.int64(w == 0) | ((pair & one_suit) << 16) | ((pair & (1 - one_suit)) << 32)
                          | (deliberate << 48))
            passes += (passed_count | (((1 - deliberate) & np.int64((trick > 0) & (winner != previous_winner))) << 16)
                       | ((passed_count * not_last) << 32) | (not_last << 48))
            passed_before = passed
            previous_winner = winner
            # 3: a crystal if a top card carries the mark (one per trick, while the supply lasts)
            crystal, marked, value = award_trick(table, winner, grimoire, rules, masks)
            seats[ix(S_CRYSTALS + winner)] += crystal
            crystals_taken += crystal
            crystals_missed += marked - crystal
            seats[ix(S_VALUE + winner)] += value
            seats[ix(S_GRIMOIRES + winner)] += 1
            row = tricks_done if tricks_done < log.shape[0] else -1
            if row >= 0:
                log[row, L_ROUND] = rnd
                log[row, L_TRICK] = trick
                log[row, L_LEADER] = leader
                log[row, L_LEAD] = lead
                log[row, L_WINNER] = winner
                log[row, L_GRIMOIRE] = grimoire
                log[row, L_CRYSTAL] = crystal
                log[row, L_LEFT] = table[T_CRYSTALS_LEFT]
                log[row, L_NEXT] = next_grimoire
                for i in range(n_players):
                    log[row, L_MOVES + i] = table[ix(T_PLAYS + i)]
                    log[row, L_SUITS + i] = table[ix(T_SUITS + i)]
                    log[row, L_RANKS + i] = table[ix(T_RANK + i)]
                    log[row, L_LEGAL + 2 * i] = work[ix(W_LEGAL + 2 * i)]
                    log[row, L_LEGAL + 2 * i + 1] = work[ix(W_LEGAL + 2 * i + 1)]
            if logged_round:
                round_log[rnd, G_CRYSTALS + winner] = table[ix(T_CRYSTALS + winner)]
            # the winner's whole sheet goes to its face-down pile; the others' sheets stay
            if not random_only:
                table[ix(T_PILE + winner)] += popcount(np.uint64(table[ix(T_SHEET + winner)]))
                table[ix(T_SHEET + winner)] = 0
            clear_sheet(table, winner)
            if not random_only:  # every slot, not n_players': a fixed count is two stores, not a memset call
                for i in range(MAX_PLAYERS):
                    table[T_PLAYS + i] = -1
            tricks_done += 1
            if winner_leads:                 # C4: the winner leads; variant: the next seat
                leader = winner
            else:
                leader += 1
                if leader == n_players:
                    leader = 0

        # 「ラウンドの終了」: score; then every seat passes its familiars of the round clockwise
        for s in range(n_players):
            score, turned, gained = round_score(np.uint64(table[ix(T_TAKEN + s)]), table[ix(T_VALUE + s)],
                                                table[ix(T_CRYSTALS + s)], rules)
            counters[C_CONVERSIONS] += turned
            counters[C_CONVERSION_POINTS] += gained
            table[ix(T_TOTAL + s)] += score
            hand = s - rnd % n_players
            if hand < 0:
                hand += n_players
            work[ix(W_HAND_SCORES + hand)] += score
            if logged_round:
                round_log[rnd, G_CONVERSIONS + s] = turned
                round_log[rnd, G_SCORES + s] = score
                round_log[rnd, G_TOTALS + s] = table[ix(T_TOTAL + s)]
        if logged_round:
            round_log[rnd, G_DONE] = 1
        counters[C_SEAT_ROUNDS] += n_players
        for s in range(n_players):
            hands[ix(s + 1 if s + 1 < n_players else 0)] = np.uint64(work[ix(W_START + s)])
    flush(counters, n_players, tricks_done, per_play, per_trick, passes, crystals_taken,
          crystals_missed)
    return FINISHED


# strategies and scenarios: one compiled function, without reference counts (it allocates nothing)
play_rounds = kernel(globals(), refcounts=False)(_play_rounds)
# the all-random build is compiled into play_game: no call, and none of
# the reference counts a call takes and gives back on its arrays
play_rounds_random = kernel(globals(), inline="always")(_play_rounds)


@kernel(globals(), inline="always")
def start_game(state):
    for c in range(N_COUNTERS):
        state.counters[c] = 0
    for c in range(N_SEAT_TALLIES):
        state.seats[c] = 0
    for s in range(MAX_PLAYERS):
        state.table[T_TOTAL + s] = 0
        state.table[T_PLAYS + s] = -1
        state.work[W_HAND_SCORES + s] = 0


@kernel(globals(), inline="always")
def finish_game(state, rules, status):
    """「ゲームの終了と勝敗」: the highest total wins; a tie shares the win (none if unfinished)."""
    table, work, counters, seats, info, shares = state.table, state.work, state.counters, state.seats, state.info, \
        state.shares
    n_players = rules[R_PLAYERS]
    best = table[T_TOTAL]
    squares = 0
    for s in range(n_players):
        best = max(best, table[T_TOTAL + s])
        squares += work[W_HAND_SCORES + s] * work[W_HAND_SCORES + s]
        info[I_HAND_SCORES + s] = work[W_HAND_SCORES + s]
        info[I_HELD + s] = seats[S_GRIMOIRES + s]
        info[I_CRYSTALS_HELD + s] = seats[S_CRYSTALS + s]
        info[I_TOTALS + s] = table[T_TOTAL + s]
    counters[C_HAND_SQ] = squares
    tied = 0
    for s in range(n_players):
        if table[T_TOTAL + s] == best:
            tied += 1
    for s in range(MAX_PLAYERS):
        shares[s] = 0.0
        if s < n_players and status == FINISHED and table[T_TOTAL + s] == best:
            shares[s] = 1.0 / tied


# Without reference counts (it allocates nothing) and called once a game, the all-random loop
# compiled into it; the other players' loop is a call (``play_rounds``).  Compiled into the chunk
# loop instead (as TriATri's is), its random games measured 0.95x the speed, not 1.0x
@kernel(globals(), refcounts=False)
def play_game(state, run, index, given, lineup):
    """Game ``index`` of ``run`` = (seed, keys); returns its status (FINISHED or STRATEGY_BROKE_RULES)."""
    rules = given[0]
    strategies = lineup[0]
    seed_game(state.streams, state.seat_streams, run[0], run[1], index)
    start_game(state)
    deal(state, rules)
    # every seat random and no familiar withheld (`cards --cause`): the random-only build, whose
    # loop has no withholding in it (that alone made it 8% slower, 5186652).  The random build
    # (RANDOM_ONLY, a constant Numba prunes the other branch with) compiles only the random-only
    # loop: 55 s -> 28 s (BENCHMARKS.md); a card withheld is played by the stock loop instead
    # (ChimeraGame.random_build_plays)
    all_random = rules[R_WITHHELD] == 0
    for s in range(rules[R_PLAYERS]):
        all_random = all_random and strategies[s] == RANDOM
    # the limits as int64, not literals: one play_rounds for this and play_position (a literal
    # argument compiles a version of its own)
    if RANDOM_ONLY or all_random:
        status = play_rounds_random(state, given, lineup, (NO_SCRIPT, NO_ORDERS), (np.int64(1 << 30), np.int64(-1)),
                                    True)
    else:
        status = play_rounds(state, given, lineup, (NO_SCRIPT, NO_ORDERS), (np.int64(1 << 30), np.int64(-1)), False)
    finish_game(state, rules, status)
    return status


@kernel(globals(), inline="always")
def keep_row(state, given, outputs, g):
    """A played game's column ``g`` of a chunk (column-major outputs: each row is a Parquet
    column): totals, shares, counters, the seats' tallies."""
    scores_out, shares_out, counters_out, seats_out = outputs[0], outputs[1], outputs[2], outputs[3]
    for s in range(given[0][R_PLAYERS]):
        scores_out[s, g] = state.table[T_TOTAL + s]
        shares_out[s, g] = state.shares[s]
    for c in range(N_COUNTERS):
        counters_out[c, g] = state.counters[c]
    for c in range(N_SEAT_TALLIES):
        seats_out[c, g] = state.seats[c]


@kernel(globals())
def keep_log(state, given, buffers, k):
    """A logged game into row ``k`` of the buffers (``Game.log_buffers``), and the state's logs
    cleared for the next."""
    logs, round_logs, infos, shares, counters = buffers[0], buffers[1], buffers[2], buffers[3], buffers[4]
    logs[k, :, :] = state.log
    round_logs[k, :, :] = state.round_log
    infos[k, :] = state.info
    shares[k, :] = state.shares
    counters[k, :] = state.counters
    state.log[:, :] = UNWRITTEN
    state.round_log[:, :] = UNWRITTEN


@kernel(globals())
def play_position(state, run, position, given, lineup, scripts):
    """A scripted game (``balance play``): ``position`` = (the deal, the grimoires in play
    ascending, the boxed familiars and grimoires, rounds, tricks to stop after), ``scripts`` =
    (every move, every round's pile); the rules draw nothing, and a strategy asked once the script
    is used up draws from its seat's PLAY stream of game 0 of ``run``.  Returns the status."""
    rules = given[0]
    dealt, in_play, boxed_familiars, boxed_grimoires, round_limit, trick_limit = position
    seed_streams(state.streams, run[0], 0, rules[R_PLAYERS])
    seed_seats(state.seat_streams, run[1], 0)
    start_game(state)
    for s in range(rules[R_PLAYERS]):
        state.hands[s] = np.uint64(dealt[s])
        state.info[I_DEAL + s] = dealt[s]
    for i in range(in_play.shape[0]):
        state.work[W_INPLAY + i] = in_play[i]
    state.info[I_BOXED_FAMILIARS] = boxed_familiars
    state.info[I_BOXED_GRIMOIRES] = boxed_grimoires
    status = play_rounds(state, given, lineup, scripts, (round_limit, trick_limit), False)
    finish_game(state, rules, status)
    return status


@kernel(globals(), inline="always")
def deal_first(state, run, index, given):
    """The familiars dealt to each seat in game ``index`` (its round-1 hand; the hands pass on each
    round), dealt by the play loop's own ``deal``: the first draw of the DEAL stream."""
    rules = given[0]
    seed_streams(state.streams, run[0], index, rules[R_PLAYERS])
    deal(state, rules)


# the entry points, written once for every game (simcore/play.py)
run_chunk, play_many_logged, play_scenario, deal_openings = entry_points(globals())
