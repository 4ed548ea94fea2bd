"""Hooks of tests/rules/calls.toml: the calling round, the one-use power and the makers' score."""
import numpy as np

from simcore.games.trick.rules import (R_PLAYERS, SEAT_COUNTERS, T_COUNTER, T_DEALER, T_NEXT_LEADER, T_SEAT_COUNTER,
                                       T_TRUMP, T_WON)

CALLED, MAKER = 0, 1  # the round's counters: a call was made, and by whom
USED = 0  # a seat's counter: its power is spent


def decision_options(decision, seat, hand, table, rules, cards, masks):
    if decision == 0:  # the call: nothing once made; the dealer, last, must name a suit
        if table[T_COUNTER + CALLED] != 0:
            return np.uint64(0)
        return np.uint64(0b11110) if seat == table[T_DEALER] else np.uint64(0b11111)
    if table[T_SEAT_COUNTER + seat * SEAT_COUNTERS + USED] != 0:
        return np.uint64(0)  # the power is used up
    return np.uint64(0b11)


def decision_apply(decision, seat, choice, hands, table, rules, cards, masks):
    if decision == 0:
        if choice > 0:
            table[T_TRUMP] = choice - 1
            table[T_COUNTER + CALLED] = 1
            table[T_COUNTER + MAKER] = seat
        return
    if choice == 1:
        table[T_SEAT_COUNTER + seat * SEAT_COUNTERS + USED] = 1
        table[T_NEXT_LEADER] = (seat + 2) % rules[R_PLAYERS]


def score_round(table, n_tricks, cards, masks, rules, scores):
    """The makers score their tricks when they take 5 of the 8, else the defenders score 8."""
    maker = table[T_COUNTER + MAKER]
    made = table[T_WON + maker] + table[T_WON + (maker + 2) % 4]
    for s in range(4):
        makers = s % 2 == maker % 2
        scores[s] = (made if made >= 5 else 0) if makers else (0 if made >= 5 else 8)
