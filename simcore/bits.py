"""Bitmask helpers for hands encoded as uint64 (bit i = deck index i).

Written with plain bit arithmetic so they behave the same compiled and under
NUMBA_DISABLE_JIT=1 (LLVM turns ``popcount`` into a single POPCNT).
"""
import numpy as np
from numba import njit

_ONE = np.uint64(1)


@njit(cache=True, inline="always")
def popcount(x):
    x = x - ((x >> np.uint64(1)) & np.uint64(0x5555555555555555))
    x = (x & np.uint64(0x3333333333333333)) + ((x >> np.uint64(2)) & np.uint64(0x3333333333333333))
    x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return np.int64((x * np.uint64(0x0101010101010101)) >> np.uint64(56))


@njit(cache=True, inline="always")
def lowest_index(x):
    """Index of the lowest set bit (x != 0)."""
    return popcount((x & (~x + _ONE)) - _ONE)


@njit(cache=True, inline="always")
def highest_index(x):
    """Index of the highest set bit (x != 0)."""
    i = 0
    while x > _ONE:
        x >>= _ONE
        i += 1
    return i


@njit(cache=True, inline="always")
def kth_index(x, k):
    """Index of the k-th lowest set bit (0-based; k < popcount(x))."""
    for _ in range(k):
        x &= x - _ONE
    return lowest_index(x)


@njit(cache=True, inline="always")
def bit(i):
    return _ONE << np.uint64(i)


@njit(cache=True, inline="always")
def has(x, i):
    return (x >> np.uint64(i)) & _ONE != 0


def mask_to_list(x: int) -> list[int]:
    """Plain-Python: the set bit indices of ``x``, ascending."""
    x = int(x)
    out = []
    i = 0
    while x:
        if x & 1:
            out.append(i)
        x >>= 1
        i += 1
    return out
