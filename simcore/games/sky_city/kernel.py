"""The Sky City of ALEA: the round loop that asks the strategies (compiled).

Entry points share ``play_game``: ``run_chunk`` (one thread's share of a chunk's rows, plus the
tallies of fresh-dice trap judgements) and ``play_many_logged`` (full round logs: replays and the
differential test).  Chance comes from the DEAL stream in the order documented in
simcore/games/sky_city/reference.py; the strategy at seat s is handed ``seat_streams[s]``, its own
PLAY stream (simcore/rng.py), never the game's ``streams``.
"""

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
from simcore.play import STRATEGY_BROKE_RULES
from simcore.rng import DEAL, N_STREAMS, PLAY, below, below_in_row, scenario_streams, seed_game, seed_streams, shuffle
from simcore.games.sky_city.trap_odds import face_byte, fires_packed

strategy = globals().get("__strategies__") or strategies_of(__name__)  # the registry's players
choose_declare = strategy.choose_declare
RANDOM = strategy.RANDOM

NO_SCRIPT = np.empty(0, dtype=np.int64)  # compile-time constants: no allocation per game
NO_DECLARATIONS = np.empty((0, MAX_PLAYERS), dtype=np.int64)


@kernel(globals(), inline="always")
def chance(streams, script, cursor, n):
    """A DEAL draw in [0, n), or the next scripted draw (scenarios replay given dice and choices)."""
    if cursor[0] < script.shape[0]:
        cursor[0] += 1
        return script[cursor[0] - 1]
    return below(streams, DEAL, n)


@kernel(globals(), inline="always")
def shuffle_traps(order, n, streams):
    """order[:n]: the trap deck 0..n-1, shuffled from DEAL."""
    for i in range(n):
        order[i] = i
    shuffle(order, 0, n, streams, DEAL)


@kernel(globals(), inline="always")
def roll(packed, n, streams, script, cursor, log, log_row):
    """Roll n dice onto the table, one at a time, noting each in the round's log row; returns
    the table's face counts with them (packed: simcore/games/sky_city/trap_odds.py)."""
    for _ in range(n):
        face = 1 + chance(streams, script, cursor, 6)
        packed += face_byte(face)
        if log_row >= 0:
            k = log[log_row, L_NDICE]
            log[log_row, L_DICE + k] = face
            log[log_row, L_NDICE] = k + 1
    return packed


@kernel(globals(), inline="always")
def play_round(table, rules, codes, trap_ids, odds, strategies, params, streams, seat_streams, points,
               counters, judged, fired_tally, log, log_row, declare_script, script, cursor):
    """One round (§ラウンドの流れ): declarations, groups in ascending order, escapes.
    Returns how it ended, or STRATEGY_BROKE_RULES."""
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
        packed = roll(packed, k * group, streams, script, cursor, log, log_row)
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
                pick = chance(streams, script, cursor, tied) if tied > 1 else 0
                seat = -1
                for s in range(n_players):
                    if table[T_DECLARED + s] == k and (escaped >> s) & 1 == 0 and table[T_SCORE + s] == lowest:
                        if pick == 0:
                            seat = s
                            break
                        pick -= 1
                escaped |= 1 << seat
                packed = roll(np.uint64(0), on_table, streams, script, cursor, log, log_row)
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


# inline, with play_rounds: each call with twenty-odd arrays took and gave back a reference count per
# array (NRT_incref/NRT_decref), about half of a random game's time (perf)
@kernel(globals(), inline="always")
def play_game(seed, keys, index, rules, codes, trap_ids, odds, strategies, params, streams, seat_streams, table,
              order, points, totals, counters, judged, fired_tally, trap_stats, log, cursor):
    """One game of run ``seed`` (``keys`` = ``seat_keys(seed)``, for seed_game): rounds until the
    final round is over (or the cap).  ``cursor``: the caller's scratch int64[1] (nothing is
    scripted here, but ``chance`` reads it); no array is allocated per game."""
    seed_game(streams, seat_streams, seed, keys, index)
    for s in range(rules[R_PLAYERS]):
        table[T_SCORE + s] = 0
    table[T_FINAL] = 0
    cursor[0] = 0
    return play_rounds(rules, codes, trap_ids, odds, strategies, params, streams, seat_streams, table, order,
                       points, totals, counters, judged, fired_tally, trap_stats, log, NO_SCRIPT, NO_DECLARATIONS,
                       NO_SCRIPT, cursor, rules[R_MAX_ROUNDS])


@kernel(globals(), inline="always")
def play_rounds(rules, codes, trap_ids, odds, strategies, params, streams, seat_streams, table, order, points,
                totals, counters, judged, fired_tally, trap_stats, log, trap_script, declare_script, script, cursor,
                round_limit):
    """Rounds from the position in ``table`` until the game ends or ``round_limit`` rounds were
    played; returns the winner (-1 if unfinished) or STRATEGY_BROKE_RULES.  Scenarios give the
    traps, declarations and draws; a run's games give none (deck shuffled from DEAL)."""
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
        ended = play_round(table, rules, codes, trap_ids, odds, strategies, params, streams, seat_streams,
                           points, counters, judged, fired_tally, log, log_row, declare_script, script, cursor)
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
    pick = chance(streams, script, cursor, tied) if tied > 1 else 0  # roll-off: uniform among the tied
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


# One thread's loop, without the GIL: simcore/threads.py shares a chunk's games among the run's
# threads (and the writer threads compress and write the last chunk meanwhile), each adding
# into trap tallies of its own, summed after (SkyCity.tally_outputs)
@kernel(globals(), refcounts=False)
def play_share(seed, keys, start, first, last, rules, codes, trap_ids, odds, strategies, params, streams,
               seat_streams, table, order, points, totals, counters, log, cursor, scores_out, winner_out,
               counters_out, judged_out, fired_out, stats_out):
    """The games of one thread's share (run_chunk's loop): games start+first..start+last-1 into
    rows first..last-1 of the outputs, on run_chunk's scratch arrays.  A function of its own,
    compiled without reference counts: inlined into run_chunk, which allocates and so counts
    references, the whole game took and gave back references as it went: ALEA's random games
    ran at two thirds of their speed, TriATri's at nine tenths (BENCHMARKS.md, "One loop shape")."""
    n_players = rules[R_PLAYERS]
    for g in range(first, last):
        winner = play_game(seed, keys, start + g, rules, codes, trap_ids, odds, strategies, params, streams,
                           seat_streams, table, order, points, totals, counters, judged_out, fired_out, stats_out, log,
                           cursor)
        winner_out[g] = winner
        for s in range(n_players):
            scores_out[g, s] = totals[s]
        for c in range(N_COUNTERS):
            counters_out[g, c] = counters[c]


@kernel(globals(), nogil=True)
def run_chunk(seed, keys, start, first, last, rules, codes, trap_ids, odds, strategies, params, scores_out,
              winner_out, counters_out, judged_out, fired_out, stats_out):
    """Games start+first..start+last-1 of run ``seed`` (``keys`` = ``seat_keys(seed)``) into rows
    first..last-1; judged_out/fired_out[trap, dice] and stats_out get this share's fresh-dice
    judgement tallies added (integer sums: the same totals for any thread count)."""
    n_players = rules[R_PLAYERS]
    streams = np.empty(N_STREAMS, dtype=np.uint64)
    seat_streams = np.empty((n_players, N_STREAMS), dtype=np.uint64)
    table = np.zeros(TABLE_WIDTH, dtype=np.int64)
    order = np.empty(rules[R_TRAPS], dtype=np.int64)
    points = np.zeros(MAX_PLAYERS, dtype=np.int64)
    totals = np.zeros(MAX_PLAYERS, dtype=np.int64)
    counters = np.zeros(N_COUNTERS, dtype=np.int64)
    log = np.empty((0, LOG_WIDTH), dtype=np.int64)
    cursor = np.zeros(1, dtype=np.int64)
    play_share(seed, keys, start, first, last, rules, codes, trap_ids, odds, strategies, params, streams,
               seat_streams, table, order, points, totals, counters, log, cursor, scores_out, winner_out,
               counters_out, judged_out, fired_out, stats_out)


@kernel(globals())
def play_many_logged(seed, keys, indices, rules, codes, trap_ids, odds, strategies, params, logs, totals, counters,
                     winners, judged, fired_tally, trap_stats):
    """Logged games (one row per round, up to logs.shape[1] rounds) for replays and tests."""
    streams = np.empty(N_STREAMS, dtype=np.uint64)
    seat_streams = np.empty((rules[R_PLAYERS], N_STREAMS), dtype=np.uint64)
    table = np.zeros(TABLE_WIDTH, dtype=np.int64)
    order = np.empty(rules[R_TRAPS], dtype=np.int64)
    points = np.zeros(MAX_PLAYERS, dtype=np.int64)
    cursor = np.zeros(1, dtype=np.int64)
    for k in range(indices.shape[0]):
        winners[k] = play_game(seed, keys, indices[k], rules, codes, trap_ids, odds, strategies, params, streams,
                               seat_streams, table, order, points, totals[k], counters[k], judged, fired_tally,
                               trap_stats, logs[k], cursor)


@kernel(globals())
def play_scenario(rules, codes, trap_ids, odds, strategies, params, start_scores, start_final, trap_script,
                  declare_script, script, log, totals, counters):
    """Scripted rounds from a given position (``balance play``): traps, declarations and every
    draw (dice faces - 1, escape tie-breaks, roll-off) come from the scripts; a strategy asked
    draws from its seat's PLAY stream of game 0 of run 0 (``SCENARIO_KEYS``)."""
    streams, seat_streams = scenario_streams(rules[R_PLAYERS])
    table = np.zeros(TABLE_WIDTH, dtype=np.int64)
    for s in range(rules[R_PLAYERS]):
        table[T_SCORE + s] = start_scores[s]
    table[T_FINAL] = start_final
    order = np.empty(rules[R_TRAPS], dtype=np.int64)
    points = np.zeros(MAX_PLAYERS, dtype=np.int64)
    n_full = 0  # tallies are indexed by full-deck position
    for t in trap_ids:
        n_full = max(n_full, t + 1)
    judged = np.zeros((n_full, odds.shape[1]), dtype=np.int64)
    fired_tally = np.zeros_like(judged)
    trap_stats = np.zeros((judged.shape[0], N_TRAP_STATS), dtype=np.int64)
    cursor = np.zeros(1, dtype=np.int64)
    return play_rounds(rules, codes, trap_ids, odds, strategies, params, streams, seat_streams, table, order,
                       points, totals, counters, judged, fired_tally, trap_stats, log, trap_script, declare_script,
                       script, cursor, trap_script.shape[0])


@kernel(globals(), nogil=True)
def round_points(rules, codes, trap_ids, odds, trap, declarations, dice_index, seed, first, last, points_out):
    """One round of trap row ``trap`` per row of ``declarations`` (int64[n, players]: every
    seat's declaration, scripted), everyone at 0 points and not in the final round; row i rolls
    the dice of stream (seed, dice_index[i]), so rows with the same dice index meet the same dice
    (common random numbers).  ``points_out[i, s]``: what seat s scored.  The declaration
    equilibria (analysis/equilibria.py) are built on it."""
    n_players = rules[R_PLAYERS]
    streams = np.empty(N_STREAMS, dtype=np.uint64)
    no_seat_streams = np.zeros((MAX_PLAYERS, N_STREAMS), dtype=np.uint64)  # declarations are scripted
    table = np.zeros(TABLE_WIDTH, dtype=np.int64)
    points = np.zeros(MAX_PLAYERS, dtype=np.int64)
    counters = np.zeros(N_COUNTERS, dtype=np.int64)
    n_full = 0
    for t in trap_ids:
        n_full = max(n_full, t + 1)
    judged = np.zeros((n_full, odds.shape[1]), dtype=np.int64)
    fired_tally = np.zeros_like(judged)
    log = np.empty((0, LOG_WIDTH), dtype=np.int64)
    no_script = np.empty(0, dtype=np.int64)
    cursor = np.zeros(1, dtype=np.int64)
    no_strategies = np.zeros(MAX_PLAYERS, dtype=np.int64)
    no_params = np.zeros((MAX_PLAYERS, 4), dtype=np.float64)
    script = np.empty((1, MAX_PLAYERS), dtype=np.int64)
    for i in range(first, last):
        seed_streams(streams, seed, dice_index[i], n_players)
        table[T_ROUND] = 0
        table[T_FINAL] = 0
        table[T_TRAP] = trap
        for s in range(MAX_PLAYERS):
            table[T_SCORE + s] = 0
            script[0, s] = declarations[i, s] if s < n_players else 0
        play_round(table, rules, codes, trap_ids, odds, no_strategies, no_params, streams, no_seat_streams,
                   points, counters, judged, fired_tally, log, -1, script, no_script, cursor)
        for s in range(n_players):
            points_out[i, s] = points[s]
