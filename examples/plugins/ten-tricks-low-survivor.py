"""A 10 TRICKS LATER strategy plug-in (docs/strategies.md, "10 TRICKS LATER"): shed low.

It plays its lowest-numbered survivor that is legal (keeping its high cards, which win tricks
and feed the upper board later), and an infected card only when nothing else is legal.  It
defines no ``choose_swap``, so the built-in ``random`` makes that decision for it.  It is an
example of the API, not a good player: in seat 1 against three `random` players it wins
19.22% [18.68, 19.77] of 20,000 games (seed 1), below the fair 25%: low cards lose tricks and
the track then rises into rescues for the others.

    balance simulate ten-tricks --plugin examples/plugins/ten-tricks-low-survivor.py \
        -s low-survivor,random,random,random -n 20000
"""
import numpy as np

from simcore.bits import lowest_index
from simcore.games.ten_tricks.rules import low_survivors

GAME = "ten-tricks"
NAME = "low-survivor"


def choose_play(params, seat, hand, legal, table, rules, masks, streams):
    for number in range(1, 9):  # every survivor numbered at most `number`, all colours at once
        low = legal & low_survivors(number)
        if low:
            return lowest_index(low)
    return np.int64(lowest_index(legal))  # only infected cards are legal
