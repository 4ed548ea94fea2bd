"""The Sky City of ALEA from the command line: simulate, replay, traps, bad decks."""
import json

import pytest

from conftest import balance


def test_traps_command_writes_table_heatmap_and_figures(tmp_path):
    code, out, err = balance("traps", "--players", 3, "--games", 20_000, "-q", "--equilibrium-rounds", 300, "--out", tmp_path / "t", "--json")
    assert code == 0, err
    data = json.loads(out)
    assert len(data["traps"]) == 22 and len(data["exact_odds"][0]) == 16  # 0..15 dice at 3 players
    assert data["exact_odds"][data["traps"].index("1, 2 and 3")][3] == pytest.approx(6 / 216)
    first = data["simulation"][0]
    assert {"points_per_player_round", "first_roll_end", "escape_success", "zero_declarers_collect"} <= set(first)
    for row in data["simulation"]:  # every figure carries its interval, the points per player per round too
        assert row["points_ci"][0] < row["points_per_player_round"] < row["points_ci"][1], row["trap"]
    assert data["verdict"]["agreement"]["agrees"] and len(data["verdict"]["sentences"]) == 3
    assert len(data["equilibria"]["traps"]) == 22 and data["equilibria"]["rounds"] == 300
    html = (tmp_path / "t" / "traps.html").read_text()
    # the points per trap (the chart under the verdict), the heat map of the odds and the equilibria
    assert html.count("data:image/png;base64,") == 3 and "ASSUMED" in html and "Declaration equilibria" in html and "http" not in html.replace("http-equiv", "")


def test_traps_with_a_custom_deck_and_a_bad_one(tmp_path):
    deck = tmp_path / "deck.toml"
    deck.write_text('[[trap]]\nname = "Sixes"\nwhen = "faces 6 6"\n[[trap]]\nname = "Big"\nwhen = "total >= 15"\n')
    code, out, err = balance("traps", "--players", 4, "--deck", deck, "--games", 5_000, "-q", "--no-equilibria", "--json")
    assert code == 0, err
    assert json.loads(out)["traps"] == ["Sixes", "Big"]
    deck.write_text('[[trap]]\nname = "Broken"\nwhen = "faces 7"\n')
    code, out, err = balance("traps", "--players", 4, "--deck", deck, "--games", 5_000, "-q", "--no-equilibria")
    assert code == 2 and len(err.strip().splitlines()) == 1 and "Broken" in err and "column" in err


def test_simulate_replay_and_strategy_parameters(tmp_path):
    run = tmp_path / "alea.parquet"
    code, out, err = balance("simulate", "sky-city", "-p", 5, "-n", 3000, "-q", "--out", run,
                             "--strategies", "expected-value,cautious:0.1,fixed:4,random,random")
    assert code == 0, err
    assert "ASSUMED" in out
    code, out, err = balance("replay", "sky-city", "--run", run, "--index", 17)
    assert code == 0, err
    assert "matches row 17" in out and "round 1" in out
    for bad in ("fixed:x", "random:3", "bogus"):
        code, out, err = balance("simulate", "sky-city", "-n", 10, "--strategies", bad)
        assert code == 2 and len(err.strip().splitlines()) == 1


from pathlib import Path

SCENARIOS = sorted((Path(__file__).resolve().parents[3] / "examples" / "scenarios").glob("sky-city-*.json"))


def test_a_scenario_for_every_rule():
    names = {p.stem for p in SCENARIOS}
    assert {"sky-city-groups", "sky-city-first-roll", "sky-city-escape-tie", "sky-city-escape-stays",
            "sky-city-all-zero", "sky-city-final-round", "sky-city-final-3p", "sky-city-round-cap",
            "sky-city-every-escaper-rerolls", "sky-city-first-failure-ends-escapes"} <= names


@pytest.mark.parametrize("path", SCENARIOS, ids=[p.stem for p in SCENARIOS])
def test_play_sky_city_scenario(path):
    code, out, err = balance("play", path)
    assert code == 0, err
    assert "compiled and reference engines agree" in out and "EXPECTATION FAILED" not in out
    log = json.loads(balance("play", path, "--json")[1])
    assert log["engines_agree"] and log["expect_failures"] == []
    assert log["scores"] == json.loads(path.read_text())["expect"]["scores"]


def test_bad_sky_city_scenarios(tmp_path):
    base = json.loads(SCENARIOS[0].read_text())
    cases = {
        "too many dice": ({**base, "rounds": [{**base["rounds"][0], "dice": base["rounds"][0].get("dice", []) + [1]}]},
                          "too many dice"),
        "unknown trap": ({**base, "rounds": [{**base["rounds"][0], "trap": "Seven sevens"}]}, "Seven sevens"),
        "declaration 9": ({**base, "rounds": [{**base["rounds"][0], "declare": [9] * base["players"]}]}, "9"),
        "unknown key": ({**base, "round": []}, "unknown key 'round'"),
    }
    for name, (data, fragment) in cases.items():
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps(data))
        code, out, err = balance("play", path)
        assert code == 2 and len(err.strip().splitlines()) == 1 and fragment in err, (name, err)
    wrong = {**json.loads((SCENARIOS[0].parent / "sky-city-first-roll.json").read_text())}
    wrong["expect"] = {**wrong["expect"], "scores": [0, 0, 0, 0]}
    path = tmp_path / "wrong.json"
    path.write_text(json.dumps(wrong))
    code, out, err = balance("play", path)
    assert code == 1 and "EXPECTATION FAILED: scores" in out


def test_game_report_has_the_trap_section(tmp_path):
    run = tmp_path / "alea.parquet"
    assert balance("simulate", "sky-city", "-n", 5000, "-q", "--out", run)[0] == 0
    code, out, err = balance("report", run, "--out", tmp_path / "r")
    assert code == 0, err
    html = (tmp_path / "r" / "report.html").read_text()
    assert "Rounds and traps" in html and "Rounds per game" in html and html.count("data:image/png;base64,") == 4
    assert "ASSUMED" in html and "Two pairs" in html


def test_variant_files(tmp_path):
    (tmp_path / "mine.toml").write_text('[[trap]]\nname = "Any six"\nwhen = "faces 6"\n')
    variant = tmp_path / "v.toml"
    variant.write_text('game = "sky-city"\nname = "six only"\ntraps = "mine.toml"\ndice_per_player = 3\n'
                       'target_4 = 6\nzero_bonus = 1\nfinal_multiplier = 3\n')
    code, out, err = balance("simulate", "sky-city", "-n", 2000, "-q", "--variant", variant, "--json")
    assert code == 0, err
    summary = json.loads(out)
    assert summary["variant"]["name"] == "six only" and summary["variant"]["settings"]["dice_per_player"] == 3
    for text, fragment in [('game = "sky-city"\ndice_per_player = 7\n', "dice_per_player"),
                           ('game = "sky-city"\ntraps = "missing.toml"\n', "missing.toml"),
                           ('game = "sky-city"\nfinal_multiplier = 0\n', "final_multiplier"),
                           ('game = "bird-weather"\n', "not 'sky-city'")]:
        variant.write_text(text)
        code, out, err = balance("simulate", "sky-city", "-n", 10, "-q", "--variant", variant)
        assert code == 2 and len(err.strip().splitlines()) == 1 and fragment in err, (text, err)


def test_alea_plugin_example_runs():
    plugin = Path(__file__).resolve().parents[3] / "examples" / "plugins" / "alea_two_or_nothing.py"
    code, out, err = balance("simulate", "sky-city", "-n", 3000, "-q", "--json", "--plugin", plugin,
                             "--strategies", "two-or-nothing,random,random,random")
    assert code == 0, err
    seats = json.loads(out)["seats"]
    assert seats[0]["strategy"] == "two-or-nothing" and seats[0]["win_share"] < 0.1
