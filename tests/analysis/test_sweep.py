"""`balance sweep`: one variant key over a range on the same games.

Point values are checked against a plain ``simcore.simulate`` + ``summarize`` of the same rules;
game length must follow the swept number of rounds; every point's rules are checked before the
first game is played, and bad input is one line, exit 2, nothing written.
"""
from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pytest

import simcore
from analysis.summary import summarize
from analysis.sweep import MAX_POINTS, parse_range
from conftest import balance
from simcore.errors import BalanceError
from simcore.registry import get_game

ROOT = Path(__file__).resolve().parents[2]
NO_INSTANT_WIN = ROOT / "examples" / "variants" / "triatri-no-instant-win.toml"


def _listing(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


# --------------------------------------------------------------------------------------------
# the range
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("spec,values", [
    ("hand_size=6..10:2", [6, 8, 10]),
    ("hand_size=6..9:2", [6, 8]),           # STOP only where it falls on the grid
    ("hand_size = 7..9", [7, 8, 9]),         # STEP 1 by default; spaces allowed
    ("deals=1..41", list(range(1, 42))),    # the most points allowed
])
def test_whole_number_ranges(spec, values):
    key, got = parse_range(spec, get_game("bird-weather"))
    assert key == spec.split("=")[0].strip() and got == values
    assert all(type(v) is int for v in got)


def test_a_decimal_key_takes_decimal_steps():
    """No game has a decimal key yet; a later one will (the key's type comes from the game)."""
    game = SimpleNamespace(name="later-game", variant_keys={"bonus": (float, "a bonus"), "size": (int, "a size")})
    assert parse_range("bonus=0.1..0.3:0.1", game) == ("bonus", [0.1, 0.2, 0.3])
    assert parse_range("bonus=-1..1:0.5", game) == ("bonus", [-1.0, -0.5, 0.0, 0.5, 1.0])
    with pytest.raises(BalanceError, match="STEP '0.5' is not a whole number"):
        parse_range("size=1..3:0.5", game)


BAD_RANGES = {
    "hand_size": "--set must be KEY=START..STOP[:STEP], e.g. target=30..60:5, not 'hand_size'",
    "hand_size=6-10": "--set must be KEY=START..STOP[:STEP]",
    "=6..10": "--set must be KEY=START..STOP[:STEP]",
    "flavour=1..3": "'flavour' is not a variant key of bird-weather (known: cards, deals, facedown, hand_size, "
                    "reversal, zero_win)",
    "reversal=0..1": "'reversal' of bird-weather is a bool setting, not a number",
    "cards=1..3": "'cards' of bird-weather is a list setting, not a number",
    "hand_size=six..10": "--set hand_size: START 'six' is not a whole number",
    "hand_size=6..10:0": "--set hand_size: STEP must be positive, not 0",
    "hand_size=6..10:-2": "--set hand_size: STEP must be positive, not -2",
    "hand_size=10..6": "--set hand_size: START 10 is above STOP 6",
    "hand_size=6..6": "is a single point; a sweep needs at least two",
    "deals=1..42": f"1..42:1 is 42 points, more than {MAX_POINTS}; take a larger STEP",
}


@pytest.mark.parametrize("spec", list(BAD_RANGES))
def test_bad_ranges_are_refused_by_name(spec):
    with pytest.raises(BalanceError) as refused:
        parse_range(spec, get_game("bird-weather"))
    assert BAD_RANGES[spec] in str(refused.value)


# --------------------------------------------------------------------------------------------
# the sweep
# --------------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def rounds_sweep(tmp_path_factory):
    """TriATri at 3 players without the instant win, 1 to 4 rounds, 2,500 independent games a point
    (on duplicate deals TriATri's first seat has no edge at all: the rules know no first seat)."""
    out = tmp_path_factory.mktemp("sweep") / "report"
    code, text, err = balance("sweep", "triatri", "-p", 3, "--set", "rounds=1..4", "--variant", NO_INSTANT_WIN,
                              "-n", 2500, "--seed", 4, "--out", out, "-q", "--independent")
    assert code == 0, err
    return json.loads((out / "summary.json").read_text()), text, out


def test_game_length_follows_the_rounds(rounds_sweep):
    document, _, _ = rounds_sweep
    assert document["key"] == "rounds" and document["values"] == [1, 2, 3, 4]
    rounds = [point["figures"]["length:round"] for point in document["points"]]
    # one round: every game is exactly one round long, with no spread at all
    assert rounds[0]["value"] == 1.0 and rounds[0]["ci"] == [1.0, 1.0]
    means = [r["value"] for r in rounds]
    assert all(a < b for a, b in zip(means, means[1:]))
    assert all(m <= rounds_key for m, rounds_key in zip(means, document["values"]))
    tricks = [point["figures"]["length:trick"]["value"] for point in document["points"]]
    assert tricks[0] == 5.0  # five tricks a round
    change = {row["key"]: row for row in document["range_change"]["figures"]}
    assert change["length:round"]["change"] == pytest.approx(means[-1] - means[0])
    assert change["length:round"]["p_value"] < 1e-12


def test_the_base_variant_holds_at_every_point(rounds_sweep):
    document, text, _ = rounds_sweep
    assert document["base"]["settings"] == {"instant_win_sets": 0}
    for value, point in zip(document["values"], document["points"]):
        assert point["variant"]["settings"] == {"instant_win_sets": 0, "rounds": value}
        assert point["variant"]["name"] == f"no instant win, rounds = {value}"
        instant = point["figures"]["event:ended_instant_win"]
        assert instant["value"] == 0.0
    assert "sweep of rounds = 1, 2, 3, 4 on no instant win" in text


def test_each_point_is_the_run_simulate_would_make(rounds_sweep):
    document, _, _ = rounds_sweep
    point = document["points"][2]
    run = simcore.run("triatri", players=3, games=2500, seed=4, variant=str(NO_INSTANT_WIN), rounds=3)
    frame = run.frame
    summary = summarize(frame.lazy(), run.meta)
    advantage = point["figures"]["advantage"]
    # both count a k-way tie as exactly 1/k (whole 840ths), so they agree to rounding
    assert 100 * advantage["value"] == pytest.approx(summary["first_player_advantage"]["pp"], abs=1e-9)
    assert [100 * v for v in advantage["ci"]] == pytest.approx(summary["first_player_advantage"]["ci_pp"], abs=1e-9)
    events = {e["column"]: e for e in summary["events"]}
    for column in ("redeals", "fakes_played", "doubled"):
        assert point["figures"][f"event:{column}"]["value"] == pytest.approx(events[column]["rate"], rel=1e-12)


def test_a_sweep_on_duplicate_deals_judges_each_point_by_deal():
    """The default for a card game: every point plays the same duplicate deals, and its first-seat
    edge is the one analysis.duplicate clusters by deal from ``simcore.run(..., duplicate=True)``."""
    code, text, err = balance("sweep", "bird-weather", "-p", 4, "--set", "hand_size=9..10", "-n", 1998, "--seed", 5,
                              "--json")
    assert code == 0, err
    document = json.loads(text)
    assert document["design"] == "duplicate" and document["games"] == 2000  # whole deals of four
    from analysis.duplicate import seat_edge

    for value, point in zip(document["values"], document["points"]):
        run = simcore.run("bird-weather", players=4, games=2000, seed=5, hand_size=value, duplicate=True)
        edge, interval = seat_edge(run.frame["share_0"].to_numpy(), 4)
        advantage = point["figures"]["advantage"]
        assert 100 * advantage["value"] == pytest.approx(edge, abs=1e-9)
        assert [100 * v for v in advantage["ci"]] == pytest.approx(interval, rel=1e-9)
    assert all(row["clustered"] for row in document["range_change"]["figures"])


def test_report_files_and_charts(rounds_sweep):
    document, text, out = rounds_sweep
    names = sorted(p.name for p in out.iterdir())
    units = sorted({f["per"] for f in document["figures"] if f["kind"] == "rate"})
    assert units == ["fake", "game", "round", "trick"]
    assert names == sorted([".balance-report.json", "summary.json", "sweep.html", "sweep.md", "sweep-advantage.png",
                            "sweep-length.png"] + [f"sweep-rates-{u}.png" for u in units])
    page = (out / "sweep.html").read_text(encoding="utf-8")
    assert page.count('src="data:image/png;base64,') == 2 + len(units)
    assert f"report written: {out / 'sweep.html'}" in text
    assert "from rounds = 1 to 4, paired by game index:" in text


def test_sweep_json_matches_the_report(tmp_path):
    code, text, err = balance("sweep", "bird-weather", "--set", "hand_size=8..10:2", "-n", 600, "--json")
    assert code == 0, err
    document = json.loads(text)
    assert document["values"] == [8, 10] and document["games"] == 600
    assert [f["key"] for f in document["figures"]][:1] == ["advantage"]
    reversal = [p["figures"]["event:reversals"]["value"] for p in document["points"]]
    assert all(0 < r < 1 for r in reversal)
    assert document["range_change"]["tests"] == len(document["figures"])


# --------------------------------------------------------------------------------------------
# bad input through the command line
# --------------------------------------------------------------------------------------------

BAD = {
    "missing key": (["chimera", "--set", "foo=1..3"],
                    "'foo' is not a variant key of chimera (known: crystal_ranks, crystals, grimoires"),
    "bad range": (["bird-weather", "--set", "hand_size=6..x"], "STOP 'x' is not a whole number"),
    "value the game refuses": (["bird-weather", "--set", "hand_size=9..11"],
                               "--set hand_size=11: a deck of 40 cards cannot deal 4 hands of 11"),
    "base for another game": (["bird-weather", "--set", "hand_size=8..9", "--variant", NO_INSTANT_WIN],
                              "this variant is for 'triatri', not 'bird-weather'"),
    "no --set": (["bird-weather"], "Missing option '--set'"),
    "no games": (["bird-weather", "--set", "hand_size=8..9", "-n", 0], "--games must be at least 1"),
}


@pytest.mark.parametrize("case", list(BAD))
def test_bad_input_is_one_line_exit_2_and_nothing_runs(case, tmp_path, monkeypatch):
    import simcore.driver

    played = []
    monkeypatch.setattr(simcore.driver, "run_games", lambda *a, **k: played.append(a))
    args, fragment = BAD[case]
    code, out, err = balance("sweep", "-n", 100, "--out", tmp_path / "report", *args)
    assert code == 2 and out == ""
    assert len(err.splitlines()) == 1 and err.startswith("balance: error: ") and fragment in err, err
    assert _listing(tmp_path) == [] and played == []
