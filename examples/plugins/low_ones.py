"""A strategy plug-in for Trick-Take BIRD & WEATHER (docs/strategies.md).

    balance simulate bird-weather --plugin examples/plugins/low_ones.py \
        --strategies low-ones,random,random,random --games 200000 --seed 1

"low-ones" plays by three simple habits:

* play: when a legal card would take the trick as it stands, play the highest such card
  (leading: the highest legal card); when none can, dump the card with the lowest ones digit,
  because every card played counts for the points (§5-③) and the winner is someone else.
* face-down: hide the card with the highest ones digit, a sure score for a 0-point trick.
* pick: take its own face-down card when its ones digit is at least PARAMS[0], otherwise
  take a random other seat's card (blind).

The functions are plain Python in Numba's subset; balance compiles them into the kernel's
dispatch when the plug-in is loaded.  Randomness comes only from ``streams`` through
``simcore.rng.below`` so that runs stay reproducible for any thread count.
"""
import numpy as np

from simcore.bits import bit, kth_index, popcount
from simcore.games.bird_weather.rules import T_FACEDOWN, T_NPLAYED, T_PLAY, resolve_trick
from simcore.rng import PLAY, below

GAME = "bird-weather"
NAME = "low-ones"
# This seat's row of the parameter matrix: params[seat, 0] = the ones digit from which the
# own face-down card is taken rather than a blind one (the unseen cards average about 4.5).
PARAMS = (5.0,)


def choose_play(params, seat, hand, legal, seen, table, number, follow, rules, streams):
    n = table[T_NPLAYED]  # cards already in this trick; 0 = we lead
    best_winner = -1
    lowest_ones = -1
    m = legal
    while m != 0:  # ascending deck index = ascending card number
        c = kth_index(m, 0)
        m &= m - np.uint64(1)
        if n > 0:
            table[T_PLAY + n] = c  # try the card: would it take the trick as it stands?
            win_pos, kind, points_pos = resolve_trick(table, number, rules, n + 1)
            if win_pos == n:
                best_winner = c  # the last one found is the highest
        if lowest_ones < 0 or number[c] % 10 < number[lowest_ones] % 10:
            lowest_ones = c
    if n == 0:
        return kth_index(legal, popcount(legal) - 1)  # lead the highest card
    table[T_PLAY + n] = -1  # leave the table as we found it
    if best_winner >= 0:
        return best_winner
    return lowest_ones


def choose_facedown(params, seat, hand, table, number, rules, streams):
    best = -1
    m = hand
    while m != 0:
        c = kth_index(m, 0)
        m &= m - np.uint64(1)
        if best < 0 or number[c] % 10 > number[best] % 10:
            best = c
    return best


def choose_pick(params, seat, available, hand, seen, table, number, rules, streams):
    own = table[T_FACEDOWN + seat]  # -1 once used; the other seats' cards are hidden from us
    others = available & ~bit(seat)
    if others == 0 or (own >= 0 and number[own] % 10 >= params[seat, 0]):
        return seat
    return kth_index(others, below(streams, PLAY, popcount(others)))
