"""Card strength: how much a card in a seat's opening hand changes that seat's win share.

For every printed card c, a regression of the seat's win share on "how many copies of c the seat
was dealt", with a fixed effect per seat (so a seat that wins more often, whatever it holds,
does not make its cards look strong):

    share_gs = alpha_s + delta_c * x_gsc + e_gs          (g game, s seat)

Within seats (FWL): x~ = x - mean_s(x), y~ = y - mean_s(y), delta = sum x~ y~ / sum x~^2.
The seats of one game share one deal and one winner, so the errors are correlated within a
game: the standard error is clustered by game (the sandwich of Liang & Zeger 1986, with the
usual G/(G-1) small-cluster factor, G = games):

    V = G/(G-1) * sum_g (sum_s x~_gs e_gs)^2 / (sum x~^2)^2,   e = y~ - delta x~.

p is the two-sided z-test of delta = 0; q is the Benjamini-Hochberg adjustment over the cards;
a card is flagged when q < 1 - confidence (5% false discoveries among the flagged at 95%).

The hands are not in the results: they are dealt again from the run's seed and each game's
index by the engine's own compiled deal (``Game.opening_hands``), exactly as ``balance replay``
replays a game.  Everything is summed in two passes over blocks of games (means, then the
cross-products), so memory stays flat however many games the run has, and the blocks are fixed
so the result does not depend on anything but the rows.

A card printed more than once (TriATri's fakes) is one row: x counts the copies held, so delta
is the change per copy.  Each card is estimated on its own (a hand has a fixed size, so holding
one card means not holding another): delta is the difference a card makes as it is dealt,
including what it displaces, not its value with the rest of the hand held fixed.
"""
from __future__ import annotations

import math
import tempfile
from pathlib import Path

import numpy as np
import polars as pl

from analysis import stats
from analysis.summary import fixed_width, fmt_p, fmt_pp, games_phrase, strategies
from simcore.errors import BalanceError

SLICE_ROWS = 1 << 20   # rows of results collected at a time
BLOCK_GAMES = 1 << 13  # games per vectorised block: float64[block, players, cards], a few MB
TABLE_ALL = 24         # reports list every card up to this many, else the top and bottom ones
TABLE_ENDS = 10        # ... this many at each end, plus every flagged card

SCHEMA = {"card": pl.String, "copies": pl.Int64, "games_held": pl.Int64, "delta": pl.Float64,
          "ci_low": pl.Float64, "ci_high": pl.Float64, "p": pl.Float64, "q": pl.Float64, "flagged": pl.Boolean}


def run_setup(meta: dict):
    """The game and the rules in force of a run, rebuilt from its metadata (as ``replay --run``)."""
    from simcore.game import GAMES, get_game

    if meta.get("game") not in GAMES:
        raise BalanceError(f"unknown game '{meta.get('game')}' in the results")
    game = get_game(meta["game"])
    if not isinstance(meta.get("variant"), dict) or not isinstance(meta.get("players"), int):
        raise BalanceError("the results' metadata has no valid 'variant' and 'players', so its deals cannot be rebuilt")
    settings = {k: v for k, v in meta["variant"].items() if k not in ("game", "name", "description")}
    return game, game.setup(meta["players"], game.variant(overrides=settings))


def _seed(meta: dict) -> int:
    seed = meta.get("seed")
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise BalanceError("the results' metadata has no valid 'seed', so its deals cannot be rebuilt")
    return seed


def _blocks(frame: pl.LazyFrame, players: int, rows: int, game, setup, seed: int):
    """(opening hands uint8[b, players, cards], win shares float64[b, players]) per block of games."""
    shares = [f"share_{s}" for s in range(players)]
    for offset in range(0, rows, SLICE_ROWS):
        part = frame.select("game", *shares).slice(offset, SLICE_ROWS).collect()
        indices = part["game"].to_numpy()
        y = np.column_stack([part[c].cast(pl.Float64).to_numpy() for c in shares])
        for start in range(0, part.height, BLOCK_GAMES):
            block = indices[start:start + BLOCK_GAMES]
            yield game.opening_hands(setup, seed, block), y[start:start + BLOCK_GAMES]


def _check_recorded_hands(frame: pl.LazyFrame, meta: dict, players: int, game, setup, seed: int) -> None:
    """Where the results record the opening hands (``hand_<seat>`` masks, described by the metadata's
    ``hand_columns``: BIRD & WEATHER), the rebuilt deal must be the recorded one: otherwise the
    engine's deal has changed since the run."""
    if "hand_columns" not in meta or not all(f"hand_{s}" in frame.collect_schema() for s in range(players)):
        return
    head = frame.select("game", *(f"hand_{s}" for s in range(players))).head(BLOCK_GAMES).collect()
    recorded = np.column_stack([head[f"hand_{s}"].cast(pl.UInt64).to_numpy() for s in range(players)])
    dealt = game.opening_masks(setup, seed, head["game"].cast(pl.Int64).to_numpy())
    if not np.array_equal(recorded, dealt):
        raise BalanceError("the opening hands dealt again from the seed differ from those the results "
                           "recorded (a different engine version?): card strength would be wrong")


def card_strength(frame: pl.LazyFrame, meta: dict, confidence: float = stats.DEFAULT_CONFIDENCE) -> pl.LazyFrame:
    """One row per printed card: card, copies (in the deck), games_held (seat-hands dealt at least
    one copy), delta (change in win share per copy in the opening hand, a fraction), ci_low,
    ci_high, p, q (Benjamini-Hochberg), flagged (q < 1 - confidence); sorted by delta, highest
    first.  A card never dealt (or dealt to every seat) in these games has no estimate (nulls)."""
    game, setup = run_setup(meta)
    names = game.card_names(setup)
    if names is None:
        raise BalanceError(f"{game.title} deals no hands of cards: it has no card strength")
    seed = _seed(meta)
    players = setup.players
    rows = frame.select(pl.len()).collect().item()
    if rows < 2:
        raise BalanceError(f"card strength needs at least 2 games, the results hold {rows}")
    _check_recorded_hands(frame, meta, players, game, setup, seed)
    cards = len(names)

    # pass 1: seat means of the holdings and of the win shares
    held_sum = np.zeros((players, cards))
    share_sum = np.zeros(players)
    games_held = np.zeros(cards, dtype=np.int64)
    for hands, y in _blocks(frame, players, rows, game, setup, seed):
        held_sum += hands.sum(axis=0, dtype=np.int64)
        share_sum += y.sum(axis=0)
        games_held += (hands > 0).sum(axis=(0, 1))
    held_mean, share_mean = held_sum / rows, share_sum / rows

    # pass 2: per game g, a_g = sum_s x~ y~ and b_g = sum_s x~^2 (per card); then
    # sum_g (a_g - delta b_g)^2 = sum a^2 - 2 delta sum ab + delta^2 sum b^2 gives the clustered V
    sxy, sxx, saa, sab, sbb = (np.zeros(cards) for _ in range(5))
    for hands, y in _blocks(frame, players, rows, game, setup, seed):
        x = hands - held_mean  # float64[b, players, cards]
        a = np.einsum("gsc,gs->gc", x, y - share_mean)
        b = np.einsum("gsc,gsc->gc", x, x)
        sxy += a.sum(axis=0)
        sxx += b.sum(axis=0)
        saa += (a * a).sum(axis=0)
        sab += (a * b).sum(axis=0)
        sbb += (b * b).sum(axis=0)

    z = stats.z_for(confidence)
    printed = game.card_of_bit(setup)
    out = []
    for c, name in enumerate(names):
        row = {"card": name, "copies": printed.count(name), "games_held": int(games_held[c]),
               "delta": None, "ci_low": None, "ci_high": None, "p": None}
        if sxx[c] > 0:
            delta = sxy[c] / sxx[c]
            # an exact fit can leave a tiny negative sum from cancellation: it is zero
            residual = max(saa[c] - 2 * delta * sab[c] + delta * delta * sbb[c], 0.0)
            se = math.sqrt(rows / (rows - 1) * residual) / sxx[c]
            p = 2 * stats.normal_cdf(-abs(delta) / se) if se > 0 else float(delta == 0)
            row.update(delta=delta, ci_low=delta - z * se, ci_high=delta + z * se, p=p)
        out.append(row)
    tested = [r for r in out if r["p"] is not None]
    for r, q in zip(tested, stats.benjamini_hochberg([r["p"] for r in tested])):
        r["q"] = q
    for r in out:
        r.setdefault("q", None)
        r["flagged"] = r["q"] is not None and r["q"] < 1 - confidence
    return pl.DataFrame(out, schema=SCHEMA).sort("delta", descending=True, nulls_last=True).lazy()


# --------------------------------------------------------------------------------------------
# presentation: table, chart, report section, files
# --------------------------------------------------------------------------------------------

def lineup_phrase(meta: dict) -> str:
    names = strategies(meta)
    return f"all {names[0]}" if len(set(names)) == 1 else ", ".join(names)


def method_note(table: pl.DataFrame, games: int, confidence: float = stats.DEFAULT_CONFIDENCE) -> str:
    level = round(100 * confidence)
    tested = table["p"].is_not_null().sum()
    note = (f"Change in a seat's win share when the card is in its opening hand (the first deal), in "
            f"percentage points: a regression of win share on the card with a fixed effect per seat, so seat "
            f"order is controlled for; {level}% intervals and z-test p-values with standard errors clustered "
            f"by game ({games_phrase(games)}); q is the Benjamini–Hochberg adjustment over the {tested} cards "
            f"tested, and a card is flagged when q < {1 - confidence:.2g}. Each card is measured as dealt (with "
            "what it displaces from the hand), under the strategies of this run.")
    if (table["copies"] > 1).any():
        several = ", ".join(table.filter(pl.col("copies") > 1)["card"].to_list())
        note += f" Cards printed more than once ({several}): the change per copy held."
    return note


def _cells(row: dict) -> list[str]:
    if row["delta"] is None:
        return [row["card"], str(row["copies"]), f"{row['games_held']:,}", "n/a (never varied)", "n/a", "n/a", ""]
    return [row["card"], str(row["copies"]), f"{row['games_held']:,}",
            fmt_pp(100 * row["delta"], [100 * row["ci_low"], 100 * row["ci_high"]], unit=""),
            fmt_p(row["p"]), fmt_p(row["q"]), "FLAGGED" if row["flagged"] else ""]


HEADERS = ["card", "copies", "seat-hands holding it", "change pp [95% CI]", "p", "q (BH)", "flag"]


def table_rows(table: pl.DataFrame, every: bool = True) -> tuple[list[list[str]], int]:
    """Formatted rows, best card first: all of them, or (``every=False`` on a large deck) the
    TABLE_ENDS strongest and weakest plus every flagged card; and how many were left out."""
    rows = table.to_dicts()
    keep = range(len(rows))
    if not every and len(rows) > TABLE_ALL:
        keep = [i for i, r in enumerate(rows) if i < TABLE_ENDS or i >= len(rows) - TABLE_ENDS or r["flagged"]]
    return [_cells(rows[i]) for i in keep], len(rows) - len(keep)


def text_table(table: pl.DataFrame, meta: dict, games: int) -> str:
    head = (f"Card strength: {meta.get('title', meta['game'])} ({meta['game']}), {meta['players']} players, "
            f"{games_phrase(games)}, seed {meta.get('seed')}, {lineup_phrase(meta)}")
    rows, _ = table_rows(table)
    flagged = table["flagged"].sum()
    return "\n".join([head, "", method_note(table, games), "", *fixed_width(HEADERS, rows), "",
                      f"{flagged} of {table.height} cards flagged (Benjamini–Hochberg q < 0.05)"])


def strength_chart(table: pl.DataFrame, meta: dict, games: int) -> bytes:
    """Sorted horizontal bars of the change in win share (pp) with 95% whiskers; flagged cards
    in colour."""
    from matplotlib.figure import Figure
    from matplotlib.patches import Patch

    from analysis.charts import _png

    shown = table.filter(pl.col("delta").is_not_null())
    delta = 100 * shown["delta"].to_numpy()
    low = delta - 100 * shown["ci_low"].to_numpy()
    high = 100 * shown["ci_high"].to_numpy() - delta
    flagged = shown["flagged"].to_numpy()
    colours = np.where(flagged, np.where(delta > 0, "#e45756", "#4c78a8"), "#bab0ac")
    figure = Figure(figsize=(8, 1.9 + 0.24 * max(shown.height, 1)), layout="constrained")
    axes = figure.add_subplot()
    y = np.arange(shown.height)
    axes.barh(y, delta, color=colours, height=0.7, xerr=np.vstack([low, high]), capsize=2, ecolor="0.25",
              error_kw={"linewidth": 0.8})
    axes.axvline(0, color="0.3", linewidth=1)
    axes.set_yticks(y, shown["card"].to_list(), fontsize=8)
    axes.set_ylim(shown.height - 0.5, -0.5)  # strongest on top
    axes.set_ylabel("card (sorted by change)")
    axes.set_xlabel("change in win share when in the opening hand (pp)")
    axes.grid(axis="x", alpha=0.3)
    figure.legend(handles=[Patch(color="#e45756", label="flagged, stronger (BH q < 0.05)"),
                           Patch(color="#4c78a8", label="flagged, weaker (BH q < 0.05)"),
                           Patch(color="#bab0ac", label="not flagged; whiskers: 95% CI")],
                  loc="outside lower center", ncols=3, fontsize=8)
    figure.suptitle("Card strength: change in win share when in the opening hand", fontsize=13, fontweight="bold")
    axes.set_title(f"{meta.get('title', meta['game'])} · {meta['players']} players · {lineup_phrase(meta)} · "
                   f"{games_phrase(games)} · seat-controlled", fontsize=9, color="0.3")
    return _png(figure)


def card_blocks(table: pl.DataFrame, meta: dict, games: int, prefix: str = "", level: int = 2,
                every: bool = False) -> list:
    """The report section: a heading, the method, the table and the chart."""
    from analysis.page import Heading, Image, Paragraph, Table

    rows, left_out = table_rows(table, every)
    blocks = [Heading(level, f"Card strength ({games_phrase(games)})"), Paragraph(method_note(table, games)),
              Table(HEADERS, rows)]
    if left_out:
        blocks.append(Paragraph(f"The table shows the {TABLE_ENDS} strongest and {TABLE_ENDS} weakest cards and "
                                f"every flagged one; the chart shows all {table.height}."))
    blocks.append(Image(f"{prefix}card-strength.png", "Card strength: change in win share when in the opening "
                        "hand, with 95% intervals", strength_chart(table, meta, games)))
    return blocks


def report_section(frame: pl.LazyFrame, meta: dict, prefix: str, level: int) -> tuple[list, list[dict] | None]:
    """Blocks and JSON rows of the card-strength section of a run's report; nothing for a game
    without hands of cards (or one this version does not know)."""
    from simcore.game import GAMES

    if meta.get("game") not in GAMES:
        return [], None
    try:
        game, setup = run_setup(meta)
        if game.card_names(setup) is None:
            return [], None
        table = card_strength(frame, meta).collect()
    except BalanceError as exc:
        from analysis.page import Heading, Paragraph

        return [Heading(level, "Card strength"), Paragraph(f"Not computed: {exc}.")], None
    games = frame.select(pl.len()).collect().item()
    return card_blocks(table, meta, games, prefix, level), table.to_dicts()


def check_out_dir(out: Path) -> None:
    """Refuse an output folder we could not write, before any simulation time is spent."""
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise BalanceError(f"{out} exists and is not a directory")
    existing = out if out.exists() else next(p for p in out.absolute().parents if p.exists())
    if not existing.is_dir():
        raise BalanceError(f"{existing} is not a directory")
    try:  # the report is staged in a folder made beside it: prove we can make one
        tempfile.TemporaryDirectory(prefix=".balance-probe.", dir=existing).cleanup()
    except OSError as exc:
        raise BalanceError(f"cannot write to {existing}: {exc.strerror}") from None


def write(table: pl.DataFrame, meta: dict, games: int, out: str | Path) -> Path:
    """``cards.md`` (+ the chart PNG), a self-contained ``cards.html`` and ``summary.json`` in ``out``."""
    from analysis.page import Heading, Items, write_blocks

    title = f"Card strength: {meta.get('title', meta['game'])}, {meta['players']} players"
    about = Items([f"game: {meta.get('title', meta['game'])} ({meta['game']})", f"players: {meta['players']}",
                   "strategies: " + "; ".join(f"seat {s}: {n}" for s, n in enumerate(strategies(meta))),
                   f"variant: {meta['variant'].get('name', 'default')}", f"seed: {meta.get('seed')}",
                   f"games: {games:,}", f"version: {meta.get('version')}"])
    blocks = [Heading(1, title), about] + card_blocks(table, meta, games, every=True)
    document = {"game": meta["game"], "players": meta["players"], "games": games, "seed": meta.get("seed"),
                "strategies": strategies(meta), "variant": meta["variant"], "cards": table.to_dicts()}
    return write_blocks(blocks, document, out, stem="cards")


def card_games() -> list[str]:
    """The registered games that deal hands of cards (at their default rules)."""
    from simcore.game import game_names, get_game

    names = []
    for name in game_names():
        game = get_game(name)
        if game.card_names(game.setup(game.player_counts[0], game.variant())) is not None:
            names.append(name)
    return names
