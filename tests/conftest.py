"""Shared fixtures: one game object per session (kernels compile once, then load from cache)."""
import pytest

from simcore.game import get_game


@pytest.fixture(scope="session")
def bird_weather():
    return get_game("bird-weather")


def balance(*args):
    """``balance ARGS`` in this process through the console script's entry point:
    (exit code, stdout, stderr).  Test files import it: ``from conftest import balance``."""
    import sys
    from contextlib import redirect_stderr, redirect_stdout
    from io import StringIO

    import cli

    argv, out, err = sys.argv, StringIO(), StringIO()
    sys.argv = ["balance", *map(str, args)]
    code = 0
    try:
        with redirect_stdout(out), redirect_stderr(err):
            cli.main()
    except SystemExit as exc:
        code = exc.code or 0
    finally:
        sys.argv = argv
    return code, out.getvalue(), err.getvalue()
