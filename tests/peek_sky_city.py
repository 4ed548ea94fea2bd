"""A Sky City of ALEA plug-in that tries to cheat (tests/test_hidden_information_sky_city.py).

Its declaration is a hash of EVERYTHING ``choose_declare`` receives that could carry hidden
game state (its own parameter row, its seat, every slot of the table, declarations included,
every rule, every entry of the exact odds table and the random streams), mapped onto the legal
declarations 0..dice.  Any argument value that changed with the other seats' declarations this
round or with the dice still to be rolled would move its choice, so it declares the same in two
positions only if the kernel hands it nothing hidden.

It reads only its own row ``params[seat]``: the other rows are the other seats' strategy
settings (a ``fixed:K`` player's K, say), chosen by whoever seats the line-up, not game state.
It draws nothing and leaves every argument as it found it."""
import numpy as np
from numba import njit

from simcore.games.sky_city.rules import R_DICE

GAME = "sky-city"
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
def digest(params, seat, table, rules, odds, streams):
    h = stir(np.uint64(0x51ED270B27E4B5A3), np.uint64(seat))
    own = np.empty(params.shape[1], dtype=np.float64)
    own[:] = params[seat]
    bits = own.view(np.uint64)  # every bit of the own row's floats
    for j in range(bits.shape[0]):
        h = stir(h, bits[j])
    for i in range(table.shape[0]):
        h = stir(h, np.uint64(table[i]))
    for i in range(rules.shape[0]):
        h = stir(h, np.uint64(rules[i]))
    flat = np.empty(odds.shape[0] * odds.shape[1], dtype=np.float64)
    for t in range(odds.shape[0]):
        for n in range(odds.shape[1]):
            flat[t * odds.shape[1] + n] = odds[t, n]
    chances = flat.view(np.uint64)  # every bit of every exact chance
    for i in range(chances.shape[0]):
        h = stir(h, chances[i])
    for i in range(streams.shape[0]):
        h = stir(h, streams[i])
    return finish(h)


def choose_declare(params, seat, table, rules, odds, streams):
    return np.int64(digest(params, seat, table, rules, odds, streams) % np.uint64(rules[R_DICE] + 1))
