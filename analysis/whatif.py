"""`balance whatif`: the published rules and one or more variants on the same games, side by side.

Common random numbers.  Every game index of a run seed has its own DEAL stream and one PLAY
stream per seat (``simcore/rng.py``), so runs with the same seed play game g from the same shuffle
and the same random choices wherever a variant leaves the deck alone.  The runs are paired by game index and
each change is estimated from the PAIRED per-game differences: the luck of the deal, which both
runs share, cancels.  The variance of two independent runs divided by the paired variance is the
CRN gain: the paired comparison is as informative as that many times more independent games.
A variant that changes the deck deals different hands from the same streams; the pairing stays
valid, the correlation and so the gain just shrink, and the tables show it.

Duplicate deals (the default for a card game: ``design_for``).  The runs then play each deal once
per turn of the table (analysis/duplicate.py), so the luck of who holds which hand cancels out of
a seat's figures as well.  The pairing is the same (game by game); the deals are the independent
observations, so every variance below is clustered by deal: Var(Σ of a deal's u) / N per game.

Every headline figure is a ratio of per-game totals, R = Σx / Σt: a win share or a mean score
(t = 1 per game), a rule event per trick or per round (x = the event's count, t = the game's
tricks or rounds), the rounds of a game.  Its per-game linearisation (delta method, Cochran,
"Sampling Techniques", 3rd ed., §6.4)

    u_g = (x_g − R t_g) / mean(t)

has mean 0 and Var(R) ≈ Var(u) / n, so the change R_variant − R_baseline has the paired variance
Var(u_variant − u_baseline) / n and the unpaired one (Var(u_variant) + Var(u_baseline)) / n.  For
a plain mean, u is the per-game value minus the mean and this is the ordinary paired test.

Nothing here knows a game by name: seats, events and their units come from each run's metadata.
"""
from __future__ import annotations

import math
import os
import tempfile
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import polars as pl

from analysis import stats
from analysis.cells import seat_list, strategy_labels, symmetric
from analysis.summary import (SHARE_UNITS, fixed_width, finite_or_none, pair_or_none, fmt_num_ci, fmt_p, fmt_pct_ci, fmt_pp,
                              fmt_settings, games_phrase, units_per_game)
from simcore.errors import BalanceError
from simcore.parts import scan_run
from simcore.registry import DUPLICATE

DEFAULT_GAMES = 100_000
# units whose count per game is the length of a game; shown wherever the rows record it
LENGTH_UNITS = ("round", "trick", "turn")
# kinds whose values are fractions, shown in % and their changes in percentage points
PERCENT_KINDS = ("advantage", "share", "rate")


# --------------------------------------------------------------------------------------------
# the figures
# --------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Figure:
    """One headline figure, R = Σ numerator / Σ units per game (``per == "game"``: a mean per game).

    ``kind``: "advantage" (seat 0's share minus ``offset`` = 1/N), "share", "score" (points),
    "rate" (a rule event per ``per``) or "length" (the rounds or tricks counted in column
    ``numerator``, per game)."""

    key: str
    label: str
    kind: str
    numerator: str
    per: str = "game"
    offset: float = 0.0

    @property
    def unit(self) -> str:
        """The unit the value is shown in."""
        return {"advantage": "pp", "share": "%", "rate": f"% per {self.per}", "score": "points",
                "length": "per game"}[self.kind]

    @property
    def change_unit(self) -> str:
        return {"advantage": "pp", "share": "pp", "rate": f"pp per {self.per}", "score": "points",
                "length": "per game"}[self.kind]


def unit_source(meta: dict, columns, per: str) -> str | float | None:
    """Where a run's count of ``per`` units per game comes from: the per-game column the
    metadata names (``unit_columns``), else a column ``<per>s`` of the rows (games of varying
    length whose metadata only gives the mean), else the constant ``<per>s_per_game``; None if
    nothing says."""
    if per == "game":
        return 1.0
    named = meta.get("unit_columns", {}).get(per)
    if named in columns:
        return named
    if f"{per}s" in columns:
        return f"{per}s"
    return units_per_game(meta, per)


def headline_figures(metas: list[dict], columns) -> list[Figure]:
    """Every headline figure the runs (one game, one player count) can all report: first-player
    advantage, each seat's win share and mean score, game length where the rows count it, and
    every rule event per its unit (per game where a run cannot say how many units it had)."""
    meta = metas[0]
    players = meta["players"]
    names = strategy_labels(meta)
    teams = meta.get("teams")
    if teams:  # game.teams: partners win together, so the first team's edge is the headline
        edge = (f"first team's edge (team 1 share − 1/{len(teams)})" if symmetric(meta) else
                f"team 1 share − 1/{len(teams)} (mixed line-up: skill, not a seat edge)")
        figures = [Figure("advantage", edge, "advantage", "team_0", offset=1.0 / len(teams))]
        figures += [Figure(f"team_{k}", f"win share, team {k + 1} ({seat_list(team)})", "share", f"team_{k}")
                    for k, team in enumerate(teams)]
    else:
        edge = (f"first-seat edge (seat 1 share − 1/{players})" if symmetric(meta) else
                f"seat 1 share − 1/{players} (mixed line-up: skill, not a seat edge)")
        figures = [Figure("advantage", edge, "advantage", "share_0", offset=1.0 / players)]
    figures += [Figure(f"share_{s}", f"win share, seat {s + 1} ({names[s]})", "share", f"share_{s}")
                for s in range(players)]
    figures += [Figure(f"score_{s}", f"mean score, seat {s + 1} ({names[s]})", "score", f"score_{s}")
                for s in range(players)]
    for unit in LENGTH_UNITS:
        sources = [unit_source(m, columns, unit) for m in metas]
        if all(isinstance(source, str) and source == sources[0] for source in sources):
            figures.append(Figure(f"length:{unit}", f"{unit}s", "length", sources[0]))
    for event in meta.get("events", []):
        per = event.get("per") or "game"
        if any(unit_source(m, columns, per) is None for m in metas):
            per = "game"
        figures.append(Figure(f"event:{event['column']}", event.get("label") or event["column"], "rate",
                              event["column"], per))
    return figures


def needed_columns(figures: list[Figure], metas: list[dict], columns) -> list[str]:
    """The row columns the figures read: numerators and per-game unit counts."""
    wanted = [f.numerator for f in figures]
    wanted += [source for f in figures for m in metas
               if isinstance(source := unit_source(m, columns, f.per), str)]
    return list(dict.fromkeys(wanted))


# --------------------------------------------------------------------------------------------
# the statistics: two passes over the runs' rows, side by side
# --------------------------------------------------------------------------------------------

# rows per read: memory stays flat however many games, and every sum runs over the same slices
# in the same order, so the figures are bit-identical for any --threads or --chunk-size
BATCH = 1 << 20


@dataclass(frozen=True)
class Moments:
    """Per arm and figure: the ratio R and Var(u); per compared pair: Var(u_j − u_i).

    On duplicate deals (``deal`` = the players, each deal's games one cluster) a variance is the
    clustered one per game, Var(Σ of a deal's u) / players, so that Var(R) ≈ variance / games
    holds in either design and every interval below is written once."""

    games: int
    ratio: dict      # (figure key, arm) -> R, None where the arm has no units at all
    variance: dict   # (figure key, arm) -> sample variance of u (None below two games, or deals)
    paired: dict     # (figure key, i, j) -> sample variance of u_j − u_i
    deal: int = 1    # games per cluster: 1 for independent games, the players for duplicate deals

    @property
    def duplicate(self) -> bool:
        return self.deal > 1


def _rows(source) -> pl.LazyFrame:
    """A run's rows: a run folder or file (``scan_run``), or the rows themselves (a DataFrame the
    caller holds, as the studio does while a run grows)."""
    return source.lazy() if isinstance(source, pl.DataFrame) else scan_run(source)


def deal_size(metas: list[dict]) -> int:
    """Games per cluster of the runs: the players where they are duplicate deals (``meta["design"]``,
    simcore/driver.py), 1 where they are independent games; runs of both designs are refused."""
    designs = {meta.get("design", "independent") for meta in metas}
    if len(designs) > 1:
        raise BalanceError("the runs mix duplicate deals and independent games: they cannot be paired game by game")
    return metas[0]["players"] if designs == {"duplicate"} else 1


def aligned_batches(paths: list, columns: list[str], teams=None, deal: int = 1):
    """The runs' rows in slices of about BATCH games, side by side: ``{(column, arm): float64
    array}``; a column ``team_k`` (game.teams) is team k's win share, its seats' shares added up.

    Every run holds the same games in order (the driver writes its chunks in order), so slice k of
    each run is the same games; that is checked, not assumed.  With ``deal`` > 1 (duplicate deals)
    a slice holds whole deals, from a deal's first turn: a run of part of a deal is refused."""
    derived = {f"team_{k}": [f"share_{s}" for s in team] for k, team in enumerate(teams or [])}
    wanted = columns
    columns = list(dict.fromkeys(c for column in wanted for c in derived.get(column, [column])))
    counts = [_rows(p).select(pl.len()).collect().item() for p in paths]
    if len(set(counts)) != 1:
        raise BalanceError(f"the runs hold different numbers of games: {counts}")
    if counts[0] % deal:
        raise BalanceError(f"the runs hold {counts[0]:,} games, not whole duplicate deals of {deal}")
    step = BATCH - BATCH % deal  # BATCH itself for independent games: their sums keep their slices
    for offset in range(0, counts[0], step):
        batch, games = {}, None
        for arm, path in enumerate(paths):
            rows = _rows(path).slice(offset, step).select("game", *columns).collect()
            if games is None:
                games = rows["game"].to_numpy()
                if deal > 1 and (games[0] - DUPLICATE) % deal:
                    raise BalanceError(f"the runs start at game {games[0]}, inside a duplicate deal")
            elif not np.array_equal(games, rows["game"].to_numpy()):
                named = [f"run {a + 1}" if isinstance(p, pl.DataFrame) else str(p) for a, p in ((arm, path), (0, paths[0]))]
                raise BalanceError(f"{named[0]} does not hold the same games in the same order as {named[1]}")
            for column in columns:
                values = rows[column].to_numpy().astype(np.float64)
                if column.startswith("share_"):
                    # float32 stores 1/3 as 1/3 + 9.9e-9; the summary counts a k-way tie as exactly
                    # 1/k (whole 840ths, analysis.summary), and so do we, so both agree to the bit
                    values = np.round(values * SHARE_UNITS) / SHARE_UNITS
                batch[column, arm] = values
            for column, members in derived.items():
                if column in wanted:
                    batch[column, arm] = sum(batch[member, arm] for member in members)
        yield batch


def moments(paths: list, figures: list[Figure], metas: list[dict], columns,
            pairs: list[tuple[int, int]] = ()) -> Moments:
    """Pass 1 totals each figure per run (``metas[a]`` describes ``paths[a]``); pass 2 sums the
    linearised per-game values u around those ratios and their squares, per run and per
    compared pair.  Two passes rather than raw sums of squares: u is centred by construction,
    and an unchanged figure has differences of exactly 0, not rounding noise."""
    arms = range(len(paths))
    sources = {(f.key, a): unit_source(metas[a], columns, f.per) for f in figures for a in arms}
    needed = needed_columns(figures, metas, columns)
    deal = deal_size(metas)

    def units(batch, f, a):
        source = sources[f.key, a]
        return batch[source, a] if isinstance(source, str) else np.full(len(batch[f.numerator, a]), float(source))

    games, x_total, t_total = 0, dict.fromkeys(sources, 0.0), dict.fromkeys(sources, 0.0)
    for batch in aligned_batches(paths, needed, metas[0].get("teams"), deal):
        games += len(next(iter(batch.values())))
        for f in figures:
            for a in arms:
                x_total[f.key, a] += float(batch[f.numerator, a].sum())
                t_total[f.key, a] += float(units(batch, f, a).sum())
    if games == 0:
        raise BalanceError("the runs hold no games")
    ratio = {k: x_total[k] / t_total[k] if t_total[k] > 0 else None for k in sources}
    defined = [k for k in sources if ratio[k] is not None]
    compared = [(f.key, i, j) for i, j in pairs for f in figures
                if ratio[f.key, i] is not None and ratio[f.key, j] is not None]
    sums = {k: [0.0, 0.0] for k in defined + compared}  # Σ value, Σ value²
    for batch in aligned_batches(paths, needed, metas[0].get("teams"), deal):
        linear = {}
        for f in figures:
            for a in arms:
                if ratio[f.key, a] is not None:
                    linear[f.key, a] = (batch[f.numerator, a] - ratio[f.key, a] * units(batch, f, a)) \
                        / (t_total[f.key, a] / games)
        values = {**linear, **{(key, i, j): linear[key, j] - linear[key, i] for key, i, j in compared}}
        for k, v in values.items():
            if deal > 1:  # a deal's games are one observation: their sum (analysis/duplicate.py)
                v = v.reshape(-1, deal).sum(axis=1)
            sums[k][0] += float(v.sum())
            sums[k][1] += float((v * v).sum())  # not np.dot: BLAS splits it by thread count
    units = games // deal  # the independent observations: games, or deals

    def variance(k):
        total, squares = sums[k]
        return max(squares - total * total / units, 0.0) / (units - 1) / deal if units > 1 else None

    return Moments(games, ratio, {k: variance(k) for k in defined}, {k: variance(k) for k in compared}, deal)


def estimate(figure: Figure, m: Moments, arm: int, confidence: float) -> tuple[float | None, list]:
    """A figure's value in one arm with its interval: Wilson for win shares of independent games
    (as ``simulate`` reports them), the delta-method normal interval otherwise (games, or on
    duplicate deals the deals, are the sampling unit)."""
    value = m.ratio[figure.key, arm]
    if value is None:
        return None, [None, None]
    if figure.kind in ("share", "advantage") and not m.duplicate:
        wins = min(max(value * m.games, 0.0), m.games)  # float32 shares may sum a hair past n
        low, high = stats.wilson_interval(wins, m.games, confidence)
    else:
        spread = m.variance[figure.key, arm]
        low, high = stats.mean_interval(value, math.sqrt(spread) if spread is not None else math.nan,
                                        m.games, confidence)
    return value - figure.offset, pair_or_none((low - figure.offset, high - figure.offset))


def compare(figure: Figure, m: Moments, base: int, other: int, confidence: float) -> dict:
    """Arm ``other`` against arm ``base`` for one figure: both values, the change with its
    paired interval and p-value (a z-test of the mean per-game difference), the unpaired
    (Welch) interval of the same change, the correlation of the two runs and the CRN gain."""
    baseline, baseline_ci = estimate(figure, m, base, confidence)
    value, value_ci = estimate(figure, m, other, confidence)
    row = {"key": figure.key, "label": figure.label, "kind": figure.kind, "per": figure.per,
           "unit": figure.unit, "change_unit": figure.change_unit,
           "baseline": finite_or_none(baseline), "baseline_ci": baseline_ci, "variant": finite_or_none(value), "variant_ci": value_ci,
           "change": None, "change_ci": [None, None], "p_value": None, "q_value": None,
           "change_ci_unpaired": [None, None], "p_value_unpaired": None, "se_paired": None, "se_unpaired": None,
           "correlation": None, "crn_gain": None}
    if m.duplicate:  # the pairs are deals: "the same in every deal" is what an exact change means here
        row["clustered"] = True
    if baseline is None or value is None:
        return row
    change = row["change"] = value - baseline
    var_base, var_other = m.variance.get((figure.key, base)), m.variance.get((figure.key, other))
    var_paired = m.paired.get((figure.key, base, other))
    if None in (var_base, var_other, var_paired):  # fewer than two games: no spread to go by
        return row
    se = math.sqrt(var_paired / m.games)
    if se == 0.0:  # every game changed by exactly the same amount (0 for an unchanged figure)
        p_value = 1.0 if change == 0.0 else 0.0
    else:
        p_value = math.erfc(abs(change / se) / math.sqrt(2.0))
    _, unpaired_ci, unpaired_p = stats.welch_test(value, var_other, m.games, baseline, var_base, m.games, confidence)
    row.update(change_ci=pair_or_none(stats.mean_interval(change, math.sqrt(var_paired), m.games, confidence)),
               p_value=p_value, change_ci_unpaired=pair_or_none(unpaired_ci), p_value_unpaired=finite_or_none(unpaired_p),
               se_paired=se, se_unpaired=math.sqrt((var_base + var_other) / m.games))
    if var_base > 0 and var_other > 0:
        row["correlation"] = max(-1.0, min(1.0, (var_base + var_other - var_paired) / (2 * math.sqrt(var_base * var_other))))
    if var_paired > 0:
        row["crn_gain"] = (var_base + var_other) / var_paired
    return row


def adjust(groups: list[list[dict]]) -> int:
    """Benjamini–Hochberg q-values over every test of every group (one group per variant)
    together; returns how many tests that is.

    The first-player advantage is seat 0's win share moved by a constant, the same test: where
    both are shown it is counted once and takes seat 0's q.  A change that is the same in every
    game (paired standard error 0: an untouched figure, or a constant game length) is known
    exactly, not tested: its q is its p (1 or 0)."""
    def first(rows) -> str:  # whose share the edge moves: seat 1's, or (game.teams) team 1's
        return "team_0" if any(r["key"] == "team_0" for r in rows) else "share_0"

    def duplicate(row, rows):
        return row["kind"] == "advantage" and any(r["key"] == first(rows) for r in rows)

    tested = [r for rows in groups for r in rows
              if r["p_value"] is not None and r["se_paired"] and not duplicate(r, rows)]
    for row, q in zip(tested, stats.benjamini_hochberg([r["p_value"] for r in tested])):
        row["q_value"] = q
    for rows in groups:
        seat0 = next((r["q_value"] for r in rows if r["key"] == first(rows)), None)
        for row in rows:
            if row["p_value"] is not None and row["se_paired"] == 0.0:
                row["q_value"] = row["p_value"]
            elif duplicate(row, rows):
                row["q_value"] = seat0
    return len(tested)


# --------------------------------------------------------------------------------------------
# planning (every check before any game is played) and running
# --------------------------------------------------------------------------------------------

def check_report_folder(out: Path | None) -> None:
    """Refuse a report folder that could not be written, before any simulation time is spent."""
    if out is None:
        return
    if out.exists() and not out.is_dir():
        raise BalanceError(f"{out} exists and is not a directory")
    existing = out
    while not existing.exists():
        existing = existing.parent
    if not existing.is_dir():
        raise BalanceError(f"cannot make {out}: {existing} is not a directory")
    if not os.access(existing, os.W_OK | os.X_OK):
        raise BalanceError(f"cannot write to {existing}")


def check_run_options(games: int, seed: int, threads: int | None) -> None:
    from simcore.driver import set_threads
    from simcore.registry import check_seed

    if games < 1:
        raise BalanceError(f"--games must be at least 1, not {games}")
    check_seed(seed)
    set_threads(threads)


DESIGNS = ("duplicate", "independent")


def design_for(game, players: int, games: int, design: str | None) -> tuple[str, int]:
    """The design the runs play and the games each plays: ``design`` as asked ("duplicate" or
    "independent"), or by default duplicate deals where the game's chance can turn with the hands
    and the runs hold at least MIN_DEALS deals (a clustered interval needs deals:
    analysis/duplicate.py), else independent games; on duplicate deals ``games`` is rounded up to
    whole deals.  An impossible choice is refused in one line."""
    from analysis.duplicate import MIN_DEALS, whole_deals

    if design is None:
        design = "duplicate" if game.duplicate_deals and games >= MIN_DEALS * players else "independent"
    elif design not in DESIGNS:
        raise BalanceError(f"the design must be duplicate or independent, not {design!r}")
    if design == "duplicate" and not game.duplicate_deals:
        raise BalanceError(f"--duplicate: {game.name} cannot play duplicate deals: {game.duplicate_deals_refused}")
    if design == "duplicate" and games < MIN_DEALS * players:
        raise BalanceError(f"--duplicate needs at least {MIN_DEALS} deals, {MIN_DEALS * players:,} games at "
                           f"{players} players, not {games:,}: its intervals are clustered by deal")
    return design, whole_deals(games, players) if design == "duplicate" else games


def design_said(document: dict, independent: str = "", duplicate: str = " (duplicate deals)") -> str:
    """A phrase for the document's design: ``duplicate`` on duplicate deals, else ``independent``."""
    return duplicate if document.get("design") == "duplicate" else independent


def prepare_runs(game, players: int, strategies_spec: str | None, games: int, seed: int, threads: int | None,
                 out: Path | None):
    """The last checks before simulating (strategies, options, report folder); the line-up."""
    lineup = game.lineup(strategies_spec, players)
    check_run_options(games, seed, threads)
    check_report_folder(out)
    return lineup


@contextmanager
def simulated(game, players: int, variants: list, lineup, seed: int, games: int, threads: int | None,
              progress: bool, design: str = "independent"):
    """Simulate games 0..games-1 of ``seed`` (on duplicate deals: the first ``games`` games of its
    duplicate deals, simcore/rng.py) under each variant into a scratch folder that lives as long
    as the ``with`` block: yields (result files, their metadata, the rows' columns)."""
    from analysis.duplicate import start_of
    from simcore.driver import run_games

    with tempfile.TemporaryDirectory(prefix="balance-") as scratch:
        paths, metas = [], []
        for number, variant in enumerate(variants):
            # set up again right before the run: a game may note the rules in force (e.g. which of
            # its data is assumed) on the last setup it built, and the run's metadata must be its own
            setup = game.setup(players, variant)
            result = run_games(game, setup, lineup, variant, seed, games, threads=threads,
                               out=Path(scratch) / f"run-{number}.parquet", progress=progress,
                               start=start_of(game, design == "duplicate"))
            paths.append(result.path)
            metas.append(result.meta)
        yield paths, metas, set(scan_run(paths[0]).collect_schema().names())


def common_fields(metas: list[dict], players: int, games: int, seed: int, lineup, confidence: float) -> dict:
    """What every what-if and sweep document starts with; ``design`` is the runs' design."""
    first = metas[0]
    return {"game": first["game"], "title": first["title"], "players": players, "games": games, "seed": seed,
            "design": "duplicate" if deal_size(metas) > 1 else "independent",
            "strategies": list(lineup.names), "version": first.get("version"), "confidence": confidence,
            "assumed": list(dict.fromkeys(note for meta in metas for note in meta.get("assumed", [])))}


def describe(variant) -> dict:
    return {"name": variant.name, "description": variant.description, "source": variant.source,
            "settings": dict(variant.settings)}


def whatif(game_name: str, variant_paths: list, players: int = 4, games: int = DEFAULT_GAMES, seed: int = 1,
           strategies_spec: str | None = None, threads: int | None = None, progress: bool = True,
           out: Path | None = None, confidence: float = stats.DEFAULT_CONFIDENCE,
           baseline_path: Path | None = None, design: str | None = None) -> dict:
    """Run the published rules (or the variant ``baseline_path``) and each variant on the same
    games of ``seed`` and compare them: duplicate deals by default where the game allows
    (``design_for``; ``games`` then rounded up to whole deals), else games 0..games-1.

    Every input is checked (variant files, their decks, strategies, options, the report folder)
    before the first game is played.  Returns the JSON-ready document (see ``docs/whatif.md``)."""
    from simcore.registry import get_game

    game = get_game(game_name)
    game.check_players(players)
    if not variant_paths:
        raise BalanceError("give at least one --variant FILE to compare with the published rules")
    seen = set()
    variants = [game.variant(baseline_path)]
    for path in variant_paths:
        if Path(path).resolve() in seen:
            raise BalanceError(f"--variant {path} is given twice")
        seen.add(Path(path).resolve())
        variants.append(game.variant(path))
    for variant in variants:
        game.setup(players, variant)  # an impossible deck is refused now, not after the baseline ran
    lineup = prepare_runs(game, players, strategies_spec, games, seed, threads, out)
    design, games = design_for(game, players, games, design)
    with simulated(game, players, variants, lineup, seed, games, threads, progress, design) as (paths, metas, columns):
        return compared_document(paths, metas, columns, variants, players, games, seed, lineup, confidence)


def compared_document(runs: list, metas: list[dict], columns, variants: list, players: int, games: int, seed: int,
                      lineup, confidence: float = stats.DEFAULT_CONFIDENCE) -> dict:
    """The what-if document of runs already played (``runs[0]`` the baseline, each a run folder or
    its rows as a DataFrame; ``metas`` theirs): every figure compared with the baseline, paired by
    game index, the q-values and the verdict.  ``whatif`` and the studio both end here."""
    figures = headline_figures(metas, columns)
    m = moments(runs, figures, metas, columns, [(0, k) for k in range(1, len(runs))])
    compared = [[compare(f, m, 0, k, confidence) for f in figures] for k in range(1, len(runs))]
    tests = adjust(compared)
    document = {
        **common_fields(metas, players, games, seed, lineup, confidence),
        "lineup": "symmetric" if symmetric(metas[0]) else "mixed",
        "strategy_labels": strategy_labels(metas[0]),
        "baseline": {**describe(variants[0]), "seconds": metas[0].get("seconds")},
        "variants": [{**describe(v), "seconds": meta.get("seconds"), "figures": rows}
                     for v, meta, rows in zip(variants[1:], metas[1:], compared)],
        "tests": tests,
    }
    document["verdict"] = verdict(document)
    return document


def verdict(document: dict) -> dict:
    """Did each change help, and by how much: its effect on the first seat's edge (judged against
    the change threshold), whether that brings the seats closer to fair, and the largest other
    sure change; at most three sentences."""
    from analysis.verdict import judge, one_player, stated, thresholds, tone

    limit = thresholds().change_pp
    mixed = document.get("lineup") == "mixed"
    sentences, outcomes = [], []
    variants = document["variants"]
    for number, variant in enumerate(variants, start=1):
        row = next(r for r in variant["figures"] if r["key"] == "advantage")
        name = f"Variant {number} ({variant['name']})"
        if row["change"] is None or None in row["change_ci"]:
            sentences.append(f"{name}: the first seat's edge could not be compared.")
            continue
        change, interval = 100 * row["change"], [100 * v for v in row["change_ci"]]
        judged = judge(change, interval, limit)
        outcomes.append(judged)
        size = {"within": f"under the ±{limit:g} pp that counts as a change",
                "beyond": f"beyond the ±{limit:g} pp that counts as a change",
                "unsettled": f"which may or may not exceed ±{limit:g} pp"}[judged]
        before, after = 100 * row["baseline"], 100 * row["variant"]
        first = "team" if row["label"].startswith(("first team's", "team 1")) else "seat"
        what = (f"{first} 1's win share (a mixed line-up: skill, not a seat edge)" if mixed else
                f"the first {first}'s edge among {one_player(document['strategies'])} players")
        text = (f"{name} moves {what} by {change:+.2f} pp [{interval[0]:+.2f}, {interval[1]:+.2f}], from "
                f"{before:+.2f} to {after:+.2f} pp, {size}")
        if not mixed and judged != "within":
            text += "; closer to fair" if abs(after) < abs(before) else "; further from fair"
        sentences.append(text + ".")
    if len(variants) == 1:
        others = [r for r in variants[0]["figures"]
                  if r["key"] not in ("advantage", "share_0", "team_0") and r["kind"] in PERCENT_KINDS
                  and r["change"] is not None and r["q_value"] is not None and r["q_value"] < 0.05]
        if others:
            top = max(others, key=lambda r: abs(r["change"]))
            low, high = (100 * v for v in top["change_ci"])
            sentences.append(f"Its largest other change: {top['label']}"
                             + (f" per {top['per']}" if top["kind"] == "rate" and top["per"] != "game" else "")
                             + f" {100 * top['change']:+.2f} pp [{low:+.2f}, {high:+.2f}].")
        else:
            sentences.append("No other figure changes with 95% confidence (after the Benjamini–Hochberg correction).")
    return {"sentences": sentences[:3], "note": stated("change_pp", "seat_pp"),
            "tone": tone(*outcomes) if outcomes else "info"}


# --------------------------------------------------------------------------------------------
# formatting
# --------------------------------------------------------------------------------------------

def fmt_value(kind: str, value, interval) -> str:
    """A figure's value with its interval, in the figure's unit."""
    if value is None:
        return "n/a"
    if kind == "advantage":
        return fmt_pp(100 * value, [100 * v for v in interval]) if None not in interval else f"{100 * value:+.2f} pp"
    if kind in PERCENT_KINDS:
        return fmt_pct_ci(value, interval)
    return fmt_num_ci(value, interval)


def fmt_change(kind: str, change, interval) -> str:
    if change is None:
        return "n/a"
    scale, unit = (100.0, " pp") if kind in PERCENT_KINDS else (1.0, "")
    if None in interval:
        return f"{scale * change:+.3g}{unit}"
    return fmt_pp(scale * change, [scale * v for v in interval], unit=unit)


def fmt_gain(row: dict) -> str:
    if row["crn_gain"] is not None:
        return f"{row['crn_gain']:.1f}×"
    if row["se_unpaired"]:
        return "∞ (same in every deal)" if row.get("clustered") else "∞ (same in every game)"
    return "—"


def where_from(variant: dict) -> str:
    """The variant's file as shown: as given, or as a page names it (``page.placed``), saying so
    where it is not beside the page."""
    from analysis.page import NOT_BESIDE

    return variant["source"] + (f", {NOT_BESIDE}" if variant.get("source_beside") is False else "")


def variant_line(number: int, variant: dict) -> str:
    where = f"{where_from(variant)}; " if variant.get("source") else ""
    return f"variant {number}: {variant['name']} ({where}changes: {fmt_settings(variant['settings'])})"


WHATIF_HEADERS = ["figure", "unit", "baseline [95% CI]", "variant [95% CI]", "change [95% CI]", "p", "q (BH)",
                  "CRN gain"]


def variant_table(rows: list[dict]) -> list[list[str]]:
    return [[r["label"], r["unit"], fmt_value(r["kind"], r["baseline"], r["baseline_ci"]),
             fmt_value(r["kind"], r["variant"], r["variant_ci"]), fmt_change(r["kind"], r["change"], r["change_ci"]),
             fmt_p(r["p_value"]), fmt_p(r["q_value"]), fmt_gain(r)] for r in rows]


def design_note(document: dict) -> str:
    """Which games every run plays, and what that makes the sampling unit."""
    games = games_phrase(document["games"])
    if document.get("design") == "duplicate":
        players = document["players"]
        return (f"Every run plays the same {games}: {document['games'] // players:,} duplicate deals of seed "
                f"{document['seed']}, each once per turn of the table ({players} games a deal, every seat holding "
                "every hand: docs/duplicate-deals.md), so each change is estimated from paired per-game differences "
                "(common random numbers) and every interval is clustered by deal (a deal's games are one "
                "observation; win shares too get that normal interval, not Wilson's).")
    return (f"Every run plays the same {games} (seed {document['seed']}, game indices 0..{document['games'] - 1}), "
            "so each change is estimated from paired per-game differences (common random numbers).")


def method_notes(document: dict) -> list[str]:
    return [
        design_note(document),
        "Change intervals are 95% normal intervals of the mean paired difference; p is the two-sided z-test "
        "of no change. Rates per trick/round are ratios of totals, linearised per game (delta method).",
        f"q: Benjamini–Hochberg over all {document['tests']} tests (every figure of every variant; the "
        "first-seat edge is seat 1's win share shifted by 1/N, one test; a change that is the same in "
        "every game is exact, not a test).",
        "CRN gain = variance of the change from two independent runs / variance from the paired runs: the "
        "paired comparison is as precise as that many times more independent games.",
    ]


def format_text(document: dict) -> str:
    out = [f"{document['title']} ({document['game']}): {document['players']} players, "
           f"{games_phrase(document['games'])} per run{design_said(document)}, seed {document['seed']}, strategies {', '.join(document['strategies'])}",
           f"baseline: {document['baseline']['name']} (changes: {fmt_settings(document['baseline']['settings'])})"]
    out += [variant_line(n, v) for n, v in enumerate(document["variants"], start=1)]
    found = document.get("verdict") or verdict(document)
    out += ["", "verdict: " + " ".join(found["sentences"]), f"  ({found['note']})"]
    if document["assumed"]:
        out += ["", "!! ASSUMED — these results rest on game data that is not confirmed:"]
        out += [f"!!   - {note}" for note in document["assumed"]]
    for number, variant in enumerate(document["variants"], start=1):
        out += ["", f"variant {number} ({variant['name']}) against the baseline, paired by game index"
                    f"{design_said(document, '', ' and clustered by deal')}:"]
        out += fixed_width(WHATIF_HEADERS, variant_table(variant["figures"]))
    out += [""] + method_notes(document)
    return "\n".join(out) + "\n"


# --------------------------------------------------------------------------------------------
# the chart and the report
# --------------------------------------------------------------------------------------------

# panels of the change chart: figure kinds drawn on one axis, and that axis's label
PANELS = (
    (("advantage", "share"), "change in win share (percentage points)"),
    (("rate",), "change in rule-event rate (percentage points per unit named)"),
    (("score",), "change in mean final score (points)"),
    (("length",), "change in game length (units per game, as named)"),
)


def row_label(row: dict, width: int = 42) -> str:
    """A chart row's name: the figure, its unit where the label does not say it, wrapped."""
    import textwrap

    label = row["label"]
    if row["kind"] == "rate" and f"per {row['per']}" not in label:
        label += f" (per {row['per']})"
    return "\n".join(textwrap.wrap(label, width))


def change_chart(document: dict) -> bytes:
    """A forest plot: every figure's change with its 95% paired interval, one colour per
    variant, one panel per unit (percentage points, points, units per game)."""
    from matplotlib.figure import Figure as Canvas

    from analysis.charts import _png

    variants = document["variants"]
    panels = [(kinds, label, [r for r in variants[0]["figures"] if r["kind"] in kinds]) for kinds, label in PANELS]
    panels = [p for p in panels if p[2]]
    heights = [len(rows) for _, _, rows in panels]
    figure = Canvas(figsize=(10, 1.8 + 0.4 * sum(heights) * max(1, 0.6 * len(variants))), layout="constrained")
    grid = figure.add_gridspec(len(panels), 1, height_ratios=heights)
    spread = 0.6 / max(len(variants), 1)
    for index, (kinds, axis_label, first_rows) in enumerate(panels):
        axes = figure.add_subplot(grid[index])
        keys = [r["key"] for r in first_rows]
        positions = list(range(len(keys)))[::-1]
        for number, variant in enumerate(variants):
            rows = {r["key"]: r for r in variant["figures"]}
            xs, ys, lows, highs = [], [], [], []
            for key, y in zip(keys, positions):
                row = rows[key]
                if row["change"] is None or None in row["change_ci"]:
                    continue
                scale = 100.0 if row["kind"] in PERCENT_KINDS else 1.0
                xs.append(scale * row["change"])
                ys.append(y + spread * ((len(variants) - 1) / 2 - number))
                lows.append(scale * (row["change"] - row["change_ci"][0]))
                highs.append(scale * (row["change_ci"][1] - row["change"]))
            axes.errorbar(xs, ys, xerr=[lows, highs], fmt="o", color=f"C{number}", capsize=3, markersize=4,
                          label=f"variant {number + 1}: {variant['name']}" if index == 0 else None)
        axes.axvline(0, color="0.4", linewidth=1)
        axes.set_yticks(positions, [row_label(r) for r in first_rows], fontsize=8)
        axes.set_ylim(-0.7, len(keys) - 0.3)
        axes.set_xlabel(axis_label)
        axes.set_ylabel("figure")
        axes.grid(axis="x", alpha=0.3)
        if index == 0:
            axes.set_title(f"{document['title']} · {document['players']} players · "
                           f"{games_phrase(document['games'])} per run · seed {document['seed']}",
                           fontsize=9, color="0.3")
    figure.legend(loc="outside lower center", ncols=min(3, len(variants)), fontsize=8, frameon=False)
    figure.suptitle(f"What if: change against the {_baseline_label(document).removeprefix('baseline: ')} "
                    "(95% paired intervals)", fontsize=13,
                    fontweight="bold")
    return _png(figure)


def edge_chart(document: dict) -> bytes:
    """The first seat's edge under the published rules and each variant, with 95% intervals and
    the band that counts as fair: what the verdict is about, in one small chart."""
    from matplotlib.figure import Figure as Canvas

    from analysis.charts import _png
    from analysis.verdict import thresholds

    rows = [next(r for r in v["figures"] if r["key"] == "advantage") for v in document["variants"]]
    arms = [(_baseline_label(document), rows[0]["baseline"], rows[0]["baseline_ci"])]
    arms += [(f"variant {n}: {v['name']}", r["variant"], r["variant_ci"])
             for n, (v, r) in enumerate(zip(document["variants"], rows), start=1)]
    arms = [(label, value, ci) for label, value, ci in arms if value is not None and None not in ci]
    figure = Canvas(figsize=(8.0, 1.9 + 0.5 * len(arms)), layout="constrained")
    axes = figure.add_subplot()
    y = np.arange(len(arms))[::-1]
    values = np.array([100 * value for _, value, _ in arms])
    error = np.array([[v - 100 * ci[0], 100 * ci[1] - v] for v, (_, _, ci) in zip(values, arms)]).T
    limit = thresholds().seat_pp
    mixed = document.get("lineup") == "mixed"
    if not mixed:
        axes.axvspan(-limit, limit, color="#54a24b", alpha=0.15, linewidth=0, label=f"counts as fair (±{limit:g} pp)")
    axes.errorbar(values, y, xerr=error, fmt="o", color="#4c78a8", capsize=4, label="estimate (95% CI)")
    axes.axvline(0, color="0.4", linewidth=1)
    for yy, v, e in zip(y, values, error.T):
        axes.annotate(f"{v:+.2f} pp", (v + e[1], yy), xytext=(5, 0), textcoords="offset points", va="center",
                      fontsize=9)
    import textwrap

    axes.set_yticks(y, ["\n".join(textwrap.wrap(label, 28)) for label, _, _ in arms], fontsize=9)
    axes.set_ylabel("rules")
    players = document["players"]
    axes.set_xlabel(f"seat 1 win share − 1/{players} (percentage points)" + (" — skill, mixed line-up" if mixed else ""))
    axes.margins(x=0.25)
    axes.grid(axis="x", alpha=0.3)
    figure.legend(loc="outside lower center", ncols=2, fontsize=8, frameon=False)
    figure.suptitle(f"First seat's edge: {_baseline_label(document).removeprefix('baseline: ')} and each variant",
                    fontsize=13, fontweight="bold")
    axes.set_title(f"{document['title']} · {players} players · {games_phrase(document['games'])} per run, the same "
                   f"games · seed {document['seed']}", fontsize=9, color="0.3")
    return _png(figure)


def report_blocks(document: dict) -> list:
    from analysis.page import Alert, Heading, Image, Items, Paragraph, Table, Verdict

    found = document.get("verdict") or verdict(document)
    edges = ", ".join(f"{label} {value}" for label, value in _edge_values(document))
    blocks = [Heading(1, f"What if: {document['title']}, {document['players']} players"),
              Verdict(found["sentences"], found["note"], found["tone"]),
              Image("whatif-edge.png", f"First seat's edge with 95% intervals: {edges}", edge_chart(document),
                    lead=True)]
    if document["assumed"]:
        blocks.append(Alert("ASSUMED: these results rest on game data that is not confirmed", document["assumed"]))
    blocks.append(Items([
        f"game: {document['title']} ({document['game']})", f"players: {document['players']}",
        f"strategies: {', '.join(document['strategies'])}",
        f"games: {document['games']:,} per run (the same game indices in every run"
        f"{design_said(document, '', ', duplicate deals')})",
        f"seed: {document['seed']}", f"version: {document['version']}",
        f"baseline: {document['baseline']['name']} (changes: {fmt_settings(document['baseline']['settings'])})",
        *[variant_line(n, v) for n, v in enumerate(document["variants"], start=1)],
    ]))
    blocks.append(Image("whatif-changes.png", "Change of every headline figure with its 95% paired interval",
                        change_chart(document)))
    for number, variant in enumerate(document["variants"], start=1):
        blocks.append(Heading(2, f"Variant {number}: {variant['name']}"))
        if variant["description"]:
            blocks.append(Paragraph(variant["description"]))
        blocks.append(Table(WHATIF_HEADERS + ["unpaired change [95% CI]", "correlation"],
                            [cells + [fmt_change(r["kind"], r["change"], r["change_ci_unpaired"]),
                                      f"{r['correlation']:.3f}" if r["correlation"] is not None else "—"]
                             for cells, r in zip(variant_table(variant["figures"]), variant["figures"])]))
    blocks += [Heading(2, "How the changes are measured")] + [Paragraph(note) for note in method_notes(document)]
    return blocks


def _baseline_label(document: dict) -> str:
    """What the variants are compared with: the published rules, or a variant file's rules."""
    baseline = document.get("baseline") or {}
    return f"baseline: {baseline['name']}" if baseline.get("source") else "published rules"


def _edge_values(document: dict) -> list[tuple[str, str]]:
    rows = [next(r for r in v["figures"] if r["key"] == "advantage") for v in document["variants"]]
    out = [(_baseline_label(document), rows[0]["baseline"])] + [(f"variant {n}", r["variant"])
                                                                 for n, r in enumerate(rows, 1)]
    return [(label, "n/a" if value is None else f"{100 * value:+.2f} pp") for label, value in out]


def placed(document: dict, out_dir: Path) -> dict:
    """The document as the page in ``out_dir`` shows it: each variant file named relative to the
    page where it is beside it, else by file name alone (analysis/page.py, ``page_path``)."""
    from analysis.page import placed as place

    return {**document, "baseline": place(document["baseline"], "source", out_dir),
            "variants": [place(variant, "source", out_dir) for variant in document["variants"]]}


def write(document: dict, out_dir: Path) -> Path:
    from analysis.page import write_blocks

    document = placed(document, out_dir)
    return write_blocks(report_blocks(document), document, out_dir, stem="whatif")

