"""Runs on a Dask cluster (``--cluster local:N``, ``--scheduler ADDRESS``): the same rows and the
same figures as a run in one process, whatever plays the seed ranges.

One local cluster of two worker processes serves the whole file (starting one takes a few
seconds); the command-line tests start their own, as a user's command does."""
from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest

from conftest import balance
from simcore.cluster import DaskExecutor, LocalExecutor, current_executor, open_executor, use
from simcore.driver import run_games
from simcore.errors import BalanceError
from simcore.registry import get_game
from simcore.parts import run_meta

VOLATILE = ("created", "seconds")


@pytest.fixture(scope="module")
def cluster():
    with open_executor("local:2") as executor:
        yield executor


def _meta(path):
    meta = run_meta(path)
    return {k: v for k, v in meta.items() if k not in VOLATILE}


@pytest.mark.parametrize("name,players,strategies", [
    ("bird-weather", 4, "heuristic,random,greedy,random"),
    ("sky-city", 3, "expected-value,random,cautious:0.2"),  # with run-level trap tallies
])
def test_two_workers_give_the_rows_of_one_process(cluster, tmp_path, name, players, strategies):
    game = get_game(name)
    variant = game.variant()
    setup = game.setup(players, variant)
    lineup = game.lineup(strategies, players)
    assert len(cluster.client.scheduler_info(n_workers=-1)["workers"]) == 2
    here, there = tmp_path / "here.parquet", tmp_path / "there.parquet"
    run_games(game, setup, lineup, variant, 3, 41_000, chunk_size=41_000, out=here, progress=False,
              executor=LocalExecutor())
    run_games(game, setup, lineup, variant, 3, 41_000, chunk_size=3_000, out=there, progress=False,
              executor=cluster)
    assert pl.read_parquet(here).equals(pl.read_parquet(there))
    assert _meta(here) == _meta(there)
    # without an output file the rows come back in memory, in game order
    frame = run_games(game, setup, lineup, variant, 3, 9_000, chunk_size=1_000, progress=False,
                      executor=cluster).frame
    assert frame.equals(pl.read_parquet(here).head(9_000))


def test_use_makes_every_run_use_the_cluster(cluster):
    assert current_executor() is None
    game = get_game("triatri")
    with use(cluster):
        assert current_executor() is cluster
        result = run_games(game, game.setup(3, game.variant()), game.lineup("heuristic", 3), game.variant(), 1,
                           5_000, chunk_size=700, progress=False)
    assert current_executor() is None and result.frame.height == 5_000
    prepared = cluster.client.run(lambda: sorted(__import__("simcore.cluster", fromlist=["_"])._PREPARED))
    assert any(prepared.values())


def test_a_worker_with_another_engine_is_refused(cluster, monkeypatch):
    import simcore.cache

    game = get_game("bird-weather")
    monkeypatch.setattr(simcore.cache, "FINGERPRINT", "0123456789ab")
    other = DaskExecutor(cluster.client, "local:2")
    with pytest.raises(BalanceError, match="runs another balance engine .* install the same balance"):
        run_games(game, game.setup(4, game.variant()), game.lineup("random", 4), game.variant(), 1, 100,
                  progress=False, executor=other)


def test_a_plugin_reaches_the_workers(cluster, tmp_path):
    from pathlib import Path

    plugin = Path(__file__).resolve().parents[2] / "examples" / "plugins" / "low_ones.py"
    game = get_game("bird-weather")
    lineup = game.lineup("low-ones,random,random,random", 4, [plugin])
    setup = game.setup(4, game.variant())
    here = run_games(game, setup, lineup, game.variant(), 2, 3_000, chunk_size=3_000, progress=False).frame
    there = run_games(game, setup, lineup, game.variant(), 2, 3_000, chunk_size=500, progress=False,
                      executor=cluster).frame
    assert here.equals(there)


def test_command_line_cluster_runs(tmp_path):
    """`simulate --cluster local:2` writes the file one process writes; `tournament` passes its
    cluster to every seating and prints the same figures."""
    here, there = tmp_path / "here.parquet", tmp_path / "there.parquet"
    common = ("simulate", "ten-tricks", "-n", 20_000, "--seed", 4, "-q")
    assert balance(*common, "--out", here)[0] == 0
    code, out, err = balance(*common, "--out", there, "--cluster", "local:2", "--chunk-size", 3_000)
    assert code == 0, err
    assert pl.read_parquet(here).equals(pl.read_parquet(there)) and _meta(here) == _meta(there)
    tournament = ("tournament", "triatri", "-p", 3, "--strategies", "random,heuristic", "-n", 3_000, "--json", "-q")
    code, alone, err = balance(*tournament)
    assert code == 0, err
    code, spread, err = balance(*tournament, "--cluster", "local:2")
    assert code == 0, err
    drop = ("seconds", "games_per_second")
    assert ({k: v for k, v in json.loads(alone).items() if k not in drop}
            == {k: v for k, v in json.loads(spread).items() if k not in drop})


@pytest.mark.parametrize("args,fragment", [
    (["--cluster", "local:0"], "--cluster must be local:N"),
    (["--cluster", "remote"], "--cluster must be local:N"),
    (["--cluster", "local:2", "--scheduler", "tcp://127.0.0.1:1"], "not both"),
    (["--scheduler", "127.0.0.1:8786"], "--scheduler must be a Dask scheduler address"),
    (["--scheduler", "tcp://127.0.0.1:1"], "cannot reach the Dask scheduler at tcp://127.0.0.1:1"),
])
def test_bad_cluster_options_are_one_line(args, fragment, monkeypatch):
    # the same refusal after 2 s of trying a closed port as after the default 15 s
    monkeypatch.setattr("simcore.cluster.CONNECT_TIMEOUT", "2s")
    code, out, err = balance("simulate", "bird-weather", "-n", 10, "-q", *args)
    assert code == 2 and out == "" and len(err.splitlines()) == 1 and fragment in err, err


def test_bench_scale_reports_memory_and_speedups():
    """`balance bench --scale` with small sizes (the real one, 10^6 and 10^8 games, is in BENCHMARKS.md)."""
    code, out, err = balance("bench", "--scale", "--scale-games", "20000,80000", "--scale-speed-games", 30_000, "--json")
    assert code == 0, err
    result = json.loads(out)
    assert [m["games"] for m in result["memory"]] == [20_000, 80_000]
    assert all(m["peak_mb"] > 50 for m in result["memory"])  # the whole process: Python, Numba, Polars
    assert result["peak_ratio"] < 1.2  # flat: four times the games, not four times the memory
    for key in ("thread_speedup", "worker_speedup", "seconds_1_thread", "seconds_2_workers", "loop_seconds_1_thread",
                "ratio_all_threads", "projected_share"):
        assert result[key] > 0
    assert len(result["load_average"]) == 3
    without = result["without_out"]  # the same without a file: `balance simulate` of each size, no --out
    assert [m["games"] for m in without["memory"]] == [20_000, 80_000]
    assert all(m["peak_mb"] > 50 and m["play_seconds"] > 0 for m in without["memory"])
    assert without["peak_ratio"] < 1.2 and without["ratio_1_thread"] > 0 and without["ratio_all_threads"] > 0


def test_scheduler_address_with_dask_scheduler_and_workers(tmp_path):
    """The set-up of docs/scaling.md on one machine: `dask scheduler` and two `dask worker`
    processes started from the shell, `--scheduler tcp://127.0.0.1:PORT` from balance; the
    output and the compile cache are on the storage every process shares."""
    import os
    import socket
    import subprocess
    import sys
    import time
    from pathlib import Path

    dask = Path(sys.executable).with_name("dask")
    with socket.socket() as probe:  # a free port on the loopback
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    address = f"tcp://127.0.0.1:{port}"
    root = Path(__file__).resolve().parents[2]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(root), os.environ.get("PYTHONPATH", "")]),
           "NUMBA_NUM_THREADS": "1"}
    quiet = dict(stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, cwd=tmp_path)
    processes = [subprocess.Popen([str(dask), "scheduler", "--host", "127.0.0.1", "--port", str(port),
                                   "--no-dashboard"], **quiet)]
    try:
        deadline = time.monotonic() + 60
        while True:  # wait for the scheduler to listen
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert time.monotonic() < deadline, "the scheduler did not start"
                time.sleep(0.2)
        for _ in range(2):
            processes.append(subprocess.Popen([str(dask), "worker", address, "--nworkers", "1", "--nthreads", "1",
                                               "--no-dashboard"], **quiet))
        here, there = tmp_path / "here.parquet", tmp_path / "shared" / "there.parquet"
        common = ("simulate", "chimera", "-n", 12_000, "--seed", 8, "-q", "--strategies", "heuristic,random,random,random")
        assert balance(*common, "--out", here)[0] == 0
        code, out, err = balance(*common, "--out", there, "--scheduler", address, "--chunk-size", 2_000)
        assert code == 0, err
        assert pl.read_parquet(here).equals(pl.read_parquet(there)) and _meta(here) == _meta(there)
    finally:
        for process in reversed(processes):
            process.terminate()
        for process in processes:
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()


@pytest.mark.filterwarnings("ignore::pytest.PytestUnhandledThreadExceptionWarning")  # the killed worker's reply
def test_workers_write_their_own_rows_and_a_killed_worker_loses_only_its_chunk(cluster, tmp_path, monkeypatch):
    """With a cluster, each worker writes the chunks it plays to the run's part folder and sends
    back only their figures; a worker killed mid-run costs the chunk it was playing, which Dask
    plays again elsewhere: the same rows as one process."""
    import os
    import threading

    game = get_game("bird-weather")
    variant = game.variant()
    setup = game.setup(4, variant)
    lineup = game.lineup("random", 4)
    received = []
    play = DaskExecutor.play

    def watched(self, *args, **kwargs):
        for item in play(self, *args, **kwargs):
            received.append(item[2])  # the rows, had they travelled
            if len(received) == 4:  # mid-run: kill one worker process (its nanny starts another)
                victim = sorted(self.client.scheduler_info(n_workers=-1)["workers"])[0]
                threading.Thread(target=self.client.run, args=(os._exit, 1), kwargs={"workers": [victim]},
                                 daemon=True).start()
            yield item

    monkeypatch.setattr(DaskExecutor, "play", watched)
    here, there = tmp_path / "here.parquet", tmp_path / "there.parquet"
    run_games(game, setup, lineup, variant, 8, 60_000, chunk_size=60_000, out=here, progress=False,
              executor=LocalExecutor())
    run_games(game, setup, lineup, variant, 8, 60_000, chunk_size=2_000, out=there, progress=False,
              executor=cluster)
    assert len(received) >= 30 and all(columns is None for columns in received)
    assert pl.read_parquet(here).equals(pl.read_parquet(there)) and _meta(here) == _meta(there)
    cluster.client.wait_for_workers(2, timeout=60)


def test_resume_after_the_client_dies(tmp_path):
    """The command's process and its local cluster killed (SIGKILL) mid-run: the parts the
    workers wrote are kept, and --resume finishes the same rows."""
    import os
    import signal
    import subprocess
    import sys
    import time

    from simcore.parts import parts_folder

    root = Path(__file__).resolve().parents[2]
    out = tmp_path / "run.parquet"
    args = ["simulate", "bird-weather", "-n", 1_000_000, "--seed", 6, "--chunk-size", 5_000, "-q", "--out", out]
    process = subprocess.Popen([sys.executable, "-m", "balance", *map(str, args), "--cluster", "local:2"], cwd=root,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    parts = parts_folder(out)
    deadline = time.monotonic() + 240
    try:
        while len(list(parts.glob("part-*.parquet"))) < 4:
            assert process.poll() is None, "the run ended before it could be killed"
            assert time.monotonic() < deadline, "no parts written in time"
            time.sleep(0.05)
    finally:
        os.killpg(process.pid, signal.SIGKILL)  # the client, its scheduler and its workers
        process.wait()
    kept = len(list(parts.glob("part-*.parquet")))
    assert not out.exists() and 4 <= kept < 200
    code, text, err = balance(*args, "--resume")
    assert code == 0, err
    assert "kept from the interrupted run" in text
    whole = tmp_path / "whole.parquet"
    assert balance(*args[:-1], whole)[0] == 0
    assert pl.read_parquet(out).equals(pl.read_parquet(whole)) and _meta(out) == _meta(whole)


def test_a_worker_that_does_not_see_the_folder_sends_rows_and_unseen_parts_are_refused(tmp_path):
    """The task itself, in this process: with a folder it sees, a worker writes the part and
    sends figures; with one it does not see (a command's scratch folder on another machine) it
    sends the rows back. A run whose parts were reported but are not in the command's folder
    (written by a worker to a folder of the same name on its own disk) is refused, not finished."""
    from simcore.cluster import make_job, play_range
    from simcore.parts import Parts, parts_folder

    game = get_game("ten-tricks")
    setup = game.setup(3, game.variant())
    lineup = game.lineup("random", 3)
    folder = tmp_path / "seen"
    folder.mkdir()
    start, n, columns, _, figures = play_range(make_job(game, setup, lineup, 4, 1, folder), 100, 50)
    assert columns is None and (folder / f"part-{100:020d}-{50:020d}.parquet").is_file()
    start, n, columns, _, info = play_range(make_job(game, setup, lineup, 4, 1, tmp_path / "unseen"), 100, 50)
    assert info is None and len(columns["game"]) == 50 and not (tmp_path / "unseen").exists()
    assert figures["wins"] == [float(columns[f"share_{s}"].astype("float64").sum()) for s in range(3)]

    out = tmp_path / "run.parquet"
    parts = Parts(out)
    parts.open({"game": "ten-tricks"}, resume=False)
    parts.record(0, 50, figures)  # reported, never written here
    with pytest.raises(BalanceError, match="this machine does not see: put --out on storage every worker shares"):
        parts.publish([0], {"game": "ten-tricks"})
    assert not out.exists() and parts_folder(out).is_dir()
