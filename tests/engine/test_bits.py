"""simcore/bits.py: the bit helpers the kernels pick cards with, on both paths.

``kth_set_bit`` is one PDEP and one TZCNT where the CPU has BMI2 and ``kth_index`` (a loop of bit
clears) elsewhere; both are checked here against plain Python on random masks, so the portable
fallback is tested on every machine, PDEP wherever the CPU has it."""
import numpy as np
from numba import njit

from simcore import bits
from simcore.registry import get_game


@njit(cache=True)
def _kth_all(masks, ks, out):
    for i in range(masks.shape[0]):
        out[0, i] = bits.kth_index(masks[i], ks[i])
        out[1, i] = bits.lowest_index(masks[i])
        out[2, i] = bits.highest_index(masks[i])
        out[3, i] = bits.popcount(masks[i])
        out[4, i] = bits.kth_set_bit(masks[i], ks[i])
        out[5, i] = np.int64(bits.trailing_zeros(masks[i]))
        out[6, i] = 63 - np.int64(bits.leading_zeros(masks[i]))


def _masks(n=3000, seed=5):
    rng = np.random.default_rng(seed)
    masks = rng.integers(1, 2**63, size=n, dtype=np.int64).astype(np.uint64)
    masks[: n // 3] &= rng.integers(1, 2**20, size=n // 3).astype(np.uint64)  # sparse ones too
    masks[: n // 3] |= np.uint64(1) << rng.integers(0, 64, size=n // 3).astype(np.uint64)  # the top bit too
    return masks, rng


def test_kth_set_bit_and_the_portable_fallback_match_plain_python():
    masks, rng = _masks()
    ks = np.array([rng.integers(0, bin(int(m)).count("1")) for m in masks], dtype=np.int64)
    out = np.zeros((7, len(masks)), dtype=np.int64)
    _kth_all(masks, ks, out)
    for i, m in enumerate(masks):
        on = bits.mask_to_list(m)
        assert out[0, i] == on[ks[i]] == out[4, i]  # fallback and the chosen path (PDEP where BMI2)
        assert out[1, i] == on[0] == out[5, i]
        assert out[2, i] == on[-1] == out[6, i]
        assert out[3, i] == len(on)


def test_pdep_path_matches_the_fallback_where_the_cpu_has_bmi2():
    if not bits.HAS_PDEP:  # no BMI2 here: kth_set_bit *is* the fallback, tested above
        assert bits.kth_set_bit is bits.kth_index
        return
    masks, rng = _masks(seed=9)
    for m in masks[:500]:
        n = bin(int(m)).count("1")
        for k in (0, n - 1, int(rng.integers(0, n))):
            assert bits._kth_set_bit_pdep(m, k) == bits.kth_index(m, k) == bits.mask_to_list(m)[k]


def test_plays_per_game_counts_every_card_of_every_trick():
    """`balance bench`'s plays per game come from the kernel's own logs: BIRD & WEATHER plays
    every trick of every deal (deals x tricks x players cards); ALEA counts the dice rolled."""
    game = get_game("bird-weather")
    for players in (3, 4, 5):
        setup = game.setup(players, game.variant())
        plays = game.plays_per_game(setup, game.lineup("random", players), 1000, 50)
        assert plays == setup.deals * setup.tricks * players
    alea = get_game("sky-city")
    setup = alea.setup(4, alea.variant())
    logs = alea.kernel_logs(setup, alea.lineup("random", 4), 1000, range(20))
    dice = sum(len(r["dice"]) for log in logs for r in log["rounds"])
    assert alea.plays_in_log(setup, logs[0]) == sum(len(r["dice"]) for r in logs[0]["rounds"]) > 0
    assert alea.plays_per_game(setup, alea.lineup("random", 4), 1000, 20) == dice / 20


def test_pdep_is_left_out_where_it_is_microcoded():
    """AMD before Zen 3 runs PDEP in microcode (slower than the loop): HAS_PDEP stays false there."""
    assert bits.pdep_is_slow("AuthenticAMD", 0x17)  # Zen 1, Zen+, Zen 2
    assert bits.pdep_is_slow("AuthenticAMD", 0x15)  # Excavator
    assert not bits.pdep_is_slow("AuthenticAMD", 0x19)  # Zen 3, Zen 4
    assert not bits.pdep_is_slow("AuthenticAMD", 0x1A)  # Zen 5
    assert not bits.pdep_is_slow("GenuineIntel", 6)
    vendor, family = bits._cpu_identity()
    if bits.HAS_PDEP:
        assert not bits.pdep_is_slow(vendor, family)
