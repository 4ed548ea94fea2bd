"""`balance ladder`: is each of a game's players measurably stronger than the one below it?

A game's strategies module names its rungs (``LADDER``), weakest first: for the card games
random, greedy, heuristic, search and search at a larger budget.  Each rung k >= 1 is measured
by one player of rung k (the *hero*) against a field of rung k-1 in every other seat, once in
each seat on the same deals (game indices 0..deals-1 of the seed), so the seat order cancels
and every seating meets the same cards (common random numbers).

Per deal the hero's win share is the mean over its P seats; the deals are independent, so the
interval is clustered by deal (``analysis.tournament.clustered_rate``).  A hero that is no
stronger than its field wins the fair share 1/P, and each field player wins (1 - hero) / (P-1),
so "the hero's interval lies above the field player's" is "its lower end is above 1/P": that is
what "beats the rung below" means here, tested two-sided at 5% against 1/P.
"""
from __future__ import annotations

import time
from pathlib import Path

import numpy as np

from analysis.summary import SHARE_UNITS, fixed_width, fmt_p, games_phrase, variant_info
from analysis.tournament import check_out_dir, clustered_rate
from analysis.verdict import judge, stated, thresholds
from simcore.errors import BalanceError

DEFAULT_GAMES = 8_000  # per rung: 2,000 deals x 4 seats at 4 players


def rungs_of(game) -> list[str]:
    """The game's ladder, weakest first (its strategies module's ``LADDER``, or the game's own
    ``ladder()`` where its rules decide which players can tell a good move: a rules file's)."""
    own = getattr(game, "ladder", None)
    return list(own() if own is not None else game.strategy_module().LADDER)


def seatings(hero: str, field: str, players: int) -> list[list[str]]:
    """The hero in each seat in turn, the field everywhere else."""
    return [[hero if seat == s else field for seat in range(players)] for s in range(players)]


RUNG_FIRST_BLOCK = 256  # a rung with a time budget: deals in blocks of 256, 512, ... every seating each


def rung_looks(deals: int, block: int) -> list[int]:
    """The deal counts at which a timed rung's blocks end: ``block``, then each block twice the
    last, up to ``deals``; fixed by those two alone."""
    looks, done, size = [], 0, block
    while done < deals:
        done = min(done + size, deals)
        looks.append(done)
        size *= 2
    return looks


def play_rung(game, setup, variant, hero: str, field: str, deals: int, seed: int, threads, advance,
              announce: bool = False, seconds: float | None = None, block: int = RUNG_FIRST_BLOCK,
              stop=None) -> np.ndarray:
    """The hero's win share in each deal, averaged over its seats (float64[deals played]).

    With ``seconds`` the deals are played in doubling blocks (``rung_looks``), every seating on
    each block's deals, until ``deals``, until the time is spent at the end of a block, or until
    ``stop(shares)`` (the per-deal shares so far) says so at the end of a block: whole deals only,
    so the interval clustered by deal stays what it is, and the clock never sees a result (the
    validity of ``stop`` under its repeated looks is the caller's to keep)."""
    import time

    from simcore.driver import compile_here, run_games

    players = setup.players
    lineups = [(seat, game.lineup(names, players)) for seat, names in enumerate(seatings(hero, field, players))]
    compile_here(game, setup, lineups[0][1], seed, announce)  # a first compile is not the rung's time
    started = time.perf_counter()
    blocks, first = [], 0
    for end in (rung_looks(deals, block) if seconds is not None else [deals]):
        n = end - first
        shares = np.zeros(n)
        for seat, lineup in lineups:
            frame = run_games(game, setup, lineup, variant, seed, n, threads=threads, progress=False,
                              keep_frame=True, announce=announce, start=first).frame
            share = frame[f"share_{seat}"].to_numpy().astype(np.float64)
            shares += np.round(share * SHARE_UNITS) / SHARE_UNITS  # a k-way tie is exactly 1/k
            advance(n)
        blocks.append(shares)
        first = end
        if seconds is not None and time.perf_counter() - started >= seconds:
            break
        if stop is not None and end < deals and stop(np.concatenate(blocks) / players):
            break
    return np.concatenate(blocks) / players


def run_ladder(game_name: str, players: int, games: int = DEFAULT_GAMES, seed: int = 1, threads: int | None = None,
               rungs: list[str] | None = None, out: Path | None = None, progress: bool = True) -> dict:
    """Every rung against the one below; the JSON-ready document."""
    from simcore.driver import set_threads
    from simcore.progress import Progress
    from simcore.registry import check_seed, get_game
    from simcore.version import __version__

    game = get_game(game_name)
    variant = game.variant()
    setup = game.setup(players, variant)
    rungs = rungs or rungs_of(game)
    if len(rungs) < 2:
        raise BalanceError("a ladder needs at least two rungs")
    for name in rungs:  # every name (and search budget) is checked before any game is played
        game.lineup([name] * players, players)
    if games < 10 * players:
        raise BalanceError(f"--games must be at least {10 * players} ({10} deals per seat), not {games}")
    check_seed(seed)
    set_threads(threads)
    if out is not None:
        check_out_dir(out)
    deals = -(-games // players)
    fair = 1.0 / players
    steps = []
    started = time.perf_counter()
    with Progress(progress, deals * players * (len(rungs) - 1), f"{game.name} {players}p ladder") as advance:
        for below, hero in zip(rungs, rungs[1:]):
            t0 = time.perf_counter()
            per_deal = play_rung(game, setup, variant, hero, below, deals, seed, threads, advance, announce=progress)
            rate = clustered_rate(per_deal * players, players, fair)
            steps.append({"hero": hero, "field": below, "games": deals * players, "deals": deals,
                          "win_share": rate["rate"], "ci": rate["ci"], "fair_share": fair,
                          "edge_pp": 100 * (rate["rate"] - fair), "p_value": rate["p_value"],
                          "beats_field": rate["ci"][0] > fair,
                          "seconds": round(time.perf_counter() - t0, 3)})
    seconds = time.perf_counter() - started
    limit = thresholds().seat_pp
    for step in steps:
        step["hero_label"], step["field_label"] = game.strategy_label(step["hero"]), game.strategy_label(step["field"])
        interval = [100 * (v - fair) for v in step["ci"]]
        step["judgement"] = judge(step["edge_pp"], interval, limit)
    doc = {"game": game.name, "title": game.title, "players": players, "seed": seed, "rungs": rungs,
           "rung_labels": [game.strategy_label(name) for name in rungs], "thresholds": {"seat_pp": limit},
           "games_per_rung": deals * players, "deals": f"game indices 0..{deals - 1} of seed {seed}, every seating",
           "variant": variant_info({"variant": variant.to_dict()}), "version": __version__,
           "steps": steps, "seconds": round(seconds, 3)}
    doc["verdict"] = verdict(doc)
    return doc


def verdict(doc: dict) -> list[str]:
    """At most three sentences: does every rung beat the one below, and by how much at the top?"""
    fair = 100 * doc["steps"][0]["fair_share"]
    failed = [s for s in doc["steps"] if not s["beats_field"]]
    if not failed:
        top = doc["steps"][-1]
        first = f"Every rung beats the one below: each player's 95% interval of win share lies above the fair {fair:.1f}%."
        out = [first, f"At the top, {top['hero']} wins {_pct(top)} against a field of {top['field']}."]
        small = [s for s in doc["steps"] if s.get("judgement") == "within"]
        if small:
            limit = doc.get("thresholds", {}).get("seat_pp", thresholds().seat_pp)
            out.append(f"The step{'s' if len(small) > 1 else ''} from "
                       + ", ".join(f"{s['field']} to {s['hero']} ({s['edge_pp']:+.1f} pp)" for s in small)
                       + f" {'is' if len(small) == 1 else 'are'} real but under the {limit:g} pp that matters in play.")
        return out
    names = ", ".join(f"{s['hero']} over {s['field']} ({_pct(s)})" for s in failed)
    return [f"Not every rung is measurably stronger than the one below: {names} "
            f"{'is' if len(failed) == 1 else 'are'} not above the fair {fair:.1f}% with 95% confidence.",
            "More games (--games) narrow the intervals; a rung that stays level is no stronger."]


def _pct(step: dict) -> str:
    low, high = step["ci"]
    return f"{100 * step['win_share']:.1f}% [{100 * low:.1f}, {100 * high:.1f}]"


def table(doc: dict) -> tuple[list[str], list[list[str]]]:
    headers = ["rung", "player", "against a field of", "games", "win share % [95% CI]", "fair %", "edge pp [95% CI]",
               "p", "beats the rung below"]
    rows = []
    for k, s in enumerate(doc["steps"], start=1):
        low, high = s["ci"]
        fair = s["fair_share"]
        rows.append([str(k), s.get("hero_label", s["hero"]), s.get("field_label", s["field"]), f"{s['games']:,}",
                     f"{100 * s['win_share']:.2f} [{100 * low:.2f}, {100 * high:.2f}]", f"{100 * fair:.1f}",
                     f"{s['edge_pp']:+.2f} [{100 * (low - fair):+.2f}, {100 * (high - fair):+.2f}]", fmt_p(s["p_value"]),
                     "yes" if s["beats_field"] else "NO"])
    return headers, rows


def format_text(doc: dict) -> str:
    lines = [f"{doc['title']} ({doc['game']}): skill ladder, {doc['players']} players",
             f"variant {doc['variant']['name']} · seed {doc['seed']} · version {doc['version']}", ""]
    lines += doc["verdict"] + [""]
    lines += fixed_width(*table(doc))
    lines += ["", f"each rung: one player against a field of the rung below, once in each seat on the same "
                  f"{doc['steps'][0]['deals']:,} deals; interval clustered by deal",
              f"{games_phrase(sum(s['games'] for s in doc['steps']))} in {doc['seconds']:.1f} s"]
    return "\n".join(lines) + "\n"


def chart(doc: dict) -> bytes:
    from matplotlib.figure import Figure

    from analysis.charts import _png

    steps = doc["steps"]
    figure = Figure(figsize=(8.0, 1.9 + 0.62 * len(steps)), layout="constrained")
    axes = figure.add_subplot()
    figure.suptitle(f"Skill ladder: {doc['title']}, {doc['players']} players", fontsize=13, fontweight="bold")
    axes.set_title(f"one player of each rung against a field of the rung below · {doc['games_per_rung']:,} games "
                   f"per rung · seed {doc['seed']}", fontsize=8, color="0.3")
    y = np.arange(len(steps))[::-1]
    values = np.array([100 * s["win_share"] for s in steps])
    error = np.array([[v - 100 * s["ci"][0], 100 * s["ci"][1] - v] for v, s in zip(values, steps)]).T
    colours = ["#4c78a8" if s["beats_field"] else "#e45756" for s in steps]
    axes.barh(y, values, color=colours, height=0.6, xerr=error, capsize=4, ecolor="black")
    fair = 100 * steps[0]["fair_share"]
    axes.axvline(fair, color="0.25", linestyle="--", linewidth=1.2, label=f"fair share {fair:.1f}%")
    for yy, v, s in zip(y, values, steps):
        axes.annotate(f"{v:.1f}%", (100 * s["ci"][1], yy), xytext=(4, 0), textcoords="offset points",
                      va="center", fontsize=9)
    axes.set_yticks(y, [f"{s['hero']}\nvs {s['field']}" for s in steps])
    axes.set_xlabel("win share of the one stronger player (%), 95% interval")
    axes.set_ylabel("rung (player vs the field below)")
    axes.set_xlim(0, max(fair * 2, float((values + error[1]).max()) * 1.15))
    figure.legend(loc="outside lower center", fontsize=8, frameon=False)
    axes.grid(axis="x", alpha=0.3)
    return _png(figure)


def write_report(doc: dict, out: Path) -> Path:
    """``ladder.md`` (+ PNG), a self-contained ``ladder.html`` and ``summary.json``: verdict, chart, table."""
    from analysis.page import Heading, Image, Items, Paragraph, Table, Verdict, write_blocks

    colour = "good" if all(s["beats_field"] for s in doc["steps"]) else "warn"
    shares = ", ".join(f"{s['hero']} {100 * s['win_share']:.1f}%" for s in doc["steps"])
    labelled = [f"{name}: {label}" for name, label in zip(doc["rungs"], doc.get("rung_labels", doc["rungs"]))
                if label != name]
    blocks = [Heading(1, f"Skill ladder: {doc['title']}, {doc['players']} players"),
              Verdict(doc["verdict"][:3], "A rung beats the one below when its 95% interval lies above the fair share. "
                      + stated("seat_pp"), colour),
              Image("ladder.png", f"Win share of each rung's player against the rung below, with 95% intervals and "
                                  f"the fair {100 / doc['players']:.1f}%: {shares}", chart(doc), lead=True),
              Table(*table(doc)),
              Paragraph(f"Each rung: one player of that rung against a field of the rung below, once in each seat on "
                        f"the same {doc['steps'][0]['deals']:,} deals ({doc['deals']}); the interval is clustered by "
                        f"deal. A rung beats the one below when its lower 95% bound is above the fair share 1/"
                        f"{doc['players']}. Variant {doc['variant']['name']}, version {doc['version']}.")]
    if labelled:
        blocks.append(Items(["strategies: " + "; ".join(labelled)]))
    return write_blocks(blocks, doc, out, stem="ladder")
