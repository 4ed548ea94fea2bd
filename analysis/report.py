"""Write a balance report: ``report.md`` with PNG charts beside it, and a self-contained
``report.html`` (charts as base64 data URIs, inline CSS, no scripts, no external resources).

Several results files may be given.  They must all be of one game.  Files whose metadata agree
(shards of one run) are pooled; runs that differ (variant, strategies, seed...) each get their
own section, followed by a comparison of every later run against the first.

The page is described once as a list of blocks and rendered twice (Markdown and HTML), so the
two reports cannot drift apart.  Everything is computed and rendered before anything is
written, then written into a staging directory beside ``out_dir`` and moved into place.
"""
from __future__ import annotations

from pathlib import Path
from typing import Sequence

from analysis import cards
from analysis import charts as charting
from analysis import stats
from analysis.page import (Alert, Heading, Image, Items, Link, Paragraph, Table, Verdict,  # noqa: F401 (re-exported)
                           file_mention, page_path, render_html, render_markdown, write_blocks)
from analysis.summary import (Run, advantage_line, balance_line, event_table, fmt_p, fmt_pct_ci, fmt_pp, length_line,
                              fmt_settings, games_phrase, load_runs, score_counts, seat_table, strength_table,
                              summarize, team_table)
from simcore.errors import BalanceError



def _run_labels(summaries: list[dict]) -> list[str]:
    """Name each run by what sets it apart from the others (variant, strategies, seed...)."""
    described = [{
        "variant": f"{s['variant']['name']} ({fmt_settings(s['variant']['settings'])})",
        "strategies": ", ".join(s["strategies"]),
        "players": f"{s['players']} players",
        "seed": f"seed {s['seed']}",
        "version": f"version {s['version']}",
    } for s in summaries]
    differing = [key for key in described[0] if len({d[key] for d in described}) > 1]
    labels = []
    for number, description in enumerate(described, start=1):
        detail = "; ".join(description[key] for key in differing)
        labels.append(f"run {number}: {detail}" if detail else f"run {number}")
    return labels


def _results_line(sources: list[str], page_dir: str | Path | None) -> list:
    """The line naming the run's files as the page in ``page_dir`` names them: each a link
    relative to the page where the file is beside it, else its name alone (analysis/page.py,
    ``page_path``); with no ``page_dir``, the paths as given."""
    named = sources if page_dir is None else [file_mention(source, page_dir) for source in sources]
    parts: list = ["results: "]
    for number, name in enumerate(named):
        parts += [", "] * (number > 0) + [name]
    return parts



def _who_starts(summary: dict) -> str:
    """Who sits first, as the run's game says: seat 1 for every built-in game; a rules-file game
    whose first lead is a card's holder's, or whose first dealer is drawn, says so instead."""
    if summary.get("seat_1_plays_first", True):
        return "Seat 1 leads or starts first."
    text = summary.get("first_seat", "")
    return text[:1].upper() + text[1:] + "."

def _run_blocks(summary: dict, sources: list[str], charts: dict[str, bytes], prefix: str,
                level: int, lead: bool = False, page_dir: str | Path | None = None) -> list:
    """One run's sections.  With ``lead`` the win-share chart has already been shown under the
    page's verdict, so it is not repeated."""
    variant = summary["variant"]
    seats = "; ".join(f"{s['name']}: {s['strategy_label']}" for s in summary["seats"])
    about = [
        f"game: {summary['title']} ({summary['game']})",
        f"players: {summary['players']}",
        f"strategies: {seats}",
        f"variant: {variant['name']}, changed settings: {fmt_settings(variant['settings'])}"
        + (f" ({variant['description']})" if variant["description"] else ""),
        f"seed: {summary['seed']}",
        f"games: {summary['games']:,}",
        f"version: {summary['version']}",
        _results_line(sources, page_dir),
    ]
    blocks: list = [Items(about)]
    if summary["notes"]:
        blocks.append(Alert("Data notes", summary["notes"]))
    games = games_phrase(summary["games"])
    blocks += [
        Heading(level, f"Seats ({games})"),
        Paragraph(_who_starts(summary) + " Win shares count a k-way tie as 1/k of a win for each "
                  "tied seat; intervals are 95% Wilson score intervals, mean scores carry 95% "
                  "normal-approximation intervals."),
        Table(*seat_table(summary)),
    ]
    if summary.get("strategy_strength"):
        blocks += [Paragraph("The seats play different strategies, so their differences are strategy strength, "
                             "not seat order: each strategy's seats pooled, against the fair share."),
                   Table(*strength_table(summary))]
    if summary.get("teams"):  # game.teams: partners win together, and the game is judged by team
        blocks += [Paragraph("Partners score and win together (game.teams): each team's win share is its seats' "
                             "added up, with a 95% Wilson interval; the game is judged by team."),
                   Table(*team_table(summary))]
    blocks.append(Items([advantage_line(summary), balance_line(summary)]
                        + ([length_line(summary)] if length_line(summary) else [])))
    names = {"win-share": "Win share by seat", "scores": "Final score distribution by seat",
             "event-rates": "Rule event rates"}
    blocks += [Image(f"{prefix}{stem}.png", chart_alt(stem, summary) or names[stem], png)
               for stem, png in charts.items() if stem != "event-rates" and not (lead and stem == "win-share")]
    if summary["events"]:
        blocks += [
            Heading(level, f"Rule events ({games})"),
            Paragraph("Mean per game with a 95% normal interval; share of games where the event "
                      "fired at least once and rate per unit (each unit one trial) with 95% "
                      "Wilson intervals."),
            Table(*event_table(summary)),
        ]
        if "event-rates" in charts:
            blocks.append(Image(f"{prefix}event-rates.png", chart_alt("event-rates", summary), charts["event-rates"]))
    for figure in summary.get("figures", []):
        blocks.append(Heading(level, figure["title"]))
        if figure.get("note"):
            blocks.append(Paragraph(figure["note"]))
        blocks.append(Table(figure["headers"], figure["rows"]))
    return blocks


def chart_alt(stem: str, summary: dict) -> str:
    """Alt text that says what a chart shows, not just what it is."""
    if stem == "win-share":
        shares = ", ".join(f"{s['name']} {100 * s['win_share']:.1f}%" for s in summary["seats"])
        return (f"Win share by seat with 95% intervals against the fair {100 / summary['players']:.1f}%: {shares}")
    if stem == "scores":
        means = ", ".join(f"{s['name']} {s['mean_score']:.1f}" for s in summary["seats"] if s["mean_score"] is not None)
        return f"Final score distribution by seat with 95% bands; mean scores {means}"
    if stem == "event-rates":
        rates = ", ".join(f"{e['label']} {100 * e['rate']:.1f}% per {e['per']}" for e in summary["events"]
                          if e["rate"] is not None)
        return f"Rule event rates with 95% intervals: {rates}"
    return ""


def page_verdict(summary: dict, card_rows: list[dict] | None, skill: dict | None) -> Verdict:
    """The report's opening: is it fair (or, for a mixed line-up, which strategy is stronger),
    which card is out of line, and how much skill matters; at most three sentences."""
    from analysis import verdict as judging

    seat = judging.run_verdict(summary, skill)
    sentences = list(seat["sentences"])
    keys = ["seat_pp"]
    outcomes = [seat["judgement"]] if seat["kind"] != "strategy strength" else []
    if card_rows is not None and len(sentences) < 3:
        # the strongest card only: the card section's own verdict names more, and the page's
        # verdict and first chart must fit above the fold
        found = cards.verdict(card_rows, summary["games"], judging.lineup_players(summary), top=1)
        sentences.append(found["sentences"][0])
        keys.append("card_pp")
        outcomes.append(found["judgement"])
    if skill is not None and seat["kind"] != "tiers" and len(sentences) < 3:
        sentences.append(skill["verdict"][0])  # a tiered headline has said it; the skill section says the rest
    colour = judging.tone(*outcomes) if outcomes else "info"
    if colour == "good" and seat["tone"] == "warn":  # fair at the strongest settled tier, but the tiers disagree
        colour = "warn"
    extra = seat["note"].removeprefix(judging.stated("seat_pp"))  # the tiers' own note, if any
    return Verdict(sentences[:3], judging.stated(*keys) + extra, colour)


def compare(summaries: list[dict], labels: list[str]) -> list[dict]:
    """Every later run against the first: seat win shares and per-unit event rates.

    Differences carry Newcombe hybrid score intervals and two-sided two-proportion z-test
    p-values; q is the Benjamini-Hochberg adjustment over all comparisons together.
    """
    base = summaries[0]
    rows = []

    def add(label, measure, x1, n1, x0, n0, value_ci, baseline_ci):
        if n1 <= 0 or n0 <= 0 or x1 > n1 or x0 > n0:
            return  # a rate that is not a proportion (more than one firing per unit)
        rows.append({"run": label.split(":")[0], "run_label": label, "measure": measure,
                     "value": x1 / n1, "value_ci": value_ci,
                     "baseline": x0 / n0, "baseline_ci": baseline_ci,
                     "difference": x1 / n1 - x0 / n0,
                     "difference_ci": list(stats.difference_interval(x1, n1, x0, n0)),
                     "p_value": stats.two_proportion_z_test(x1, n1, x0, n0).p_value})

    for summary, label in zip(summaries[1:], labels[1:]):
        if summary["players"] == base["players"]:
            for seat, seat0 in zip(summary["seats"], base["seats"]):
                add(label, f"win share, seat {seat['seat'] + 1}",
                    seat["wins"], summary["games"], seat0["wins"], base["games"],
                    seat["win_share_ci"], seat0["win_share_ci"])
        base_events = {e["column"]: e for e in base["events"]}
        for event in summary["events"]:
            event0 = base_events.get(event["column"])
            if event0 and event["trials"] and event0["trials"]:
                add(label, f"{event['label']} per {event['per']}",
                    event["total"], event["trials"], event0["total"], event0["trials"],
                    event["rate_ci"], event0["rate_ci"])
    for row, q in zip(rows, stats.benjamini_hochberg([r["p_value"] for r in rows])):
        row["q_value"] = q
    return rows


def _comparison_blocks(rows: list[dict], baseline: str) -> list:
    blocks = [Heading(2, f"Comparison with {baseline}")]
    if not rows:
        return blocks + [Paragraph("Nothing comparable between these runs.")]
    blocks += [
        Paragraph(f"Differences are (run − {baseline.split(':')[0]}) in percentage points with "
                  "Newcombe 95% hybrid score intervals; p from two-sided two-proportion z-tests; "
                  f"q is Benjamini–Hochberg adjusted over all {len(rows)} comparisons."),
        Table(["run", "measure", "value % [95% CI]", "baseline % [95% CI]", "difference pp [95% CI]",
               "p", "q (BH)"],
              [[r["run"], r["measure"], fmt_pct_ci(r["value"], r["value_ci"]),
                fmt_pct_ci(r["baseline"], r["baseline_ci"]),
                fmt_pp(100 * r["difference"], [100 * v for v in r["difference_ci"]], unit=""),
                fmt_p(r["p_value"]), fmt_p(r["q_value"])]
               for r in rows]),
    ]
    return blocks


def _sources(run: Run, page_dir: str | Path | None) -> dict:
    """The run's files as summary.json names them: relative to the page's folder where they are
    beside it, else by file name (``sources_beside`` says which); with no ``page_dir``, as given."""
    if page_dir is None:
        return {"sources": run.sources}
    named = [page_path(source, page_dir) for source in run.sources]
    return {"sources": [name for name, _ in named], "sources_beside": [beside for _, beside in named]}


def build(runs: list[Run], skill: dict | None = None, page_dir: str | Path | None = None,
          tier_runs: dict | None = None) -> tuple[list, dict]:
    """The page's blocks and the JSON document of all summaries (and comparisons); ``skill`` (a
    skill profile of the game, analysis/skill.py) adds the "Skill and luck" section.  ``page_dir``
    is the folder the page will be written into: the run files are named relative to it, or by
    file name where they are not beside it, so the page says nothing of the writer's folders.

    The page opens with its verdict and the chart that shows it (the first run's win shares);
    the tables follow."""
    from analysis import verdict as judging

    summaries = [summarize(run.frame, run.meta) for run in runs]
    first = summaries[0]
    several = len(runs) > 1
    title = (f"Balance report: {first['title']}" if several
             else f"Balance report: {first['title']}, {first['players']} players")
    labels = _run_labels(summaries) if several else [""]
    sections, card_tables = [], []
    for number, (run, summary, label) in enumerate(zip(runs, summaries, labels), start=1):
        charts = charting.all_charts(summary, score_counts(run.frame, summary["players"]))
        if number == 1:
            lead = Image(f"{'run1-' if several else ''}win-share.png", chart_alt("win-share", summary),
                         charts["win-share"], lead=True)
        section: list = []
        if several:
            section.append(Heading(2, label))
        prefix, level = (f"run{number}-", 3) if several else ("", 2)
        section += _run_blocks(summary, run.sources, charts, prefix, level, lead=number == 1, page_dir=page_dir)
        if skill is not None and number == 1:
            from analysis.skill import blocks as skill_blocks

            section += skill_blocks(skill, summary["title"], prefix, level)
        if "trap_tallies" in run.meta:  # The Sky City of ALEA: the trap section
            from analysis.traps import report_blocks

            section += report_blocks(run.meta, run.frame, prefix, level)
        # the card games: how much each card in the opening hand is worth (analysis/cards.py)
        card_section, card_rows = cards.report_section(run.frame, run.meta, prefix, level)
        section += card_section
        if tier_runs and card_rows is not None and number == 1:  # the same measure at the other tiers
            section += cards.tier_blocks(card_rows, judging.lineup_players(summary) or "mixed", tier_runs, level)
        card_tables.append(card_rows)
        if card_rows is not None:
            summary["card_strength"] = card_rows
        summary["verdict"] = judging.run_verdict(summary, skill if number == 1 else None)
        sections.append(section)

    if several:
        rows = compare(summaries, labels)
        sentences = [f"{label.split(':')[0].capitalize()}: {judging.short_verdict(s)[0]}."
                     for s, label in zip(summaries, labels)][:2]
        sentences.append(_comparison_sentence(rows, labels[0]))
        opening = Verdict(sentences, judging.stated("seat_pp"), "info")
    else:
        rows = None
        opening = page_verdict(first, card_tables[0], skill)
    blocks: list = [Heading(1, title), opening, lead]
    assumed = list(dict.fromkeys(note for s in summaries for note in s["assumed"]))
    if assumed:
        blocks.append(Alert("ASSUMED: these results rest on game data that is not confirmed", assumed))
    if several:
        blocks.append(Paragraph(f"{len(runs)} runs of {first['title']} ({first['game']}): "
                                + "; ".join(labels) + "."))
    for section in sections:
        blocks += section
    document = {"verdict": {"sentences": opening.sentences, "note": opening.note, "tone": opening.tone},
                "thresholds": vars(judging.thresholds()),
                "runs": [{**s, **_sources(r, page_dir)} for s, r in zip(summaries, runs)]}
    if skill is not None:
        document["skill"] = skill
    if several:
        blocks += _comparison_blocks(rows, labels[0])
        document["comparison"] = rows
    return blocks, document


def _comparison_sentence(rows: list[dict], baseline: str) -> str:
    """The largest seat change between the runs, with its interval."""
    seats = [r for r in rows if r["measure"].startswith("win share")]
    if not seats:
        return f"Nothing about the seats is comparable with {baseline.split(':')[0]}."
    top = max(seats, key=lambda r: abs(r["difference"]))
    low, high = (100 * v for v in top["difference_ci"])
    return (f"The largest seat change against {baseline.split(':')[0]} is {top['run']}'s {top['measure']}: "
            f"{100 * top['difference']:+.1f} pp [{low:+.1f}, {high:+.1f}].")


def write_report(path_or_paths: str | Path | Sequence[str | Path], out_dir: str | Path,
                 skill: dict | None = None, tier_runs: dict | None = None) -> Path:
    """Write ``report.md``, its PNG charts, ``report.html`` and ``summary.json`` into ``out_dir``.

    The run files are named relative to ``out_dir`` where they lie inside it or beside it (a link
    that still works once the folder is moved), else by file name alone.
    All files of one game; raises BalanceError with a one-line message otherwise, and for any
    unreadable input.  Nothing in ``out_dir`` changes unless the whole report was built.
    Returns ``out_dir``.
    """
    out_dir = Path(out_dir)
    if out_dir.exists() and not out_dir.is_dir():
        raise BalanceError(f"{out_dir} exists and is not a directory")
    runs = load_runs(path_or_paths)
    blocks, document = build(runs, skill, out_dir, tier_runs)
    return write_blocks(blocks, document, out_dir)
