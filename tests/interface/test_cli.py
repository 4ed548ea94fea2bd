"""The command line as a user meets it: ``balance.cli.main`` (the ``balance`` console script) with
real arguments, real files and true exit codes.

Most commands run in this process (``balance()`` patches ``sys.argv`` and calls ``cli.main``,
so the compiled kernels load once); a few run as a separate Python process through the same
entry point, where the exit status and stderr are those a shell would see.  Bad input must end
as exit code 2 with exactly one line on stderr and nothing left behind.

The plug-in test compiles a plug-in build of the kernel (about 20 s, docs/strategies.md); the
rest of the file takes a few seconds once the kernel cache is warm.
"""
from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import dataclass
from pathlib import Path

import polars as pl
import pytest

from balance import cli
from simcore import __version__
from simcore.parts import run_meta

ROOT = Path(__file__).resolve().parents[2]
SCENARIOS = sorted((ROOT / "examples" / "scenarios").glob("bird-weather-*.json"))
PLUGIN = ROOT / "examples" / "plugins" / "low_ones.py"
LINEUP = "heuristic,random,greedy,random"


@dataclass
class Outcome:
    code: int
    out: str
    err: str


def _exit_code(exc: SystemExit) -> int:
    if exc.code is None:
        return 0
    return exc.code if isinstance(exc.code, int) else 1


def balance(*args) -> Outcome:
    """``balance ARGS`` in this process, through the console script's entry point."""
    argv = sys.argv
    out, err = io.StringIO(), io.StringIO()
    sys.argv = ["balance", *map(str, args)]
    code = 0
    try:
        with redirect_stdout(out), redirect_stderr(err):
            cli.main()
    except SystemExit as exc:
        code = _exit_code(exc)
    finally:
        sys.argv = argv
    return Outcome(code, out.getvalue(), err.getvalue())


def balance_process(*args, timeout=300) -> Outcome:
    """``balance ARGS`` as a separate process (``python -m balance ARGS``)."""
    done = subprocess.run([sys.executable, "-m", "balance", *map(str, args)],
                          capture_output=True, text=True, cwd=ROOT, timeout=timeout)
    return Outcome(done.returncode, done.stdout, done.stderr)


def assert_refused(outcome: Outcome, *fragments: str) -> None:
    """Exit 2, nothing on stdout, one ``balance: error:`` line on stderr naming ``fragments``."""
    assert outcome.code == 2, outcome
    assert outcome.out == ""
    lines = outcome.err.splitlines()
    assert len(lines) == 1, outcome.err
    assert lines[0].startswith("balance: error: "), lines[0]
    assert "Traceback" not in outcome.err
    for fragment in fragments:
        assert fragment in lines[0]


def error_lines(err: str) -> list[str]:
    """stderr without the first compile's announcement (a plug-in build compiles when first used)."""
    return [line for line in err.strip().splitlines() if not line.startswith(("compiling ", "compiled "))]


def listing(folder: Path) -> list[str]:
    """Every file and folder under ``folder``, hidden ones included (temp files start with '.')."""
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


# --------------------------------------------------------------------------------------------
# simulate
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("players", [3, 4, 5])
def test_simulate_json_is_a_summary_of_the_games(players):
    run = balance("simulate", "bird-weather", "--players", players, "--games", 3000, "--seed", 5,
                  "--strategies", "heuristic", "--json")
    assert run.code == 0 and run.err == ""
    summary = json.loads(run.out)
    assert (summary["game"], summary["players"], summary["games"], summary["seed"]) == (
        "bird-weather", players, 3000, 5)
    assert [seat["strategy"] for seat in summary["seats"]] == ["heuristic"] * players
    shares = [seat["win_share"] for seat in summary["seats"]]
    assert all(0.0 <= share <= 1.0 for share in shares)
    assert sum(shares) == pytest.approx(1.0, abs=1e-4)
    assert {event["column"] for event in summary["events"]} == {
        "reversals", "zero_wins", "zero_point_tricks", "facedowns_taken", "zero_scored_tricks"}


def test_simulate_text_names_each_seat():
    run = balance("simulate", "bird-weather", "--games", 2000, "--strategies", LINEUP)
    assert run.code == 0
    for seat, name in enumerate(LINEUP.split(","), start=1):  # seats 1..N, seat 1 plays first
        assert re.search(rf"^seat {seat}\s+{name}\s", run.out, re.MULTILINE)
    assert "2,000 games in" in run.out


@pytest.fixture(scope="module")
def recorded_run(tmp_path_factory):
    """A run written with --out: a named variant, four different seats, 400 games."""
    folder = tmp_path_factory.mktemp("run")
    variant = folder / "no-reversal.toml"
    variant.write_text('game = "bird-weather"\nname = "no reversal"\nreversal = false\n')
    out = folder / "run.parquet"
    run = balance("simulate", "bird-weather", "--games", 400, "--seed", 7, "--strategies", LINEUP,
                  "--variant", variant, "--out", out, "--chunk-size", 150)
    assert run.code == 0, run
    return folder, variant, out, run


def test_out_writes_parquet_with_run_metadata(recorded_run):
    folder, variant, out, run = recorded_run
    assert f"rows written to {out}" in run.out
    # the run's folder: its metadata and one part per 150-game chunk; no temp folder, no lock
    assert listing(folder) == ["no-reversal.toml", "run.parquet", "run.parquet/_run.parquet"] + [
        f"run.parquet/part-{s:020d}-{min(150, 400 - s):020d}.parquet" for s in range(0, 400, 150)]
    meta = run_meta(out)
    assert meta["seed"] == 7
    assert meta["games"] == 400
    assert meta["players"] == 4
    assert meta["strategies"] == LINEUP.split(",")
    assert meta["variant"]["name"] == "no reversal"
    assert meta["variant"]["reversal"] is False
    assert meta["version"] == __version__

    rows = pl.read_parquet(out)
    assert rows.height == 400
    assert rows["game"].to_list() == list(range(400))
    shares = rows.select(pl.sum_horizontal(f"share_{s}" for s in range(4))).to_series()
    assert (shares - 1.0).abs().max() < 1e-4
    assert rows["reversals"].sum() == 0  # the variant is in force


def test_out_is_the_same_for_any_thread_count_and_chunk_size(recorded_run, tmp_path):
    folder, variant, out, run = recorded_run
    again = tmp_path / "again.parquet"
    run = balance("simulate", "bird-weather", "--games", 400, "--seed", 7, "--strategies", LINEUP,
                  "--variant", variant, "--out", again, "--threads", 1, "--chunk-size", 400)
    assert run.code == 0
    assert pl.read_parquet(again).equals(pl.read_parquet(out))


# --------------------------------------------------------------------------------------------
# bad input: exit 2, one stderr line, nothing left behind
# --------------------------------------------------------------------------------------------

def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def _simulate(folder, *extra):
    return ["simulate", "bird-weather", "--games", 10, "--out", folder / "out.parquet", *extra]


def _variant(folder, text):
    return _simulate(folder, "--variant", _write(folder / "variant.toml", 'game = "bird-weather"\n' + text))


BAD_INPUT = {
    "unknown game": (lambda d: ["simulate", "chess", "--games", 10, "--out", d / "out.parquet"],
                     ["unknown game 'chess'"]),
    "unknown strategy": (lambda d: _simulate(d, "--strategies", "clever"), ["unknown strategy 'clever'"]),
    "seat count": (lambda d: _simulate(d, "--strategies", "random,greedy"), ["names 2 seats", "4 players"]),
    "2 players": (lambda d: _simulate(d, "--players", 2), ["not 2"]),
    "6 players": (lambda d: _simulate(d, "--players", 6), ["not 6"]),
    "0 games": (lambda d: ["simulate", "bird-weather", "--games", 0, "--out", d / "out.parquet"],
                ["--games must be at least 1, not 0"]),
    "-1 games": (lambda d: ["simulate", "bird-weather", "--games", -1, "--out", d / "out.parquet"],
                 ["--games must be at least 1, not -1"]),
    "malformed variant": (lambda d: _variant(d, "reversal = \n"), ["variant.toml", "not valid TOML"]),
    "variant unknown key": (lambda d: _variant(d, "flavour = 3\n"), ["unknown key 'flavour'"]),
    "variant wrong type": (lambda d: _variant(d, 'reversal = "no"\n'), ["'reversal' must be bool"]),
    "variant duplicate cards": (lambda d: _variant(d, "cards = [10, 11, 11, 12]\n"), ["[11] more than once"]),
    "variant deck too small": (lambda d: _variant(d, f"cards = {list(range(10, 30))}\n"),
                               ["a deck of 20 cards cannot deal 4 hands of 10"]),
    "variant file missing": (lambda d: _simulate(d, "--variant", d / "nope.toml"), ["variant file not found"]),
    "output folder is a file": (lambda d: ["simulate", "bird-weather", "--games", 10,
                                           "--out", _write(d / "file", "x") / "out.parquet"],
                                ["cannot create folder", "is not a directory"]),
    "output is a folder": (lambda d: ["simulate", "bird-weather", "--games", 10, "--out", d],
                           ["is a folder"]),
    "malformed scenario": (lambda d: ["play", _write(d / "s.json", '{"game": "bird-weather", ')],
                           ["s.json", "not valid JSON"]),
    "scenario missing": (lambda d: ["play", d / "nope.json"], ["scenario file not found"]),
    "scenario card not in deck": (lambda d: ["play", _write(d / "s.json", json.dumps({
        "game": "bird-weather", "players": 4, "hands": [[35], [37], [25], [99]]}))],
        ["cards not in the deck: [99]"]),
    "scenario unequal hands": (lambda d: ["play", _write(d / "s.json", json.dumps({
        "game": "bird-weather", "players": 4, "hands": [[35], [37], [25], [31, 32]]}))],
        ["same length"]),
    "scenario bad pick": (lambda d: ["play", _write(d / "s.json", json.dumps({
        "game": "bird-weather", "players": 4, "hands": [[35], [34], [45], [20]],
        "facedown": [28, None, 42, 11], "plays": [35, 34, 45, 20], "picks": [1]}))],
        ["pick 0 (trick 0, seat 2): seat 1 has no unused face-down card"]),
    "scenario unknown expect key": (lambda d: ["play", _write(d / "s.json", json.dumps({
        "game": "bird-weather", "players": 4, "hands": [[35], [37], [25], [31]],
        "plays": [35, 37, 25, 31], "expect": {"score": [0, 1, 0, 0]}}))], ["unknown key 'score'"]),
    "report missing file": (lambda d: ["report", d / "missing.parquet", "--out", d / "report"],
                            ["results file not found"]),
    "replay negative index": (lambda d: ["replay", "bird-weather", "--index", -1], ["--index must be a whole number"]),
    "unknown option": (lambda d: ["simulate", "bird-weather", "--gmaes", 10], ["--gmaes"]),
}


@pytest.mark.parametrize("case", list(BAD_INPUT))
def test_bad_input_is_one_line_exit_2_and_leaves_nothing(case, tmp_path):
    make_args, fragments = BAD_INPUT[case]
    args = make_args(tmp_path)
    before = listing(tmp_path)
    assert_refused(balance(*args), *fragments)
    assert listing(tmp_path) == before


def test_bad_input_from_a_separate_process(tmp_path):
    run = balance_process("simulate", "chess", "--games", 10, "--out", tmp_path / "out.parquet")
    assert_refused(run, "unknown game 'chess' (choose from: bird-weather")
    assert listing(tmp_path) == []


@pytest.mark.skipif(hasattr(os, "geteuid") and os.geteuid() == 0, reason="root may write anywhere")
def test_unwritable_output_folder(tmp_path):
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o555)
    try:
        assert_refused(balance(*_simulate(locked)), "cannot write to", "permission denied")
        assert listing(locked) == []
    finally:
        locked.chmod(0o755)


def test_help_answers_without_loading_numba():
    done = subprocess.run(
        [sys.executable, "-c",
         "import sys\nfrom balance import cli\ntry:\n    cli.main()\n"
         "finally:\n    print('numba' in sys.modules, file=sys.stderr)",
         "--help"], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert done.returncode == 0
    for command in ("simulate", "report", "play", "replay", "bench", "games"):
        assert command in done.stdout
    assert done.stderr.strip() == "False"


# --------------------------------------------------------------------------------------------
# play: every example scenario
# --------------------------------------------------------------------------------------------

def test_the_rulebook_examples_are_all_there():
    names = {path.name for path in SCENARIOS}
    assert {f"bird-weather-example-{k}.json" for k in range(1, 8)} <= names
    assert "bird-weather-illegal.json" in names


@pytest.mark.parametrize("path", SCENARIOS, ids=[p.stem for p in SCENARIOS])
def test_play_example_scenario(path):
    data = json.loads(path.read_text(encoding="utf-8"))
    if "illegal" in path.name:
        assert_refused(balance("play", path), "play 1 (trick 0, seat 1)",
                       "41 does not follow the lead 35 although seat 1 holds 15")
        return
    assert data["players"] == 4 and "expect" in data
    text = balance("play", path)
    assert text.code == 0 and text.err == "", text
    assert "compiled and reference engines agree" in text.out
    assert "EXPECTATION FAILED" not in text.out
    run = balance("play", path, "--json")
    assert run.code == 0
    log = json.loads(run.out)
    assert log["engines_agree"] is True
    assert log["expect_failures"] == []
    assert log["scores"] == data["expect"]["scores"]
    plays = [card for step in data["plays"] for card in (step if isinstance(step, list) else [step])]
    assert [card for trick in log["tricks"] for card in trick["cards"]] == plays


def test_example_1_the_follow_rule_leaves_seat_1_one_card():
    log = json.loads(balance("play", ROOT / "examples/scenarios/bird-weather-example-1.json", "--json").out)
    first = log["tricks"][0]
    assert first["cards"] == [35, 15, 33, 47]
    assert first["followed"] == [True, True, True, False]


def test_play_exits_1_when_an_expectation_fails(tmp_path):
    data = json.loads((ROOT / "examples/scenarios/bird-weather-example-7.json").read_text())
    data["expect"]["scores"] = [0, 5, 0, 0]
    run = balance_process("play", _write(tmp_path / "wrong.json", json.dumps(data)))
    assert run.code == 1
    assert "EXPECTATION FAILED: scores: expected [0, 5, 0, 0], got [0, 0, 5, 0]" in run.out.splitlines()


# --------------------------------------------------------------------------------------------
# replay
# --------------------------------------------------------------------------------------------

def _row_scores(path: Path, index: int) -> list[int]:
    row = pl.read_parquet(path).filter(pl.col("game") == index).row(0, named=True)
    return [row[f"score_{s}"] for s in range(4)]


@pytest.mark.parametrize("index", [0, 137, 399])
def test_replay_run_matches_the_recorded_row(recorded_run, index):
    folder, variant, out, run = recorded_run
    replay = balance("replay", "bird-weather", "--run", out, "--index", index, "--json")
    assert replay.code == 0, replay
    log = json.loads(replay.out)
    assert log["matches_run"] == str(out)
    assert (log["seed"], log["index"], log["strategies"]) == (7, index, LINEUP.split(","))
    assert log["scores"] == _row_scores(out, index)
    assert len(log["tricks"]) == 9
    assert all(trick["kind"] != "reversal" for trick in log["tricks"])  # the recorded variant again
    text = balance("replay", "bird-weather", "--run", out, "--index", index)
    assert f"matches row {index} of {out}" in text.out


def test_replay_text_is_what_the_run_recorded(recorded_run):
    folder, variant, out, run = recorded_run
    for index in (3, 250):
        replay = balance("replay", "bird-weather", "--seed", 7, "--index", index, "--strategies", LINEUP,
                         "--variant", variant)
        assert replay.code == 0
        assert replay.out.splitlines()[0].endswith(f"run seed 7, game {index} - {LINEUP.replace(',', ', ')}")
        scores_line = next(line for line in replay.out.splitlines() if line.startswith("Scores:"))
        scores = [int(v) for v in re.findall(r"seat \d+: (-?\d+)", scores_line)]
        assert scores == _row_scores(out, index)
        assert len(re.findall(r"^  trick \d+:", replay.out, re.MULTILINE)) == 9


def test_replay_run_refuses_a_game_it_does_not_hold(recorded_run):
    folder, variant, out, run = recorded_run
    assert_refused(balance("replay", "bird-weather", "--run", out, "--index", 400), "has no game 400")


# --------------------------------------------------------------------------------------------
# plug-in and bench
# --------------------------------------------------------------------------------------------

def test_plugin_example_runs_and_its_seat_is_reported(tmp_path):
    out = tmp_path / "low-ones.parquet"
    run = balance_process("simulate", "bird-weather", "--plugin", PLUGIN,
                          "--strategies", "low-ones,random,random,random",
                          "--games", 20000, "--seed", 1, "--json", "--out", out)
    assert run.code == 0, run.err
    summary = json.loads(run.out)
    seats = summary["seats"]
    assert [seat["strategy"] for seat in seats] == ["low-ones", "random", "random", "random"]
    assert sum(seat["win_share"] for seat in seats) == pytest.approx(1.0, abs=1e-4)
    assert seats[0]["win_share"] > 0.30  # 35.3 % over 200,000 games in docs/strategies.md
    assert run_meta(out)["plugins"] == [str(PLUGIN)]


BENCH_KEYS = {"game", "players", "games", "reference_games", "threads", "warmup_seconds",
              "random_1_thread", "random_all_threads", "heuristic_all_threads", "reference",
              "ratio_1_thread", "ratio_all_threads", "machine", "strong_strategy", "thread_scaling",
              "strong_vs_random", "play_unit", "plays_per_game", "plays_per_second_1_thread", "ns_per_play_1_thread",
              # what a kept result says of itself (benchmarks/, BENCHMARKS.md), and --compile's figures (None without it)
              "kind", "commit", "date", "first_compile_seconds"}


def test_bench_json_has_the_documented_keys():
    run = balance("bench", "bird-weather", "--games", 20000, "--reference-games", 200, "--repeats", 1, "--json")
    assert run.code == 0 and run.err == ""
    (result,) = json.loads(run.out)
    assert set(result) == BENCH_KEYS
    assert result["kind"] == "bench" and result["commit"] and result["date"] and result["first_compile_seconds"] is None
    assert (result["game"], result["players"], result["games"], result["reference_games"]) == (
        "bird-weather", 4, 20000, 200)
    for key in ("random_1_thread", "random_all_threads", "heuristic_all_threads", "reference"):
        assert result[key] > 0
    assert set(result["machine"]) == {"cpu", "cores", "bmi2", "lzcnt", "pdep_used", "python", "numba", "platform",
                                      "balance"}
    # BIRD & WEATHER plays every trick of its deal: 9 tricks x 4 players by default
    assert result["play_unit"] == "card plays" and result["plays_per_game"] == 36
    # games/s is printed rounded to a whole game: the plays/s it gives agree to within one game's plays
    assert abs(result["plays_per_second_1_thread"] - result["random_1_thread"] * 36) <= 36
    assert abs(result["ns_per_play_1_thread"] - 1e9 / result["plays_per_second_1_thread"]) < 0.01


# --------------------------------------------------------------------------------------------
# regressions: bugs found by these tests and fixed
# --------------------------------------------------------------------------------------------

def test_expectation_failure_prints_no_traceback(tmp_path):
    data = json.loads((ROOT / "examples/scenarios/bird-weather-example-7.json").read_text())
    data["expect"]["winners"] = [0]
    run = balance_process("play", _write(tmp_path / "wrong.json", json.dumps(data)))
    assert run.code == 1
    assert run.err == ""


def test_play_log_shows_the_hands():
    path = ROOT / "examples/scenarios/bird-weather-example-1.json"
    log = json.loads(balance("play", path, "--json").out)
    assert log["deals"][0]["hands"] == [[12, 35], [15, 41], [22, 33], [26, 47]]


def test_output_folder_that_is_a_file(tmp_path):
    _write(tmp_path / "notes.txt", "")
    assert_refused(balance("simulate", "bird-weather", "--games", 10, "--out", tmp_path / "notes.txt" / "x.parquet"))


@pytest.mark.parametrize("key, value", [("variant", "no-reversal"), ("expect", [1])])
def test_scenario_key_of_the_wrong_kind(tmp_path, key, value):
    data = {"game": "bird-weather", "players": 4, "hands": [[35], [37], [25], [31]],
            "plays": [35, 37, 25, 31], key: value}
    assert_refused(balance("play", _write(tmp_path / "s.json", json.dumps(data))))


BROKEN_PLUGIN = """
from numba import njit
GAME = "bird-weather"
NAME = "always-zero"

@njit
def choose_play(params, seat, hand, legal, seen, table, number, follow, rules, streams):
    return 0  # card 10, whether or not it is held: illegal most of the time
"""


def test_plugin_illegal_move_is_refused_not_recorded(tmp_path):
    plugin = _write(tmp_path / "always_zero.py", BROKEN_PLUGIN)
    out = tmp_path / "run.parquet"
    result = balance("simulate", "bird-weather", "--plugin", plugin, "--strategies", "always-zero,random,random,random",
                     "--games", 200, "--out", out)
    assert result.code == 2 and "illegal move in game" in result.err and len(error_lines(result.err)) == 1
    assert not out.exists()


BAD_PLUGIN = """
from numba import njit
GAME = "bird-weather"
NAME = "wordy"

@njit
def choose_play(params, seat, hand, legal, seen, table, number, follow, rules, streams):
    return "ten"  # not a card index: Numba cannot type this
"""


def test_plugin_that_does_not_compile_names_the_file_and_reason(tmp_path):
    plugin = _write(tmp_path / "wordy.py", BAD_PLUGIN)
    result = balance_process("simulate", "bird-weather", "--plugin", plugin, "--strategies", "wordy,random,random,random",
                             "--games", 10)
    assert result.code == 2 and len(error_lines(result.err)) == 1
    assert str(plugin) in result.err and "Traceback" not in result.err
    assert "choose_play does not compile" in result.err and "No conversion from Literal[str](ten) to int64" in result.err


@pytest.mark.parametrize("args,fragment", [
    (("replay", "bird-weather", "--index", 2**63), "--index must be a whole number"),
    (("replay", "sky-city", "--index", 2**62 + 3), "sky-city cannot play duplicate deals (game 4611686018427387907"),
    (("replay", "bird-weather", "--seed", -1), "--seed must be a whole number"),
    (("simulate", "bird-weather", "--games", 10, "--seed", 2**64), "--seed must be a whole number"),
    (("bench", "bird-weather", "--games", 100, "--reference-games", 0), "--reference-games must be at least 1"),
    (("bench", "bird-weather", "--repeats", 0), "--repeats must be at least 1"),
    (("bench", "bird-weather", "--players", 7), "not 7"),
    (("simulate", "bird-weather", "--games", 10, "--out", "/dev/null"), "not a regular file"),
])
def test_out_of_range_numbers_and_targets(args, fragment):
    assert_refused(balance(*args), fragment)


def test_variant_file_must_name_its_game(tmp_path):
    variant = _write(tmp_path / "v.toml", "reversal = false\n")
    assert_refused(balance("simulate", "bird-weather", "--games", 10, "--variant", variant), "which game")


def test_output_through_a_link_replaces_the_target_not_the_link(tmp_path):
    target = tmp_path / "target.parquet"
    link = tmp_path / "link.parquet"
    link.symlink_to(target)
    assert balance("simulate", "bird-weather", "--games", 50, "--out", link, "-q").code == 0
    assert link.is_symlink() and target.is_dir() and pl.read_parquet(link).height == 50


def test_terminated_run_leaves_nothing_behind(tmp_path):
    """SIGTERM (a `timeout`, a killed job) stops a run like Ctrl-C: no result file, and either
    nothing at all (no chunk had finished) or the finished chunks' parts, kept for --resume as the
    message says (which of the two depends on when the signal lands: both are checked in full)."""
    import signal
    import time

    out = tmp_path / "big.parquet"
    process = subprocess.Popen([sys.executable, "-m", "balance", "simulate", "bird-weather",
                                "--games", "200000000", "--chunk-size", "100000", "-q", "--out", str(out)],
                               cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 120
    while time.time() < deadline and not any(p.is_dir() and any(p.iterdir()) for p in tmp_path.iterdir()):
        time.sleep(0.2)  # wait until part files are being written
    assert any(tmp_path.iterdir()), "the run never started writing"
    process.send_signal(signal.SIGTERM)
    _, err = process.communicate(timeout=60)
    assert process.returncode == 130 and "interrupted" in err
    left = list(tmp_path.iterdir())
    assert not out.exists()
    if left:  # a chunk had finished: its parts are kept, and the message says how to finish
        assert left == [tmp_path / ".big.parquet.parts"] and "--resume" in err, (left, err)
        parts = sorted(p.name for p in left[0].iterdir())
        assert "manifest.json" in parts and any(name.endswith(".parquet") for name in parts), parts
        import re

        kept = int(re.search(r"([\d,]+) finished games kept", err).group(1).replace(",", ""))
        # whole chunks, each on disk (a chunk still being written when the signal came may be on disk
        # too without being counted: --resume plays it again)
        assert kept % 100000 == 0 and 0 < kept <= 100000 * sum(name.endswith(".parquet") for name in parts), err
