"""Jacks and Sevens: its decisions (the double, the jack's and the seven's powers) and its score."""
import numpy as np

from simcore.games.trick.moves import exchange_upcard
from simcore.games.trick.rules import C_RANK, R_PLAYERS, T_BID, T_COUNTER, T_NPLAYED, T_PLAY, T_TRUMP, T_TRUMP_CARD, T_WON

DOUBLE, JACK, SEVEN = 0, 1, 2  # the [[decision]] tables, in the file's order
SEVEN_RANK, JACK_RANK = 5, 8  # their places in deck.ranks
DOUBLED, NAMED, SWAPPED = 0, 1, 2  # the round's counters: the seats that doubled (bit s), powers used
EVENTS = [("jack_named_trump", "A jack named trump", "trick"),
          ("seven_swapped", "A seven swapped a card for the trump card", "trick")]


def just_played(table, cards):
    """The rank of the card just played: the last on the table."""
    return cards[C_RANK, table[T_PLAY + table[T_NPLAYED] - 1]]


def decision_options(decision, seat, hand, table, rules, cards, masks):
    if decision == DOUBLE:
        return np.uint64(0b11)
    if decision == JACK:
        return np.uint64(0b11111) if just_played(table, cards) == JACK_RANK else np.uint64(0)
    if just_played(table, cards) != SEVEN_RANK or hand == 0:
        return np.uint64(0)
    return hand | (np.uint64(1) << np.uint64(table[T_TRUMP_CARD]))  # a card to swap, or the upcard: keep


def decision_apply(decision, seat, choice, hands, table, rules, cards, masks):
    if decision == DOUBLE:
        if choice == 1:
            table[T_COUNTER + DOUBLED] |= 1 << seat
    elif decision == JACK:
        if choice > 0:
            table[T_TRUMP] = choice - 1
            table[T_COUNTER + NAMED] += 1
    elif choice != table[T_TRUMP_CARD]:
        exchange_upcard(hands, table, seat, choice)
        table[T_COUNTER + SWAPPED] += 1


def score_round(table, n_tricks, cards, masks, rules, scores):
    """Double or nothing: a seat that doubled scores twice its round on an exact bid, else 0."""
    for s in range(rules[R_PLAYERS]):
        if (table[T_COUNTER + DOUBLED] >> s) & 1:
            scores[s] = 2 * scores[s] if table[T_BID + s] == table[T_WON + s] else 0


def count_events(table, n_tricks, cards, masks, rules, events):
    events[0] += table[T_COUNTER + NAMED]
    events[1] += table[T_COUNTER + SWAPPED]
