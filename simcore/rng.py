"""Per-game random streams.

Every game draws its randomness from small explicit streams seeded from
(run seed, game index, stream id).  Nothing depends on the thread that runs the
game, the chunk it falls in or the machine, so a run is bit-identical for any
``--threads`` / ``--chunk-size``, and two strategy line-ups given the same seed
meet the same deals (common random numbers).

The generator is SplitMix64 (Steele, Lea & Flood 2014): a 64-bit counter
advanced by the golden-ratio increment and passed through a strong mixer.  It
is tiny (one uint64 of state), passes BigCrush, and is easy to reproduce in
plain Python for the reference engines (:class:`PyStream`).

Bounded draws use Lemire's multiply-shift on the top 32 bits:
``below(n) = (top32 * n) >> 32``.  Its bias is at most n / 2**32 (< 2e-8 for
the n <= 64 used here), far below anything a balance run can detect, and it
needs no rejection loop, which keeps the two implementations in lock-step.

Stream ids: every game uses DEAL for shuffling and the rules' own chance
events, and PLAY for the strategies' random choices.  Keeping them apart means
the deal of game i does not depend on who is playing it.
"""
import numpy as np
from numba import njit

GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_STREAM_SALT = np.uint64(0xD1B54A32D192ED03)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)

DEAL = 0
PLAY = 1
N_STREAMS = 2


@njit(cache=True, inline="always")
def mix64(z):
    z = (z ^ (z >> np.uint64(30))) * _M1
    z = (z ^ (z >> np.uint64(27))) * _M2
    return z ^ (z >> np.uint64(31))


@njit(cache=True, inline="always")
def seed_streams(streams, seed, index):
    """Fill ``streams`` (uint64 array, one slot per stream id) for game ``index``."""
    base = mix64(np.uint64(seed))
    for k in range(streams.shape[0]):
        streams[k] = mix64(base + np.uint64(k) * _STREAM_SALT + np.uint64(index) * GOLDEN)


@njit(cache=True, inline="always")
def next_u64(streams, k):
    s = streams[k] + GOLDEN
    streams[k] = s
    return mix64(s)


@njit(cache=True, inline="always")
def below(streams, k, n):
    """Uniform integer in [0, n) from stream k (n >= 1)."""
    return np.int64(((next_u64(streams, k) >> np.uint64(32)) * np.uint64(n)) >> np.uint64(32))


@njit(cache=True, inline="always")
def uniform(streams, k):
    """Uniform float in [0, 1) with 53 random bits."""
    return np.float64(next_u64(streams, k) >> np.uint64(11)) * (1.0 / 9007199254740992.0)


# ---------------------------------------------------------------------------
# The same streams in plain Python, for the reference engines and for tests.

_MASK = (1 << 64) - 1


def py_mix64(z: int) -> int:
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
    return z ^ (z >> 31)


class PyStream:
    """One SplitMix64 stream; identical draws to the compiled ``streams[k]``."""

    def __init__(self, seed: int, index: int, stream: int):
        base = py_mix64(seed & _MASK)
        self.state = py_mix64(
            (base + stream * 0xD1B54A32D192ED03 + index * 0x9E3779B97F4A7C15) & _MASK
        )

    def next_u64(self) -> int:
        self.state = (self.state + 0x9E3779B97F4A7C15) & _MASK
        return py_mix64(self.state)

    def below(self, n: int) -> int:
        return ((self.next_u64() >> 32) * n) >> 32

    def uniform(self) -> float:
        return (self.next_u64() >> 11) / 9007199254740992.0
