"""What every game's compiled play loop shares: the entry points, written once for all games; the
game statuses the driver reads; the script cursor of scenario replays (``balance play``) and the
withholding of cards (``cards --cause``).  A chunk's games are shared among threads by
simcore/threads.py.

The contract (docs/architecture.md, "Adding a game").  A game's kernel module defines its
scratch ``State`` (a namedtuple of arrays, made by its ``new_state(given, logged)``) and these
functions on it:

    play_game(state, run, index, given, lineup)   plays game ``index`` of the run; its status
    keep_row(state, given, outputs, g)            a played game's row g of a chunk's outputs
    keep_log(state, given, buffers, k)            a logged game's log into row k of the buffers
    deal_first(state, run, index, given)          deals game ``index``'s first hands into the state
    play_position(state, run, position, given, lineup, script)
                                                  plays a position set in the state (``balance
                                                  play``; a game whose scenarios the reference
                                                  plays alone has none)

``run`` is ``(seed, keys)`` (``keys = seat_keys(seed)``, simcore/rng.py), ``given`` the game's
rules-in-force arrays (``Game.kernel_inputs``), ``lineup`` ``(ids, params)``.  The entry points
that call them are written once, below, and compiled in each game's kernel module
(``entry_points``).  The templates read no global but those five names.

A scenario replays a list of decisions; a game's loop asks ``scripted`` before its strategy.
The cursor lives in slot 0 of the loop's per-thread ``work`` array (no allocation per game)."""
import numpy as np

from simcore.jit import kernel

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
    return rest | (legal & (np.uint64(0) - np.uint64(rest == 0)))  # a select, not a branch


@kernel(globals(), inline="always")
def withhold_slots(m0, m1, withheld):
    """``withhold`` for a game whose moves are (card, slot) pairs, one legal mask per slot
    (Chimera Tricks): a withheld card leaves both slots while any other move is legal."""
    rest0 = m0 & ~withheld
    rest1 = m1 & ~withheld
    # all ones when only withheld moves are legal (a select; the branch it replaced measured the
    # same: Chimera's 18% loss at 5186652 came from this call being in its random loop at all,
    # which its kernel now leaves out)
    only_withheld = np.uint64(0) - np.uint64((rest0 | rest1) == 0)
    return rest0 | (m0 & only_withheld), rest1 | (m1 & only_withheld)



# --- the entry points, written once --------------------------------------------------------------
# Each game's kernel module ends with ``run_chunk, play_many_logged, play_scenario, deal_openings =
# entry_points(globals())``: these four functions, compiled in that module's namespace, so that
# ``play_game`` & co. below are its own (and a plug-in or random build's copy of the module gets
# the copy's).  Numba compiles a call to a module's function as a direct call; a compiled
# function that took the game's functions as arguments instead would hold their addresses and
# could not be cached (numba 0.68: "dynamic globals"), nor could a closure over them (a new
# cache key each process).  simcore/cache.py caches each with the module it was made for.
play_game = keep_row = keep_log = play_position = deal_first = None  # each game's own: see above


def _run_chunk(state, run, start, given, lineup, outputs, first, last):
    """Games start+first..start+last-1 of ``run`` = (seed, keys) into rows first..last-1 of
    ``outputs`` (the last of them the status a game: FINISHED, or STRATEGY_BROKE_RULES for a
    plug-in's illegal move).  One thread's serial loop, without the GIL: simcore/threads.py shares
    a chunk's games among the run's threads.  Each game's randomness depends only on (seed, game
    index) and each writes only its own row, so the rows are the same for any thread count or
    chunking."""
    status = outputs[-1]
    for g in range(first, last):
        status[g] = play_game(state, run, start + g, given, lineup)
        keep_row(state, given, outputs, g)


def _play_many_logged(state, run, indices, given, lineup, buffers):
    """Games ``indices`` of the run with their full logs (``balance replay``, the differential
    tests): game k's into row k of ``buffers`` (the last of them the status a game)."""
    status = buffers[-1]
    for k in range(indices.shape[0]):
        status[k] = play_game(state, run, indices[k], given, lineup)
        keep_log(state, given, buffers, k)


def _play_scenario(state, run, position, given, lineup, script):
    """One position played out (``balance play``): the state holds it, ``position`` says the rest
    (who leads, how long), ``script`` the decisions made for the strategies first (the game's
    ``play_position`` seeds the streams its strategies draw from: game 0's of the run).  Returns
    FINISHED, STRATEGY_BROKE_RULES or the illegal scripted step."""
    return play_position(state, run, position, given, lineup, script)


def _deal_openings(state, run, games, given, hands_out):
    """``hands_out[k, s]``: seat s's first hand of game ``games[k]``, dealt by the play loop's own
    deal (the first draws of the game's DEAL stream, which no strategy draws from)."""
    for k in range(games.shape[0]):
        deal_first(state, run, games[k], given)
        for s in range(hands_out.shape[1]):
            hands_out[k, s] = state.hands[s]


# run_chunk without reference counts (it allocates nothing): Numba would otherwise take and give
# back a reference (two atomic instructions) on every array it reads out of the state or the
# outputs, six of them a game in keep_row alone: BIRD & WEATHER's random games ran 0.90x as fast
ENTRY_POINTS = {"run_chunk": (_run_chunk, {"nogil": True, "refcounts": False}), "play_many_logged": (_play_many_logged, {}),
                "play_scenario": (_play_scenario, {}), "deal_openings": (_deal_openings, {})}


def entry_points(namespace: dict, *names: str) -> tuple:
    """The entry points ``names`` (default: all of ``ENTRY_POINTS``, in order) compiled as
    functions of the kernel module whose ``globals()`` is ``namespace``.  A game names those it
    has the functions for (ALEA deals no hands: no ``deal_openings``)."""
    import types

    made = []
    for name in names or ENTRY_POINTS:
        template, options = ENTRY_POINTS[name]
        function = types.FunctionType(template.__code__, namespace, name)
        function.__module__, function.__qualname__, function.__doc__ = namespace["__name__"], name, template.__doc__
        made.append(kernel(namespace, **options)(function))
    return tuple(made)
