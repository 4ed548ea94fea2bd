"""Trick-Take BIRD & WEATHER: the play loop that asks the strategies (compiled).

The game's side of the one contract (simcore/play.py): its scratch ``State``, ``play_game`` on
it (a match of deals, each played by ``play_deal``), what a chunk's row and a logged game keep,
the first deal, and one wrapper per entry point:

    run_chunk         one thread's share of a chunk of games, one output row each
    play_many_logged  games of a run with their trick-by-trick logs (replay, differential tests)
    play_scenario     one deal from a given position with scripted plays (``balance play``)
    deal_openings     the first deal's hands of some games (card strength)

A plug-in build re-executes this file with ``__strategies__`` set to a strategy
module that includes the user's functions (simcore/plugins/).

Chance comes from the game's DEAL stream (``state.streams``), which no strategy is handed; the
strategy at seat s is handed ``state.seat_streams[s]``, its own PLAY stream (simcore/rng.py).
"""

from collections import namedtuple

import numpy as np

from simcore.bits import bit, ix
from simcore.games.bird_weather.rules import (
    C_FACEDOWN_TAKEN, C_REVERSALS, C_ZERO_POINTS, C_ZERO_SCORED, C_ZERO_WINS, L_CARD, L_DEAL, L_KIND,
    L_LEADER, L_PICK_CARD, L_PICK_SEAT, L_POINTS, L_POINTS_CARD, L_TRICK, L_WINNER, LOG_WIDTH,
    MAX_PLAYERS, N_COUNTERS, R_DEALS, R_DECK, R_FACEDOWN, R_HAND, R_PLAYERS, R_TRICKS, R_WITHHELD, REVERSAL,
    FACEDOWN_HIDDEN, FACEDOWN_NONE, T_DEAL, T_FACEDOWN, T_LEADER, T_NPLAYED, T_PLAY, T_SCORE, T_TOTAL, T_TRICK, T_VOID,
    T_WON, TABLE_WIDTH, ZERO_WIN, digits, legal_plays, match_shares, trick_points,
)
from simcore.registry import strategies_of
from simcore.jit import kernel
from simcore import play
from simcore.play import FINISHED, STRATEGY_BROKE_RULES, withhold
from simcore.rng import DEAL, N_STREAMS, rotate_seats, seed_game, seed_seats, seed_streams, step_below

strategy = globals().get("__strategies__") or strategies_of(__name__)  # the registry's players
choose_facedown = strategy.choose_facedown
choose_play = strategy.choose_play
choose_pick = strategy.choose_pick
RANDOM = strategy.RANDOM  # the one player that reads nothing of the table: no card to show it
random_card_of_seat = strategy.random_card_of_seat  # its pick, drawn in place from seat_streams[seat]


NO_SCRIPT = np.empty(0, dtype=np.int64)  # a compile-time constant: no allocation per game

# One game's scratch arrays, made once a thread (``new_state``) and played on game after game.
# ``opening``: the first deal's hands (face-down cards included); ``dealt``, ``facedowns``
# (deal x seat) and the trick ``log`` have rows only in a state made for logged games.
State = namedtuple("State", "streams seat_streams table hands facedown deck totals counters shares opening "
                            "dealt facedowns log")


@kernel(globals())
def new_state(given, logged):
    """A fresh state for the rules in force ``given`` (``logged``: with room for a whole log)."""
    rules = given[0]
    deals = rules[R_DEALS] if logged else 0
    return State(np.empty(N_STREAMS, dtype=np.uint64), np.empty((rules[R_PLAYERS], N_STREAMS), dtype=np.uint64),
                 np.full(TABLE_WIDTH, -1, dtype=np.int64), np.zeros(MAX_PLAYERS, dtype=np.uint64),
                 np.full(MAX_PLAYERS, FACEDOWN_NONE, dtype=np.int64), np.empty(rules[R_DECK], dtype=np.int64),
                 np.zeros(MAX_PLAYERS, dtype=np.int64), np.zeros(N_COUNTERS, dtype=np.int64),
                 np.zeros(MAX_PLAYERS, dtype=np.float64), np.zeros((1, MAX_PLAYERS), dtype=np.uint64),
                 np.zeros((deals, MAX_PLAYERS), dtype=np.uint64), np.full((deals, MAX_PLAYERS), -1, dtype=np.int64),
                 np.full((deals * rules[R_TRICKS], LOG_WIDTH), -1, dtype=np.int64))


@kernel(globals(), inline="always")
def deal_hands(streams, rules, deck, hands):
    """Shuffle the deck (Fisher–Yates on the DEAL stream) and deal hand_size cards each: seat s
    gets deck positions [s * hand_size, (s + 1) * hand_size).  Fisher–Yates fixes position i in its
    step i (from the top down), so each card goes into its hand as soon as it is fixed: one pass.
    The same swaps as ``simcore.rng.shuffle`` (every other game's deal); written out here because
    the one pass saved 27 ns of a 0.63 µs random game (BENCHMARKS.md, 2026-11-27)."""
    n_cards = rules[R_DECK]
    hand_size = rules[R_HAND]
    for i in range(n_cards):
        deck[i] = i
    seat = rules[R_PLAYERS] - 1
    first = seat * hand_size  # the lowest deck position dealt to ``seat``
    h = np.uint64(0)
    state = streams[DEAL]  # kept in a register: each draw is below(streams, DEAL, i + 1)
    for i in range(n_cards - 1, 0, -1):
        j, state = step_below(state, i + 1)
        card = deck[j]
        deck[j] = deck[i]
        deck[i] = card
        if i < first + hand_size:
            h |= bit(card)
            if i == first:
                hands[seat] = h
                h = np.uint64(0)
                seat -= 1
                first -= hand_size
    hands[0] = h | bit(deck[0])
    streams[DEAL] = state
    rotate_seats(hands, rules[R_PLAYERS], streams)  # a duplicate deal's turn of the table (simcore/rng.py)


@kernel(globals(), inline="always")
def show_own(table, facedown, seat):
    """Before seat ``seat`` decides: its own face-down card shows in the table, no other's."""
    table[T_FACEDOWN + seat] = facedown[seat]


@kernel(globals(), inline="always")
def hide_own(table, facedown, seat):
    """After it decided: the card is hidden again (still there, or taken)."""
    table[T_FACEDOWN + seat] = FACEDOWN_HIDDEN if facedown[seat] >= 0 else FACEDOWN_NONE


@kernel(globals(), inline="always")
def play_random_trick(table, hands, leader, n_players, follow, withheld, seat_streams):
    """One trick's cards, every seat random: each seat draws its card in place (``random_card_of_seat``,
    the draw the general loop makes) and the cards go to table[T_PLAY + i] for the resolution."""
    lead = -1
    for i in range(n_players):
        seat = leader + i
        if seat >= n_players:
            seat -= n_players
        card = random_card_of_seat(withhold(legal_plays(hands[ix(seat)], lead, follow), withheld), seat_streams,
                                   ix(seat))
        hands[ix(seat)] &= ~bit(card)
        table[T_PLAY + i] = card
        if i == 0:
            lead = card


@kernel(globals(), inline="always")
def play_deal(state, leader, n_tricks, given, lineup, script, log_row):
    """Play the tricks of one deal from the position in the state's ``table``/``hands``/``facedown``
    (each seat's unused face-down card, -1 if none: the strategies see only their own, in the
    table).

    ``script`` = (plays, picks): scripted plays (deck indices) and face-down picks (seats) used
    in order before the strategies decide; a scripted decision that breaks the rules stops the
    deal and its step number is returned.  The state's ``log`` receives one row per trick from
    ``log_row`` on when it has rows.  A deal draws no chance: ``seat_streams[s]`` is what seat s's
    strategy is handed (its own PLAY stream).
    """
    table, hands, facedown, counters, log = state.table, state.hands, state.facedown, state.counters, state.log
    seat_streams = state.seat_streams
    rules, number, follow = given
    strategies, params = lineup
    script, script_picks = script
    n_players = rules[R_PLAYERS]
    seen = np.uint64(0)
    for s in range(n_players):
        table[T_SCORE + s] = 0
        table[T_WON + s] = 0
        table[T_VOID + s] = 0
    step = 0
    pick_step = 0
    withheld = np.uint64(rules[R_WITHHELD])
    # Every seat random and nothing scripted: no strategy reads the table, so a card play is the
    # draw and the hand only (``play_random_trick``: the same draws, the same cards).
    lean = script.shape[0] == 0
    for s in range(n_players):
        lean = lean and strategies[s] == RANDOM
    available = np.uint64(0)  # the seats whose face-down card is still there to take (§6-③)
    if rules[R_FACEDOWN] != 0:
        for s in range(n_players):
            if facedown[s] >= 0:
                available |= bit(s)
    for trick in range(n_tricks):
        if not lean:  # what strategies read
            table[T_TRICK] = trick
            table[T_LEADER] = leader
        lead = -1
        if lean:
            play_random_trick(table, hands, leader, n_players, follow, withheld, seat_streams)
            step += n_players
        for i in range(0 if lean else n_players):  # a strategy, a script or a plug-in decides
            table[T_NPLAYED] = i
            seat = leader + i  # the seat after the last is the first (no integer division per card)
            if seat >= n_players:
                seat -= n_players
            legal = withhold(legal_plays(hands[seat], lead, follow), withheld)
            if step < script.shape[0]:
                card = script[step]
                if card < 0 or card >= rules[R_DECK] or (legal >> np.uint64(card)) & np.uint64(1) == 0:
                    return step
            elif strategies[seat] == RANDOM:  # its pick is one of ``legal`` by construction
                card = random_card_of_seat(legal, seat_streams, seat)
            else:
                show_own(table, facedown, seat)
                card = choose_play(strategies[seat], params, seat, hands[seat], legal, seen,
                                   table, number, follow, rules, seat_streams[seat])
                hide_own(table, facedown, seat)
                if card < 0 or card >= rules[R_DECK] or (legal >> np.uint64(card)) & np.uint64(1) == 0:
                    return STRATEGY_BROKE_RULES
            step += 1
            hands[seat] &= ~bit(card)
            seen |= bit(card)
            table[T_PLAY + i] = card
            if i == 0:
                lead = card
            else:  # a card that does not follow shows a void (branch-free: under random play a coin toss)
                missed = ((follow[lead] >> np.uint64(card)) & np.uint64(1)) ^ np.uint64(1)
                table[T_VOID + seat] |= np.int64(follow[lead] & (np.uint64(0) - missed))
        table[T_NPLAYED] = n_players
        win_pos, kind, points_pos, points = trick_points(table, number, rules, n_players)
        winner = leader + win_pos
        if winner >= n_players:
            winner -= n_players
        counters[C_REVERSALS] += kind == REVERSAL
        counters[C_ZERO_WINS] += kind == ZERO_WIN
        pick_seat = -1
        pick_card = -1
        if points == 0:
            counters[C_ZERO_POINTS] += 1
            if available != 0:
                if pick_step < script_picks.shape[0]:
                    pick_seat = script_picks[pick_step]
                    if pick_seat < 0 or pick_seat >= n_players or (available >> np.uint64(pick_seat)) & np.uint64(1) == 0:
                        return script.shape[0] + pick_step
                elif strategies[winner] == RANDOM:
                    pick_seat = random_card_of_seat(available, seat_streams, winner)
                else:
                    show_own(table, facedown, winner)
                    pick_seat = choose_pick(strategies[winner], params, winner, available, hands[winner],
                                            seen, table, number, rules, seat_streams[winner])
                    hide_own(table, facedown, winner)
                    if pick_seat < 0 or pick_seat >= n_players or (available >> np.uint64(pick_seat)) & np.uint64(1) == 0:
                        return STRATEGY_BROKE_RULES
                pick_step += 1
                pick_card = facedown[pick_seat]
                available &= ~bit(pick_seat)
                facedown[pick_seat] = FACEDOWN_NONE
                table[T_FACEDOWN + pick_seat] = FACEDOWN_NONE
                seen |= bit(pick_card)
                points = digits(number[pick_card])[1]
                counters[C_FACEDOWN_TAKEN] += 1
            if points == 0:
                counters[C_ZERO_SCORED] += 1
        table[T_SCORE + winner] += points
        table[T_WON + winner] += 1
        if log_row < log.shape[0]:
            row = log[log_row]
            row[L_DEAL] = table[T_DEAL]
            row[L_TRICK] = trick
            row[L_LEADER] = leader
            for i in range(MAX_PLAYERS):
                row[L_CARD + i] = table[T_PLAY + i] if i < n_players else -1
            row[L_WINNER] = winner
            row[L_KIND] = kind
            row[L_POINTS_CARD] = table[T_PLAY + points_pos]
            row[L_PICK_SEAT] = pick_seat
            row[L_PICK_CARD] = pick_card
            row[L_POINTS] = points
            log_row += 1
        leader = winner
    return FINISHED


# without reference counts: called once a game with a state of a dozen arrays, each would take and
# give back a reference count (NRT_incref/NRT_decref) at the call.  Not inlined into the chunk
# loop: the loop's passes over a whole inlined game made the play loop compile in 134 s against
# 75 s, and games played as fast or faster (random 0.179 s vs 0.188 s, heuristic 0.110 s vs
# 0.161 s, one thread; BENCHMARKS.md, "The first command")
@kernel(globals(), refcounts=False)
def play_game(state, run, index, given, lineup):
    """Game ``index`` (a match of R_DEALS deals) of ``run`` = (seed, keys); returns its status and
    fills the state's totals, counters, ``opening`` (the first deal's hands incl. face-down cards)
    and, where they have room (a logged state), ``dealt``, ``facedowns`` and the trick ``log``."""
    rules, number, follow = given
    strategies, params = lineup
    streams, seat_streams, table, hands, facedown = state.streams, state.seat_streams, state.table, state.hands, \
        state.facedown
    totals, counters, dealt, facedowns = state.totals, state.counters, state.dealt, state.facedowns
    n_players = rules[R_PLAYERS]
    seed_game(streams, seat_streams, run[0], run[1], index)
    for s in range(n_players):
        totals[s] = 0
    for c in range(N_COUNTERS):
        counters[c] = 0
    for d in range(rules[R_DEALS]):
        table[T_DEAL] = d
        for s in range(n_players):
            table[T_TOTAL + s] = totals[s]
            table[T_FACEDOWN + s] = FACEDOWN_NONE
            facedown[s] = FACEDOWN_NONE
        deal_hands(streams, rules, state.deck, hands)
        for s in range(n_players):
            if d == 0:
                state.opening[0, s] = hands[s]
            if d < dealt.shape[0]:
                dealt[d, s] = hands[s]
        if rules[R_FACEDOWN] != 0:
            for s in range(n_players):
                if strategies[s] == RANDOM:
                    card = random_card_of_seat(hands[s], seat_streams, s)
                else:
                    card = choose_facedown(strategies[s], params, s, hands[s], table, number, rules, seat_streams[s])
                if card < 0 or card >= rules[R_DECK] or (hands[s] >> np.uint64(card)) & np.uint64(1) == 0:
                    return STRATEGY_BROKE_RULES
                hands[s] &= ~bit(card)
                facedown[s] = card
                table[T_FACEDOWN + s] = FACEDOWN_HIDDEN
                if d < facedowns.shape[0]:
                    facedowns[d, s] = card
        status = play_deal(state, d % n_players, rules[R_TRICKS], given, lineup, (NO_SCRIPT, NO_SCRIPT),
                           d * rules[R_TRICKS])
        if status != FINISHED:
            return status
        for s in range(n_players):
            totals[s] += table[T_SCORE + s]
    return FINISHED


@kernel(globals(), inline="always")
def keep_row(state, given, outputs, g):
    """A played game's row ``g`` of a chunk: scores, match shares, counters, first hands."""
    scores_out, shares_out, counters_out, hands_out = outputs[0], outputs[1], outputs[2], outputs[3]
    n_players = given[0][R_PLAYERS]
    shares = state.shares
    match_shares(state.totals, n_players, shares)
    for s in range(n_players):
        scores_out[g, s] = state.totals[s]
        shares_out[g, s] = shares[s]
        hands_out[g, s] = state.opening[0, s]
    for c in range(N_COUNTERS):
        counters_out[g, c] = state.counters[c]


@kernel(globals(), inline="always")
def keep_log(state, given, buffers, k):
    """A logged game's log into row ``k`` of the buffers (``Game.log_buffers``), and the state's
    log rows cleared for the next game."""
    logs, dealt, facedowns, totals, counters = buffers[0], buffers[1], buffers[2], buffers[3], buffers[4]
    logs[k, :, :] = state.log
    dealt[k, :, :] = state.dealt
    facedowns[k, :, :] = state.facedowns
    totals[k, :] = state.totals
    counters[k, :] = state.counters
    state.log[:, :] = -1
    state.dealt[:, :] = 0
    state.facedowns[:, :] = -1


@kernel(globals(), inline="always")
def play_position(state, run, position, given, lineup, script):
    """A deal from the position in the state (its ``hands`` and ``facedown``), ``position`` =
    (leader, tricks left); the deal's scores go to the state's ``totals``.  The strategies draw
    from the seats' PLAY streams of game 0 of the run; the deal itself draws nothing."""
    rules = given[0]
    seed_seats(state.seat_streams, run[1], 0)
    table = state.table
    table[T_DEAL] = 0
    for s in range(rules[R_PLAYERS]):
        table[T_FACEDOWN + s] = FACEDOWN_HIDDEN if state.facedown[s] >= 0 else FACEDOWN_NONE
        table[T_TOTAL + s] = 0
    status = play_deal(state, position[0], position[1], given, lineup, script, 0)
    for s in range(rules[R_PLAYERS]):
        state.totals[s] = table[T_SCORE + s]
    return status


@kernel(globals(), inline="always")
def deal_first(state, run, index, given):
    """Game ``index``'s first deal into the state's ``hands`` (the face-down cards among them)."""
    rules = given[0]
    seed_streams(state.streams, run[0], index, rules[R_PLAYERS])
    deal_hands(state.streams, rules, state.deck, state.hands)


# the entry points, written once for every game (simcore/play.py)
run_chunk, play_many_logged, play_scenario, deal_openings = play.entry_points(globals())
