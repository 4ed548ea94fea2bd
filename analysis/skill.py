"""Skill versus luck: how much a better player wins, and whether the first seat's edge grows or
shrinks with skill.

A game's strategies module names its skill tiers (``SKILL_TIERS``, weakest first): random,
heuristic and search for the card games; the skill curve adds the top of the game's ladder where
that is a larger search (``search:d=96``, four times the default budget: ``curve_tiers``), and
ALEA's curve is its own ladder (random, cautious, best-response).  Two kinds of figure, each with
its interval:

- **gaps**: one player of a tier among players of the tier below, once in each seat on the same
  deals (``analysis.ladder.play_rung``): its win share against the fair share 1/N.  A share far
  above 1/N means skill decides games; near 1/N, luck does.
- **first-seat edge per tier**: every seat the same tier, seat 1's win share minus 1/N (on
  duplicate deals, the interval clustered by deal; ALEA's, a Wilson interval on seat 1's share).
  Comparing tiers shows whether the rules or the players make
  the seat advantage.

Search tiers are slow, so they play ``search_games``; the others ``games``.  Each figure states
its own count.

**Has the edge stopped moving with skill?** (``convergence``) The two strongest tiers are
compared on their common games, which are the same deals: the paired difference of seat 1's win
share, with its 95% interval.  Converged when that interval lies wholly inside ±T: a stronger
player moves the edge by less than the practical threshold, so better players would not change
the verdict.  Moving when it lies wholly beyond; unclear otherwise.  The verdict and the book's
grid say which ("judge with care" unless converged).

A tier's first-seat edge is played until it is settled, not for a fixed count: the run looks at
1/16, 1/8, 1/4, 1/2 and all of its budget (``SETTLE_LOOKS``) and stops at the first look where
the edge's interval lies wholly inside the fair band (±T) or wholly beyond it
(``analysis.verdict.judge``).  Each look judges with a 99% interval, 0.05 / 5 looks
(Bonferroni), so the chance that any look calls a tier settled when it is not stays under 5%
whatever the looks see; the interval stored and shown is that 99% one.  A tier still straddling
±T when its budget runs out is unsettled and says so.

A tier may also be given a budget in time (``seconds``, ``balance book --tier-seconds``): then its
game budget is a cap, its looks come at 2,000 games and every doubling up to the cap
(``settle_looks(cap, first=TIMED_FIRST_LOOK)``), each judged at 1 - 0.05/K for its K looks, and it
stops at the first look that settles it, or at the first look after its seconds are spent.  The
looks are fixed by the cap and the tier alone and the clock only ends the run at a look, so the chance of a
wrong call stays under 5% however long the tier plays; a slow tier (search) takes the time it
needs and a fast one stops as soon as it settles.  The game count then depends on the machine's
speed: the page says how many games each tier played, and they are the seed's first N games of
its design (``balance simulate -n N`` reproduces them; duplicate deals ``simcore.run(..., games=N,
duplicate=True)``).
Every tier plays the same deals (game k's deal is drawn from game k's own stream, whoever plays),
so the tiers are compared on common random numbers.

**Duplicate deals** (analysis/duplicate.py): in every card game a tier plays each deal once per
turn of the table, seat 1 holding every hand of the deal once, so the luck of the hands leaves
its edge; each look comes at whole deals and the interval is clustered by deal, at the same
1 - 0.05/K.  Only a look at ``MIN_DEALS`` deals or more can settle a duplicate tier (the clustered
interval needs deals), so K counts those looks, and the tier's cap is at least ``MIN_DEALS``
deals.  Under a time budget the looks before that stay (a slow search tier's first look comes
after 16 deals of ``search:d=96``, seconds rather than the minutes 100 deals take): there only
the clock can stop the tier, unsettled.  ALEA, whose dice cannot turn, plays
independent games.  A search tier thinks at every decision, so its timed looks start sooner
(``SEARCH_FIRST_LOOK`` games, divided by its cost: ``search:d=96`` 64), and the clock starts
once its play loop is compiled: a first compile is not spent from its time.

**A tier that cannot settle stops** (``settle_chance``): at each look, if the estimate so far
held, how likely is it that the last look the tier can still reach (its cap; with a time budget,
the look its speed so far reaches when the time is spent) settles it?  Under ``FUTILITY`` (5%)
the tier stops there, unsettled, and says about how many games would settle it
(``analysis.verdict.games_to_settle``).  Stopping for futility never calls anything settled, so
the chance of a wrong call stays what the looks give; it only spends the time on tiers that can
use it (an edge 0.3 pp from the threshold needs hundreds of thousands of games, which no look
within the budget would give).
"""
from __future__ import annotations

import numpy as np

from analysis import stats
from analysis.duplicate import MIN_DEALS
from analysis.page import Heading, Image, Paragraph, Table
from analysis.summary import SHARE_UNITS, fmt_p
from analysis.verdict import CONVERGED, MOVING, UNCLEAR, convergence_said, judge, stated, thresholds

DEFAULT_GAMES = 100_000
DEFAULT_SEARCH_GAMES = 4_000
SETTLE_LOOKS = 5  # looks at 1/16, 1/8, 1/4, 1/2 and all of a tier's budget
SETTLE_CONFIDENCE = 1 - 0.05 / SETTLE_LOOKS  # each look's interval: 99%, Bonferroni over the looks
TIMED_FIRST_LOOK = 2_000  # a tier with a time budget: its first look, then every doubling up to its cap
SEARCH_FIRST_LOOK = 256  # a timed search tier's first look, divided by its cost (search:d=96: 64)
RUNG_SEARCH_FIRST_BLOCK = 64  # a timed rung's first block of deals for a search hero, divided by its cost
FUTILITY = 0.05  # a tier whose chance of settling by its last reachable look falls under this stops


def settle_looks(budget: int, first: int | None = None) -> list[int]:
    """The game counts at which a tier's first-seat edge is judged: ``budget`` / 16, / 8, / 4,
    / 2 and ``budget`` (rounded up, no look under one game, none twice); with ``first``, ``first``
    and every doubling of it below ``budget``, then ``budget``.  They depend on the budget alone,
    so a tier stops after the same games whatever the threads or chunks."""
    if first is not None:
        looks, n = [], max(1, first)
        while n < budget:
            looks.append(n)
            n *= 2
        return looks + [budget]
    looks = [max(1, -(-budget // 2 ** k)) for k in range(SETTLE_LOOKS - 1, 0, -1)] + [budget]
    return sorted(set(looks))


def look_confidence(looks: list[int]) -> float:
    """Each look's interval level: 0.05 spread over the looks (Bonferroni)."""
    return 1 - 0.05 / len(looks)


def timed_first_look(game, name: str) -> int:
    """A tier's first look under a time budget: ``TIMED_FIRST_LOOK`` games; a search tier's
    ``SEARCH_FIRST_LOOK`` divided by its cost (``search_cost``), so that a slow tier's first
    look, the soonest it can stop, comes after seconds rather than minutes."""
    if not _is_search(name):
        return TIMED_FIRST_LOOK
    return max(50, round(SEARCH_FIRST_LOOK / search_cost(game, name)))


def rung_first_block(game, hero: str) -> int:
    """A timed rung's first block of deals (``analysis.ladder.play_rung``): a search hero thinks
    at every decision, so its blocks start smaller, the clock being able to end a rung only at
    the end of a block."""
    from analysis.ladder import RUNG_FIRST_BLOCK

    if not _is_search(hero):
        return RUNG_FIRST_BLOCK
    return max(8, round(RUNG_SEARCH_FIRST_BLOCK / search_cost(game, hero)))


def settle_chance(value: float, interval, games: int, final: int, limit: float, confidence: float) -> float:
    """The chance that the look at ``final`` games settles a tier whose edge is ``value`` pp
    with ``interval`` (two-sided ``confidence``) after ``games``, as predicted from the games so
    far (Bayesian predictive power, flat prior): the final estimate is normal about ``value``,
    with the spread both of the remaining games and of what the true edge may still be, and the
    final interval's half-width is today's shrunk by sqrt(games / final).  Settled: the final
    interval wholly inside ±``limit`` or wholly beyond it."""
    low, high = interval
    half = (high - low) / 2
    if final <= games or half <= 0:
        return 0.0 if judge(value, interval, limit) == "unsettled" else 1.0
    final_half = half * np.sqrt(games / final)
    # per game sd s = half * sqrt(games) / z; the final mean's predictive variance is
    # s^2 (final - games) / (final * games): the remaining games' noise and the true edge's
    spread = half / stats.z_for(confidence) * np.sqrt((final - games) / final)

    def below(x: float) -> float:  # P(final estimate < x)
        return stats.normal_cdf((x - value) / spread)

    inside = max(0.0, below(limit - final_half) - below(-limit + final_half))
    beyond = (1 - below(limit + final_half)) + below(-limit - final_half)
    return inside + beyond


def edge_interval(wins: float, games: int, players: int, confidence: float = SETTLE_CONFIDENCE):
    """Seat 1's edge over 1/N in pp and its Wilson interval at ``confidence``."""
    fair = 1.0 / players
    low, high = stats.wilson_interval(wins, games, confidence)
    return 100 * (wins / games - fair), [100 * (low - fair), 100 * (high - fair)]


def tier_edge(game, setup, variant, name: str, seed: int, budget: int, threads, announce,
              frames: dict | None = None, seconds: float | None = None, advance=None,
              duplicate: bool | None = None) -> dict:
    """One tier's first-seat edge, every seat ``name``, played until settled (``settle_looks``),
    or with ``seconds`` until settled or until the first look after that time (``budget`` is
    then a cap); either way it stops at a look from which it could no longer settle
    (``settle_chance`` under ``FUTILITY``).  ``frames`` (a dict) keeps the tier's games and
    metadata under its name; ``advance(n)`` (a progress bar's) hears of the games at each look.

    ``duplicate`` (default: wherever the game's deal can turn, ``game.duplicate_deals``) plays
    duplicate deals (analysis/duplicate.py): every look at whole deals and at least ``MIN_DEALS``
    of them, the interval clustered by deal; otherwise games 0..N-1 and a Wilson interval."""
    import time

    import polars as pl

    from analysis import duplicate as dup
    from analysis.verdict import games_to_settle
    from simcore.driver import compile_here, run_games

    players = setup.players
    duplicate = game.duplicate_deals if duplicate is None else duplicate
    limit = thresholds().seat_pp
    looks = settle_looks(budget, timed_first_look(game, name) if seconds is not None else None)
    floor = 0  # the fewest games a look can settle at: on duplicate deals, MIN_DEALS whole deals
    if duplicate:
        floor = dup.MIN_DEALS * players
        budget = dup.whole_deals(max(budget, floor), players)  # a tier that could never settle has no use
        # a timed tier keeps its looks under the floor, where only its clock can stop it (a slow
        # search tier's first look comes after seconds, not after 100 deals); an untimed one
        # looks first at the floor
        looks = sorted({dup.whole_deals(look if seconds is not None else max(look, floor), players)
                        for look in looks if look < budget} | {budget})
    # a look under the floor never settles the tier, so it spends none of the 5%: the Bonferroni
    # is over the looks that can settle
    confidence = look_confidence([look for look in looks if look >= floor])
    lineup = game.lineup([name] * players, players)
    compile_here(game, setup, lineup, seed, announce)  # a first compile is not the tier's time
    started = time.perf_counter()
    first = dup.start_of(game, duplicate)

    def edge(shares: np.ndarray):
        if duplicate:
            return dup.seat_edge(shares, players, confidence)
        wins = float(np.round(shares * SHARE_UNITS).sum()) / SHARE_UNITS
        return edge_interval(wins, shares.size, players, confidence)

    def last_reachable(games: int) -> int:
        """The last look this tier can still reach: its cap, or with a time budget the first look
        at or after the games its speed so far would play in the time left."""
        if seconds is None:
            return looks[-1]
        spent = time.perf_counter() - started
        reach = games + games / max(spent, 1e-9) * max(seconds - spent, 0.0)
        return next((look for look in looks if look >= reach), looks[-1])

    parts, meta, done, stopped = [], None, 0, "games"
    for look in looks:  # each look's games: rows done..look-1 of the tier's run, as one run would play them
        result = run_games(game, setup, lineup, variant, seed, look - done, threads=threads, progress=False,
                           keep_frame=True, announce=announce, start=first + done)
        meta = meta or result.meta
        parts.append(result.frame)
        if advance is not None:
            advance(look - done)
        done = look
        shares = np.concatenate([part["share_0"].to_numpy().astype(np.float64) for part in parts])
        value, interval = edge(shares)
        if look >= floor and judge(value, interval, limit) != "unsettled":
            stopped = "settled"
            break
        if seconds is not None and time.perf_counter() - started >= seconds:
            stopped = "time"
            break
        if floor <= look < looks[-1] and settle_chance(value, interval, look, last_reachable(look), limit,
                                                       confidence) < FUTILITY:
            stopped = "futile"
            break
    frame = pl.concat(parts) if len(parts) > 1 else parts[0]
    played = frame.height
    meta = {**meta, "games": played, "design": "duplicate" if duplicate else "independent"}
    if frames is not None:
        frames[name] = (frame, meta)
    entry = {"tier": name, "games": played, "budget": budget, "edge_pp": value, "ci_pp": interval,
             "confidence": confidence, "looks": looks, "settled": stopped == "settled",
             "design": meta["design"]}
    if duplicate:
        entry["deals"] = played // players
    if not entry["settled"]:
        entry["games_to_settle"] = games_to_settle(value, interval, played, limit)
    if seconds is not None or stopped == "futile":
        entry["stopped"] = stopped
    if seconds is not None:
        entry.update(seconds_budget=seconds, seconds=round(time.perf_counter() - started, 1))
    return entry


def tiers_of(game) -> list[str]:
    """The game's skill tiers (``SKILL_TIERS``), weakest first: its strongest everyday player last."""
    return list(getattr(game.strategy_module(), "SKILL_TIERS", ()))


def _is_search(name: str) -> bool:
    return name.partition(":")[0] == "search"


def curve_tiers(game) -> list[str]:
    """The skill curve's tiers: ``tiers_of`` and, where the game's ladder ends in a larger search
    than the tiers' own (``search:d=96`` after ``search``), that search too, so the curve shows
    whether a still stronger player would move the edge.  ALEA's ladder is its tiers."""
    tiers = tiers_of(game)
    ladder = list(getattr(game.strategy_module(), "LADDER", ()))
    top = ladder[-1] if ladder else None
    if tiers and top and top not in tiers and _is_search(top) and _is_search(tiers[-1]):
        tiers.append(top)
    return tiers


def search_cost(game, tier: str) -> float:
    """How many times the simulations per decision of the game's plain ``search`` a search tier
    makes (``search:d=96``: 4); 1 for anything else."""
    module = game.strategy_module()
    if not _is_search(tier) or not hasattr(module, "P_DETERMINIZATIONS"):
        return 1.0

    def simulations(name: str) -> float:
        base, _, argument = name.partition(":")
        row = module.default_params(base, argument or None)
        return float(row[module.P_DETERMINIZATIONS] * max(row[getattr(module, "P_PLAYOUTS", 0)], 1.0))

    return max(1.0, simulations(tier) / simulations("search"))


def convergence(edges: list[dict], frames: dict, players: int) -> dict | None:
    """Whether the first seat's edge has stopped moving with skill: the edge of the two strongest
    tiers compared on their common games (the same deals: the first n games of the seed's design),
    the paired difference of seat 1's win share with its 95% interval (clustered by deal on
    duplicate deals).  Converged when that interval lies
    wholly inside ±T (a stronger player moves the edge by less than the practical threshold),
    moving when it lies wholly beyond, unclear otherwise (more games at those tiers would tell)."""
    if len(edges) < 2:
        return None
    from analysis.verdict import thresholds

    lower, upper = edges[-2], edges[-1]
    n = min(lower["games"], upper["games"])
    a = frames[lower["tier"]][0]["share_0"].head(n).to_numpy().astype(np.float64)
    b = frames[upper["tier"]][0]["share_0"].head(n).to_numpy().astype(np.float64)
    difference = b - a
    if lower.get("design") == "duplicate":  # whole deals, each deal one observation (clustered by deal)
        difference = difference.reshape(-1, players).mean(axis=1)
    mean = float(difference.mean())
    half = 1.959964 * float(difference.std(ddof=1)) / np.sqrt(difference.size) if difference.size > 1 else float("inf")
    ci = [100 * (mean - half), 100 * (mean + half)]
    limit = thresholds().seat_pp
    state = (CONVERGED if -limit < ci[0] and ci[1] < limit else
             MOVING if ci[0] >= limit or ci[1] <= -limit else UNCLEAR)
    return {"state": state, "tiers": [lower["tier"], upper["tier"]], "games": n,
            "difference_pp": 100 * mean, "ci_pp": ci, "threshold_pp": limit}


def skill_profile(game, setup, variant, seed: int = 1, games: int = DEFAULT_GAMES,
                  search_games: int = DEFAULT_SEARCH_GAMES, threads: int | None = None, progress: bool = False,
                  frames: dict | None = None, tier_seconds: float | None = None) -> dict:
    """Gaps between consecutive tiers and each tier's first-seat edge (JSON-ready); ``frames`` (a
    dict) receives each tier's games and metadata (the book's card section per tier);
    ``tier_seconds``: each tier's edge plays until settled or that long (``tier_edge``), its game
    budget a cap, and each gap until its interval leaves the fair share or that long."""
    from analysis.ladder import play_rung, rung_looks
    from analysis.tournament import clustered_rate
    from simcore.progress import Progress

    tiers = curve_tiers(game)
    players = setup.players
    fair = 1.0 / players
    frames = {} if frames is None else frames  # the two strongest tiers' games decide convergence
    # a larger search plays the games the plain search's compute buys (search:d=96: a quarter)
    count = {name: max(players, round(search_games / search_cost(game, name))) if _is_search(name) else games
             for name in tiers}
    deals = {name: -(-count[name] // players) for name in tiers}
    total = sum(deals[hero] * players for hero in tiers[1:]) + sum(count.values())
    gaps, edges = [], []
    with Progress(progress, total, f"{game.name} {players}p skill") as advance:
        for below, hero in zip(tiers, tiers[1:]):
            block = rung_first_block(game, hero)
            # timed, a rung also stops at the end of a block where the hero's interval, at 1 - 0.05/K
            # for its K blocks, leaves the fair share: the gap is then settled either way
            confidence = (stats.DEFAULT_CONFIDENCE if tier_seconds is None
                          else look_confidence(rung_looks(deals[hero], block)))

            def gap_settled(shares: np.ndarray) -> bool:
                low, high = clustered_rate(shares * players, players, fair, confidence)["ci"]
                return low > fair or high < fair

            per_deal = play_rung(game, setup, variant, hero, below, deals[hero], seed, threads, advance,
                                 announce=progress, seconds=tier_seconds, block=block,
                                 stop=gap_settled if tier_seconds is not None else None)
            advance((deals[hero] - len(per_deal)) * players)  # a rung that stopped early leaves the bar
            rate = clustered_rate(per_deal * players, players, fair, confidence)
            gaps.append({"hero": hero, "field": below, "games": len(per_deal) * players, "win_share": rate["rate"],
                         "ci": rate["ci"], "fair_share": fair, "p_value": rate["p_value"], "confidence": confidence})
        for name in tiers:
            edges.append(tier_edge(game, setup, variant, name, seed, count[name], threads, progress, frames,
                                   tier_seconds, advance))
            advance(count[name] - edges[-1]["games"])  # a tier that stopped early leaves the bar sooner
    profile = {"tiers": tiers, "labels": {name: game.strategy_label(name) for name in tiers}, "players": players,
               "seed": seed, "gaps": gaps, "first_seat_edge": edges,
               "convergence": convergence(edges, frames, players),
               "larger_search": tiers[-1] if len(tiers) > len(tiers_of(game)) else None}
    profile["verdict"] = verdict(profile)
    return profile


def _share(entry: dict) -> str:
    return f"{100 * entry['win_share']:.1f}% [{100 * entry['ci'][0]:.1f}, {100 * entry['ci'][1]:.1f}]"


def _edge(entry: dict) -> str:
    low, high = entry["ci_pp"]
    return f"{entry['edge_pp']:+.1f} pp [{low:+.1f}, {high:+.1f}]"


def _level(edges: list[dict]) -> str:
    """The confidence of the tiers' edge intervals, as a page names it (99%: settled by looks)."""
    levels = {round(100 * e.get("confidence", 0.95), 2) for e in edges}
    return "/".join(f"{level:g}%" for level in sorted(levels))


def _settled(entry: dict) -> str:
    if entry.get("settled", True):
        return "yes" if entry["games"] == entry.get("budget", entry["games"]) else "yes, early"
    need = entry.get("games_to_settle")
    would = f"; about {need:,} games would settle it" if need else "; it sits on the threshold"
    if entry.get("stopped") == "futile":
        return f"no: stopped, its budget could not settle it{would}"
    if entry.get("stopped") == "time":
        return f"no: {entry['seconds_budget']:g} s spent" + (would if "games_to_settle" in entry else "")
    return "no: budget spent" + (would if "games_to_settle" in entry else "")


def verdict(profile: dict) -> list[str]:
    """Two sentences: how much skill wins, and what skill does to the first seat's edge."""
    fair = 100 / profile["players"]
    gaps = "; ".join(f"one {g['hero']} player among {g['field']} players wins {_share(g)}" for g in profile["gaps"])
    # whether skill matters is the everyday tiers' question; the larger search's gap is the curve's
    everyday = [g for g in profile["gaps"] if g["hero"] != profile.get("larger_search")]
    first = f"Skill matters: {gaps} (fair share {fair:.1f}%)." if all(
        g["ci"][0] > g["fair_share"] for g in everyday) else f"Skill is hard to see: {gaps} (fair share {fair:.1f}%)."
    edges = profile["first_seat_edge"]
    low, high = edges[0], edges[-1]
    change = high["edge_pp"] - low["edge_pp"]
    limit = thresholds().seat_pp
    trend = ("about the same" if abs(change) < limit else
             "larger" if abs(high["edge_pp"]) > abs(low["edge_pp"]) else "smaller")
    listed = ", ".join(f"{_edge(e)} with {e['tier']} players" for e in edges[:-1])
    second = (f"The first seat's edge is {listed} and {_edge(high)} with {high['tier']} players: "
              f"{trend} with skill from the weakest to the strongest tier (changes under {limit:g} pp count "
              f"as the same).")
    said = convergence_said(profile.get("convergence"))
    return [first, second] + ([said] if said else [])


def chart(profile: dict, title: str) -> bytes:
    from matplotlib.figure import Figure

    from analysis.charts import _png

    edges = profile["first_seat_edge"]
    figure = Figure(figsize=(8.0, 1.8 + 0.55 * len(edges)), layout="constrained")
    axes = figure.add_subplot()
    figure.suptitle("First seat's edge by skill tier", fontsize=13, fontweight="bold")
    axes.set_title(f"{title} · {profile['players']} players · every seat the same tier · seed {profile['seed']}",
                   fontsize=8, color="0.3")
    y = np.arange(len(edges))[::-1]
    values = np.array([e["edge_pp"] for e in edges])
    error = np.array([[v - e["ci_pp"][0], e["ci_pp"][1] - v] for v, e in zip(values, edges)]).T
    axes.errorbar(values, y, xerr=error, fmt="o", color="#4c78a8", capsize=4)
    axes.axvline(0, color="0.4", linewidth=1)
    limit = thresholds().seat_pp
    axes.axvspan(-limit, limit, color="#54a24b", alpha=0.12, label=f"fair (within ±{limit:g} pp)")
    axes.set_yticks(y, [f"all {e['tier']}\n({e['games']:,} games{'' if e.get('settled', True) else ', unsettled'})"
                        for e in edges])
    axes.set_xlabel(f"seat 1 win share − 1/{profile['players']} (percentage points), {_level(edges)} interval")
    axes.set_ylabel("skill tier (every seat)")
    figure.legend(loc="outside lower center", fontsize=8, frameon=False)
    axes.margins(x=0.15)
    axes.grid(axis="x", alpha=0.3)
    return _png(figure)


def tables(profile: dict) -> list[Table]:
    levels = sorted({round(100 * g.get("confidence", 0.95), 2) for g in profile["gaps"]})
    gaps = Table(["player", "among", "games", f"win share % [{'/'.join(f'{v:g}%' for v in levels)} CI]", "fair %", "p"],
                 [[g["hero"], g["field"], f"{g['games']:,}",
                   f"{100 * g['win_share']:.2f} [{100 * g['ci'][0]:.2f}, {100 * g['ci'][1]:.2f}]",
                   f"{100 * g['fair_share']:.1f}", fmt_p(g["p_value"])] for g in profile["gaps"]])
    edges = profile["first_seat_edge"]
    edges = Table(["every seat", "games (budget)", f"first-seat edge pp [{_level(edges)} CI]", "settled"],
                  [[e["tier"], f"{e['games']:,} ({e.get('budget', e['games']):,})", _edge(e),
                    _settled(e)] for e in edges])
    return [gaps, edges]


def blocks(profile: dict, title: str, prefix: str = "", level: int = 2) -> list:
    """The "Skill and luck" section of a report or book page: verdict, chart, tables."""
    from analysis.page import Verdict

    labels = profile.get("labels", {})
    tiers = [f"{name}: {labels[name]}" for name in profile["tiers"] if labels.get(name, name) != name]
    return [Heading(level, "Skill and luck"),
            Verdict(profile["verdict"][:3], stated("seat_pp") + (" Tiers: " + "; ".join(tiers) + "." if tiers else ""),
                    "info", "Skill"),
            Image(f"{prefix}skill-first-seat.png", "First seat's edge by skill tier with "
                  f"{_level(profile['first_seat_edge'])} intervals: " + "; ".join(
                      f"{e['tier']} {_edge(e)}" for e in profile["first_seat_edge"]),
                  chart(profile, title)),
            *tables(profile),
            Paragraph("Gaps: one player of a tier among players of the tier below, once in each seat on the same "
                      "deals, interval clustered by deal" + (
                          "; with a time budget each gap plays in doubling blocks of deals and stops at the end of "
                          "the first block where its interval (1 - 0.05/K for its K blocks) leaves the fair share, "
                          "or where its time is spent" if any("seconds_budget" in e for e in profile["first_seat_edge"])
                          else "") + ". First-seat edge: every seat the same tier, seat 1's win "
                      "share minus the fair share, played until its interval lies wholly inside or wholly beyond "
                      f"±{thresholds().seat_pp:g} pp (settled) or its budget runs out: " + _looks_said(profile)
                      + " Every tier plays the same deals. Search tiers have smaller budgets (they think at every "
                      "decision); each row says how many games it played.")]


def _looks_said(profile: dict) -> str:
    """How the page's tiers were judged as they played, in words."""
    edges = profile["first_seat_edge"]
    timed = [e for e in edges if "seconds_budget" in e]
    futile = (f" A tier stops sooner, unsettled, at a look from which it had under a {FUTILITY:.0%} chance of "
              "settling by the last look it could still reach (if its estimate so far held); that never calls a "
              "tier settled, and its row says about how many games would settle it.")
    duplicate = any(e.get("design") == "duplicate" for e in edges)
    interval = "an interval clustered by deal" if duplicate else "a Wilson interval"
    interval_99 = "a 99% interval clustered by deal" if duplicate else "a 99% Wilson interval"
    design = (" The tiers play duplicate deals: each deal once per turn of the table, seat 1 holding every hand "
              "of it once, so the luck of the hands leaves the edge (its looks come at whole deals)."
              if duplicate else "")
    if not timed:
        return (f"it is judged at 1/16, 1/8, 1/4, 1/2 and all of the budget, each time with {interval_99} "
                "(0.05 over the five looks, Bonferroni), so stopping early keeps the chance of a wrong call under "
                "5%." + futile + design)
    first = sorted({e["looks"][0] for e in timed})
    return (f"each tier had {timed[0]['seconds_budget']:g} s and a game cap; it is judged at its first look ("
            + " or ".join(f"{n:,}" for n in first) + " games: a search tier, which thinks at every decision, "
            f"looks sooner) and every doubling up to its cap, each time with {interval} at 1 - 0.05/K for "
            f"the K looks that can settle it ({_level(edges)}, Bonferroni"
            + (f"; on duplicate deals only a look at {MIN_DEALS} deals or more can" if duplicate else "")
            + "), and stops at the first look that settles it or the first "
            "after its time is spent, so stopping early or for time keeps the chance of a wrong call under 5%."
            + futile + design + " The game counts depend on this machine's speed; a tier's N games are the seed's "
            "first N" + (" games of duplicate deals (simcore.run(..., duplicate=True) plays them)" if duplicate
                         else ", the rows any run of that seed plays") + ".")
