"""A TriATri plug-in that tries to cheat (tests/test_hidden_information_triatri.py).

All three decisions are a hash of EVERYTHING they receive that could carry another seat's cards
or bid (its own hand, its allowed gem options or legal cards, every table slot, the rules, the
card table, the masks and the random streams), mapped onto the allowed answers.  Any one
argument value that changed with the other seats' hands, with the unused cards or with a bid
not yet revealed would move its choice, so it decides the same in two positions only if the
kernel hands it nothing hidden.  It draws nothing and leaves every argument as it found it."""
import numpy as np
from numba import njit

from simcore.bits import kth_index, popcount

GAME = "triatri"
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
def digest(seat, hand, allowed, table, rules, cards, masks, streams):
    h = stir(np.uint64(0x51ED270B27E4B5A3), np.uint64(seat))
    h = stir(h, np.uint64(hand))
    h = stir(h, np.uint64(allowed))
    for i in range(table.shape[0]):
        h = stir(h, np.uint64(table[i]))
    for i in range(rules.shape[0]):
        h = stir(h, np.uint64(rules[i]))
    for i in range(cards.shape[0]):
        for j in range(cards.shape[1]):
            h = stir(h, np.uint64(cards[i, j]))
    for i in range(masks.shape[0]):
        h = stir(h, masks[i])
    for i in range(streams.shape[0]):
        h = stir(h, streams[i])
    return finish(h)


def choose_bid(params, seat, hand, table, rules, cards, masks, streams):
    # any card of the hand; nothing else to tell it from the other decisions' hashes
    n = popcount(hand)
    return np.int64(kth_index(hand, np.int64(digest(seat, hand, np.uint64(0), table, rules, cards, masks, streams)
                                                % np.uint64(n))))


def choose_gem(params, seat, options, hand, table, rules, cards, masks, streams):
    allowed = np.uint64(options)
    n = popcount(allowed)
    return np.int64(kth_index(allowed, np.int64(digest(seat, hand, allowed, table, rules, cards, masks, streams)
                                                   % np.uint64(n))))


def choose_play(params, seat, hand, legal, table, rules, cards, masks, streams):
    n = popcount(legal)
    return np.int64(kth_index(legal, np.int64(digest(seat, hand, legal, table, rules, cards, masks, streams)
                                                 % np.uint64(n))))
