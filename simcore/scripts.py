"""The script cursor shared by the compiled play loops of scenario replays (``balance play``).

A scenario replays a list of decisions; each game's loop asks ``scripted`` before its strategy.
The cursor lives in slot 0 of the loop's per-block ``work`` array (no allocation per game)."""
from simcore.jit import kernel

SCRIPT_CURSOR = 0  # work[SCRIPT_CURSOR]: how many scripted decisions have been used


@kernel(globals(), inline="always")
def scripted(script, work):
    """The next scripted decision, or -1 when the script is used up (then the strategy decides)."""
    if work[SCRIPT_CURSOR] < script.shape[0]:
        work[SCRIPT_CURSOR] += 1
        return script[work[SCRIPT_CURSOR] - 1]
    return -1
