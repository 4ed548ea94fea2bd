"""`balance tournament`: strategies against each other with seat effects cancelled.

Design.  Every ordered assignment of the k strategies to the P seats is one *seating* (k**P of
them), so within every combination of strategies each strategy sits in each seat equally often
and the seat order cancels out of every comparison.  Above ``MAX_FULL_SEATINGS`` the design falls
back to every combination (multiset) of strategies in P cyclic rotations: still every strategy in
every seat equally often, but no longer every neighbour order.  Every seating plays the same game
indices 0..n-1 of the same seed, so every seating meets the same deals (common random numbers);
the deal is therefore the sampling unit (cluster) of every interval below.

Measures (docs/tournament.md has the formulas):
- head to head: for strategies a != b, the share of (a-seat, b-seat) pairs in a game where the
  a-seat finishes ahead (win share first, then final score; a tie counts 1/2), with a 95%
  delta-method ratio interval clustered by deal and a test of 50%;
- ratings: Bradley-Terry strengths fitted by the MM algorithm (Hunter 2004) to those pairwise
  results, on the Elo scale, with a 95% percentile bootstrap interval over deals;
- each strategy's win share in each seat against the fair share 1/P;
- skill tiers: the seatings with every seat the same strategy, their first-player advantage and a
  paired (same deals) test of whether it differs between tiers.
"""
from __future__ import annotations

import itertools
import math
import os
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from analysis import stats
from analysis.summary import SHARE_UNITS, fixed_width, fmt_p, fmt_pct_ci, fmt_pp, fmt_settings, games_phrase, variant_info

from simcore.errors import BalanceError

MAX_FULL_SEATINGS = 1_000  # above this, compositions x cyclic rotations (see the module docstring)
MIN_GAMES_PER_SEATING = 10  # fewer deals than this and the clustered intervals mean nothing
BOOTSTRAP_REPLICATES = 1_000
BOOTSTRAP_BATCH = 1 << 22  # deal weights held in memory at once (32 MB)
BOOTSTRAP_STREAM = 0x70C2  # keeps the bootstrap's random stream apart from any other use of the seed
ELO_SCALE = 400.0  # Elo points per factor 10 of Bradley-Terry strength


# --------------------------------------------------------------------------------------------
# input and design
# --------------------------------------------------------------------------------------------

def parse_strategies(spec: str) -> list[str]:
    """``"random,greedy,heuristic"`` -> names; at least two, no blanks, no repeats."""
    names = [name.strip() for name in spec.split(",")]
    if any(not name for name in names):
        raise BalanceError(f"--strategies has an empty name in '{spec}'")
    repeated = sorted({name for name in names if names.count(name) > 1})
    if repeated:
        raise BalanceError(f"--strategies names '{repeated[0]}' more than once; name each strategy once")
    if len(names) < 2:
        raise BalanceError("a tournament needs at least two different strategies in --strategies")
    return names


@dataclass(frozen=True)
class Design:
    strategies: tuple[str, ...]
    players: int
    seatings: tuple[tuple[int, ...], ...]  # strategy index per seat, seat 0 first
    kind: str  # "full" or "rotations"

    def seat_slots(self) -> np.ndarray:
        """[strategy, seat]: how many seatings put the strategy in the seat."""
        slots = np.zeros((len(self.strategies), self.players), dtype=np.int64)
        for seating in self.seatings:
            slots[list(seating), range(self.players)] += 1
        return slots


def make_design(strategies: list[str], players: int) -> Design:
    k = len(strategies)
    if k ** players <= MAX_FULL_SEATINGS:
        return Design(tuple(strategies), players, tuple(itertools.product(range(k), repeat=players)), "full")
    seatings = []
    for combination in itertools.combinations_with_replacement(range(k), players):
        # rotations of a one-strategy (periodic) arrangement repeat: keep each once
        seatings += dict.fromkeys(combination[r:] + combination[:r] for r in range(players))
    return Design(tuple(strategies), players, tuple(seatings), "rotations")


def design_phrase(design: Design) -> str:
    count = len(design.seatings)
    if design.kind == "full":
        return (f"all {count:,} seatings ({len(design.strategies)}^{design.players}: every strategy in every "
                "seat of every combination, every neighbour order)")
    return (f"{count:,} seatings: every combination of strategies in {design.players} cyclic rotations "
            f"(the full {len(design.strategies)}^{design.players} = "
            f"{len(design.strategies) ** design.players:,} is over {MAX_FULL_SEATINGS:,})")


def games_per_seating(games: int, design: Design) -> int:
    """``--games`` is the total, split evenly over the seatings and rounded up."""
    seatings = len(design.seatings)
    least = seatings * MIN_GAMES_PER_SEATING
    if games < least:
        raise BalanceError(f"--games {games:,} is too few for {seatings:,} seatings: give at least {least:,} "
                           f"({MIN_GAMES_PER_SEATING} per seating)")
    return -(-games // seatings)


def check_out_dir(out: Path) -> None:
    """Refuse a report folder that could not be written, before any game is played."""
    if out.exists() and not out.is_dir():
        raise BalanceError(f"{out} exists and is not a directory")
    existing = out if out.exists() else next(p for p in out.absolute().parents if p.exists())
    if not existing.is_dir():
        raise BalanceError(f"cannot write to {out}: {existing} is not a directory")
    if not os.access(existing, os.W_OK | os.X_OK):
        raise BalanceError(f"cannot write to {existing}")


def seating_lineups(game, design: Design, plugin_paths=()) -> list:
    """One Lineup per seating, all sharing one compiled play loop.

    ``game.lineup`` checks every name; with plug-ins each call builds a fresh (uncompiled) copy
    of the kernels, so the seatings reuse the first copy and it compiles once."""
    from simcore.lineup import Lineup

    players = design.players
    per_strategy = [game.lineup([name] * players, players, plugin_paths) for name in design.strategies]
    first = per_strategy[0]
    # one play loop every seating can use: a line-up of random seats alone gets a build that
    # compiles the random player only (simcore/builds.py), which a seating of others cannot share
    random = game.strategy_module().RANDOM
    kernels = next((lineup.kernels for lineup in per_strategy if lineup.ids[0] != random), first.kernels)
    lineups = []
    for seating in design.seatings:
        params = np.zeros_like(first.params)
        for seat, s in enumerate(seating):
            params[seat] = per_strategy[s].params[seat]
        ids = np.array([per_strategy[s].ids[seat] for seat, s in enumerate(seating)], dtype=np.int64)
        lineups.append(Lineup(tuple(design.strategies[s] for s in seating), ids, params, kernels, first.plugins))
    return lineups


# --------------------------------------------------------------------------------------------
# playing: per-deal tallies
# --------------------------------------------------------------------------------------------

class Tally:
    """Everything the analysis needs, per deal (game index), summed over the seatings."""

    def __init__(self, design: Design, deals: int):
        k, players = len(design.strategies), design.players
        self.design, self.deals = design, deals
        self.ahead = np.zeros((deals, k, k))  # credits of a-seats finishing ahead of b-seats
        self.comparisons = np.zeros((k, k))  # (a-seat, b-seat) pairs per deal
        self.seat_wins = np.zeros((deals, k, players))  # win share summed where strategy s sat in seat
        self.tiers: dict[int, np.ndarray] = {}  # one-strategy seatings: [deal, seat] win shares

    def add(self, seating: tuple[int, ...], share: np.ndarray, score: np.ndarray) -> None:
        """Tally one seating's rows.  A one-strategy seating may have played more deals than the
        others (``--tier-games``): all of them go to its tier, the first ``deals`` to the rest."""
        if len(set(seating)) == 1:
            self.tiers[seating[0]] = share.copy()
        share, score = share[:self.deals], score[:self.deals]
        for i, j in itertools.combinations(range(self.design.players), 2):
            a, b = seating[i], seating[j]
            if a == b:
                continue
            # the seat with the larger win share finishes ahead; with equal shares (both lost, or a
            # shared win) the higher score (every game so far: highest total wins); a full tie is ½ each
            credit = np.where(share[:, i] != share[:, j], share[:, i] > share[:, j],
                              np.where(score[:, i] != score[:, j], score[:, i] > score[:, j], 0.5))
            self.ahead[:, a, b] += credit
            self.ahead[:, b, a] += 1.0 - credit
            self.comparisons[a, b] += 1
            self.comparisons[b, a] += 1
        self.seat_wins[:, list(seating), range(self.design.players)] += share


def play(game, setup, variant, design: Design, lineups: list, seed: int, deals: int, threads: int | None,
         progress: bool, tier_deals: int | None = None) -> tuple[Tally, float]:
    """Run every seating on game indices 0..deals-1 of ``seed`` (the one-strategy seatings on
    0..tier_deals-1, a superset); one progress bar for all."""
    tier_deals = max(deals, tier_deals or deals)
    from simcore.driver import run_games
    from simcore.progress import Progress

    tally = Tally(design, deals)
    players = design.players
    started = time.perf_counter()
    plays = [tier_deals if len(set(seating)) == 1 else deals for seating in design.seatings]
    with Progress(progress, sum(plays), f"{game.name} {players}p tournament") as advance:
        for seating, lineup, n in zip(design.seatings, lineups, plays):
            frame = run_games(game, setup, lineup, variant, seed, n, threads=threads, progress=False,
                              keep_frame=True, announce=progress).frame
            share = frame.select([f"share_{s}" for s in range(players)]).to_numpy().astype(np.float64)
            share = np.round(share * SHARE_UNITS) / SHARE_UNITS  # a k-way tie is exactly 1/k, as in the summary
            score = frame.select([f"score_{s}" for s in range(players)]).to_numpy().astype(np.int64)
            tally.add(seating, share, score)
            advance(n)
    return tally, time.perf_counter() - started


# --------------------------------------------------------------------------------------------
# statistics
# --------------------------------------------------------------------------------------------

def clustered_rate(per_deal: np.ndarray, units_per_deal: float, null: float,
                   confidence: float = stats.DEFAULT_CONFIDENCE) -> dict:
    """Rate sum(x) / sum(units) over deals, with the delta-method ratio interval clustered by
    deal (``stats.ratio_interval``) and a two-sided z-test of ``rate = null`` with its standard
    error.  The interval is clipped to [0, 1] (a rate).

    A rate of exactly 0 or 1 (every deal at the bound) leaves the delta method no spread to go
    on; then each deal counts as one trial: Wilson interval and score test over deals."""
    deals = per_deal.size
    sum_x = float(per_deal.sum())
    rate = sum_x / (units_per_deal * deals)
    if rate in (0.0, 1.0):
        low, high = stats.wilson_interval(rate * deals, deals, confidence)
        se = math.sqrt(null * (1.0 - null) / deals)
    else:
        low, high = stats.ratio_interval(sum_x, units_per_deal * deals, float((per_deal * per_deal).sum()),
                                         units_per_deal ** 2 * deals, units_per_deal * sum_x, deals, confidence)
        se = (high - low) / (2.0 * stats.z_for(confidence))
    if se > 0:
        p = math.erfc(abs(rate - null) / se / math.sqrt(2.0))
    else:
        p = 1.0 if rate == null else 0.0
    return {"rate": rate, "ci": [max(low, 0.0), min(high, 1.0)], "p_value": p}


def _strongly_connected(beats: np.ndarray) -> bool:
    """Every strategy reaches every other through "beat at least once" (Hunter's assumption 1,
    without which the Bradley-Terry maximum likelihood estimate does not exist)."""
    reach = beats | np.eye(len(beats), dtype=bool)
    for _ in range(len(beats)):
        reach = reach | ((reach.astype(int) @ reach.astype(int)) > 0)
    return bool(reach.all())


def bradley_terry(wins: np.ndarray, comparisons: np.ndarray, tolerance: float = 1e-12,
                  max_steps: int = 100_000) -> np.ndarray:
    """Bradley-Terry strengths (geometric mean 1) from ``wins[a, b]`` (a over b; ties as 1/2
    each) and ``comparisons[a, b]``, by the MM algorithm of D. R. Hunter, "MM algorithms for
    generalized Bradley-Terry models", Ann. Statist. 32 (2004) 384-406, eq. (3):

        gamma_a <- W_a / sum_{b != a} N_ab / (gamma_a + gamma_b),   W_a = sum_b wins[a, b]

    so that P(a ahead of b) = gamma_a / (gamma_a + gamma_b).  ``wins`` may be one matrix or a
    stack of them (bootstrap replicates: all fitted together); a fit whose estimate does not
    exist (some group of strategies never finished behind the rest) is all NaN."""
    stack = np.asarray(wins, dtype=np.float64).reshape(-1, *np.shape(wins)[-2:])
    fitted = np.full(stack.shape[:2], np.nan)
    exists = np.array([_strongly_connected(w > 0) for w in stack], dtype=bool)
    won = stack[exists].sum(axis=2)
    gamma = np.ones_like(won)
    for _ in range(max_steps):
        updated = won / (comparisons / (gamma[:, :, None] + gamma[:, None, :])).sum(axis=2)
        updated /= np.exp(np.log(updated).mean(axis=1, keepdims=True))
        converged = np.max(np.abs(np.log(updated / gamma)), initial=0.0) < tolerance
        gamma = updated
        if converged:
            break
    fitted[exists] = gamma
    return fitted.reshape(np.shape(wins)[:-1])


def elo(gamma: np.ndarray, anchor: int) -> np.ndarray:
    """Elo points relative to strategy ``anchor`` (last axis: strategies)."""
    return ELO_SCALE * np.log10(gamma / gamma[..., anchor:anchor + 1])


def ratings(tally: Tally, anchor: int, seed: int, replicates: int = BOOTSTRAP_REPLICATES) -> dict:
    """Elo-scale Bradley-Terry ratings and 95% percentile bootstrap intervals: deals resampled
    with replacement (every seating's game of a deal together), the fit repeated."""
    deals, k = tally.deals, len(tally.design.strategies)
    comparisons = tally.comparisons * deals
    wins = tally.ahead.sum(axis=0)
    point = elo(bradley_terry(wins, comparisons), anchor)
    if np.isnan(point).any():
        return {"elo": None, "ci": None, "note": _not_estimable(wins, tally.design.strategies)}
    per_deal = tally.ahead.reshape(deals, k * k)
    rng = np.random.default_rng([BOOTSTRAP_STREAM, seed])
    resampled = np.empty((replicates, k * k))
    batch = max(1, BOOTSTRAP_BATCH // deals)  # replicates whose deal weights are held at once
    for first in range(0, replicates, batch):
        weights = np.stack([np.bincount(rng.integers(0, deals, deals), minlength=deals)
                            for _ in range(min(batch, replicates - first))])
        resampled[first:first + len(weights)] = weights @ per_deal
    draws = elo(bradley_terry(resampled.reshape(replicates, k, k), comparisons), anchor)
    failed = int(np.isnan(draws).any(axis=1).sum())
    if failed:
        return {"elo": point.tolist(), "ci": None,
                "note": f"no interval: {failed} of {replicates} bootstrap replicates had no finite fit"}
    low, high = np.quantile(draws, [0.025, 0.975], axis=0)
    return {"elo": point.tolist(), "ci": [[float(lo), float(hi)] for lo, hi in zip(low, high)], "note": None}


def _not_estimable(wins: np.ndarray, names: tuple[str, ...]) -> str:
    never_ahead = [n for n, won in zip(names, wins.sum(axis=1)) if won == 0]
    never_behind = [n for n, lost in zip(names, wins.sum(axis=0)) if lost == 0]
    if never_ahead or never_behind:
        who = "; ".join([f"{', '.join(never_ahead)} never finished ahead"] * bool(never_ahead)
                        + [f"{', '.join(never_behind)} never finished behind"] * bool(never_behind))
        return f"not estimable: {who} (an infinite rating); leave it out to rate the rest"
    return "not estimable: a group of strategies never finished behind the others"


def analyse(tally: Tally, anchor: int, seed: int) -> dict:
    """Head to head, ratings, seat shares and tiers, JSON-ready (fractions 0..1)."""
    design, deals = tally.design, tally.deals
    names, players, k = design.strategies, design.players, len(design.strategies)
    pairs = []
    matrix = [[None] * k for _ in range(k)]
    for a, b in itertools.permutations(range(k), 2):
        result = clustered_rate(tally.ahead[:, a, b], tally.comparisons[a, b], 0.5)
        matrix[a][b] = result
        if a < b:  # M[b, a] = 1 - M[a, b]: one test per pair
            pairs.append({"a": names[a], "b": names[b], "comparisons": int(tally.comparisons[a, b] * deals),
                          **result})
    for pair, q in zip(pairs, stats.benjamini_hochberg([p["p_value"] for p in pairs])):
        pair["q_value"] = q

    slots = design.seat_slots()
    fair = 1.0 / players
    seat_shares = []
    for s in range(k):
        overall = clustered_rate(tally.seat_wins[:, s, :].sum(axis=1), float(slots[s].sum()), fair)
        seats = [{"seat": seat, **clustered_rate(tally.seat_wins[:, s, seat], float(slots[s, seat]), fair)}
                 for seat in range(players)]
        seat_shares.append({"strategy": names[s], "slots": slots[s].tolist(), **overall, "seats": seats})
    for row, q in zip(seat_shares, stats.benjamini_hochberg([r["p_value"] for r in seat_shares])):
        row["q_value"] = q

    tiers = []
    for s in (s for s in range(k) if s in tally.tiers):
        games = len(tally.tiers[s])
        wins = tally.tiers[s].sum(axis=0)
        seats = [{"seat": seat, "share": wins[seat] / games,
                  "ci": list(stats.wilson_interval(min(wins[seat], games), games))} for seat in range(players)]
        test = stats.chi2_equal_shares(wins.tolist())
        tiers.append({"strategy": names[s], "games": games, "fpa_pp": 100 * (seats[0]["share"] - fair),
                      "fpa_ci_pp": [100 * (v - fair) for v in seats[0]["ci"]], "seats": seats,
                      "seat_balance": {"statistic": test.statistic, "df": test.df, "p_value": test.p_value}})
    differences = []
    for first, second in itertools.combinations(tiers, 2):
        # the tiers play the same deals: a paired test, i.e. a one-sample test of the per-deal
        # differences of seat 0's share (Welch's formula with an empty second sample)
        d = tally.tiers[names.index(first["strategy"])][:, 0] - tally.tiers[names.index(second["strategy"])][:, 0]
        diff, ci, p = stats.welch_test(float(d.mean()), float(d.var(ddof=1)), len(d), 0.0, 0.0, len(d))
        differences.append({"a": first["strategy"], "b": second["strategy"], "diff_pp": 100 * diff,
                            "ci_pp": [100 * v for v in ci], "p_value": p})
    for row, q in zip(differences, stats.benjamini_hochberg([r["p_value"] for r in differences])):
        row["q_value"] = q

    return {"head_to_head": {"matrix": [[None if c is None else c["rate"] for c in row] for row in matrix],
                             "ci": [[None if c is None else c["ci"] for c in row] for row in matrix],
                             "pairs": pairs},
            "ratings": {"method": "Bradley-Terry (MM algorithm, Hunter 2004) on the head-to-head results, "
                                  f"Elo scale ({ELO_SCALE:.0f} log10 of the strength ratio)",
                        "anchor": names[anchor], "interval": "95% percentile bootstrap over deals",
                        "replicates": BOOTSTRAP_REPLICATES, **ratings(tally, anchor, seed)},
            "seat_shares": seat_shares, "tiers": tiers, "tier_differences": differences}


# --------------------------------------------------------------------------------------------
# the whole tournament
# --------------------------------------------------------------------------------------------

def run_tournament(game_name: str, players: int, strategies: str, games: int, seed: int = 1,
                   variant_path: Path | None = None, threads: int | None = None, plugin_paths=(),
                   out: Path | None = None, progress: bool = True, tier_games: int | None = None) -> dict:
    """Check every input, play every seating, return the JSON-ready document."""
    from simcore.version import __version__
    from simcore.driver import set_threads
    from simcore.registry import check_seed, get_game

    game = get_game(game_name)
    variant = game.variant(variant_path)
    setup = game.setup(players, variant)
    names = parse_strategies(strategies)
    design = make_design(names, players)
    lineups = seating_lineups(game, design, plugin_paths)  # unknown names fail here
    deals = games_per_seating(games, design)
    if tier_games is not None and tier_games < deals:
        raise BalanceError(f"--tier-games must be at least the {deals:,} games every seating plays, not {tier_games:,}")
    tier_deals = tier_games or deals
    check_seed(seed)
    set_threads(threads)
    if out is not None:
        check_out_dir(out)
    anchor = names.index(game.default_strategy) if game.default_strategy in names else 0

    tally, seconds = play(game, setup, variant, design, lineups, seed, deals, threads, progress, tier_deals)
    tier_seatings = sum(len(set(seating)) == 1 for seating in design.seatings)
    total = deals * (len(design.seatings) - tier_seatings) + tier_deals * tier_seatings
    doc = {"game": game.name, "title": game.title, "players": players, "strategies": names,
           "strategy_labels": [game.strategy_label(name) for name in names], "seed": seed,
            "variant": variant_info({"variant": variant.to_dict()}), "version": __version__,
            "assumed": list(game.assumed), "plugins": [str(p) for p in plugin_paths],
            "design": {"kind": design.kind, "description": design_phrase(design),
                       "seatings": [[names[s] for s in seating] for seating in design.seatings],
                       "games_requested": games, "games_per_seating": deals, "games_per_tier": tier_deals,
                       "games": total,
                       "deals": f"game indices 0..{deals - 1} of seed {seed} in every seating"},
            **analyse(tally, anchor, seed),
            "seconds": round(seconds, 3), "games_per_second": round(total / max(seconds, 1e-9))}
    doc["verdict"] = verdict(doc)
    return doc


def verdict(doc: dict) -> dict:
    """Which strategy is strongest, by how much (seats rotated, so skill alone), and the first
    seat's edge in each one-strategy seating (seat order alone); at most three sentences."""
    from analysis.verdict import judge, pct, pp, stated, thresholds, tone

    limit = thresholds().seat_pp
    fair = 100 / doc["players"]
    ranked = sorted(doc["seat_shares"], key=lambda r: -r["rate"])
    shares = "; ".join(f"{_label(doc, r['strategy'])} {pct(r['rate'], r['ci'])}" for r in ranked)
    strengths = [judge(100 * (r["rate"] - 1 / doc["players"]), [100 * (v - 1 / doc["players"]) for v in r["ci"]], limit)
                 for r in ranked]
    top = ranked[0]
    first = (f"With every strategy in every seat, skill alone: {_label(doc, top['strategy'])} is strongest"
             + (" by a margin that matters" if strengths[0] == "beyond" else "") + f". Win shares: {shares}, against "
             f"a fair {fair:.1f}%.")
    sentences, outcomes = [first], []
    if doc["tiers"]:
        parts = []
        for t in doc["tiers"]:
            judged = judge(t["fpa_pp"], t["fpa_ci_pp"], limit)
            outcomes.append(judged)
            word = {"within": "fair", "beyond": "out of line", "unsettled": "unsettled"}[judged]
            parts.append(f"all {t['strategy']} {pp(t['fpa_pp'], t['fpa_ci_pp'])} ({word})")
        sentences.append("Seat order alone, with every seat the same strategy: the first seat's edge is "
                         + "; ".join(parts) + ".")
    return {"sentences": sentences, "note": stated("seat_pp"), "tone": tone(*outcomes) if outcomes else "info"}


def _label(doc: dict, name: str) -> str:
    labels = dict(zip(doc["strategies"], doc.get("strategy_labels", doc["strategies"])))
    return labels.get(name, name)


# --------------------------------------------------------------------------------------------
# tables (shared by the console and the report)
# --------------------------------------------------------------------------------------------

def matrix_table(doc: dict) -> tuple[list[str], list[list[str]]]:
    h2h, names = doc["head_to_head"], doc["strategies"]
    rows = [[a] + ["—" if rate is None else fmt_pct_ci(rate, ci) for rate, ci in zip(h2h["matrix"][i], h2h["ci"][i])]
            for i, a in enumerate(names)]
    return ["row ahead of column % [95% CI]"] + names, rows


def pair_table(doc: dict) -> tuple[list[str], list[list[str]]]:
    rows = [[p["a"], p["b"], fmt_pct_ci(p["rate"], p["ci"]), f"{p['comparisons']:,}", fmt_p(p["p_value"]),
             fmt_p(p["q_value"])] for p in doc["head_to_head"]["pairs"]]
    return ["a", "b", "a ahead of b % [95% CI]", "comparisons", "p (vs 50%)", "q (BH)"], rows


def rating_table(doc: dict) -> tuple[list[str], list[list[str]]]:
    r = doc["ratings"]
    if r["elo"] is None:
        return ["strategy", "rating"], [[name, "not estimable"] for name in doc["strategies"]]
    rows = []
    for i, name in enumerate(doc["strategies"]):
        text = f"{r['elo'][i]:+.1f}"
        if name == r["anchor"]:
            text = "0 (anchor)"
        elif r["ci"] is not None:
            text += f" [{r['ci'][i][0]:+.1f}, {r['ci'][i][1]:+.1f}]"
        expected = 1.0 / (1.0 + 10 ** (-r["elo"][i] / ELO_SCALE))
        rows.append([name, text, f"{100 * expected:.1f}"])
    return ["strategy", "rating, Elo points [95% CI]", f"expected % ahead of {r['anchor']}"], rows


def seat_share_table(doc: dict) -> tuple[list[str], list[list[str]]]:
    headers = ["strategy", "win share % [95% CI]", "p (vs 1/P)", "q (BH)"] + [
        f"seat {s + 1} % [95% CI]" for s in range(doc["players"])]
    rows = [[_label(doc, r["strategy"]), fmt_pct_ci(r["rate"], r["ci"]), fmt_p(r["p_value"]), fmt_p(r["q_value"])]
            + [fmt_pct_ci(s["rate"], s["ci"]) for s in r["seats"]] for r in doc["seat_shares"]]
    return headers, rows


def tier_table(doc: dict) -> tuple[list[str], list[list[str]]]:
    headers = ["tier", "games", "first-seat edge [95% CI]", "seat equality p"] + [
        f"seat {s + 1} % [95% CI]" for s in range(doc["players"])]
    rows = [[f"all-{t['strategy']}", f"{t['games']:,}", fmt_pp(t["fpa_pp"], t["fpa_ci_pp"]),
             fmt_p(t["seat_balance"]["p_value"])] + [fmt_pct_ci(s["share"], s["ci"]) for s in t["seats"]]
            for t in doc["tiers"]]
    return headers, rows


def tier_difference_table(doc: dict) -> tuple[list[str], list[list[str]]]:
    rows = [[f"all-{d['a']} − all-{d['b']}", fmt_pp(d["diff_pp"], d["ci_pp"]), fmt_p(d["p_value"]),
             fmt_p(d["q_value"])] for d in doc["tier_differences"]]
    return ["tiers", "difference in first-seat edge [95% CI]", "p (paired)", "q (BH)"], rows


def _about(doc: dict) -> list[str]:
    d, variant = doc["design"], doc["variant"]
    return [f"{doc['title']} ({doc['game']}): {doc['players']} players; strategies {', '.join(doc['strategies'])}",
            f"variant {variant['name']} (changes: {fmt_settings(variant['settings'])}) · seed {doc['seed']} · "
            f"version {doc['version']}",
            f"design: {d['description']}",
            f"{d['games_per_seating']:,} games per seating, the same deals in every seating ({d['deals']}); "
            f"{d['games']:,} games in total (--games {d['games_requested']:,}, split evenly and rounded up"
            + (f"; the one-strategy seatings, the skill tiers, play games 0..{d['games_per_tier'] - 1:,} "
               f"(--tier-games {d['games_per_tier']:,}))" if d["games_per_tier"] > d["games_per_seating"] else ")")]


NOTES = {
    "matrix": "How often a seat of the row strategy finishes ahead of a seat of the column strategy in the "
              "same game (larger win share, then higher score; a tie counts 1/2), over every game where both "
              "sit. 95% delta-method ratio intervals clustered by deal; p tests 50%, q is Benjamini–Hochberg "
              "adjusted over the pairs.",
    "ratings": "Bradley–Terry strengths fitted to the head-to-head results (MM algorithm, Hunter 2004), "
               "shown as Elo points: a lead of 400 points means 10:1 odds of finishing ahead. 95% percentile "
               "bootstrap intervals over deals.",
    "seats": "Each strategy's mean win share where it sits, overall and per seat (seat 1 plays first), with "
             "95% intervals clustered by deal; p tests the fair share 1/P, q is Benjamini–Hochberg adjusted.",
    "tiers": "Seatings with every seat the same strategy: the rules' structural seat advantage at that level "
             "of play. The first-seat edge is seat 1's win share minus 1/P with its 95% Wilson interval; "
             "seat equality is a chi-square test of equal seat shares. Tiers are compared on the same deals "
             "(paired test of seat 1's share per deal).",
}


def format_text(doc: dict) -> str:
    out = _about(doc)
    found = doc.get("verdict") or verdict(doc)
    out += ["", "verdict: " + " ".join(found["sentences"]), f"  ({found['note']})"]
    if doc["assumed"]:
        out += ["", "!! ASSUMED — these results rest on game data that is not confirmed:"]
        out += [f"!!   - {note}" for note in doc["assumed"]]
    sections = [("head to head", NOTES["matrix"], [matrix_table(doc), pair_table(doc)]),
                (f"ratings (anchor {doc['ratings']['anchor']} = 0)", NOTES["ratings"], [rating_table(doc)]),
                (f"win share by seat (fair share 1/{doc['players']} = {100 / doc['players']:.2f}%)", NOTES["seats"],
                 [seat_share_table(doc)]),
                ("skill tiers: the first seat's edge apart from skill", NOTES["tiers"],
                 [tier_table(doc), tier_difference_table(doc)] if doc["tier_differences"] else [tier_table(doc)])]
    for title, note, tables in sections:
        out += ["", f"{title}:", f"  {note}"]
        for headers, rows in tables:
            out += [""] + fixed_width(headers, rows)
    if doc["ratings"]["note"]:
        out += ["", f"note: ratings {doc['ratings']['note']}"]
    out += ["", f"{doc['design']['games']:,} games in {doc['seconds']:.2f} s ({doc['games_per_second']:,} games/s)"]
    return "\n".join(out) + "\n"


# --------------------------------------------------------------------------------------------
# charts and the report
# --------------------------------------------------------------------------------------------

def _subtitle(doc: dict) -> str:
    d = doc["design"]
    return (f"{doc['title']} · {doc['players']} players · seed {doc['seed']} · variant {doc['variant']['name']}\n"
            f"{d['games']:,} games: {d['games_per_seating']:,} per seating × {len(d['seatings']):,} seatings")


def _figure(width: float, height: float, title: str, doc: dict):
    from matplotlib.figure import Figure

    figure = Figure(figsize=(width, height), layout="constrained")
    axes = figure.add_subplot()
    figure.suptitle(title, fontsize=13, fontweight="bold")
    axes.set_title(_subtitle(doc), fontsize=8, color="0.3")
    return figure, axes


def matrix_chart(doc: dict) -> bytes:
    from analysis.charts import _png

    names, h2h = doc["strategies"], doc["head_to_head"]
    k = len(names)
    values = np.array([[np.nan if v is None else 100 * v for v in row] for row in h2h["matrix"]])
    figure, axes = _figure(2.2 + 1.7 * k, 1.8 + 1.3 * k, "Head to head: row strategy finishes ahead", doc)
    image = axes.imshow(values, cmap="RdBu", vmin=0, vmax=100)
    for a, b in itertools.product(range(k), repeat=2):
        text = "—" if a == b else f"{values[a, b]:.1f}%\n[{100 * h2h['ci'][a][b][0]:.1f}, {100 * h2h['ci'][a][b][1]:.1f}]"
        dark = a != b and abs(values[a, b] - 50) > 30
        axes.text(b, a, text, ha="center", va="center", fontsize=9, color="white" if dark else "black")
    axes.set_xticks(range(k), names)
    axes.set_yticks(range(k), names)
    axes.set_xlabel("opponent (column strategy)")
    axes.set_ylabel("strategy (row)")
    figure.colorbar(image, ax=axes, label="finishes ahead of the opponent (%)")
    return _png(figure)


def rating_chart(doc: dict) -> bytes | None:
    from analysis.charts import _png

    r = doc["ratings"]
    if r["elo"] is None:
        return None
    names, values = doc["strategies"], np.array(r["elo"])
    figure, axes = _figure(7.5, 4.6, "Bradley–Terry ratings (95% bootstrap interval)", doc)
    error = None if r["ci"] is None else np.array([[v - lo, hi - v] for v, (lo, hi) in zip(values, r["ci"])]).T
    axes.bar(range(len(names)), values, color="#4c78a8", width=0.6, yerr=error, capsize=6, ecolor="black")
    for x, value, top in zip(range(len(names)), values, values if error is None else values + error[1]):
        axes.annotate(f"{value:+.1f}", (x, max(top, 0)), xytext=(0, 3), textcoords="offset points", ha="center",
                      va="bottom", fontsize=9)
    axes.axhline(0, color="0.4", linewidth=1)
    axes.set_xticks(range(len(names)), names)
    axes.set_xlabel("strategy")
    axes.set_ylabel(f"rating (Elo points; {r['anchor']} = 0)")
    axes.margins(y=0.15)  # room for the value labels
    axes.grid(axis="y", alpha=0.3)
    return _png(figure)


def tier_chart(doc: dict) -> bytes:
    from analysis.charts import _png

    tiers = doc["tiers"]
    figure, axes = _figure(7.5, 1.9 + 0.55 * len(tiers), "First seat's edge by skill tier", doc)
    y = np.arange(len(tiers))[::-1]
    values = np.array([t["fpa_pp"] for t in tiers])
    error = np.array([[v - t["fpa_ci_pp"][0], t["fpa_ci_pp"][1] - v] for v, t in zip(values, tiers)]).T
    axes.errorbar(values, y, xerr=error, fmt="o", color="#4c78a8", capsize=4)
    axes.axvline(0, color="0.4", linewidth=1)
    axes.set_yticks(y, [f"all-{t['strategy']} ({t['games']:,} games)" for t in tiers])
    axes.set_xlabel(f"seat 1 win share − 1/{doc['players']} (percentage points), 95% interval")
    axes.set_ylabel("skill tier (every seat)")
    axes.margins(x=0.08)
    axes.grid(axis="x", alpha=0.3)
    return _png(figure)


def strength_chart(doc: dict) -> bytes:
    """Each strategy's win share with every strategy in every seat (skill alone), 95% intervals,
    against the fair share and the band that counts as fair."""
    from analysis.charts import _png
    from analysis.verdict import thresholds

    ranked = sorted(doc["seat_shares"], key=lambda r: r["rate"])
    figure, axes = _figure(7.5, 2.0 + 0.5 * len(ranked), "Strategy strength, seats rotated", doc)
    y = np.arange(len(ranked))
    values = np.array([100 * r["rate"] for r in ranked])
    error = np.array([[v - 100 * r["ci"][0], 100 * r["ci"][1] - v] for v, r in zip(values, ranked)]).T
    fair = 100 / doc["players"]
    limit = thresholds().seat_pp
    axes.axvspan(fair - limit, fair + limit, color="#54a24b", alpha=0.15, linewidth=0,
                 label=f"within ±{limit:g} pp of fair")
    axes.barh(y, values, color="#4c78a8", height=0.6, xerr=error, capsize=4, ecolor="black", label="win share (95% CI)")
    axes.axvline(fair, color="#e45756", linestyle="--", linewidth=1.2, label=f"fair share {fair:.1f}%")
    for yy, v, e in zip(y, values, error.T):
        axes.annotate(f"{v:.1f}%", (v + e[1], yy), xytext=(4, 0), textcoords="offset points", va="center", fontsize=9)
    import textwrap

    axes.set_yticks(y, ["\n".join(textwrap.wrap(_label(doc, r["strategy"]), 26)) for r in ranked])
    axes.set_xlabel("win share over every seat it sat in (%)")
    axes.set_ylabel("strategy")
    axes.set_xlim(0, max(float((values + error[1]).max()) * 1.18, fair + limit + 2))
    axes.grid(axis="x", alpha=0.3)
    figure.legend(loc="outside lower center", ncols=3, fontsize=8, frameon=False)
    return _png(figure)


def report_blocks(doc: dict) -> list:
    from analysis.page import Alert, Heading, Image, Items, Paragraph, Table, Verdict

    found = doc.get("verdict") or verdict(doc)
    shares = ", ".join(f"{_label(doc, r['strategy'])} {100 * r['rate']:.1f}%" for r in doc["seat_shares"])
    blocks = [Heading(1, f"Tournament: {doc['title']}, {doc['players']} players"),
              Verdict(found["sentences"], found["note"], found["tone"]),
              Image("tournament-strength.png", f"Each strategy's win share, seats rotated, with 95% intervals: {shares}",
                    strength_chart(doc), lead=True),
              Items(_about(doc))]
    if doc["assumed"]:
        blocks.append(Alert("ASSUMED: these results rest on game data that is not confirmed", doc["assumed"]))
    blocks += [Heading(2, "Head to head"), Paragraph(NOTES["matrix"]), Table(*matrix_table(doc)),
               Image("tournament-matrix.png", "Head-to-head matrix: how often the row strategy finishes ahead of the "
                     "column strategy, with 95% intervals", matrix_chart(doc)), Table(*pair_table(doc)),
               Heading(2, f"Ratings ({doc['ratings']['anchor']} = 0)"), Paragraph(NOTES["ratings"]),
               Table(*rating_table(doc))]
    chart = rating_chart(doc)
    if chart is not None:
        blocks.append(Image("tournament-ratings.png", "Bradley–Terry ratings on the Elo scale with 95% bootstrap "
                            "intervals: " + ", ".join(f"{_label(doc, n)} {e:+.0f}" for n, e in
                                                      zip(doc["strategies"], doc["ratings"]["elo"])), chart))
    if doc["ratings"]["note"]:
        blocks.append(Paragraph(f"Ratings {doc['ratings']['note']}."))
    blocks += [Heading(2, "Win share by seat"), Paragraph(NOTES["seats"]), Table(*seat_share_table(doc)),
               Heading(2, "Skill tiers: the first seat's edge apart from skill"), Paragraph(NOTES["tiers"]),
               Table(*tier_table(doc)),
               Image("tournament-tiers.png", "First seat's edge per skill tier with 95% intervals", tier_chart(doc))]
    if doc["tier_differences"]:
        blocks.append(Table(*tier_difference_table(doc)))
    return blocks


def write_report(doc: dict, out: Path) -> Path:
    """``tournament.md`` (+ PNG charts), a self-contained ``tournament.html`` and ``summary.json``;
    the plug-in files named relative to ``out`` where they are beside it, else by file name alone
    (``plugins_beside`` says which; analysis/page.py, ``page_path``)."""
    from analysis.page import placed_list, write_blocks

    if doc.get("plugins"):
        names, beside = placed_list(doc["plugins"], out)
        doc = {**doc, "plugins": names, "plugins_beside": beside}
    return write_blocks(report_blocks(doc), doc, out, stem="tournament")
