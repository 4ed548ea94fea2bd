"""What every game's compiled play loop shares: the blocks a chunk is played in and the threads
that play them, the game statuses the driver reads, and the script cursor of scenario replays
(``balance play``).

A chunk's games are played in blocks of BLOCK games.  Each game's compiled ``run_chunk(first,
last, ...)`` plays blocks first..last-1 of the chunk without holding the GIL, and ``on_threads``
runs a few such spans per thread at once.  (Numba's ``prange`` did this before; a parallel
function costs about 6 s more to compile than a plain one, for every game and every plug-in
build, and it has to be compiled again for every plug-in while the thread pool here does not.)
Each game writes only its own row, so the rows are the same for any thread count or span.

A scenario replays a list of decisions; a game's loop asks ``scripted`` before its strategy.
The cursor lives in slot 0 of the loop's per-block ``work`` array (no allocation per game)."""
from concurrent.futures import ThreadPoolExecutor

from simcore.jit import kernel

BLOCK = 256  # games per block; per-block scratch keeps the game loop allocation-free
SPANS_PER_THREAD = 4  # a thread that meets long games does not hold the others up for long

_threads: int | None = None  # set_play_threads; None: as many as Numba may use
_pools: dict[int, ThreadPoolExecutor] = {}


def set_play_threads(threads: int | None) -> None:
    """How many threads play a chunk (``--threads``; None: every core Numba may use)."""
    global _threads
    _threads = threads


def play_threads() -> int:
    import numba

    return _threads or numba.config.NUMBA_NUM_THREADS


def block_spans(n_games: int) -> list[tuple[int, int]]:
    """The chunk's blocks as spans [first, last): one span on one thread (or a chunk of one
    block), else SPANS_PER_THREAD spans per thread."""
    n_blocks = (n_games + BLOCK - 1) // BLOCK
    threads = play_threads()
    if threads <= 1 or n_blocks <= 1:
        return [(0, n_blocks)]
    per = max(1, -(-n_blocks // (threads * SPANS_PER_THREAD)))
    return [(first, min(n_blocks, first + per)) for first in range(0, n_blocks, per)]


def on_threads(calls) -> None:
    """Run ``calls`` (each a compiled ``run_chunk`` over one span, which releases the GIL) on
    ``play_threads()`` threads and wait for all of them; the first error is raised.  One call
    runs here, on this thread."""
    if len(calls) == 1:
        calls[0]()
        return
    threads = play_threads()
    if threads not in _pools:
        _pools[threads] = ThreadPoolExecutor(threads, thread_name_prefix="balance-play")
    futures = [_pools[threads].submit(call) for call in calls]
    for future in futures:
        future.result()

# a game's status: finished, a strategy broke the rules (only a plug-in can: the check is one
# bit test per decision), a scenario's script ended before the game did, or (>= 0) the scripted
# step that was illegal
FINISHED = -1
STRATEGY_BROKE_RULES = -2
UNFINISHED = -3

SCRIPT_CURSOR = 0  # work[SCRIPT_CURSOR]: how many scripted decisions have been used


@kernel(globals(), inline="always")
def scripted(script, work):
    """The next scripted decision, or -1 when the script is used up (then the strategy decides)."""
    if work[SCRIPT_CURSOR] < script.shape[0]:
        work[SCRIPT_CURSOR] += 1
        return script[work[SCRIPT_CURSOR] - 1]
    return -1


@kernel(globals(), inline="always")
def withhold(legal, withheld):
    """The legal cards without the ``withheld`` ones (a deck-index bitmask, the rules slot
    R_WITHHELD of a card game: ``balance cards --cause``), unless nothing else is legal.  With
    nothing withheld (every ordinary run) it returns ``legal`` itself."""
    rest = legal & ~withheld
    return rest if rest != 0 else legal


@kernel(globals(), inline="always")
def withhold_slots(m0, m1, withheld):
    """``withhold`` for a game whose moves are (card, slot) pairs, one legal mask per slot
    (Chimera Tricks): a withheld card leaves both slots while any other move is legal."""
    rest0 = m0 & ~withheld
    rest1 = m1 & ~withheld
    if (rest0 | rest1) != 0:
        return rest0, rest1
    return m0, m1
