"""Hooks of tests/rules/shrinking.toml: each round's hand from the scores so far."""
from simcore.games.trick.rules import R_HAND, R_PLAYERS


def hand_size(round, totals, rules):
    """10 cards, one fewer for every 3 points of the best score so far, 4 at least."""
    best = 0
    for s in range(rules[R_PLAYERS]):
        best = max(best, totals[s])
    return max(4, rules[R_HAND] - best // 3)
