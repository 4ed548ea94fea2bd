"""Verdicts and the statistics behind them: the exact binomial test and Clopper-Pearson interval
against published values, the practical thresholds (within / beyond / unsettled, flags, games to
settle), seat versus skill, and the verdict block on the page."""
from __future__ import annotations

import math

import pytest

from analysis import stats, verdict
from analysis.page import Grid, Heading, Link, Verdict, render_html, render_markdown
from simcore.errors import BalanceError


# --------------------------------------------------------------------------------------------
# exact binomial
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("successes, trials, p, expected", [
    (682, 925, 0.75, 0.3825),   # R: binom.test(c(682, 243), p = 3/4), its documentation's example
    (7, 20, 0.5, 0.2632),       # R: binom.test(7, 20)
    (0, 10, 0.5, 0.001953),     # both tails of the most extreme outcome: 2 / 2^10
    (10, 10, 0.5, 0.001953),
    (5, 10, 0.5, 1.0),
])
def test_binomial_test_matches_r(successes, trials, p, expected):
    assert stats.binomial_test(successes, trials, p) == pytest.approx(expected, rel=2e-3)


@pytest.mark.parametrize("successes, trials, p", [(2, 100, 0.1), (19, 100, 0.1), (3, 17, 0.37), (40, 60, 0.5),
                                                 (0, 30, 0.02), (299, 300, 0.999)])
def test_binomial_test_is_the_sum_of_the_outcomes_no_more_likely(successes, trials, p):
    """Brute force, term by term, with R's relative tolerance."""
    pmf = [math.comb(trials, k) * p ** k * (1 - p) ** (trials - k) for k in range(trials + 1)]
    expected = sum(q for q in pmf if q <= pmf[successes] * (1 + 1e-7))
    assert stats.binomial_test(successes, trials, p) == pytest.approx(min(1.0, expected), rel=1e-9)


def test_the_trap_false_alarm_is_a_one_in_twenty_event():
    """189 fired of 190 against an exact 0.99973: P(X <= 189) = 1 - 0.99973^190 = 0.0500; a
    Wilson 99.9% interval calls it outside, the exact test does not."""
    p = stats.binomial_test(189, 190, 0.99973)
    assert p == pytest.approx(1 - 0.99973 ** 190, rel=1e-9)
    assert p > 0.001
    low, high = stats.wilson_interval(189, 190, 0.999)
    assert not low <= 0.99973 <= high  # the false alarm the exact test removes


def test_binomial_tails_and_large_counts():
    assert stats.binomial_cdf(3, 10, 0.5) == pytest.approx(176 / 1024)
    assert stats.binomial_sf(7, 10, 0.5) == pytest.approx(176 / 1024)
    # a million trials: the normal approximation is close (z = 3.06 -> p = 0.0022)
    assert stats.binomial_test(401_500, 1_000_000, 0.4) == pytest.approx(math.erfc(1500 / math.sqrt(240_000) / math.sqrt(2)),
                                                                        rel=0.02)
    assert stats.binomial_test(0, 5, 0.0) == 1.0 and stats.binomial_test(1, 5, 0.0) == 0.0
    with pytest.raises(ValueError):
        stats.binomial_test(6, 5, 0.5)


def test_clopper_pearson_matches_r():
    low, high = stats.clopper_pearson(682, 925)  # R: binom.test(682, 925)$conf.int
    assert low == pytest.approx(0.7076683, abs=1e-6) and high == pytest.approx(0.7654066, abs=1e-6)
    assert stats.clopper_pearson(0, 10)[0] == 0.0 and stats.clopper_pearson(10, 10)[1] == 1.0
    assert stats.clopper_pearson(0, 10)[1] == pytest.approx(1 - 0.025 ** 0.1)  # (alpha/2)^(1/n)


def test_regularized_beta_known_values():
    assert stats.regularized_beta(1, 1, 0.3) == pytest.approx(0.3)
    assert stats.regularized_beta(2, 3, 0.4) == pytest.approx(0.5248)  # 1 - sum_{k<2} C(4,k) .4^k .6^(4-k)
    assert stats.regularized_beta(5, 5, 0.5) == pytest.approx(0.5)


# --------------------------------------------------------------------------------------------
# thresholds and judgements
# --------------------------------------------------------------------------------------------

def test_judge_within_beyond_unsettled():
    assert verdict.judge(0.5, (-0.3, 1.3), 2.0) == "within"
    assert verdict.judge(3.0, (2.4, 3.6), 2.0) == "beyond"
    assert verdict.judge(-3.0, (-3.6, -2.0), 2.0) == "beyond"
    assert verdict.judge(1.8, (1.2, 2.4), 2.0) == "unsettled"
    assert verdict.judge(-1.8, (-2.4, -1.2), 2.0) == "unsettled"


def test_flag_needs_both_sure_and_large():
    assert verdict.flag(0.03, (0.025, 0.035), 1e-9, 0.02)        # sure and 3 pp, settled beyond 2 pp
    assert verdict.flag(-0.03, (-0.035, -0.025), 1e-9, 0.02)
    assert not verdict.flag(0.01, (0.008, 0.012), 1e-30, 0.02)   # sure but only 1 pp: not worth a designer's time
    assert not verdict.flag(0.021, (0.018, 0.024), 1e-30, 0.02)  # sure, but maybe under 2 pp: unsettled
    assert not verdict.flag(0.05, (0.03, 0.07), 0.2, 0.02)       # large but not sure after the correction
    assert not verdict.flag(None, (None, None), None, 0.02)


def test_games_to_settle_scales_with_the_interval():
    # half-width 0.6 at 10,000 games, 0.2 from the threshold: (0.6 / 0.2)^2 = 9 times the games
    assert verdict.games_to_settle(1.8, (1.2, 2.4), 10_000, 2.0) == 90_000
    assert verdict.games_to_settle(0.5, (-0.3, 1.3), 10_000, 2.0) == 0
    assert verdict.games_to_settle(2.0, (1.4, 2.6), 10_000, 2.0) is None
    assert verdict.round_up(12_345) == 13_000 and verdict.round_up(7) == 7


def test_thresholds_are_configurable_and_checked():
    try:
        assert verdict.configure({"seat_pp": 1.5}).seat_pp == 1.5
        assert verdict.thresholds().card_pp == 2.0
        assert "±1.5 pp" in verdict.stated("seat_pp")
        with pytest.raises(BalanceError, match="no key 'seat'"):
            verdict.configure({"seat": 1})
        with pytest.raises(BalanceError, match="positive number"):
            verdict.configure({"card_pp": -1})
    finally:
        verdict.configure(None)
    assert verdict.thresholds() == verdict.Thresholds()


def _summary(shares, strategies, games=100_000):
    players = len(shares)
    seats = []
    for seat, (share, name) in enumerate(zip(shares, strategies)):
        low, high = stats.wilson_interval(share * games, games)
        seats.append({"seat": seat, "name": f"seat {seat + 1}", "strategy": name, "strategy_label": name,
                      "wins": share * games, "win_share": share, "win_share_ci": [low, high]})
    from analysis.summary import strategy_strength

    mixed = len(set(strategies)) > 1
    return {"players": players, "games": games, "seats": seats, "lineup": "mixed" if mixed else "symmetric",
            "strategy_strength": strategy_strength(seats, games, players) if mixed else None}


def test_seat_verdict_fair_out_of_line_and_unsettled():
    fair = verdict.summary_verdict(_summary([0.252, 0.249, 0.250, 0.249], ["random"] * 4))
    assert fair["judgement"] == "within" and fair["tone"] == "good"
    assert fair["sentences"][0].startswith("Fair among random players:") and fair["players"] == "random"
    out = verdict.summary_verdict(_summary([0.29, 0.24, 0.24, 0.23], ["random"] * 4))
    assert out["judgement"] == "beyond" and out["tone"] == "bad"
    assert out["sentences"][0].startswith("Not fair among random players: seat 1 +4.0 pp")
    close = verdict.summary_verdict(_summary([0.268, 0.244, 0.244, 0.244], ["random"] * 4, games=5_000))
    assert close["judgement"] == "unsettled" and "games would tell" in close["sentences"][0]
    assert verdict.short_verdict(_summary([0.29, 0.24, 0.24, 0.23], ["random"] * 4))[0].startswith(
        "out of line among random · seat 1 +4.0 pp")


def _profile(edges, games=20_000, players=4):
    """A skill profile's first-seat edges (tier, edge pp, interval) as analysis/skill.py writes them."""
    return {"tiers": [t for t, _, _ in edges], "players": players,
            "first_seat_edge": [{"tier": t, "games": games, "edge_pp": e, "ci_pp": list(ci)} for t, e, ci in edges]}


def test_the_headline_leads_with_the_strongest_settled_tier_and_names_the_others():
    """BIRD & WEATHER's case: fair among random players (the run, 200,000 games), out of line among
    heuristic ones, the search tier too short to settle.  The verdict judges it out of line among
    heuristic players, says random play found it fair, and names search as unsettled."""
    run = _summary([0.2435, 0.2525, 0.2520, 0.2520], ["random"] * 4, games=200_000)
    profile = _profile([("random", -0.5, (-1.1, 0.1)), ("heuristic", -3.4, (-4.0, -2.8)),
                        ("search", -2.0, (-6.1, 2.4))])
    found = verdict.run_verdict(run, profile)
    assert found["kind"] == "tiers" and found["judgement"] == "beyond" and found["tone"] == "bad"
    assert found["players"] == "heuristic" and found["settled_tier"] == "heuristic" and found["tiers_disagree"]
    text = found["sentences"][0]
    assert text.startswith("Out of line among heuristic players, the strongest settled tier: seat 1 -3.4 pp "
                           "[-4.0, -2.8]"), text
    assert text.endswith(". Other tiers: search unsettled, -2.0 pp [-6.1, +2.4] on 20,000 games; random fair, "
                         "-0.7 pp [-0.8, -0.5]."), text  # the run's 200,000 games stand in for the tier
    assert [t["games"] for t in found["tiers"]] == [200_000, 20_000, 20_000]
    short, colour = verdict.short_verdict({**run, "verdict": found})
    assert short == "out of line among heuristic · seat 1 -3.4 pp [-4.0, -2.8] (search: unsettled; random: fair)"
    assert colour == "bad"


def test_the_grid_cell_says_how_many_games_would_settle_an_unsettled_tier():
    """A search tier at -2.5 pp [-4.8, -0.2] on 2,000 games: its half-width (2.3 pp) must shrink
    below its distance from -2 pp (0.5 pp), about (2.3 / 0.5)^2 = 21 times the games (43,000),
    which the cell says in a few characters."""
    run = _summary([0.2435, 0.2525, 0.2520, 0.2520], ["random"] * 4, games=200_000)
    profile = _profile([("random", -0.5, (-1.1, 0.1)), ("heuristic", -3.4, (-4.0, -2.8))])
    profile["first_seat_edge"].append({"tier": "search", "games": 2_000, "edge_pp": -2.5, "ci_pp": [-4.8, -0.2]})
    found = verdict.run_verdict(run, profile)
    assert found["tiers"][-1]["games_to_settle"] == 43_000
    short, _ = verdict.short_verdict({**run, "verdict": found})
    assert short.endswith("(search: unsettled, ~43k games would tell; random: fair)"), short


def test_fair_at_the_strongest_tier_but_not_at_a_weaker_one_is_never_a_plain_tick():
    run = _summary([0.29, 0.24, 0.24, 0.23], ["random"] * 4)
    found = verdict.run_verdict(run, _profile([("random", 4.0, (3.6, 4.4)), ("heuristic", 0.2, (-0.6, 1.0))]))
    assert found["judgement"] == "within" and found["tone"] == "warn" and found["tiers_disagree"]
    assert found["sentences"][0] == ("Fair among heuristic players, the strongest settled tier: seat 1 +0.2 pp "
                                     "[-0.6, +1.0]. Other tiers: random out of line, +4.0 pp [+3.7, +4.3].")
    # every tier agreeing: a plain tick
    agree = verdict.run_verdict(_summary([0.252, 0.249, 0.250, 0.249], ["random"] * 4),
                                _profile([("random", 0.2, (-0.3, 0.7)), ("heuristic", 0.1, (-0.6, 0.8))]))
    assert agree["tone"] == "good" and not agree["tiers_disagree"]


def test_no_tier_settled_says_so_and_how_many_games_would_tell():
    run = _summary([0.268, 0.244, 0.244, 0.244], ["random"] * 4, games=5_000)
    found = verdict.run_verdict(run, _profile([("random", 1.8, (-0.6, 4.2)), ("heuristic", 1.5, (-1.5, 4.5))], 5_000))
    assert found["judgement"] == "unsettled" and found["settled_tier"] is None and found["tone"] == "warn"
    assert found["sentences"][0].startswith("Unsettled at every tier: among heuristic players seat 1 +1.5 pp")
    assert "games among heuristic players would tell." in found["sentences"][0]
    # a mixed line-up has no tiers to judge: its own verdict
    mixed = _summary([0.41, 0.20, 0.20, 0.19], ["heuristic", "random", "random", "random"])
    assert verdict.run_verdict(mixed, _profile([("random", 0.0, (-1, 1))]))["kind"] == "strategy strength"


def test_a_mixed_line_up_is_strategy_strength_not_a_seat_edge():
    found = verdict.summary_verdict(_summary([0.41, 0.20, 0.20, 0.19], ["heuristic", "random", "random", "random"]))
    assert found["kind"] == "strategy strength"
    text = " ".join(found["sentences"])
    assert "skill, not seat order" in text and "heuristic (seat 1)" in text and "random (seats 2–4)" in text
    assert "first-player advantage" not in text and "first seat's edge give every seat one strategy" in text


# --------------------------------------------------------------------------------------------
# the block on the page
# --------------------------------------------------------------------------------------------

def test_verdict_block_renders_in_both_formats():
    block = Verdict(["Fair: seat 1 is at +0.2 pp [-0.1, +0.5]."], "Judged against ±2 pp.", "good")
    md = render_markdown([Heading(1, "t"), block])
    assert "> **✓ Verdict:** Fair: seat 1" in md and "> *Judged against ±2 pp.*" in md
    page = render_html([Heading(1, "t"), block], "t")
    assert '<div class="verdict verdict-good" role="note">' in page and "Judged against ±2 pp." in page
    with pytest.raises(ValueError):
        Verdict(["one.", "two.", "three.", "four."])
    with pytest.raises(ValueError):
        Verdict(["one."], tone="loud")


def test_grid_cells_carry_their_tone_and_link():
    grid = Grid(["game", "3 players"], [["G", (Link("fair · seat 1 +0.1 pp", "g-3p/report.html"), "good")]])
    md = render_markdown([Heading(1, "t"), grid])
    assert "[✓ fair · seat 1 +0.1 pp](g-3p/report.html)" in md
    page = render_html([Heading(1, "t"), grid], "t")
    assert '<td class="tone-good">✓ <a href="g-3p/report.html">fair · seat 1 +0.1 pp</a></td>' in page


def test_the_headline_says_whether_better_players_would_change_it():
    """Fair among search players and converged (the larger search moves the edge by less than ±2 pp
    on the same deals): a plain tick, and the headline says better players would not change it.
    The same tiers with convergence unclear: judge with care, never a plain tick; the grid cell
    says which."""
    run = _summary([0.252, 0.249, 0.250, 0.249], ["random"] * 4)
    tiers = [("random", 0.2, (-0.3, 0.7)), ("search", 0.1, (-0.6, 0.8)), ("search:d=96", 0.3, (-0.9, 1.5))]
    converged = {**_profile(tiers), "convergence": {
        "state": "converged", "tiers": ["search", "search:d=96"], "games": 20_000, "difference_pp": 0.2,
        "ci_pp": [-0.9, 1.3], "threshold_pp": 2.0}}
    found = verdict.run_verdict(run, converged)
    assert found["tone"] == "good" and found["convergence"] == "converged"
    assert found["sentences"][1] == "Better players would not change it: search:d=96 moves the edge +0.2 pp " \
                                    "[-0.9, +1.3] from search."
    assert verdict.short_verdict({**run, "verdict": found})[0].endswith(" · converged")
    unclear = {**converged, "convergence": {**converged["convergence"], "state": "unclear", "ci_pp": [-4.0, 4.4]}}
    found = verdict.run_verdict(run, unclear)
    assert found["tone"] == "warn" and found["judgement"] == "within"
    assert found["sentences"][1].startswith("Judge with care: more games at search and search:d=96 would tell")
    assert verdict.short_verdict({**run, "verdict": found})[0].endswith(" · convergence unclear")
