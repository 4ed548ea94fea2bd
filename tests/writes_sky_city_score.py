"""A Sky City of ALEA plug-in that cheats by writing: it adds a point to its own score on the
table before it declares (tests/test_plugin_writes.py).  The play loop scores from the table, so
this would change the game it is measured on; the check before a run refuses it."""
from simcore.games.sky_city.rules import R_DICE, T_SCORE
from simcore.rng import PLAY, below

GAME = "sky-city"
NAME = "own-score"


def choose_declare(params, seat, table, rules, odds, streams):
    table[T_SCORE + seat] += 1
    return below(streams, PLAY, rules[R_DICE] + 1)
