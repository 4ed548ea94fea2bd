"""Analysis layer: interval and test formulas against published values, the summary of a small
hand-checked results file, and the report writer (files, self-containment, atomicity)."""
from __future__ import annotations

import base64
import json
import math
import re

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from analysis import charts, report, stats, summary
from simcore.errors import BalanceError
from simcore.version import SCHEMA_VERSION

Z95 = 1.959963984540054  # published z_{0.975}


# --------------------------------------------------------------------------------------------
# stats
# --------------------------------------------------------------------------------------------

def wilson_closed_form(x, n, z=Z95):
    """The other textbook form, (2x + z^2 +- z sqrt(z^2 + 4x(n-x)/n)) / (2(n + z^2))."""
    root = z * math.sqrt(z * z + 4 * x * (n - x) / n)
    return (2 * x + z * z - root) / (2 * (n + z * z)), (2 * x + z * z + root) / (2 * (n + z * z))


def test_z_for_matches_published_critical_values():
    assert stats.z_for(0.95) == pytest.approx(Z95, abs=1e-12)
    assert stats.z_for(0.99) == pytest.approx(2.5758293035489004, abs=1e-12)
    assert stats.z_for(0.90) == pytest.approx(1.6448536269514722, abs=1e-12)
    assert stats.normal_quantile(1e-10) == pytest.approx(-6.361340902404056, abs=1e-9)


@pytest.mark.parametrize("x, n, published", [
    (0, 10, (0.0, 0.2775)),
    (5, 10, (0.2366, 0.7634)),
    (50, 100, (0.4038, 0.5962)),
])
def test_wilson_known_values(x, n, published):
    low, high = stats.wilson_interval(x, n)
    assert (low, high) == pytest.approx(wilson_closed_form(x, n), abs=1e-12)
    assert (low, high) == pytest.approx(published, abs=5e-5)


def test_wilson_zero_successes_upper_bound_is_z2_over_n_plus_z2():
    assert stats.wilson_interval(0, 10)[1] == pytest.approx(Z95**2 / (10 + Z95**2), abs=1e-12)
    assert stats.wilson_interval(10, 10)[0] == pytest.approx(10 / (10 + Z95**2), abs=1e-12)


def test_wilson_other_confidence_and_fractional_successes():
    z99 = 2.5758293035489004
    assert stats.wilson_interval(5, 10, 0.99) == pytest.approx(wilson_closed_form(5, 10, z99), abs=1e-12)
    # a split tie: 2.5 wins of 7 is a legal count
    assert stats.wilson_interval(2.5, 7) == pytest.approx(wilson_closed_form(2.5, 7), abs=1e-12)
    assert stats.wilson_interval(0, 0) == (0.0, 1.0)
    with pytest.raises(ValueError):
        stats.wilson_interval(11, 10)


@settings(deadline=None, max_examples=300)
@given(trials=st.integers(min_value=1, max_value=10**8),
       fraction=st.floats(min_value=0.0, max_value=1.0),
       confidence=st.floats(min_value=0.5, max_value=0.9999))
def test_wilson_contains_estimate_and_stays_in_unit_interval(trials, fraction, confidence):
    successes = fraction * trials
    low, high = stats.wilson_interval(successes, trials, confidence)
    assert 0.0 <= low <= successes / trials <= high <= 1.0


def test_mean_interval_is_normal_approximation():
    low, high = stats.mean_interval(10.0, 2.0, 100)
    assert (low, high) == pytest.approx((10 - Z95 * 0.2, 10 + Z95 * 0.2), abs=1e-12)
    assert all(math.isnan(v) for v in stats.mean_interval(3.0, float("nan"), 1))


@pytest.mark.parametrize("x, df, expected, tolerance", [
    (3.841, 1, 0.05, 1e-4),
    (7.815, 3, 0.05, 1e-4),
    (0.0, 4, 1.0, 0.0),
    (3.841458820694124, 1, 0.05, 1e-12),   # exact 95% critical values
    (7.814727903251178, 3, 0.05, 1e-12),
    (2.0, 3, 0.5724067044708798, 1e-12),
])
def test_chi2_sf_known_values(x, df, expected, tolerance):
    assert stats.chi2_sf(x, df) == pytest.approx(expected, abs=tolerance)


@pytest.mark.parametrize("x", [0.01, 0.5, 1.0, 2.5, 7.0, 30.0, 120.0])
def test_chi2_sf_closed_forms(x):
    assert stats.chi2_sf(x, 1) == pytest.approx(math.erfc(math.sqrt(x / 2)), rel=1e-12, abs=1e-300)
    assert stats.chi2_sf(x, 2) == pytest.approx(math.exp(-x / 2), rel=1e-12)
    assert stats.chi2_sf(x, 4) == pytest.approx(math.exp(-x / 2) * (1 + x / 2), rel=1e-12)


def test_chi2_sf_real_df_matches_integrated_density():
    df, x = 2.5, 1.5
    t = np.linspace(x, 200.0, 400_001)
    density = np.exp((df / 2 - 1) * np.log(t) - t / 2 - (df / 2) * math.log(2) - math.lgamma(df / 2))
    assert stats.chi2_sf(x, df) == pytest.approx(np.trapezoid(density, t), abs=1e-8)


def test_chi2_equal_shares():
    test = stats.chi2_equal_shares([30, 20, 25, 25])
    assert test.statistic == pytest.approx(2.0)
    assert test.df == 3
    assert test.p_value == pytest.approx(0.5724067044708798, abs=1e-12)
    assert stats.chi2_equal_shares([10, 10, 10]).p_value == 1.0


def test_benjamini_hochberg_hand_worked():
    # sorted: 0.001 (x5/1 = .005), 0.03 (x5/2 = .075), 0.035 (x5/3 = .0583), 0.04 (x5/4 = .05),
    # 0.5 (x5/5 = .5); running minimum from the top: .005, .05, .05, .05, .5
    adjusted = stats.benjamini_hochberg([0.04, 0.001, 0.03, 0.5, 0.035])
    assert adjusted == pytest.approx([0.05, 0.005, 0.05, 0.5, 0.05], abs=1e-15)
    assert stats.benjamini_hochberg([0.9, 0.8]) == pytest.approx([0.9, 0.9])
    assert stats.benjamini_hochberg([]) == []


def test_two_proportions_newcombe_published_example():
    # Newcombe (1998), Table II example (56/70 vs 48/80): method 10 gives 0.0524 to 0.3339
    assert stats.difference_interval(56, 70, 48, 80) == pytest.approx((0.0524, 0.3339), abs=5e-5)
    # pooled p = 104/150; z = 0.2 / sqrt(p(1-p)(1/70 + 1/80))
    pooled = 104 / 150
    z = 0.2 / math.sqrt(pooled * (1 - pooled) * (1 / 70 + 1 / 80))
    test = stats.two_proportion_z_test(56, 70, 48, 80)
    assert test.z == pytest.approx(z, rel=1e-12)
    assert test.p_value == pytest.approx(math.erfc(z / math.sqrt(2)), rel=1e-12)
    assert stats.two_proportion_z_test(0, 10, 0, 20) == (0.0, 1.0)


# --------------------------------------------------------------------------------------------
# a small hand-checked results file
# --------------------------------------------------------------------------------------------

THIRD = 1 / 3
SCORES = [(10, 5, 5), (3, 8, 8), (7, 7, 7), (0, 2, 9)]
SHARES = [(1, 0, 0), (0, 0.5, 0.5), (THIRD, THIRD, THIRD), (0, 0, 1)]
EVENTS = {"flips": [2, 0, 1, 0], "bonuses": [0, 0, 1, 0], "storms": [1, 1, 1, 1]}
META = {
    "schema": SCHEMA_VERSION,
    "game": "test-game", "title": "Test Game", "players": 3, "seed": 7, "games": 4,
    "strategies": ["greedy", "random", "random"],
    "variant": {"game": "test-game", "name": "fast", "description": "shorter rounds", "rounds": 3},
    "assumed": ["card values assumed"], "version": "9.9.9", "tricks_per_game": 5,
    "events": [{"column": "flips", "label": "Flip", "per": "trick"},
               {"column": "bonuses", "label": "Bonus", "per": "game"},
               {"column": "storms", "label": "Storm", "per": "round"}],
}


def write_results(path, meta=None, scores=SCORES, shares=SHARES, events=EVENTS, first_game=0):
    meta = {"schema": SCHEMA_VERSION, **(META if meta is None else meta)}
    players = meta["players"]
    columns = {"game": pl.Series(np.arange(first_game, first_game + len(scores)), dtype=pl.UInt64)}
    for seat in range(players):
        columns[f"score_{seat}"] = pl.Series([row[seat] for row in scores], dtype=pl.Int16)
    for seat in range(players):
        columns[f"share_{seat}"] = pl.Series([row[seat] for row in shares], dtype=pl.Float32)
    for name, counts in events.items():
        columns[name] = pl.Series(counts, dtype=pl.UInt8)
    for seat in range(players):
        columns[f"hand_{seat}"] = pl.Series([2**63 + seat] * len(scores), dtype=pl.UInt64)
    pl.DataFrame(columns).write_parquet(path, metadata={"balance": json.dumps(meta)})
    return path


@pytest.fixture
def results(tmp_path):
    return write_results(tmp_path / "results.parquet")


def test_summarize_exact_values(results):
    frame, meta = summary.load(results)
    s = summary.summarize(frame, meta)
    assert s["games"] == 4 and s["players"] == 3 and s["game"] == "test-game"
    assert [seat["win_share"] for seat in s["seats"]] == pytest.approx([1 / 3, 5 / 24, 11 / 24], abs=1e-7)
    assert s["seats"][2]["win_share_ci"] == pytest.approx(wilson_closed_form(11 / 6, 4), abs=1e-7)
    assert [seat["mean_score"] for seat in s["seats"]] == pytest.approx([5.0, 5.5, 7.25])
    sd0 = float(np.std([10, 3, 7, 0], ddof=1))
    assert s["seats"][0]["mean_score_ci"] == pytest.approx([5 - Z95 * sd0 / 2, 5 + Z95 * sd0 / 2])
    assert (s["seats"][2]["score_min"], s["seats"][2]["score_max"]) == (5, 9)

    fpa = s["first_player_advantage"]
    low, high = wilson_closed_form(4 / 3, 4)
    assert fpa["pp"] == pytest.approx(0.0, abs=1e-5)
    assert fpa["ci_pp"] == pytest.approx([100 * (low - 1 / 3), 100 * (high - 1 / 3)], abs=1e-5)

    # counts (4/3, 5/6, 11/6), expected 4/3 each: X^2 = (0 + 1/4 + 1/4) / (4/3) = 0.375, df 2
    assert s["seat_balance"]["statistic"] == pytest.approx(0.375, abs=1e-6)
    assert s["seat_balance"]["df"] == 2
    assert s["seat_balance"]["p_value"] == pytest.approx(math.exp(-0.375 / 2), abs=1e-6)

    flips, bonuses, storms = s["events"]
    assert flips["total"] == 3 and flips["mean_per_game"] == pytest.approx(0.75)
    assert flips["games_fired"] == 2 and flips["fired_share"] == 0.5
    assert flips["fired_share_ci"] == pytest.approx(wilson_closed_form(2, 4), abs=1e-12)
    assert flips["trials"] == 20 and flips["rate"] == pytest.approx(3 / 20)
    assert flips["rate_ci"] == pytest.approx(wilson_closed_form(3, 20), abs=1e-12)
    assert bonuses["rate"] == pytest.approx(1 / 4) and bonuses["units_per_game"] == 1
    # no rounds_per_game in the metadata: no per-round rate, and the summary says so
    assert storms["rate"] is None and storms["mean_per_game"] == 1.0
    assert any("'round'" in note for note in s["notes"])

    assert s["variant"] == {"name": "fast", "description": "shorter rounds", "settings": {"rounds": 3}}
    assert s["strategies"] == ["greedy", "random", "random"]
    assert s["seed"] == 7 and s["version"] == "9.9.9" and s["assumed"] == ["card values assumed"]
    assert json.loads(summary.summary_json(s)) == s


def test_format_summary_shows_assumptions_intervals_and_games(results):
    text = summary.format_summary(summary.summarize(*summary.load(results)))
    assert "ASSUMED" in text and "card values assumed" in text
    assert "4 games" in text
    assert "33.33 [" in text  # seat 1 win share with its interval
    # greedy in seat 1 among random players: a mixed line-up, so seat 1's difference is skill, not a seat edge
    assert re.search(r"seat 1 share − 1/3: [+-]0\.00\d* pp \[-\d+\.\d+, \+\d+\.\d+\] — not a first-seat edge", text)
    assert "strategy strength (mixed line-up" in text and "first-player advantage" not in text
    assert "p = 0.8290" in text  # exp(-0.1875)
    assert "Flip" in text and "15.00 [" in text  # 3 flips in 20 tricks


def test_no_assumption_banner_when_nothing_assumed(tmp_path):
    path = write_results(tmp_path / "r.parquet", {**META, "assumed": []})
    assert "ASSUMED" not in summary.format_summary(summary.summarize(*summary.load(path)))


def test_seat_labels_and_score_counts(results):
    frame, meta = summary.load(results)
    assert summary.seat_labels(meta) == ["seat 1 (greedy)", "seat 2 (random)", "seat 3 (random)"]  # seats 1..N
    counts = summary.score_counts(frame, 3)
    seat1 = counts.filter(pl.col("seat") == 1)
    assert dict(zip(seat1["score"], seat1["games"])) == {2: 1, 5: 1, 7: 1, 8: 1}
    assert counts["games"].sum() == 12


def test_shards_of_one_run_are_pooled_and_duplicates_refused(tmp_path):
    first = write_results(tmp_path / "a.parquet", {**META, "games": 4})
    second = write_results(tmp_path / "b.parquet", {**META, "games": 4}, first_game=4)
    runs = summary.load_runs([first, second])
    assert len(runs) == 1 and runs[0].meta["games"] == 8
    assert summary.summarize(runs[0].frame, runs[0].meta)["games"] == 8
    overlapping = write_results(tmp_path / "c.parquet", {**META, "games": 4})
    runs = summary.load_runs([first, overlapping])
    with pytest.raises(BalanceError, match="more than once"):
        summary.summarize(runs[0].frame, runs[0].meta)


def test_missing_file_is_a_one_line_error(tmp_path):
    with pytest.raises(BalanceError, match="not found") as error:
        summary.load(tmp_path / "nope.parquet")
    assert "\n" not in str(error.value)


def test_non_balance_files_are_refused(tmp_path):
    plain = tmp_path / "plain.parquet"
    pl.DataFrame({"x": [1, 2]}).write_parquet(plain)
    with pytest.raises(BalanceError, match="not a balance results file") as error:
        summary.load(plain)
    assert "\n" not in str(error.value)
    text = tmp_path / "text.parquet"
    text.write_text("hello")
    with pytest.raises(BalanceError, match="not a Parquet file"):
        summary.load(text)
    incomplete = tmp_path / "incomplete.parquet"
    pl.DataFrame({"game": [0]}).write_parquet(incomplete, metadata={"balance": json.dumps(META)})
    with pytest.raises(BalanceError, match="missing columns: score_0"):
        summary.load(incomplete)
    bad_json = tmp_path / "bad.parquet"
    pl.DataFrame({"game": [0]}).write_parquet(bad_json, metadata={"balance": "{oops"})
    with pytest.raises(BalanceError, match="not valid JSON"):
        summary.load(bad_json)


# --------------------------------------------------------------------------------------------
# the lazy queries (LazyFrames in, LazyFrames out)
# --------------------------------------------------------------------------------------------

def test_wilson_and_mean_bounds_give_the_same_bits_as_stats():
    pairs = [(0, 0), (0, 1), (1, 1), (0, 7), (3, 20), (11 / 6, 4), (2.5, 9), (987, 3000), (10**6, 10**6),
             (123_456.75, 10**7)]
    frame = pl.DataFrame({"x": [float(x) for x, _ in pairs], "n": [n for _, n in pairs]})
    for confidence in (0.95, 0.999, 0.5):
        low, high = summary.wilson_bounds(pl.col("x"), pl.col("n"), confidence)
        got = frame.select(low.alias("low"), high.alias("high")).rows()
        assert got == [stats.wilson_interval(x, n, confidence) for x, n in pairs]
    means = pl.DataFrame({"mean": [5.0, 0.25, 3.0], "sd": [2.5, 0.1, None], "n": [4, 10**6, 1]})
    low, high = summary.mean_bounds(pl.col("mean"), pl.col("sd"), pl.col("n"))
    got = means.select(low.alias("low"), high.alias("high")).rows()
    assert got[:2] == [stats.mean_interval(5.0, 2.5, 4), stats.mean_interval(0.25, 0.1, 10**6)]
    assert got[2] == (None, None)  # one value: no spread, no interval


def test_lazy_seat_queries_exact_values(results):
    frame, meta = summary.load(results)
    shares = summary.seat_shares(frame)
    assert isinstance(shares, pl.LazyFrame)
    shares = shares.collect()
    assert shares.columns == ["seat", "games", "wins", "share", "ci_low", "ci_high"]
    assert shares["seat"].to_list() == [0, 1, 2] and shares["games"].to_list() == [4, 4, 4]
    assert shares["wins"].to_list() == pytest.approx([4 / 3, 5 / 6, 11 / 6], abs=1e-6)
    assert shares["share"].to_list() == pytest.approx([1 / 3, 5 / 24, 11 / 24], abs=1e-7)
    for seat, wins in enumerate([4 / 3, 5 / 6, 11 / 6]):
        assert (shares["ci_low"][seat], shares["ci_high"][seat]) == pytest.approx(wilson_closed_form(wins, 4), abs=1e-7)

    fpa = summary.first_player_advantage(frame).collect().row(0, named=True)
    low, high = wilson_closed_form(4 / 3, 4)
    assert fpa["seat"] == 0 and fpa["games"] == 4 and fpa["fair_share"] == 1 / 3
    assert fpa["pp"] == pytest.approx(0.0, abs=1e-5)
    assert [fpa["ci_low_pp"], fpa["ci_high_pp"]] == pytest.approx([100 * (low - 1 / 3), 100 * (high - 1 / 3)], abs=1e-5)

    # counts (4/3, 5/6, 11/6), expected 4/3 each: X^2 = 0.375 with 2 df, p = exp(-0.1875)
    test = summary.seat_balance(frame).collect().row(0, named=True)
    assert test["statistic"] == pytest.approx(0.375, abs=1e-6) and test["df"] == 2
    assert test["p_value"] == pytest.approx(math.exp(-0.375 / 2), abs=1e-6)

    scores = summary.seat_scores(frame).collect()
    assert scores["mean"].to_list() == pytest.approx([5.0, 5.5, 7.25])
    assert (scores["min"].to_list(), scores["max"].to_list()) == ([0, 2, 5], [10, 8, 9])
    sd0 = float(np.std([10, 3, 7, 0], ddof=1))
    assert scores["sd"][0] == pytest.approx(sd0)
    assert (scores["ci_low"][0], scores["ci_high"][0]) == pytest.approx((5 - Z95 * sd0 / 2, 5 + Z95 * sd0 / 2))

    seat1 = summary.score_distribution(frame).filter(pl.col("seat") == 1).collect()
    assert dict(zip(seat1["score"], seat1["games"])) == {2: 1, 5: 1, 7: 1, 8: 1}
    assert seat1["share"].to_list() == [0.25] * 4
    assert (seat1["ci_low"][0], seat1["ci_high"][0]) == pytest.approx(wilson_closed_form(1, 4), abs=1e-12)


def test_lazy_queries_take_a_dataframe_and_count_the_seats_themselves(results):
    frame, meta = summary.load(results)
    rows = frame.collect()
    assert summary.seat_count(rows) == 3
    assert summary.seat_shares(rows).collect().equals(summary.seat_shares(frame, players=3).collect())
    with pytest.raises(BalanceError, match="no score_0 and share_0"):
        summary.seat_shares(pl.DataFrame({"game": [0]}))
    one_seat = pl.DataFrame({"game": [0, 1], "score_0": [1, 2], "share_0": [1.0, 1.0]})
    assert summary.first_player_advantage(one_seat).collect()["pp"].to_list() == [0.0]
    with pytest.raises(BalanceError, match="at least two seats"):
        summary.seat_balance(one_seat)


def test_event_rates_exact_values(results):
    frame, meta = summary.load(results)
    rates = summary.event_rates(frame, meta).collect()
    assert rates["event"].to_list() == ["flips", "bonuses", "storms"]
    flips, bonuses, storms = rates.iter_rows(named=True)
    assert (flips["total"], flips["trials"], flips["units_per_game"], flips["method"]) == (3, 20.0, 5.0, "wilson")
    assert flips["rate"] == 3 / 20 and (flips["ci_low"], flips["ci_high"]) == pytest.approx(wilson_closed_form(3, 20))
    assert flips["games_fired"] == 2 and flips["fired_share"] == 0.5
    assert (flips["fired_ci_low"], flips["fired_ci_high"]) == pytest.approx(wilson_closed_form(2, 4))
    assert flips["mean_per_game"] == 0.75
    sd = float(np.std([2, 0, 1, 0], ddof=1))
    assert (flips["mean_ci_low"], flips["mean_ci_high"]) == pytest.approx((0.75 - Z95 * sd / 2, 0.75 + Z95 * sd / 2))
    assert (bonuses["trials"], bonuses["rate"], bonuses["method"]) == (4.0, 0.25, "wilson")
    # no count of rounds in the metadata: no per-round rate (but the per-game figures are there)
    assert storms["rate"] is storms["trials"] is storms["ci_low"] is storms["method"] is None
    assert storms["mean_per_game"] == 1.0 and storms["fired_share"] == 1.0
    none = summary.event_rates(frame, {**meta, "events": []}).collect()
    assert none.height == 0 and none.schema == rates.schema


def test_event_rates_per_counted_unit_and_more_than_once_per_unit(tmp_path):
    """Units counted per game (``unit_columns``): the rate is over their sum; an event that fires
    more often than there are units gets the normal interval of its mean, per unit; a unit never
    played leaves the rate unknown."""
    meta = {**META, "unit_columns": {"round": "rounds", "fake": "fakes"},
            "events": [{"column": "storms", "label": "Storm", "per": "round"},
                       {"column": "flips", "label": "Flip", "per": "round"},
                       {"column": "swaps", "label": "Swap", "per": "fake"}]}
    events = {"storms": [1, 1, 1, 1], "flips": [5, 0, 4, 0], "swaps": [0, 0, 0, 0],
              "rounds": [2, 1, 3, 2], "fakes": [0, 0, 0, 0]}
    frame, meta = summary.load(write_results(tmp_path / "units.parquet", meta, events=events))
    storms, flips, swaps = summary.event_rates(frame, meta).collect().iter_rows(named=True)
    assert (storms["trials"], storms["units_per_game"], storms["rate"], storms["method"]) == (8.0, 2.0, 0.5, "wilson")
    assert (storms["ci_low"], storms["ci_high"]) == pytest.approx(wilson_closed_form(4, 8))
    assert flips["total"] == 9 and flips["rate"] == 9 / 8 and flips["method"] == "normal"
    low, high = stats.mean_interval(2.25, float(np.std([5, 0, 4, 0], ddof=1)), 4)
    assert (flips["ci_low"], flips["ci_high"]) == pytest.approx((low / 2, high / 2))
    assert swaps["units_per_game"] is swaps["rate"] is swaps["method"] is None
    s = summary.summarize(frame, meta)
    assert [e["trials"] for e in s["events"]] == [8, 8, None]
    assert any("'fake'" in note for note in s["notes"])


def test_summarize_is_the_lazy_queries_collected(results):
    frame, meta = summary.load(results)
    s = summary.summarize(frame, meta, confidence=0.9)
    shares = summary.seat_shares(frame, confidence=0.9).collect()
    assert [seat["win_share_ci"] for seat in s["seats"]] == [list(r) for r in shares.select("ci_low", "ci_high").rows()]
    rates = summary.event_rates(frame, meta, confidence=0.9).collect()
    assert [e["fired_share_ci"] for e in s["events"]] == \
        [list(r) for r in rates.select("fired_ci_low", "fired_ci_high").rows()]


# --------------------------------------------------------------------------------------------
# charts and report
# --------------------------------------------------------------------------------------------

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def test_charts_are_pngs_and_event_chart_skips_when_no_rates(results):
    frame, meta = summary.load(results)
    s = summary.summarize(frame, meta)
    drawn = charts.all_charts(s, summary.score_counts(frame, 3))
    assert list(drawn) == ["win-share", "scores", "event-rates"]
    assert all(png.startswith(PNG_SIGNATURE) for png in drawn.values())
    assert charts.event_rate_chart({**s, "events": []}) is None


def test_binned_scores_keep_every_game():
    counts = pl.DataFrame({"seat": [0, 0, 1], "score": [-50, 200, 3], "games": [2, 5, 4]})
    width, edges, per_seat = charts.binned_scores(counts, max_bins=60)
    assert width == 5 and len(edges) == len(per_seat[0]) + 1
    assert per_seat[0].sum() == 7 and per_seat[1].sum() == 4


def images(html: str) -> list[bytes]:
    return [base64.b64decode(m) for m in re.findall(r'<img src="data:image/png;base64,([A-Za-z0-9+/=]+)"', html)]


def test_report_files_and_self_contained_html(results, tmp_path):
    out = report.write_report(results, tmp_path / "report")
    md = (out / "report.md").read_text(encoding="utf-8")
    html = (out / "report.html").read_text(encoding="utf-8")
    pngs = sorted(p.name for p in out.glob("*.png"))
    assert pngs == ["event-rates.png", "scores.png", "win-share.png"]
    assert sorted(re.findall(r"\]\(([^)]+\.png)\)", md)) == pngs
    assert html.count("<img") == len(pngs) == len(images(html))
    assert all(png.startswith(PNG_SIGNATURE) for png in images(html))
    assert not re.search(r"https?://", html) and "<script" not in html.lower()
    assert "<link" not in html.lower() and "<style>" in html
    for page in (md, html):
        for needle in ("Test Game", "test-game", "players: 3", "greedy", "fast", "rounds = 3",
                       "seed: 7", "games: 4", "9.9.9", "ASSUMED", "card values assumed"):
            assert needle in page, needle
    assert json.loads((out / "summary.json").read_text())["runs"][0]["games"] == 4


def test_report_replaces_its_files_and_keeps_others(results, tmp_path):
    out = tmp_path / "report"
    other = write_results(tmp_path / "other.parquet", {**META, "seed": 8})
    report.write_report([results, other], out)
    assert (out / "run2-win-share.png").exists()
    (out / "notes.txt").write_text("mine")
    report.write_report(results, out)
    assert (out / "notes.txt").read_text() == "mine"
    assert not (out / "run2-win-share.png").exists() and (out / "win-share.png").exists()
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []  # no staging left


def test_report_failure_leaves_previous_report_untouched(results, tmp_path, monkeypatch):
    out = report.write_report(results, tmp_path / "report")
    before = {p.name: p.read_bytes() for p in out.iterdir()}

    def broken(*args, **kwargs):
        raise RuntimeError("disk on fire")
    monkeypatch.setattr(charts, "score_chart", broken)
    with pytest.raises(RuntimeError):
        report.write_report(results, out)
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before
    with pytest.raises(RuntimeError):
        report.write_report(results, tmp_path / "fresh")
    assert not (tmp_path / "fresh").exists()
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


def test_report_refuses_mixed_games(results, tmp_path):
    other = write_results(tmp_path / "other.parquet", {**META, "game": "another-game"})
    with pytest.raises(BalanceError, match="cannot mix games") as error:
        report.write_report([results, other], tmp_path / "report")
    assert "\n" not in str(error.value)
    assert not (tmp_path / "report").exists()


def test_report_compares_runs_with_bh_adjustment(results, tmp_path):
    other = write_results(tmp_path / "other.parquet",
                          {**META, "variant": {"game": "test-game", "name": "slow", "rounds": 9}})
    out = report.write_report([results, other], tmp_path / "report")
    document = json.loads((out / "summary.json").read_text())
    rows = document["comparison"]
    # 3 seats + 2 events with a per-unit rate (storms has none)
    assert [r["measure"] for r in rows] == ["win share, seat 1", "win share, seat 2", "win share, seat 3",
                                             "Flip per trick", "Bonus per game"]
    assert all(r["difference"] == pytest.approx(0.0, abs=1e-12) for r in rows)
    assert [r["q_value"] for r in rows] == pytest.approx(stats.benjamini_hochberg([r["p_value"] for r in rows]))
    html = (out / "report.html").read_text(encoding="utf-8")
    assert "Comparison with run 1" in html and "slow" in html
    assert html.count("<img") == 6 == len(images(html))


def test_generic_five_player_game_with_rounds(tmp_path):
    meta = {"game": "other-game", "players": 5, "rounds_per_game": 4, "assumed": [],
            "events": [{"column": "steals", "label": "Steal", "per": "round"}]}
    scores = [(1, 2, 3, 4, 5), (5, 4, 3, 2, 1)]
    shares = [(0, 0, 0, 0, 1), (1, 0, 0, 0, 0)]
    path = write_results(tmp_path / "five.parquet", meta, scores, shares, {"steals": [4, 2]})
    s = summary.summarize(*summary.load(path))
    assert s["title"] == "other-game" and s["strategies"] == ["?"] * 5
    assert s["first_player_advantage"]["pp"] == pytest.approx(100 * (0.5 - 0.2))
    assert s["events"][0]["rate"] == pytest.approx(6 / 8)
    out = report.write_report(path, tmp_path / "out")
    assert (out / "report.html").exists() and len(list(out.glob("*.png"))) == 3


def drawn_figures(monkeypatch) -> list:
    """Every matplotlib Figure that goes through ``charts._png`` (all charts do) from now on."""
    figures = []
    encode = charts._png

    def keep(figure):
        figures.append(figure)
        return encode(figure)
    monkeypatch.setattr(charts, "_png", keep)
    return figures


def axis_labels(figure) -> list[tuple[str, str, str]]:
    return [(axes.get_title(), axes.get_xlabel(), axes.get_ylabel()) for axes in figure.axes]


def test_every_chart_has_a_title_labelled_axes_and_units(results, monkeypatch):
    from analysis import book, traps

    figures = drawn_figures(monkeypatch)
    frame, meta = summary.load(results)
    s = summary.summarize(frame, meta)
    charts.all_charts(s, summary.score_counts(frame, 3))
    book.fpa_chart([s, {**s, "title": "Other", "players": 4, "games": 8}])
    odds = np.array([[0.0, 0.25, 0.5], [0.0, 0.0, 1.0]])
    traps.odds_heatmap(["Two pairs", "Total 20"], odds, [False, True], 3)
    assert len(figures) == 5
    assert [charts.label_problems(figure) for figure in figures] == [[]] * 5
    titles = [figure.get_suptitle() for figure in figures]
    assert titles == ["Win share by seat", "Final score distribution by seat", "Rule event rates (95% CI)",
                      "First seat's edge by game, player count and players",
                      "Exact chance each trap fires, by dice on the table"]
    subtitle = "Test Game · 3 players · 4 games · variant fast"
    assert axis_labels(figures[0]) == [(subtitle, "seat (seat 1 plays first) and strategy", "win share (%)")]
    assert axis_labels(figures[1]) == [(subtitle, "final score (points)", "games (%)")]
    assert axis_labels(figures[2]) == [(subtitle, "rate per stated unit (%)", "rule event")]
    assert axis_labels(figures[3])[0][1:] == ("first seat's edge: seat 1 win share − 1/N (percentage points), "
                                              "95% interval", "game, player count")
    players = s["seats"][0]["strategy"] if s["lineup"] == "symmetric" else "mixed line-up"
    # whose play and how many games each row rests on
    assert f"games per row: {players} 4–8" in axis_labels(figures[3])[0][0].replace("\n", " ")
    heat_map, colour_bar = axis_labels(figures[4])
    assert heat_map[1:] == ("dice on the table (count)", "trap card (* = assumed)") and "3 players" in heat_map[0]
    assert colour_bar[2] == "chance the trap fires (%)"


def test_label_problems_names_what_a_chart_lacks():
    from matplotlib.figure import Figure

    figure = Figure()
    axes = figure.add_subplot()
    axes.plot([0, 1], [0, 1])
    assert charts.label_problems(figure) == ["no title", "plot 0: no x axis label", "plot 0: no y axis label",
                                             "plot 0: no unit on either axis ('', '')"]
    axes.set_title("Score by round")
    axes.set_xlabel("round")
    axes.set_ylabel("score")
    assert charts.label_problems(figure) == ["plot 0: no unit on either axis ('round', 'score')"]
    axes.set_ylabel("score (points)")
    assert charts.label_problems(figure) == []


def test_score_chart_shades_each_bins_interval(results, monkeypatch):
    """Every bar of the histogram is a share of games, so it carries its Wilson interval."""
    figures = drawn_figures(monkeypatch)
    frame, meta = summary.load(results)
    s = summary.summarize(frame, meta)
    charts.score_chart(summary.score_counts(frame, 3), s)
    from matplotlib.patches import StepPatch

    steps = [patch for patch in figures[0].axes[0].patches if isinstance(patch, StepPatch)]
    bands = [step for step in steps if step.get_fill()]
    assert len(bands) == 3 and len(steps) == 6  # one band and one outline per seat
    # seat 0 scored 10, 3, 7, 0: each of those bins is 1 game in 4, shaded over its Wilson interval
    values, edges, baseline = bands[0].get_data()
    low, high = wilson_closed_form(1, 4)
    scored = [index for index, left in enumerate(edges[:-1]) if left + 0.5 in (0, 3, 7, 10)]
    assert len(scored) == 4
    assert np.allclose(values[scored], 100 * high) and np.allclose(baseline[scored], 100 * low)
    empty = [index for index in range(len(values)) if index not in scored]
    assert np.allclose(baseline[empty], 0) and np.allclose(values[empty], 100 * wilson_closed_form(0, 4)[1])
