"""A Chimera Tricks plug-in that uses the shared scratch area as documented
(tests/test_plugin_writes.py): it writes each legal move's field rank into
``table[T_SCRATCH + move]`` while it decides, sets every slot it used back to 0, and then plays
exactly what ``random`` plays (the same draw from its own stream), so a run with it in a seat has
the same rows as one with ``random`` there."""
import numpy as np

from simcore.bits import has, lowest_index
from simcore.games.chimera.rules import T_SCRATCH, T_TOP, T_TOP_RANK, field_after, kth_move, move_count
from simcore.rng import PLAY, below

GAME = "chimera"
NAME = "scratch-user"
CLEAN = True  # the leaky copy of this file sets False: it leaves its notes in the scratch area


def choose_play(params, seat, hand, m0, m1, table, rules, masks, streams):
    top0, rank0 = table[T_TOP + 2 * seat], table[T_TOP_RANK + 2 * seat]
    top1, rank1 = table[T_TOP + 2 * seat + 1], table[T_TOP_RANK + 2 * seat + 1]
    cards = m0 | m1
    while cards != np.uint64(0):
        card = lowest_index(cards)
        cards &= cards - np.uint64(1)
        for slot in range(2):
            if has(m1 if slot == 1 else m0, card):
                suits, rank = field_after(top0, rank0, top1, rank1, card, slot, rules)
                table[T_SCRATCH + 2 * card + slot] = rank + 1  # never 0: a note left is seen
    if CLEAN:
        for i in range(128):
            table[T_SCRATCH + i] = 0
    return kth_move(m0, m1, below(streams, PLAY, move_count(m0, m1)))
