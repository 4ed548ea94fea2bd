"""The Sky City of ALEA: compiled trap judging and the exact trap odds table.

``fires_packed(codes, row, packed)`` is what the game kernel calls in its hot loop (``fires(code, counts)``
is the same judgement of one row and a counts array); ``exact_odds`` gives, for
every trap and every number of dice on the table, the exact probability that it fires.  The int64
encoding of a trap is documented in simcore/games/sky_city/trap_language.py (module docstring); the language in
docs/traps.md.

``counts`` is indexed by face: an int array of length 7, counts[f] = dice showing face f (1..6),
counts[0] unused (ignored).  ``simcore.games.sky_city.trap_language.tally(dice)`` builds one from a list of dice.
"""
import numpy as np

from simcore.bits import popcount
from simcore.errors import BalanceError
from simcore.jit import kernel
from simcore.games.sky_city.trap_language import (C_CMP, C_NVAL, C_OP, C_VAL, CMP_EQ, CMP_GE, CMP_GT, CMP_LE, CMP_LT, CMP_NE,
                           CODE_WIDTH, MAX_TABLE_DICE, OP_FACES, OP_LINEAR, OP_PATTERN)

MAX_ODDS_DICE = 60  # the table enumerates C(n+6, 6) count vectors: 60 dice is ~ 0.1 billion


@kernel(globals())
def compare(value, cmp, target):
    if cmp == CMP_GE:
        return value >= target
    if cmp == CMP_GT:
        return value > target
    if cmp == CMP_LE:
        return value <= target
    if cmp == CMP_LT:
        return value < target
    if cmp == CMP_EQ:
        return value == target
    if cmp == CMP_NE:
        return value != target
    return False


# Face counts packed in one uint64, a byte per face (face f in byte f - 1): a die showing f adds
# ``face_byte(f)``.  A count is at most 60 (the odds table's dice; a game has at most 25 on the
# table), so each byte's high bit is free, and "face f shows at least need_f" for all six faces
# at once is one subtraction: (packed | FACE_HIGH_BITS) - needs keeps byte f's high bit set
# exactly when count_f >= need_f (no borrow crosses a byte).
FACE_HIGH_BITS = np.uint64(0x808080808080)
ONE_PER_FACE = np.uint64(0x010101010101)
MAX_NEED = 127  # a byte's room; a need past any possible count is the same as 127


@kernel(globals(), inline="always")
def face_byte(face):
    """What one die showing ``face`` (1..6) adds to the packed counts."""
    return np.uint64(1) << np.uint64(8 * (face - 1))


@kernel(globals(), inline="always")
def pack_counts(counts):
    """The packed form of ``counts`` (counts[f] for f = 1..6, each 0..127)."""
    packed = np.uint64(0)
    for f in range(1, 7):
        packed |= np.uint64(counts[f]) << np.uint64(8 * (f - 1))
    return packed


@kernel(globals(), inline="always")
def faces_reaching(packed, needs):
    """The high bit of byte f - 1 set where face f shows at least its need (``needs`` packed)."""
    return ((packed | FACE_HIGH_BITS) - needs) & FACE_HIGH_BITS


@kernel(globals(), inline="always")
def packed_count(packed, face):
    return np.int64((packed >> np.uint64(8 * (face - 1))) & np.uint64(0xFF))


@kernel(globals(), inline="always")
def fires_packed(codes, row, packed):
    """Does the trap encoded in ``codes[row]`` fire on dice with these packed face counts?  The
    one evaluator of the encoding: ``fires`` packs an array and calls it.  It reads the row in
    place: a view of it would cost a reference count taken and given back per judgement."""
    op = codes[row, C_OP]
    if op == OP_FACES:  # each face f at least codes[row, f] times
        needs = np.uint64(0)
        for f in range(1, 7):
            needs |= np.uint64(min(codes[row, f], MAX_NEED)) << np.uint64(8 * (f - 1))
        return faces_reaching(packed, needs) == FACE_HIGH_BITS
    if op == OP_PATTERN:
        # Letters need different faces.  With the needs sorted largest first, an assignment exists
        # iff for every k at least k faces show the k-th need or more (Hall's condition: each
        # need's eligible faces contain those of every larger need).
        for k in range(1, 7):
            need = codes[row, k]
            if need == 0:
                break
            if popcount(faces_reaching(packed, np.uint64(min(need, MAX_NEED)) * ONE_PER_FACE)) < k:
                return False
        return True
    if op == OP_LINEAR:  # total / count / count vs count: a weighted sum of the counts
        value = 0
        for f in range(1, 7):
            value += codes[row, f] * packed_count(packed, f)
        for i in range(codes[row, C_NVAL]):
            if compare(value, codes[row, C_CMP], codes[row, C_VAL + i]):
                return True
        return False
    return False


@kernel(globals())
def fires(code, counts):
    """Does the trap encoded in ``code`` fire on dice with these face counts (an int array of
    length 7, counts[f] for f = 1..6, each at most 127)?"""
    return fires_packed(code.reshape((1, code.shape[0])), 0, pack_counts(counts))


@kernel(globals())
def _odds_table(codes, max_dice):
    """out[t, n] = sum over count vectors c of n dice of [trap t fires on c] * n!/(c1!..c6!) / 6^n.

    The weight is built as 6^-n C(n, c1) C(n-c1, c2) ... C(n-c1-..-c4, c5), the partial products
    shared by the nested loops.  The innermost binomials are summed exactly (integers below 2^53),
    every other term is off by a few ulp, and the sum over patterns is compensated: an entry is
    within a few ulp of the exact fraction (tests compare with ``exact_probability``)."""
    n_traps = codes.shape[0]
    out = np.zeros((n_traps, max_dice + 1))
    binom = np.zeros((max_dice + 1, max_dice + 1))
    for n in range(max_dice + 1):
        binom[n, 0] = 1.0
        for k in range(1, n + 1):
            binom[n, k] = binom[n - 1, k - 1] + (binom[n - 1, k] if k < n else 0.0)
    counts = np.zeros(7, np.int64)
    lost = np.zeros(n_traps)  # per trap: the low-order bits the running sum has dropped
    for n in range(max_dice + 1):
        scale = 1.0 / 6.0 ** n
        for c1 in range(n + 1):
            w1 = binom[n, c1] * scale
            r1 = n - c1
            for c2 in range(r1 + 1):
                w2 = w1 * binom[r1, c2]
                r2 = r1 - c2
                for c3 in range(r2 + 1):
                    w3 = w2 * binom[r2, c3]
                    r3 = r2 - c3
                    for c4 in range(r3 + 1):
                        w4 = w3 * binom[r3, c4]
                        r4 = r3 - c4
                        counts[1], counts[2], counts[3], counts[4] = c1, c2, c3, c4
                        for t in range(n_traps):
                            # the last free count, summed apart first: fewer, larger terms
                            # for the compensated sum below
                            partial = 0.0
                            for c5 in range(r4 + 1):
                                counts[5], counts[6] = c5, r4 - c5
                                if fires_packed(codes, t, pack_counts(counts)):
                                    partial += binom[r4, c5]
                            if partial == 0.0:
                                continue
                            # Neumaier's compensated sum: ~140,000 terms at 25 dice would
                            # otherwise drift by ~1e-13
                            term = w4 * partial
                            total = out[t, n] + term
                            if out[t, n] >= term:
                                lost[t] += (out[t, n] - total) + term
                            else:
                                lost[t] += (term - total) + out[t, n]
                            out[t, n] = total
        for t in range(n_traps):
            out[t, n] += lost[t]
            lost[t] = 0.0
    return out


def exact_odds(deck_codes, max_dice: int = MAX_TABLE_DICE) -> np.ndarray:
    """Exact trigger probabilities: float64 array [n_traps, max_dice + 1], entry [t, n] the chance
    trap t fires when n fair dice are on the table.  ``deck_codes``: ``Deck.codes`` (or a Deck, or
    one trap's row)."""
    codes = getattr(deck_codes, "codes", deck_codes)
    codes = np.ascontiguousarray(np.atleast_2d(np.asarray(codes, dtype=np.int64)))
    if codes.ndim != 2 or codes.shape[1] != CODE_WIDTH:
        raise BalanceError(f"trap codes must have {CODE_WIDTH} columns, got shape {codes.shape}")
    if not (0 <= int(max_dice) <= MAX_ODDS_DICE):
        raise BalanceError(f"the odds table goes from 0 up to at most {MAX_ODDS_DICE} dice, not {max_dice}")
    return _odds_table(codes, int(max_dice))
