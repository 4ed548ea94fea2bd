"""Shared fixtures: one game object per session (kernels compile once, then load from cache)."""
import pytest

from simcore.game import GAMES, get_game

# High Card (tests/high_card/): a sixth game written as docs/architecture.md says, registered only
# while a test that asks for it runs, so the real commands never list it
TEST_GAME = ("high-card", "high_card.game:HighCard", "high_card.strategies")


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
