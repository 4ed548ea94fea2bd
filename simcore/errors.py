"""The exception types the command line turns into one line on stderr (see ``cli.main``)."""


class BalanceError(Exception):
    """Bad input from the user, or a write the machine refused: a message that stands on one
    line, no traceback, exit code 2."""


class RunInterrupted(KeyboardInterrupt):
    """Ctrl-C or SIGTERM during a run that keeps its finished chunks: the message says how many
    games were kept and how to finish (``--resume``); exit code 130 like any interruption.
    Typer turns every KeyboardInterrupt into exit code 130 and drops it, so the message is also
    kept in ``RunInterrupted.last`` for the command line to print."""

    last: str | None = None

    def __init__(self, message: str):
        super().__init__(message)
        RunInterrupted.last = message


def numba_reason(exc) -> str:
    """The line of a Numba error that says what is wrong (not the pipeline stage)."""
    for line in str(exc).splitlines():
        text = line.strip()
        if text and not text.startswith(("Failed in", "During:", "File ", "<source", "^")) and "[1m" not in text:
            return text
    return type(exc).__name__
