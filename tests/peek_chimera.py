"""A Chimera Tricks plug-in that tries to cheat (tests/test_hidden_information_cards.py).

Its move is a hash of EVERYTHING ``choose_play`` receives that could carry another seat's cards
(its own hand, parameter row and legal masks, every slot of the table, shared scratch included,
the rules, the masks and the random streams), mapped onto its legal moves.  Any one argument value that
changed with the other seats' hands or with the hidden part of the grimoire pile would move its
choice, so it plays the same in two positions only if the kernel hands it nothing hidden.
It draws nothing and leaves every argument as it found it.  It allocates an array on every call,
as a plug-in may: Chimera's dispatch to it is compiled without reference counts, the plug-ins with
them (simcore/jit.py), and this is the test that a plug-in which allocates still runs there."""
import numpy as np
from numba import njit

from simcore.games.chimera.rules import kth_move, move_count

GAME = "chimera"
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


def choose_play(params, seat, hand, m0, m1, table, rules, masks, streams):
    h = stir(np.uint64(0x51ED270B27E4B5A3), np.uint64(seat))
    h = stir(h, hand)
    h = stir(h, m0)
    h = stir(h, m1)
    own = np.empty(params.shape[1], dtype=np.float64)
    own[:] = params[seat]
    bits = own.view(np.uint64)  # every bit of the own row's floats
    for j in range(bits.shape[0]):
        h = stir(h, bits[j])
    for i in range(table.shape[0]):
        h = stir(h, np.uint64(table[i]))
    for i in range(rules.shape[0]):
        h = stir(h, np.uint64(rules[i]))
    for i in range(masks.shape[0]):
        h = stir(h, masks[i])
    for i in range(streams.shape[0]):
        h = stir(h, streams[i])
    n = move_count(m0, m1)
    return kth_move(m0, m1, np.int64(finish(h) % np.uint64(n)))
