"""`balance traps`: exact trap odds, a heat map, and per-trap figures from simulation
(The Sky City of ALEA).  Every simulated rate carries a 95% Wilson interval."""
from __future__ import annotations

import numpy as np

from analysis import stats
from analysis.page import Alert, Heading, Image, Paragraph, Table, write_blocks

# the kernel tallies each trap's points as a sum only (no sum of squares), so this one figure
# cannot carry an interval until it does; say so wherever it is shown
POINTS_NOTE = ("Points per player per round is a plain mean: the run does not tally its spread, so it has no "
               "interval.")


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


def trap_rows(meta: dict) -> list[dict]:
    """Per trap in use: exact odds, the simulated per-round figures with intervals, and how many
    (dice count) cells of simulated trigger rate fall outside their 99.9% interval."""
    tallies = meta["trap_tallies"]
    players = meta["players"]
    judged, fired, exact = (np.array(tallies[k]) for k in ("judged", "fired", "exact"))
    rows = []
    for trap in tallies["in_use"]:
        st = {k: v[trap] for k, v in tallies["stats"].items()}
        rounds = st["rounds"]
        cells = outside = 0
        for n in np.nonzero(judged[trap] >= 30)[0]:
            low, high = stats.wilson_interval(fired[trap, n], judged[trap, n], 0.999)
            cells += 1
            outside += not low <= exact[trap, n] <= high

        def rate(hits, trials):
            return {"rate": hits / trials if trials else None,
                    "ci": list(stats.wilson_interval(hits, trials)) if trials else None, "of": int(trials)}

        rows.append({
            "trap": tallies["names"][trap], "when": tallies["conditions"][trap], "assumed": tallies["assumed"][trap],
            "rounds": int(rounds),
            "points_per_player_round": st["points"] / (rounds * players) if rounds else None,
            "first_roll_end": rate(st["first_roll_endings"], rounds),
            "escape_success": rate(st["escapes_succeeded"], st["escapes"]),
            "zero_declarers_collect": rate(st["rounds_zero_declarers_paid"], st["rounds_with_zero_declarers"]),
            "odds_cells_checked": cells, "odds_cells_outside_999": outside,
        })
    return rows


def _pct(entry: dict) -> str:
    if entry["rate"] is None:
        return "—"
    low, high = entry["ci"]
    return f"{100 * entry['rate']:.1f} [{100 * low:.1f}, {100 * high:.1f}] of {entry['of']:,}"


def per_trap_table(rows: list[dict]) -> Table:
    return Table(["trap", "rounds", "points / player / round", "ends at first roll %", "escapes succeed %",
                  "0-declarers collect %", "sim vs exact"],
                 [[r["trap"] + (" *" if r["assumed"] else ""), f"{r['rounds']:,}",
                   "—" if r["points_per_player_round"] is None else f"{r['points_per_player_round']:.2f}",
                   _pct(r["first_roll_end"]), _pct(r["escape_success"]), _pct(r["zero_declarers_collect"]),
                   f"{r['odds_cells_outside_999']}/{r['odds_cells_checked']}"] for r in rows])


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
                  f"round: no single player gains more than {equilibria.PRACTICAL_GAIN} points per round by "
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
    blocks = [Heading(1, f"Trap odds: The Sky City of ALEA, {players} players")]
    if any(assumed):
        blocks.append(Alert("ASSUMED", [f"{sum(assumed)} of the {len(names)} trap cards are assumed (RULINGS.md); "
                                        "their names are marked * below."]))
    blocks += [
        Paragraph(f"Deck: {meta.get('trap_deck', 'bundled default')}. Exact odds enumerate every face-count "
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
                  "against the exact odds: (dice counts outside their 99.9% interval) / (dice counts checked). "
                  + POINTS_NOTE),
        per_trap_table(rows),
    ]
    if found is not None:
        blocks += equilibrium_blocks(setup, found)
    document = {"players": players, "games": meta["games"], "seed": meta["seed"], "strategies": meta["strategies"],
                "deck": meta.get("trap_deck"), "traps": names, "assumed": assumed,
                "exact_odds": setup.odds.tolist(), "simulation": rows, "equilibria": found}
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
    out.append("trap".ljust(width) + f"{'pts/plr/rnd':>12}{'1st-roll end %':>22}{'escape ok %':>22}{'0 collects %':>22}"
               + f"{'sim≠exact':>11}")
    for r in rows:
        def short(e):
            return "—" if e["rate"] is None else f"{100 * e['rate']:.1f} [{100 * e['ci'][0]:.1f},{100 * e['ci'][1]:.1f}]"
        ppr = "—" if r["points_per_player_round"] is None else f"{r['points_per_player_round']:.2f}"
        out.append(r["trap"].ljust(width) + f"{ppr:>12}{short(r['first_roll_end']):>22}"
                   + f"{short(r['escape_success']):>22}{short(r['zero_declarers_collect']):>22}"
                   + f"{r['odds_cells_outside_999']:>5}/{r['odds_cells_checked']:<5}")
    out.append(POINTS_NOTE)
    return "\n".join(out)


def format_equilibria(found: dict, players: int) -> str:
    from analysis import equilibria
    from analysis.summary import fixed_width

    return "\n".join(["", f"Declaration equilibria ({players} players, one round at equal scores)"]
                     + fixed_width(*equilibria.table(found["traps"]))
                     + [equilibria.note(found["rounds"], found["check_rounds"], players)])


def write(setup, meta: dict, out_dir, found: dict | None = None) -> None:
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
                  "'sim vs exact': dice counts whose simulated trigger rate on fresh dice falls outside the "
                  "99.9% interval around the exact odds / dice counts checked. * = assumed card. " + POINTS_NOTE),
        per_trap_table(rows),
        Image(f"{prefix}trap-odds.png", "Exact trap odds by dice on the table",
              odds_heatmap(names, odds, assumed, meta["players"])),
    ]
