"""The random streams a strategy is handed (simcore/rng.py; docs/strategies.md, "What a strategy
sees"): its own seat's PLAY stream and nothing else.

* The keys and the per-seat streams are what the module documents, in the kernels and in the
  plain-Python twin the references use.
* A plug-in that records what it is handed (generated below for every game, playing exactly like
  ``random``) sees 0 in the DEAL slot at every decision, and its PLAY state is its seat's own
  stream: the attack that read every hand under the old seeding (run mix64 backwards, subtract the
  salt, get the DEAL stream) gives nothing.  The same attack on the old derivation, computed here,
  does give the DEAL stream, so the check can fail.
* Seat independence: the recorder's stream is the same before its first decision whether the other
  seats play ``random`` (drawing before it) or the strong built-in (drawing nothing), and nothing
  but its own decisions moves it between two of them.  A PLAY stream shared by the seats fails both.
* The deals are those of the commit before the per-seat streams (c615159): fingerprints of a few
  thousand opening hands, of what the DEAL stream alone decides in logged random games, and of
  every die of Sky City games with fixed declarations, hard-coded from that commit.
"""
import hashlib
import json

import numpy as np
import pytest

from simcore.registry import get_game
from simcore.rng import (
    DEAL, DUPLICATE, GOLDEN, MAX_SEATS, N_STREAMS, PLAY, ROTATION, SCENARIO_KEYS, SEAT_LABEL, PyStream, below,
    deal_and_rotation, deal_stream, py_deal_and_rotation, py_mix64, rotate_list, rotate_seats, seat_keys,
    seat_play_streams, seed_seats, seed_streams, shuffle, step_below,
)

MASK = (1 << 64) - 1
SALT = 0xD1B54A32D192ED03  # the old PLAY stream's salt (simcore/rng.py before the per-seat streams)
SEED = 20240611
GAMES = ["bird-weather", "chimera", "sky-city", "ten-tricks", "triatri"]


def unmix64(z: int) -> int:
    """mix64 run backwards (it is a bijection): xorshifts undone, multipliers inverted."""
    def unshift(y, k):
        x = y
        for _ in range(64 // k + 1):
            x = y ^ (x >> k)
        return x
    z = unshift(z, 31)
    z = (z * pow(0x94D049BB133111EB, -1, 1 << 64)) & MASK
    z = unshift(z, 27)
    z = (z * pow(0xBF58476D1CE4E5B9, -1, 1 << 64)) & MASK
    return unshift(z, 30)


def attack(play_state: int) -> int:
    """What a plug-in could do with a PLAY state under the old seeding: the state is
    mix64(mix64(seed) + SALT + index * GOLDEN), the DEAL state mix64(mix64(seed) + index * GOLDEN)."""
    return py_mix64((unmix64(play_state) - SALT) & MASK)


def test_unmix64_inverts_mix64():
    for z in (0, 1, 12345, MASK, 0x0123456789ABCDEF, *seat_keys(3).tolist()):
        assert unmix64(py_mix64(z)) == z


def test_seat_keys_are_the_documented_blake2b_digests():
    keys = seat_keys(SEED)
    assert keys.dtype == np.uint64 and keys.shape == (MAX_SEATS,)
    for s in range(MAX_SEATS):
        digest = hashlib.blake2b(SEAT_LABEL + SEED.to_bytes(8, "little") + bytes([s]), digest_size=8).digest()
        assert int(keys[s]) == int.from_bytes(digest, "little")
    assert len(set(keys.tolist())) == MAX_SEATS
    assert not np.array_equal(seat_keys(SEED + 1), keys)
    assert np.array_equal(SCENARIO_KEYS, seat_keys(0))
    keys[0] = 0                                           # a copy: the cache is not touched
    assert seat_keys(SEED)[0] != 0


@pytest.mark.parametrize("seats", [2, 5])
def test_seed_seats_and_seed_streams_match_the_python_twin(seats):
    keys = seat_keys(SEED)
    for index in (0, 1, 77, 2**40 + 3):
        rows = np.full((seats, N_STREAMS), 99, dtype=np.uint64)
        seed_seats(rows, keys, index)
        twins = seat_play_streams(SEED, index, seats)
        assert len(twins) == seats
        for s in range(seats):
            assert rows[s, DEAL] == 0                     # nothing of the game's DEAL stream
            assert int(rows[s, PLAY]) == twins[s].state == PyStream.for_seat(int(keys[s]), index).state
            assert twins[s].state == py_mix64((int(keys[s]) + index * int(GOLDEN)) & MASK)
        game = np.full(N_STREAMS, 99, dtype=np.uint64)
        seed_streams(game, SEED, index, seats)
        assert int(game[DEAL]) == PyStream(SEED, index, DEAL).state       # the deal, as before
        assert game[ROTATION] == 0                                         # an ordinary game: no turn
    # the twin draws like the compiled stream
    stream, twin = np.array([0, rows[0, PLAY]], dtype=np.uint64), PyStream.for_seat(int(keys[0]), 2**40 + 3)
    assert [below(stream, PLAY, 10) for _ in range(50)] == [twin.below(10) for _ in range(50)]


@pytest.mark.parametrize("seats", [2, 3, 5])
def test_a_duplicate_index_is_its_deal_turned_round_the_table(seats):
    """Index DUPLICATE + k at N seats is deal k // N turned k % N seats: the deal's own DEAL stream,
    the rotation in slot ROTATION, and seat s handed the PLAY stream of the seat whose hand it holds
    (s - r); rotation 0 is the ordinary game of that index, stream for stream."""
    keys = seat_keys(SEED)
    for deal in (0, 1, 9, 2**33 + 5):
        plain_rows = np.empty((seats, N_STREAMS), dtype=np.uint64)
        seed_seats(plain_rows, keys, deal)
        for rotation in range(seats):
            index = DUPLICATE + deal * seats + rotation
            assert deal_and_rotation(index, seats) == (deal, rotation) == py_deal_and_rotation(index, seats)
            game = np.full(N_STREAMS, 99, dtype=np.uint64)
            seed_streams(game, SEED, index, seats)
            assert int(game[DEAL]) == PyStream(SEED, deal, DEAL).state == deal_stream(SEED, index, seats).state
            assert int(game[ROTATION]) == rotation
            rows = np.empty((seats, N_STREAMS), dtype=np.uint64)
            seed_seats(rows, keys, index)
            twins = seat_play_streams(SEED, index, seats)
            for s in range(seats):
                holder = (s - rotation) % seats
                assert rows[s, PLAY] == plain_rows[holder, PLAY] == twins[s].state
    assert deal_and_rotation(DUPLICATE - 1, seats) == (DUPLICATE - 1, 0)   # below it: ordinary indices


@pytest.mark.parametrize("seats", [2, 4, 7])
def test_rotate_seats_moves_each_hand_r_seats_on_as_its_twin_does(seats):
    for rotation in range(seats):
        hands = np.arange(10, 10 + 8, dtype=np.uint64)     # the slots past the table stay
        game = np.array([0, rotation], dtype=np.uint64)
        rotate_seats(hands, seats, game)
        expected = rotate_list(list(range(10, 10 + seats)), rotation)
        assert hands[:seats].tolist() == expected and hands[seats:].tolist() == list(range(10 + seats, 18))
        assert all(expected[(s + rotation) % seats] == 10 + s for s in range(seats))  # seat s's hand is at s + r


def test_a_draw_held_in_a_register_and_the_shared_shuffle_are_the_streams_draws():
    """``step_below`` (a loop's generator in a local) makes ``below``'s draws, in turns with it, and
    ``shuffle`` (every game's deal) is Fisher–Yates on those draws, as the reference engines deal."""
    twin = PyStream(SEED, 7, DEAL)
    state, stream = np.uint64(twin.state), np.array([twin.state], dtype=np.uint64)
    for n in [1, 2, 3, 10, 40, 52, 2**31]:
        value, state = step_below(np.uint64(state), n)  # uint64 as in compiled code, not a Python int
        assert value == twin.below(n) == below(stream, 0, n)  # the array's stream in step too
    assert int(state) == int(stream[0]) == twin.state
    for n, first in [(40, 0), (36, 5), (2, 1), (1, 3)]:
        items = np.arange(first + n + 2, dtype=np.int64) * 3
        expected = list(items)
        twin = PyStream(SEED, n, DEAL)
        for i in range(n - 1, 0, -1):
            j = twin.below(i + 1)
            expected[first + i], expected[first + j] = expected[first + j], expected[first + i]
        stream = np.array([PyStream(SEED, n, DEAL).state], dtype=np.uint64)
        shuffle(items, first, n, stream, 0)
        assert list(items) == expected                      # the slots outside [first, first + n) untouched
        assert int(stream[0]) == twin.state                 # n - 1 draws taken


def test_the_attack_works_on_the_old_derivation_only():
    for index in range(50):
        deal = PyStream(SEED, index, DEAL).state
        assert attack(PyStream(SEED, index, PLAY).state) == deal          # the old shared PLAY stream
        for s, stream in enumerate(seat_play_streams(SEED, index, MAX_SEATS)):
            assert attack(stream.state) != deal
            assert (unmix64(stream.state) - index * int(GOLDEN)) & MASK == int(seat_keys(SEED)[s])


# ---------------------------------------------------------------------------
# A plug-in that records the streams it is handed, in its own row of ``params`` seen as uint64:
# [0] decisions + (times its PLAY state had moved since its last decision << 32), [1] the OR of
# every DEAL slot it was handed, [2] its PLAY state at its first decision, [3] its PLAY state as
# it left it.  It decides exactly as ``random`` (the built-in's own function).

RECORDER = '''"""Records the streams it is handed (tests/players/test_streams.py); decides as random does."""
import numpy as np
from numba import njit

from {module} import {imports}

GAME = "{game}"
NAME = "stream-recorder"


@njit
def before(params, seat, streams):
    row = params[seat].view(np.uint64)
    if row[0] == 0:
        row[2] = streams[1]
    elif streams[1] != row[3]:
        row[0] += np.uint64(1) << np.uint64(32)
    row[0] += np.uint64(1)
    row[1] |= streams[0]


@njit
def after(params, seat, streams):
    params[seat].view(np.uint64)[3] = streams[1]
'''

DECISION = '''

@njit
def choose_{decision}({args}):
    before(params, seat, streams)
    answer = random_{decision}({args})
    after(params, seat, streams)
    return answer
'''


@pytest.fixture(scope="module")
def recorders(tmp_path_factory):
    folder = tmp_path_factory.mktemp("recorders")
    paths = {}
    for name in GAMES:
        game = get_game(name)
        decisions = game.plugin_decisions
        text = RECORDER.format(module=game.strategies_module, game=name,
                               imports=", ".join(f"random_{d}" for d in decisions))
        text += "".join(DECISION.format(decision=d, args=args) for d, args in decisions.items())
        paths[name] = folder / f"recorder_{name.replace('-', '_')}.py"
        paths[name].write_text(text)
    return paths


def _recorded(game, setup, lineup, seat, index):
    lineup.params[seat] = 0
    game.run_chunk(setup, lineup, SEED, index, 1)
    row = lineup.params[seat].view(np.uint64)
    return {"decisions": int(row[0]) & 0xFFFFFFFF, "moved": int(row[0]) >> 32, "deal": int(row[1]),
            "first": int(row[2]), "last": int(row[3])}


@pytest.mark.fairness
@pytest.mark.parametrize("name", GAMES)
def test_a_strategy_is_handed_its_own_play_stream_only(name, recorders):
    game = get_game(name)
    players, seat = 4, 1
    setup = game.setup(players, game.variant())
    others = {"random": "random", "strong": game.strong_strategy}
    lineups = {kind: game.lineup([other] * seat + ["stream-recorder"] + [other] * (players - seat - 1), players,
                                 [recorders[name]])
               for kind, other in others.items()}
    keys = seat_keys(SEED)
    for index in range(30):
        deal = PyStream(SEED, index, DEAL).state
        own = PyStream.for_seat(int(keys[seat]), index).state
        seen = {}
        for kind, lineup in lineups.items():
            record = _recorded(game, setup, lineup, seat, index)
            assert record["decisions"] > 0, (name, kind, index)
            assert record["deal"] == 0                   # never a DEAL state, at any decision
            assert record["moved"] == 0                  # only its own decisions draw from its stream
            assert record["first"] == own                # its seat's stream, as documented
            assert attack(record["first"]) != deal       # the old attack gives nothing
            seen[kind] = record["first"]
        # common random numbers: the same stream whether the others drew before it or not
        assert seen["random"] == seen["strong"]
        # what the old kernels handed every seat: the shared PLAY stream, which the attack breaks
        assert attack(PyStream(SEED, index, PLAY).state) == deal


# ---------------------------------------------------------------------------
# The deals did not change (fingerprints from c615159, before the per-seat streams)

OPENINGS = 3000
LOGGED = 300
DEALS_BEFORE = {
    "bird-weather/3/openings": "8f569436246156de",
    "bird-weather/3/random-logs": "c3deb8260b42bd5a",
    "bird-weather/4/openings": "c01f15f011593a2b",
    "bird-weather/4/random-logs": "eae9859fafae4681",
    "bird-weather/5/openings": "14a67174446585e6",
    "bird-weather/5/random-logs": "ec0f4bf6d89aa252",
    "chimera/3/openings": "b7599a1d1a61fb8f",
    "chimera/3/random-logs": "0be8d467a14790a7",
    "chimera/4/openings": "c01f15f011593a2b",
    "chimera/4/random-logs": "2939ddccace5feeb",
    "sky-city/3/random-logs": "21d0765bb73fb220",
    "sky-city/3/fixed-dice": "8d7b1a21407191ec",
    "sky-city/4/random-logs": "22034e2f37afc1bc",
    "sky-city/4/fixed-dice": "aa91facaec4a592a",
    "sky-city/5/random-logs": "8cad48962ca1ddf2",
    "sky-city/5/fixed-dice": "b686edc453c27ca3",
    "ten-tricks/3/openings": "7a9df98352b17bc9",
    "ten-tricks/3/random-logs": "74bad46b77060081",
    "ten-tricks/4/openings": "c01f15f011593a2b",
    "ten-tricks/4/random-logs": "d92004304f27fd98",
    "triatri/2/openings": "8a1c9b59985aa4e0",
    "triatri/2/random-logs": "ef4d13c54a3c8f3b",
    "triatri/3/openings": "afe4ac4f7cba2513",
    "triatri/3/random-logs": "69c293ecb1c36f26",
    "triatri/4/openings": "b6963b9a5a2572b2",
    "triatri/4/random-logs": "65b90504c8bf0fe7",
}


def _digest(value) -> str:
    data = np.ascontiguousarray(value).tobytes() if isinstance(value, np.ndarray) else json.dumps(value).encode()
    return hashlib.sha256(data).hexdigest()[:16]


def _dealt_only(name, setup, log):
    """What in a logged game the DEAL stream alone decides, whoever plays and however."""
    if name == "bird-weather":                       # every deal: a shuffle of fixed size
        return [deal["hands"] for deal in log["deals"]]
    if name == "chimera":                            # the deal, the boxed cards, every round's pile
        return [log["hands"], log["boxed_familiars"], log["boxed_grimoires"],
                [r["grimoires"] for r in log["rounds"]]]
    if name == "sky-city":                           # the traps up to the first reshuffle (R_TRAPS = 6)
        return [r["trap"] for r in log["rounds"][:int(setup.rules[6])]]
    if name == "ten-tricks":                         # round 0: the colour drawn out and the deal
        return [log["rounds"][0]["removed_colour"], log["rounds"][0]["hands"]]
    return log["rounds"][0]["deals"][0]["hands"]     # triatri: round 0's first deal


@pytest.mark.parametrize("name", GAMES)
def test_the_deals_are_those_of_before_the_per_seat_streams(name):
    game = get_game(name)
    # The digests were taken under the rules of their day. ALEA's escapes have since changed
    # (every escaper rerolls, docs/rules/sky-city-of-alea.md A3), which draws more dice from
    # DEAL and so moves later traps; the old reading is kept as a variant, and under it the
    # streams must still give the very deals of before.
    overrides = {"first_failure_ends_escapes": True} if name == "sky-city" else None
    for players in game.player_counts:
        setup = game.setup(players, game.variant(overrides=overrides))
        key = f"{name}/{players}"
        if game.card_of_bit(setup) is not None:
            masks = game.opening_masks(setup, SEED, np.arange(OPENINGS, dtype=np.int64))
            assert _digest(masks) == DEALS_BEFORE[key + "/openings"], key
        logs = game.kernel_logs(setup, game.lineup("random", players), SEED, range(LOGGED))
        assert _digest([_dealt_only(name, setup, log) for log in logs]) == DEALS_BEFORE[key + "/random-logs"], key
        if name == "sky-city":                       # fixed declarations draw nothing: every die is DEAL's
            logs = game.kernel_logs(setup, game.lineup("fixed:2", players), SEED, range(LOGGED))
            dice = [[(r["trap"], r["dice"]) for r in log["rounds"]] for log in logs]
            assert _digest(dice) == DEALS_BEFORE[key + "/fixed-dice"], key
