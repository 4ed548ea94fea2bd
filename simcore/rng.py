"""Per-game random streams: the game's own DEAL stream, and one PLAY stream per seat.

Every game draws its randomness from small explicit streams seeded from (run seed, game index).
Nothing depends on the thread that runs the game, the chunk it falls in or the machine, so a run
is bit-identical for any ``--threads`` / ``--chunk-size``, and two strategy line-ups given the
same seed meet the same deals (common random numbers).

The generator is SplitMix64 (Steele, Lea & Flood 2014): a 64-bit counter advanced by the
golden-ratio increment and passed through a strong mixer.  It is tiny (one uint64 of state),
passes BigCrush, and is easy to reproduce in plain Python for the reference engines
(:class:`PyStream`).

Bounded draws use Lemire's multiply-shift on the top 32 bits: ``below(n) = (top32 * n) >> 32``.
Its bias is at most n / 2**32 (< 2e-8 for the n <= 64 used here), far below anything a balance
run can detect, and it needs no rejection loop, which keeps the two implementations in lock-step.

Two kinds of stream, in two different arrays (slot ids DEAL = 0, PLAY = 1):

* **The game's own** (``seed_streams(streams, seed, index, n_players)``): slot DEAL, state
  ``mix64(mix64(seed) + index * GOLDEN)``, for shuffling and the rules' own chance events (dice,
  tie-breaks).  Only the play loop holds this array; no strategy is ever handed it.  Its PLAY slot
  is 0 and unused.  Keeping DEAL apart from the players means the deal of game i does not depend
  on who is playing it.
* **One per seat** (``seed_seats(seat_streams, keys, index)``): row s of ``seat_streams``
  (uint64[seats, N_STREAMS]) is what the strategy at seat s is handed as ``streams``.  Its DEAL
  slot is 0 (nothing); its PLAY slot starts at ``mix64(keys[s] + index * GOLDEN)``, where
  ``keys = seat_keys(seed)`` is computed once per run in plain Python as
  ``blake2b(SEAT_LABEL || seed (8 bytes, little-endian) || s (1 byte), 8-byte digest)``.

Why the keys go through a cryptographic hash: SplitMix64 runs backwards (mix64 is a bijection
with a known inverse), so from any stream state a strategy could recover the pre-image it was
seeded from.  Under the old seeding (one PLAY stream shared by every seat, state
``mix64(mix64(seed) + SALT + index * GOLDEN)``) that pre-image minus the salt *was* the DEAL
stream's pre-image: a plug-in could replay the shuffle and read every hand.  Now the pre-image
of a seat's PLAY state is ``keys[s] + index * GOLDEN``, and ``keys[s]`` is a BLAKE2b digest:
it does not lead back to the seed (and so not to DEAL), nor to another seat's key, so a seat can
neither replay the deal nor foresee another seat's random draws.  And since each seat draws from
its own stream, seat s's sequence of draws does not depend on what the other seats draw: a
seat's random player draws the same sequence of numbers whoever sits beside it (common random
numbers between line-ups).  The run seed itself is public (it is in every result's metadata); what is guaranteed
is that nothing a strategy is handed leads back to it.

**Duplicate deals.** A game index from ``DUPLICATE`` (2**62) on names a deal and a rotation: index
``DUPLICATE + k`` at N seats is deal ``k // N`` turned ``k % N`` seats round the table
(``deal_and_rotation``), as in duplicate bridge.  Its DEAL stream is deal ``k // N``'s
(``seed_streams`` of that index), so every rotation shuffles the same cards; the game keeps the
rotation r in the unused slot of its own array (``streams[ROTATION]``), and each game's deal moves
seat s's hand to seat s + r (``rotate_seats``), every round of a game alike.  Seat s's PLAY stream
is the one of the seat whose hand it holds, ``keys[(s - r) % N]`` (``seed_seats``), so a random
player holding a hand draws what it drew with that hand at rotation 0.  Rotation 0 of deal d is
game d of the ordinary indices, draw for draw.  The chance the rules draw after the deal (a
turned-up card, a tie broken) comes from the same DEAL stream in every rotation; what a game
does where a draw names a seat is in its docs/rules page.
"""
import hashlib
from functools import lru_cache

import numpy as np
from numba import njit

import simcore.jit  # noqa: F401 (before anything compiles: the cache folders and the LLVM option)
from simcore.registry import DUPLICATE  # the first game index of the duplicate deals (module docstring)

GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_STREAM_SALT = np.uint64(0xD1B54A32D192ED03)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)

DEAL = 0
PLAY = 1
N_STREAMS = 2
ROTATION = PLAY  # the game's own array has no PLAY stream: that slot holds its deal's rotation
MAX_SEATS = 8  # seat_keys' length: at least every game's MAX_PLAYERS
SEAT_LABEL = b"balance: the PLAY stream of one seat, v1"  # fixed; changing it changes every random draw
_MASK = (1 << 64) - 1


def seat_keys(seed: int) -> np.ndarray:
    """uint64[MAX_SEATS]: the keys of the seats' PLAY streams for run ``seed`` (module docstring);
    computed in plain Python, once per run or batch, and handed to the compiled entry points."""
    return np.array(_seat_keys(int(seed) & _MASK), dtype=np.uint64)


@lru_cache(maxsize=256)
def _seat_keys(seed: int) -> tuple[int, ...]:
    return tuple(int.from_bytes(hashlib.blake2b(SEAT_LABEL + seed.to_bytes(8, "little") + bytes([s]),
                                                digest_size=8).digest(), "little")
                 for s in range(MAX_SEATS))


SCENARIO_SEED = 0
SCENARIO_KEYS = seat_keys(SCENARIO_SEED)
"""The seat keys of the scenarios that have no seed of their own (``balance play`` of every game but
BIRD & WEATHER, whose scenarios take a ``seed``): game 0 of run 0, as before the keys existed.  The
games on the one contract are handed it (their ``kernel_position``: ``run = (SCENARIO_SEED,
SCENARIO_KEYS)``); ALEA's compiled ``play_scenario`` reads it as a constant."""


@njit(cache=True, inline="always")
def mix64(z):
    z = (z ^ (z >> np.uint64(30))) * _M1
    z = (z ^ (z >> np.uint64(27))) * _M2
    return z ^ (z >> np.uint64(31))


@njit(cache=True, inline="always")
def deal_and_rotation(index, n_players):
    """(deal, rotation) of game ``index`` at ``n_players`` seats: (index, 0) below ``DUPLICATE``;
    from it on, index DUPLICATE + k is deal k // n_players, turned k % n_players seats."""
    i = np.int64(index)
    if i >= np.int64(DUPLICATE):
        k = i - np.int64(DUPLICATE)
        return k // n_players, k % n_players
    return i, np.int64(0)


@njit(cache=True, inline="always")
def seed_streams(streams, seed, index, n_players):
    """Fill the game's own ``streams`` (uint64[N_STREAMS]) for game ``index`` at ``n_players``
    seats: DEAL (its deal's: ``deal_and_rotation``) and the rotation in slot ROTATION."""
    deal, rotation = deal_and_rotation(index, n_players)
    streams[DEAL] = mix64(mix64(np.uint64(seed)) + np.uint64(deal) * GOLDEN)
    streams[ROTATION] = np.uint64(rotation)


@njit(cache=True, inline="always")
def seed_seats(seat_streams, keys, index):
    """Fill ``seat_streams`` (uint64[seats, N_STREAMS]) for game ``index``: row s is what seat s
    is handed, DEAL slot 0 and PLAY slot ``mix64(keys[s] + index * GOLDEN)``; in a duplicate
    deal turned r seats, the deal's index and the key of the seat whose hand s holds,
    ``keys[(s - r) % seats]``."""
    seats = seat_streams.shape[0]
    deal, rotation = deal_and_rotation(index, seats)
    step = np.uint64(deal) * GOLDEN
    if rotation == 0:  # every ordinary game: the loop as it was before duplicate deals
        for s in range(seats):
            seat_streams[s, DEAL] = 0
            seat_streams[s, PLAY] = mix64(keys[s] + step)
        return
    holder = seats - rotation  # whose hand seat 0 holds, less a turn of the table (no division a seat)
    for s in range(seats):
        if holder == seats:
            holder = 0
        seat_streams[s, DEAL] = 0
        seat_streams[s, PLAY] = mix64(keys[holder] + step)
        holder += 1


@njit(cache=True, inline="always")
def seed_game(streams, seat_streams, seed, keys, index):
    """Seed game ``index`` of run ``seed``: the game's own DEAL stream (``seed_streams``) and the
    seats' PLAY streams (``seed_seats``; ``keys`` = ``seat_keys(seed)``)."""
    seed_streams(streams, seed, index, seat_streams.shape[0])
    seed_seats(seat_streams, keys, index)


@njit(cache=True, inline="always")
def rotate_seats(hands, n_players, streams):
    """Move seat s's dealt hand to seat s + r, r the deal's rotation (``streams[ROTATION]``, 0
    outside duplicate deals: then nothing moves).  In place, one seat at a time (at most 7 x 8
    moves a deal)."""
    for _ in range(np.int64(streams[ROTATION])):
        last = hands[n_players - 1]
        for s in range(n_players - 1, 0, -1):
            hands[s] = hands[s - 1]
        hands[0] = last


@njit(cache=True, inline="always")
def scenario_streams(n_players):
    """The game's streams and the seats' of a scenario that has no seed of its own: game 0 of run
    0, the seats keyed by SCENARIO_KEYS (a constant to the compiled code)."""
    streams = np.empty(N_STREAMS, dtype=np.uint64)
    seed_streams(streams, 0, 0, n_players)
    seat_streams = np.empty((n_players, N_STREAMS), dtype=np.uint64)
    seed_seats(seat_streams, SCENARIO_KEYS, 0)
    return streams, seat_streams


@njit(cache=True, inline="always")
def next_u64(streams, k):
    s = streams[k] + GOLDEN
    streams[k] = s
    return mix64(s)


@njit(cache=True, inline="always")
def step_below(state, n):
    """(uniform integer in [0, n), the state after): one draw of a generator held in a local
    variable, which a loop of many draws keeps in a register (a deal's shuffle, a search's
    playout); ``below`` is the same draw through the stream array, so the two can take turns on
    one sequence.  Drawing through the array in such a loop costs a store and a reload per draw:
    the compiler cannot tell the array's slot from the arrays the loop writes."""
    state += GOLDEN
    return np.int64(((mix64(state) >> np.uint64(32)) * np.uint64(n)) >> np.uint64(32)), state


@njit(cache=True, inline="always")
def shuffle(items, first, n, streams, k):
    """Fisher–Yates on items[first : first + n] from stream k: for i from n - 1 down to 1, the item
    at i swaps with the one at ``below(streams, k, i + 1)``.  Every game deals with it; the
    generator stays in a register for the whole shuffle (``step_below``) and the indices are
    unsigned (no test for Python's negative indices)."""
    state = streams[k]
    for i in range(n - 1, 0, -1):
        j, state = step_below(state, i + 1)
        a = np.uint64(first + i)
        b = np.uint64(first + j)
        items[a], items[b] = items[b], items[a]
    streams[k] = state


@njit(cache=True, inline="always")
def below(streams, k, n):
    """Uniform integer in [0, n) from stream k (n >= 1).  Not written with ``step_below``: that
    form (the state through a tuple) made ALEA's dice, one draw at a time, 2.2x slower (480k ->
    216k random games/s, 620bdb4); the generated code's cause was not looked for."""
    return np.int64(((next_u64(streams, k) >> np.uint64(32)) * np.uint64(n)) >> np.uint64(32))


@njit(cache=True, inline="always")
def below_in_row(streams, row, k, n):
    """``below(streams[row], k, n)`` without making the row a view of its own: a view of a 2-D
    array costs a reference count taken and given back (two atomic operations), which in a play
    loop's innermost step outweighs the draw itself.  The same draw, the same stream state after."""
    s = streams[row, k] + GOLDEN
    streams[row, k] = s
    return np.int64(((mix64(s) >> np.uint64(32)) * np.uint64(n)) >> np.uint64(32))


@njit(cache=True, inline="always")
def uniform(streams, k):
    """Uniform float in [0, 1) with 53 random bits."""
    return np.float64(next_u64(streams, k) >> np.uint64(11)) * (1.0 / 9007199254740992.0)


# ---------------------------------------------------------------------------
# The same streams in plain Python, for the reference engines and for tests.


def py_mix64(z: int) -> int:
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
    return z ^ (z >> 31)


class PyStream:
    """One SplitMix64 stream; identical draws to the compiled ``streams[k]``.

    ``PyStream(seed, index, DEAL)`` is the game's DEAL stream (``seed_streams``);
    ``PyStream.for_seat(keys[s], index)`` is seat s's PLAY stream (``seed_seats``, with
    ``keys = seat_keys(seed)``; ``seat_play_streams`` makes every seat's).  ``PyStream(seed, index,
    PLAY)`` is the old shared PLAY stream, which nothing plays from any more (tests use it as a
    plain stream)."""

    def __init__(self, seed: int, index: int, stream: int):
        base = py_mix64(seed & _MASK)
        self.state = py_mix64(
            (base + stream * int(_STREAM_SALT) + index * int(GOLDEN)) & _MASK
        )

    @classmethod
    def for_seat(cls, key: int, index: int) -> "PyStream":
        """The PLAY stream of the seat whose key is ``key`` (an element of ``seat_keys(seed)``) in
        game ``index``."""
        stream = cls.__new__(cls)
        stream.state = py_mix64((int(key) + index * 0x9E3779B97F4A7C15) & _MASK)
        return stream

    def next_u64(self) -> int:
        self.state = (self.state + 0x9E3779B97F4A7C15) & _MASK
        return py_mix64(self.state)

    def below(self, n: int) -> int:
        return ((self.next_u64() >> 32) * n) >> 32

    def uniform(self) -> float:
        return (self.next_u64() >> 11) / 9007199254740992.0


def seat_play_streams(seed: int, index: int, seats: int) -> list[PyStream]:
    """Seats 0..seats-1's PLAY streams in game ``index`` of run ``seed``: what the reference
    engines' random players draw from (``streams[s]`` for seat s); in a duplicate deal, the
    deal's streams moved with the hands (``seed_seats``)."""
    deal, rotation = py_deal_and_rotation(index, seats)
    return rotate_list([PyStream.for_seat(key, deal) for key in _seat_keys(int(seed) & _MASK)[:seats]], rotation)


def py_deal_and_rotation(index: int, players: int) -> tuple[int, int]:
    """``deal_and_rotation`` in plain Python."""
    if index >= DUPLICATE:
        return divmod(index - DUPLICATE, players)
    return index, 0


def deal_stream(seed: int, index: int, players: int) -> PyStream:
    """Game ``index``'s DEAL stream at ``players`` seats: its deal's (``seed_streams``)."""
    return PyStream(seed, py_deal_and_rotation(index, players)[0], DEAL)


def rotate_list(items: list, rotation: int) -> list:
    """``rotate_seats`` of a list of per-seat items: item s moves to s + rotation."""
    items = list(items)
    return items[len(items) - rotation:] + items[:len(items) - rotation]
