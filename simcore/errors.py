"""The one exception type the command line turns into a one-line message and exit code 2."""


class BalanceError(Exception):
    """Bad input from the user: a message that stands on one line, no traceback."""
