"""The Sky City of ALEA: the round loop that asks the strategies (compiled).

The game's side of the one contract (simcore/play.py): its scratch ``State``, ``play_game`` on
it (rounds until the final round is over, each played by ``play_round``), what a chunk's row and
a logged game keep, and a scripted position (``balance play``); the entry points are written once
for every game.  ALEA deals no hands, so it has no ``deal_openings``.  Its own entry point,
``round_points``, plays single rounds for the declaration equilibria (analysis/equilibria.py).

The state also holds the tallies of fresh-dice trap judgements (``judged``, ``fired_tally``) and
the per-trap round statistics (``trap_stats``), added to as the games are played: in a chunk they
are the chunk's own outputs (``SkyCity.tally_outputs``), so a thread's share of the games adds
into its own.

Chance comes from the DEAL stream in the order documented in simcore/games/sky_city/reference.py;
the strategy at seat s is handed ``state.seat_streams[s]``, its own PLAY stream (simcore/rng.py),
never the game's ``streams``.
"""

from collections import namedtuple

import numpy as np

from simcore.bits import lowest_index, popcount
from simcore.games.sky_city.rules import (
    ALL_CLEARED, ALL_ZERO, C_ALL_ZERO, C_CAPPED, C_ESCAPED, C_ESCAPES, C_FIRST_ROLL, C_ROLLOFF, C_ROUNDS,
    C_ZERO_BONUSES, FAILED_ESCAPE, FIRST_ROLL, N_TRAP_STATS, S_ESCAPED, S_ESCAPES, S_FIRST_ROLL, S_POINTS,
    S_POINTS_SQ, S_ROUNDS, S_ZERO_PAID_ROUNDS, S_ZERO_ROUNDS, L_DECLARED, L_DICE, L_ENDED, L_FINAL, L_NDICE, L_POINTS,
    L_ROUND, L_TRAP, LOG_WIDTH, MAX_PLAYERS, N_COUNTERS, R_DICE, R_MAX_ROUNDS, R_MULTIPLIER, R_PLAYERS,
    R_FIRST_FAILURE_ENDS, R_TARGET, R_TRAPS, R_ZERO_BONUS, T_DECLARED, T_FINAL, T_ROUND, T_SCORE, T_TRAP, TABLE_WIDTH,
)
from simcore.registry import strategies_of
from simcore.jit import kernel
from simcore.play import FINISHED, SCRIPT_CURSOR, STRATEGY_BROKE_RULES, UNFINISHED, entry_points
from simcore.rng import DEAL, N_STREAMS, PLAY, below, below_in_row, seed_game, seed_seats, seed_streams, shuffle
from simcore.games.sky_city.trap_odds import face_byte, fires_packed

strategy = globals().get("__strategies__") or strategies_of(__name__)  # the registry's players
choose_declare = strategy.choose_declare
RANDOM = strategy.RANDOM

NO_SCRIPT = np.empty(0, dtype=np.int64)  # compile-time constants: no allocation per game
NO_DECLARATIONS = np.empty((0, MAX_PLAYERS), dtype=np.int64)
UNWRITTEN = -1  # a log row or entry not written (yet)

W_WINNER = 1  # work[W_WINNER]: the last game's winner (-1: unfinished); work[SCRIPT_CURSOR]: draws used
WORK_WIDTH = 2

# One game's scratch arrays, made once a thread (``new_state``) and played on game after game.
# ``judged``/``fired_tally`` [trap, dice] and ``trap_stats`` [trap, stat] are tallies, indexed by
# full-deck position; the round ``log`` has rows only in a state made for logged games.
State = namedtuple("State", "streams seat_streams table order points totals counters judged fired_tally trap_stats "
                            "log work")


@kernel(globals())
def new_state(given, logged):
    """A fresh state for the rules in force ``given`` = (rules, codes, trap_ids, odds)
    (``logged``: with room for the longest game's round log)."""
    rules, trap_ids, odds = given[0], given[2], given[3]
    n_full = 0  # the tallies' rows: every full-deck position in use
    for t in trap_ids:
        n_full = max(n_full, t + 1)
    rounds = rules[R_MAX_ROUNDS] if logged else 0
    return State(np.empty(N_STREAMS, dtype=np.uint64), np.empty((rules[R_PLAYERS], N_STREAMS), dtype=np.uint64),
                 np.zeros(TABLE_WIDTH, dtype=np.int64), np.empty(rules[R_TRAPS], dtype=np.int64),
                 np.zeros(MAX_PLAYERS, dtype=np.int64), np.zeros(MAX_PLAYERS, dtype=np.int64),
                 np.zeros(N_COUNTERS, dtype=np.int64), np.zeros((n_full, odds.shape[1]), dtype=np.int64),
                 np.zeros((n_full, odds.shape[1]), dtype=np.int64), np.zeros((n_full, N_TRAP_STATS), dtype=np.int64),
                 np.full((rounds, LOG_WIDTH), UNWRITTEN, dtype=np.int64), np.zeros(WORK_WIDTH, dtype=np.int64))


@kernel(globals(), inline="always")
def chance(streams, script, work, n):
    """A DEAL draw in [0, n), or the next scripted draw (scenarios replay given dice and choices)."""
    if work[SCRIPT_CURSOR] < script.shape[0]:
        work[SCRIPT_CURSOR] += 1
        return script[work[SCRIPT_CURSOR] - 1]
    return below(streams, DEAL, n)


@kernel(globals(), inline="always")
def shuffle_traps(order, n, streams):
    """order[:n]: the trap deck 0..n-1, shuffled from DEAL."""
    for i in range(n):
        order[i] = i
    shuffle(order, 0, n, streams, DEAL)


@kernel(globals(), inline="always")
def roll(packed, n, streams, script, work, log, log_row):
    """Roll n dice onto the table, one at a time, noting each in the round's log row; returns
    the table's face counts with them (packed: simcore/games/sky_city/trap_odds.py)."""
    for _ in range(n):
        face = 1 + chance(streams, script, work, 6)
        packed += face_byte(face)
        if log_row >= 0:
            k = log[log_row, L_NDICE]
            log[log_row, L_DICE + k] = face
            log[log_row, L_NDICE] = k + 1
    return packed


@kernel(globals(), inline="always")
def play_round(state, given, lineup, log_row, declare_script, script):
    """One round (§ラウンドの流れ) of the trap in ``state.table``: declarations (scripted from
    ``declare_script``'s row for the round, if it has one), groups in ascending order, escapes;
    each seat's points of the round into ``state.points``.  Returns how it ended, or
    STRATEGY_BROKE_RULES."""
    rules, codes, trap_ids, odds = given
    strategies, params = lineup
    table, points, counters, streams, seat_streams = state.table, state.points, state.counters, state.streams, \
        state.seat_streams
    judged, fired_tally, log, work = state.judged, state.fired_tally, state.log, state.work
    n_players = rules[R_PLAYERS]
    dice = rules[R_DICE]
    trap = table[T_TRAP]
    mult = rules[R_MULTIPLIER] if table[T_FINAL] != 0 else 1
    for s in range(n_players):
        table[T_DECLARED + s] = -1
        points[s] = 0
    scripted = table[T_ROUND] < declare_script.shape[0]
    for s in range(n_players):  # simultaneous: nobody sees another's declaration
        if scripted:
            declared = declare_script[table[T_ROUND], s]
        elif strategies[s] == RANDOM:  # random's draw, in place: no view of the seat's row (simcore/rng.py)
            declared = below_in_row(seat_streams, s, PLAY, rules[R_DICE] + 1)
        else:
            declared = choose_declare(strategies[s], params, s, table, rules, odds, seat_streams[s])
        if declared < 0 or declared > dice:
            return STRATEGY_BROKE_RULES
        points[s] = declared  # parked here until all have declared
    # byte k of ``groups``: the seats that declared k (bit s), so a group is found without
    # testing every seat against every k (random declarations make those tests coin tosses)
    groups = 0
    for s in range(n_players):
        table[T_DECLARED + s] = points[s]
        groups |= 1 << (8 * points[s] + s)
        points[s] = 0
    if groups >> 8 == 0:  # nobody declared more than 0
        counters[C_ALL_ZERO] += 1
        return ALL_ZERO

    packed = np.uint64(0)  # the face counts of the dice on the table
    on_table = 0
    first_group = True
    trap_id = trap_ids[trap]
    for k in range(1, dice + 1):
        members = (groups >> (8 * k)) & 0xFF
        if members == 0:
            continue
        group = popcount(np.uint64(members))
        # each member rolls its k dice in seat order: one roll of k * group dice, the same draws
        packed = roll(packed, k * group, streams, script, work, log, log_row)
        on_table += k * group
        fired = fires_packed(codes, trap, packed)
        if first_group:  # fresh dice: a sample of the exact odds
            judged[trap_id, on_table] += 1
            if fired:
                fired_tally[trap_id, on_table] += 1
        if not fired:
            while members:
                s = lowest_index(np.uint64(members))
                members &= members - 1
                points[s] += k * mult
                table[T_SCORE + s] += k * mult
        elif first_group:
            counters[C_FIRST_ROLL] += 1
            for s in range(n_players):
                if table[T_DECLARED + s] == 0:
                    points[s] += rules[R_ZERO_BONUS] * mult
                    table[T_SCORE + s] += rules[R_ZERO_BONUS] * mult
                    counters[C_ZERO_BONUSES] += 1
            return FIRST_ROLL
        else:
            # escapes (回避行動): every triggered player of the group rerolls every die on the
            # table, lowest score first, ties at random; each who clears scores their count; then,
            # if any failed, the round ends (the rulebook, docs/rules/sky-city-of-alea.md A3).  The
            # variant first_failure_ends_escapes ends it at the first failure instead.
            escaped = 0  # bit s: seat s has had its turn
            failed = False
            for _ in range(group):
                lowest = 1 << 62
                tied = 0
                for s in range(n_players):
                    if table[T_DECLARED + s] == k and (escaped >> s) & 1 == 0:
                        if table[T_SCORE + s] < lowest:
                            lowest = table[T_SCORE + s]
                            tied = 1
                        elif table[T_SCORE + s] == lowest:
                            tied += 1
                pick = chance(streams, script, work, tied) if tied > 1 else 0
                seat = -1
                for s in range(n_players):
                    if table[T_DECLARED + s] == k and (escaped >> s) & 1 == 0 and table[T_SCORE + s] == lowest:
                        if pick == 0:
                            seat = s
                            break
                        pick -= 1
                escaped |= 1 << seat
                packed = roll(np.uint64(0), on_table, streams, script, work, log, log_row)
                counters[C_ESCAPES] += 1
                again = fires_packed(codes, trap, packed)
                judged[trap_id, on_table] += 1
                if again:
                    fired_tally[trap_id, on_table] += 1
                    if rules[R_FIRST_FAILURE_ENDS] != 0:
                        return FAILED_ESCAPE
                    failed = True
                else:
                    counters[C_ESCAPED] += 1
                    points[seat] += k * mult
                    table[T_SCORE + seat] += k * mult
            if failed:
                return FAILED_ESCAPE
            # every escaper cleared: the last reroll stays on the table and the next group rolls
        first_group = False
    return ALL_CLEARED


@kernel(globals(), inline="always")
def play_rounds(state, given, lineup, scripts, round_limit):
    """Rounds from the position in ``state.table`` until the game ends or ``round_limit`` rounds
    were played; returns the winner (-1 if unfinished) or STRATEGY_BROKE_RULES.  ``scripts`` =
    (traps, declarations, draws): a scenario gives them; a run's games give none (the deck
    shuffled from DEAL, the strategies declaring, the dice rolled)."""
    rules, trap_ids = given[0], given[2]
    trap_script, declare_script, script = scripts
    table, order, points, totals, counters, streams = state.table, state.order, state.points, state.totals, \
        state.counters, state.streams
    trap_stats, log = state.trap_stats, state.log
    n_players = rules[R_PLAYERS]
    n_traps = rules[R_TRAPS]
    for c in range(N_COUNTERS):
        counters[c] = 0
    if trap_script.shape[0] == 0:
        shuffle_traps(order, n_traps, streams)
    drawn = 0
    rounds = 0
    finished = False
    while rounds < round_limit:
        table[T_ROUND] = rounds
        if rounds < trap_script.shape[0]:
            table[T_TRAP] = trap_script[rounds]
        else:
            if drawn == n_traps:  # the deck ran out: reshuffle all of it
                shuffle_traps(order, n_traps, streams)
                drawn = 0
            table[T_TRAP] = order[drawn]
            drawn += 1
        log_row = rounds if rounds < log.shape[0] else -1
        if log_row >= 0:
            log[log_row, L_NDICE] = 0
        escapes, escaped, paid = counters[C_ESCAPES], counters[C_ESCAPED], counters[C_ZERO_BONUSES]
        ended = play_round(state, given, lineup, log_row, declare_script, script)
        if ended == STRATEGY_BROKE_RULES:
            return STRATEGY_BROKE_RULES
        row = trap_ids[table[T_TRAP]]  # trap_stats[row, ...], not a view of the row (a reference count per round)
        trap_stats[row, S_ROUNDS] += 1
        round_points = 0
        for s in range(n_players):
            round_points += points[s]
        trap_stats[row, S_POINTS] += round_points
        trap_stats[row, S_POINTS_SQ] += round_points * round_points
        if ended == FIRST_ROLL:
            trap_stats[row, S_FIRST_ROLL] += 1
        trap_stats[row, S_ESCAPES] += counters[C_ESCAPES] - escapes
        trap_stats[row, S_ESCAPED] += counters[C_ESCAPED] - escaped
        zero_declarers = False
        for s in range(n_players):
            if table[T_DECLARED + s] == 0:
                zero_declarers = True
        if zero_declarers and ended != ALL_ZERO:
            trap_stats[row, S_ZERO_ROUNDS] += 1
            if counters[C_ZERO_BONUSES] > paid:
                trap_stats[row, S_ZERO_PAID_ROUNDS] += 1
        if log_row >= 0:
            log[log_row, L_ROUND] = rounds
            log[log_row, L_TRAP] = trap_ids[table[T_TRAP]]
            log[log_row, L_FINAL] = table[T_FINAL]
            log[log_row, L_ENDED] = ended
            for s in range(MAX_PLAYERS):
                log[log_row, L_DECLARED + s] = table[T_DECLARED + s] if s < n_players else -1
                log[log_row, L_POINTS + s] = points[s] if s < n_players else -1
        rounds += 1
        if table[T_FINAL] != 0:
            finished = True
            break
        if rounds >= rules[R_MAX_ROUNDS]:
            counters[C_CAPPED] = 1
            finished = True
            break
        for s in range(n_players):
            if table[T_SCORE + s] >= rules[R_TARGET]:
                table[T_FINAL] = 1
    counters[C_ROUNDS] = rounds
    for s in range(n_players):
        totals[s] = table[T_SCORE + s]
    if not finished:
        return -1
    best = table[T_SCORE]
    for s in range(n_players):
        best = max(best, totals[s])
    tied = 0
    for s in range(n_players):
        if totals[s] == best:
            tied += 1
    pick = chance(streams, script, state.work, tied) if tied > 1 else 0  # roll-off: uniform among the tied
    if tied > 1:
        counters[C_ROLLOFF] = 1
    winner = -1
    for s in range(n_players):
        if totals[s] == best:
            if pick == 0:
                winner = s
                break
            pick -= 1
    return winner


@kernel(globals(), refcounts=False)
def play_game(state, run, index, given, lineup):
    """Game ``index`` of ``run`` = (seed, keys): rounds until the final round is over (or the
    cap); its winner into ``state.work[W_WINNER]``.  Returns its status (FINISHED or
    STRATEGY_BROKE_RULES)."""
    rules = given[0]
    seed_game(state.streams, state.seat_streams, run[0], run[1], index)
    for s in range(rules[R_PLAYERS]):
        state.table[T_SCORE + s] = 0
    state.table[T_FINAL] = 0
    state.work[SCRIPT_CURSOR] = 0
    winner = play_rounds(state, given, lineup, (NO_SCRIPT, NO_DECLARATIONS, NO_SCRIPT), rules[R_MAX_ROUNDS])
    state.work[W_WINNER] = winner
    return STRATEGY_BROKE_RULES if winner == STRATEGY_BROKE_RULES else FINISHED


@kernel(globals(), inline="always")
def keep_row(state, given, outputs, g):
    """A played game's row ``g`` of a chunk (``SkyCity.chunk_outputs``: one row a game): scores,
    winner, counters.  The tallies need no copy: the state adds into the chunk's own."""
    scores_out, winner_out, counters_out = outputs[0], outputs[1], outputs[2]
    winner_out[g] = state.work[W_WINNER]
    for s in range(given[0][R_PLAYERS]):
        scores_out[g, s] = state.totals[s]
    for c in range(N_COUNTERS):
        counters_out[g, c] = state.counters[c]


@kernel(globals())
def keep_log(state, given, buffers, k):
    """A logged game into row ``k`` of the buffers (``SkyCity.log_buffers``: round logs, totals,
    counters, winner), and the state's log cleared for the next."""
    logs, totals, counters, winners = buffers[0], buffers[1], buffers[2], buffers[3]
    logs[k, :, :] = state.log
    totals[k, :] = state.totals
    counters[k, :] = state.counters
    winners[k] = state.work[W_WINNER]
    state.log[:, :] = UNWRITTEN


@kernel(globals())
def play_position(state, run, position, given, lineup, scripts):
    """Scripted rounds (``balance play``) from ``position`` = (start scores, final round?):
    ``scripts`` = (traps, declarations, draws: dice faces - 1, escape tie-breaks, roll-off), one
    round a scripted trap; its winner (-1: the rounds end before the game) into
    ``state.work[W_WINNER]``.  A strategy asked draws from its seat's PLAY stream of game 0 of
    ``run``.  Returns FINISHED, UNFINISHED or STRATEGY_BROKE_RULES."""
    rules = given[0]
    start_scores, start_final = position
    seed_streams(state.streams, run[0], 0, rules[R_PLAYERS])
    seed_seats(state.seat_streams, run[1], 0)
    for s in range(rules[R_PLAYERS]):
        state.table[T_SCORE + s] = start_scores[s]
    state.table[T_FINAL] = start_final
    state.work[SCRIPT_CURSOR] = 0
    winner = play_rounds(state, given, lineup, scripts, scripts[0].shape[0])
    state.work[W_WINNER] = winner
    if winner == STRATEGY_BROKE_RULES:
        return STRATEGY_BROKE_RULES
    return UNFINISHED if winner == -1 else FINISHED


@kernel(globals(), nogil=True)
def round_points(given, trap, declarations, dice_index, seed, first, last, points_out):
    """One round of trap row ``trap`` per row of ``declarations`` (int64[n, players]: every
    seat's declaration, scripted), everyone at 0 points and not in the final round; row i rolls
    the dice of stream (seed, dice_index[i]), so rows with the same dice index meet the same dice
    (common random numbers).  ``points_out[i, s]``: what seat s scored.  The declaration
    equilibria (analysis/equilibria.py) are built on it."""
    n_players = given[0][R_PLAYERS]
    state = new_state(given, False)
    no_players = (np.zeros(MAX_PLAYERS, dtype=np.int64), np.zeros((MAX_PLAYERS, 4), dtype=np.float64))  # scripted
    script = np.empty((1, MAX_PLAYERS), dtype=np.int64)
    table = state.table
    for i in range(first, last):
        seed_streams(state.streams, seed, dice_index[i], n_players)
        table[T_ROUND] = 0
        table[T_FINAL] = 0
        table[T_TRAP] = trap
        for s in range(MAX_PLAYERS):
            table[T_SCORE + s] = 0
            script[0, s] = declarations[i, s] if s < n_players else 0
        play_round(state, given, no_players, -1, script, NO_SCRIPT)
        for s in range(n_players):
            points_out[i, s] = state.points[s]


# the entry points, written once for every game (simcore/play.py); no deal_openings: ALEA deals
# no hands
run_chunk, play_many_logged, play_scenario = entry_points(globals(), "run_chunk", "play_many_logged", "play_scenario")
