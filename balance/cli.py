"""`balance`: simulate tabletop games by the million and report on their balance.

Heavy imports (numba, polars, matplotlib) happen inside the commands, so
``balance --help`` answers at once.  Every bad input ends as one line on stderr
and exit code 2 (see ``main``).
"""
from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Optional

import typer
from typer.core import TyperGroup

# the designer's tasks, and the commands of each, in the order `balance --help` lists them
TASKS = {
    "run": ("init", "new-game", "simulate", "book"),
    "look": ("report", "cards", "traps", "games", "replay"),
    "compare": ("studio", "whatif", "sweep", "tune", "tournament", "ladder", "exploits"),
    "check": ("play", "bench"),
}
TASK_TITLES = {"run": "Run: set up a project and simulate", "look": "Look: read a run, its cards, its traps",
               "compare": "Compare: rule changes, settings, players", "check": "Check: the engines themselves"}
PROJECT_FILE = "balance.toml"
SUMMARY = {
    "init": "write a commented balance.toml of project defaults",
    "new-game": "write a commented rules file for a trick-taking game of your own",
    "simulate": "play a game many times: win shares, seat edge, rule events",
    "book": "every game at every player count: a report each and an index",
    "report": "a page (Markdown + HTML) for one or more runs",
    "cards": "which cards in the opening hand are out of line (--cause: what playing each is worth)",
    "traps": "ALEA: exact trap odds, per-trap figures, declaration equilibria",
    "games": "the games, their player counts, strategies and variant keys",
    "replay": "the trick-by-trick log of one game of a run",
    "studio": "a local page: change a card or a rule, watch the verdict move, keep every version",
    "whatif": "the published rules against variants, on the same games",
    "sweep": "one variant setting over a range, on the same games",
    "tune": "search rule changes for the smallest one that meets every target",
    "tournament": "strategies against each other with the seats rotated",
    "ladder": "is each player measurably stronger than the one below",
    "exploits": "is there a simple strategy that beats the game's skilled players",
    "play": "a scripted position through both engines, which must agree",
    "bench": "games per second of the engines",
}


class TaskGroup(TyperGroup):
    """Top-level help with the commands grouped by the designer's task."""

    def list_commands(self, ctx):
        ordered = [name for names in TASKS.values() for name in names if name in self.commands]
        return ordered + [name for name in self.commands if name not in ordered]

    def format_commands(self, ctx, formatter):
        width = max(len(name) for name in self.commands) + 2
        for task, names in TASKS.items():
            rows = [(name.ljust(width - 2), SUMMARY.get(name) or self.commands[name].get_short_help_str())
                    for name in names if name in self.commands and not self.commands[name].hidden]
            if rows:
                with formatter.section(TASK_TITLES[task]):
                    formatter.write_dl(rows)
        rest = [(name, command.get_short_help_str()) for name, command in self.commands.items()
                if not any(name in names for names in TASKS.values()) and not command.hidden]
        if rest:
            with formatter.section("Other"):
                formatter.write_dl(rest)


app = typer.Typer(
    cls=TaskGroup, add_completion=False, no_args_is_help=True, pretty_exceptions_enable=False, rich_markup_mode=None,
    help="Monte Carlo balance analyzer for tabletop games. Run (init, new-game, simulate, book), look (report, cards, "
         "traps, games, replay), compare (studio, whatif, sweep, tune, tournament, ladder, exploits) and check (play, bench); every page "
         "opens with its verdict. Defaults come from ./balance.toml if there is one (`balance init` writes one).",
)


def _version(value: bool) -> None:
    if value:
        from simcore.version import __version__

        typer.echo(f"balance {__version__}")
        raise typer.Exit()


@app.callback()
def _main(version: Annotated[bool, typer.Option(
        "--version", callback=_version, is_eager=True, help="Print the version and exit.")] = False) -> None:
    """Monte Carlo balance analyzer for tabletop games."""

GameArg = Annotated[str, typer.Argument(help="Game name (see `balance games`).")]
PlayersOpt = Annotated[int, typer.Option("--players", "-p", help="Number of players.")]
SeedOpt = Annotated[int, typer.Option("--seed", help="Run seed: same seed, same games, on any machine.")]
StrategiesOpt = Annotated[Optional[str], typer.Option(
    "--strategies", "-s", help="Strategy per seat, comma-separated (one name = every seat). Default: random.")]
VariantOpt = Annotated[Optional[Path], typer.Option("--variant", help="Variant TOML file (docs/variants.md).")]
PluginOpt = Annotated[Optional[list[Path]], typer.Option("--plugin", help="Python file defining a strategy (repeatable).")]
DealsOpt = Annotated[Optional[int], typer.Option("--deals", help="BIRD & WEATHER: a match of K deals (default 1).")]
ThreadsOpt = Annotated[Optional[int], typer.Option("--threads", help="Worker threads (default: all cores).")]
DuplicateOpt = Annotated[Optional[bool], typer.Option(
    "--duplicate/--independent",
    help="Duplicate deals (each deal once per turn of the table, intervals clustered by deal; the default for "
         "a card game from 100 deals on) or independent games (ALEA's only design). docs/duplicate-deals.md.")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print machine-readable JSON instead of text.")]
ForceOpt = Annotated[bool, typer.Option("--force", help="Replace the output if it exists (default: refuse).")]
ResumeOpt = Annotated[bool, typer.Option(
    "--resume", help="Finish an interrupted run of the same command: only the missing games are played (the "
                     "result is the same as an uninterrupted run's).")]
ClusterOpt = Annotated[Optional[str], typer.Option(
    "--cluster", help="Play on a local Dask cluster of N worker processes: local:N (docs/scaling.md).")]
SchedulerOpt = Annotated[Optional[str], typer.Option(
    "--scheduler", help="Play on an existing Dask cluster: its scheduler's address, tcp://HOST:PORT "
                        "(docs/scaling.md).")]
SkillGamesOpt = Annotated[int, typer.Option(
    "--skill-games", help="Games for each skill figure without a search player (0: no skill section).")]
SearchGamesOpt = Annotated[int, typer.Option(
    "--search-games", help="Games for each skill figure with search players (they think at every decision).")]
TierSecondsOpt = Annotated[Optional[float], typer.Option(
    "--tier-seconds", min=0.0, help="A time budget for each skill tier's first-seat edge and each gap between "
                                    "tiers: it plays until settled, until it can no longer settle, or this many "
                                    "seconds, --skill-games/--search-games its cap (the game count then depends on "
                                    "the machine; docs/search.md).  0: no time budget, the game budgets alone (the "
                                    "same games on any machine).")]
BOOK_TIER_SECONDS = 60.0  # the default book: long enough for every row to settle at its search tier (README)
BOOK_SEARCH_GAMES = 64_000  # with a time budget, a cap: BIRD & WEATHER at 5 players settles at 32,768


def _players(game_name: str, players: int | None) -> int:
    """--players, else the game's one player count where it has one (a rules file for 2 players
    alone needs no -p 2), else 4 (a game without 4 says its counts when it is set up)."""
    if players is not None:
        return players
    from simcore.registry import get_game

    counts = get_game(game_name).player_counts
    return counts[0] if len(counts) == 1 else 4


def _game_and_setup(game_name, players, variant_path, deals):
    from simcore.registry import get_game

    game = get_game(game_name)
    if deals is not None and "deals" not in game.variant_keys:
        raise _error(f"--deals is not an option of {game.name}")
    # --deals is the variant key `deals`, so results and reports record it
    variant = game.variant(variant_path, {"deals": deals} if deals is not None else None)
    return game, variant, game.setup(players, variant)


def _cluster(cluster, scheduler):
    """Every run inside the block plays its chunks on the Dask cluster asked for (or here)."""
    from simcore.cluster import connect

    return connect(cluster, scheduler)


def _claim(out, force=False, resume=False):
    """Hold a report folder for this command: its parents made, refused if it holds files
    (unless --force / --resume), locked against a second command on it (simcore/outputs.py)."""
    import contextlib

    if out is None:
        return contextlib.nullcontext()
    from simcore.outputs import claim_output

    return claim_output(out, folder=True, force=force, resume=resume)


def _error(message):
    from simcore.errors import BalanceError

    return BalanceError(message)


INIT_TEMPLATE = """# balance.toml: this project's defaults for `balance` (read from the folder you run it in).
# Every key is optional; an option given on the command line always wins.

[defaults]
# games = 100000        # --games / -n of every command that plays games
# seed = 1              # --seed
# output = "reports"    # folder for the pages: report -> reports/latest, book -> reports/book,
#                       # cards, traps, whatif, sweep, tournament, ladder -> reports/<command>
# threads = 2           # --threads (default: all cores)
# cluster = "local"     # --cluster, for the commands that take it

# [simulate]            # one command's own defaults, by option name
# players = 4
# strategies = "heuristic"

[thresholds]
# what counts as practically fair or out of line; every page states the ones it used
# seat_pp = 2.0         # a seat's (or strategy's) edge over the fair share under this is fair
# card_pp = 2.0         # a card moving its holder's win share less than this is not out of line
# change_pp = 1.0       # a rule change moving the first seat's edge less than this changes nothing
# gain_points = 0.05    # ALEA: a declaration must gain this many points per round to matter
"""


@app.command()
def init(
    force: Annotated[bool, typer.Option("--force", help="Replace an existing balance.toml.")] = False,
):
    """Write a commented balance.toml (project defaults: games, seed, output folder, threads, cluster, thresholds)."""
    path = Path(PROJECT_FILE)
    if path.exists() and not force:
        raise _error(f"{PROJECT_FILE} already exists here (--force replaces it)")
    try:
        path.write_text(INIT_TEMPLATE, encoding="utf-8")
    except OSError as exc:
        raise _error(f"cannot write {PROJECT_FILE}: {exc.strerror}") from None
    typer.echo(f"wrote {path.resolve()}: uncomment what this project should default to")


@app.command("new-game")
def new_game(
    name: Annotated[str, typer.Argument(help="Your game's name: the file written is NAME.toml (NAME itself if it "
                                             "ends in .toml).", metavar="NAME")],
    force: Annotated[bool, typer.Option("--force", help="Replace the file if it exists.")] = False,
):
    """Write a commented rules file for a trick-taking game of your own, ready to simulate (docs/rules-files.md)."""
    from importlib.resources import files

    import os

    from simcore.games.trick.rulesfile import read_rules

    path = Path(name if name.lower().endswith(".toml") else f"{name}.toml")
    if path.exists() and not force:
        raise _error(f"{path} already exists (--force replaces it)")
    title = path.stem.replace("-", " ").replace("_", " ").strip() or "My game"
    title = title[:1].upper() + title[1:]
    text = files("simcore.games.trick").joinpath("new-game.toml").read_text(encoding="utf-8")
    text = text.replace("# NAME:", f"# {title}:").replace('name = "NAME"', f"name = {json.dumps(title)}")
    import shlex

    command = f"balance simulate {shlex.quote(str(path))}"  # a name with spaces, quoted as a shell needs it
    text = text.replace("balance simulate FILE", command)
    staged = path.parent / f".{path.name}.tmp"
    try:  # whole or not at all
        staged.write_text(text, encoding="utf-8")
        os.replace(staged, path)
    except OSError as exc:
        raise _error(f"cannot write {path}: {exc.strerror}") from None
    read_rules(path)  # what it writes plays as it is
    typer.echo(f"wrote {path}: a four-suit game of tricks for 3 to 5 players; change what yours does differently "
               f"(docs/rules-files.md), then: {command} --players 4")


@app.command()
def games(as_json: JsonOpt = False):
    """List the games, their player counts, strategies and variant keys."""
    from simcore.registry import game_names, get_game

    listed = []
    for name in game_names():
        g = get_game(name)
        listed.append({"game": name, "title": g.title, "players": list(g.player_counts),
                       "strategies": {s: g.strategy_label(s) for s in g.builtin_strategies()},
                       "variant_keys": {key: text for key, (_, text) in g.variant_keys.items()}})
    if as_json:
        typer.echo(json.dumps(listed, indent=2))
        return
    for entry in listed:
        typer.echo(f"{entry['game']}: {entry['title']}, {'/'.join(map(str, entry['players']))} players")
        typer.echo(f"  strategies: {', '.join(entry['strategies'].values())}")
        for key, text in entry["variant_keys"].items():
            typer.echo(f"  variant {key}: {text}")
    typer.echo("and any trick-taking game of your own, named by its rules file's path (my-game.toml): "
               "`balance new-game NAME` writes one (docs/rules-files.md)")


@app.command()
def simulate(
    game: GameArg,
    players: PlayersOpt = None,
    games: Annotated[Optional[int], typer.Option(
        "--games", "-n", help="Number of games (default 100,000); with --precision the most to play "
                              "(default 50,000,000).")] = None,
    seed: SeedOpt = 1,
    strategies: StrategiesOpt = None,
    variant: VariantOpt = None,
    deals: DealsOpt = None,
    plugin: PluginOpt = None,
    out: Annotated[Optional[Path], typer.Option("--out", "-o", help="Write one row per game to this run: a folder of Parquet files, one per chunk, that Polars, pandas and DuckDB read as one table (docs/scaling.md).")] = None,
    threads: ThreadsOpt = None,
    chunk_size: Annotated[int, typer.Option("--chunk-size", help="Games per chunk (memory stays flat).")] = 1 << 18,
    as_json: JsonOpt = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")] = False,
    precision: Annotated[Optional[float], typer.Option(
        "--precision", help="Keep simulating until every seat's 95% interval of win share is at most this wide "
                            "either side (0.005 = 0.5 percentage points); --games is then the cap.")] = None,
    force: ForceOpt = False,
    resume: ResumeOpt = False,
    cluster: ClusterOpt = None,
    scheduler: SchedulerOpt = None,
):
    """Simulate GAME and print seat win shares, first-player advantage and rule-event rates."""
    players = _players(game, players)
    from analysis.summary import ChunkTotals, format_summary, summarize, summary_json, summary_of_totals
    from simcore.driver import run_games, run_metadata
    from simcore.parts import scan_run

    if games is None:
        games = 50_000_000 if precision is not None else 100_000
    g, v, setup = _game_and_setup(game, players, variant, deals)
    lineup = g.lineup(strategies, players, plugin or ())
    if resume and out is None:
        raise _error("--resume needs --out: the unfinished run is kept beside its output file")
    # without --out no row is kept: each chunk is reduced to the summary's totals where it was
    # played, and the summary is computed from the chunks' merged totals (the same bits)
    reduce = ChunkTotals(run_metadata(g, setup, lineup, v, seed, games)) if out is None else None
    with _cluster(cluster, scheduler):
        result = run_games(g, setup, lineup, v, seed, games, chunk_size=chunk_size, threads=threads, out=out,
                           progress=not quiet and not as_json, precision=precision, force=force, resume=resume,
                           reduce=reduce)
        summary = (summarize(scan_run(result.path), result.meta) if out is not None
                   else summary_of_totals(result.extra["reduced"], result.meta))
    games = result.meta["games"]
    played = result.extra.get("played", games)
    summary["seconds"] = result.meta["seconds"]
    summary["games_per_second"] = round(played / max(result.seconds, 1e-9))
    if precision is not None:
        summary["precision"] = result.meta["precision"]
    if as_json:
        from analysis.verdict import summary_verdict

        typer.echo(summary_json({**summary, "verdict": summary_verdict(summary)}))  # it names the players judged
    else:
        typer.echo(format_summary(summary).rstrip("\n"))
        if precision is not None:
            how = summary["precision"]
            widest = 100 * how["widest_half_width"]
            typer.echo(f"\nprecision: every seat's 95% interval within ±{100 * precision:.2g} pp "
                       + (f"after {games:,} games (widest ±{widest:.3f} pp)" if how["reached"] else
                          f"NOT reached within the cap of {games:,} games (widest ±{widest:.3f} pp; raise --games)"))
        ran = (f"{games:,} games in {result.seconds:.2f} s ({summary['games_per_second']:,} games/s)" if played == games
               else f"{games:,} games (0 played now: the run was already finished)" if played == 0
               else f"{games:,} games ({played:,} played now in {result.seconds:.2f} s, the rest kept from the "
                    "interrupted run)")
        typer.echo(f"\n{ran}" + (f"; rows written to {out}" if out else ""))


@app.command()
def report(
    runs: Annotated[list[Path], typer.Argument(help="Runs from `balance simulate --out` (a run folder, or a Parquet file of an earlier balance).",
                                               metavar="RUN...")],
    out: Annotated[Path, typer.Option("--out", "-o", help="Folder for report.md and report.html.")] = Path("reports/latest"),
    skill: Annotated[bool, typer.Option(
        "--skill", help="Add 'Skill and luck': simulate the game's skill tiers (random, heuristic, search) on the "
                        "first run's rules, players and seed.")] = False,
    skill_games: SkillGamesOpt = 100_000,
    search_games: SearchGamesOpt = 4_000,
    tier_seconds: TierSecondsOpt = None,
    threads: ThreadsOpt = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the report's summary.json after writing it.")] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")] = False,
    force: ForceOpt = False,
):
    """Write report.md and a self-contained report.html (with charts) for one or more runs."""
    with _claim(out, force):
        _report(runs, out, skill, skill_games, search_games, threads, quiet, as_json, tier_seconds or None)


def _report(runs, out, skill, skill_games, search_games, threads, quiet, as_json, tier_seconds=None):
    from analysis.report import write_report

    profile, tier_runs = None, {}
    if skill:
        from analysis.skill import skill_profile
        from analysis.summary import load_runs
        from simcore.driver import set_threads
        from simcore.registry import get_game

        meta = load_runs([str(r) for r in runs])[0].meta
        g = get_game(meta["game"])
        v = g.variant(overrides={k: val for k, val in meta["variant"].items() if k not in ("game", "name", "description")})
        set_threads(threads)
        profile = skill_profile(g, g.setup(meta["players"], v), v, meta["seed"], skill_games, search_games, threads,
                                progress=not quiet and not as_json, frames=tier_runs, tier_seconds=tier_seconds)
    path = write_report([str(r) for r in runs], out, profile, tier_runs)
    if as_json:
        typer.echo((path / "summary.json").read_text(encoding="utf-8").rstrip("\n"))
        return
    verdict = json.loads((path / "summary.json").read_text(encoding="utf-8"))["verdict"]
    typer.echo("verdict: " + " ".join(verdict["sentences"]))
    typer.echo(f"report written: {path / 'report.html'} and {path / 'report.md'}")


@app.command()
def book(
    out: Annotated[Path, typer.Option("--out", "-o", help="Folder for index.html and one report per game and player count.")] = Path("reports/book"),
    games: Annotated[Optional[int], typer.Option(
        "--games", "-n", help="Games per game and player count (default 100,000; 10,000 with --strong).")] = None,
    seed: SeedOpt = 1,
    strong: Annotated[bool, typer.Option(
        "--strong", help="Every seat plays the game's strongest player (search for the card games, best-response "
                         "for The Sky City of ALEA) instead of the default random player.")] = False,
    only: Annotated[Optional[list[str]], typer.Option("--game", help="Only this game (repeatable; default: every game).")] = None,
    skill_games: SkillGamesOpt = 100_000,
    search_games: SearchGamesOpt = BOOK_SEARCH_GAMES,
    tier_seconds: TierSecondsOpt = BOOK_TIER_SECONDS,
    threads: ThreadsOpt = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the index's summary.json after writing the book.")] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bars.")] = False,
    force: ForceOpt = False,
    resume: Annotated[bool, typer.Option(
        "--resume", help="Finish an interrupted book: finished runs are kept, an unfinished run plays only its "
                         "missing games.")] = False,
    cluster: ClusterOpt = None,
    scheduler: SchedulerOpt = None,
):
    """Every game at every player count: one report each (with skill and luck) and an index.html overview."""
    from analysis.book import OVERVIEW_HEADERS, write_book

    if games is None:
        games = 10_000 if strong else 100_000
    with _claim(out, force, resume), _cluster(cluster, scheduler):
        path, rows = write_book(out, games, seed, strong, threads, progress=not quiet and not as_json, only=only,
                                skill_games=skill_games, search_games=search_games, force=force, resume=resume,
                                tier_seconds=tier_seconds or None)
    if as_json:
        typer.echo((path / "summary.json").read_text(encoding="utf-8").rstrip("\n"))
        return
    verdict = json.loads((path / "summary.json").read_text(encoding="utf-8"))["verdict"]
    typer.echo("verdict: " + " ".join(verdict["sentences"]))
    for row in rows:
        typer.echo("  ".join(f"{h}: {c}" for h, c in zip(OVERVIEW_HEADERS[:7], row[:7])))
    typer.echo(f"book written: {path / 'index.html'} and {path / 'index.md'}")


@app.command()
def cards(
    game: GameArg,
    players: PlayersOpt = None,
    games: Annotated[Optional[int], typer.Option(
        "--games", "-n", help="Games to simulate (default 200,000; with --cause, deals per card, default "
                              "20,000).")] = None,
    seed: SeedOpt = 1,
    strategies: StrategiesOpt = None,
    variant: VariantOpt = None,
    cause: Annotated[bool, typer.Option(
        "--cause", help="Worth of PLAYING each card: every deal played as dealt and with the card withheld "
                        "(not played while another move is legal), the holder's paired difference.")] = False,
    card: Annotated[Optional[list[str]], typer.Option(
        "--card", help="With --cause: only this card, by its name in the game (repeatable).")] = None,
    out: Annotated[Optional[Path], typer.Option(
        "--out", "-o", help="Folder for cards.md (cause.md with --cause), the .html and the chart.")] = None,
    as_json: JsonOpt = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")] = False,
    force: ForceOpt = False,
    cluster: ClusterOpt = None,
    scheduler: SchedulerOpt = None,
):
    """Card strength: each card's effect on win share when in the opening hand (seat-controlled, BH-flagged);
    with --cause, what playing it is worth to its holder on the same deals."""
    players = _players(game, players)
    import tempfile

    from analysis import cards as card_report
    from simcore.driver import run_games
    from simcore.parts import scan_run

    g, v, setup = _game_and_setup(game, players, variant, None)
    if g.card_names(setup) is None:
        raise _error(f"{g.name} deals no hands of cards, so it has no card {'cause' if cause else 'strength'} "
                     f"(card games: {', '.join(card_report.card_games())})")
    if card and not cause:
        raise _error("--card needs --cause")
    if cause:
        from analysis import cause as cause_report

        games = cause_report.DEFAULT_GAMES if games is None else games
        g.lineup(strategies, players)  # a bad strategy is refused before the output is claimed
        with _claim(out, force), _cluster(cluster, scheduler):
            if out is not None:
                card_report.check_out_dir(out)
            doc = cause_report.card_cause(g.name, players, games, seed, strategies, variant, None,
                                          progress=not quiet and not as_json, cards=card)
            if out is not None:
                cause_report.write(doc, out)
        if as_json:
            typer.echo(json.dumps(doc, indent=2))
        else:
            typer.echo(cause_report.format_text(doc), nl=False)
            if out is not None:
                typer.echo(f"\ncard cause written: {out / 'cause.html'} and {out / 'cause.md'}")
        return
    games = 200_000 if games is None else games
    if games < 2:
        raise _error(f"--games must be at least 2 for card strength, not {games}")
    lineup = g.lineup(strategies, players)
    with _claim(out, force), _cluster(cluster, scheduler):
        if out is not None:
            card_report.check_out_dir(out)
        with tempfile.TemporaryDirectory(prefix="balance-") as scratch:
            result = run_games(g, setup, lineup, v, seed, games, out=Path(scratch) / "run.parquet",
                               progress=not quiet and not as_json)
            table = card_report.card_strength(scan_run(result.path), result.meta).collect()
        if out is not None:
            card_report.write(table, result.meta, games, out)
    if as_json:
        typer.echo(json.dumps({"game": g.name, "players": players, "games": games, "seed": seed,
                               "strategies": list(lineup.names),
                               "strategy_labels": [g.strategy_label(n) for n in lineup.names], "variant": v.to_dict(),
                               "verdict": card_report.verdict(table, games, card_report.players_of_meta(result.meta)),
                               "cards": table.to_dicts()}, indent=2))
    else:
        typer.echo(card_report.text_table(table, result.meta, games))
        if out is not None:
            typer.echo(f"\ncard strength written: {out / 'cards.html'} and {out / 'cards.md'}")


@app.command()
def tournament(
    game: GameArg,
    strategies: Annotated[str, typer.Option(
        "--strategies", "-s", help="The strategies that play each other, comma-separated: at least two different "
                                   "names (see `balance games`).")],
    players: PlayersOpt = None,
    games: Annotated[int, typer.Option(
        "--games", "-n", help="Games in TOTAL, split evenly over the seatings and rounded up to whole games per "
                              "seating (the count played is printed).")] = 100_000,
    seed: SeedOpt = 1,
    variant: VariantOpt = None,
    plugin: PluginOpt = None,
    threads: ThreadsOpt = None,
    out: Annotated[Optional[Path], typer.Option(
        "--out", "-o", help="Folder for tournament.md and a self-contained tournament.html with charts.")] = None,
    tier_games: Annotated[Optional[int], typer.Option(
        "--tier-games", help="Games for each one-strategy seating (the skill tiers' first-player advantage); "
                             "default: the same as every other seating.")] = None,
    as_json: JsonOpt = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")] = False,
    force: ForceOpt = False,
    cluster: ClusterOpt = None,
    scheduler: SchedulerOpt = None,
):
    """Strategies against each other in every seating (seat effects cancel): head-to-head matrix,
    Bradley-Terry ratings, and first-player advantage per skill tier (docs/tournament.md)."""
    players = _players(game, players)
    from analysis.tournament import format_text, run_tournament, write_report

    with _claim(out, force), _cluster(cluster, scheduler):
        doc = run_tournament(game, players, strategies, games, seed, variant, threads, plugin or (), out,
                             progress=not quiet and not as_json, tier_games=tier_games)
        if out is not None:
            write_report(doc, out)
    if as_json:
        typer.echo(json.dumps(doc, indent=2, allow_nan=False))
    else:
        typer.echo(format_text(doc).rstrip("\n"))
        if out is not None:
            typer.echo(f"report written: {out / 'tournament.html'} and {out / 'tournament.md'}")


@app.command()
def ladder(
    game: GameArg,
    players: PlayersOpt = None,
    games: Annotated[int, typer.Option(
        "--games", "-n", help="Games per rung, split evenly over the seats (rounded up to whole deals).")] = 8_000,
    rungs: Annotated[Optional[str], typer.Option(
        "--rungs", help="The rungs, weakest first, comma-separated (default: the game's ladder, "
                        "e.g. random,greedy,heuristic,search,search:d=96).")] = None,
    seed: SeedOpt = 1,
    threads: ThreadsOpt = None,
    out: Annotated[Optional[Path], typer.Option(
        "--out", "-o", help="Folder for ladder.md and a self-contained ladder.html with the chart.")] = None,
    as_json: JsonOpt = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")] = False,
    force: ForceOpt = False,
    cluster: ClusterOpt = None,
    scheduler: SchedulerOpt = None,
):
    """The skill ladder: each of GAME's players (random, greedy, heuristic, search, stronger search)
    against a field of the one below, seats rotated, with 95% intervals and the fair share."""
    players = _players(game, players)
    from analysis.ladder import format_text, run_ladder, write_report

    names = [name.strip() for name in rungs.split(",")] if rungs else None
    with _claim(out, force), _cluster(cluster, scheduler):
        doc = run_ladder(game, players, games, seed, threads, rungs=names, out=out, progress=not quiet and not as_json)
        _emit(doc, format_text, write_report, out, "ladder", as_json)


@app.command()
def exploits(
    game: GameArg,
    players: PlayersOpt = None,
    games: Annotated[int, typer.Option(
        "--games", "-n", help="Screening games per candidate, split evenly over the seats; the best are "
                              "confirmed on 5x as many fresh games.")] = 2_000,
    budget: Annotated[int, typer.Option(
        "--budget", help="At most this many candidates screened (a parameter grid is thinned to fit).")] = 24,
    field: Annotated[Optional[str], typer.Option(
        "--field", help="The skilled players to beat, in every other seat (default: the game's heuristic "
                        "player, e.g. expected-value for sky-city).")] = None,
    candidates: Annotated[Optional[str], typer.Option(
        "--candidates", help="The strategies to try, comma-separated (default: every built-in rule of thumb "
                             "and a grid over each parameter range).")] = None,
    finalists: Annotated[int, typer.Option(
        "--finalists", help="How many of the screen's best are confirmed on fresh games.")] = 3,
    seed: SeedOpt = 1,
    variant: VariantOpt = None,
    threads: ThreadsOpt = None,
    out: Annotated[Optional[Path], typer.Option(
        "--out", "-o", help="Folder for exploits.md and a self-contained exploits.html with the chart.")] = None,
    as_json: JsonOpt = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")] = False,
    force: ForceOpt = False,
    cluster: ClusterOpt = None,
    scheduler: SchedulerOpt = None,
):
    """Exploit search: does a simple strategy (a rule of thumb, a parameter setting) beat a field of GAME's
    heuristic players by more than the threshold? Screen, then confirm the best on fresh games."""
    players = _players(game, players)
    from analysis.exploits import check_out_dir, find_exploits, format_text, write_report

    names = [name.strip() for name in candidates.split(",") if name.strip()] if candidates else None
    with _claim(out, force), _cluster(cluster, scheduler):
        if out is not None:
            check_out_dir(out)
        doc = find_exploits(game, players, games, seed, field=field, budget=budget, names=names,
                            finalists=finalists, threads=threads, variant_path=variant,
                            progress=not quiet and not as_json)
        _emit(doc, format_text, write_report, out, "exploits", as_json)


def _design(duplicate: bool | None) -> str | None:
    """--duplicate/--independent as the design analysis.whatif.design_for takes (None: the default)."""
    return None if duplicate is None else "duplicate" if duplicate else "independent"


@app.command()
def whatif(
    game: GameArg,
    variant: Annotated[list[Path], typer.Option(
        "--variant", help="Variant TOML file to compare with the published rules (repeatable; at least one).")],
    players: PlayersOpt = None,
    games: Annotated[int, typer.Option("--games", "-n", help="Games per run: the baseline and each variant.")] = 100_000,
    seed: SeedOpt = 1,
    strategies: StrategiesOpt = None,
    threads: ThreadsOpt = None,
    out: Annotated[Optional[Path], typer.Option(
        "--out", "-o", help="Folder for whatif.md, a self-contained whatif.html and the chart of changes.")] = None,
    as_json: JsonOpt = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bars.")] = False,
    force: ForceOpt = False,
    duplicate: DuplicateOpt = None,
    cluster: ClusterOpt = None,
    scheduler: SchedulerOpt = None,
):
    """The published rules and each variant on the same games: every headline figure, its change,
    a paired 95% interval and p-value, and how much the shared deals sharpened it (docs/whatif.md)."""
    players = _players(game, players)
    from analysis import whatif as comparison

    with _claim(out, force), _cluster(cluster, scheduler):
        document = comparison.whatif(game, variant, players=players, games=games, seed=seed,
                                     strategies_spec=strategies, threads=threads, progress=not quiet and not as_json,
                                     out=out, design=_design(duplicate))
        _emit(document, comparison.format_text, comparison.write, out, "whatif", as_json)


@app.command()
def studio(
    game: GameArg,
    players: PlayersOpt = None,
    seed: SeedOpt = 1,
    tier: Annotated[Optional[str], typer.Option(
        "--tier", help="The players in every seat that changes are measured among (default: the game's "
                       "heuristic); the page can switch.")] = None,
    games: Annotated[int, typer.Option("--games", "-n", help="Games at most per change (each set of rules).")] = 256_000,
    port: Annotated[int, typer.Option("--port", help="Port on this machine.")] = 8765,
    host: Annotated[str, typer.Option(
        "--host", help="Address to listen on; anything but 127.0.0.1 lets other machines in (a warning says so).")] = "127.0.0.1",
    no_browser: Annotated[bool, typer.Option("--no-browser", help="Do not open a browser.")] = False,
    versions: Annotated[Optional[Path], typer.Option(
        "--versions", help="Folder the versions are kept in (default: beside a rules file, else ./balance-studio/GAME/).")] = None,
    threads: ThreadsOpt = None,
    cluster: ClusterOpt = None,
    scheduler: SchedulerOpt = None,
):
    """A local page where a change to a card or a rule answers in seconds, on the same deals as the
    published rules; every version kept and comparable (docs/studio.md)."""
    players = _players(game, players)
    from balance.studio.serve import serve

    if not 1 <= port <= 65535:
        raise _error(f"--port must be 1-65535, not {port}")
    with _cluster(cluster, scheduler):
        serve(game, players, seed=seed, tier=tier, cap=games, port=port, host=host, browser=not no_browser,
              folder=versions, threads=threads)


@app.command()
def sweep(
    game: GameArg,
    setting: Annotated[str, typer.Option(
        "--set", help="KEY=START..STOP[:STEP]: the variant key swept, START to STOP inclusive (e.g. target=30..60:5).")],
    variant: VariantOpt = None,
    players: PlayersOpt = None,
    games: Annotated[int, typer.Option("--games", "-n", help="Games per point.")] = 100_000,
    seed: SeedOpt = 1,
    strategies: StrategiesOpt = None,
    threads: ThreadsOpt = None,
    out: Annotated[Optional[Path], typer.Option(
        "--out", "-o", help="Folder for sweep.md, a self-contained sweep.html and the line charts.")] = None,
    as_json: JsonOpt = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bars.")] = False,
    force: ForceOpt = False,
    duplicate: DuplicateOpt = None,
    cluster: ClusterOpt = None,
    scheduler: SchedulerOpt = None,
):
    """One variant key swept over a range on the same games: first-player advantage, game length and
    every rule-event rate at each point with 95% intervals, and line charts with interval bands."""
    players = _players(game, players)
    from analysis import sweep as sweeping

    with _claim(out, force), _cluster(cluster, scheduler):
        document = sweeping.sweep(game, setting, players=players, games=games, seed=seed, strategies_spec=strategies,
                                  base_path=variant, threads=threads, progress=not quiet and not as_json, out=out,
                                  design=_design(duplicate))
        _emit(document, sweeping.format_text, sweeping.write, out, "sweep", as_json)


@app.command()
def tune(
    space: Annotated[Path, typer.Argument(help="Tune space TOML: what may change, and the targets (docs/tune.md).",
                                          metavar="SPACE")],
    seed: SeedOpt = 1,
    games: Annotated[Optional[int], typer.Option(
        "--games", "-n", help="Fresh games per finalist (default: the space's final_games or precision).")] = None,
    candidates: Annotated[Optional[int], typer.Option(
        "--candidates", help="Candidates to play, smallest changes first (default: the space's budget).")] = None,
    no_racing: Annotated[bool, typer.Option(
        "--no-racing", help="Play every candidate at the last rung (to measure what racing saves).")] = False,
    threads: ThreadsOpt = None,
    out: Annotated[Optional[Path], typer.Option(
        "--out", "-o", help="Folder for tune.md, tune.html, tune.json, winner.toml and whatif/ (the winner against "
                            "the rules tuned from).")] = None,
    as_json: JsonOpt = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")] = False,
    force: ForceOpt = False,
    resume: Annotated[bool, typer.Option(
        "--resume", help="Continue a stopped tune in --out: the finished candidates are read from its journal, "
                         "the answer is the one an uninterrupted tune gives.")] = False,
    cluster: ClusterOpt = None,
    scheduler: SchedulerOpt = None,
):
    """Search the rule changes a tune space allows for the smallest one that meets every target: changes
    tried by size, smallest first (TPE proposals where a size is too large for the budget), racing
    on common random numbers, finishers measured on fresh games (docs/tune.md)."""
    from analysis import tune as tuner

    with _claim(out, force, resume), _cluster(cluster, scheduler):
        document = tuner.tune(space, seed=seed, out=out, resume=resume, threads=threads,
                              progress=not quiet and not as_json, candidates=candidates, final_games=games,
                              racing=not no_racing)
        _emit(document, tuner.format_text, tuner.write, out, "tune", as_json)


def _emit(document: dict, format_text, write, out: Path | None, stem: str, as_json: bool) -> None:
    """A workbench command's ending: the report files if asked for, then JSON or the text tables."""
    if out is not None:
        write(document, out)
    if as_json:
        typer.echo(json.dumps(document, indent=2, allow_nan=False))
        return
    typer.echo(format_text(document).rstrip("\n"))
    if out is not None:
        typer.echo(f"\nreport written: {out / (stem + '.html')} and {out / (stem + '.md')}")


@app.command()
def play(
    scenario: Annotated[Path, typer.Argument(help="Scenario JSON file (docs/scenarios.md).", metavar="SCENARIO")],
    plugin: PluginOpt = None,
    as_json: JsonOpt = False,
):
    """Play a scenario through both engines, check they agree, print the trick-by-trick log."""
    from simcore.registry import get_game
    from simcore.scenarios import load_scenario

    data = load_scenario(scenario)
    g = get_game(data["game"])
    log = g.scenario(data, str(scenario), plugin_paths=plugin or ())
    expect = data.get("expect")
    failures = _check_expectations(g.expectations(log), expect) if expect else []
    if as_json:
        typer.echo(json.dumps({**log, "expect_failures": failures}, indent=2))
    else:
        typer.echo(g.format_log(log))
        typer.echo("compiled and reference engines agree")
        for line in failures:
            typer.echo(f"EXPECTATION FAILED: {line}")
    if failures:
        raise typer.Exit(1)


def _check_expectations(actual: dict, expect: dict) -> list[str]:
    """Compare a scenario's optional "expect" block with what happened (``Game.expectations``)."""
    from simcore.errors import BalanceError

    if not isinstance(expect, dict):
        raise BalanceError("scenario 'expect' must be an object")
    failures = []
    for key, want in expect.items():
        if key not in actual:
            raise BalanceError(f"scenario 'expect' has unknown key '{key}' (known: {', '.join(actual)})")
        got = actual[key]
        if key == "counters":
            if not isinstance(want, dict) or set(want) - set(got):
                raise BalanceError(f"scenario 'expect.counters' must name counters among: {', '.join(got)}")
            got = {k: got[k] for k in want}
        if got != want:
            failures.append(f"{key}: expected {want}, got {got}")
    return failures


@app.command()
def replay(
    game: GameArg,
    seed: SeedOpt = 1,
    index: Annotated[int, typer.Option("--index", "-i", help="Game index within the run (row `game`).")] = 0,
    players: PlayersOpt = None,
    strategies: StrategiesOpt = None,
    variant: VariantOpt = None,
    deals: DealsOpt = None,
    plugin: PluginOpt = None,
    run: Annotated[Optional[Path], typer.Option(
        "--run", help="Take players, strategies and variant from this result file and check the row matches.")] = None,
    as_json: JsonOpt = False,
):
    """Print the trick-by-trick log of game INDEX of the run with SEED."""
    players = _players(game, players)
    from simcore.registry import get_game

    from simcore.registry import check_seed

    g = get_game(game)
    row = None
    check_seed(index, "--index")
    if run is not None:
        from analysis.summary import load

        frame, meta = load(run)
        if meta["game"] != g.name:
            raise _error(f"{run} holds {meta['game']} games, not {game}")
        for key, kind in (("seed", int), ("players", int), ("strategies", list), ("variant", dict)):
            if not isinstance(meta.get(key), kind):
                raise _error(f"{run}: its metadata has no valid '{key}', so its games cannot be replayed")
        players, seed, strategies = meta["players"], meta["seed"], ",".join(map(str, meta["strategies"]))
        v = g.variant(overrides={k: val for k, val in meta["variant"].items() if k not in ("game", "name", "description")})
        setup = g.setup(players, v)
        import polars as pl

        rows = frame.filter(pl.col("game") == index).collect()
        if rows.height == 0:
            raise _error(f"{run} has no game {index}")
        row = rows.row(0, named=True)
        plugin = [Path(p) for p in meta.get("plugins", [])] or plugin
    else:
        g, v, setup = _game_and_setup(game, players, variant, deals)
    check_seed(seed)
    lineup = g.lineup(strategies, players, plugin or ())
    log = g.replay(setup, lineup, seed, index)
    if row is not None:
        recorded = [row[f"score_{s}"] for s in range(players)]
        if recorded != log["scores"]:
            raise _error(f"replay scores {log['scores']} differ from the recorded {recorded} (different engine version?)")
        log["matches_run"] = str(run)
    if as_json:
        typer.echo(json.dumps(log, indent=2))
    else:
        typer.echo(g.format_log(log))
        if row is not None:
            typer.echo(f"matches row {index} of {run}")


@app.command()
def traps(
    players: PlayersOpt = 4,
    deck: Annotated[Optional[Path], typer.Option("--deck", help="Trap deck TOML (docs/traps.md); default the bundled one.")] = None,
    games: Annotated[int, typer.Option("--games", "-n", help="Games simulated for the per-trap figures.")] = 200_000,
    seed: SeedOpt = 1,
    strategies: StrategiesOpt = "random",  # random play reaches every situation (escapes, 0-declarers)
    out: Annotated[Optional[Path], typer.Option("--out", "-o", help="Folder for traps.md, traps.html and the heat map.")] = None,
    equilibria: Annotated[bool, typer.Option(
        "--equilibria/--no-equilibria", help="Also find each trap card's declaration equilibrium (1-3 minutes).")] = True,
    equilibrium_rounds: Annotated[int, typer.Option(
        "--equilibrium-rounds", help="Simulated rounds per payoff cell of the equilibria (own declaration x the "
                                     "others').")] = 10_000,
    as_json: JsonOpt = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")] = False,
    force: ForceOpt = False,
):
    """The Sky City of ALEA: exact trap odds (trap x dice), a heat map, per-trap figures from simulation,
    and each trap card's declaration equilibrium beside the EV player's declaration."""
    import tempfile

    from analysis import equilibria as solver
    from analysis import traps as trap_report
    from simcore.driver import run_games
    from simcore.registry import get_game

    with _claim(out, force):
        game = get_game("sky-city")
        overrides = {"traps": str(deck)} if deck is not None else None
        variant = game.variant(None, overrides)
        setup = game.setup(players, variant)
        lineup = game.lineup(strategies, players)
        with tempfile.TemporaryDirectory(prefix="balance-") as scratch:
            result = run_games(game, setup, lineup, variant, seed, games, out=Path(scratch) / "run.parquet",
                               progress=not quiet and not as_json)
        rows = trap_report.trap_rows(result.meta)
        found = None
        if equilibria:
            from simcore.progress import Progress

            with Progress(not quiet and not as_json, len(setup.deck.names), f"sky-city {players}p equilibria",
                           unit="trap cards") as step:
                found = {"rounds": equilibrium_rounds, "check_rounds": solver.CHECK_ROUNDS, "seed": seed,
                         "traps": solver.equilibria(setup, equilibrium_rounds, solver.CHECK_ROUNDS, seed, step)}
        if out is not None:
            trap_report.write(setup, result.meta, out, found)
        if as_json:
            typer.echo(json.dumps({"verdict": trap_report.verdict(rows, players, found), "players": players,
                                   "deck": result.meta.get("trap_deck"), "traps": list(setup.deck.names),
                                   "exact_odds": setup.odds.tolist(), "simulation": rows, "equilibria": found},
                                  indent=2))
        else:
            typer.echo(trap_report.format_text(setup, rows, result.meta))
            if found is not None:
                typer.echo(trap_report.format_equilibria(found, players))
            if out is not None:
                typer.echo(f"\nreport written: {out / 'traps.html'} and {out / 'traps.md'}")


@app.command()
def bench(
    game: Annotated[Optional[str], typer.Argument(help="Game (default: every game).")] = None,
    players: PlayersOpt = 4,
    games: Annotated[int, typer.Option("--games", "-n", help="Games per compiled measurement.")] = 2_000_000,
    reference_games: Annotated[int, typer.Option("--reference-games", help="Games for the reference engine.")] = 5_000,
    repeats: Annotated[int, typer.Option("--repeats", help="Best of this many timings.")] = 3,
    search: Annotated[Optional[str], typer.Option(
        "--search", help="Time a search player instead (e.g. 'search' or 'search:d=64'): its decisions and playouts "
                         "per second on one thread, and games/s of one search among heuristic players.")] = None,
    search_games: Annotated[int, typer.Option("--search-games", help="Games per search timing.")] = 2_000,
    scale: Annotated[bool, typer.Option(
        "--scale", help="BIRD & WEATHER at 10^6 and 10^8 games: peak memory of each (flat); a run to a file against the play "
                        "loop alone at 1 and all threads, its serial fraction, and the speed-up from 1 to "
                        "all threads and from 1 to 2 local Dask workers (minutes; BENCHMARKS.md).")] = False,
    scale_games: Annotated[str, typer.Option(
        "--scale-games", help="With --scale: the run sizes whose peak memory is compared, comma-separated.")]
        = "1000000,100000000",
    scale_speed_games: Annotated[int, typer.Option(
        "--scale-speed-games", help="With --scale: games per speed-up timing.")] = 20_000_000,
    compile_: Annotated[bool, typer.Option(
        "--compile", help="Also time each game's first command from an empty compile cache (a new process each: "
                          "the stock play loop, and the random build); BENCHMARKS.md's table keeps it.")] = False,
    as_json: JsonOpt = False,
):
    """Measure games/s of the compiled engine (1 thread, all threads) and the reference engine."""
    from simcore.bench import format_bench, format_search_bench, run_bench, run_search_bench
    from simcore.registry import game_names, get_game

    for name, value in (("--games", games), ("--reference-games", reference_games), ("--repeats", repeats),
                        ("--search-games", search_games)):
        if value < 1:
            raise _error(f"{name} must be at least 1, not {value}")
    if scale:
        from simcore.bench_scale import format_scale_bench, run_scale_bench

        try:
            sizes = [int(x.replace("_", "")) for x in scale_games.split(",")]
        except ValueError:
            raise _error(f"--scale-games must be whole numbers separated by commas, not '{scale_games}'") from None
        if not sizes or min(sizes) < 1 or max(sizes) > 10**10 or scale_speed_games < 1:
            raise _error("--scale-games must be 1 to 10^10 games each, --scale-speed-games at least 1")
        from analysis.summary import ChunkTotals

        result = run_scale_bench(sizes, scale_speed_games, progress=not as_json, reduce_for=ChunkTotals)
        typer.echo(json.dumps(result, indent=2) if as_json else format_scale_bench(result))
        return
    names = [game] if game else game_names()
    for name in names:
        get_game(name).check_players(players)
    if search is not None:
        names = [n for n in names if "search" in get_game(n).builtin_strategies()]
        results = [run_search_bench(name, players, search_games, repeats, search, progress=not as_json)
                   for name in names]
        typer.echo(json.dumps(results, indent=2) if as_json else format_search_bench(results))
        return
    results = [run_bench(name, players, games, reference_games, repeats, progress=not as_json, compile_=compile_)
               for name in names]
    typer.echo(json.dumps(results, indent=2) if as_json else format_bench(results))


def main() -> None:
    """Entry point: run the app; bad input → one line on stderr, exit 2."""
    try:  # Typer >= 0.20 carries its own copy of click (its Abort is typer.Abort)
        from typer._click.exceptions import UsageError
        Abort = typer.Abort
    except ImportError:  # older Typer depends on click itself
        from click.exceptions import Abort, UsageError

    from simcore.errors import BalanceError, RunInterrupted

    RunInterrupted.last = None
    try:
        code = app(standalone_mode=False, default_map=project_defaults())
        if isinstance(code, int) and code:
            if code == 130:  # Typer turns Ctrl-C / SIGTERM into a returned 130
                _interrupted()
            sys.exit(code)
    except BalanceError as exc:
        _fail(str(exc))
    except UsageError as exc:
        _fail(exc.format_message())
    except typer.Exit as exc:
        if exc.exit_code == 130:  # Typer's own translation of Ctrl-C / SIGTERM
            _interrupted()
        sys.exit(exc.exit_code)
    except (Abort, typer.Abort, KeyboardInterrupt):
        _interrupted()
        sys.exit(130)
    except OSError as exc:  # the machine refused (disk full, permissions) somewhere we did not expect it
        from simcore.outputs import reason

        _fail(f"{exc.filename}: {reason(exc)}" if getattr(exc, "filename", None) else reason(exc))
    except Exception as exc:
        # a user's plug-in that Numba cannot compile is bad input too; anything else is our bug
        numba_errors = sys.modules.get("numba.core.errors")
        if numba_errors is not None and isinstance(exc, numba_errors.NumbaError):
            from simcore.errors import numba_reason
            from simcore.plugins.loading import loaded_plugins

            if loaded_plugins():
                _fail(f"plug-in {', '.join(loaded_plugins())} does not compile with Numba: {numba_reason(exc)}")
        raise


# [defaults] keys: each sets the option of that name wherever a command has one ("output" sets the
# folder options, with the command's own sub-folder)
DEFAULT_KEYS = ("games", "seed", "output", "threads", "cluster")
OUTPUT_FOLDERS = {"report": "latest", "book": "book", "cards": "cards", "traps": "traps", "whatif": "whatif",
                  "sweep": "sweep", "tune": "tune", "tournament": "tournament", "ladder": "ladder"}


def project_defaults(path: Path | None = None) -> dict | None:
    """The default map (command -> option -> value) of ./balance.toml, or None without one; its
    [thresholds] are set for the pages.  A malformed file is one line and exit 2."""
    import tomllib

    from simcore.errors import BalanceError

    from analysis.verdict import configure

    path = Path(PROJECT_FILE) if path is None else path
    if not path.is_file():
        configure(None)  # the project's defaults, nothing left from an earlier call in this process
        return None
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise BalanceError(f"cannot read {path}: {exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise BalanceError(f"{path} is not valid TOML: {exc}") from None
    if not isinstance(data.get("thresholds", {}), dict):
        raise BalanceError(f"{path}: [thresholds] must be a table")
    configure(data.get("thresholds"))
    commands = typer.main.get_command(app).commands
    options = {name: {_option_key(opt): param.name for param in command.params for opt in param.opts
                      if opt.startswith("--")} for name, command in commands.items()}
    defaults = data.get("defaults", {})
    if not isinstance(defaults, dict):
        raise BalanceError(f"{path}: [defaults] must be a table")
    unknown = sorted(set(defaults) - set(DEFAULT_KEYS))
    if unknown:
        raise BalanceError(f"{path}: [defaults] has no key '{unknown[0]}' (known: {', '.join(DEFAULT_KEYS)})")
    mapping: dict[str, dict] = {}
    for command, known in options.items():
        chosen = {}
        for key, value in defaults.items():
            if key == "output":
                if command in OUTPUT_FOLDERS and "out" in known:
                    chosen["out"] = str(Path(str(value)) / OUTPUT_FOLDERS[command])
            elif key in known:
                chosen[known[key]] = value
        mapping[command] = chosen
    for section, values in data.items():
        if section in ("defaults", "thresholds"):
            continue
        if section not in options:
            raise BalanceError(f"{path}: [{section}] is not a command nor [defaults] or [thresholds]")
        if not isinstance(values, dict):
            raise BalanceError(f"{path}: [{section}] must be a table of option names")
        for key, value in values.items():
            name = options[section].get(_option_key(key))
            if name is None:
                raise BalanceError(f"{path}: `balance {section}` has no option --{_option_key(key)}")
            mapping[section][name] = value
    return {command: chosen for command, chosen in mapping.items() if chosen} or None


def _option_key(option: str) -> str:
    """``--chunk-size`` / ``chunk_size`` / ``chunk-size`` -> ``chunk-size``."""
    return option.lstrip("-").replace("_", "-")


def _interrupted() -> None:
    """Ctrl-C or SIGTERM: one line, saying what a run kept (``RunInterrupted``) if it kept anything."""
    from simcore.errors import RunInterrupted

    kept = RunInterrupted.last
    typer.echo("balance: interrupted" + (f": {kept}" if kept else ""), err=True)


def _fail(message: str) -> None:
    typer.echo(f"balance: error: {' '.join(message.split())}", err=True)
    sys.exit(2)


if __name__ == "__main__":
    main()
