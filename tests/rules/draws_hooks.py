"""Hooks of tests/rules/draws.toml: the winner of a trick may draw from the stock, then discards."""
import numpy as np

from simcore.games.trick.moves import discard, draw
from simcore.games.trick.rules import T_COUNTER

DRAW, DRAWN, DISCARD = 0, 1, 2
DRAWER = 0  # the round's counter: 1 + the seat drawing now (0: none)


def decision_options(decision, seat, hand, table, rules, cards, masks):
    if decision == DRAW:
        return np.uint64(0b11)
    if table[T_COUNTER + DRAWER] == 0:
        return np.uint64(0)
    if decision == DRAWN:
        return hand  # a decision of chance is handed the stock: one of its cards, at random
    return hand if seat == table[T_COUNTER + DRAWER] - 1 else np.uint64(0)


def decision_apply(decision, seat, choice, hands, table, rules, cards, masks):
    if decision == DRAW:
        table[T_COUNTER + DRAWER] = 1 + seat if choice == 1 else 0
    elif decision == DRAWN:
        draw(hands, table, table[T_COUNTER + DRAWER] - 1, choice)
    else:
        discard(hands, table, seat, choice)
