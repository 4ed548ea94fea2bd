"""Card strength (analysis/cards.py) and the opening hands it rests on (Game.opening_hands).

The hands are checked against the play loops' own logs (what ``balance replay`` prints), the
reference engines' deals and the hands BIRD & WEATHER records in its results; the statistic
against a plain least-squares fit with seat dummies and an explicit cluster-robust sandwich,
and against frames where the answer is known exactly.
"""
from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import polars as pl
import pytest

from analysis import cards, report, stats
from conftest import balance
from simcore.driver import run_games
from simcore.errors import BalanceError
from simcore.registry import get_game
from simcore.rng import deal_stream, py_deal_and_rotation, rotate_list

SEED = 20240611
INDICES = [0, 1, 2, 977, 123_456_789, 2**62 + 5]  # the last a duplicate deal's (turned)


def setup_of(name: str, players: int, settings: dict | None = None):
    game = get_game(name)
    return game, game.setup(players, game.variant(overrides=settings or {}))


def held_names(game, setup, hands: np.ndarray) -> list[str]:
    """A seat's row of opening_hands as a sorted list of printed cards (copies repeated)."""
    names = game.card_names(setup)
    return sorted(name for c, name in enumerate(names) for _ in range(int(hands[c])))


def first_hands(name: str, log: dict) -> list[list]:
    """The first deal's hands of a compiled game log, in each game's own log format."""
    if name == "bird-weather":  # the log holds card numbers; a page names them as the rulebook does
        from simcore.games.bird_weather.rules import card_name

        return [[card_name(c) for c in hand] for hand in log["deals"][0]["hands"]]
    if name == "triatri":
        return log["rounds"][0]["deals"][0]["hands"]
    if name == "ten-tricks":
        return log["rounds"][0]["hands"]
    return log["hands"]  # chimera: the one deal of the game


def reference_hands(name: str, game, setup, index: int) -> list[list[str]]:
    """The reference engine's first deal of game ``index`` (its own code and PyStream), turned as a
    duplicate index turns it (``INDICES`` holds one: simcore/rng.py)."""
    deal, turn = deal_stream(SEED, index, setup.players), py_deal_and_rotation(index, setup.players)[1]
    return rotate_list(_dealt(name, game, setup, deal), turn)


def _dealt(name: str, game, setup, deal) -> list[list[str]]:
    if name == "bird-weather":
        from simcore.games.bird_weather import reference as ref

        from simcore.games.bird_weather.rules import card_name

        return [[card_name(c) for c in hand] for hand in ref.deal_hands(game.reference_rules(setup), deal)]
    if name == "triatri":
        from simcore.games.triatri.game import reference_rules
        from simcore.games.triatri import reference as ref

        return [[setup.card_name(c) for c in hand] for hand in ref.deal_hands(reference_rules(setup), deal)]
    if name == "ten-tricks":
        from simcore.games.ten_tricks.game import reference_rules
        from simcore.games.ten_tricks import reference as ref

        _, hands = ref.deal_round(reference_rules(setup), deal)
        return [[setup.card_name(c) for c in hand] for hand in hands]
    from simcore.games.chimera import rules as cm
    from simcore.games.chimera.game import reference_rules
    from simcore.games.chimera import reference as ref

    hands, _ = ref.deal_familiars(reference_rules(setup), deal)
    return [[cm.card_name(c) for c in hand] for hand in hands]


CASES = [("bird-weather", 3, {}), ("bird-weather", 5, {"hand_size": 7}), ("triatri", 2, {}),
         ("triatri", 4, {"fakes": 5, "high": 8}), ("ten-tricks", 3, {}), ("ten-tricks", 4, {}),
         ("chimera", 3, {}), ("chimera", 4, {})]


@pytest.mark.parametrize("name,players,settings", CASES)
def test_opening_hands_are_the_first_deal_of_the_compiled_and_reference_engines(name, players, settings):
    game, setup = setup_of(name, players, settings)
    hands = game.opening_hands(setup, SEED, np.array(INDICES, dtype=np.uint64))
    assert hands.shape == (len(INDICES), players, len(game.card_names(setup))) and hands.dtype == np.uint8
    logs = game.kernel_logs(setup, game.lineup(None, players), SEED, INDICES)
    for k, (index, log) in enumerate(zip(INDICES, logs)):
        mine = [held_names(game, setup, hands[k, s]) for s in range(players)]
        assert mine == [sorted(hand) for hand in first_hands(name, log)], (name, index)
        assert mine == [sorted(hand) for hand in reference_hands(name, game, setup, index)], (name, index)


def test_duplicated_cards_are_one_row_counting_copies():
    game, setup = setup_of("triatri", 4, {"fakes": 5, "high": 8})
    names = game.card_names(setup)
    assert names[-1] == "fake" and names.count("fake") == 1 and len(names) == 3 * 7 + 1
    hands = game.opening_hands(setup, SEED, np.arange(3000))
    assert (hands.sum(axis=2) == 6).all()  # six cards dealt to every seat, copies counted
    assert (hands[..., :-1] <= 1).all() and hands[..., -1].max() >= 2
    assert (hands[..., -1].sum(axis=1) <= 5).all()  # never more fakes dealt than printed


def test_card_names_follow_the_deck_in_force():
    names = get_game("bird-weather").card_names(setup_of("bird-weather", 4)[1])  # number, weather and bird
    assert len(names) == 40 and names[0] == "10 (sun, no bird)" and names[25] == "35 (cloud, crow)"
    assert names[-1] == "49 (rain, egret)" and [int(n.split()[0]) for n in names] == list(range(10, 50))
    game, setup = setup_of("ten-tricks", 3)
    names = game.card_names(setup)
    assert len(names) == 32 + 6 and names[0] == "red-1" and "infected-0" not in names and "infected-8" not in names
    game, setup = setup_of("ten-tricks", 3, {"colours_3": ["red", "blue", "green"]})
    assert not any(n.startswith("yellow") for n in game.card_names(setup)) and len(game.card_names(setup)) == 30
    game, setup = setup_of("chimera", 3, {"suits": 2, "zero_ten": False})
    assert game.card_names(setup) == [f"{s}-{r}" for s in "SC" for r in range(1, 10)]
    assert get_game("sky-city").card_names(None) is None
    assert cards.card_games() == ["bird-weather", "chimera", "ten-tricks", "triatri"]


def test_bird_weather_recorded_hands_are_the_rebuilt_ones():
    game, setup = setup_of("bird-weather", 4)
    columns = game.run_chunk(setup, game.lineup(None, 4), SEED, 5000, 600)
    recorded = np.column_stack([columns[f"hand_{s}"] for s in range(4)])
    assert np.array_equal(game.opening_masks(setup, SEED, columns["game"].astype(np.int64)), recorded)


def simulated(name: str, players: int, games: int, seed: int = 3):
    game, setup = setup_of(name, players)
    variant = game.variant()
    result = run_games(game, setup, game.lineup(None, players), variant, seed, games, progress=False)
    return result.frame, result.meta


def test_a_changed_deal_is_refused_not_measured():
    frame, meta = simulated("bird-weather", 3, 400)
    tampered = frame.with_columns(pl.col("hand_1").alias("hand_0"), pl.col("hand_0").alias("hand_1"))
    with pytest.raises(BalanceError, match="differ from those the results recorded"):
        cards.card_strength(tampered.lazy(), meta)
    assert cards.card_strength(frame.lazy(), meta).collect().height == 30


def explicit_cluster_ols(hands: np.ndarray, shares: np.ndarray, card: int) -> tuple[float, float]:
    """delta and its game-clustered standard error from a plain OLS on seat dummies + holding,
    the sandwich written out: (X'X)^-1 [sum_g X_g' e_g e_g' X_g] (X'X)^-1 * G/(G-1)."""
    games, players = shares.shape
    rows = games * players
    design = np.zeros((rows, players + 1))
    design[np.arange(rows), np.tile(np.arange(players), games)] = 1.0
    design[:, players] = hands[:, :, card].reshape(rows)
    y = shares.reshape(rows)
    beta, *_ = np.linalg.lstsq(design, y, rcond=None)
    e = y - design @ beta
    bread = np.linalg.inv(design.T @ design)
    meat = np.zeros((players + 1, players + 1))
    for g in range(games):
        score = design[g * players:(g + 1) * players].T @ e[g * players:(g + 1) * players]
        meat += np.outer(score, score)
    v = games / (games - 1) * bread @ meat @ bread
    return float(beta[players]), math.sqrt(v[players, players])


def hand_bh(p_values: list[float]) -> list[float]:
    """Benjamini-Hochberg by the definition, q_i = min_{j: p_j >= p_i} m p_j / rank_j."""
    m = len(p_values)
    ranked = sorted(p_values)
    return [min(1.0, min(m * ranked[j] / (j + 1) for j in range(m) if ranked[j] >= p)) for p in p_values]


def test_card_strength_equals_the_explicit_cluster_robust_regression(monkeypatch):
    frame, meta = simulated("triatri", 3, 500)
    game, setup = cards.run_setup(meta)
    names = game.card_names(setup)
    hands = game.opening_hands(setup, meta["seed"], frame["game"].to_numpy()).astype(np.float64)
    shares = np.column_stack([frame[f"share_{s}"].cast(pl.Float64).to_numpy() for s in range(3)])
    table = {r["card"]: r for r in cards.card_strength(frame.lazy(), meta).collect().to_dicts()}
    assert set(table) == set(names)
    z = stats.z_for(0.95)
    p_values = []
    for c, name in enumerate(names):
        delta, se = explicit_cluster_ols(hands, shares, c)
        row = table[name]
        assert row["delta"] == pytest.approx(delta, abs=1e-12)
        assert (row["ci_high"] - row["ci_low"]) / (2 * z) == pytest.approx(se, rel=1e-9)
        assert row["p"] == pytest.approx(math.erfc(abs(delta / se) / math.sqrt(2)), rel=1e-9)
        assert row["games_held"] == int((hands[:, :, c] > 0).sum())
        p_values.append(row["p"])
    for name, q in zip(names, hand_bh(p_values)):
        assert table[name]["q"] == pytest.approx(q, rel=1e-12)
        row = table[name]
        assert row["significant"] == (q < 0.05)
        # flagged: sure (BH) and larger than the 2 pp threshold, the whole interval beyond it
        assert row["flagged"] == (q < 0.05 and (row["ci_low"] >= 0.02 or row["ci_high"] <= -0.02))

    # small blocks and slices (several passes over the rows) give the same numbers
    monkeypatch.setattr(cards, "BLOCK_GAMES", 7)
    monkeypatch.setattr(cards, "SLICE_ROWS", 60)
    again = {r["card"]: r for r in cards.card_strength(frame.lazy(), meta).collect().to_dicts()}
    for name in names:
        for key in ("delta", "ci_low", "ci_high", "p", "q"):
            assert again[name][key] == pytest.approx(table[name][key], rel=1e-9, abs=1e-15)


def synthetic(name: str, players: int, games: int, share_of, seed: int = 11, settings: dict | None = None):
    """A results frame whose win shares are a given function of the opening hands."""
    game, setup = setup_of(name, players, settings)
    index = np.arange(games, dtype=np.uint64)
    hands = game.opening_hands(setup, seed, index)
    shares = share_of(hands, game.card_names(setup))
    frame = pl.DataFrame({"game": index, **{f"share_{s}": shares[:, s] for s in range(players)}})
    meta = {"game": name, "title": game.title, "players": players, "seed": seed, "strategies": ["random"],
            "variant": {"game": name, "name": "default", "description": "", **(settings or {})}}
    return frame.lazy(), meta


def test_a_card_that_adds_a_known_share_is_measured_exactly():
    seat_effect = np.array([0.30, 0.22, 0.18])

    def shares(hands, names):
        return seat_effect + 0.25 * hands[:, :, names.index("water-5")]

    frame, meta = synthetic("triatri", 3, 2000, shares)
    table = cards.card_strength(frame, meta).collect()
    top = table.row(0, named=True)
    assert top["card"] == "water-5" and top["delta"] == pytest.approx(0.25, abs=1e-12)
    # an exact fit: no residual, so the interval collapses (to rounding) and p underflows
    assert top["ci_high"] - top["ci_low"] < 1e-6 and top["p"] == 0.0 and top["flagged"]


def test_a_duplicated_card_is_measured_per_copy():
    rng = np.random.default_rng(5)

    def shares(hands, names):
        noise = rng.normal(0.0, 0.05, size=hands.shape[:2])
        return 0.5 + noise - 0.04 * hands[:, :, names.index("fake")]

    frame, meta = synthetic("triatri", 2, 6000, shares, settings={"fakes": 4})
    rows = {r["card"]: r for r in cards.card_strength(frame, meta).collect().to_dicts()}
    fake = rows["fake"]
    assert fake["copies"] == 4 and fake["ci_low"] < -0.04 < fake["ci_high"] and fake["ci_high"] - fake["ci_low"] < 0.01
    assert fake["flagged"] and fake["q"] == min(r["q"] for r in rows.values())


def test_card_strength_refuses_runs_it_cannot_rebuild():
    frame, meta = synthetic("triatri", 2, 50, lambda hands, names: np.full(hands.shape[:2], 0.5))
    with pytest.raises(BalanceError, match="no valid 'seed'"):
        cards.card_strength(frame, {**meta, "seed": None})
    with pytest.raises(BalanceError, match="no hands of cards"):
        cards.card_strength(frame, {**meta, "game": "sky-city", "players": 3, "variant": {}})
    with pytest.raises(BalanceError, match="at least 2 games"):
        cards.card_strength(frame.head(1), meta)


def test_report_of_a_card_game_has_the_card_strength_section(tmp_path):
    frame, meta = simulated("triatri", 2, 3000)
    path = tmp_path / "run.parquet"
    frame.write_parquet(path, metadata={"balance": json.dumps(meta)})
    out = report.write_report(path, tmp_path / "report")
    md = (out / "report.md").read_text(encoding="utf-8")
    assert "## Card strength (3,000 games)" in md and "](card-strength.png)" in md
    assert (out / "card-strength.png").read_bytes().startswith(b"\x89PNG")
    rows = json.loads((out / "summary.json").read_text())["runs"][0]["card_strength"]
    assert [r["card"] for r in rows] == [r["card"] for r in cards.card_strength(frame.lazy(), meta).collect().to_dicts()]
    listed = [line.split(" | ")[0][2:] for line in md.split("## Card strength")[1].splitlines() if line.startswith("| ")]
    assert listed[1:] == [r["card"] for r in rows] and len(rows) == 16  # a small deck: every card listed


def listing(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


@pytest.mark.parametrize("args,fragment", [
    (["cards", "sky-city", "-p", "3"], "sky-city deals no hands of cards"),
    (["cards", "chess"], "unknown game 'chess'"),
    (["cards", "triatri", "-p", "5"], "TriATri is played by 2, 3, 4 players, not 5"),
    (["cards", "triatri", "-n", "1"], "--games must be at least 2"),
    (["cards", "triatri", "-s", "psychic"], "unknown strategy 'psychic'"),
    (["cards", "triatri", "--seed", "-3"], "--seed must be a whole number"),
    (["cards", "triatri", "--out", "{tmp}/file.txt"], "exists and is not a directory"),
    (["cards", "triatri", "--variant", "{tmp}/missing.toml"], "variant file not found"),
])
def test_cards_bad_input_is_one_line_exit_2_and_writes_nothing(args, fragment, tmp_path):
    (tmp_path / "file.txt").write_text("mine")
    before = listing(tmp_path)
    code, out, err = balance(*[a.replace("{tmp}", str(tmp_path)) for a in args])
    assert code == 2 and out == "" and fragment in err and len(err.strip().splitlines()) == 1
    assert listing(tmp_path) == before


def test_cards_command_prints_json_and_writes_the_page(tmp_path):
    code, out, err = balance("cards", "triatri", "-p", "2", "-n", "3000", "--seed", "2", "--out", tmp_path / "c",
                             "--json", "-q")
    assert code == 0, err
    doc = json.loads(out)
    assert doc["games"] == 3000 and doc["players"] == 2 and len(doc["cards"]) == 16
    deltas = [r["delta"] for r in doc["cards"]]
    assert deltas == sorted(deltas, reverse=True)
    assert all(r["ci_low"] <= r["delta"] <= r["ci_high"] and r["significant"] == (r["q"] < 0.05) for r in doc["cards"])
    assert all(r["flagged"] == (r["significant"] and r["judgement"] == "beyond") for r in doc["cards"])
    assert doc["verdict"]["sentences"] and doc["strategy_labels"] == ["random", "random"]
    assert sorted(p.name for p in (tmp_path / "c").iterdir()) == [
        ".balance-report.json", "card-strength.png", "cards.html", "cards.md", "summary.json"]
    html = (tmp_path / "c" / "cards.html").read_text(encoding="utf-8")
    assert html.count('<img src="data:image/png;base64,') == 1 and "<script" not in html
    code, text, _ = balance("cards", "triatri", "-p", "2", "-n", "3000", "--seed", "2", "-q")
    assert code == 0 and "3,000 games, seed 2, all random" in text
    assert text.count("\n") > 16 and all(r["card"] in text for r in doc["cards"])


def test_the_python_example_in_the_docs_runs():
    import re

    text = (Path(__file__).resolve().parents[2] / "docs" / "cards.md").read_text(encoding="utf-8")
    code = re.search(r"```python\n(.*?)```", text, re.S).group(1)
    names: dict = {}
    from contextlib import redirect_stdout
    from io import StringIO

    with redirect_stdout(StringIO()):
        exec(compile(code, "docs/cards.md", "exec"), names)
    table = names["table"]
    assert table.height == 19 and table["delta"].to_list() == sorted(table["delta"].to_list(), reverse=True)
    assert table.filter(pl.col("card") == "fake")["copies"].item() == 1
