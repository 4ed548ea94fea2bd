"""A Chimera Tricks plug-in that edits another seat's hand as the table shows it: from round 1 on,
``table[T_HELD + s]`` is the hand seat s began the round with (public), and this plug-in drops a
card from the next seat's (tests/test_plugin_writes.py).  Refused before any run."""
import numpy as np

from simcore.games.chimera.rules import R_PLAYERS, T_HELD, kth_move, move_count
from simcore.rng import PLAY, below

GAME = "chimera"
NAME = "edit-hand"


def choose_play(params, seat, hand, m0, m1, table, rules, masks, streams):
    other = T_HELD + (seat + 1) % rules[R_PLAYERS]
    if table[other] != 0:
        table[other] &= table[other] - 1  # the lowest card goes
    return kth_move(m0, m1, below(streams, PLAY, move_count(m0, m1)))
