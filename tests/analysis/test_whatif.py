"""`balance whatif`: the published rules against variants on the same games.

The paired figures are checked against per-game differences computed directly from two
``simcore.simulate`` frames; an unchanged variant must give changes of exactly 0; a rule switched
off must take its event to exactly 0; pairing must sharpen a comparison that keeps the deck and
not one that changes it.  Bad input goes through ``cli.main``: one line, exit 2, nothing written.
"""
from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

import simcore
from analysis import whatif as comparison
from conftest import balance
from simcore.errors import BalanceError
from simcore.registry import DUPLICATE, game_names

ROOT = Path(__file__).resolve().parents[2]
NO_REVERSAL = ROOT / "examples" / "variants" / "bird-weather-no-reversal.toml"
SHORT_DECK = ROOT / "examples" / "variants" / "bird-weather-short-deck.toml"
GAMES = 4000


def _toml(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


def _rows(document: dict, number: int = 0) -> dict:
    return {row["key"]: row for row in document["variants"][number]["figures"]}


def _listing(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


@pytest.fixture(scope="module")
def bird_weather_whatif():
    """4,000 games of BIRD & WEATHER (1,000 duplicate deals, the default): published rules, no
    reversal (same deck), short deck."""
    code, out, err = balance("whatif", "bird-weather", "--variant", NO_REVERSAL, "--variant", SHORT_DECK,
                             "-n", GAMES, "--seed", 3, "--json")
    assert code == 0, err
    document = json.loads(out)
    assert document["design"] == "duplicate" and document["games"] == GAMES
    return document


@pytest.fixture(scope="module")
def independent_whatif():
    """The same comparison on independent games 0..3999 (``--independent``)."""
    code, out, err = balance("whatif", "bird-weather", "--variant", NO_REVERSAL, "-n", GAMES, "--seed", 3,
                             "--independent", "--json")
    assert code == 0, err
    document = json.loads(out)
    assert document["design"] == "independent"
    return document


def test_switching_the_reversal_off_takes_it_to_exactly_zero(bird_weather_whatif):
    row = _rows(bird_weather_whatif)["event:reversals"]
    assert (row["kind"], row["per"], row["unit"]) == ("rate", "trick", "% per trick")
    assert row["variant"] == 0.0 and row["variant_ci"] == [0.0, 0.0]
    assert row["baseline"] > 0.1  # about 12% of tricks under random play
    assert row["change"] == -row["baseline"]
    assert row["p_value"] < 1e-100 and row["change_ci"][1] < 0


def test_pairing_sharpens_a_variant_that_keeps_the_deck_and_not_one_that_changes_it(bird_weather_whatif):
    same_deck, new_deck = _rows(bird_weather_whatif, 0), _rows(bird_weather_whatif, 1)
    for seat in range(4):
        kept, changed = same_deck[f"share_{seat}"], new_deck[f"share_{seat}"]
        # the same deals: strongly correlated games, a paired interval well inside the unpaired one
        assert kept["correlation"] > 0.2 and kept["crn_gain"] > 1.3
        assert kept["se_paired"] < kept["se_unpaired"]
        paired = kept["change_ci"][1] - kept["change_ci"][0]
        unpaired = kept["change_ci_unpaired"][1] - kept["change_ci_unpaired"][0]
        assert paired == pytest.approx(unpaired / math.sqrt(kept["crn_gain"]), rel=1e-9)
        # a 36-card deck of 8-card hands shuffles differently from the same streams: no shared luck
        assert abs(changed["correlation"]) < 0.1 and changed["crn_gain"] < 1.2
    assert bird_weather_whatif["variants"][1]["settings"]["hand_size"] == 8


def test_figures_tests_and_multiple_comparisons(bird_weather_whatif):
    document = bird_weather_whatif
    rows = _rows(document)
    keys = list(rows)
    assert keys[:9] == ["advantage", "share_0", "share_1", "share_2", "share_3",
                        "score_0", "score_1", "score_2", "score_3"]
    assert keys[9:] == ["event:reversals", "event:zero_wins", "event:zero_point_tricks", "event:facedowns_taken",
                        "event:zero_scored_tricks"]
    advantage, seat0 = rows["advantage"], rows["share_0"]
    assert advantage["baseline"] == pytest.approx(seat0["baseline"] - 0.25)
    assert (advantage["change"], advantage["p_value"], advantage["q_value"]) == (
        seat0["change"], seat0["p_value"], seat0["q_value"])
    # 13 distinct figures per variant (the advantage is seat 0's test), two variants, none exact
    assert document["tests"] == 26
    assert all(row["q_value"] >= row["p_value"] for v in range(2) for row in _rows(document, v).values())


def test_paired_changes_equal_the_per_game_differences_of_two_simulations(independent_whatif):
    """The same games simulated directly: differences game by game, then the textbook formulas."""
    base = simcore.simulate("bird-weather", players=4, games=GAMES, seed=3)
    variant_run = simcore.run("bird-weather", players=4, games=GAMES, seed=3, variant=str(NO_REVERSAL))
    variant = variant_run.frame
    assert base["game"].to_list() == variant["game"].to_list()
    rows = _rows(independent_whatif)
    n = GAMES
    for column in ("share_1", "score_2"):
        x_base, x_variant = (np.round(frame[column].to_numpy().astype(float) * 840) / 840 if column.startswith("share_")
                             else frame[column].to_numpy().astype(float) for frame in (base, variant))  # 1/k exactly
        difference = x_variant - x_base
        row = rows[column]
        assert row["change"] == pytest.approx(difference.mean(), abs=1e-12)
        assert row["se_paired"] == pytest.approx(difference.std(ddof=1) / math.sqrt(n), rel=1e-9)
        unpaired = math.sqrt((x_base.var(ddof=1) + x_variant.var(ddof=1)) / n)
        assert row["se_unpaired"] == pytest.approx(unpaired, rel=1e-9)
        z = difference.mean() / (difference.std(ddof=1) / math.sqrt(n))
        assert row["p_value"] == pytest.approx(math.erfc(abs(z) / math.sqrt(2)), rel=1e-6)
    # a rate per trick: the same number of tricks in every game, so the ratio is the mean count / tricks
    tricks = variant_run.meta["tricks_per_game"]
    assert tricks == 9  # ten cards, one face down
    zero_base, zero_variant = base["zero_wins"].to_numpy() / tricks, variant["zero_wins"].to_numpy() / tricks
    row = rows["event:zero_wins"]
    assert row["baseline"] == pytest.approx(zero_base.mean(), abs=1e-12)
    assert row["se_paired"] == pytest.approx((zero_variant - zero_base).std(ddof=1) / math.sqrt(n), rel=1e-9)


def test_duplicate_changes_are_clustered_by_deal(bird_weather_whatif):
    """The default design simulated directly (``duplicate=True``): the same games, each deal's four
    games one observation.  The change is the mean per-game difference; its variance is that of
    the deals' summed differences, over deals, per game (the cluster-robust textbook formula)."""
    base = simcore.run("bird-weather", players=4, games=GAMES, seed=3, duplicate=True).frame
    variant = simcore.run("bird-weather", players=4, games=GAMES, seed=3, variant=str(NO_REVERSAL),
                          duplicate=True).frame
    assert base["game"][0] == DUPLICATE
    rows, deals = _rows(bird_weather_whatif), GAMES // 4
    for column in ("share_0", "share_1", "score_2"):
        x_base, x_variant = (np.round(frame[column].to_numpy().astype(float) * 840) / 840 if column.startswith("share_")
                             else frame[column].to_numpy().astype(float) for frame in (base, variant))
        difference = x_variant - x_base
        by_deal = difference.reshape(deals, 4).sum(axis=1)
        row = rows[column]
        assert row["clustered"] is True
        assert row["change"] == pytest.approx(difference.mean(), abs=1e-12)
        assert row["se_paired"] == pytest.approx(by_deal.std(ddof=1) / math.sqrt(deals) / 4, rel=1e-9)
        # a seat's share has its clustered normal interval, not Wilson's
        mean = x_base.mean()
        half = 1.959963984540054 * x_base.reshape(deals, 4).sum(axis=1).std(ddof=1) / math.sqrt(deals) / 4
        if column.startswith("share_"):
            assert row["baseline_ci"] == pytest.approx([mean - half, mean + half], rel=1e-9)
    # seat 1's edge: the luck of the hands is gone, so its interval is narrower than independent games'
    # would be at this spread per game (the deals' sums vary less than four independent games' do)
    x = np.round(base["share_0"].to_numpy().astype(float) * 840) / 840
    assert 4 * x.reshape(deals, 4).mean(axis=1).var(ddof=1) < x.var(ddof=1)


def test_a_run_of_mixed_designs_is_refused():
    independent = simcore.run("bird-weather", players=4, games=400, seed=3)
    duplicate = simcore.run("bird-weather", players=4, games=400, seed=3, duplicate=True)
    figures = comparison.headline_figures([independent.meta], independent.frame.columns)
    with pytest.raises(BalanceError, match="mix duplicate deals and independent games"):
        comparison.moments([independent.frame, duplicate.frame], figures, [independent.meta, duplicate.meta],
                           independent.frame.columns, [(0, 1)])
    part = duplicate.frame.head(398)  # the last deal cut short
    with pytest.raises(BalanceError, match="not whole duplicate deals of 4"):
        comparison.moments([part], figures, [duplicate.meta], part.columns)


def test_ratio_rates_use_the_delta_method_per_game():
    """TriATri counts its tricks and fakes per game: the rate of fake wins per fake played is a ratio
    of totals whose paired interval comes from u_g = (c_g − R t_g) / mean(t)."""
    document = comparison.whatif("triatri", [ROOT / "examples" / "variants" / "triatri-no-instant-win.toml"],
                                 players=3, games=3000, seed=11, progress=False, design="independent")
    base = simcore.simulate("triatri", players=3, games=3000, seed=11)
    variant = simcore.simulate("triatri", players=3, games=3000, seed=11,
                               variant=str(ROOT / "examples" / "variants" / "triatri-no-instant-win.toml"))

    def linearised(frame):
        count, units = frame["fake_wins"].to_numpy().astype(float), frame["fakes_played"].to_numpy().astype(float)
        ratio = count.sum() / units.sum()
        return ratio, (count - ratio * units) / units.mean()

    (ratio_base, u_base), (ratio_variant, u_variant) = linearised(base), linearised(variant)
    row = _rows(document)["event:fake_wins"]
    assert row["per"] == "fake"
    assert row["baseline"] == pytest.approx(ratio_base, rel=1e-12)
    assert row["change"] == pytest.approx(ratio_variant - ratio_base, abs=1e-12)
    assert row["se_paired"] == pytest.approx((u_variant - u_base).std(ddof=1) / math.sqrt(3000), rel=1e-9)
    assert row["se_unpaired"] == pytest.approx(math.sqrt((u_base.var(ddof=1) + u_variant.var(ddof=1)) / 3000), rel=1e-9)
    # game length from the rows: the same deals, so a game can only last longer without the instant win
    rows = _rows(document)
    longer = variant["rounds"].to_numpy().astype(int) - base["rounds"].to_numpy().astype(int)
    assert longer.min() >= 0 and longer.max() >= 1
    assert rows["length:round"]["change"] == pytest.approx(longer.mean(), abs=1e-12)
    assert rows["event:ended_instant_win"]["variant"] == 0.0


def test_an_unchanged_variant_changes_nothing_exactly(tmp_path):
    same = _toml(tmp_path, "same.toml", 'game = "bird-weather"\nname = "same rules"\n')
    code, out, err = balance("whatif", "bird-weather", "--variant", same, "-n", 1500, "-p", 3, "--json")
    assert code == 0, err
    document = json.loads(out)
    for row in document["variants"][0]["figures"]:
        assert row["change"] == 0.0 and row["change_ci"] == [0.0, 0.0], row
        assert row["p_value"] == 1.0 and row["q_value"] == 1.0 and row["se_paired"] == 0.0
        assert row["crn_gain"] is None  # infinite: nothing left to vary
        assert row["baseline"] == row["variant"] and row["baseline_ci"] == row["variant_ci"]
    assert document["tests"] == 0  # exact, nothing tested
    code, text, _ = balance("whatif", "bird-weather", "--variant", same, "-n", 1500, "-p", 3, "-q")
    assert code == 0
    assert "∞ (same in every deal)" in text and "+0.00 pp [+0.00, +0.00]" in text  # duplicate deals: 500 of them


def test_results_do_not_depend_on_threads(tmp_path):
    runs = []
    for threads in (1, 2):
        code, out, err = balance("whatif", "bird-weather", "--variant", NO_REVERSAL, "-n", 700, "--seed", 9,
                                 "--threads", threads, "--json")
        assert code == 0, err
        document = json.loads(out)
        runs.append([v["figures"] for v in document["variants"]])
    assert runs[0] == runs[1]


def test_out_writes_a_self_contained_report(tmp_path):
    out = tmp_path / "reports" / "whatif"
    code, text, err = balance("whatif", "bird-weather", "--variant", NO_REVERSAL, "--variant", SHORT_DECK,
                              "-n", 500, "--out", out, "-q")
    assert code == 0, err
    assert f"report written: {out / 'whatif.html'}" in text
    # the first seat's edge in every arm (the chart under the verdict) and the change of every figure
    assert sorted(p.name for p in out.iterdir()) == [".balance-report.json", "summary.json", "whatif-changes.png",
                                                     "whatif-edge.png", "whatif.html", "whatif.md"]
    page = (out / "whatif.html").read_text(encoding="utf-8")
    assert page.count('src="data:image/png;base64,') == 2 and "http" not in page
    assert page.index('class="verdict') < page.index("<img") < page.index("<table")
    markdown = (out / "whatif.md").read_text(encoding="utf-8")
    assert "![Change of every headline figure" in markdown and "## Variant 2: no fives, 8-card hands" in markdown
    assert (out / "whatif-changes.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert json.loads((out / "summary.json").read_text())["games"] == 500


@pytest.mark.parametrize("game", game_names())
def test_every_game_compares_with_no_change_here(game, tmp_path):
    """Any registered game: seats, events and units all come from its metadata."""
    same = _toml(tmp_path, "same.toml", f'game = "{game}"\n')
    document = comparison.whatif(game, [same], players=3, games=300, seed=2, progress=False)
    rows = _rows(document)
    assert {"advantage", "share_0", "share_2", "score_1"} <= set(rows)
    assert len([k for k in rows if k.startswith("event:")]) >= 5
    assert all(row["change"] == 0.0 for row in rows.values())


# --------------------------------------------------------------------------------------------
# bad input: one line, exit 2, nothing written
# --------------------------------------------------------------------------------------------

BAD = {
    "unknown variant key": (lambda d: ["--variant", _toml(d, "v.toml", 'game = "bird-weather"\nflavour = 3\n')],
                            "v.toml: unknown key 'flavour' for bird-weather (known: cards, deals"),
    "variant for another game": (lambda d: ["--variant", _toml(d, "v.toml", 'game = "triatri"\nrounds = 2\n')],
                                 "v.toml: this variant is for 'triatri', not 'bird-weather'"),
    "variant without a game": (lambda d: ["--variant", _toml(d, "v.toml", "reversal = false\n")],
                               "a variant file must say which game it is for"),
    "impossible deck": (lambda d: ["--variant", _toml(d, "v.toml", 'game = "bird-weather"\nhand_size = 11\n')],
                        "cannot deal 4 hands of 11"),
    "second variant bad": (lambda d: ["--variant", NO_REVERSAL, "--variant", _toml(d, "v.toml", 'game = "x"\n')],
                           "this variant is for 'x'"),
    "same variant twice": (lambda d: ["--variant", NO_REVERSAL, "--variant", NO_REVERSAL], "is given twice"),
    "missing variant file": (lambda d: ["--variant", d / "nope.toml"], "variant file not found"),
    "no variant": (lambda d: [], "Missing option '--variant'"),
    "no games": (lambda d: ["--variant", NO_REVERSAL, "-n", 0], "--games must be at least 1, not 0"),
    "unknown strategy": (lambda d: ["--variant", NO_REVERSAL, "-s", "clever"], "unknown strategy 'clever'"),
    "player count": (lambda d: ["--variant", NO_REVERSAL, "-p", 2], "not 2"),
    "too few deals": (lambda d: ["--variant", NO_REVERSAL, "--duplicate"],
                      "--duplicate needs at least 100 deals, 400 games at 4 players, not 100"),
}


@pytest.mark.parametrize("case", list(BAD))
def test_bad_input_is_one_line_exit_2_and_writes_nothing(case, tmp_path, monkeypatch):
    import simcore.driver

    make_args, fragment = BAD[case]
    played = []
    monkeypatch.setattr(simcore.driver, "run_games", lambda *a, **k: played.append(a))
    args = make_args(tmp_path)
    before = _listing(tmp_path)
    # the case's own options come last: a repeated -n takes the last value
    code, out, err = balance("whatif", "bird-weather", "-n", 100, "--out", tmp_path / "report", *args)
    assert code == 2 and out == ""
    assert len(err.splitlines()) == 1 and err.startswith("balance: error: ") and fragment in err, err
    assert _listing(tmp_path) == before and played == []


def test_a_report_folder_that_is_a_file_is_refused_before_simulating(tmp_path):
    blocker = _toml(tmp_path, "report", "not a folder")
    code, out, err = balance("whatif", "bird-weather", "--variant", NO_REVERSAL, "-n", 100, "--out", blocker)
    assert code == 2 and err.strip() == f"balance: error: {blocker} exists and is not a directory"
    assert blocker.read_text() == "not a folder"



def test_alea_plays_independent_games_and_refuses_duplicate_deals(tmp_path):
    """ALEA's dice follow the roller, so its what-if plays independent games, and says so."""
    same = _toml(tmp_path, "same.toml", 'game = "sky-city"\n')
    code, out, err = balance("whatif", "sky-city", "-p", 3, "--variant", same, "-n", 400, "--json")
    assert code == 0, err
    assert json.loads(out)["design"] == "independent"
    code, out, err = balance("whatif", "sky-city", "-p", 3, "--variant", same, "-n", 400, "--duplicate")
    assert code == 2 and out == ""
    assert err.strip().startswith("balance: error: --duplicate: sky-city cannot play duplicate deals: ALEA deals no hands")
