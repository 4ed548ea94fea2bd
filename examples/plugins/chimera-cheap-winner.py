"""A Chimera Tricks strategy plug-in (docs/strategies.md, "Chimera Tricks"): win a grimoire
worth having as cheaply as possible, otherwise play at random.

Facing a grimoire worth at least PARAMS[0] points, a follower plays the move that wins the
trick for now (its field holds the lead suit and ties or beats every field played so far: a
tie goes to the later player) with the LOWEST field rank, keeping its strong cards for later;
the leader plays the move that gives its highest field.  Facing a cheaper or negative
grimoire, or when no move wins for now, it plays a uniformly random legal move drawn from the
PLAY stream (what the built-in `random` does).

    balance simulate chimera --plugin examples/plugins/chimera-cheap-winner.py \
        -s cheap-winner,random,random,random -n 20000
"""
import numpy as np

from simcore.bits import has, lowest_index
from simcore.games.chimera.rules import (
    R_PLAYERS, R_VALUES, T_GRIMOIRE, T_LEAD, T_TOP, T_TOP_RANK, field_after, kth_move, move_count,
)
from simcore.rng import PLAY, below
from strategies.chimera import best_so_far

GAME = "chimera"
NAME = "cheap-winner"
# This seat's row of the parameter matrix: params[seat, 0] = the lowest grimoire value worth
# winning (the default grimoires are +5 ... +1 and -1 ... -4).
PARAMS = (1.0,)


def choose_play(params, seat, hand, m0, m1, table, rules, masks, streams):
    lead = table[T_LEAD]  # -1: this seat leads the trick
    worth = rules[R_VALUES + table[T_GRIMOIRE]]
    if worth >= params[seat, 0]:
        top0, rank0 = table[T_TOP + 2 * seat], table[T_TOP_RANK + 2 * seat]
        top1, rank1 = table[T_TOP + 2 * seat + 1], table[T_TOP_RANK + 2 * seat + 1]
        beat = best_so_far(table, lead, rules[R_PLAYERS]) if lead >= 0 else -1
        chosen, chosen_rank = -1, -1
        cards = m0 | m1
        while cards != np.uint64(0):  # every legal (card, slot), ascending
            card = lowest_index(cards)
            cards &= cards - np.uint64(1)
            for slot in range(2):
                if not has(m1 if slot == 1 else m0, card):
                    continue
                suits, rank = field_after(top0, rank0, top1, rank1, card, slot, rules)
                if lead < 0:
                    if rank > chosen_rank:  # leading: the highest field
                        chosen, chosen_rank = card * 2 + slot, rank
                elif (suits >> lead) & 1 and rank >= beat and (chosen < 0 or rank < chosen_rank):
                    chosen, chosen_rank = card * 2 + slot, rank  # following: the cheapest win
        if chosen >= 0:
            return chosen
    return kth_move(m0, m1, below(streams, PLAY, move_count(m0, m1)))
