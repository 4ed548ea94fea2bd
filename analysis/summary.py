"""Read a results Parquet file and reduce it to one JSON-ready summary.

The input is one row per game (see docs): ``game``, ``score_<seat>``, ``share_<seat>``, one
counter column per rule event, and file metadata ``"balance"`` (JSON) that says how many seats
there are, which strategies sat where, which events were counted and per what unit.  Nothing
here knows a game by name: seats, events and units all come from that metadata.

Each figure is a lazy query, LazyFrame in and LazyFrame out (``seat_shares``, ``event_rates``...,
the notebook API of docs/api.md): named aggregates reduce the rows to a few exact totals
(``_seat_totals``...), and the figure is computed from those totals (``_seat_shares_of``...),
intervals included, by the formulas of ``analysis.stats`` written as expressions
(``wilson_bounds``, ``mean_bounds``).  ``summarize`` collects every total in one scan
(``summary_plan``; CONTRIBUTING.md, habit 10) and computes the figures from them
(``summary_of_totals``): the same numbers, to the bit.  Because the totals merge exactly
(``analysis.exact``, "mergeable totals"), ``simulate`` without ``--out`` reduces each chunk to
its totals where it was played (``ChunkTotals``) and never keeps a row.
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Sequence

import polars as pl

from analysis import stats
from analysis.cells import (fmt_num_ci, fmt_p, fmt_pct_ci, fmt_pp, fmt_settings, games_phrase,  # noqa: F401 (re-exported)
                            seat_labels, seat_list, seat_name, strategies, strategy_labels, symmetric)
from analysis.exact import (MERGE_MAX, MERGE_MIN, SHARE_UNITS, Counted, Totals, collect_totals, count, counted_frame,  # noqa: F401 (re-exported)
                            exact_product_sum, exact_sum, exact_wins, mean_sd, mean_sd_of_totals, merge_totals,
                            moment_totals, moments, ratio_cell, ratio_totals, share_units)
from simcore.errors import BalanceError
from simcore.parts import META_KEY  # the run's metadata key, where simcore.parts writes it

# metadata keys that can differ between files of one run (shards of the same simulation)
PER_FILE_KEYS = ("games", "config")  # config holds the games asked for
# a share vector counts as "summing to 1" within float32 rounding of a k-way split
SHARE_SUM_TOLERANCE = 1e-4
# event_rates without events runs on this stand-in and keeps none of its rows, so the columns
# and their types are the same either way
_STAND_IN = {"column": "game", "label": "", "per": "game"}


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
    """Open a run lazily (a run folder as ``balance simulate --out`` writes it, or one Parquet
    file); return the frame and its checked ``balance`` metadata."""
    from simcore.parts import RUN_FILE, run_key_values, scan_run

    path = Path(path)
    if not path.exists():
        raise BalanceError(f"results file not found: {path}")
    if path.is_dir() and not (path / RUN_FILE).is_file():
        raise BalanceError(f"{path} is a folder but not a balance run (it has no {RUN_FILE})")
    try:
        key_values = run_key_values(path)
    except (pl.exceptions.PolarsError, OSError):
        raise BalanceError(f"{path}: not a Parquet file") from None
    raw = key_values.get(META_KEY)
    if raw is None:
        raise BalanceError(f"{path}: not a balance results file (no '{META_KEY}' metadata)")
    try:
        meta = json.loads(raw)
    except json.JSONDecodeError:
        raise BalanceError(f"{path}: '{META_KEY}' metadata is not valid JSON") from None
    check_schema(meta, path)
    meta = _check_meta(meta, str(path))
    frame = scan_run(path)
    try:
        schema = frame.collect_schema()
        rows = frame.select(pl.len()).collect().item()
    except pl.exceptions.PolarsError as exc:
        raise BalanceError(f"{path}: cannot read the file (damaged or cut short?): {exc}".splitlines()[0]) from None
    missing = [column for column in expected_columns(meta) if column not in schema]
    if missing:
        raise BalanceError(f"{path}: not a complete results file (missing columns: {', '.join(missing)})")
    if rows == 0:
        raise BalanceError(f"{path} holds no games (an empty or filtered run): give it a run file as "
                           "`balance simulate --out` wrote it")
    games = meta.get("games")
    if isinstance(games, int) and not isinstance(games, bool) and games != rows:
        raise BalanceError(f"{path} holds {rows:,} of the {games:,} games its run played (filtered or cut short?): "
                           "every figure would be wrong; give it the run file as `balance simulate --out` wrote it")
    return frame, meta


def check_schema(meta, path) -> None:
    """Refuse a run file of another layout (``simcore.version.SCHEMA_VERSION``) with what to do."""
    from simcore.version import SCHEMA_VERSION, __version__

    schema = meta.get("schema") if isinstance(meta, dict) else None
    if schema == SCHEMA_VERSION:
        return
    made = f" (balance {meta['version']})" if isinstance(meta, dict) and isinstance(meta.get("version"), str) else ""
    if schema is None:
        raise BalanceError(f"{path} was written by an older balance{made}, before run files carried a schema "
                           f"version: simulate it again with this one ({__version__}), e.g. the same "
                           "`balance simulate` command with --force")
    raise BalanceError(f"{path} has run-file schema {schema!r}{made}; this balance ({__version__}) reads schema "
                       f"{SCHEMA_VERSION}: simulate it again with this version, or read it with the one that wrote it")


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


def units_per_game(meta: dict, per: str) -> float | None:
    """How many ``per`` units (trick, round, turn...) every game has, where that is a constant:
    1 for ``per == "game"``, else the metadata's ``<per>s_per_game``.  None when it does not say
    (games whose length varies name a per-game count column in ``unit_columns`` instead, which
    ``event_rates`` sums)."""
    if per == "game":
        return 1.0
    for key in (f"{per}s_per_game", f"{per}_per_game"):
        value = meta.get(key)
        if isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0:
            return float(value)
    return None


# --------------------------------------------------------------------------------------------
# LazyFrames in, LazyFrames out: the figures of a run as lazy queries (the notebook API);
# ``summarize`` collects them together
# --------------------------------------------------------------------------------------------

def _lazy(frame: pl.LazyFrame | pl.DataFrame) -> pl.LazyFrame:
    return frame.lazy() if isinstance(frame, pl.DataFrame) else frame


def seat_count(frame: pl.LazyFrame | pl.DataFrame) -> int:
    """How many seats a results frame has: its ``score_<seat>`` and ``share_<seat>`` columns."""
    names = set(_lazy(frame).collect_schema().names())
    seats = 0
    while f"score_{seats}" in names and f"share_{seats}" in names:
        seats += 1
    if seats == 0:
        raise BalanceError("not a balance results frame: no score_0 and share_0 columns")
    return seats


def wilson_bounds(successes: pl.Expr, trials: pl.Expr,
                  confidence: float = stats.DEFAULT_CONFIDENCE) -> tuple[pl.Expr, pl.Expr]:
    """``stats.wilson_interval`` as two expressions, so the interval is part of a lazy plan
    (Polars has no such expression).  The same formula in the same order of operations, so
    both give the same bits; no trials gives (0, 1) as there."""
    z = stats.z_for(confidence)
    p_hat = successes / trials
    z2_n = z * z / trials
    centre = (p_hat + z2_n / 2.0) / (1.0 + z2_n)
    half = z / (1.0 + z2_n) * (p_hat * (1.0 - p_hat) / trials + z2_n / (4.0 * trials)).sqrt()
    low = pl.min_horizontal(pl.max_horizontal(centre - half, 0.0), p_hat)
    high = pl.max_horizontal(pl.min_horizontal(centre + half, 1.0), p_hat)
    known = trials > 0
    return pl.when(known).then(low).otherwise(0.0), pl.when(known).then(high).otherwise(1.0)


def mean_bounds(mean: pl.Expr, sd: pl.Expr, count: pl.Expr,
                confidence: float = stats.DEFAULT_CONFIDENCE) -> tuple[pl.Expr, pl.Expr]:
    """``stats.mean_interval`` (mean ± z s / sqrt n) as two expressions, in the same order of
    operations; null where the spread is unknown (fewer than two values)."""
    half = stats.z_for(confidence) * sd / count.cast(pl.Float64).sqrt()
    known = (count >= 2) & sd.is_finite()
    return pl.when(known).then(mean - half), pl.when(known).then(mean + half)


def _one_row_each(totals: pl.LazyFrame, rows: list[list[pl.Expr]]) -> pl.LazyFrame:
    """Turn a one-row frame of totals into one row per item (seat, event...), each item's
    columns given as expressions over the totals; one scan of the results feeds them all."""
    return (totals.select(pl.concat_list([pl.struct(row) for row in rows]).alias("item"))
            .explode("item").unnest("item"))


def _seat_totals(players: int) -> list[pl.Expr]:
    """The totals of ``seat_shares``: games, and each seat's wins in whole 840ths."""
    return [count().alias("games")] + [share_units(pl.col(f"share_{seat}")).sum().alias(f"wins:{seat}")
                                        for seat in range(players)]


def _seat_shares_of(totals: pl.LazyFrame, players: int, confidence: float) -> pl.LazyFrame:
    totals = totals.select(pl.col("games").sum(),
                           *[(pl.col(f"wins:{seat}").sum() / SHARE_UNITS).alias(f"wins:{seat}") for seat in range(players)])
    games = pl.col("games")
    seats = _one_row_each(totals, [[pl.lit(seat, pl.Int64).alias("seat"), games, pl.col(f"wins:{seat}").alias("wins")]
                                   for seat in range(players)])
    low, high = wilson_bounds(pl.col("wins"), games, confidence)
    return seats.with_columns((pl.col("wins") / games).alias("share"), low.alias("ci_low"), high.alias("ci_high"))


def seat_shares(frame: pl.LazyFrame | pl.DataFrame, players: int | None = None,
                confidence: float = stats.DEFAULT_CONFIDENCE) -> pl.LazyFrame:
    """Win share per seat with its Wilson interval: ``seat, games, wins, share, ci_low, ci_high``.

    ``wins`` is the seat's summed ``share_<seat>`` (a k-way tie is 1/k of a win for each tied
    seat), summed exactly (``exact_wins``); ``share = wins / games``; seat 0 plays first.
    ``players`` defaults to the frame's seat count.
    """
    frame = _lazy(frame)
    players = players or seat_count(frame)
    return _seat_shares_of(frame.select(_seat_totals(players)), players, confidence)


def _advantage_of(shares: pl.LazyFrame, players: int) -> pl.LazyFrame:
    fair = 1.0 / players
    return (shares.filter(pl.col("seat") == 0)
            .select("seat", "games", pl.lit(fair).alias("fair_share"), "share",
                    (100.0 * (pl.col("share") - fair)).alias("pp"),
                    (100.0 * (pl.col("ci_low") - fair)).alias("ci_low_pp"),
                    (100.0 * (pl.col("ci_high") - fair)).alias("ci_high_pp")))


def first_player_advantage(frame: pl.LazyFrame | pl.DataFrame, players: int | None = None,
                           confidence: float = stats.DEFAULT_CONFIDENCE) -> pl.LazyFrame:
    """Seat 0's win share minus the fair share 1/N, in percentage points, with seat 0's Wilson
    interval shifted the same way: one row ``seat, games, fair_share, share, pp, ci_low_pp,
    ci_high_pp``."""
    frame = _lazy(frame)
    players = players or seat_count(frame)
    return _advantage_of(seat_shares(frame, players, confidence), players)


SEAT_BALANCE_TEST = "chi-square goodness of fit against equal seat shares"


def _chi2_of_wins(wins: pl.Series) -> pl.Series:
    test = stats.chi2_equal_shares(wins.to_numpy())
    return pl.Series([{"statistic": test.statistic, "df": test.df, "p_value": test.p_value}])


def _balance_of(shares: pl.LazyFrame) -> pl.LazyFrame:
    result = pl.Struct({"statistic": pl.Float64, "df": pl.Int64, "p_value": pl.Float64})
    return (shares.select(pl.lit(SEAT_BALANCE_TEST).alias("test"),
                          pl.col("wins").map_batches(_chi2_of_wins, return_dtype=result, returns_scalar=True)
                          .alias("chi2"))
            .unnest("chi2"))


def seat_balance(frame: pl.LazyFrame | pl.DataFrame, players: int | None = None) -> pl.LazyFrame:
    """Do the seats win equally often?  Pearson's chi-square test of equal shares on the seats'
    summed wins (``stats.chi2_equal_shares``): one row ``test, statistic, df, p_value``."""
    frame = _lazy(frame)
    players = players or seat_count(frame)
    if players < 2:
        raise BalanceError("a seat-equality test needs at least two seats")
    return _balance_of(seat_shares(frame, players))


def _score_totals(players: int) -> list[pl.Expr]:
    """The totals of ``seat_scores``: each seat's score moments, least and greatest."""
    totals = [count().alias("games")]
    for seat in range(players):
        score = pl.col(f"score_{seat}").cast(pl.Int64)
        totals += [*moment_totals(f"score_{seat}", score), score.min().alias(f"{MERGE_MIN}score_{seat}"),
                   score.max().alias(f"{MERGE_MAX}score_{seat}")]
    return totals


def _seat_scores_of(totals: pl.LazyFrame, players: int, confidence: float) -> pl.LazyFrame:
    columns = [pl.col("games").sum()]
    for seat in range(players):
        mean, sd = moments(f"score_{seat}")
        columns += [mean.alias(f"mean:{seat}"), sd.alias(f"sd:{seat}"),
                    pl.col(f"{MERGE_MIN}score_{seat}").min().alias(f"min:{seat}"),
                    pl.col(f"{MERGE_MAX}score_{seat}").max().alias(f"max:{seat}")]
    seats = _one_row_each(totals.select(columns), [
        [pl.lit(seat, pl.Int64).alias("seat"), pl.col("games")]
        + [pl.col(f"{name}:{seat}").alias(name) for name in ("mean", "sd", "min", "max")]
        for seat in range(players)])
    low, high = mean_bounds(pl.col("mean"), pl.col("sd"), pl.col("games"), confidence)
    return seats.select("seat", "games", "mean", "sd", low.alias("ci_low"), high.alias("ci_high"), "min", "max")


def seat_scores(frame: pl.LazyFrame | pl.DataFrame, players: int | None = None,
                confidence: float = stats.DEFAULT_CONFIDENCE) -> pl.LazyFrame:
    """Final score per seat: ``seat, games, mean, sd, ci_low, ci_high, min, max`` (the mean's
    normal-approximation interval; sd with ddof 1)."""
    frame = _lazy(frame)
    players = players or seat_count(frame)
    return _seat_scores_of(frame.select(_score_totals(players)), players, confidence)


def score_distribution(frame: pl.LazyFrame | pl.DataFrame, players: int | None = None,
                       confidence: float = stats.DEFAULT_CONFIDENCE) -> pl.LazyFrame:
    """How many games each seat ended with each score: ``seat, score, games, share, ci_low,
    ci_high`` (share of all games, Wilson interval), sorted by seat and score."""
    frame = _lazy(frame)
    players = players or seat_count(frame)
    counts = (frame.select(pl.len().cast(pl.Int64).alias("played"),
                           *[pl.col(f"score_{seat}").cast(pl.Int32) for seat in range(players)])
              .unpivot(index="played", variable_name="column", value_name="score")
              .group_by("column", "score")
              .agg(pl.len().cast(pl.Int64).alias("games"), pl.col("played").first()))
    low, high = wilson_bounds(pl.col("games"), pl.col("played"), confidence)
    return (counts.select(pl.col("column").str.strip_prefix("score_").cast(pl.Int32).alias("seat"), "score", "games",
                          (pl.col("games") / pl.col("played")).alias("share"), low.alias("ci_low"), high.alias("ci_high"))
            .sort("seat", "score"))


def score_counts(frame: pl.LazyFrame, players: int) -> pl.DataFrame:
    """The score histogram the charts draw: ``seat, score, games`` (counted by Polars, so a
    chart never holds one value per game)."""
    return score_distribution(frame, players).select("seat", "score", "games").collect(engine="streaming")


def _event_totals(meta: dict) -> list[pl.Expr]:
    """The totals of ``event_rates``: units played, and each event's moments and games fired."""
    totals = [count().alias("games")]
    totals += [exact_sum(pl.col(column)).alias(f"units:{per}") for per, column in meta.get("unit_columns", {}).items()]
    for per, column in meta.get("unit_columns", {}).items():  # the game's length in each unit, and its spread
        totals += moment_totals(f"length:{per}", pl.col(column).cast(pl.Int64))
    for event in meta["events"] or [_STAND_IN]:
        column = event["column"]
        fired = pl.col(column).cast(pl.Int64)
        totals += [*moment_totals(f"event:{column}", fired), (fired > 0).sum().cast(pl.Int64).alias(f"fired:{column}")]
    return totals


def _event_rates_of(totals: pl.LazyFrame, meta: dict, confidence: float) -> pl.LazyFrame:
    unit_columns = meta.get("unit_columns", {})
    events = meta["events"] or [_STAND_IN]
    sums = [pl.col("games").sum()] + [pl.col(f"units:{per}").sum() for per in unit_columns]
    for event in events:
        column = event["column"]
        mean, sd = moments(f"event:{column}")
        sums += [pl.col(f"event:{column}:x").sum().alias(f"total:{column}"), pl.col(f"fired:{column}").sum(),
                 mean.alias(f"mean:{column}"), sd.alias(f"sd:{column}")]
    games = pl.col("games")
    rows = []
    for event in events:
        column, per = event["column"], event["per"]
        constant = units_per_game(meta, per)
        if per != "game" and per in unit_columns:
            counted = pl.col(f"units:{per}")
            # no unit played in the whole run: the rate is unknown, not 0 of 0
            units = pl.when(counted > 0).then(counted / games)
            trials = pl.when(counted > 0).then(counted.cast(pl.Float64))
        elif constant is not None:
            units, trials = pl.lit(constant), games * constant
        else:
            units = trials = pl.lit(None, pl.Float64)
        rows.append([pl.lit(column).alias("event"), pl.lit(event["label"]).alias("label"), pl.lit(per).alias("per"),
                     games, pl.col(f"total:{column}").alias("total"),
                     pl.col(f"mean:{column}").alias("mean_per_game"), pl.col(f"sd:{column}").alias("sd"),
                     pl.col(f"fired:{column}").alias("games_fired"),
                     units.cast(pl.Float64).alias("units_per_game"), trials.cast(pl.Float64).alias("trials")])
    total, trials, units = pl.col("total"), pl.col("trials"), pl.col("units_per_game")
    mean_low, mean_high = mean_bounds(pl.col("mean_per_game"), pl.col("sd"), games, confidence)
    fired_low, fired_high = wilson_bounds(pl.col("games_fired"), games, confidence)
    wilson_low, wilson_high = wilson_bounds(total, trials, confidence)
    proportion = total <= trials
    rates = (_one_row_each(totals.select(sums), rows)
            .select("event", "label", "per", "games", "total", "mean_per_game",
                    mean_low.alias("mean_ci_low"), mean_high.alias("mean_ci_high"), "games_fired",
                    (pl.col("games_fired") / games).alias("fired_share"),
                    fired_low.alias("fired_ci_low"), fired_high.alias("fired_ci_high"), "units_per_game", "trials",
                    (total / trials).alias("rate"),
                    pl.when(proportion).then(wilson_low).otherwise(mean_low / units).alias("ci_low"),
                    pl.when(proportion).then(wilson_high).otherwise(mean_high / units).alias("ci_high"),
                    pl.when(trials.is_not_null())
                    .then(pl.when(proportion).then(pl.lit("wilson")).otherwise(pl.lit("normal")))
                    .alias("method")))
    return rates if meta["events"] else rates.head(0)


def event_rates(frame: pl.LazyFrame | pl.DataFrame, meta: dict,
                confidence: float = stats.DEFAULT_CONFIDENCE) -> pl.LazyFrame:
    """One row per rule event of the metadata, in its order:

    ``event`` (column), ``label``, ``per`` (unit), ``games``, ``total`` (times it fired),
    ``mean_per_game`` with ``mean_ci_low/high`` (normal interval), ``games_fired`` and
    ``fired_share`` (games where it fired at least once) with ``fired_ci_low/high`` (Wilson),
    ``units_per_game``, ``trials`` (units played), ``rate = total / trials`` with ``ci_low/high``
    and ``method``.  Rate columns are null where the unit count is unknown (a per-game count
    column named in ``unit_columns``, else the constant ``<per>s_per_game``).

    The per-unit rate treats each unit (e.g. trick) as one trial for the Wilson interval.  Units
    of one game are not independent, so this is an approximation; if an event can fire more than
    once per unit (total > trials) Wilson does not apply and the interval is the per-game mean's
    normal interval divided by the units per game (``method`` "normal").
    """
    return _event_rates_of(_lazy(frame).select(_event_totals(meta)), meta, confidence)


# --------------------------------------------------------------------------------------------
# the summary
# --------------------------------------------------------------------------------------------

def finite_or_none(value):
    """JSON has no NaN or infinity: unknown numbers become None."""
    if value is None:
        return None
    value = float(value)
    return value if math.isfinite(value) else None


def pair_or_none(interval: Iterable[float]) -> list:
    return [finite_or_none(v) for v in interval]


def _whole(value):
    """A count held as a float (units played) as an int where it is whole."""
    return int(value) if value is not None and float(value).is_integer() else value


def _distinct_range(row: dict, games: int) -> bool:
    if games == 0:
        return True
    low, high = row["game_min"], row["game_max"]
    if high - low + 1 != games:
        return False
    # the sums of low..high and of their squares, in exact integers (both divisions are exact)
    indices = games * (low + high) // 2
    squares = (high * (high + 1) * (2 * high + 1) - (low - 1) * low * (2 * low - 1)) // 6
    return row["game_sum"] == indices and row["game_sumsq"] == squares


def _integrity_totals(meta: dict) -> list[pl.Expr]:
    """What the summary checks about the rows themselves: the game count, the game indices, and
    how many rows' shares do not sum to 1."""
    # Duplicate game indices (a file pooled twice) are caught without a hash set of every index,
    # which would grow with the run: n indices are exactly min..max when the range has n values
    # and their sum and sum of squares are those of that range (exact integers: Int128 holds the
    # squares of 2**32 indices below 2**47, far beyond any run).
    index = pl.col("game").cast(pl.Int128)
    shares = [pl.col(f"share_{seat}").cast(pl.Float64) for seat in range(meta["players"])]
    return [count().alias("games"), index.min().alias(f"{MERGE_MIN}game"), index.max().alias(f"{MERGE_MAX}game"),
            index.sum().alias("game_sum"), (index * index).sum().alias("game_sumsq"),
            ((pl.sum_horizontal(shares) - 1.0).abs() > SHARE_SUM_TOLERANCE).sum().cast(pl.Int64)
            .alias("unbalanced_rows")]


def _integrity_of(totals: pl.LazyFrame) -> pl.LazyFrame:
    return totals.select(pl.col("games").sum(), pl.col(f"{MERGE_MIN}game").min().alias("game_min"),
                         pl.col(f"{MERGE_MAX}game").max().alias("game_max"), pl.col("game_sum").sum(),
                         pl.col("game_sumsq").sum(), pl.col("unbalanced_rows").sum())


def summary_plan(frame: pl.LazyFrame | pl.DataFrame, meta: dict) -> dict[str, tuple[tuple[str, ...], pl.LazyFrame]]:
    """Every total the summary needs, as lazy queries over ``frame``'s rows (``collect_totals``
    gathers them in one scan): ``"rows"``, one row of totals for the seats, scores, events and
    the checks, and the game's own tables' totals (``analysis.figures``)."""
    from analysis.figures import game_totals

    frame = _lazy(frame)
    players = meta["players"]
    named = {}  # the figures share some totals (the game count): each once
    for total in (_integrity_totals(meta) + _seat_totals(players) + _score_totals(players) + _event_totals(meta)):
        named.setdefault(total.meta.output_name(), total)
    return {"rows": ((), frame.select(list(named.values()))), **game_totals(frame, meta)}


def summarize(frame: pl.LazyFrame, meta: dict, confidence: float = stats.DEFAULT_CONFIDENCE) -> dict:
    """``summary_of_totals`` of a run's rows: its totals (``summary_plan``) collected in one scan.
    Duplicate deals are refused: a summary's intervals take each game as independent, and a
    deal's turns are not (analysis/duplicate.py judges them by deal)."""
    if meta.get("design") == "duplicate":
        raise BalanceError("these rows are duplicate deals (each deal once per turn of the table): a summary's "
                           "per-game intervals do not apply; judge them by deal (analysis.duplicate.seat_edge, "
                           "balance whatif)")
    try:
        totals = collect_totals(summary_plan(frame, meta))
    except pl.exceptions.PolarsError as exc:
        raise BalanceError(f"cannot read the results (a damaged file?): {exc}".splitlines()[0]) from None
    return summary_of_totals(totals, meta, confidence)


SMALL_INTEGERS = {"int8", "uint8", "int16", "uint16"}  # x² < 2**32: Σx² of 2**31 rows fits an int64


def _counted_rows(chunk: Counted, meta: dict, schema) -> pl.DataFrame | None:
    """The ``"rows"`` totals of ``summary_plan`` for one chunk, counted with numpy: the same
    integers, so the same bits downstream, in a tenth of the time Polars takes to evaluate the
    plan (BIRD & WEATHER: 3 ms against 33 ms per 262,144 games, where playing them takes 290 ms
    on one thread; a run without ``--out`` has nothing else to do).  None (Polars evaluates the
    plan) unless the chunk is what the driver makes: consecutive game indices, counters and
    scores of at most 16 bits, fewer than 2**31 rows.  tests/analysis/test_reproducible_summaries.py holds
    the two to the same totals."""
    import numpy as np

    game = chunk["game"]
    players = meta["players"]
    events = [e["column"] for e in meta["events"] or [_STAND_IN]]
    counted = [f"score_{seat}" for seat in range(players)] + events + list(meta.get("unit_columns", {}).values())
    n = chunk.n
    if (not 0 < n < 2 ** 31 or "game" in events or any(chunk[c].dtype.name not in SMALL_INTEGERS for c in counted)
            or game.dtype.name != "uint64" or int(game[-1]) - int(game[0]) != n - 1 or not np.all(np.diff(game) == 1)):
        return None
    low = int(game[0])
    high = low + n - 1
    values = {"games": n, f"{MERGE_MIN}game": low, f"{MERGE_MAX}game": high,
              "game_sum": n * (low + high) // 2,  # consecutive indices: the same totals as summing them
              "game_sumsq": (high * (high + 1) * (2 * high + 1) - (low - 1) * low * (2 * low - 1)) // 6}
    shares = [chunk.as_float(f"share_{seat}") for seat in range(players)]
    whole = shares[0].copy()
    for share in shares[1:]:  # left to right, as pl.sum_horizontal adds them
        whole += share
    values["unbalanced_rows"] = int(np.count_nonzero(np.abs(whole - 1.0) > SHARE_SUM_TOLERANCE))
    for seat in range(players):  # whole 840ths: their float sum is exact (< 2**53)
        values[f"wins:{seat}"] = int(chunk.share_units(f"share_{seat}").sum())
    for seat in range(players):  # every column counted here has at most 16 bits (above): one pass each
        _, _, values[f"{MERGE_MIN}score_{seat}"], values[f"{MERGE_MAX}score_{seat}"], _ = chunk.passed(f"score_{seat}")
        values.update(chunk.moments(f"score_{seat}", f"score_{seat}"))
    for column in events:
        values[f"fired:{column}"] = chunk.passed(column)[4]
        values.update(chunk.moments(f"event:{column}", column))
    for per, column in meta.get("unit_columns", {}).items():
        values[f"units:{per}"] = chunk.total(column)
        values.update(chunk.moments(f"length:{per}", column))
    return counted_frame(values, schema)


@dataclass(frozen=True)
class ChunkTotals:
    """``simulate`` without ``--out``: the driver's per-chunk reduction (``run_games(reduce=)``).
    A chunk's rows become the summary's totals where the chunk was played (a writer thread, or
    the Dask worker), and the rows are dropped; the run's totals are the chunks' merged, and
    ``summary_of_totals`` gives the same summary, to the bit, as ``summarize`` of the rows."""

    meta: dict
    # the "rows" totals' columns, by the chunk's column types: the same for every chunk of a run
    schemas: dict = field(default_factory=dict, compare=False, repr=False)

    def __call__(self, columns: dict) -> dict[str, Totals]:
        from analysis.figures import game_counted, game_schemas, game_totals, has_figures

        types = tuple((name, column.dtype.str) for name, column in columns.items())
        if types not in self.schemas:
            empty = pl.DataFrame({name: column[:0] for name, column in columns.items()})
            self.schemas[types] = (summary_plan(empty, self.meta)["rows"][1].collect_schema(),
                                   game_schemas(empty.lazy(), self.meta))
        rows_schema, table_schemas = self.schemas[types]
        chunk = Counted(columns)  # the rows' and the tables' totals share what both count
        counted = _counted_rows(chunk, self.meta, rows_schema)
        if counted is None:
            return collect_totals(summary_plan(pl.DataFrame(columns), self.meta), streaming=False)
        tables = {}
        if has_figures(self.meta):
            tables = game_counted(chunk, self.meta, table_schemas)
            if tables is None:
                tables = collect_totals(game_totals(pl.DataFrame(columns).lazy(), self.meta), streaming=False)
        return {"rows": Totals(counted), **tables}

    @staticmethod
    def merge(parts: list[dict[str, Totals]]) -> dict[str, Totals]:
        return merge_totals(parts)


def summary_of_totals(totals: dict[str, Totals], meta: dict, confidence: float = stats.DEFAULT_CONFIDENCE) -> dict:
    """Reduce a run's totals (``summary_plan``, collected, or merged from its chunks') to a
    JSON-ready dict: the figures above, computed from the totals together.  Keys:

    ``figures`` (the game's own tables, see ``game_figures``), ``game, title, players, games, games_in_metadata, seed, version, strategies, variant
    {name, description, settings}, assumed, notes, confidence, seats, first_player_advantage,
    seat_balance, events``.

    ``seats[i]``: seat, label, strategy, wins (summed shares), win_share (fraction) and
    win_share_ci, mean_score and mean_score_ci, score_sd, score_min, score_max.
    ``first_player_advantage``: fair_share = 1/N, pp = (share of seat 0 - 1/N) in percentage
    points and ci_pp, the Wilson interval of seat 0 shifted the same way.
    ``seat_balance``: chi-square test of equal seat shares (test, statistic, df, p_value), None
    for one seat.  ``events[j]``: column, label, per, total, mean_per_game (+ _ci), games_fired,
    fired_share (+ _ci), units_per_game, trials, rate (per unit) and rate_ci, rate_method.
    Fractions are 0..1; unknown numbers are None.
    """
    players = meta["players"]
    rows = totals["rows"].lazy()
    shares = _seat_shares_of(rows, players, confidence)
    queries = [_integrity_of(rows), shares, _seat_scores_of(rows, players, confidence), _advantage_of(shares, players),
               _event_rates_of(rows, meta, confidence)]
    if players > 1:
        queries.append(_balance_of(shares))
    row, shares, scores, advantage, event_rows, *balance = pl.collect_all(queries)
    row = row.row(0, named=True)
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
    described = strategy_labels(meta)
    seats = [{"seat": share["seat"], "name": seat_name(share["seat"]), "label": labels[share["seat"]],
              "strategy": names[share["seat"]], "strategy_label": described[share["seat"]],
              "wins": share["wins"], "win_share": share["share"],
              "win_share_ci": pair_or_none((share["ci_low"], share["ci_high"])),
              "mean_score": finite_or_none(score["mean"]), "mean_score_ci": pair_or_none((score["ci_low"], score["ci_high"])),
              "score_sd": finite_or_none(score["sd"]), "score_min": score["min"], "score_max": score["max"]}
             for share, score in zip(shares.iter_rows(named=True), scores.iter_rows(named=True))]
    fpa = advantage.row(0, named=True)
    advantage = {"seat": 0, "fair_share": fpa["fair_share"], "pp": fpa["pp"],
                 "ci_pp": [fpa["ci_low_pp"], fpa["ci_high_pp"]]}
    balance = balance[0].row(0, named=True) if balance else None

    events = [{"column": e["event"], "label": e["label"], "per": e["per"], "total": e["total"],
               "mean_per_game": finite_or_none(e["mean_per_game"]),
               "mean_per_game_ci": pair_or_none((e["mean_ci_low"], e["mean_ci_high"])),
               "games_fired": e["games_fired"], "fired_share": e["fired_share"],
               "fired_share_ci": pair_or_none((e["fired_ci_low"], e["fired_ci_high"])),
               "units_per_game": e["units_per_game"], "trials": _whole(e["trials"]), "rate": e["rate"],
               "rate_ci": None if e["method"] is None else pair_or_none((e["ci_low"], e["ci_high"])),
               "rate_method": e["method"]}
              for e in event_rows.iter_rows(named=True)]
    length = _length_of(rows, meta, confidence)
    missing_units = sorted({e["per"] for e in events if e["units_per_game"] is None})
    if missing_units:
        notes.append("no per-game count of " + ", ".join(f"'{u}'" for u in missing_units)
                     + " in the metadata: those per-unit rates are not reported")

    teams, team_balance, first_team = team_figures(seats, meta, games, confidence)
    lineup = "symmetric" if symmetric(meta) else "mixed"
    return {
        "lineup": lineup,
        "strategy_strength": None if lineup == "symmetric" else strategy_strength(seats, games, players, confidence),
        "figures": game_figures_of(totals, meta, confidence),
        "game": meta["game"], "title": meta["title"], "players": players, "games": games,
        "games_in_metadata": meta.get("games"), "seed": meta.get("seed"),
        "version": meta.get("version"), "strategies": names, "variant": variant_info(meta),
        "assumed": list(meta["assumed"]), "notes": notes, "confidence": confidence,
        "seats": seats, "first_player_advantage": advantage, "seat_balance": balance,
        "events": events, "length": length, "round_cap": meta.get("round_cap"),
        # game.teams: partners win together, so the seats are not independent; the edge and the
        # balance test that judge the game are the teams' (team_figures)
        "teams": teams, "team_balance": team_balance, "first_team_advantage": first_team,
        # who sits first: every built-in game's seat 1 plays first; a rules file may deal the lead
        # elsewhere (to the two of clubs' holder, a random dealer's left), and its metadata says so
        "first_seat": meta.get("first_seat", "seat 1 plays first"),
        "seat_1_plays_first": bool(meta.get("seat_1_plays_first", True)),
    }


def team_figures(seats: list[dict], meta: dict, games: int, confidence: float):
    """(teams, team balance, first team's edge) of a game of teams (metadata ``teams``, seats
    from 0), else (None, None, None).  A team's win share is its seats' shares added up, with a
    Wilson interval over the games; the balance test compares the teams' wins (df = teams - 1)."""
    from analysis.cells import seat_list

    if not meta.get("teams"):
        return None, None, None
    fair = 1.0 / len(meta["teams"])
    rows = []
    for k, members in enumerate(meta["teams"]):
        wins = sum(seats[s]["wins"] for s in members)
        low, high = stats.wilson_interval(min(wins, games), games, confidence)
        rows.append({"team": k, "name": f"team {k + 1} ({seat_list(members)})", "seats": list(members),
                     "wins": wins, "win_share": wins / games, "win_share_ci": [low, high], "fair_share": fair})
    test = stats.chi2_equal_shares([r["wins"] for r in rows]) if sum(r["wins"] for r in rows) > 0 else None
    balance = None if test is None else {"test": "chi-square vs equal team shares", "statistic": test.statistic,
                                         "df": test.df, "p_value": test.p_value}
    first = rows[0]
    edge = {"team": 0, "fair_share": fair, "pp": 100 * (first["win_share"] - fair),
            "ci_pp": [100 * (first["win_share_ci"][0] - fair), 100 * (first["win_share_ci"][1] - fair)]}
    return rows, balance, edge


def team_table(summary: dict) -> tuple[list[str], list[list[str]]]:
    headers = ["team", "win share % [95% CI]", "edge over the fair share [95% CI]"]
    rows = [[t["name"], fmt_pct_ci(t["win_share"], t["win_share_ci"]),
             fmt_pp(100 * (t["win_share"] - t["fair_share"]),
                    [100 * (t["win_share_ci"][0] - t["fair_share"]), 100 * (t["win_share_ci"][1] - t["fair_share"])])]
            for t in summary["teams"]]
    return headers, rows


LENGTH_UNITS = ("round", "trick")  # a game's length, in the units it counts


def _length_of(rows: pl.LazyFrame, meta: dict, confidence: float) -> list[dict]:
    """How long a game is, per unit (round, trick): ``{per, mean, ci, varies}``, from the rows'
    per-game counts (``unit_columns``: a game played to a target) with a normal interval, or the
    rules' constant (``<per>s_per_game``, a whole number: every game the same length)."""
    out = []
    unit_columns = meta.get("unit_columns", {})
    for per in LENGTH_UNITS:
        if per in unit_columns:
            mean, sd = moments(f"length:{per}")
            row = rows.select(mean.alias("m"), sd.alias("s"), pl.col(f"length:{per}:n").sum().alias("n")).collect()
            m, s, n = row.row(0)
            low, high = stats.mean_interval(m, s or 0.0, int(n), confidence)
            out.append({"per": per, "mean": m, "ci": [low, high], "varies": True})
            continue
        constant = units_per_game(meta, per)
        if constant is not None and float(constant).is_integer():
            out.append({"per": per, "mean": constant, "ci": [constant, constant], "varies": False})
    return out


def length_line(summary: dict) -> str | None:
    """``game length: 5.69 rounds [5.66, 5.72] and 68.3 tricks [...] per game``, None where the
    run does not say."""
    parts = []
    for entry in summary.get("length") or []:
        unit = f"{entry['per']}s" if entry["mean"] != 1 else entry["per"]
        if entry["varies"]:
            parts.append(f"{fmt_num_ci(entry['mean'], entry['ci'])} {unit}")
        else:
            parts.append(f"{entry['mean']:g} {unit}")
    if not parts:
        return None
    return "game length: " + " and ".join(parts) + " per game"


def strategy_strength(seats: list[dict], games: int, players: int,
                      confidence: float = stats.DEFAULT_CONFIDENCE) -> list[dict]:
    """A mixed line-up's differences are skill, not seat order: per strategy, its seats' pooled
    win share (wins over games x seats, Wilson interval; the seats of one game cannot all win, so
    pooling them as independent trials errs wide) against the fair share 1/N."""
    fair = 1.0 / players
    grouped: dict[str, list[dict]] = {}
    for seat in seats:
        grouped.setdefault(seat["strategy"], []).append(seat)
    rows = []
    for name, members in grouped.items():
        wins = sum(m["wins"] for m in members)
        trials = games * len(members)
        low, high = stats.wilson_interval(min(wins, trials), trials, confidence)
        rows.append({"strategy": name, "strategy_label": members[0]["strategy_label"],
                     "seats": [m["seat"] for m in members], "seat_names": seat_list(m["seat"] for m in members),
                     "win_share": wins / trials, "win_share_ci": [low, high], "fair_share": fair,
                     "edge_pp": 100 * (wins / trials - fair), "edge_ci_pp": [100 * (low - fair), 100 * (high - fair)]})
    return sorted(rows, key=lambda r: -r["win_share"])


def game_figures(frame: pl.LazyFrame, meta: dict, confidence: float) -> list[dict]:
    """The game's own balance tables (analysis/figures/<game>.py), each ``{title, note, headers,
    rows}`` with the cells already formatted; none for a game that has no tables of its own."""
    from analysis.figures import game_figures as figures

    return figures(frame, meta, confidence)


def game_figures_of(totals: dict[str, Totals], meta: dict, confidence: float) -> list[dict]:
    """``game_figures`` from the totals of ``summary_plan``."""
    from analysis.figures import game_figures_of as figures

    return figures(totals, meta, confidence)


def summary_json(summary: dict) -> str:
    """The summary as strict JSON (no NaN), keys in a stable order."""
    return json.dumps(summary, indent=2, allow_nan=False)

def seat_table(summary: dict) -> tuple[list[str], list[list[str]]]:
    headers = ["seat", "strategy", "win share % [95% CI]", "mean score [95% CI]"]
    rows = [[seat_name(s["seat"]), s.get("strategy_label", s["strategy"]), fmt_pct_ci(s["win_share"], s["win_share_ci"]),
             fmt_num_ci(s["mean_score"], s["mean_score_ci"])] for s in summary["seats"]]
    return headers, rows


def strength_table(summary: dict) -> tuple[list[str], list[list[str]]]:
    """A mixed line-up's strategies: pooled win share and edge over the fair share."""
    headers = ["strategy", "seats", "win share % [95% CI]", "edge over the fair share [95% CI]"]
    rows = [[r["strategy_label"], r["seat_names"], fmt_pct_ci(r["win_share"], r["win_share_ci"]),
             fmt_pp(r["edge_pp"], r["edge_ci_pp"])] for r in summary["strategy_strength"] or []]
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
    if summary.get("lineup") == "mixed":
        return (f"seat 1 share − 1/{summary['players']}: {fmt_pp(fpa['pp'], fpa['ci_pp'])} — not a first-seat edge: "
                "the seats play different strategies, so this is mostly skill (every seat one strategy, or "
                "`balance tournament`, measures the seat edge)")
    if summary.get("teams"):
        first = summary["first_team_advantage"]
        return (f"first team's edge ({summary['teams'][0]['name']} share − 1/{len(summary['teams'])}): "
                f"{fmt_pp(first['pp'], first['ci_pp'])}")
    return (f"first-seat edge (seat 1 share − 1/{summary['players']}): "
            f"{fmt_pp(fpa['pp'], fpa['ci_pp'])}")


def balance_line(summary: dict) -> str:
    """The balance test's line: over the seats, or (game.teams) over the teams."""
    if summary.get("teams"):
        test, what, against, nothing = summary["team_balance"], "team balance", "equal team shares", "no wins to compare"
    else:
        test, what, against, nothing = summary["seat_balance"], "seat balance", "equal shares", "one seat, nothing to compare"
    if test is None:
        return f"{what}: {nothing}"
    p_text = fmt_p(test["p_value"])
    return (f"{what} (chi-square vs {against}): X² = {test['statistic']:.2f}, "
            f"df = {test['df']}, p {p_text if p_text.startswith('<') else '= ' + p_text}")


def fixed_width(headers: list[str], rows: list[list[str]]) -> list[str]:
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
    from analysis.verdict import summary_verdict

    verdict = summary_verdict(summary)
    out += ["", "verdict: " + " ".join(verdict["sentences"]), f"  ({verdict['note']})"]
    out += ["", f"seats ({games_phrase(summary['games'])}; {summary.get('first_seat', 'seat 1 plays first')}):"]
    out += fixed_width(*seat_table(summary))
    if summary.get("teams"):
        out += ["", "teams (partners score and win together: the game is judged by team):"]
        out += fixed_width(*team_table(summary))
    if summary.get("strategy_strength"):
        out += ["", "strategy strength (mixed line-up: seat differences are skill, not seat order):"]
        out += fixed_width(*strength_table(summary))
    out += ["", advantage_line(summary), balance_line(summary)]
    if length_line(summary):
        out.append(length_line(summary))
    if summary["events"]:
        out += ["", f"rule events ({games_phrase(summary['games'])}):"]
        out += fixed_width(*event_table(summary))
    for figure in summary.get("figures", []):
        out += ["", f"{figure['title']}:"] + ([f"  {figure['note']}"] if figure.get("note") else [])
        out += fixed_width(figure["headers"], figure["rows"])
    return "\n".join(out) + "\n"
