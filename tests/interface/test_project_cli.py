"""The command line as a new user meets it: `--version`, help grouped by the designer's task, a
project file (balance.toml, written by `balance init`) that supplies defaults and thresholds, the
first compile announcing itself, progress in a pipe, and `--json` on every command that prints
results."""
from __future__ import annotations

import io
import json
import re
import sys
import tomllib
import types
from pathlib import Path

import pytest

from balance import cli
from analysis import verdict
from conftest import balance

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def project(tmp_path, monkeypatch):
    """A scratch project folder as the working folder; thresholds reset afterwards."""
    monkeypatch.chdir(tmp_path)
    yield tmp_path
    verdict.configure(None)


def test_version():
    code, out, err = balance("--version")
    from simcore.version import __version__

    assert code == 0 and out == f"balance {__version__}\n" and err == ""


def test_help_groups_every_command_by_task_and_names_them_all():
    code, out, err = balance("--help")
    assert code == 0
    sections = re.findall(r"^(Run|Look|Compare|Check): ", out, re.M)
    assert sections == ["Run", "Look", "Compare", "Check"]
    commands = set(cli.typer.main.get_command(cli.app).commands)
    listed = re.findall(r"^  ([a-z][a-z-]*)\s{2,}\S", out, re.M)
    assert sorted(listed) == sorted(commands) and len(listed) == len(set(listed))  # every command, once
    summary = out.split("Options:")[0]
    assert all(name in summary for name in commands)  # the summary names every command
    assert all(name in [n for names in cli.TASKS.values() for n in names] for name in commands)


def test_init_writes_a_commented_project_file_once(project):
    code, out, err = balance("init")
    assert code == 0 and "balance.toml" in out
    text = (project / "balance.toml").read_text()
    for key in ("games", "seed", "output", "threads", "cluster", "seat_pp", "card_pp", "change_pp"):
        assert f"# {key} = " in text
    assert tomllib.loads(text) == {"defaults": {}, "thresholds": {}}  # everything commented: no change
    assert cli.project_defaults() is None
    code, out, err = balance("init")
    assert code == 2 and "already exists" in err and len(err.splitlines()) == 1
    assert balance("init", "--force")[0] == 0


def test_project_defaults_apply_and_the_command_line_wins(project):
    (project / "balance.toml").write_text('[defaults]\ngames = 300\nseed = 7\nthreads = 1\n\n'
                                          '[simulate]\nplayers = 3\nstrategies = "greedy"\n')
    code, out, err = balance("simulate", "bird-weather", "--json")
    assert code == 0, err
    summary = json.loads(out)
    assert (summary["games"], summary["seed"], summary["players"], summary["strategies"]) == (300, 7, 3, ["greedy"] * 3)
    code, out, err = balance("simulate", "bird-weather", "--json", "-n", 200, "--seed", 2)
    assert (json.loads(out)["games"], json.loads(out)["seed"]) == (200, 2)


def test_project_output_folder_and_thresholds_reach_the_pages(project):
    (project / "balance.toml").write_text('[defaults]\noutput = "pages"\n[thresholds]\nseat_pp = 0.5\n')
    mapping = cli.project_defaults()
    assert mapping["report"]["out"] == str(Path("pages") / "latest") and mapping["whatif"]["out"] == str(Path("pages") / "whatif")
    assert "out" not in mapping.get("simulate", {})  # simulate's --out is a results file, not a folder
    code, out, err = balance("simulate", "triatri", "-p", 2, "-n", 400, "-q")
    assert code == 0 and "within ±0.5 pp of the fair share" in out


def test_the_cluster_default_goes_to_every_command_that_takes_it(project):
    """`cluster` in [defaults] is passed as the value of any command's --cluster (none today but a
    command registered here)."""
    (project / "balance.toml").write_text('[defaults]\ncluster = "lab"\n')

    @cli.app.command("probe-cluster")
    def probe(cluster: str = cli.typer.Option("local", "--cluster")):
        cli.typer.echo(f"cluster={cluster}")

    try:
        assert cli.project_defaults()["probe-cluster"] == {"cluster": "lab"}
        assert balance("probe-cluster")[1] == "cluster=lab\n"
        assert balance("probe-cluster", "--cluster", "x")[1] == "cluster=x\n"
    finally:
        cli.app.registered_commands[:] = [c for c in cli.app.registered_commands if c.name != "probe-cluster"]


@pytest.mark.parametrize("text, fragment", [
    ("[defaults]\nrounds = 3\n", "[defaults] has no key 'rounds'"),
    ("[simulate]\nbogus = 1\n", "`balance simulate` has no option --bogus"),
    ("[nonsense]\nx = 1\n", "[nonsense] is not a command"),
    ("[thresholds]\nseat_pp = -1\n", "thresholds.seat_pp must be a positive number"),
    ("games = \n", "is not valid TOML"),
])
def test_a_bad_project_file_is_one_line(project, text, fragment):
    (project / "balance.toml").write_text(text)
    code, out, err = balance("games")
    assert code == 2 and out == "" and len(err.splitlines()) == 1 and fragment in err, err


def test_progress_in_a_pipe_is_one_line_now_and_then(monkeypatch):
    """stderr here is not a terminal: no bar, but a plain line every PROGRESS_EVERY seconds and a
    last one; the results are the same as without progress."""
    from simcore import progress

    monkeypatch.setattr(progress, "PROGRESS_EVERY", 0.0)
    code, out, err = balance("simulate", "triatri", "-p", 3, "-n", 3000, "--chunk-size", 1000, "--json")
    quiet = json.loads(out)
    code, out, err = balance("simulate", "triatri", "-p", 3, "-n", 3000, "--chunk-size", 1000)
    assert code == 0
    lines = [line for line in err.splitlines() if not line.startswith("compil")]  # a cold cache says so first
    assert [line.split(":")[0] for line in lines] == ["triatri 3p"] * 4, err
    assert re.match(r"triatri 3p: 1,000 of 3,000 games \(33%\), [\d,]+ games/s, about [\d,]+ s left$", lines[0])
    assert re.match(r"triatri 3p: 3,000 games done in [\d.]+ s$", lines[-1])
    assert f"{100 * quiet['seats'][0]['win_share']:.2f}" in out


def test_the_first_compile_announces_itself(tmp_path, monkeypatch):
    """Once per play loop and cache folder: the marker file says it has been compiled there."""
    from simcore import driver

    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "cache"))
    kernels = types.SimpleNamespace(__file__=str(tmp_path / "kernel.py"))
    game = types.SimpleNamespace(title="Trick-Take BIRD & WEATHER", run_chunk=lambda *args: None)
    lineup = types.SimpleNamespace(kernels=kernels)
    err = io.StringIO()
    monkeypatch.setattr(sys, "stderr", err)
    driver.compile_kernels(game, None, lineup, 1, announce=True)
    assert err.getvalue().splitlines()[0] == ("compiling Trick-Take BIRD & WEATHER kernels, once until their sources change "
                                              "(a minute or two)...")
    assert err.getvalue().splitlines()[1].startswith("compiled Trick-Take BIRD & WEATHER kernels in ")
    driver.compile_kernels(game, None, lineup, 1, announce=True)
    assert len(err.getvalue().splitlines()) == 2  # the second time: silent
    # a game of the project says about how long its compile takes: the newest measurement kept in
    # benchmarks/ (simcore/measured.py), here a made-up one
    from simcore import measured

    (tmp_path / "kept.json").write_text(json.dumps([{"game": "sky-city", "date": "2026-12-02T00:00:00+00:00",
                                                      "first_compile_seconds": {"stock": 16.4, "random": 9.0},
                                                      "machine": {"cpu": "AMD EPYC 7B13", "cores": 2}}]))
    monkeypatch.setattr(measured, "RESULTS", tmp_path)
    measured.kept.cache_clear()
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "other-cache"))
    known = types.SimpleNamespace(title="The Sky City of ALEA", name="sky-city", run_chunk=lambda *args: None)
    try:
        driver.compile_kernels(known, None, lineup, 1, announce=True)
    finally:
        measured.kept.cache_clear()
    assert err.getvalue().splitlines()[2] == ("compiling The Sky City of ALEA kernels, once until their sources change (about 16 s "
                                              "on a 2-core AMD EPYC 7B13)...")


def test_a_stock_play_loops_marker_lies_in_its_games_cache_folder():
    """The game's kernels are cached per game (simcore/cache.py): the marker goes with that folder,
    so a warm cache never says "compiling", and an edited engine (a new folder) does."""
    from simcore import driver
    from simcore.cache import group_cache_dir
    from simcore.registry import get_game

    lineup = get_game("bird-weather").lineup("heuristic", 4)
    marker = driver._compiled_marker(lineup)
    assert marker.parent == group_cache_dir(lineup.kernels.__file__)
    assert marker.parent.name.startswith("numba-bird_weather-")
    # random seats play the random build (simcore/builds.py): its marker lies beside its compiled code
    lineup = get_game("bird-weather").lineup("random", 4)
    marker = driver._compiled_marker(lineup)
    assert marker.parent == Path(lineup.kernels.__file__).parent / "__pycache__"
    assert marker.parent.parent.name.startswith("bird_weather-") and marker.parent.parent.parent.name == "random-builds"


def test_json_on_every_command_that_prints_results(tmp_path):
    """games, report and book print JSON with --json too (the others are tested with their commands)."""
    code, out, err = balance("games", "--json")
    listed = {g["game"]: g for g in json.loads(out)}
    assert code == 0 and {"bird-weather", "sky-city", "triatri"} <= set(listed)
    assert listed["sky-city"]["strategies"]["cautious"] == "cautious (P=0.25)"  # strategies with their parameters
    assert listed["bird-weather"]["strategies"]["search"].startswith("search (d=24, p=1")
    run = tmp_path / "run.parquet"
    assert balance("simulate", "triatri", "-p", 3, "-n", 500, "-q", "--out", run)[0] == 0
    code, out, err = balance("report", run, "--out", tmp_path / "report", "--json")
    document = json.loads(out)
    assert code == 0 and document["verdict"]["sentences"] and document["runs"][0]["games"] == 500
    code, out, err = balance("book", "--game", "triatri", "-n", 300, "--skill-games", 0, "--out", tmp_path / "book",
                             "--json")
    document = json.loads(out)
    assert code == 0 and len(document["runs"]) == 3 and document["verdict"]["sentences"]
    commands = cli.typer.main.get_command(cli.app).commands
    # init and new-game write a file and say so, studio serves a page: no results to print
    printing = set(commands) - {"init", "new-game", "studio"}
    assert {name for name in printing if "as_json" in {p.name for p in commands[name].params}} == printing
