"""`balance tournament`: the seating design, the Bradley-Terry fitter, a real tournament checked
against an independent recount, reproducibility, the report, bad input, and every game.

A few seconds once the kernels are cached (TriATri and the other games at small game counts).
"""
import itertools
import json
import math

import numpy as np
import pytest

import simcore
from analysis import tournament as T
from conftest import balance
from simcore.errors import BalanceError
from simcore.registry import game_names, get_game

NAMES = ["random", "greedy", "heuristic"]
RUN = ("tournament", "triatri", "-p", "3", "--strategies", ",".join(NAMES), "-n", "5400", "--seed", "3", "-q")


def _json(*args) -> dict:
    code, out, err = balance(*args, "--json")
    assert code == 0, err
    return json.loads(out)


@pytest.fixture(scope="module")
def doc():
    return _json(*RUN)


def _exact_wins(rows, seat: int) -> float:
    """A seat's wins with every k-way tie counted as exactly 1/k (float32 stores 1/3 as 1/3 + 1e-8)."""
    return float(np.round(rows[f"share_{seat}"].to_numpy().astype(np.float64) * 840).sum()) / 840


def _without_timing(document: dict) -> dict:
    return {k: v for k, v in document.items() if k not in ("seconds", "games_per_second")}


# --------------------------------------------------------------------------------------------
# Bradley-Terry
# --------------------------------------------------------------------------------------------

def test_bradley_terry_recovers_known_strengths_exactly():
    strength = np.array([1.0, 2.0, 4.0, 0.5])
    comparisons = np.full((4, 4), 1000.0) - np.diag(np.full(4, 1000.0))
    wins = comparisons * strength[:, None] / (strength[:, None] + strength[None, :])
    fitted = T.bradley_terry(wins, comparisons)
    assert np.allclose(fitted / fitted[0], strength, rtol=1e-9)
    assert np.allclose(T.elo(fitted, 0), [0.0, 400 * math.log10(2), 400 * math.log10(4), -400 * math.log10(2)])


def test_bradley_terry_on_sampled_games_lands_near_the_truth():
    rng = np.random.default_rng(11)
    strength = np.array([1.0, 1.5, 3.0])
    games = 20_000
    wins = np.zeros((3, 3))
    comparisons = np.zeros((3, 3))
    for a, b in itertools.combinations(range(3), 2):
        won = rng.binomial(games, strength[a] / (strength[a] + strength[b]))
        wins[a, b], wins[b, a] = won, games - won
        comparisons[a, b] = comparisons[b, a] = games
    truth = T.elo(strength, 0)
    fitted = T.elo(T.bradley_terry(wins, comparisons), 0)
    # one Elo point of strength is ~0.14 pp of head-to-head rate; 20,000 games give ~2.5 points of error
    assert np.all(np.abs(fitted - truth) < 8), (fitted, truth)


def test_bradley_terry_two_strategies_is_the_odds_ratio_and_stacks_fit_alike():
    wins = np.array([[0.0, 30.0], [10.0, 0.0]])
    comparisons = np.array([[0.0, 40.0], [40.0, 0.0]])
    assert T.elo(T.bradley_terry(wins, comparisons), 0)[1] == pytest.approx(-400 * math.log10(3), abs=1e-9)
    never_lost = np.array([[0.0, 5.0], [0.0, 0.0]])  # no finite maximum-likelihood estimate
    stacked = T.bradley_terry(np.stack([wins, never_lost, wins.T]), comparisons)
    assert stacked.shape == (2 + 1, 2)
    assert np.isnan(stacked[1]).all()
    assert T.elo(stacked[2], 0)[1] == pytest.approx(400 * math.log10(3), abs=1e-9)


# --------------------------------------------------------------------------------------------
# the seating design
# --------------------------------------------------------------------------------------------

def test_full_design_puts_every_strategy_in_every_seat_equally_often():
    design = T.make_design(["a", "b", "c"], 4)
    assert design.kind == "full" and len(design.seatings) == 81 == len(set(design.seatings))
    assert (design.seat_slots() == 27).all()
    assert T.games_per_seating(8101, design) == 101  # total, rounded up
    with pytest.raises(BalanceError, match="too few for 81 seatings: give at least 810"):
        T.games_per_seating(809, design)


def test_large_designs_fall_back_to_rotations_that_still_balance_seats():
    design = T.make_design(list("abcde"), 5)  # 5**5 = 3,125 > 1,000
    assert design.kind == "rotations"
    # 126 combinations: 121 in 5 rotations each, the 5 one-strategy ones once
    assert len(design.seatings) == 121 * 5 + 5 == len(set(design.seatings))
    assert (design.seat_slots() == 122).all()
    compositions = {tuple(sorted(s)) for s in design.seatings}
    assert compositions == set(itertools.combinations_with_replacement(range(5), 5))


# --------------------------------------------------------------------------------------------
# a real tournament
# --------------------------------------------------------------------------------------------

def test_design_and_game_counts(doc):
    design = doc["design"]
    assert design["kind"] == "full" and len(design["seatings"]) == 27
    assert (design["games_per_seating"], design["games"], design["games_requested"]) == (200, 5400, 5400)
    assert sorted(map(tuple, design["seatings"])) == sorted(itertools.product(NAMES, repeat=3))
    assert [row["slots"] for row in doc["seat_shares"]] == [[9, 9, 9]] * 3  # seat effects cancel


def test_matrix_matches_an_independent_recount(doc):
    """Replay every seating through the public API and count head-to-head results row by row."""
    credit = {pair: np.zeros(200) for pair in itertools.permutations(NAMES, 2)}
    count = dict.fromkeys(credit, 0)
    for seating in itertools.product(NAMES, repeat=3):
        rows = simcore.simulate("triatri", players=3, games=200, seed=3, strategies=list(seating)).to_dicts()
        for i, j in itertools.combinations(range(3), 2):
            if seating[i] == seating[j]:
                continue
            count[seating[i], seating[j]] += 1
            count[seating[j], seating[i]] += 1
            for deal, row in enumerate(rows):
                mine, theirs = (row[f"share_{i}"], row[f"score_{i}"]), (row[f"share_{j}"], row[f"score_{j}"])
                ahead = 1.0 if mine > theirs else 0.5 if mine == theirs else 0.0
                credit[seating[i], seating[j]][deal] += ahead
                credit[seating[j], seating[i]][deal] += 1.0 - ahead
    matrix, intervals = doc["head_to_head"]["matrix"], doc["head_to_head"]["ci"]
    for (a, b), per_deal in credit.items():
        i, j = NAMES.index(a), NAMES.index(b)
        rates = per_deal / count[a, b]  # the same comparisons every deal: a plain mean over deals
        assert matrix[i][j] == pytest.approx(rates.mean(), abs=1e-12)
        half = 1.959963984540054 * rates.std(ddof=1) / math.sqrt(200)
        assert intervals[i][j] == pytest.approx([rates.mean() - half, rates.mean() + half], abs=1e-12)
    for i, j in itertools.permutations(range(3), 2):
        assert matrix[i][j] + matrix[j][i] == pytest.approx(1.0, abs=1e-12)
    assert all(matrix[i][i] is None for i in range(3))


def test_heuristic_beats_random_and_ratings_order_the_strategies(doc):
    random_, greedy, heuristic = range(3)
    assert doc["head_to_head"]["ci"][heuristic][random_][0] > 0.5
    pair = next(p for p in doc["head_to_head"]["pairs"] if (p["a"], p["b"]) == ("random", "heuristic"))
    # per deal: 3 pairs of seats, random on either side, the third seat any of 3 strategies
    assert pair["p_value"] < 1e-6 and pair["comparisons"] == 3 * 2 * 3 * 200
    ratings = doc["ratings"]
    assert ratings["anchor"] == "random" and ratings["elo"][random_] == 0.0
    assert ratings["elo"][heuristic] > ratings["elo"][greedy] > 0
    assert ratings["ci"][heuristic][0] > ratings["ci"][greedy][1]
    shares = {row["strategy"]: row for row in doc["seat_shares"]}
    assert shares["heuristic"]["ci"][0] > 1 / 3 > shares["random"]["ci"][1]
    # every seat's win share is shared out: the strategies' slot-weighted shares average 1/P
    assert sum(row["rate"] for row in doc["seat_shares"]) / 3 == pytest.approx(1 / 3, abs=1e-6)


def test_tiers_are_the_one_strategy_seatings(doc):
    assert [t["strategy"] for t in doc["tiers"]] == NAMES
    for tier in doc["tiers"]:
        rows = simcore.simulate("triatri", players=3, games=200, seed=3, strategies=tier["strategy"])
        shares = [_exact_wins(rows, s) / 200 for s in range(3)]
        assert [s["share"] for s in tier["seats"]] == pytest.approx(shares, abs=1e-9)
        assert tier["games"] == 200 and tier["fpa_pp"] == pytest.approx(100 * (shares[0] - 1 / 3), abs=1e-9)
        low, high = tier["fpa_ci_pp"]
        assert low < tier["fpa_pp"] < high
    assert [(d["a"], d["b"]) for d in doc["tier_differences"]] == list(itertools.combinations(NAMES, 2))
    first = doc["tier_differences"][0]
    assert first["diff_pp"] == pytest.approx(doc["tiers"][0]["fpa_pp"] - doc["tiers"][1]["fpa_pp"], abs=1e-9)


def test_same_seed_same_results_on_any_thread_count(doc):
    import numba

    again = _json(*RUN, "--threads", "1")
    assert _without_timing(again) == _without_timing(doc)
    if numba.config.NUMBA_NUM_THREADS >= 2:
        assert _without_timing(_json(*RUN, "--threads", "2")) == _without_timing(doc)
    other_seed = _json(*RUN[:-3], "--seed", "4", "-q")
    assert other_seed["head_to_head"]["matrix"] != doc["head_to_head"]["matrix"]


def test_text_output_and_report(tmp_path):
    out = tmp_path / "report"
    args = ("tournament", "triatri", "-p", "2", "--strategies", "random,heuristic", "-n", "995", "--seed", "1", "-q")
    code, text, err = balance(*args, "--out", out)
    assert code == 0, err
    assert "all 4 seatings" in text and "249 games per seating" in text
    assert "996 games in total (--games 995, split evenly and rounded up)" in text
    assert text.rstrip().endswith(f"report written: {out / 'tournament.html'} and {out / 'tournament.md'}")
    pngs = {"tournament-strength.png", "tournament-matrix.png", "tournament-ratings.png", "tournament-tiers.png"}
    assert {p.name for p in out.iterdir()} == pngs | {"tournament.md", "tournament.html", "summary.json",
                                                     ".balance-report.json"}
    page = (out / "tournament.html").read_text()
    assert page.count('src="data:image/png;base64,') == 4 and "all-heuristic" in page
    assert page.index('class="verdict') < page.index("<img") < page.index("<table")  # verdict, chart, tables
    markdown = (out / "tournament.md").read_text()
    assert all(f"]({name})" in markdown for name in pngs)
    document = json.loads((out / "summary.json").read_text())
    # two strategies: the Bradley-Terry rating is the log odds of the head-to-head rate
    rate = document["head_to_head"]["matrix"][1][0]
    assert document["ratings"]["elo"][1] == pytest.approx(400 * math.log10(rate / (1 - rate)), abs=1e-6)
    again = balance(*args)
    assert again[1].splitlines()[:-1] == text.splitlines()[:-2]  # identical but for time and report line


# --------------------------------------------------------------------------------------------
# bad input
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("change, message", [
    ({"--strategies": "random,bogus"}, "unknown strategy 'bogus' for triatri"),
    ({"--strategies": "random"}, "at least two different strategies"),
    ({"--strategies": "random,greedy,random"}, "names 'random' more than once"),
    ({"--strategies": "random,,greedy"}, "empty name"),
    ({"-n": "269"}, "--games 269 is too few for 27 seatings: give at least 270"),
    ({"-p": "6"}, "TriATri is played by 2, 3, 4 players, not 6"),
    ({"--seed": "-1"}, "--seed must be a whole number"),
    ({"--threads": "999"}, "--threads must be"),
    ({"--tier-games": "50"}, "--tier-games must be at least the 100 games every seating plays"),
])
def test_bad_input_is_one_line_exit_2_and_writes_nothing(tmp_path, change, message):
    options = {"-p": "3", "--strategies": ",".join(NAMES), "-n": "2700", "--out": str(tmp_path / "report")}
    options.update(change)
    code, out, err = balance("tournament", "triatri", "-q", *itertools.chain(*options.items()))
    assert (code, out) == (2, "") and len(err.splitlines()) == 1, err
    assert err.startswith("balance: error: ") and message in err
    assert list(tmp_path.iterdir()) == []


def test_unwritable_out_is_refused_before_playing(tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("keep me")
    for out, message in ((blocker, "exists and is not a directory"), (blocker / "sub", "is not a directory")):
        code, text, err = balance("tournament", "triatri", "-p", "3", "--strategies", "random,greedy", "-n", "2700",
                                  "-q", "--out", out)
        assert (code, text) == (2, "") and len(err.splitlines()) == 1 and message in err, err
    assert [p.name for p in tmp_path.iterdir()] == ["a-file"] and blocker.read_text() == "keep me"


def test_missing_strategies_is_a_usage_error():
    code, out, err = balance("tournament", "triatri")
    assert (code, out) == (2, "") and "--strategies" in err and len(err.splitlines()) == 1


# --------------------------------------------------------------------------------------------
# every game, including one registered later
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", game_names())
def test_every_game_plays_a_balanced_tournament_of_its_strategies(name):
    game = get_game(name)
    strategies = list(game.builtin_strategies())
    players = min(game.player_counts)
    seatings = len(strategies) ** players
    document = _json("tournament", name, "-p", players, "--strategies", ",".join(strategies),
                     "-n", 10 * seatings, "--seed", 5, "-q")
    assert document["design"]["games"] == 10 * seatings
    assert {n for row in document["seat_shares"] for n in row["slots"]} == {seatings // len(strategies)}
    matrix = document["head_to_head"]["matrix"]
    for i, j in itertools.permutations(range(len(strategies)), 2):
        assert matrix[i][j] + matrix[j][i] == pytest.approx(1.0, abs=1e-12)
    assert [t["strategy"] for t in document["tiers"]] == strategies
    assert all(t["games"] == 10 for t in document["tiers"])


def test_rates_at_a_bound_and_ratings_that_do_not_exist_are_said_so():
    from analysis import stats

    never = T.clustered_rate(np.zeros(1000), 18.0, 0.5)  # never ahead in 1,000 deals
    assert never["rate"] == 0.0 and never["ci"] == pytest.approx(list(stats.wilson_interval(0, 1000)))
    # score test over deals: z = 0.5 / sqrt(0.25 / 1000) = sqrt(1000)
    assert never["p_value"] == pytest.approx(math.erfc(math.sqrt(1000) / math.sqrt(2)))
    wins = np.array([[0.0, 0.0, 0.0], [7.0, 0.0, 3.0], [9.0, 4.0, 0.0]])
    assert np.isnan(T.bradley_terry(wins, np.ones((3, 3)) * 20)).all()
    assert T._not_estimable(wins, ("fixed:1", "fixed:3", "expected-value")) == (
        "not estimable: fixed:1 never finished ahead (an infinite rating); leave it out to rate the rest")


def test_tier_games_give_the_tiers_more_games_and_leave_everything_else_alone(doc):
    """--tier-games 700: the one-strategy seatings play games 0..699, a superset of the other
    seatings' 0..199; the head-to-head, ratings and seat shares rest on games 0..199 as before."""
    more = _json(*RUN, "--tier-games", "700")
    assert more["design"]["games_per_tier"] == 700 and more["design"]["games_per_seating"] == 200
    assert more["design"]["games"] == 200 * 24 + 700 * 3
    assert more["head_to_head"] == doc["head_to_head"] and more["ratings"] == doc["ratings"]
    assert more["seat_shares"] == doc["seat_shares"]
    for tier in more["tiers"]:
        rows = simcore.simulate("triatri", players=3, games=700, seed=3, strategies=tier["strategy"])
        shares = [_exact_wins(rows, s) / 700 for s in range(3)]
        assert tier["games"] == 700
        assert [s["share"] for s in tier["seats"]] == pytest.approx(shares, abs=1e-9)
