"""A 10 TRICKS LATER plug-in that tries to cheat (tests/test_hidden_information_cards.py).

Both decisions are a hash of EVERYTHING they receive that could carry another seat's cards (its
own hand and legal cards, every table slot, the rules, the masks and the random streams),
mapped onto the allowed answers.  Any argument value that changed with the other seats' hands
or with the card given up in a swap would move its choice, so it decides the same in two
positions only if the kernel hands it nothing hidden.  It draws nothing and changes nothing."""
import numpy as np
from numba import njit

from simcore.bits import kth_index, popcount

GAME = "ten-tricks"
NAME = "peek-all"

GOLDEN = np.uint64(0x9E3779B97F4A7C15)
MIX_1 = np.uint64(0xBF58476D1CE4E5B9)
MIX_2 = np.uint64(0x94D049BB133111EB)


@njit
def stir(h, word):
    """Fold one 64-bit word into the hash (order matters: a word's index weighs in)."""
    h = (h ^ word) * GOLDEN
    return h ^ (h >> np.uint64(29))


@njit
def finish(h):
    """SplitMix64's finaliser: every input bit reaches every output bit."""
    h = (h ^ (h >> np.uint64(30))) * MIX_1
    h = (h ^ (h >> np.uint64(27))) * MIX_2
    return h ^ (h >> np.uint64(31))


@njit
def digest(seat, hand, legal, table, rules, masks, streams):
    h = stir(np.uint64(0x51ED270B27E4B5A3), np.uint64(seat))
    h = stir(h, hand)
    h = stir(h, legal)
    for i in range(table.shape[0]):
        h = stir(h, np.uint64(table[i]))
    for i in range(rules.shape[0]):
        h = stir(h, np.uint64(rules[i]))
    for i in range(masks.shape[0]):
        h = stir(h, masks[i])
    for i in range(streams.shape[0]):
        h = stir(h, streams[i])
    return finish(h)


def choose_swap(params, seat, hand, table, rules, masks, streams):
    # asked only of a seat dealt no infected: any card of the hand, or -1 (no offer)
    n = popcount(hand)
    k = np.int64(digest(seat, hand, np.uint64(0), table, rules, masks, streams) % np.uint64(n + 1))
    if k == n:
        return np.int64(-1)
    return np.int64(kth_index(hand, k))


def choose_play(params, seat, hand, legal, table, rules, masks, streams):
    n = popcount(legal)
    return np.int64(kth_index(legal, np.int64(digest(seat, hand, legal, table, rules, masks, streams)
                                                 % np.uint64(n))))
