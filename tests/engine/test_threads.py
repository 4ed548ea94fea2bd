"""simcore/threads.py: a chunk's games shared among threads give the rows (and the tallies) of one
thread, for every game's serial play loop."""
import numba
import numpy as np
import pytest

from simcore.registry import get_game
from simcore.threads import MIN_GAMES_A_THREAD, share_out


def test_shares_cover_every_game_once_and_tallies_add_up():
    n = 5 * MIN_GAMES_A_THREAD + 3
    rows = np.zeros(n, dtype=np.int64)
    tally = np.zeros(4, dtype=np.int64)
    seen = []

    def run(first, last, into):
        seen.append((first, last))
        own_rows, own_tally = into
        own_rows[first:last] += np.arange(first, last)
        own_tally[first % 4] += last - first

    before = numba.get_num_threads()
    try:
        numba.set_num_threads(min(2, numba.config.NUMBA_NUM_THREADS))
        share_out(run, n, (rows, tally), tallies=(1,))
    finally:
        numba.set_num_threads(before)
    assert sorted(seen)[0][0] == 0 and sorted(seen)[-1][1] == n
    assert sum(last - first for first, last in seen) == n
    assert (rows == np.arange(n)).all()  # each row written by exactly one share
    assert tally.sum() == n  # every share's own tally added into the chunk's


def test_a_small_chunk_is_one_share():
    seen = []
    share_out(lambda first, last, into: seen.append((first, last)), MIN_GAMES_A_THREAD - 1, ())
    assert seen == [(0, MIN_GAMES_A_THREAD - 1)]


@pytest.mark.skipif(numba.config.NUMBA_NUM_THREADS < 2, reason="needs two threads")
@pytest.mark.parametrize("name,players,strategies", [
    ("sky-city", 3, "expected-value"),  # with the trap tallies summed over the threads
    ("bird-weather", 4, "heuristic"),
    ("triatri", 3, "random"),
    ("examples/games/hearts.toml", 4, "random"),
])
def test_one_chunk_on_two_threads_is_the_chunk_on_one(name, players, strategies):
    game = get_game(name)
    setup = game.setup(players, game.variant(None))
    lineup = game.lineup(strategies, players)
    out = {}
    before = numba.get_num_threads()
    try:
        for threads in (1, 2):
            numba.set_num_threads(threads)
            out[threads] = (game.run_chunk(setup, lineup, 9, 40, 4 * MIN_GAMES_A_THREAD), game.take_tallies())
    finally:
        numba.set_num_threads(before)
    (rows_1, tallies_1), (rows_2, tallies_2) = out[1], out[2]
    assert rows_1.keys() == rows_2.keys()
    for column in rows_1:
        assert np.array_equal(rows_1[column], rows_2[column]), column
    assert tallies_1 == tallies_2
    if name == "sky-city":
        assert sum(map(sum, tallies_1["judged"])) > 0  # the tallies were counted at all
