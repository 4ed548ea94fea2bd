"""`balance sweep`: one numeric variant key swept over a range, every point on the same games.

Each point is a run of games 0..n-1 of the same seed (common random numbers, as in
``analysis.whatif``), with the key set on the published rules or on a base variant file.  For
every point: first-player advantage, game length where the rows count it, and every rule-event
rate, each with its 95% interval (the same figures and intervals as ``balance whatif``).  The
first and the last point are then compared game by game: the change across the whole range
with its paired interval and p-value, Benjamini–Hochberg adjusted over the figures.

Every point's rules are built and checked before the first game is played, so a value the game
refuses stops the sweep at once with one line naming it.
"""
from __future__ import annotations

import math
import re
import textwrap
from dataclasses import replace
from pathlib import Path

from analysis import stats
from analysis.summary import fixed_width, fmt_settings, games_phrase
from analysis.whatif import (DEFAULT_GAMES, PERCENT_KINDS, WHATIF_HEADERS, adjust, common_fields, compare, describe,
                             design_for, design_note, design_said, estimate, fmt_value, headline_figures, moments,
                             prepare_runs, simulated, variant_table, where_from)
from simcore.errors import BalanceError

MAX_POINTS = 41  # a sweep is for a curve, not a grid search: 41 points already take 41 runs
SWEPT_KINDS = ("advantage", "length", "rate")  # the figures drawn against the key
RANGE = re.compile(r"^\s*(?P<start>.+?)\.\.(?P<stop>.+?)(?::(?P<step>.+))?\s*$")
SYNTAX = "--set must be KEY=START..STOP[:STEP], e.g. target=30..60:5"


# --------------------------------------------------------------------------------------------
# the range
# --------------------------------------------------------------------------------------------

def _number(text: str, key: str, whole: bool, what: str):
    text = text.strip()
    if whole:
        if not re.fullmatch(r"[+-]?\d+", text):
            raise BalanceError(f"--set {key}: {what} '{text}' is not a whole number ({key} takes whole numbers)")
        return int(text)
    try:
        value = float(text)
    except ValueError:
        raise BalanceError(f"--set {key}: {what} '{text}' is not a number") from None
    if not math.isfinite(value):
        raise BalanceError(f"--set {key}: {what} must be a finite number, not '{text}'")
    return value


def parse_range(spec: str, game) -> tuple[str, list]:
    """``KEY=START..STOP[:STEP]`` for ``game``: the key and its values, START to STOP inclusive
    (STOP itself only where it falls on the STEP grid), STEP 1 by default."""
    key, equals, span = spec.partition("=")
    key = key.strip()
    if not equals or not key:
        raise BalanceError(f"{SYNTAX}, not '{spec}'")
    if key not in game.variant_keys:
        raise BalanceError(f"'{key}' is not a variant key of {game.name} (known: {', '.join(sorted(game.variant_keys))})")
    kind = game.variant_keys[key][0]
    kinds = kind if isinstance(kind, tuple) else (kind,)
    if not {int, float} & set(kinds):
        names = "/".join(k.__name__ for k in kinds)
        raise BalanceError(f"'{key}' of {game.name} is a {names} setting, not a number: only numeric keys can be swept")
    match = RANGE.match(span)
    if match is None:
        raise BalanceError(f"{SYNTAX}, not '{spec}'")
    whole = float not in kinds
    start = _number(match["start"], key, whole, "START")
    stop = _number(match["stop"], key, whole, "STOP")
    step = _number(match["step"], key, whole, "STEP") if match["step"] is not None else 1
    if step <= 0:
        raise BalanceError(f"--set {key}: STEP must be positive, not {step}")
    if start > stop:
        raise BalanceError(f"--set {key}: START {start} is above STOP {stop}")
    count = math.floor((stop - start) / step + 1e-9) + 1  # the tolerance keeps 0.1..0.3:0.1 at 3 points
    if count < 2:
        raise BalanceError(f"--set {key}: {start}..{stop}:{step} is a single point; a sweep needs at least two")
    if count > MAX_POINTS:
        raise BalanceError(f"--set {key}: {start}..{stop}:{step} is {count} points, more than {MAX_POINTS}; "
                           "take a larger STEP")
    if whole:
        return key, list(range(start, stop + 1, step))
    return key, [round(start + i * step, 12) for i in range(count)]


# --------------------------------------------------------------------------------------------
# the sweep
# --------------------------------------------------------------------------------------------

def sweep(game_name: str, spec: str, players: int = 4, games: int = DEFAULT_GAMES, seed: int = 1,
          strategies_spec: str | None = None, base_path: Path | None = None, threads: int | None = None,
          progress: bool = True, out: Path | None = None, confidence: float = stats.DEFAULT_CONFIDENCE,
          design: str | None = None) -> dict:
    """Run every point of ``spec`` on the same games of ``seed`` (duplicate deals by default where
    the game allows: ``analysis.whatif.design_for``); the JSON-ready document (``docs/whatif.md``).
    Every point's rules are checked before the first game is played."""
    from simcore.registry import get_game

    game = get_game(game_name)
    game.check_players(players)
    key, values = parse_range(spec, game)
    base = game.variant(base_path)
    variants = []
    for value in values:
        try:
            variant = game.variant(base_path, {key: value})
            game.setup(players, variant)
        except BalanceError as exc:
            raise BalanceError(f"--set {key}={value}: {exc}") from None
        name = f"{key} = {value}" if base_path is None else f"{base.name}, {key} = {value}"
        variants.append(replace(variant, name=name))
    lineup = prepare_runs(game, players, strategies_spec, games, seed, threads, out)
    design, games = design_for(game, players, games, design)
    with simulated(game, players, variants, lineup, seed, games, threads, progress, design) as (paths, metas, columns):
        figures = [f for f in headline_figures(metas, columns) if f.kind in SWEPT_KINDS]
        points = []
        for value, variant, path, meta in zip(values, variants, paths, metas):
            m = moments([path], figures, [meta], columns)
            measured = {}
            for f in figures:
                estimate_value, interval = estimate(f, m, 0, confidence)
                measured[f.key] = {"value": estimate_value, "ci": interval}
            points.append({"value": value, "variant": describe(variant), "seconds": meta.get("seconds"),
                           "figures": measured})
        # the whole range, game by game: the first point against the last
        ends = moments([paths[0], paths[-1]], figures, [metas[0], metas[-1]], columns, [(0, 1)])
    rows = [compare(f, ends, 0, 1, confidence) for f in figures]
    tests = adjust([rows])
    document = {
        **common_fields(metas, players, games, seed, lineup, confidence),
        "key": key, "key_description": game.variant_keys[key][1], "values": values, "base": describe(base),
        "figures": [{"key": f.key, "label": f.label, "kind": f.kind, "per": f.per, "unit": f.unit} for f in figures],
        "points": points,
        "range_change": {"from": values[0], "to": values[-1], "figures": rows, "tests": tests},
        "lineup": "symmetric" if len(set(lineup.names)) == 1 else "mixed",
    }
    document["verdict"] = verdict(document)
    return document


def verdict(document: dict) -> dict:
    """Where along the range the first seat's edge counts as fair, where it is closest to even,
    and how much it moves from one end to the other; at most three sentences."""
    from analysis.verdict import judge, one_player, stated, thresholds, tone

    key, limit = document["key"], thresholds().seat_pp
    judged = []
    for point in document["points"]:
        m = point["figures"]["advantage"]
        if m["value"] is None or None in m["ci"]:
            continue
        value, interval = 100 * m["value"], [100 * v for v in m["ci"]]
        judged.append((point["value"], value, interval, judge(value, interval, limit)))
    if not judged:
        return {"sentences": ["The first seat's edge could not be measured at any point."], "note": "", "tone": "info"}
    mixed = document.get("lineup") == "mixed"
    what = ("seat 1's edge (a mixed line-up: skill, not seat order)" if mixed else
            f"the first seat's edge among {one_player(document['strategies'])} players")
    groups = {j: [str(v) for v, _, _, k in judged if k == j] for j in ("within", "beyond", "unsettled")}
    span = f"Across {key} = {judged[0][0]}..{judged[-1][0]} ({len(judged)} points)"
    if len(groups["within"]) == len(judged):
        first = f"{span} {what} stays within ±{limit:g} pp, fair, at every point."
    else:
        clauses = [f"{words} at {key} = {', '.join(groups[j])}" for j, words in
                   (("within", f"fair (within ±{limit:g} pp)"), ("beyond", f"out of line (beyond ±{limit:g} pp)"),
                    ("unsettled", "unsettled (more games would tell)")) if groups[j]]
        first = f"{span} {what} is " + "; ".join(clauses) + "."
    best = min(judged, key=lambda j: abs(j[1]))
    second = (f"It is closest to even at {key} = {best[0]}: {best[1]:+.2f} pp [{best[2][0]:+.2f}, {best[2][1]:+.2f}].")
    sentences = [first, second]
    change = next((r for r in document["range_change"]["figures"] if r["key"] == "advantage"), None)
    if change and change["change"] is not None and None not in change["change_ci"]:
        low, high = (100 * v for v in change["change_ci"])
        sentences.append(f"From {key} = {document['range_change']['from']} to {document['range_change']['to']} it "
                         f"moves by {100 * change['change']:+.2f} pp [{low:+.2f}, {high:+.2f}] (paired, the same games).")
    return {"sentences": sentences, "note": stated("seat_pp"), "tone": tone(*[j for *_, j in judged])}


# --------------------------------------------------------------------------------------------
# text, charts, report
# --------------------------------------------------------------------------------------------

def _header(document: dict) -> list[str]:
    base = document["base"]
    on = "the published rules" if base["source"] is None else f"{base['name']} ({where_from(base)}; changes: " \
                                                              f"{fmt_settings(base['settings'])})"
    return [f"{document['title']} ({document['game']}): {document['players']} players, "
            f"{games_phrase(document['games'])} per point{design_said(document)}, seed {document['seed']}, strategies {', '.join(document['strategies'])}",
            f"sweep of {document['key']} = {', '.join(map(str, document['values']))} on {on}"]


def point_rows(document: dict, figures: list[dict]) -> list[list[str]]:
    """One row per point: the key's value, then each figure's value with its interval."""
    return [[str(point["value"])] + [fmt_value(f["kind"], point["figures"][f["key"]]["value"],
                                               point["figures"][f["key"]]["ci"]) for f in figures]
            for point in document["points"]]


def range_headers(document: dict) -> list[str]:
    change = document["range_change"]
    key = document["key"]
    return (["figure", "unit", f"{key} = {change['from']} [95% CI]", f"{key} = {change['to']} [95% CI]"]
            + WHATIF_HEADERS[4:])


def range_notes(document: dict) -> list[str]:
    change = document["range_change"]
    return [design_note(document), f"Change from {document['key']} = {change['from']} to {change['to']}: paired per-game differences of the "
            f"same {games_phrase(document['games'])}; 95% normal intervals, two-sided z-test; q: Benjamini–Hochberg "
            f"over the {change['tests']} figures tested. CRN gain: how many times more independent games the same "
            "precision would take."]


def format_text(document: dict) -> str:
    out = _header(document)
    found = document.get("verdict") or verdict(document)
    out += ["", "verdict: " + " ".join(found["sentences"]), f"  ({found['note']})"]
    if document["assumed"]:
        out += ["", "!! ASSUMED — these results rest on game data that is not confirmed:"]
        out += [f"!!   - {note}" for note in document["assumed"]]
    for figure in document["figures"]:
        out += ["", f"{figure['label']}, {figure['unit']} [95% CI]:"]
        out += fixed_width([document["key"], "value [95% CI]"], point_rows(document, [figure]))
    out += ["", f"from {document['key']} = {document['range_change']['from']} to "
                f"{document['range_change']['to']}, paired by game index"
                f"{design_said(document, '', ' and clustered by deal')}:"]
    out += fixed_width(range_headers(document), variant_table(document["range_change"]["figures"]))
    out += [""] + range_notes(document)
    return "\n".join(out) + "\n"


def chart_groups(document: dict) -> list[tuple[str, str, str, list[dict]]]:
    """(file stem, title, y-axis label, figures) of each chart: first-player advantage, game
    length, and the rule events of each unit."""
    figures = document["figures"]
    groups = [("sweep-advantage", "First seat's edge", "seat 1 win share − 1/N (percentage points)",
               [f for f in figures if f["kind"] == "advantage"])]
    length = [f for f in figures if f["kind"] == "length"]
    if length:
        groups.append(("sweep-length", "Game length", "units per game (as named)", length))
    for per in dict.fromkeys(f["per"] for f in figures if f["kind"] == "rate"):
        slug = re.sub(r"[^a-z0-9]+", "-", per.lower()).strip("-")
        groups.append((f"sweep-rates-{slug}", f"Rule events per {per}", f"rate per {per} (%)",
                       [f for f in figures if f["kind"] == "rate" and f["per"] == per]))
    return groups


def line_chart(document: dict, title: str, ylabel: str, figures: list[dict]) -> bytes:
    """Each figure against the swept key: a line through the points and its 95% band."""
    from matplotlib.figure import Figure as Canvas

    from analysis.charts import _png

    xs = document["values"]
    figure = Canvas(figsize=(8, 4.8), layout="constrained")
    axes = figure.add_subplot()
    for number, f in enumerate(figures):
        scale = 100.0 if f["kind"] in PERCENT_KINDS else 1.0
        measured = [p["figures"][f["key"]] for p in document["points"]]
        known = [(x, m) for x, m in zip(xs, measured) if m["value"] is not None and None not in m["ci"]]
        if not known:
            continue
        x = [k[0] for k in known]
        colour = f"C{number % 10}"
        axes.fill_between(x, [scale * m["ci"][0] for _, m in known], [scale * m["ci"][1] for _, m in known],
                          color=colour, alpha=0.2, linewidth=0)
        axes.plot(x, [scale * m["value"] for _, m in known], marker="o", markersize=3, color=colour,
                  label=f["label"])
    if figures and figures[0]["kind"] == "advantage":
        from analysis.verdict import thresholds

        limit = thresholds().seat_pp
        axes.axhline(0, color="0.4", linewidth=1, linestyle="--", label="no advantage")
        axes.axhspan(-limit, limit, color="#54a24b", alpha=0.12, linewidth=0, label=f"counts as fair (±{limit:g} pp)")
    if all(isinstance(x, int) for x in xs):  # a whole-number key: no ticks between its values
        from matplotlib.ticker import MaxNLocator

        axes.xaxis.set_major_locator(MaxNLocator(integer=True))
    key_text = f"{document['key']} — {document['key_description']}"
    axes.set_xlabel("\n".join(textwrap.wrap(key_text, 95)), fontsize=9)
    axes.set_ylabel(ylabel)
    axes.grid(alpha=0.3)
    figure.legend(loc="outside lower center", ncols=2, fontsize=8, title="bands: 95% intervals", title_fontsize=8,
                  frameon=False)
    figure.suptitle(f"{title} against {document['key']}", fontsize=13, fontweight="bold")
    axes.set_title(f"{document['title']} · {document['players']} players · {games_phrase(document['games'])} "
                   f"per point, the same games · seed {document['seed']}", fontsize=9, color="0.3")
    return _png(figure)


def report_blocks(document: dict) -> list:
    from analysis.page import Alert, Heading, Image, Items, Paragraph, Table

    from analysis.page import Verdict

    found = document.get("verdict") or verdict(document)
    groups = chart_groups(document)
    stem, title, ylabel, figures = groups[0]
    blocks = [Heading(1, f"Sweep of {document['key']}: {document['title']}, {document['players']} players"),
              Verdict(found["sentences"], found["note"], found["tone"]),
              Image(f"{stem}.png", f"{title} against {document['key']} with 95% bands: "
                                   + ", ".join(f"{p['value']}: {fmt_value('advantage', p['figures']['advantage']['value'], p['figures']['advantage']['ci'])}"
                                               for p in document["points"]),
                    line_chart(document, title, ylabel, figures), lead=True)]
    if document["assumed"]:
        blocks.append(Alert("ASSUMED: these results rest on game data that is not confirmed", document["assumed"]))
    blocks.append(Items(_header(document) + [f"{document['key']}: {document['key_description']}",
                                             f"version: {document['version']}"]))
    blocks.append(Paragraph("Every point plays the same games (the same seed and game indices), so the curves "
                            "move together and their shape is more certain than the bands suggest. Bands and "
                            "brackets are 95% intervals: " + design_said(
                                document, "Wilson for the first seat's edge, delta-method normal (games as the "
                                "sampling unit) for rates and game length.", "delta-method normal, clustered by deal "
                                "(duplicate deals: the deals are the sampling unit), for every figure.")))
    blocks += [Heading(2, title), Table([document["key"]] + [f"{f['label']} ({f['unit']}) [95% CI]" for f in figures],
                                        point_rows(document, figures))]
    for stem, title, ylabel, figures in groups[1:]:
        blocks += [Heading(2, title), Image(f"{stem}.png", f"{title} against {document['key']} with 95% bands",
                                            line_chart(document, title, ylabel, figures)),
                   Table([document["key"]] + [f"{f['label']} ({f['unit']}) [95% CI]" for f in figures],
                         point_rows(document, figures))]
    blocks += [Heading(2, f"From {document['key']} = {document['range_change']['from']} to "
                          f"{document['range_change']['to']}"),
               *[Paragraph(note) for note in range_notes(document)],
               Table(range_headers(document), variant_table(document["range_change"]["figures"]))]
    return blocks


def write(document: dict, out_dir: Path) -> Path:
    from analysis.page import placed, write_blocks

    # the variant file swept from, named as the page names it (analysis/page.py, ``page_path``)
    document = {**document, "base": placed(document["base"], "source", out_dir),
                "points": [{**point, "variant": placed(point["variant"], "source", out_dir)}
                           for point in document["points"]]}
    return write_blocks(report_blocks(document), document, out_dir, stem="sweep")
