"""The balance book: every game at every player count, one report each, and an index page with
a one-table overview (first-player advantage, seat-equality test, game length, the main
rule-event rates) and a chart of first-player advantage across the games.

A game added to ``simcore.registry.GAMES`` appears here with no change to this file: everything is
read from the game's class (player counts, strategies, events) and from its run's summary.
"""
from __future__ import annotations

import contextlib
from pathlib import Path

import polars as pl

from analysis.summary import fmt_num_ci, fmt_p, fmt_pct_ci, fmt_pp, mean_sd, summarize
from simcore.errors import BalanceError
from simcore.parts import scan_run

MAIN_EVENTS = 3  # rule events shown per row of the overview


def _rounds(frame: pl.LazyFrame, meta: dict, confidence: float) -> str:
    """Rounds per game with its interval, where the game has rounds."""
    from analysis import stats

    counted = meta.get("unit_columns", {}).get("round")  # a rules file played to a target counts its rounds
    column = "rounds" if "rounds" in frame.collect_schema() else counted
    if column and column in frame.collect_schema():
        # from exact integer totals, streamed: the same bits on every call whatever the threads
        mean, sd = mean_sd(pl.col(column))
        row = frame.select(m=mean, s=sd, n=pl.len()).collect(engine="streaming").row(0, named=True)
        return fmt_num_ci(row["m"], stats.mean_interval(row["m"], row["s"] or 0.0, row["n"], confidence))
    if isinstance(meta.get("rounds_per_game"), (int, float)):
        return f"{meta['rounds_per_game']:.2f}"
    return "—"


def overview_row(summary: dict, rounds: str, link: str) -> list[str]:
    fpa = summary["first_player_advantage"]
    test = summary["seat_balance"]
    events = [e for e in summary["events"] if e["rate"] is not None][:MAIN_EVENTS]
    rates = "; ".join(f"{e['label']} ({e['per']}): {fmt_pct_ci(e['rate'], e['rate_ci'])}" for e in events)
    labels = dict.fromkeys(seat.get("strategy_label", seat["strategy"]) for seat in summary["seats"])
    return [summary["title"], str(summary["players"]), f"{summary['games']:,}", ", ".join(labels),
            fmt_pp(fpa["pp"], fpa["ci_pp"]), fmt_p(test["p_value"]) if test else "—", rounds, rates or "—",
            *skill_cells(summary.get("skill")), link]


def skill_cells(profile: dict | None) -> list[str]:
    """The strongest gap (one top-tier player among the tier below) and the first-seat edge at the
    weakest and strongest tier, for the overview."""
    if profile is None:
        return ["—", "—"]
    top = profile["gaps"][-1]
    edges = profile["first_seat_edge"]
    return [f"one {top['hero']} among {top['field']}: {fmt_pct_ci(top['win_share'], top['ci'])}",
            " → ".join(f"{e['tier']} {e['edge_pp']:+.1f} [{e['ci_pp'][0]:+.1f}, {e['ci_pp'][1]:+.1f}]"
                       for e in edges) + " pp"]


OVERVIEW_HEADERS = ["game", "players", "games", "strategies", "first-seat edge [95% CI]",
                    "seat equality p", "rounds per game [95% CI]", "main rule events, rate % [95% CI]",
                    "skill: the top player's share [95% CI]", "first-seat edge by tier [95% CI]", "report"]


def verdict_grid(summaries: list[dict], slugs: list[str]):
    """The index's one-screen answer: one row per game, one column per player count, each cell
    the short verdict of that report (fair / out of line / unsettled, with the edge that decides
    it) linking to it."""
    from analysis.page import Grid, Link
    from analysis.verdict import short_verdict

    counts = sorted({s["players"] for s in summaries})
    games = list(dict.fromkeys(s["title"] for s in summaries))
    cells = {(s["title"], s["players"]): (s, slug) for s, slug in zip(summaries, slugs)}
    rows = []
    for title in games:
        row = [title]
        for players in counts:
            if (title, players) not in cells:
                row.append("—")
                continue
            summary, slug = cells[title, players]
            text, colour = short_verdict(summary)
            row.append((Link(text, f"{slug}/report.html"), colour))
        rows.append(row)
    return Grid(["game"] + [f"{n} players" for n in counts], rows)


def book_verdict(summaries: list[dict]) -> tuple[list[str], str]:
    """The index's opening: how many rows are fair, out of line or unsettled, and which."""
    from analysis.verdict import among, run_verdict, tone

    verdicts = [s.get("verdict") or run_verdict(s, s.get("skill")) for s in summaries]
    judged = list(zip(summaries, verdicts))
    fair = [(s, v) for s, v in judged if v["judgement"] == "within"]
    beyond = [(s, v) for s, v in judged if v["judgement"] == "beyond"]
    unsettled = [(s, v) for s, v in judged if v["judgement"] == "unsettled"]
    tiered = any(v["kind"] == "tiers" for v in verdicts)
    players = sorted({v["players"] for v in verdicts if v.get("players")})
    whose = ("each judged among the strongest players whose first-seat edge settled it" if tiered else
             among(players[0]) if len(players) == 1 else "each among the players its row names")
    first = (f"Of {len(summaries)} games at their player counts, {whose}: {len(fair)} "
             f"{'is' if len(fair) == 1 else 'are'} fair, {len(beyond)} out of line and {len(unsettled)} unsettled.")
    sentences = [first]

    def named(pairs):
        """``BIRD & WEATHER at 3, 4 and 5 players (among heuristic players); ...``: one entry per
        game and the players it was judged among."""
        groups: dict = {}
        for s, v in pairs:
            groups.setdefault((s["title"], v.get("players")), []).append(s["players"])
        parts = []
        for (title, players), counts in groups.items():
            numbers = ", ".join(map(str, counts[:-1])) + " and " + str(counts[-1]) if len(counts) > 1 else str(counts[0])
            parts.append(f"{title} at {numbers} players" + (f" ({among(players)})" if players else ""))
        return "; ".join(parts[:5]) + (f" and {len(parts) - 5} more" if len(parts) > 5 else "")

    if beyond:
        sentences.append(f"Out of line: {named(beyond)}.")
    disagree = [(s, v) for s, v in judged if v.get("tiers_disagree") and v["judgement"] != "beyond"]
    open_tiers: dict[str, int] = {}  # tiers whose budget ran out before they settled, and in how many rows
    for v in verdicts:
        for t in v.get("tiers", []):
            if t["judgement"] == "unsettled":
                open_tiers[t["tier"]] = open_tiers.get(t["tier"], 0) + 1
    if unsettled or disagree or open_tiers:
        parts = [f"unsettled (more games would tell): {named(unsettled)}"] if unsettled else []
        if disagree:
            parts.append(f"fair at the strongest settled tier but not at every tier: {named(disagree)}")
        if open_tiers:
            parts.append("tiers their budgets left unsettled (a row is judged at its strongest settled tier): "
                         + ", ".join(f"{name} players in {count} of {len(summaries)} rows"
                                     for name, count in open_tiers.items()))
        text = "; ".join(parts)
        sentences.append(text[0].upper() + text[1:] + ".")
    outcomes = [v["judgement"] for v in verdicts] + ["unsettled"] * bool(disagree)
    return sentences[:3], tone(*outcomes)


def tier_points(summary: dict) -> list[tuple[str, float, list, int]]:
    """(players, seat 1's edge in pp, its 95% interval, games) at every tier a row measured,
    weakest first: the run's own line-up, and each skill tier it does not stand in for."""
    from analysis.verdict import lineup_players, run_stands_in

    own = lineup_players(summary) if summary.get("lineup") != "mixed" else None
    run = summary["first_player_advantage"]
    points = {own or "mixed line-up": (run["pp"], run["ci_pp"], summary["games"])}
    for entry in (summary.get("skill") or {}).get("first_seat_edge", []):
        if run_stands_in(summary, entry):
            continue
        points[entry["tier"]] = (entry["edge_pp"], entry["ci_pp"], entry["games"])
    order = list((summary.get("skill") or {}).get("tiers", []))
    ranked = sorted(points, key=lambda name: order.index(name) if name in order else -1)
    return [(name, *points[name]) for name in ranked]


TIER_COLOURS = ["#4c78a8", "#f58518", "#54a24b", "#b279a2", "#9d755d"]


def fpa_chart(summaries: list[dict]) -> bytes:
    """First seat's edge with its 95% interval, one row per game and player count and one marker
    per tier of players measured (every seat the same tier); the subtitle says whose play and how
    many games each tier rests on."""
    import textwrap

    from matplotlib.figure import Figure

    from analysis.charts import finished
    from analysis.verdict import thresholds

    labels = [f"{s['title']}, {s['players']}p" for s in summaries]
    rows = [tier_points(s) for s in summaries]
    tiers = list(dict.fromkeys(name for row in rows for name, *_ in row))
    counts = {name: sorted({games for row in rows for n, _, _, games in row if n == name}) for name in tiers}
    games = "; ".join(f"{name} {c[0]:,}" + (f"–{c[-1]:,}" if len(c) > 1 else "") for name, c in counts.items())
    figure = Figure(figsize=(8, 0.45 * len(summaries) + 2.2), layout="constrained")
    axes = figure.add_subplot()
    y = list(range(len(summaries)))[::-1]
    limit = thresholds().seat_pp
    axes.axvspan(-limit, limit, color="#54a24b", alpha=0.15, linewidth=0, label=f"counts as fair (±{limit:g} pp)")
    spread = 0.5 / max(1, len(tiers))
    for k, name in enumerate(tiers):
        offset = (k - (len(tiers) - 1) / 2) * spread
        found = [(row_y, value, ci) for row_y, row in zip(y, rows) for n, value, ci, _ in row if n == name]
        if not found:
            continue
        at = [row_y - offset for row_y, _, _ in found]
        values = [value for _, value, _ in found]
        error = [[value - ci[0] for _, value, ci in found], [ci[1] - value for _, value, ci in found]]
        axes.errorbar(values, at, xerr=error, fmt="o", color=TIER_COLOURS[k % len(TIER_COLOURS)], capsize=3,
                      markersize=4, label=f"among {name} players")
    axes.axvline(0, color="#888", linewidth=1)
    axes.set_yticks(y, labels)
    axes.set_ylabel("game, player count")
    tiered = any(s.get("skill") for s in summaries)
    timed = any("seconds_budget" in e for s in summaries for e in (s.get("skill") or {}).get("first_seat_edge", ()))
    skill_level = "99% or more, Bonferroni over each tier's looks" if timed else "99%"
    level = f"95% interval ({skill_level} for the skill tiers)" if tiered else "95% interval"
    axes.set_xlabel(f"first seat's edge: seat 1 win share − 1/N (percentage points), {level}")
    title = "First seat's edge by game, player count and players"
    how = (f"Wilson intervals: 95% for each row's run, {skill_level} for a skill tier, played until settled" if tiered
           else "95% Wilson intervals")
    # wrapped to the plot's width: the subtitle sits over the axes, right of the game labels
    subtitle = textwrap.fill(f"every seat the same tier of players · {how} · games per row: {games}", 72)
    return finished(figure, axes, title, subtitle, grid="x", columns=min(4, len(tiers) + 1))


def write_book(out_dir: str | Path, games: int = 100_000, seed: int = 1, strong: bool = False,
               threads: int | None = None, progress: bool = True, only: list[str] | None = None,
               confidence: float = 0.95, skill_games: int = 100_000,
               search_games: int = 4_000, force: bool = False, resume: bool = False,
               tier_seconds: float | None = None) -> tuple[Path, list[list[str]]]:
    """Run every game (or ``only`` these) at every player count, write ``<game>-<N>p/report.html``
    for each and ``index.html`` / ``index.md`` linking them.  Returns (out_dir, overview rows).
    The runs are kept in ``runs/``: ``force`` replaces them, ``resume`` keeps the finished ones
    and finishes an interrupted one (only its missing games are played).  ``tier_seconds``: each
    skill tier plays until settled or that long, its game budget a cap (analysis/skill.py)."""
    from analysis.page import Heading, Image, Link, Paragraph, Table, Verdict, write_blocks
    from analysis.verdict import run_verdict, stated, thresholds
    from analysis.report import write_report
    from analysis.skill import skill_profile, tiers_of
    from simcore.driver import check_output_path, run_games
    from simcore.registry import game_names, get_game

    out_dir = Path(out_dir)
    if out_dir.exists() and not out_dir.is_dir():
        raise BalanceError(f"{out_dir} exists and is not a directory")
    names = only or game_names()
    for name in names:
        get_game(name)  # unknown names fail before anything runs
    runs_dir = out_dir / "runs"
    check_output_path(runs_dir / "probe.parquet")
    from simcore.builds import stock_loops
    from simcore.warm import warm_games

    # the skill tiers compile every game's stock loop: the random seats play it too, and no
    # random build is compiled besides (simcore/builds.py, stock_loops)
    with stock_loops() if skill_games > 0 else contextlib.nullcontext():
        warm_games(names, announce=progress)  # an empty cache: every game's play loop at once, one process each
        rows, summaries, slugs = [], [], []
        for name in names:
            game = get_game(name)
            for players in game.player_counts:
                setup = game.setup(players, game.variant())
                lineup = game.lineup(tiers_of(game)[-1] if strong else None, players)
                slug = f"{name}-{players}p"
                result = run_games(game, setup, lineup, game.variant(), seed, games, threads=threads,
                                   out=runs_dir / f"{slug}.parquet", progress=progress, force=force, resume=resume)
                frame = scan_run(result.path)
                summary = summarize(frame, result.meta, confidence)
                profile, tier_runs = None, {}
                if skill_games > 0 and tiers_of(game):
                    profile = skill_profile(game, setup, game.variant(), seed, skill_games, search_games, threads,
                                            progress, frames=tier_runs, tier_seconds=tier_seconds)
                    summary["skill"] = profile
                summary["verdict"] = run_verdict(summary, profile)
                write_report([result.path], out_dir / slug, profile, tier_runs)
                summaries.append(summary)
                slugs.append(slug)
                rows.append(overview_row(summary, _rounds(frame, result.meta, confidence),
                                         Link(f"{slug}/report.html", f"{slug}/report.html")))
    strategy = "each game's strongest player in every seat" if strong else "each game's default strategy"
    sentences, colour = book_verdict(summaries)
    blocks = [Heading(1, "Balance book"),
              Verdict(sentences, stated("seat_pp") + " Each cell: the verdict of that report among the strongest "
                      "players whose edge settled it, the seat edge that decides it and, in brackets, the tiers "
                      "that disagree or stayed unsettled; the cell links to the report.", colour),
              verdict_grid(summaries, slugs),
              Paragraph(f"Every game at every player count, {games:,} games each, seed {seed}, {strategy}. "
                        "Seat 1 plays first; the first-seat edge is seat 1's win share minus 1/N, with its "
                        "95% Wilson interval; the seat-equality p-value is a chi-square test of equal seat "
                        "shares. Each row links to the full report."),
              Image("first-player-advantage.png", "First seat's edge by game, player count and players, with 95% "
                    "intervals: " + "; ".join(f"{s['title']} {s['players']}p " + ", ".join(
                        f"{value:+.2f} pp among {name}" for name, value, _, _ in tier_points(s)) for s in summaries),
                    fpa_chart(summaries)),
              Table(OVERVIEW_HEADERS, rows)]
    assumed = sorted({note for s in summaries for note in s["assumed"]})
    if assumed:
        blocks.insert(3, Paragraph("ASSUMED game data (not confirmed) behind some rows: " + "; ".join(assumed)))
    write_blocks(blocks, {"verdict": {"sentences": sentences, "tone": colour},
                          "thresholds": vars(thresholds()),
                          "overview": {"headers": OVERVIEW_HEADERS, "rows": rows}, "runs": summaries}, out_dir,
                 stem="index")
    return out_dir, rows
