"""One pass over a chunk's small-integer column for every total the summary takes of it: Σx,
Σx², the least and greatest value and how many are above 0 (``Counted.passed``).

NumPy needs a pass (and a temporary) per total; at 262,144 BIRD & WEATHER games that was about
9 ms of reductions per chunk, most of a run without ``--out``'s cost above the play loop
(BENCHMARKS.md, "Chunks side by side").  Integer sums are exact in any order, so these are the
same integers as NumPy's and Polars'.  Compiled by Numba on first use, cached like the kernels;
imported only where a chunk is counted, so reading a run does not load Numba."""
from __future__ import annotations

import numba
import numpy as np


@numba.njit(cache=True, nogil=True)
def one_pass(x):
    """(Σx, Σx², min, max, count of x > 0) of a non-empty integer array of at most 16 bits, in
    int64 (Σx² of 2**31 such values fits)."""
    total = np.int64(0)
    squares = np.int64(0)
    positive = np.int64(0)
    low = np.int64(x[0])
    high = low
    for i in range(x.shape[0]):
        v = np.int64(x[i])
        total += v
        squares += v * v
        positive += v > 0
        low = min(low, v)
        high = max(high, v)
    return total, squares, low, high, positive
