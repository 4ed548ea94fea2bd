"""simcore/jit.py: ``refcounts=False`` compiles a kernel without Numba's reference counting.

The strategies' decisions and the separate play loops rely on it for their speed (a greedy
10 TRICKS LATER game 2.3x, BENCHMARKS.md 2026-11-27); Numba's ``_nrt`` flag is not public, so
this checks that it still does what the kernels assume: no NRT_incref/NRT_decref in the compiled
function, the same answer, and a callee that allocates compiles when it asks for refcounts."""
import numpy as np
import pytest

from simcore.jit import kernel


def _tally(table, rules, seat):
    # views chosen in a loop: with reference counting each takes and gives back a reference,
    # which Numba's pruning of matched pairs cannot remove across the loop
    total = 0
    view = table[seat:]
    for i in range(rules[0]):
        if view[0] > 20:
            view = table[i:]
        total += view[0]
    return total


# not cached: Numba shows no LLVM IR for code loaded from its cache
counted = kernel(globals(), cache=False)(_tally)
uncounted = kernel(globals(), refcounts=False, cache=False)(_tally)


@kernel(globals(), refcounts=True)
def _scratch_sum(n):
    scratch = np.arange(n)  # allocates: needs the runtime even when called from an uncounted caller
    return scratch.sum()


@kernel(globals(), refcounts=False)
def _calls_an_allocating_callee(table, n):
    return table[0] + _scratch_sum(n)


def _llvm(dispatcher):
    (ir,) = dispatcher.inspect_llvm().values()
    return ir


def test_refcounts_false_leaves_no_reference_counting_in_the_compiled_function():
    table = np.arange(40, dtype=np.int64) * 7
    rules = np.array([4], dtype=np.int64)
    assert counted(table, rules, 2) == uncounted(table, rules, 2) == _tally(table, rules, 2)  # plain Python
    counts = ("NRT_incref", "NRT_decref")
    assert any(name in _llvm(counted) for name in counts)  # so the check below can fail
    assert not any(name in _llvm(uncounted) for name in counts)


def test_a_callee_that_allocates_names_its_own_setting():
    assert _calls_an_allocating_callee(np.array([7], dtype=np.int64), 5) == 7 + 10


def test_an_uncounted_function_cannot_allocate():
    @kernel(globals(), refcounts=False)
    def allocates(n):
        return np.zeros(n).sum()

    with pytest.raises(Exception, match="returning of array passed into the function"):
        allocates(3)
