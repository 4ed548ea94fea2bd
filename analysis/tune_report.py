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
    if isinstance(value, dict):  # an inline table (a rules file's table under one key, scoring.card_points)
        return "{" + ", ".join(f"{toml_key(k)} = {toml_value(v)}" for k, v in value.items()) + "}"
    raise BalanceError(f"cannot write {value!r} to a variant file")


def toml_key(key) -> str:
    """A key as TOML writes it: bare where it may be (letters, digits, _ and -), else quoted."""
    text = str(key)
    return text if text and all(c.isalnum() or c in "_-" for c in text) and text.isascii() else json.dumps(text)


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


def _size_name(size: int, count: int | None = None, plural: bool = True) -> str:
    from analysis.tune_levels import size_words

    if size == 0:
        return "the rules tuned from"
    return f"{size_words(size)} change" + ("s" if plural and count != 1 else "")


def _missed(document: dict, figures: list[dict]) -> str:
    return "; ".join(f"{t['label']} {figure_text(t, f)}" for t, f in zip(document["targets"], figures) if not f["met"])


def _ruled_out_phrase(level: dict, document: dict) -> str:
    """``all 11 one-step changes (9 with an interval wholly outside a target in racing, 2 not
    inside every target on 40,000 fresh games; 3 more refused by the rules)``."""
    games = f"{document['budget']['final_games']:,}"
    if level["size"] == 0:
        missed = _missed(document, document["original"]["targets"]).split("; ")[0]  # the first target missed
        why = f"{missed} on fresh games" if missed else "an interval wholly outside a target in racing"
        return f"the rules tuned from ({why})"
    parts = []
    if level["ruled_out_racing"]:
        parts.append(f"{level['ruled_out_racing']} with an interval wholly outside a target in racing")
    if level["failed_fresh"]:
        parts.append(f"{level['failed_fresh']} not inside every target on {games} fresh games")
    detail = ", ".join(parts)
    if level["refused"]:
        detail += ("; " if detail else "") + f"{level['refused']} more refused by the rules"
    if level["tried"] == 0:
        return f"{_all(level['refused'])} {_size_name(level['size'], level['refused'])} (refused by the rules)"
    return f"{_all(level['tried'])} {_size_name(level['size'], level['tried'])} ({detail})"


def _all(count: int) -> str:
    return "the only" if count == 1 else f"all {count}"


def _targets(count: int) -> str:
    return "its target" if count == 1 else f"all {count} targets"


def search_sentence(document: dict) -> str:
    """What the search ruled out below the answer, or why it could not rule every smaller change
    out (the space too large for the budget: which sizes were tried whole, which sampled)."""
    search = document["search"]
    levels = search["levels"]
    winner = document["winner"]
    candidates = document["budget"]["candidates"]
    settled = [level for level in levels if level["settled"]]
    phrases = [_ruled_out_phrase(level, document) for level in settled]
    ruled = phrases[0] if len(phrases) == 1 else "; ".join(phrases[:-1]) + " and " + phrases[-1] if phrases else ""
    last = levels[-1] if levels else None
    if winner is not None:
        smaller = [level for level in levels if level["size"] < winner["size"]]
        if any(not level["settled"] for level in smaller):  # not reached: a smaller size is tried whole or not at all
            return "Not all smaller changes could be measured."
        sentence = f"Ruled out, every smaller change: {ruled}" if settled else ""
        if last["mode"] == "sampled":
            many = ("are infinitely many" if last["count"] is None
                    else f"are too many for the budget of {candidates} candidates")
            total = "" if last["count"] is None else f"{last['count']:,} "
            sampled = (f"the {total}{_size_name(last['size'])} {many}: {last['tried']} "
                       f"{'was' if last['tried'] == 1 else 'were'} tried, proposed by the TPE sampler, so one that "
                       "moves the rules less may exist")
            sentence = f"{sentence}; but {sampled}" if sentence else sampled[0].upper() + sampled[1:]
        return sentence + "." if sentence else ""
    if last is None:
        return "Nothing was tried."
    if search["stopped"] == "space":
        return f"Ruled out, every change the space allows: {ruled}."
    if search["stopped"] == "budget":
        return (f"Ruled out, every change of size {last['size']} or less: {ruled}; larger changes were not tried: "
                f"the budget of {candidates} candidates is spent.")
    total = "infinitely many" if last["count"] is None else f"{last['count']:,}"
    unsettled = last["tried"] - last["ruled_out_racing"] - last["failed_fresh"]
    sampled = (f"of the {total} {_size_name(last['size'])} only {last['tried']} "
               f"{'was' if last['tried'] == 1 else 'were'} tried (TPE sampler)"
               + (f", {unsettled} not settled" if unsettled else ""))
    return (f"The budget of {candidates} candidates could not measure every smaller change: "
            + (f"ruled out, {ruled}; but " if ruled else "") + sampled + "; larger changes were not tried.")


def verdict(document: dict) -> dict:
    """At most three sentences: the smallest change that meets every target (or none), its size,
    what the search ruled out below it (or that the space was too large to rule every smaller
    change out), and its figures on the fresh games (or the closest miss)."""
    from analysis.summary import games_phrase

    targets = document["targets"]
    winner, original = document["winner"], document["original"]
    games = games_phrase(document["budget"]["final_games"])
    figures = lambda row: "; ".join(f"{t['label']} {figure_text(t, f)} ({t['band']})"
                                    for t, f in zip(targets, row["targets"]))
    searched = search_sentence(document)
    if winner is not None and not winner["settings"]:
        sentences = [f"The rules tuned from already meet {_targets(len(targets))} on {games} of fresh play: "
                     f"{figures(winner)}.", "No change is needed."]
        tone = "good"
    elif winner is not None:
        level = next(level for level in document["search"]["levels"] if level["size"] == winner["size"])
        whole = ""
        if level["mode"] == "exhaustive":
            whole = (f": {_all(level['tried'])} {_size_name(winner['size'], level['tried'])} "
                     f"{'was' if level['tried'] == 1 else 'were'} tried, and none that moves the rules less meets "
                     "every target")
        sentences = [f"The smallest change found that meets {_targets(len(targets))} is "
                     f"{change_text(winner['settings'], document)} (candidate {winner['number']}, size {winner['size']}){whole}.",
                     searched,
                     f"On {games} of fresh play, every interval inside its target: {figures(winner)}."]
        tone = "good"
    else:
        best = document["best"]
        sentences = [f"No change tried meets {_targets(len(targets))}.", searched]
        if best is not None and best["settings"]:
            failed = "; ".join(f"{t['label']} {figure_text(t, f)} ({t['band']})"
                               for t, f in zip(targets, best["targets"]) if not f["met"])
            sentences.append(f"The closest on {games} of fresh play, {change_text(best['settings'], document)} "
                             f"(candidate {best['number']}, size {best['size']}), misses {failed}.")
        elif not original["met"] and not any(level["size"] == 0 for level in document["search"]["levels"]):
            sentences.append(f"The rules tuned from miss, on {games} of fresh play: "
                             f"{_missed(document, original['targets'])}.")
        tone = "bad"
    sentences = [s for s in sentences if s]
    # the terms are defined under the candidates table; the verdict keeps to what a reader needs
    # to trust the sentence above it, so that it and the chart fit above the fold
    note = ("Met: every 95% interval inside its target on fresh games (seed {0}); size: steps from the rules "
            "tuned from.").format(document["final_seed"])
    return {"sentences": sentences[:3], "note": note, "tone": tone}


CANDIDATE_HEADERS = ["rank", "candidate", "change", "size", "measured on", "score"]
STOPPED = {"completed": "finished", "dropped": "dropped", "excluded": "ruled out"}


def candidate_rows(document: dict, limit: int | None = None) -> list[list[str]]:
    rows = []
    for row in document["candidates"][:limit]:
        if row["targets"] is None:
            where = row["note"]
            cells = ["—"] * len(document["targets"])
        else:
            if row["stage"] == "racing":
                where = f"{row['games']:,} (rung {row['rungs_reached']}, {STOPPED[row['status']]})"
            else:
                where = f"{row['games']:,} (fresh games)"
            cells = [figure_text(t, f) + ("" if f["met"] else " ✗") for t, f in zip(document["targets"], row["targets"])]
        mark = " ← winner" if document["winner"] and row["number"] == document["winner"]["number"] else ""
        score = "" if row["score"] is None else f"{row['score']:.3f}"
        rows.append([str(row["rank"]), f"{row['number']}{mark}", change_text(row["settings"], document) or "none (the rules tuned from)",
                     str(row["size"]), where, score, *cells])
    return rows


def candidate_headers(document: dict) -> list[str]:
    return CANDIDATE_HEADERS + [f"{t['label']}: {t['band']}" for t in document["targets"]]


def header_lines(document: dict) -> list[str]:
    budget = document["budget"]
    source = document["from"]
    racing = (" → ".join(f"{n:,}" for n in budget["rungs"]) + f" games (in a sampled size one in {budget['keep']} "
              "goes on)"
              if document["racing"] else f"no racing: every candidate on {budget['rungs'][-1]:,} games")
    return [f"{document['title']} ({document['game']}): {document['players']} players, tune {document['space_name']} "
            f"({_file(document['space'], document.get('space_beside'))})",
            f"tuned from: {source['name']}" + (f" ({_file(source['source'], source.get('source_beside'))})"
                                                if source["source"] else " (published rules)"),
            f"seed {document['seed']} · budget {budget['candidates']} candidates ({document['distinct']} played) · "
            f"racing on {racing} · finishers on {budget['final_games']:,} fresh games (seed {document['final_seed']})",
            "may change: " + "; ".join(c["space"] for c in document["changes"]),
            sizes_line(document)]


def _file(name: str, beside: bool | None) -> str:
    """A file as a tune page names it: as placed (``placed``), saying when it is not beside the page;
    as given on the terminal (``beside`` None)."""
    from analysis.page import NOT_BESIDE

    return f"{name}, {NOT_BESIDE}" if beside is False else name


def sizes_line(document: dict) -> str:
    """``sizes (steps): 0: 1, tried whole; 1: 15, tried whole (3 refused by the rules); 2: 33, not tried``."""
    levels = {level["size"]: level for level in document["search"]["levels"]}
    parts = []
    for size, count in enumerate(document["search"]["sizes"]):
        if count == 0:
            continue
        total = "infinitely many" if count is None else f"{count:,}"
        level = levels.get(size)
        if level is None:
            parts.append(f"{size}: {total}, not tried")
        elif level["mode"] == "exhaustive":
            parts.append(f"{size}: {total}, tried whole" + (f" ({level['refused']} refused by the rules)"
                                                           if level["refused"] else ""))
        else:
            parts.append(f"{size}: {total}, {level['tried']} sampled")
    return "sizes (steps from the rules tuned from) and candidates: " + "; ".join(parts)


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
              Paragraph("Candidates measured on fresh games first; then the others at the furthest racing rung they "
                        "reached (ruled out: an interval wholly outside a target; dropped: worse than others at the "
                        "rung, in a sampled size; not settled: dropped, or a finisher not measured on fresh games). Size: steps "
                        "from the rules tuned from, one per key changed and per card swapped, added or removed. ✗: "
                        "the 95% interval is not "
                        "inside the target. Score: how far the intervals would reach outside the targets at the "
                        "fresh-game count (each narrowed by √(games / final games) around its estimate), each over "
                        "half its band, plus 0.001 per step and per unit of distance."),
              Heading(2, "How the tune works"),
              Paragraph("A change's size is its number of steps: one per key changed, and in a list (a deck) one per "
                        "swap, one item out and one in, or per item added or removed alone. The tune tries the rules "
                        "tuned from, then every change of size 1, then of size 2, and stops at the first size where "
                        "a candidate meets every target. A size whose candidates fit in the budget left is tried "
                        "whole; the first that does not is sampled by Optuna's TPE sampler, and the tune ends there. "
                        "Every candidate plays the same games (common random numbers) at each racing rung and stops "
                        "when a target's 95% interval lies wholly outside the target (ruled out). The candidates "
                        "that finish the last rung are measured again on fresh games (another seed), smallest "
                        "distance first: every figure, interval and pass/fail above comes from those games, so "
                        "choosing them does not bias them, and one not inside every target there is ruled out too. "
                        "The winner is the one of smallest normalised distance that meets every target, in the "
                        "smallest size where any does.")]
    if document.get("whatif"):
        blocks += [Heading(2, "The winner against the rules tuned from"),
                   Paragraph(" ".join(document["whatif"]["verdict"]["sentences"])
                             + " Full what-if report: whatif/whatif.html; the winner as a variant file: winner.toml.")]
    return blocks


def placed(document: dict, out_dir: Path) -> dict:
    """The document as the page in ``out_dir`` shows it: the space file and the variant tuned from
    named relative to the page where they are beside it, else by file name alone, and the
    winner's what-if as its own page in ``whatif/`` names its files (analysis/page.py,
    ``page_path``): nothing names the folders of the machine that wrote it."""
    from analysis import whatif as comparison
    from analysis.page import placed as place

    document = {**place(document, "space", out_dir), "from": place(document["from"], "source", out_dir)}
    if document.get("whatif"):
        document["whatif"] = comparison.placed(document["whatif"], Path(out_dir) / "whatif")
    return document


def write(document: dict, out_dir: Path) -> Path:
    """``tune.md`` (+ PNG), ``tune.html``, ``tune.json`` (and ``summary.json``, as every page)."""
    from analysis.page import write_blocks

    document = placed(document, out_dir)
    folder = write_blocks(report_blocks(document), document, out_dir, stem="tune")
    staged = Path(out_dir) / ".tune.json.tmp"
    staged.write_text(json.dumps(document, indent=2, allow_nan=False) + "\n", encoding="utf-8")
    os.replace(staged, Path(out_dir) / "tune.json")
    return folder
