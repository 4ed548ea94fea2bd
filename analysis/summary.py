"""Read a results Parquet file and reduce it to one JSON-ready summary.

The input is one row per game (see docs): ``game``, ``score_<seat>``, ``share_<seat>``, one
counter column per rule event, and file metadata ``"balance"`` (JSON) that says how many seats
there are, which strategies sat where, which events were counted and per what unit.  Nothing
here knows a game by name: seats, events and units all come from that metadata.

Every figure is reduced in one lazy query of named aggregates collected once (STYLE.md habit
10); the intervals are then computed from those few numbers by ``analysis.stats``.
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Sequence

import polars as pl

from analysis import stats
from simcore.errors import BalanceError

META_KEY = "balance"
# metadata keys that can differ between files of one run (shards of the same simulation)
PER_FILE_KEYS = ("games",)
# a share vector counts as "summing to 1" within float32 rounding of a k-way split
SHARE_SUM_TOLERANCE = 1e-4


# --------------------------------------------------------------------------------------------
# loading
# --------------------------------------------------------------------------------------------

def _check_meta(meta, where: str) -> dict:
    """Refuse metadata that cannot describe a results file; fill optional keys with defaults."""
    if not isinstance(meta, dict):
        raise BalanceError(f"{where}: '{META_KEY}' metadata is not a JSON object")
    game = meta.get("game")
    if not isinstance(game, str) or not game:
        raise BalanceError(f"{where}: '{META_KEY}' metadata has no game name")
    players = meta.get("players")
    if isinstance(players, bool) or not isinstance(players, int) or players < 1:
        raise BalanceError(f"{where}: '{META_KEY}' metadata needs a positive integer 'players'")
    events = meta.get("events", [])
    if not isinstance(events, list):
        raise BalanceError(f"{where}: 'events' in the metadata must be a list")
    clean_events = []
    for event in events:
        if not isinstance(event, dict) or not isinstance(event.get("column"), str):
            raise BalanceError(f"{where}: every entry of 'events' needs a 'column' name")
        clean_events.append({"column": event["column"],
                             "label": str(event.get("label") or event["column"]),
                             "per": str(event.get("per") or "game")})
    unit_columns = meta.get("unit_columns", {})
    if not isinstance(unit_columns, dict) or not all(isinstance(v, str) for v in unit_columns.values()):
        raise BalanceError(f"{where}: 'unit_columns' in the metadata must map units to column names")
    assumed = meta.get("assumed") or []
    if isinstance(assumed, str):
        assumed = [assumed]
    return {**meta,
            "title": meta.get("title") or game,
            "events": clean_events,
            "unit_columns": dict(unit_columns),
            "assumed": [str(note) for note in assumed],
            "strategies": strategies(meta)}


def expected_columns(meta: dict) -> list[str]:
    """The columns a results file for this metadata must have (hand masks are not used)."""
    players = meta["players"]
    return (["game"] + [f"score_{seat}" for seat in range(players)]
            + [f"share_{seat}" for seat in range(players)]
            + [event["column"] for event in meta["events"]]
            + [column for column in meta.get("unit_columns", {}).values()])


def load(path: str | Path) -> tuple[pl.LazyFrame, dict]:
    """Open a results file lazily; return the frame and its checked ``balance`` metadata."""
    path = Path(path)
    if not path.exists():
        raise BalanceError(f"results file not found: {path}")
    if path.is_dir():
        raise BalanceError(f"{path} is a directory, not a results file")
    try:
        key_values = pl.read_parquet_metadata(path)
    except (pl.exceptions.PolarsError, OSError):
        raise BalanceError(f"{path}: not a Parquet file") from None
    raw = key_values.get(META_KEY)
    if raw is None:
        raise BalanceError(f"{path}: not a balance results file (no '{META_KEY}' metadata)")
    try:
        meta = json.loads(raw)
    except json.JSONDecodeError:
        raise BalanceError(f"{path}: '{META_KEY}' metadata is not valid JSON") from None
    meta = _check_meta(meta, str(path))
    frame = pl.scan_parquet(path)
    try:
        schema = frame.collect_schema()
    except pl.exceptions.PolarsError as exc:
        raise BalanceError(f"{path}: cannot read the file: {exc}".splitlines()[0]) from None
    missing = [column for column in expected_columns(meta) if column not in schema]
    if missing:
        raise BalanceError(f"{path}: not a complete results file (missing columns: {', '.join(missing)})")
    return frame, meta


@dataclass
class Run:
    """One simulation run: one file, or several shards whose metadata agree."""
    frame: pl.LazyFrame
    meta: dict
    sources: list[str] = field(default_factory=list)


def _run_key(meta: dict) -> str:
    return json.dumps({k: v for k, v in meta.items() if k not in PER_FILE_KEYS}, sort_keys=True, default=str)


def load_runs(paths: str | Path | Sequence[str | Path]) -> list[Run]:
    """Load one or several results files of ONE game.

    Files whose metadata agree on everything but the game count are shards of the same run and
    are concatenated; files that differ (variant, strategies, seed, player count...) are kept
    as separate runs, in the order first given, to be compared.
    """
    if isinstance(paths, (str, Path)):
        paths = [paths]
    paths = [Path(p) for p in paths]
    if not paths:
        raise BalanceError("no results files given")
    seen: set[Path] = set()
    loaded = []
    for path in paths:
        if path.resolve() in seen:
            raise BalanceError(f"{path} is given twice")
        seen.add(path.resolve())
        loaded.append((path, *load(path)))
    first_path, _, first_meta = loaded[0]
    for path, _, meta in loaded[1:]:
        if meta["game"] != first_meta["game"]:
            raise BalanceError(f"cannot mix games in one report: {first_path} is '{first_meta['game']}', "
                               f"{path} is '{meta['game']}'")
    grouped: dict[str, list] = {}
    for path, frame, meta in loaded:
        grouped.setdefault(_run_key(meta), []).append((path, frame, meta))
    runs = []
    for members in grouped.values():
        meta = dict(members[0][2])
        counts = [m[2].get("games") for m in members]
        meta["games"] = sum(counts) if all(isinstance(c, int) for c in counts) else None
        frame = members[0][1] if len(members) == 1 else pl.concat([m[1] for m in members], how="vertical")
        runs.append(Run(frame, meta, [str(m[0]) for m in members]))
    return runs


# --------------------------------------------------------------------------------------------
# metadata helpers
# --------------------------------------------------------------------------------------------

def strategies(meta: dict) -> list[str]:
    """One strategy name per seat ("?" where the metadata does not say)."""
    players = meta["players"]
    named = meta.get("strategies")
    if isinstance(named, str):
        named = [named] * players
    if not isinstance(named, list):
        named = []
    if len(named) == 1 and players > 1:
        named = named * players
    return [str(named[seat]) if seat < len(named) else "?" for seat in range(players)]


def seat_labels(meta: dict) -> list[str]:
    """Human seat names, numbered from 0 as in RULINGS.md: ``"seat 0 (heuristic)"``.

    Accepts the metadata or a summary (both carry ``players`` and ``strategies``).
    Seat 0 is column ``score_0``/``share_0``, the player who leads / starts first.
    """
    return [f"seat {seat} ({name})" for seat, name in enumerate(strategies(meta))]


def variant_info(meta: dict) -> dict:
    """The variant's name, description and the settings it changes from the published rules."""
    variant = meta.get("variant")
    if isinstance(variant, str):
        return {"name": variant, "description": "", "settings": {}}
    if not isinstance(variant, dict):
        return {"name": "default", "description": "", "settings": {}}
    settings = {k: v for k, v in variant.items() if k not in ("game", "name", "description")}
    return {"name": str(variant.get("name") or "default"),
            "description": str(variant.get("description") or ""),
            "settings": settings}


def units_per_game(meta: dict, per: str, row: dict | None = None) -> float | None:
    """How many ``per`` units (trick, round, turn...) a game has: the mean of the per-game
    column the metadata names in ``unit_columns`` (games whose length varies), else the
    constant ``<per>s_per_game``.

    ``per == "game"`` is 1.  None when neither says, and the per-unit rate is then not reported.
    """
    if per == "game":
        return 1.0
    if row is not None and f"units:{per}" in row:
        value = row[f"units:{per}"]
        return float(value) / row["games"] if value and row["games"] else None
    for key in (f"{per}s_per_game", f"{per}_per_game"):
        value = meta.get(key)
        if isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0:
            return float(value)
    return None


# --------------------------------------------------------------------------------------------
# the summary
# --------------------------------------------------------------------------------------------

def _finite(value):
    """JSON has no NaN or infinity: unknown numbers become None."""
    if value is None:
        return None
    value = float(value)
    return value if math.isfinite(value) else None


def _pair(interval: Iterable[float]) -> list:
    return [_finite(v) for v in interval]


def _distinct_range(row: dict, games: int) -> bool:
    if games == 0:
        return True
    low, high = row["game_min"], row["game_max"]
    if high - low + 1 != games:
        return False
    total = games * (low + high) / 2
    squares = (high * (high + 1) * (2 * high + 1) - (low - 1) * low * (2 * low - 1)) / 6
    return abs(row["game_sum"] - total) <= 1e-9 * max(total, 1) and abs(row["game_sumsq"] - squares) <= 1e-9 * max(squares, 1)


def _aggregates(meta: dict) -> list[pl.Expr]:
    """Every number the summary needs, as named aggregates of one query."""
    players = meta["players"]
    # Duplicate game indices (a file pooled twice) are caught without a hash set of every index,
    # which would grow with the run: n indices are exactly min..max when the range has n values
    # and their sum and sum of squares are those of that range (floats: exact below 2**53).
    index = pl.col("game").cast(pl.Float64)
    exprs = [pl.len().alias("games"), index.min().alias("game_min"), index.max().alias("game_max"),
             index.sum().alias("game_sum"), (index * index).sum().alias("game_sumsq")]
    shares = [pl.col(f"share_{seat}").cast(pl.Float64) for seat in range(players)]
    exprs.append(((pl.sum_horizontal(shares) - 1.0).abs() > SHARE_SUM_TOLERANCE).sum().alias("unbalanced_rows"))
    for seat in range(players):
        score = pl.col(f"score_{seat}").cast(pl.Float64)
        exprs += [
            shares[seat].sum().alias(f"share_sum:{seat}"),
            score.mean().alias(f"score_mean:{seat}"),
            score.std().alias(f"score_sd:{seat}"),
            score.min().alias(f"score_min:{seat}"),
            score.max().alias(f"score_max:{seat}"),
        ]
    for per, column in meta.get("unit_columns", {}).items():
        exprs.append(pl.col(column).cast(pl.Int64).sum().alias(f"units:{per}"))
    for event in meta["events"]:
        column = event["column"]
        count = pl.col(column).cast(pl.Int64)
        exprs += [
            count.sum().alias(f"total:{column}"),
            (count > 0).sum().alias(f"fired:{column}"),
            count.cast(pl.Float64).mean().alias(f"mean:{column}"),
            count.cast(pl.Float64).std().alias(f"sd:{column}"),
        ]
    return exprs


def summarize(frame: pl.LazyFrame, meta: dict, confidence: float = stats.DEFAULT_CONFIDENCE) -> dict:
    """Reduce a run to a JSON-ready dict (one collect).  Keys:

    ``figures`` (the game's own tables, see ``game_figures``), ``game, title, players, games, games_in_metadata, seed, version, strategies, variant
    {name, description, settings}, assumed, notes, confidence, seats, first_player_advantage,
    seat_balance, events``.

    ``seats[i]``: seat, label, strategy, wins (summed shares), win_share (fraction) and
    win_share_ci, mean_score and mean_score_ci, score_sd, score_min, score_max.
    ``first_player_advantage``: fair_share = 1/N, pp = (share of seat 0 - 1/N) in percentage
    points and ci_pp, the Wilson interval of seat 0 shifted the same way.
    ``seat_balance``: chi-square test of equal seat shares (statistic, df, p_value), None for
    one seat.  ``events[j]``: column, label, per, total, mean_per_game (+ _ci), games_fired,
    fired_share (+ _ci), units_per_game, trials, rate (per unit) and rate_ci, rate_method.
    Fractions are 0..1; unknown numbers are None.
    """
    players = meta["players"]
    row = frame.select(_aggregates(meta)).collect(engine="streaming").row(0, named=True)
    games = int(row["games"])
    if games == 0:
        raise BalanceError("the results hold no games")
    if not _distinct_range(row, games):
        raise BalanceError("some game indices appear more than once: "
                           "the same games were given twice")
    notes = []
    if row["unbalanced_rows"]:
        notes.append(f"win shares do not sum to 1 in {row['unbalanced_rows']:,} games")
    if isinstance(meta.get("games"), int) and meta["games"] != games:
        notes.append(f"the metadata announces {meta['games']:,} games but the data hold {games:,}")

    names = strategies(meta)
    labels = seat_labels(meta)
    seats = []
    for seat in range(players):
        wins = min(float(row[f"share_sum:{seat}"]), games)
        mean, sd = row[f"score_mean:{seat}"], row[f"score_sd:{seat}"]
        seats.append({
            "seat": seat, "label": labels[seat], "strategy": names[seat],
            "wins": wins, "win_share": wins / games,
            "win_share_ci": _pair(stats.wilson_interval(wins, games, confidence)),
            "mean_score": _finite(mean),
            "mean_score_ci": _pair(stats.mean_interval(mean, sd, games, confidence)),
            "score_sd": _finite(sd),
            "score_min": int(row[f"score_min:{seat}"]), "score_max": int(row[f"score_max:{seat}"]),
        })

    fair = 1.0 / players
    low, high = seats[0]["win_share_ci"]
    advantage = {"seat": 0, "fair_share": fair, "pp": 100.0 * (seats[0]["win_share"] - fair),
                 "ci_pp": [100.0 * (low - fair), 100.0 * (high - fair)]}

    balance = None
    if players > 1:
        test = stats.chi2_equal_shares([s["wins"] for s in seats])
        balance = {"test": "chi-square goodness of fit against equal seat shares",
                   "statistic": test.statistic, "df": test.df, "p_value": test.p_value}

    events = [_event_summary(event, row, games, meta, confidence) for event in meta["events"]]
    missing_units = sorted({e["per"] for e in events if e["units_per_game"] is None})
    if missing_units:
        notes.append("no per-game count of " + ", ".join(f"'{u}'" for u in missing_units)
                     + " in the metadata: those per-unit rates are not reported")

    return {
        "figures": game_figures(frame, meta, confidence),
        "game": meta["game"], "title": meta["title"], "players": players, "games": games,
        "games_in_metadata": meta.get("games"), "seed": meta.get("seed"),
        "version": meta.get("version"), "strategies": names, "variant": variant_info(meta),
        "assumed": list(meta["assumed"]), "notes": notes, "confidence": confidence,
        "seats": seats, "first_player_advantage": advantage, "seat_balance": balance,
        "events": events,
    }


def game_figures(frame: pl.LazyFrame, meta: dict, confidence: float) -> list[dict]:
    """The game's own balance tables (``Game.figures``), each ``{title, note, headers, rows}``
    with the cells already formatted; none for a game this version does not know."""
    from simcore.game import GAMES, get_game

    if meta["game"] not in GAMES:
        return []
    return get_game(meta["game"]).figures(frame, meta, confidence)


def _event_summary(event: dict, row: dict, games: int, meta: dict, confidence: float) -> dict:
    """Per-game mean, share of games where it fired, and rate per unit of one rule event.

    The per-unit rate treats each unit (e.g. trick) as one trial for the Wilson interval.  Units
    of one game are not independent, so this is an approximation; if an event can fire more than
    once per unit (total > trials) Wilson does not apply and the interval is the per-game mean's
    normal interval divided by the units per game (``rate_method: "normal"``).
    """
    column = event["column"]
    total = int(row[f"total:{column}"])
    fired = int(row[f"fired:{column}"])
    mean, sd = row[f"mean:{column}"], row[f"sd:{column}"]
    units = units_per_game(meta, event["per"], row)
    trials = rate = rate_ci = method = None
    if units is not None:
        # a per-game unit column gives the exact total (no float round trip through the mean)
        trials = int(row[f"units:{event['per']}"]) if f"units:{event['per']}" in row else games * units
        rate = total / trials
        if total <= trials:
            rate_ci, method = _pair(stats.wilson_interval(total, trials, confidence)), "wilson"
        else:
            low, high = stats.mean_interval(mean, sd, games, confidence)
            rate_ci, method = _pair((low / units, high / units)), "normal"
    return {
        "column": column, "label": event["label"], "per": event["per"], "total": total,
        "mean_per_game": _finite(mean),
        "mean_per_game_ci": _pair(stats.mean_interval(mean, sd, games, confidence)),
        "games_fired": fired, "fired_share": fired / games,
        "fired_share_ci": _pair(stats.wilson_interval(fired, games, confidence)),
        "units_per_game": units, "trials": trials, "rate": rate, "rate_ci": rate_ci,
        "rate_method": method,
    }


def summary_json(summary: dict) -> str:
    """The summary as strict JSON (no NaN), keys in a stable order."""
    return json.dumps(summary, indent=2, allow_nan=False)


def score_counts(frame: pl.LazyFrame, players: int) -> pl.DataFrame:
    """How many games ended with each score, per seat: columns ``seat, score, games``.

    The histogram is counted by Polars (group_by) so charts never hold one value per game.
    """
    return (frame.select([pl.col(f"score_{seat}").cast(pl.Int32) for seat in range(players)])
            .unpivot(variable_name="column", value_name="score")
            .group_by("column", "score")
            .agg(pl.len().alias("games"))
            .with_columns(pl.col("column").str.strip_prefix("score_").cast(pl.Int32).alias("seat"))
            .select("seat", "score", "games")
            .sort("seat", "score")
            .collect(engine="streaming"))


# --------------------------------------------------------------------------------------------
# formatting (shared by the console summary and the report)
# --------------------------------------------------------------------------------------------

def _decimals(value_pct: float) -> int:
    """2 decimals for ordinary percentages; enough for three significant digits when tiny."""
    if value_pct == 0 or abs(value_pct) >= 1:
        return 2
    return min(6, 2 - math.floor(math.log10(abs(value_pct))))


def fmt_pct_ci(value: float | None, interval: Sequence[float | None] | None) -> str:
    """A fraction as ``"31.23 [31.14, 31.32]"`` (percent; the interval in brackets)."""
    if value is None:
        return "n/a"
    places = _decimals(100 * value)
    text = f"{100 * value:.{places}f}"
    if interval and None not in interval:
        text += f" [{100 * interval[0]:.{places}f}, {100 * interval[1]:.{places}f}]"
    return text


def fmt_num_ci(value: float | None, interval: Sequence[float | None] | None, places: int = 2) -> str:
    """A number with its interval, ``places`` decimals or three significant digits if smaller."""
    if value is None:
        return "n/a"
    if 0 < abs(value) < 1:
        places = max(places, min(6, 2 - math.floor(math.log10(abs(value)))))
    text = f"{value:.{places}f}"
    if interval and None not in interval:
        text += f" [{interval[0]:.{places}f}, {interval[1]:.{places}f}]"
    return text


def fmt_pp(value: float, interval: Sequence[float], unit: str = " pp") -> str:
    """Percentage points with signs: ``"+1.23 pp [+0.98, +1.48]"`` (more decimals when tiny)."""
    scale = max(abs(value), abs(interval[0]), abs(interval[1]))
    places = 2 if scale == 0 or scale >= 1 else min(6, 2 - math.floor(math.log10(scale)))
    return f"{value:+.{places}f}{unit} [{interval[0]:+.{places}f}, {interval[1]:+.{places}f}]"


def fmt_p(p: float | None) -> str:
    """A p-value: 4 decimals, scientific below 1e-4, "< 1e-300" where it underflows."""
    if p is None:
        return "n/a"
    if p == 0:
        return "< 1e-300"
    if p < 1e-4:
        return f"{p:.1e}"
    return f"{p:.4f}"


def games_phrase(games: int) -> str:
    return f"{games:,} game" + ("" if games == 1 else "s")


def fmt_settings(settings: dict) -> str:
    return ", ".join(f"{k} = {json.dumps(v)}" for k, v in settings.items()) or "none (published rules)"


def seat_table(summary: dict) -> tuple[list[str], list[list[str]]]:
    headers = ["seat", "strategy", "win share % [95% CI]", "mean score [95% CI]"]
    rows = [[str(s["seat"]), s["strategy"], fmt_pct_ci(s["win_share"], s["win_share_ci"]),
             fmt_num_ci(s["mean_score"], s["mean_score_ci"])] for s in summary["seats"]]
    return headers, rows


def event_table(summary: dict) -> tuple[list[str], list[list[str]]]:
    headers = ["event", "mean per game [95% CI]", "games with ≥1 % [95% CI]", "unit",
               "rate per unit % [95% CI]"]
    rows = [[e["label"], fmt_num_ci(e["mean_per_game"], e["mean_per_game_ci"], 3),
             fmt_pct_ci(e["fired_share"], e["fired_share_ci"]), e["per"],
             fmt_pct_ci(e["rate"], e["rate_ci"])] for e in summary["events"]]
    return headers, rows


def advantage_line(summary: dict) -> str:
    fpa = summary["first_player_advantage"]
    return (f"first-player advantage (seat 0 share − 1/{summary['players']}): "
            f"{fmt_pp(fpa['pp'], fpa['ci_pp'])}")


def balance_line(summary: dict) -> str:
    test = summary["seat_balance"]
    if test is None:
        return "seat balance: one seat, nothing to compare"
    p_text = fmt_p(test["p_value"])
    return (f"seat balance (chi-square vs equal shares): X² = {test['statistic']:.2f}, "
            f"df = {test['df']}, p {p_text if p_text.startswith('<') else '= ' + p_text}")


def _fixed_width(headers: list[str], rows: list[list[str]]) -> list[str]:
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(headers)]
    line = lambda cells: "  ".join(c.ljust(w) for c, w in zip(cells, widths)).rstrip()
    return [line(headers), "  ".join("-" * w for w in widths)] + [line(r) for r in rows]


def format_summary(summary: dict) -> str:
    """A plain-text console report of a summary."""
    variant = summary["variant"]
    out = [f"{summary['title']} ({summary['game']}): {summary['players']} players, "
           f"{games_phrase(summary['games'])}",
           f"variant {variant['name']} (changes: {fmt_settings(variant['settings'])}) · "
           f"seed {summary['seed']} · version {summary['version']}"]
    if variant["description"]:
        out.append(f"  {variant['description']}")
    if summary["assumed"]:
        out += ["", "!! ASSUMED — these results rest on game data that is not confirmed:"]
        out += [f"!!   - {note}" for note in summary["assumed"]]
    if summary["notes"]:
        out += [""] + [f"note: {note}" for note in summary["notes"]]
    out += ["", f"seats ({games_phrase(summary['games'])}; seat 0 plays first):"]
    out += _fixed_width(*seat_table(summary))
    out += ["", advantage_line(summary), balance_line(summary)]
    if summary["events"]:
        out += ["", f"rule events ({games_phrase(summary['games'])}):"]
        out += _fixed_width(*event_table(summary))
    for figure in summary.get("figures", []):
        out += ["", f"{figure['title']}:"] + ([f"  {figure['note']}"] if figure.get("note") else [])
        out += _fixed_width(figure["headers"], figure["rows"])
    return "\n".join(out) + "\n"
