"""Verdicts: the few plain sentences that open every page, judged against practical thresholds.

A designer asks "is it fair? which card or seat is out of line? did the change help, and by how
much?".  Statistics alone cannot answer: at 200,000 games every card is "significant".  So every
figure that a verdict rests on is judged twice, with its 95% interval (lo, hi) and a practical
threshold T (the same unit):

- **within**: the whole interval lies inside (-T, +T): the effect is too small to matter, and
  that is settled;
- **beyond**: the whole interval lies at or past +T (or -T): out of line, and that is settled;
- **unsettled**: the interval straddles +T or -T: more games would tell (``games_to_settle``
  says about how many, if the estimate holds).

A card or seat is *flagged* only when its effect is both statistically sure (q < 0.05 after
the Benjamini-Hochberg correction) and larger than T, its whole interval beyond T (``flag``).

The thresholds are the project's defaults, changed in ``balance.toml`` (``[thresholds]``,
``balance init`` writes them commented) and stated on every page that uses them.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, fields, replace

from simcore.errors import BalanceError


@dataclass(frozen=True)
class Thresholds:
    seat_pp: float = 2.0
    card_pp: float = 2.0
    change_pp: float = 1.0
    gain_points: float = 0.05


DESCRIPTIONS = {
    "seat_pp": "a seat's edge (its win share minus the fair share 1/N), or a strategy's, under this many "
               "percentage points counts as fair",
    "card_pp": "a card that moves its holder's win share by less than this many percentage points is not "
               "out of line",
    "change_pp": "a rule change that moves the first seat's edge or a win share by less than this many "
                 "percentage points changes nothing that matters",
    "gain_points": "a declaration gaining less than this many points per round over the equilibrium is not "
                   "worth a player's attention (The Sky City of ALEA)",
}

_current = Thresholds()


def thresholds() -> Thresholds:
    """The thresholds in force (the defaults, or those ``configure`` set from balance.toml)."""
    return _current


def configure(values: dict | None = None) -> Thresholds:
    """Set the thresholds from a mapping (``balance.toml``'s ``[thresholds]``); unknown keys and
    values that are not positive numbers are refused with one line.  None resets the defaults."""
    global _current
    if values is None:
        _current = Thresholds()
        return _current
    known = {f.name for f in fields(Thresholds)}
    for key, value in values.items():
        if key not in known:
            raise BalanceError(f"balance.toml: [thresholds] has no key '{key}' (known: {', '.join(sorted(known))})")
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0 or not math.isfinite(value):
            raise BalanceError(f"balance.toml: thresholds.{key} must be a positive number, not {value!r}")
    _current = replace(Thresholds(), **{k: float(v) for k, v in values.items()})
    return _current


def judge(value: float, interval, threshold: float) -> str:
    """"within" (the interval inside (-T, T)), "beyond" (at or past +T or -T), else "unsettled"."""
    low, high = interval
    if low is None or high is None:
        return "unsettled"
    if -threshold < low and high < threshold:
        return "within"
    if low >= threshold or high <= -threshold:
        return "beyond"
    return "unsettled"


def flag(value: float | None, interval, q: float | None, threshold: float, alpha: float = 0.05) -> bool:
    """Flagged: statistically sure (corrected q below ``alpha``) AND larger than the threshold,
    which is settled: the whole interval lies at or beyond it ("beyond").  An effect whose
    interval straddles the threshold is unsettled, not flagged: more games would tell."""
    return (value is not None and q is not None and q < alpha
            and judge(value, interval, threshold) == "beyond")


def games_to_settle(value: float, interval, games: int, threshold: float) -> int | None:
    """About how many games would make an unsettled figure settled, if its estimate holds: the
    interval's half-width shrinks as 1/sqrt(games), and must shrink below the estimate's distance
    to the nearer threshold (+T or -T).  0 when already settled; None when the estimate sits on
    the threshold (no count would settle it)."""
    low, high = interval
    if judge(value, interval, threshold) != "unsettled":
        return 0
    half = (high - low) / 2
    distance = min(abs(value - threshold), abs(value + threshold))
    if distance <= 0 or half <= 0:
        return None
    return round_up(games * (half / distance) ** 2)


def compact(count: int) -> str:
    """A game count in few characters, for a grid cell: 56,000 -> 56k, 1,200,000 -> 1.2M."""
    if count >= 1_000_000:
        return f"{count / 1_000_000:.2g}M"
    if count >= 1_000:
        return f"{count / 1_000:.3g}k"
    return f"{count:,}"


def round_up(count: float) -> int:
    """A game count rounded up to two significant digits (12,345 -> 13,000)."""
    count = max(1, math.ceil(count * (1 - 1e-12)))  # 90,000.00000001 from rounding is 90,000
    step = 10 ** max(0, len(str(count)) - 2)
    return -(-count // step) * step


def pp(value: float, interval, places: int = 1) -> str:
    """``+1.2 pp [+0.8, +1.6]``: percentage points with their interval, for a sentence."""
    low, high = interval
    return f"{value:+.{places}f} pp [{low:+.{places}f}, {high:+.{places}f}]"


def pct(value: float, interval, places: int = 1) -> str:
    """``25.3% [24.9, 25.7]``: a fraction as a percentage with its interval, for a sentence."""
    low, high = interval
    return f"{100 * value:.{places}f}% [{100 * low:.{places}f}, {100 * high:.{places}f}]"


def stated(*keys: str) -> str:
    """The thresholds a page uses, in one line to print under its verdict."""
    t = thresholds()
    parts = []
    for key in keys:
        value = getattr(t, key)
        parts.append({"seat_pp": f"a seat or strategy within ±{value:g} pp of the fair share counts as fair",
                      "card_pp": f"a card is out of line when it is sure to move win share by more than ±{value:g} pp",
                      "change_pp": f"a change under ±{value:g} pp counts as no change",
                      "gain_points": f"a deviation must gain {value:g} points per round to matter"}[key])
    return ("Judged with 95% intervals against practical thresholds: " + "; ".join(parts)
            + " (balance.toml [thresholds] changes them).")


def tone(*outcomes: str) -> str:
    """A verdict's colour from its judgements: "bad" if anything is beyond, "warn" if anything is
    unsettled, else "good"."""
    if "beyond" in outcomes:
        return "bad"
    if "unsettled" in outcomes:
        return "warn"
    return "good"


# --------------------------------------------------------------------------------------------
# the verdict of one run: is it fair, which seat (or strategy) is out of line
# --------------------------------------------------------------------------------------------

def card_verdict(rows: list[dict], limit: float, flagged_first, calm_first, empty_first: str, settle,
                 top: int = 3) -> dict:
    """The card verdict's two sentences, for the card strength (analysis/cards.py) and card-play
    (analysis/cause.py) pages alike: which cards are flagged (sure and beyond ``limit`` pp), by how
    much, and how many games would settle the unsettled ones.  The pages differ only in words:
    ``flagged_first(flagged, measured, shown)``, ``calm_first(largest)``, ``empty_first`` and
    ``settle(sorted games_to_settle)`` give them."""
    measured = [r for r in rows if r["delta"] is not None]
    flagged = sorted((r for r in measured if r["flagged"]), key=lambda r: -abs(r["delta"]))
    unsettled = [r for r in measured if r["judgement"] == "unsettled"]

    def said(r):
        return f"{r['card']} {pp(100 * r['delta'], [100 * r['ci_low'], 100 * r['ci_high']])}"

    if flagged:
        shown = "; ".join(said(r) for r in flagged[:top]) + (f" and {len(flagged) - top} more" if len(flagged) > top else "")
        sentences = [flagged_first(len(flagged), len(measured), shown)]
    elif measured:
        sentences = [calm_first(said(max(measured, key=lambda r: abs(r["delta"]))))]
    else:
        sentences = [empty_first]
    if unsettled:
        need = sorted(r["games_to_settle"] for r in unsettled if r["games_to_settle"])
        sentences.append(f"{len(unsettled)} {'is' if len(unsettled) == 1 else 'are'} unsettled (the interval "
                         f"straddles ±{limit:g} pp){settle(need) if need else '.'}")
    outcome = "beyond" if flagged else ("unsettled" if unsettled else "within")
    return {"sentences": sentences, "tone": tone(outcome), "judgement": outcome, "note": stated("card_pp"),
            "flagged": [r["card"] for r in flagged], "unsettled": [r["card"] for r in unsettled],
            "games_to_settle": max((r["games_to_settle"] or 0 for r in unsettled), default=0) or None}


def seat_edges(summary: dict) -> list[dict]:
    """Every seat's edge over the fair share 1/N in percentage points, with its Wilson interval
    shifted the same way, and its judgement against the seat threshold."""
    limit = thresholds().seat_pp
    edges = []
    if summary.get("teams"):  # game.teams: partners win together; the teams are what is judged
        for team in summary["teams"]:
            fair = team["fair_share"]
            low, high = team["win_share_ci"]
            value, interval = 100 * (team["win_share"] - fair), [100 * (low - fair), 100 * (high - fair)]
            edges.append({"seat": team["team"], "name": team["name"], "edge_pp": value, "ci_pp": interval,
                          "judgement": judge(value, interval, limit),
                          "games_to_settle": games_to_settle(value, interval, summary["games"], limit)})
        return edges
    fair = 1.0 / summary["players"]
    for seat in summary["seats"]:
        low, high = seat["win_share_ci"]
        value, interval = 100 * (seat["win_share"] - fair), [100 * (low - fair), 100 * (high - fair)]
        edges.append({"seat": seat["seat"], "edge_pp": value, "ci_pp": interval,
                      "judgement": judge(value, interval, limit),
                      "games_to_settle": games_to_settle(value, interval, summary["games"], limit)})
    return edges


def _seat(index: int) -> str:
    return f"seat {index + 1}"


def _name(edge: dict) -> str:
    """How a sentence names the seat (or, in a game of teams, the team) of an edge."""
    return edge.get("name") or _seat(edge["seat"])


def lineup_players(summary: dict) -> str | None:
    """The one strategy every seat plays (``random``), or None for a mixed line-up."""
    names = {seat["strategy"] for seat in summary["seats"]}
    return names.pop() if len(names) == 1 else None


def one_player(names) -> str | None:
    """The strategy every seat plays, from a line-up's names, or None when they differ."""
    names = set(names or ())
    return names.pop() if len(names) == 1 else None


def among_first(sentences: list[str], name: str | None) -> list[str]:
    """``Among heuristic players, 22 of 40 cards ...``: the first sentence says whose play it
    judged (unchanged for a mixed line-up, whose pages name each seat's strategy)."""
    if not name or not sentences:
        return list(sentences)
    first = sentences[0]
    return [f"Among {name} players, {first[0].lower()}{first[1:]}", *sentences[1:]]


def among(name: str | None) -> str:
    """``among random players``: whose play a verdict judged."""
    return f"among {name} players" if name else "in this mixed line-up"


def summary_verdict(summary: dict) -> dict:
    """The verdict of one run: ``sentences`` (one or two), ``note`` (the thresholds), ``tone``,
    ``judgement`` ("within": fair, "beyond": out of line, "unsettled") and ``players`` (the
    strategy every seat played, None for a mixed line-up), also for the JSON.  Every sentence
    names whose play it judged: a seat edge among random players says nothing of good players."""
    limit = thresholds().seat_pp
    fair = 100.0 / summary["players"]
    games = summary["games"]
    if summary.get("lineup") == "mixed":
        rows = summary["strategy_strength"]
        judged = [(r, judge(r["edge_pp"], r["edge_ci_pp"], limit)) for r in rows]
        parts = [f"{r['strategy_label']} ({r['seat_names']}) wins {pct(r['win_share'], r['win_share_ci'])}"
                 + (" each" if len(r["seats"]) > 1 else "") for r in rows]
        out_of_line = [f"{r['strategy_label']} {pp(r['edge_pp'], r['edge_ci_pp'])}" for r, j in judged if j == "beyond"]
        first = (f"Mixed line-up, so the seats differ by skill, not seat order: {'; '.join(parts)}, "
                 f"against a fair {fair:.1f}%.")
        second = (f"Beyond ±{limit:g} pp of the fair share: {' and '.join(out_of_line)}" if out_of_line else
                  f"No strategy is settled as more than {limit:g} pp from the fair share")
        second += "; for the first seat's edge give every seat one strategy, or rotate the seats (balance tournament)."
        if cap_sentence(summary):
            second += " " + cap_sentence(summary)
        outcome = "beyond" if out_of_line else ("within" if all(j == "within" for _, j in judged) else "unsettled")
        return {"sentences": [first, second], "note": stated("seat_pp"), "tone": "info", "judgement": outcome,
                "kind": "strategy strength", "players": None}
    edges = seat_edges(summary)
    if summary.get("teams"):
        fair = 100.0 / len(summary["teams"])
    who = among(lineup_players(summary))
    first = edges[0]
    beyond = [e for e in edges if e["judgement"] == "beyond"]
    unsettled = [e for e in edges if e["judgement"] == "unsettled"]
    if beyond:
        listed = "; ".join(f"{_name(e)} {pp(e['edge_pp'], e['ci_pp'])}" for e in beyond[:3])
        sentence = (f"Not fair {who}: {listed} against the fair {fair:.1f}%, beyond the ±{limit:g} pp that counts "
                    "as fair" + (f" ({len(beyond) - 3} more seats too)" if len(beyond) > 3 else "") + ".")
        outcome = "beyond"
    elif unsettled:
        worst = max(unsettled, key=lambda e: abs(e["edge_pp"]))
        need = worst["games_to_settle"]
        sentence = (f"Not settled {who}: {_name(worst)}'s edge is {pp(worst['edge_pp'], worst['ci_pp'])}, "
                    f"which may or may not exceed ±{limit:g} pp"
                    + (f"; about {need:,} games would tell (this run has {games:,})." if need else "."))
        outcome = "unsettled"
    else:
        largest = max(edges, key=lambda e: abs(e["edge_pp"]))
        seat_1 = "seat 1, who plays first," if summary.get("seat_1_plays_first", True) else "seat 1"
        every = "every seat wins"
        if summary.get("teams"):
            seat_1 = _name(first) + (", whose seat 1 plays first," if summary.get("seat_1_plays_first", True) else "")
            every = "every team wins"
        sentence = (f"Fair {who}: {every} within ±{limit:g} pp of the fair {fair:.1f}%; {seat_1} "
                    f"is at {pp(first['edge_pp'], first['ci_pp'])}"
                    + (f" and the largest edge is {_name(largest)}'s {pp(largest['edge_pp'], largest['ci_pp'])}."
                       if largest["seat"] != 0 else "."))
        outcome = "within"
    capped = cap_sentence(summary)
    sentences = [sentence]
    if capped and outcome == "within":  # stopped games are decided by who was ahead: no "fair" from them
        sentences = [f"Not called fair {who}: {capped} Every seat is within ±{limit:g} pp of the fair {fair:.1f}%, "
                     f"seat 1 at {pp(first['edge_pp'], first['ci_pp'])}, but that judges the game as the cap cut it."]
        outcome = "unsettled"
    elif capped:
        sentences.append(capped)
    return {"sentences": sentences, "note": stated("seat_pp"), "tone": tone(outcome), "judgement": outcome,
            "kind": "seat edge", "seat_edges": edges, "players": lineup_players(summary), "capped": bool(capped)}


def cap_sentence(summary: dict) -> str | None:
    """What a cap on the game's length did, where it stopped games (a rules file played to
    game.target that ran out of game.rounds): ``12.0% [11.4, 12.6] of games hit the cap ...``."""
    capped = next((e for e in summary.get("events") or [] if e["column"] == "capped" and e["games_fired"]), None)
    if capped is None:
        return None
    cap = summary.get("round_cap")
    rounds = f"the cap of {cap} rounds (game.rounds)" if cap else "the cap on rounds"
    return (f"{pct(capped['fired_share'], capped['fired_share_ci'])} of games hit {rounds} before any total "
            "reached game.target: they were stopped, not finished, and won by whoever was ahead.")


def _deciding(edges: list[dict], outcome: str) -> dict:
    """The seat edge that decides a run's judgement: seat 1 when fair, else the largest edge of
    those beyond (or unsettled)."""
    if outcome == "within":
        return edges[0]
    return max((e for e in edges if e["judgement"] == outcome), key=lambda e: abs(e["edge_pp"]))


WORDS = {"within": "fair", "beyond": "out of line", "unsettled": "unsettled"}


def short_verdict(summary: dict) -> tuple[str, str]:
    """(text, tone) of one run in a few words, for grids and lists: ``fair among random · seat 1
    −0.4 pp [−0.6, −0.2]``, ``out of line among heuristic · seat 2 +3.1 pp [...]``; a run with a
    tiered verdict (``tiered_verdict``) gives it, with the tiers that disagree or stayed unsettled."""
    given = summary.get("verdict") or {}
    verdict = given if given.get("kind") == "tiers" else summary_verdict(summary)
    if verdict["kind"] == "strategy strength":
        top = summary["strategy_strength"][0]
        return f"skill, not seat · {top['strategy']} {pp(top['edge_pp'], top['edge_ci_pp'])}", "info"
    if verdict["kind"] == "tiers":
        return verdict["short"], verdict["tone"]
    shown = _deciding(verdict["seat_edges"], verdict["judgement"])
    return (f"{WORDS[verdict['judgement']]} {among(verdict['players']).replace(' players', '')} · "
            f"{_name(shown)} {pp(shown['edge_pp'], shown['ci_pp'])}", tone(verdict["judgement"]))


# --------------------------------------------------------------------------------------------
# the verdict across skill tiers: whose play it judged, led by the strongest settled tier
# --------------------------------------------------------------------------------------------

def run_stands_in(summary: dict, entry: dict) -> bool:
    """Whether the run itself stands in for this tier of its skill profile: every seat of the run
    plays that tier's strategy, in at least as many games."""
    own = lineup_players(summary) if summary.get("lineup") != "mixed" else None
    return entry["tier"] == own and summary["games"] >= entry["games"]


def tier_edges(summary: dict, profile: dict) -> list[dict]:
    """Each tier's deciding edge, weakest tier first: the skill profile's first-seat edge per tier
    (every seat that tier, analysis/skill.py), except that the run's own line-up, when it is one
    of the tiers and played at least as many games, stands in for its tier with every seat judged
    (its deciding seat: seat 1 when fair, else the seat furthest beyond)."""
    limit = thresholds().seat_pp
    rows = []
    for entry in profile["first_seat_edge"]:
        if run_stands_in(summary, entry):
            found = summary_verdict(summary)
            edge = _deciding(found["seat_edges"], found["judgement"])
            rows.append({"tier": entry["tier"], "games": summary["games"], "seat": edge["seat"], "edge_pp": edge["edge_pp"],
                         "ci_pp": edge["ci_pp"], "confidence": 0.95, "judgement": found["judgement"],
                         "games_to_settle": edge["games_to_settle"], "measured": "the run (every seat judged)"})
            continue
        judgement = judge(entry["edge_pp"], entry["ci_pp"], limit)
        rows.append({"tier": entry["tier"], "games": entry["games"], "seat": 0, "edge_pp": entry["edge_pp"],
                     "ci_pp": entry["ci_pp"], "confidence": entry.get("confidence", 0.95), "judgement": judgement,
                     "games_to_settle": games_to_settle(entry["edge_pp"], entry["ci_pp"], entry["games"], limit),
                     "measured": "the skill profile (first seat)"})
    return rows


CONVERGED, MOVING, UNCLEAR = "converged", "moving", "unclear"



def convergence_said(found: dict | None, brief: bool = False) -> str:
    """The convergence in one sentence: the skill section's in full; ``brief``, the headline
    verdict's, short enough that the page's chart stays above the fold."""
    if not found:
        return ""
    if brief:
        lower, upper = found["tiers"]
        low, high = found["ci_pp"]
        shown = f"{found['difference_pp']:+.1f} pp [{low:+.1f}, {high:+.1f}]"
        return {CONVERGED: f"Better players would not change it: {upper} moves the edge {shown} from {lower}.",
                MOVING: f"Judge with care: {upper} still moves the edge, {shown} from {lower}."}.get(
            found["state"], f"Judge with care: more games at {lower} and {upper} would tell whether better "
                            "players move the edge.")
    lower, upper = found["tiers"]
    low, high = found["ci_pp"]
    moved = f"{found['difference_pp']:+.1f} pp [{low:+.1f}, {high:+.1f}] from {lower} to {upper} players"
    if found["state"] == CONVERGED:
        return (f"The edge has stopped moving with skill: {moved} on the same {found['games']:,} deals, within "
                f"±{found['threshold_pp']:g} pp.")
    if found["state"] == MOVING:
        return (f"The edge is still moving with skill (judge with care): {moved} on the same "
                f"{found['games']:,} deals, beyond ±{found['threshold_pp']:g} pp.")
    return (f"Whether the edge has stopped moving with skill is not yet known (judge with care): {moved} on the "
            f"same {found['games']:,} deals; more games at those two tiers would tell.")


def tiered_verdict(summary: dict, profile: dict) -> dict:
    """The headline of a run with a skill profile: the judgement at the strongest tier whose
    interval settles it (fair or out of line), what the other tiers say, and which stayed
    unsettled.  A game fair among random players but out of line among heuristic ones is out of
    line; where settled tiers disagree the tone is never plain "good"."""
    limit = thresholds().seat_pp
    tiers = tier_edges(summary, profile)
    settled = [t for t in tiers if t["judgement"] != "unsettled"]
    lead = settled[-1] if settled else None

    def edge(t):
        return f"{_seat(t['seat'])} {pp(t['edge_pp'], t['ci_pp'])}"

    def brief(t):  # another tier in a few words: seat 1 goes without saying
        shown = pp(t["edge_pp"], t["ci_pp"])
        return shown if t["seat"] == 0 else f"{_seat(t['seat'])} {shown}"

    others = []
    for t in reversed(tiers):
        if t is lead:
            continue
        if t["judgement"] == "unsettled":
            need = f", about {t['games_to_settle']:,} would tell" if t["games_to_settle"] else ""
            others.append(f"{t['tier']} unsettled, {brief(t)} on {t['games']:,} games{need}")
        else:
            others.append(f"{t['tier']} {WORDS[t['judgement']]}, {brief(t)}")
    if lead is not None:
        head = f"{'Out of line' if lead['judgement'] == 'beyond' else 'Fair'} {among(lead['tier'])}, the strongest " \
               f"settled tier: {edge(lead)}"
        if lead["judgement"] == "within" and lead["seat"] == 0 and lead["measured"].startswith("the run"):
            head += f", every seat within ±{limit:g} pp"
        sentence = head + (". Other tiers: " + "; ".join(others) if others else "") + "."
        judgement = lead["judgement"]
    else:
        strongest = tiers[-1]
        sentence = ("Unsettled at every tier: " + "; ".join(
            f"{among(t['tier'])} {edge(t)} ({t['games']:,} games)" for t in reversed(tiers))
                    + (f"; about {strongest['games_to_settle']:,} games {among(strongest['tier'])} would tell."
                       if strongest["games_to_settle"] else "."))
        judgement = "unsettled"
    disagree = len({t["judgement"] for t in settled}) > 1
    colour = tone(judgement)
    if colour == "good" and disagree:
        colour = "warn"
    shown = lead or tiers[-1]
    short = f"{WORDS[judgement]} {among(shown['tier']).replace(' players', '')} · {edge(shown)}"
    rest = [f"{t['tier']}: {WORDS[t['judgement']]}"
            + (f", ~{compact(t['games_to_settle'])} games would tell"
               if t["judgement"] == "unsettled" and t["games_to_settle"] else "")
            for t in reversed(tiers)
            if t is not shown and (t["judgement"] != judgement or t["judgement"] == "unsettled")]
    if rest:
        short += f" ({'; '.join(rest)})"
    converged = profile.get("convergence")
    sentences = [sentence]
    if converged:
        short += {CONVERGED: " · converged", MOVING: " · still moving with skill"}.get(
            converged["state"], " · convergence unclear")
        if lead is not None:  # unsettled at every tier says enough already
            sentences.append(convergence_said(converged, brief=True))
        if converged["state"] != CONVERGED and colour == "good":
            colour = "warn"  # fair among these players, but stronger ones might not agree
    levels = sorted({round(100 * t["confidence"]) for t in tiers})
    timed = any("seconds_budget" in e for e in profile["first_seat_edge"])
    note = stated("seat_pp") + (" Skill tiers: intervals at 1 - 0.05/K for each tier's K looks, each played until "
                                "settled or its time is spent." if timed else
                                " Skill tiers: 99% intervals, each played until settled (five looks)."
                                if 99 in levels else "")
    return {"sentences": sentences, "note": note, "tone": colour, "judgement": judgement,
            "kind": "tiers", "players": shown["tier"], "settled_tier": lead["tier"] if lead else None,
            "tiers_disagree": disagree, "tiers": tiers, "short": short,
            "convergence": converged["state"] if converged else None}


def run_verdict(summary: dict, profile: dict | None = None) -> dict:
    """A run's verdict: across the tiers of its skill profile where it has one and every seat
    plays one strategy (``tiered_verdict``), else the run's own (``summary_verdict``)."""
    if profile is not None and summary.get("lineup") != "mixed" and profile.get("first_seat_edge"):
        return tiered_verdict(summary, profile)
    return summary_verdict(summary)
