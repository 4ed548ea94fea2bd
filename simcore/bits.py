"""Bitmask helpers for hands encoded as uint64 (bit i = deck index i).

Written with plain bit arithmetic so they behave the same compiled and under
NUMBA_DISABLE_JIT=1 (LLVM turns ``popcount`` into a single POPCNT).
"""
import platform

import numba
import numpy as np
from llvmlite import ir
from numba import njit
from numba.core import cgutils, types
from numba.core.extending import intrinsic

import simcore.jit  # noqa: F401 (before anything compiles: the cache folders and the LLVM option)

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
def ix(i):
    """An array index known to be non-negative, as uint64: Numba then leaves out the
    negative-index wrap-around it adds to every signed index (in Chimera's play loop that was
    about a third of the instructions)."""
    return np.uint64(i)


@njit(cache=True, inline="always")
def pick(flag, when_true, when_false):
    """``when_true if flag else when_false`` as arithmetic: LLVM keeps it branch-free (the
    conditions here are as good as random, a branch would be mispredicted half the time)."""
    f = np.int64(flag)
    return when_false + f * (when_true - when_false)


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
    while x:  # one step per set bit, lowest first
        low = x & -x
        out.append(low.bit_length() - 1)
        x ^= low
    return out


# --- single instructions through LLVM (compiled code only; not under NUMBA_DISABLE_JIT) ---------

def _cpu_identity() -> tuple[str, int]:
    """(vendor_id, cpu family) from /proc/cpuinfo; ("", 0) where it cannot be read."""
    vendor, family = "", 0
    try:
        for line in open("/proc/cpuinfo", encoding="utf-8"):
            key, _, value = line.partition(":")
            key = key.strip()
            if key == "vendor_id" and not vendor:
                vendor = value.strip()
            elif key == "cpu family" and not family:
                family = int(value.strip())
            if vendor and family:
                break
    except (OSError, ValueError):
        pass
    return vendor, family


def pdep_is_slow(vendor: str, family: int) -> bool:
    """AMD before Zen 3 (family 0x17 and older: Zen 1, Zen+, Zen 2, and the BMI2 parts of family
    0x15) runs PDEP in microcode, tens to hundreds of cycles depending on the mask, where the
    portable loop of ``kth_index`` is faster; Zen 3 on (family 0x19+) and Intel run it in 3 cycles."""
    return vendor == "AuthenticAMD" and family < 0x19


def _host_has_pdep() -> bool:
    if numba.config.DISABLE_JIT or platform.machine().lower() not in ("x86_64", "amd64"):
        return False
    try:
        import llvmlite.binding as llvm

        if not llvm.get_host_cpu_features().get("bmi2", False):
            return False
    except Exception:  # an unusual llvmlite: take the portable path
        return False
    return not pdep_is_slow(*_cpu_identity())


HAS_PDEP = _host_has_pdep()
"""BMI2 is there and PDEP is fast on this CPU (not AMD before Zen 3, see ``pdep_is_slow``)."""


@intrinsic
def pdep(typingctx, source, mask):
    """x86 BMI2 PDEP: the low bits of ``source`` deposited at the set bits of ``mask`` (only
    compiled where HAS_PDEP)."""
    def codegen(context, builder, signature, args):
        word = ir.IntType(64)
        fn = cgutils.get_or_insert_function(builder.module, ir.FunctionType(word, [word, word]),
                                            "llvm.x86.bmi.pdep.64")
        return builder.call(fn, args)

    return types.uint64(types.uint64, types.uint64), codegen


@intrinsic
def trailing_zeros(typingctx, x):
    """Index of the lowest set bit (LLVM cttz: TZCNT/BSF on x86, portable elsewhere)."""
    def codegen(context, builder, signature, args):
        word = ir.IntType(64)
        fn = cgutils.get_or_insert_function(builder.module, ir.FunctionType(word, [word, ir.IntType(1)]),
                                            "llvm.cttz.i64")
        return builder.call(fn, [args[0], ir.Constant(ir.IntType(1), 0)])

    return types.uint64(types.uint64), codegen


@intrinsic
def leading_zeros(typingctx, x):
    """Number of leading zero bits of a uint64 (LLVM ctlz: LZCNT/BSR on x86, portable elsewhere)."""
    def codegen(context, builder, signature, args):
        word = ir.IntType(64)
        fn = cgutils.get_or_insert_function(builder.module, ir.FunctionType(word, [word, ir.IntType(1)]),
                                            "llvm.ctlz.i64")
        return builder.call(fn, [args[0], ir.Constant(ir.IntType(1), 0)])

    return types.uint64(types.uint64), codegen


@njit(cache=True, inline="always")
def _kth_set_bit_pdep(x, k):
    return np.int64(trailing_zeros(pdep(_ONE << np.uint64(k), x)))


kth_set_bit = _kth_set_bit_pdep if HAS_PDEP else kth_index
"""The k-th lowest set bit of x (k < popcount(x)): one PDEP and one TZCNT where the CPU has BMI2,
``kth_index`` (k bit clears) elsewhere; the same answer either way."""
