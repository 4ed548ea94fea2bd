"""How far a Numba ``prange`` loop scales on this machine, beside the play loop (BENCHMARKS.md,
"Chunks side by side"; issue 36 item 2 quotes 14.2x, 5.6x and 8.5x on a 16-core Xeon):

    python tools/scaling_floor.py [GAMES]

times, at 1 thread and at all threads (best of 5, 262,144-game chunks, GAMES in all):

- a compute-bound loop (a xorshift stream per game, nothing written but one sum per block);
- the same loop writing 92 bytes a game into fresh arrays each chunk (a BIRD & WEATHER row:
  the page faults of new memory), and into arrays reused from chunk to chunk;
- BIRD & WEATHER's play loop (``simcore.bench_scale.loop_seconds``: fresh outputs, freed pages kept).

and prints each one's speed-up."""
import os
import sys
import time

sys.path.insert(0, os.getcwd())
import numba  # noqa: E402
import numpy as np  # noqa: E402

from simcore.bench_scale import loop_seconds  # noqa: E402
from simcore.driver import DEFAULT_CHUNK, set_threads  # noqa: E402
from simcore.registry import get_game  # noqa: E402

STEPS = 400  # xorshift steps a game: about the play loop's time per game on one thread


@numba.njit(inline="always")
def game_work(index):
    """A game's stand-in: STEPS xorshift steps from its index."""
    x = np.uint64(index + 1) * np.uint64(0x9E3779B97F4A7C15)
    for _ in range(STEPS):
        x ^= x << np.uint64(13)
        x ^= x >> np.uint64(7)
        x ^= x << np.uint64(17)
    return x


@numba.njit(parallel=True, cache=True)
def compute(start, n, sink):
    blocks = (n + 255) // 256
    for b in numba.prange(blocks):
        total = np.uint64(0)
        for i in range(b * 256, min(n, b * 256 + 256)):
            total += game_work(start + i)
        sink[b] = total


@numba.njit(parallel=True, cache=True)
def compute_rows(start, n, rows):
    blocks = (n + 255) // 256
    for b in numba.prange(blocks):
        for i in range(b * 256, min(n, b * 256 + 256)):
            x = game_work(start + i)
            for k in range(rows.shape[1]):
                rows[i, k] = np.int16(x >> np.uint64(k))


def timed(f, threads, games):
    set_threads(threads)
    best = 1e9
    for _ in range(5):
        started = time.perf_counter()
        f(games)
        best = min(best, time.perf_counter() - started)
    return best


def run_compute(games):
    sink = np.empty((DEFAULT_CHUNK + 255) // 256, dtype=np.uint64)
    for start in range(0, games, DEFAULT_CHUNK):
        compute(start, min(DEFAULT_CHUNK, games - start), sink)


def run_fresh(games):
    for start in range(0, games, DEFAULT_CHUNK):
        rows = np.empty((DEFAULT_CHUNK, 46), dtype=np.int16)  # 92 bytes a game, new pages each chunk
        compute_rows(start, min(DEFAULT_CHUNK, games - start), rows)
        del rows


REUSED = np.empty((DEFAULT_CHUNK, 46), dtype=np.int16)


def run_reused(games):
    for start in range(0, games, DEFAULT_CHUNK):
        compute_rows(start, min(DEFAULT_CHUNK, games - start), REUSED)


if __name__ == "__main__":
    games = int(sys.argv[1]) if len(sys.argv) > 1 else 4_000_000
    many = numba.config.NUMBA_NUM_THREADS
    run_compute(1024), run_fresh(1024), run_reused(1024)

    def play_loop(g):
        return loop_seconds(game, setup, lineup, g, numba.get_num_threads())

    # the fresh rows first: the play loop's first chunk tells glibc to keep freed pages, for good
    cases = [("compute-bound prange", run_compute), ("writing fresh rows", run_fresh),
             ("writing reused rows", run_reused), ("BIRD & WEATHER play loop", play_loop)]
    for label, f in cases:
        if f is play_loop:
            game = get_game("bird-weather")
            setup = game.setup(4, game.variant())
            lineup = game.lineup("random", 4)
            game.run_chunk(setup, lineup, 0, 0, 64)
        one, all_ = timed(f, 1, games), timed(f, many, games)
        print(f"{label:26s} 1 thread {one:.3f} s, {many} threads {all_:.3f} s: {one / all_:.2f}x", flush=True)
