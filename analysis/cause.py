"""Card cause (``balance cards --cause``): what each card's *play* is worth to its holder.

Card strength (``analysis.cards``) says how a seat's win share differs when a card is in its
opening hand: an association, which includes everything that comes with the card (what it
displaces from the hand, how the rest of the deal falls).  Cause asks the interventional
question on the same deals: the game is played twice from every deal (common random numbers:
same seed, so same deals and the same chance draws), once as dealt and once with the card
*withheld*: whoever holds it may not play it while another legal move exists
(``Game.withheld_setup``: a mask the play loop applies to the legal moves before any strategy
chooses, so it binds every strategy alike).  The paired difference of the holder's win share,

    worth_c = mean over the seat-games where seat s was dealt c (in its opening hand) of
              share_gs(as dealt) - share_gs(c withheld),

is what being able to play the card is worth to the seat that holds it.  Positive: the card wins
games when played; negative: the holder does better keeping it (a card that takes tricks which
cost points, say).  A card printed more than once counts every holder of a copy, and all its
copies are withheld.

The games are independent, so the interval is clustered by game: with a_g the sum of the
holders' differences and b_g the number of holders in game g, worth = sum a / sum b and

    V = G/(G-1) * sum_g (a_g - worth b_g)^2 / (sum b)^2     (G games; b_g is 0 or 1 for a card printed once)

p is the two-sided z-test of worth = 0, q the Benjamini-Hochberg adjustment over the cards, and a
card is flagged when it is sure (q < 0.05) and its whole interval lies beyond the practical
threshold card_pp (``analysis.verdict``).  Cards are named as the game names them
(``Game.card_names``).
"""
from __future__ import annotations

import math
import time
from pathlib import Path

import numpy as np
import polars as pl

from analysis import stats
from analysis.exact import SHARE_UNITS
from analysis.summary import fixed_width, fmt_p, fmt_pp, games_phrase, variant_info
from analysis.verdict import card_verdict, flag, games_to_settle, judge, thresholds
from simcore.errors import BalanceError

DEFAULT_GAMES = 20_000  # deals per card: every card is played on these deals twice

SCHEMA = {"card": pl.String, "copies": pl.Int64, "games_held": pl.Int64, "games_changed": pl.Int64,
          "delta": pl.Float64, "ci_low": pl.Float64, "ci_high": pl.Float64, "p": pl.Float64, "q": pl.Float64,
          "significant": pl.Boolean, "flagged": pl.Boolean, "judgement": pl.String, "games_to_settle": pl.Int64,
          "in_hand": pl.Float64}


def _shares(frame: pl.DataFrame, players: int) -> np.ndarray:
    """float64[games, players] win shares, a k-way tie exactly 1/k (the file stores float32)."""
    y = np.column_stack([frame[f"share_{s}"].cast(pl.Float64).to_numpy() for s in range(players)])
    return np.round(y * SHARE_UNITS) / SHARE_UNITS


def paired_worth(base: np.ndarray, withheld: np.ndarray, held: np.ndarray,
                 confidence: float = stats.DEFAULT_CONFIDENCE) -> dict:
    """The holder's paired difference (as dealt minus withheld) from win shares float64[games,
    players] of both runs and the copies held uint8[games, players]: worth, its clustered
    interval, p, the seat-games holding the card and the games in which any result changed."""
    holds = held > 0
    diff = base - withheld
    a = (diff * holds).sum(axis=1)
    b = holds.sum(axis=1).astype(np.float64)
    games = base.shape[0]
    changed = int(np.any((diff != 0) & holds.any(axis=1, keepdims=True), axis=1).sum())
    out = {"games_held": int(b.sum()), "games_changed": changed, "delta": None, "ci_low": None, "ci_high": None,
           "p": None}
    if b.sum() == 0 or games < 2:
        return out
    worth = float(a.sum() / b.sum())
    residual = a - worth * b
    se = math.sqrt(games / (games - 1) * float((residual * residual).sum())) / float(b.sum())
    z = stats.z_for(confidence)
    p = 2 * stats.normal_cdf(-abs(worth) / se) if se > 0 else float(worth == 0)
    out.update(delta=worth, ci_low=worth - z * se, ci_high=worth + z * se, p=p)
    return out


def card_cause(game_name: str, players: int = 4, games: int = DEFAULT_GAMES, seed: int = 1,
               strategies: str | None = None, variant_path=None, threads: int | None = None,
               progress: bool = True, cards: list[str] | None = None,
               confidence: float = stats.DEFAULT_CONFIDENCE) -> dict:
    """Every card's worth when played, on the same deals: the JSON-ready document (rows sorted by
    worth, highest first; ``in_hand`` is the card strength of the same deals as dealt)."""
    from analysis.cards import card_strength
    from simcore.driver import run_games, set_threads
    from simcore.progress import Progress
    from simcore.registry import check_seed, get_game
    from simcore.version import __version__

    game = get_game(game_name)
    variant = game.variant(variant_path)
    setup = game.setup(players, variant)
    names = game.card_names(setup)
    if names is None or getattr(game.rules, "R_WITHHELD", None) is None:
        raise BalanceError(f"{game.name} deals no hands of cards, so it has no card cause")
    if games < 2:
        raise BalanceError(f"--games must be at least 2 for card cause, not {games}")
    check_seed(seed)
    wanted = names if not cards else cards
    for name in wanted:
        if name not in names:
            raise BalanceError(f"{game.title} has no card '{name}' (cards: {', '.join(names[:6])}, ...)")
    lineup = game.lineup(strategies, players)
    set_threads(threads)
    started = time.perf_counter()
    with Progress(progress, games * (len(wanted) + 1), f"{game.name} {players}p cause") as advance:
        first = run_games(game, setup, lineup, variant, seed, games, threads=threads, progress=False,
                          keep_frame=True, announce=progress)
        advance(games)
        base = _shares(first.frame, players)
        held = game.opening_hands(setup, seed, first.frame["game"].to_numpy().astype(np.int64))
        strength = {r["card"]: r["delta"] for r in card_strength(first.frame.lazy(), first.meta).collect().to_dicts()}
        printed = game.card_of_bit(setup)
        rows = []
        for name in wanted:
            c = names.index(name)
            frame = run_games(game, game.withheld_setup(setup, name), lineup, variant, seed, games, threads=threads,
                              progress=False, keep_frame=True, announce=False).frame
            row = {"card": name, "copies": printed.count(name),
                   **paired_worth(base, _shares(frame, players), held[:, :, c], confidence), "in_hand": strength[name]}
            rows.append(row)
            advance(games)
    tested = [r for r in rows if r["p"] is not None]
    for r, q in zip(tested, stats.benjamini_hochberg([r["p"] for r in tested])):
        r["q"] = q
    limit = thresholds().card_pp / 100
    for r in rows:
        r.setdefault("q", None)
        r["significant"] = r["q"] is not None and r["q"] < 1 - confidence
        r["flagged"] = flag(r["delta"], (r["ci_low"], r["ci_high"]), r["q"], limit, 1 - confidence)
        if r["delta"] is None:
            r["judgement"], r["games_to_settle"] = None, None
        else:
            interval = (r["ci_low"], r["ci_high"])
            r["judgement"] = judge(r["delta"], interval, limit)
            r["games_to_settle"] = games_to_settle(r["delta"], interval, games, limit)
    table = pl.DataFrame(rows, schema=SCHEMA).sort("delta", descending=True, nulls_last=True)
    labels = [game.strategy_label(n) for n in lineup.names]
    doc = {"game": game.name, "title": game.title, "players": players, "games": games, "seed": seed,
           "strategies": list(lineup.names), "strategy_labels": labels, "variant": variant_info(first.meta),
           "method": "restricted play: the card withheld (not played while another legal move exists), same deals",
           "thresholds": {"card_pp": thresholds().card_pp}, "version": __version__,
           "seconds": round(time.perf_counter() - started, 3), "cards": table.to_dicts()}
    doc["verdict"] = verdict(doc)
    return doc


# --------------------------------------------------------------------------------------------
# presentation
# --------------------------------------------------------------------------------------------

def lineup_phrase(doc: dict) -> str:
    labels = doc["strategy_labels"]
    return f"all {labels[0]}" if len(set(labels)) == 1 else ", ".join(labels)


def verdict(doc: dict) -> dict:
    """At most two sentences: which cards' play is out of line (flagged), by how much, and how
    many games would settle the unsettled ones."""
    from analysis.verdict import among_first, one_player

    limit = doc["thresholds"]["card_pp"]
    players = one_player(doc["strategies"])
    found = card_verdict(
        doc["cards"], limit,
        lambda n, of, shown: (f"Playing {n} of {of} cards is out of line (sure to move its holder's win share by "
                              f"more than ±{limit:g} pp against keeping it back, on the same deals): {shown}."),
        lambda largest: (f"No card's play is out of line: none is sure to move its holder's win share by "
                         f"±{limit:g} pp or more against keeping it back; the largest is {largest}."),
        "No card was dealt in these games, so none could be measured.",
        lambda need: (f": about {need[-1]:,} games per card would settle {'it' if len(need) == 1 else 'all'} "
                      f"(this run has {doc['games']:,})."))
    return {**found, "sentences": among_first(found["sentences"], players), "players": players}


def method_note(doc: dict) -> str:
    level = 95
    tested = sum(r["p"] is not None for r in doc["cards"])
    limit = doc["thresholds"]["card_pp"]
    note = (f"Worth when played: every deal is played twice, as dealt and with the card withheld (whoever holds "
            f"it may not play it while another legal move exists; same seed, so the same deals and chance draws), "
            f"{games_phrase(doc['games'])} each; the change in the win share of the seat dealt the card, as dealt "
            f"minus withheld, in percentage points, averaged over the games it was dealt. {level}% intervals and "
            f"z-test p-values clustered by game; q is the Benjamini–Hochberg adjustment over the {tested} cards. "
            f"A card is flagged only when it is sure (q < 0.05) and its whole interval lies beyond ±{limit:g} pp. "
            f"'in hand' is the card strength of the same deals (balance cards: the change when the card is in "
            f"the opening hand, seat-controlled), for comparison: association, not cause.")
    if any(r["copies"] > 1 for r in doc["cards"]):
        several = ", ".join(r["card"] for r in doc["cards"] if r["copies"] > 1)
        note += f" Cards printed more than once ({several}): every copy is withheld, every holder counted."
    return note


HEADERS = ["card", "copies", "seat-games dealt it", "games changed %", "worth when played pp [95% CI]", "p",
           "q (BH)", "settled?", "flag", "in hand pp"]


def _settled(row: dict) -> str:
    if row["judgement"] == "unsettled":
        need = row["games_to_settle"]
        return f"unsettled (~{need:,} games)" if need else "unsettled"
    return {"within": "under the threshold", "beyond": "beyond the threshold"}.get(row["judgement"], "")


def table_rows(doc: dict) -> list[list[str]]:
    rows = []
    for r in doc["cards"]:
        in_hand = "n/a" if r["in_hand"] is None else f"{100 * r['in_hand']:+.2f}"
        changed = f"{100 * r['games_changed'] / doc['games']:.1f}"
        if r["delta"] is None:
            rows.append([r["card"], str(r["copies"]), f"{r['games_held']:,}", changed, "n/a (never dealt)", "n/a",
                         "n/a", "", "", in_hand])
            continue
        rows.append([r["card"], str(r["copies"]), f"{r['games_held']:,}", changed,
                     fmt_pp(100 * r["delta"], [100 * r["ci_low"], 100 * r["ci_high"]], unit=""), fmt_p(r["p"]),
                     fmt_p(r["q"]), _settled(r), "FLAGGED" if r["flagged"] else "", in_hand])
    return rows


def heading(doc: dict) -> str:
    return (f"Card cause: {doc['title']} ({doc['game']}), {doc['players']} players, {games_phrase(doc['games'])} "
            f"per card, seed {doc['seed']}, {lineup_phrase(doc)}")


def format_text(doc: dict) -> str:
    found = doc["verdict"]
    flagged = sum(r["flagged"] for r in doc["cards"])
    return "\n".join([heading(doc), "", "verdict: " + " ".join(found["sentences"]), f"  ({found['note']})", "",
                      method_note(doc), "", *fixed_width(HEADERS, table_rows(doc)), "",
                      f"{flagged} of {len(doc['cards'])} cards flagged (BH q < 0.05 and the interval beyond "
                      f"±{doc['thresholds']['card_pp']:g} pp); {sum(r['significant'] for r in doc['cards'])} "
                      f"significant; {games_phrase(doc['games'] * (len(doc['cards']) + 1))} in "
                      f"{doc['seconds']:.1f} s"]) + "\n"


def chart(doc: dict) -> bytes:
    from analysis.cards import strength_chart

    table = pl.DataFrame(doc["cards"], schema=SCHEMA)
    meta = {"game": doc["game"], "title": doc["title"], "players": doc["players"],
            "strategies": doc["strategies"]}
    return strength_chart(table, meta, doc["games"], title="Card cause: worth of playing the card to its holder",
                          ylabel="change in the holder's win share,\nas dealt minus withheld (pp)",
                          subtitle=f"{lineup_phrase(doc)} · {games_phrase(doc['games'])} per card · same deals")


def chart_alt(doc: dict) -> str:
    measured = [r for r in doc["cards"] if r["delta"] is not None]
    if not measured:
        return "Card cause: no card could be measured"
    top, bottom = measured[0], measured[-1]
    return (f"Card cause: worth of playing each card to its holder, with 95% intervals, for {len(measured)} cards; "
            f"highest {top['card']} {100 * top['delta']:+.1f} pp, lowest {bottom['card']} {100 * bottom['delta']:+.1f} pp; "
            f"{len(doc['verdict']['flagged'])} flagged")


def write(doc: dict, out: str | Path) -> Path:
    """``cause.md`` (+ the chart PNG), a self-contained ``cause.html`` and ``summary.json``:
    verdict, chart, then the table."""
    from analysis.page import Heading, Image, Items, Paragraph, Table, Verdict, write_blocks

    found = doc["verdict"]
    about = Items([f"game: {doc['title']} ({doc['game']})", f"players: {doc['players']}",
                   "strategies: " + "; ".join(f"seat {s + 1}: {n}" for s, n in enumerate(doc["strategy_labels"])),
                   f"variant: {doc['variant']['name']}", f"seed: {doc['seed']}",
                   f"games: {doc['games']:,} per card, as dealt and with the card withheld",
                   f"version: {doc['version']}"])
    blocks = [Heading(1, f"Card cause: {doc['title']}, {doc['players']} players"),
              Verdict(found["sentences"], found["note"], found["tone"]),
              Image("card-cause.png", chart_alt(doc), chart(doc), lead=True),
              about, Paragraph(method_note(doc)), Table(HEADERS, table_rows(doc))]
    return write_blocks(blocks, doc, out, stem="cause")
