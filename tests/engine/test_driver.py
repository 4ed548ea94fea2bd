"""The driver: same seed → same rows, whatever the thread count or chunk size; files
appear whole or not at all."""
import json

import numba
import polars as pl
import pytest

from simcore.driver import run_games
from simcore.errors import BalanceError, RunInterrupted
from simcore.parts import run_meta


def _run(game, out, threads, chunk_size, games=30_000, lineup="heuristic,random,greedy,random"):
    setup = game.setup(4, game.variant())
    return run_games(game, setup, game.lineup(lineup, 4), game.variant(), 42, games, chunk_size=chunk_size,
                     threads=threads, out=out, progress=False)


@pytest.mark.skipif(numba.config.NUMBA_NUM_THREADS < 2, reason="needs two cores")
def test_rows_identical_for_threads_and_chunk_sizes(bird_weather, tmp_path):
    paths = []
    for threads, chunk in [(1, 30_000), (2, 30_000), (2, 4_096), (1, 777)]:
        path = tmp_path / f"t{threads}-c{chunk}.parquet"
        _run(bird_weather, path, threads, chunk)
        paths.append(path)
    first = pl.read_parquet(paths[0])
    assert first.height == 30_000 and first["game"].to_list() == list(range(30_000))
    for path in paths[1:]:
        assert pl.read_parquet(path).equals(first), path.name
    numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)


def test_a_run_grown_in_steps_has_the_rows_of_one_run(bird_weather):
    """``start=`` (the studio's live what-if): games 0..n-1 played as several runs that each start
    where the last stopped are the rows of one run, and a stop rule's games count from start."""
    game = bird_weather
    setup, variant = game.setup(4, game.variant()), game.variant()
    lineup = game.lineup("heuristic,random,greedy,random", 4)
    whole = run_games(game, setup, lineup, variant, 42, 9_000, progress=False).frame
    steps, start = [], 0
    for n in (2_000, 3_000, 4_000):
        steps.append(run_games(game, setup, lineup, variant, 42, n, start=start, progress=False, chunk_size=1_500).frame)
        start += n
    assert pl.concat(steps).equals(whole)
    looked = []
    stopped = run_games(game, setup, lineup, variant, 42, 4_000, start=5_000, progress=False, checkpoints=[1_000, 4_000],
                        stop=lambda wins, games: looked.append(games) or True)
    assert looked == [1_000] and stopped.meta["games"] == 1_000 and stopped.frame.equals(whole.slice(5_000, 1_000))
    for wrong in ({"start": -1}, {"start": 10, "precision": 0.01}):
        with pytest.raises(ValueError, match="start"):
            run_games(game, setup, lineup, variant, 42, 100, progress=False, **wrong)


def test_parquet_schema_and_metadata(bird_weather, tmp_path):
    path = tmp_path / "run.parquet"
    _run(bird_weather, path, None, 10_000, games=25_000)
    frame = pl.read_parquet(path)
    schema = dict(frame.schema)
    assert schema["score_0"] == pl.Int16 and schema["share_0"] == pl.Float32
    assert schema["reversals"] == pl.UInt8 and schema["hand_3"] == pl.UInt64
    meta = run_meta(path)
    assert meta["seed"] == 42 and meta["games"] == 25_000 and meta["players"] == 4
    assert meta["strategies"] == ["heuristic", "random", "greedy", "random"]
    assert meta["variant"]["name"] == "default" and meta["version"]
    shares = frame.select(pl.sum_horizontal(f"share_{s}" for s in range(4))).to_series()
    assert (shares - 1.0).abs().max() < 1e-6
    # nothing else left in the folder: parts and staging files are gone
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run.parquet"]


def test_memory_rows_equal_file_rows(bird_weather, tmp_path):
    in_memory = _run(bird_weather, None, None, 5_000, games=12_000).frame
    _run(bird_weather, tmp_path / "r.parquet", None, 5_000, games=12_000)
    assert pl.read_parquet(tmp_path / "r.parquet").equals(in_memory)


def test_interrupted_run_keeps_finished_chunks_and_no_output(bird_weather, tmp_path, monkeypatch):
    path = tmp_path / "broken.parquet"
    calls = {"n": 0}
    original = type(bird_weather).run_chunk

    def failing(self, *args):
        calls["n"] += 1
        if calls["n"] == 3:  # warm-up, first chunk, then Ctrl-C on the second
            raise KeyboardInterrupt
        return original(self, *args)

    monkeypatch.setattr(type(bird_weather), "run_chunk", failing)
    with pytest.raises(RunInterrupted, match="1,000 finished games kept .* --resume"):
        _run(bird_weather, path, 1, 1_000, games=5_000)  # one thread: chunks in order
    # no output, no lock: only the part folder with the one finished chunk and its manifest
    assert [p.name for p in tmp_path.iterdir()] == [".broken.parquet.parts"]
    assert sorted(p.name for p in (tmp_path / ".broken.parquet.parts").iterdir()) == [
        "manifest.json", f"part-{0:020d}-{1000:020d}.parquet"]


def test_failure_before_any_chunk_leaves_nothing(bird_weather, tmp_path, monkeypatch):
    calls = {"n": 0}
    original = type(bird_weather).run_chunk

    def failing(self, *args):
        calls["n"] += 1
        if calls["n"] == 2:
            raise KeyboardInterrupt
        return original(self, *args)

    monkeypatch.setattr(type(bird_weather), "run_chunk", failing)
    with pytest.raises(KeyboardInterrupt):
        _run(bird_weather, tmp_path / "x.parquet", 1, 1_000, games=5_000)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("kwargs,message", [
    ({"games": 0}, "--games"), ({"games": -3}, "--games"), ({"chunk_size": 0}, "--chunk-size"),
    ({"threads": 99}, "--threads"), ({"seed": -1}, "--seed"),
])
def test_bad_run_arguments(bird_weather, kwargs, message):
    setup = bird_weather.setup(4, bird_weather.variant())
    args = {"games": 10, "chunk_size": 10, "threads": None, "seed": 1, **kwargs}
    with pytest.raises(BalanceError, match=message):
        run_games(bird_weather, setup, bird_weather.lineup("random", 4), bird_weather.variant(), args["seed"],
                  args["games"], chunk_size=args["chunk_size"], threads=args["threads"], progress=False)
