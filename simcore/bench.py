"""`balance bench`: games per second of the compiled engine and the reference engine,
measured in one run so their ratio is fair on a noisy shared machine."""
from __future__ import annotations

import os
import platform
import time

import numba

from simcore.version import __version__
from simcore.driver import DEFAULT_CHUNK, set_threads
from simcore.registry import get_game


PLAY_COUNT_GAMES = 2000  # games whose logs count the plays per game (random players, seed 1000)


def cpu_flags() -> set[str]:
    try:
        for line in open("/proc/cpuinfo", encoding="utf-8"):
            if line.startswith("flags"):
                return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return set()


def machine() -> dict:
    cpu = platform.processor() or ""
    try:
        for line in open("/proc/cpuinfo", encoding="utf-8"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    from simcore.bits import HAS_PDEP

    flags = cpu_flags()
    return {"cpu": cpu, "cores": os.cpu_count(), "bmi2": "bmi2" in flags, "lzcnt": "abm" in flags or "lzcnt" in flags,
            "pdep_used": HAS_PDEP, "python": platform.python_version(),
            "numba": numba.__version__, "platform": platform.platform(), "balance": __version__}


def provenance() -> dict:
    """What a kept result says about where it came from: the checkout's commit (``-dirty`` with
    uncommitted changes to tracked files) and the date (UTC)."""
    import subprocess
    from datetime import datetime, timezone

    from simcore.cache import ROOT

    def git(*args) -> str:
        try:
            return subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True, text=True, timeout=30).stdout.strip()
        except (OSError, subprocess.SubprocessError):
            return ""

    commit = git("rev-parse", "--short=12", "HEAD") or "unknown"
    if commit != "unknown" and git("status", "--porcelain", "--untracked-files=no"):
        commit += "-dirty"
    return {"commit": commit, "date": datetime.now(timezone.utc).isoformat(timespec="seconds")}


def first_compile_seconds(name: str, players: int) -> dict:
    """Wall seconds of a game's first command from an empty compile cache, in a new process each:
    ``stock``, ``simulate -s SKILLED -n 1000`` (the stock play loop); ``random``, ``simulate -n
    100000`` (every seat random: the random build, simcore/builds.py).  Python starting, the
    imports, the compile and the games: what a newcomer waits for."""
    import subprocess
    import sys
    import tempfile

    from simcore.errors import BalanceError

    game = get_game(name)
    found = {}
    for build, options in (("stock", ["-s", game.strong_strategy, "-n", "1000"]), ("random", ["-n", "100000"])):
        with tempfile.TemporaryDirectory(prefix="balance-compile-") as cache:
            env = {**os.environ, "BALANCE_CACHE_DIR": cache}
            env.pop("NUMBA_CACHE_DIR", None)
            started = time.perf_counter()
            done = subprocess.run([sys.executable, "-m", "balance", "simulate", name, "-p", str(players), *options,
                                   "--seed", "1", "-q"], env=env, capture_output=True, text=True)
            seconds = time.perf_counter() - started
        if done.returncode != 0:
            raise BalanceError(f"bench --compile: the first {build} command of {name} failed: "
                               f"{(done.stderr.strip().splitlines() or ['?'])[-1]}")
        found[build] = round(seconds, 1)
    return found


def _compiled_rate(game, setup, lineup, games, threads, repeats) -> float:
    set_threads(threads)
    best = float("inf")
    for r in range(repeats):
        started = time.perf_counter()
        for start in range(0, games, DEFAULT_CHUNK):
            game.run_chunk(setup, lineup, 1000 + r, start, min(DEFAULT_CHUNK, games - start))
        best = min(best, time.perf_counter() - started)
    return games / best


def _reference_rate(game, setup, games, repeats) -> float:
    best = float("inf")
    for r in range(max(1, min(repeats, 2))):
        started = time.perf_counter()
        for index in range(games):
            game.reference_game(setup, 1000 + r, index)
        best = min(best, time.perf_counter() - started)
    return games / best


def run_bench(name: str, players: int, games: int, reference_games: int, repeats: int, progress=True,
              compile_: bool = False) -> dict:
    game = get_game(name)
    variant = game.variant()
    setup = game.setup(players, variant)
    all_threads = numba.config.NUMBA_NUM_THREADS
    random = game.lineup("random", players)
    strong = game.lineup(game.strong_strategy, players)
    started = time.perf_counter()
    game.run_chunk(setup, random, 0, 0, 64)  # compile (or load from cache) before timing
    game.run_chunk(setup, strong, 0, 0, 64)
    warmup = time.perf_counter() - started
    say = (lambda text: print(text, file=__import__("sys").stderr)) if progress else (lambda text: None)
    say(f"bench {name} {players}p: compiled random, 1 thread ...")
    one = _compiled_rate(game, setup, random, games, 1, repeats)
    say(f"bench {name} {players}p: compiled random, {all_threads} threads ...")
    many = _compiled_rate(game, setup, random, games, all_threads, repeats)
    say(f"bench {name} {players}p: compiled {game.strong_strategy}, {all_threads} threads ...")
    heuristic = _compiled_rate(game, setup, strong, max(games // 2, 1), all_threads, repeats)
    say(f"bench {name} {players}p: reference engine ...")
    reference = _reference_rate(game, setup, reference_games, repeats)
    set_threads(None)
    say(f"bench {name} {players}p: {game.play_unit} per game (kernel logs of {PLAY_COUNT_GAMES:,} random games) ...")
    plays = game.plays_per_game(setup, random, 1000, PLAY_COUNT_GAMES)
    first = None
    if compile_:
        say(f"bench {name} {players}p: the first command from an empty cache (two new processes) ...")
        first = first_compile_seconds(name, players)
    return {
        "kind": "bench", **provenance(), "first_compile_seconds": first,
        "game": name, "players": players, "games": games, "reference_games": reference_games,
        "threads": all_threads, "warmup_seconds": round(warmup, 2),
        "random_1_thread": round(one), "random_all_threads": round(many),
        "strong_strategy": game.strong_strategy, "heuristic_all_threads": round(heuristic), "reference": round(reference, 1),
        "ratio_1_thread": round(one / reference, 1), "ratio_all_threads": round(many / reference, 1),
        "thread_scaling": round(many / one, 2), "strong_vs_random": round(heuristic / many, 2),
        "play_unit": game.play_unit, "plays_per_game": round(plays, 2),
        "plays_per_second_1_thread": round(one * plays), "ns_per_play_1_thread": round(1e9 / (one * plays), 2),
        "machine": machine(),
    }


def _timed(game, setup, lineup, seed, games, threads, repeats, clock=time.perf_counter) -> float:
    """Best time of playing games 0..games-1 of ``seed`` (the same games every repeat), by
    ``clock``: wall time, or ``time.process_time`` (this process's CPU time) for one thread."""
    set_threads(threads)
    best = float("inf")
    for _ in range(repeats):
        started = clock()
        for start in range(0, games, DEFAULT_CHUNK):
            game.run_chunk(setup, lineup, seed, start, min(DEFAULT_CHUNK, games - start))
        best = min(best, clock() - started)
    return best


def run_search_bench(name: str, players: int, games: int, repeats: int, spec: str = "search",
                     field_games: int | None = None, progress=True) -> dict:
    """The search player's cost on one thread, and its speed among heuristic players on all.

    One thread: the same games with ``spec`` in seat 0 and random players elsewhere, and with
    random players everywhere; the difference is the search's time.  Its work is counted from
    the logs of those games (``Game.seat_decisions``: the choices at each decision): a decision
    with k >= 2 choices plays d x p x k playouts (a playout is one move and a rollout to the end
    of the deal or round), one with a single choice none.  That is the unit OpenSpiel's ISMCTS
    counts as a simulation (tools/ismcts.py)."""
    game = get_game(name)
    players_module = game.strategy_module()  # the search's budget slots, through the registry
    setup = game.setup(players, game.variant())
    hero = game.lineup([spec] + ["random"] * (players - 1), players)
    field = game.lineup(["random"] * players, players)
    among = game.lineup([spec] + ["heuristic"] * (players - 1), players)
    for lineup in (hero, field, among):
        game.run_chunk(setup, lineup, 0, 0, 16)  # compile or load before timing
    say = (lambda text: print(text, file=__import__("sys").stderr)) if progress else (lambda text: None)
    say(f"bench {name} {players}p: {spec} among random players, 1 thread ...")
    seed = 4242
    # one thread, timed in CPU seconds of this process: on a shared machine another job's time is
    # not counted (and it is the clock OpenSpiel's side is timed with, tools/ismcts.py)
    t_search = _timed(game, setup, hero, seed, games, 1, repeats, time.process_time)
    t_random = _timed(game, setup, field, seed, games, 1, repeats, time.process_time)
    options = [o for log in game.kernel_logs(setup, hero, seed, range(games)) for o in game.seat_decisions(setup, log, 0)]
    row = hero.params[0]
    searched = [o for o in options if o >= 2]
    playouts = int(row[players_module.P_DETERMINIZATIONS] * row[players_module.P_PLAYOUTS] * sum(searched))
    thinking = max(t_search - t_random, 1e-9)
    all_threads = numba.config.NUMBA_NUM_THREADS
    field_games = field_games or games
    say(f"bench {name} {players}p: {spec} among heuristic players, {all_threads} threads ...")
    t_among = _timed(game, setup, among, seed, field_games, all_threads, repeats)
    set_threads(None)
    return {"game": name, "players": players, "search": spec, "budget": players_module.describe_params(row),
            "games": games,
            "decisions_per_game": len(options) / games, "searched_decisions": len(searched),
            "mean_choices": sum(searched) / max(len(searched), 1), "playouts": playouts,
            "search_seconds_1_thread": round(thinking, 4),
            "decisions_per_second_1_thread": round(len(searched) / thinking),
            "playouts_per_second_1_thread": round(playouts / thinking),
            "games_per_second_1_thread": round(games / t_search),
            "among_heuristic_all_threads": round(field_games / t_among), "threads": all_threads,
            "field_games": field_games, "load_average": [round(x, 2) for x in os.getloadavg()],
            "machine": machine()}


def format_search_bench(results: list[dict]) -> str:
    lines = []
    for r in results:
        m = r["machine"]
        lines += [
            f"{r['game']}, {r['players']} players: {r['search']} ({r['budget']})  ({m['cpu']}, {m['cores']} cores; "
            f"load average " + " ".join(f"{x:.1f}" for x in r["load_average"]) + ")",
            f"  one search among random players, 1 thread   {r['games_per_second_1_thread']:>10,} games/s",
            f"  search decisions (2+ choices), 1 thread     {r['decisions_per_second_1_thread']:>10,} /s"
            f"  ({r['searched_decisions']:,} in {r['games']:,} games, {r['mean_choices']:.1f} choices each)",
            f"  playouts (= simulations), 1 thread          {r['playouts_per_second_1_thread']:>10,} /s",
            f"  one search among heuristic players, {r['threads']} threads".ljust(47)
            + f"{r['among_heuristic_all_threads']:>10,} games/s  ({r['field_games']:,} games)",
        ]
    return "\n".join(lines)


def format_bench(results: list[dict]) -> str:
    lines = []
    for r in results:
        m = r["machine"]
        lines += [
            f"{r['game']}, {r['players']} players  ({m['cpu']}, {m['cores']} cores, bmi2 "
            f"{'yes' if m.get('bmi2') else 'no'}, PDEP {'used' if m.get('pdep_used') else 'not used'}, numba {m['numba']})",
            f"  compiled, random play, 1 thread      {r['random_1_thread']:>12,} games/s",
            f"    {r['play_unit']} per game {r['plays_per_game']:,.2f}: {r['plays_per_second_1_thread'] / 1e6:,.1f} M "
            f"{r['play_unit']}/s, {r['ns_per_play_1_thread']:,.1f} ns per play (1 thread)",
            f"  compiled, random play, {r['threads']} threads     {r['random_all_threads']:>12,} games/s"
            f"   (1 -> {r['threads']} threads: {r['thread_scaling']:.2f}x)",
            f"  compiled, {r.get('strong_strategy', 'heuristic')} play, {r['threads']} threads".ljust(39)
            + f"{r['heuristic_all_threads']:>12,} games/s   ({r['strong_vs_random']:.2f}x random, {r['threads']} threads)",
            f"  reference engine (plain Python)      {r['reference']:>12,.0f} games/s",
            f"  ratio compiled/reference: {r['ratio_1_thread']:,}x on 1 thread, {r['ratio_all_threads']:,}x on {r['threads']}",
            f"  ({r['games']:,} compiled games per timing, best of the repeats; compile/cache load {r['warmup_seconds']} s)",
        ]
        if r.get("first_compile_seconds"):
            first = r["first_compile_seconds"]
            lines.append(f"  first command from an empty cache: {first['stock']:.1f} s ({r.get('strong_strategy')} play), "
                         f"{first['random']:.1f} s (random play)")
        if r.get("commit"):
            lines.append(f"  measured at {r['commit']}, {r['date']}")
    return "\n".join(lines)
