"""Hooks of examples/games/spades.toml: OpenSpiel's spades (open_spiel/games/spades/spades.cc and
spades_scoring.cc, tools/openspiel_rules_notes.md "Spades"): the lead rule, the partners' bid limit
and the partnership's score, which the keys of a rules file cannot say.

Seats 0 and 2 are one partnership, 1 and 3 the other (game.teams); T_TOTAL holds a seat's score
from earlier rounds, its partnership's (one deal in OpenSpiel's game: 0).
"""
import numpy as np

from simcore.games.trick.rules import (C_SUIT, M_SUIT, R_TEAM, R_TRUMP_SUIT, T_BID, T_NPLAYED, T_PLAY, T_TOTAL,
                                       T_WON)


def legal(hand, table, rules, cards, masks, first_trick):
    """Follow the suit led if you can, else any card (spades.cc:421-452); leading, any card but a
    spade while the hand holds another suit: OpenSpiel never sets spades broken (is_spades_broken_
    stays false), so a spade lead needs a hand of spades alone."""
    if table[T_NPLAYED] > 0:
        follows = hand & masks[M_SUIT + cards[C_SUIT, table[T_PLAY]]]
        return follows if follows != 0 else hand
    others = hand & ~masks[M_SUIT + rules[R_TRUMP_SUIT]]
    return others if others != 0 else hand


def partner(rules, seat, n_players):
    """The other seat of ``seat``'s partnership."""
    for s in range(n_players):
        if s != seat and rules[R_TEAM + s] == rules[R_TEAM + seat]:
            return s
    return seat


def legal_bids(rules, table, n_players, bids_made, hand_size):
    """0 (nil) to 13, and with the partner's bid made, at most 13 together (spades.cc:402-419);
    bidding runs seat 1, 2, 3, 4, so the bidder is seat ``bids_made``."""
    seat = bids_made
    most = hand_size - max(0, table[T_BID + partner(rules, seat, n_players)])
    return (np.uint64(1) << np.uint64(most + 1)) - np.uint64(1)


def c_div(a, b):
    """Integer division as C++ does it (towards zero): spades_scoring.cc's ``/`` and ``%``."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


def nil(tricks):
    return -100 if tricks > 0 else 100


def score_round(table, n_tricks, cards, masks, rules, scores):
    """spades_scoring.cc Score: per partnership, the contract (the partners' bids together) scores
    10 a trick when made, -10 a trick when not; each nil bid +-100; each overtrick (bag) 1, and
    -100 for every ten bags counted on from the score's last digit."""
    for first in range(2):
        second = first + 2
        contract = table[T_BID + first] + table[T_BID + second]
        result = table[T_WON + first] + table[T_WON + second] - contract
        bonuses = 0
        if table[T_BID + first] == 0:
            bonuses += nil(table[T_WON + first])
        if table[T_BID + second] == 0:
            bonuses += nil(table[T_WON + second])
        if result < 0:
            contract_score = -10 * contract
        else:
            contract_score = 10 * contract
            current = table[T_TOTAL + first]
            bags = current - 10 * c_div(current, 10) + result
            bonuses += result - 100 * c_div(bags, 10)
        scores[first] = contract_score + bonuses
        scores[second] = contract_score + bonuses
