"""docs/api.md's example is run as written, so the page cannot drift from the code; its lazy
analysis results are checked against the summary and against the rows themselves."""
import math
import re
from pathlib import Path

import polars as pl
import pytest

from analysis import stats

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def example(tmp_path_factory):
    """The first python block of docs/api.md, run in a fresh folder: its variables and output."""
    text = (ROOT / "docs" / "api.md").read_text(encoding="utf-8")
    code = re.search(r"```python\n(.*?)```", text, re.S).group(1)
    folder = tmp_path_factory.mktemp("api")
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(folder)
        names: dict = {}
        from contextlib import redirect_stdout
        from io import StringIO

        printed = StringIO()
        with redirect_stdout(printed):
            exec(compile(code, "docs/api.md", "exec"), names)
    return names, printed.getvalue(), folder


def test_api_example_runs(example):
    names, printed, folder = example
    assert "'game', 'score_0'" in printed and "first-seat edge (seat 1 share" in printed
    assert (folder / "bw3.parquet" / "_run.parquet").is_file()  # a run is a folder of Parquet files
    for name in ("shares", "advantage", "balance", "scores", "rates", "off_fair", "top_scores"):
        assert name in names, name


def test_lazy_figures_equal_the_summary(example):
    names, _, _ = example
    summary, shares, advantage, balance = names["summary"], names["shares"], names["advantage"], names["balance"]
    assert summary["games"] == 10_000 and summary["players"] == 3
    assert shares["seat"].to_list() == [0, 1, 2] and shares["games"].to_list() == [10_000] * 3
    assert shares["share"].to_list() == [s["win_share"] for s in summary["seats"]]
    assert [[low, high] for low, high in zip(shares["ci_low"], shares["ci_high"])] == \
        [s["win_share_ci"] for s in summary["seats"]]
    fpa = advantage.row(0, named=True)
    assert (fpa["pp"], [fpa["ci_low_pp"], fpa["ci_high_pp"]]) == \
        (summary["first_player_advantage"]["pp"], summary["first_player_advantage"]["ci_pp"])
    test = balance.row(0, named=True)
    assert (test["statistic"], test["df"], test["p_value"]) == tuple(
        summary["seat_balance"][k] for k in ("statistic", "df", "p_value"))
    assert names["scores"]["mean"].to_list() == [s["mean_score"] for s in summary["seats"]]
    rates = names["rates"]
    assert rates["label"].to_list() == [e["label"] for e in summary["events"]]
    assert rates["rate"].to_list() == [e["rate"] for e in summary["events"]]
    assert [[low, high] for low, high in zip(rates["ci_low"], rates["ci_high"])] == \
        [e["rate_ci"] for e in summary["events"]]


def test_lazy_figures_match_an_independent_count_of_the_rows(example):
    names, _, folder = example
    rows = pl.read_parquet(folder / "bw3.parquet")
    shares = names["shares"]
    # each game's share rebuilt from its tie size, 1/k for each of its k winners (the file's
    # float32 shares are 1/k rounded; the summed wins are exact)
    stored = rows.select(f"share_{seat}" for seat in range(3)).to_numpy()
    winners = (stored > 0).sum(axis=1)
    for seat in range(3):
        wins = math.fsum((1.0 / winners[stored[:, seat] > 0]).tolist())
        assert shares["wins"][seat] == pytest.approx(wins, rel=1e-12)
        assert (shares["ci_low"][seat], shares["ci_high"][seat]) == pytest.approx(
            stats.wilson_interval(wins, len(rows)), rel=1e-12)
    # three seats: every game's shares sum to 1
    assert shares["wins"].sum() == pytest.approx(10_000, abs=1e-3)
    fpa = names["advantage"].row(0, named=True)
    assert fpa["pp"] == pytest.approx(100 * (shares["share"][0] - 1 / 3), rel=1e-12)
    # BIRD & WEATHER: 9 tricks a game at 3 players, so every per-trick rate is over 90,000 tricks
    rates = names["rates"]
    assert rates["trials"].to_list() == [90_000.0] * len(rates)
    for label, total, rate in zip(rates["label"], rates["total"], rates["rate"]):
        column = next(e["column"] for e in names["meta"]["events"] if e["label"] == label)
        assert total == rows[column].cast(pl.Int64).sum() and rate == total / 90_000
    # seats whose interval excludes the fair share: recomputed here from the collected shares
    excluded = [s for s, low, high in zip(shares["seat"], shares["ci_low"], shares["ci_high"])
                if high < 1 / 3 or low > 1 / 3]
    assert 0 in excluded  # the heuristic player in seat 0 wins well over a third
    assert names["off_fair"]["seat"].to_list() == excluded
    top = names["top_scores"]
    counts = rows["score_0"].value_counts(sort=True).head(3)
    assert top["games"].to_list() == counts["count"].to_list()
    assert top["share"].to_list() == [c / 10_000 for c in counts["count"]]


def test_the_pandas_rows_are_the_polars_rows(example):
    """``to="pandas"``: the same games (same seed) column for column, each with its Polars type's
    NumPy dtype; ``to_pandas`` of an analysis LazyFrame is its collected table."""
    import numpy as np
    import pandas as pd

    names, printed, _ = example
    games, games_pd = names["games"], names["games_pd"]
    assert isinstance(games_pd, pd.DataFrame) and isinstance(games, pl.DataFrame)
    assert list(games_pd.columns) == games.columns and len(games_pd) == len(games) == 20_000
    assert games_pd.index.equals(pd.RangeIndex(20_000))
    for column in games.columns:
        values = games[column].to_numpy()
        assert games_pd[column].dtype == values.dtype, column
        assert np.array_equal(games_pd[column].to_numpy(), values), column
    assert {str(games_pd[c].dtype) for c in ("game", "score_0", "share_0")} == {"uint64", "int16", "float32"}
    assert games_pd["share_0"].mean() == pytest.approx(games["share_0"].mean(), rel=1e-6)
    assert f"{games_pd['share_0'].mean()}" in printed
    shares, shares_pd = names["shares"], names["shares_pd"]
    assert isinstance(shares_pd, pd.DataFrame) and list(shares_pd.columns) == shares.columns
    for column in shares.columns:
        assert shares_pd[column].tolist() == shares[column].to_list(), column
    assert str(shares_pd["wins"].dtype) == str(shares["wins"].to_numpy().dtype)
