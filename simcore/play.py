"""What every game's compiled play loop shares: the game statuses the driver reads, the script
cursor of scenario replays (``balance play``) and the withholding of cards (``cards --cause``).
A chunk's games are shared among threads by simcore/threads.py.

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
