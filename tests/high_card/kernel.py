"""High Card's compiled play loop (the game's own deal, legal moves, step and scoring).  The
engine around it (chunks, threads, records, Parquet, replays) is the shared one."""
import numpy as np

from high_card.rules import (
    L_CARD, L_LEADER, L_WINNER, MAX_PLAYERS, N_COUNTERS, R_CARDS, R_HAND, R_PLAYERS, T_BEST, T_LEADER, T_SCORE,
    TABLE_WIDTH,
)
from simcore.bits import bit
from simcore.registry import strategies_of
from simcore.jit import kernel
from simcore.play import FINISHED, STRATEGY_BROKE_RULES
from simcore.rng import DEAL, N_STREAMS, below, seed_seats, seed_streams

strategy = globals().get("__strategies__") or strategies_of(__name__)
choose_play = strategy.choose_play


@kernel(globals())
def deal(streams, rules, deck, hands):
    """Fisher-Yates on the DEAL stream, then R_HAND cards to each seat in turn order."""
    n = rules[R_CARDS]
    for i in range(n):
        deck[i] = i + 1
    for i in range(n - 1, 0, -1):
        j = below(streams, DEAL, i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    for s in range(rules[R_PLAYERS]):
        hands[s] = np.uint64(0)
        for k in range(s * rules[R_HAND], (s + 1) * rules[R_HAND]):
            hands[s] |= bit(deck[k] - 1)


@kernel(globals())
def play_game(seed, keys, index, rules, strategies, params, streams, seat_streams, table, hands, deck, counters, log):
    """The game's own ``streams`` deal; seat s's strategy is handed only ``seat_streams[s]``."""
    players = rules[R_PLAYERS]
    seed_streams(streams, seed, index)
    seed_seats(seat_streams, keys, index)
    deal(streams, rules, deck, hands)
    counters[0] = 0
    for s in range(players):
        table[T_SCORE + s] = 0
    leader = 0
    for trick in range(rules[R_HAND]):
        table[T_LEADER] = leader
        table[T_BEST] = 0
        winner = leader
        for i in range(players):
            seat = (leader + i) % players
            card = choose_play(strategies[seat], params, seat, hands[seat], table, rules, seat_streams[seat])
            if card < 1 or card > rules[R_CARDS] or (hands[seat] & bit(card - 1)) == 0:
                return STRATEGY_BROKE_RULES
            hands[seat] &= ~bit(card - 1)
            if trick < log.shape[0]:
                log[trick, L_CARD + seat] = card
            if card > table[T_BEST]:
                table[T_BEST] = card
                winner = seat
        table[T_SCORE + winner] += 1
        if winner == leader:
            counters[0] += 1
        if trick < log.shape[0]:
            log[trick, L_LEADER] = leader
            log[trick, L_WINNER] = winner
        leader = winner
    return FINISHED


@kernel(globals(), nogil=True)
def run_chunk(seed, keys, start, first, last, rules, masks, strategies, params, scores_out, shares_out, counters_out,
              status_out):
    players = rules[R_PLAYERS]
    streams = np.empty(N_STREAMS, dtype=np.uint64)
    seat_streams = np.empty((players, N_STREAMS), dtype=np.uint64)
    table = np.zeros(TABLE_WIDTH, dtype=np.int64)
    hands = np.zeros(MAX_PLAYERS, dtype=np.uint64)
    deck = np.empty(rules[R_CARDS], dtype=np.int64)
    counters = np.zeros(N_COUNTERS, dtype=np.int64)
    no_log = np.empty((0, 1), dtype=np.int64)
    for g in range(first, last):
        status_out[g] = play_game(seed, keys, start + g, rules, strategies, params, streams, seat_streams, table,
                                  hands, deck, counters, no_log)
        best = 0
        for s in range(players):
            best = max(best, table[T_SCORE + s])
        tied = 0
        for s in range(players):
            tied += table[T_SCORE + s] == best
        for s in range(players):
            scores_out[s, g] = table[T_SCORE + s]
            shares_out[s, g] = 1.0 / tied if table[T_SCORE + s] == best else 0.0
        counters_out[0, g] = counters[0]


@kernel(globals())
def play_many_logged(seed, keys, indices, rules, strategies, params, logs, scores, status):
    streams = np.empty(N_STREAMS, dtype=np.uint64)
    seat_streams = np.empty((rules[R_PLAYERS], N_STREAMS), dtype=np.uint64)
    table = np.zeros(TABLE_WIDTH, dtype=np.int64)
    hands = np.zeros(MAX_PLAYERS, dtype=np.uint64)
    deck = np.empty(rules[R_CARDS], dtype=np.int64)
    counters = np.zeros(N_COUNTERS, dtype=np.int64)
    for k in range(indices.shape[0]):
        status[k] = play_game(seed, keys, indices[k], rules, strategies, params, streams, seat_streams, table, hands,
                              deck, counters, logs[k])
        for s in range(rules[R_PLAYERS]):
            scores[k, s] = table[T_SCORE + s]


@kernel(globals())
def deal_openings(seed, games, rules, hands_out):
    streams = np.empty(N_STREAMS, dtype=np.uint64)
    deck = np.empty(rules[R_CARDS], dtype=np.int64)
    hands = np.zeros(MAX_PLAYERS, dtype=np.uint64)
    for k in range(games.shape[0]):
        seed_streams(streams, seed, games[k])
        deal(streams, rules, deck, hands)
        for s in range(hands_out.shape[1]):
            hands_out[k, s] = hands[s]
