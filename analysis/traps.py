"""`balance traps`: exact trap odds, a heat map, and per-trap figures from simulation
(The Sky City of ALEA).  Every simulated rate carries a 95% Wilson interval, and the points per
player per round a 95% normal interval over rounds (from the run's sum of squares).

The simulated trigger rate of each (trap, dice) cell is checked against the exact odds with an
exact two-sided binomial test (``stats.binomial_test``): a Wilson interval is too narrow near 0
and 1 (189 fired of 190 against an exact 0.99973 is a one-in-twenty event, not an alarm)."""
from __future__ import annotations

import math

import numpy as np

from analysis import stats
from analysis.page import NOT_BESIDE, Alert, Heading, Image, Paragraph, Table, Verdict, write_blocks

CHECK_LEVEL = 0.001  # a (trap, dice) cell fails the exact test below this p-value
MIN_JUDGED = 30  # cells judged fewer times than this are not checked

# older runs tallied each trap's points as a sum only: their points per round have no interval
POINTS_NOTE = ("Points per player per round: the mean over the rounds the trap was revealed in, with a 95% "
               "normal interval (rounds as the sampling unit).")


def odds_heatmap(names: list[str], odds: np.ndarray, assumed: list[bool], players: int) -> bytes:
    """Exact chance (%) that each trap fires, by the number of dice on the table."""
    from matplotlib.figure import Figure

    from analysis.charts import _png

    figure = Figure(figsize=(11, 0.32 * len(names) + 1.8), layout="constrained")
    axes = figure.add_subplot()
    image = axes.imshow(odds * 100, aspect="auto", cmap="magma_r", vmin=0, vmax=100)
    axes.set_yticks(range(len(names)), [n + (" *" if a else "") for n, a in zip(names, assumed)], fontsize=8)
    axes.set_xticks(range(odds.shape[1]), [str(n) for n in range(odds.shape[1])], fontsize=7)
    axes.set_xlabel("dice on the table (count)")
    axes.set_ylabel("trap card (* = assumed)")
    figure.suptitle("Exact chance each trap fires, by dice on the table", fontsize=13, fontweight="bold")
    axes.set_title(f"The Sky City of ALEA · {players} players · exact enumeration of every roll, no sampling",
                   fontsize=9, color="0.3")
    figure.colorbar(image, ax=axes, label="chance the trap fires (%)")
    return _png(figure)


def check_cells(judged: np.ndarray, fired: np.ndarray, exact: np.ndarray, traps) -> tuple[int, int, list[dict]]:
    """Every (trap, dice) cell judged at least MIN_JUDGED times, tested exactly against its odds:
    (cells checked, cells failing at CHECK_LEVEL, the failing cells)."""
    cells, failing = 0, []
    for trap in traps:
        for n in np.nonzero(judged[trap] >= MIN_JUDGED)[0]:
            cells += 1
            p = stats.binomial_test(int(fired[trap, n]), int(judged[trap, n]), float(exact[trap, n]))
            if p < CHECK_LEVEL:
                failing.append({"trap": int(trap), "dice": int(n), "fired": int(fired[trap, n]),
                                "judged": int(judged[trap, n]), "exact": float(exact[trap, n]), "p_value": p})
    return cells, len(failing), failing


def trap_rows(meta: dict) -> list[dict]:
    """Per trap in use: exact odds, the simulated per-round figures with intervals, and how many
    (dice count) cells of simulated trigger rate fail the exact binomial test at CHECK_LEVEL."""
    tallies = meta["trap_tallies"]
    players = meta["players"]
    judged, fired, exact = (np.array(tallies[k]) for k in ("judged", "fired", "exact"))
    rows = []
    for trap in tallies["in_use"]:
        st = {k: v[trap] for k, v in tallies["stats"].items()}
        rounds = st["rounds"]
        cells, outside, _ = check_cells(judged, fired, exact, [trap])

        def rate(hits, trials):
            return {"rate": hits / trials if trials else None,
                    "ci": list(stats.wilson_interval(hits, trials)) if trials else None, "of": int(trials)}

        points, points_ci = None, None
        if rounds:
            points = st["points"] / (rounds * players)
            if "points_squared" in st and rounds > 1:
                # per round y = (all players' points) / players; sum y^2 = points_squared / players^2
                spread = max(st["points_squared"] / players ** 2 - rounds * points * points, 0.0) / (rounds - 1)
                points_ci = list(stats.mean_interval(points, math.sqrt(spread), rounds))
        rows.append({
            "trap": tallies["names"][trap], "when": tallies["conditions"][trap], "assumed": tallies["assumed"][trap],
            "rounds": int(rounds),
            "points_per_player_round": points, "points_ci": points_ci,
            "first_roll_end": rate(st["first_roll_endings"], rounds),
            "escape_success": rate(st["escapes_succeeded"], st["escapes"]),
            "zero_declarers_collect": rate(st["rounds_zero_declarers_paid"], st["rounds_with_zero_declarers"]),
            "odds_cells_checked": cells, "odds_cells_failing": outside,
        })
    return rows


def _pct(entry: dict) -> str:
    if entry["rate"] is None:
        return "—"
    low, high = entry["ci"]
    return f"{100 * entry['rate']:.1f} [{100 * low:.1f}, {100 * high:.1f}] of {entry['of']:,}"


def _points(row: dict) -> str:
    if row["points_per_player_round"] is None:
        return "—"
    if row["points_ci"] is None:
        return f"{row['points_per_player_round']:.2f} (no interval: an older run)"
    low, high = row["points_ci"]
    return f"{row['points_per_player_round']:.2f} [{low:.2f}, {high:.2f}]"


def per_trap_table(rows: list[dict]) -> Table:
    return Table(["trap", "rounds", "points / player / round [95% CI]", "ends at first roll %", "escapes succeed %",
                  "0-declarers collect %", "sim vs exact: cells failing"],
                 [[r["trap"] + (" *" if r["assumed"] else ""), f"{r['rounds']:,}", _points(r),
                   _pct(r["first_roll_end"]), _pct(r["escape_success"]), _pct(r["zero_declarers_collect"]),
                   f"{r['odds_cells_failing']}/{r['odds_cells_checked']}"] for r in rows])


def agreement(rows: list[dict]) -> dict:
    """Does the simulation agree with the exact odds?  Cells failing the exact test, against the
    CHECK_LEVEL share expected by chance; "agrees" unless more fail than chance allows (an
    exact binomial tail below CHECK_LEVEL)."""
    cells = sum(r["odds_cells_checked"] for r in rows)
    failing = sum(r["odds_cells_failing"] for r in rows)
    expected = cells * CHECK_LEVEL
    agrees = cells == 0 or stats.binomial_sf(failing, cells, CHECK_LEVEL) >= CHECK_LEVEL
    return {"cells": cells, "failing": failing, "expected_by_chance": expected, "agrees": agrees}


def points_chart(rows: list[dict], players: int, games: int) -> bytes:
    """Points per player per round under each trap, with 95% intervals, against the mean over all
    rounds: which trap cards pay and which punish (columns, best paying first, so a whole deck
    fits one screen)."""
    from matplotlib.figure import Figure

    from analysis.charts import finished

    shown = sorted((r for r in rows if r["points_per_player_round"] is not None),
                   key=lambda r: -r["points_per_player_round"])
    figure = Figure(figsize=(10.5, 4.8), layout="constrained")
    axes = figure.add_subplot()
    x = np.arange(len(shown))
    values = np.array([r["points_per_player_round"] for r in shown])
    error = None
    if shown and all(r["points_ci"] is not None for r in shown):
        error = np.array([[v - r["points_ci"][0], r["points_ci"][1] - v] for v, r in zip(values, shown)]).T
    axes.bar(x, values, color="#72b7b2", width=0.75, yerr=error, capsize=2, ecolor="0.25", error_kw={"linewidth": 0.8},
             label="points per player per round (95% CI)")
    rounds = sum(r["rounds"] for r in shown)
    mean = sum(r["points_per_player_round"] * r["rounds"] for r in shown) / max(rounds, 1)
    axes.axhline(mean, color="#e45756", linestyle="--", linewidth=1.2, label=f"mean over all rounds: {mean:.2f}")
    axes.set_xticks(x, [r["trap"] + (" *" if r["assumed"] else "") for r in shown], rotation=90, fontsize=8)
    axes.set_xlim(-0.6, len(shown) - 0.4)
    axes.set_xlabel("trap card, best paying first (* = assumed)")
    axes.set_ylabel("points per player per round (points)")
    return finished(figure, axes, "Which trap cards pay and which punish",
                    f"The Sky City of ALEA · {players} players · {games:,} games · the rounds under each trap", grid="y")


def verdict(rows: list[dict], setup_or_players, found: dict | None = None) -> dict:
    """At most three sentences: which trap pays least and most per round, whether the simulation
    agrees with the exact odds, and (with the equilibria) whether the EV player's declarations
    hold up."""
    shown = [r for r in rows if r["points_per_player_round"] is not None]
    sentences = []
    if shown:
        low = min(shown, key=lambda r: r["points_per_player_round"])
        high = max(shown, key=lambda r: r["points_per_player_round"])
        sentences.append(f"Rounds under {low['trap']} pay least, {_points(low)} points per player, and under "
                         f"{high['trap']} most, {_points(high)}.")
    check = agreement(rows)
    if check["agrees"]:
        sentences.append(f"The simulated trigger rates agree with the exact odds: {check['failing']} of "
                         f"{check['cells']:,} (trap, dice) cells fail the exact binomial test at {CHECK_LEVEL:g}, "
                         f"about {check['expected_by_chance']:.1f} expected by chance.")
    else:
        sentences.append(f"The simulation DISAGREES with the exact odds: {check['failing']} of {check['cells']:,} "
                         f"(trap, dice) cells fail the exact binomial test at {CHECK_LEVEL:g}, far more than the "
                         f"{check['expected_by_chance']:.1f} expected by chance: check the engine.")
    if found is not None:
        traps = found["traps"]
        held = sum(r["status"] == "holds" for r in traps)
        differ = sum(r["ev_declaration"] != r["usual_declaration"] for r in traps)
        sentences.append(f"A declaration equilibrium holds for {held} of {len(traps)} trap cards; the EV player "
                         f"declares otherwise for {differ} of them.")
    from analysis.verdict import stated

    note = (f"Judged with an exact two-sided binomial test per (trap, dice) cell at {CHECK_LEVEL:g}; points with 95% "
            "intervals." + (" " + stated("gain_points") if found is not None else ""))
    return {"sentences": sentences[:3], "note": note, "tone": "good" if check["agrees"] else "bad",
            "agreement": check}


def odds_table(names, odds, columns) -> tuple[list[str], list[list[str]]]:
    headers = ["trap"] + [f"{n} dice" for n in columns]
    rows = [[name] + [f"{100 * odds[i, n]:.1f}" for n in columns] for i, name in enumerate(names)]
    return headers, rows


def equilibrium_blocks(setup, found: dict) -> list:
    from analysis import equilibria

    rows = found["traps"]
    held = sum(r["status"] == "holds" for r in rows)
    differ = sum(r["ev_declaration"] != r["usual_declaration"] for r in rows)
    return [
        Heading(2, "Declaration equilibria"),
        Paragraph(f"For {held} of the {len(rows)} trap cards the declaration policy below is an equilibrium of one "
                  f"round: no single player gains more than {equilibria.practical_gain():g} points per round by "
                  f"declaring otherwise. The EV player's declaration differs from the equilibrium's most frequent "
                  f"one for {differ} of them."),
        Image("trap-equilibria.png", "Equilibrium declaration shares per trap card, with the EV player's declaration "
                                     "boxed", equilibria.chart(rows, setup.players)),
        Table(*equilibria.table(rows)),
        Paragraph(equilibria.note(found["rounds"], found["check_rounds"], setup.players)),
    ]


def build(setup, meta: dict, found: dict | None = None) -> tuple[list, dict]:
    deck = setup.deck
    names = list(deck.names)
    assumed = [t.assumed for t in deck.traps]
    players = setup.players
    rows = trap_rows(meta)
    max_dice = setup.odds.shape[1] - 1
    columns = [n for n in (1, 2, 3, 4, 5, 6, 8, 10, 12, 15, 20, 25) if n <= max_dice]
    found_verdict = verdict(rows, players, found)
    blocks = [Heading(1, f"Trap odds: The Sky City of ALEA, {players} players"),
              Verdict(found_verdict["sentences"], found_verdict["note"], found_verdict["tone"]),
              Image("trap-points.png", points_alt(rows), points_chart(rows, players, meta["games"]), lead=True)]
    if any(assumed):
        blocks.append(Alert("ASSUMED", [f"{sum(assumed)} of the {len(names)} trap cards are assumed "
                                        "(docs/rules/sky-city-of-alea.md, Project rulings); "
                                        "their names are marked * below."]))
    shown = meta.get("trap_deck", "bundled default") + (f" ({NOT_BESIDE})" if meta.get("trap_deck_beside") is False else "")
    blocks += [
        Paragraph(f"Deck: {shown}. Exact odds enumerate every face-count "
                  "pattern of n fair dice with its multinomial weight (docs/traps.md): no sampling."),
        Heading(2, "Exact chance each trap fires (%), by dice on the table"),
        Table(*odds_table(names, setup.odds, columns)),
        Image("trap-odds.png", "Heat map of the exact trap odds", odds_heatmap(names, setup.odds, assumed, players)),
        Heading(2, f"From simulation ({meta['games']:,} games, strategies: {', '.join(meta['strategies'])}, "
                   f"seed {meta['seed']})"),
        Paragraph("Per trap, over the rounds it was revealed in: points scored per player per round; how often "
                  "the round ended at the first roll; how often an escape succeeded; how often players who "
                  "declared 0 collected the bonus (rounds with a 0-declarer). Rates with 95% Wilson intervals "
                  "and their trial counts. The last column checks the simulated trigger rate on fresh dice "
                  f"against the exact odds: (dice counts failing an exact two-sided binomial test at {CHECK_LEVEL:g}) "
                  "/ (dice counts checked). " + POINTS_NOTE),
        per_trap_table(rows),
    ]
    if found is not None:
        blocks += equilibrium_blocks(setup, found)
    document = {"verdict": found_verdict, "players": players, "games": meta["games"], "seed": meta["seed"],
                "strategies": meta["strategies"],
                "deck": meta.get("trap_deck"), "traps": names, "assumed": assumed,
                "exact_odds": setup.odds.tolist(), "simulation": rows, "equilibria": found}
    if "trap_deck_beside" in meta:  # the deck file as the page names it (``write``)
        document["deck_beside"] = meta["trap_deck_beside"]
    return blocks, document


def format_text(setup, rows: list[dict], meta: dict) -> str:
    names = list(setup.deck.names)
    max_dice = setup.odds.shape[1] - 1
    columns = [n for n in (1, 2, 3, 4, 5, 8, 10, 15, 20, 25) if n <= max_dice]
    width = max(len(n) for n in names) + 2
    out = [f"Exact chance each trap fires (%), by dice on the table - {setup.players} players"
           + ("  (* = assumed card)" if any(t.assumed for t in setup.deck.traps) else "")]
    out.append("trap".ljust(width) + "".join(f"{n:>6}" for n in columns))
    for i, (name, trap) in enumerate(zip(names, setup.deck.traps)):
        out.append((name + (" *" if trap.assumed else "")).ljust(width)
                   + "".join(f"{100 * setup.odds[i, n]:6.1f}" for n in columns))
    out.append("")
    out.append(f"From simulation: {meta['games']:,} games, {', '.join(meta['strategies'])}, seed {meta['seed']}")
    out.append("trap".ljust(width) + f"{'pts/plr/rnd [95% CI]':>24}{'1st-roll end %':>22}{'escape ok %':>22}"
               + f"{'0 collects %':>22}{'sim≠exact':>11}")
    for r in rows:
        def short(e):
            return "—" if e["rate"] is None else f"{100 * e['rate']:.1f} [{100 * e['ci'][0]:.1f},{100 * e['ci'][1]:.1f}]"
        ppr = "—" if r["points_per_player_round"] is None else (
            f"{r['points_per_player_round']:.2f}" + (f" [{r['points_ci'][0]:.2f},{r['points_ci'][1]:.2f}]"
                                                      if r["points_ci"] else ""))
        out.append(r["trap"].ljust(width) + f"{ppr:>24}{short(r['first_roll_end']):>22}"
                   + f"{short(r['escape_success']):>22}{short(r['zero_declarers_collect']):>22}"
                   + f"{r['odds_cells_failing']:>5}/{r['odds_cells_checked']:<5}")
    out.append(POINTS_NOTE + f" sim≠exact: (trap, dice) cells failing an exact binomial test at {CHECK_LEVEL:g}.")
    found = verdict(rows, setup.players)
    return "\n".join([f"verdict: {' '.join(found['sentences'])}", f"  ({found['note']})", ""] + out)


def format_equilibria(found: dict, players: int) -> str:
    from analysis import equilibria
    from analysis.summary import fixed_width

    return "\n".join(["", f"Declaration equilibria ({players} players, one round at equal scores)"]
                     + fixed_width(*equilibria.table(found["traps"]))
                     + [equilibria.note(found["rounds"], found["check_rounds"], players)])


def points_alt(rows: list[dict]) -> str:
    shown = sorted((r for r in rows if r["points_per_player_round"] is not None),
                   key=lambda r: r["points_per_player_round"])
    if not shown:
        return "Points per player per round under each trap: no rounds"
    return (f"Points per player per round under each of {len(shown)} trap cards with 95% intervals, from "
            f"{shown[0]['trap']} ({shown[0]['points_per_player_round']:.2f}) to {shown[-1]['trap']} "
            f"({shown[-1]['points_per_player_round']:.2f})")


def write(setup, meta: dict, out_dir, found: dict | None = None) -> None:
    from analysis.page import page_path
    from simcore.games.sky_city.trap_language import DEFAULT_DECK

    deck = meta.get("trap_deck")
    if isinstance(deck, str) and deck not in (DEFAULT_DECK, "bundled default"):
        # a deck file of the user's, named as the page names it (analysis/page.py, ``page_path``)
        name, beside = page_path(deck, out_dir)
        meta = {**meta, "trap_deck": name, "trap_deck_beside": beside}
    blocks, document = build(setup, meta, found)
    write_blocks(blocks, document, out_dir, stem="traps")


def report_blocks(meta: dict, frame, prefix: str, level: int) -> list:
    """The trap section of a game report (runs whose metadata carries trap tallies): rounds per
    game, the per-trap figures from this run, and the exact-odds heat map of the traps in use."""
    import polars as pl

    from analysis.summary import mean_sd

    # from exact integer totals: the same bits on every call whatever the threads
    mean, sd = mean_sd(pl.col("rounds"))
    row = (frame.select(mean.alias("mean"), sd.alias("sd"), pl.len().alias("n"))
           .collect(engine="streaming").row(0, named=True))
    low, high = stats.mean_interval(row["mean"], row["sd"] or 0.0, row["n"])
    tallies = meta["trap_tallies"]
    in_use = tallies["in_use"]
    names = [tallies["names"][i] for i in in_use]
    odds = np.array(tallies["exact"])[in_use]
    assumed = [tallies["assumed"][i] for i in in_use]
    rows = trap_rows(meta)
    return [
        Heading(level, "Rounds and traps"),
        Paragraph(f"Rounds per game: {row['mean']:.2f} [{low:.2f}, {high:.2f}] (mean, 95% interval, "
                  f"{row['n']:,} games). Per trap, over the rounds it was revealed in: points per player per "
                  "round; rounds ended at the first roll; escapes that succeeded; rounds where players who "
                  "declared 0 collected the bonus (95% Wilson intervals, trial counts after 'of'). "
                  "'sim vs exact': dice counts whose simulated trigger rate on fresh dice fails an exact two-sided "
                  f"binomial test against the exact odds at {CHECK_LEVEL:g} / dice counts checked. * = assumed card. "
                  + POINTS_NOTE),
        per_trap_table(rows),
        Image(f"{prefix}trap-odds.png", "Exact trap odds by dice on the table",
              odds_heatmap(names, odds, assumed, meta["players"])),
    ]
