"""Runs that hold up (issue 16): interrupted runs resume to the same rows, outputs are never
overwritten by accident or by a second run at once, and every failure of the machine or of a
file is one line and exit code 2.

A run killed outright (SIGKILL) is a separate Python process; the rest runs in this process
through the console script's entry point (``balance()``), with fakes where a disk would have to
fill up."""
from __future__ import annotations

import errno
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import polars as pl
import pyarrow.parquet as pq
import pytest

from conftest import balance
from simcore.cache import FINGERPRINT
from simcore.driver import parts_folder, run_games
from simcore.errors import BalanceError, RunInterrupted
from simcore.outputs import claim_output, lock_path
from simcore.version import SCHEMA_VERSION, __version__
from simcore.parts import run_meta

ROOT = Path(__file__).resolve().parents[2]
VOLATILE = ("created", "seconds")  # when and how fast: the only metadata two equal runs may differ in


def rows_and_meta(path):
    meta = run_meta(path)
    return pl.read_parquet(path), {k: v for k, v in meta.items() if k not in VOLATILE}


def assert_same_run(a, b):
    rows_a, meta_a = rows_and_meta(a)
    rows_b, meta_b = rows_and_meta(b)
    assert rows_a.equals(rows_b)
    assert meta_a == meta_b


def one_line(code, out, err, *fragments):
    assert code == 2, (code, out, err)
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("balance: error: ") and "Traceback" not in err, err
    for fragment in fragments:
        assert fragment in lines[0], lines[0]


def _simulate(out, *extra, games=20_000, game="bird-weather"):
    """One thread unless ``extra`` says otherwise: chunks then play one after another, so "after K
    chunks" (``_interrupt_after``) and "the third write" are exact."""
    threads = () if "--threads" in extra else ("--threads", 1)
    return balance("simulate", game, "-n", games, "--seed", 5, "--chunk-size", 3_000, "-q", "--out", out, *threads,
                   *extra)


def _interrupt_after(monkeypatch, game, chunks: int):
    """Make the run_chunk of ``game`` raise KeyboardInterrupt (Ctrl-C) after ``chunks`` chunks
    (the driver's warm-up call counts as one)."""
    calls = {"n": 0}
    original = type(game).run_chunk

    def interrupted(self, *args):
        calls["n"] += 1
        if calls["n"] == chunks + 2:
            raise KeyboardInterrupt
        return original(self, *args)

    monkeypatch.setattr(type(game), "run_chunk", interrupted)
    return lambda: monkeypatch.setattr(type(game), "run_chunk", original)


# --------------------------------------------------------------------------------------------
# resume
# --------------------------------------------------------------------------------------------

def test_sigkill_then_resume_is_bit_identical(tmp_path):
    killed = tmp_path / "killed.parquet"
    args = ["simulate", "bird-weather", "-n", "400000", "--seed", "9", "--chunk-size", "10000", "--threads", "1",
            "-q", "--out", str(killed)]
    process = subprocess.Popen([sys.executable, "-m", "balance", *args], cwd=ROOT,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    parts = parts_folder(killed)
    deadline = time.monotonic() + 240
    try:
        while len(list(parts.glob("part-*.parquet"))) < 3:
            assert process.poll() is None, "the run ended before it could be killed"
            assert time.monotonic() < deadline, "no parts written in time"
            time.sleep(0.05)
    finally:
        process.send_signal(signal.SIGKILL)
        process.wait()
    assert not killed.exists() and parts.is_dir()
    kept = len(list(parts.glob("part-*.parquet")))
    assert 3 <= kept < 40

    code, out, err = balance(*args[:-1], killed, "--resume", "--chunk-size", "64000")
    assert code == 0, err
    assert "played now" in out and "kept from the interrupted run" in out
    whole = tmp_path / "whole.parquet"
    code, _, err = balance(*args[:-2], "--out", whole, "--threads", "2")
    assert code == 0, err
    assert_same_run(killed, whole)
    # nothing hidden is left: no part folder, no lock file
    assert sorted(p.name for p in tmp_path.iterdir()) == ["killed.parquet", "whole.parquet"]


def test_sigterm_keeps_finished_chunks_and_says_how_to_finish(tmp_path):
    out = tmp_path / "run.parquet"
    process = subprocess.Popen([sys.executable, "-m", "balance", "simulate", "sky-city", "-n", "2000000",
                                "--chunk-size", "5000", "--threads", "2", "-q", "--out", str(out)],
                               cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    parts = parts_folder(out)
    deadline = time.monotonic() + 240
    while len(list(parts.glob("part-*.parquet"))) < 2 and time.monotonic() < deadline and process.poll() is None:
        time.sleep(0.05)
    process.send_signal(signal.SIGTERM)
    stdout, stderr = process.communicate(timeout=120)
    assert process.returncode == 130, stderr
    assert stderr.count("\n") == 1 and stderr.startswith("balance: interrupted: ") and "--resume" in stderr, stderr
    # every part the two threads finished is counted, the one awaited when the signal came included
    kept = len(list(parts.glob("part-*.parquet")))
    assert f" {kept * 5_000:,} finished games kept" in stderr, (kept, stderr)
    assert not list(parts.glob(".part-*"))
    assert not out.exists() and parts.is_dir() and not lock_path(out).exists()


@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")  # the dropped exception
def test_a_signal_dropped_inside_a_ctypes_callback_still_stops_the_run(tmp_path, monkeypatch):
    """A SIGTERM whose KeyboardInterrupt lands inside one of llvmlite's ctypes callbacks (Numba
    compiling or loading a kernel) is printed as "Exception ignored" and dropped; the run must
    stop anyway, at the next chunk, and keep nothing half-written (test_cli's SIGTERM test once hung
    on a run that went on)."""
    import ctypes

    from simcore import driver

    compile_kernels = driver.compile_kernels
    dropped = []

    def compile_then_signal(*args, **kwargs):
        compile_kernels(*args, **kwargs)

        def callback():  # the handler runs in here and its exception goes nowhere
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(0.05)

        ctypes.CFUNCTYPE(None)(callback)()
        dropped.append(True)                           # the call came back as if nothing happened

    monkeypatch.setattr(driver, "compile_kernels", compile_then_signal)
    code, _, err = _simulate(tmp_path / "run.parquet", games=30_000)
    assert dropped == [True]
    assert code == 130 and err.strip() == "balance: interrupted", err
    assert list(tmp_path.iterdir()) == []              # no chunk was played: nothing kept
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL and driver._interrupted


def test_ctrl_c_then_resume_with_other_chunks_and_threads(tmp_path, monkeypatch):
    """Sky City keeps run-level trap tallies beside the rows: they survive the interruption too."""
    from simcore.registry import get_game

    game = get_game("sky-city")
    out = tmp_path / "sc.parquet"
    restore = _interrupt_after(monkeypatch, game, 2)
    code, _, err = _simulate(out, game="sky-city")
    assert code == 130 and err.strip() == (f"balance: interrupted: 6,000 finished games kept in "
                                           f"{parts_folder(out)}: run the same command with --resume to finish")
    restore()
    code, out_text, err = balance("simulate", "sky-city", "-n", 20_000, "--seed", 5, "--chunk-size", 7_000, "-q",
                                  "--threads", 1, "--out", out, "--resume")
    assert code == 0, err
    assert "14,000 played now" in out_text
    whole = tmp_path / "whole.parquet"
    assert _simulate(whole, game="sky-city")[0] == 0
    assert_same_run(out, whole)
    assert run_meta(out)["trap_tallies"]["judged"]


def test_duplicate_deals_on_disk_resume_to_the_rows_played_in_memory(tmp_path, bird_weather, monkeypatch):
    """A run of duplicate deals (``start=DUPLICATE``: whatif and sweep write them) records where it
    starts, resumes after Ctrl-C to the same rows as one played in memory, refuses to be resumed
    as a run from game 0, and is refused by the summary, whose intervals take games as independent."""
    import simcore
    from analysis.summary import summarize
    from simcore.registry import DUPLICATE

    setup, variant = bird_weather.setup(4, bird_weather.variant()), bird_weather.variant()
    lineup = bird_weather.lineup(None, 4)
    out = tmp_path / "dup.parquet"

    def run(**options):
        return run_games(bird_weather, setup, lineup, variant, 5, 8_000, chunk_size=3_000, threads=1, out=out,
                         progress=False, start=DUPLICATE, **options)

    restore = _interrupt_after(monkeypatch, bird_weather, 1)
    with pytest.raises(RunInterrupted):
        run()
    restore()
    result = run(resume=True)
    assert result.extra["played"] == 5_000  # the first chunk was kept
    meta = run_meta(out)
    assert meta["design"] == "duplicate" and meta["config"]["start"] == DUPLICATE
    frame = pl.read_parquet(out)
    memory = simcore.run("bird-weather", players=4, games=8_000, seed=5, duplicate=True).frame
    assert frame.equals(memory)
    assert frame["game"][0] == DUPLICATE and frame["game"][-1] == DUPLICATE + 7_999
    with pytest.raises(BalanceError, match="holds another run"):  # the same command from game 0
        run_games(bird_weather, setup, lineup, variant, 5, 8_000, out=out, progress=False, resume=True)
    with pytest.raises(BalanceError, match="duplicate deals .* judge them by deal"):
        summarize(pl.scan_parquet(out), meta)
    code, text, err = balance("report", out, "--out", tmp_path / "report")
    assert code == 2 and text == "" and err.count("\n") == 1 and "per-game intervals do not apply" in err


def test_ctrl_c_on_two_threads_keeps_every_chunk_finished_and_says_how_many(tmp_path, bird_weather, monkeypatch):
    """Two chunks play side by side: Ctrl-C while one plays keeps the other once it is written,
    and the line counts exactly the games of the parts left on disk."""
    out = tmp_path / "run.parquet"
    restore = _interrupt_after(monkeypatch, bird_weather, 3)
    code, _, err = _simulate(out, "--threads", 2)
    restore()
    parts = sorted(parts_folder(out).glob("part-*.parquet"))
    kept = sum(pl.read_parquet(p).height for p in parts)
    assert code == 130 and 3 * 3_000 <= kept < 20_000 and len(parts) * 3_000 == kept
    assert f"{kept:,} finished games kept" in err
    assert not list(parts_folder(out).glob(".part-*"))  # nothing half-written
    assert _simulate(out, "--resume", "--threads", 2)[0] == 0
    whole = tmp_path / "whole.parquet"
    assert _simulate(whole)[0] == 0
    assert_same_run(out, whole)


def test_resume_refuses_another_configuration_and_a_new_run_cleans_up(tmp_path, bird_weather, monkeypatch):
    out = tmp_path / "run.parquet"
    restore = _interrupt_after(monkeypatch, bird_weather, 1)
    assert _simulate(out)[0] == 130
    restore()
    for extra, word in ((["--seed", 6], "seed"), (["--strategies", "heuristic"], "strategies"),
                        (["-n", 30_000], "games"), (["--deals", 2], "variant")):
        code, out_text, err = balance("simulate", "bird-weather", "-n", 20_000, "--seed", 5, "-q", "--out", out,
                                      "--resume", *extra)
        one_line(code, out_text, err, "--resume", word, "--force")
    assert len(list(parts_folder(out).glob("part-*"))) == 1
    # a new run (no --resume) starts afresh: the stale parts go, the result is whole
    assert _simulate(out, games=7_000)[0] == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run.parquet"]
    assert pl.read_parquet(out).height == 7_000


def test_precision_run_resumes_to_the_same_stop(tmp_path, bird_weather, monkeypatch):
    out, whole = tmp_path / "p.parquet", tmp_path / "whole.parquet"
    restore = _interrupt_after(monkeypatch, bird_weather, 3)
    args = ("simulate", "bird-weather", "-n", 200_000, "--precision", 0.004, "--chunk-size", 5_000, "-q")
    assert balance(*args, "--threads", 1, "--out", out)[0] == 130
    restore()
    assert balance(*args[:-3], "--chunk-size", 17_000, "-q", "--out", out, "--resume")[0] == 0
    assert balance(*args, "--out", whole)[0] == 0
    assert_same_run(out, whole)


def test_resume_of_a_finished_run_plays_nothing(tmp_path):
    out = tmp_path / "run.parquet"
    assert _simulate(out)[0] == 0
    before = out.stat().st_mtime_ns
    code, text, err = _simulate(out, "--resume")
    assert code == 0 and "20,000 games (0 played now: the run was already finished)" in text, err
    assert out.stat().st_mtime_ns == before
    one_line(*_simulate(out, "--resume", "--seed", 6), "finished", "another run", "--force")


# --------------------------------------------------------------------------------------------
# safe outputs
# --------------------------------------------------------------------------------------------

def test_missing_parent_folders_are_made(tmp_path):
    out = tmp_path / "runs" / "2026" / "bw.parquet"
    assert _simulate(out, games=3_000)[0] == 0 and (out / "_run.parquet").is_file()
    report = tmp_path / "reports" / "deep" / "bw"
    code, text, err = balance("report", out, "--out", report)
    assert code == 0 and (report / "report.html").is_file(), err


def test_existing_output_is_refused_unless_force(tmp_path):
    out = tmp_path / "run.parquet"
    assert _simulate(out, games=3_000)[0] == 0
    first = pl.read_parquet(out)
    one_line(*_simulate(out, "--seed", 6, games=3_000), "exists", "--force", "--resume")
    assert pl.read_parquet(out).equals(first)
    one_line(*_simulate(out, "--force", "--resume", games=3_000), "not both")
    assert _simulate(out, "--force", games=4_000)[0] == 0
    assert pl.read_parquet(out).height == 4_000
    # report folders too
    folder = tmp_path / "report"
    assert balance("report", out, "--out", folder)[0] == 0
    one_line(*balance("report", out, "--out", folder), "report folder exists", "--force")
    assert balance("report", out, "--out", folder, "--force")[0] == 0
    code, text, err = balance("whatif", "bird-weather", "--variant", ROOT / "examples/variants/bird-weather-no-reversal.toml",
                              "-n", 100, "-q", "--out", folder)
    one_line(code, text, err, "report folder exists")


def test_a_second_run_on_the_same_output_refuses_at_start(tmp_path):
    out = tmp_path / "run.parquet"
    with claim_output(out):  # another run holds the output
        assert lock_path(out).is_file()
        one_line(*_simulate(out, games=1_000), "being written by another balance run", str(os.getpid()))
        one_line(*_simulate(out, "--force", games=1_000), "being written by another balance run")
        with pytest.raises(BalanceError, match="another balance run"):
            claim_output(out)
    assert not lock_path(out).exists() and not out.exists()
    assert _simulate(out, games=1_000)[0] == 0
    folder = tmp_path / "book"
    with claim_output(folder, folder=True):
        one_line(*balance("book", "--out", folder, "-n", 100, "--game", "triatri", "--skill-games", 0, "-q"),
                 "being written by another balance run")
    assert not folder.exists()


def test_concurrent_processes_one_output(tmp_path):
    out = tmp_path / "run.parquet"
    first = subprocess.Popen([sys.executable, "-m", "balance", "simulate", "bird-weather", "-n",
                              "3000000", "--chunk-size", "20000", "--threads", "1", "-q", "--out", str(out)],
                             cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 240
        while not parts_folder(out).exists():
            assert first.poll() is None and time.monotonic() < deadline
            time.sleep(0.05)
        one_line(*_simulate(out, games=1_000), "being written by another balance run", str(first.pid))
        one_line(*_simulate(out, "--resume", games=1_000), "being written by another balance run")
    finally:
        first.send_signal(signal.SIGKILL)
        first.wait()
    # the lock died with the process: the next run takes it
    assert _simulate(out, games=1_000)[0] == 0


# --------------------------------------------------------------------------------------------
# the machine says no: one line, exit 2
# --------------------------------------------------------------------------------------------

def _disk_full(*args, **kwargs):
    raise OSError(errno.ENOSPC, "No space left on device")


def test_full_disk_while_writing_parts(tmp_path, monkeypatch):
    out = tmp_path / "run.parquet"
    original = pq.write_table  # a part file, by the thread that played its chunk
    written = {"n": 0}

    def fills_up(*args, **kwargs):
        written["n"] += 1
        if written["n"] > 2:
            _disk_full()
        return original(*args, **kwargs)

    monkeypatch.setattr(pq, "write_table", fills_up)
    code, text, err = _simulate(out, "--threads", 2)  # two chunks at a time: both of the last two fail
    one_line(code, text, err, f"cannot write {out}: the disk is full", "6,000 finished games kept", "--resume")
    assert not out.exists() and not lock_path(out).exists()
    assert not list(parts_folder(out).glob(".part-*"))  # no half-written part
    monkeypatch.setattr(pq, "write_table", original)
    assert _simulate(out, "--resume")[0] == 0
    whole = tmp_path / "whole.parquet"
    assert _simulate(whole)[0] == 0
    assert_same_run(out, whole)


def test_full_disk_while_finishing_the_run(tmp_path, monkeypatch):
    out = tmp_path / "run.parquet"
    original = pl.DataFrame.write_parquet

    def fills_up(self, target, *args, **kwargs):  # every part fits; the run's metadata file does not
        if Path(target).name == ".run.tmp":
            Path(target).write_bytes(b"PAR1")
            _disk_full()
        return original(self, target, *args, **kwargs)

    monkeypatch.setattr(pl.DataFrame, "write_parquet", fills_up)
    one_line(*_simulate(out), "the disk is full", "20,000 finished games kept", "--resume")
    assert not out.exists()
    assert sorted(p.name for p in parts_folder(out).iterdir() if not p.name.startswith("part-")) == ["manifest.json"]
    monkeypatch.setattr(pl.DataFrame, "write_parquet", original)
    assert _simulate(out, "--resume")[0] == 0
    whole = tmp_path / "whole.parquet"
    assert _simulate(whole)[0] == 0
    assert_same_run(out, whole)


def test_full_disk_while_writing_a_report(tmp_path, monkeypatch):
    run = tmp_path / "run.parquet"
    assert _simulate(run, games=2_000)[0] == 0
    monkeypatch.setattr(Path, "write_bytes", _disk_full)
    folder = tmp_path / "report"
    one_line(*balance("report", run, "--out", folder), f"cannot write {folder}: the disk is full")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run.parquet"]


def test_unwritable_places(tmp_path):
    one_line(*_simulate("/proc/balance/run.parquet", games=100), "cannot create folder /proc/balance")
    one_line(*balance("book", "--out", "/proc/balance-book", "-n", 100, "--game", "triatri", "-q"), "/proc")
    blocker = tmp_path / "file"
    blocker.write_text("x")
    one_line(*balance("report", ROOT / "nothing.parquet", "--out", blocker / "r"), "is not a directory")


# --------------------------------------------------------------------------------------------
# what a run file says about what made it, and files report must refuse
# --------------------------------------------------------------------------------------------

def test_run_file_metadata_traces_every_figure(tmp_path):
    out = tmp_path / "run.parquet"
    variant = ROOT / "examples/variants/bird-weather-no-reversal.toml"
    assert _simulate(out, "--variant", variant, "--strategies", "heuristic,random,random,search:d=2:p=1",
                     games=500)[0] == 0
    meta = run_meta(out)
    assert meta["schema"] == SCHEMA_VERSION and meta["version"] == __version__
    assert meta["engine_hash"] == FINGERPRINT and len(meta["rules_hash"]) == 16 and meta["plugin_hashes"] == {}
    config = meta["config"]
    assert {k: config[k] for k in ("game", "players", "seed", "games", "engine", "rules", "schema")} == {
        "game": "bird-weather", "players": 4, "seed": 5, "games": 500, "engine": FINGERPRINT,
        "rules": meta["rules_hash"], "schema": SCHEMA_VERSION}
    assert config["strategies"] == ["heuristic", "random", "random", "search:d=2:p=1"]
    assert config["variant"]["reversal"] is False
    other = tmp_path / "published.parquet"
    assert _simulate(other, games=500)[0] == 0
    assert run_meta(other)["rules_hash"] != meta["rules_hash"]


def test_plugin_sources_are_hashed(tmp_path):
    from simcore.driver import run_config
    from simcore.registry import get_game

    plugin = ROOT / "examples" / "plugins" / "low_ones.py"
    game = get_game("bird-weather")
    setup = game.setup(4, game.variant())
    lineup = game.lineup("low-ones,random,random,random", 4, [plugin])
    config = run_config(game, setup, lineup, game.variant(), 1, 10)
    import hashlib

    assert config["plugins"] == [{"file": "low_ones.py", "sha256": hashlib.sha256(plugin.read_bytes()).hexdigest()}]


def _rewrite(source, target, meta_change=None, rows=None):
    frame = pl.read_parquet(source)
    meta = run_meta(source)
    if meta_change:
        meta = meta_change(meta)
    (frame if rows is None else rows(frame)).write_parquet(target, metadata={"balance": json.dumps(meta)})
    return target


def test_report_refuses_files_it_cannot_trust(tmp_path):
    run = tmp_path / "run.parquet"
    assert _simulate(run, games=2_000)[0] == 0
    old = _rewrite(run, tmp_path / "old.parquet", lambda m: {k: v for k, v in m.items() if k != "schema"})
    newer = _rewrite(run, tmp_path / "newer.parquet", lambda m: {**m, "schema": SCHEMA_VERSION + 1})
    empty = _rewrite(run, tmp_path / "empty.parquet", rows=lambda f: f.head(0))
    filtered = _rewrite(run, tmp_path / "filtered.parquet", rows=lambda f: f.filter(pl.col("share_0") > 0))
    truncated = _rewrite(run, tmp_path / "truncated.parquet")  # one file, as balance wrote runs before
    truncated.write_bytes(truncated.read_bytes()[: truncated.stat().st_size // 2])
    plain = tmp_path / "plain.parquet"
    pl.DataFrame({"x": [1]}).write_parquet(plain)
    cases = {old: ["older balance", "simulate it again"], newer: [f"schema {SCHEMA_VERSION + 1}", "simulate it again"],
             empty: ["holds no games"], filtered: ["of the 2,000 games", "filtered"],
             truncated: ["not a Parquet file"], plain: ["not a balance results file"]}
    for path, fragments in cases.items():
        one_line(*balance("report", path, "--out", tmp_path / f"r-{path.stem}"), str(path), *fragments)
        assert not (tmp_path / f"r-{path.stem}").exists()
    one_line(*balance("replay", "bird-weather", "--run", old), "older balance")


def test_a_run_is_a_folder_every_reader_takes_as_one_table(tmp_path):
    """A run is a folder of Parquet parts plus _run.parquet: Polars, pandas and pyarrow read it
    as one table in game order, the same rows as the run in memory; --force replaces a
    single-file run of an earlier balance with a folder; a folder that is not a run is refused."""
    import pandas as pd
    import pyarrow.parquet as pq

    import simcore

    out = tmp_path / "run.parquet"
    assert _simulate(out, games=10_000)[0] == 0
    names = sorted(p.name for p in out.iterdir())
    assert names[0] == "_run.parquet" and len(names) == 1 + 4  # 3,000-game chunks
    assert names[1:] == [f"part-{s:020d}-{min(3_000, 10_000 - s):020d}.parquet" for s in range(0, 10_000, 3_000)]
    rows = simcore.run("bird-weather", games=10_000, seed=5).frame
    assert pl.read_parquet(out).equals(rows) and pl.scan_parquet(out).collect().equals(rows)
    assert pl.from_arrow(pq.read_table(out)).equals(rows)
    assert pd.read_parquet(out)["game"].tolist() == list(range(10_000))
    assert run_meta(out)["games"] == 10_000 and pl.read_parquet(out / "_run.parquet").height == 0
    part = pq.ParquetFile(out / names[1]).metadata.row_group(0)  # the encoding docs/scaling.md states
    assert {(part.column(i).encodings[-1], part.column(i).compression) for i in range(part.num_columns)} == {
        ("BYTE_STREAM_SPLIT", "LZ4")}

    single = tmp_path / "single.parquet"  # as balance wrote runs before they were folders
    rows.write_parquet(single, metadata={"balance": json.dumps(run_meta(out))})
    assert balance("report", single, "--out", tmp_path / "report-single")[0] == 0
    assert _simulate(single, "--force", games=10_000)[0] == 0
    assert single.is_dir() and pl.read_parquet(single).equals(rows)
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == []  # nothing left aside

    other = tmp_path / "photos"
    other.mkdir()
    (other / "a.jpg").write_bytes(b"x")
    one_line(*_simulate(other, "--force", games=100), "is a folder")
    assert sorted(p.name for p in other.iterdir()) == ["a.jpg"]


def test_resume_of_an_interrupted_force_run_finishes_it(tmp_path, bird_weather, monkeypatch):
    """--force over an old file, interrupted: --resume finishes the new run (the old file stayed
    until then), it does not refuse the old file."""
    out = tmp_path / "run.parquet"
    assert _simulate(out, "--seed", 6, games=3_000)[0] == 0
    restore = _interrupt_after(monkeypatch, bird_weather, 1)
    assert _simulate(out, "--force")[0] == 130
    assert pl.read_parquet(out).height == 3_000  # the old file is untouched
    restore()
    assert _simulate(out, "--resume")[0] == 0
    whole = tmp_path / "whole.parquet"
    assert _simulate(whole)[0] == 0
    assert_same_run(out, whole)
