"""The balance book: every game at every player count, one report each, and an index page with
a one-table overview (first-player advantage, seat-equality test, game length, the main
rule-event rates) and a chart of first-player advantage across the games.

A game added to ``simcore.game.GAMES`` appears here with no change to this file: everything is
read from the game's class (player counts, strategies, events) and from its run's summary.
"""
from __future__ import annotations

from pathlib import Path

import polars as pl

from analysis.summary import fmt_num_ci, fmt_p, fmt_pct_ci, fmt_pp, mean_sd, summarize
from simcore.errors import BalanceError

MAIN_EVENTS = 3  # rule events shown per row of the overview


def _rounds(frame: pl.LazyFrame, meta: dict, confidence: float) -> str:
    """Rounds per game with its interval, where the game has rounds."""
    from analysis import stats

    if "rounds" in frame.collect_schema():
        # from exact integer totals, streamed: the same bits on every call whatever the threads
        mean, sd = mean_sd(pl.col("rounds"))
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
    from analysis.verdict import summary_verdict, tone

    judged = [(s, summary_verdict(s)["judgement"]) for s in summaries]
    fair = [s for s, j in judged if j == "within"]
    beyond = [s for s, j in judged if j == "beyond"]
    unsettled = [s for s, j in judged if j == "unsettled"]
    first = (f"Of {len(summaries)} games at their player counts, {len(fair)} {'is' if len(fair) == 1 else 'are'} fair, "
             f"{len(beyond)} out of line and {len(unsettled)} unsettled.")
    sentences = [first]
    if beyond:
        sentences.append("Out of line: " + "; ".join(f"{s['title']} at {s['players']}" for s in beyond[:6])
                         + (f" and {len(beyond) - 6} more" if len(beyond) > 6 else "") + ".")
    if unsettled:
        sentences.append("Unsettled (more games would tell): "
                         + "; ".join(f"{s['title']} at {s['players']}" for s in unsettled[:6])
                         + (f" and {len(unsettled) - 6} more" if len(unsettled) > 6 else "") + ".")
    return sentences[:3], tone(*(j for _, j in judged))


def fpa_chart(summaries: list[dict]) -> bytes:
    """First-player advantage with its 95% interval, one row per game and player count; the
    subtitle says how many games each row rests on."""
    from matplotlib.figure import Figure

    from analysis.charts import finished

    labels = [f"{s['title']}, {s['players']}p" for s in summaries]
    values = [s["first_player_advantage"]["pp"] for s in summaries]
    lows = [v - s["first_player_advantage"]["ci_pp"][0] for v, s in zip(values, summaries)]
    highs = [s["first_player_advantage"]["ci_pp"][1] - v for v, s in zip(values, summaries)]
    counts = sorted({s["games"] for s in summaries})
    games = f"{counts[0]:,} games per row" if len(counts) == 1 else f"{counts[0]:,}–{counts[-1]:,} games per row"
    figure = Figure(figsize=(8, 0.45 * len(summaries) + 1.9), layout="constrained")
    axes = figure.add_subplot()
    y = list(range(len(summaries)))[::-1]
    from analysis.verdict import thresholds

    limit = thresholds().seat_pp
    axes.axvspan(-limit, limit, color="#54a24b", alpha=0.15, linewidth=0, label=f"counts as fair (±{limit:g} pp)")
    axes.errorbar(values, y, xerr=[lows, highs], fmt="o", color="#4c78a8", ecolor="#4c78a8", capsize=3,
                  label="seat 1 share − 1/N (95% CI)")
    axes.axvline(0, color="#888", linewidth=1)
    axes.set_yticks(y, labels)
    axes.set_ylabel("game, player count")
    axes.set_xlabel("first seat's edge (percentage points)")
    return finished(figure, axes, "First seat's edge by game and player count",
                    f"seat 1 win share minus the fair share 1/N · 95% Wilson intervals · {games}", grid="x")


def write_book(out_dir: str | Path, games: int = 100_000, seed: int = 1, strong: bool = False,
               threads: int | None = None, progress: bool = True, only: list[str] | None = None,
               confidence: float = 0.95, skill_games: int = 100_000,
               search_games: int = 4_000, force: bool = False, resume: bool = False) -> tuple[Path, list[list[str]]]:
    """Run every game (or ``only`` these) at every player count, write ``<game>-<N>p/report.html``
    for each and ``index.html`` / ``index.md`` linking them.  Returns (out_dir, overview rows).
    The runs are kept in ``runs/``: ``force`` replaces them, ``resume`` keeps the finished ones
    and finishes an interrupted one (only its missing games are played)."""
    from analysis.page import Heading, Image, Link, Paragraph, Table, Verdict, write_blocks
    from analysis.verdict import stated, thresholds
    from analysis.report import write_report
    from analysis.skill import skill_profile, tiers_of
    from simcore.driver import check_output_path, run_games
    from simcore.game import game_names, get_game

    out_dir = Path(out_dir)
    if out_dir.exists() and not out_dir.is_dir():
        raise BalanceError(f"{out_dir} exists and is not a directory")
    names = only or game_names()
    for name in names:
        get_game(name)  # unknown names fail before anything runs
    runs_dir = out_dir / "runs"
    check_output_path(runs_dir / "probe.parquet")
    rows, summaries, slugs = [], [], []
    for name in names:
        game = get_game(name)
        for players in game.player_counts:
            setup = game.setup(players, game.variant())
            lineup = game.lineup(tiers_of(game)[-1] if strong else None, players)
            slug = f"{name}-{players}p"
            result = run_games(game, setup, lineup, game.variant(), seed, games, threads=threads,
                               out=runs_dir / f"{slug}.parquet", progress=progress, force=force, resume=resume)
            frame = pl.scan_parquet(result.path)
            summary = summarize(frame, result.meta, confidence)
            profile = None
            if skill_games > 0 and tiers_of(game):
                profile = skill_profile(game, setup, game.variant(), seed, skill_games, search_games, threads, progress)
                summary["skill"] = profile
            write_report([result.path], out_dir / slug, profile)
            summaries.append(summary)
            slugs.append(slug)
            rows.append(overview_row(summary, _rounds(frame, result.meta, confidence),
                                     Link(f"{slug}/report.html", f"{slug}/report.html")))
    strategy = "each game's strongest player in every seat" if strong else "each game's default strategy"
    sentences, colour = book_verdict(summaries)
    blocks = [Heading(1, "Balance book"),
              Verdict(sentences, stated("seat_pp") + " Each cell: the verdict of that report and the seat edge that "
                      "decides it; the cell links to the report.", colour),
              verdict_grid(summaries, slugs),
              Paragraph(f"Every game at every player count, {games:,} games each, seed {seed}, {strategy}. "
                        "Seat 1 plays first; the first-seat edge is seat 1's win share minus 1/N, with its "
                        "95% Wilson interval; the seat-equality p-value is a chi-square test of equal seat "
                        "shares. Each row links to the full report."),
              Image("first-player-advantage.png", "First seat's edge by game and player count, with 95% intervals: "
                    + ", ".join(f"{s['title']} {s['players']}p {s['first_player_advantage']['pp']:+.2f} pp"
                                for s in summaries), fpa_chart(summaries)),
              Table(OVERVIEW_HEADERS, rows)]
    assumed = sorted({note for s in summaries for note in s["assumed"]})
    if assumed:
        blocks.insert(3, Paragraph("ASSUMED game data (not confirmed) behind some rows: " + "; ".join(assumed)))
    write_blocks(blocks, {"verdict": {"sentences": sentences, "tone": colour},
                          "thresholds": vars(thresholds()),
                          "overview": {"headers": OVERVIEW_HEADERS, "rows": rows}, "runs": summaries}, out_dir,
                 stem="index")
    return out_dir, rows
