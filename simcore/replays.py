"""What the games' ``game.py`` share for logs and scenario replays (``balance play``,
``balance replay``): the arrays a scripted replay fills, and a log's rounds with their tricks."""
from __future__ import annotations

import numpy as np

UNWRITTEN = -9  # a log cell the compiled replay has not written


def scenario_logs(record, log_width: int, round_log_width: int):
    """For replaying the reference ``record`` of a scenario: (the tricks it holds, the trick the
    compiled replay stops after: -1 when the game finished, the trick log, the round log)."""
    tricks = sum(len(r.tricks) for r in record.rounds)
    trick_limit = -1 if record.finished else tricks
    log = np.full((max(tricks, 1), log_width), UNWRITTEN, dtype=np.int64)
    round_log = np.full((max(len(record.rounds), 1), round_log_width), UNWRITTEN, dtype=np.int64)
    return tricks, trick_limit, log, round_log


def rounds_with_tricks(log: dict):
    """(round, its tricks) for each round of a game's log dict, in order (``format_log``)."""
    tricks = iter(log["tricks"])
    pending = next(tricks, None)
    for r in log["rounds"]:
        played = []
        while pending is not None and pending["round"] == r["round"]:
            played.append(pending)
            pending = next(tricks, None)
        yield r, played
