"""The words, the chart and the page of `balance tune` (``analysis.tune`` builds the document).

Every sentence and table reads the document alone, so ``tune.json`` can be rendered again.
"""
from __future__ import annotations

import json
import os
from pathlib import Path

from simcore.errors import BalanceError


def toml_value(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    raise BalanceError(f"cannot write {value!r} to a variant file")


# --------------------------------------------------------------------------------------------
# words
# --------------------------------------------------------------------------------------------

def change_text(settings: dict, document: dict) -> str:
    """``two_factor 10 → 4; cards −99 +49``: each changed key from its value in the rules tuned from."""
    originals = {c["key"]: c["original"] for c in document["changes"]}
    parts = []
    for key, value in settings.items():
        before = originals.get(key)
        if isinstance(value, list) and isinstance(before, list):
            removed = [v for v in before if v not in value]
            added = [v for v in value if v not in before]
            parts.append(f"{key} " + " ".join([f"−{toml_value(v)}" for v in removed] + [f"+{toml_value(v)}" for v in added]))
        else:
            parts.append(f"{key} {toml_value(before)} → {toml_value(value)}")
    return "; ".join(parts)


def figure_text(target: dict, figure: dict | None, places: int = 2) -> str:
    if figure is None or figure["value"] is None:
        return "n/a" if figure is None else figure.get("detail") or "n/a"
    low, high = figure["ci"]
    if target["figure"] == "game_length":
        text = f"{figure['value']:.{places}f} [{low:.{places}f}, {high:.{places}f}]"
    else:
        text = f"{figure['value']:+.{places}f} pp [{low:+.{places}f}, {high:+.{places}f}]"
    detail = figure.get("detail")
    if detail and target["figure"] in ("seat_shares", "card_strength"):
        text = f"{detail} {text}"
    return text


def verdict(document: dict) -> dict:
    """At most three sentences: the smallest change that meets every target (or the closest
    miss), its figures on the fresh games, and how the rules tuned from fared."""
    from analysis.summary import games_phrase

    targets = document["targets"]
    winner, original = document["winner"], document["original"]
    games = games_phrase(document["budget"]["final_games"])
    figures = lambda row: "; ".join(f"{t['label']} {figure_text(t, f)} ({t['band']})"
                                    for t, f in zip(targets, row["targets"]))
    missed = [t["label"] for t, f in zip(targets, original["targets"]) if not f["met"]]
    if winner is not None and not winner["settings"]:
        sentences = [f"The rules tuned from already meet all {len(targets)} targets on {games} of fresh play: "
                     f"{figures(winner)}.", "No change is needed."]
        tone = "good"
    elif winner is not None:
        sentences = [f"The smallest change found that meets all {len(targets)} targets is {change_text(winner['settings'], document)} "
                     f"(candidate {winner['number']}, {len(winner['changed'])} key{'s' if len(winner['changed']) != 1 else ''} changed).",
                     f"On {games} of fresh play, every interval inside its target: {figures(winner)}."]
        tone = "good"
    else:
        best = document["best"]
        sentences = [f"No finalist meets all {len(targets)} targets on {games} of fresh play."]
        if best is not None:
            failed = "; ".join(f"{t['label']} {figure_text(t, f)} ({t['band']})"
                               for t, f in zip(targets, best["targets"]) if not f["met"])
            sentences.append(f"The closest, {change_text(best['settings'], document) or 'the rules tuned from'} "
                             f"(candidate {best['number']}), misses {failed}.")
        tone = "bad"
    if missed and (winner is None or winner["settings"]):
        sentences.append(f"The rules tuned from miss {len(missed)} of {len(targets)}: "
                         + "; ".join(f"{t['label']} {figure_text(t, f)}" for t, f in zip(targets, original["targets"])
                                     if not f["met"]) + ".")
    note = ("A target is met only when its whole 95% interval lies inside it; the figures come from fresh games "
            "(seed {0}), not the games the candidates were raced on.").format(document["final_seed"])
    return {"sentences": sentences[:3], "note": note, "tone": tone}


CANDIDATE_HEADERS = ["rank", "candidate", "change", "measured on", "score"]


def candidate_rows(document: dict, limit: int | None = None) -> list[list[str]]:
    rows = []
    for row in document["candidates"][:limit]:
        if row["targets"] is None:
            where = row["note"]
            cells = ["—"] * len(document["targets"])
        else:
            rung = f"rung {row['rungs_reached']}" if row["stage"] == "racing" else "fresh games"
            where = f"{row['games']:,} ({rung}{', ' + row['status'] if row['status'] == 'dropped' else ''})"
            cells = [figure_text(t, f) + ("" if f["met"] else " ✗") for t, f in zip(document["targets"], row["targets"])]
        mark = " ← winner" if document["winner"] and row["number"] == document["winner"]["number"] else ""
        score = "" if row["score"] is None else f"{row['score']:.3f}"
        rows.append([str(row["rank"]), f"{row['number']}{mark}", change_text(row["settings"], document) or "none (the rules tuned from)",
                     where, score, *cells])
    return rows


def candidate_headers(document: dict) -> list[str]:
    return CANDIDATE_HEADERS + [f"{t['label']}: {t['band']}" for t in document["targets"]]


def header_lines(document: dict) -> list[str]:
    budget = document["budget"]
    source = document["from"]
    racing = (" → ".join(f"{n:,}" for n in budget["rungs"]) + f" games, one in {budget['keep']} goes on"
              if document["racing"] else f"no racing: every candidate on {budget['rungs'][-1]:,} games")
    return [f"{document['title']} ({document['game']}): {document['players']} players, tune {document['space_name']} "
            f"({document['space']})",
            f"tuned from: {source['name']}" + (f" ({source['source']})" if source["source"] else " (published rules)"),
            f"seed {document['seed']} · {budget['candidates']} candidates ({document['distinct']} distinct) · racing on "
            f"{racing} · {budget['finalists']} finalists on {budget['final_games']:,} fresh games (seed "
            f"{document['final_seed']})",
            "may change: " + "; ".join(c["space"] for c in document["changes"])]


def games_line(document: dict) -> str:
    played = document["games_played"]
    full = played["full_evaluation"]
    saved = 1 - played["racing"] / full if full else 0.0
    return (f"games: racing {played['racing']:,} (every candidate at the last rung: {full:,}; racing saved "
            f"{100 * saved:.0f}%), finalists {played['finals']:,}"
            + (f", what-if {played['whatif']:,}" if "whatif" in played else "")
            + f"; {document['seconds']:.1f} s")


def format_text(document: dict, limit: int = 12) -> str:
    from analysis.summary import fixed_width

    found = document.get("verdict") or verdict(document)
    out = header_lines(document)
    out += ["", "verdict: " + " ".join(found["sentences"]), f"  ({found['note']})", "", "targets:"]
    out += [f"  {k}. {t['label']}: {t['band']}" for k, t in enumerate(document["targets"], start=1)]
    shown = document["candidates"][:limit]
    out += ["", f"ranked candidates ({len(shown)} of {len(document['candidates'])}; ✗ = interval not inside the target):"]
    out += fixed_width(candidate_headers(document), candidate_rows(document, limit))
    out += ["", games_line(document)]
    if document.get("whatif"):
        out += ["what-if of the winner against the rules tuned from: " + " ".join(document["whatif"]["verdict"]["sentences"])]
    return "\n".join(out) + "\n"


# --------------------------------------------------------------------------------------------
# the page
# --------------------------------------------------------------------------------------------

def chart(document: dict) -> bytes:
    """One panel per target: every candidate's figure with its 95% interval at the furthest rung
    it reached (grey), the finalists on fresh games (blue), the rules tuned from (red), the
    winner (green), and the target's band."""
    from matplotlib.figure import Figure

    from analysis.charts import _png

    targets = document["targets"]
    figure = Figure(figsize=(9.0, 1.2 + 2.3 * len(targets)), layout="constrained")
    panels = figure.subplots(len(targets), 1, squeeze=False)[:, 0]
    winner = document["winner"]["number"] if document["winner"] else None
    for k, (target, axes) in enumerate(zip(targets, panels)):
        low, high = target["low"], target["high"]
        shown = []
        for row in document["candidates"]:
            if row["targets"] is None or row["targets"][k]["value"] is None:
                continue
            f = row["targets"][k]
            colour = ("#54a24b" if row["number"] == winner else "#4c78a8") if row["stage"] == "final" else "0.65"
            shown.append((row["number"], f["value"], f["ci"], colour))
        original = document["original"]["targets"][k]
        if original["value"] is not None:
            shown.append((0, original["value"], original["ci"], "#e45756"))
        for x, value, ci, colour in shown:
            axes.errorbar([x], [value], yerr=[[value - ci[0]], [ci[1] - value]], fmt="o", color=colour, capsize=3,
                          markersize=4)
        bottom = low if low is not None else min([s[2][0] for s in shown] + [high - 1])
        top = high if high is not None else max([s[2][1] for s in shown] + [low + 1])
        axes.axhspan(bottom, top, color="#54a24b", alpha=0.12, linewidth=0)
        unit = "per game" if target["figure"] == "game_length" else "pp"
        axes.set_ylabel(f"figure ({unit})")
        axes.set_title(f"{target['label']}: {target['band']}", fontsize=9)
        axes.set_xlabel("candidate (number; 0 = the rules tuned from, on the fresh games)"
                        if k == len(targets) - 1 else "candidate (number)")
        axes.xaxis.get_major_locator().set_params(integer=True)
        axes.grid(axis="y", alpha=0.3)
    figure.suptitle("Candidates against the targets (95% intervals; green band: the target)", fontsize=12,
                    fontweight="bold")
    figure.supxlabel("red: the rules tuned from · blue: finalists on fresh games · green: the winner · "
                     "grey: racing, at the last rung reached", fontsize=8, color="0.3")
    return _png(figure)


def report_blocks(document: dict) -> list:
    from analysis.page import Heading, Image, Items, Paragraph, Table, Verdict

    found = document.get("verdict") or verdict(document)
    blocks = [Heading(1, f"Tune: {document['title']}, {document['players']} players"),
              Verdict(found["sentences"], found["note"], found["tone"]),
              Image("tune-candidates.png", "Every candidate's figure for each target with its 95% interval and the "
                                          "target's band", chart(document), lead=True),
              Items(header_lines(document) + [games_line(document)]),
              Heading(2, "Targets"),
              Table(["target", "figure", "must lie", "tier", "the rules tuned from (fresh games)"],
                    [[str(k), t["label"], t["band"], t["tier"], figure_text(t, f)]
                     for k, (t, f) in enumerate(zip(document["targets"], document["original"]["targets"]), start=1)]),
              Heading(2, "Ranked candidates"),
              Table(candidate_headers(document), candidate_rows(document)),
              Paragraph("Finalists first, measured on fresh games; then the other candidates at the furthest racing "
                        "rung they reached. ✗: the 95% interval is not inside the target. Score: how far the "
                        "intervals would reach outside the targets at the finalists' game count (each narrowed by "
                        "√(games / final games) around its estimate), each over half its band, plus 0.001 per unit "
                        "of change."),
              Heading(2, "How the tune works"),
              Paragraph("Optuna's TPE sampler, seeded from the tune's seed, proposes one candidate at a time; the rules "
                        "tuned from are candidate 1. Racing: every candidate plays the same games as every other "
                        "(common random numbers) at each rung, and goes on to the next rung only if its score is "
                        "among the best 1/KEEP measured at that rung so far; a candidate is dropped only for being "
                        "worse there. The finalists and the rules tuned from are then measured again on fresh games "
                        "(another seed): every figure, interval and pass/fail above comes from those games, so "
                        "choosing the finalists does not bias them. The winner is the finalist that meets every "
                        "target with the fewest keys changed, then the smallest normalised distance.")]
    if document.get("whatif"):
        blocks += [Heading(2, "The winner against the rules tuned from"),
                   Paragraph(" ".join(document["whatif"]["verdict"]["sentences"])
                             + " Full what-if report: whatif/whatif.html; the winner as a variant file: winner.toml.")]
    return blocks


def write(document: dict, out_dir: Path) -> Path:
    """``tune.md`` (+ PNG), ``tune.html``, ``tune.json`` (and ``summary.json``, as every page)."""
    from analysis.page import write_blocks

    folder = write_blocks(report_blocks(document), document, out_dir, stem="tune")
    staged = Path(out_dir) / ".tune.json.tmp"
    staged.write_text(json.dumps(document, indent=2, allow_nan=False) + "\n", encoding="utf-8")
    os.replace(staged, Path(out_dir) / "tune.json")
    return folder
