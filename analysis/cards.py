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
a card is *significant* when q < 1 - confidence (5% false discoveries among them at 95%), and
*flagged* only when it is significant AND its change is larger than the practical threshold
(``analysis.verdict``, 2 pp by default), its whole interval beyond it,: at 200,000 games nearly every card is significant, and
that alone says nothing a designer can act on.  Each card's interval is also judged against the
threshold (within / beyond / unsettled) with the games that would settle it.

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
from analysis.cells import seat_name, strategy_labels
from analysis.summary import fixed_width, fmt_p, fmt_pp, games_phrase, strategies
from analysis.verdict import card_verdict, flag, games_to_settle, judge, thresholds
from simcore.errors import BalanceError

SLICE_ROWS = 1 << 20   # rows of results collected at a time
BLOCK_GAMES = 1 << 13  # games per vectorised block: float64[block, players, cards], a few MB
TABLE_ALL = 24         # reports list every card up to this many, else the top and bottom ones
TABLE_ENDS = 10        # ... this many at each end, plus every flagged card

SCHEMA = {"card": pl.String, "copies": pl.Int64, "games_held": pl.Int64, "delta": pl.Float64,
          "ci_low": pl.Float64, "ci_high": pl.Float64, "p": pl.Float64, "q": pl.Float64, "significant": pl.Boolean,
          "flagged": pl.Boolean, "judgement": pl.String, "games_to_settle": pl.Int64}


def run_setup(meta: dict):
    """The game and the rules in force of a run, rebuilt from its metadata (as ``replay --run``)."""
    from simcore.registry import get_game, known_game

    if not known_game(meta.get("game")):
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


def _blocks(frame: pl.LazyFrame, players: int, rows: int, game, setup, seed: int, teams=None):
    """(opening hands uint8[b, players, cards], win shares float64[b, players]) per block of games;
    in a game of ``teams`` (a rules file's game.teams, seats from 0) a seat's win share is its
    team's (the partners' shares added up): a card is judged by what it does for its holder's team."""
    shares = [f"share_{s}" for s in range(players)]
    for offset in range(0, rows, SLICE_ROWS):
        part = frame.select("game", *shares).slice(offset, SLICE_ROWS).collect()
        indices = part["game"].to_numpy()
        y = np.column_stack([part[c].cast(pl.Float64).to_numpy() for c in shares])
        if teams:
            y = np.column_stack([y[:, next(t for t in teams if s in t)].sum(axis=1) for s in range(players)])
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
    for hands, y in _blocks(frame, players, rows, game, setup, seed, meta.get("teams")):
        held_sum += hands.sum(axis=0, dtype=np.int64)
        share_sum += y.sum(axis=0)
        games_held += (hands > 0).sum(axis=(0, 1))
    held_mean, share_mean = held_sum / rows, share_sum / rows

    # pass 2: per game g, a_g = sum_s x~ y~ and b_g = sum_s x~^2 (per card); then
    # sum_g (a_g - delta b_g)^2 = sum a^2 - 2 delta sum ab + delta^2 sum b^2 gives the clustered V
    sxy, sxx, saa, sab, sbb = (np.zeros(cards) for _ in range(5))
    for hands, y in _blocks(frame, players, rows, game, setup, seed, meta.get("teams")):
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
    limit = thresholds().card_pp / 100
    for r in out:
        r.setdefault("q", None)
        r["significant"] = r["q"] is not None and r["q"] < 1 - confidence
        r["flagged"] = flag(r["delta"], (r["ci_low"], r["ci_high"]), r["q"], limit, 1 - confidence)
        if r["delta"] is None:
            r["judgement"], r["games_to_settle"] = None, None
        else:
            interval = (r["ci_low"], r["ci_high"])
            r["judgement"] = judge(r["delta"], interval, limit)
            r["games_to_settle"] = games_to_settle(r["delta"], interval, rows, limit)
    return pl.DataFrame(out, schema=SCHEMA).sort("delta", descending=True, nulls_last=True).lazy()


# --------------------------------------------------------------------------------------------
# presentation: table, chart, report section, files
# --------------------------------------------------------------------------------------------

def lineup_phrase(meta: dict) -> str:
    names = strategy_labels(meta)
    return f"all {names[0]}" if len(set(names)) == 1 else ", ".join(names)


def method_note(table: pl.DataFrame, games: int, confidence: float = stats.DEFAULT_CONFIDENCE,
                teams: bool = False) -> str:
    level = round(100 * confidence)
    tested = table["p"].is_not_null().sum()
    limit = thresholds().card_pp
    whose = ("the win share of a seat's team (partners win together: game.teams) when the card is in the seat's"
             if teams else "a seat's win share when the card is in its")
    note = (f"Change in {whose} opening hand (the first deal), in "
            f"percentage points: a regression of win share on the card with a fixed effect per seat, so seat "
            f"order is controlled for; {level}% intervals and z-test p-values with standard errors clustered "
            f"by game ({games_phrase(games)}); q is the Benjamini–Hochberg adjustment over the {tested} cards "
            f"tested. A card is flagged only when it is both sure (q < {1 - confidence:.2g}) and larger than "
            f"±{limit:g} pp, its whole interval beyond it; 'settled' says whether its interval lies wholly inside or wholly beyond ±{limit:g} pp, "
            "and an unsettled card shows about how many games would settle it. Each card is measured as dealt "
            "(with what it displaces from the hand), under the strategies of this run.")
    if (table["copies"] > 1).any():
        several = ", ".join(table.filter(pl.col("copies") > 1)["card"].to_list())
        note += f" Cards printed more than once ({several}): the change per copy held."
    return note


JUDGEMENT_WORDS = {"within": "under the threshold", "beyond": "beyond the threshold", None: ""}


def _settled(row: dict) -> str:
    if row["judgement"] == "unsettled":
        need = row["games_to_settle"]
        return f"unsettled (~{need:,} games)" if need else "unsettled"
    return JUDGEMENT_WORDS.get(row["judgement"], "")


def _cells(row: dict) -> list[str]:
    if row["delta"] is None:
        return [row["card"], str(row["copies"]), f"{row['games_held']:,}", "n/a (never varied)", "n/a", "n/a", "", ""]
    return [row["card"], str(row["copies"]), f"{row['games_held']:,}",
            fmt_pp(100 * row["delta"], [100 * row["ci_low"], 100 * row["ci_high"]], unit=""),
            fmt_p(row["p"]), fmt_p(row["q"]), _settled(row), "FLAGGED" if row["flagged"] else ""]


HEADERS = ["card", "copies", "seat-hands holding it", "change pp [95% CI]", "p", "q (BH)", "settled?", "flag"]


def table_rows(table: pl.DataFrame, every: bool = True) -> tuple[list[list[str]], int]:
    """Formatted rows, best card first: all of them, or (``every=False`` on a large deck) the
    TABLE_ENDS strongest and weakest plus every flagged card; and how many were left out."""
    rows = table.to_dicts()
    keep = range(len(rows))
    if not every and len(rows) > TABLE_ALL:
        keep = [i for i, r in enumerate(rows) if i < TABLE_ENDS or i >= len(rows) - TABLE_ENDS or r["flagged"]]
    return [_cells(rows[i]) for i in keep], len(rows) - len(keep)


def verdict(table: pl.DataFrame | list[dict], games: int, players: str | None = None, top: int = 3) -> dict:
    """At most two sentences: which cards are out of line (flagged), by how much, and how many
    games would settle the unsettled ones, saying among which ``players`` (every seat's strategy,
    None for a mixed line-up).  ``sentences``, ``tone``, ``judgement``, ``note``, ``players``."""
    from analysis.verdict import among_first

    rows = table.to_dicts() if isinstance(table, pl.DataFrame) else list(table)
    limit = thresholds().card_pp

    def settle(need):
        if len(need) == 1:
            return f": about {need[0]:,} games would settle it (this run has {games:,})."
        return (f": about {need[(len(need) - 1) // 2]:,} games would settle half of them and {need[-1]:,} all (the "
                f"closer a card is to ±{limit:g} pp, the more it takes; this run has {games:,}).")

    found = card_verdict(
        rows, limit,
        lambda n, of, shown: (f"{n} of {of} cards {'is' if n == 1 else 'are'} out of line (sure to move their "
                              f"holder's win share by more than ±{limit:g} pp): {shown}."),
        lambda largest: (f"No card is out of line: none is sure to move its holder's win share by ±{limit:g} pp or "
                         f"more; the largest change is {largest}."),
        "No card varied between the hands dealt, so none could be measured.", settle, top)
    return {**found, "sentences": among_first(found["sentences"], players), "players": players}


def players_of_meta(meta: dict) -> str | None:
    from analysis.verdict import one_player

    return one_player(strategies(meta))


def text_table(table: pl.DataFrame, meta: dict, games: int) -> str:
    head = (f"Card strength: {meta.get('title', meta['game'])} ({meta['game']}), {meta['players']} players, "
            f"{games_phrase(games)}, seed {meta.get('seed')}, {lineup_phrase(meta)}")
    rows, _ = table_rows(table)
    found = verdict(table, games, players_of_meta(meta))
    return "\n".join([head, "", "verdict: " + " ".join(found["sentences"]), f"  ({found['note']})", "",
                      method_note(table, games, teams=bool(meta.get("teams"))), "", *fixed_width(HEADERS, rows), "",
                      f"{table['flagged'].sum()} of {table.height} cards flagged (BH q < 0.05 and the interval "
                      f"beyond ±{thresholds().card_pp:g} pp); {table['significant'].sum()} significant"])


def strength_chart(table: pl.DataFrame, meta: dict, games: int,
                   title: str = "Card strength: change in win share when in the opening hand",
                   ylabel: str = "change in win share in the opening hand (pp)", subtitle: str | None = None) -> bytes:
    """Every card's change in win share (pp), strongest first, as columns with 95% whiskers: wide
    and low, so a whole deck fits one screen; flagged cards in colour, the band of changes under
    the card threshold shaded.  ``title``, ``ylabel`` and ``subtitle`` say what the change is (card
    cause, analysis/cause.py, draws its worth-when-played the same way)."""
    from matplotlib.figure import Figure
    from matplotlib.patches import Patch

    from analysis.charts import _png

    shown = table.filter(pl.col("delta").is_not_null())
    delta = 100 * shown["delta"].to_numpy()
    low = delta - 100 * shown["ci_low"].to_numpy()
    high = 100 * shown["ci_high"].to_numpy() - delta
    flagged = shown["flagged"].to_numpy()
    colours = np.where(flagged, np.where(delta > 0, "#e45756", "#4c78a8"), "#bab0ac")
    limit = thresholds().card_pp
    many = shown.height > 24
    figure = Figure(figsize=(10.5 if many else 8.5, 4.8 if many else 4.4), layout="constrained")
    axes = figure.add_subplot()
    x = np.arange(shown.height)
    axes.bar(x, delta, color=colours, width=0.75, yerr=np.vstack([low, high]), capsize=1.5 if many else 3,
             ecolor="0.25", error_kw={"linewidth": 0.8})
    axes.axhline(0, color="0.3", linewidth=1)
    axes.axhspan(-limit, limit, color="#54a24b", alpha=0.12, linewidth=0)
    axes.set_xticks(x, shown["card"].to_list(), rotation=90, fontsize=7 if many else 8)
    axes.set_xlim(-0.6, shown.height - 0.4)
    axes.set_xlabel("card, strongest first")
    axes.set_ylabel(ylabel)
    axes.grid(axis="y", alpha=0.3)
    figure.legend(handles=[Patch(color="#e45756", label=f"flagged, stronger (sure, beyond +{limit:g} pp)"),
                           Patch(color="#4c78a8", label=f"flagged, weaker (sure, beyond −{limit:g} pp)"),
                           Patch(color="#bab0ac", label="not flagged; whiskers: 95% CI"),
                           Patch(color="#54a24b", alpha=0.25, label=f"under ±{limit:g} pp: not out of line")],
                  loc="outside lower center", ncols=4 if many else 2, fontsize=8, frameon=False)
    figure.suptitle(title, fontsize=13, fontweight="bold")
    subtitle = subtitle or f"{lineup_phrase(meta)} · {games_phrase(games)} · seat-controlled"
    axes.set_title(f"{meta.get('title', meta['game'])} · {meta['players']} players · {subtitle}", fontsize=9,
                   color="0.3")
    return _png(figure)


def card_blocks(table: pl.DataFrame, meta: dict, games: int, prefix: str = "", level: int = 2,
                every: bool = False, lead: bool = False) -> list:
    """The report section: a heading, the method, the table and the chart."""
    from analysis.page import Heading, Image, Paragraph, Table

    from analysis.page import Verdict

    rows, left_out = table_rows(table, every)
    found = verdict(table, games, players_of_meta(meta))
    blocks = [Heading(level, f"Card strength ({games_phrase(games)})"),
              Verdict(found["sentences"], found["note"], found["tone"], "Cards"),
              Image(f"{prefix}card-strength.png", chart_alt(table, found), strength_chart(table, meta, games),
                    lead=lead),
              Paragraph(method_note(table, games, teams=bool(meta.get("teams")))), Table(HEADERS, rows)]
    if left_out:
        blocks.append(Paragraph(f"The table shows the {TABLE_ENDS} strongest and {TABLE_ENDS} weakest cards and "
                                f"every flagged one; the chart shows all {table.height}."))
    return blocks


def chart_alt(table: pl.DataFrame, found: dict) -> str:
    measured = table.filter(pl.col("delta").is_not_null())
    if measured.height == 0:
        return "Card strength: no card could be measured"
    top, bottom = measured.row(0, named=True), measured.row(measured.height - 1, named=True)
    return (f"Card strength: change in win share when in the opening hand, with 95% intervals, for {measured.height} "
            f"cards; strongest {top['card']} {100 * top['delta']:+.1f} pp, weakest {bottom['card']} "
            f"{100 * bottom['delta']:+.1f} pp; {len(found['flagged'])} flagged")


def report_section(frame: pl.LazyFrame, meta: dict, prefix: str, level: int) -> tuple[list, list[dict] | None]:
    """Blocks and JSON rows of the card-strength section of a run's report; nothing for a game
    without hands of cards (or one this version does not know)."""
    from simcore.registry import known_game

    if not known_game(meta.get("game")):
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

    from analysis.page import Image, Paragraph, Table, Verdict

    title = f"Card strength: {meta.get('title', meta['game'])}, {meta['players']} players"
    about = Items([f"game: {meta.get('title', meta['game'])} ({meta['game']})", f"players: {meta['players']}",
                   "strategies: " + "; ".join(f"{seat_name(s)}: {n}" for s, n in enumerate(strategy_labels(meta))),
                   f"variant: {meta['variant'].get('name', 'default')}", f"seed: {meta.get('seed')}",
                   f"games: {games:,}", f"version: {meta.get('version')}"])
    found = verdict(table, games, players_of_meta(meta))
    rows, _ = table_rows(table, every=True)
    blocks = [Heading(1, title), Verdict(found["sentences"], found["note"], found["tone"]),
              Image("card-strength.png", chart_alt(table, found), strength_chart(table, meta, games), lead=True),
              about, Paragraph(method_note(table, games, teams=bool(meta.get("teams")))), Table(HEADERS, rows)]
    document = {"game": meta["game"], "players": meta["players"], "games": games, "seed": meta.get("seed"),
                "strategies": strategies(meta), "strategy_labels": strategy_labels(meta), "variant": meta["variant"],
                "thresholds": {"card_pp": thresholds().card_pp}, "verdict": found, "cards": table.to_dicts()}
    return write_blocks(blocks, document, out, stem="cards")


def card_games() -> list[str]:
    """The registered games that deal hands of cards (at their default rules)."""
    from simcore.registry import game_names, get_game

    names = []
    for name in game_names():
        game = get_game(name)
        if game.card_names(game.setup(game.player_counts[0], game.variant())) is not None:
            names.append(name)
    return names


def tier_blocks(rows: list[dict], players: str, tier_runs: dict, level: int) -> list:
    """Card strength at the other skill tiers (analysis/skill.py keeps each tier's games): for each
    tier, its verdict and every card whose flag differs from the run's players' (``rows``), both
    changes side by side.  A search tier is left out: its few hundred games flag nothing."""
    from analysis.page import Heading, Paragraph, Table, Verdict

    blocks = []
    ours = {r["card"]: r for r in rows}
    for tier, (frame, meta) in tier_runs.items():
        if tier == players or tier.partition(":")[0] == "search":
            continue
        if meta.get("design") == "duplicate":  # one turn of each deal: its games are independent deals
            frame = frame.gather_every(meta["players"])
        table = card_strength(frame.lazy(), meta).collect()
        games = frame.height
        found = verdict(table, games, tier)
        theirs = {r["card"]: r for r in table.to_dicts()}
        differ = [card for card in ours if card in theirs and bool(ours[card]["flagged"]) != bool(theirs[card]["flagged"])]
        blocks += [Heading(level + 1, f"Card strength among {tier} players ({games_phrase(games)})"),
                   Verdict(found["sentences"][:1] + [
                       (f"{len(differ)} card{' is' if len(differ) == 1 else 's are'} flagged among {players} players "
                        f"or among {tier} players but not both: the table shows both changes." if differ else
                        f"Every card flagged among {players} players is flagged among {tier} players, and no other.")],
                       found["note"], found["tone"], "Cards")]
        if differ:
            def change(r):
                return (f"{100 * r['delta']:+.1f} [{100 * r['ci_low']:+.1f}, {100 * r['ci_high']:+.1f}]"
                        + (" flagged" if r["flagged"] else "") if r["delta"] is not None else "—")
            blocks.append(Table(["card", f"among {players} players: change pp [95% CI]",
                                 f"among {tier} players: change pp [95% CI]"],
                                [[card, change(ours[card]), change(theirs[card])] for card in differ]))
        blocks.append(Paragraph(f"The same measure on the {tier} tier's games of the skill section (every seat "
                                f"{tier}, the same deals): a card's flags hold for the players who played it."))
    return blocks
