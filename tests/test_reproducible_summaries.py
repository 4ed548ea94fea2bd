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

import simcore
from analysis import stats
from simcore.parts import run_meta
from analysis.summary import (SHARE_UNITS, fmt_num_ci, fmt_pct_ci, game_figures, load, mean_sd,
                              summarize, summary_json)

ROOT = Path(__file__).resolve().parent.parent
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
