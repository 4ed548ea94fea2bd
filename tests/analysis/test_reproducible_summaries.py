"""Same rows, same summary, to the bit: every total behind a summary and the games' own tables is
an exact integer sum (analysis.summary, "exact totals"), so neither repeated calls nor the
number of Polars threads can change a digit of the JSON, for any of the five games.

The runs are written with small row groups so that Polars' streaming engine splits them into
many pieces that its threads add up in whatever order they finish (a float sum then changes in
its last bits between calls and between thread counts)."""
import json
import math
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import simcore
from analysis import stats
from simcore.parts import run_meta
from analysis.summary import (SHARE_UNITS, fmt_num_ci, fmt_pct_ci, game_figures, load, mean_sd,
                              summarize, summary_json)

ROOT = Path(__file__).resolve().parents[2]
GAMES = 3_000        # per game: a few seconds for all five once the kernels are cached
CHUNK = 700          # several driver chunks, the last one short
ROW_GROUP = 200      # 15 row groups: many pieces for the streaming engine's threads
RUNS = (("bird-weather", 4), ("triatri", 3), ("sky-city", 4), ("ten-tricks", 4), ("chimera", 4))


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict[str, Path]:
    """One results file per game: simulated in several chunks, then rewritten with small row
    groups (rows and metadata unchanged)."""
    folder = tmp_path_factory.mktemp("reproducible")
    paths = {}
    for game, players in RUNS:
        run = simcore.run(game, players=players, games=GAMES, seed=11, chunk_size=CHUNK)
        rows = run.frame
        path = folder / f"{game}.parquet"
        rows.write_parquet(path, row_group_size=ROW_GROUP,
                           metadata={"balance": json.dumps(run.meta)})
        assert run_meta(path) and len(pl.read_parquet(path)) == GAMES
        paths[game] = path
    return paths


def _summary_texts(paths: dict[str, Path]) -> dict[str, str]:
    texts = {}
    for game, path in paths.items():
        frame, meta = load(path)
        texts[game] = summary_json(summarize(frame, meta))
    return texts


def test_repeated_summaries_and_figures_are_identical(runs):
    first = _summary_texts(runs)
    for _ in range(4):
        assert _summary_texts(runs) == first
    for game, path in runs.items():
        frame, meta = load(path)
        figures = json.loads(first[game])["figures"]
        assert bool(figures) == (game in ("triatri", "ten-tricks", "chimera")), game  # the games with own tables
        for _ in range(4):
            assert game_figures(frame, meta, 0.95) == figures


SUMMARIES_IN_A_CHILD = """
import json, sys
from analysis.summary import load, summarize, summary_json
paths = json.loads(sys.argv[1])
print(json.dumps({game: summary_json(summarize(*load(path))) for game, path in paths.items()}))
"""


@pytest.mark.parametrize("threads", [1, 3])
def test_the_thread_count_changes_nothing(runs, threads):
    """A fresh process with another Polars thread pool (the size is fixed at import) and small
    streaming pieces writes the very same JSON."""
    env = {**os.environ, "POLARS_MAX_THREADS": str(threads), "POLARS_IDEAL_MORSEL_SIZE": "256",
           "PYTHONPATH": str(ROOT)}
    paths = json.dumps({game: str(path) for game, path in runs.items()})
    done = subprocess.run([sys.executable, "-c", SUMMARIES_IN_A_CHILD, paths], capture_output=True, text=True,
                          env=env, cwd=ROOT, timeout=300)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == _summary_texts(runs)


def test_exact_totals_agree_with_an_independent_recount(runs):
    """Win totals equal a float64 recount that rebuilds each share from the tie size (1/k for
    the k seats with a share), and they are whole 840ths; mean scores and their SDs equal
    numpy's; every event total is the integer sum of its column."""
    for game, path in runs.items():
        frame, meta = load(path)
        summary = summarize(frame, meta)
        rows = pl.read_parquet(path)
        players = meta["players"]
        shares = np.stack([rows[f"share_{s}"].to_numpy() for s in range(players)], axis=1)
        winners = (shares > 0).sum(axis=1)
        assert set(np.unique(winners)) <= set(range(1, players + 1)), game  # every game has a winner
        for s, seat in enumerate(summary["seats"]):
            recount = math.fsum((1.0 / winners[shares[:, s] > 0]).tolist())
            assert seat["wins"] == pytest.approx(recount, rel=1e-12, abs=1e-12), (game, s)
            assert seat["wins"] == round(seat["wins"] * SHARE_UNITS) / SHARE_UNITS, (game, s)  # whole 840ths
            scores = rows[f"score_{s}"].to_numpy().astype(np.float64)
            assert seat["mean_score"] == pytest.approx(float(scores.mean()), rel=1e-12), (game, s)
            assert seat["score_sd"] == pytest.approx(float(scores.std(ddof=1)), rel=1e-12), (game, s)
        # every game's shares add up to one win: exactly, in 840ths
        assert sum(round(seat["wins"] * SHARE_UNITS) for seat in summary["seats"]) == GAMES * SHARE_UNITS, game
        for event in summary["events"]:
            assert event["total"] == int(rows[event["column"]].cast(pl.Int64).sum()), (game, event["column"])
            counts = rows[event["column"]].to_numpy().astype(np.float64)
            assert event["mean_per_game"] == pytest.approx(float(counts.mean()), rel=1e-12), (game, event["column"])


def test_a_group_by_table_matches_a_recount(runs):
    """10 TRICKS LATER's "Game length" table (a group_by: wins in 840ths, divided in Python)
    cell for cell against a recount of the rows with the same formatting."""
    frame, meta = load(runs["ten-tricks"])
    table = next(f for f in game_figures(frame, meta, 0.95) if f["title"] == "Game length")
    rows = pl.read_parquet(runs["ten-tricks"])
    shares = np.stack([rows[f"share_{s}"].to_numpy() for s in range(meta["players"])], axis=1)
    tie = (shares > 0).sum(axis=1)
    rounds = rows["rounds"].to_numpy()
    expected = []
    for length in sorted(set(rounds.tolist())):
        games = int((rounds == length).sum())
        wins = math.fsum((1.0 / tie[(rounds == length) & (shares[:, 0] > 0)]).tolist())
        expected.append([str(length), f"{games:,}", fmt_pct_ci(games / GAMES, stats.wilson_interval(games, GAMES)),
                         fmt_pct_ci(wins / games, stats.wilson_interval(wins, games))])
    assert table["rows"] == expected


def test_chimera_spread_matches_a_recount(runs):
    """Chimera's mean spread within a game (square roots of integers, added up by math.fsum
    over the games at each value) against numpy over the games one by one."""
    frame, meta = load(runs["chimera"])
    table = next(f for f in game_figures(frame, meta, 0.95) if f["title"].startswith("Does passing"))
    rows = pl.read_parquet(runs["chimera"])
    p = meta["players"]
    scores = np.stack([rows[f"score_{s}"].to_numpy().astype(np.int64) for s in range(p)], axis=1)
    totals = scores.sum(axis=1)
    variances = {"players": p * (scores * scores).sum(axis=1) - totals * totals,
                 "hands": p * rows["hand_score_sq"].to_numpy().astype(np.int64) - totals * totals}
    for cell, variance in zip(table["rows"], variances.values()):
        spread = np.sqrt(variance) / p
        mean, sd = float(spread.mean()), float(spread.std(ddof=1))
        assert cell[1] == fmt_num_ci(mean, stats.mean_interval(mean, sd, GAMES)), cell


def test_mean_and_sd_from_exact_totals():
    """``mean_sd`` against numpy: negative values, values far from 0 (where Σx² − (Σx)²/n in
    floats would cancel badly), a constant column (sd exactly 0), one value and none."""
    rng = np.random.default_rng(5)
    cases = {"mixed": rng.integers(-40, 60, 5_000), "far": 3_000_000_000 + rng.integers(0, 3, 5_000),
             "constant": np.full(1_000, 36), "one": np.array([7]), "none": np.array([], dtype=np.int64)}
    for name, values in cases.items():
        mean, sd = mean_sd(pl.col("x"))
        row = (pl.DataFrame({"x": values.astype(np.int64)}).lazy().select(mean.alias("mean"), sd.alias("sd"))
               .collect(engine="streaming").row(0, named=True))
        if len(values) == 0:
            assert row == {"mean": None, "sd": None}
            continue
        assert row["mean"] == pytest.approx(float(values.astype(np.float64).mean()), rel=1e-15), name
        if name == "constant":
            assert row["sd"] == 0.0
        elif len(values) == 1:
            assert row["sd"] is None
        else:
            assert row["sd"] == pytest.approx(float(np.std(values.astype(np.float64), ddof=1)), rel=1e-12), name


def test_a_run_without_rows_has_the_summary_of_its_rows(runs):
    """``simulate`` without ``--out`` keeps no row: each chunk is reduced to the summary's totals
    on a writer thread and the totals are merged (``MERGE_EVERY`` at a time, so more chunks than
    that go through a merge of merges).  The summary from the merged totals is the summary of the
    same games' rows, to the bit, for every game."""
    from analysis.summary import ChunkTotals, summary_of_totals
    from simcore.driver import MERGE_EVERY, run_games
    from simcore.registry import get_game

    chunk = GAMES // (MERGE_EVERY + 10)  # more chunks than one merge holds, the last one short
    for game, players in RUNS:
        frame, meta = load(runs[game])
        g = get_game(game)
        setup = g.setup(players, g.variant())
        lineup = g.lineup(None, players)
        result = run_games(g, setup, lineup, g.variant(), 11, GAMES, chunk_size=chunk, progress=False,
                           reduce=ChunkTotals(meta))
        assert result.frame is None and result.path is None, game  # no rows, no file
        assert summary_json(summary_of_totals(result.extra["reduced"], result.meta)) == summary_json(summarize(frame, meta)), game


def test_a_dask_task_reduces_its_chunk_and_sends_no_rows(runs):
    """The worker's side of a run without rows (``play_range`` in this process): the chunk comes
    back as its totals, no columns, and those totals are the totals of the chunk's rows."""
    from analysis.exact import collect_totals, merge_totals
    from analysis.summary import ChunkTotals, summary_plan
    from simcore.cluster import make_job, play_range
    from simcore.registry import get_game

    frame, meta = load(runs["ten-tricks"])
    g = get_game("ten-tricks")
    setup = g.setup(4, g.variant())
    start, n, columns, _, info = play_range(make_job(g, setup, g.lineup(None, 4), 11, 1,
                                                     reduce=ChunkTotals(meta)), 700, 300)
    assert columns is None and (start, n) == (700, 300)
    expected = collect_totals(summary_plan(frame.slice(700, 300), meta))
    reduced = merge_totals([info["reduced"]])  # one row per key, in key order, as expected's merged
    for name, totals in merge_totals([expected]).items():
        assert reduced[name].frame.sort(totals.keys or "games").equals(totals.frame.sort(totals.keys or "games")), name


@st.composite
def _rows_and_cuts(draw):
    """Rows a summary can read (seats' scores, shares that share one win among the top scores,
    one event per game) and where a run's chunks would cut them."""
    players = draw(st.integers(2, 5))
    games = draw(st.integers(1, 60))
    scores = draw(st.lists(st.lists(st.integers(-300, 300), min_size=players, max_size=players),
                           min_size=games, max_size=games))
    events = draw(st.lists(st.integers(0, 9), min_size=games, max_size=games))
    cuts = sorted(draw(st.sets(st.integers(1, max(games - 1, 1)), max_size=8)) - {games})
    order = draw(st.permutations(range(len(cuts) + 1)))
    columns = {"game": np.arange(games, dtype=np.uint64)}
    table = np.array(scores, dtype=np.int16).reshape(games, players)
    top = table == table.max(axis=1, keepdims=True)
    shares = (top / top.sum(axis=1, keepdims=True)).astype(np.float32)
    for s in range(players):
        columns[f"score_{s}"] = table[:, s].copy()
    for s in range(players):
        columns[f"share_{s}"] = shares[:, s].copy()
    columns["storms"] = np.array(events, dtype=np.uint8)
    meta = {"game": "synthetic", "title": "Synthetic", "players": players, "games": games, "assumed": [],
            "events": [{"column": "storms", "label": "storms", "per": "game"}], "unit_columns": {}}
    return columns, meta, cuts, order


@settings(max_examples=40, deadline=None)
@given(_rows_and_cuts())
def test_merged_chunk_totals_give_the_rows_summary_whatever_the_cuts_and_order(case):
    """Property: cut the rows into chunks anywhere, reduce each (``ChunkTotals``) and merge them in
    any order, even merges of merges: the summary is the rows' summary, to the bit."""
    from analysis.exact import merge_totals
    from analysis.summary import ChunkTotals, summary_of_totals

    columns, meta, cuts, order = case
    bounds = [0, *cuts, len(columns["game"])]
    chunks = [ChunkTotals(meta)({k: v[a:b] for k, v in columns.items()}) for a, b in zip(bounds, bounds[1:])]
    shuffled = [chunks[i] for i in order]
    merged = merge_totals([merge_totals(shuffled[:2]), *shuffled[2:]]) if len(shuffled) > 2 else merge_totals(shuffled)
    assert (summary_json(summary_of_totals(merged, meta))
            == summary_json(summarize(pl.DataFrame(columns).lazy(), meta)))


TABLE_GAMES = ("triatri", "chimera")  # the games whose tables a chunk counts with NumPy (``counted``)


@settings(max_examples=60, deadline=None)
@given(game=st.sampled_from(TABLE_GAMES), data=st.data())
def test_numpy_counts_the_tables_polars_would(runs, game, data):
    """Property: a chunk's own tables counted with NumPy (``analysis.figures.game_counted``)
    are the Polars plan's totals, integer for integer and typed alike, for rows cut anywhere
    from a real run and for integer columns redrawn anywhere in their types' range: where int64
    (or a float64 sum) could not hold a total exactly, NumPy declines (None) and Polars counts
    the chunk; no input gives a different total."""
    from analysis.exact import Counted, collect_totals
    from analysis.figures import game_counted, game_schemas, game_totals

    frame, meta = load(runs[game])
    rows = frame.collect()
    start = data.draw(st.integers(0, len(rows) - 1), label="start")
    n = data.draw(st.integers(1, min(200, len(rows) - start)), label="rows")
    columns = {name: rows[name].to_numpy()[start:start + n].copy() for name in rows.columns}
    integers = [name for name, column in columns.items() if column.dtype.kind in "iu" and name != "game"]
    for name in data.draw(st.lists(st.sampled_from(integers), max_size=6, unique=True), label="redrawn"):
        info = np.iinfo(columns[name].dtype)
        low = data.draw(st.integers(int(info.min), int(info.max)), label=f"{name} low")
        high = data.draw(st.integers(low, int(info.max)), label=f"{name} high")
        columns[name] = np.array(data.draw(st.lists(st.integers(low, high), min_size=n, max_size=n)),
                                 dtype=columns[name].dtype)
    empty = pl.DataFrame({name: column[:0] for name, column in columns.items()}).lazy()
    counted = game_counted(Counted(columns), meta, game_schemas(empty, meta))
    expected = collect_totals(game_totals(pl.DataFrame(columns).lazy(), meta), streaming=False)
    if counted is None:
        return
    assert counted.keys() == expected.keys()
    for name, totals in expected.items():
        mine = counted[name]
        assert mine.keys == totals.keys and mine.frame.schema == totals.frame.schema, name
        order = list(totals.keys) or totals.frame.columns[:1]
        assert mine.frame.sort(order).equals(totals.frame.sort(order)), name


def test_numpy_declines_a_chunk_it_cannot_count_exactly_and_polars_counts_it(runs):
    """The fallback is reached and gives the same summary: a TriATri score at the edge of int16
    makes the table of (pattern, score) too wide for bincount, so NumPy leaves the chunk's tables
    to Polars (``ChunkTotals`` then evaluates them), and the summary is still the rows'."""
    from analysis.exact import Counted
    from analysis.figures import game_counted, game_schemas
    from analysis.summary import ChunkTotals, summary_of_totals

    frame, meta = load(runs["triatri"])
    rows = frame.collect()
    columns = {name: rows[name].to_numpy().copy() for name in rows.columns}
    empty = pl.DataFrame({name: column[:0] for name, column in columns.items()}).lazy()
    schemas = game_schemas(empty, meta)
    assert game_counted(Counted(columns), meta, schemas) is not None
    # bits 30 and 31, which no pattern uses: NumPy reads the three colours as Polars does
    columns["gems_1"][:5] = [1 << 30, (1 << 31) + 5, (3 << 30) + (2 << 20), 3 << 20, 7]
    assert game_counted(Counted(columns), meta, schemas) is not None
    assert (summary_json(summary_of_totals(ChunkTotals(meta)(columns), meta))
            == summary_json(summarize(pl.DataFrame(columns).lazy(), meta)))
    flat = {name: column.copy() for name, column in columns.items()}  # no gems: a one-pattern table
    for seat in range(3):
        flat[f"gems_{seat}"][:] = 0
    flat["score_0"][:2] = [-32768, 32767]  # the score's offset in the key does not wrap in int16
    assert game_counted(Counted(flat), meta, schemas) is not None
    assert (summary_json(summary_of_totals(ChunkTotals(meta)(flat), meta))
            == summary_json(summarize(pl.DataFrame(flat).lazy(), meta)))
    columns["score_0"][0] = -32768
    assert game_counted(Counted(columns), meta, schemas) is None
    assert (summary_json(summary_of_totals(ChunkTotals(meta)(columns), meta))
            == summary_json(summarize(pl.DataFrame(columns).lazy(), meta)))
