"""Charts of a summary, each returned as PNG bytes.

Figures are built with ``matplotlib.figure.Figure`` and an Agg canvas directly: no pyplot, so
no global figure registry, no backend switch and nothing left open between calls.  The PNG
"Software" stamp is dropped so the same summary gives byte-identical images.

Every chart has a title, a subtitle with the game, player count and number of games, and axes
labelled with their units; every rate is drawn with its 95% interval.
"""
from __future__ import annotations

import io
import math
import re

import numpy as np
import polars as pl
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from analysis import stats
from analysis.summary import games_phrase

DPI = 110


def _png(figure: Figure) -> bytes:
    FigureCanvasAgg(figure)
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=DPI, metadata={"Software": None})
    return buffer.getvalue()


# a unit in parentheses, as in "win share (%)", "final score (points)", "dice on the table (count)"
UNIT = re.compile(r"\([^()]+\)")


def label_problems(figure: Figure) -> list[str]:
    """What a chart lacks of the house rules, empty when nothing: a title; no legend inside a plot
    (it would cover data); on every plot both axes labelled and at least one of them (the value
    axis) with its unit in parentheses; a colour bar labelled with its unit.  The tests run every
    chart through this."""
    problems = []
    if not (figure.get_suptitle() or any(axes.get_title() for axes in figure.axes)):
        problems.append("no title")
    # a legend inside a plot can cover the data: legends go outside it (figure.legend(loc="outside ..."))
    problems += [f"plot {number}: a legend inside the plot" for number, axes in enumerate(figure.axes)
                 if axes.get_legend() is not None]
    for number, axes in enumerate(figure.axes):
        if getattr(axes, "_colorbar", None) is not None:
            label = axes.get_ylabel() or axes.get_xlabel()
            if not UNIT.search(label):
                problems.append(f"colour bar {number}: no label with a unit ({label!r})")
            continue
        labels = {"x": axes.get_xlabel(), "y": axes.get_ylabel()}
        problems += [f"plot {number}: no {axis} axis label" for axis, label in labels.items() if not label]
        if not any(UNIT.search(label) for label in labels.values()):
            problems.append(f"plot {number}: no unit on either axis ({labels['x']!r}, {labels['y']!r})")
    return problems


def subtitle(summary: dict) -> str:
    return (f"{summary['title']} · {summary['players']} players · {games_phrase(summary['games'])} · "
            f"variant {summary['variant']['name']}")


def _titled(figure: Figure, axes, title: str, summary: dict) -> None:
    figure.suptitle(title, fontsize=13, fontweight="bold")
    axes.set_title(subtitle(summary), fontsize=9, color="0.3")


def finished(figure: Figure, axes, title: str, subtitle_text: str, grid: str = "both", columns: int = 2) -> bytes:
    """The house finish of a one-plot chart: a light grid on ``grid``, the legend outside below the
    plot (never over the data), the bold title with a grey subtitle; the PNG."""
    axes.grid(axis=grid, alpha=0.3)
    figure.legend(loc="outside lower center", ncols=columns, fontsize=8, frameon=False)
    figure.suptitle(title, fontsize=13, fontweight="bold")
    axes.set_title(subtitle_text, fontsize=9, color="0.3")
    return _png(figure)


def win_share_chart(summary: dict) -> bytes:
    """Win share per seat with 95% Wilson error bars, a dashed line at the fair share 1/N and, for a
    line-up of one strategy, the band of shares that count as fair (the seat threshold); the
    legend sits below the plot, clear of the bars."""
    import textwrap

    from analysis.verdict import thresholds

    seats = summary["seats"]
    shares = np.array([100 * s["win_share"] for s in seats])
    low = np.array([100 * s["win_share_ci"][0] for s in seats])
    high = np.array([100 * s["win_share_ci"][1] for s in seats])
    figure = Figure(figsize=(7.5, 4.6), layout="constrained")
    axes = figure.add_subplot()
    positions = np.arange(len(seats))
    fair = 100.0 / summary["players"]
    limit = thresholds().seat_pp
    if summary.get("lineup", "symmetric") == "symmetric":
        axes.axhspan(fair - limit, fair + limit, color="#54a24b", alpha=0.15, linewidth=0,
                     label=f"counts as fair (within ±{limit:g} pp)")
    axes.bar(positions, shares, color="#4c78a8", width=0.6,
             yerr=np.vstack([shares - low, high - shares]), capsize=6, ecolor="black",
             label="win share (95% CI)")
    axes.axhline(fair, color="#e45756", linestyle="--", linewidth=1.5,
                 label=f"fair share 1/{summary['players']} = {fair:.2f}%")
    for x, share, top in zip(positions, shares, high):
        axes.annotate(f"{share:.2f}%", (x, top), xytext=(0, 3), textcoords="offset points",
                      ha="center", va="bottom", fontsize=9)
    names = [textwrap.shorten(s.get("strategy_label", s["strategy"]), 28, placeholder="…") for s in seats]
    axes.set_xticks(positions, [f"seat {s['seat'] + 1}\n{name}" for s, name in zip(seats, names)])
    axes.set_xlabel("seat (seat 1 plays first) and strategy")
    axes.set_ylabel("win share (%)")
    axes.set_ylim(0, max(high.max(), fair + limit) * 1.18)
    figure.legend(loc="outside lower center", ncols=3, fontsize=8, frameon=False)
    axes.grid(axis="y", alpha=0.3)
    _titled(figure, axes, "Win share by seat", summary)
    return _png(figure)


def binned_scores(counts: pl.DataFrame, max_bins: int = 60) -> tuple[int, np.ndarray, dict[int, np.ndarray]]:
    """Regroup per-score counts (``seat, score, games``) into at most ``max_bins`` equal bins.

    Returns the bin width in points, the bin edges (half-integers, so integer scores sit in the
    middle of their bin) and, per seat, the games in each bin.
    """
    low, high = int(counts["score"].min()), int(counts["score"].max())
    width = max(1, math.ceil((high - low + 1) / max_bins))
    bins = (high - low) // width + 1
    edges = low - 0.5 + width * np.arange(bins + 1)
    per_seat = {}
    for seat in sorted(set(counts["seat"].to_list())):
        rows = counts.filter(pl.col("seat") == seat)
        index = (rows["score"].to_numpy() - low) // width
        per_seat[seat] = np.bincount(index, weights=rows["games"].to_numpy(), minlength=bins)
    return width, edges, per_seat


def score_chart(counts: pl.DataFrame, summary: dict, max_bins: int = 60) -> bytes:
    """Final-score distribution per seat as overlaid step histograms, each bin's share of games
    shaded with its 95% Wilson interval, means as dashed lines.

    ``counts`` is ``analysis.summary.score_counts``: already counted, so this never sees one
    value per game.
    """
    width, edges, per_seat = binned_scores(counts, max_bins)
    games = summary["games"]
    figure = Figure(figsize=(8, 4.8), layout="constrained")
    axes = figure.add_subplot()
    colours = [f"C{i}" for i in range(10)]
    for seat, info in enumerate(summary["seats"]):
        colour = colours[seat % len(colours)]
        in_bin = per_seat.get(seat, np.zeros(len(edges) - 1))
        values = 100.0 * in_bin / games
        low, high = (100.0 * np.array(bound) for bound in
                     zip(*(stats.wilson_interval(count, games) for count in in_bin)))
        mean = info["mean_score"]
        axes.stairs(high, edges, baseline=low, fill=True, color=colour, alpha=0.2, linewidth=0)
        axes.stairs(values, edges, color=colour, linewidth=1.8,
                    label=f"seat {seat + 1} ({info.get('strategy_label', info['strategy'])}), mean {mean:.2f}")
        axes.axvline(mean, color=colour, linestyle="--", linewidth=1, alpha=0.8)
    axes.set_xlabel("final score (points)")
    axes.set_ylabel("games (%)" if width == 1 else f"games per {width}-point bin (%)")
    axes.set_ylim(bottom=0)
    figure.legend(loc="outside right upper", fontsize=8, title="dashed: mean score\nshaded: 95% interval",
                  title_fontsize=8, frameon=False)
    axes.grid(alpha=0.3)
    _titled(figure, axes, "Final score distribution by seat", summary)
    return _png(figure)


def event_rate_chart(summary: dict) -> bytes | None:
    """Rule-event rate per unit (e.g. per trick) as horizontal bars with 95% error bars.

    Events without a known unit count are left out; None if nothing is left to draw.
    """
    events = [e for e in summary["events"] if e["rate"] is not None and None not in (e["rate_ci"] or [None])]
    if not events:
        return None
    units = sorted({e["per"] for e in events})
    one_unit = len(units) == 1
    labels = [e["label"] if one_unit else f"{e['label']} (per {e['per']})" for e in events]
    rates = np.array([100 * e["rate"] for e in events])
    low = np.array([100 * e["rate_ci"][0] for e in events])
    high = np.array([100 * e["rate_ci"][1] for e in events])
    figure = Figure(figsize=(8, 1.6 + 0.55 * len(events)), layout="constrained")
    axes = figure.add_subplot()
    positions = np.arange(len(events))
    axes.barh(positions, rates, color="#72b7b2", height=0.6,
              xerr=np.vstack([rates - low, high - rates]), capsize=4, ecolor="black")
    for y, rate, right in zip(positions, rates, high):
        places = 2 if rate >= 1 or rate == 0 else min(6, 2 - math.floor(math.log10(rate)))
        axes.annotate(f"{rate:.{places}f}%", (right, y), xytext=(4, 0), textcoords="offset points",
                      va="center", fontsize=9)
    axes.set_yticks(positions, labels)
    axes.set_ylabel("rule event")
    axes.invert_yaxis()
    axes.set_xlabel(f"rate per {units[0]} (%)" if one_unit else "rate per stated unit (%)")
    axes.set_xlim(0, max(high.max(), 1e-9) * 1.2)
    axes.grid(axis="x", alpha=0.3)
    title = f"Rule events per {units[0]}" if one_unit else "Rule event rates"
    _titled(figure, axes, f"{title} (95% CI)", summary)
    return _png(figure)


def all_charts(summary: dict, counts: pl.DataFrame) -> dict[str, bytes]:
    """Every chart that has something to show, by file stem, in report order."""
    charts = {"win-share": win_share_chart(summary), "scores": score_chart(counts, summary)}
    events = event_rate_chart(summary)
    if events is not None:
        charts["event-rates"] = events
    return charts
