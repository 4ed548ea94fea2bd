"""A skill tier plays until its first-seat edge is settled (analysis/skill.py): five looks at
1/16 .. all of its budget, each judged with a 99% interval, and a stop at the first look where
the interval lies wholly inside or wholly beyond the fair band.  The run stops after the same
games whatever the threads, and the stopping rule keeps its error rate under 5%."""
import numpy as np
import pytest

from analysis import skill, stats
from analysis.verdict import judge, thresholds
from simcore.driver import run_games
from simcore.registry import get_game


def test_the_looks_depend_on_the_budget_alone():
    assert skill.settle_looks(100_000) == [6_250, 12_500, 25_000, 50_000, 100_000]
    assert skill.settle_looks(400) == [25, 50, 100, 200, 400]
    assert skill.settle_looks(1_000) == [63, 125, 250, 500, 1_000]  # rounded up
    assert skill.settle_looks(3) == [1, 2, 3]  # no look twice, none under one game
    assert skill.SETTLE_CONFIDENCE == pytest.approx(0.99)


def test_a_stopping_rule_ends_the_run_at_a_checkpoint_with_the_games_of_a_full_run():
    """Stopped at the second look: the games played are exactly the first games of the full run,
    for one thread and two."""
    game = get_game("sky-city")
    setup = game.setup(4, game.variant())
    lineup = game.lineup("random", 4)
    full = run_games(game, setup, lineup, game.variant(), 3, 400, progress=False, keep_frame=True, threads=1)
    seen = []

    def second_look(wins, games):
        seen.append((games, wins[0]))
        return len(seen) == 2

    for threads in (1, 2):
        seen.clear()
        part = run_games(game, setup, lineup, game.variant(), 3, 400, progress=False, keep_frame=True,
                         threads=threads, chunk_size=7, checkpoints=[25, 50, 100, 200, 400], stop=second_look)
        assert part.meta["games"] == 50 and part.frame.height == 50
        assert part.frame.equals(full.frame.head(50))
        assert seen[-1] == (50, pytest.approx(float(full.frame["share_0"].head(50).sum())))
    with pytest.raises(ValueError, match="checkpoints must rise"):
        run_games(game, setup, lineup, game.variant(), 3, 400, progress=False, checkpoints=[50, 25, 400],
                  stop=second_look)


def test_a_tier_that_settles_early_stops_and_says_so():
    """ALEA among random players, 4 players: its first-seat edge is near 0 (README), so a budget of
    160,000 games settles it as fair before the last look, at a look of settle_looks."""
    game = get_game("sky-city")
    setup = game.setup(4, game.variant())
    edge = skill.tier_edge(game, setup, game.variant(), "random", 1, 160_000, None, False)
    assert edge["settled"] and edge["games"] in skill.settle_looks(160_000) and edge["games"] < 160_000
    assert judge(edge["edge_pp"], edge["ci_pp"], thresholds().seat_pp) == "within"
    assert edge["confidence"] == pytest.approx(0.99) and edge["budget"] == 160_000


def _wrong_calls(true_edge_pp: float, budget: int, trials: int, looks, confidence) -> float:
    """How often the looks call a tier settled on the wrong side when its true edge is exactly on
    the threshold (neither answer is right there, so every call counts as wrong): binomial seat-1
    wins at the true share, judged at each look."""
    return _settles(true_edge_pp, looks, confidence, futility=False, trials=trials, seed=12345)[0]


def test_the_stopping_rule_stays_valid_under_its_five_looks():
    """At a true edge exactly on +2 pp every settled call is a coin flip's error: the five looks
    with 99% intervals make one in at most 5% of tiers (one-sided: about 2.5%), where looking five
    times with 95% intervals would make more."""
    looks = skill.settle_looks(40_000)
    bonferroni = _wrong_calls(2.0, 40_000, 4_000, looks, skill.SETTLE_CONFIDENCE)
    naive = _wrong_calls(2.0, 40_000, 4_000, looks, 0.95)
    assert bonferroni < 0.05 and naive > bonferroni, (bonferroni, naive)


def test_a_time_budget_looks_at_every_doubling_up_to_its_cap():
    """With a time budget the looks are 2,000 games and every doubling below the cap, then the cap;
    each judged at 1 - 0.05/K for its K looks, whatever the clock does."""
    assert skill.settle_looks(256_000, first=skill.TIMED_FIRST_LOOK) == [
        2_000, 4_000, 8_000, 16_000, 32_000, 64_000, 128_000, 256_000]
    assert skill.settle_looks(5_000, first=2_000) == [2_000, 4_000, 5_000]
    assert skill.settle_looks(1_500, first=2_000) == [1_500]  # a cap under the first look: one look
    assert skill.look_confidence(skill.settle_looks(256_000, first=2_000)) == pytest.approx(1 - 0.05 / 8)


def test_a_tier_whose_time_is_spent_stops_at_the_next_look_and_says_so():
    """BIRD & WEATHER among random players, 4 players, seed 1: at 2,000 games its first-seat edge
    still straddles -2 pp.  With no time left the tier stops at that first look, unsettled, and
    says time ended it; its games are the first 2,000 of the seed (the rows of a plain run), on
    independent deals as asked."""
    game = get_game("bird-weather")
    setup = game.setup(4, game.variant())
    frames = {}
    edge = skill.tier_edge(game, setup, game.variant(), "random", 1, 64_000, None, False, frames, seconds=1e-9,
                           duplicate=False)
    looks = skill.settle_looks(64_000, first=2_000)
    assert edge["games"] == 2_000 and not edge["settled"] and edge["stopped"] == "time"
    assert edge["looks"] == looks and edge["confidence"] == pytest.approx(1 - 0.05 / len(looks))
    assert edge["seconds_budget"] == 1e-9 and edge["seconds"] >= 0
    assert judge(edge["edge_pp"], edge["ci_pp"], thresholds().seat_pp) == "unsettled"
    lineup = game.lineup("random", 4)
    plain = run_games(game, setup, lineup, game.variant(), 1, 2_000, progress=False, keep_frame=True)
    assert frames["random"][0].equals(plain.frame)
    assert skill._settled(edge) == f"no: 1e-09 s spent; about {edge['games_to_settle']:,} games would settle it"


def test_a_timed_tier_that_settles_says_so_before_its_time_is_spent():
    """ALEA among random players settles as fair (its edge is near 0): with an hour to spend it
    stops at a look well before its cap, settled, and the time budget is not what ended it."""
    game = get_game("sky-city")
    setup = game.setup(4, game.variant())
    edge = skill.tier_edge(game, setup, game.variant(), "random", 1, 1_024_000, None, False, seconds=3600)
    assert edge["settled"] and edge["stopped"] == "settled" and edge["games"] < 1_024_000
    assert edge["games"] in skill.settle_looks(1_024_000, first=2_000)
    assert judge(edge["edge_pp"], edge["ci_pp"], thresholds().seat_pp) == "within"


def test_the_stopping_rule_stays_valid_however_many_timed_looks():
    """Every doubling from 2,000 to 512,000 games (nine looks) at 1 - 0.05/9: on the threshold the
    wrong calls stay under 5%, however early the clock ends the run (it ends it only at a look, and
    each look spends its own 0.05/9)."""
    looks = skill.settle_looks(512_000, first=2_000)
    assert len(looks) == 9
    assert _wrong_calls(2.0, 512_000, 2_000, looks, skill.look_confidence(looks)) < 0.05


def _frames(lower: np.ndarray, upper: np.ndarray) -> tuple[list[dict], dict]:
    import polars as pl

    edges = [{"tier": "search", "games": len(lower)}, {"tier": "search:d=96", "games": len(upper)}]
    return edges, {"search": (pl.DataFrame({"share_0": lower}), {}),
                   "search:d=96": (pl.DataFrame({"share_0": upper}), {})}


def test_the_edge_has_converged_when_the_stronger_tier_moves_it_by_less_than_the_threshold():
    """The two strongest tiers on the same deals: seat 1 wins the same games but for one in a
    hundred (+1 pp, interval about ±0.3 pp): converged, inside ±2 pp."""
    rng = np.random.default_rng(7)
    lower = (rng.random(20_000) < 0.25).astype(np.float32)
    upper = lower.copy()
    upper[::100] = 1.0  # one game in a hundred seat 1 now wins
    edges, frames = _frames(lower, upper)
    found = skill.convergence(edges, frames, 4)
    gained = float((upper - lower).mean())
    assert found["state"] == skill.CONVERGED and found["games"] == 20_000
    assert found["difference_pp"] == pytest.approx(100 * gained)
    assert -2 < found["ci_pp"][0] < found["difference_pp"] < found["ci_pp"][1] < 2
    assert found["tiers"] == ["search", "search:d=96"]
    assert "stopped moving" in skill.convergence_said(found)


def test_the_edge_is_still_moving_when_the_stronger_tier_moves_it_beyond_the_threshold():
    """Seat 1 wins one game in ten more among the stronger players (+7.5 pp or so): moving, and the
    sentence says to judge with care."""
    rng = np.random.default_rng(8)
    lower = (rng.random(20_000) < 0.25).astype(np.float32)
    upper = np.where(rng.random(20_000) < 0.1, 1.0, lower).astype(np.float32)
    found = skill.convergence(*_frames(lower, upper), 4)
    assert found["state"] == skill.MOVING and found["ci_pp"][0] > 2
    assert "judge with care" in skill.convergence_said(found)


def test_too_few_common_games_leave_convergence_unclear():
    """Only the common games count (the shorter tier's): 200 games cannot tell a change of 2 pp."""
    rng = np.random.default_rng(9)
    lower = (rng.random(200) < 0.25).astype(np.float32)
    upper = np.concatenate([(rng.random(200) < 0.25).astype(np.float32), np.ones(5_000, dtype=np.float32)])
    found = skill.convergence(*_frames(lower, upper), 4)
    assert found["state"] == skill.UNCLEAR and found["games"] == 200
    assert "not yet known" in skill.convergence_said(found)


def test_the_curve_adds_the_ladders_larger_search_and_alea_keeps_its_ladder():
    assert skill.curve_tiers(get_game("bird-weather")) == ["random", "heuristic", "search", "search:d=96"]
    assert skill.curve_tiers(get_game("ten-tricks")) == ["random", "heuristic", "search", "search:d=40"]
    assert skill.curve_tiers(get_game("sky-city")) == ["random", "cautious", "best-response"]
    assert skill.tiers_of(get_game("bird-weather")) == ["random", "heuristic", "search"]


def test_a_search_tier_looks_sooner_under_a_time_budget():
    """A timed search tier's first look comes after 256 games divided by its cost (search:d=96
    thinks four times as long: 64), the everyday tiers' after 2,000: fixed by the tier alone."""
    game = get_game("bird-weather")
    assert skill.timed_first_look(game, "random") == skill.timed_first_look(game, "heuristic") == 2_000
    assert skill.timed_first_look(game, "search") == 256
    assert skill.timed_first_look(game, "search:d=96") == 64
    assert skill.settle_looks(8_000, first=skill.timed_first_look(game, "search:d=96")) == [
        64, 128, 256, 512, 1_024, 2_048, 4_096, 8_000]


def test_a_timed_duplicate_tier_looks_before_100_deals_but_only_settles_after():
    """A timed search:d=96 tier on duplicate deals, 4 players: its looks start at 64 games (16 deals:
    seconds, where 100 deals take minutes in a slow game), but only the looks at 100 deals or more
    can settle it, so only they share the 5%.  With no time at all it stops at its first look,
    unsettled, whatever its interval says."""
    game = get_game("bird-weather")
    setup = game.setup(4, game.variant())
    edge = skill.tier_edge(game, setup, game.variant(), "search:d=96", 1, 1_000, None, False, seconds=0.0)
    assert edge["design"] == "duplicate" and edge["looks"] == [64, 128, 256, 512, 1_000]
    assert edge["confidence"] == pytest.approx(1 - 0.05 / 2)  # 512 and 1,000 games can settle it
    assert edge["games"] == 64 and edge["deals"] == 16 and edge["stopped"] == "time" and not edge["settled"]
    untimed = skill.tier_edge(game, setup, game.variant(), "random", 1, 100, None, False)
    assert untimed["looks"] == [400] and untimed["budget"] == 400  # untimed: the first look at 100 deals


def test_the_chance_of_settling_is_high_far_from_the_threshold_and_low_on_it():
    """Predictive power from the games so far: an edge of -5 pp after 2,000 games (interval about
    +-2.5 pp) settles by 32,000 games almost surely; one on the threshold about half the time (either
    way); one 0.3 pp from it, with only 4,000 games still reachable, almost never."""
    interval = lambda value, half: [value - half, value + half]  # noqa: E731
    assert skill.settle_chance(-5.0, interval(-5.0, 2.5), 2_000, 32_000, 2.0, 0.99) > 0.98
    on = skill.settle_chance(-2.0, interval(-2.0, 2.5), 2_000, 32_000, 2.0, 0.99)
    assert 0.2 < on < 0.55
    assert skill.settle_chance(-1.7, interval(-1.7, 2.5), 2_000, 4_000, 2.0, 0.99) < 0.05
    assert skill.settle_chance(0.0, interval(0.0, 2.5), 2_000, 2_000, 2.0, 0.99) == 0.0  # no look left


def test_a_tier_its_budget_cannot_settle_stops_at_once_and_says_how_many_games_would():
    """BIRD & WEATHER among random players, 4 players: its edge (about -0.8 pp) would need far more
    than 400 games (at 400 the 99% interval alone is 11 pp wide, wider than the fair band), so the
    tier stops at a look well before its budget (100 games), unsettled and said to be futile, with
    about how many games would settle it; its games are the seed's first 100."""
    game = get_game("bird-weather")
    setup = game.setup(4, game.variant())
    frames = {}
    edge = skill.tier_edge(game, setup, game.variant(), "random", 1, 400, None, False, frames, duplicate=False)
    assert edge["games"] == 100 and not edge["settled"] and edge["stopped"] == "futile"
    assert edge["games_to_settle"] > 400
    assert skill._settled(edge).startswith("no: stopped, its budget could not settle it; about ")
    plain = run_games(game, setup, game.lineup("random", 4), game.variant(), 1, 100, progress=False, keep_frame=True)
    assert frames["random"][0].equals(plain.frame)


def _settles(true_edge_pp: float, looks, confidence, futility: bool, trials: int = 2_000, seed: int = 2024):
    """(share of simulated tiers called settled, mean games played), binomial seat-1 wins at the
    true share judged at each look as tier_edge judges, with or without the futility stop."""
    rng = np.random.default_rng(seed)
    players, limit = 4, thresholds().seat_pp
    share = 1 / players + true_edge_pp / 100
    called, spent = 0, 0
    for _ in range(trials):
        wins, played = 0, 0
        for look in looks:
            wins += rng.binomial(look - played, share)
            played = look
            value, interval = skill.edge_interval(wins, played, players, confidence)
            if judge(value, interval, limit) != "unsettled":
                called += 1
                break
            if futility and skill.settle_chance(value, interval, played, looks[-1], limit,
                                                confidence) < skill.FUTILITY:
                break
        spent += played
    return called / trials, spent / trials


def test_stopping_for_futility_spares_hopeless_tiers_and_costs_little_power():
    """With a budget of 32,000 games (looks at 2,000 and every doubling): a tier truly at -3 pp
    settles about as often with the futility stop as without (about 96% of tiers), while one truly
    at -1.9 pp (0.1 pp from the threshold: this budget settles it in about 4% of tiers either way)
    stops after a quarter fewer games, more where fewer looks are left."""
    looks = skill.settle_looks(32_000, first=2_000)
    confidence = skill.look_confidence(looks)
    plain, _ = _settles(-3.0, looks, confidence, futility=False)
    futile, _ = _settles(-3.0, looks, confidence, futility=True)
    assert plain > 0.9 and futile >= plain - 0.03, (plain, futile)
    _, every = _settles(-1.9, looks, confidence, futility=False)
    _, spared = _settles(-1.9, looks, confidence, futility=True)
    assert spared < 0.8 * every, (spared, every)


def test_a_timed_gap_stops_at_the_first_block_that_settles_it():
    """ALEA, 4 players, an hour per tier: a cautious player among random ones wins far more than
    the fair 25%, so its gap stops after the first block of 256 deals (every seating: 1,024
    games), its interval at 1 - 0.05/K for the K blocks 256, 768, ... 5,000 deals could take."""
    from analysis.ladder import rung_looks

    assert rung_looks(5_000, 256) == [256, 768, 1_792, 3_840, 5_000]
    assert rung_looks(100, 64) == [64, 100]
    game = get_game("sky-city")
    setup = game.setup(4, game.variant())
    profile = skill.skill_profile(game, setup, game.variant(), seed=1, games=20_000, search_games=400,
                                  tier_seconds=3600)
    cautious = profile["gaps"][0]
    assert (cautious["hero"], cautious["field"], cautious["games"]) == ("cautious", "random", 1_024)
    assert cautious["confidence"] == pytest.approx(1 - 0.05 / 5) and cautious["ci"][0] > 0.25
    header = skill.tables(profile)[0].headers[3]
    assert header == "win share % [99% CI]", header


def test_a_card_game_tier_plays_duplicate_deals_judged_by_deal():
    """BIRD & WEATHER among random players, 3 players, by default: the tier plays duplicate deals
    (each deal once per turn of the table), every look at whole deals, its games the rows of a run
    from DUPLICATE, and its interval the one clustered by deal (analysis/duplicate.py)."""
    from analysis.duplicate import DUPLICATE, seat_edge

    game = get_game("bird-weather")
    setup = game.setup(3, game.variant())
    frames = {}
    edge = skill.tier_edge(game, setup, game.variant(), "random", 1, 1_000, None, False, frames)
    assert edge["design"] == "duplicate" and all(look % 3 == 0 for look in edge["looks"])
    assert edge["looks"] == [300, 501, 1_002] and edge["games"] in edge["looks"]  # MIN_DEALS: 100 deals first
    assert edge["deals"] * 3 == edge["games"] and frames["random"][1]["design"] == "duplicate"
    plain = run_games(game, setup, game.lineup("random", 3), game.variant(), 1, edge["games"], progress=False,
                      keep_frame=True, start=DUPLICATE).frame
    assert frames["random"][0].equals(plain)
    value, interval = seat_edge(plain["share_0"].to_numpy(), 3, edge["confidence"])
    assert edge["edge_pp"] == pytest.approx(value) and edge["ci_pp"] == pytest.approx(interval)
    alea = get_game("sky-city")  # its dice cannot turn: independent games, as before
    assert skill.tier_edge(alea, alea.setup(4, alea.variant()), alea.variant(), "random", 1, 400, None,
                           False)["design"] == "independent"


@pytest.mark.parametrize("players,deals,confidence,lowest", [(4, 400, 0.95, 0.92), (5, 100, 1 - 0.05 / 8, 0.975)])
def test_the_interval_clustered_by_deal_covers_a_known_edge(players, deals, confidence, lowest):
    """Simulated duplicate deals where the hands decide most games (the luck the design cancels)
    and seat 1 has a known edge: with chance q it wins whatever it holds, so its share is exactly
    q + (1 - q) / N.  The interval clustered by deal covers that share at its level (95%; and the
    99.4% of an eight-look tier at the fewest deals a tier judges, MIN_DEALS, at 5 players), and is
    narrower than the interval the same games would give on independent deals."""
    from analysis.duplicate import MIN_DEALS, seat_edge

    assert deals >= MIN_DEALS
    q, runs = 0.02, 600
    rng = np.random.default_rng(2026)
    truth = 100 * (q + (1 - q) / players - 1 / players)
    covered, ratio = 0, []
    for _ in range(runs):
        strength = rng.exponential(size=(deals, players)) ** 3  # hand j's strength in each deal
        shares = np.zeros(deals * players)
        for r in range(players):
            held = strength[:, (0 - r) % players]  # seat 1 holds hand -r at turn r
            luck = rng.random(deals) < held / strength.sum(axis=1)
            shares[r::players] = np.where(rng.random(deals) < q, 1.0, luck)
        value, (low, high) = seat_edge(shares, players, confidence)
        covered += low <= truth <= high
        ratio.append((high - low) / (2 * stats.z_for(confidence) * 100 * shares.std(ddof=1) / np.sqrt(shares.size)))
    assert lowest <= covered / runs <= (0.98 if confidence == 0.95 else 1.0), covered / runs  # not wider either
    assert np.mean(ratio) < 0.8  # the hands' luck is gone from the interval
