"""Shared fixtures: one game object per session (kernels compile once, then load from cache);
the kernels compiled once before the test processes split the work (``warm_kernels.py``)."""
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from simcore.registry import GAMES, get_game

# High Card (tests/fixtures/high_card/): a sixth game written as docs/architecture.md says, registered only
# while a test that asks for it runs, so the real commands never list it
TEST_GAME = ("high-card", "high_card.game:HighCard", "high_card.strategies")


TESTS = Path(__file__).resolve().parent
sys.path.insert(0, str(TESTS / "fixtures"))  # High Card imports as `high_card`, beside the other fixtures

# The coverage rule: a differential run (kernel against reference, game for game) asserts floors
# on how often it exercised each rule, and plays games enough that every floor F is expected to be
# cleared 1.5 times over and by at least 4 Poisson standard deviations: an expected count
# E >= max(1.5 F, (2 + sqrt(4 + F))^2); the second term binds for small floors (2.4 F at F = 20).
# The counts at a test's fixed seed are fixed; the margin guards against a change of the rules or
# of the random streams.  Each test writes beside its sizes the games its binding floor needed.


def pytest_sessionstart(session):
    """Before pytest-xdist starts its workers (its own hook runs last): compile the kernels of
    ``warm_kernels.JOBS`` in one process per worker, so no two workers compile the same kernel.
    Only for a whole-suite run on several workers (``make test``), or with BALANCE_WARM=1;
    BALANCE_WARM=0 skips it.  A warm-up that fails is reported and the tests go on: each test
    that needs a kernel compiles it and shows the error itself."""
    config = session.config
    workers = getattr(config.option, "numprocesses", None)
    whole_suite = all(Path(a).resolve() == TESTS for a in config.args)
    wanted = os.environ.get("BALANCE_WARM", "1" if whole_suite else "0") == "1"
    if hasattr(config, "workerinput") or not isinstance(workers, int) or workers < 1 or not wanted:
        return
    from warm_kernels import shares

    say = config.pluginmanager.get_plugin("terminalreporter").write_line
    started = time.perf_counter()
    say(f"compiling the kernels once in {workers} processes before the tests (tests/warm_kernels.py) ...")
    processes = [subprocess.Popen([sys.executable, str(TESTS / "warm_kernels.py"), *share], cwd=TESTS.parent,
                                  stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
                 for share in shares(workers) if share]
    for process in processes:
        _, err = process.communicate()
        lines = err.strip().splitlines() or ["(no output)"]
        if process.returncode != 0:
            say(f"warm-up process failed (the tests compile what they need): {lines[-1]}")
        else:
            say("  " + "; ".join(lines))
    say(f"kernels ready in {time.perf_counter() - started:.0f} s")


@pytest.fixture
def high_card_registered(monkeypatch):
    name, game_class, strategies = TEST_GAME
    monkeypatch.setitem(GAMES, name, (game_class, strategies))
    return name


@pytest.fixture(scope="session")
def bird_weather():
    return get_game("bird-weather")


def balance(*args):
    """``balance ARGS`` in this process through the console script's entry point:
    (exit code, stdout, stderr).  Test files import it: ``from conftest import balance``."""
    import sys
    from contextlib import redirect_stderr, redirect_stdout
    from io import StringIO

    from balance import cli

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


def assert_scenarios_refused(tmp_path, cases: dict) -> None:
    """Each ``name: (scenario dict, fragment)`` through ``balance play``: exit 2, one line on
    stderr that contains ``fragment``."""
    import json

    for name, (data, fragment) in cases.items():
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps(data))
        code, out, err = balance("play", path)
        assert code == 2 and len(err.strip().splitlines()) == 1 and fragment in err, (name, err)


def assert_variants_refused(tmp_path, game: str, cases: list, *options) -> None:
    """Each ``(variant TOML text, fragment)`` through ``balance simulate GAME``: exit 2, one line on
    stderr that contains ``fragment``, and no results file."""
    variant = tmp_path / "v.toml"
    for text, fragment in cases:
        variant.write_text(text)
        out_file = tmp_path / "never.parquet"
        code, out, err = balance("simulate", game, *options, "-n", 10, "-q", "--variant", variant, "--out", out_file)
        assert code == 2 and len(err.strip().splitlines()) == 1 and fragment in err, (text, err)
        assert not out_file.exists()
